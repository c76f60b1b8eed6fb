"""The tournaments of the server: registration, the start, the tables of a running
tournament, the levels on the clock, the end and its prizes, and the journal that lets a
restarted server resume a tournament where its last hand ended.

Each ``[[tournaments]]`` entry (:class:`~bbspoker.config.TournamentSpec`) always has one
*run* the lobby's [T] list shows: one taking registrations, one running, or (until the next
one opens) the one that ended. A run is a row of the store's
(:class:`~bbspoker.store.tournaments.TournamentBook`): the buy-ins go into its pool when
players register, come back when they unregister or the run is cancelled, and the pool is
paid out as prizes by place at the end.

- **Sit-and-go** (``sit_and_go = N``): starts as soon as N have registered; computer
  players (up to ``bots``) fill the places left once a person has registered. The next run
  opens at once.
- **Scheduled** (``starts = "HH:MM"``): registration is open until the time of day; then
  computer players (up to ``bots``) enter, and with fewer than ``min_players`` the run is
  cancelled and every buy-in refunded. Late registration stays open for the first
  ``late_levels`` levels. The next run opens for the next day.

A running tournament's tables are ordinary :class:`~bbspoker.table.service.TableService`
tasks (one writer per table) over its chips (:class:`~bbspoker.table.tournament.
TournamentTables`); the director works in their steps: a hand's end is carried out in the
step that ended it (:attr:`TableService.after_step`: players out stand up, movers leave
for their new table, the journal is written), a move's sit-down and a level's rise are
:class:`~bbspoker.table.service.Direct` changes queued to each table. The clock task
(:meth:`TournamentDirector.run`, once a second) starts scheduled runs, raises levels, and
gives a table left with fewer than two players to the model to balance or break.

On a start after a crash or a stop, :meth:`TournamentDirector.recover` resumes each
running tournament from its journal (the stacks after its last whole hand, its level and
its clock: the hand that was in play is as if never dealt) or, if the journal cannot be
read, cancels it and refunds every buy-in.
"""

from __future__ import annotations

import asyncio
import datetime
import logging
import random
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from bbspoker import tasks
from bbspoker.config import TableSpec, TournamentSpec
from bbspoker.rules import actions as act
from bbspoker.rules.base import Phrases
from bbspoker.rules.events import Event, RuleError
from bbspoker.rules.kinds import kind
from bbspoker.rules.money import InsufficientCubes, UnknownAccount
from bbspoker.rules.tournament import Tournament, TournamentRuleError
from bbspoker.store.tournaments import TournamentBook, TournamentError
from bbspoker.table.bus import Bus
from bbspoker.table.registry import TableEntry
from bbspoker.table.service import Direct, TableService
from bbspoker.table.tournament import GameRecords, HandRecords, TournamentTables

__all__ = ["TournamentDirector", "TournamentView", "TournamentRefused", "TICK"]

log = logging.getLogger(__name__)

#: Seconds between the director's looks at the clock (starts, levels, lonely tables).
TICK = 1.0


class TournamentRefused(Exception):
    """A player's request the director refuses (nothing changed): ``code`` for the door
    (``unknown``, ``not_registering``, ``registered``, ``not_registered``, ``cubes``:
    the buy-in is more than they have, ``full``: a sit-and-go has all its players),
    ``data`` its figures."""

    def __init__(self, code: str, **data: Any) -> None:
        super().__init__(code, data)
        self.code = code
        self.data = data


@dataclass(frozen=True)
class TournamentView:
    """One tournament as a player sees it in the lobby's [T] list and at its tables.

    ``spec``: the config entry (name, game, buy-in in CUBES, chips, seats, levels,
    payouts, sit-and-go size or start time); ``run``: the store's id of the run shown
    (``None``: none yet); ``status``: ``registering``, ``running``, ``finished`` or
    ``cancelled``; ``entrants`` and ``pool`` (CUBES); ``starts_at`` (Unix seconds, a
    scheduled run); ``late``: registration is open while it runs.
    Running: ``level`` (0-based index into ``spec.rules.levels``), ``next_level_in``
    (seconds; ``None`` at the last level), ``players_left``, ``average_stack`` (chips),
    ``tables`` (how many). The viewer's: ``registered``, ``table`` (the number of the
    table they sit at), ``chips`` (their stack), ``place`` (their finishing place once
    out), ``prize`` (CUBES won) and ``place_if_out`` (the place they would take going out
    now). ``results``: ``(place, handle, prize)`` of a finished run, best first."""

    spec: TournamentSpec
    run: int | None
    status: str
    entrants: int = 0
    pool: int = 0
    starts_at: float | None = None
    late: bool = False
    level: int | None = None
    next_level_in: float | None = None
    players_left: int = 0
    average_stack: int = 0
    tables: int = 0
    registered: bool = False
    table: int | None = None
    chips: int | None = None
    place: int | None = None
    prize: int | None = None
    place_if_out: int | None = None
    results: tuple[tuple[int, str, int], ...] = ()


@dataclass
class _Run:
    """One run of a tournament entry, as the director keeps it."""

    spec: TournamentSpec
    id: int
    status: str
    starts_at: float | None = None
    entrants: list[str] = field(default_factory=list)
    tables: TournamentTables | None = None
    entries: dict[int, TableEntry[TableService]] = field(default_factory=dict)
    tasks: dict[int, asyncio.Task[None]] = field(default_factory=dict)
    results: tuple[tuple[int, str, int], ...] = ()
    bots: set[str] = field(default_factory=set)        # lower-case handles
    refused: set[str] = field(default_factory=set)     # bots that could not register


class TournamentDirector:
    """Every tournament of the server (see the module docstring).

    ``specs``: the ``[[tournaments]]`` entries; ``book``: the store of runs, entries and
    pools (the ledger); ``clock``: monotonic seconds (the tables' and the levels'),
    ``wall``: Unix seconds (scheduled starts); ``rng``: the draw for seats (``None``: the
    OS's randomness). ``claim_bot(cubes, exclude)`` lends a computer player's handle
    holding at least that many CUBES and not in ``exclude`` (lower-case handles; ``None``:
    none free) and ``release_bot(handle)`` takes it back; ``on_seated(entry, handle)`` is told of every player seated at a tournament
    table (the server starts a computer player's task there). ``local`` turns Unix seconds
    into the server's local time of day (tests fix the time zone). ``is_bot(handle)``
    tells a computer player's account, and ``reserve_bot(handle)`` keeps one from other
    tables: the bots of a tournament resumed after a restart are reserved again.
    ``records``: where every hand of a tournament is recorded as a game (the ledger:
    ``bbspoker games show``/``verify``; :class:`~bbspoker.table.tournament.HandRecords`);
    ``None``: nowhere. ``on_lost(games)``: a commit of that shared store failed at one of
    its tables (the ids of the games it held): every table sharing the store must hear
    of it, the server's cash tables too (default: :meth:`lose`, its own tables)."""

    def __init__(self, specs: Sequence[TournamentSpec], book: TournamentBook, *,
                 clock: Callable[[], float] = time.monotonic,
                 wall: Callable[[], float] = time.time,
                 rng: random.Random | None = None,
                 claim_bot: Callable[[int, Collection[str]], str | None] | None = None,
                 release_bot: Callable[[str], None] | None = None,
                 on_seated: Callable[[TableEntry[TableService], str], None] | None = None,
                 local: Callable[[float], datetime.datetime] | None = None,
                 is_bot: Callable[[str], bool] | None = None,
                 phrases: Phrases | None = None,
                 reserve_bot: Callable[[str], bool] | None = None,
                 records: GameRecords | None = None,
                 on_lost: Callable[[frozenset[int]], None] | None = None) -> None:
        self.records = records
        self.on_lost = on_lost if on_lost is not None else self.lose
        self.specs = {s.id: s for s in specs}
        self.book = book
        self.clock = clock
        self.wall = wall
        self.rng = rng or random.SystemRandom()
        self.claim_bot = claim_bot
        self.release_bot = release_bot
        self.on_seated = on_seated
        self.is_bot = is_bot
        self.phrases = phrases
        self.reserve_bot = reserve_bot
        self.local = local or (lambda t: datetime.datetime.fromtimestamp(t))
        self._open_runs: dict[str, _Run] = {}     # entry id -> its run taking registrations
        self._running: dict[int, _Run] = {}       # run id -> a running run (any entry)
        self._last: dict[str, _Run] = {}          # entry id -> its last run that ended
        self._task: asyncio.Task[None] | None = None
        self._started = False

    # ------------------------------------------------------------ start and recovery

    def recover(self) -> list[str]:
        """At start: resume every running tournament from its journal, or cancel and
        refund it if that fails; keep the runs taking registrations; open one for each
        entry without. Returns a line per tournament resumed or cancelled (the log)."""
        lines: list[str] = []
        open_runs = self.book.tournaments(("registering", "running"))
        for record in sorted(open_runs, key=lambda r: r.id):
            spec = self.specs.get(record.key)
            if spec is None or (record.status == "registering"
                                and record.key in self._open_runs):
                refunds = self.book.cancel_tournament(
                    record.id, "not configured" if spec is None else "superseded")
                lines.append(f"tournament {record.id} ({record.key}) cancelled: "
                             f"{len(refunds)} buy-ins refunded")
                continue
            run = _Run(spec, record.id, record.status, record.starts_at,
                       [e.handle for e in self.book.tournament_entries(record.id)])
            if self.is_bot is not None:
                run.bots = {h.lower() for h in run.entrants if self.is_bot(h)}
            if record.status == "registering" and self.reserve_bot is not None:
                for handle in run.entrants:    # lent to this run before the restart
                    if handle.lower() in run.bots and not self.reserve_bot(handle):
                        log.warning("tournament %s: bot %s is in use elsewhere", run.id,
                                    handle)
            if record.status == "registering":
                self._open_runs[spec.id] = run
            else:
                self._running[run.id] = run
                try:
                    self._resume(run, record.state or {})
                    lines.append(f"tournament {record.id} ({spec.id}) resumed with "
                                 f"{run.tables.state.players_left if run.tables else 0} "
                                 f"players")
                except (TournamentRuleError, KeyError, TypeError, ValueError) as exc:
                    log.exception("tournament %s could not be resumed", record.id)
                    self._cancel(run, f"could not resume: {exc}")
                    lines.append(f"tournament {record.id} ({spec.id}) cancelled: its "
                                 f"journal could not be resumed")
        for spec in self.specs.values():
            if spec.id not in self._open_runs:
                self._open(spec)
        return lines

    def _open(self, spec: TournamentSpec) -> _Run:
        """A new run of ``spec`` taking registrations."""
        starts_at = self._next_start(spec) if spec.scheduled else None
        tid = self.book.create_tournament(spec.id, spec.name, spec.game,
                                          spec.rules.buy_in, starts_at)
        run = _Run(spec, tid, "registering", starts_at)
        self._open_runs[spec.id] = run
        return run

    def _next_start(self, spec: TournamentSpec) -> float:
        """The next time of day ``spec.starts`` after now (Unix seconds)."""
        now = self.local(self.wall())
        hour, minute, second = (int(x) for x in (spec.starts + ":00").split(":")[:3])
        at = now.replace(hour=hour, minute=minute, second=second, microsecond=0)
        if at.timestamp() <= now.timestamp():
            at += datetime.timedelta(days=1)
        return at.timestamp()

    def start(self) -> None:
        """Start the clock task and every resumed tournament's tables (inside the event
        loop; call once, after :meth:`recover`)."""
        self._started = True
        for run in list(self._running.values()):
            if run.tables is not None and run.tables.state.finished:
                # It ended but its prizes were not paid (the store failed, or the server
                # stopped in between): pay them now.
                self._finish(run)
                continue
            for number, entry in run.entries.items():
                self._start_table(run, number, entry)
        self._task = tasks.start(self.run(), name="tournament director")

    def stop(self) -> None:
        """Cancel the clock task and every tournament table's task (the server stops; the
        journal has each running tournament as of its last whole hand)."""
        if self._task is not None:
            self._task.cancel()
        for run in self._running.values():
            for task in run.tasks.values():
                task.cancel()

    async def wait_stopped(self) -> None:
        """Wait until the clock task and every table's task has ended."""
        waiting = [t for r in self._running.values() for t in r.tasks.values()]
        if self._task is not None:
            waiting.append(self._task)
        await asyncio.gather(*waiting, return_exceptions=True)

    async def run(self) -> None:
        """The clock task: :meth:`tick` every :data:`TICK` seconds until cancelled; a
        failed tick is logged and the next one comes all the same."""
        while True:
            await asyncio.sleep(TICK)
            try:
                self.tick()
            except Exception:
                log.exception("the tournament director's clock failed; going on")

    def tick(self) -> None:
        """One look at the clock: scheduled starts, sit-and-goes a person waits in that
        computer players have come free for, rising levels, lonely tables, and the prizes
        of a tournament that ended when the store could not pay them (tried again)."""
        wall, now = self.wall(), self.clock()
        for run in list(self._open_runs.values()):
            if run.starts_at is not None and wall >= run.starts_at:
                self._start_scheduled(run)
            elif run.spec.sit_and_go:
                if len(run.bots) < len(run.entrants) and len(run.bots) < run.spec.bots:
                    # A person waits and the computer players were all busy: they may be
                    # free now.
                    self._fill_with_bots(run, run.spec.sit_and_go - len(run.entrants))
                if len(run.entrants) >= run.spec.sit_and_go:
                    self._begin(run)       # (full before a restart that came too soon)
        for run in list(self._running.values()):
            if run.status == "running" and run.tables is not None:
                if run.tables.state.finished:          # its prizes could not be paid yet
                    self._finish(run)
                    continue
                self._levels(run, now)
                self._lonely(run)

    # ------------------------------------------------------------ what players see

    def views(self, handle: str | None = None) -> list[TournamentView]:
        """Every tournament as ``handle`` sees it, in config order."""
        return [self.view(tid, handle) for tid in self.specs]

    def view(self, tid: str, handle: str | None = None) -> TournamentView:
        """Tournament entry ``tid`` as ``handle`` sees it: the run they play in if one is
        running, else a scheduled entry's running run, else the run taking registrations;
        ``results`` (and the viewer's ``place`` and ``prize`` while they play no other)
        are the last run that ended. Raises ``KeyError`` for an unknown id."""
        spec = self.specs[tid]
        key = handle.lower() if handle else None
        mine = [r for r in self._running.values() if r.spec.id == tid
                and key is not None and self._is_entrant(r, key)]
        running = [r for r in self._running.values() if r.spec.id == tid]
        run = (mine[0] if mine else running[0] if running and spec.scheduled
               else self._open_runs.get(tid))
        last = self._last.get(tid)
        if run is None:
            return TournamentView(spec, None, "registering",
                                  results=last.results if last else ())
        fields: dict[str, Any] = {
            "entrants": len(run.entrants), "pool": spec.rules.buy_in * len(run.entrants),
            "starts_at": run.starts_at, "results": last.results if last else (),
            "registered": key is not None and self._is_entrant(run, key)}
        if key is not None and last is not None and not mine:
            placed = next(((p, w) for p, h, w in last.results if h.lower() == key), None)
            if placed is not None:
                fields["place"], fields["prize"] = placed
        t = run.tables
        if run.status == "running" and t is not None:
            state = t.state
            ends = spec.rules.level_ends(t.level)
            fields.update(
                level=t.level, players_left=state.players_left,
                average_stack=state.average_stack, tables=len(state.tables),
                next_level_in=None if ends is None
                else max(0.0, ends - (self.clock() - t.started)),
                late=self._late_open(run), place_if_out=state.place_if_out_now())
            if key is not None and mine:
                fields["table"] = state.table_of(handle or "")
                seated = next((h for h in state.stacks if h.lower() == key), None)
                if seated is not None:
                    fields["chips"] = t.stacks().get(seated)
                fields["place"] = {h.lower(): p for h, p in state.places().items()}.get(key)
        return TournamentView(spec, run.id, run.status, **fields)

    @staticmethod
    def _is_entrant(run: _Run | None, key: str) -> bool:
        return run is not None and any(h.lower() == key for h in run.entrants)

    def table_of(self, handle: str, tid: str | None = None) -> TableEntry[TableService] | None:
        """The tournament table where ``handle`` (any case) sits, or ``None``; with ``tid``
        in that entry's tournament only (a player may play in two at once)."""
        for run in self._running.values():
            if run.tables is None or run.status != "running" or tid not in (None, run.spec.id):
                continue
            number = run.tables.state.table_of(handle)
            if number is not None and number in run.entries:
                return run.entries[number]
        return None

    def tables(self, tid: str) -> list[TableEntry[TableService]]:
        """The tables of tournament entry ``tid``'s running runs, by run and number (to
        watch)."""
        return [run.entries[n] for run in self._running.values() if run.spec.id == tid
                and run.status == "running" for n in sorted(run.entries)]

    # ------------------------------------------------------------ registration

    async def register(self, tid: str, handle: str, *, bot: bool = False) -> None:
        """Enter ``handle`` in tournament ``tid``: the buy-in leaves their CUBES for the
        pool. Before the start, or while late registration is open (they are seated at
        once). A sit-and-go that reaches its size starts. Raises
        :class:`TournamentRefused`."""
        if tid not in self.specs:
            raise TournamentRefused("unknown")
        running = next((r for r in self._running.values() if r.spec.id == tid
                        and r.status == "running" and self._late_open(r)), None)
        run = running or self._run(tid)
        late = run.status == "running" and self._late_open(run)
        if run.status != "registering" and not late:
            raise TournamentRefused("not_registering")
        if run.spec.sit_and_go and len(run.entrants) >= run.spec.sit_and_go:
            raise TournamentRefused("full")
        if late and any(h.lower() == handle.lower() for h in run.entrants):
            raise TournamentRefused("registered")
        try:
            if late:
                self._register_late(run, handle)
            else:
                self.book.register(run.id, handle)
        except TournamentError as err:
            raise TournamentRefused(err.code) from None
        except InsufficientCubes:
            raise TournamentRefused("cubes", buy_in=run.spec.rules.buy_in) from None
        except UnknownAccount:
            raise TournamentRefused("unknown") from None
        if not late:
            run.entrants.append(handle)
        if bot:
            run.bots.add(handle.lower())
        log.info("%s registered for tournament %s (%s)", handle, run.id, run.spec.id)
        if run.status == "registering" and run.spec.sit_and_go:
            if not bot:
                self._fill_with_bots(run, run.spec.sit_and_go - len(run.entrants))
            if len(run.entrants) >= run.spec.sit_and_go:
                self._begin(run)

    async def unregister(self, tid: str, handle: str) -> None:
        """Withdraw ``handle`` from tournament ``tid`` before its start: the buy-in comes
        back. Raises :class:`TournamentRefused`."""
        run = self._run(tid)
        if run.status != "registering":
            raise TournamentRefused("not_registering")
        try:
            self.book.unregister(run.id, handle)
        except TournamentError as err:
            raise TournamentRefused(err.code) from None
        run.entrants = [h for h in run.entrants if h.lower() != handle.lower()]
        log.info("%s unregistered from tournament %s (%s)", handle, run.id, run.spec.id)

    def _run(self, tid: str) -> _Run:
        """Entry ``tid``'s run taking registrations. Raises :class:`TournamentRefused`
        ``unknown`` for no such entry, ``not_registering`` while it has none (a scheduled
        tournament running past its late registration)."""
        if tid not in self.specs:
            raise TournamentRefused("unknown")
        run = self._open_runs.get(tid)
        if run is None:
            raise TournamentRefused("not_registering")
        return run

    def _late_open(self, run: _Run) -> bool:
        return (run.spec.late_levels > 0 and run.tables is not None
                and run.tables.level < run.spec.late_levels)

    def _register_late(self, run: _Run, handle: str) -> None:
        """Late registration: the store takes the buy-in (the pool of a running run) and
        the player is seated at the table the model picks."""
        assert run.tables is not None
        self.book.register(run.id, handle, late=True)
        run.entrants.append(handle)
        number, new = run.tables.enter_late(handle)
        if new:
            self._table_entry(run, number)
        self._seat_at(run, number, handle)
        self._journal(run)

    def _fill_with_bots(self, run: _Run, places: int) -> int:
        """Up to ``places`` computer players (no more than ``spec.bots`` in all) register
        for ``run``; returns how many did."""
        if self.claim_bot is None:
            return 0
        added = 0
        while places > added and len(run.bots) < run.spec.bots:
            skip = run.refused | {h.lower() for h in run.entrants}
            handle = self.claim_bot(run.spec.rules.buy_in, skip)
            if handle is None:
                break
            try:
                self.book.register(run.id, handle)
            except (TournamentError, InsufficientCubes, UnknownAccount) as err:
                log.info("bot %s could not register for tournament %s: %s", handle,
                         run.id, err)
                run.refused.add(handle.lower())        # not asked again for this run
                if self.release_bot is not None:
                    self.release_bot(handle)
                continue
            run.entrants.append(handle)
            run.bots.add(handle.lower())
            added += 1
        return added

    # ------------------------------------------------------------ the start

    def _start_scheduled(self, run: _Run) -> None:
        """A scheduled run's time has come: computer players fill up to ``bots``; with
        fewer than ``min_players`` it is cancelled, else it starts."""
        self._fill_with_bots(run, run.spec.bots)
        if len(run.entrants) < run.spec.min_players:
            self._cancel(run, f"fewer than {run.spec.min_players} players")
            self._open(run.spec)
            return
        self._begin(run)

    def _begin(self, run: _Run) -> None:
        """Draw the seats, open the tables, start dealing."""
        spec = run.spec
        state = Tournament.draw(spec.rules, run.entrants, random.Random(self.rng.random()))
        play = kind(spec.game).tournament
        assert play is not None              # the config takes only kinds that have it
        now = self.clock()
        run.tables = TournamentTables.open(play, spec.table, state, now,
                                           records=self._records(run), phrases=self.phrases)
        self.book.start_tournament(run.id, run.tables.journal(now))
        run.status = "running"
        self._open_runs.pop(spec.id, None)
        self._running[run.id] = run
        for number in run.tables.games:
            self._table_entry(run, number)
        log.info("tournament %s (%s) started: %d players at %d tables", run.id, spec.id,
                 len(run.entrants), len(run.entries))
        if spec.sit_and_go:
            self._open(spec)

    def _resume(self, run: _Run, journal: dict[str, Any]) -> None:
        """A running run from its journal: the state after its last whole hand, its level
        and its clock (``elapsed`` seconds then)."""
        spec = run.spec
        state = Tournament.from_json(spec.rules, journal)
        play = kind(spec.game).tournament
        assert play is not None
        now = self.clock()
        run.tables = TournamentTables.open(play, spec.table, state, now,
                                           started=now - float(journal.get("elapsed", 0.0)),
                                           records=self._records(run), phrases=self.phrases)
        if self.reserve_bot is not None:
            for handle in state.stacks:
                if handle.lower() in run.bots and not self.reserve_bot(handle):
                    log.warning("tournament %s: bot %s is in use elsewhere", run.id, handle)
        for number in run.tables.games:
            self._table_entry(run, number)

    def lose(self, games: frozenset[int]) -> None:
        """A commit of the record store failed: every running tournament table calls off
        its own hands among ``games`` in its next step (chips back to the stacks, the
        record called off)."""
        for run in self._running.values():
            for entry in run.entries.values():
                entry.service.lose(games)

    def _records(self, run: _Run) -> HandRecords | None:
        """Where ``run``'s hands are recorded (``None``: nowhere)."""
        return None if self.records is None else HandRecords(self.records, run.id,
                                                             run.spec.id)

    def _table_entry(self, run: _Run, number: int) -> TableEntry[TableService]:
        """The service and lobby entry of table ``number`` of ``run`` (started when the
        director runs)."""
        assert run.tables is not None
        spec = run.spec
        game = run.tables.games[number]
        service = TableService(game, Bus(), self.clock, spec.table.reconnect_grace,
                               seat_idle_timeout=0.0, on_lost=self.on_lost)
        service.after_step = lambda events, now: self._after_step(run, number, events, now)
        for handle in game.handles:
            if handle.lower() in run.bots:
                service.mark_bot(handle)
        table_spec = TableSpec(f"{spec.id}-{run.id}-{number}", f"{spec.name[:16]} #{number}",
                               spec.game, spec.table_rules, spec.table)
        entry = TableEntry(number, table_spec, service)
        run.entries[number] = entry
        if self._started:
            self._start_table(run, number, entry)
        return entry

    def _start_table(self, run: _Run, number: int, entry: TableEntry[TableService]) -> None:
        run.tasks[number] = tasks.start(entry.service.run(), name=f"table {entry.id}")
        if self.on_seated is not None:
            for handle in entry.service.table.handles:
                self.on_seated(entry, handle)

    # ------------------------------------------------------------ the running tournament

    def _after_step(self, run: _Run, number: int, events: list[Event],
                    now: float) -> list[Event]:
        """In table ``number``'s step: a hand that ended is carried out (see the module
        docstring); returns this table's events of it."""
        out: list[Event] = []
        for e in events:
            if e.kind == "hand_over" and run.tables is not None and run.status == "running":
                out += self._hand_over(run, number, int(e.data["game_id"]), now)
        return out

    def _hand_over(self, run: _Run, number: int, game_id: int | None,
                   now: float) -> list[Event]:
        t = run.tables
        assert t is not None
        over, changed = t.hand_over(number, game_id, now,
                                    seat=lambda n, h: self._seat_at(run, n, h))
        events = [e for n, e in changed if n == number]
        for handle, place in over.out.items():
            events.append(Event("tournament_out", handle, {"place": place}))
            if handle.lower() in run.bots and self.release_bot is not None:
                self.release_bot(handle)
        for move in over.moves:
            events.append(Event("tournament_moved", move.handle, {"table": move.target}))
        if over.broke:
            events.append(Event("tournament_table_broken", None, {"table": number}))
            entry = run.entries.pop(number, None)
            task = run.tasks.pop(number, None)
            if entry is not None:
                entry.service.closing = True
            if task is not None:
                asyncio.get_running_loop().call_soon(task.cancel)
        if over.finished:
            events += self._finish(run)
        else:
            self._journal(run)
        return events

    def _seat_at(self, run: _Run, number: int, handle: str) -> list[Event]:
        """Seat a moved (or late) player at table ``number`` in that table's own step."""
        entry = run.entries.get(number)
        if entry is None:
            log.error("tournament %s: no table %s to seat %s at", run.id, number, handle)
            return []
        if handle.lower() in run.bots:
            entry.service.mark_bot(handle)

        def sit(now: float) -> list[Event]:
            events = entry.service.table.apply(handle, act.Sit(), now)
            if self.on_seated is not None:
                asyncio.get_running_loop().call_soon(self.on_seated, entry, handle)
            return events

        future = entry.service.submit(None, Direct(sit))

        def done(f: asyncio.Future[None]) -> None:
            if not f.cancelled() and f.exception() is not None:
                log.error("tournament %s: seating %s at table %s failed: %s", run.id,
                          handle, number, f.exception())

        future.add_done_callback(done)
        return []

    def _journal(self, run: _Run) -> None:
        """Write the run's state (after every hand): durable before the next hand."""
        assert run.tables is not None
        try:
            self.book.save_tournament_state(run.id, run.tables.journal(self.clock()))
        except Exception:
            log.exception("tournament %s: its journal could not be written", run.id)

    def _levels(self, run: _Run, now: float) -> None:
        """The level rose: every table deals its next hand at the new stakes and says so."""
        t = run.tables
        assert t is not None
        if not t.tick_level(now):
            return
        level = t.stakes
        data = {"level": t.level + 1, "bet": level.bet, "ante": level.ante}
        for entry in run.entries.values():
            entry.service.submit(None, Direct(lambda _now: [Event("tournament_level", None,
                                                                  dict(data))]))
        self._journal(run)

    def _lonely(self, run: _Run) -> None:
        """A table where fewer than two can play and no hand runs: the model balances it
        or breaks it, in that table's step."""
        t = run.tables
        assert t is not None
        for number, entry in list(run.entries.items()):
            game = entry.service.table
            if game.game_id is not None:
                continue
            playing = [h for h in game.handles if t.chips(number, h) > 0]
            if len(playing) >= 2 or len(run.entries) < 2:
                continue
            entry.service.submit(None, Direct(self._lonely_change(run, number)))

    def _lonely_change(self, run: _Run, number: int) -> Callable[[float], list[Event]]:
        def change(now: float) -> list[Event]:
            if run.status != "running" or number not in run.entries:
                return []
            return self._hand_over(run, number, None, now)
        return change

    def _finish(self, run: _Run) -> list[Event]:
        """One player has every chip: pay the prizes from the pool, record the places,
        end the run (the next opens for a scheduled tournament)."""
        t = run.tables
        assert t is not None
        state = t.state
        pool = run.spec.rules.buy_in * len(run.entrants)
        prizes = state.prizes(pool)
        places = state.places()
        results = tuple(sorted(((places[h], h, prizes.get(h, 0)) for h in places),
                               key=lambda r: (r[0], r[1].lower())))
        try:
            self.book.finish_tournament(run.id, places, prizes, {
                "entrants": len(run.entrants), "pool": pool,
                "places": [[p, h, w] for p, h, w in results]})
        except Exception:
            log.exception("tournament %s: the prizes could not be paid; it stays running "
                          "and is resumed (or refunded) at the next start", run.id)
            return []
        run.status = "finished"
        run.results = results
        self._running.pop(run.id, None)
        self._last[run.spec.id] = run
        loop = asyncio.get_running_loop()
        for number, entry in run.entries.items():
            entry.service.table.stop_dealing()
            entry.service.closing = True
            task = run.tasks.get(number)
            if task is not None:                # after this step has told everyone
                loop.call_soon(task.cancel)
        for handle in state.stacks:
            if self.release_bot is not None and handle.lower() in run.bots:
                self.release_bot(handle)
        log.info("tournament %s (%s) finished: %s", run.id, run.spec.id,
                 ", ".join(f"{p}. {h} {w}" for p, h, w in results if w))
        if run.spec.scheduled:
            self._open(run.spec)
        return [Event("tournament_over", None, {
            "results": [[p, h, w] for p, h, w in results if w]})]

    def _cancel(self, run: _Run, reason: str) -> None:
        """Call the run off: every buy-in back."""
        refunds = self.book.cancel_tournament(run.id, reason)
        run.status = "cancelled"
        self._running.pop(run.id, None)
        if self._open_runs.get(run.spec.id) is run:
            del self._open_runs[run.spec.id]
        for handle in run.bots:
            if self.release_bot is not None:
                self.release_bot(handle)
        log.info("tournament %s (%s) cancelled (%s): %d buy-ins refunded", run.id,
                 run.spec.id, reason, len(refunds))
