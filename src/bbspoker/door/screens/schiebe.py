"""The Schiebe-Poker table (issue 17) as one player or spectator sees it at 80x24.

Each player sits at their own terminal and sees only their own hidden cards (the text's
hotseat "nächste*r Spielende*r" screen is not needed: nobody else looks at this screen).
Layout (rows 0-23)::

    0  +- Schiebe-Poker: <table> -------------------------- Round 1 of 3 -+
    1  | MIDDLE    [ 7* ] [ Q+ ] [ 3- ]     Draw 29  Discard 4  top [ 5# ]  |
    2  |            left  centre  right                                     |
    3  | YOU       hidden [ A+ ] [ Q+ ]   open [ Q* ] [ 2* ] [ A- ]         |
    4  |                                          1      2      3           |
    5  | bob       open   [ 6# ] [ 4# ] [ 8# ]   <- in turn                  |
    6-7| (the other opponents, each open card in its order)                  |
    8  +--------------------------------------------+----------------------+
    9-12 commands: exactly the legal keys now     | turn, clock, action, pot
   13  +- alice [990 CUBES] ------------------------+----------------------+
   14-22 the log: every action as it happens, and the chat
   23  > chat input

:class:`SchiebeScreen` takes the game-screen loop of
:class:`~bbspoker.door.screens.draw40.PokerScreen` (keys taken in the turn they arrive,
the table's bus painted inside its step, the seat held when the connection drops, chat,
[X], a spectator's [J]) and replaces what is drawn and what the game keys do: ``<`` ``>``
push, ``1``-``3`` then ``1``-``3`` swap one open card with a middle card, ``A`` swap all
three, ``N`` no swap; ``S`` proposes the rounds, ``Y``/``N`` answer the proposal. The
screen is drawn as 24 rows of text and only the rows that changed are sent.
"""

from __future__ import annotations

import codecs
import math
from typing import TYPE_CHECKING, Any

from bbspoker.door.keys import Edit, Key, KeyKind, LineEditor
from bbspoker.door.messages import CATEGORY_NAMES, POSITIONS, refusal
from bbspoker.door.screens.draw40 import PokerScreen, _choose
from bbspoker.door.screens.regions import CONTINUED
from bbspoker.rules import actions as act
from bbspoker.rules.events import RuleError
from bbspoker.rules.schiebe.actions import LEFT, RIGHT, NoSwap, Propose, Push, Swap, SwapAll, Vote
from bbspoker.rules.schiebe.game import Board, Phase
from bbspoker.table.service import TableSnapshot
from bbspoker.text import clean_text, display_width, fit

if TYPE_CHECKING:
    from blessed import Terminal as BlessedTerminal

    from bbspoker.door.context import DoorContext
    from bbspoker.door.terminal import Terminal
    from bbspoker.table.registry import TableEntry

__all__ = ["enter_table", "SchiebeScreen", "RowScreen", "RowRenderer", "bottom_rows", "WIDTH", "HEIGHT",
           "LOG_ROWS"]

WIDTH, HEIGHT = 80, 24
#: Rows of the log (the message area), 14-22.
LOG_ROWS = 9
_LOG_ROW, _INPUT_ROW, _STATUS_ROW, _SPLIT_ROW = 14, 23, 13, 8
_LEFT = 46           # the command area's width inside the borders (cells 1-46)
_RIGHT = WIDTH - _LEFT - 3
_RULE = "+" + "-" * (WIDTH - 2) + "+"


def _card(card: str | None) -> str:
    """A card as the screen draws it, 6 cells: ``[ 7* ]``, ``[10+ ]``, a hidden one ``[ ?? ]``."""
    if card is None:
        return "[ ?? ]"
    return f"[{card:^4}]"


def _cards(cards: tuple[str, ...] | list[str]) -> str:
    return " ".join(_card(c) for c in cards)


def _row(text: str) -> str:
    """``| text |``, the text cleaned and fitted to 78 cells."""
    return "|" + fit(text, WIDTH - 2) + "|"


def _halves(left: str, right: str) -> str:
    return "|" + fit(" " + left, _LEFT) + "|" + fit(" " + right, _RIGHT) + "|"


class RowRenderer:
    """The bytes that bring one client's screen from the last rows drawn to the new ones:
    the first call (or after :meth:`invalidate`, a resize) clears and draws every row,
    later calls redraw only the rows that changed; the cursor is left at ``cursor``. The
    bottom-right cell is never written (it scrolls some terminals). A window smaller than
    80x24 is asked, once per size, to be enlarged. ``term`` is the session's blessed
    terminal; characters ``encoding`` cannot carry are drawn as ``?``."""

    def __init__(self, term: BlessedTerminal, encoding: str = "utf-8") -> None:
        self.term = term
        self.encoding = codecs.lookup(encoding).name
        self.cols, self.rows = WIDTH, HEIGHT
        self._shown: list[str] | None = None
        self._too_small = False

    def resize(self, cols: int, rows: int) -> None:
        """The window's size from NAWS; a change repaints everything."""
        if (cols, rows) != (self.cols, self.rows):
            self.cols, self.rows = cols, rows
            self.invalidate()

    def invalidate(self) -> None:
        """Forget what the client shows: the next :meth:`render` draws every row."""
        self._shown = None
        self._too_small = False

    def render(self, rows: list[str], cursor: tuple[int, int]) -> str:
        """See the class docstring; ``rows``: 24 rows of text, each 80 cells (the last 79)."""
        term = self.term
        if self.cols < WIDTH or self.rows < HEIGHT:
            if self._too_small:
                return ""
            self._shown, self._too_small = None, True
            return (term.normal + term.clear + term.move_yx(0, 0) + "Please enlarge your "
                    f"window to at least {WIDTH}x{HEIGHT} (now {self.cols}x{self.rows})")
        out = []
        old = self._shown
        if old is None:
            out.append(term.normal + term.clear)
            old = [""] * HEIGHT
        new = []
        for i, text in enumerate(rows):
            if self.encoding != "utf-8" and not text.isascii():
                text = text.encode(self.encoding, "replace").decode(self.encoding)
            new.append(text)
            if text != old[i]:
                out.append(term.move_yx(i, 0) + text)
        self._shown = new
        if not out:
            return ""
        return "".join(out) + term.move_yx(*cursor)


async def enter_table(session: Terminal, app: DoorContext, entry: TableEntry) -> None:
    """What the lobby runs for a Schiebe-Poker table: the game in a few lines, its stakes
    and who sits there; join, watch or go back; then the game screen until the player
    leaves ([X]) or the connection drops."""
    service = entry.service
    rules = entry.spec.rules
    snap = service.snapshot
    stakes = (f"Ante {rules.ante} CUBES a player; the first-ranked share the pot."
              if rules.ante else "No stakes: played for the ranking.")
    lines = ["", f"{entry.name} -- Schiebe-Poker for 2-{rules.seats} players", stakes,
             "Push the middle row left or right, swap your open cards with it; after the",
             "agreed rounds the best poker category wins (equal categories tie).", "",
             "Note: this game uses ANSI terminal escape sequences.", ""]
    names = [s.handle for s in snap.seats]
    lines.append(f"At the table ({len(names)} of {rules.seats} seats): {', '.join(names)}"
                 if names else "Nobody is at this table right now.")
    session.write("\x1b[H\x1b[2J" + "\r\n".join(lines) + "\r\n\r\n")
    idle = app.config.server.lobby_idle_timeout
    if len(names) >= rules.seats:
        session.write(f"All {rules.seats} seats are taken. [W] Watch the game, any other "
                      "key: back. ")
        try:
            key = await session.read_key(idle)
        except TimeoutError:
            return
        if key.kind is KeyKind.CHAR and key.char.lower() == "w":
            await SchiebeScreen(session, app, entry, watching=True).run()
        return
    session.write("Join the table? (y/n) [W] Watch ")
    choice = await _choose(session, "ynw", idle)
    if choice == "n":
        return
    if choice == "w":
        await SchiebeScreen(session, app, entry, watching=True).run()
        return
    try:
        await service.call(session.handle, act.Sit())
    except RuleError as err:
        session.write(f"{refusal(err)} Press any key.")
        await session.read_key()
        return
    await SchiebeScreen(session, app, entry).run()


class RowScreen(PokerScreen):
    """:class:`PokerScreen`'s loop drawn as 24 rows of text by a :class:`RowRenderer`
    (Schiebe-Poker's and Hold'em's screens): a subclass gives :meth:`rows`."""

    def __init__(self, session: Terminal, app: DoorContext, entry: TableEntry,
                 watching: bool = False, returning: bool = False,
                 want_seat: bool = False) -> None:
        super().__init__(session, app, entry, watching, returning, want_seat)
        self.renderer = RowRenderer(session.term, session.encoding)  # type: ignore[assignment]
        self.renderer.resize(session.cols, session.rows)

    def rows(self) -> tuple[list[str], tuple[int, int]]:
        """The 24 rows of the screen now, and where the cursor goes."""
        raise NotImplementedError

    def _paint(self) -> None:
        if self._busy:
            return
        rows, cursor = self.rows()
        out = self.renderer.render(rows, cursor)  # type: ignore[call-arg, arg-type]
        if out:
            self.session.write(out)


class SchiebeScreen(RowScreen):
    """One player's (or spectator's, ``watching``) Schiebe-Poker screen; see the module
    docstring. The loop is :class:`PokerScreen`'s; the drawing and the game keys are
    Schiebe-Poker's."""

    def __init__(self, session: Terminal, app: DoorContext, entry: TableEntry,
                 watching: bool = False, returning: bool = False,
                 want_seat: bool = False) -> None:
        super().__init__(session, app, entry, watching, returning, want_seat)
        self.swap_from: int | None = None   # own open card chosen for a swap (0-2)

    # ----------------------------------------------------------------- keys

    def _on_key(self, key: Key) -> None:
        if self.mode == "rounds":
            self._rounds_key(key)
            return
        super()._on_key(key)

    def _rounds_key(self, key: Key) -> None:
        """The proposal prompt: 2-7 then Enter (Enter alone: the table's rounds), Esc."""
        assert self.editor is not None
        if key.kind is KeyKind.CHAR and key.char not in "234567":
            self.error = "Type a number of rounds from 2 to 7."
            return
        result = self.editor.press(key)
        if result is Edit.CANCELLED:
            self.mode, self.editor = None, None
        elif result is Edit.DONE:
            text, self.mode, self.editor = self.editor.text, None, None
            self._command(Propose(int(text) if text else self.rules.rounds))

    def _game_key(self, char: str) -> None:
        actions = self.snapshot.actions.get(self.handle, ())
        if Propose in actions and char == "s":
            self.mode, self.editor = "rounds", LineEditor(1)
        elif Vote in actions and char in ("y", "n"):
            self._command(Vote(char == "y"))
        elif Push not in actions:
            return
        elif self.swap_from is not None:
            own, self.swap_from = self.swap_from, None
            if char in ("1", "2", "3"):
                self._command(Swap(own, int(char) - 1))
        elif char in ("<", ","):
            self._command(Push(LEFT))
        elif char in (">",):
            self._command(Push(RIGHT))
        elif char in ("1", "2", "3"):
            self.swap_from = int(char) - 1
        elif char == "a":
            self._command(SwapAll())
        elif char == "n":
            self._command(NoSwap())

    def _on_item(self, item: Any) -> None:
        super()._on_item(item)
        if isinstance(item, TableSnapshot):
            if Push not in item.actions.get(self.handle, ()):
                self.swap_from = None
            if self.mode == "rounds" and Propose not in item.actions.get(self.handle, ()):
                self.mode, self.editor = None, None

    def _may_sit(self) -> bool:
        """A spectator may take a free seat when no game is being played."""
        snap = self.snapshot
        return (not self._waits() and snap.phase is not Phase.PLAYING
                and len(snap.seats) < self.rules.seats)

    def _clock_deadline(self) -> float | None:
        """Everyone at the table sees the clock of the turn (or the vote)."""
        return self.snapshot.deadline

    # ----------------------------------------------------------------- drawing

    def rows(self) -> tuple[list[str], tuple[int, int]]:
        """The 24 rows of this screen now, and where the cursor goes (the input line)."""
        snap = self.snapshot
        board: Board = snap.board or Board()
        playing = snap.phase is Phase.PLAYING
        title = f"+- Schiebe-Poker: {clean_text(self.entry.name, 20)} "
        where = (f" Round {board.round} of {board.rounds} -+" if playing else
                 f" {len(snap.seats)} of {self.rules.seats} seated -+")
        rows = [title + "-" * (WIDTH - display_width(title) - len(where)) + where]
        rows += self._table_rows(snap, board, playing)
        rows.append("+" + "-" * _LEFT + "+" + "-" * _RIGHT + "+")
        commands = self._commands(snap, playing)
        info = self._info(snap, board, playing)
        for left, right in zip(commands, info):
            rows.append(_halves(left, right))
        return bottom_rows(self, rows, "")

    def _table_rows(self, snap: TableSnapshot, board: Board, playing: bool) -> list[str]:
        """Rows 1-7: the middle row and the piles, your cards, the opponents' open cards
        (each in its order, never sorted); between games the proposal or the last ranking."""
        rows: list[str] = []
        me = None if self.watching else snap.seat_of(self.handle)
        opens = dict(board.open)
        if playing:
            top = _card(board.top_discard) if board.top_discard else "(empty)"
            rows.append(_row(f" MIDDLE    {_cards(board.middle)}    Draw pile {board.draw_count:>2}"
                             f"   Discard {board.discard_count:>2}, top {top}"))
            rows.append(_row("           " + "".join(f"  {n}    " for n in "123")
                             + "   (middle row positions)"))
            if me is not None and me.active:
                hidden = tuple(self.cards) if self.cards else ()
                turn = "   <- your turn" if me.handle == snap.current else ""
                rows.append(_row(f" YOU       hidden {_cards(hidden)}   open "
                                 f"{_cards(opens.get(me.handle, ()))}{turn}"))
                rows.append(_row(" " * 39 + "".join(f"  {n}    " for n in "123")
                                 + "(your open cards)"))
            else:
                rows.append(_row(" You are watching this game." if self.watching
                                 else " You are not in this game: you may play the next one."))
                rows.append(_row(""))
        else:
            rows += self._between_games(snap, board)
        for seat in snap.seats[:4]:
            if seat is me or len(rows) >= 7:
                continue
            rows.append(_row(self._opponent(snap, seat, board, opens)))
        rows += [_row("")] * (7 - len(rows))
        return rows[:7]

    def _opponent(self, snap: TableSnapshot, seat: Any, board: Board,
                  opens: dict[str, tuple[str, ...]]) -> str:
        name = clean_text(seat.handle, 12)
        mark = " (away)" if seat.handle in snap.held else ""
        if snap.phase is Phase.PLAYING:
            if not seat.active:
                return f" {fit(name, 9)} not in this game{mark}"
            turn = "   <- in turn" if seat.handle == snap.current else ""
            return f" {fit(name, 9)} hidden [ ?? ] [ ?? ]   open {_cards(opens.get(seat.handle, ()))}{turn}{mark}"
        return f" {fit(name, 9)} seated{mark}"

    def _between_games(self, snap: TableSnapshot, board: Board) -> list[str]:
        """Up to five rows between games: the proposal being voted on, or the last ranking with
        every hand, or how to begin."""
        if board.proposal is not None:
            waiting = [s.handle for s in snap.seats if s.handle not in board.voted
                       and s.handle != snap.master]
            return [_row(f" {snap.master} proposes {board.proposal} rounds."),
                    _row(f" Agreed: {', '.join(board.voted)}."),
                    _row(f" Waiting for: {', '.join(waiting) or 'nobody'}."), _row("")]
        if board.ranking:
            rows = [_row(" FINAL RANKING of the last game (hidden | open cards)")]
            for place, handle, value, cards in board.ranking[:4]:
                rows.append(_row(f" {place}. {fit(clean_text(handle, 12), 12)} "
                                 f"{' '.join(cards[:2]):<8}| {' '.join(cards[2:]):<12} "
                                 f"{CATEGORY_NAMES[value]}"))
            return rows
        need = "" if len(snap.seats) >= 2 else " Waiting for a second player."
        return [_row(" No game yet." + need),
                _row(f" {snap.master or 'The first to sit'} proposes the number of rounds "
                     "(2-7); everyone else agrees."), _row(""), _row("")]

    def _commands(self, snap: TableSnapshot, playing: bool) -> list[str]:
        """Four rows: the keys of exactly the legal choices now, then the prompt."""
        actions = () if self.watching else snap.actions.get(self.handle, ())
        lines: list[str] = []
        if Push in actions:
            if self.swap_from is not None:
                pos = POSITIONS[self.swap_from]
                lines += [f"Swap your {pos} open card with the",
                          "middle row's card [1]-[3]? (Esc: back)"]
            else:
                lines += ["[<] push left  [>] push right",
                          "[1]-[3] then [1]-[3]: swap one with middle",
                          "[A] swap all three  [N] no swap"]
        elif Vote in actions:
            board: Board = snap.board or Board()
            lines.append(f"[Y] agree to {board.proposal} rounds  [N] refuse")
        elif Propose in actions:
            lines.append(f"[S] propose the rounds (2-7, {self.rules.rounds})")
        elif self.watching and self._may_sit():
            lines.append("[J] take a free seat")
        prompt = self._prompt()
        lines = lines[:3 if prompt else 4]
        keep = 4 - len(lines) - (1 if prompt else 0)
        if keep > 0:
            lines.append("[.] chat  [X] leave the table")
        if prompt:
            lines.append(prompt)
        return (lines + [""] * 4)[:4]

    def _prompt(self) -> str | None:
        if self.mode == "rounds" and self.editor is not None:
            return f"Rounds (2-7, Enter: {self.rules.rounds}): {self.editor.text}_"
        if self.mode == "exit":
            if self.snapshot.phase is Phase.PLAYING and not self.watching:
                return "Leave? You are out of the game. (y/n)"
            return "Really leave the table? (y/n)"
        return self.error

    def _info(self, snap: TableSnapshot, board: Board, playing: bool) -> list[str]:
        """Four rows: whose turn, the clock, the action of the turn, the pot."""
        remaining = None if snap.deadline is None else max(0.0, snap.deadline - self.service.clock())
        clock = "" if remaining is None else f"{math.ceil(remaining) // 60}:{math.ceil(remaining) % 60:02d}"
        if playing:
            done = 3 - board.actions_left
            return [f"Turn ..... {clean_text(snap.current or '', 14)}", f"Clock .... {clock}",
                    f"Action ... {done} of 2", f"Pot ...... {board.pot:,} CUBES"]
        if board.proposal is not None:
            return ["Vote on the rounds", f"Clock .... {clock}", "", ""]
        return ["No game", "", f"Ante ..... {self.rules.ante:,} CUBES", ""]



def bottom_rows(screen: PokerScreen, rows: list[str], more: str
                ) -> tuple[list[str], tuple[int, int]]:
    """Rows 13-23 of a row-drawn table screen (Schiebe-Poker's, Hold'em's) after ``rows``
    (0-12): the status line (handle, CUBES, ``more`` such as a stack, X-messages waiting,
    spectators), the log (the last :data:`LOG_ROWS` message rows), the chat line; with
    the cursor's place on the chat line."""
    snap = screen.snapshot
    status = (f"- {clean_text(screen.handle, 16)} "
              f"[{snap.balances.get(screen.handle, screen._own_cubes):,} CUBES] {more}")
    xmsgs = len(screen.session.inbox)
    extra = f"[{xmsgs} X-message{'s' if xmsgs != 1 else ''}] " if xmsgs else ""
    if snap.watchers:
        extra += f"[{snap.watchers} watching] "
    line = "+" + status + "-" * max(0, _LEFT - display_width(status)) + "+" + extra
    rows.append(line + "-" * max(0, WIDTH - 1 - display_width(line)) + "+")
    shown = list(screen.messages)[-LOG_ROWS:]
    rows += [_row(" " + (text if tag == CONTINUED else f"[{tag}] {text}"))
             for tag, text in shown]
    rows += [_row("")] * (LOG_ROWS - len(shown))
    typed = screen.editor.text if screen.mode == "chat" and screen.editor else None
    if typed is None:
        rows.append(">" + " " * (WIDTH - 3) + "<")
        return rows, (_INPUT_ROW, 2)
    text = f" {clean_text(screen.handle, 16)}: {typed}"
    rows.append(">" + fit(text, WIDTH - 3) + "<")
    return rows, (_INPUT_ROW, min(1 + display_width(text), WIDTH - 3))
