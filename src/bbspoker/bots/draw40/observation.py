"""What a computer player knows: exactly what its player's screen may show.

A policy decides from an :class:`Observation` and nothing else. The observation holds the
player's own cards, the public state of the table (who still competes, the pot, the
round, the bet range, the legal actions, revealed hands) and the public record of this
game (:class:`Seen`: bets, passes, how many cards each player discarded). It has no field
that could hold another player's hidden cards, and its builders read only the player's
own cards (:meth:`Draw40.cards_of` of that handle, or the ``PrivateCards`` the bus sends
that viewer): that is what makes the rule "a bot never sees hidden cards" structural.

:class:`PublicLog` turns the events of the rules into the record, and refuses an event
meant for another player (``Event.to``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from bbspoker.rules import actions as act
from bbspoker.rules.cards import Card
from bbspoker.rules.draw40.game import Draw40, Draw40Rules, Phase
from bbspoker.rules.events import Event

__all__ = ["Seen", "Observation", "PublicLog", "observe"]


class Seen(NamedTuple):
    """One public happening of the running game: ``kind`` is ``bet`` (``value`` the
    CUBES; ``raised`` whether it was a raise), ``see_hands`` (the bet that asked, CUBES),
    ``pass``, ``discard`` (``value`` how many cards), ``reveal``; ``round`` is the round
    it happened in."""

    handle: str
    kind: str
    value: int
    round: int
    raised: bool = False


@dataclass(frozen=True, slots=True)
class Observation:
    """One player's view of a draw40 table at the moment it must act.

    - ``handle``: the player; ``cards``: their own hand (sorted, highest at the right;
      empty if not dealt in).
    - ``legal``: the action types they may use now (command-area order); ``bet_range``:
      ``(minimum, maximum)`` CUBES of a bet now (may be empty: minimum > maximum);
      ``cubes``: their CUBES.
    - ``phase``, ``round`` (``None`` with no game), ``pot`` (CUBES, ``None`` with no
      game); ``active``: the handles still competing, in seat order (the player among
      them if they are); ``revealed``: ``{handle: cards}`` shown at the showdown.
    - ``log``: this game's public record, oldest first.
    - ``rules``: the table's numbers (ante, bets, how many cards one may discard).
    """

    handle: str
    cards: tuple[Card, ...]
    legal: tuple[type[act.Action], ...]
    bet_range: tuple[int, int]
    cubes: int
    phase: Phase
    round: int | None
    pot: int | None
    active: tuple[str, ...]
    revealed: Mapping[str, tuple[Card, ...]]
    log: tuple[Seen, ...]
    rules: Draw40Rules

    @property
    def opponents(self) -> tuple[str, ...]:
        """The other players still competing, in seat order."""
        return tuple(h for h in self.active if h != self.handle)


@dataclass
class PublicLog:
    """The public record of the running game as ``viewer`` saw it: feed it every event
    the table produced (:meth:`feed`); an event addressed to somebody else is dropped
    here, so nothing private of another player can reach a policy through it."""

    viewer: str
    seen: list[Seen] = field(default_factory=list)
    round: int = 1

    def feed(self, events: Iterable[Event]) -> None:
        """Take the events of one step, in order (from ``Draw40.apply`` or the bus)."""
        viewer = self.viewer
        for e in events:
            if e.to is not None and e.to != viewer:
                continue
            kind = e.kind
            if kind == "started":
                self.seen.clear()
                self.round = 1
            elif kind == "round":
                self.round = e.data.get("round", self.round + 1)
            elif kind == "bet":
                self.seen.append(Seen(e.handle or "", "bet", e.data["amount"], self.round,
                                      e.data.get("raised", False)))
            elif kind == "see_hands":
                amount = self.seen[-1].value if self.seen else 0
                self.seen.append(Seen(e.handle or "", "see_hands", amount, self.round))
            elif kind == "pass":
                self.seen.append(Seen(e.handle or "", "pass", 0, self.round))
            elif kind == "discard":
                self.seen.append(Seen(e.handle or "", "discard", e.data.get("count", 0),
                                      self.round))
            elif kind == "reveal":
                self.seen.append(Seen(e.handle or "", "reveal", 0, self.round))


def observe(game: Draw40, handle: str, log: PublicLog, now: float,
            cubes: int | None = None) -> Observation:
    """``handle``'s :class:`Observation` of ``game`` now (the simulator's builder; a bot at
    a live table builds the same from the table's snapshot). Reads the public state and
    ``handle``'s own cards only. ``cubes``: the player's CUBES if the caller knows them
    (else the wallet is asked). Raises ``RuleError`` ``not_seated``."""
    cards = game.cards_of(handle)
    if cubes is None:
        cubes = game.wallet.balance(handle)
    seats = game.seats()
    running = game.phase is not Phase.IDLE
    return Observation(
        handle=handle,
        cards=cards,
        legal=game.legal_actions(handle, now),
        bet_range=game.bet_range(handle, cubes),
        cubes=cubes,
        phase=game.phase,
        round=game.round,
        pot=game.pot,
        active=tuple(s.handle for s in seats if running and s.active),
        revealed={s.handle: s.revealed for s in seats if s.revealed},
        log=tuple(log.seen),
        rules=game.rules,
    )
