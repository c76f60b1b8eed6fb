"""What the simulator measures (``bbspoker sim``): computer players play each other with
the real rules, a memory wallet and no clock, as fast as they can.

Each kind's simulator (:meth:`bbspoker.bots.kind.BotKind.simulate`; draw40's
:func:`bbspoker.bots.draw40.simulate`, :func:`bbspoker.bots.schiebe.simulate_schiebe`,
:func:`bbspoker.bots.holdem.simulate_holdem`) plays whole games through the kind's rules
object, counts an action the rules refuse as illegal (it must never happen) and replaces
it with the kind's safe action, checks after each game that the CUBES of the table equal
the CUBES before it (``AssertionError`` otherwise) and records each seat's gain or loss
here.

Every player starts with :data:`BANKROLL` CUBES, so nobody runs out; the figures are
CUBES won per game, with a 95% confidence interval (1.96 standard errors).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

__all__ = ["BANKROLL", "MAX_ACTIONS", "SeatResult", "SimResult", "HandPlay"]

#: CUBES each simulated player starts with: more than any run can lose.
BANKROLL = 10**12
#: Actions one game may take before the simulator calls it stuck (a bug).
MAX_ACTIONS = 100_000


@dataclass
class SeatResult:
    """One seat's figures: ``policy`` name, ``games`` played, ``total`` CUBES won (negative:
    lost), ``squares`` (sum of each game's result squared, for the spread)."""

    seat: int
    policy: str
    games: int = 0
    total: int = 0
    squares: int = 0

    @property
    def mean(self) -> float:
        """CUBES won per game."""
        return self.total / self.games if self.games else 0.0

    @property
    def ci95(self) -> float:
        """Half the width of the 95% confidence interval of :attr:`mean` (CUBES/game)."""
        if self.games < 2:
            return math.inf
        var = (self.squares - self.total * self.total / self.games) / (self.games - 1)
        return 1.96 * math.sqrt(max(var, 0.0) / self.games)


@dataclass
class SimResult:
    """What a run measured: per seat (:class:`SeatResult`), ``games``, ``actions``,
    ``illegal`` actions (must be 0), ``seconds`` of wall time, CUBES ``to_system`` (pots
    nobody won) and whether every game ended and CUBES were conserved (``conserved``)."""

    seats: list[SeatResult]
    games: int = 0
    actions: int = 0
    illegal: int = 0
    seconds: float = 0.0
    to_system: int = 0
    conserved: bool = True
    illegal_examples: list[str] = field(default_factory=list)

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds else math.inf

    def by_policy(self) -> dict[str, SeatResult]:
        """The seats of each policy pooled (``seat`` -1)."""
        pooled: dict[str, SeatResult] = {}
        for s in self.seats:
            p = pooled.setdefault(s.policy, SeatResult(-1, s.policy))
            p.games += s.games
            p.total += s.total
            p.squares += s.squares
        return pooled


@dataclass
class HandPlay:
    """What playing one hand of a tournament table took
    (:meth:`bbspoker.bots.kind.BotKind.play_hand`): ``actions``, ``illegal`` ones
    (replaced by the kind's safe action), up to a few ``examples`` of them, the hand's
    ``game_id`` (``None``: none was dealt, fewer than two players could play) and the
    table's clock ``now`` when it ended (seconds)."""

    actions: int = 0
    illegal: int = 0
    examples: list[str] = field(default_factory=list)
    game_id: int | None = None
    now: float = 0.0
