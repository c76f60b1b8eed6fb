#!/usr/bin/env python3
"""Writes the door's title screen, ``src/bbspoker/door/art/title.ans``: an 80x24 ANSI
drawing in CP437 with a SAUCE record (:func:`bbspoker.halloffame.sauce`), shown by
:mod:`bbspoker.door.title` when a connection opens.

The drawing is made here cell by cell (:class:`Canvas`), so that it can be changed and
made again: ``PYTHONPATH=src python scripts/art/title.py`` rewrites the file (the same
bytes every time: the SAUCE date is fixed). It has no words of any language, only
names: it is shown before the user's language is known. Its row
:data:`bbspoker.door.title.PROMPT_ROW` stays blank (the door writes ``[Press any key]``
there) and so does its last row (no terminal scrolls).
"""

from __future__ import annotations

import sys
from pathlib import Path

from bbspoker.door.halloffame import sauce
from bbspoker.door.title import COLS, PROMPT_ROW, ROWS, Cell, draw

OUT = Path(__file__).resolve().parents[2] / "src" / "bbspoker" / "door" / "art" / "title.ans"
#: The SAUCE date: 2025-01-01 at noon UTC (the same day in every time zone's local date
#: but the farthest ones; the file must not change with the day it is made).
WHEN = 1735732800.0
TITLE = "PoKeR - Global Village BBS"

BLACK, RED, GREEN, YELLOW, BLUE, MAGENTA, CYAN, WHITE = range(8)

#: "PoKeR" in block letters (the "ANSI Shadow" style: full blocks, box-drawing shadow),
#: 6 rows each; the lower-case o and e are a row shorter.
LETTERS = {
    "P": ["██████╗ ",
          "██╔══██╗",
          "██████╔╝",
          "██╔═══╝ ",
          "██║     ",
          "╚═╝     "],
    "o": ["         ",
          " ██████╗ ",
          "██╔═══██╗",
          "██║   ██║",
          "╚██████╔╝",
          " ╚═════╝ "],
    "K": ["██╗  ██╗",
          "██║ ██╔╝",
          "█████╔╝ ",
          "██╔═██╗ ",
          "██║  ██╗",
          "╚═╝  ╚═╝"],
    "e": ["         ",
          " ██████╗ ",
          "████████║",
          "██╔═════╝",
          "╚██████╗ ",
          " ╚═════╝ "],
    "R": ["██████╗ ",
          "██╔══██╗",
          "██████╔╝",
          "██╔══██╗",
          "██║  ██║",
          "╚═╝  ╚═╝"],
}
#: The letters' colour row by row, top to bottom: gold into red.
LETTER_ROWS = [(WHITE, True), (YELLOW, True), (YELLOW, True), (YELLOW, False), (RED, True),
               (RED, False)]
SUITS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


class Canvas:
    """80x24 cells, blank on the terminal's default colours."""

    def __init__(self) -> None:
        self.cells = [[Cell() for _ in range(COLS)] for _ in range(ROWS)]

    def put(self, y: int, x: int, text: str, fg: int | None = None, bright: bool = False,
            bg: int | None = None, *, skip_blank: bool = False) -> None:
        """``text`` from row ``y``, column ``x`` in these colours (``skip_blank``: its
        blanks leave the cells below them as they are)."""
        for i, ch in enumerate(text):
            if skip_blank and ch == " ":
                continue
            self.cells[y][x + i] = Cell(ch, fg, bright, bg)

    def recolour(self, y: int, x: int, width: int, fg: int | None = None,
                 bright: bool = False, bg: int | None = None) -> None:
        for i in range(width):
            self.cells[y][x + i] = Cell(self.cells[y][x + i].char, fg, bright, bg)


def frame(c: Canvas) -> None:
    """A double-line frame over rows 0-22, the signature on its bottom edge."""
    last = ROWS - 2
    c.put(0, 0, "╔" + "═" * (COLS - 2) + "╗", BLUE, True)
    for y in range(1, last):
        c.put(y, 0, "║", BLUE, True)
        c.put(y, COLS - 1, "║", BLUE, True)
    c.put(last, 0, "╚" + "═" * (COLS - 2) + "╝", BLUE, True)
    tag = "╣ bbspoker ╠"
    c.put(last, COLS - 4 - len(tag), tag, BLUE, True)
    c.recolour(last, COLS - 2 - len(tag), len(tag) - 4, CYAN, True)
    # The frame's corners shaded inwards.
    for y, x, fade in ((1, 1, "▓▒░"), (1, COLS - 4, "░▒▓"), (last - 1, 1, "▓▒░"),
                       (last - 1, COLS - 4, "░▒▓")):
        c.put(y, x, fade, BLUE)


def logo(c: Canvas, top: int) -> None:
    """"PoKeR" in block letters, centred, from row ``top``."""
    word = "PoKeR"
    width = sum(len(LETTERS[ch][0]) for ch in word) + len(word) - 1
    x = (COLS - width) // 2
    for ch in word:
        glyph = LETTERS[ch]
        for dy, line in enumerate(glyph):
            for dx, mark in enumerate(line):
                if mark == " ":
                    continue
                if mark == "█":
                    fg, bright = LETTER_ROWS[dy]
                    c.put(top + dy, x + dx, mark, fg, bright)
                else:
                    c.put(top + dy, x + dx, mark, BLACK, True)
        x += len(glyph[0]) + 1


def card(c: Canvas, y: int, x: int, rank: str, suit: str) -> None:
    """A face-up card, 9x7, from row ``y``, column ``x``, with a shaded shadow."""
    glyph = SUITS[suit]
    pip = RED if suit in "HD" else BLACK
    lines = ["┌───────┐", f"│{rank:<7}│", f"│{glyph}      │", f"│   {glyph}   │",
             f"│      {glyph}│", f"│{rank:>7}│", "└───────┘"]
    for dy, line in enumerate(lines):
        c.put(y + dy, x, line, BLACK, False, WHITE)
        for dx, ch in enumerate(line):
            if ch == glyph:
                c.put(y + dy, x + dx, ch, pip, False, WHITE)
            elif ch.isalnum():
                c.put(y + dy, x + dx, ch, pip, False, WHITE)
        if dy < 6:
            c.put(y + dy + 1, x + 9, "░", BLACK, True)
    c.put(y + 7, x + 1, "░" * 9, BLACK, True)


def card_back(c: Canvas, y: int, x: int) -> None:
    """A face-down card, 7x6, from row ``y``, column ``x``."""
    c.put(y, x, "┌─────┐", WHITE, True, BLUE)
    for dy in range(1, 5):
        c.put(y + dy, x, "│", WHITE, True, BLUE)
        c.put(y + dy, x + 1, "▒░▒░▒" if dy % 2 else "░▒░▒░", CYAN, False, BLUE)
        c.put(y + dy, x + 6, "│", WHITE, True, BLUE)
    c.put(y + 5, x, "└─────┘", WHITE, True, BLUE)


def chips(c: Canvas, bottom: int, x: int, colours: list[int]) -> None:
    """A stack of chips seen from the side, one a row, the first at the bottom, from
    column ``x``: each a bar with the white marks of its edge."""
    for i, colour in enumerate(colours):
        y = bottom - i
        c.put(y, x, "▀▀▀▀▀▀", colour, True)
        c.recolour(y, x + 1, 1, WHITE, True)
        c.recolour(y, x + 4, 1, WHITE, True)


def banner(c: Canvas, y: int, text: str) -> None:
    """``text`` on a blue bar faded in and out with shading, ruled to the frame."""
    inner = f"   {text}   "
    width = len(inner) + 6
    x = (COLS - width) // 2
    c.put(y, 3, "─" * (x - 4), CYAN)
    c.put(y, x, "░▒▓", BLUE, True)
    c.put(y, x + 3, inner, WHITE, True, BLUE)
    c.put(y, x + 3 + len(inner), "▓▒░", BLUE, True)
    c.put(y, x + width + 1, "─" * (COLS - 4 - x - width), CYAN)


def picture() -> Canvas:
    c = Canvas()
    frame(c)
    logo(c, 2)
    card_back(c, 2, 4)
    card_back(c, 3, 8)
    chips(c, 7, 64, [RED, RED, RED, RED, RED])
    chips(c, 7, 71, [BLUE, BLUE, GREEN, GREEN])
    banner(c, 9, "Global Village BBS")
    hand = [("A", "S"), ("A", "H"), ("A", "D"), ("A", "C"), ("K", "H")]
    x = (COLS - (len(hand) * 11 - 2)) // 2
    for i, (rank, suit) in enumerate(hand):
        card(c, 11, x + 11 * i, rank, suit)
    assert all(cell == Cell() for cell in c.cells[PROMPT_ROW][4:COLS - 4])
    assert all(cell == Cell() for cell in c.cells[ROWS - 1])
    return c


def build() -> bytes:
    """The file's bytes: the drawing as CP437 ANSI, then the SAUCE record."""
    text = draw(picture().cells)
    # The suit glyphs are CP437's bytes 0x03-0x06 (the codec cannot encode them).
    content = (text.replace("♥", "\x03").replace("♦", "\x04").replace("♣", "\x05")
               .replace("♠", "\x06").encode("cp437"))
    assert not any(0x80 <= b < 0xA0 for b in content), "a byte a session cannot send"
    return content + sauce(TITLE, ROWS, len(content), WHEN)


def main() -> int:
    data = build()
    OUT.write_bytes(data)
    print(f"wrote {OUT} ({len(data)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
