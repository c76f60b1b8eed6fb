"""Checking a recorded game against its provably fair deck (``bbspoker games
verify``; the function is specified in ``docs/fairness.md``).

Pure: given what a game record reveals once the game has ended (the server seed, the
commitment shown at the start, the client seeds, the game id and the record of
operations), :func:`verify_deal` recomputes the deck and walks the record, taking cards
from the top of the deck as the game kind deals them, and reports every step whose cards
are not the deck's. Answers are codes and card notation; the CLI makes the sentences.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bbspoker.rules import fairness
from bbspoker.rules.base import Mismatch
from bbspoker.rules.kinds import kind as kind_named

__all__ = ["Mismatch", "Verdict", "verify_deal"]


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
    """Recompute game ``game_id``'s deck (``kind``: the name of a game kind, whose deck
    and walk of its record :data:`bbspoker.rules.kinds.KINDS` give) from
    ``server_seed`` and ``client_seeds`` (seat order) and check ``operations`` (the
    record's ``as_dict`` form) against it. Raises
    :class:`~bbspoker.rules.kinds.UnknownKind` (a ``LookupError``) for an unknown kind."""
    game = kind_named(kind)
    spec, walk = game.deck, game.walk
    deck = tuple(fairness.shuffle(spec.cards(), server_seed, game_id, client_seeds))
    norm = {c.upper(): c for c in deck}
    order = {c: i for i, c in enumerate(spec.cards())}
    found: list[Mismatch] = []
    hands: dict[str | None, set[str]] = {}
    top = checked = 0
    source = deck          # what the next card is drawn from: the deck, or a reshuffle
    for item in walk(operations):
        if isinstance(item, Mismatch):
            found.append(item)
            continue
        step, handle, what, count, recorded = item
        cards = [norm.get(c.upper(), c) for c in recorded]
        if what == "reshuffle":
            pile = sorted(cards, key=lambda c: order.get(c, len(order)))
            source = tuple(fairness.shuffle(pile, server_seed, game_id, client_seeds,
                                            f"reshuffle-{count}"))
            top = 0
            continue
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
        expected = list(source[top:top + count])
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
