"""Checking a recorded game against its provably fair deck (issue 20, ``bbspoker games
verify``; the function is specified in ``docs/fairness.md``).

Pure: given what a game record reveals once the game has ended (the server seed, the
commitment shown at the start, the client seeds, the game id and the record of
operations), :func:`verify_deal` recomputes the deck and walks the record, taking cards
from the top of the deck as the game kind deals them, and reports every step whose cards
are not the deck's. Answers are codes and card notation; the CLI makes the sentences.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from bbspoker.rules import fairness
from bbspoker.rules.cards import GV40, STANDARD52, DeckSpec

__all__ = ["Mismatch", "Verdict", "verify_deal", "DECKS", "draw40_draws", "holdem_draws"]


@dataclass(frozen=True)
class Mismatch:
    """One step of a record whose cards are not what the deck gives.

    ``step``: 1-based position in the record's operations; ``handle``: whose step;
    ``what``: ``deal`` (the five cards dealt), ``draw`` (the cards drawn in a discard, in
    the order drawn), ``hand`` (a hand shown or discarded from is not the one the deck
    gave) or ``short`` (the record takes more cards than the deck has); ``expected`` and
    ``recorded``: the cards (notation, space-separated) by the deck and by the record."""

    step: int
    handle: str | None
    what: str
    expected: str
    recorded: str


#: A game kind's walk of its record: for each operation that takes cards from the deck
#: or shows a hand, ``(step, handle, what, count, recorded cards)``; ``what`` is ``deal``
#: (``count`` cards from the top, compared as a set), ``draw`` (``count`` cards from the
#: top, compared in order) or ``hand`` (``count`` 0: the cards must be the hand held).
Walk = Callable[[Sequence[Mapping[str, object]]],
                Iterator[tuple[int, str | None, str, int, list[str]]]]


def draw40_draws(operations: Sequence[Mapping[str, object]]
                 ) -> Iterator[tuple[int, str | None, str, int, list[str]]]:
    """The draw40 record's use of the deck (chapter 2): ``deal`` takes five cards per
    player, player after player; a ``discard`` of n cards draws n (a discard of none, or
    a timed-out one, draws nothing); ``reveal`` and ``won`` with ``cards`` show a hand.
    A discard also names the cards given up: they must be in the hand (``hand``)."""
    for step, op in enumerate(operations, 1):
        kind, handle = op.get("op"), op.get("handle")
        handle = handle if isinstance(handle, str) else None
        cards = str(op.get("cards") or "").split()
        if kind == "deal":
            yield step, handle, "deal", 5, cards
        elif kind == "discard" and cards:
            yield step, handle, "discarded", 0, cards
            yield step, handle, "draw", len(cards), str(op.get("drawn") or "").split()
        elif kind in ("reveal", "won") and cards:
            yield step, handle, "hand", 0, cards


def holdem_draws(operations: Sequence[Mapping[str, object]]
                 ) -> Iterator[tuple[int, str | None, str, int, list[str]]]:
    """The Hold'em record's use of the deck (``docs/rules.md``): the ``deal`` lines hold
    each player's two hole cards in the order dealt, one card at a time round the table
    twice; each ``board`` line a ``burn`` card, then its cards; ``show`` a hand shown."""
    deals = [(step, op) for step, op in enumerate(operations, 1) if op.get("op") == "deal"]
    for r in range(2):
        for step, op in deals:
            cards = str(op.get("cards") or "").split()
            yield step, str(op.get("handle")), "draw", 1, cards[r:r + 1]
    for step, op in enumerate(operations, 1):
        if op.get("op") == "board":
            if op.get("burn"):
                yield step, None, "draw", 1, [str(op["burn"])]
            cards = str(op.get("cards") or "").split()
            yield step, None, "draw", len(cards), cards
        elif op.get("op") == "show":
            yield step, str(op.get("handle")), "hand", 0, str(op.get("cards") or "").split()


#: Game kind -> its deck and the walk of its record.
DECKS: dict[str, tuple[DeckSpec, Walk]] = {"draw40": (GV40, draw40_draws),
                                          "holdem": (STANDARD52, holdem_draws)}


@dataclass(frozen=True)
class Verdict:
    """What :func:`verify_deal` found: ``commitment_ok`` (SHA-256 of the seed equals the
    commitment shown at the start), ``deck`` (notation, the top card first), ``checked``
    (cards of the record compared with the deck) and ``mismatches``."""

    commitment_ok: bool
    deck: tuple[str, ...]
    checked: int
    mismatches: tuple[Mismatch, ...]

    @property
    def ok(self) -> bool:
        """The seed matches its commitment and every card of the record is the deck's."""
        return self.commitment_ok and not self.mismatches


def verify_deal(kind: str, game_id: int, server_seed: bytes, commitment: str,
                client_seeds: Sequence[str], operations: Sequence[Mapping[str, object]]
                ) -> Verdict:
    """Recompute game ``game_id``'s deck (``kind``: a key of :data:`DECKS`) from
    ``server_seed`` and ``client_seeds`` (seat order) and check ``operations`` (the
    record's ``as_dict`` form) against it. Raises ``KeyError`` for an unknown kind."""
    spec, walk = DECKS[kind]
    deck = tuple(fairness.shuffle(spec.cards(), server_seed, game_id, client_seeds))
    norm = {c.upper(): c for c in deck}
    order = {c: i for i, c in enumerate(spec.cards())}
    found: list[Mismatch] = []
    hands: dict[str | None, set[str]] = {}
    top = checked = 0
    for step, handle, what, count, recorded in walk(operations):
        cards = [norm.get(c.upper(), c) for c in recorded]
        if what == "discarded":
            if not set(cards) <= hands.get(handle, set()):
                found.append(Mismatch(step, handle, "hand", _text(hands.get(handle, ()), order),
                                      " ".join(cards)))
            hands[handle] = hands.get(handle, set()) - set(cards)
            continue
        if what == "hand":
            checked += len(cards)
            if set(cards) != hands.get(handle):
                found.append(Mismatch(step, handle, "hand", _text(hands.get(handle, ()), order),
                                      " ".join(cards)))
            continue
        expected = list(deck[top:top + count])
        top += count
        checked += len(cards)
        if len(expected) < count:
            found.append(Mismatch(step, handle, "short", " ".join(expected), " ".join(cards)))
        elif (set(cards) != set(expected) or len(cards) != count) if what == "deal" \
                else cards != expected:
            found.append(Mismatch(step, handle, what, " ".join(expected), " ".join(cards)))
        # Later steps are checked against what the deck gave, not what was recorded.
        hands[handle] = (set() if what == "deal" else hands.get(handle, set())) | set(expected)
    return Verdict(fairness.commitment(server_seed) == commitment.lower(), deck, checked,
                   tuple(found))


def _text(cards: set[str] | tuple[str, ...], order: Mapping[str, int]) -> str:
    """Cards in the deck's notation order, space-separated."""
    return " ".join(sorted(cards, key=lambda c: order.get(c, len(order))))
