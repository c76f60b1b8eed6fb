"""The one task that owns the table: commands in, one at a time; snapshots and messages out.

Sessions never touch the game (:class:`~bbspoker.rules.draw40.game.Draw40`)
themselves. They call :meth:`TableService.call` (``await service.call(handle,
Bet(25))`` with a typed action of :mod:`bbspoker.rules.actions`), which queues the
action for the owning task and returns when it has been applied, or raises
:class:`~bbspoker.rules.events.RuleError` with the code of the refusal;
:meth:`TableService.submit` queues it the same way and returns the future of
that outcome (the game screen takes keys without a task of its own).
After every change the task publishes on the :class:`~bbspoker.table.bus.Bus`:

- one :class:`TableMessage` per event (keyless bus items: never dropped), which
  each screen renders for its viewer (``bbspoker.door.messages``), and
- one :class:`TableSnapshot` under the key ``"table"`` (a state item: a session
  that falls behind skips straight to the newest).

The task also applies timeouts (``table.tick``) when the next deadline comes,
and re-reads the seated players' CUBES every second so that an admin's change
reaches their status line within two seconds (issue 4).

Ledger writes are made after the screens (issue 6): each step runs inside
:meth:`~bbspoker.store.wallet.Wallet.defer_commits`, so its CUBES moves are checked
and applied at once (a bet the CUBES cannot cover is refused as ever) but
neither written nor committed: the ledger only takes its write lock, and
queues the statements. The step publishes, runs the bus's ``notify``
callbacks that paint the other screens (:meth:`Bus.flush`), resolves the
caller, and only then schedules :meth:`~bbspoker.store.wallet.Wallet.commit_pending`
(the statements, then the COMMIT) with ``loop.call_soon``, behind the actor's
wake-up. If that fails (:class:`~bbspoker.store.wallet.CommitFailed`: disk full, an
I/O error, a statement that wrote nothing) the ledger has undone the step,
and the next step calls the games it touched off (:meth:`Draw40.call_off`,
every ante and bet the ledger holds given back) with a ``SYSTEM`` line saying
why.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Callable, Mapping

from bbspoker.rules import actions as act
from bbspoker.rules.cards import Card
from bbspoker.rules.draw40.game import Draw40, Phase, SeatView
from bbspoker.rules.events import Event, RuleError
from bbspoker.store.wallet import CommitFailed
from bbspoker.table.bus import Bus

__all__ = ["TableMessage", "ChatMessage", "TableSnapshot", "TableService"]

log = logging.getLogger(__name__)

#: Events that change the screen itself (cards, whose turn) and show no line.
_SILENT = frozenset({"cards", "turn"})

#: How often (seconds) the service re-reads balances when nothing else happens.
BALANCE_POLL = 1.0
#: The code of the reason a game is called off after its moves could not be committed.
LOST_REASON = "commit_failed"
#: What the ledger records with the refunds of a game called off (its notices; English
#: until the notices become codes too).
_NOTES = {"commit_failed": "the server could not save the last move",
          "shutdown": "the server is shutting down"}


@dataclass(frozen=True, slots=True)
class TableMessage:
    """One event for the message area (a code and data: the screen makes the sentence).
    ``event.to`` is ``None`` for everyone at the table or the one handle that may see it."""

    event: Event

    @property
    def kind(self) -> str:
        """The event's kind."""
        return self.event.kind

    @property
    def to(self) -> str | None:
        """``None`` (everyone) or the one handle that may see it."""
        return self.event.to


@dataclass(frozen=True, slots=True)
class ChatMessage:
    """A chat line typed at the table ([.]); ``text`` is already cleaned (bbspoker.text)."""

    handle: str
    text: str


@dataclass(frozen=True, slots=True)
class TableSnapshot:
    """Everything a session needs to draw the table, taken once per change and shared.

    ``hands`` and ``actions`` hold every seated player's private cards and
    available commands; a session shows only its own. ``deadline`` is on the
    service's clock (seconds). ``balances`` are CUBES.
    """

    version: int
    seats: tuple[SeatView, ...]
    master: str | None
    current: str | None
    pot: int | None
    round: int | None
    phase: Phase
    deadline: float | None
    hands: Mapping[str, tuple[Card, ...]]
    actions: Mapping[str, tuple[type[act.Action], ...]]
    bet_ranges: Mapping[str, tuple[int, int]]
    balances: Mapping[str, int]

    def seat_of(self, handle: str) -> SeatView | None:
        """The seat of ``handle`` (case-insensitive), or ``None``."""
        low = handle.lower()
        return next((s for s in self.seats if s.handle.lower() == low), None)


@dataclass
class _Command:
    handle: str | None
    action: act.Action
    done: asyncio.Future[None] = field(default_factory=lambda: asyncio.get_running_loop().create_future())


class TableService:
    """Owns one game (:class:`~bbspoker.rules.draw40.game.Draw40`); ``run()`` is its task.
    ``clock`` gives seconds (monotonic)."""

    def __init__(self, table: Draw40, bus: Bus, clock: Callable[[], float] = time.monotonic) -> None:
        self.table = table
        self.bus = bus
        self.clock = clock
        # Commands (None: look at the clock) waiting for the task, and what it sleeps on.
        self._queue: deque[_Command | None] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self._versions = itertools.count(1)
        self.snapshot = self._take_snapshot()
        #: Set once the server is stopping: no new game may start.
        self.closing = False
        self._stopped = False
        self._idle = asyncio.Event()
        self._idle.set()
        self._lost: set[int] = set()  # games whose last moves the ledger could not commit

    def submit(self, handle: str | None, action: act.Action) -> asyncio.Future[None]:
        """Queue ``action`` of ``handle`` (``None`` for the server's own, such as
        :class:`~bbspoker.rules.actions.Cancel`) for the owning task; returns the future of
        its outcome, for a caller that must not wait (a screen taking keys inside the
        event-loop turn they arrived, see :mod:`bbspoker.door.screens.draw40`).

        The future's exception is :class:`~bbspoker.rules.events.RuleError` (a code: the
        door says it to the player) if the rules refuse or the table is closed
        (``table_closed``). Raises ``TypeError`` at once for what is not an action."""
        if not isinstance(action, act.Action):
            raise TypeError(f"not a table action: {action!r}")
        cmd = _Command(handle, action)
        if self._stopped:
            cmd.done.set_exception(RuleError("table_closed"))
        else:
            self._enqueue(cmd)
        return cmd.done

    async def call(self, handle: str | None, action: act.Action) -> None:
        """Apply ``action`` of ``handle`` in the owning task and wait for it (:meth:`submit`).
        Raises :class:`~bbspoker.rules.events.RuleError` if the rules refuse."""
        await self.submit(handle, action)

    def wake(self) -> None:
        """Make the task look at the clock now (tests that move a fake clock call this)."""
        self._enqueue(None)

    def _enqueue(self, cmd: _Command | None) -> None:
        if self._stopped:  # nobody takes it any more (a late wake-up or commit)
            return
        self._queue.append(cmd)
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    async def finish_for_shutdown(self, grace: float) -> None:
        """Server shutdown (issue 4): refuse new games, let a running game finish for up
        to ``grace`` seconds of real time, then call it off (every ante and bet refunded)."""
        self.closing = True
        if self.table.phase is Phase.IDLE:
            return
        self.bus.publish(TableMessage(Event("shutdown_grace", None, {"grace": grace})))
        try:
            await asyncio.wait_for(self._idle.wait(), grace)
        except TimeoutError:
            with contextlib.suppress(RuleError):
                await self.call(None, act.Cancel("shutdown", _NOTES["shutdown"]))

    def chat(self, handle: str, text: str) -> None:
        """Publish a chat line to everyone at the table (``text`` already cleaned)."""
        self.bus.publish(ChatMessage(handle, text))

    async def run(self) -> None:
        """The owning task: apply commands in order, timeouts when due, and poll balances.
        When it is cancelled, waiting and later actions fail with ``RuleError("table_closed")``.

        It sleeps on one future, which a command and the timer of the next deadline (or
        balance poll) resolve: no ``asyncio.Queue`` and no timeout context per command
        (issue 6, latency)."""
        loop = asyncio.get_running_loop()
        try:
            while True:
                if not self._queue:
                    deadline = self.table.deadline()
                    wait = BALANCE_POLL
                    if deadline is not None:
                        wait = min(wait, max(0.0, deadline - self.clock()))
                    waiter = self._waiter = loop.create_future()
                    timer = loop.call_later(wait, self._enqueue, None)
                    try:
                        await waiter
                    finally:
                        timer.cancel()
                        self._waiter = None
                self._apply(self._queue.popleft())
        finally:
            self._stopped = True
            for cmd in self._queue:
                if cmd is not None and not cmd.done.done():
                    cmd.done.set_exception(RuleError("table_closed"))
            self._queue.clear()

    def _apply(self, cmd: _Command | None) -> None:
        """One step (:meth:`_step`), then, whatever happened in it, the commit of its ledger
        writes scheduled behind the screens and the caller's wake-up: the ledger's write
        lock is never left held. A step that fails outside the command (a bug, a storage
        error in a time-out or the snapshot) is logged, its caller told, and the table
        goes on with its next step."""
        try:
            self._step(cmd)
        except Exception:
            log.exception("table step failed")
            if cmd is not None and not cmd.done.done():
                cmd.done.set_exception(RuleError("failed"))
        finally:
            asyncio.get_running_loop().call_soon(self._commit)

    def _step(self, cmd: _Command | None) -> None:
        """Games whose commit failed called off, timeouts, the command; publish and paint
        (``Bus.flush``); tell the caller."""
        now = self.clock()
        caller = cmd.done if cmd is not None else None
        error: RuleError | None = None
        with self.table.wallet.defer_commits():
            events = self._call_off_lost(now) + self.table.tick(now)
            if cmd is not None and self.closing and type(cmd.action) is act.Start:
                error, cmd = RuleError("shutting_down"), None
            if cmd is not None:
                try:
                    events += self.table.apply(cmd.handle, cmd.action, now)  # type: ignore[arg-type]
                except RuleError as err:
                    error = err
                except Exception:  # a bug or a storage failure: log it, tell the player
                    log.exception("table action %r of %r failed", cmd.action, cmd.handle)
                    error = RuleError("failed")
        for e in events:
            if e.kind not in _SILENT:
                self.bus.publish(TableMessage(e))
        if self.table.phase is Phase.IDLE:
            self._idle.set()
        else:
            self._idle.clear()
        snap = self._take_snapshot()
        if events or cmd is not None or self._differs(snap):
            self.snapshot = snap
            self.bus.publish(snap, key="table")
        self.bus.flush()  # the batch is complete: the other screens are painted now
        # The caller learns the outcome only after the update is published: its screen
        # then finds its own update waiting and is painted once, not twice.
        if caller is not None and not caller.done():
            if error is None:
                caller.set_result(None)
            else:
                caller.set_exception(error)

    def _commit(self) -> None:
        """Write and commit the last step's ledger work. If that fails, remember the games
        it touched and wake the task: its next step calls them off."""
        try:
            self.table.wallet.commit_pending()
        except CommitFailed as failed:
            self._lost |= failed.games
            self.wake()

    def _call_off_lost(self, now: float) -> list[Event]:
        """Call off the games whose moves the ledger lost (:meth:`Draw40.call_off`). If the
        ledger fails again the table has dropped the game all the same, and the ledger,
        which still holds it open, refunds it at the next start: the players are told so."""
        if not self._lost:
            return []
        games, self._lost = self._lost, set()
        try:
            return self.table.call_off(now, LOST_REASON, games, _NOTES[LOST_REASON])
        except Exception:
            log.exception("calling off game(s) %s failed; they are refunded at the next "
                          "start", sorted(games))
            return [Event("cancelled", None, {"reason": LOST_REASON, "refunds": {},
                                              "later": True})]

    def _differs(self, snap: TableSnapshot) -> bool:
        old = self.snapshot
        return (snap.balances != old.balances or snap.seats != old.seats
                or snap.deadline != old.deadline)

    def _take_snapshot(self) -> TableSnapshot:
        """The table now, read in one pass over the seats for each of seats, hands and
        actions (it runs in every step, before the screens are painted)."""
        t = self.table
        seats = tuple(t.seats())
        handles = [s.handle for s in seats]
        # One read for everyone; an account removed under us shows 0 rather than failing.
        balances = dict.fromkeys(handles, 0) | t.wallet.balances_of(handles) if handles else {}
        current = t.current
        phase = t.phase
        betting = current is not None and phase is Phase.BETTING
        return TableSnapshot(
            version=next(self._versions),
            seats=seats,
            master=t.master,
            current=current,
            pot=t.pot,
            round=t.round,
            phase=phase,
            deadline=t.deadline(),
            hands=t.hands(),
            actions=t.all_actions(),
            bet_ranges={current: t.bet_range(current, balances[current])} if betting else {},
            balances=balances,
        )
