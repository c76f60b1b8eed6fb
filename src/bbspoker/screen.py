"""The 80x24 PoKeR game screen of chapter 2, drawn incrementally for one telnet session.

Layout (rows and columns 1-based, as in the mock-up of gvbbs-poker-fr.txt)::

    row  1     +------ top border -------------------+----------------------+
    rows 2-5   | (1) opponents: handle, cards        | (2) Master/Current/  |
               |                                     |     Pot/Round        |
    row  6     +----[N X-messages] (8) --------------+----------------------+
    rows 7-12  | (3) your five cards, 7x6 boxes      | (4) commands, prompt |
    row 13     +- (5) handle [N CUBES] --------------+----------- clock ----+
    rows 14-23 | (6) the last 10 messages, newest marked ->                 |
    row 24     > (7) chat input line                                     <

A session owns one :class:`ScreenRenderer`; the server builds a
:class:`GameView` for it from the table state and sends whatever
:meth:`ScreenRenderer.render` returns.  The renderer lays out again only the
regions whose :class:`GameView` fields changed, remembers what the client's
screen shows (cell by cell) and sends only the cells that differ,
scrolls the message area with the terminal's own scroll region, and never
writes the bottom-right cell (it scrolls some terminals). The bytes that
change a region everyone at the table sees alike (the pot, the messages, the
clock) are made once and reused by every screen that showed the same before.  All user text goes
through :func:`bbspoker.text.clean_text` on its way to a cell.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from operator import attrgetter
from typing import TYPE_CHECKING, NamedTuple

from wcwidth import wrap

from bbspoker.cards import Card, Rank, sort_hand
from bbspoker.text import char_width, clean_text, display_width, fit

if TYPE_CHECKING:  # the server passes a blessed.Terminal; only its capabilities are used
    from blessed import Terminal

__all__ = ["Opponent", "GameView", "ScreenRenderer", "WIDTH", "HEIGHT", "MESSAGE_ROWS"]

#: The game screen's size in cells; a smaller window gets the enlarge message.
WIDTH, HEIGHT = 80, 24
#: Number of messages the message area (6) shows (chapter 2.6).
MESSAGE_ROWS = 10

# 0-based rows and columns of the regions.
_OPP_ROW, _SEP_ROW, _CARD_ROW, _STATUS_ROW, _MSG_ROW, _INPUT_ROW = 1, 5, 6, 12, 13, 23
_MID_COL = 42  # the vertical border between left and right halves
_CMD_COL, _CMD_WIDTH = 44, 34  # command area (4)
_INFO_COL, _INFO_WIDTH = 44, 34  # game information (2): label and value
_MSG_COL, _MSG_WIDTH = 3, 75  # message text (6), after the "->" arrow in columns 1-2
_INPUT_COL, _INPUT_WIDTH = 2, 75  # chat input (7)
_CLOCK_COL = 73  # " 0:59 " in the status line (5)
_GAP = 8  # unchanged cells worth rewriting rather than paying a cursor move (divides WIDTH)

_INFO_LABELS = ("Master ...... ", "Current ..... ", "Pot ......... ", "Round ....... ")
_CARD_BACK = ("|/\\/\\/|", "|\\/\\/\\|")


@dataclass(frozen=True, slots=True)
class Opponent:
    """One other player at the table as region (1) shows them (chapter 2.1).

    - ``handle``: their handle (cleaned and cut to 19 cells when drawn).
    - ``competing``: ``True`` while they are still in the game for the pot;
      their cards are then drawn hidden as ``[?] [?] [?] [?] [?]``.
    - ``revealed``: their cards after they revealed them at the showdown
      (drawn face up, highest at the right; takes precedence over ``competing``).
      ``None`` when not revealed.  With neither, only the handle is shown.
    """

    handle: str
    competing: bool = False
    revealed: tuple[Card, ...] | None = None


@dataclass(frozen=True, slots=True)
class GameView:
    """Everything one player sees on the game screen (chapter 2); the renderer's only input.

    Region (1), opponents:
      - ``opponents``: up to 4 :class:`Opponent`, in seat order, drawn on rows 2-5.
    Region (2), game information:
      - ``master``: the game-master's handle (``None``: blank).
      - ``current``: the player in turn; ``None`` shows ``NO GAME``.
      - ``pot``: CUBES in the pot; ``None`` shows ``NO GAME``.
      - ``round_label``: ``"1"``, ``"DISCARDING INTERVAL"``, ``"3"`` ...,
        ``"SHOWDOWN"`` or ``"NO GAME"`` (at most 20 cells are shown).
    Region (8), X-message counter:
      - ``xmsg_count``: X-messages received while at the table; 0 shows nothing.
    Region (3), player's area (chapter 2.3), one of three displays:
      - ``player_message``: when set, this text (e.g. ``"You may join the next
        game."``) is shown instead of cards, wrapped over the six rows;
      - else ``my_cards``: your cards face up, sorted by rank, highest at the
        right (``cards.sort_hand``); the cards in ``discards`` are drawn face
        down (selected for discard, chapter 2 "Discarding interval");
      - else (``my_cards`` is ``None``) five cards face down: no game.
    Region (4), command area:
      - ``commands``: the lines of commands valid now, e.g. ``"[B] Place bet"``,
        from the top, at most 34 cells each.
      - ``prompt``: a y/n question, bet prompt or error message for the bottom
        of the command area (wrapped at 34 cells; shown in full, taking
        rows from the commands if needed), e.g. ``"Bet (5-200, Enter = call 5): 2_"``.
    Region (5), status line:
      - ``handle`` and ``cubes``: shown as ``handle [1,234 CUBES]``.
      - ``clock``: the count-down text such as ``"0:59"`` or ``"3:00"``
        (at most 4 cells), ``None`` for no clock (chapter 2.5).
    Region (6), message area (chapter 2.6):
      - ``messages``: the last messages, oldest first, each ``(tag, text)``
        with tag ``"SYSTEM"``, ``"INFO"`` or the sender's handle; shown as
        ``[tag] text``; only the last 10 are drawn; the newest gets ``->``.
      - ``message_count``: how many messages this player has been shown in
        total (the sequence number of the newest).  The renderer scrolls the
        area by the growth of this number, so repeated identical messages
        still scroll; it must grow by one for each new message.
    Region (7), input line:
      - ``chat_input``: ``None`` while the chat line is closed, else the text
        typed so far, shown as ``handle: text`` with the cursor after it.
    """

    handle: str
    cubes: int
    opponents: tuple[Opponent, ...] = ()
    master: str | None = None
    current: str | None = None
    pot: int | None = None
    round_label: str = "NO GAME"
    xmsg_count: int = 0
    my_cards: tuple[Card, ...] | None = None
    discards: frozenset[Card] = frozenset()
    player_message: str | None = None
    commands: tuple[str, ...] = ()
    prompt: str | None = None
    clock: str | None = None
    messages: tuple[tuple[str, str], ...] = ()
    message_count: int = 0
    chat_input: str | None = None


_Grid = list[list[str]]  # HEIGHT rows of WIDTH cells; "" is the right half of a wide character


def _blank_row() -> list[str]:
    return [" "] * WIDTH


class _Canvas:
    """A WIDTH x HEIGHT grid of cells that text is placed on, already cleaned and fitted.

    It starts blank, or with the rows of ``frame`` (shared, not copied: a row
    must be copied before text is placed on it if ``frame`` is to stay as it is).
    """

    def __init__(self, encoding: str, frame: _Grid | None = None) -> None:
        self.grid: _Grid = list(frame) if frame else [_blank_row() for _ in range(HEIGHT)]
        self.encoding = encoding
        self.cursor_col: int | None = None  # set by _draw_input: the input cursor's column

    def put(self, row: int, col: int, text: str, width: int | None = None) -> None:
        """Place ``text`` at (row, col), padded/cut to ``width`` cells (default: its own width)."""
        text = clean_text(text)
        if self.encoding != "utf-8" and not text.isascii():  # what the client cannot show becomes "?"
            text = text.encode(self.encoding, "replace").decode(self.encoding)
        text = fit(text, display_width(text) if width is None else width)
        cells = self.grid[row]
        if text.isascii():  # cleaned ASCII: one cell per character
            cells[col : col + len(text)] = text
            return
        for ch in text:
            w = char_width(ch)
            if w == 0:
                base = col - 1 if cells[col - 1] else col - 2
                cells[base] += ch
                continue
            cells[col] = ch
            if w == 2:
                cells[col + 1] = ""
            col += w


@lru_cache(maxsize=64)
def _card_box(card: Card | None) -> tuple[str, ...]:
    """The six lines of one 7x6 card box, 7 ASCII characters each: face up for a card,
    the patterned back for None."""
    if card is None:
        return ("+-----+", *(_CARD_BACK * 2), "+-----+")
    rank, suit = card.rank.symbol, card.suit.symbol
    corner = f"10{suit} {suit}10" if card.rank is Rank.TEN else f"|{rank}{suit} {suit}{rank}|"
    pips = f"|{suit}   {suit}|"
    return ("+-----+", corner, pips, pips, corner, "+-----+")


def _hand_text(cards: tuple[Card, ...]) -> str:
    """Revealed cards for region (1): each right-aligned in 3 cells, e.g. `` 9- 10*  J+``."""
    return " ".join(f"{card!s:>3}" for card in sort_hand(cards))


def _frame() -> _Grid:
    """The borders and the labels of region (2): what every game screen has."""
    c = _Canvas("utf-8")
    rule = "+" + "-" * (_MID_COL - 1) + "+" + "-" * (WIDTH - _MID_COL - 2) + "+"
    for row in (0, _SEP_ROW, _STATUS_ROW):
        c.put(row, 0, rule)
    for row in (*range(1, _SEP_ROW), *range(_CARD_ROW, _STATUS_ROW)):
        c.put(row, 0, "|")
        c.put(row, _MID_COL, "|")
        c.put(row, WIDTH - 1, "|")
    for row in range(_MSG_ROW, _MSG_ROW + MESSAGE_ROWS):
        c.put(row, 0, "|")
        c.put(row, WIDTH - 1, "|")
    c.put(_INPUT_ROW, 0, ">")
    c.put(_INPUT_ROW, WIDTH - 2, "<")
    for row, label in enumerate(_INFO_LABELS, start=_OPP_ROW):
        c.put(row, _INFO_COL, label)
    return c.grid


_FRAME = _frame()


@lru_cache(maxsize=256)
def _wrap6(text: str, width: int) -> tuple[str, ...]:
    """``text`` cleaned and wrapped at ``width`` cells: its first six lines (cached: the same
    prompts and player messages come back all the time, and wrapping is slow)."""
    return tuple(wrap(clean_text(text, 6 * width), width)[:6])


def _draw_opponents(c: _Canvas, view: GameView) -> None:
    """Region (1): handles and hidden or revealed cards of up to four opponents."""
    for row, opp in enumerate(view.opponents[:4], start=_OPP_ROW):
        c.put(row, 2, opp.handle, 19)
        if opp.revealed is not None:
            c.put(row, 22, _hand_text(opp.revealed))
        elif opp.competing:
            c.put(row, 22, " ".join(["[?]"] * 5))


def _draw_info(c: _Canvas, view: GameView) -> None:
    """Region (2): the values after the Master/Current/Pot/Round labels of the frame."""
    values = (
        view.master or "",
        view.current if view.current is not None else "NO GAME",
        f"{view.pot:,}" if view.pot is not None else "NO GAME",
        view.round_label,
    )
    label_width = len(_INFO_LABELS[0])
    for row, value in enumerate(values, start=_OPP_ROW):
        c.put(row, _INFO_COL + label_width, value, _INFO_WIDTH - label_width)


def _draw_xmsg(c: _Canvas, view: GameView) -> None:
    """Region (8): the X-message counter in the separator line."""
    if view.xmsg_count > 0:
        plural = "" if view.xmsg_count == 1 else "s"
        c.put(_SEP_ROW, 15, f"[{view.xmsg_count} X-message{plural}]")


def _draw_player(c: _Canvas, view: GameView) -> None:
    """Region (3): the player's message, or their cards (face down when selected for discard)."""
    if view.player_message is not None:
        for row, line in enumerate(_wrap6(view.player_message, _MID_COL - 4), start=_CARD_ROW):
            c.put(row, 2, line)
    else:
        hand = sort_hand(view.my_cards) if view.my_cards is not None else (None,) * 5
        for i, card in enumerate(hand[:5]):
            box = _card_box(None if card in view.discards else card)
            col = 2 + 8 * i
            for row, line in enumerate(box, start=_CARD_ROW):
                c.grid[row][col : col + 7] = line  # our own ASCII: one cell per character


def _draw_commands(c: _Canvas, view: GameView) -> None:
    """Region (4): the commands from the top, the prompt (wrapped) at the bottom."""
    prompt = _wrap6(view.prompt, _CMD_WIDTH) if view.prompt else ()
    lines = [*view.commands[: 6 - len(prompt)], *prompt]
    for row, line in enumerate(lines, start=_CARD_ROW):
        c.put(row, _CMD_COL, line, _CMD_WIDTH)


def _draw_status(c: _Canvas, view: GameView) -> None:
    """Region (5): ``handle [N CUBES]`` in the status line."""
    status = clean_text(f" {clean_text(view.handle, 16)} [{view.cubes:,} CUBES] ", _MID_COL - 3)
    c.put(_STATUS_ROW, 11 if 11 + display_width(status) < _MID_COL else 2, status)


def _draw_clock(c: _Canvas, view: GameView) -> None:
    """Region (5), right end: the count-down clock, e.g. `` 0:59 ``."""
    if view.clock is not None:
        c.put(_STATUS_ROW, _CLOCK_COL, f" {clean_text(view.clock, 4)} ")


@lru_cache(maxsize=1024)
def _message_row(encoding: str, tag: str, text: str, newest: bool) -> list[str]:
    """One row of region (6) with its borders: ``[tag] text``, ``->`` before the newest.

    Cached and shared by every screen (the same messages go to everyone at the table):
    the list must never be changed in place."""
    c = _Canvas(encoding, _FRAME)
    c.grid[_MSG_ROW] = _FRAME[_MSG_ROW][:]
    if newest:
        c.put(_MSG_ROW, 1, "->")
    c.put(_MSG_ROW, _MSG_COL, f"[{clean_text(tag, 16)}] {clean_text(text, _MSG_WIDTH)}", _MSG_WIDTH)
    return c.grid[_MSG_ROW]


def _draw_input(c: _Canvas, view: GameView) -> None:
    """Region (7): ``handle: text`` of an open chat line; sets ``c.cursor_col`` after it."""
    typed = ""
    if view.chat_input is not None:
        typed = _tail(f"{view.handle}: {view.chat_input}", _INPUT_WIDTH - 1)
        c.put(_INPUT_ROW, _INPUT_COL, typed)
    c.cursor_col = _INPUT_COL + display_width(typed)


class _Region(NamedTuple):
    """A rectangle of the screen (``rows`` x ``cols`` cells), drawn by ``draw`` from the
    :class:`GameView` fields that ``key`` returns and nothing else. ``shared``: its
    changes recur on many screens (the same bet on every screen at the table), so the
    bytes of each change are kept for the next screen (see :data:`_PIECE_CACHE`)."""

    rows: range
    cols: slice
    key: Callable[[GameView], object]
    draw: Callable[[_Canvas, GameView], None] | None
    shared: bool


def _shown_messages(view: GameView) -> tuple[tuple[str, str], ...]:
    return view.messages[-MESSAGE_ROWS:]


_LEFT, _RIGHT = slice(1, _MID_COL), slice(_MID_COL + 1, WIDTH - 1)  # inside the borders
_REGIONS = (
    _Region(range(_OPP_ROW, _SEP_ROW), _LEFT, attrgetter("opponents"), _draw_opponents, True),
    _Region(range(_OPP_ROW, _SEP_ROW), _RIGHT, attrgetter("master", "current", "pot", "round_label"), _draw_info, True),
    _Region(range(_SEP_ROW, _SEP_ROW + 1), slice(0, WIDTH), attrgetter("xmsg_count"), _draw_xmsg, True),
    _Region(range(_CARD_ROW, _STATUS_ROW), _LEFT, attrgetter("player_message", "my_cards", "discards"), _draw_player, False),
    _Region(range(_CARD_ROW, _STATUS_ROW), _RIGHT, attrgetter("commands", "prompt"), _draw_commands, True),
    _Region(range(_STATUS_ROW, _MSG_ROW), slice(0, _CLOCK_COL), attrgetter("handle", "cubes"), _draw_status, False),
    _Region(range(_STATUS_ROW, _MSG_ROW), slice(_CLOCK_COL, WIDTH), attrgetter("clock"), _draw_clock, True),
    # Whole rows, borders too: a scroll blanks whole lines.
    _Region(range(_MSG_ROW, _INPUT_ROW), slice(0, WIDTH), _shown_messages, None, True),
    # Not shared: typing in the chat line moves the cursor from where it is (one byte a key).
    _Region(range(_INPUT_ROW, HEIGHT), slice(0, WIDTH), attrgetter("handle", "chat_input"), _draw_input, False),
)
_MESSAGES = next(i for i, r in enumerate(_REGIONS) if r.draw is None)
_INPUT = len(_REGIONS) - 1
_NOTHING = object()  # the key of a region not drawn yet
_BLANK_LINE = _blank_row()  # a line scrolled in, or not painted yet (never changed)

#: Laid-out regions shared by every screen: (region index, encoding, key) to the cells
#: of the region's rows (and the input cursor's column). A bet changes the same regions
#: the same way on most screens at the table; each is laid out once.
_REGION_CACHE: dict[tuple[int, str, object], tuple[tuple[list[str], ...], int | None]] = {}
_REGION_CACHE_SIZE = 2048


def _region_cells(index: int, encoding: str, key: object,
                  view: GameView) -> tuple[tuple[list[str], ...], int | None]:
    """The cells of region ``index`` drawn for ``view`` (whose fields give ``key``), one
    list per row of the region, and the input cursor's column if the region sets it.
    Cached in :data:`_REGION_CACHE`; the lists must not be changed in place.

    The message area (6) is made of rows shared by every screen (:func:`_message_row`):
    after a scroll the rows that moved are the same objects as before."""
    cached = _REGION_CACHE.get((index, encoding, key))
    if cached is None:
        region = _REGIONS[index]
        if index == _MESSAGES:
            last = len(key) - 1  # type: ignore[arg-type]
            rows = tuple(_message_row(encoding, tag, text, i == last) for i, (tag, text) in enumerate(key))  # type: ignore[arg-type]
            cached = rows + (_FRAME[_MSG_ROW],) * (MESSAGE_ROWS - len(rows)), None
        else:
            c = _Canvas(encoding, _FRAME)
            for row in region.rows:
                c.grid[row] = _FRAME[row][:]
            region.draw(c, view)  # type: ignore[misc]
            cached = tuple(c.grid[row][region.cols] for row in region.rows), c.cursor_col
        _remember(_REGION_CACHE, _REGION_CACHE_SIZE, (index, encoding, key), cached)
    return cached


#: The bytes that change a shared region from one content to another, made once for every
#: screen at the table: (terminal, window rows, encoding, region index, old key, new key,
#: message lines scrolled) to (text, cursor after it). Each starts with a cursor address.
_PIECE_CACHE: dict[tuple[object, ...], tuple[str, tuple[int, int] | None]] = {}
_PIECE_CACHE_SIZE = 4096


def _remember(cache: dict, size: int, key: object, value: object) -> None:
    """Put ``value`` in a bounded shared cache, dropping its oldest entry when full."""
    if len(cache) >= size:
        del cache[next(iter(cache))]
    cache[key] = value


def _tail(text: str, width: int) -> str:
    """The end of ``text`` (cleaned) that fits in ``width`` cells: long input scrolls left."""
    kept: list[str] = []
    for ch in reversed(clean_text(text)):
        width -= char_width(ch)
        if width < 0:
            break
        kept.append(ch)
    return "".join(reversed(kept))


@lru_cache(maxsize=4096)
def _sequence(term: Terminal, capability: str, *args: int) -> str:
    """``term.capability(*args)``, e.g. a cursor address; cached per shared ``term``, since
    blessed parses the capability string on every call."""
    return str(getattr(term, capability)(*args))


def _move(term: Terminal, cursor: tuple[int, int] | None, row: int, col: int) -> str:
    """The cheapest way from ``cursor`` (``None``: unknown) to (row, col): nothing, BS,
    or a cursor address."""
    if cursor == (row, col):
        return ""
    if cursor is not None and cursor[0] == row and 0 < cursor[1] - col <= 3:
        return "\b" * (cursor[1] - col)
    return _sequence(term, "move_yx", row, col)


def _diff(term: Terminal, rows: range, col0: int, old: Sequence[list[str]], new: Sequence[list[str]],
          cursor: tuple[int, int] | None) -> tuple[str, tuple[int, int] | None]:
    """Cursor moves and text for every run of cells that differ between ``old`` and ``new``:
    the cells of ``rows`` from column ``col0`` on, one list per row (the same width in both).
    ``cursor``: where the cursor is (``None``: unknown). Returns the text and where it
    leaves the cursor: unknown after non-ASCII text (terminals may disagree on its width)
    and at the right margin (pending wrap)."""
    out: list[str] = []
    for row, o, n in zip(rows, old, new):
        if o is n or o == n:
            continue
        width = len(n)
        runs: list[list[int]] = []  # [first, last] changed cells, near runs merged
        # Compared in blocks of _GAP cells (two changes inside a block are always in one
        # run), and cell by cell only at the ends of a block that changed.
        for start in range(0, width, _GAP):
            end = min(start + _GAP, width)
            if o[start:end] == n[start:end]:
                continue
            first, last = start, end - 1
            while o[first] == n[first]:
                first += 1
            while o[last] == n[last]:
                last -= 1
            if runs and first - runs[-1][1] <= _GAP:
                runs[-1][1] = last
            else:
                runs.append([first, last])
        # A run never starts on the right half of a wide character: that half only
        # changes together with its left half, which is then in the same run.
        for first, last in runs:
            text = "".join(n[first : last + 1])
            out.append(_move(term, cursor, row, col0 + first) + text)
            after = last + 1 + (last + 1 < width and n[last + 1] == "")
            cursor = (row, col0 + after) if text.isascii() and col0 + after < WIDTH else None
    return "".join(out), cursor


class ScreenRenderer:
    """Turns successive :class:`GameView` values into the bytes one client needs.

    ``ScreenRenderer(term, encoding="utf-8")``: ``term`` is a blessed
    ``Terminal`` of the client's kind (shared by all sessions of that kind;
    only its capability strings are used: ``move_yx``, ``clear``, ``normal``,
    ``save``/``restore``, ``csr``).  ``encoding`` is the session's output
    encoding (e.g. ``"cp437"``): characters it cannot carry are drawn as ``?``
    so widths stay right (an unknown encoding raises ``LookupError``).

    - :meth:`resize` takes the window size from NAWS (never from ``term``).
    - :meth:`render` returns the escape sequences and text (a ``str`` to be
      encoded by the session) that bring the client's screen from the last
      rendered view to ``view``.  The first call clears and paints all;
      later calls send only changed cells; the cursor is left on the input
      line (after the typed chat text).  Returns ``""`` when nothing changed.
    - :meth:`invalidate` forces a full repaint on the next :meth:`render`
      (after the session wrote something else, or the client may have lost
      the screen).
    """

    def __init__(self, term: Terminal, encoding: str = "utf-8") -> None:
        self.term = term
        self.encoding = codecs.lookup(encoding).name
        self.cols, self.rows = WIDTH, HEIGHT
        self._painted = False  # False: the client's screen is unknown, the next render paints all
        self._keys: list[object] = [_NOTHING] * len(_REGIONS)  # the key each region shows
        self._cells: list[tuple[list[str], ...]] = [()] * len(_REGIONS)  # and its cells
        self._input_col = _INPUT_COL  # the input cursor's column
        self._message_count = 0  # GameView.message_count of the shown screen
        self._cursor: tuple[int, int] | None = None
        self._too_small_shown = False

    def resize(self, cols: int, rows: int) -> None:
        """Set the window size reported by NAWS (cells); any change repaints the whole screen."""
        if (cols, rows) != (self.cols, self.rows):
            self.cols, self.rows = cols, rows
            self.invalidate()

    def invalidate(self) -> None:
        """Forget what the client shows: the next :meth:`render` clears and paints everything."""
        self._painted = False
        self._cursor = None
        self._too_small_shown = False

    def render(self, view: GameView) -> str:
        """Sequences bringing the screen to ``view``; see the class docstring.

        A window smaller than 80x24 gets (once per size) a cleared screen with
        "Please enlarge your window to at least 80x24 (now WxH)"; the game
        screen is painted in full when the window is large enough again.

        Each region whose fields changed is brought up to date with its own cursor
        address first; for a region shared by the screens at the table (e.g. the
        pot after a bet) those bytes are made once and reused by the other screens.
        """
        term = self.term
        if self.cols < WIDTH or self.rows < HEIGHT:
            if self._too_small_shown:
                return ""
            self.invalidate()
            self._too_small_shown = True
            return (
                term.normal
                + term.clear
                + term.move_yx(0, 0)
                + f"Please enlarge your window to at least {WIDTH}x{HEIGHT} (now {self.cols}x{self.rows})"
            )
        before = self._cursor
        body = self._paint_all(view) if not self._painted else self._update(view)
        target = (_INPUT_ROW, self._input_col)
        back = _move(term, self._cursor, *target)
        self._cursor = target
        if back and before == target and term.save and term.restore and len(term.save + term.restore) < len(back):
            return term.save + body + term.restore
        return body + back

    def _paint_all(self, view: GameView) -> str:
        """Clear the screen and draw every region of ``view``."""
        grid = [row[:] for row in _FRAME]
        for i, region in enumerate(_REGIONS):
            self._set(i, region.key(view), view)
            for row, part in zip(region.rows, self._cells[i]):
                grid[row][region.cols] = part
        self._message_count = view.message_count
        self._painted = True
        text, self._cursor = _diff(self.term, range(HEIGHT), 0, (_BLANK_LINE,) * HEIGHT, grid, None)
        return self.term.normal + self.term.clear + text

    def _set(self, index: int, key: object, view: GameView) -> None:
        """Remember that region ``index`` shows ``key`` (of ``view``), and its cells."""
        self._keys[index] = key
        self._cells[index], cursor_col = _region_cells(index, self.encoding, key, view)
        if cursor_col is not None:
            self._input_col = cursor_col

    def _update(self, view: GameView) -> str:
        """The bytes of every region whose fields changed since the last render."""
        out = []
        new_messages, self._message_count = view.message_count - self._message_count, view.message_count
        for i, region in enumerate(_REGIONS):
            old_key, key = self._keys[i], region.key(view)
            lines = self._scrolled(old_key, new_messages) if i == _MESSAGES else 0
            if key == old_key and not lines:
                continue
            old_cells = self._cells[i]
            self._set(i, key, view)
            if not region.shared:
                piece, self._cursor = _diff(self.term, region.rows, region.cols.start, old_cells,
                                            self._cells[i], self._cursor)
                out.append(piece)
                continue
            cache_key = (self.term, self.rows, self.encoding, i, old_key, key, lines)
            cached = _PIECE_CACHE.get(cache_key)
            if cached is None:
                cached = self._piece(region, old_cells, self._cells[i], lines)
                _remember(_PIECE_CACHE, _PIECE_CACHE_SIZE, cache_key, cached)
            if cached[0]:
                out.append(cached[0])
                self._cursor = cached[1]
        return "".join(out)

    def _scrolled(self, old_key: object, new_messages: int) -> int:
        """Lines the message area scrolls for ``new_messages`` more messages when it showed
        ``old_key``: 0 when it is not full yet, would scroll every line it shows (a
        rewrite is as cheap), or the terminal has no scroll region.

        Messages fill rows 14-23 from the top; once the area is full, each new
        message scrolls it up one line (by the count, so identical messages scroll too).
        """
        used = len(old_key)  # type: ignore[arg-type]
        lines = used + new_messages - MESSAGE_ROWS
        if new_messages <= 0 or not 0 < lines < used or not _sequence(self.term, "csr", 0, 1):
            return 0
        return lines

    def _piece(self, region: _Region, old: tuple[list[str], ...], new: tuple[list[str], ...],
               lines: int) -> tuple[str, tuple[int, int] | None]:
        """The bytes changing ``region`` from ``old`` to ``new`` cells, from an unknown cursor
        position, with the message area first scrolled by ``lines`` (DECSTBM); and where
        they leave the cursor."""
        scroll = ""
        if lines:
            bottom = region.rows.stop - 1
            scroll = (_sequence(self.term, "csr", region.rows.start, bottom)
                      + _sequence(self.term, "move_yx", bottom, 0)
                      + "\r\n" * lines
                      + _sequence(self.term, "csr", 0, self.rows - 1))
            old = (*old[lines:], *(_BLANK_LINE,) * lines)
        text, cursor = _diff(self.term, region.rows, region.cols.start, old, new, None)
        return scroll + text, cursor
