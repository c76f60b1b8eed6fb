"""The game screen every kind of table runs, and the one way into a table.

:func:`enter_table` is what the lobby runs for any table: the kind's intro (what is
played, the stakes, that the game uses ANSI escape sequences), who sits at the table
(or that nobody does), then ``Join the table? (y/n) [W] Watch`` (a full table only
offers to watch, or a computer player's seat; ``W`` watches at any table), then a
:class:`TableScreen` of the table's kind until the player leaves ([X]) or the connection
drops. What differs between kinds is a :class:`ScreenKind` (defined in each kind's
screen module, listed in :mod:`bbspoker.door.screens.kinds`).

A :class:`TableScreen` turns three inputs into one output:

- keys from the session (the kind's game keys, the chat line ``.``, leave ``X``,
  a spectator's ``J``),
- items from the table's bus (:class:`~bbspoker.table.service.TableSnapshot`
  state, :class:`~bbspoker.table.service.TableMessage` and
  :class:`~bbspoker.table.service.ChatMessage` lines), and
- the clock (the count-down, once a second),

into a view (the kind's own: :class:`~bbspoker.door.screens.regions.GameView` for
draw40, the rows of :mod:`bbspoker.door.screens.rows` for the others), which its
:class:`Renderer` turns into the few bytes that change the player's screen. Every
renderer has the same two ways in, :meth:`Renderer.render` (the whole view) and
:meth:`Renderer.render_clock` (the clock alone, or ``None``: then the loop paints the
whole view), so no kind can lack the clock's path.

The loop also holds the seat of a dropped connection (and takes it back on return),
keeps a congested session's screen until it has caught up, lets a spectator take a
seat, and ends a caller's visit whose time on their BBS is up.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import math
import textwrap
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar

from bbspoker.door import i18n
from bbspoker.door.keys import Edit, Key, KeyKind, LineEditor
from bbspoker.door.messages import Wording, next_commitment_text, refusal
from bbspoker.door.prompts import read_line
from bbspoker.door.screens.regions import MESSAGE_ROWS, message_rows
from bbspoker.door.terminal import SessionClosed
from bbspoker.rules import actions as act
from bbspoker.rules.events import Event, RuleError
from bbspoker.table.service import (ChatMessage, Hold, PrivateCards, Return, TableMessage,
                                    TableSnapshot, WantSeat)
from bbspoker.text import clean_text, display_width

if TYPE_CHECKING:
    from bbspoker.door.context import DoorContext
    from bbspoker.door.terminal import Player, Terminal
    from bbspoker.table.bus import Subscription
    from bbspoker.table.registry import TableRef

__all__ = ["enter_table", "join_or_watch", "TableScreen", "ScreenKind", "Renderer", "Line",
           "CHAT_MAX", "CHAT_WIDTH"]

log = logging.getLogger(__name__)

#: Longest chat line, in characters; its width is also bounded to fit the input line
#: and the message area ("[handle] text" in 72 cells).
CHAT_MAX = 200
CHAT_WIDTH = 72

#: A line of the message area: ``(tag, text)``, the tag ``SYSTEM``, ``INFO`` or a handle.
Line = tuple[str, str]

_UNSET: Any = object()

V = TypeVar("V")
V_contra = TypeVar("V_contra", contravariant=True)


class Renderer(Protocol[V_contra]):
    """What turns a screen's views into bytes for one client (``ScreenRenderer`` of
    :mod:`~bbspoker.door.screens.regions`, ``RowRenderer`` of
    :mod:`~bbspoker.door.screens.rows`)."""

    def resize(self, cols: int, rows: int) -> None:
        """The window's size from NAWS (cells); a change repaints everything."""

    def invalidate(self) -> None:
        """Forget what the client shows: the next :meth:`render` draws everything."""

    def render(self, view: V_contra) -> str:
        """The bytes that bring the client's screen to ``view`` (``""``: nothing changed)."""

    def render_clock(self, clock: str | None) -> str | None:
        """The bytes that bring only the clock to ``clock`` (``"0:59"``, None for none),
        the rest as last rendered; ``None`` when this renderer cannot (then the screen
        renders its whole view)."""


@dataclass(frozen=True, slots=True)
class ScreenKind:
    """Everything the door does differently for one game kind, declared once in the
    kind's screen module and listed in :mod:`bbspoker.door.screens.kinds`.

    - ``name``: the kind's code (``TableSpec.game``, a record's ``"game"``).
    - ``screen``: its :class:`TableScreen` class.
    - ``title``, ``phrase``, ``help``: English texts marked for the catalogue (the
      reader's language is made where they are shown): the lobby's and the hall of
      fame's name of the kind (``"Hold'em"``), how a sentence names what its tables
      play (``"fixed-limit Texas Hold'em"``), and the lobby's [H] help screen.
    - ``intro(t, entry, app, handle) -> lines``: the first lines of :func:`enter_table`
      (the game, its stakes, the ANSI note), in ``t``'s language.
    - ``stakes(rules, t) -> text``: the stakes in the lobby's table list (14 cells).
    - ``seated``/``nobody``: who sits at the table, or that nobody does (English,
      ``{taken}``, ``{seats}``, ``{names}``); ``watchers``: whether the entry also
      says how many watch.
    - ``bots_stand_up``: what a full table says when its computer players stand up for
      a person (``{seats}``), or ``None`` when they keep their seats (then the entry
      neither marks them as bots nor offers [J] at a full table).
    - ``still_seated(t, snapshot, handle) -> text | None``: why one who left a game
      still running has no seat to take yet (only watching is offered), or ``None``.
    - ``buy_in(session, app, entry) -> Sit | None``: asks what a player brings to the
      table (``None``: back to the lobby); ``None`` for a plain
      :class:`~bbspoker.rules.actions.Sit`.
    - ``master(snapshot) -> handle | None``: who the table's greeting names as the
      game-master (draw40's, Schiebe-Poker's host), read from the kind's view;
      ``None`` (the hook or its answer) for a kind without one.
    - ``describe_event(event, t) -> (tag, text) | None``: an event of this kind's
      tables as the message area reads it in ``t``'s language (the shared wording of
      :func:`bbspoker.door.messages.shared_event` included).
    - ``describe_operation(op) -> text``: one line of a record of this kind for
      ``bbspoker games show`` (English).
    - ``refusals``: the refusal codes only this kind's tables give, each worded
      (:data:`~bbspoker.door.messages.Wording`); :meth:`refusal` says them and the
      codes every kind shares.
    """

    name: str
    screen: type[TableScreen[Any]]
    title: str
    phrase: str
    help: str
    intro: Callable[[i18n.Translator, TableRef, DoorContext, str], list[str]]
    stakes: Callable[[Any, i18n.Translator], str]
    describe_event: Callable[[Event, i18n.Translator], Line | None]
    describe_operation: Callable[[Mapping[str, Any]], str]
    seated: str
    nobody: str
    watchers: bool = False
    bots_stand_up: str | None = None
    still_seated: Callable[[i18n.Translator, TableSnapshot, str], str | None] | None = None
    buy_in: Callable[[Player, DoorContext, TableRef],
                     Awaitable[act.Sit | None]] | None = None
    master: Callable[[TableSnapshot], str | None] | None = None
    refusals: Mapping[str, Wording] = field(default_factory=dict, hash=False, compare=False)

    def refusal(self, err: RuleError, t: i18n.Translator = i18n.ENGLISH) -> str:
        """Why a table of this kind refused an action, in ``t``'s language: its own
        :attr:`refusals`, else the wording every kind shares
        (:func:`bbspoker.door.messages.refusal`)."""
        return refusal(err, t, self.refusals)


def _ignore_refusal(outcome: asyncio.Future[None]) -> None:
    """Take a refusal nobody waits for (a ``Return`` when the seat was not held: the old
    connection's screen had not given it up yet)."""
    if not outcome.cancelled():
        outcome.exception()


async def _choose(session: Terminal, keys: str, timeout: float) -> str:
    """Wait for one of ``keys`` (lower case; any case typed) and return it; ``"n"`` when no
    key comes within ``timeout`` seconds (a caller who walks away from the question must
    not hold the connection forever). ``y`` and ``n`` in ``keys`` stand for the session's
    language's yes and no keys
    (:meth:`~bbspoker.door.i18n.Translator.answer`: ``j``/``n`` in German, ``o``/``n`` in
    French): typed, they are shown as such and returned as ``"y"``/``"n"``."""
    t = i18n.of(session)
    while True:
        try:
            key = await session.read_key(timeout)
        except TimeoutError:
            session.write("\r\n")
            return "n"
        if key.kind is not KeyKind.CHAR:
            continue
        char = key.char.lower()
        answer = t.answer(char) if "y" in keys else None
        if answer is not None:
            session.write((t.yes if answer else t.no) + "\r\n")
            return "y" if answer else "n"
        if char in keys:
            session.write(char + "\r\n")
            return char


async def join_or_watch(session: Player, app: DoorContext, entry: TableRef,
                        screen: type[TableScreen[Any]],
                        sit: Callable[[], Awaitable[act.Sit | None]] | None = None) -> None:
    """The end of every game kind's entry text: ``Join the table? (y/n) [W] Watch``. No
    (or no key within ``[server] lobby_idle_timeout`` s): back to the lobby; W: ``screen``
    as a spectator; yes: the ``Sit`` that ``sit`` gives (``None``: back; Hold'em asks the
    buy-in there; default a plain :class:`~bbspoker.rules.actions.Sit`), then ``screen``
    as a player. A refused seat is said until a key is pressed."""
    t = i18n.of(session)
    idle = app.config.server.lobby_idle_timeout
    session.write(t.gettext("Join the table? (y/n) [W] Watch "))
    choice = await _choose(session, "ynw", idle)
    if choice == "n":
        return
    if choice == "w":
        await screen(session, app, entry, watching=True).run()
        return
    action = act.Sit() if sit is None else await sit()
    if action is None:
        return
    try:
        await entry.service.call(session.handle, action)
    except RuleError as err:
        said = t.gettext("{refusal} Press any key.").format(refusal=screen.kind.refusal(err, t))
        session.write("\r\n".join(textwrap.wrap(said, max(session.cols - 1, 20))))
        await session.read_key(idle)
        return
    await screen(session, app, entry).run()


async def ask_buy_in(session: Player, app: DoorContext, low: int, high: int) -> act.Sit | None:
    """A table-stakes kind's buy-in question: the stack to bring (CUBES), asked until it is
    between ``low`` and ``high`` and within the player's CUBES (Enter alone: the most they
    may bring); ``None`` when too poor (said until a key is pressed) or no answer came
    within ``[server] lobby_idle_timeout``. Raises ``TimeoutError`` as ``read_line``."""
    t = i18n.of(session)
    n = t.number
    idle = app.config.server.lobby_idle_timeout
    cubes = app.ledger.balance(session.handle)
    if cubes < low:
        session.write(t.gettext("You need at least {low} CUBES to sit here; you have "
                                "{cubes}. Press any key.").format(low=n(low), cubes=n(cubes)))
        await session.read_key(idle)
        return None
    most = min(high, cubes)
    while True:
        typed = (await read_line(session, t.gettext(
            "Buy in with how many CUBES ({low}-{most}, Enter: {most})? ").format(
                low=n(low), most=n(most)), max_chars=12, timeout=idle)).strip()
        amount = most if not typed else int(typed) if typed.isascii() and typed.isdigit() \
            else None
        if amount is not None and low <= amount <= most:
            return act.Sit(buy_in=amount)
        session.write(t.gettext("Type a number from {low} to {most} (digits only).").format(
            low=n(low), most=n(most)) + "\r\n")


async def enter_table(session: Player, app: DoorContext, entry: TableRef,
                      kind: ScreenKind) -> None:
    """Entering a table of the game kind ``kind``: its intro (the game, the stakes, the
    ANSI notice) and who is there, then join, watch or go back; then play (or watch) on
    ``kind.screen``.

    Returns when the player has left the table (or never sat down). Raises
    :class:`~bbspoker.door.terminal.SessionClosed` if the connection drops outside the
    game screen; a drop inside it is handled (the seat is held for
    ``[table] reconnect_grace`` seconds, then given up).
    """
    rules = entry.spec.rules
    snap = entry.service.snapshot
    t = i18n.of(session)
    n = t.number
    lines = kind.intro(t, entry, app, session.handle)
    marks = kind.bots_stand_up is not None
    names = [s.handle + (t.gettext(" (bot)") if marks and s.handle.lower() in snap.bots
                         else "") for s in snap.seats]
    if names:
        lines.append(t.gettext(kind.seated).format(taken=len(names), seats=rules.seats,
                                                   names=", ".join(names)))
    else:
        lines.append(t.gettext(kind.nobody))
    if kind.watchers and snap.watchers:
        lines.append(t.ngettext("{n} watching.", "{n} watching.", snap.watchers).format(
            n=n(snap.watchers)))
    session.write("\x1b[H\x1b[2J" + "\r\n".join(lines) + "\r\n\r\n")
    idle = app.config.server.lobby_idle_timeout
    still = None if kind.still_seated is None else kind.still_seated(t, snap, session.handle)
    full = len(names) >= rules.seats
    if still is None and not full:
        buy_in = kind.buy_in
        sit = None if buy_in is None else functools.partial(buy_in, session, app, entry)
        await join_or_watch(session, app, entry, kind.screen, sit)
        return
    may_join = still is None and marks and bool(snap.bots)
    if still is not None:
        session.write(still + "\r\n" + t.gettext("[W] Watch the game, any other key: back. "))
    elif may_join:
        assert kind.bots_stand_up is not None
        session.write(t.gettext(kind.bots_stand_up).format(seats=rules.seats) + "\r\n"
                      + t.gettext("[J] Join, [W] Watch the game, any other key: back. "))
    else:
        session.write(t.gettext("All {seats} seats are taken. [W] Watch the game, any "
                                "other key: back. ").format(seats=rules.seats))
    try:
        key = await session.read_key(idle)
    except TimeoutError:
        return
    char = key.char.lower() if key.kind is KeyKind.CHAR else ""
    if char == "w" or (char == "j" and may_join):
        await kind.screen(session, app, entry, watching=True, want_seat=char == "j").run()


class TableScreen(Generic[V]):
    """The game screen loop of one seated player, or of a spectator (``watching``); see
    the module docstring. ``entry`` is the table; ``returning``: back to a seat held
    after a dropped connection; ``want_seat``: a spectator who came for a computer
    player's seat.

    A kind's screen gives :meth:`view` (what its renderer draws, from
    :meth:`_make_renderer`), its game keys (:meth:`_game_key`, and :meth:`_mode_key`
    for its own prompts), when leaving costs nothing (:meth:`_between_games`), when a
    spectator may sit (:meth:`_may_sit`) and whose clock is shown
    (:meth:`_clock_deadline`); :attr:`kind` is its :class:`ScreenKind` (which words its
    table's events)."""

    #: The screen's game kind (set by the kind's module once its ScreenKind exists).
    kind: ClassVar[ScreenKind]

    def __init__(self, session: Player, app: DoorContext, entry: TableRef,
                 watching: bool = False, returning: bool = False,
                 want_seat: bool = False) -> None:
        self.session = session
        self.app = app
        self.entry = entry
        self.service = entry.service
        self.rules = entry.spec.config
        self.watching = watching
        self.handle: str = session.handle
        self.t = i18n.of(session)  # this viewer's language: every line is rendered in it
        self.renderer: Renderer[V] = self._make_renderer()
        self.renderer.resize(session.cols, session.rows)
        self.snapshot: TableSnapshot = self.service.snapshot
        self.cards = () if watching else self.service.cards_of(self.handle)
        self._own_cubes = app.ledger.balance(self.handle) if watching else 0
        self._sitting = False  # a spectator's [J] is in flight
        self._returning = returning  # back to a seat held after a dropped connection
        self._want_seat = want_seat  # a spectator who came for a computer player's seat
        self.messages: deque[tuple[str, str]] = deque(maxlen=MESSAGE_ROWS)
        self.message_count = 0
        # ``messages`` as the view's tuple, made again only after a message came: the same
        # object from paint to paint, which the renderer then takes as unchanged at once.
        self._shown: tuple[tuple[str, str], ...] | None = None
        self.mode: str | None = None      # None, "exit", "chat", or a kind's own prompt
        self.editor: LineEditor | None = None
        self.error: str | None = None
        self.leaving = False
        #: The caller's time on their BBS is up (a notice, ``"time_up"`` or
        #: ``"time_up_now"``): they leave between games, or now. ``None`` until then.
        self.time_up: str | None = None
        self._busy = False  # this player's own table command is in flight
        self._ended = False  # the screen loop has ended: no more keys or paints
        self._sub: Subscription | None = None  # the table's bus, once run() subscribed
        self._stale = False  # updates were skipped (the session is congested): repaint all
        self._wakeup: asyncio.Future[None] | None = None  # what the loop sleeps on
        self._clock_for: float | None = None  # the deadline the clock's timer ticks for
        self._clock_timer: asyncio.TimerHandle | None = None  # the clock's next second
        master = None if self.kind.master is None else self.kind.master(self.snapshot)
        if watching or returning:     # what just happened at the table, then the greeting
            for item in self.service.recent():
                if isinstance(item, ChatMessage):
                    self._add_message(item.handle, item.text)
                elif (line := self._describe(item.event)) is not None:
                    self._add_message(*line)
        _ = self.t.gettext
        greeting = (_("You are watching {table}, {h}. ") if watching
                    else _("Welcome back to {table}, {h}. ") if returning
                    else _("Welcome to the table, {h}. ")).format(table=entry.name, h=self.handle)
        if master:
            greeting += _("{master} is the game-master.").format(master=master)
        self._add_message("INFO", greeting)
        upcoming = self.snapshot.next_commitment    # public before the next game's seeds
        if upcoming is not None:
            self._add_message("INFO", next_commitment_text(upcoming, self.t))

    # ----------------------------------------------------------------- the kind's part

    def _make_renderer(self) -> Renderer[V]:
        """The renderer of this kind's views for this session."""
        raise NotImplementedError

    def view(self) -> V:
        """What this player's screen shows now, for :attr:`renderer`."""
        raise NotImplementedError

    def _game_key(self, char: str) -> None:
        """A key (lower case; ``""`` for a special key) of a seated player with no
        prompt open: the kind's game commands."""
        raise NotImplementedError

    def _mode_key(self, key: Key, char: str) -> None:
        """A key while the kind's own prompt (:attr:`mode`, neither chat nor exit) is
        open."""

    def _on_snapshot(self, snap: TableSnapshot) -> None:
        """The kind's part of taking a new table state: drop a choice or a prompt that
        the state no longer allows."""

    def _between_games(self) -> bool:
        """Whether leaving now costs the player nothing of a game: a caller whose BBS
        time is up leaves then (:mod:`bbspoker.door.lobby`)."""
        raise NotImplementedError

    def _may_sit(self) -> bool:
        """Whether this spectator may take a seat now ([J])."""
        raise NotImplementedError

    def _clock_deadline(self) -> float | None:
        """The deadline (service clock, seconds) of the count-down this screen shows, or
        None when it shows no clock."""
        raise NotImplementedError

    def _prompt(self) -> str | None:
        """The prompt line: the exit question, else a refusal (or nothing)."""
        if self.mode == "exit":
            return self.t.gettext("Really leave the table? (y/n)")
        return self.error

    def _describe(self, event: Event) -> Line | None:
        """``event`` in the message area's words of this screen's kind, in its viewer's
        language, or None for an event that shows no line."""
        return self.kind.describe_event(event, self.t)

    # ----------------------------------------------------------------- the loop

    async def run(self) -> None:
        """Play until the player leaves or is removed; always leaves the table cleanly.

        Keys are taken by :meth:`_on_keys` in the event-loop turn they arrive, table
        updates painted by :meth:`_on_bus` as they come (no task switch on the way from a
        key to the table, nor from the table to the screens: each would add latency), and
        the clock's seconds by a timer (:meth:`_set_clock`: no task switch per tick). This
        loop only ends the screen: it sleeps on one future that the end of the session
        or of the subscription, a removal from the table and [X] resolve (no task per
        key, no ``asyncio.wait``)."""
        session = self.session
        loop = asyncio.get_running_loop()
        self._subscribe()
        session.where = self.entry.name
        session.activity = "watching" if self.watching else "poker"
        if self.watching:
            self.service.watch(self.handle)
        else:
            self.service.attach(self.handle)
            if self._returning:
                self.service.submit(self.handle, Return()).add_done_callback(_ignore_refusal)
        on_resize = lambda cols, rows: self._put(("resize", cols, rows), key="resize")  # noqa: E731
        on_xmsg = lambda message: self._put(  # noqa: E731
            ("xmsg",) if message.notice is None else ("notice", message.notice, message.text),
            key="xmsg" if message.notice is None else f"notice {message.notice}")
        session.resize_listeners.append(on_resize)
        session.xmessage_listeners.append(on_xmsg)
        session.key_listeners.append(self._on_keys)
        session.drain_listeners.append(self._on_drained)
        reason = "left"
        try:
            self._paint()
            if self._want_seat:
                self._sitting = True
                self._command(WantSeat())
            self._on_keys()            # keys typed before the screen was up
            self._set_clock()
            while not self.leaving:
                if session.closed:
                    raise SessionClosed()
                self._wakeup = loop.create_future()
                await self._wakeup
                self._take()           # raises EOFError if the subscription ended
        except (SessionClosed, EOFError):
            reason = "lost_connection"
        finally:
            self._ended = True
            self._stop_clock()
            assert self._sub is not None
            self._sub.close()
            session.where = None
            session.resize_listeners.remove(on_resize)
            session.xmessage_listeners.remove(on_xmsg)
            session.key_listeners.remove(self._on_keys)
            session.drain_listeners.remove(self._on_drained)
            if self.watching:
                self.service.unwatch(self.handle)
            else:
                self.service.detach(self.handle)
            if self.watching:
                pass
            elif self.snapshot.seat_of(self.handle) is not None or self._seated():
                # A dropped connection holds the seat for the grace (the service gives it
                # up after); [X] leaves at once.
                action = Hold() if reason == "lost_connection" else act.Leave(reason)
                with contextlib.suppress(RuleError):
                    await self.service.call(self.handle, action)
            if not session.closed:
                session.write("\x1b[r\x1b[0m\x1b[H\x1b[2J")

    def _subscribe(self) -> None:
        """Subscribe to the table's bus (a spectator has no cards, but news). A subscription
        that overflows (more table messages than it holds came before this screen could
        take them) is replaced by :meth:`_take`, which then repaints from the table's
        state: falling behind costs the messages in between, never the connection."""
        self._sub = self.service.bus.subscribe(notify=self._on_bus, viewer=self.handle)

    def _put(self, item: Any, key: str) -> None:
        """Queue one of the session's own state items (a resize, an X-message) for the
        screen, in the table's order."""
        if self._sub is not None:
            self._sub.put(item, key=key)

    def _set_clock(self) -> None:
        """Keep the clock's timer on this player's count-down: started, moved or stopped
        when the deadline shown changed (:meth:`_clock_deadline`), else left ticking.
        A timer calls :meth:`_tick` at each next second, in the event loop itself: no
        task to wake and no future per second (the screen of the player in turn ticks once
        a second, twice per action at a table that acts every two seconds; an
        ``asyncio.timeout`` per tick would cost a ``TimeoutError`` and its traceback)."""
        deadline = self._clock_deadline()
        if deadline == self._clock_for and (deadline is None or self._clock_timer is not None):
            return
        self._stop_clock()
        self._clock_for = deadline
        wait = self._clock_wait()
        if wait is not None:
            self._clock_timer = asyncio.get_running_loop().call_later(wait, self._tick)

    def _stop_clock(self) -> None:
        """Cancel the clock's timer, if any."""
        if self._clock_timer is not None:
            self._clock_timer.cancel()
            self._clock_timer = None

    def _tick(self) -> None:
        """The clock's timer: paint the next second (:meth:`_paint_clock`) and set the timer
        for the one after. A bug here disconnects only this player, as in :meth:`_refresh`."""
        self._clock_timer = None
        if self._ended or self.leaving or not self._guarded(self._paint_clock):
            return
        wait = self._clock_wait()
        if wait is not None and self._clock_for == self._clock_deadline():
            self._clock_timer = asyncio.get_running_loop().call_later(wait, self._tick)
        else:
            self._set_clock()

    def _wake_up(self) -> None:
        """Let the loop run: the session or the subscription ended, or the player leaves or
        is removed (the clock has a timer of its own, :meth:`_set_clock`)."""
        if self._wakeup is not None and not self._wakeup.done():
            self._wakeup.set_result(None)

    def _on_keys(self) -> None:
        """The session's key listener: handle the keys waiting, in the event-loop turn they
        arrived, then paint once (:meth:`_refresh`). A table command ([S], a bet, [D] ...)
        goes to the table's task (:meth:`TableService.submit`); until its outcome is back
        (:meth:`_command_done`) later keys wait in the session's type-ahead, so they apply
        to the screen the command leaves."""
        if not (self._busy or self._ended):
            if not self.watching:
                self.service.touch(self.handle)
            self._refresh(keys=True)

    def _on_bus(self) -> None:
        """Items arrived from the table: apply them and paint now, inside the table's step
        (its ``Bus.flush``: no task switch between a table change and the bytes on every
        screen). Skipped while this player's own command is in flight: the
        actor's screen is painted once, when the command returns, after everyone else's."""
        if not (self._busy or self.leaving):
            self._refresh(keys=False)

    def _on_drained(self) -> None:
        """The session's drain listener: the client has caught up with its output after a
        congestion, during which :meth:`_paint` sent nothing. Take what the table sent and
        repaint the whole screen once, as it is now (unless this player's own command is
        in flight: its outcome paints)."""
        if self._stale and not (self._busy or self.leaving or self._ended):
            self._refresh(keys=False)

    def _refresh(self, keys: bool) -> None:
        """Apply what the table sent, then (``keys``) the keys waiting, and paint once unless
        a command went out. The screen loop is woken when it has to act (the session or
        the subscription ended, removal or [X]); the clock's timer follows a count-down
        that starts, stops or moves (:meth:`_set_clock`). A bug here disconnects only
        this player; the table goes on."""
        if not self._guarded(self._take_keys_and_paint, keys):
            return
        if self.leaving:
            self._wake_up()              # the loop ends the screen
        elif not self._ended:
            self._set_clock()            # a count-down that starts, stops or moves

    def _take_keys_and_paint(self, keys: bool) -> None:
        """:meth:`_refresh`'s work: first what the table sent (the keys apply to the screen
        it left), then the keys waiting if ``keys``, then one paint."""
        self._take()
        while keys and not self._busy and not self.leaving:
            key = self.session.read_key_nowait()
            if key is None:
                break
            self._on_key(key)
        self._paint()

    def _guarded(self, update: Callable[..., None], *args: Any) -> bool:
        """Run ``update(*args)`` (a screen update from a callback: a table update, keys, the
        clock's tick); False if it ended the screen: the session or the subscription
        ended (the loop is woken to end it), or a bug, logged, which disconnects only
        this player (the table goes on)."""
        try:
            update(*args)
        except (SessionClosed, EOFError):
            self._wake_up()              # the loop ends the screen
            return False
        except Exception:
            log.exception("screen of %s failed", self.handle)
            self.session.abort("screen update failed")
            return False
        return True

    def _take(self) -> None:
        """Apply every item waiting in the table's subscription (:meth:`run` made it);
        EOFError once it has been closed. One that overflowed is replaced by a new one
        and the screen starts again from the table's state (snapshot, own cards), with a
        line saying that messages were skipped, painted in full."""
        sub = self._sub
        assert sub is not None
        for item in sub.drain():
            self._on_item(item)
        if sub.overflowed and not self._ended:
            log.info("screen of %s fell behind the table: repainted", self.handle)
            self._subscribe()
            self._on_item(self.service.snapshot)
            if not self.watching:
                self.cards = self.service.cards_of(self.handle)
            self._add_message("INFO", self.t.gettext(
                "You fell behind the table: some messages were skipped."))
            self._stale = True
        elif sub.closed or sub.overflowed:
            raise EOFError("subscription ended")

    def _seated(self) -> bool:
        return self.service.snapshot.seat_of(self.handle) is not None

    def _clock_wait(self) -> float | None:
        """Seconds until the shown count-down changes, or None with no clock."""
        remaining = self._remaining()
        if remaining is None:
            return None
        frac = remaining - math.floor(remaining)
        return (frac if frac > 0 else 1.0) + 0.005

    def _remaining(self) -> float | None:
        deadline = self._clock_deadline()
        if deadline is None:
            return None
        return max(0.0, deadline - self.service.clock())

    def _clock_text(self) -> str | None:
        """The count-down as the screen shows it (``"0:59"``), or None."""
        remaining = self._remaining()
        if remaining is None:
            return None
        secs = math.ceil(remaining)
        return f"{secs // 60}:{secs % 60:02d}"

    # ----------------------------------------------------------------- inputs

    def _on_item(self, item: Any) -> None:
        if isinstance(item, TableSnapshot):
            self.snapshot = item
            seat = item.seat_of(self.handle)
            if self.watching:
                if seat is not None and not self._sitting:
                    self._become_player()    # a seat came free for them (WantSeat)
            elif seat is None:
                self.leaving = True          # removed by the table (idle rule)
            self._on_snapshot(item)
        elif isinstance(item, TableMessage):
            to = item.event.to
            if to is None or to.lower() == self.handle.lower():
                # Made once per language for every screen at the table.
                lines = item.lines
                line = lines.get(self.t, _UNSET)
                if line is _UNSET:
                    line = lines[self.t] = self._describe(item.event)
                if line is not None:
                    self._add_message(*line)
        elif isinstance(item, PrivateCards):
            self.cards = item.cards
        elif isinstance(item, ChatMessage):
            self._add_message(item.handle, item.text)
        elif isinstance(item, tuple) and item[0] == "resize":
            self.renderer.resize(item[1], item[2])
        elif isinstance(item, tuple) and item[0] == "notice":
            self._add_message("INFO", clean_text(item[2]))
            if item[1] in ("time_up", "time_up_now"):
                self.time_up = item[1]
        # ("xmsg",): the counter is read from the session's inbox when painting
        if self.time_up is not None and not self.leaving and (
                self.time_up == "time_up_now" or self.watching or self._between_games()):
            self.leaving = True              # the caller's time on their BBS is up

    def _add_message(self, tag: str, text: str) -> None:
        """Show ``[tag] text`` in the message area: one row, or more for a long message
        (:func:`bbspoker.door.screens.regions.message_rows`)."""
        rows = message_rows(tag, text)
        self.messages.extend(rows)
        self.message_count += len(rows)
        self._shown = None

    def _on_key(self, key: Key) -> None:
        char = key.char.lower() if key.kind is KeyKind.CHAR else ""
        self.error = None
        if self.mode == "chat":
            self._edit_chat(key)
        elif self.mode == "exit":
            self.mode = None
            if char and self.t.answer(char):
                self.leaving = True
        elif self.mode is not None:
            self._mode_key(key, char)
        elif char == ".":
            self.mode = "chat"
            self.editor = LineEditor(CHAT_MAX, max_width=CHAT_WIDTH - display_width(self.handle))
        elif char == "x":
            self.mode = "exit"
        elif self.watching:
            if char == "j" and self._may_sit():
                self._sitting = True
                self._command(WantSeat())
        else:
            self._game_key(char)

    def _edit_chat(self, key: Key) -> None:
        """A key at the chat line: Enter sends the line to the table (cleaned; unless
        this player chats too fast), Esc drops it."""
        assert self.editor is not None
        result = self.editor.press(key)
        if result is Edit.CANCELLED:
            self.mode, self.editor = None, None
        elif result is Edit.DONE:
            text = self.editor.text
            self.mode, self.editor = None, None
            text = clean_text(text).strip()
            if text and not self.app.floods.allow("chat", self.handle):
                self.error = self.t.gettext("You are chatting too fast: wait a few seconds.")
            elif text:
                self.service.chat(self.handle, text)

    def _waits(self) -> bool:
        """This spectator waits in line for a seat."""
        low = self.handle.lower()
        return any(h.lower() == low for h in self.snapshot.waiting)

    def _become_player(self) -> None:
        """The spectator sat down: a player from now on."""
        self.watching = False
        self.service.unwatch(self.handle)
        if self._sub is not None:
            self._sub.viewer = self.handle.lower()
        self.session.activity = "poker"
        self.cards = self.service.cards_of(self.handle)
        self.service.attach(self.handle)

    def _command(self, action: act.Action) -> None:
        """Send this player's action to the table; :meth:`_command_done` takes the outcome."""
        self._busy = True
        snap = self.snapshot      # the turn this key was meant for (a late key is refused)
        self.service.submit(self.handle, action, turn=(snap.current, snap.deadline)
                            ).add_done_callback(self._command_done)

    def _command_done(self, outcome: asyncio.Future[None]) -> None:
        """The table applied (or refused) this player's command, and has painted everyone
        else: show the refusal if any, paint this screen, then take the keys typed
        meanwhile."""
        self._busy = False
        error = None if outcome.cancelled() else outcome.exception()
        if self._sitting:
            self._sitting = False
            if error is None and self.watching and self._seated():
                self._become_player()    # else they wait in line for a seat
        if isinstance(error, RuleError):
            self.error = self.kind.refusal(error, self.t)
        elif error is not None:
            log.error("table command for %s failed", self.handle, exc_info=error)
        if not self._ended:
            self._refresh(keys=True)

    # ----------------------------------------------------------------- output

    def _paint(self) -> None:
        """Send what changed on this screen. Nothing while this player's own command is in
        flight: the screen is painted when it returns (:meth:`_command_done`). Nothing
        while the session is congested: the screen is marked stale and painted in full,
        once, when the client has caught up (:meth:`_on_drained`; writing on would grow
        the backlog until it cut the connection off)."""
        if self._busy:
            return
        if self.session.congested:          # the client is far behind: it gets the screen
            self._stale = True              # as it is once it has caught up (_on_drained)
            return
        if self._stale:
            self._stale = False
            self.renderer.invalidate()
        out = self.renderer.render(self.view())
        if out:
            self.session.write(out)

    def _paint_clock(self) -> None:
        """The clock's next second. Every other change to the screen is painted when it
        happens (a key, a table update, an X-message), so the screen as last painted is
        the screen now but for the clock: the renderer brings only the clock up to date
        (:meth:`Renderer.render_clock`), without a view (the player in turn's screen
        ticks once a second, twice per action at a table that acts every two seconds).
        A whole paint instead when the renderer cannot, or the last paint was skipped (a
        command in flight, a congested session)."""
        if self._busy or self._stale or self.session.congested:
            self._paint()
            return
        out = self.renderer.render_clock(self._clock_text())
        if out is None:
            self._paint()
        elif out:
            self.session.write(out)
