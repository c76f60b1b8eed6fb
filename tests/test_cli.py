"""The admin CLI against a real database file: every command, errors, concurrent use."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
import types
from datetime import date
from pathlib import Path

import pytest

from bbspoker.cli import main
from bbspoker.rules.seasons import season_of
from bbspoker.store.sqlite import Ledger
from bbspoker.store.passwords import hash_password, verify_password
from tests.support.stores import both_backends, store_db

BBSPOKER = Path(sys.executable).parent / "bbspoker"
HISTORY = {"players": ["Alice", "bob"], "deck": "sha256 of the order",
           "actions": ["Alice antes 10", "bob antes 10", "Alice bets 20", "bob passes"],
           "hands": {"Alice": "9- 10* J+ Q# K*", "bob": "5- 5# 6* 7+ 9#"},
           "winner": "Alice", "pot": 40}



@pytest.fixture
def db(ledger_backend, ledger_db, tmp_path, monkeypatch):
    """The database every command uses (``BBSPOKER_DB``): a SQLite file's path, or for a
    test marked ``both_backends`` also the PostgreSQL ledger's URL."""
    path = ledger_db if ledger_backend == "postgres" else tmp_path / "poker.db"
    monkeypatch.setenv("BBSPOKER_DB", str(path))
    monkeypatch.delenv("BBSPOKER_CONFIG", raising=False)
    monkeypatch.setattr("getpass.getuser", lambda: "sysop-test")
    monkeypatch.delenv("SUDO_USER", raising=False)
    return path


@pytest.fixture
def pwfile(tmp_path):
    path = tmp_path / "pw"
    path.write_text("correct horse\n")
    return path


@pytest.fixture
def run(capsys):
    """Call ``main(argv)``; return (exit status, stdout, stderr)."""
    def call(*argv: str) -> tuple[int, str, str]:
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err
    return call


@pytest.fixture
def users(db, run, pwfile):
    assert run("users", "add", "Alice", "--password-file", str(pwfile))[0] == 0
    assert run("users", "add", "bob", "--cubes", "50", "--password-file", str(pwfile))[0] == 0
    return db


def one_line_error(err: str, text: str) -> None:
    assert err.startswith("bbspoker: error: ") and err.count("\n") == 1, err
    assert text in err and "Traceback" not in err


def balance(db: Path, handle: str) -> int:
    with Ledger(db) as led:
        return led.balance(handle)


# ---------------------------------------------------------------- users


@both_backends
def test_bbs_ban_unban_and_list(db, run, tmp_path):
    """``bbs ban TAG --reason`` refuses a BBS's callers (kept in the database) and
    ``bbs unban`` lifts it; ``bbs list`` shows the configured systems, their accounts and
    bans, and a banned tag the config no longer has."""
    conf = tmp_path / "bbs.toml"
    conf.write_text('[[bbs]]\ntag = "DEMO"\nname = "Demo BBS"\naddresses = ["192.0.2.7"]\n'
                    'secret = "x"\nmax_nodes = 4\n'
                    '[[bbs]]\ntag = "EN"\nname = "Enigma"\naddresses = ["198.51.100.0/24"]\n')
    with Ledger(db) as led:
        led.bbs_account("bob", "DEMO")
        led.bbs_account("carol", "DEMO")
    code, out, err = run("--config", str(conf), "bbs", "ban", "demo", "--reason",
                         "spam \x1b[2J")
    assert code == 0 and out == "BBS DEMO is banned: spam [2J (its callers online are sent away)\n"
    assert err == ""
    code, out, err = run("--config", str(conf), "bbs", "ban", "OLD", "--reason", "gone")
    assert code == 0 and "no [[bbs]] system of the config has the tag OLD" in err
    with Ledger(db) as led:
        assert led.bbs_ban("DEMO") == "spam [2J" and led.bbs_ban("old") == "gone"
        assert [r[3] for r in led.bbs_bans()] == ["sysop-test", "sysop-test"]
    code, out, _ = run("--config", str(conf), "bbs", "list")
    lines = out.splitlines()
    assert code == 0 and lines[0].startswith("TAG") and len(lines) == 4
    assert lines[1].split()[:5] == ["DEMO", "2", "4", "yes", "banned:"]
    assert "Demo BBS (192.0.2.7)" in lines[1]
    assert lines[2].split()[:5] == ["EN", "0", "10", "no", "ok"]
    assert lines[3].split()[0] == "OLD" and "(not in the config)" in lines[3]
    assert run("--config", str(conf), "bbs", "unban", "DEMO")[0] == 0
    code, _, err = run("--config", str(conf), "bbs", "unban", "DEMO")
    assert code == 1
    one_line_error(err, "BBS DEMO is not banned")
    with pytest.raises(SystemExit) as exit_:
        main(["bbs", "ban", "E", "--reason", "x"])           # a tag has 2-8 letters
    assert exit_.value.code == 2
    assert run("--config", str(conf), "bbs", "ban", "[en]", "--reason", "x")[0] == 0
    with Ledger(db) as led:                      # as its BBS sends it: brackets, any case
        assert led.bbs_ban("EN") == "x"


def test_users_add_from_password_file_and_with_cubes(users, run):
    with Ledger(users) as led:
        assert verify_password(led.password_hash("alice"), "correct horse")
        assert led.balance("alice") == 1000 and led.balance("bob") == 50
        assert led.history("bob", 1)[0].actor == "sysop-test"
    code, out, _ = run("users", "list")
    assert code == 0
    lines = out.splitlines()
    assert lines[1].split()[:2] == ["Alice", "1000"] and lines[2].split()[:2] == ["bob", "50"]


@both_backends
def test_users_add_bot_makes_a_computer_players_account_funded_like_anyone(users, run,
                                                                           pwfile):
    code, out, _ = run("users", "add", "Robo", "--bot", "--cubes", "500")
    assert code == 0 and out == "created computer player Robo with 500 CUBES\n"
    assert run("users", "add", "Porty", "--bot", "--password-file", str(pwfile))[0] == 0
    with Ledger(users) as led:
        robo, porty, alice = (led.find_account(h) for h in ("robo", "porty", "alice"))
        assert robo.bot and porty.bot and not alice.bot
        assert led.password_hash("robo") is None               # it logs in nowhere
        assert verify_password(led.password_hash("porty"), "correct horse")
        assert [a.handle for a in led.list_accounts(bots=True)] == ["Porty", "Robo"]
        assert led.history("robo", 1)[0].reason == "signup"   # its CUBES are journalled
        assert led.verify() == []
    out = run("users", "list")[1]
    assert [line.split()[0] for line in out.splitlines() if line.endswith("ok (bot)")] \
        == ["Porty", "Robo"]
    assert "handle:     Robo  (computer player)" in run("users", "show", "robo")[1]


def test_users_add_asks_the_password_twice(db, run, monkeypatch):
    typed = iter(["open sesame", "open sesame"])
    monkeypatch.setattr("getpass.getpass", lambda prompt="": next(typed))
    code, out, _ = run("users", "add", "carol")
    assert code == 0 and "created carol with 1000 CUBES" in out
    with Ledger(db) as led:
        assert verify_password(led.password_hash("carol"), "open sesame")


def test_users_add_refuses_mismatch_taken_and_bad_handles(users, run, monkeypatch, pwfile):
    typed = iter(["open sesame", "open sesamE"])
    monkeypatch.setattr("getpass.getpass", lambda prompt="": next(typed))
    code, _, err = run("users", "add", "carol")
    assert code == 1
    one_line_error(err, "passwords differ")
    code, _, err = run("users", "add", "ALICE", "--password-file", str(pwfile))
    assert code == 1
    one_line_error(err, "taken")
    code, _, err = run("users", "add", "x\x1b[2J", "--password-file", str(pwfile))
    assert code == 1
    one_line_error(err, "handle")
    short = pwfile.parent / "short"
    short.write_text("abc\n")
    code, _, err = run("users", "add", "dave", "--password-file", str(short))
    one_line_error(err, "password too short")
    with Ledger(users) as led:
        assert [a.handle for a in led.list_accounts()] == ["Alice", "bob"]


@both_backends
def test_users_show_passwd_ban_unban(users, run, pwfile):
    code, out, _ = run("users", "show", "BOB")
    assert code == 0 and "handle:     bob" in out and "CUBES:      50" in out
    assert "banned:     no" in out
    new = pwfile.parent / "new"
    new.write_text("battery staple\n")
    assert run("users", "passwd", "alice", "--password-file", str(new))[0] == 0
    with Ledger(users) as led:
        assert verify_password(led.password_hash("alice"), "battery staple")
        assert not verify_password(led.password_hash("alice"), "correct horse")
    code, out, _ = run("users", "ban", "bob", "--reason", "cheating")
    assert code == 0
    assert "banned:     yes: cheating" in run("users", "show", "bob")[1]
    assert "banned: cheating" in run("users", "list")[1]
    assert run("users", "unban", "bob")[0] == 0
    with Ledger(users) as led:
        assert not led.find_account("bob").banned


def test_unknown_handles_are_one_line_errors(users, run):
    for argv in (("users", "show", "zed"), ("users", "ban", "zed", "--reason", "x"),
                 ("users", "unban", "zed"), ("cubes", "show", "zed"),
                 ("cubes", "grant", "zed", "5", "--reason", "x"), ("cubes", "history", "zed")):
        code, _, err = run(*argv)
        assert code == 1, argv
        one_line_error(err, "no account named zed")


def test_commands_need_an_existing_database(db, run):
    code, _, err = run("users", "list")
    assert code == 1
    one_line_error(err, f"no database at {db}")
    assert not db.exists()


# ---------------------------------------------------------------- cubes


def test_cubes_show_json_is_exactly_handle_cubes_stacks_and_total(users, run):
    code, out, _ = run("cubes", "show", "BOB", "--json")
    assert code == 0
    assert out == '{"handle": "bob", "cubes": 50, "stacks": {}, "total": 50}\n'
    assert json.loads(out) == {"handle": "bob", "cubes": 50, "stacks": {}, "total": 50}
    assert run("cubes", "show", "bob")[1] == "bob: 50 CUBES\n"


@both_backends
def test_cubes_grant_take_set_record_reason_and_os_user(users, run):
    assert run("cubes", "grant", "bob", "25", "--reason", "contest prize")[1] == (
        "bob: +25, now 75 CUBES (contest prize)\n")
    assert run("cubes", "take", "bob", "5", "--reason", "chat abuse")[0] == 0
    code, out, _ = run("cubes", "set", "bob", "200", "--reason", "reset")
    assert (code, out) == (0, "bob: set to 200, now 200 CUBES (reset)\n")
    assert balance(users, "bob") == 200
    with Ledger(users) as led:
        rows = led.history("bob", 3)
    assert [(r.reason, r.amount, r.note, r.actor) for r in rows] == [
        ("set", 130, "reset", "sysop-test"), ("take", -5, "chat abuse", "sysop-test"),
        ("grant", 25, "contest prize", "sysop-test")]
    code, out, _ = run("cubes", "history", "bob", "--limit", "2")
    lines = out.splitlines()
    assert code == 0 and len(lines) == 3
    assert "+130" in lines[1] and "sysop-test / reset" in lines[1]
    assert "-5" in lines[2] and "chat abuse" in lines[2]


def test_adjustment_through_sudo_records_the_invoking_user(users, run, monkeypatch):
    monkeypatch.setenv("SUDO_USER", "ann")
    assert run("cubes", "grant", "bob", "1", "--reason", "via sudo")[0] == 0
    with Ledger(users) as led:
        assert led.history("bob", 1)[0].actor == "ann (sudo as sysop-test)"


def test_cubes_take_never_goes_below_zero(users, run):
    code, _, err = run("cubes", "take", "bob", "51", "--reason", "too much")
    assert code == 1
    one_line_error(err, "bob has 50 CUBES, needs 51")
    assert balance(users, "bob") == 50


@pytest.mark.parametrize("argv", [("cubes", "grant", "bob", "0", "--reason", "x"),
                                  ("cubes", "grant", "bob", "ten", "--reason", "x"),
                                  ("cubes", "set", "bob", "-1", "--reason", "x"),
                                  ("cubes", "grant", "bob", "5")])
def test_bad_amounts_and_missing_reasons_are_usage_errors(users, run, argv):
    with pytest.raises(SystemExit) as info:
        run(*argv)
    assert info.value.code == 2
    assert balance(users, "bob") == 50


@both_backends
def test_cli_grants_interleaved_with_a_running_game_lose_nothing(users, run):
    """The server's connection plays a game while the CLI adjusts the same players."""
    with Ledger(users) as server:
        gid = server.open_game(["Alice", "bob"], "d" * 64)
        server.pay_into_pot(gid, "alice", 10, "ante")
        assert run("cubes", "grant", "alice", "100", "--reason", "prize")[0] == 0
        server.pay_into_pot(gid, "bob", 10, "ante")
        assert run("cubes", "take", "bob", "30", "--reason", "fine")[0] == 0
        assert server.pay_into_pot(gid, "bob", 10, "bet") == 0
        assert run("cubes", "grant", "bob", "1", "--reason", "pity")[0] == 0
        assert server.balance("bob") == 1
        assert server.pay_out_pot(gid, "alice", 30) == 1000 - 10 + 100 + 30
        server.close_game(gid, "Alice", HISTORY)
    assert (balance(users, "alice"), balance(users, "bob")) == (1120, 1)
    code, out, _ = run("ledger", "verify")
    assert code == 0 and out.startswith("ledger OK")


# ---------------------------------------------------------------- games, verify, backup


@both_backends
def test_games_list_and_show_print_the_hand_history(users, run):
    with Ledger(users) as led:
        gid = led.open_game(["Alice", "bob"], "ab" * 32)
        for handle, amount, reason in (("alice", 10, "ante"), ("bob", 10, "ante"),
                                       ("alice", 20, "bet")):
            led.pay_into_pot(gid, handle, amount, reason)
        led.pay_out_pot(gid, "alice", 40)
        led.close_game(gid, "Alice", HISTORY)
        open_gid = led.open_game(["bob"], "cd" * 32)
        led.pay_into_pot(open_gid, "bob", 10, "ante")
    code, out, _ = run("games", "list")
    lines = out.splitlines()
    assert code == 0 and len(lines) == 3
    assert lines[1].split()[0] == str(open_gid) and "open, pot 10 CUBES" in lines[1]
    assert lines[2].split()[0] == str(gid) and "Alice, bob" in lines[2]
    assert "winner Alice" in lines[2]
    code, out, _ = run("games", "show", str(gid))
    assert code == 0
    assert f"Game {gid}" in out and "ab" * 32 in out and "winner Alice" in out
    for action in HISTORY["actions"]:
        assert f"    {action}\n" in out
    assert "Alice  9- 10* J+ Q# K*" in out and "bob    5- 5# 6* 7+ 9#" in out
    assert "  winner: Alice\n" in out and "  pot: 40\n" in out
    code, _, err = run("games", "show", "999")
    assert code == 1
    one_line_error(err, "no game 999")


def test_ledger_verify_exits_1_and_says_what_differs(users, run):
    code, out, _ = run("ledger", "verify")
    assert code == 0
    assert out == ("ledger OK: 2 accounts hold 1050 CUBES, system 0, open pots 0, stacks 0, "
                   "tournament pools 0; grants 1050 - takes 0 = 1050\n")
    raw = sqlite3.connect(users)
    with raw:
        raw.execute("UPDATE accounts SET cubes = 999 WHERE handle = 'bob'")
    raw.close()
    code, out, err = run("ledger", "verify")
    assert code == 1
    assert "account bob: balance is 999 CUBES but its journal sums to 50" in out
    assert "total CUBES 1999" in out
    assert "discrepancies" in err


def test_backup_writes_a_usable_copy_and_never_overwrites(users, run, tmp_path):
    dest = tmp_path / "backup.db"
    assert run("backup", str(dest))[0] == 0
    with Ledger(dest) as copy:
        assert copy.balance("bob") == 50 and copy.verify() == []
    code, _, err = run("backup", str(dest))
    assert code == 1
    one_line_error(err, "already exists")


def test_the_cli_works_on_the_postgresql_ledger_the_config_names(db, run, pwfile, tmp_path,
                                                                   monkeypatch, postgres_url):
    """With ``[ledger] url`` the commands use that PostgreSQL database (the SQLite file of
    BBSPOKER_DB is left alone); a backup is pg_dump's job and says so in one line."""
    config = tmp_path / "pg.toml"
    config.write_text(f'[ledger]\nurl = "{postgres_url}"\n')
    monkeypatch.setenv("BBSPOKER_CONFIG", str(config))
    assert run("users", "add", "bob", "--cubes", "50", "--password-file", str(pwfile))[0] == 0
    assert run("cubes", "grant", "bob", "25", "--reason", "contest prize")[0] == 0
    assert run("cubes", "show", "bob")[1] == "bob: 75 CUBES\n"
    assert run("ledger", "verify")[0] == 0
    assert not db.exists()
    with Ledger(postgres_url) as led:
        assert led.balance("bob") == 75
    code, _, err = run("backup", str(tmp_path / "copy.db"))
    assert code == 1
    one_line_error(err, "pg_dump")
    config.write_text('[ledger]\nurl = "postgresql://sysop:s3cret@localhost:1/nowhere"\n')
    code, _, err = run("cubes", "show", "bob")
    assert code == 1 and "s3cret" not in err
    one_line_error(err, "cannot open database postgresql://sysop:***@localhost:1/nowhere")


# ---------------------------------------------------------------- serve, config, help


def test_serve_hands_the_config_with_overrides_to_the_server(db, run, monkeypatch, tmp_path):
    seen = []
    fake = types.ModuleType("bbspoker.app")
    fake.run = lambda config: seen.append(config) or 0
    monkeypatch.setitem(sys.modules, "bbspoker.app", fake)
    conf = tmp_path / "c.toml"
    conf.write_text('[server]\nhost = "0.0.0.0"\nport = 4000\n[table]\nante = 25\n')
    assert run("--config", str(conf), "serve", "--port", "2424")[0] == 0
    assert run("serve", "--config", str(conf), "--host", "::1")[0] == 0
    assert [(c.server.host, c.server.port, c.table.kind_keys["ante"]) for c in seen] == [
        ("0.0.0.0", 2424, 25), ("::1", 4000, 25)]
    assert seen[0].ledger.path == str(db)


def test_config_file_sets_starting_cubes_and_bad_config_is_one_line(db, run, tmp_path, pwfile):
    conf = tmp_path / "c.toml"
    conf.write_text("[ledger]\nstarting_cubes = 77\n")
    assert run("users", "add", "eve", "--config", str(conf),
               "--password-file", str(pwfile))[0] == 0
    assert balance(db, "eve") == 77
    conf.write_text("[ledger]\nstarting_cubez = 77\n")
    code, _, err = run("--config", str(conf), "users", "list")
    assert code == 1
    one_line_error(err, "unknown key 'starting_cubez' in [ledger]")


COMMANDS = [[], ["serve"], ["users"], ["users", "add"], ["users", "list"], ["users", "show"],
            ["users", "passwd"], ["users", "ban"], ["users", "kick"], ["users", "unban"],
            ["users", "approve"], ["bbs"], ["bbs", "list"], ["bbs", "ban"], ["bbs", "unban"],
            ["cubes"],
            ["cubes", "show"], ["cubes", "grant"], ["cubes", "take"], ["cubes", "set"],
            ["cubes", "history"], ["games"], ["games", "list"], ["games", "show"],
            ["ledger"], ["ledger", "verify"], ["tournaments"], ["tournaments", "list"],
            ["tournaments", "show"], ["tournaments", "cancel"], ["stats"], ["backup"], ["sim"]]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "bbspoker")
def test_every_command_has_help(command, capsys):
    with pytest.raises(SystemExit) as info:
        main([*command, "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: bbspoker" + "".join(f" {c}" for c in command))
    assert "--config" in out


# ---------------------------------------------------------------- the installed script


def test_installed_console_script(users, pwfile):
    env = {**os.environ, "BBSPOKER_DB": str(users)}
    shown = subprocess.run([str(BBSPOKER), "cubes", "show", "alice", "--json"], env=env,
                           capture_output=True, text=True, check=False)
    assert shown.returncode == 0
    assert json.loads(shown.stdout) == {"handle": "Alice", "cubes": 1000, "stacks": {},
                                        "total": 1000}
    taken = subprocess.run([str(BBSPOKER), "cubes", "take", "alice", "5000", "--reason", "x"],
                           env=env, capture_output=True, text=True, check=False)
    assert taken.returncode == 1
    one_line_error(taken.stderr, "Alice has 1000 CUBES, needs 5000")
    verify = subprocess.run([str(BBSPOKER), "ledger", "verify"], env=env,
                            capture_output=True, text=True, check=False)
    assert verify.returncode == 0 and verify.stdout.startswith("ledger OK: 2 accounts")


# ---------------------------------------------------------------- issue 20: huge amounts


@pytest.mark.parametrize("argv", [
    ["cubes", "set", "alice", "9223372036854775807", "--reason", "r"],
    ["cubes", "grant", "alice", "99999999999999999999999", "--reason", "r"],
    ["cubes", "grant", "alice", "1000000000001", "--reason", "r"],
    ["users", "add", "carol", "--cubes", "9223372036854775808"],
    ["games", "show", "99999999999999999999"],
    ["cubes", "grant", "alice", "1e3", "--reason", "r"],
    ["cubes", "grant", "alice", "²", "--reason", "r"],
])
def test_a_huge_or_odd_amount_is_a_one_line_usage_error_and_changes_nothing(users, argv, capsys):
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and ("must be at most" in err or "not a whole number" in err)
    with Ledger(users) as led:
        assert led.balance("alice") == 1000 and led.verify() == []


def test_an_adjustment_may_not_take_a_balance_past_the_bound(users, run):
    assert run("cubes", "set", "alice", "1000000000000", "--reason", "r")[0] == 0
    code, _, err = run("cubes", "grant", "alice", "1", "--reason", "r")
    assert code == 1
    one_line_error(err, "alice would hold 1,000,000,000,001 CUBES; an account may hold at "
                        "most 1,000,000,000,000 through an adjustment")
    with Ledger(users) as led:
        assert led.balance("alice") == 10**12 and led.verify() == []


def test_the_schema_refuses_amounts_near_sqlites_integer_limit_whoever_writes(users):
    raw = sqlite3.connect(users)
    with pytest.raises(sqlite3.IntegrityError, match="amount out of bounds"):
        with raw:
            raw.execute("UPDATE accounts SET cubes = 9223372036854775807 WHERE handle = 'bob'")
    raw.close()


def test_verify_reports_a_database_damaged_past_the_bounds_and_never_crashes(users, run):
    raw = sqlite3.connect(users)
    with raw:                                       # as an older bbspoker let it happen
        raw.execute("DROP TRIGGER accounts_cubes_update")
        raw.execute("DROP TRIGGER journal_amount_insert")
        raw.execute("UPDATE accounts SET cubes = 9223372036854775807 WHERE handle = 'bob'")
        account = raw.execute("SELECT id FROM accounts WHERE handle = 'bob'").fetchone()[0]
        raw.execute("INSERT INTO journal (account_id, amount, reason, at, balance) "
                    "VALUES (?, 9223372036854775807, 'set', 0, 9223372036854775807)", (account,))
    raw.close()
    code, out, err = run("ledger", "verify")
    assert code == 1 and "Traceback" not in err
    assert "account bob: holds 9223372036854775807 CUBES, more than the 1,000,000,000,000" in out
    assert "could not check the" in out and "integer overflow" in out


@both_backends
def test_users_approve_lets_a_waiting_account_in_with_its_starting_cubes(users, run):
    with Ledger(users) as led:
        led.create_account("newbie", hash_password("pw-newbie"), approved=False)
    out = run("users", "list")[1]
    assert [line.split()[0] for line in out.splitlines()
            if line.endswith("waiting for approval")] == ["newbie"]
    code, out, _ = run("users", "approve", "newbie", "--cubes", "300")
    assert code == 0 and out == "approved newbie: 300 CUBES\n"
    code, _, err = run("users", "approve", "newbie")
    assert code == 1
    one_line_error(err, "newbie does not wait for approval")
    with Ledger(users) as led:
        assert led.find_account("newbie").approved and led.balance("newbie") == 300
        assert led.history("newbie", 1)[0].actor == "sysop-test" and led.verify() == []


# ---------------------------------------------------------------- issue 20: stacks, pipes, text


@pytest.fixture
def seated(users):
    """bob (50 CUBES) has bought in for 40 at Hold'em table ``holdem``: 10 in the account."""
    with Ledger(users) as led:
        led.buy_in("bob", 40, table="holdem")
    return users


@both_backends
def test_users_list_cubes_show_and_users_show_count_the_cubes_in_table_stacks(seated, run):
    lines = run("users", "list")[1].splitlines()
    assert lines[0].split()[:4] == ["HANDLE", "CUBES", "AT", "TABLES"]
    assert lines[1].split()[:3] == ["Alice", "1000", "0"]
    assert lines[2].split()[:3] == ["bob", "10", "40"]
    assert run("cubes", "show", "bob")[1] == (
        "bob: 10 CUBES in the account, 40 at table holdem (50 in all)\n")
    assert run("cubes", "show", "alice")[1] == "Alice: 1000 CUBES\n"
    out = run("cubes", "show", "bob", "--json")[1]
    assert json.loads(out) == {"handle": "bob", "cubes": 10, "stacks": {"holdem": 40},
                               "total": 50}
    assert "CUBES:      10 in the account, 40 at table holdem (50 in all)\n" \
        in run("users", "show", "bob")[1]


@both_backends
def test_cubes_history_says_whether_a_balance_is_the_account_or_a_stack(seated, run):
    lines = run("cubes", "history", "bob")[1].splitlines()
    assert lines[0].split()[:6] == ["ID", "TIME", "AMOUNT", "BALANCE", "OF", "WHAT"]
    # newest first: the buy-in into the stack, the buy-in out of the account, the signup
    assert lines[1].split()[3:8] == ["+40", "40", "stack", "holdem", "buy-in"]
    assert lines[2].split()[3:7] == ["-40", "10", "account", "buy-in"]
    assert lines[3].split()[3:7] == ["+50", "50", "account", "signup"]


@both_backends
def test_cubes_set_says_that_a_stack_at_a_table_is_not_affected(seated, run):
    code, out, _ = run("cubes", "set", "bob", "100", "--reason", "reset")
    assert code == 0 and out == (
        "bob: set to 100, now 100 CUBES (reset)\n"
        "note: bob also has 40 CUBES at table holdem; cubes set sets the account only, "
        "the stack is not affected\n")
    with Ledger(seated) as led:
        assert led.balance("bob") == 100 and led.stack("bob", "holdem") == 40
        assert led.verify() == []
    assert run("cubes", "set", "alice", "5", "--reason", "reset")[1] == (
        "Alice: set to 5, now 5 CUBES (reset)\n")


@both_backends
def test_a_reason_with_escape_sequences_is_stored_and_printed_without_them(users, run):
    code, out, _ = run("cubes", "grant", "bob", "5", "--reason", "prize\x1b[2J\x1b]0;pwned\x07!")
    assert code == 0 and out == "bob: +5, now 55 CUBES (prize[2J]0;pwned!)\n"
    assert run("users", "ban", "bob", "--reason", "spam\r\x1b[1Aok")[0] == 0
    assert run("users", "kick", "bob", "--reason", "bye\x1b[5m")[0] == 0
    with Ledger(users) as led:
        assert led.history("bob", 1)[0].note == "prize[2J]0;pwned!"
        assert led.find_account("bob").ban_reason == "spam[1Aok"
        assert led.take_kicks() == [("bob", "bye[5m")]
    with pytest.raises(SystemExit) as stop:      # nothing left of it: no reason at all
        run("cubes", "take", "bob", "5", "--reason", "\x1b\x07\r\n")
    assert stop.value.code == 2 and balance(users, "bob") == 55
    # rows written before the input was cleaned are printed without their controls
    store_db(users).raw("UPDATE journal SET note = 'old\x1b[31mred', actor = 'ev\x1bil' "
                        "WHERE id = (SELECT MAX(id) FROM journal)",
                        "UPDATE accounts SET ban_reason = 'x\x1b[2Jy' WHERE handle = 'bob'")
    out = run("cubes", "history", "bob")[1]
    assert "\x1b" not in out and "evil / old[31mred" in out
    for argv in (("users", "show", "bob"), ("users", "list")):
        out = run(*argv)[1]
        assert "\x1b" not in out and "x[2Jy" in out


def test_cubes_history_piped_into_a_reader_that_stops_early_exits_quietly(users):
    """``bbspoker cubes history bob | head -n 1``: the reader goes away after one line;
    the command ends as Unix tools do (status 141, as if killed by SIGPIPE), nothing on
    stderr."""
    with Ledger(users) as led, led.transaction():
        for _ in range(3000):                    # far more than a pipe's buffer holds
            led.grant("bob", 1, "a long history", "sysop-test")
    env = {**os.environ, "BBSPOKER_DB": str(users)}
    proc = subprocess.Popen([str(BBSPOKER), "cubes", "history", "bob", "--limit", "5000"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout.readline().split()[0] == b"ID"
    proc.stdout.close()                          # what head does after its line
    err = proc.stderr.read()
    assert proc.wait(timeout=30) == 141
    assert err == b""


def test_the_cli_starts_without_loading_the_poker_engines():
    """Every ``bbspoker`` command, above all ``bbspoker door`` that a BBS starts for each
    caller, loads the config and the game kinds' settings; the engines (pokerkit, some
    hundreds of milliseconds to import) load only when a table or a check needs them."""
    out = subprocess.run([sys.executable, "-c", "import sys, bbspoker.cli, bbspoker.config; "
                          "from bbspoker.rules import kinds; kinds.kind('holdem').config; "
                          "print(sorted(m for m in sys.modules if m.split('.')[0] == 'pokerkit'))"],
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# ---------------------------------------------------------------- tournaments


@pytest.fixture
def tournaments(users):
    """Tournament 1 (Nightly, finished: Alice won bob's buy-in), 2 (registering, both
    entered, 20 CUBES each) and 3 (running, Alice alone)."""
    with Ledger(users) as led:
        done = led.create_tournament("nightly", "Nightly \x1b[31mHold'em", "holdem", 10)
        led.register(done, "Alice")
        led.register(done, "bob")
        led.start_tournament(done, {"level": 1})
        led.finish_tournament(done, {"Alice": 1, "bob": 2}, {"Alice": 20}, {"winner": "Alice"})
        open_ = led.create_tournament("sng", "Sit and go", "stud", 20)
        led.register(open_, "bob")
        led.register(open_, "Alice")
        running = led.create_tournament("turbo", "Turbo", "holdem", 5)
        led.register(running, "alice")
        led.start_tournament(running, {"level": 4})
    return users


@both_backends
def test_tournaments_list_shows_each_one_with_its_entrants_and_pool(tournaments, run):
    code, out, _ = run("tournaments", "list")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["ID", "KEY", "KIND", "BUY-IN", "STATUS", "ENTRANTS", "POOL",
                                "NAME"]
    assert [line.split()[:7] for line in lines[1:]] == [
        ["3", "turbo", "holdem", "5", "running", "1", "5"],
        ["2", "sng", "stud", "20", "registering", "2", "40"],
        ["1", "nightly", "holdem", "10", "finished", "2", "0"]]
    assert "\x1b" not in out and lines[3].endswith("Nightly [31mHold'em")
    code, out, _ = run("tournaments", "list", "--status", "registering", "--status", "running")
    assert [line.split()[0] for line in out.splitlines()[1:]] == ["3", "2"]


@both_backends
def test_tournaments_show_gives_status_pool_places_and_prizes(tournaments, run):
    code, out, _ = run("tournaments", "show", "1")
    assert code == 0
    assert "Tournament 1: Nightly [31mHold'em" in out and "\x1b" not in out
    assert "  status:     finished\n" in out and "  pool:       0 CUBES\n" in out
    assert "  buy-in:     10 CUBES\n" in out
    table = out[out.index("PLACE"):].splitlines()
    assert table[0].split() == ["PLACE", "HANDLE", "BUY-IN", "PRIZE"]
    assert [line.split() for line in table[1:]] == [["1", "Alice", "10", "20"],
                                                    ["2", "bob", "10", "0"]]
    code, out, _ = run("tournaments", "show", "2")
    assert "  status:     registering\n" in out and "  pool:       40 CUBES\n" in out
    assert [line.split() for line in out[out.index("PLACE"):].splitlines()[1:]] == [
        ["-", "bob", "20", "-"], ["-", "Alice", "20", "-"]]
    code, out, _ = run("tournaments", "show", "2", "--json")
    shown = json.loads(out)
    assert (shown["status"], shown["pool"], [e["handle"] for e in shown["entries"]]) == (
        "registering", 40, ["bob", "Alice"])
    code, _, err = run("tournaments", "show", "9")
    assert code == 1
    one_line_error(err, "no tournament 9")


@both_backends
def test_tournaments_cancel_refunds_every_buy_in(tournaments, run):
    code, out, _ = run("tournaments", "cancel", "3", "--reason", "server \x1b[2Jmove")
    assert code == 0
    assert out == ("tournament 3 cancelled (server [2Jmove); refunded: Alice 5 CUBES\n")
    assert balance(tournaments, "Alice") == 1000 + 10 - 20
    code, out, _ = run("tournaments", "cancel", "2", "--reason", "no players")
    assert out.endswith("refunded: bob 20 CUBES, Alice 20 CUBES\n")
    assert (balance(tournaments, "alice"), balance(tournaments, "bob")) == (1010, 40)
    code, _, err = run("tournaments", "cancel", "1", "--reason", "late")
    assert code == 1
    one_line_error(err, "tournament 1 is already finished")
    assert balance(tournaments, "alice") == 1010
    code, out, _ = run("ledger", "verify")
    assert code == 0 and "tournament pools 0" in out
    with Ledger(tournaments) as led:
        assert [r.reason for r in led.history("bob", 1)] == ["tournament_refund"]
        assert led.history("bob", 1)[0].note == "no players"


@pytest.fixture
def seasons(tournaments):
    """The ``tournaments`` fixture (Alice beat bob this month: 14 points and +10 CUBES to
    10 and -10) and one of last month, where bob beat Alice (buy-in 5)."""
    now = time.time()
    before = season_of(date.fromtimestamp(now), "month").previous()
    with Ledger(tournaments, clock=lambda: sum(before.bounds()) / 2) as led:
        tid = led.create_tournament("nightly", "Nightly", "holdem", 5)
        led.register(tid, "bob")
        led.register(tid, "Alice")
        led.start_tournament(tid, {"level": 1})
        led.finish_tournament(tid, {"bob": 1, "Alice": 2}, {"bob": 10}, {})
    return season_of(date.fromtimestamp(now), "month"), before


@both_backends
def test_stats_season_prints_the_tournament_standings(seasons, run):
    this, before = seasons
    code, out, _ = run("stats", "--season", "current")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith(f"Tournament standings, season {this.label} (")
    assert lines[1].split() == ["RANK", "PLAYER", "POINTS", "TOURNAMENTS", "WINS", "CASHES",
                                "NET"]
    assert [line.split() for line in lines[2:]] == [["1", "Alice", "14", "1", "1", "1", "+10"],
                                                    ["2", "bob", "10", "1", "0", "0", "-10"]]
    assert run("stats")[1] == out                              # the current season
    lines = run("stats", "--season", "previous")[1].splitlines()
    assert lines[0].startswith(f"Tournament standings, season {before.label} (")
    assert [line.split() for line in lines[2:]] == [["1", "bob", "14", "1", "1", "1", "+5"],
                                                    ["2", "Alice", "10", "1", "0", "0", "-5"]]
    lines = run("stats", "--season", "all")[1].splitlines()
    assert lines[0] == "Tournament standings, all time"
    assert [line.split() for line in lines[2:]] == [["1", "Alice", "24", "2", "1", "1", "+5"],
                                                    ["2", "bob", "24", "2", "1", "1", "-5"]]


@both_backends
def test_stats_of_a_handle_adds_its_tournament_lines(seasons, run):
    this, before = seasons
    code, out, _ = run("stats", "BOB")
    assert code == 0
    assert out.startswith("bob\nresults:    no finished game yet\n"), out
    tail = out[out.index("tournaments:"):].splitlines()
    assert tail[0].split() == ["tournaments:", "TOURNAMENTS", "RANK", "POINTS", "PLAYED",
                               "WON", "CASHES", "NET"]
    assert tail[1].split() == ["season", this.label, "2", "10", "1", "0", "0", "-10"]
    assert tail[2].split() == ["all", "time", "2", "24", "2", "1", "1", "-5"]
    tail = run("stats", "bob", "--season", "previous")[1].splitlines()[-2:]
    assert tail[0].split() == ["season", before.label, "1", "14", "1", "1", "1", "+5"]
    code, _, err = run("stats", "zed")
    assert code == 1
    one_line_error(err, "no account named zed")


@both_backends
def test_stats_without_tournaments_says_so(users, run):
    code, out, _ = run("stats")
    assert code == 0 and "No finished tournaments in this season yet." in out
    assert "tournaments: Tournaments: none finished yet." in run("stats", "alice")[1]


@both_backends
def test_cubes_history_names_the_tournament_of_a_pool_row(tournaments, run):
    lines = run("cubes", "history", "alice", "--limit", "2")[1].splitlines()
    assert lines[0].split()[6] == "GAME"
    assert lines[1].split()[3:8] == ["-5", "985", "account", "tournament_buy_in", "T3"]
