"""Five-card hand ranking of Global Village BBS PoKeR (chapter 3).

``evaluate(cards)`` turns five distinct cards of the 40-card deck into a
``HandValue``; a higher ``HandValue`` wins the showdown. Rules, highest
category first (chapter 3, with the decisions of issue 2):

1. Royal flush A-K-Q-J-10 suited: the higher suit wins.
2. Straight flush (A-8-7-6-5 suited is the lowest): higher top card, then suit.
3. Four of a kind: higher quad rank.
4. Full house: higher triple rank (a full house beats a flush).
5. Flush: ranks compared high to low; all equal: the suit of the highest card.
6. Straight (A-8-7-6-5 is the lowest, its top card is the 8): higher top
   card, then the suit of the top card.
7. Three of a kind: higher triple rank.
8. Two pairs: higher pair, lower pair, odd card; all equal: the hand holding
   the higher suit in its higher pair.
9. One pair: higher pair, then only the highest odd card's rank, then that
   card's suit (the second and third odd cards never count).
10. High card: as a flush.

Within one deal two hands are therefore never equal.

How it is fast: every card has a precomputed integer code; the sum of the
five codes holds a 40-bit mask of the cards (bit ``card.index``, four bits per
rank, one per suit), a count of each suit, and a base-5 count of each rank.
The rank counts select one of the 1,992 rank patterns in a table built at
import (a few milliseconds). The pattern names the rank whose suits break the
tie and maps those four mask bits straight to the strength, one map for a
flush and one for any other hand.
"""

from __future__ import annotations

from collections import Counter
from enum import IntEnum
from itertools import combinations_with_replacement
from typing import Iterable

from .cards import DECK, Card, Rank, format_cards, sort_hand

__all__ = ["Category", "HandValue", "evaluate", "strength"]


class Category(IntEnum):
    """Hand categories of chapter 3; a higher value beats a lower one.

    ``list(Category)`` runs from the best (ROYAL_FLUSH, rule (1)) to the
    worst (HIGH_CARD, rule (10)).
    """

    ROYAL_FLUSH = 9
    STRAIGHT_FLUSH = 8
    FOUR_OF_A_KIND = 7
    FULL_HOUSE = 6
    FLUSH = 5
    STRAIGHT = 4
    THREE_OF_A_KIND = 3
    TWO_PAIR = 2
    ONE_PAIR = 1
    HIGH_CARD = 0


# Strength layout (an int, higher wins): category << 22, then up to five rank
# fields of 4 bits (<< 18, 14, 10, 6, 2) in the order the rule compares them,
# then the deciding suit in the lowest 2 bits (0 when the rule has no suit).
_CATEGORY_SHIFT = 22
_FIELD_SHIFTS = (18, 14, 10, 6, 2)

# Card code layout: bits 0-39 the card's mask bit (two guard bits follow, as
# a duplicate card carries out of its place), bits 42-57 four 4-bit suit
# counts, bits 58 and up one base-5 digit per rank.
_MASK = (1 << 40) - 1
_SUIT_COUNT_SHIFT = 42
_RANK_KEY_SHIFT = 58
#: Added to the sum of codes, carries into bit 3 of a suit count exactly when it is 5: a flush.
_FLUSH_CARRY = 0x3333 << _SUIT_COUNT_SHIFT
_FLUSH_BITS = 0x8888 << _SUIT_COUNT_SHIFT

#: Card -> code.
_CODE: dict[Card, int] = {
    c: (1 << c.index) + (1 << (_SUIT_COUNT_SHIFT + 4 * c.suit))
    + (5 ** (c.rank - Rank.FIVE) << _RANK_KEY_SHIFT)
    for c in DECK
}
#: The four suit bits of one rank (a nibble of the mask) -> the highest suit among them.
_TOP_SUIT = (0,) + tuple(n.bit_length() - 1 for n in range(1, 16))


def _fields(category: Category, *ranks: int) -> int:
    """Strength without suit: the category and the rank fields in comparison order."""
    value = category << _CATEGORY_SHIFT
    for shift, rank in zip(_FIELD_SHIFTS, ranks):
        value |= rank << shift
    return value


def _by_suit(value: int, suited: bool = True) -> tuple[int, ...]:
    """Suit nibble -> strength: ``value`` plus the nibble's highest suit if ``suited``."""
    return tuple(value + _TOP_SUIT[n] * suited for n in range(16))


def _pattern(ranks: tuple[int, ...]) -> tuple[int, tuple[int, ...], tuple[int, ...]]:
    """For a rank multiset: (nibble shift, nibble -> strength, nibble -> strength if a flush).

    The suit-deciding rank is the higher pair (two pairs: the higher suit in
    it counts), the highest odd card (one pair), the top card (straight,
    high card; a flush has one suit anyway), or none (sets: shift 0 and a map
    that ignores the nibble). A flush is only possible with five ranks.
    """
    groups = sorted(Counter(ranks).items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    counts = [n for _, n in groups]
    order = [r for r, _ in groups]
    if counts[0] >= 3:
        category = {(4, 1): Category.FOUR_OF_A_KIND, (3, 2): Category.FULL_HOUSE}.get(
            tuple(counts), Category.THREE_OF_A_KIND)
        same = _by_suit(_fields(category, order[0]), suited=False)
        return 0, same, same
    if counts[0] == 2:
        two_pairs = counts[1] == 2
        category = Category.TWO_PAIR if two_pairs else Category.ONE_PAIR
        suit_rank = order[0] if two_pairs else order[1]
        by_suit = _by_suit(_fields(category, *(order if two_pairs else order[:2])))
        return 4 * (suit_rank - 5), by_suit, by_suit
    if order == [14, 8, 7, 6, 5]:
        top = 8  # A-8-7-6-5: the ace is low, the lowest straight
    elif order[0] - order[4] == 4:
        top = order[0]
    else:
        return (4 * (order[0] - 5), _by_suit(_fields(Category.HIGH_CARD, *order)),
                _by_suit(_fields(Category.FLUSH, *order)))
    flush = _fields(Category.ROYAL_FLUSH) if top == 14 else _fields(Category.STRAIGHT_FLUSH, top)
    return 4 * (top - 5), _by_suit(_fields(Category.STRAIGHT, top)), _by_suit(flush)


#: Base-5 rank-count key -> _pattern(); the 1,992 multisets of five ranks with no rank five times.
_PATTERNS: dict[int, tuple[int, tuple[int, ...], tuple[int, ...]]] = {
    sum(5 ** (r - 5) for r in ranks): _pattern(ranks)
    for ranks in combinations_with_replacement(range(5, 15), 5)
    if len(set(ranks)) > 1
}


def strength(cards: Iterable[Card]) -> int:
    """The strength of five distinct cards as one int: higher wins, equal ties (chapter 3).

    The fast path for bots that only compare hands; ``evaluate(cards).strength``
    is the same number. Raises ``ValueError`` like ``evaluate``.
    """
    try:
        a, b, c, d, e = cards
        code = _CODE[a] + _CODE[b] + _CODE[c] + _CODE[d] + _CODE[e]
        shift, by_suit, flush_by_suit = _PATTERNS[code >> _RANK_KEY_SHIFT]
    except (ValueError, KeyError, TypeError):
        raise ValueError(_not_a_hand(cards)) from None
    if (code & _MASK).bit_count() != 5:
        raise ValueError(_not_a_hand(cards))
    return (flush_by_suit if (code + _FLUSH_CARRY) & _FLUSH_BITS else by_suit)[code >> shift & 15]


def _not_a_hand(cards: Iterable[Card]) -> str:
    """The reason ``cards`` is not five distinct cards, fit to show a player."""
    try:
        if iter(cards) is cards:  # an iterator: already consumed, nothing left to name
            return "a hand is exactly five distinct cards of the 40-card deck"
    except TypeError:
        return f"a hand is five cards, not {cards!r}"
    items = list(cards)
    bad = [x for x in items if x not in _CODE]
    if bad:
        return f"not a card of the 40-card deck: {bad[0]!r}"
    if len(items) != 5:
        return f"a hand is exactly five cards, got {len(items)}"
    twice = next(c for c, n in Counter(items).items() if n > 1)
    return f"the same card twice in one hand: {twice}"


def evaluate(cards: Iterable[Card]) -> HandValue:
    """Rank exactly five distinct cards (any iterable of ``Card``) by chapter 3.

    Raises ``ValueError`` with a message fit to show a player for fewer or
    more than five cards, something that is not a card of the 40-card deck,
    or the same card twice.
    """
    try:
        hand = tuple(cards)
    except TypeError:
        raise ValueError(_not_a_hand(cards)) from None
    return HandValue(strength(hand), hand)


class HandValue:
    """The value of a five-card hand by chapter 3: compare two with ``<`` / ``==``.

    Ordered by ``strength`` (an int, higher wins): two values are equal only
    when the rules call the hands equal, which never happens within one deal.
    Hashable, and usable as a sort key (``max(hands, key=evaluate)``).
    """

    __slots__ = ("strength", "_hand")

    def __init__(self, strength: int, hand: tuple[Card, ...]) -> None:
        #: int: the rules-strength; higher wins, equal means a tie by the rules.
        self.strength = strength
        self._hand = hand

    @property
    def category(self) -> Category:
        """The hand's ``Category`` (rule (1) ROYAL_FLUSH ... rule (10) HIGH_CARD)."""
        return Category(self.strength >> _CATEGORY_SHIFT)

    @property
    def cards(self) -> tuple[Card, ...]:
        """The five cards sorted as on the screen: by rank then suit, highest at the right."""
        return sort_hand(self._hand)

    def describe(self) -> str:
        """The hand for people, e.g. ``"Two pairs, Kings and Nines"``, ``"Straight to the Eight"``."""
        category = self.category
        counts = Counter(c.rank for c in self.cards)
        first, second = sorted(counts, key=lambda r: (counts[r], r), reverse=True)[:2]
        low_ace = first is Rank.ACE and min(counts) is Rank.FIVE
        top = second if low_ace else first  # a straight's top card: the 8 of A-8-7-6-5
        return {
            Category.ROYAL_FLUSH: "Royal flush",
            Category.STRAIGHT_FLUSH: f"Straight flush to the {top.singular}",
            Category.FOUR_OF_A_KIND: f"Four of a kind, {first.plural}",
            Category.FULL_HOUSE: f"Full house, {first.plural} over {second.plural}",
            Category.FLUSH: f"Flush, {first.singular} high",
            Category.STRAIGHT: f"Straight to the {top.singular}",
            Category.THREE_OF_A_KIND: f"Three of a kind, {first.plural}",
            Category.TWO_PAIR: f"Two pairs, {first.plural} and {second.plural}",
            Category.ONE_PAIR: f"One pair of {first.plural}",
            Category.HIGH_CARD: f"High card {first.singular}",
        }[category]

    def __repr__(self) -> str:
        return f"<HandValue {format_cards(self.cards)}: {self.describe()}>"

    def __hash__(self) -> int:
        return hash(self.strength)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, HandValue):
            return self.strength == other.strength
        return NotImplemented

    def __lt__(self, other: HandValue) -> bool:
        if isinstance(other, HandValue):
            return self.strength < other.strength
        return NotImplemented

    def __le__(self, other: HandValue) -> bool:
        if isinstance(other, HandValue):
            return self.strength <= other.strength
        return NotImplemented

    def __gt__(self, other: HandValue) -> bool:
        if isinstance(other, HandValue):
            return self.strength > other.strength
        return NotImplemented

    def __ge__(self, other: HandValue) -> bool:
        if isinstance(other, HandValue):
            return self.strength >= other.strength
        return NotImplemented
