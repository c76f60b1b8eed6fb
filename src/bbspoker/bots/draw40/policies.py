"""Computer players' policies: ``decide(observation, rng) -> action``.

A policy sees one :class:`~bbspoker.bots.draw40.observation.Observation` (what its player's
screen shows) and a ``random.Random`` (the only source of its randomness, so that a run
with a seed repeats), and returns one action its player may take now: an instance of a
type in ``observation.legal``, with an amount inside ``observation.bet_range``.

Baselines: :class:`RandomPolicy` (uniform over the legal actions), :class:`CallingPolicy`
(a calling station: calls every bet, and from round 3 asks to see hands with the minimum,
so that its games end), :class:`AggressivePolicy` (always bets the maximum, and asks to
see hands with it as soon as it may). The real one for draw40 is
:class:`bbspoker.bots.draw40.equity.EquityPolicy`. :func:`policy` makes one by name.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from bbspoker.bots.draw40.base import Policy, fallback
from bbspoker.bots.draw40.observation import Observation
from bbspoker.rules import actions as act

__all__ = ["Policy", "RandomPolicy", "CallingPolicy", "AggressivePolicy", "POLICIES",
           "policy", "fallback"]


class RandomPolicy:
    """Uniform over the legal action types; a bet's amount uniform over the bet range;
    a discard of 0 to ``max_discard`` cards chosen at random."""

    name = "random"

    def decide(self, obs: Observation, rng: random.Random) -> act.Action:
        lo, hi = obs.bet_range
        choices = [t for t in obs.legal
                   if t not in (act.Bet, act.SeeHands) or lo <= hi]
        kind = rng.choice(choices) if choices else act.Pass
        if kind is act.Bet or kind is act.SeeHands:
            return kind(rng.randint(lo, hi))
        if kind is act.Discard:
            n = rng.randint(0, min(obs.rules.max_discard, len(obs.cards)))
            return act.Discard(tuple(rng.sample(obs.cards, n)))
        return kind()


class CallingPolicy:
    """A calling station: calls the minimum every turn, never passes while it can pay,
    keeps its cards, and from round 3 asks to see hands with the minimum bet."""

    name = "calling"

    def decide(self, obs: Observation, rng: random.Random) -> act.Action:
        lo, hi = obs.bet_range
        if act.SeeHands in obs.legal and lo <= hi:
            return act.SeeHands(lo)
        return fallback(obs)


class AggressivePolicy:
    """Always bets the maximum it may (``max_bet`` or all its CUBES), asks to see hands
    with it as soon as it may (round 3), keeps its cards."""

    name = "aggressive"

    def decide(self, obs: Observation, rng: random.Random) -> act.Action:
        lo, hi = obs.bet_range
        if lo <= hi:
            if act.SeeHands in obs.legal:
                return act.SeeHands(hi)
            if act.Bet in obs.legal:
                return act.Bet(hi)
        return fallback(obs)


def _equity() -> Policy:
    from bbspoker.bots.draw40.equity import EquityPolicy  # numpy: only when asked for
    return EquityPolicy()


#: Policy name -> a function that makes a fresh one.
POLICIES: dict[str, Callable[[], Policy]] = {
    "random": RandomPolicy,
    "calling": CallingPolicy,
    "aggressive": AggressivePolicy,
    "equity": _equity,
}


def policy(name: str) -> Policy:
    """A new policy called ``name``; raises ``ValueError`` listing the known names."""
    try:
        make = POLICIES[name]
    except KeyError:
        raise ValueError(f"unknown policy {name!r} (known: {', '.join(POLICIES)})") from None
    return make()
