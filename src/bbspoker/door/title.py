"""The door's title screen: an 80x24 ANSI drawing shown when a connection opens, before
the login dialogue.

The drawing is ``art/title.ans`` in this package: CP437 bytes of an ANSI screen with a
SAUCE record (made by ``scripts/art/title.py`` with :func:`draw`), 80 columns by 24
rows, whose last row is left empty so that no terminal scrolls. It carries no words of
any language (it is shown before the user's language is known); the door writes the
translated ``[Press any key]`` on its blank row :data:`PROMPT_ROW`.

:func:`picture` parses it once (with pyte) into 24 rows of 80 :class:`Cell` s, and each
session gets it in its look (:class:`bbspoker.door.look.Look`):

- **CP437 with colour**: the file's bytes as they are (:func:`cp437_text`);
- **UTF-8 with colour**: the same picture in Unicode (blocks ``█▓▒░▄▀``, box drawing,
  suits ``♠♥♦♣``);
- **ASCII / classic**: blocks as ``#``, shading as ``:`` and ``.``, box drawing as
  ``+ - |``, suits as ``+ * # -``; the classic look writes no SGR, only cursor
  positioning and the clear.

:func:`show_title` shows it and waits for a key, or ``[door] title_seconds``.
"""

from __future__ import annotations

import functools
import importlib.resources
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bbspoker.door import i18n
from bbspoker.door.look import BOX_TO_ASCII, CP437_SUITS, Look, Pen
from bbspoker.text import display_width

if TYPE_CHECKING:
    from bbspoker.door.terminal import Terminal

__all__ = ["Cell", "COLS", "ROWS", "PROMPT_ROW", "ART", "SAUCE_SIZE", "Sauce", "picture",
           "sauce_of", "content", "cp437_text", "draw", "render", "utf8_ansi",
           "show_title", "CLEAR"]

#: The size of the drawing (the last row stays empty: see :func:`draw`).
COLS, ROWS = 80, 24
#: The row (0-based) the door writes ``[Press any key]`` on, centred: the art leaves it blank.
PROMPT_ROW = 20
#: The drawing's file in this package.
ART = "art/title.ans"
#: The bytes of a SAUCE record (after its EOF mark 0x1A).
SAUCE_SIZE = 128
#: Reset the pen, cursor home, clear the screen: what follows the title.
CLEAR = "\x1b[0m\x1b[H\x1b[2J"

_COLOURS = ("black", "red", "green", "brown", "blue", "magenta", "cyan", "white")
#: CP437's suit bytes, which the ``cp437`` codec reads as controls -> the suit glyphs.
_SUITS_IN = {ord(byte): glyph for glyph, byte in CP437_SUITS.items()}
#: Blocks and shading -> their ASCII form (box drawing and suits: the look's own table).
_BLOCKS = {**{ord(c): "#" for c in "█▌▐▄▀■▓"}, ord("▒"): ":", ord("░"): ".",
           ord("·"): "."}


@dataclass(frozen=True, slots=True)
class Cell:
    """One character cell of the drawing: ``char`` (one Unicode character, drawn as
    CP437 has it), ``fg``/``bg`` the ANSI colour numbers 0-7 (``None``: the terminal's
    default), ``bright`` (bold: the bright half of the 16 colours)."""

    char: str = " "
    fg: int | None = None
    bright: bool = False
    bg: int | None = None

    def sgr(self) -> str:
        """The SGR sequence that sets this cell's colours from any pen (reset first)."""
        params = ["0"]
        if self.bright:
            params.append("1")
        if self.fg is not None:
            params.append(str(30 + self.fg))
        if self.bg is not None:
            params.append(str(40 + self.bg))
        return "\x1b[" + ";".join(params) + "m"


@dataclass(frozen=True, slots=True)
class Sauce:
    """The fields of a SAUCE00 record that matter here: ``title`` (blanks stripped),
    ``author``, ``size`` (bytes before the EOF mark), ``cols`` and ``rows``."""

    title: str
    author: str
    size: int
    cols: int
    rows: int


def sauce_of(data: bytes) -> Sauce:
    """The SAUCE record at the end of an ANSI file's ``data``. Raises ``ValueError`` if
    there is none (no EOF mark before 128 bytes starting ``SAUCE00``)."""
    record = data[-SAUCE_SIZE:]
    if len(data) < SAUCE_SIZE + 1 or record[:7] != b"SAUCE00" or data[-SAUCE_SIZE - 1] != 0x1A:
        raise ValueError("no SAUCE record")
    return Sauce(title=record[7:42].decode("cp437").rstrip(),
                 author=record[42:62].decode("cp437").rstrip(),
                 size=int.from_bytes(record[90:94], "little"),
                 cols=int.from_bytes(record[96:98], "little"),
                 rows=int.from_bytes(record[98:100], "little"))


@functools.lru_cache(maxsize=1)
def _file() -> bytes:
    return importlib.resources.files("bbspoker.door").joinpath(ART).read_bytes()


@functools.lru_cache(maxsize=1)
def content() -> bytes:
    """The drawing's bytes (CP437 and escape sequences) without the SAUCE record and its
    EOF mark."""
    data = _file()
    return data[:sauce_of(data).size]


@functools.lru_cache(maxsize=1)
def cp437_text() -> str:
    """:func:`content` as the text a CP437 session's ``write`` turns back into the same
    bytes: decoded with ``cp437``, the suit bytes 0x03-0x06 as ``♥♦♣♠`` (the session
    sends those glyphs as those bytes). The drawing uses no byte 0x80-0x9F (the
    session writes those letters as their ASCII stand-ins)."""
    return content().decode("cp437").translate(_SUITS_IN)


def _colour(name: str) -> int | None:
    return _COLOURS.index(name) if name in _COLOURS else None


@functools.lru_cache(maxsize=1)
def picture() -> tuple[tuple[Cell, ...], ...]:
    """The drawing as :data:`ROWS` rows of :data:`COLS` cells, parsed from the file once
    with pyte (an ANSI terminal emulator)."""
    import pyte   # only here: nothing else at run time needs a terminal emulator

    screen = pyte.Screen(COLS, ROWS)
    pyte.Stream(screen).feed(cp437_text())
    return tuple(tuple(Cell(cell.data or " ", _colour(cell.fg), cell.bold, _colour(cell.bg))
                       for cell in (screen.buffer[y][x] for x in range(COLS)))
                 for y in range(ROWS))


def draw(cells: Sequence[Sequence[Cell]], *, colour: bool = True,
         table: dict[int, str] | None = None) -> str:
    """``cells`` (at most 24 rows of 80) as terminal output: the screen cleared, then each
    row from its first column by cursor positioning (never CR LF: no terminal's own wrap
    at the 80th column matters), each cell's colours as SGR when ``colour`` (none at
    all otherwise), characters through ``table`` (a ``str.translate`` table), blanks
    at the end of a row left out. The last row stops at column 79: the bottom-right
    cell is never written, so no terminal scrolls. Ends with the pen reset."""
    out = ["\x1b[0m\x1b[H\x1b[2J" if colour else "\x1b[H\x1b[2J"]
    blank = Cell()
    for y, row in enumerate(cells[:ROWS]):
        cols = list(row[:COLS - 1 if y == ROWS - 1 else COLS])
        while cols and cols[-1] == blank:
            cols.pop()
        if not cols:
            continue
        out.append(f"\x1b[{y + 1};1H")
        pen: Cell | None = blank if colour else None
        line = []
        for cell in cols:
            style = Cell(" ", cell.fg, cell.bright, cell.bg)
            if colour and style != pen:
                line.append(style.sgr())
                pen = style
            line.append(cell.char)
        text = "".join(line)
        out.append(text.translate(table) if table else text)
        if colour and pen != blank:
            out.append("\x1b[0m")
    return "".join(out)


@functools.lru_cache(maxsize=16)
def render(look: Look) -> str:
    """The drawing as ``look`` shows it: a CP437 look with colour gets the file itself
    (:func:`cp437_text`); otherwise :func:`draw` of :func:`picture`, in Unicode for
    CP437 and UTF-8, in ASCII (blocks ``#``, shading ``:``/``.``, box drawing
    ``+ - |``) for the ASCII character set, with the look's suits, in colour or
    without any SGR."""
    if look.charset == "cp437" and look.colour and look.suits == "symbols":
        return cp437_text()
    table = dict(look.table)
    if look.charset == "ascii":
        table.update(_BLOCKS)
        table.update(BOX_TO_ASCII)
    return draw(picture(), colour=look.colour, table=table)


def utf8_ansi() -> str:
    """The drawing in UTF-8 with colour (the browser page's opening screen, written into
    its terminal before the WebSocket connects)."""
    return render(Look("utf-8", True, "symbols"))


async def show_title(session: Terminal, seconds: float) -> bool:
    """Show the title screen on ``session`` in its look (:func:`render`) with the
    translated ``[Press any key]`` centred on :data:`PROMPT_ROW`, then wait for a key
    (taken and dropped) or ``seconds``; either way the screen is then cleared and the
    pen reset (:data:`CLEAR`), for the login dialogue. A window smaller than 80x24
    gets nothing. Returns ``True`` if it was shown. Raises
    :class:`~bbspoker.door.terminal.SessionClosed` if the connection ends."""
    if session.cols < COLS or session.rows < ROWS:
        return False
    look = session.look
    prompt = i18n.of(session).gettext("[Press any key]")
    width = display_width(prompt)
    if width > COLS - 4:
        prompt, width = "", 0
    column = (COLS - width) // 2 + 1
    text = render(look) + f"\x1b[{PROMPT_ROW + 1};{column}H"
    session.write(text + look.paint(look.glyphs(prompt), Pen.KEY))
    try:
        await session.read_key(seconds)
    except TimeoutError:
        pass
    session.write(CLEAR if look.colour else CLEAR[4:])
    return True
