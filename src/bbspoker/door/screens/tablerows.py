"""What the row screens of the table-stakes kinds (Hold'em's and stud's) draw alike, with
the colours they name while drawing (:mod:`bbspoker.door.look`): a card in GV notation
as the canonical glyphs, the game information's labelled lines and the command area's
question or refusal. The callers give a ``span(row, col, width, pen)`` function
(:meth:`~bbspoker.door.screens.rows.RowScreen.span`, or one that collects them) and
the row the region starts on; columns are the 0-based cells of the 80-cell rows that
:func:`~bbspoker.door.screens.rows.halves` draws."""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Sequence

from bbspoker.door.i18n import Translator
from bbspoker.door.look import SUIT_GLYPHS, Pen
from bbspoker.door.screens.rows import (LABEL_WIDTH, LEAVE_KEY, LEFT, RIGHT, TEXT, command_area,
                                        labelled)

__all__ = ["Span", "InfoLine", "card", "info_rows", "command_rows", "no_span", "INFO_COL",
           "COMMAND_COL"]

#: ``span(row, col, width, pen)``: cells ``col`` to ``col + width`` of ``row`` (0-based)
#: drawn in ``pen``.
Span = Callable[[int, int, int, Pen], None]
#: A line of the game information: its label (a ``(context, word)`` pair; ``None`` for a
#: text alone), its value (or the text) and the value's pen.
InfoLine = tuple[tuple[str, str] | None, str, Pen]
#: The first cell of the game information's text (after ``│`` and a blank), and of the
#: command area's.
INFO_COL = LEFT + 3
COMMAND_COL = 2


def no_span(row: int, col: int, width: int, pen: Pen) -> None:
    """A ``span`` that draws nothing (a caller who wants the text alone)."""


def card(notation: str) -> str:
    """A card in GV notation (``"A+"``, ``"10#"``) with its suit as the canonical glyph
    (``"A♠"``, ``"10♦"``): the colour looks show the suit symbol in its colour, the
    classic look the notation again (:meth:`~bbspoker.door.look.Look.glyphs`). Anything
    else (``"??"``, ``""``) as it is."""
    suit = notation[-1:]
    return notation[:-1] + SUIT_GLYPHS[suit] if suit in SUIT_GLYPHS and len(notation) > 1 \
        else notation


def info_rows(t: Translator, lines: Sequence[InfoLine], span: Span, top: int) -> list[str]:
    """The game information's rows (the right half of the rows from ``top``) in ``t``'s
    language: a labelled line as :func:`~bbspoker.door.screens.rows.labelled` draws it,
    the label in :attr:`Pen.LABEL` and the value in its pen; a text alone in its pen
    (:attr:`Pen.DEFAULT`: none)."""
    rows = []
    for n, (label, value, pen) in enumerate(lines):
        if label is None:
            rows.append(value)
            if pen is not Pen.DEFAULT:
                span(top + n, INFO_COL, RIGHT - 1, pen)
            continue
        rows.append(labelled(t, label, value))
        span(top + n, INFO_COL, LABEL_WIDTH, Pen.LABEL)
        if value:
            span(top + n, INFO_COL + LABEL_WIDTH + 1, RIGHT - 2 - LABEL_WIDTH, pen)
    return rows


def command_rows(t: Translator, lines: list[str], prompt: str | None, refusal: bool,
                 span: Span, top: int, exit_key: str = LEAVE_KEY) -> list[str]:
    """The four rows of the command area from ``top``
    (:func:`~bbspoker.door.screens.rows.command_area`: ``lines``, the chat key and
    ``exit_key``, ``prompt``), the prompt's rows in :attr:`Pen.ERROR` when it is a ``refusal``, else in
    :attr:`Pen.PROMPT` (a question)."""
    rows = command_area(t, lines, prompt, exit_key)
    tail = textwrap.wrap(prompt, TEXT)[:3] if prompt else []
    for at in range(len(rows) - len(tail), -1, -1) if tail else ():
        if rows[at:at + len(tail)] == tail:
            for n in range(len(tail)):
                span(top + at + n, COMMAND_COL, TEXT, Pen.ERROR if refusal else Pen.PROMPT)
            break
    return rows
