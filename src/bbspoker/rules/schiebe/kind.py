"""Schiebe-Poker as a kind (:data:`SCHIEBE`): its config, how a table of it is made, its
deck and the replay of its record that ``games verify`` follows."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from bbspoker.rules.base import (KindConfig, KindSpec, Mismatch, Phrases, SettingError,
                                 Step, setting)
from bbspoker.rules.cards import STANDARD52
from bbspoker.rules.schiebe.game import Schiebe, SchiebeRules

__all__ = ["SchiebeConfig", "SCHIEBE", "schiebe_draws"]


@dataclass(frozen=True)
class SchiebeConfig(KindConfig):
    """A Schiebe-Poker table's config: ``seats`` (2-4), ``turn_timeout``, ``ante`` (CUBES
    per player, 0: no stakes) and ``rounds``, the number of rounds (2-7) the host
    proposes; ``bots`` with ``bot_policy`` one of :attr:`bot_policies`. A table's entry
    that does not set them has no ante, at most 4 seats (``[table]``'s if fewer), no
    computer players and the ``lookahead`` policy, whatever ``[table]`` says."""

    seats: int = setting(4, 2, 9)
    ante: int = setting(0, 0, 10**9)
    rounds: int = setting(3, 2, 7)
    bot_policy: str = setting("lookahead")

    kind: ClassVar[str] = "schiebe"
    bot_policies: ClassVar[tuple[str, ...]] = ("lookahead", "random")
    own_defaults: ClassVar[frozenset[str]] = frozenset({"ante", "bots", "bot_policy"})

    @classmethod
    def inherit(cls, defaults: Mapping[str, Any]) -> dict[str, Any]:
        """As every kind, but ``[table]``'s seats only up to 4."""
        taken = super().inherit(defaults)
        if "seats" in taken:
            taken["seats"] = min(taken["seats"], 4)
        return taken

    def check(self) -> None:
        """At most 4 seats, and the checks of every kind. Raises :class:`SettingError`."""
        if not 2 <= self.seats <= 4:
            raise SettingError(f"seats must be between 2 and 4 for schiebe, got {self.seats}")
        if self.ante < 0:
            raise SettingError(f"ante must be between 0 and {10**9}, got {self.ante}",
                               key="ante")
        if not 2 <= self.rounds <= 7:
            raise SettingError(f"rounds must be between 2 and 7, got {self.rounds}",
                               key="rounds")
        self._check_bots()
        self._check_policy()

    def rules(self) -> SchiebeRules:
        """The game's numbers."""
        return SchiebeRules(seats=self.seats, rounds=self.rounds, ante=self.ante,
                            turn_timeout=self.turn_timeout)


def _make(config: SchiebeConfig, wallet: Any, phrases: Phrases | None) -> Schiebe:
    """A Schiebe-Poker table's game (``wallet``: the table's)."""
    return Schiebe(wallet, config.rules(), phrases=phrases)


def schiebe_draws(operations: Sequence[Mapping[str, object]]) -> Iterator[Step | Mismatch]:
    """The Schiebe-Poker record replayed (``rules/schiebe/game.py``): ``deal`` takes each
    player's five cards from the top in order (two hidden, three open), ``middle`` the
    three middle cards; a ``push`` puts the middle row's edge card on the discard pile,
    reshuffles the discard pile into a new deck when the record says so (``reshuffle``:
    the pile as the replay has it), and draws one card; ``swap`` and ``swap_all`` move
    open cards; a player who ``left`` takes their cards out of play; ``reveal`` shows a
    hand that must be the one the replay holds. Where the record names a card that the
    replay does not have at that place, a :class:`Mismatch` ``record`` is yielded and
    the replay goes on with the record's card. Raises ``ValueError`` or ``TypeError``
    for a record whose figures are not numbers."""
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
                yield step, None, "reshuffle", _number(op["reshuffle"]), pile
                pile = []
            new = str(op.get("in") or "")
            yield step, h, "draw", 1, [new]
            middle.insert(len(middle) if left else 0, new)
        elif kind == "swap" and h in hands:
            assert h is not None
            own, mid = _number(op["own"]) + 2, _number(op["middle"])
            if (hands[h][own], middle[mid]) != (op.get("gave"), op.get("took")):
                yield Mismatch(step, h, "record", f"{hands[h][own]} {middle[mid]}",
                               f"{op.get('gave')} {op.get('took')}")
            hands[h][own], middle[mid] = middle[mid], hands[h][own]
        elif kind == "swap_all" and h in hands:
            assert h is not None
            if (hands[h][2:], middle) != (str(op.get("gave")).split(), str(op.get("took")).split()):
                yield Mismatch(step, h, "record", " ".join(hands[h][2:] + middle),
                               f"{op.get('gave')} {op.get('took')}")
            hands[h][2:], middle = middle, hands[h][2:]
        elif kind == "left" and h in hands:
            assert h is not None
            del hands[h]
        elif kind == "reveal" and h is not None:
            shown = str(op.get("hidden") or "").split() + str(op.get("open") or "").split()
            if shown != hands.get(h):
                yield Mismatch(step, h, "hand", " ".join(hands.get(h, [])), " ".join(shown))


def _number(value: object) -> int:
    """A whole number of the record (``int()`` of it: raises ``ValueError`` or
    ``TypeError`` for what is not one)."""
    if isinstance(value, (int, float, str)):
        return int(value)
    raise TypeError(f"not a number: {value!r}")


def _wire() -> tuple[type, ...]:
    """Schiebe-Poker's own types on the wire (:attr:`~bbspoker.rules.base.KindSpec.wire`):
    its rules, seat view, board, phase, the hand categories of its ranking, and its own
    actions."""
    from bbspoker.rules.schiebe import actions
    from bbspoker.rules.schiebe.game import Board, Phase, SeatView
    from bbspoker.rules.schiebe.hands import Category
    return (SchiebeRules, SeatView, Board, Phase, Category, actions.Propose, actions.Vote,
            actions.Push, actions.Swap, actions.SwapAll, actions.NoSwap)


#: Schiebe-Poker.
SCHIEBE = KindSpec("schiebe", "Schiebe-Poker", SchiebeConfig, _make, STANDARD52, schiebe_draws,
                   wire=_wire)
