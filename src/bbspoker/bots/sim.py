"""The simulator: computer players play draw40 with the real rules, a memory wallet and no
clock, as fast as they can (``bbspoker sim``).

Each seat has a policy. Every game is played by :class:`~bbspoker.rules.draw40.game.Draw40`
itself: the game-master's policy opens it, then the player in turn acts until the game is
over. An action the rules refuse is counted as illegal (it must never happen) and the
player then takes :func:`~bbspoker.bots.policies.fallback`, so the run goes on. After each
game the CUBES of the table must equal the CUBES before it (checked: ``AssertionError``
otherwise) and each seat's gain or loss is recorded.

Every player starts with :data:`BANKROLL` CUBES, so nobody runs out; the figures are
CUBES won per game, with a 95% confidence interval (1.96 standard errors).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from bbspoker.bots.observation import PublicLog, observe
from bbspoker.bots.base import Policy, fallback
from bbspoker.rules import actions as act
from bbspoker.rules.draw40.game import Draw40, Draw40Rules, Phase
from bbspoker.rules.events import RuleError
from bbspoker.store.wallet import SYSTEM, MemoryWallet

__all__ = ["BANKROLL", "SeatResult", "SimResult", "simulate"]

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


def simulate(policies: Sequence[Policy], games: int, *, seed: int | None = None,
             rules: Draw40Rules | None = None,
             progress: Callable[[int], None] | None = None) -> SimResult:
    """Play ``games`` draw40 games with one seat per policy (2 to 5) and return the
    figures. ``seed`` makes the run repeat exactly (deals and every policy's choices);
    ``rules`` defaults to the standard table without a pause between games;
    ``progress(games_done)`` is called every 1,000 games. Raises ``ValueError`` for a
    bad number of seats, ``AssertionError`` if CUBES are not conserved or a game does
    not end within :data:`MAX_ACTIONS` actions."""
    rules = rules or Draw40Rules(between_games=0)
    if not 2 <= len(policies) <= rules.seats:
        raise ValueError(f"between 2 and {rules.seats} players, got {len(policies)}")
    rng = random.Random(seed)
    handles = [f"p{i + 1}" for i in range(len(policies))]
    by_handle = dict(zip(handles, policies))
    wallet = MemoryWallet({h: BANKROLL for h in handles} | {SYSTEM: 0})
    game = Draw40(wallet, rules, rng=random.Random(rng.getrandbits(64)))
    logs = {h: PublicLog(h) for h in handles}
    for h in handles:
        game.apply(h, act.Sit(), 0.0)
    result = SimResult([SeatResult(i, p.name) for i, p in enumerate(policies)])
    total = wallet.total()
    began = time.perf_counter()
    balances = wallet.balances
    for n in range(games):
        before = [balances[h] for h in handles]
        actions = 0
        while True:
            handle = game.current if game.phase is not Phase.IDLE else game.master
            assert handle is not None
            obs = observe(game, handle, logs[handle], 0.0, balances[handle])
            action = by_handle[handle].decide(obs, rng)
            try:
                events = game.apply(handle, action, 0.0)
            except RuleError as err:
                result.illegal += 1
                if len(result.illegal_examples) < 10:
                    result.illegal_examples.append(f"{by_handle[handle].name}: {action!r} "
                                                   f"refused ({err.code})")
                events = game.apply(handle, fallback(obs), 0.0)
            for log in logs.values():
                log.feed(events)
            actions += 1
            if game.phase is Phase.IDLE:
                break
            if actions > MAX_ACTIONS:
                raise AssertionError(f"game {n + 1} did not end in {MAX_ACTIONS} actions")
        result.actions += actions
        for seat, h in enumerate(handles):
            won = balances[h] - before[seat]
            s = result.seats[seat]
            s.games += 1
            s.total += won
            s.squares += won * won
        # The journal and game records would grow without end: the run keeps figures only.
        wallet.journal.clear()
        wallet.games.clear()
        wallet.pots.clear()
        if wallet.total() != total:
            result.conserved = False
            raise AssertionError(f"CUBES not conserved after game {n + 1}: "
                                 f"{wallet.total()} != {total}")
        result.games += 1
        if progress is not None and result.games % 1000 == 0:
            progress(result.games)
    result.seconds = time.perf_counter() - began
    result.to_system = balances[SYSTEM]
    return result
