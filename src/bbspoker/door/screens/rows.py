"""Table screens drawn as 24 rows of text (Schiebe-Poker's and Hold'em's): the row
renderer, the regions every such screen shares (the command area, the game information's
labelled lines, the status line, the log and the chat line) and :class:`RowScreen`, the
screen loop of :mod:`bbspoker.door.screens.base` drawing :class:`Rows`.

Layout of the shared rows (0-23)::

    0-7  the kind's own rows (title, seats, cards)
    8    +--------------------------------------------+----------------------+
    9-12 commands: exactly the legal keys now     | the game information
   13    +- alice [990 CUBES] ------------------------+----------------------+
   14-22 the log: every action as it happens, and the chat
   23    > chat input
"""

from __future__ import annotations

import codecs
import re
import textwrap
from functools import lru_cache
from typing import TYPE_CHECKING, Any, NamedTuple

from bbspoker.door.i18n import ENGLISH, N_, Translator
from bbspoker.door.look import (CLASSIC, CP437_SUITS, Look, Pen, attrs_of, blanks, emit,
                                handle_pen, key_marks, overlay, sgr)
from bbspoker.door.messages import log_pen
from bbspoker.door.screens.base import TableScreen
from bbspoker.door.screens.regions import CONTINUED
from bbspoker.text import clean_text, display_width, fit

if TYPE_CHECKING:
    from blessed import Terminal as BlessedTerminal

__all__ = ["Rows", "RowRenderer", "RowScreen", "bottom_rows", "command_area", "command_lines",
           "LEAVE_KEY",
           "labelled", "row", "halves", "WIDTH", "HEIGHT", "LOG_ROWS", "LABEL_WIDTH", "LEFT",
           "RIGHT"]

WIDTH, HEIGHT = 80, 24
#: Rows of the log (the message area), 14-22.
LOG_ROWS = 9
_INPUT_ROW = 23
#: The command area's width inside the borders (cells 1-46), and the game information's.
LEFT = 46
RIGHT = WIDTH - LEFT - 3
#: Cells of a key line or question in the command area: a blank before it and one after,
#: so that no text runs into the divider.
TEXT = LEFT - 2
#: Cells of a label of the game information (the right half of rows 9-12) with its dots,
#: before the blank and the value: ``"Turn ....."``.
LABEL_WIDTH = 10


class Rows(NamedTuple):
    """A row screen's view: 24 rows of drawn text (canonical glyphs: box drawing and
    suit symbols, :mod:`bbspoker.door.look`), each 80 cells (the last 79), where the
    cursor goes (row, column), and the colour of what the rows show: ``spans`` of
    ``(row, column, width, pen)`` in cells (a colour look draws them; suit glyphs keep
    their red or black, box drawing is a border and ``[K]`` keys a key by themselves)."""

    rows: list[str]
    cursor: tuple[int, int]
    spans: tuple[tuple[int, int, int, Pen], ...] = ()


def row(text: str) -> str:
    """``│ text │``, the text cleaned and fitted to 78 cells."""
    return "│" + fit(text, WIDTH - 2) + "│"


def halves(left: str, right: str, width: int = LEFT) -> str:
    """``│ left │ right │``, the divider after ``width`` cells (each text after a blank)."""
    return "│" + fit(" " + left, width) + "│" + fit(" " + right, WIDTH - width - 3) + "│"


def labelled(t: Translator, label: tuple[str, str], value: str) -> str:
    """A line of the game information: the ``label`` (a ``(context, word)`` pair) in
    ``t``'s language, dots to :data:`LABEL_WIDTH` cells, a blank and ``value``:
    ``"Turn ..... alice"``, German ``"Am Zug ... alice"`` (a word too long is cut)."""
    word = clean_text(t.pgettext(*label), LABEL_WIDTH)
    dots = LABEL_WIDTH - display_width(word) - 1
    head = f"{word} {'.' * dots}" if dots > 0 else fit(word, LABEL_WIDTH)
    return f"{head} {value}"


#: What ``[X]`` does at a table: leave it (a cash table's), or go back to the lobby while
#: staying seated (a tournament table's, :mod:`bbspoker.door.tournaments`).
LEAVE_KEY = N_("[X] leave the table")


def command_area(t: Translator, lines: list[str], prompt: str | None,
                 exit_key: str = LEAVE_KEY) -> list[str]:
    """The four rows of a command area: ``lines`` (the keys of the legal choices now),
    the chat key and ``exit_key`` (a message id: what [X] does here) when there is room,
    and last ``prompt`` (a question, an input line or a refusal), wrapped over as many rows
    as it needs in ``t``'s language."""
    tail = textwrap.wrap(prompt, TEXT)[:3] if prompt else []
    room = 4 - len(tail)
    lines = lines[:room]
    if len(lines) < room:
        lines += command_lines([t.gettext("[.] chat"), t.gettext(exit_key)])
    return (lines[:room] + tail + [""] * 4)[:4]


def command_lines(items: list[str], width: int = TEXT) -> list[str]:
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
    later calls redraw only the rows that changed (in text or in colour); the cursor is
    left where the view says. The bottom-right cell is never written (it scrolls some
    terminals). A window smaller than 80x24 is asked, once per size, to be enlarged.
    ``term`` is the session's blessed terminal; characters ``encoding`` cannot carry are
    drawn as ``?``; ``t`` the viewer's language (of the request to enlarge the window);
    ``look`` how the rows look (:class:`~bbspoker.door.look.Look`: glyphs and colour;
    the classic look draws the rows' ASCII forms without a colour sequence). With
    colour, the terminal's pen is tracked across rows: a row's colours cost only the
    SGR changes between its runs, and each render ends with one reset. A
    :class:`~bbspoker.door.screens.base.Renderer` of :class:`Rows`."""

    def __init__(self, term: BlessedTerminal, encoding: str = "utf-8",
                 t: Translator = ENGLISH, look: Look = CLASSIC) -> None:
        self.term = term
        self.t = t
        self.look = look
        self.encoding = codecs.lookup(encoding).name
        self.cols, self.rows = WIDTH, HEIGHT
        self._shown: list[tuple[str, str | None]] | None = None
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

    def render(self, view: Rows) -> str:
        """See the class docstring; ``view``: 24 rows of text, each 80 cells (the last
        79), the cursor's place and the colour spans."""
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
            old = [("", None)] * HEIGHT
        look = self.look
        colour = look.colour
        spans: dict[int, list[tuple[int, int, Pen]]] = {}
        if colour:
            for r, col, width, span_pen in view.spans:
                spans.setdefault(r, []).append((col, width, span_pen))
        new: list[tuple[str, str | None]] = []
        pen = 0
        for i, drawn in enumerate(view.rows):
            text = _shown_text(look, self.encoding, drawn)
            attrs = _row_attrs(drawn, tuple(spans.get(i, ()))) if colour else None
            new.append((text, attrs))
            if (text, attrs) != old[i]:
                if attrs is None:
                    out.append(term.move_yx(i, 0) + text)
                else:
                    styled, pen = emit(text, attrs, pen)
                    out.append(term.move_yx(i, 0) + styled)
        self._shown = new
        if not out:
            return ""
        return "".join(out) + sgr(pen, 0) + term.move_yx(*view.cursor)

    def render_clock(self, clock: str | None) -> str | None:
        """Always ``None``: the clock sits inside a row of the kind's own drawing, so the
        screen renders its whole view (of which only the rows that changed, here the
        clock's, are sent)."""
        return None


@lru_cache(maxsize=4096)
def _shown_text(look: Look, encoding: str, drawn: str) -> str:
    """A drawn row as ``look`` shows it in ``encoding``: its glyphs (:meth:`Look.glyphs`),
    then each character the encoding cannot carry as ``?`` (a suit glyph goes to a CP437
    terminal as its own byte, :data:`bbspoker.door.look.CP437_SUITS`)."""
    text = look.glyphs(drawn)
    if encoding == "utf-8" or text.isascii():
        return text
    return "".join(ch if ch.isascii() or ch in CP437_SUITS or _encodes(ch, encoding) else "?"
                   for ch in text)


@lru_cache(maxsize=1024)
def _encodes(ch: str, encoding: str) -> bool:
    try:
        ch.encode(encoding)
    except UnicodeEncodeError:
        return False
    return True


@lru_cache(maxsize=4096)
def _row_attrs(drawn: str, spans: tuple[tuple[int, int, Pen], ...]) -> str:
    """The pen marks of a drawn row (one per character): its glyphs' own pens, keys in
    brackets, then ``spans`` (``(column, width, pen)`` in cells) over them."""
    attrs = attrs_of(drawn)
    attrs = key_marks(drawn, attrs)
    for col, width, pen in spans:
        attrs = overlay(drawn, attrs, col, width, pen)
    return blanks(drawn, attrs)


class RowScreen(TableScreen[Rows]):
    """The screen loop drawn as 24 rows of text by a :class:`RowRenderer`: a kind's
    subclass gives :meth:`rows`; ``exit_key`` is what its command area says [X] does
    (a message id: :data:`LEAVE_KEY` at a cash table)."""

    exit_key: str = LEAVE_KEY

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._spans: list[tuple[int, int, int, Pen]] = []

    def _make_renderer(self) -> RowRenderer:
        return RowRenderer(self.session.term, self.session.encoding, self.t, self.session.look)

    def rows(self) -> tuple[list[str], tuple[int, int]]:
        """The 24 rows of the screen now, and where the cursor goes; while drawing them
        the kind names the colours of what it draws with :meth:`span`."""
        raise NotImplementedError

    def status_cubes(self) -> str:
        """The status line's money: ``[990 CUBES]``, the player's CUBES (a tournament
        table's screen shows none: its stacks are chips)."""
        t = self.t
        return t.gettext("[{n} CUBES]").format(
            n=t.number(self.snapshot.balances.get(self.handle, self._own_cubes)))

    def extra_row(self) -> tuple[str, Pen] | None:
        """A line under the status line, and its pen (a tournament table's: the level and
        the players left), taken from the log's rows; ``None``: none."""
        return None

    def span(self, row: int, col: int, width: int, pen: Pen) -> None:
        """Draw cells ``col`` to ``col + width`` of row ``row`` (0-based) in ``pen`` (a
        colour look only; suit glyphs keep their colour)."""
        self._spans.append((row, col, width, pen))

    def view(self) -> Rows:
        """:meth:`rows` as the renderer's view, with the spans named while drawing."""
        self._spans = []
        rows, cursor = self.rows()
        return Rows(rows, cursor, tuple(self._spans))


def bottom_rows(screen: RowScreen, rows: list[str], more: str
                ) -> tuple[list[str], tuple[int, int]]:
    """Rows 13-23 of a row-drawn table screen after ``rows`` (0-12): the status line
    (handle, CUBES as :meth:`RowScreen.status_cubes` says, ``more`` such as a stack,
    X-messages waiting, spectators), the screen's :meth:`RowScreen.extra_row` if any, the
    log (the last :data:`LOG_ROWS` message rows, one fewer under an extra row), the chat
    line; with the cursor's place on
    the chat line. Colours: your handle as yourself, SYSTEM and INFO lines dimmer than
    chat, each chat handle in its own colour (:func:`bbspoker.door.look.handle_pen`)."""
    snap = screen.snapshot
    t = screen.t
    cubes = screen.status_cubes()
    handle = clean_text(screen.handle, 16)
    status = f"─ {handle} {cubes} {more}" if cubes else f"─ {handle} {more}"
    screen.span(len(rows), 3, display_width(handle), Pen.SELF)
    if cubes:
        screen.span(len(rows), 4 + display_width(handle), display_width(cubes), Pen.VALUE)
    xmsgs = len(screen.session.inbox)
    extra = (t.ngettext("[{n} X-message]", "[{n} X-messages]", xmsgs).format(
        n=t.number(xmsgs)) + " ") if xmsgs else ""
    if snap.watchers:
        extra += t.ngettext("[{n} watching]", "[{n} watching]", snap.watchers).format(
            n=t.number(snap.watchers)) + " "
    line = "├" + status + "─" * max(0, LEFT - display_width(status)) + "┴" + extra
    if extra:
        screen.span(len(rows), LEFT + 2, display_width(extra) - 1, Pen.VALUE)
    rows.append(line + "─" * max(0, WIDTH - 1 - display_width(line)) + "┤")
    extra_row = screen.extra_row()
    log_rows = LOG_ROWS
    if extra_row is not None:
        screen.span(len(rows), 1, WIDTH - 2, extra_row[1])
        rows.append(row(" " + extra_row[0]))
        log_rows -= 1
    shown = list(screen.messages)[-log_rows:]
    pen = Pen.SYSTEM
    for tag, text in shown:
        r = len(rows)
        if tag != CONTINUED:
            pen = log_pen(tag)
        if pen is Pen.CHAT and tag != CONTINUED:
            width = display_width(clean_text(tag)) + 2
            screen.span(r, 2, width, handle_pen(tag))
            screen.span(r, 2 + width, WIDTH - 3 - width, Pen.CHAT)
        else:
            screen.span(r, 1, WIDTH - 2, pen)
        rows.append(row(" " + (text if tag == CONTINUED else f"[{clean_text(tag)}] {text}")))
    rows += [row("")] * (log_rows - len(shown))
    typed = screen.editor.text if screen.mode == "chat" and screen.editor else None
    if typed is None:
        rows.append(">" + " " * (WIDTH - 3) + "<")
        return rows, (_INPUT_ROW, 2)
    text = f" {clean_text(screen.handle, 16)}: {typed}"
    rows.append(">" + fit(text, WIDTH - 3) + "<")
    return rows, (_INPUT_ROW, min(1 + display_width(text), WIDTH - 3))
