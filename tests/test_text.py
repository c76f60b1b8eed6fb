"""The allowlist for user text on other people's screens (issue 5) and display widths."""

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bbspoker.text import clean_text, display_width, fit, wrap

C0 = [chr(c) for c in range(0x00, 0x20)]
C1 = [chr(c) for c in range(0x80, 0xA0)]
BIDI = [chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))]
ZERO_WIDTH = [chr(c) for c in (*range(0x200B, 0x2010), *range(0x2060, 0x2070))]
BANNED = [*C0, "\x7f", *C1, *BIDI, *ZERO_WIDTH, "\ufeff", "\u2028", "\u2029", "\ufe0f", "\ud800", "\ue000", "\U000e0001"]


@pytest.mark.parametrize("ch", BANNED, ids=[f"U+{ord(c):04X}" for c in BANNED])
def test_every_banned_character_is_removed(ch):
    assert clean_text(f"a{ch}b{ch}") == "ab"


def test_escape_sequences_lose_their_escape_and_cannot_act():
    assert clean_text("\x1b[2J\x1b]0;title\x07\x9b31mred\r\nnext\tline") == "[2J]0;title31mrednextline"


def test_letters_accents_wide_characters_and_emoji_are_kept():
    text = "Zoë Ångström e\u0301 漢字 😀 ½"
    assert clean_text(text) == text
    assert display_width(text) == 3 + 1 + 8 + 1 + 1 + 1 + 4 + 1 + 2 + 1 + 1  # CJK, emoji: 2 cells each


def test_combining_mark_without_a_base_is_dropped():
    assert clean_text("\u0301\u0301abc") == "abc"
    assert clean_text("\x1b\u0301x") == "x"


def test_truncation_counts_cells_and_never_splits_a_wide_character():
    assert clean_text("漢字漢字", 5) == "漢字"
    assert clean_text("ab漢", 3) == "ab"
    assert clean_text("e\u0301e\u0301e\u0301", 2) == "e\u0301e\u0301"
    assert clean_text("hello", 0) == ""


def test_fit_pads_and_truncates_to_an_exact_width():
    assert fit("ab", 5) == "ab   "
    assert fit("漢字漢", 5) == "漢字 "
    assert fit("\x1b[31m", 3) == "[31"


@given(st.text(), st.integers(0, 120))
def test_any_text_fits_exactly_and_only_keeps_drawable_characters(s, width):
    out = fit(s, width)
    assert display_width(out) == width
    assert all(unicodedata.category(c) not in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp") for c in out)
    assert not any(c in BANNED for c in out)
    assert clean_text(out) == out  # cleaning is idempotent


def test_wrap_breaks_at_spaces_and_only_cuts_a_word_wider_than_a_line():
    text = ("No more new accounts from your address for now. Please try again later, or "
            "log in with the account you have.")
    lines = wrap(text, 40)
    assert all(display_width(line) <= 40 for line in lines)
    assert " ".join(lines) == text                      # every word whole, in order
    assert wrap("Ａｂｃｄｅ xy", 4) == ["Ａｂ", "ｃｄ", "ｅ", "xy"]   # never half a wide one
    assert wrap("  \r\n ", 10) == []


@given(st.text(), st.integers(min_value=2, max_value=80))
def test_wrapped_lines_fit_and_keep_every_drawable_character(s, width):
    lines = wrap(s, width)
    assert all(0 < display_width(line) <= width for line in lines)
    assert "".join(lines).replace(" ", "") == clean_text(s.replace("\n", " ")).replace(" ", "")
