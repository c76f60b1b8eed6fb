"""Tournaments of computer players in the simulator (``bbspoker sim --tournament``): whole
tournaments played through the real tables of a game kind and the real tournament model
(:class:`bbspoker.table.tournament.TournamentTables`), on a clock of their own that moves
``seconds_per_action`` with each action (so the levels rise as they would at a table
where every action takes that long), as fast as the computer can.

After every hand the chips are counted (every entrant's starting chips, no more, no less:
:class:`~bbspoker.table.tournament.ChipsNotConserved` otherwise); at the end the prizes
must be the pool to the CUBE (``AssertionError``). An action the table refuses is
counted as illegal (it must never happen) and replaced by the kind's safe one.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bbspoker.bots.kind import BotKind, Decides
from bbspoker.rules.base import TournamentPlay
from bbspoker.rules.tournament import Tournament, TournamentRules
from bbspoker.table.tournament import TournamentTables

__all__ = ["PolicyResult", "TournamentSimResult", "simulate_tournaments"]

#: Hands one tournament may take before the simulator calls it stuck (a bug).
MAX_HANDS = 100_000


@dataclass
class PolicyResult:
    """One policy's results over the run: ``entries``, the sum of its ``places`` (for the
    mean), ``paid`` entries that won a prize, ``wins`` (first places) and ``net`` CUBES
    (prizes minus buy-ins)."""

    policy: str
    entries: int = 0
    places: int = 0
    paid: int = 0
    wins: int = 0
    net: int = 0

    @property
    def mean_place(self) -> float:
        """The average finishing place (1 = always won)."""
        return self.places / self.entries if self.entries else math.nan


@dataclass
class TournamentSimResult:
    """A run: ``tournaments`` played to the end, ``hands``, ``actions``, ``illegal``
    actions (must be 0), ``seconds`` of wall time, the longest tournament in ``hands``
    and in simulated seconds, the ``pool`` paid in all (CUBES) and results per policy."""

    policies: dict[str, PolicyResult]
    tournaments: int = 0
    hands: int = 0
    actions: int = 0
    illegal: int = 0
    seconds: float = 0.0
    longest_hands: int = 0
    longest_clock: float = 0.0
    paid: int = 0
    examples: list[str] = field(default_factory=list)


def simulate_tournaments(kind: BotKind[Any], play: TournamentPlay, config: Any,
                         rules: TournamentRules, policies: Sequence[Decides[Any]],
                         count: int, *, seed: int | None = 1,
                         seconds_per_action: float = 8.0,
                         progress: Callable[[int], None] | None = None
                         ) -> TournamentSimResult:
    """Play ``count`` tournaments of ``len(policies)`` computer players (one entrant per
    policy) at tables of ``kind`` (``play``: its tournament hooks, ``config``: its tables'
    config) under ``rules``; ``seed`` repeats a run. Raises ``ValueError`` if the kind's
    bots cannot play a hand here (:meth:`BotKind.play_hand`), ``AssertionError`` if chips
    are not conserved after a hand or the prizes are not the pool."""
    rng = random.Random(seed)
    result = TournamentSimResult({p.name: PolicyResult(p.name) for p in policies})
    began = time.perf_counter()
    for n in range(count):
        handles = [f"p{i + 1}" for i in range(len(policies))]
        by_handle = dict(zip(handles, policies))
        state = Tournament.draw(rules, handles, random.Random(rng.getrandbits(64)))
        tables = TournamentTables.open(play, config, state, 0.0)
        clocks = {number: 0.0 for number in tables.games}    # each table's own time
        now, hands = 0.0, 0
        wait = max(float(getattr(config, "between_hands",
                                 getattr(config, "between_games", 1.0))), 1.0)
        while not state.finished:
            number = min(tables.games, key=lambda t: (clocks.get(t, now), t))
            now = clocks.setdefault(number, now)
            tables.tick_level(now)
            hand = kind.play_hand(tables.games[number], by_handle, rng, now,
                                  seconds_per_action)
            result.actions += hand.actions
            result.illegal += hand.illegal
            for example in hand.examples[:10 - len(result.examples)]:
                result.examples.append(example)
            clocks[number] = hand.now if hand.game_id is not None else now + wait
            hands += hand.game_id is not None
            over, _ = tables.hand_over(number, hand.game_id, hand.now)
            tables.check_chips()
            for moved in over.moves:
                clocks.setdefault(moved.target, now)
            if over.broke:
                del clocks[number]
            if hands > MAX_HANDS:
                raise AssertionError(f"tournament {n + 1} did not end in {MAX_HANDS} hands")
        now = max(clocks.values(), default=now)
        pool = rules.buy_in * len(handles)
        prizes = state.prizes(pool)
        if sum(prizes.values()) != pool:
            raise AssertionError(f"tournament {n + 1} paid {sum(prizes.values())} of a "
                                 f"pool of {pool} CUBES")
        result.paid += pool
        for handle, place in state.places().items():
            r = result.policies[by_handle[handle].name]
            r.entries += 1
            r.places += place
            r.wins += place == 1
            r.paid += handle in prizes
            r.net += prizes.get(handle, 0) - rules.buy_in
        result.tournaments += 1
        result.hands += hands
        result.longest_hands = max(result.longest_hands, hands)
        result.longest_clock = max(result.longest_clock, now)
        if progress is not None:
            progress(result.tournaments)
    result.seconds = time.perf_counter() - began
    return result
