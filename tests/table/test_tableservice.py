"""The table's service on the real ledger: every screen gets a move before its commit,
a commit that fails calls the game off with every CUBE given back, the journal is what
immediate commits write, and admin changes made by another connection reach the table
(issues 4 and 6)."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import random
import sqlite3

import pytest

from bbspoker.table.bus import Bus
from bbspoker.store.sqlite import Ledger
from bbspoker.door.screens.kinds import describe_event, describe_operation
from bbspoker.rules import actions as act
from bbspoker.rules.draw40.game import Draw40, Draw40Rules, Draw40View, Phase
from bbspoker.rules.events import Event, RuleError
from bbspoker.rules.seating import SeatedTable
from bbspoker.table.service import TableMessage, TableSnapshot, TableService
from bbspoker.store.wallet import MemoryWallet
from tests.support.ruletext import wording
from tests.support.telnetclient import FakeClock, wait_until
from tests.rules.test_fairness import _cli
from tests.store.test_ledger import Clock
from tests.support.stores import (FailingCommits, both_backends, break_journal, committed,
                                  mend_journal, store_db)

#: This module plays draw40 tables and reads them in its words.
text, texts, refused = wording("draw40")


@pytest.fixture
async def table(ledger_db):
    """(service, ledger, db, disk): alice and bob with 1,000 CUBES seated at a table whose
    service runs; ``disk.failures`` makes the ledger's next COMMITs fail. The ledger is on
    SQLite, or on each backend for a test marked ``both_backends``."""
    db = ledger_db
    ledger = Ledger(db)
    for handle in ("alice", "bob"):
        ledger.create_account(handle, "h")
    disk = ledger._db = FailingCommits(ledger)
    service = TableService(Draw40(ledger, Draw40Rules(between_games=0), rng=random.Random(3)),
                           Bus(), FakeClock())
    task = asyncio.create_task(service.run())
    await service.call("alice", act.Sit())
    await service.call("bob", act.Sit())
    yield service, ledger, db, disk
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    ledger.close()


@both_backends
async def test_a_bet_is_on_the_screens_before_its_commit_and_in_the_ledger_after(table):
    service, ledger, db, _ = table
    await service.call("alice", act.Start())
    painted = []

    def paint() -> None:  # a screen: what it shows, and what the CLI reads meanwhile
        for item in sub.drain():
            if isinstance(item, TableMessage) and item.kind == "bet":
                painted.append((text(item.event), committed(db, "alice")))

    sub = service.bus.subscribe(notify=paint)
    await service.call("alice", act.Bet(25))
    assert painted == [("alice has raised the bet (25), pot is 45.", 990)]
    await asyncio.sleep(0)                       # the loop turn after the screens
    assert committed(db, "alice") == 965
    assert ledger.verify() == []


async def test_submit_gives_the_outcome_as_a_future_without_waiting(table):
    service, ledger, _, _ = table
    started = service.submit("alice", act.Start())
    refusal = service.submit("bob", act.Bet(5))      # queued behind the start: not bob's turn
    assert not started.done()                      # nothing is applied in the caller's turn
    await asyncio.wait([started, refusal], timeout=1)
    assert started.result() is None
    with refused("turn"):
        refusal.result()
    assert service.snapshot.current == "alice" and ledger.balance("bob") == 990


async def test_commands_after_the_table_task_stopped_are_refused_with_a_message():
    service = TableService(Draw40(MemoryWallet({"alice": 100}), Draw40Rules()), Bus(), FakeClock())
    task = asyncio.create_task(service.run())
    await service.call("alice", act.Sit())
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    with refused("The table is closed."):
        service.submit("alice", act.Leave()).result()
    with refused("The table is closed."):
        await service.call("alice", act.Leave())
    assert service.table.handles == ["alice"]


async def test_the_task_sets_its_timer_for_the_next_turns_deadline(table, monkeypatch):
    # The task sleeps until a command comes or its timer fires: after each step the timer
    # is set for the next deadline (a turn's 60 s); the balance poll is the registry's.
    service, _, _, _ = table
    loop = asyncio.get_running_loop()
    delays: list[float] = []
    call_later = loop.call_later

    def recording(delay, callback, *args):
        if callback == service._enqueue:        # the task's timer (not the test's sleeps)
            delays.append(delay)
        return call_later(delay, callback, *args)

    monkeypatch.setattr(loop, "call_later", recording)
    await service.call("alice", act.Start())
    await service.call("alice", act.Bet(1))        # bob's turn: 60 s from now
    service.clock.advance(59.75)
    service.wake()
    await wait_until(lambda: delays and delays[-1] == pytest.approx(0.25))
    service.clock.advance(0.25)                  # bob's time is up: he is out, alice reveals
    service.wake()
    await wait_until(lambda: service.snapshot.view.phase is Phase.SHOWDOWN)
    assert delays[-1] == pytest.approx(60.0)     # her 60 s to reveal


async def test_a_refused_bet_is_refused_at_once_and_commits_nothing(table):
    service, ledger, db, _ = table
    await service.call("alice", act.Start())
    with refused("between 1 and 200"):
        await service.call("alice", act.Bet(201))
    await service.call("alice", act.Bet(200))
    with refused("between 200 and 200"):
        await service.call("bob", act.Bet(199))
    await asyncio.sleep(0)
    assert (committed(db, "alice"), committed(db, "bob")) == (790, 990)
    assert service.snapshot.pot == 220 and ledger.verify() == []


async def play(service, handle, action):
    """Apply a table action and let its commit run (the loop turn after it)."""
    await service.call(handle, action)
    await asyncio.sleep(0)


async def _start(service, fail):
    fail("ante")
    await service.call("alice", act.Start())


async def _bet(service, fail):
    await play(service, "alice", act.Start())
    fail("bet")
    await service.call("alice", act.Bet(25))


async def _end(service, fail):
    await play(service, "alice", act.Start())
    await play(service, "alice", act.Bet(1))
    await play(service, "bob", act.Pass())
    fail("win")
    await service.call("alice", act.Reveal())        # the last player: she wins the pot


@pytest.mark.parametrize("fault", ["COMMIT", "ABORT", "IGNORE"],
                         ids=["the COMMIT fails", "a statement fails",
                              "a statement writes nothing"])
@both_backends
@pytest.mark.parametrize("lose", [_start, _bet, _end], ids=["start", "bet", "end"])
async def test_a_commit_that_fails_calls_the_game_off_and_gives_every_cube_back(
        table, lose, fault, caplog):
    """Whichever step cannot be written (a start with its antes, a bet, the end of a game;
    the disk fails its COMMIT, or SQLite one of its statements), the game is called off
    with a SYSTEM line saying why; every player has the CUBES he had before the game, in
    the ledger and on the screens; the books balance."""
    service, ledger, db, disk = table

    def fail(reason: str) -> None:
        if fault == "COMMIT":
            disk.failures = 1
        else:
            break_journal(db, reason, fault)

    sub = service.bus.subscribe()
    with caplog.at_level(logging.ERROR, logger="bbspoker.store.sqlite"):
        await lose(service, fail)
        called_off = ("The game was called off (the server could not save the last move): "
                      "every ante and bet has been given back.")
        async with asyncio.timeout(5):
            while True:
                item = await sub.get()
                if isinstance(item, TableMessage) and text(item.event) == called_off:
                    assert describe_event(item.event, "draw40")[0] == "SYSTEM" and item.to is None
                    break
            while not (isinstance(item, TableSnapshot) and item.pot is None):
                item = await sub.get()
    await asyncio.sleep(0)      # the call-off's own writes (the next game's commitment)
    if fault != "COMMIT":
        mend_journal(db)
    assert any("could not be committed" in r.getMessage() for r in caplog.records)
    assert service.table.phase is Phase.IDLE
    assert item.balances == {"alice": 1000, "bob": 1000}
    assert (committed(db, "alice"), committed(db, "bob")) == (1000, 1000)
    assert ledger.verify() == [] and ledger.totals().open_pots == 0
    await play(service, service.table.master, act.Start())     # the table plays on
    assert (committed(db, "alice"), committed(db, "bob")) == (990, 990)


@pytest.mark.parametrize("ledger_backend", ["postgres"], indirect=True)
async def test_postgresql_restarting_mid_game_calls_the_game_off_and_play_goes_on(table):
    """PostgreSQL restarts (its connection to the server ends) between a bet and its commit:
    the game is called off and every CUBE given back; the players keep their seats, and
    the next game is written on a new connection. A restart between two steps, with
    nothing pending, is not noticed at all."""
    service, ledger, db, _ = table
    kill = f"SELECT pg_terminate_backend({{}})"
    await play(service, "alice", act.Start())
    db_ = store_db(db)
    db_.raw(kill.format(ledger._db.info.backend_pid))        # idle: nothing lost
    await play(service, "alice", act.Bet(25))
    assert committed(db, "alice") == 1000 - 10 - 25
    sub = service.bus.subscribe()
    await service.call("bob", act.Bet(25))                    # its commit is still pending
    db_.raw(kill.format(ledger._db.info.backend_pid))
    called_off = ("The game was called off (the server could not save the last move): "
                  "every ante and bet has been given back.")
    async with asyncio.timeout(5):
        while not (isinstance(item := await sub.get(), TableMessage)
                   and text(item.event) == called_off):
            pass
    await asyncio.sleep(0)
    assert (committed(db, "alice"), committed(db, "bob")) == (1000, 1000)
    assert {s.handle for s in service.table.seats()} == {"alice", "bob"}
    assert ledger.verify() == []
    await play(service, service.table.master, act.Start())      # on a new connection
    assert (committed(db, "alice"), committed(db, "bob")) == (990, 990)


@both_backends
async def test_when_the_disk_keeps_failing_the_game_is_refunded_at_the_next_start(table):
    service, ledger, db, disk = table
    sub = service.bus.subscribe()
    await play(service, "alice", act.Start())
    await play(service, "alice", act.Bet(25))
    disk.failures = 2                            # the bet's commit, then the refund's
    await service.call("bob", act.Bet(30))
    told = []
    async with asyncio.timeout(5):
        while not (isinstance(item := await sub.get(), TableSnapshot) and item.pot is None):
            if isinstance(item, TableMessage):
                told.append(text(item.event))
    assert told[-1] == ("The game was called off (the server could not save the last move): "
                        "every ante and bet will be given back as soon as the server can "
                        "save again.")
    assert service.table.phase is Phase.IDLE     # nothing of the lost moves is shown
    assert item.balances == {"alice": 965, "bob": 990}
    assert ledger.recover_unfinished_games(0.0) == [1]   # the server stopped before that
    assert (committed(db, "alice"), committed(db, "bob")) == (1000, 1000)
    assert ledger.verify() == []


@both_backends
async def test_a_call_off_the_disk_cannot_take_is_retried_each_poll_until_it_can(
        table, caplog):
    """A full disk refuses a bet and then the call-off of its game too: the table keeps the
    refund pending and writes it at the first balance poll (once a second) after the
    disk takes writes again, not at the next start; the players are told when it is
    done, the stored game keeps what the table knew of it, and the log says it once,
    not once per try."""
    service, ledger, db, disk = table
    sub = service.bus.subscribe()
    await play(service, "alice", act.Start())
    await play(service, "alice", act.Bet(25))
    disk.failures = 2                            # the bet's commit, then the refund's
    with caplog.at_level(logging.INFO, logger="bbspoker.table"):
        await service.call("bob", act.Bet(30))
        await wait_until(lambda: disk.failures == 0, 2.0)
        assert service.snapshot.balances == {"alice": 965, "bob": 990}
        disk.failures = 3                        # the disk stays full for three more polls
        for left in (2, 1, 0):
            assert service.poll_balances()       # the registry's poll: a step is due
            await wait_until(lambda: disk.failures == left, 2.0)
            assert (committed(db, "alice"), committed(db, "bob")) == (965, 990)
        assert service.poll_balances()           # now the disk takes it
        told = []
        async with asyncio.timeout(5):
            while not (isinstance(item := await sub.get(), TableSnapshot)
                       and item.balances == {"alice": 1000, "bob": 1000}):
                if isinstance(item, TableMessage):
                    told.append(text(item.event))
    assert "Every ante and bet of the game called off (the server could not save the last " \
           "move) has now been given back." in told
    assert (committed(db, "alice"), committed(db, "bob")) == (1000, 1000)
    assert ledger.verify() == [] and ledger.totals().open_pots == 0
    game = ledger.game(1)
    assert game.end_reason == "cancelled: the server could not save the last move"
    # what the table knew of the game is stored with it, as for any game called off
    assert game.history["commitment"] == game.commitment
    assert [(op["op"], op["handle"], op.get("amount")) for op in game.history["operations"]
            if op["op"] in ("ante", "bet")] == [("ante", "alice", 10), ("ante", "bob", 10),
                                                ("bet", "alice", 25), ("bet", "bob", 30)]
    assert not service.poll_balances()           # nothing left to do
    mine = [r for r in caplog.records if r.name == "bbspoker.table.service"]
    assert [r.levelname for r in mine] == ["ERROR", "WARNING"], [r.getMessage() for r in mine]
    assert "game(s) [1]" in mine[0].getMessage() and "game(s) [1]" in mine[1].getMessage()


async def test_a_step_that_fails_after_a_bet_commits_it_frees_the_ledger_and_play_goes_on(
        table, monkeypatch, caplog):
    service, ledger, db, _ = table
    await play(service, "alice", act.Start())
    snapshot = service._take_snapshot

    def broken():                                # a bug that strikes once, after the bet
        monkeypatch.setattr(service, "_take_snapshot", snapshot)
        raise RuntimeError("a bug in the snapshot")

    monkeypatch.setattr(service, "_take_snapshot", broken)
    with refused("Sorry, that did not work"):
        async with asyncio.timeout(5):           # a dead table task would never answer
            await service.call("alice", act.Bet(25))
    await asyncio.sleep(0)                       # the commit's turn
    assert committed(db, "alice") == 965         # the bet was made, and it is in the ledger
    cli = sqlite3.connect(db, timeout=0.5)       # the admin CLI can write: no lock left held
    cli.execute("BEGIN IMMEDIATE")
    cli.execute("ROLLBACK")
    cli.close()
    await play(service, "bob", act.Bet(25))        # and the table goes on
    assert service.snapshot.pot == 70 and committed(db, "bob") == 965
    assert "table step failed" in caplog.text
    assert ledger.verify() == []


@both_backends
async def test_the_snapshot_shows_the_next_games_commitment_before_its_start(table):
    """Every screen has the next game's commitment from the table's snapshot before the
    game starts (so before its client seeds are fixed); the game is sealed with it, and
    the one after it is in the snapshot from then on. A start the store could not commit
    is called off, its seed revealed: the commitment shown next is a fresh one, and the
    game after it, dealt from that, verifies."""
    service, ledger, db, disk = table
    published = service.snapshot.next_commitment
    assert published is not None and len(published) == 64
    sub = service.bus.subscribe()

    def sealed_with() -> str:
        return next(item.event.data["commitment"] for item in sub.drain()
                    if isinstance(item, TableMessage) and item.kind == "sealed")

    await play(service, "alice", act.Start())
    assert sealed_with() == published
    following = service.snapshot.next_commitment
    assert following not in (None, published)
    await play(service, "alice", act.Bet(1))
    await play(service, "bob", act.Pass())
    await play(service, "alice", act.Reveal())            # the last player: she wins
    assert service.table.phase is Phase.IDLE
    assert service.snapshot.next_commitment == following
    await play(service, service.table.master, act.Start())
    assert sealed_with() == following
    await play(service, service.table.current, act.Bet(1))
    await play(service, service.table.current, act.Pass())
    await play(service, service.table.current, act.Reveal())
    assert service.table.phase is Phase.IDLE
    lost = service.snapshot.next_commitment
    disk.failures = 1                       # the next start cannot be written: called off
    await play(service, service.table.master, act.Start())
    assert sealed_with() == lost
    await wait_until(lambda: service.table.phase is Phase.IDLE, 2.0)
    again = service.snapshot.next_commitment
    assert again not in (lost, following, published)
    await play(service, service.table.master, act.Start())
    assert sealed_with() == again
    gid = service.table.game_id
    await play(service, service.table.master, act.Cancel("shutdown"))
    code, out = _cli(ledger, ["games", "verify", str(gid)])
    assert code == 0 and "published in advance: yes, at table poker" in out, out


@both_backends
async def test_an_admin_grant_made_during_a_game_shows_in_the_next_snapshot(table):
    service, ledger, db, _ = table
    await service.call("alice", act.Start())
    await service.call("alice", act.Bet(25))       # the table has read and cached 965
    assert service.snapshot.balances == {"alice": 965, "bob": 990}

    def admin() -> None:                         # the CLI: another connection
        with Ledger(db) as cli:
            cli.grant("alice", 250, "birthday present", "sysop")

    await asyncio.to_thread(admin)
    service.wake()                               # what the balance poll does when it sees it
    await wait_until(lambda: service.snapshot.balances == {"alice": 1215, "bob": 990}, 2.0)
    await service.call("bob", act.Bet(30))
    assert service.snapshot.balances == {"alice": 1215, "bob": 960}


@both_backends
async def test_a_bet_an_admin_take_has_left_uncovered_is_refused_and_changes_nothing(table):
    """The table holds alice's CUBES from her ante; an admin takes most of them on another
    connection just before her bet (no balance poll in between): the bet is refused with
    the range she has now, and nothing is written; a bet that fits goes through."""
    service, ledger, db, _ = table
    await play(service, "alice", act.Start())
    assert service.snapshot.balances == {"alice": 990, "bob": 990}

    def admin() -> None:
        with Ledger(db) as cli:
            cli.take("alice", 980, "chargeback", "sysop")

    await asyncio.to_thread(admin)
    last = ledger.latest_journal_id()
    with refused("^Your bet must be between 1 and 10 CUBES.$"):
        await service.call("alice", act.Bet(25))
    await asyncio.sleep(0)
    assert ledger.latest_journal_id() == last and committed(db, "alice") == 10
    assert service.snapshot.pot == 20 and service.snapshot.current == "alice"
    assert service.snapshot.balances == {"alice": 10, "bob": 990}
    await play(service, "alice", act.Bet(10))
    assert committed(db, "alice") == 0 and service.snapshot.pot == 30
    assert ledger.verify() == []


def scripted_move(table: Draw40) -> tuple[str, tuple, dict] | None:
    """The next command of a scripted game of alice, bob and carol, or None once it is
    over: carol passes at once, bob asks to see hands as soon as he may, alice raises by
    one, everyone else calls; each discards his first two cards; then the showdown."""
    handle = table.current
    if table.phase is Phase.IDLE or handle is None:
        return None
    if table.phase is Phase.BETTING:
        if handle == "carol":
            return handle, act.Pass()
        low = table.bet_range(handle)[0]
        if handle == "bob" and act.SeeHands in table.legal_actions(handle, 0.0):
            return handle, act.SeeHands(low)
        return handle, act.Bet(low + (handle == "alice"))
    if table.phase is Phase.DISCARDING:
        return handle, act.Discard(table.cards_of(handle)[:2])
    return handle, act.Reveal()


async def test_a_game_played_through_the_service_writes_the_journal_immediate_commits_write(
        tmp_path):
    """The same game (same deck, same moves, same ledger clock) played once through the
    service, each step committed after the screens, and once on a table whose every wallet
    call commits at once: the journal (rows, order, amounts, reasons, balances, times) and
    the game records are the same, each row's time lies between its game's start and
    end, the books balance, and the moves are those of the in-memory wallet."""
    players = ("alice", "bob", "carol")

    def new_ledger(name: str) -> Ledger:
        ledger = Ledger(tmp_path / name, clock=Clock())
        for handle in players:
            ledger.create_account(handle, "h")
        return ledger

    def new_table(wallet, now: float) -> Draw40:
        table = Draw40(wallet, Draw40Rules(), rng=random.Random(7))
        for handle in players:
            table.sit(handle, now)
        return table

    memory = MemoryWallet(dict.fromkeys(players, 1000))
    by_memory, immediate = new_table(memory, 0.0), new_ledger("immediate.db")
    by_hand = new_table(immediate, 0.0)
    for table in (by_memory, by_hand):
        for now in (0.0, 31.0):                      # two games, 30 s apart
            table.start(table.master, now)
            while move := scripted_move(table):
                table.apply(*move, now)

    deferred = new_ledger("deferred.db")
    clock = FakeClock()
    service = TableService(new_table(deferred, clock()), Bus(), clock)
    task = asyncio.create_task(service.run())
    try:
        for game in range(2):
            clock.advance(31.0 * game)
            await play(service, service.table.master, act.Start())
            while move := scripted_move(service.table):
                await service.call(*move)
            await asyncio.sleep(0)
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    rows = [immediate.journal_since(0), deferred.journal_since(0)]
    assert rows[0] == rows[1]
    assert [(r.game_id, r.handle, r.amount, r.reason) for r in rows[1] if r.game_id] == [
        (gid, handle, amount, reason) for gid, handle, amount, reason in memory.journal]
    assert immediate.list_games() == deferred.list_games()
    games = deferred.list_games()
    assert len(games) == 2 and all(g.winner and g.pot == 0 for g in games)
    for game in games:                           # stamped when each call was made
        times = [r.at for r in rows[1] if r.game_id == game.id]
        assert game.started_at < min(times) and max(times) < game.ended_at
    assert any("asked to see hands" in describe_operation(op, "draw40")
               for op in games[1].history["operations"])
    for ledger in (immediate, deferred):
        assert ledger.verify() == []
        ledger.close()


@both_backends
async def test_the_balance_poll_steps_only_when_a_balance_changed(table, monkeypatch):
    # Issue 21: the once-a-second poll used to run a whole step (and take a snapshot)
    # for every table; now it looks at the CUBES and steps only if one changed.
    service, ledger, db, _ = table
    await service.call("alice", act.Start())
    steps = []
    step = service._step
    monkeypatch.setattr(service, "_step", lambda cmd: (steps.append(cmd), step(cmd)))
    version = service.snapshot.version
    assert not any(service.poll_balances() for _ in range(10))   # nothing changed
    await asyncio.sleep(0.05)
    assert steps == [] and service.snapshot.version == version

    def admin() -> None:                          # the CLI: another connection
        with Ledger(db) as cli:
            cli.grant("bob", 5, "a present", "sysop")

    await asyncio.to_thread(admin)
    assert service.poll_balances()                # the wallet reads the store again
    await wait_until(lambda: service.snapshot.balances["bob"] == 995, 2.0)
    assert steps == [None]                        # one step, no command
    assert not service.poll_balances()            # shown now: nothing more to do




@both_backends
async def test_a_hold_em_hand_whose_call_off_the_disk_refused_is_over_and_the_next_plays(
        ledger_db):
    """A full disk refuses a Hold'em move and then the call-off of its hand too: the hand
    is over at once (nobody plays on in a hand the ledger is about to close), the refund
    is written at the first poll once the disk takes writes again, and the next hand is
    dealt and played normally with every CUBE accounted for."""
    from bbspoker.rules.holdem.game import Holdem, HoldemRules
    from bbspoker.table.registry import TableWallet

    ledger = Ledger(ledger_db)
    for handle in ("alice", "bob"):
        ledger.create_account(handle, "h")
    disk = ledger._db = FailingCommits(ledger)
    clock = FakeClock()
    game = Holdem(TableWallet(ledger, "holdem"), HoldemRules(buy_in_max=200, between_hands=0),
                  rng=random.Random(5))
    service = TableService(game, Bus(), clock)
    task = asyncio.create_task(service.run())
    try:
        await service.call("alice", act.Sit(buy_in=200))
        await service.call("bob", act.Sit(buy_in=200))
        service.wake()
        await wait_until(lambda: game.game_id is not None, 2.0)
        first = game.game_id
        disk.failures = 2                          # the move's commit, then the refund's
        await service.call(game.current, act.BetRaise())
        await wait_until(lambda: disk.failures == 0, 2.0)
        assert game.game_id != first               # that hand is over, whatever comes next
        service.poll_balances()                    # the disk takes writes again
        await wait_until(lambda: not service._unrefunded, 2.0)
        assert ledger.game(first).ended_at is not None
        service.wake()
        await wait_until(lambda: game.game_id is not None and game.game_id != first, 2.0)
        second = game.game_id
        while game.game_id == second:              # the next hand plays to its end
            await service.call(game.current, act.CheckCall())
        ledger.commit_pending()
        assert ledger.game(second).end_reason == "finished"
        assert ledger.verify() == []
        t = ledger.totals()
        assert t.accounts + t.stacks + t.open_pots == 2000
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        ledger.close()


@both_backends
async def test_who_left_a_hold_em_hand_the_disk_could_not_call_off_gets_every_cube_back(
        ledger_db):
    """bob leaves during a Hold'em hand, then a full disk refuses a move and the hand's
    call-off: bob is not dealt into the next hand (he left), and once the refund is
    written his refunded stack comes back to his account instead of waiting at a table
    he no longer sits at."""
    from bbspoker.rules.holdem.game import Holdem, HoldemRules
    from bbspoker.table.registry import TableWallet

    ledger = Ledger(ledger_db)
    for handle in ("alice", "bob", "carol"):
        ledger.create_account(handle, "h")
    disk = ledger._db = FailingCommits(ledger)
    game = Holdem(TableWallet(ledger, "holdem"), HoldemRules(buy_in_max=200, between_hands=0),
                  rng=random.Random(5))
    service = TableService(game, Bus(), FakeClock())
    task = asyncio.create_task(service.run())
    try:
        for handle in ("alice", "bob", "carol"):
            await service.call(handle, act.Sit(buy_in=200))
        service.wake()
        await wait_until(lambda: game.game_id is not None, 2.0)
        first = game.game_id
        await service.call("bob", act.Leave())
        while game.current == "bob":               # his turn: he folds and stays till the end
            await wait_until(lambda: game.current != "bob", 2.0)
        disk.failures = 2                          # the move's commit, then the refund's
        await service.call(game.current, act.BetRaise())
        await wait_until(lambda: disk.failures == 0, 2.0)
        assert "bob" not in game.handles           # he left: not dealt into the next hand
        service.poll_balances()                    # the disk takes writes again
        await wait_until(lambda: not service._unrefunded, 2.0)
        ledger.commit_pending()
        assert ledger.game(first).ended_at is not None
        assert ledger.stack("bob", table="holdem") == 0
        assert ledger.balance("bob") == 1000
        assert ledger.verify() == []
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        ledger.close()


@dataclasses.dataclass(frozen=True)
class _CoinView:
    """The public view of the coin game below."""

    flips: int
    last: str | None


@dataclasses.dataclass
class _CoinPlayer:
    handle: str

    @property
    def key(self) -> str:
        return self.handle.lower()


@dataclasses.dataclass(frozen=True)
class _CoinSeat:
    seat: int
    handle: str
    active: bool


class _Coin(SeatedTable):
    """A game kind the service has never heard of: seated players flip a coin ([F]); it
    has only what :class:`~bbspoker.rules.base.GameRules` asks for."""

    kind = "coin"

    def __init__(self, wallet) -> None:
        self.wallet = wallet
        self.rules = None
        self._entropy = random.Random(1).randbytes
        self._phrases = None
        self._seats = [None, None]
        self._flips, self._last = 0, None
        self.stopped = False
        self._publish_first()

    game_id = current = pot = None
    operations = ()

    def seats(self):
        return [_CoinSeat(i, s.handle, False) for i, s in enumerate(self._seats) if s]

    def hands(self):
        return {s.handle: () for s in self._seats if s}

    def view(self, balances):
        return _CoinView(self._flips, self._last)

    def legal_actions(self, handle, now):
        return (act.Start,) if self._index(handle) is not None else ()

    def all_actions(self):
        return {s.handle: (act.Start,) for s in self._seats if s}

    def verify(self, handle, action, now):
        match action:
            case act.Sit():
                if self.is_full:
                    raise RuleError("table_full", seats=2)
            case act.Start() | act.Leave():
                self._find(handle)
            case _:
                raise RuleError("unknown_action")

    def apply(self, handle, action, now):
        self.verify(handle, action, now)
        match action:
            case act.Sit():
                self._seats[self._seats.index(None)] = _CoinPlayer(handle)
                return [Event("sat", handle)]
            case act.Leave():
                self._seats[self._find(handle)] = None
                return [Event("left", handle)]
        self._flips, self._last = self._flips + 1, handle
        return [Event("flipped", handle)]

    def tick(self, now):
        return []

    def deadline(self):
        return None

    def call_off(self, now, reason, game_ids, note=None):
        return []

    def payouts(self):
        return {}

    def stop_dealing(self):
        self.stopped = True


async def test_a_game_of_any_kind_runs_through_the_rules_interface_alone():
    """The service reads nothing of a game but :class:`GameRules`: a kind it has never
    heard of is seated, plays, shows its own view in the snapshot and is told to stop
    dealing at shutdown."""
    wallet = MemoryWallet({"ann": 100, "bob": 100})
    coin = _Coin(wallet)
    service = TableService(coin, Bus(), FakeClock())
    task = asyncio.create_task(service.run())
    try:
        await service.call("ann", act.Sit())
        await service.call("bob", act.Sit())
        await service.call("bob", act.Start())
        snap = service.snapshot
        assert snap.kind == "coin" and snap.view == _CoinView(1, "bob")
        assert [s.handle for s in snap.seats] == ["ann", "bob"] and snap.balances["ann"] == 100
        assert snap.actions == {"ann": (act.Start,), "bob": (act.Start,)}
        # Code that knows the kind reads its view typed; another view type is refused.
        assert snap.view_as(_CoinView).last == "bob"
        with pytest.raises(TypeError):
            snap.view_as(Draw40View)
        await service.finish_for_shutdown(0.1)
        assert coin.stopped and coin.handles == ["ann", "bob"]   # no stacks: nobody cashed out
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
