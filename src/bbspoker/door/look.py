"""The look of a session's screens: its terminal profile (ASCII, CP437 or UTF-8 glyphs),
colour or the classic monochrome, the suit symbols, and the one palette of the door.

Screens are drawn in one canonical character set: borders in Unicode box drawing
(``─ │ ┌ ┐ └ ┘ ├ ┤ ┬ ┴ ┼`` and the double ``═ ║ ╔ ╗ ╚ ╝ ╤ ╧ ╟ ╢ ╪``), suits as
``♠ ♥ ♦ ♣`` (:data:`SUIT_GLYPHS`). Every glyph is one cell wide, so a layout is the same in
every profile. A :class:`Look` turns a drawn row into what its terminal shows
(:meth:`Look.glyphs`):

- **ASCII** (the classic look, and every monochrome terminal): the GV mock-up exactly,
  borders ``+ - |`` and suits ``+ * # -`` (chapter 2 of the GV document), byte for byte
  the screens of a plain-text door;
- **CP437**: box drawing as the code page has it, suits as its bytes 0x03-0x06
  (:data:`CP437_SUITS`, sent by the session);
- **UTF-8**: the same characters as drawn.

Colour is the 16 ANSI colours every BBS terminal has. Screens name what a cell is
(:class:`Pen`: a border, a red suit, the player in turn, a chat handle ...), never an
escape sequence; :data:`PALETTE` gives each pen its colour, and :func:`sgr` the shortest
SGR sequence from one pen to the next (renderers track the pen, so an update sends only
the changes it needs).
"""

from __future__ import annotations

import re
import zlib
from enum import IntEnum
from functools import lru_cache
from typing import Literal, NamedTuple

__all__ = ["Pen", "Colour", "PALETTE", "Look", "CLASSIC", "SUIT_GLYPHS", "CP437_SUITS",
           "BOX_TO_ASCII", "sgr", "pen_of", "handle_pen", "clock_pen", "Charset", "Suits",
           "LOOKS", "SUIT_CHOICES", "detect", "attrs_of", "overlay", "emit", "blanks", "card_glyphs", "KEY", "key_marks",
           "BACKGROUND"]

Charset = Literal["ascii", "cp437", "utf-8"]
#: The suit symbols a user may choose: ``"symbols"`` (♠♥♦♣) or ``"gv"`` (``+ * # -``).
Suits = Literal["symbols", "gv"]
#: The looks a user may choose in the lobby's options (``""``: as the terminal allows).
LOOKS = ("colour", "classic")
SUIT_CHOICES: tuple[Suits, ...] = ("symbols", "gv")

#: GV suit symbol (chapter 2: spades ``+``, hearts ``*``, diamonds ``#``, clubs ``-``) ->
#: the canonical suit glyph screens draw.
SUIT_GLYPHS = {"+": "\u2660", "*": "\u2665", "#": "\u2666", "-": "\u2663"}
_GV_SUITS = {glyph: gv for gv, glyph in SUIT_GLYPHS.items()}
#: The suit glyphs as CP437 bytes (0x03 hearts, 0x04 diamonds, 0x05 clubs, 0x06 spades):
#: the ``cp437`` codec maps those bytes to controls, so the session puts them in itself.
CP437_SUITS = {"\u2665": "\x03", "\u2666": "\x04", "\u2663": "\x05", "\u2660": "\x06"}
_RED_SUITS = frozenset("\u2665\u2666")
_BLACK_SUITS = frozenset("\u2660\u2663")

_HORIZONTAL = "─═"
_VERTICAL = "│║"
_JUNCTIONS = "┌┐└┘├┤┬┴┼╔╗╚╝╠╣╦╩╬╤╧╟╢╪╫╒╕╘╛╓╖╙╜"
#: Every box-drawing character a screen draws -> its ASCII form in the classic look.
BOX_TO_ASCII = {**{ord(c): "-" for c in _HORIZONTAL}, **{ord(c): "|" for c in _VERTICAL},
                **{ord(c): "+" for c in _JUNCTIONS}}
_BOX = frozenset(_HORIZONTAL + _VERTICAL + _JUNCTIONS)


class Pen(IntEnum):
    """What a cell shows, for its colour (:data:`PALETTE`). ``DEFAULT`` is the terminal's
    own colours (the classic look draws every cell with it)."""

    DEFAULT = 0
    BORDER = 1        #: frames and dividers
    TITLE = 2         #: a screen's heading, the table's name
    LABEL = 3         #: a label of the game information ("Pot ......")
    VALUE = 4         #: its value
    KEY = 5           #: a command's key, e.g. ``[B]``
    RED_SUIT = 6      #: hearts and diamonds
    BLACK_SUIT = 7    #: spades and clubs
    CARD = 8          #: a card's face (rank, frame of a face-up card)
    CARD_BACK = 9     #: a card face down
    TURN = 10         #: the player in turn
    SELF = 11         #: your own seat, handle and stack
    FOLDED = 12       #: a seat out of the hand (folded, passed, sitting out)
    POT = 13          #: the pot
    WINNER = 14       #: who won, and the winning hand's line
    SYSTEM = 15       #: SYSTEM lines of the log: dimmer than chat
    INFO = 16         #: INFO lines of the log: dimmer than chat
    CHAT = 17         #: chat text
    CLOCK = 18        #: the turn clock
    CLOCK_WARN = 19   #: the turn clock in its last 30 s
    CLOCK_LATE = 20   #: the turn clock in its last 10 s
    PROMPT = 21       #: a question or an input line
    ERROR = 22        #: a refusal
    HANDLE_0 = 23     #: chat handles: each handle always the same one of six colours
    HANDLE_1 = 24
    HANDLE_2 = 25
    HANDLE_3 = 26
    HANDLE_4 = 27
    HANDLE_5 = 28


class Colour(NamedTuple):
    """One pen's colour as SGR parameters: ``fg``/``bg`` the ANSI colour numbers 0-7
    (black, red, green, yellow, blue, magenta, cyan, white; ``None``: the terminal's
    default) and ``bright`` (bold, which BBS terminals show as the bright half of the 16
    colours)."""

    fg: int | None = None
    bright: bool = False
    bg: int | None = None


_BLACK, _RED, _GREEN, _YELLOW, _BLUE, _MAGENTA, _CYAN, _WHITE = range(8)

#: The door's palette: every pen's colour (the one place colours are chosen).
PALETTE: dict[Pen, Colour] = {
    Pen.DEFAULT: Colour(),
    Pen.BORDER: Colour(_CYAN),
    Pen.TITLE: Colour(_YELLOW, True),
    Pen.LABEL: Colour(_CYAN),
    Pen.VALUE: Colour(_WHITE, True),
    Pen.KEY: Colour(_YELLOW, True),
    Pen.RED_SUIT: Colour(_RED, True),
    Pen.BLACK_SUIT: Colour(_WHITE, True),
    Pen.CARD: Colour(_WHITE, True),
    Pen.CARD_BACK: Colour(_BLUE, True),
    Pen.TURN: Colour(_YELLOW, True, _BLUE),
    Pen.SELF: Colour(_GREEN, True),
    Pen.FOLDED: Colour(_BLACK, True),
    Pen.POT: Colour(_YELLOW, True),
    Pen.WINNER: Colour(_GREEN, True),
    Pen.SYSTEM: Colour(_WHITE),
    Pen.INFO: Colour(_CYAN),
    Pen.CHAT: Colour(_WHITE, True),
    Pen.CLOCK: Colour(),            # a tick then costs no colour sequence
    Pen.CLOCK_WARN: Colour(_YELLOW, True),
    Pen.CLOCK_LATE: Colour(_RED, True),
    Pen.PROMPT: Colour(_WHITE, True),
    Pen.ERROR: Colour(_RED, True),
    Pen.HANDLE_0: Colour(_GREEN, True),
    Pen.HANDLE_1: Colour(_YELLOW),
    Pen.HANDLE_2: Colour(_MAGENTA, True),
    Pen.HANDLE_3: Colour(_CYAN, True),
    Pen.HANDLE_4: Colour(_BLUE, True),
    Pen.HANDLE_5: Colour(_GREEN),
}
_HANDLE_PENS = (Pen.HANDLE_0, Pen.HANDLE_1, Pen.HANDLE_2, Pen.HANDLE_3, Pen.HANDLE_4,
                Pen.HANDLE_5)


def handle_pen(handle: str) -> Pen:
    """The chat colour of ``handle``: one of six, the same for a handle (whatever its
    case) on every screen and in every session (a CRC-32 of the handle, not Python's
    per-process string hash)."""
    return _HANDLE_PENS[zlib.crc32(handle.casefold().encode()) % len(_HANDLE_PENS)]


def clock_pen(seconds: float | None) -> Pen:
    """The turn clock's pen with ``seconds`` left: yellow in the last 30 s, red in the
    last 10 s (``None``: no clock running)."""
    if seconds is None or seconds > 30:
        return Pen.CLOCK
    return Pen.CLOCK_LATE if seconds <= 10 else Pen.CLOCK_WARN


@lru_cache(maxsize=1024)
def sgr(before: int, after: int) -> str:
    """The shortest SGR sequence that changes the terminal's pen from ``before`` to
    ``after`` (:class:`Pen` values); ``""`` when they draw alike. Bright or a background
    given up, or a colour given back to the terminal's default, needs a reset (``0``)
    and then the rest of ``after``; otherwise only what changes is sent, all in one
    sequence (``ESC [ 1 ; 31 m``)."""
    old, new = PALETTE[Pen(before)], PALETTE[Pen(after)]
    if old == new:
        return ""
    if new == Colour():
        return "\x1b[0m"
    reset = ((old.bright and not new.bright) or (old.bg is not None and new.bg is None)
             or (old.fg is not None and new.fg is None))
    if reset:
        old = Colour()
    params = ["0"] if reset else []
    if new.bright and not old.bright:
        params.append("1")
    if new.fg != old.fg and new.fg is not None:
        params.append(str(30 + new.fg))
    if new.bg != old.bg and new.bg is not None:
        params.append(str(40 + new.bg))
    return "\x1b[" + ";".join(params) + "m"


#: A drawn character -> its pen when nothing else names one: box drawing is a border,
#: a suit glyph red or black (as one ``str.translate`` table from code point to pen).
_GLYPH_PENS = {**{ord(c): chr(Pen.BORDER) for c in _BOX},
               **{ord(c): chr(Pen.RED_SUIT) for c in _RED_SUITS},
               **{ord(c): chr(Pen.BLACK_SUIT) for c in _BLACK_SUITS}}


def card_glyphs(cards: str) -> str:
    """Cards in GV notation, blank-separated (``"10* 5-"``), with their suits as the glyphs
    screens draw (``"10♥ 5♣"``): a line of a screen's log shows them as its look does (the
    classic look: the GV signs again). Anything else in ``cards`` is left as it is."""
    return " ".join(card[:-1] + SUIT_GLYPHS[card[-1]] if len(card) > 1 and card[-1] in SUIT_GLYPHS
                    else card for card in cards.split(" "))


def pen_of(ch: str) -> Pen:
    """The pen a drawn character takes by itself: :attr:`Pen.BORDER` for box drawing,
    the suit's colour for a suit glyph, else :attr:`Pen.DEFAULT`."""
    mark = _GLYPH_PENS.get(ord(ch))
    return Pen(ord(mark)) if mark is not None else Pen.DEFAULT


class Look(NamedTuple):
    """How one session's screens look (hashable: renderers key their caches on it; a
    named tuple, so that hashing and comparing one in those keys runs no Python code).

    - ``charset``: ``"ascii"`` (``+ - |`` borders), ``"cp437"`` or ``"utf-8"`` (box
      drawing), from the session's character set;
    - ``colour``: ``True`` draws with :data:`PALETTE`; ``False`` is monochrome;
    - ``suits``: ``"symbols"`` (♠♥♦♣, CP437 0x03-0x06) or ``"gv"`` (``+ * # -``).

    The classic look (:data:`CLASSIC`) is ASCII, monochrome, GV suits: today's GV
    screens byte for byte.
    """

    charset: Charset = "ascii"
    colour: bool = False
    suits: Suits = "gv"

    @property
    def classic(self) -> bool:
        """True for the monochrome ASCII screens of the GV mock-up."""
        return self.charset == "ascii" and not self.colour and self.suits == "gv"

    @property
    def table(self) -> dict[int, str]:
        """The ``str.translate`` table from drawn glyphs to this look's characters."""
        return _table(self.charset, self.suits)

    def glyphs(self, text: str) -> str:
        """``text`` as drawn (canonical glyphs) in this look's characters: box drawing as
        ``+ - |`` in ASCII, suits as ``+ * # -`` with GV suits or in ASCII."""
        if text.isascii():
            return text
        table = _table(self.charset, self.suits)
        return _translated(text, self.charset, self.suits) if table else text

    def suit(self, gv: str) -> str:
        """The GV suit symbol ``gv`` (``+ * # -``) as this look draws it."""
        return gv if self.suits == "gv" or self.charset == "ascii" else SUIT_GLYPHS[gv]

    def paint(self, text: str, pen: Pen) -> str:
        """``text`` in ``pen``'s colour then back to the default, for text written as a
        stream (the lobby, help pages); ``text`` as is in monochrome."""
        if not self.colour or pen is Pen.DEFAULT or not text:
            return text
        return sgr(Pen.DEFAULT, pen) + text + sgr(pen, Pen.DEFAULT)


@lru_cache(maxsize=8192)
def _translated(text: str, charset: str, suits: str) -> str:
    """``text`` translated by :func:`_table` (cached: the same rows come back on every
    screen)."""
    return text.translate(_table(charset, suits))


@lru_cache(maxsize=8)
def _table(charset: str, suits: str) -> dict[int, str]:
    table: dict[int, str] = {}
    if charset == "ascii":
        table.update(BOX_TO_ASCII)
    if charset == "ascii" or suits == "gv":
        table.update({ord(glyph): gv for glyph, gv in _GV_SUITS.items()})
    return table


#: The classic look: the GV mock-up's monochrome ASCII screens.
CLASSIC = Look()


def detect(encoding: str, colours: int, look: str = "", suits: str = "") -> Look:
    """The look of a session whose output ``encoding`` is ``"cp437"``, ``"utf-8"`` or
    another (ASCII glyphs) and whose terminal kind has ``colours`` colours (blessed's
    ``number_of_colors``, from TTYPE); ``look`` and ``suits`` are the user's choices
    (``""``: none). The choice ``"classic"``, or a monochrome terminal whose user
    did not choose ``"colour"``, gets :data:`CLASSIC`; colour gets box drawing in the session's character set and the
    chosen suits (symbols unless ``"gv"``)."""
    if look == "classic" or (colours < 8 and look != "colour"):
        return CLASSIC
    charset: Charset = "cp437" if encoding == "cp437" else "utf-8" if encoding == "utf-8" else "ascii"
    return Look(charset, True, "gv" if suits == "gv" else "symbols")


class _Attrs(dict[int, str]):
    """A ``str.translate`` table from a drawn character to its pen's mark (one character
    whose code point is the :class:`Pen` value): :func:`pen_of` for every character."""

    def __missing__(self, key: int) -> str:
        return "\x00"


#: ``str.translate`` costs a raised ``LookupError`` (or a ``__missing__`` call) for each
#: character its table lacks, so the tables applied to whole rows list every Latin-1
#: character too: the characters of most rows.
_LATIN1 = range(256)
_ATTRS = _Attrs({**dict.fromkeys(_LATIN1, "\x00"), **_GLYPH_PENS})


@lru_cache(maxsize=8192)
def attrs_of(text: str) -> str:
    """The pen marks of a drawn row: one character per character of ``text`` (its
    :class:`Pen` as a code point), :func:`pen_of` each (cached: rows come back)."""
    return text.translate(_ATTRS)


def overlay(text: str, attrs: str, col: int, width: int, pen: Pen) -> str:
    """``attrs`` (the marks of ``text``) with the cells ``col`` to ``col + width`` (0-based
    cells of ``text``) in ``pen``, except suit glyphs, which keep their colour. A span
    past the end of the row is cut there."""
    if text.isascii() or _one_cell_each(text):   # a cell per character
        start, stop = col, min(col + width, len(text))
    else:
        start, stop = _char_span(text, col, width)
    if start >= stop:
        return attrs
    mark = chr(pen)
    inner = attrs[start:stop]
    if _RED_MARK in inner or _BLACK_MARK in inner:
        inner = "".join(a if a in _SUIT_MARKS else mark for a in inner)
    else:
        inner = mark * (stop - start)
    return attrs[:start] + inner + attrs[stop:]


_RED_MARK, _BLACK_MARK = chr(Pen.RED_SUIT), chr(Pen.BLACK_SUIT)
_SUIT_MARKS = frozenset((_RED_MARK, _BLACK_MARK))


@lru_cache(maxsize=8192)
def _one_cell_each(text: str) -> bool:
    """Whether every character of ``text`` takes one cell: ASCII or a glyph of
    :func:`_one_cell` (cached: a row is overlaid several times as it is styled)."""
    return text.translate(_one_cell()).isascii()


@lru_cache(maxsize=1)
def _one_cell() -> dict[int, str]:
    """A translation of the glyphs the screens draw that take one cell each (box drawing,
    block elements, geometric shapes, the suits) to ``x``: a row that is ASCII after it
    has a cell per character, and :func:`overlay` needs no walk over its characters
    (a new message row, framed by box drawing, is overlaid three times)."""
    from bbspoker.text import char_width

    glyphs = [chr(c) for c in (*range(0x2500, 0x2600), *range(0x2660, 0x2668))]
    table = {c: chr(c) for c in range(128)}      # ASCII as itself, without a LookupError each
    table.update({ord(ch): "x" for ch in glyphs if char_width(ch) == 1})
    return table


@lru_cache(maxsize=8192)
def _char_span(text: str, col: int, width: int) -> tuple[int, int]:
    """The character indexes of ``text`` that draw cells ``col`` to ``col + width``
    (cached: the same rows and spans come back on every screen)."""
    from bbspoker.text import char_width

    start = stop = None
    cell = 0
    for i, ch in enumerate(text):
        if start is None and cell >= col:
            start = i
        if cell >= col + width:
            stop = i
            break
        cell += max(char_width(ch), 0)
    if start is None:
        return len(text), len(text)
    return start, len(text) if stop is None else stop


#: A command's key in brackets, ``[B]`` or ``[.]``: the key (group 1) is drawn in
#: :attr:`Pen.KEY`.
KEY = re.compile(r"\[([^\]\s])\]")


def key_marks(text: str, attrs: str) -> str:
    """``attrs`` (the marks of ``text``) with the key of every ``[K]`` in ``text`` in
    :attr:`Pen.KEY`."""
    mark = chr(Pen.KEY)
    for m in KEY.finditer(text):
        attrs = attrs[:m.start(1)] + mark + attrs[m.end(1):]
    return attrs


def emit(text: str, attrs: str, pen: int) -> tuple[str, int]:
    """``text`` with the SGR sequences that draw each character in its pen (``attrs``:
    one mark per character, as :func:`attrs_of`, blanks as :func:`blanks` marks them),
    starting from the terminal's pen ``pen``; returns the output and the pen it leaves.
    Blanks in the default pen stay in the pen before them when it has no background."""
    out: list[str] = []
    start = 0
    for m in _RUNS.finditer(attrs):
        after = ord(m.group()[0])
        part = text[start:m.end()]
        if not (after == 0 and pen not in BACKGROUND and not part.strip(" ")):
            out.append(sgr(pen, after))
            pen = after
        out.append(part)
        start = m.end()
    return "".join(out), pen


_RUNS = re.compile(r"(.)\1*", re.DOTALL)
#: The pens with a background colour: a blank in them is seen.
BACKGROUND = frozenset(pen for pen, colour in PALETTE.items() if colour.bg is not None)
_BACKGROUND_MARKS = frozenset(map(chr, BACKGROUND))


class _Mask(dict[int, str]):
    """A ``str.translate`` table to :func:`blanks`'s mask: a blank to ``"\x00"``, every
    other character to ``"\xff"``."""

    def __missing__(self, key: int) -> str:
        return "\xff"


_BLANK_MASK = _Mask({**dict.fromkeys(_LATIN1, "\xff"), **dict.fromkeys(_GLYPH_PENS, "\xff"),
                     ord(" "): "\x00"})


@lru_cache(maxsize=8192)
def blanks(row: str, attrs: str) -> str:
    """``attrs`` (the marks of ``row``) with every blank drawn in a pen without a
    background marked as the default pen: a blank looks the same in any such pen, so it
    neither counts as a change nor costs a colour sequence."""
    if " " not in row:
        return attrs
    if len(row) == len(attrs) and attrs.isascii() \
            and not any(mark in attrs for mark in _BACKGROUND_MARKS):
        # Every blank's mark to 0: the marks ANDed with a mask of 0 at each blank.
        mask = row.translate(_BLANK_MASK).encode("latin-1")
        kept = int.from_bytes(attrs.encode("ascii"), "big") & int.from_bytes(mask, "big")
        return kept.to_bytes(len(attrs), "big").decode("ascii")
    return "".join("\x00" if ch == " " and a not in _BACKGROUND_MARKS else a
                   for ch, a in zip(row, attrs))
