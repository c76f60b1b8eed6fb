"""The policy interface of computer players, and the action that is always allowed."""

from __future__ import annotations

import random
from typing import Protocol, runtime_checkable

from bbspoker.bots.draw40.observation import Observation
from bbspoker.rules import actions as act

__all__ = ["Policy", "fallback"]


@runtime_checkable
class Policy(Protocol):
    """A computer player's decisions. ``name`` is how config, the simulator and [W]ho
    name it (``random``, ``calling``, ``aggressive``, ``equity``)."""

    name: str

    def decide(self, obs: Observation, rng: random.Random) -> act.Action:
        """The action to take now; ``obs.legal`` is not empty."""
        ...


def fallback(obs: Observation) -> act.Action:
    """The action that is always allowed when the player must act: reveal, keep every
    card, call the minimum if it can be paid, else pass; ``Start`` for a master."""
    legal = obs.legal
    lo, hi = obs.bet_range
    if act.Reveal in legal:
        return act.Reveal()
    if act.Discard in legal:
        return act.Discard(())
    if act.Bet in legal and lo <= hi:
        return act.Bet(lo)
    if act.Pass in legal:
        return act.Pass()
    return act.Start()
