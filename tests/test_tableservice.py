"""The table's service on the real ledger: every screen gets a move before its commit,
a commit that fails calls the game off with every CUBE given back, and admin changes
made by another connection reach the table (issues 4 and 6)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random

import pytest

from bbspoker.bus import Bus
from bbspoker.ledger import Ledger
from bbspoker.table import Phase, Table, TableError, TableRules
from bbspoker.tableservice import LOST_REASON, TableMessage, TableSnapshot, TableService
from tests.telnetclient import FakeClock, wait_until
from tests.test_ledger import FailingCommits, committed


@pytest.fixture
async def table(tmp_path):
    """(service, ledger, db, disk): alice and bob with 1,000 CUBES seated at a table whose
    service runs; ``disk.failures`` makes the ledger's next COMMITs fail."""
    db = tmp_path / "table.db"
    ledger = Ledger(db)
    for handle in ("alice", "bob"):
        ledger.create_account(handle, "h")
    disk = ledger._db = FailingCommits(ledger._db)
    service = TableService(Table(ledger, TableRules(between_games=0), rng=random.Random(3)),
                           Bus(), FakeClock())
    task = asyncio.create_task(service.run())
    await service.call("sit", "alice")
    await service.call("sit", "bob")
    yield service, ledger, db, disk
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    ledger.close()


async def test_a_bet_is_on_the_screens_before_its_commit_and_in_the_ledger_after(table):
    service, ledger, db, _ = table
    await service.call("start", "alice")
    painted = []

    def paint() -> None:  # a screen: what it shows, and what the CLI reads meanwhile
        for item in sub.drain():
            if isinstance(item, TableMessage) and item.kind == "bet":
                painted.append((item.text, committed(db, "alice")))

    sub = service.bus.subscribe(notify=paint)
    await service.call("bet", "alice", 25)
    assert painted == [("alice has raised the bet (25), pot is 45.", 990)]
    await asyncio.sleep(0)                       # the loop turn after the screens
    assert committed(db, "alice") == 965
    assert ledger.verify() == []


async def test_a_refused_bet_is_refused_at_once_and_commits_nothing(table):
    service, ledger, db, _ = table
    await service.call("start", "alice")
    with pytest.raises(TableError, match="between 1 and 200"):
        await service.call("bet", "alice", 201)
    await service.call("bet", "alice", 200)
    with pytest.raises(TableError, match="between 200 and 200"):
        await service.call("bet", "bob", 199)
    await asyncio.sleep(0)
    assert (committed(db, "alice"), committed(db, "bob")) == (790, 990)
    assert service.snapshot.pot == 220 and ledger.verify() == []


async def play(service, command, *args):
    """Apply a table command and let its commit run (the loop turn after it)."""
    await service.call(command, *args)
    await asyncio.sleep(0)


async def _start(service, disk):
    disk.failures = 1
    await service.call("start", "alice")


async def _bet(service, disk):
    await play(service, "start", "alice")
    disk.failures = 1
    await service.call("bet", "alice", 25)


async def _end(service, disk):
    await play(service, "start", "alice")
    await play(service, "bet", "alice", 1)
    await play(service, "pass_", "bob")
    disk.failures = 1
    await service.call("reveal", "alice")        # the last player: she wins the pot


@pytest.mark.parametrize("lose", [_start, _bet, _end], ids=["start", "bet", "end"])
async def test_a_commit_that_fails_calls_the_game_off_and_gives_every_cube_back(
        table, lose, caplog):
    """Whichever step's commit fails (a start with its antes, a bet, the end of a game),
    the game is called off with a SYSTEM line saying why; every player has the CUBES he
    had before the game, in the ledger and on the screens; the books balance."""
    service, ledger, db, disk = table
    sub = service.bus.subscribe()
    with caplog.at_level(logging.ERROR, logger="bbspoker.ledger"):
        await lose(service, disk)
        called_off = (f"The game was called off ({LOST_REASON}): every ante and bet has been "
                      "given back.")
        async with asyncio.timeout(5):
            while True:
                item = await sub.get()
                if isinstance(item, TableMessage) and item.text == called_off:
                    assert item.tag == "SYSTEM" and item.to is None
                    break
            while not (isinstance(item, TableSnapshot) and item.pot is None):
                item = await sub.get()
    assert any("could not be committed" in r.getMessage() for r in caplog.records)
    assert service.table.phase is Phase.IDLE
    assert item.balances == {"alice": 1000, "bob": 1000}
    assert (committed(db, "alice"), committed(db, "bob")) == (1000, 1000)
    assert ledger.verify() == [] and ledger.totals().open_pots == 0
    await play(service, "start", service.table.master)     # the table plays on
    assert (committed(db, "alice"), committed(db, "bob")) == (990, 990)


async def test_when_the_disk_keeps_failing_the_game_is_refunded_at_the_next_start(table):
    service, ledger, db, disk = table
    sub = service.bus.subscribe()
    await play(service, "start", "alice")
    await play(service, "bet", "alice", 25)
    disk.failures = 2                            # the bet's commit, then the refund's
    await service.call("bet", "bob", 30)
    told = []
    async with asyncio.timeout(5):
        while not (isinstance(item := await sub.get(), TableSnapshot) and item.pot is None):
            if isinstance(item, TableMessage):
                told.append(item.text)
    assert told[-1] == (f"The game was called off ({LOST_REASON}): every ante and bet will "
                        "be given back when the server restarts.")
    assert service.table.phase is Phase.IDLE     # nothing of the lost moves is shown
    assert item.balances == {"alice": 965, "bob": 990}
    assert ledger.recover_unfinished_games(0.0) == [1]
    assert (committed(db, "alice"), committed(db, "bob")) == (1000, 1000)
    assert ledger.verify() == []


async def test_an_admin_grant_made_during_a_game_shows_in_the_next_snapshot(table):
    service, ledger, db, _ = table
    await service.call("start", "alice")
    await service.call("bet", "alice", 25)       # the table has read and cached 965
    assert service.snapshot.balances == {"alice": 965, "bob": 990}

    def admin() -> None:                         # the CLI: another connection
        with Ledger(db) as cli:
            cli.grant("alice", 250, "birthday present", "sysop")

    await asyncio.to_thread(admin)
    service.wake()                               # what the once-a-second poll does
    await wait_until(lambda: service.snapshot.balances == {"alice": 1215, "bob": 990}, 2.0)
    await service.call("bet", "bob", 30)
    assert service.snapshot.balances == {"alice": 1215, "bob": 960}
