import copy
import pickle
import random

import pytest

from bbspoker.rules.cards import DECK, Card, Rank, Suit, format_cards, parse_cards, sort_hand


def test_deck_has_forty_distinct_cards_without_twos_threes_fours():
    assert len(DECK) == 40 and len(set(DECK)) == 40
    assert {c.rank for c in DECK} == set(Rank) and min(Rank) == 5
    assert all(DECK[c.index] is c for c in DECK)


def test_notation_round_trips():
    text = "9- 10* J+ Q# K* A+ 5-"
    cards = parse_cards(text)
    assert format_cards(cards) == text
    assert cards[1] == Card(Rank.TEN, Suit.STAR)
    assert parse_cards("a+, 10#") == (Card(Rank.ACE, Suit.PLUS), Card(Rank.TEN, Suit.HASH))


@pytest.mark.parametrize("bad", ["4+", "2*", "1+", "10", "K", "Kx", "11#", "++"])
def test_bad_token_is_named(bad):
    with pytest.raises(ValueError, match=repr(bad).replace("+", r"\+").replace("*", r"\*")):
        parse_cards(f"A+ {bad} K*")


def test_suits_rank_plus_star_hash_minus():
    assert Suit.PLUS > Suit.STAR > Suit.HASH > Suit.MINUS


def test_hand_sorted_highest_at_right():
    assert format_cards(sort_hand(parse_cards("K* 9- Q# 10* J+"))) == "9- 10* J+ Q# K*"


def test_a_card_is_made_once_and_keeps_its_rank_suit_and_notation():
    nine = Card(Rank.NINE, Suit.MINUS)
    assert nine is DECK[16] is parse_cards("9-")[0] is Card(9, 0)
    assert (nine.rank, nine.suit, nine.index) == (Rank.NINE, Suit.MINUS, 16)
    assert nine.rank is Rank.NINE and nine.suit is Suit.MINUS
    rank, suit = nine
    assert (rank, suit) == (Rank.NINE, Suit.MINUS)
    assert (str(nine), repr(nine), f"[{nine:>3}]") == ("9-", "Card(9-)", "[ 9-]")


@pytest.mark.parametrize(("rank", "suit"), [(4, 0), (15, 0), (Rank.ACE, 4), ("9", 0)])
def test_a_card_outside_the_deck_cannot_be_made(rank, suit):
    with pytest.raises(ValueError, match="not a card of the 40-card deck"):
        Card(rank, suit)


def test_cards_order_by_rank_then_suit_and_hash_as_they_compare():
    shuffled = random.Random(3).sample(DECK, len(DECK))
    assert sorted(shuffled) == sorted(shuffled, key=lambda c: (c.rank, c.suit)) == list(DECK)
    assert Card(Rank.TEN, Suit.MINUS) > Card(Rank.NINE, Suit.PLUS) > Card(Rank.NINE, Suit.STAR)
    assert len({*DECK, *parse_cards("9- 10* A+")}) == 40


def test_a_card_survives_pickle_and_copy_as_the_same_card():
    for card in DECK:
        assert pickle.loads(pickle.dumps(card)) is card and copy.deepcopy(card) is card


def test_deck_specs_list_the_forty_and_the_fifty_two_cards():
    from bbspoker.rules.cards import GV40, STANDARD52
    assert len(GV40) == 40
    assert set(GV40.cards()) == set(format_cards(DECK).split())
    assert len(STANDARD52) == 52 == len(set(STANDARD52.standard_cards()))
    assert STANDARD52.standard_cards()[:4] == ("2s", "2h", "2d", "2c")
    assert STANDARD52.standard_cards()[-1] == "Ac"
    assert set(GV40.cards()) < set(STANDARD52.cards())
    assert "A+" in GV40 and "As" in GV40 and "2-" not in GV40 and "2c" in STANDARD52
    assert "1x" not in STANDARD52 and "" not in GV40 and 5 not in GV40


def test_standard_notation_reads_and_writes_the_same_cards_both_ways():
    from bbspoker.rules.cards import STANDARD52, from_standard, to_standard
    for card in STANDARD52.cards():
        assert from_standard(to_standard(card)) == card
    assert to_standard("10*") == "Th" and to_standard("a+") == "As" and to_standard("5-") == "5c"
    assert from_standard("Td") == from_standard("10d") == from_standard("tD") == "10#"
    for bad in ("1s", "Tx", "A", "", "10"):
        with pytest.raises(ValueError, match="not a card"):
            from_standard(bad)
    for bad in ("1+", "As", "Z*", ""):
        with pytest.raises(ValueError, match="not a card"):
            to_standard(bad)


def test_network_numbers_follow_the_finnish_designs_examples_both_ways():
    from bbspoker.rules.cards import GV40, STANDARD52, from_network_number, network_number
    assert network_number("10+") == 48 and network_number("A-") == 0   # spade 10, club ace
    assert network_number("2-") == 1 and network_number("K+") == 51
    assert sorted(network_number(c) for c in STANDARD52.cards()) == list(range(52))
    assert [from_network_number(network_number(c)) for c in GV40.cards()] == list(GV40.cards())
    assert {network_number(c) % 13 for c in GV40.cards()}.isdisjoint({1, 2, 3})  # no 2-4
    with pytest.raises(ValueError, match="0-51"):
        from_network_number(52)
