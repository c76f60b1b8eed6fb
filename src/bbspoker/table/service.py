"""The one task that owns the table: commands in, one at a time; snapshots and messages out.

Sessions never touch the game (a :class:`~bbspoker.rules.base.GameRules` of any kind)
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

The task also applies timeouts (``table.tick``) when the next deadline comes. The
registry's balance poll (:meth:`TableService.poll_balances`, once a second for all
tables) wakes it when a seated player's CUBES changed, so that an admin's change reaches
their status line within two seconds.

Ledger writes are made after the screens, so a move reaches every screen without
waiting for the disk: each step runs inside
:meth:`~bbspoker.store.wallet.Wallet.defer_commits`, so its CUBES moves are checked
and applied at once (a bet the CUBES cannot cover is still refused) but
neither written nor committed: the ledger only takes its write lock, and
queues the statements. The step publishes, runs the bus's ``notify``
callbacks that paint the other screens (:meth:`Bus.flush`), resolves the
caller, and only then schedules :meth:`~bbspoker.store.wallet.Wallet.commit_pending`
(the statements, then the COMMIT) with ``loop.call_soon``, behind the actor's
wake-up. If that fails (:class:`~bbspoker.store.wallet.CommitFailed`: disk full, an
I/O error, a statement that wrote nothing) the ledger has undone the step,
and the next step calls the games it touched off (``GameRules.call_off``,
every ante and bet the ledger holds given back) with a ``SYSTEM`` line saying
why. If the ledger cannot write that refund either (the disk is still full), the
table has dropped the game all the same and keeps the refund pending: every step
tries it again (the balance poll makes one each second while one is pending), and
a second line tells the players when it is written.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Protocol, TypeVar, cast

from bbspoker.rules import actions as act
from bbspoker.rules.base import GameRules
from bbspoker.rules.events import Event, RuleError
from bbspoker.rules.seating import RefundFailed, refund_games
from bbspoker.store.wallet import CommitFailed
from bbspoker.table.bus import Bus

__all__ = ["TableMessage", "ChatMessage", "TableSnapshot", "PrivateCards", "TableService",
           "TableAccess", "Hold",
           "Return", "WantSeat", "Direct"]

log = logging.getLogger(__name__)

#: Events that change the screen itself (cards, whose turn) and show no line.
_SILENT = frozenset({"cards", "turn"})

#: How often (seconds) the registry's balance poll looks at every table's CUBES
#: (:meth:`TableService.poll_balances`).
BALANCE_POLL = 1.0
#: The code of the reason a game is called off after its moves could not be committed.
LOST_REASON = "commit_failed"
#: How many of the table's last public messages a newly shown screen is given (one
#: message area's worth).
RECENT = 10


@dataclass(frozen=True, slots=True)
class TableMessage:
    """One event for the message area (a code and data: the screen makes the sentence).
    ``event.to`` is ``None`` for everyone at the table or the one handle that may see it."""

    event: Event
    #: The line each language makes of it (a screen's cache: made once for every screen
    #: at the table, not once per screen).
    lines: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)

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


_SeatT = TypeVar("_SeatT")
_ViewT = TypeVar("_ViewT")


@dataclass(frozen=True, slots=True)
class TableSnapshot:
    """The public view of the table, taken once per change and shared by every screen.

    It holds nothing a player may not see of another: no hidden cards (each player's
    own come as :class:`PrivateCards`, to that player's subscriptions only).

    What every kind's table has: ``kind`` (the game kind's name); ``seats`` (the kind's
    public seat views, :class:`~bbspoker.rules.base.PublicSeat` s, in seat order);
    ``current`` (the handle in turn, or ``None``); ``pot`` (CUBES in play, ``None`` with
    no game); ``deadline`` (on the service's clock, seconds); ``actions`` (the action
    types each seated player may use now: whose turn it is is public); ``balances``
    (CUBES); ``watchers`` (how many spectators); ``held`` (the seated players whose
    connection dropped and whose seats wait for them); ``rules`` (the game's numbers,
    frozen, e.g. :class:`~bbspoker.rules.draw40.game.Draw40Rules`); ``bots`` (the
    lower-case handles of the computer players seated); ``waiting`` (the spectators who
    asked for a seat, :class:`WantSeat`, first first); ``next_commitment`` (the deck
    commitment of the table's next game, 64 hex digits, docs/fairness.md, public before
    any of that game's client seeds exists).

    ``view`` is the kind's own frozen public view of the table beyond the seats
    (``GameRules.view``: draw40's :class:`~bbspoker.rules.draw40.game.Draw40View`,
    Hold'em's :class:`~bbspoker.rules.holdem.game.HoldemTable`, Schiebe-Poker's
    :class:`~bbspoker.rules.schiebe.game.Board`, stud's
    :class:`~bbspoker.rules.stud.game.StudTable`): the kind's own screen and bots read it
    typed with :meth:`view_as`; code shared by every kind reads only the fields above.
    """

    version: int
    seats: tuple[Any, ...]
    current: str | None
    pot: int | None
    deadline: float | None
    actions: Mapping[str, tuple[type[act.Action], ...]]
    balances: Mapping[str, int]
    watchers: int = 0
    held: frozenset[str] = frozenset()
    rules: Any = None
    bots: frozenset[str] = frozenset()
    waiting: tuple[str, ...] = ()
    next_commitment: str | None = None
    view: Any = None
    kind: str = ""
    #: ``seats`` by lower-case handle: :meth:`seat_of`'s index, made with the snapshot
    #: (every screen asks for its own seat at every update).
    by_handle: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def view_as(self, view: type[_ViewT]) -> _ViewT:
        """:attr:`view` as the view type ``view`` of the table's kind, for code that
        knows the kind. Raises ``TypeError`` if it is not one."""
        if not isinstance(self.view, view):
            raise TypeError(f"the table's view is a {type(self.view).__name__}, not a "
                            f"{view.__name__}")
        return self.view

    def seat_of(self, handle: str) -> Any | None:
        """The seat of ``handle`` (case-insensitive), or ``None``."""
        if self.by_handle or not self.seats:
            return self.by_handle.get(handle.lower())
        low = handle.lower()
        return next((s for s in self.seats if s.handle.lower() == low), None)

    def seats_as(self, view: type[_SeatT]) -> tuple[_SeatT, ...]:
        """:attr:`seats` as the seat view ``view`` of the table's game kind (a Hold'em
        table's seats are :class:`~bbspoker.rules.holdem.game.HoldemSeat` s), for code
        that knows the kind; nothing is checked or converted."""
        return cast(tuple[_SeatT, ...], self.seats)

    def seat_as(self, view: type[_SeatT], handle: str) -> _SeatT | None:
        """:meth:`seat_of` as the seat view ``view`` of the table's kind (see
        :meth:`seats_as`)."""
        return cast("_SeatT | None", self.seat_of(handle))


@dataclass(frozen=True, slots=True)
class PrivateCards:
    """One player's own cards (sorted, highest at the right; empty: not dealt in), sent
    only to that player's subscriptions under the key ``"cards"``."""

    handle: str
    cards: tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class Hold(act.Action):
    """The table's own action: a seated player's connection dropped; the seat waits
    ``[table] reconnect_grace`` seconds for them (then ``Leave("lost_connection")``), or
    ``grace`` seconds if given (a worker that took the table over holds the seats of the
    players it seated again until their gateways' screens take them back)."""

    grace: float | None = None


@dataclass(frozen=True, slots=True)
class Return(act.Action):
    """The table's own action: a player whose seat was held is back (logged in again)."""


@dataclass(frozen=True, slots=True)
class WantSeat(act.Action):
    """The table's own action: a spectator asks for a seat ([J]). Between games with a seat
    free they sit at once; otherwise they wait in line (``TableSnapshot.waiting``) and
    get the first seat free between games: a game's end, a player leaving, or a computer
    player standing up for them. Refused with ``table_full`` when every seat
    is a person's."""


@dataclass(frozen=True, slots=True)
class Direct(act.Action):
    """The table's own action: a change another part of the server (a tournament's
    director) makes to the game in the table's own step, so that one writer changes it
    and its screens hear of it: ``change(now)`` returns the events it made."""

    change: Callable[[float], list[Event]]


#: Actions that seat or unseat a player: never refused as meant for a turn that passed.
_UNTIMED = (act.Sit, act.Leave, act.SitOut, Hold, WantSeat, Direct)

class TableAccess(Protocol):
    """A table as a session, the door's pages and the bot port reach it: the
    :class:`TableService` itself in one process, or a
    :class:`~bbspoker.table.remote.RemoteTable` following one served by a worker
    (``bbspoker gateway``). Each method means what :class:`TableService`'s says; a remote
    table's calls may also raise :class:`~bbspoker.table.remote.TableUnreachable` (a
    :class:`~bbspoker.rules.events.RuleError` with the code ``table_unreachable``)."""

    @property
    def bus(self) -> Bus:
        """The table's bus: snapshots, messages, each viewer's private items."""
        ...

    @property
    def snapshot(self) -> TableSnapshot:
        """The newest public view of the table."""
        ...

    def clock(self) -> float:
        """The table's clock, seconds (the snapshot's deadlines are on it)."""
        ...

    async def call(self, handle: str | None, action: act.Action) -> None:
        """Apply ``action`` and wait; raises the table's ``RuleError``."""
        ...

    def submit(self, handle: str | None, action: act.Action,
               turn: tuple[str | None, float | None] | None = None) -> asyncio.Future[None]:
        """:meth:`call` as a future, checked against the ``turn`` acted on."""
        ...

    def chat(self, handle: str, text: str) -> None:
        """A chat line (already cleaned) to everyone at the table."""
        ...

    def watch(self, handle: str) -> None:
        """``handle`` watches as a spectator."""
        ...

    def unwatch(self, handle: str) -> None:
        """``handle`` stopped watching."""
        ...

    def attach(self, handle: str) -> None:
        """A screen of seated ``handle`` is up."""
        ...

    def detach(self, handle: str) -> None:
        """That screen is gone."""
        ...

    def touch(self, handle: str) -> None:
        """``handle`` pressed a key at the table."""
        ...

    def mark_bot(self, handle: str, bot: bool = True) -> None:
        """Mark ``handle`` as a computer player (or not)."""
        ...

    def cards_of(self, handle: str) -> tuple[Any, ...]:
        """``handle``'s private cards as last sent."""
        ...

    def recent(self) -> tuple[TableMessage | ChatMessage, ...]:
        """The last public messages, oldest first."""
        ...

    def held(self, handle: str) -> bool:
        """Whether ``handle``'s seat waits for them after a dropped connection."""
        ...


@dataclass
class _Command:
    handle: str | None
    action: act.Action
    done: asyncio.Future[None] = field(default_factory=lambda: asyncio.get_running_loop().create_future())
    turn: tuple[str | None, float | None] | None = None


class TableService:
    """Owns one game (a :class:`~bbspoker.rules.base.GameRules` of any kind); ``run()``
    is its task.
    ``clock`` gives seconds (monotonic); ``reconnect_grace`` (seconds) is how long the
    seat of a player whose connection dropped is held (:class:`Hold`). ``on_lost`` is
    called with the ids of games whose writes the store could not commit (the
    registry hands each table its own; alone, a service calls them all off itself)."""

    def __init__(self, table: GameRules, bus: Bus, clock: Callable[[], float] = time.monotonic,
                 reconnect_grace: float = 0.0,
                 on_lost: Callable[[frozenset[int]], None] | None = None,
                 seat_idle_timeout: float = 0.0) -> None:
        self.table = table
        self.bus = bus
        self.clock = clock
        self.reconnect_grace = reconnect_grace
        self.seat_idle_timeout = seat_idle_timeout
        self._active_at: dict[str, float] = {}  # seated person (lower case) -> last key/act
        self.on_lost = on_lost if on_lost is not None else self.lose
        self._watchers: set[str] = set()      # spectators' handles (lower case)
        self._held: dict[str, float] = {}     # handle (as seated) -> when the hold ends
        self._cards: dict[str, tuple[Any, ...]] = {}  # last PrivateCards sent per handle
        self._touched: set[int] = set()       # games of steps not yet known committed
        self._attached: dict[str, int] = {}   # screens up per seated handle (lower case)
        self._bots: set[str] = set()          # computer players (lower case)
        self._waiting: list[str] = []         # spectators waiting for a seat, in order
        # Commands (None: look at the clock) waiting for the task, and what it sleeps on.
        self._queue: deque[_Command | None] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self._versions = itertools.count(1)
        self.snapshot = self._take_snapshot()
        #: Set once the server is stopping: no new game may start and nobody sits down
        #: (a seat taken then would hold CUBES that the shutdown has already cashed out).
        self.closing = False
        self._stopped = False
        self._idle = asyncio.Event()
        self._idle.set()
        self._lost: set[int] = set()  # games whose last moves the ledger could not commit
        # Games called off whose refund the ledger could not write yet: {id: (note, history)}.
        self._unrefunded: dict[int, tuple[str, Mapping[str, Any] | None]] = {}
        self._recent: deque[TableMessage | ChatMessage] = deque(maxlen=RECENT)
        #: ``after_step(events, now)``: called in every step that made events, inside it,
        #: with them; returns more events of this table (a tournament's director carries
        #: out a hand's end there, before the next hand can be dealt). ``None``: nothing.
        self.after_step: Callable[[list[Event], float], list[Event]] | None = None

    # ------------------------------------------------------------- viewers and seats

    def cards_of(self, handle: str) -> tuple[Any, ...]:
        """The private cards last sent to ``handle`` (empty if none): what a screen that
        subscribes now starts with; later changes come as :class:`PrivateCards`."""
        return self._cards.get(handle.lower(), ())

    def watch(self, handle: str) -> None:
        """``handle`` watches the table as a spectator (the snapshot counts watchers)."""
        self._watchers.add(handle.lower())
        self.wake()

    def unwatch(self, handle: str) -> None:
        """``handle`` stopped watching (and no longer waits for a seat)."""
        self._watchers.discard(handle.lower())
        self._waiting[:] = [h for h in self._waiting if h.lower() != handle.lower()]
        self.wake()

    def touch(self, handle: str) -> None:
        """``handle`` pressed a key at the table: not idle (see ``seat_idle_timeout``)."""
        self._active_at[handle.lower()] = self.clock()

    def _idle_deadline(self) -> float | None:
        """When the first seated person out of the game has been idle too long, or None."""
        if self.seat_idle_timeout <= 0:
            return None
        running = self.table.game_id is not None
        times = [self._active_at.get(s.handle.lower(), self.clock())
                 for s in self.snapshot.seats
                 if s.handle.lower() not in self._bots and s.handle not in self._held
                 and not (running and s.active)]
        return min(times) + self.seat_idle_timeout if times else None

    def _stand_idle(self, now: float) -> list[Event]:
        """Seated people out of the game who pressed no key for ``seat_idle_timeout``
        stand up (``Leave("idle")``)."""
        if self.seat_idle_timeout <= 0:
            return []
        events: list[Event] = []
        running = self.table.game_id is not None
        seats = self.table.seats()
        if len(self._active_at) > len(seats):         # forget who is no longer seated
            seated = {v.handle.lower() for v in seats}
            self._active_at = {k: t for k, t in self._active_at.items() if k in seated}
        for s in seats:
            key = s.handle.lower()
            if key in self._bots or s.handle in self._held or (running and s.active):
                continue
            since = self._active_at.setdefault(key, now)
            if now - since >= self.seat_idle_timeout:
                self._active_at.pop(key, None)
                events += self.table.apply(s.handle, act.Leave("idle"), now)
        return events

    def mark_bot(self, handle: str, bot: bool = True) -> None:
        """Mark ``handle`` as a computer player (the screens say ``(bot)``) or not."""
        (self._bots.add if bot else self._bots.discard)(handle.lower())
        self.wake()

    def attach(self, handle: str) -> None:
        """A screen of seated ``handle`` is up: a :class:`Hold` sent by an older screen of
        the same player (a connection that was taken over) is then ignored."""
        key = handle.lower()
        self._attached[key] = self._attached.get(key, 0) + 1

    def detach(self, handle: str) -> None:
        """That screen is gone (see :meth:`attach`)."""
        key = handle.lower()
        n = self._attached.get(key, 0) - 1
        if n > 0:
            self._attached[key] = n
        else:
            self._attached.pop(key, None)

    @property
    def attached(self) -> frozenset[str]:
        """The seated handles (lower case) with a screen up now (:meth:`attach`)."""
        return frozenset(self._attached)

    def screens_lost(self, handle: str) -> asyncio.Future[None]:
        """Every screen of seated ``handle`` (as seated) went away without a word, all at
        once (the gateway that showed them died): none counts as up any more, and the seat
        is held for ``reconnect_grace`` as after a dropped connection (:class:`Hold`; with
        no grace the player leaves at once). Returns the future of the hold
        (:meth:`submit`: ``RuleError("table_closed")`` if the table has stopped)."""
        self._attached.pop(handle.lower(), None)
        return self.submit(handle, Hold())

    def held(self, handle: str) -> bool:
        """True while ``handle``'s seat waits for them after a dropped connection."""
        return any(h.lower() == handle.lower() for h in self._held)

    def lose(self, games: frozenset[int]) -> None:
        """The store could not commit the writes of ``games``: call off those of this
        table (the games its recent steps touched) in the next step."""
        mine = games & self._touched
        if mine:
            self._lost |= mine
            self.wake()
        # A kind with stacks: a buy-in or cash-out in the lost writes touched no game,
        # but the table's stacks must be the store's again (``resync``: nothing to do
        # for a kind without). The table's task is not running now (a commit runs
        # between steps), so this is safe here. Who may be dealt in, and so the next
        # deal's time, may have changed with them: the task looks at its deadline again.
        if self.table.table_stakes:
            self.table.resync()
            self.wake()

    def submit(self, handle: str | None, action: act.Action,
               turn: tuple[str | None, float | None] | None = None) -> asyncio.Future[None]:
        """Queue ``action`` of ``handle`` (``None`` for the server's own, such as
        :class:`~bbspoker.rules.actions.Cancel`) for the owning task; returns the future of
        its outcome, for a caller that must not wait (a screen taking keys inside the
        event-loop turn they arrived, see :mod:`bbspoker.door.screens.draw40`).

        ``turn``: ``(current, deadline)`` of the snapshot the player acted on (a screen
        gives it; ``None``: no check). A game action meant for a turn that has passed --
        the clock played it for them, and the same player is in turn again, say on the
        next Hold'em street -- is refused (``turn_passed``) instead of landing on the new
        turn. Seating actions are never refused for it.

        The future's exception is :class:`~bbspoker.rules.events.RuleError` (a code: the
        door says it to the player) if the rules refuse or the table is closed
        (``table_closed``). Raises ``TypeError`` at once for what is not an action."""
        if not isinstance(action, act.Action):
            raise TypeError(f"not a table action: {action!r}")
        cmd = _Command(handle, action, turn=turn)
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
        """Server shutdown: refuse new games, let a running game finish for up
        to ``grace`` seconds of real time, then call it off (every ante and bet refunded)."""
        self.closing = True
        self.table.stop_dealing()          # a kind whose games the clock starts
        try:
            await self._finish_game(grace)
        finally:
            if self.table.table_stakes:    # the stacks go back to their owners' CUBES
                for handle in list(self.table.handles):
                    with contextlib.suppress(RuleError):
                        await self.call(handle, act.Leave("shutdown"))

    async def _finish_game(self, grace: float) -> None:
        """The running game, if any, finishes within ``grace`` s or is called off."""
        if self.table.game_id is None:
            return
        self.bus.publish(TableMessage(Event("shutdown_grace", None, {"grace": grace})))
        try:
            await asyncio.wait_for(self._idle.wait(), grace)
        except TimeoutError:
            with contextlib.suppress(RuleError):
                await self.call(None, act.Cancel("shutdown"))

    def chat(self, handle: str, text: str) -> None:
        """Publish a chat line to everyone at the table (``text`` already cleaned)."""
        item = ChatMessage(handle, text)
        self._recent.append(item)
        self.bus.publish(item)

    def recent(self) -> tuple[TableMessage | ChatMessage, ...]:
        """The last :data:`RECENT` messages everyone at the table was sent (events for
        all and chat lines, oldest first): what a spectator or a returning player is
        shown first, so that they see what just happened. Never a private event."""
        return tuple(self._recent)

    async def run(self) -> None:
        """The owning task: apply commands in order, and time-outs when due.
        When it is cancelled, waiting and later actions fail with ``RuleError("table_closed")``.

        It sleeps on one future, which a command, a wake-up (:meth:`wake`,
        :meth:`poll_balances`) and the timer of the next deadline resolve: no
        ``asyncio.Queue`` and no timeout context per command (each costs latency on every
        move); and no timer at all while no deadline runs (the balance poll is the
        registry's, one for all tables)."""
        loop = asyncio.get_running_loop()
        try:
            while True:
                if not self._queue:
                    deadline = self._next_deadline()
                    waiter = self._waiter = loop.create_future()
                    timer = None if deadline is None else loop.call_later(
                        max(0.0, deadline - self.clock()), self._enqueue, None)
                    try:
                        await waiter
                    finally:
                        if timer is not None:
                            timer.cancel()
                        self._waiter = None
                self._apply(self._queue.popleft())
        finally:
            self._stopped = True
            for cmd in self._queue:
                if isinstance(cmd, _Command) and not cmd.done.done():
                    cmd.done.set_exception(RuleError("table_closed"))
            self._queue.clear()

    def poll_balances(self, balances: Mapping[str, int] | None = None, *,
                      compare: bool = True) -> bool:
        """The balance poll, every :data:`BALANCE_POLL` s from the registry
        (:meth:`~bbspoker.table.registry.TableRegistry.poll_balances`): wake the task for
        a step if a seated player's CUBES are no longer those of the last snapshot (an
        admin's grant from the CLI, a Hold'em stack cashed out at another table), or
        the table has something to do each second (a game to call off or a refund to
        write again, someone waiting for a seat, a held seat) or a deadline passed unnoticed. Most polls find
        nothing, and cost no step, snapshot or task switch.

        ``balances``: ``{handle: CUBES}`` as the wallet has them now for (at least) every
        seated handle, read once for all tables; ``None``: read here. ``compare=False``
        (the read failed): everything but the CUBES is looked at. Returns whether a step
        was queued. Raises what the wallet's read raises."""
        if self._stopped or self._queue:      # a step is coming anyway
            return False
        if not self._due(balances, compare):
            return False
        self._enqueue(None)
        return True

    def _next_deadline(self) -> float | None:
        """When the task must step next by the clock (service clock, seconds): the first of
        the game's deadline, the end of a held seat's grace and a seated person's idle
        limit; ``None`` if none runs."""
        times = [t for t in (self.table.deadline(), self._idle_deadline()) if t is not None]
        if self._held:
            times.append(min(self._held.values()))
        return min(times) if times else None

    def _due(self, balances: Mapping[str, int] | None, compare: bool) -> bool:
        """Whether the balance poll finds a step due: a game to call off or a refund to
        write again, someone waiting for a seat, a held seat, a deadline that has come,
        or (when ``compare``) a seated player whose CUBES (``balances``, else the
        wallet's, which reads the store again when another connection wrote it: an
        admin's grant) are not those of the last snapshot."""
        if self._lost or self._unrefunded or self._waiting or self._held:
            return True
        deadline = self._next_deadline()
        if deadline is not None and deadline <= self.clock():
            return True
        snap = self.snapshot
        handles = [s.handle for s in snap.seats]
        if not handles or not compare:
            return False
        if balances is None:
            balances = self.table.wallet.balances_of(handles)
        shown = snap.balances
        return any(balances.get(h, 0) != shown.get(h) for h in handles)

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

    def _check_turn(self, cmd: _Command) -> None:
        """Raise ``turn_passed`` if ``cmd`` is a game action of the player in turn made for
        an earlier turn of theirs (:meth:`submit`'s ``turn``): the deadline of the turn
        they saw is not the one running now (this step's time-outs already applied)."""
        if cmd.turn is None or cmd.handle is None or isinstance(cmd.action, _UNTIMED):
            return
        table = self.table
        current = table.current
        if current is not None and current.lower() == cmd.handle.lower() \
                and cmd.turn != (current, table.deadline()):
            raise RuleError("turn_passed")

    def _step(self, cmd: _Command | None) -> None:
        """Games whose commit failed called off, timeouts, the command; publish and paint
        (``Bus.flush``); tell the caller.

        Work another table (or an earlier step of this one) left pending in the shared
        store is committed first, so that what this step writes is never in the same
        commit as another table's moves: a failed commit then holds one table's games
        only, and only that table calls its game off."""
        self._commit()
        now = self.clock()
        caller = cmd.done if cmd is not None else None
        error: RuleError | None = None
        table = self.table
        before = table.game_id
        with table.wallet.defer_commits():
            events = self._call_off_lost(now) + table.tick(now) + self._release_held(now)
            events += self._stand_idle(now)
            if cmd is not None and self.closing and isinstance(cmd.action, (act.Start,
                                                                           act.Sit)):
                error, cmd = RuleError("shutting_down"), None
            if cmd is not None:
                if cmd.handle is not None:
                    self._active_at[cmd.handle.lower()] = now
                try:
                    self._check_turn(cmd)
                    events += self._act(cmd.handle, cmd.action, now)
                except RuleError as err:
                    error = err
                except Exception:  # a bug or a storage failure: log it, tell the player
                    log.exception("table action %r of %r failed", cmd.action, cmd.handle)
                    error = RuleError("failed")
            if self._waiting and not self.closing:
                events += self._seat_waiting(now)
            if self.after_step is not None and events:
                try:
                    events += self.after_step(events, now)
                except Exception:  # a bug: logged; the table goes on
                    log.exception("the after-step hook of a table step failed")
        for gid in (before, table.game_id):
            if gid is not None:
                self._touched.add(gid)
        for e in events:
            if e.kind not in _SILENT and not self._housekeeping(e):
                item = TableMessage(e)
                if e.to is not None:               # private news: to that player only
                    self.bus.publish_to(e.to, item)
                    continue
                self._recent.append(item)
                self.bus.publish(item)
        self._send_cards()
        if self.table.game_id is None:
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

    def _housekeeping(self, e: Event) -> bool:
        """Whether ``e`` is a computer player sitting out or coming back: bots sit out
        while no person is at the table and come back when one sits down, which is the
        table waiting for people, not news to tell them."""
        return e.kind in ("sit_out", "sit_in") and e.handle is not None \
            and e.handle.lower() in self._bots

    def _commit(self) -> None:
        """Write and commit the pending ledger work (this table's last step, and whatever
        other tables' steps joined it). If that fails, every table whose games it touched
        is told (``on_lost``): each calls its own off in its next step."""
        try:
            self.table.wallet.commit_pending()
        except CommitFailed as failed:
            self.on_lost(failed.games)
        else:
            self._touched.clear()

    def _act(self, handle: str | None, action: act.Action, now: float) -> list[Event]:
        """The table's own actions (holding and giving back a seat, asking for one), or
        the game's (the server's own, ``Cancel``, come without a handle: the game is
        given the empty one)."""
        match action:
            case Hold(grace=grace):
                assert handle is not None
                if self._attached.get(handle.lower()):
                    return []                  # the player is back on another connection
                grace = self.reconnect_grace if grace is None else grace
                if grace <= 0 or handle not in self.table.handles:
                    return self.table.apply(handle, act.Leave("lost_connection"), now) \
                        if handle in self.table.handles else []
                self._held[handle] = now + grace
                return [Event("connection_lost", handle, {"grace": grace})]
            case Return():
                assert handle is not None
                seated = next((h for h in self._held if h.lower() == handle.lower()), None)
                if seated is None:
                    raise RuleError("not_seated")
                del self._held[seated]
                return [Event("reconnected", seated)]
            case WantSeat():
                assert handle is not None
                return self._want_seat(handle, now)
            case Direct():
                return action.change(now)
            case act.Leave() if handle is not None:
                self._held.pop(handle, None)
        return self.table.apply(handle if handle is not None else "", action, now)

    def _want_seat(self, handle: str, now: float) -> list[Event]:
        """A spectator's [J] (:class:`WantSeat`)."""
        t = self.table
        if handle.lower() in (h.lower() for h in t.handles):
            raise RuleError("already_seated")
        if t.game_id is None and not t.is_full:
            return t.apply(handle, act.Sit(), now)
        if t.is_full and not any(h.lower() in self._bots for h in t.handles):
            raise RuleError("table_full", seats=t.rules.seats)
        if all(h.lower() != handle.lower() for h in self._waiting):
            self._waiting.append(handle)
        ahead = next(i for i, h in enumerate(self._waiting) if h.lower() == handle.lower())
        return [Event("seat_wanted", handle, {"ahead": ahead}, to=handle)]

    def _seat_waiting(self, now: float) -> list[Event]:
        """Between games, the spectators waiting for a seat take the free ones in turn."""
        events: list[Event] = []
        t = self.table
        while self._waiting and t.game_id is None and not t.is_full:
            handle = self._waiting.pop(0)
            if handle.lower() in (h.lower() for h in t.handles):
                continue
            try:
                events += t.apply(handle, act.Sit(), now)
            except RuleError as err:        # e.g. too few CUBES for a buy-in now
                events.append(Event("seat_refused", handle, {"code": err.code, **err.params},
                                    to=handle))
                continue
            self._watchers.discard(handle.lower())
        return events

    def _release_held(self, now: float) -> list[Event]:
        """Seats whose hold ran out are given up (chapter 2: the player is removed; CUBES
        bet stay in the pot)."""
        events: list[Event] = []
        for handle, until in list(self._held.items()):
            if until <= now:
                del self._held[handle]
                if handle in self.table.handles:
                    events += self.table.apply(handle, act.Leave("lost_connection"), until)
        return events

    def _send_cards(self) -> None:
        """Each player's own cards, to that player only, when they changed."""
        sent = self._cards
        hands = self.table.hands()
        for handle, cards in hands.items():
            key = handle.lower()
            if sent.get(key, ()) != cards:
                sent[key] = cards
                self.bus.publish_to(handle, PrivateCards(handle, cards), key="cards")
        if len(sent) > len(hands):
            seated = {h.lower() for h in hands}
            for key in [k for k in sent if k not in seated]:
                del sent[key]

    def _call_off_lost(self, now: float) -> list[Event]:
        """Call off the games whose moves the ledger lost (``GameRules.call_off``), after
        writing the refunds still pending (:meth:`_refund_pending`).

        If the ledger cannot write the refund (:class:`~bbspoker.rules.seating.RefundFailed`:
        a full disk), the table has dropped the game all the same; the refund, with what
        the table knew of the game, is kept pending and tried again at every step until
        the ledger takes it (the players are told it comes as soon as the server can save
        again; the log says so once, not at every try). Any other failure is logged, and
        the ledger, which still holds the game open, refunds it at the next start."""
        events = self._refund_pending()
        if not self._lost:
            return events
        games, self._lost = self._lost, set()
        try:
            return events + self.table.call_off(now, LOST_REASON, games)
        except RefundFailed as failed:
            self._unrefunded.update(failed.pending)
            log.exception("the call-off of game(s) %s could not be written; the table tries "
                          "again at every step until it can", sorted(failed.pending))
            later: dict[str, Any] = {"retry": True, "refunds": failed.refunds}
        except Exception:
            log.exception("calling off game(s) %s failed; they are refunded at the next "
                          "start", sorted(games))
            later = {"later": True, "refunds": {}}
        return events + [Event("cancelled", None, {"reason": LOST_REASON, **later})]

    def _refund_pending(self) -> list[Event]:
        """Write the refunds of games called off that the ledger could not write then
        (:func:`~bbspoker.rules.seating.refund_games`); those it still cannot write stay
        pending, quietly (their first failure was logged). Returns a ``refunded`` event
        (``reason``, ``refunds`` ``{handle: CUBES}``, ``games``) once some are written."""
        pending = self._unrefunded
        if not pending:
            return []
        try:
            refunds = refund_games(self.table.wallet, pending)
            self._unrefunded = {}
        except RefundFailed as failed:
            refunds, self._unrefunded = failed.refunds, failed.pending
        done = sorted(set(pending) - set(self._unrefunded))
        if not done:
            return []
        log.warning("the call-off of game(s) %s is written now: every stake given back", done)
        self.table.resync()        # a kind with stacks: the refunds went to them
        return [Event("refunded", None, {"reason": LOST_REASON, "refunds": refunds,
                                         "games": done})]

    def _differs(self, snap: TableSnapshot) -> bool:
        old = self.snapshot
        return (snap.balances != old.balances or snap.seats != old.seats
                or snap.deadline != old.deadline or snap.watchers != old.watchers
                or snap.held != old.held or snap.bots != old.bots
                or snap.waiting != old.waiting or snap.next_commitment != old.next_commitment)

    def _take_snapshot(self) -> TableSnapshot:
        """The table now, read in one pass over the seats for each of seats, hands and
        actions (it runs in every step, before the screens are painted)."""
        t = self.table
        seats = tuple(t.seats())
        handles = [s.handle for s in seats]
        # One read for everyone; an account removed under us shows 0 rather than failing.
        balances = dict.fromkeys(handles, 0) | t.wallet.balances_of(handles) if handles else {}
        return TableSnapshot(
            version=next(self._versions),
            seats=seats,
            current=t.current,
            pot=t.pot,
            deadline=t.deadline(),
            actions=t.all_actions(),
            balances=balances,
            watchers=len(self._watchers),
            held=frozenset(self._held),
            rules=t.rules,
            bots=frozenset(self._bots),
            waiting=tuple(self._waiting),
            next_commitment=t.next_commitment,
            view=t.view(balances),
            kind=t.kind,
            by_handle={s.handle.lower(): s for s in seats},
        )
