"""Chapter 3 hand ranking: categories, every tie-break rule, describe_hand(), bad input."""

from collections import Counter
from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, strategies as st

from bbspoker.door.screens.draw40_text import describe_hand
from bbspoker.rules.cards import DECK, parse_cards, sort_hand
from bbspoker.rules.draw40.hands import Category, HandValue, evaluate, strength, strengths


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
    assert describe_hand(ev(cards)) == text


def test_input_may_be_any_iterable_in_any_order():
    cards = parse_cards("K* 9- Q# 10* J+")
    value = evaluate(c for c in cards)
    assert value == evaluate(list(reversed(cards))) == evaluate(sort_hand(cards))
    assert value.category is Category.STRAIGHT and describe_hand(value) == "Straight to the King"


def test_value_is_the_strength_int_and_shows_the_hand_in_repr():
    value = ev("K- K# 9- 9# A-")
    assert isinstance(value, int) and value.strength == int(value) == strength(parse_cards("K- K# 9- 9# A-"))
    assert type(value.strength) is int
    assert repr(value) == f"<HandValue {int(value)}: TWO_PAIR K/9>"


def test_full_houses_with_the_same_three_are_equal_but_described_with_their_pair():
    jacks_over_sixes, jacks_over_aces = ev("J- J# J* 6+ 6-"), ev("J- J# J+ A+ A-")
    assert jacks_over_sixes == jacks_over_aces and hash(jacks_over_sixes) == hash(jacks_over_aces)
    assert describe_hand(jacks_over_sixes) == "Full house, Jacks over Sixes"
    assert describe_hand(jacks_over_aces) == "Full house, Jacks over Aces"


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
        ("A- A# A* A+ A+", "the same card twice in one hand: A+"),
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
    with pytest.raises(ValueError, match="exactly five cards, got 4"):
        strength(iter(parse_cards("9- 10* J+ Q#")))
    # A bot that passes card indices (the input of strengths) instead of cards is told so.
    with pytest.raises(ValueError, match="not a card of the 40-card deck: 30"):
        evaluate([30, 31, 32, 33, 34])


@pytest.mark.parametrize("rank", ["5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"])
def test_five_cards_of_one_rank_one_of_them_twice_is_refused(rank):
    with pytest.raises(ValueError, match=f"the same card twice in one hand: {rank}#"):
        evaluate(parse_cards(f"{rank}- {rank}# {rank}* {rank}+ {rank}#"))


deals = st.permutations(DECK).map(lambda deck: [tuple(deck[i:i + 5]) for i in (0, 5, 10)])


@given(deals)
def test_hands_of_one_deal_are_never_equal_and_order_is_consistent(hands):
    a, b, c = (evaluate(h) for h in hands)
    assert a != b and b != c and a != c
    assert (a < b) != (b < a) and (a > b) == (b < a) and (a <= b) == (a < b)
    if a < b and b < c:
        assert a < c
    assert sorted([a, b, c])[0] == min(a, b, c) and sorted([a, b, c])[-1] == max(a, b, c)


def test_strengths_ranks_an_array_of_hands_like_strength():
    rng = np.random.default_rng(6)
    hands = np.array([rng.choice(40, 5, replace=False) for _ in range(3_000)])
    hands[:12] = [[i.index for i in parse_cards(t)] for t in (  # every category and the wheel
        "10* J* Q* K* A*", "A+ 5+ 6+ 7+ 8+", "6- 6# 6* 6+ 5-", "J- J# J* 6+ 6-", "A# K# 9# 7# 6#",
        "A- 5- 6# 7- 8-", "9- 9# 9* 5- 6-", "K- K# 9- 9# A-", "Q- Q# A+ 6- 5-", "A- K# 9- 7- 6-",
        "10- J- Q- K- A+", "9+ 10+ J+ Q+ K+")]
    result = strengths(hands)
    assert result.dtype == np.int64 and result.shape == (3_000,)
    assert result.tolist() == [strength(DECK[i] for i in row) for row in hands]
    assert strengths(hands.astype(np.uint8)).tolist() == result.tolist()
    assert strengths(np.empty((0, 5), np.int64)).shape == (0,)


@pytest.mark.parametrize(
    ("hands", "message"),
    [
        ([[0, 1, 2, 3]], r"an \(n, 5\) integer array"),
        ([[0.0, 1, 2, 3, 4]], "integer array"),
        ([[0, 1, 2, 3, 40]], "outside 0..39"),
        ([[0, 1, 2, 3, -1]], "outside 0..39"),
        ([[0, 1, 2, 3, 4], [16, 17, 18, 20, 16]], "row 1 holds the same card twice: 9- 9# 9. 10- 9-"),
    ],
)
def test_strengths_refuses_what_is_not_rows_of_five_distinct_card_indices(hands, message):
    with pytest.raises(ValueError, match=message):
        strengths(hands)
