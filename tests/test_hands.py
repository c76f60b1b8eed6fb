"""Chapter 3 hand ranking: categories, every tie-break rule, describe(), bad input."""

from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, strategies as st

from bbspoker.cards import DECK, format_cards, parse_cards
from bbspoker.hands import Category, HandValue, evaluate, strength


def ev(text: str) -> HandValue:
    return evaluate(parse_cards(text))


def test_category_counts_over_all_658008_hands():
    counts = Counter(evaluate(hand).category for hand in combinations(DECK, 5))
    assert counts == {
        Category.ROYAL_FLUSH: 4,
        Category.STRAIGHT_FLUSH: 24,
        Category.FOUR_OF_A_KIND: 360,
        Category.FULL_HOUSE: 2_160,
        Category.FLUSH: 980,
        Category.STRAIGHT: 7_140,
        Category.THREE_OF_A_KIND: 23_040,
        Category.TWO_PAIR: 51_840,
        Category.ONE_PAIR: 322_560,
        Category.HIGH_CARD: 249_900,
    }


def test_categories_rank_from_royal_flush_down_to_high_card():
    best_first = [
        ev("10* J* Q* K* A*"),
        ev("5- 6- 7- 8- 9-"),
        ev("5- 5# 5* 5+ 6-"),
        ev("5- 5# 5* 6+ 6-"),
        ev("5+ 6+ 7+ 8+ 10+"),
        ev("5- 6# 7* 8+ 9-"),
        ev("5- 5# 5* 6+ 7-"),
        ev("5- 5# 6* 6+ 7-"),
        ev("5- 5# 6* 7+ 8-"),
        ev("5- 6# 7* 8+ 10-"),
    ]
    assert [v.category for v in best_first] == list(Category)
    assert best_first == sorted(best_first, reverse=True)
    assert all(a > b for a, b in zip(best_first, best_first[1:]))


def test_full_house_beats_flush():
    assert ev("5- 5# 5* 6+ 6-") > ev("9+ J+ Q+ K+ A+")


def test_ace_eight_straight_is_the_lowest_straight():
    wheel = ev("A+ 5* 6* 7* 8*")
    assert wheel.category is Category.STRAIGHT
    assert wheel < ev("5- 6- 7# 8- 9-")
    assert ev("A+ 5+ 6+ 7+ 8+").category is Category.STRAIGHT_FLUSH
    assert ev("A+ 5+ 6+ 7+ 8+") < ev("5- 6- 7- 8- 9-")


def test_ace_king_queen_jack_ten_unsuited_is_the_highest_straight():
    assert ev("10- J- Q- K- A+").category is Category.STRAIGHT
    assert ev("10- J- Q- K- A+") > ev("9+ 10+ J+ Q+ K*")


# One test per tie-break rule of chapter 3 (issue 2), hand-written cards.

def test_royal_flush_higher_suit_wins():
    assert ev("10+ J+ Q+ K+ A+") > ev("10* J* Q* K* A*") > ev("10# J# Q# K# A#") > ev("10- J- Q- K- A-")


def test_straight_flush_higher_top_card_then_suit():
    assert ev("6- 7- 8- 9- 10-") > ev("5+ 6+ 7+ 8+ 9+")
    assert ev("5* 6* 7* 8* 9*") > ev("5# 6# 7# 8# 9#")


def test_four_of_a_kind_higher_quad_rank_only():
    assert ev("6- 6# 6* 6+ 5-") > ev("5- 5# 5* 5+ A+")
    assert ev("6- 6# 6* 6+ 5-") == ev("6- 6# 6* 6+ A+")  # the odd card never counts


def test_full_house_higher_triple_rank_only():
    assert ev("7- 7# 7* 5- 5#") > ev("6- 6# 6* A- A#")
    assert ev("7- 7# 7* 5- 5#") == ev("7- 7# 7+ A- A#")  # the pair never counts


def test_flush_ranks_high_to_low_then_suit_of_highest_card():
    assert ev("A# K# 9# 7# 6#") > ev("A- K- 9- 7- 5-")  # the lowest card decides
    assert ev("A- Q- 9- 7- 5-") > ev("K+ Q+ J+ 9+ 8+")  # the highest card decides first
    assert ev("A+ K+ 9+ 7+ 5+") > ev("A* K* 9* 7* 5*")  # all ranks equal: the suit


def test_straight_higher_top_card_then_suit_of_top_card():
    assert ev("6- 7- 8- 9- 10#") > ev("5+ 6+ 7+ 8+ 9*")
    # Same top card: only its suit counts, not the suits of the lower cards.
    assert ev("6- 7- 8- 9- 10+") > ev("6+ 7+ 8+ 9+ 10*")
    # A-8-7-6-5: the top card is the 8, so its suit decides, not the ace's.
    assert ev("A- 5- 6- 7- 8*") > ev("A+ 5+ 6+ 7+ 8#")


def test_three_of_a_kind_higher_triple_rank_only():
    assert ev("9- 9# 9* 5- 6-") > ev("8- 8# 8* A+ K+")
    assert ev("9- 9# 9* 5- 6-") == ev("9- 9# 9+ A+ K+")


def test_two_pairs_high_pair_low_pair_odd_card_then_suit_in_higher_pair():
    assert ev("K- K# 5- 5# 6-") > ev("Q- Q# J- J# A+")  # higher pair
    assert ev("K- K# 9- 9# 5-") > ev("K* K+ 8- 8# A+")  # lower pair
    assert ev("K- K# 9- 9# A-") > ev("K* K+ 9* 9+ Q+")  # odd card
    # All equal: the hand holding the higher suit in its higher pair wins,
    # whatever the suits of its lower pair and odd card.
    assert ev("K+ K- 9- 9# A-") > ev("K* K# 9+ 9* A#")


def test_one_pair_higher_pair_then_only_highest_odd_card_then_its_suit():
    assert ev("Q- Q# 5- 6- 7-") > ev("J- J# A- K- 9-")  # higher pair
    assert ev("Q- Q# A- 5- 6-") > ev("Q* Q+ K+ J+ 10+")  # highest odd card
    # Second and third odd cards never count: the suit of the ace decides.
    assert ev("Q- Q# A+ 6- 5-") > ev("Q+ Q* A* K+ J+")
    assert ev("Q- Q# A+ 6- 5-") == ev("Q- Q# A+ K# J#")


def test_high_card_as_flush():
    assert ev("A- K# 9- 7- 6-") > ev("A+ K+ 9+ 7* 5+")  # the lowest card decides
    assert ev("A+ K- 9- 7- 5-") > ev("A* K+ 9+ 7+ 5+")  # all ranks equal: suit of highest card


@pytest.mark.parametrize(
    ("cards", "text"),
    [
        ("10* J* Q* K* A*", "Royal flush"),
        ("A+ 5+ 6+ 7+ 8+", "Straight flush to the Eight"),
        ("9# 10# J# Q# K#", "Straight flush to the King"),
        ("6- 6# 6* 6+ 5-", "Four of a kind, Sixes"),
        ("J- J# J* 6+ 6-", "Full house, Jacks over Sixes"),
        ("A# K# 9# 7# 6#", "Flush, Ace high"),
        ("A- 5- 6# 7- 8-", "Straight to the Eight"),
        ("10- J- Q- K- A+", "Straight to the Ace"),
        ("9- 9# 9* 5- 6-", "Three of a kind, Nines"),
        ("K- K# 9- 9# A-", "Two pairs, Kings and Nines"),
        ("5- Q# Q- 7- 6-", "One pair of Queens"),
        ("A- K# 9- 7- 6-", "High card Ace"),
    ],
)
def test_describe_for_people(cards, text):
    assert ev(cards).describe() == text


def test_cards_are_sorted_as_on_screen_and_input_may_be_any_iterable():
    value = evaluate(c for c in parse_cards("K* 9- Q# 10* J+"))
    assert format_cards(value.cards) == "9- 10* J+ Q# K*"
    assert value.category is Category.STRAIGHT


def test_values_are_hashable_and_work_as_a_sort_key():
    hands = [parse_cards(t) for t in ("K- K# 9- 9# A-", "5- 5# 5* 6+ 6-", "A- K# 9- 7- 6-")]
    assert max(hands, key=evaluate) == hands[1]
    assert len({ev("Q- Q# A+ 6- 5-"), ev("Q- Q# A+ K# J#"), ev("K- K# 9- 9# A-")}) == 2


def test_strength_is_the_fast_path_of_the_same_order():
    for text in ("K- K# 9- 9# A-", "A- 5- 6# 7- 8-", "10* J* Q* K* A*"):
        assert strength(parse_cards(text)) == ev(text).strength


@pytest.mark.parametrize(
    ("cards", "message"),
    [
        ("9- 10* J+ Q#", "exactly five cards, got 4"),
        ("9- 10* J+ Q# K* A+", "exactly five cards, got 6"),
        ("9- 10* J+ Q# 9-", "the same card twice in one hand: 9-"),
        ("9- 9- 9- 9- 10*", "the same card twice in one hand: 9-"),
    ],
)
def test_not_five_distinct_cards_is_a_clear_value_error(cards, message):
    for rank in (evaluate, strength):
        with pytest.raises(ValueError, match=message):
            rank(parse_cards(cards))


def test_something_that_is_not_a_card_is_named():
    with pytest.raises(ValueError, match=r"not a card of the 40-card deck: 'A\+'"):
        evaluate(list(parse_cards("9- 10* J+ Q#")) + ["A+"])
    with pytest.raises(ValueError, match="five cards"):
        evaluate(None)
    with pytest.raises(ValueError, match="exactly five cards, got 4"):
        evaluate(iter(parse_cards("9- 10* J+ Q#")))
    with pytest.raises(ValueError, match="exactly five distinct cards"):
        strength(iter(parse_cards("9- 10* J+ Q#")))


deals = st.permutations(DECK).map(lambda deck: [tuple(deck[i:i + 5]) for i in (0, 5, 10)])


@given(deals)
def test_hands_of_one_deal_are_never_equal_and_order_is_consistent(hands):
    a, b, c = (evaluate(h) for h in hands)
    assert a != b and b != c and a != c
    assert (a < b) != (b < a) and (a > b) == (b < a) and (a <= b) == (a < b)
    if a < b and b < c:
        assert a < c
    assert sorted([a, b, c])[0] == min(a, b, c) and sorted([a, b, c])[-1] == max(a, b, c)
