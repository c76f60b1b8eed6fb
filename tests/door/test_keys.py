"""Keys a telnet client sends, and the bounded line editor for chat and prompts."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bbspoker.door.keys import BACKSPACE, ENTER, ESC, Edit, Key, KeyDecoder, KeyKind, LineEditor


def char(c):
    return Key(KeyKind.CHAR, c)


def keys(*feeds):
    decoder = KeyDecoder()
    return [k for data in feeds for k in decoder.feed(data)]


@pytest.mark.parametrize("enter", ["\r\n", "\r\x00", "\r", "\n"])
def test_every_enter_convention_is_one_enter(enter):
    assert keys(f"a{enter}b{enter}") == [char("a"), ENTER, char("b"), ENTER]


def test_cr_and_lf_split_across_reads_is_one_enter():
    assert keys("a\r", "\nb") == [char("a"), ENTER, char("b")]
    assert keys("\r", "\x00", "\r", "\r\n") == [ENTER, ENTER, ENTER]


@pytest.mark.parametrize("bs", ["\x08", "\x7f"])
def test_both_backspace_conventions(bs):
    assert keys(f"x{bs}") == [char("x"), BACKSPACE]


@pytest.mark.parametrize(
    "seq", ["\x1b[A", "\x1b[D", "\x1bOP", "\x1bOA", "\x1b[1;5C", "\x1b[15~", "\x1b[200~", "\x1b[?25h"]
)
def test_arrow_and_function_keys_type_nothing(seq):
    assert keys(f"a{seq}b") == [char("a"), char("b")]


def test_a_sequence_split_after_the_escape_types_nothing():
    assert keys("a\x1b", "[A", "b") == [char("a"), ESC, char("b")]
    assert keys("\x1b", "OP") == [ESC]


def test_lone_escape_is_esc_also_before_other_keys():
    assert keys("\x1b") == [ESC]
    assert keys("\x1bx\x1b\x1b") == [ESC, char("x"), ESC, ESC]


def test_control_keys_and_tab_do_nothing():
    assert keys("\x03\x04\t\x00\x07\x1a\x9b\u200b\u202e.") == [char(".")]


def test_broken_and_endless_sequences_end_and_decoding_goes_on():
    assert keys("\x1b[12\r") == [ENTER]
    assert keys("\x1b[" + "1" * 31 + "A", "x") == [char("x")]
    decoder = KeyDecoder()
    decoder.feed("\x1b[" + ";" * 100_000)
    assert decoder.feed("\x1b[Bz") == [char("z")]


def test_unicode_characters_are_typed():
    assert keys("é漢😀") == [char("é"), char("漢"), char("😀")]


@given(st.text(alphabet=st.characters(exclude_characters="\x1b")), st.lists(st.integers(0, 50)))
def test_how_the_input_is_split_does_not_change_the_keys(text, cuts):
    pieces, last = [], 0
    for cut in sorted(cuts):
        pieces.append(text[last:cut])
        last = max(last, cut)
    pieces.append(text[last:])
    assert keys(*pieces) == keys(text)
    assert all(k in (ENTER, BACKSPACE) or (k.kind is KeyKind.CHAR and len(k.char) == 1) for k in keys(text))


def type_(editor, text):
    return [editor.press(k) for k in KeyDecoder().feed(text)]


def test_line_editor_enter_returns_the_line_and_backspace_edits():
    editor = LineEditor(60)
    type_(editor, "helo\x7flo\x08o wrld")
    assert editor.text == "hello wrld"
    assert editor.press(ENTER) is Edit.DONE and editor.text == "hello wrld"


def test_backspace_removes_a_whole_letter_with_its_accent_or_an_emoji():
    editor = LineEditor(60)
    type_(editor, "cafe\u0301😀")
    type_(editor, "\x7f")
    assert editor.text == "cafe\u0301"
    type_(editor, "\x7f")
    assert editor.text == "caf"
    assert type_(LineEditor(5), "\x7f") == [Edit.TYPING]


def test_escape_cancels_and_empties_the_line():
    editor = LineEditor(60)
    assert type_(editor, "oops\x1b") == [Edit.TYPING] * 4 + [Edit.CANCELLED]
    assert editor.text == ""


def test_input_past_the_bound_is_refused_not_grown():
    editor = LineEditor(5)
    assert type_(editor, "abcdefgh") == [Edit.TYPING] * 5 + [Edit.REFUSED] * 3
    assert editor.text == "abcde"
    wide = LineEditor(60, max_width=5)
    type_(wide, "漢字漢x")
    assert wide.text == "漢字x"


def test_a_lone_combining_mark_is_refused():
    editor = LineEditor(10)
    assert editor.press(char("\u0301")) is Edit.REFUSED and editor.text == ""


def test_line_editor_needs_room_for_one_character():
    with pytest.raises(ValueError, match="max_chars"):
        LineEditor(0)
