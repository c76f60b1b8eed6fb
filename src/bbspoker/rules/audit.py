"""Checking a recorded game against its provably fair deck (``bbspoker games
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

__all__ = ["Mismatch", "Verdict", "verify_deal", "DECKS", "draw40_draws", "holdem_draws",
           "schiebe_draws"]


@dataclass(frozen=True)
class Mismatch:
    """One step of a record whose cards are not what the deck gives.

    ``step``: 1-based position in the record's operations; ``handle``: whose step;
    ``what``: ``deal`` (the five cards dealt), ``draw`` (the cards drawn in a discard, in
    the order drawn), ``hand`` (a hand shown or discarded from is not the one the deck
    gave), ``short`` (the record takes more cards than the deck has) or ``record`` (the
    record contradicts its own replay: a card moved that was not where the record put
    it); ``expected`` and ``recorded``: the cards (notation, space-separated) by the deck
    (or the replay) and by the record."""

    step: int
    handle: str | None
    what: str
    expected: str
    recorded: str


#: A game kind's walk of its record: for each operation that takes cards from the deck
#: or shows a hand, ``(step, handle, what, count, recorded cards)``; ``what`` is ``deal``
#: (``count`` cards from the top, compared as a set), ``draw`` (``count`` cards from the
#: top, compared in order), ``hand`` (``count`` 0: the cards must be the hand held) or
#: ``reshuffle`` (the cards given, the discard pile, become the new deck in the order of
#: the game's sub-stream ``reshuffle-<count>``, docs/fairness.md). A walk that replays
#: the game may also yield a :class:`Mismatch` (``record``) where the record
#: contradicts itself.
Walk = Callable[[Sequence[Mapping[str, object]]],
                Iterator["tuple[int, str | None, str, int, list[str]] | Mismatch"]]


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


def schiebe_draws(operations: Sequence[Mapping[str, object]]
                  ) -> Iterator[tuple[int, str | None, str, int, list[str]] | Mismatch]:
    """The Schiebe-Poker record replayed (``rules/schiebe/game.py``): ``deal`` takes each
    player's five cards from the top in order (two hidden, three open), ``middle`` the
    three middle cards; a ``push`` puts the middle row's edge card on the discard pile,
    reshuffles the discard pile into a new deck when the record says so (``reshuffle``:
    the pile as the replay has it), and draws one card; ``swap`` and ``swap_all`` move
    open cards; a player who ``left`` takes their cards out of play; ``reveal`` shows a
    hand that must be the one the replay holds. Where the record names a card that the
    replay does not have at that place, a :class:`Mismatch` ``record`` is yielded and
    the replay goes on with the record's card."""
    hands: dict[str, list[str]] = {}      # handle -> hidden + open (5)
    middle: list[str] = []
    pile: list[str] = []
    for step, op in enumerate(operations, 1):
        kind, handle = op.get("op"), op.get("handle")
        h = handle if isinstance(handle, str) else None
        if kind == "deal" and h is not None:
            cards = str(op.get("hidden") or "").split() + str(op.get("open") or "").split()
            hands[h] = list(cards)
            yield step, h, "draw", 5, cards
        elif kind == "middle":
            middle = str(op.get("cards") or "").split()
            yield step, None, "draw", 3, list(middle)
        elif kind == "push" and h is not None and len(middle) == 3:
            left = op.get("direction") == "left"
            out = middle.pop(0 if left else -1)
            if op.get("out") != out:
                yield Mismatch(step, h, "record", out, str(op.get("out")))
            pile.append(out)
            if op.get("reshuffle"):
                yield step, None, "reshuffle", int(op["reshuffle"]), pile  # type: ignore[call-overload]
                pile = []
            new = str(op.get("in") or "")
            yield step, h, "draw", 1, [new]
            middle.insert(len(middle) if left else 0, new)
        elif kind == "swap" and h in hands:
            own, mid = int(op["own"]) + 2, int(op["middle"])  # type: ignore[call-overload]
            if (hands[h][own], middle[mid]) != (op.get("gave"), op.get("took")):
                yield Mismatch(step, h, "record", f"{hands[h][own]} {middle[mid]}",
                               f"{op.get('gave')} {op.get('took')}")
            hands[h][own], middle[mid] = middle[mid], hands[h][own]
        elif kind == "swap_all" and h in hands:
            if (hands[h][2:], middle) != (str(op.get("gave")).split(), str(op.get("took")).split()):
                yield Mismatch(step, h, "record", " ".join(hands[h][2:] + middle),
                               f"{op.get('gave')} {op.get('took')}")
            hands[h][2:], middle = middle, hands[h][2:]
        elif kind == "left" and h in hands:
            del hands[h]
        elif kind == "reveal" and h is not None:
            shown = str(op.get("hidden") or "").split() + str(op.get("open") or "").split()
            if shown != hands.get(h):
                yield Mismatch(step, h, "hand", " ".join(hands.get(h, [])), " ".join(shown))


#: Game kind -> its deck and the walk of its record.
DECKS: dict[str, tuple[DeckSpec, Walk]] = {"draw40": (GV40, draw40_draws),
                                          "holdem": (STANDARD52, holdem_draws),
                                          "schiebe": (STANDARD52, schiebe_draws)}


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
