"""The look's pen marks: overlays on drawn rows."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bbspoker.door import look
from bbspoker.door.look import Pen, attrs_of, overlay


def walked(text: str, attrs: str, col: int, width: int, pen: Pen) -> str:
    """:func:`overlay` with its cells found by walking over every character."""
    start, stop = look._char_span.__wrapped__(text, col, width)
    if start >= stop:
        return attrs
    return attrs[:start] + "".join(a if a in look._SUIT_MARKS else chr(pen)
                                   for a in attrs[start:stop]) + attrs[stop:]


def test_a_row_framed_in_box_drawing_is_overlaid_without_a_walk_over_its_characters(
        monkeypatch):
    """A new message row (its text between the area's double lines) is overlaid three
    times when it is styled: box drawing and suits take one cell each, so its cells are
    its characters, as in an ASCII row."""
    row = "║  [SYSTEM] bert has raised the bet (25), pot is 75 ♠.  ║"
    expected = walked(row, attrs_of(row), 3, 40, Pen.SYSTEM)

    def no_walk(*args):
        raise AssertionError("walked over the row's characters")

    monkeypatch.setattr(look, "_char_span", no_walk)
    assert overlay(row, attrs_of(row), 3, 40, Pen.SYSTEM) == expected


@given(st.text(st.sampled_from("ab [] ║═╔╗─│┼♠♥♦♣漢字é\u0301"), max_size=30),
       st.integers(0, 35), st.integers(0, 35), st.sampled_from(list(Pen)))
def test_overlay_marks_the_cells_a_walk_over_the_characters_finds(text, col, width, pen):
    assert overlay(text, attrs_of(text), col, width, pen) == walked(
        text, attrs_of(text), col, width, pen)
