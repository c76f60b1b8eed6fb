"""Schiebe-Poker's cards and hand values (``/work/shared/reference/schiebe-poker-de.txt``).

The game is played with the standard 52-card deck ("{Kreuz, Pik, Herz, Karo} x {2, 3, 4,
5, 6, 7, 8, 9, 10, Bube, Dame, König, Ass}"): :data:`~bbspoker.rules.cards.STANDARD52`.
A card is its notation string, rank then suit as everywhere in bbspoker (``"2-"``,
``"10*"``, ``"Q+"``; suits ``+`` spades, ``*`` hearts, ``#`` diamonds, ``-`` clubs), so
that records, events and the audit all use the same text.

A hand (two hidden and three open cards) is worth its poker category only, High card to
Royal flush ("Der Wert einer Hand ergibt sich nach den Regeln für Poker ... und liegt
zwischen Höchste Karte und Royal Flush"); equal categories tie "unabhängig vom
Entscheidungskriterium", so :func:`category` returns nothing finer.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from bbspoker.rules.cards import STANDARD52
from bbspoker.rules.draw40.hands import Category

__all__ = ["CARDS", "Category", "category", "rank", "suit", "is_card"]

#: The 52 cards in notation order (ranks lowest first, suits ``+ * # -`` within a rank): the
#: order the published shuffle starts from (docs/fairness.md).
CARDS: tuple[str, ...] = STANDARD52.cards()
_RANK = {r: i for i, r in enumerate(STANDARD52.ranks, 2)}   # "2" -> 2 ... "A" -> 14
_CARD_SET = frozenset(CARDS)


def is_card(card: object) -> bool:
    """True for one of the 52 cards in notation (``"10*"``)."""
    return isinstance(card, str) and card in _CARD_SET


def rank(card: str) -> int:
    """The card's rank as a number: 2 .. 10, J 11, Q 12, K 13, A 14."""
    return _RANK[card[:-1]]


def suit(card: str) -> str:
    """The card's suit symbol: ``+ * # -``."""
    return card[-1]


def category(cards: Sequence[str]) -> Category:
    """The poker category of five cards (standard poker, as Wikipedia's "List of poker
    hands"): an ace counts high or low in a straight (A-2-3-4-5 is a straight, to the
    five), Royal flush is the straight flush to the ace. Raises ``ValueError`` for other
    than five distinct cards of the deck."""
    if len(cards) != 5 or len(set(cards)) != 5 or not all(c in _CARD_SET for c in cards):
        raise ValueError(f"not five distinct cards: {cards!r}")
    ranks = sorted((_RANK[c[:-1]] for c in cards), reverse=True)
    flush = len({c[-1] for c in cards}) == 1
    counts = sorted(Counter(ranks).values(), reverse=True)
    straight = counts[0] == 1 and (ranks[0] - ranks[4] == 4 or ranks == [14, 5, 4, 3, 2])
    if straight and flush:
        return Category.ROYAL_FLUSH if ranks[4] == 10 else Category.STRAIGHT_FLUSH
    if counts[0] == 4:
        return Category.FOUR_OF_A_KIND
    if counts[:2] == [3, 2]:
        return Category.FULL_HOUSE
    if flush:
        return Category.FLUSH
    if straight:
        return Category.STRAIGHT
    if counts[0] == 3:
        return Category.THREE_OF_A_KIND
    if counts[:2] == [2, 2]:
        return Category.TWO_PAIR
    if counts[0] == 2:
        return Category.ONE_PAIR
    return Category.HIGH_CARD
