"""Crash test (issue 4): ``bbspoker serve`` killed with SIGKILL in the middle of a game.

The next start refunds every ante and bet of the unfinished game, ``bbspoker
ledger verify`` passes, and each player reads the refund notice at the next login.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import io
import json
import os
import sys
from pathlib import Path
from unittest import mock

import pytest

from bbspoker.cli import main as cli_main
from tests.support.stores import both_backends
from tests.support.telnetclient import TelnetClient, wait_until
from tests.support.tableplay import bet, info, join
from tests.support.paths import ROOT

pytestmark = pytest.mark.e2e

_SPEC = importlib.util.spec_from_file_location(
    "bbspoker_soak", ROOT / "scripts" / "soak.py")
soak = sys.modules.setdefault(_SPEC.name, importlib.util.module_from_spec(_SPEC))
_SPEC.loader.exec_module(soak)


def cli(db: Path | str, *args: str) -> tuple[int, str, str]:
    """The admin CLI ``bbspoker ARGS`` on the ledger ``db`` (a SQLite file or a PostgreSQL
    URL, as ``BBSPOKER_DB``; no config file), run in this process as ``soak.cli`` runs it
    in a new one (without the second that takes): ``(exit status, standard output,
    standard error)``."""
    out, err = io.StringIO(), io.StringIO()
    env = {k: v for k, v in os.environ.items() if k != "BBSPOKER_CONFIG"}
    with mock.patch.dict(os.environ, {**env, "BBSPOKER_DB": str(db)}, clear=True), \
            contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = cli_main(list(args))
    return status, out.getvalue(), err.getvalue()


def cubes(db: Path | str, handle: str) -> int:
    status, out, err = cli(db, "cubes", "show", handle, "--json")
    assert status == 0, err
    return json.loads(out)["cubes"]


@both_backends
async def test_kill_9_mid_game_refunds_every_ante_and_bet(tmp_path, ledger_url):
    env = None
    if ledger_url:                               # PostgreSQL: [ledger] url in the config
        config = tmp_path / "postgres.toml"
        config.write_text(f'[ledger]\nurl = "{ledger_url}"\n'
                          "[ssh]\nenabled = false\n[web]\nenabled = false\n")
        env = {"BBSPOKER_CONFIG": str(config)}
    server = soak.ServerProcess(tmp_path / "crash.db", tmp_path / "server.log", env=env)
    db = ledger_url or tmp_path / "crash.db"     # where the admin CLI finds the ledger
    await server.start()
    clients: list[TelnetClient] = []
    try:
        for handle in ("alice", "bob"):
            c = await TelnetClient.connect(server.port)
            clients.append(c)
            await c.login(handle, "pw-" + handle)
        alice, bob = clients
        await join(alice, "Nobody")
        await join(bob, "alice")
        await alice.send("s")
        await bob.wait_for("The game is now STARTED (initial pot is 20)")
        await bet(alice, "25")
        await bet(bob, "40")
        await alice.wait_for("bob has raised the bet (40), pot is 85.")
        await wait_until(lambda: info(alice, "Pot") == "85", 5.0)
        # Mid-game, as the admin CLI sees it: the CUBES are in the pot.
        assert (cubes(db, "alice"), cubes(db, "bob")) == (965, 950)

        server.kill()
        for c in clients:
            await c.wait_closed()
            await c.close()
        clients.clear()

        await server.start()
        assert "refunded 1 unfinished game(s)" in server.new_log()
        assert (cubes(db, "alice"), cubes(db, "bob")) == (1000, 1000)
        status, out, err = cli(db, "ledger", "verify")
        assert status == 0, out + err
        assert "open pots 0" in out
        status, shown, _ = cli(db, "games", "show", "1")
        assert status == 0 and "cancelled" in shown

        for handle, paid in (("alice", 35), ("bob", 50)):
            c = await TelnetClient.connect(server.port)
            clients.append(c)
            await c.wait_for("Handle:")
            await c.send(handle + "\r")
            await c.wait_for("Password:")
            await c.send(f"pw-{handle}\r")
            await c.wait_for("[Press any key]")
            # The notice is wrapped, not cut off: it ends with the amount refunded.
            notice = " ".join(c.text.split("Messages from the sysop:")[1].split())
            assert notice.startswith("* Game 1 was cancelled (the server stopped before the "
                                     f"game ended): your {paid} CUBES of ante and bets were "
                                     "refunded. [Press any key]")
            await c.send(" ")
            await c.wait_for("You have 1,000 CUBES.")
        assert server.stop() == 0
    finally:
        for c in clients:
            await c.close()
        if server.proc is not None and server.proc.poll() is None:
            server.kill()


async def test_sigterm_with_players_seated_exits_cleanly(tmp_path):
    server = soak.ServerProcess(tmp_path / "term.db", tmp_path / "server.log")
    await server.start()
    clients = []
    try:
        for handle, expect in (("alice", "Nobody"), ("bob", "alice")):
            c = await TelnetClient.connect(server.port)
            clients.append(c)
            await c.login(handle, "pw-" + handle)
            await join(c, expect)
        status = await asyncio.to_thread(server.stop, 10)   # no game runs: no grace
        for c in clients:
            await c.wait_for("The BBS is shutting down. Goodbye!")
        assert status == 0, server.new_log()[-2000:]
    finally:
        for c in clients:
            await c.close()
        if server.proc.poll() is None:
            server.kill()


def test_a_second_server_on_the_same_database_refuses_to_start_and_touches_nothing(tmp_path):
    """Issue 20 (6): a second server refunded and closed the first one's running game
    before it failed to bind its port."""
    import os
    import subprocess

    from bbspoker.app import ServerRunning, hold_server_lock
    from bbspoker.store.sqlite import Ledger

    db = tmp_path / "shared.db"
    with Ledger(db) as ledger:                     # the first server's game, still running
        ledger.create_account("alice", "h")
        game = ledger.open_game(["alice"], "0" * 64)
        ledger.pay_into_pot(game, "alice", 10, "ante")
    with hold_server_lock(str(db)):                # ... as the first server holds the lock
        with pytest.raises(ServerRunning):
            hold_server_lock(str(db))
        env = {**os.environ, "BBSPOKER_DB": str(db)}
        env.pop("BBSPOKER_CONFIG", None)
        out = subprocess.run([str(soak.BIN / "bbspoker"), "serve", "--port", "0"], env=env,
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 1
        assert f"bbspoker: error: another bbspoker server is using {db}" in out.stderr
        assert "Traceback" not in out.stderr
    assert oct(os.stat(f"{db}.lock").st_mode & 0o777) == "0o600"
    with Ledger(db) as ledger:
        assert ledger.game(game).ended_at is None and ledger.balance("alice") == 990


def test_a_second_server_on_the_same_postgresql_database_is_refused(postgres_url):
    """On PostgreSQL the server lock is the database's (an advisory lock on a connection of
    the server's), so servers on two hosts cannot share one database either; it goes with
    the first server's connection."""
    from bbspoker.app import ServerRunning, hold_server_lock

    with hold_server_lock(postgres_url):
        with pytest.raises(ServerRunning, match="another bbspoker server is using"):
            hold_server_lock(postgres_url)
    with hold_server_lock(postgres_url):           # the first one stopped: free again
        pass
