"""A row screen's view as a caller sees it in each of the door's three terminal profiles:
rendered by a :class:`~bbspoker.door.screens.rows.RowRenderer` in the profile's look,
encoded as the session sends it (a CP437 session's suit glyphs as the bytes 0x03-0x06)
and fed into a pyte 80x24 screen, which keeps each cell's character and colour."""

from __future__ import annotations

import re

import pyte

from bbspoker.door.i18n import ENGLISH
from bbspoker.door.look import CLASSIC, Look
from bbspoker.door.screens.rows import RowRenderer, Rows
from bbspoker.transport.session import _CP437_C1, STAND_IN

__all__ = ["PROFILES", "COLOUR", "SGR", "shown", "cells", "cell", "sgr_of", "Door"]

#: Profile name -> (the look, the session's character set).
PROFILES: dict[str, tuple[Look, str]] = {
    "cp437": (Look("cp437", True, "symbols"), "cp437"),
    "utf-8": (Look("utf-8", True, "symbols"), "utf-8"),
    "classic": (CLASSIC, "utf-8"),
}
#: The profiles in colour.
COLOUR = ("cp437", "utf-8")
#: What a CP437 terminal shows for the suit bytes (pyte decodes them as controls).
_CP437_SUITS = {3: "\u2665", 4: "\u2666", 5: "\u2663", 6: "\u2660"}
#: An SGR (colour) sequence in the bytes sent.
SGR = re.compile(rb"\x1b\[[0-9;]*m")


class _Ledger:
    """The CUBES a screen's status line reads: 1,234 for everyone."""

    @staticmethod
    def balance(handle: str) -> int:
        return 1234


class Door:
    """What a table screen reads of the door's context: the ledger's balances."""

    ledger = _Ledger


def shown(view: Rows, profile: str) -> tuple[pyte.Screen, bytes]:
    """``view`` drawn afresh in ``profile`` (a key of :data:`PROFILES`): the pyte screen
    that shows it and the bytes sent."""
    from tests.door.test_screen import term
    look, encoding = PROFILES[profile]
    text = RowRenderer(term(), encoding, ENGLISH, look).render(view)
    if encoding == "cp437":
        data = text.translate(_CP437_C1).encode("cp437", errors=STAND_IN)
        text = data.decode("cp437").translate(_CP437_SUITS)
    else:
        data = text.encode("utf-8")
    screen = pyte.Screen(80, 24)
    pyte.Stream(screen).feed(text)
    return screen, data


def cells(screen: pyte.Screen, row: int, text: str, nth: int = 0) -> list[pyte.screens.Char]:
    """The cells of the ``nth`` occurrence of ``text`` on ``row``, but its blanks without a
    background (they look alike in any pen, and the renderer leaves them in the pen before
    them); AssertionError when it is not there."""
    line = screen.display[row]
    at = -1
    for _ in range(nth + 1):
        at = line.find(text, at + 1)
        assert at >= 0, f"{text!r} not on row {row}: {line!r}"
    return [c for c in (screen.buffer[row][x] for x in range(at, at + len(text)))
            if c.data != " " or c.bg != "default"]


def cell(screen: pyte.Screen, row: int, text: str) -> pyte.screens.Char:
    """The first cell of ``text`` on ``row``."""
    return cells(screen, row, text)[0]


def sgr_of(data: bytes) -> set[bytes]:
    """Every SGR (colour) sequence in ``data``."""
    return set(SGR.findall(data))
