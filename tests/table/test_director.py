"""The tournament director on live tables: registration and its CUBES, a sit-and-go that
starts when full and plays to the end with its prizes paid from the pool, tables balanced
and broken, a restart that resumes a tournament from its journal, a scheduled start
cancelled for want of players."""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import io
import os
import random
from collections.abc import Callable
from typing import Any

import pytest

from bbspoker import cli
from bbspoker.bots.tournament_seats import TournamentBots
from bbspoker.config import TournamentSpec, tournament_spec
from bbspoker.rules.money import SYSTEM
from bbspoker.store.sqlite import Ledger
from bbspoker.store.tournaments import MemoryTournaments
from bbspoker.store.wallet import MemoryWallet
from bbspoker.table.director import TournamentDirector, TournamentRefused
from bbspoker.table.service import TableMessage
from tests.support.stores import both_backends
from tests.support.telnetclient import FakeClock

UTC = datetime.timezone.utc


async def _no_sleep(_seconds: float) -> None:
    await asyncio.sleep(0)


def sng(players: int = 3, **keys) -> TournamentSpec:
    entry = {"id": "sng", "name": "Sit-and-go", "game": "holdem", "limit": "no",
             "sit_and_go": players, "buy_in": 100, "chips": 1000, "between_hands": 1,
             "bot_policy": "random", "bot_think_min": 0, "bot_think_max": 0,
             "levels": [{"bet": 20, "minutes": 1}, {"bet": 100, "minutes": 1},
                        {"bet": 400, "minutes": 1}], **keys}
    return tournament_spec(entry)


class World:
    """A director over a memory wallet and pool book (or ``book``, a ledger, which then
    may also record the hands: ``records``), on a fake clock, with every registered player
    run by a computer player."""

    def __init__(self, specs: list[TournamentSpec], handles: list[str],
                 cubes: int = 1000, book: Any = None,
                 wall: float = datetime.datetime(2026, 11, 26, 12, 0, tzinfo=UTC).timestamp(),
                 records: Ledger | None = None) -> None:
        self.clock = FakeClock()
        self.wall = wall
        if book is None:
            wallet = MemoryWallet({h: cubes for h in handles} | {SYSTEM: 0})
            book = MemoryTournaments(wallet, clock=lambda: self.wall)
        self.book = book
        self.wallet = book if isinstance(book, Ledger) else book.wallet
        self.bots = TournamentBots(lambda h: True, rng=random.Random(2), sleep=_no_sleep)
        self.director = TournamentDirector(
            specs, book, clock=self.clock, wall=lambda: self.wall, rng=random.Random(1),
            on_seated=self.bots.seated,
            local=lambda t: datetime.datetime.fromtimestamp(t, UTC), records=records,
            phrases=records.client_seeds_of if records is not None else None)
        self.messages: list[TableMessage] = []

    def total(self) -> int:
        """Every CUBE: accounts and open pools."""
        if isinstance(self.book, Ledger):
            t = self.book.totals()
            return t.accounts + t.system + t.pools
        return self.book.total()

    async def drive(self, until: Callable[[], bool], steps: int = 20_000) -> None:
        """Move the clock a second at a time (every table woken, the director's tick)
        until ``until()``; fail after ``steps`` seconds of table time."""
        for _ in range(steps):
            if until():
                return
            self.clock.advance(1.0)
            for run in list(self.director._running.values()):
                for entry in list(run.entries.values()):
                    entry.service.wake()
            self.director.tick()
            for _ in range(5):
                await asyncio.sleep(0)
            await asyncio.sleep(0.002)
        raise AssertionError("the tournament did not get there")

    async def close(self) -> None:
        self.director.stop()
        self.bots.stop()
        await self.director.wait_stopped()
        await self.bots.wait_stopped()


async def entered(w: World, tid: str, handles: list[str]):
    """Start ``w``'s director and register ``handles`` for ``tid``; returns the run that
    started (the entry must start with them)."""
    w.director.recover()
    w.director.start()
    for h in handles:
        await w.director.register(tid, h)
    return next(iter(w.director._running.values()))


#: A test that runs on a memory wallet, and on a ledger of each backend (``book``).
on_every_book = pytest.mark.parametrize("ledger_backend", ["memory", "sqlite", "postgres"],
                                        indirect=True)


@pytest.fixture
def book(ledger_backend, ledger_db):
    """``book(handles)``: what a :class:`World` keeps CUBES and pools in: None (a memory
    wallet) on ``memory``, else a new connection to this test's ledger (either backend)
    with ``handles`` made with 1,000 CUBES the first time; every one is closed after the
    test."""
    opened: list[Ledger] = []

    def make(handles: list[str]) -> Ledger | None:
        if ledger_backend == "memory":
            return None
        ledger = Ledger(ledger_db, starting_cubes=1000)
        if not opened:
            for h in handles:
                ledger.create_account(h, None)
        opened.append(ledger)
        return ledger

    yield make
    for ledger in opened:
        ledger.close()


@pytest.fixture
async def world_factory():
    made: list[World] = []

    def make(*args, **kwargs) -> World:
        w = World(*args, **kwargs)
        made.append(w)
        return w

    yield make
    for w in made:
        await w.close()


async def test_registering_takes_the_buy_in_and_unregistering_gives_it_back(world_factory):
    w = world_factory([sng(3)], ["ann", "bob", "poor"])
    w.wallet.balances["poor"] = 50
    w.director.recover()
    w.director.start()
    await w.director.register("sng", "ann")
    assert w.wallet.balance("ann") == 900
    view = w.director.view("sng", "ann")
    assert (view.status, view.entrants, view.pool, view.registered) == \
        ("registering", 1, 100, True)
    with pytest.raises(TournamentRefused) as refused:
        await w.director.register("sng", "ann")
    assert refused.value.code == "registered"
    with pytest.raises(TournamentRefused) as refused:
        await w.director.register("sng", "poor")
    assert refused.value.code == "cubes" and w.wallet.balance("poor") == 50
    with pytest.raises(TournamentRefused) as refused:
        await w.director.unregister("sng", "bob")
    assert refused.value.code == "not_registered"
    await w.director.unregister("sng", "ann")
    assert w.wallet.balance("ann") == 1000
    assert w.director.view("sng", "ann").entrants == 0
    with pytest.raises(TournamentRefused) as refused:
        await w.director.register("nope", "ann")
    assert refused.value.code == "unknown"


@on_every_book
async def test_a_sit_and_go_starts_when_full_and_pays_the_pool_to_its_places(world_factory,
                                                                             book):
    handles = ["ann", "bob", "cid"]
    w = world_factory([sng(3)], handles, book=book(handles))
    before = w.total()
    w.director.recover()
    w.director.start()
    for h in handles:
        await w.director.register("sng", h)
    view = w.director.view("sng", "ann")
    assert view.status == "running" and view.players_left == 3 and view.tables == 1
    assert view.chips == 1000 and view.place_if_out == 3 and view.level == 0
    # The next run opens at once for newcomers.
    assert w.director.view("sng", "zed").status == "registering"
    entry = w.director.table_of("bob")
    assert entry is not None and entry.service.table.rules.tournament
    sub = entry.service.bus.subscribe(viewer="ann")
    codes: list[str] = []

    def ended() -> bool:                 # what ann's screen heard, taken as it comes
        codes.extend(i.event.kind for i in sub.drain() if isinstance(i, TableMessage))
        view = w.director.view("sng", "ann")
        return view.status != "running" and view.results != ()

    await w.drive(ended)
    ended()
    results = w.director.view("sng", "ann").results
    assert sorted(h for _, h, _ in results) == handles
    assert sum(p for _, _, p in results) == 300          # the pool, paid out whole
    assert results[0][0] == 1 and results[0][2] == 300   # 3 entrants: winner takes all
    assert w.total() == before                           # no CUBE made or lost
    assert sum(w.wallet.balance(h) for h in handles) == 3000
    assert not sub.overflowed
    assert "tournament_over" in codes and codes.count("tournament_out") == 2
    assert "tournament_level" in codes                   # a minute a level: it rose
    record = w.book.tournaments(("finished",))[0]
    assert record.status == "finished" and w.book.pool(record.id) == 0
    for h in handles:
        mine = w.director.view("sng", h)
        assert mine.place is not None and mine.prize == dict(
            (n, p) for _, n, p in results)[h]


async def test_a_draw40_sit_and_go_of_bots_plays_to_its_end_across_two_tables(
        world_factory):
    """draw40's tables pay from the balance: the director reads the chips there, moves
    and removes players between games, and the pool is paid whole."""
    handles = ["ann", "bob", "cid", "dee", "eve"]
    spec = tournament_spec({
        "id": "d40", "name": "Draw sit-and-go", "game": "draw40", "sit_and_go": 5,
        "seats_per_table": 3, "buy_in": 100, "chips": 300, "between_games": 1,
        "turn_timeout": 30, "bot_policy": "random", "bot_think_min": 0,
        "bot_think_max": 0, "levels": [{"bet": 40, "ante": 10, "minutes": 1},
                                       {"bet": 100, "ante": 40, "minutes": 1}]})
    w = world_factory([spec], handles)
    before = w.total()
    run = await entered(w, "d40", handles)
    assert len(run.entries) == 2
    game = run.entries[1].service.table
    assert game.kind == "draw40" and game.rules.tournament and game.rules.max_bet == 40

    def ended() -> bool:
        assert run.tables is None or run.status != "running" or \
            run.tables.wallet.total() == 5 * 300
        return run.status == "finished"

    await w.drive(ended)
    assert sorted(h for _, h, _ in run.results) == handles
    assert sum(p for _, _, p in run.results) == 500      # the pool, paid out whole
    assert w.total() == before


async def test_two_tables_are_balanced_and_broken_down_to_a_final_table(world_factory):
    handles = [f"p{i}" for i in range(11)]
    w = world_factory([sng(11, seats_per_table=6)], handles)
    w.director.recover()
    w.director.start()
    for h in handles:
        await w.director.register("sng", h)
    view = w.director.view("sng", "p0")
    assert view.tables == 2
    run = next(iter(w.director._running.values()))
    seen_tables: set[int] = set()
    counts: list[list[int]] = []

    def watch() -> bool:
        if run.tables is not None and run.status == "running":
            seen_tables.update(run.entries)
            counts.append([len(s) for s in run.tables.state.tables.values()])
        return run.status == "finished"

    await w.drive(watch)
    assert seen_tables == {1, 2}
    assert len(counts[-1]) == 1                                  # one table at the end
    assert any(len(c) == 1 and c[0] > 1 for c in counts)         # a final table played
    assert all(len(c) <= 2 and max(c) <= 6 for c in counts)
    assert sum(p for _, _, p in run.results) == 1100


@on_every_book
async def test_a_restart_resumes_the_tournament_from_its_journal(world_factory, book):
    handles = ["ann", "bob", "cid", "dee"]
    first = world_factory([sng(4)], handles, book=book(handles))
    total = first.total()
    run = await entered(first, "sng", handles)

    def some_hands() -> bool:
        return run.tables is not None and len(run.tables.state.finish) >= 1
    await first.drive(some_hands)
    journal = first.book.tournament(run.id).state
    assert journal is not None and journal["finish"]
    # The server dies: nothing more of the first director runs.
    await first.close()
    if isinstance(first.book, Ledger):
        first.book.close()                 # the next server has a connection of its own
    second = world_factory([sng(4)], handles, book=book(handles) or first.book)
    lines = second.director.recover()
    assert any("resumed" in line for line in lines)
    second.director.start()
    resumed = second.director._running[run.id]
    assert resumed.tables is not None
    assert resumed.tables.state.to_json() == {k: v for k, v in journal.items()
                                              if k not in ("level", "elapsed")}
    await second.drive(lambda: resumed.status == "finished")
    assert sum(p for _, _, p in resumed.results) == 400
    assert second.total() == total
    assert second.book.pool(run.id) == 0


async def test_a_journal_that_cannot_be_resumed_cancels_and_refunds(world_factory):
    handles = ["ann", "bob"]
    first = world_factory([sng(2)], handles)
    run = await entered(first, "sng", handles)
    await first.close()
    first.book.save_tournament_state(run.id, {"entrants": ["ann"], "stacks": {}})
    second = world_factory([sng(2)], handles, book=first.book)
    lines = second.director.recover()
    assert any("cancelled" in line for line in lines)
    assert second.book.tournament(run.id).status == "cancelled"
    assert second.wallet.balance("ann") == second.wallet.balance("bob") == 1000


async def test_a_scheduled_tournament_without_enough_players_is_cancelled_and_refunded(
        world_factory):
    spec = tournament_spec({"id": "nightly", "name": "Nightly", "game": "holdem",
                            "starts": "20:00", "min_players": 3, "buy_in": 50})
    w = world_factory([spec], ["ann", "bob"])
    w.director.recover()
    w.director.start()
    view = w.director.view("nightly", "ann")
    start = datetime.datetime(2026, 11, 26, 20, 0, tzinfo=UTC).timestamp()
    assert view.status == "registering" and view.starts_at == start
    await w.director.register("nightly", "ann")
    await w.director.register("nightly", "bob")
    w.wall = start
    w.director.tick()
    assert w.wallet.balance("ann") == w.wallet.balance("bob") == 1000
    cancelled = w.book.tournaments(("cancelled",))
    assert len(cancelled) == 1 and "fewer than 3" in (cancelled[0].reason or "")
    nxt = w.director.view("nightly", "ann")
    assert nxt.status == "registering" and nxt.starts_at == start + 86400
    assert not nxt.registered


async def test_a_scheduled_tournament_starts_on_the_second_with_bots_filling(world_factory):
    spec = tournament_spec({"id": "nightly", "name": "Nightly", "game": "holdem",
                            "starts": "12:00:30", "min_players": 3, "bots": 2,
                            "seats_per_table": 2, "between_hands": 1,
                            "bot_policy": "random", "bot_think_min": 0, "bot_think_max": 0})
    w = world_factory([spec], ["ann", "robo", "tin"])
    claimed: list[str] = []
    w.director.claim_bot = lambda cubes, skip: next(
        (b for b in ("robo", "tin") if b not in claimed and not claimed.append(b)), None)
    w.director.recover()
    w.director.start()
    await w.director.register("nightly", "ann")
    w.wall += 29
    w.director.tick()
    assert w.director.view("nightly", "ann").status == "registering"
    w.wall += 1
    w.director.tick()
    view = w.director.view("nightly", "ann")
    assert view.status == "running" and view.entrants == 3 and view.tables == 2
    assert claimed == ["robo", "tin"]
    # One who did not enter sees it running (to watch), not registered.
    other = w.director.view("nightly", "zed")
    assert other.status == "running" and not other.registered and other.table is None


async def test_computer_players_that_come_free_fill_a_waiting_sit_and_go(world_factory):
    w = world_factory([sng(3, bots=2)], ["ann", "robo", "tin"])
    free: list[str] = []
    w.director.claim_bot = lambda cubes, skip: free.pop(0) if free else None
    w.director.recover()
    w.director.start()
    await w.director.register("sng", "ann")
    assert w.director.view("sng", "ann").entrants == 1        # no bot free yet
    w.director.tick()
    assert w.director.view("sng", "ann").status == "registering"
    free += ["robo", "tin"]                                    # another table let them go
    w.director.tick()
    view = w.director.view("sng", "ann")
    assert view.status == "running" and view.entrants == 3


class Pool:
    """The bot pool as the server's: a bot is lent to one claimant at a time."""

    def __init__(self, bots: list[str]) -> None:
        self.bots, self.claimed = bots, set()

    def claim(self, cubes: int, exclude=()) -> str | None:
        for b in self.bots:
            if b not in self.claimed and b not in exclude:
                self.claimed.add(b)
                return b
        return None

    def reserve(self, handle: str) -> bool:
        if handle.lower() in self.claimed:
            return False
        self.claimed.add(handle.lower())
        return True

    def release(self, handle: str) -> None:
        self.claimed.discard(handle.lower())


async def test_a_restart_keeps_the_bots_registered_for_a_waiting_sit_and_go(world_factory):
    first = world_factory([sng(3, bots=2)], ["ann", "robo", "tin"])
    pool = Pool(["robo"])
    first.director.claim_bot, first.director.release_bot = pool.claim, pool.release
    first.director.recover()
    first.director.start()
    await first.director.register("sng", "ann")
    assert first.director.view("sng", "ann").entrants == 2          # ann and robo
    await first.close()
    # A new process: its pool has lent nothing yet, and tin is free now.
    second = world_factory([sng(3, bots=2)], ["ann", "robo", "tin"], book=first.book)
    pool = Pool(["robo", "tin"])
    d = second.director
    d.claim_bot, d.release_bot, d.reserve_bot = pool.claim, pool.release, pool.reserve
    d.is_bot = lambda h: h in ("robo", "tin")
    d.recover()
    assert pool.claimed == {"robo"}                                   # reserved again
    d.start()
    d.tick()
    view = d.view("sng", "ann")
    assert view.status == "running" and view.entrants == 3
    assert sorted(e.handle for e in second.book.tournament_entries(view.run)) == \
        ["ann", "robo", "tin"]


async def test_a_sit_and_go_full_before_a_restart_starts_after_it(world_factory):
    first = world_factory([sng(2)], ["ann", "bob"])
    tid = first.book.create_tournament("sng", "Sit-and-go", "holdem", 100)
    first.book.register(tid, "ann")
    first.book.register(tid, "bob")           # full, but the server stopped before the deal
    first.director.recover()
    first.director.start()
    assert first.director.view("sng", "ann").status == "registering"
    first.director.tick()
    view = first.director.view("sng", "ann")
    assert view.status == "running" and view.run == tid and view.entrants == 2


def _cli(ledger: Ledger, *argv: str) -> tuple[int, str]:
    """Run ``bbspoker ARGV`` on ``ledger``'s database (its writes committed first)."""
    ledger.commit_pending()
    out = io.StringIO()
    old = os.environ.get("BBSPOKER_DB")
    os.environ["BBSPOKER_DB"] = str(ledger.path)
    try:
        with contextlib.redirect_stdout(out):
            code = cli.main(list(argv))
    finally:
        if old is None:
            del os.environ["BBSPOKER_DB"]
        else:
            os.environ["BBSPOKER_DB"] = old
    return code, out.getvalue()


@both_backends
async def test_a_tournaments_hands_are_recorded_in_the_ledger_and_verify(
        world_factory, ledger_db):
    """Every hand of a tournament played on a ledger is a game record of its own table,
    sealed and verifiable like a cash hand, moving no CUBES and counting in nobody's
    stats; the tournament's page gives its hands and the last one its result."""
    handles = ["ann", "bob", "cid"]
    ledger = Ledger(ledger_db, starting_cubes=1000)
    for h in handles:
        ledger.create_account(h, None)
    ledger.set_client_seed("ann", "ann's own phrase")    # the fair deck's, as at any table
    w = world_factory([sng(3)], handles, book=ledger, records=ledger)
    run = await entered(w, "sng", handles)
    await w.drive(lambda: run.status == "finished")
    ledger.commit_pending()
    games = ledger.list_games(10_000)
    assert all(dict(zip(g.players, g.client_seeds))["ann"] == "ann's own phrase"
               for g in games if "ann" in g.players)
    assert len(games) >= 2
    finished = [g for g in games if g.end_reason == "finished"]
    assert finished and {g.tournament for g in games} == {run.id}
    assert {g.table for g in games} == {f"sng-{run.id}-1"}
    for g in finished:
        assert g.history["tournament"] == {"id": run.id, "key": "sng", "table": 1}
        assert g.server_seed and g.client_seeds and g.pot == 0
        assert ledger.publication(g.table, g.commitment).game_id == g.id
    # No CUBES moved by a hand: the books balance, and nobody played a CUBES game.
    assert ledger.verify() == []
    assert ledger.results() == [] and ledger.stats("ann") == []
    assert sum(ledger.balance(h) for h in handles) == 3000
    code, out = _cli(ledger, "games", "verify", "--all")
    assert code == 0, out
    assert out.splitlines()[-1] == f"{len(games)} verified, 0 FAILED, 0 not verifiable"
    # games show of a hand names its tournament and table; of the last, the result.
    first, last = min(g.id for g in games), max(g.id for g in games)
    code, out = _cli(ledger, "games", "show", str(first))
    assert code == 0
    assert f"tournament:   {run.id} (sng, Sit-and-go), table 1" in out
    assert "stakes:       blinds 10/20 chips" in out
    assert "result of the tournament" not in out
    code, out = _cli(ledger, "games", "show", str(last))
    winner = run.results[0][1]
    assert "result of the tournament:" in out and f"1. {winner}  300 CUBES" in out
    code, out = _cli(ledger, "tournaments", "show", str(run.id))
    assert f"hands:      games {first}-{last} ({len(games)} hands;" in out
    code, out = _cli(ledger, "games", "list", "--limit", "1")
    assert f"(tournament {run.id}, chips)" in out.splitlines()[1]
    ledger.close()


@both_backends
async def test_a_hand_whose_record_the_store_lost_is_called_off_and_play_goes_on(
        world_factory, ledger_db):
    """The store fails the commit of a hand's start (a full disk): the tournament table
    calls the hand off, every chip back in the stacks, and the tournament plays on with
    its later hands recorded."""
    from tests.support.stores import FailingCommits

    handles = ["ann", "bob", "cid"]
    ledger = Ledger(ledger_db, starting_cubes=1000)
    for h in handles:
        ledger.create_account(h, None)
    disk = ledger._db = FailingCommits(ledger)
    w = world_factory([sng(3)], handles, book=ledger, records=ledger)
    run = await entered(w, "sng", handles)
    service = run.entries[1].service
    await w.drive(lambda: service.table.game_id is not None)
    await w.drive(lambda: service.table.game_id is None)
    disk.failures = 1                      # the next hand's start is lost
    await w.drive(lambda: disk.failures == 0)
    await w.drive(lambda: any(i.event.kind == "cancelled" for i in service._recent
                              if isinstance(i, TableMessage)))
    assert run.tables is not None
    run.tables.check_chips()
    await w.drive(lambda: run.status == "finished")
    ledger.commit_pending()
    assert ledger.verify() == [] and ledger.results() == []
    assert sum(p for _, _, p in run.results) == 300
    assert [g for g in ledger.list_games(10_000) if g.end_reason == "finished"]
    ledger.close()


@on_every_book
async def test_a_tournament_that_ended_unpaid_is_paid_at_the_next_start(world_factory, book):
    handles = ["ann", "bob"]
    first = world_factory([sng(2)], handles, book=book(handles))
    total = first.total()
    run = await entered(first, "sng", handles)
    await first.close()
    # The journal says it is over (bob has every chip), but the prizes were never paid.
    state = run.tables.state.to_json()
    state.update(stacks={"bob": 2000}, finish=[["ann"]],
                 tables={n: [h for h in s if h == "bob"] for n, s in state["tables"].items()})
    first.book.save_tournament_state(run.id, state)
    if isinstance(first.book, Ledger):
        first.book.close()
    second = world_factory([sng(2)], handles, book=book(handles) or first.book)
    second.director.recover()
    second.director.start()
    assert second.book.tournament(run.id).status == "finished"
    assert second.wallet.balance("bob") == 1100 and second.wallet.balance("ann") == 900
    assert second.total() == total and second.book.pool(run.id) == 0


async def test_late_registration_seats_a_newcomer_and_grows_the_pool(world_factory):
    """Registration stays open for the first level of a running scheduled tournament: a
    newcomer pays the buy-in into the pool and sits down with the starting chips; at the
    second level it is closed. (Nobody acts here: the turns time out, nobody goes broke.)"""
    spec = tournament_spec({"id": "nightly", "name": "Nightly", "game": "holdem",
                            "limit": "no", "starts": "12:00:10", "late_levels": 1,
                            "buy_in": 100, "chips": 1000, "between_hands": 1,
                            "turn_timeout": 20,
                            "levels": [{"bet": 20, "minutes": 1}, {"bet": 100, "minutes": 1},
                                       {"bet": 400, "minutes": 1}]})
    w = world_factory([spec], ["ann", "bob", "cid", "dee"])
    w.director.on_seated = None                          # no computer player plays them
    total = w.total()
    w.director.recover()
    w.director.start()
    for h in ("ann", "bob"):
        await w.director.register("nightly", h)
    w.wall += 10
    w.director.tick()
    view = w.director.view("nightly", "cid")
    assert view.status == "running" and view.late and not view.registered
    await w.director.register("nightly", "cid")           # level 1: still open
    mine = w.director.view("nightly", "cid")
    assert mine.registered and mine.entrants == 3 and mine.pool == 300
    assert mine.table is not None
    run = next(iter(w.director._running.values()))
    await w.drive(lambda: "cid" in w.director.table_of("cid").service.table.handles)
    assert w.director.view("nightly", "cid").chips == 1000
    with pytest.raises(TournamentRefused) as refused:
        await w.director.register("nightly", "cid")
    assert refused.value.code == "registered"
    await w.drive(lambda: run.tables is not None and run.tables.level >= 1)
    assert not w.director.view("nightly", "dee").late
    with pytest.raises(TournamentRefused) as refused:     # level 2: closed
        await w.director.register("nightly", "dee")
    assert refused.value.code == "not_registering"
    assert w.wallet.balance("dee") == 1000 and w.total() == total
    assert w.book.pool(run.id) == 300


async def test_a_player_in_two_tournaments_is_found_at_each_ones_table(world_factory):
    other = tournament_spec({"id": "sng2", "name": "Second", "game": "holdem",
                             "sit_and_go": 2, "between_hands": 1})
    w = world_factory([sng(2), other], ["ann", "bob"], cubes=5000)
    first = await entered(w, "sng", ["ann", "bob"])
    for h in ("ann", "bob"):
        await w.director.register("sng2", h)
    second = next(r for r in w.director._running.values() if r is not first)
    assert w.director.table_of("ann", "sng") is first.entries[1]
    assert w.director.table_of("ann", "sng2") is second.entries[1]
    assert w.director.table_of("ann") in (first.entries[1], second.entries[1])
    assert w.director.view("sng2", "ann").table == 1
