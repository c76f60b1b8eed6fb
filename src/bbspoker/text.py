"""The allowlist for user text that reaches another user's screen, and display widths.

Chat lines, handles and X-messages are typed by other people, who may be
hostile, and are drawn on everybody's 80x24 screen.  Before such text is
placed anywhere it goes through :func:`clean_text`, which keeps only
characters that a terminal draws in a known number of cells:

* removed: C0 controls (including CR, LF, TAB), DEL, C1 controls, ESC, the bidi
  controls U+202A-U+202E and U+2066-U+2069, the zero-width characters
  U+200B-U+200F and U+2060-U+206F, line/paragraph separators, and every other
  character of Unicode category Cc, Cf, Cs, Co, Cn, Zl or Zp or with
  ``wcwidth < 0``;
* removed as well: zero-width characters that are not combining marks
  (variation selectors, Hangul fillers, zero-width spacing marks).  Terminals
  disagree about their width (some draw VS16 emoji two cells wide, pyte stops
  drawing at them), so they could push a line past its region.  A combining
  mark is kept only after a base character that was kept.

Widths are counted per code point with :func:`wcwidth.wcwidth` (0 for a
combining mark, 1 or 2 otherwise), which is how xterm, pyte and the classic
BBS terminals advance the cursor.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from wcwidth import wcwidth

__all__ = ["clean_text", "display_width", "fit", "char_width", "wrap"]

_BANNED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


@lru_cache(maxsize=4096)
def char_width(ch: str) -> int:
    """Cells one code point takes on screen after cleaning: 1 or 2, 0 for a combining mark.

    Returns -1 for a character :func:`clean_text` removes (controls, format
    characters, unassigned code points, zero-width non-combining characters).
    """
    if unicodedata.category(ch) in _BANNED_CATEGORIES:
        return -1
    width = wcwidth(ch)
    if width < 0 or (width == 0 and not unicodedata.combining(ch)):
        return -1
    return width


def clean_text(s: str, max_width: int | None = None) -> str:
    """Return ``s`` with only safely drawable characters, at most ``max_width`` cells wide.

    Implements the allowlist described in the module docstring; a
    line never contains CR, LF, ESC or any other control afterwards, so it
    cannot move the cursor, change colours or reorder text.  When
    ``max_width`` is given (cells, >= 0) the text is cut at the last whole
    character that fits: a two-cell character that would straddle the limit
    is dropped, combining marks stay with their base character.  Never raises
    on any ``str`` input.
    """
    if s.isascii() and s.isprintable():  # the common case: one cell per character
        return s if max_width is None else s[:max_width]
    out: list[str] = []
    used = 0
    for ch in s:
        width = char_width(ch)
        if width < 0 or (width == 0 and not out):
            continue
        if max_width is not None and used + width > max_width:
            break
        out.append(ch)
        used += width
    return "".join(out)


def display_width(s: str) -> int:
    """Cells ``s`` takes on screen, counting only the characters :func:`clean_text` keeps."""
    if s.isascii() and s.isprintable():
        return len(s)
    return sum(w for w in map(char_width, s) if w > 0)


def fit(s: str, width: int) -> str:
    """``s`` cleaned, truncated and padded with spaces to exactly ``width`` cells (``width`` >= 0)."""
    text = clean_text(s, width)
    return text + " " * (width - display_width(text))


def wrap(s: str, width: int) -> list[str]:
    """``s`` cleaned (:func:`clean_text`) and broken into lines of at most ``width`` cells
    (>= 1) at spaces, as many words on a line as fit: a word is never broken unless it is
    wider than a line by itself, then it is cut where it must be (never inside a wide
    character). The spaces at a break are dropped; an empty or blank ``s`` gives ``[]``."""
    lines: list[str] = []
    line, used = "", 0
    for word in clean_text(s.replace("\n", " ")).split(" "):
        if not word:
            continue
        cells = display_width(word)
        while cells > width:                # a word wider than a line: cut it
            if line:
                lines.append(line)
                line, used = "", 0
            head = clean_text(word, width) or word[0]
            lines.append(head)
            word = word[len(head):]
            cells = display_width(word)
        if not word:
            continue
        if not line:
            line, used = word, cells
        elif used + 1 + cells <= width:
            line, used = f"{line} {word}", used + 1 + cells
        else:
            lines.append(line)
            line, used = word, cells
    if line:
        lines.append(line)
    return lines
