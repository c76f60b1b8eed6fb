"""The draw40 policy that thinks: Monte Carlo equity, discards by expected strength, bets
from pot odds.

**Equity.** The cards the player cannot see are the 40 of the deck less its own hand and
the hands revealed at the showdown (the cards others discarded are unknown, so they
count as unseen). :meth:`EquityPolicy.equity` deals the opponents still in the game
``samples`` random hands from them, ranks every hand at once with the bulk evaluator
(:func:`bbspoker.rules.draw40.hands.strengths`, chapter 3) and counts how often its own
hand beats them all. Before the discarding interval its own hand is first improved the
way it will discard (the best expected hand, below), so a four-flush is worth what it
may become. An opponent who kept every card in the discarding interval is dealt only
hands of one pair or better (a player stands pat on something).

**Discards.** Every choice of 0 to ``max_discard`` cards to throw (26 choices of five
cards) is tried on the same ``samples`` random draws against the same random opponents;
the choice that wins most often is taken (a shared sample keeps the comparison fair).

**Bets.** With equity ``e``, ``n`` opponents, a minimum bet ``lo`` and pot ``p``: the
price of a call is ``lo / (p + lo)``. Below it (less a little slack) the policy passes;
well above a fair share (``1 / (n + 1)``) it raises, more the stronger it is, up to the
maximum; from round 3 a strong hand asks to see hands, and a hand that has played
``patience`` betting rounds asks with the minimum. A little noise (``jitter``) on every
threshold and amount keeps it from being a fixed target.
"""

from __future__ import annotations

import itertools
import random

import numpy as np

from bbspoker.bots.draw40.observation import Observation
from bbspoker.bots.draw40.base import fallback
from bbspoker.rules import actions as act
from bbspoker.rules.cards import DECK, Card
from bbspoker.rules.draw40.hands import strengths

__all__ = ["EquityPolicy"]

def _min_pair_strength() -> int:
    """The lowest strength of any one-pair hand (5-5-6-7-8 of the lowest suits)."""
    from bbspoker.rules.cards import parse_cards
    from bbspoker.rules.draw40.hands import evaluate
    return int(evaluate(parse_cards("5- 5# 6- 7- 8#")))


#: The strength of the weakest one-pair hand: a pat opponent holds at least this.
_PAIR = _min_pair_strength()


class EquityPolicy:
    """See the module docstring. ``samples``: random deals per estimate (more is slower
    and steadier); ``jitter``: the spread of the noise on thresholds and amounts (0: none);
    ``patience``: betting rounds after which it asks to see hands with the minimum."""

    name = "equity"

    def __init__(self, samples: int = 160, jitter: float = 0.05, patience: int = 4) -> None:
        if samples < 1:
            raise ValueError("samples must be at least 1")
        self.samples = samples
        self.jitter = jitter
        self.patience = patience

    # ----------------------------------------------------------------- decisions

    def decide(self, obs: Observation, rng: random.Random) -> act.Action:
        legal = obs.legal
        if act.Start in legal:
            return act.Start()
        if act.Reveal in legal or not obs.cards:
            return fallback(obs)
        nrng = np.random.default_rng(rng.getrandbits(64))
        if act.Discard in legal:
            return act.Discard(self.best_discard(obs, nrng)[0])
        return self._bet(obs, rng, nrng)

    def _bet(self, obs: Observation, rng: random.Random, nrng: np.random.Generator
             ) -> act.Action:
        lo, hi = obs.bet_range
        if lo > hi:
            return act.Pass()
        e = self.equity(obs, nrng)
        n = max(len(obs.opponents), 1)
        pot = obs.pot or 0
        noise = lambda: rng.gauss(0.0, self.jitter) if self.jitter else 0.0  # noqa: E731
        price = lo / (pot + lo)
        if e < price * 0.8 + noise() and act.Pass in obs.legal:
            return act.Pass()
        fair = 1.0 / (n + 1)
        # How far above a fair share: 0 at the fair share, 1 at certainty.
        edge = max(0.0, min(1.0, (e - fair) / (1.0 - fair) + noise()))
        amount = lo
        if edge > 0.25:
            amount = lo + round((hi - lo) * min(1.0, (edge - 0.25) / 0.6) ** 1.5)
        amount = max(lo, min(hi, amount))
        rounds = obs.round or 1
        if act.SeeHands in obs.legal and (edge > 0.55 + noise()
                                          or rounds >= 2 + self.patience):
            return act.SeeHands(amount)
        return act.Bet(amount)

    # ----------------------------------------------------------------- estimates

    def _unseen(self, obs: Observation) -> np.ndarray:
        """Indices of the cards the player cannot see."""
        known = {c.index for c in obs.cards}
        for cards in obs.revealed.values():
            known.update(c.index for c in cards)
        return np.array([i for i in range(len(DECK)) if i not in known], dtype=np.int64)

    def _pat(self, obs: Observation) -> set[str]:
        """Opponents who kept every card in this game's discarding interval."""
        return {s.handle for s in obs.log if s.kind == "discard" and s.value == 0}

    def _deals(self, unseen: np.ndarray, nrng: np.random.Generator, take: int) -> np.ndarray:
        """``samples`` rows of ``take`` distinct unseen card indices each."""
        keys = nrng.random((self.samples, len(unseen)))
        order = np.argpartition(keys, take - 1, axis=1)[:, :take] if take < len(unseen) \
            else np.argsort(keys, axis=1)
        return unseen[order]

    def _opponents_best(self, obs: Observation, deals: np.ndarray, start: int) -> np.ndarray:
        """The best opponent strength of each sample: opponent ``k`` holds columns
        ``start + 5k`` .. ``start + 5k + 4``; an opponent who stood pat and was dealt less
        than a pair counts as holding the weakest pair (a floor, not a resample)."""
        pat = self._pat(obs)
        best = np.zeros(len(deals), dtype=np.int64)
        for k, handle in enumerate(obs.opponents):
            s = strengths(deals[:, start + 5 * k: start + 5 * k + 5])
            if handle in pat:
                s = np.maximum(s, _PAIR)
            best = np.maximum(best, s)
        return best

    def equity(self, obs: Observation, nrng: np.random.Generator) -> float:
        """The chance (0..1) that the player's hand beats every opponent still in the game
        at the showdown; before the discarding interval, of the hand its best discard
        is expected to make."""
        if not obs.opponents:
            return 1.0
        if obs.round is not None and obs.round < 2 and obs.rules.max_discard:
            return self.best_discard(obs, nrng)[1]
        unseen = self._unseen(obs)
        deals = self._deals(unseen, nrng, 5 * len(obs.opponents))
        mine = int(strengths(np.array([[c.index for c in obs.cards]]))[0])
        return float(np.mean(mine > self._opponents_best(obs, deals, 0)))

    def best_discard(self, obs: Observation, nrng: np.random.Generator
                     ) -> tuple[tuple[Card, ...], float]:
        """``(cards to throw, equity after drawing)`` of the best choice of 0 to
        ``max_discard`` cards, every choice tried on the same random draws and opponents."""
        hand = obs.cards
        unseen = self._unseen(obs)
        most = min(obs.rules.max_discard, len(hand))
        n_opp = len(obs.opponents)
        deals = self._deals(unseen, nrng, most + 5 * n_opp)
        best_opp = self._opponents_best(obs, deals, most) if n_opp else None
        mine = np.array([c.index for c in hand], dtype=np.int64)
        choice: tuple[Card, ...] = ()
        best = -1.0
        for k in range(most + 1):
            for thrown in itertools.combinations(range(len(hand)), k):
                kept = np.delete(mine, thrown)
                rows = np.concatenate(
                    [np.broadcast_to(kept, (len(deals), len(kept))), deals[:, :k]], axis=1)
                s = strengths(rows)
                score = float(np.mean(s > best_opp)) if best_opp is not None \
                    else float(np.mean(s)) / 2**30
                if score > best:
                    best, choice = score, tuple(hand[i] for i in thrown)
        return choice, (best if best_opp is not None else 1.0)
