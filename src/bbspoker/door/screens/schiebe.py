"""The Schiebe-Poker table as one player or spectator sees it at 80x24.

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
import textwrap
from typing import TYPE_CHECKING, Any, cast

from bbspoker.door import i18n
from bbspoker.door.i18n import ENGLISH, NP_, Translator
from bbspoker.door.keys import Edit, Key, KeyKind, LineEditor
from bbspoker.door.messages import OWN_POSITIONS, category_name
from bbspoker.door.screens.draw40 import PokerScreen, join_or_watch
from bbspoker.door.screens.regions import CONTINUED
from bbspoker.rules.schiebe.actions import LEFT, RIGHT, NoSwap, Propose, Push, Swap, SwapAll, Vote
from bbspoker.rules.schiebe.game import Board, Phase
from bbspoker.table.service import TableSnapshot
from bbspoker.text import clean_text, display_width, fit

if TYPE_CHECKING:
    from blessed import Terminal as BlessedTerminal

    from bbspoker.door.context import DoorContext
    from bbspoker.door.terminal import Player, Terminal
    from bbspoker.table.registry import TableEntry

__all__ = ["enter_table", "SchiebeScreen", "RowScreen", "RowRenderer", "bottom_rows", "WIDTH", "HEIGHT",
           "LOG_ROWS", "labelled", "LABEL_WIDTH", "command_lines", "command_area"]

WIDTH, HEIGHT = 80, 24
#: Rows of the log (the message area), 14-22.
LOG_ROWS = 9
_LOG_ROW, _INPUT_ROW, _STATUS_ROW, _SPLIT_ROW = 14, 23, 13, 8
_LEFT = 46           # the command area's width inside the borders (cells 1-46)
_RIGHT = WIDTH - _LEFT - 3
#: Cells of a key line or question in the command area: a blank before it and one after,
#: so that no text runs into the divider.
_TEXT = _LEFT - 2
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


# The labels of the game information (Schiebe-Poker's and Hold'em's).
_TURN, _CLOCK = NP_("game info", "Turn"), NP_("game info", "Clock")
_ACTION, _POT = NP_("game info", "Action"), NP_("game info", "Pot")
_ANTE = NP_("game info", "Ante")
#: Cells of a label of the game information (the right half of rows 9-12) with its dots,
#: before the blank and the value: ``"Turn ....."``.
LABEL_WIDTH = 10


def labelled(t: Translator, label: tuple[str, str], value: str) -> str:
    """A line of the game information: the ``label`` (a ``(context, word)`` pair) in
    ``t``'s language, dots to :data:`LABEL_WIDTH` cells, a blank and ``value``:
    ``"Turn ..... alice"``, German ``"Am Zug ... alice"`` (a word too long is cut)."""
    word = clean_text(t.pgettext(*label), LABEL_WIDTH)
    dots = LABEL_WIDTH - display_width(word) - 1
    head = f"{word} {'.' * dots}" if dots > 0 else fit(word, LABEL_WIDTH)
    return f"{head} {value}"


def command_area(t: Translator, lines: list[str], prompt: str | None) -> list[str]:
    """The four rows of a command area: ``lines`` (the keys of the legal choices now),
    the chat and leave keys when there is room, and last ``prompt`` (a question, an input
    line or a refusal), wrapped over as many rows as it needs in ``t``'s language."""
    tail = textwrap.wrap(prompt, _TEXT)[:3] if prompt else []
    room = 4 - len(tail)
    lines = lines[:room]
    if len(lines) < room:
        lines += command_lines([t.gettext("[.] chat"), t.gettext("[X] leave the table")])
    return (lines[:room] + tail + [""] * 4)[:4]


def command_lines(items: list[str], width: int = _TEXT) -> list[str]:
    """Commands side by side, two blanks apart, on as few lines of ``width`` cells as
    they take (a longer language needs two lines where English has one)."""
    lines: list[str] = []
    for item in items:
        if lines and display_width(lines[-1]) + 2 + display_width(item) <= width:
            lines[-1] += "  " + item
        else:
            lines.append(item)
    return lines


class RowRenderer:
    """The bytes that bring one client's screen from the last rows drawn to the new ones:
    the first call (or after :meth:`invalidate`, a resize) clears and draws every row,
    later calls redraw only the rows that changed; the cursor is left at ``cursor``. The
    bottom-right cell is never written (it scrolls some terminals). A window smaller than
    80x24 is asked, once per size, to be enlarged. ``term`` is the session's blessed
    terminal; characters ``encoding`` cannot carry are drawn as ``?``; ``t`` the viewer's
    language (of the request to enlarge the window)."""

    def __init__(self, term: BlessedTerminal, encoding: str = "utf-8",
                 t: Translator = ENGLISH) -> None:
        self.term = term
        self.t = t
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
            return (term.normal + term.clear + term.move_yx(0, 0) + self.t.gettext(
                "Please enlarge your window to at least {width}x{height} (now {cols}x{rows})"
            ).format(width=WIDTH, height=HEIGHT, cols=self.cols, rows=self.rows))
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


async def enter_table(session: Player, app: DoorContext, entry: TableEntry) -> None:
    """What the lobby runs for a Schiebe-Poker table: the game in a few lines, its stakes
    and who sits there; join, watch or go back; then the game screen until the player
    leaves ([X]) or the connection drops."""
    service = entry.service
    rules = entry.spec.rules
    snap = service.snapshot
    t = i18n.of(session)
    n = t.number
    stakes = (t.gettext("Ante {ante} CUBES a player; the first-ranked share the pot.").format(
        ante=n(rules.ante)) if rules.ante else t.gettext("No stakes: played for the ranking."))
    lines = ["", t.gettext("{table} -- Schiebe-Poker for 2-{seats} players").format(
                 table=entry.name, seats=rules.seats), *textwrap.wrap(stakes, WIDTH - 1),
             *textwrap.wrap(t.gettext("Push the middle row left or right, swap your open cards "
                                      "with it; after the agreed rounds the best poker "
                                      "category wins (equal categories tie)."), WIDTH - 1),
             "", t.gettext("Note: this game uses ANSI terminal escape sequences."), ""]
    names = [s.handle for s in snap.seats]
    lines.append(t.gettext("At the table ({taken} of {seats} seats): {names}").format(
        taken=len(names), seats=rules.seats, names=", ".join(names))
        if names else t.gettext("Nobody is at this table right now."))
    session.write("\x1b[H\x1b[2J" + "\r\n".join(lines) + "\r\n\r\n")
    idle = app.config.server.lobby_idle_timeout
    if len(names) >= rules.seats:
        session.write(t.gettext("All {seats} seats are taken. [W] Watch the game, any "
                                "other key: back. ").format(seats=rules.seats))
        try:
            key = await session.read_key(idle)
        except TimeoutError:
            return
        if key.kind is KeyKind.CHAR and key.char.lower() == "w":
            await SchiebeScreen(session, app, entry, watching=True).run()
        return
    await join_or_watch(session, app, entry, SchiebeScreen)


class RowScreen(PokerScreen):
    """:class:`PokerScreen`'s loop drawn as 24 rows of text by a :class:`RowRenderer`
    (Schiebe-Poker's and Hold'em's screens): a subclass gives :meth:`rows`."""

    def __init__(self, session: Player, app: DoorContext, entry: TableEntry,
                 watching: bool = False, returning: bool = False,
                 want_seat: bool = False) -> None:
        super().__init__(session, app, entry, watching, returning, want_seat)
        self.renderer = RowRenderer(session.term, session.encoding,  # type: ignore[assignment]
                                    self.t)
        self.renderer.resize(session.cols, session.rows)

    def rows(self) -> tuple[list[str], tuple[int, int]]:
        """The 24 rows of the screen now, and where the cursor goes."""
        raise NotImplementedError

    def _paint(self) -> None:
        """Send the rows that changed; as :meth:`PokerScreen._paint`: nothing while this
        player's own command is in flight, nothing while the session is congested (the
        screen is marked stale and drawn in full, once, when the client has caught up;
        writing on would grow the backlog until it cut the connection off)."""
        if self._busy:
            return
        if self.session.congested:
            self._stale = True
            return
        if self._stale:
            self._stale = False
            self.renderer.invalidate()
        rows, cursor = self.rows()
        out = self.renderer.render(rows, cursor)  # type: ignore[call-arg, arg-type]
        if out:
            self.session.write(out)

    def _paint_clock(self) -> None:
        """The clock's next second: the rows again (:class:`RowRenderer` sends only the
        rows that changed, here the clock's). The draw40 screen's clock-only path
        (``ScreenRenderer.render_clock``) has no counterpart here: without this, every
        screen at a Hold'em or Schiebe-Poker table failed at its clock's first tick."""
        self._paint()


class SchiebeScreen(RowScreen):
    """One player's (or spectator's, ``watching``) Schiebe-Poker screen; see the module
    docstring. The loop is :class:`PokerScreen`'s; the drawing and the game keys are
    Schiebe-Poker's."""

    def __init__(self, session: Player, app: DoorContext, entry: TableEntry,
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
            self.error = self.t.gettext("Type a number of rounds from 2 to 7.")
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
        elif Vote in actions and self.t.answer(char) is not None:   # [Y]/[J]/[O], [N]
            self._command(Vote(bool(self.t.answer(char))))
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

    def _between_games(self) -> bool:
        """No Schiebe-Poker game is being played (one that leaves now loses nothing)."""
        return self.snapshot.phase is not Phase.PLAYING

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
        t = self.t
        title = "+- " + t.gettext("Schiebe-Poker: {table}").format(
            table=clean_text(self.entry.name, 20)) + " "
        round_, rounds = board.round, board.rounds      # both set while a game is played
        where = " " + (t.gettext("Round {round} of {rounds}").format(
            round=t.number(round_), rounds=t.number(rounds))
            if playing and round_ is not None and rounds is not None else
            t.gettext("{n} of {seats} seated").format(n=len(snap.seats),
                                                       seats=self.rules.seats)) + " -+"
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
        t = self.t
        me = None if self.watching else snap.seat_of(self.handle)
        opens = dict(board.open)
        if playing:
            top = _card(board.top_discard) if board.top_discard else t.gettext("(empty)")
            # TRANSLATORS: the piles beside the middle row: at most 36 cells with 2-digit
            # counts and the top card ([ 5# ], 6 cells).
            piles = t.gettext("Draw pile {draw}   Discard {discard}, top {top}").format(
                draw=f"{board.draw_count:>2}", discard=f"{board.discard_count:>2}", top=top)
            rows.append(_row(" " + self._label(t.gettext("MIDDLE")) + _cards(board.middle)
                             + "    " + piles))
            rows.append(_row(" " * 11 + "".join(f"  {n}    " for n in "123") + "   "
                             + t.gettext("(middle row positions)")))
            if me is not None and me.active:
                # Schiebe-Poker's cards are notation
                hidden = cast(tuple[str, ...], tuple(self.cards)) if self.cards else ()
                turn = "   " + t.gettext("<- your turn") if me.handle == snap.current else ""
                # TRANSLATORS: "hidden" and "open" before the two hidden and the three
                # open cards: together at most 16 cells.
                cards = t.gettext("hidden {hidden}   open {open}").format(
                    hidden=_cards(hidden), open=_cards(opens.get(me.handle, ())))
                rows.append(_row(" " + self._label(t.gettext("YOU")) + cards + turn))
                at = 11 + display_width(cards) - 20
                rows.append(_row(" " * at + "".join(f"  {n}    " for n in "123")
                                 + t.gettext("(your open cards)")))
            else:
                rows.append(_row(" " + (t.gettext("You are watching this game.") if self.watching
                                        else t.gettext("You are not in this game: you may "
                                                       "play the next one."))))
                rows.append(_row(""))
        else:
            rows += self._rows_between_games(snap, board)
        for seat in snap.seats[:4]:
            if seat is me or len(rows) >= 7:
                continue
            rows.append(_row(self._opponent(snap, seat, board, opens)))
        rows += [_row("")] * (7 - len(rows))
        return rows[:7]

    @staticmethod
    def _label(word: str) -> str:
        """A row's label (``MIDDLE``, ``YOU``, a handle) in the 10 cells before the cards."""
        return fit(word, 9) + " "

    def _opponent(self, snap: TableSnapshot, seat: Any, board: Board,
                  opens: dict[str, tuple[str, ...]]) -> str:
        """An opponent's row: their open cards in their order, whether in turn or away."""
        t = self.t
        name = self._label(clean_text(seat.handle, 12))
        mark = " " + t.gettext("(away)") if seat.handle in snap.held else ""
        if snap.phase is Phase.PLAYING:
            if not seat.active:
                return " " + name + t.gettext("not in this game") + mark
            turn = "   " + t.gettext("<- in turn") if seat.handle == snap.current else ""
            return " " + name + t.gettext("hidden {hidden}   open {open}").format(
                hidden="[ ?? ] [ ?? ]", open=_cards(opens.get(seat.handle, ()))) + turn + mark
        return " " + name + t.gettext("seated") + mark

    def _rows_between_games(self, snap: TableSnapshot, board: Board) -> list[str]:
        """Up to five rows between games: the proposal being voted on, or the last ranking with
        every hand, or how to begin."""
        t = self.t
        if board.proposal is not None:
            waiting = [s.handle for s in snap.seats if s.handle not in board.voted
                       and s.handle != snap.master]
            return [_row(" " + t.gettext("{h} proposes {rounds} rounds.").format(
                        h=snap.master, rounds=board.proposal)),
                    _row(" " + t.gettext("Agreed: {names}.").format(
                        names=", ".join(board.voted))),
                    _row(" " + (t.gettext("Waiting for: {names}.").format(
                        names=", ".join(waiting)) if waiting
                        else t.gettext("Waiting for nobody."))), _row("")]
        if board.ranking:
            rows = [_row(" " + t.gettext("FINAL RANKING of the last game (hidden | open "
                                         "cards)"))]
            for place, handle, value, cards in board.ranking[:4]:
                rows.append(_row(f" {place}. {fit(clean_text(handle, 12), 12)} "
                                 f"{' '.join(cards[:2]):<8}| {' '.join(cards[2:]):<12} "
                                 f"{category_name(value, t)}"))
            return rows
        head = (t.gettext("No game yet.") if len(snap.seats) >= 2
                else t.gettext("No game yet. Waiting for a second player."))
        proposer = (t.gettext("{h} proposes the number of rounds (2-7); everyone else "
                              "agrees.").format(h=snap.master) if snap.master
                    else t.gettext("The first to sit proposes the number of rounds (2-7); "
                                   "everyone else agrees."))
        return [_row(" " + head), _row(" " + proposer), _row(""), _row("")]

    def _commands(self, snap: TableSnapshot, playing: bool) -> list[str]:
        """Four rows: the keys of exactly the legal choices now, then the prompt."""
        t = self.t
        actions = () if self.watching else snap.actions.get(self.handle, ())
        lines: list[str] = []
        if Push in actions:
            if self.swap_from is not None:
                lines += textwrap.wrap(t.gettext(
                    "Swap your {own} open card with the middle row's card [1]-[3]? (Esc: "
                    "back)").format(own=t.pgettext(*OWN_POSITIONS[self.swap_from])),
                    _TEXT)
            else:
                lines += command_lines([t.gettext("[<] push left"), t.gettext("[>] push right")])
                lines += [t.gettext("[1]-[3] then [1]-[3]: swap one with middle")]
                lines += command_lines([t.gettext("[A] swap all three"),
                                        t.gettext("[N] no swap")])
        elif Vote in actions:
            board: Board = snap.board or Board()
            lines += command_lines([t.gettext("[Y] agree to {rounds} rounds").format(
                rounds=board.proposal), t.gettext("[N] refuse")])
        elif Propose in actions:
            lines.append(t.gettext("[S] propose the rounds (2-7, {rounds})").format(
                rounds=self.rules.rounds))
        elif self.watching and self._may_sit():
            lines.append(t.gettext("[J] take a free seat"))
        return command_area(t, lines, self._prompt())

    def _prompt(self) -> str | None:
        t = self.t
        if self.mode == "rounds" and self.editor is not None:
            return t.gettext("Rounds (2-7, Enter: {rounds}): ").format(
                rounds=self.rules.rounds) + f"{self.editor.text}_"
        if self.mode == "exit":
            if self.snapshot.phase is Phase.PLAYING and not self.watching:
                return t.gettext("Leave? You are out of the game. (y/n)")
            return t.gettext("Really leave the table? (y/n)")
        return self.error

    def _info(self, snap: TableSnapshot, board: Board, playing: bool) -> list[str]:
        """Four rows: whose turn, the clock, the action of the turn, the pot."""
        clock = self._clock_text() or ""
        t = self.t
        if playing:
            done = 3 - board.actions_left
            return [labelled(t, _TURN, clean_text(snap.current or "", 14)),
                    labelled(t, _CLOCK, clock),
                    labelled(t, _ACTION, t.gettext("{done} of 2").format(done=done)),
                    labelled(t, _POT, t.gettext("{cubes} CUBES").format(
                        cubes=t.number(board.pot)))]
        if board.proposal is not None:
            return [t.gettext("Vote on the rounds"), labelled(t, _CLOCK, clock), "", ""]
        return [t.gettext("No game"), "", labelled(t, _ANTE, t.gettext("{cubes} CUBES").format(
            cubes=t.number(self.rules.ante))), ""]



def bottom_rows(screen: PokerScreen, rows: list[str], more: str
                ) -> tuple[list[str], tuple[int, int]]:
    """Rows 13-23 of a row-drawn table screen (Schiebe-Poker's, Hold'em's) after ``rows``
    (0-12): the status line (handle, CUBES, ``more`` such as a stack, X-messages waiting,
    spectators), the log (the last :data:`LOG_ROWS` message rows), the chat line; with
    the cursor's place on the chat line."""
    snap = screen.snapshot
    t = screen.t
    cubes = t.gettext("[{n} CUBES]").format(
        n=t.number(snap.balances.get(screen.handle, screen._own_cubes)))
    status = f"- {clean_text(screen.handle, 16)} {cubes} {more}"
    xmsgs = len(screen.session.inbox)
    extra = (t.ngettext("[{n} X-message]", "[{n} X-messages]", xmsgs).format(
        n=t.number(xmsgs)) + " ") if xmsgs else ""
    if snap.watchers:
        extra += t.ngettext("[{n} watching]", "[{n} watching]", snap.watchers).format(
            n=t.number(snap.watchers)) + " "
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
