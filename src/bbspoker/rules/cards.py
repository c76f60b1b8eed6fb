"""Cards and decks: the 40-card European deck of Global Village BBS PoKeR, and the
deck specs of every game kind (:class:`DeckSpec`: :data:`GV40`, :data:`STANDARD52`).

Ranks of the GV deck run 5, 6, 7, 8, 9, 10, J, Q, K, A (the 2s, 3s and 4s are taken
out of the pack, chapter 1). Suits are written ``+ * # -`` and rank in that order,
highest first; they only ever break exact ties (chapter 3).

Notation, used everywhere (screens, logs, tests, docs, CLI): rank then suit,
e.g. ``9-``, ``10*``, ``J+``, ``Q#``, ``A+``. The standard notation of the poker
world (pokerkit, PHH: ``9c``, ``Th``, ``Js``, ``Qd``, ``As``) reads and writes the
same cards: ``+`` is spades, ``*`` hearts, ``#`` diamonds and ``-`` clubs (highest to
highest, the bridge order), and ``10`` is ``T`` (:func:`to_standard`,
:func:`from_standard`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Iterable, Iterator

__all__ = [
    "Rank",
    "Suit",
    "Card",
    "DECK",
    "parse_card",
    "parse_cards",
    "format_cards",
    "sort_hand",
    "new_deck",
    "DeckSpec",
    "GV40",
    "STANDARD52",
    "to_standard",
    "from_standard",
    "network_number",
    "from_network_number",
]


class Rank(IntEnum):
    """Card ranks of the 40-card deck; the value is the pip count (J=11 ... A=14)."""

    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14

    @property
    def symbol(self) -> str:
        """The rank as written in card notation: ``5``..``10``, ``J``, ``Q``, ``K``, ``A``."""
        return _RANK_SYMBOLS[self]


class Suit(IntEnum):
    """Suits, valued so that a higher value is a higher suit: ``+`` > ``*`` > ``#`` > ``-``.

    Chapter 3: "All suits are equal by definition"; the order only decides
    between hands that are otherwise completely equal.
    """

    MINUS = 0
    HASH = 1
    STAR = 2
    PLUS = 3

    @property
    def symbol(self) -> str:
        """The suit as written in card notation: one of ``+ * # -``."""
        return _SUIT_SYMBOLS[self]


_RANK_SYMBOLS = {
    Rank.FIVE: "5", Rank.SIX: "6", Rank.SEVEN: "7", Rank.EIGHT: "8", Rank.NINE: "9",
    Rank.TEN: "10", Rank.JACK: "J", Rank.QUEEN: "Q", Rank.KING: "K", Rank.ACE: "A",
}
_SUIT_SYMBOLS = {Suit.PLUS: "+", Suit.STAR: "*", Suit.HASH: "#", Suit.MINUS: "-"}
_RANK_BY_SYMBOL = {v: k for k, v in _RANK_SYMBOLS.items()}
_SUIT_BY_SYMBOL = {v: k for k, v in _SUIT_SYMBOLS.items()}


#: Card code layout: the int value of a ``Card`` is its evaluation code, so that
#: ``bbspoker.rules.draw40.hands`` ranks five cards by adding them (no lookups per card).
#: Bits 0-15: the rank's weight in ``CODE_RANK_WEIGHTS`` (FIVE first); every
#: multiset of five ranks with no rank five times has its own sum, below 2**16.
#: Bits 16-31: four 4-bit suit counts (``Suit`` value s at bit 16 + 4 * s).
#: Bits 32-71: the card's mask bit, ``1 << (32 + card.index)``; being the
#: highest bit, it makes int order the (rank, suit) order.
CODE_RANK_WEIGHTS = (0, 1, 5, 22, 94, 312, 992, 2422, 5624, 12522)
CODE_SUIT_COUNT_SHIFT = 16
CODE_MASK_SHIFT = 32


class Card(int):
    """One card: ``Card(Rank.NINE, Suit.MINUS)`` is ``9-``.

    Cards compare by rank, then suit (the tie-break order of chapter 3), so
    ``sorted(cards)`` lays a hand out lowest at the left, highest at the right,
    as the game screen shows it (chapter 2, discarding interval).

    There are exactly 40 cards: ``Card(rank, suit)`` returns the one in
    ``DECK`` (so ``is`` works) and raises ``ValueError`` for a rank or suit
    not in the deck. A card unpacks as ``rank, suit = card``. It is an ``int``
    whose value is its evaluation code (see ``CODE_MASK_SHIFT``), hashed and
    compared as that int; use ``.index`` (0..39) for a small number.
    """

    __slots__ = ()

    def __new__(cls, rank: Rank | int, suit: Suit | int) -> Card:
        try:
            return DECK[(Rank(rank) - Rank.FIVE) * 4 + Suit(suit)]
        except ValueError:
            raise ValueError(f"not a card of the 40-card deck: rank {rank!r}, suit {suit!r}") from None

    @property
    def index(self) -> int:
        """Position 0..39 in the ordered deck: ``(rank - 5) * 4 + suit``."""
        return self.bit_length() - CODE_MASK_SHIFT - 1

    @property
    def rank(self) -> Rank:
        """The card's ``Rank``."""
        return _RANK_BY_INDEX[self.bit_length() - CODE_MASK_SHIFT - 1]

    @property
    def suit(self) -> Suit:
        """The card's ``Suit``."""
        return _SUIT_BY_INDEX[self.bit_length() - CODE_MASK_SHIFT - 1]

    def __iter__(self) -> Iterator[Rank | Suit]:
        return iter((self.rank, self.suit))

    def __reduce__(self) -> tuple[type[Card], tuple[Rank, Suit]]:
        return Card, (self.rank, self.suit)

    def to_wire(self) -> str:
        """The card on the wire (``bbspoker.table.codec``): its notation, ``"9-"``."""
        return _TEXT[self]

    @classmethod
    def from_wire(cls, value: object) -> Card:
        """The card of :meth:`to_wire`'s ``value``; raises ``ValueError`` for one that is
        not the notation of a card of the deck."""
        if not isinstance(value, str):
            raise ValueError(f"not a card: {value!r}")
        return parse_card(value)

    def __str__(self) -> str:
        return _TEXT[self]

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __repr__(self) -> str:
        return f"Card({self})"


_RANK_BY_INDEX = tuple(r for r in Rank for _ in Suit)
_SUIT_BY_INDEX = tuple(s for _ in Rank for s in Suit)

#: The 40 cards in index order (5- 5# 5* 5+ 6- ... A+); ``DECK[c.index] is c``.
DECK: tuple[Card, ...] = tuple(
    int.__new__(Card, (1 << (CODE_MASK_SHIFT + i)) + (1 << (CODE_SUIT_COUNT_SHIFT + 4 * s))
                + CODE_RANK_WEIGHTS[r - Rank.FIVE])
    for i, (r, s) in enumerate(zip(_RANK_BY_INDEX, _SUIT_BY_INDEX))
)
_TEXT = {c: _RANK_SYMBOLS[c.rank] + _SUIT_SYMBOLS[c.suit] for c in DECK}  # card -> notation
_CARD_BY_TEXT = {text: c for c, text in _TEXT.items()}


def parse_card(token: str) -> Card:
    """Parse one card in notation (``"10*"``, ``"a+"``); raise ``ValueError`` naming a bad token."""
    text = token.strip().upper()
    card = _CARD_BY_TEXT.get(text)
    if card is None:
        raise ValueError(f"not a card of the 40-card deck: {token!r} (write e.g. 9- 10* J+ Q# A+)")
    return card


def parse_cards(text: str) -> tuple[Card, ...]:
    """Parse space- or comma-separated cards: ``parse_cards("9- 10* J+")`` -> 3 cards.

    Raises ``ValueError`` naming the first bad token. Duplicates are not
    rejected here (a hand evaluator or the table checks that).
    """
    return tuple(parse_card(t) for t in text.replace(",", " ").split())


def format_cards(cards: Iterable[Card]) -> str:
    """Cards in notation joined by spaces, e.g. ``"9- 10* J+"``."""
    return " ".join([_TEXT[c] for c in cards])


def sort_hand(cards: Iterable[Card]) -> tuple[Card, ...]:
    """Cards sorted by rank (then suit), highest at the right, as chapter 2 shows a hand."""
    return tuple(sorted(cards))


def new_deck() -> list[Card]:
    """A fresh, ordered list of the 40 cards."""
    return list(DECK)


# ------------------------------------------------------------------------- deck specs

#: GV suit symbol -> standard suit letter (highest first: spades, hearts, diamonds, clubs).
_STANDARD_SUIT = {"+": "s", "*": "h", "#": "d", "-": "c"}
_GV_SUIT = {v: k for k, v in _STANDARD_SUIT.items()}
_STANDARD_RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A")


@dataclass(frozen=True)
class DeckSpec:
    """The cards a game kind deals, as notation: ``ranks`` lowest first (GV symbols,
    ``10`` for ten), ``suits`` highest first (``+ * # -``). ``len(spec)`` is the number of
    cards; :meth:`cards` lists them in GV notation, :meth:`standard_cards` in standard
    notation, both lowest rank first, suits highest first within a rank."""

    name: str
    ranks: tuple[str, ...]
    suits: tuple[str, ...] = ("+", "*", "#", "-")

    def __len__(self) -> int:
        return len(self.ranks) * len(self.suits)

    def cards(self) -> tuple[str, ...]:
        """Every card of the deck in GV notation, e.g. ``("5+", "5*", ...)``."""
        return tuple(r + s for r in self.ranks for s in self.suits)

    def standard_cards(self) -> tuple[str, ...]:
        """Every card of the deck in standard notation, e.g. ``("2s", "2h", ...)``."""
        return tuple(to_standard(c) for c in self.cards())

    def __contains__(self, card: object) -> bool:
        """``"A+" in GV40``; a card in either notation (``"As" in STANDARD52``)."""
        if not isinstance(card, str):
            return False
        try:
            text = from_standard(card) if card[-1:].lower() in _GV_SUIT else card.upper()
        except ValueError:
            return False
        return text[:-1] in self.ranks and text[-1:] in self.suits


#: The 40-card deck of GV PoKeR (draw40).
GV40 = DeckSpec("gv40", ("5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"))
#: The standard 52-card deck (Texas Hold'em).
STANDARD52 = DeckSpec("standard52", ("2", "3", "4") + GV40.ranks)


def to_standard(card: str) -> str:
    """One card from GV notation to standard: ``"10*"`` -> ``"Th"``, ``"a+"`` -> ``"As"``.
    Raises ``ValueError`` naming a token that is not a card in GV notation (any deck)."""
    text = card.strip().upper()
    rank, suit = text[:-1], text[-1:]
    if suit not in _STANDARD_SUIT or rank not in STANDARD52.ranks:
        raise ValueError(f"not a card: {card!r} (write e.g. 2- 10* J+ Q# A+)")
    return ("T" if rank == "10" else rank) + _STANDARD_SUIT[suit]


def from_standard(card: str) -> str:
    """One card from standard notation to GV: ``"Th"`` -> ``"10*"``, ``"2c"`` -> ``"2-"``.
    Raises ``ValueError`` naming a token that is not a card in standard notation."""
    text = card.strip()
    rank, suit = text[:-1].upper(), text[-1:].lower()
    if rank == "10":
        rank = "T"
    if suit not in _GV_SUIT or rank not in _STANDARD_RANKS:
        raise ValueError(f"not a card: {card!r} (write e.g. 2c Th Js Qd As)")
    return ("10" if rank == "T" else rank) + _GV_SUIT[suit]


#: The network numbering of the Finnish design (``verkkopokeri-fi.txt``, "Pelikortin esitys
#: verkkoliikenteessä"): suit factor clubs 0, diamonds 1, hearts 2, spades 3; value ace 1,
#: 2..10, jack 11, queen 12, king 13; number = factor * 13 + value - 1 (0..51).
_NET_SUIT = {"c": 0, "d": 1, "h": 2, "s": 3}
_NET_VALUE = {"A": 1, "T": 10, "J": 11, "Q": 12, "K": 13, **{str(v): v for v in range(2, 10)}}
_NET_SUIT_BY_FACTOR = {v: k for k, v in _NET_SUIT.items()}
_NET_RANK_BY_VALUE = {v: k for k, v in _NET_VALUE.items()}


def network_number(card: str) -> int:
    """The network number (0-51) of a card in GV notation, e.g. ``"10+"`` (spade ten)
    -> 48 and ``"A-"`` (club ace) -> 0, as the Finnish design's two examples. Raises
    ``ValueError`` for what is not a card."""
    standard = to_standard(card)
    return _NET_SUIT[standard[-1]] * 13 + _NET_VALUE[standard[:-1]] - 1


def from_network_number(number: int) -> str:
    """The card (GV notation) with network number ``number`` (0-51); ``ValueError`` outside."""
    if not 0 <= number <= 51:
        raise ValueError(f"not a card number: {number} (0-51)")
    factor, value = divmod(number, 13)
    return from_standard(_NET_RANK_BY_VALUE[value + 1] + _NET_SUIT_BY_FACTOR[factor])
