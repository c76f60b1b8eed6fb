"""Five-card hand ranking of Global Village BBS PoKeR (chapter 3).

``evaluate(cards)`` turns five distinct cards of the 40-card deck into a
``HandValue``; a higher ``HandValue`` wins the showdown. Rules, highest
category first (chapter 3, with the tie-breaks it leaves open decided as below):

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

How it is fast: a ``Card`` is an int whose value is its code (see
``bbspoker.rules.cards``), so the sum of the five cards is plain int arithmetic. The
sum holds the 40-bit mask of the cards (four bits per rank, one per suit), a
count of each suit, and a rank key that names the multiset of ranks. The rank
key selects one of the 1,992 rank patterns in a table built at import (a few
milliseconds). The pattern names the rank whose suits break the tie and maps
those four mask bits straight to the ``HandValue``, one map for a flush and
one for any other hand. The ``HandValue`` objects (about 3,800) are made at
import and shared, so ranking a hand creates no object. ``strengths`` does the
same for an array of hands at once with numpy.
"""

from __future__ import annotations

from collections import Counter
from enum import IntEnum
from functools import cache
from itertools import combinations_with_replacement
from typing import TYPE_CHECKING, Iterable

from bbspoker.rules.cards import (CODE_MASK_SHIFT, CODE_RANK_WEIGHTS, CODE_SUIT_COUNT_SHIFT, DECK, Card, Rank,
                    format_cards)

if TYPE_CHECKING:
    import numpy
    import numpy.typing

__all__ = ["Category", "HandValue", "evaluate", "strength", "strengths"]


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

#: Added to the sum of card codes, carries into bit 3 of a suit count exactly when it is 5: a flush.
_FLUSH_CARRY = 0x3333 << CODE_SUIT_COUNT_SHIFT
_FLUSH_BITS = 0x8888 << CODE_SUIT_COUNT_SHIFT
_RANK_KEY_BITS = (1 << CODE_SUIT_COUNT_SHIFT) - 1
#: The four suit bits of one rank (a nibble of the mask) -> the highest suit among them.
_TOP_SUIT = (0,) + tuple(n.bit_length() - 1 for n in range(1, 16))
#: A rank field of the strength -> its Rank (0, an unused field: None).
_RANK_OF_FIELD = (None,) * Rank.FIVE + tuple(Rank)


class HandValue(int):
    """The value of a five-card hand by chapter 3: an int, higher wins.

    Its int value is the strength: category, then the ranks and the suit in
    the order the rule of that category compares them. Two values are equal
    (``==``, same hash) exactly when the rules call the hands equal, which
    never happens within one deal; ``max(hands, key=evaluate)`` finds the
    winner. ``evaluate`` returns one of the values made at import, so
    a value does not hold the cards (``sort_hand(cards)`` lays them out).
    """

    #: Full house only: the rank of the pair, which never counts; :attr:`named_ranks` names it.
    _over: Rank | None = None

    @property
    def strength(self) -> int:
        """The strength as a plain int (the value itself): higher wins, equal means a tie."""
        return int(self)

    @property
    def category(self) -> Category:
        """The hand's ``Category`` (rule (1) ROYAL_FLUSH ... rule (10) HIGH_CARD)."""
        return Category(self >> _CATEGORY_SHIFT)

    @property
    def named_ranks(self) -> tuple[Rank | None, Rank | None]:
        """The ranks a description of the hand names, in order: the high card, the top of
        a straight or flush, the rank of a pair, three or four of a kind, the two pairs
        (higher first), or a full house's three and pair (``None`` where the category
        names fewer). The door makes the words (``bbspoker.door.messages.describe_hand``:
        "Two pairs, Kings and Nines")."""
        first, second = (_RANK_OF_FIELD[self >> shift & 15] for shift in _FIELD_SHIFTS[:2])
        return first, self._over or second

    def to_wire(self) -> tuple[int, int | None]:
        """The value on the wire (``bbspoker.table.codec``): ``(strength, over)``, the rank
        of a full house's pair (``None`` for other hands), which the strength leaves out."""
        return int(self), self._over

    @classmethod
    def from_wire(cls, value: object) -> HandValue:
        """The value of :meth:`to_wire`'s ``value`` (one of those made at import). Raises
        ``ValueError`` for what is not a hand's value."""
        if not (isinstance(value, (list, tuple)) and len(value) == 2
                and type(value[0]) is int and (value[1] is None or type(value[1]) is int)):
            raise ValueError(f"not a hand's value: {value!r}")
        strength, over = value
        found = _VALUES.get((strength, None if over is None else Rank(over)))
        if found is None:
            raise ValueError(f"not a hand's value: {value!r}")
        return found

    def __repr__(self) -> str:
        first, second = self.named_ranks
        names = "/".join(r.symbol for r in (first, second) if r is not None)
        return f"<HandValue {int(self)}: {self.category.name} {names}>"


_VALUES: dict[tuple[int, Rank | None], HandValue] = {}


def _value(strength: int, over: Rank | None = None) -> HandValue:
    """The shared ``HandValue`` of a strength (and, for a full house, the pair's rank)."""
    value = _VALUES.get((strength, over))
    if value is None:
        value = _VALUES[strength, over] = HandValue(strength)
        if over is not None:
            value._over = over
    return value


def _fields(category: Category, *ranks: int) -> int:
    """Strength without suit: the category and the rank fields in comparison order."""
    value = category << _CATEGORY_SHIFT
    for shift, rank in zip(_FIELD_SHIFTS, ranks):
        value |= rank << shift
    return value


def _by_suit(value: int, suited: bool = True, over: Rank | None = None) -> tuple[HandValue, ...]:
    """Suit nibble -> HandValue: ``value`` plus the nibble's highest suit if ``suited``."""
    if not suited:
        return (_value(value, over),) * 16
    per_suit = [_value(value + suit) for suit in range(4)]
    return tuple(per_suit[top] for top in _TOP_SUIT)


def _nibble_shift(rank: int) -> int:
    """Shift of a rank's four suit bits in the sum of card codes."""
    return CODE_MASK_SHIFT + 4 * (rank - Rank.FIVE)


_Pattern = tuple[int, tuple[HandValue, ...], tuple[HandValue, ...] | None]


def _pattern(ranks: tuple[int, ...]) -> _Pattern:
    """For a rank multiset: (nibble shift, nibble -> value, nibble -> value if a flush, or None).

    The suit-deciding rank is the higher pair (two pairs: the higher suit in
    it counts), the highest odd card (one pair), the top card (straight,
    high card; a flush has one suit anyway), or none (sets: the nibble of the
    set's rank and a map that ignores it). A flush needs five ranks; with a
    rank twice the flush map is None. The shift is into the sum of card codes.
    """
    groups = sorted(Counter(ranks).items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    counts = [n for _, n in groups]
    order = [r for r, _ in groups]
    if counts[0] >= 3:
        full: dict[tuple[int, ...], Category] = {(4, 1): Category.FOUR_OF_A_KIND,
                                                 (3, 2): Category.FULL_HOUSE}
        category = full.get(tuple(counts), Category.THREE_OF_A_KIND)
        over = Rank(order[1]) if category is Category.FULL_HOUSE else None
        return _nibble_shift(order[0]), _by_suit(_fields(category, order[0]), False, over), None
    if counts[0] == 2:
        two_pairs = counts[1] == 2
        category = Category.TWO_PAIR if two_pairs else Category.ONE_PAIR
        suit_rank = order[0] if two_pairs else order[1]
        return _nibble_shift(suit_rank), _by_suit(_fields(category, *order[:3 if two_pairs else 2])), None
    if order == [14, 8, 7, 6, 5]:
        top = 8  # A-8-7-6-5: the ace is low, the lowest straight
    elif order[0] - order[4] == 4:
        top = order[0]
    else:
        return (_nibble_shift(order[0]), _by_suit(_fields(Category.HIGH_CARD, *order)),
                _by_suit(_fields(Category.FLUSH, *order)))
    flush = _fields(Category.ROYAL_FLUSH) if top == 14 else _fields(Category.STRAIGHT_FLUSH, top)
    return _nibble_shift(top), _by_suit(_fields(Category.STRAIGHT, top)), _by_suit(flush)


_PATTERN_BY_KEY: dict[int, _Pattern] = {
    sum(CODE_RANK_WEIGHTS[r - Rank.FIVE] for r in ranks): _pattern(ranks)
    for ranks in combinations_with_replacement(range(5, 15), 5)
    if len(set(ranks)) > 1
}
#: Rank key (the low 16 bits of the sum of five card codes) -> _pattern(), for the 1,992
#: multisets of five ranks with no rank five times; None for a key no five cards give.
_PATTERNS: list[_Pattern | None] = [_PATTERN_BY_KEY.get(k) for k in range(max(_PATTERN_BY_KEY) + 1)]


def evaluate(cards: Iterable[Card]) -> HandValue:
    """Rank exactly five distinct cards (any iterable of ``Card``) by chapter 3.

    Returns the hand's ``HandValue`` (an int: higher wins). Raises
    ``ValueError`` with a message fit to show a player for fewer or more
    than five cards, something that is not a card of the 40-card deck, or
    the same card twice.
    """
    try:
        hand = tuple(cards)
    except TypeError:
        raise ValueError(f"a hand is five cards, not {cards!r}") from None
    try:
        a, b, c, d, e = hand
        code = a + b + c + d + e
        pattern = _PATTERNS[code & _RANK_KEY_BITS]
    except (ValueError, TypeError, IndexError):
        raise ValueError(_not_a_hand(hand)) from None
    if pattern is None:     # no five cards of the deck add up to this
        raise ValueError(_not_a_hand(hand))
    shift, by_suit, flush_by_suit = pattern
    if (code >> CODE_MASK_SHIFT).bit_count() != 5:  # a card twice carries in the mask
        raise ValueError(_not_a_hand(hand))
    if flush_by_suit is not None and (code + _FLUSH_CARRY) & _FLUSH_BITS:
        by_suit = flush_by_suit
    return by_suit[code >> shift & 15]


#: ``strength(cards)`` is ``evaluate(cards)``: a ``HandValue`` is already the int bots compare.
strength = evaluate


def _not_a_hand(hand: tuple[object, ...]) -> str:
    """The reason ``hand`` is not five distinct cards, fit to show a player."""
    bad = [x for x in hand if not isinstance(x, Card)]
    if bad:
        return f"not a card of the 40-card deck: {bad[0]!r}"
    if len(hand) != 5:
        return f"a hand is exactly five cards, got {len(hand)}"
    twice = next(c for c, n in Counter(hand).items() if n > 1)
    return f"the same card twice in one hand: {twice}"


#: numpy card code bits (``strengths``): 0-39 the card's mask bit, 40-55 its rank weight, 56-62
#: its suit's weight below; five weights sum to five times one weight only for one suit: a flush.
_BULK_RANK_SHIFT = 40
_BULK_SUIT_SHIFT = 56
_BULK_SUIT_WEIGHTS = (0, 1, 6, 25)


@cache
def _bulk_tables() -> tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray, numpy.ndarray, numpy.ndarray]:
    """numpy forms of the card codes and of ``_PATTERNS``, built on first use of ``strengths``.

    Per card index: its code in the ``_BULK_*`` layout (the mask bit and rank
    weight of its ``Card`` code, a suit weight in place of the suit counts, so
    that it fits an int64). Per suit-weight sum: 16 for a flush, else 0. Per
    rank key: the offset of its pattern's 32 values (16 for any hand, then 16
    for a flush) in the flat value table, and its nibble shift within the mask.
    """
    import numpy as np

    codes = np.array([c >> CODE_MASK_SHIFT | (c & _RANK_KEY_BITS) << _BULK_RANK_SHIFT
                      | _BULK_SUIT_WEIGHTS[c.suit] << _BULK_SUIT_SHIFT for c in DECK], np.int64)
    flush = np.zeros(5 * max(_BULK_SUIT_WEIGHTS) + 1, np.int64)
    flush[[5 * w for w in _BULK_SUIT_WEIGHTS]] = 16
    patterns = list(_PATTERN_BY_KEY.values())
    values = np.array([by_suit + (flush_by_suit or by_suit) for _, by_suit, flush_by_suit in patterns],
                      np.int64)
    offset = {id(p): 32 * i for i, p in enumerate(patterns)}
    offsets = np.array([offset.get(id(p), 0) for p in _PATTERNS], np.int32)
    shifts = np.array([p[0] - CODE_MASK_SHIFT if p else 0 for p in _PATTERNS], np.uint8)
    return codes, flush, offsets, shifts, values.ravel()


def strengths(hands: numpy.typing.ArrayLike) -> numpy.ndarray:
    """Rank many hands at once (bots): an (n, 5) integer array of card indices -> n strengths.

    ``hands[i]`` holds five ``Card.index`` values (0..39, ``DECK[i]``); the
    result is an int64 array of shape (n,) with ``strengths(hands)[i] ==
    strength(DECK[j] for j in hands[i])`` (chapter 3; higher wins). Needs
    numpy (the ``bench`` extra). Raises ``ValueError`` for another shape or
    dtype, an index outside 0..39, or a row holding the same card twice.
    """
    import numpy as np

    codes, flush, offsets, shifts, values = _bulk_tables()
    h = np.asarray(hands)
    if h.ndim != 2 or h.shape[1] != 5 or h.dtype.kind not in "iu":
        raise ValueError(f"hands must be an (n, 5) integer array of card indices, got {h.dtype} {h.shape}")
    if h.size and (h.min() < 0 or h.max() >= len(DECK)):
        raise ValueError("a card index is outside 0..39")
    total = np.einsum("ij->i", np.take(codes, h))  # the sum of each row's five codes
    mask = total & ((1 << _BULK_RANK_SHIFT) - 1)
    twice = np.flatnonzero(np.bitwise_count(mask) != 5)
    if twice.size:
        row = twice[0]
        raise ValueError(f"row {row} holds the same card twice: {format_cards(DECK[i] for i in h[row])}")
    key = (total >> _BULK_RANK_SHIFT) & _RANK_KEY_BITS
    ranked: numpy.ndarray = values[offsets[key] + flush[total >> _BULK_SUIT_SHIFT]
                                + ((mask >> shifts[key]) & 15)]
    return ranked
