"""Computer players for fixed-limit Texas Hold'em.

A Hold'em policy decides from a :class:`HoldemView`: its own two hole cards, the community
cards, what it costs to stay in and whether it may bet or raise, the pot, how many others
are still in the hand. Like the draw40 :class:`~bbspoker.bots.observation.Observation` it
has no field for anyone else's hole cards, and :func:`view` reads only the player's own.

Policies: :class:`HoldemRandom` (uniform over the legal actions), :class:`HoldemCalling`
(a calling station: never folds, never raises) and :class:`HoldemEquity`:

- **preflop** the hand's strength by the Chen formula (Bill Chen, "The Mathematics of
  Poker" era rule of thumb: the high card's points, pairs doubled, suited +2, gaps
  penalised, small connectors rewarded): raise from 10 points, call from 7 (from 5 when
  it costs no more than a small blind), else fold, or check when that is free;
- **after the flop** its equity against the opponents still in, estimated by pokerkit
  (``calculate_hand_strength``: random hole cards for them, the rest of the board dealt
  out; ``samples`` deals), against the pot odds: raise when the equity is well above an
  even share of the pot, call when it pays for the call, else fold (check when free).

:func:`simulate_holdem` plays policies against each other at a real :class:`Holdem`
table on a memory wallet and reports CUBES won per hand with 95% intervals.
"""

from __future__ import annotations

import math
import random
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from pokerkit import Card, Deck, StandardHighHand, calculate_hand_strength

from bbspoker.bots.sim import SeatResult
from bbspoker.rules import actions as act
from bbspoker.rules.cards import to_standard
from bbspoker.rules.holdem.game import Holdem, HoldemRules, Street
from bbspoker.rules.money import SYSTEM
from bbspoker.store.wallet import MemoryWallet

__all__ = ["HoldemView", "view", "HoldemPolicy", "HoldemRandom", "HoldemCalling",
           "HoldemEquity", "chen", "HOLDEM_POLICIES", "holdem_policy", "HoldemSimResult",
           "simulate_holdem"]


@dataclass(frozen=True, slots=True)
class HoldemView:
    """One player's view of a Hold'em table when it must act: ``hole`` (its two cards, GV
    notation), ``community``, ``street``, ``legal`` action types, ``to_call`` (CUBES; 0 =
    check), ``raise_to`` (``None``: may not bet or raise), ``pot`` (all CUBES in play),
    ``stack``, ``opponents`` (others still in the hand) and the table's ``rules``."""

    handle: str
    hole: tuple[str, ...]
    community: tuple[str, ...]
    street: Street
    legal: tuple[type[act.Action], ...]
    to_call: int
    raise_to: int | None
    pot: int
    stack: int
    opponents: int
    rules: HoldemRules


def view(game: Holdem, handle: str, now: float = 0.0) -> HoldemView:
    """What ``handle`` sees of ``game`` now (its own hole cards only)."""
    seats = game.seats()
    me = next(s for s in seats if s.handle.lower() == handle.lower())
    return HoldemView(handle, game.hole_cards(handle), game.community, game.street,
                      game.legal_actions(handle, now), game.to_call(handle),
                      game.raise_to(handle), game.pot_total or 0, me.stack,
                      sum(s.in_hand for s in seats) - 1, game.rules)


class HoldemPolicy(Protocol):
    """A Hold'em computer player's decisions (``name`` as config and the simulator say)."""

    name: str

    def decide(self, v: HoldemView, rng: random.Random) -> act.Action:
        """The action to take now (one of ``v.legal``)."""
        ...


def _check_or_fold(v: HoldemView) -> act.Action:
    return act.CheckCall() if not v.to_call or act.Pass not in v.legal else act.Pass()


class HoldemRandom:
    """Uniform over the legal actions of the hand (never sits out)."""

    name = "random"

    def decide(self, v: HoldemView, rng: random.Random) -> act.Action:
        return rng.choice([t for t in v.legal if t is not act.SitOut])()


class HoldemCalling:
    """A calling station: checks or calls every time."""

    name = "calling"

    def decide(self, v: HoldemView, rng: random.Random) -> act.Action:
        return act.CheckCall()


_CHEN_HIGH = {"A": 10, "K": 8, "Q": 7, "J": 6, "10": 5}
_RANK = {r: i for i, r in enumerate(["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q",
                                     "K", "A"], 2)}


def chen(hole: Sequence[str]) -> float:
    """The Chen formula's points of two hole cards (GV notation, e.g. ``("A+", "K+")`` ->
    12): the high card (A 10, K 8, Q 7, J 6, else half its rank), a pair doubles it (at
    least 5), suited +2, a gap of 1/2/3/4+ costs 1/2/4/5, and +1 for a gap of 0 or 1 when
    both cards are below a queen; rounded up."""
    (r1, s1), (r2, s2) = ((c[:-1], c[-1]) for c in hole)
    hi, lo = sorted((r1, r2), key=_RANK.__getitem__, reverse=True)
    points = _CHEN_HIGH.get(hi, _RANK[hi] / 2)
    if hi == lo:
        return max(5.0, points * 2)
    if s1 == s2:
        points += 2
    gap = _RANK[hi] - _RANK[lo] - 1
    points -= {0: 0, 1: 1, 2: 2, 3: 4}.get(gap, 5)
    if gap <= 1 and _RANK[hi] < _RANK["Q"]:
        points += 1
    return math.ceil(points)


def pokerkit_strength(hole: Sequence[str], community: Sequence[str], opponents: int,
                      samples: int) -> float:
    """The share of the pot ``hole`` wins against ``opponents`` random hands over the rest
    of the board, by pokerkit's ``calculate_hand_strength`` (``samples`` deals)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return calculate_hand_strength(
            opponents + 1, [tuple(Card.parse("".join(to_standard(c) for c in hole)))],
            tuple(Card.parse("".join(to_standard(c) for c in community))), 2, 5,
            Deck.STANDARD, (StandardHighHand,), sample_count=samples)


class HoldemEquity:
    """Preflop strength (:func:`chen`) and postflop equity against pot odds (see the
    module docstring). ``samples``: pokerkit deals per equity estimate; ``strength``:
    the estimator (``(hole, community, opponents, samples) -> share``), pokerkit's by
    default."""

    name = "equity"

    def __init__(self, samples: int = 60,
                 strength: Callable[[Sequence[str], Sequence[str], int, int], float]
                 = pokerkit_strength) -> None:
        self.samples = samples
        self.strength = strength

    def decide(self, v: HoldemView, rng: random.Random) -> act.Action:
        may_raise = act.BetRaise in v.legal
        if v.street is Street.PREFLOP:
            points = chen(v.hole) - max(0, v.opponents - 3) * 0.5
            if points >= 10 and may_raise:
                return act.BetRaise()
            if points >= 7 or (points >= 5 and v.to_call <= v.rules.small_blind):
                return act.CheckCall()
            return _check_or_fold(v)
        equity = self.strength(v.hole, v.community, max(v.opponents, 1), self.samples)
        fair = 1.0 / (v.opponents + 1)
        if may_raise and equity > fair + (1 - fair) * 0.35 + rng.uniform(-0.03, 0.03):
            return act.BetRaise()
        if not v.to_call or equity * (v.pot + v.to_call) >= v.to_call:
            return act.CheckCall()
        return _check_or_fold(v)


#: Policy name -> a function that makes a fresh Hold'em policy.
HOLDEM_POLICIES: dict[str, Callable[[], HoldemPolicy]] = {
    "random": HoldemRandom, "calling": HoldemCalling, "equity": HoldemEquity}


def holdem_policy(name: str) -> HoldemPolicy:
    """A new Hold'em policy called ``name``; raises ``ValueError`` listing the names."""
    try:
        return HOLDEM_POLICIES[name]()
    except KeyError:
        raise ValueError(f"unknown Hold'em policy {name!r} "
                         f"(known: {', '.join(HOLDEM_POLICIES)})") from None


@dataclass
class HoldemSimResult:
    """A run: per seat (:class:`~bbspoker.bots.sim.SeatResult`, its ``games`` the hands
    dealt), ``hands`` played, ``seconds``, ``conserved`` CUBES, ``illegal`` actions."""

    seats: list[SeatResult]
    hands: int = 0
    seconds: float = 0.0
    conserved: bool = True
    illegal: int = 0
    examples: list[str] = field(default_factory=list)


def simulate_holdem(policies: Sequence[HoldemPolicy], hands: int, *, seed: int = 1,
                    rules: HoldemRules | None = None,
                    progress: Callable[[int], None] | None = None) -> HoldemSimResult:
    """Play ``hands`` hands of fixed-limit Hold'em with one seat per policy (2-9) at a
    real :class:`Holdem` table (10/20 unless ``rules`` say otherwise) on a memory wallet;
    a seat whose stack runs low is topped up to the maximum buy-in between hands (so
    every hand is played with deep stacks). Returns CUBES won per hand per seat. Raises
    ``AssertionError`` if CUBES are not conserved."""
    rules = rules or HoldemRules(between_hands=0.0)
    handles = [f"h{i + 1}" for i in range(len(policies))]
    rng = random.Random(seed)
    wallet = MemoryWallet({h: 10**12 for h in handles} | {SYSTEM: 0})
    game = Holdem(wallet, rules, rng=random.Random(rng.getrandbits(64)))
    total = wallet.total()
    result = HoldemSimResult([SeatResult(i, p.name) for i, p in enumerate(policies)])
    began, now = time.perf_counter(), 0.0
    for n in range(hands):
        for h in handles:
            seated = h in game.handles
            if seated and game.stack(h) < rules.buy_in_min:  # type: ignore[operator]
                game.apply(h, act.Leave(), now)
                seated = False
            if not seated:
                game.apply(h, act.Sit(buy_in=rules.buy_in_max), now)
        before = {h: wallet.balance(h) + game.stack(h) for h in handles}
        now = max(now, game.deadline() or now)
        game.tick(now)
        while game.street is not Street.IDLE:
            current = game.current
            assert current is not None       # a hand in play has a player in turn
            h = current
            v = view(game, h, now)
            action = policies[handles.index(h)].decide(v, rng)
            if type(action) not in v.legal:
                result.illegal += 1
                if len(result.examples) < 10:
                    result.examples.append(f"{policies[handles.index(h)].name}: {action!r}")
                action = act.CheckCall()
            game.apply(h, action, now)
        for i, h in enumerate(handles):
            won = wallet.balance(h) + game.stack(h) - before[h]
            s = result.seats[i]
            s.games += 1
            s.total += won
            s.squares += won * won
        wallet.journal.clear()
        wallet.stack_moves.clear()
        wallet.games.clear()
        wallet.pots.clear()
        if wallet.total() != total:
            result.conserved = False
            raise AssertionError(f"CUBES not conserved after hand {n + 1}")
        result.hands += 1
        if progress is not None and result.hands % 1000 == 0:
            progress(result.hands)
    result.seconds = time.perf_counter() - began
    return result
