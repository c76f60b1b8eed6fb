"""``bbspoker bulletin``: the hall of fame as a BBS's logon bulletin (ANSI with SAUCE,
plain ASCII, JSON), from a known set of games in a real database file."""

from __future__ import annotations

import json
import struct
import time
from datetime import date
from pathlib import Path

import pyte
import pytest

from bbspoker.cli import main
from bbspoker.door.halloffame import bbs_of
from bbspoker.rules.seasons import season_of
from bbspoker.store.sqlite import Ledger
from tests.support.stores import both_backends

DAY = 86400.0
CONFIG = """
[[tables]]
id = "poker"
name = "PoKeR"

[[tables]]
id = "hold"
name = "Hold"
game = "holdem"
"""


@pytest.fixture
def db(ledger_backend, ledger_db, tmp_path, monkeypatch):
    """The database the bulletin reads (``BBSPOKER_DB``): a SQLite file's path, or for a
    test marked ``both_backends`` also the PostgreSQL ledger's URL."""
    path = ledger_db if ledger_backend == "postgres" else tmp_path / "poker.db"
    monkeypatch.setenv("BBSPOKER_DB", str(path))
    monkeypatch.delenv("BBSPOKER_CONFIG", raising=False)
    return path


@pytest.fixture
def conf(tmp_path):
    path = tmp_path / "bbspoker.toml"
    path.write_text(CONFIG)
    return path


@pytest.fixture
def run(capsys, conf):
    """Call ``main(["--config", conf, *argv])``; return (exit status, stdout, stderr)."""
    def call(*argv: str) -> tuple[int, str, str]:
        code = main(["--config", str(conf), *argv])
        out, err = capsys.readouterr()
        return code, out, err
    return call


def account(ledger: Ledger, handle: str, cubes: int | None = None) -> None:
    """A person's account; ``alias@TAG``: a caller of BBS ``TAG`` (made as the RLOGIN door
    makes it, on the first visit)."""
    if "@" in handle:
        alias, _, tag = handle.rpartition("@")
        ledger.bbs_account(alias, tag, starting_cubes=cubes, signups_per_day=1000)
    else:
        ledger.create_account(handle, None, cubes)


def play(ledger: Ledger, clock: list[float], days_ago: float, table: str,
         paid: dict[str, int], winner: str) -> None:
    """One finished game at ``table`` that ended ``days_ago`` days ago: each player pays
    ``paid`` into the pot, ``winner`` takes it all."""
    clock[0] = time.time() - days_ago * DAY
    game = ledger.open_game(list(paid), "0" * 64, table=table)
    for handle, cubes in paid.items():
        ledger.pay_into_pot(game, handle, cubes, "bet")
    ledger.pay_out_pot(game, winner, sum(paid.values()))
    ledger.close_game(game, winner, {"players": list(paid)})


@pytest.fixture
def games(db):
    """The known games. alice came directly; bob and dora from the BBS tagged EN, carl
    from DE (handles ``alias@TAG``, as the RLOGIN door makes them); robo is a bot.

    =====  ========  =====  ==============================  =========
    game   ended     table  paid in                         winner
    =====  ========  =====  ==============================  =========
    1      40 d ago  poker  alice 100, bob 400              alice 500
    2      10 d ago  poker  carl 50, dora 250               carl 300
    3      1 d ago   poker  bob 100, dora 100               dora 200
    4      2 d ago   hold   alice 60, carl 60               carl 120
    5      1 d ago   poker  robo 900, alice 10              robo 910
    =====  ========  =====  ==============================  =========
    """
    clock = [time.time() - 50 * DAY]
    with Ledger(db, clock=lambda: clock[0]) as ledger:
        for handle in ("alice", "bob@EN", "carl@DE", "dora@EN"):
            account(ledger, handle)
        ledger.create_account("robo", None, 5000, bot=True)
        play(ledger, clock, 40, "poker", {"alice": 100, "bob@EN": 400}, "alice")
        play(ledger, clock, 10, "poker", {"carl@DE": 50, "dora@EN": 250}, "carl@DE")
        play(ledger, clock, 1, "poker", {"bob@EN": 100, "dora@EN": 100}, "dora@EN")
        play(ledger, clock, 2, "hold", {"alice": 60, "carl@DE": 60}, "carl@DE")
        play(ledger, clock, 1, "poker", {"robo": 900, "alice": 10}, "robo")
    return db


def ranking(run, *options: str) -> list[tuple[str, str | None, int]]:
    code, out, err = run("bulletin", "--format", "json", *options)
    assert code == 0, err
    return [(p["alias"], p["bbs"], p["net"]) for p in json.loads(out)["players"]]


def test_a_players_bbs_is_the_part_of_the_handle_after_the_last_at():
    assert bbs_of("bob@EN") == "EN"
    assert bbs_of("a@b@DEMO") == "DEMO"
    assert bbs_of("alice") is None
    assert bbs_of("odd@") is None


@both_backends
def test_the_ranking_is_by_net_cubes_won_over_the_period_game_and_bbs(games, run):
    """Net CUBES = won - paid in, over finished games that ended in the period (week: the
    last 7 days, month: the last 30); the bot is not ranked, but what it took from alice
    counts against her."""
    assert ranking(run) == [("alice", None, 330), ("carl", "DE", 310),
                            ("dora", "EN", -150), ("bob", "EN", -500)]
    assert ranking(run, "--period", "all") == ranking(run)
    assert ranking(run, "--period", "month") == [("carl", "DE", 310), ("alice", None, -70),
                                                 ("bob", "EN", -100), ("dora", "EN", -150)]
    assert ranking(run, "--period", "week") == [("dora", "EN", 100), ("carl", "DE", 60),
                                                ("alice", None, -70), ("bob", "EN", -100)]
    assert ranking(run, "--game", "draw40") == [("alice", None, 390), ("carl", "DE", 250),
                                                ("dora", "EN", -150), ("bob", "EN", -500)]
    assert ranking(run, "--game", "holdem", "--period", "week") == [("carl", "DE", 60),
                                                                   ("alice", None, -60)]
    assert ranking(run, "--bbs", "EN") == [("dora", "EN", -150), ("bob", "EN", -500)]
    assert ranking(run, "--bbs", "en", "--period", "week") == [("dora", "EN", 100),
                                                               ("bob", "EN", -100)]
    assert ranking(run, "--game", "schiebe") == []


@both_backends
def test_the_json_shape(games, run):
    code, out, _ = run("bulletin", "--format", "json", "--period", "week", "--bbs", "EN")
    assert code == 0
    data = json.loads(out)
    assert data["period"] == "week" and data["game"] is None and data["bbs"] == "EN"
    assert abs(data["generated_at"] - time.time()) < 60
    assert abs(data["since"] - (data["generated_at"] - 7 * DAY)) < 1
    assert data["players"][0] == {"rank": 1, "handle": "dora@EN", "alias": "dora",
                                  "bbs": "EN", "net": 100, "cubes_won": 200,
                                  "cubes_paid": 100, "games": 1, "won": 1,
                                  "biggest_pot": 200}


def sauce_of(data: bytes) -> tuple[bytes, dict[str, object]]:
    """The content before the EOF mark and the fields of the SAUCE00 record after it."""
    assert len(data) > 129 and data[-129] == 0x1A, data[-140:]
    record = data[-128:]
    (ident, version, title, author, group, date, size, data_type, file_type, width, lines,
     _, _, comments, flags, font) = struct.unpack("<5s2s35s20s20s8sIBBHHHHBB22s", record)
    return data[:-129], {"id": ident + version, "title": title.rstrip(b" "), "date": date,
                         "size": size, "data_type": data_type, "file_type": file_type,
                         "width": width, "lines": lines, "comments": comments,
                         "font": font.rstrip(b"\0")}


def screen_of(content: bytes) -> pyte.Screen:
    screen = pyte.Screen(80, 24)
    pyte.Stream(screen).feed(content.decode("cp437"))
    return screen


def test_the_ansi_bulletin_is_an_80x24_cp437_screen_with_a_sauce_record(games, run, tmp_path):
    out = tmp_path / "hof.ans"
    code, stdout, err = run("bulletin", "--period", "month", "-o", str(out))
    assert code == 0 and err == "" and stdout == ""
    content, sauce = sauce_of(out.read_bytes())
    assert sauce["id"] == b"SAUCE00" and sauce["size"] == len(content)
    assert (sauce["data_type"], sauce["file_type"], sauce["width"]) == (1, 1, 80)
    assert sauce["font"] == b"IBM VGA" and sauce["comments"] == 0
    assert sauce["date"] == time.strftime("%Y%m%d").encode()
    assert b"HALL OF FAME" in sauce["title"]
    assert content.endswith(b"\x1b[0m\r\n") and b"\x1b[0m" in content[:8]
    assert all(b < 0x80 or b in "═║╔╗╚╝╠╣╟╢─".encode("cp437") for b in content)
    rows = content.split(b"\r\n")[:-1]
    assert len(rows) == sauce["lines"] <= 24
    screen = screen_of(content)
    display = [row.rstrip() for row in screen.display]
    assert display[0].startswith("╔═") and display[0].endswith("═╗")
    body = [row for row in display if row.startswith("║")]
    assert all(len(row) == 79 and row.endswith("║") for row in body), display
    assert "HALL OF FAME" in display[1] and "last 30 days" in display[2]
    names = [row.split()[2] for row in display if row[:6].strip("║ ").rstrip(".").isdigit()]
    assert names == ["carl", "alice", "bob", "dora"]
    carl = next(row for row in display if " carl " in row).split()
    assert carl[1:] == ["1.", "carl", "DE", "+310", "2", "2", "300", "║"]
    alice = next(row for row in display if " alice " in row).split()
    assert alice[1:] == ["2.", "alice", "-", "-70", "2", "0", "0", "║"]
    # colours: the frame, the numbers green or red, all of them among the 16
    assert screen.buffer[0][0].fg == "cyan" and screen.buffer[0][0].bold
    col = display[next(i for i, row in enumerate(display) if " carl " in row)].index("+310")
    row = next(i for i, r in enumerate(display) if " carl " in r)
    assert screen.buffer[row][col].fg == "green"
    row = next(i for i, r in enumerate(display) if " dora " in r)
    assert screen.buffer[row][display[row].index("-150")].fg == "red"
    assert screen.cursor.y < 23


def test_at_most_ten_players_and_the_screen_still_fits(db, run, tmp_path):
    clock = [time.time()]
    with Ledger(db, clock=lambda: clock[0]) as ledger:
        players = [f"p{n:02d}@BBS{n % 3}" for n in range(12)]
        for handle in players + ["house"]:
            account(ledger, handle)
        for n, handle in enumerate(players):        # p00 wins least, p11 most
            play(ledger, clock, 0, "poker", {handle: 10, "house": 10 + n}, handle)
    code, out, _ = run("bulletin", "-o", str(tmp_path / "b.ans"))
    content, sauce = sauce_of((tmp_path / "b.ans").read_bytes())
    display = [row.rstrip() for row in screen_of(content).display]
    ranked = [row.split()[2] for row in display if row[:6].strip("║ ").rstrip(".").isdigit()]
    assert ranked == [f"p{n:02d}" for n in range(11, 1, -1)]
    assert sauce["lines"] <= 24 and display[sauce["lines"] - 1].startswith("╚")
    assert next(row for row in display if row.split()[1:2] == ["1."]).split()[2] == "p11"


def test_the_ascii_bulletin_has_the_same_table_in_plain_ascii(games, run):
    code, out, _ = run("bulletin", "--format", "ascii", "--game", "draw40")
    assert code == 0 and out.isascii() and "\x1b" not in out
    lines = out.splitlines()
    assert len(lines) <= 24 and all(len(line) <= 79 for line in lines)
    assert "HALL OF FAME" in out and "40-card draw" in out
    ranked = [line.split()[2] for line in lines if line[:6].strip("| ").rstrip(".").isdigit()]
    assert ranked == ["alice", "carl", "dora", "bob"]


def test_no_games_yet_says_so(db, run):
    with Ledger(db) as ledger:
        ledger.create_account("alice", None)
    code, out, _ = run("bulletin", "--format", "ascii")
    assert code == 0 and "No finished games in this period yet." in out


def test_a_handle_with_no_cp437_form_is_shown_without_breaking_the_box(db, run, tmp_path):
    clock = [time.time()]
    with Ledger(db, clock=lambda: clock[0]) as ledger:
        for handle in ("Ｗｉｄｅ名前@EN", "zoë", "house"):
            account(ledger, handle)
        play(ledger, clock, 0, "poker", {"Ｗｉｄｅ名前@EN": 10, "house": 30}, "Ｗｉｄｅ名前@EN")
        play(ledger, clock, 0, "poker", {"zoë": 10, "house": 20}, "zoë")
    code, _, _ = run("bulletin", "-o", str(tmp_path / "b.ans"))
    content, _ = sauce_of((tmp_path / "b.ans").read_bytes())
    display = [row.rstrip() for row in screen_of(content).display]
    assert all(len(row) == 79 for row in display if row.startswith("║")), display
    assert any(" zoë " in row for row in display)
    code, out, _ = run("bulletin", "--format", "ascii")
    assert " zoe " in out and all(len(line) <= 79 for line in out.splitlines())


def test_numbers_of_many_digits_do_not_break_the_box(db, run, tmp_path):
    clock = [time.time()]
    with Ledger(db, clock=lambda: clock[0]) as ledger:
        for handle in ("sixteen-chars-ab", "whale"):
            account(ledger, handle, 10**12)
        play(ledger, clock, 0, "poker", {"sixteen-chars-ab": 10, "whale": 999_999_999_990},
             "sixteen-chars-ab")
    for fmt in ("ansi", "ascii"):
        code, _, _ = run("bulletin", "--format", fmt, "-o", str(tmp_path / "b"))
        content = (tmp_path / "b").read_bytes()
        content = sauce_of(content)[0] if fmt == "ansi" else content
        display = [row.rstrip() for row in screen_of(content).display]
        assert all(len(row) == 79 for row in display if row and row[0] in "║|"), display
        assert any("+999,999,999,990" in row for row in display), display


def test_bad_options_are_one_clear_line_and_write_nothing(games, run, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["bulletin", "--period", "year"])
    assert exit_.value.code == 2 and "invalid choice" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["bulletin", "--bbs", "\x1b[2Jx"])
    assert "2 to 8 letters or digits" in capsys.readouterr().err
    code, _, err = run("bulletin", "-o", str(tmp_path / "no" / "dir" / "b.ans"))
    assert code == 1 and err.startswith("bbspoker: error: ") and err.count("\n") == 1
    assert not (tmp_path / "no").exists()
    target = tmp_path / "b.ans"
    target.write_bytes(b"old")
    code, _, _ = run("bulletin", "--format", "json", "-o", str(target))
    assert code == 0 and json.loads(target.read_text())["players"]
    assert [p.name for p in tmp_path.iterdir() if "b.ans" in p.name] == ["b.ans"]


def test_the_bulletin_reads_a_database_that_does_not_exist_as_an_error(db, run):
    code, _, err = run("bulletin")
    assert code == 1 and "no database" in err
    assert not Path(db).exists()


# ---------------------------------------------------------------- the season's tournaments


def season_moments() -> tuple[float, float, str, str]:
    """A moment of the current month (between its start and now) and one of the month
    before, and the two months' labels (the default ``[seasons] length``)."""
    now = time.time()
    season = season_of(date.fromtimestamp(now), "month")
    start, _ = season.bounds()
    before = season.previous()
    first, end = before.bounds()
    return (start + (now - start) / 2, (first + end) / 2, season.label, before.label)


def tourney(ledger: Ledger, clock: list[float], when: float, places: dict[str, int],
            prizes: dict[str, int], buy_in: int) -> None:
    """A tournament of the handles of ``places`` that ended at ``when`` (Unix seconds)."""
    clock[0] = when
    tid = ledger.create_tournament("nightly", "Nightly", "holdem", buy_in)
    for handle in places:
        ledger.register(tid, handle)
    ledger.start_tournament(tid, {"level": 1})
    ledger.finish_tournament(tid, places, prizes, {})


@pytest.fixture
def tourneys(db):
    """Last month alice beat bob@EN (buy-in 100); this month carl@DE won a field of three
    (alice 2nd, robo the bot 3rd; buy-in 50) and bob@EN beat carl@DE in a free one.

    This month: carl 17 + 10 = 27 points, bob 14, alice 12; all time carl 27, alice
    14 + 12 = 26, bob 10 + 14 = 24."""
    now_moment, before, _, _ = season_moments()
    clock = [time.time()]
    with Ledger(db, clock=lambda: clock[0]) as ledger:
        for handle in ("alice", "bob@EN", "carl@DE"):
            account(ledger, handle)
        ledger.create_account("robo", None, 5000, bot=True)
        tourney(ledger, clock, before, {"alice": 1, "bob@EN": 2}, {"alice": 200}, 100)
        tourney(ledger, clock, now_moment, {"carl@DE": 1, "alice": 2, "robo": 3},
                {"carl@DE": 100, "alice": 50}, 50)
        tourney(ledger, clock, now_moment + 1, {"bob@EN": 1, "carl@DE": 2}, {}, 0)
    return db


def standings(run, *options: str) -> list[tuple]:
    code, out, err = run("bulletin", "--tournaments", "--format", "json", *options)
    assert code == 0, err
    return [(p["alias"], p["bbs"], p["points"], p["played"], p["wins"], p["cashes"], p["net"])
            for p in json.loads(out)["players"]]


@both_backends
def test_the_tournament_bulletin_ranks_the_seasons_points(tourneys, run):
    assert standings(run) == [("carl", "DE", 27, 2, 1, 1, 50), ("bob", "EN", 14, 1, 1, 0, 0),
                              ("alice", None, 12, 1, 0, 1, 0)]
    assert standings(run, "--season", "previous") == [("alice", None, 14, 1, 1, 1, 100),
                                                      ("bob", "EN", 10, 1, 0, 0, -100)]
    assert [p[0] for p in standings(run, "--season", "all")] == ["carl", "alice", "bob"]
    assert standings(run, "--season", "all", "--bbs", "en") == [("bob", "EN", 24, 2, 1, 0, -100)]


@both_backends
def test_the_tournament_bulletins_json_shape(tourneys, run):
    _, _, label, before = season_moments()
    code, out, _ = run("bulletin", "--tournaments", "--format", "json", "--season", "previous")
    data = json.loads(out)
    assert (data["season"], data["length"], data["bbs"]) == (before, "month", None)
    assert data["since"] < data["until"] <= data["generated_at"]
    assert data["players"][0] == {"rank": 1, "handle": "alice", "alias": "alice", "bbs": None,
                                  "points": 14, "played": 1, "wins": 1, "cashes": 1,
                                  "net": 100}
    data = json.loads(run("bulletin", "--tournaments", "--format", "json",
                          "--season", "all")[1])
    assert (data["season"], data["since"], data["until"]) == (None, None, None)


def test_the_tournament_bulletin_is_the_same_80x24_screen_with_a_sauce_record(
        tourneys, run, tmp_path):
    _, _, label, _ = season_moments()
    out = tmp_path / "t.ans"
    code, _, err = run("bulletin", "--tournaments", "-o", str(out))
    assert code == 0 and err == ""
    content, sauce = sauce_of(out.read_bytes())
    assert sauce["size"] == len(content) and sauce["title"] == b"PoKeR TOURNAMENTS"
    assert len(content.split(b"\r\n")[:-1]) == sauce["lines"] <= 24
    screen = screen_of(content)
    display = [row.rstrip() for row in screen.display]
    assert display[0].startswith("╔═") and display[sauce["lines"] - 1].startswith("╚═")
    assert all(len(row) == 79 and row.endswith("║") for row in display if row.startswith("║"))
    assert "TOURNAMENTS" in display[1] and f"season {label}" in display[2]
    assert display[4].split()[1:-1] == ["#", "PLAYER", "BBS", "POINTS", "PLAYED", "WON",
                                        "CASHES", "NET"]
    assert next(r for r in display if " carl " in r).split()[1:] == [
        "1.", "carl", "DE", "27", "2", "1", "1", "+50", "║"]
    assert next(r for r in display if " alice " in r).split()[1:] == [
        "3.", "alice", "-", "12", "1", "0", "1", "0", "║"]
    row = next(i for i, r in enumerate(display) if " carl " in r)
    assert screen.buffer[row][display[row].index("+50")].fg == "green"
    first = screen.buffer[row][display[row].index("1.")]
    assert (first.fg, first.bold) == ("brown", True)        # bright yellow: the gold
    code, out, _ = run("bulletin", "--tournaments", "--season", "previous",
                       "--format", "ascii", "--lang", "de")
    lines = out.splitlines()
    assert out.isascii() and all(len(line) <= 79 for line in lines)
    assert "TURNIERE" in lines[1] and "PUNKTE" in lines[4]
    assert next(line for line in lines if " bob " in line).split()[1:] == [
        "2.", "bob", "EN", "10", "1", "0", "0", "-100", "|"]


def test_a_season_without_tournaments_says_so(db, run):
    with Ledger(db) as ledger:
        ledger.create_account("alice", None)
    code, out, _ = run("bulletin", "--tournaments", "--format", "ascii")
    assert code == 0 and "No finished tournaments in this season yet." in out


def test_the_cash_games_options_do_not_mix_with_tournaments(tourneys, run, tmp_path):
    for options, text in ((["--tournaments", "--game", "draw40"], "--game"),
                          (["--tournaments", "--period", "week"], "--period"),
                          (["--season", "previous"], "--season needs --tournaments")):
        code, _, err = run("bulletin", *options, "-o", str(tmp_path / "x"))
        assert code == 1 and text in err and err.count("\n") == 1, err
    assert not (tmp_path / "x").exists()
