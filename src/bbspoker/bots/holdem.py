"""Computer players for Texas Hold'em, fixed, pot and no limit.

A Hold'em policy decides from a :class:`HoldemView`: its own two hole cards, the community
cards, what it costs to stay in and whether it may bet or raise, the pot, how many others
are still in the hand. Like the draw40 :class:`~bbspoker.bots.draw40.observation.Observation` it
has no field for anyone else's hole cards, and :func:`view` reads only the player's own.

Policies: :class:`HoldemRandom` (uniform over the legal actions; at pot and no limit a bet
or raise of any amount of the range, uniformly), :class:`HoldemCalling` (a calling
station: never folds, never raises) and :class:`HoldemEquity`, at fixed limit:

- **preflop** the hand's strength by the Chen formula (Bill Chen, "The Mathematics of
  Poker" era rule of thumb: the high card's points, pairs doubled, suited +2, gaps
  penalised, small connectors rewarded): raise from 10 points, call from 7 (from 5 when
  it costs no more than a small blind), else fold, or check when that is free;
- **after the flop** its equity against the opponents still in, estimated by pokerkit
  (``calculate_hand_strength``: random hole cards for them, the rest of the board dealt
  out; ``samples`` deals), against the pot odds: raise when the equity is well above an
  even share of the pot, call when it pays for the call, else fold (check when free).

At pot and no limit :class:`HoldemEquity` sizes its bets from the same strength and the
pot (:meth:`HoldemEquity.sized`): preflop it raises from 10 Chen points to three times
the bet it faces (a short stack of at most 15 big blinds goes all in instead), calls a
raise with 9 points or more while it costs at most a fifth of its stack, from 7 points
while it costs at most three big blinds; after the flop it bets or raises a share of the
pot after the call that grows with its equity (half the pot when well ahead of an even
share, the whole pot from 80%), goes all in when that would leave less than a third of
its stack behind, and calls by the pot odds.

:func:`simulate_holdem` plays policies against each other at a real :class:`Holdem`
table on a memory wallet and reports CUBES won per hand with 95% intervals.

:data:`HOLDEM` is what the shared bot code asks of the kind
(:class:`~bbspoker.bots.kind.BotKind`): a bot needs the smallest buy-in to sit and is broke
with an empty stack; hands are dealt by the clock, not by a game-master, so the bots sit
out while no person is at the table; a bot builds its :class:`HoldemView` from the public
snapshot and its own hole cards (:func:`observe_holdem`), acts when it may check or call
(sitting out is no turn), decides in a thread (the equity estimate takes pokerkit tens of
milliseconds: not on the event loop) and checks or calls if the table refuses its action.
Its bot port messages are :class:`HoldemPort`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import random
import time
import warnings
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

from pokerkit import Card, Deck, StandardHighHand, calculate_hand_strength

from bbspoker.bots.kind import Seated
from bbspoker.bots.tablestakes import TableStakesBotKind
from bbspoker.bots.sim import SeatResult, SimResult
from bbspoker.rules import actions as act
from bbspoker.rules.cards import network_number, to_standard
from bbspoker.rules.events import Event, RuleError
from bbspoker.rules.holdem.game import Holdem, HoldemRules, HoldemSeat, HoldemTable, Street
from bbspoker.rules.money import SYSTEM
from bbspoker.store.wallet import MemoryWallet
from bbspoker.table.service import TableSnapshot

__all__ = ["HoldemView", "view", "HoldemPolicy", "HoldemRandom", "HoldemCalling",
           "HoldemEquity", "chen", "HOLDEM_POLICIES", "holdem_policy", "HoldemSimResult",
           "simulate_holdem", "observe_holdem", "HoldemBots", "HoldemPort", "HOLDEM"]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class HoldemView:
    """One player's view of a Hold'em table when it must act: ``hole`` (its two cards, GV
    notation), ``community``, ``street``, ``legal`` action types, ``to_call`` (CUBES; 0 =
    check), ``raise_to`` and ``max_raise_to`` (the smallest and largest total its bet may
    reach with a bet or raise; ``None``: may not bet or raise), ``pot`` (all CUBES in
    play), ``stack``, ``opponents`` (others still in the hand), the ``rules`` of the hand
    in play (its stakes) and ``bet`` (what it put in this betting round)."""

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
    max_raise_to: int | None = None
    bet: int = 0


def view(game: Holdem, handle: str, now: float = 0.0) -> HoldemView:
    """What ``handle`` sees of ``game`` now (its own hole cards only)."""
    seats = game.seats()
    me = next(s for s in seats if s.handle.lower() == handle.lower())
    return HoldemView(handle, game.hole_cards(handle), game.community, game.street,
                      game.legal_actions(handle, now), game.to_call(handle),
                      game.raise_to(handle), game.pot_total or 0, me.stack,
                      sum(s.in_hand for s in seats) - 1, game.hand_rules,
                      game.max_raise_to(handle), me.bet)


def observe_holdem(snap: TableSnapshot, handle: str, cards: tuple[str, ...]) -> HoldemView:
    """``handle``'s :class:`HoldemView` at a Hold'em table from what its subscription
    received: the public snapshot and its own hole cards (the live-table twin of
    :func:`view`). Its ``rules`` have the stakes of the view (the running hand's: the
    table's rules may already hold the next level's)."""
    board = snap.view_as(HoldemTable)
    me = snap.seat_as(HoldemSeat, handle)
    rules: HoldemRules = snap.rules
    if (rules.small_bet, rules.ante) != (board.small_bet, board.ante):
        rules = rules.with_stakes(board.small_bet, board.ante)
    return HoldemView(handle, tuple(cards), board.community, board.street,
                      tuple(snap.actions.get(handle, ())), board.to_call, board.raise_to,
                      board.pot_total or 0, me.stack if me is not None else 0,
                      sum(s.in_hand for s in snap.seats_as(HoldemSeat)) - 1, rules,
                      board.max_raise_to, me.bet if me is not None else 0)


class HoldemPolicy(Protocol):
    """A Hold'em computer player's decisions (``name`` as config and the simulator say)."""

    name: str

    def decide(self, v: HoldemView, rng: random.Random) -> act.Action:
        """The action to take now (one of ``v.legal``)."""
        ...


def _check_or_fold(v: HoldemView) -> act.Action:
    return act.CheckCall() if not v.to_call or act.Pass not in v.legal else act.Pass()


class HoldemRandom:
    """Uniform over the legal actions of the hand (never sits out); at pot and no limit a
    bet or raise is to any amount of the range, uniformly."""

    name = "random"

    def decide(self, v: HoldemView, rng: random.Random) -> act.Action:
        kind = rng.choice([t for t in v.legal if t is not act.SitOut])
        if kind is act.BetRaise and v.rules.limit != "fixed" and v.raise_to is not None \
                and v.max_raise_to is not None:
            return act.BetRaise(to=rng.randint(v.raise_to, v.max_raise_to))
        return kind()


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
        if v.rules.limit != "fixed":
            return self.sized(v, rng)
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


    def sized(self, v: HoldemView, rng: random.Random) -> act.Action:
        """A decision at pot or no limit: the actions of :meth:`decide` with amounts sized
        from the hand's strength and the pot (see the module docstring). Every bet or
        raise is within ``raise_to``..``max_raise_to``."""
        low, high = v.raise_to, v.max_raise_to
        may_raise = act.BetRaise in v.legal and low is not None and high is not None
        big = v.rules.big_blind
        facing = v.bet + v.to_call                 # the bet to match (a total)
        behind = v.stack + v.bet                   # all it may put in this round

        def to(total: int) -> act.Action:
            assert low is not None and high is not None
            total = max(low, min(high, total))
            if behind - total < behind // 3:       # little would be left: all in
                total = high
            return act.BetRaise(to=total)

        def share(fraction: float) -> act.Action:
            return to(facing + round(fraction * (v.pot + v.to_call)))

        if v.street is Street.PREFLOP:
            points = chen(v.hole) - max(0, v.opponents - 3) * 0.5
            if points >= 10 and may_raise:
                assert high is not None
                return act.BetRaise(to=high) if behind <= 15 * big else to(3 * facing)
            if points >= 9 and v.to_call <= max(behind // 5, big):
                return act.CheckCall()
            if points >= 7 and v.to_call <= 3 * big:
                return act.CheckCall()
            if points >= 5 and v.to_call <= v.rules.small_blind:
                return act.CheckCall()
            return _check_or_fold(v)
        equity = self.strength(v.hole, v.community, max(v.opponents, 1), self.samples)
        fair = 1.0 / (v.opponents + 1)
        if may_raise and equity >= 0.8:
            return share(1.0)
        if may_raise and equity > fair + (1 - fair) * 0.35 + rng.uniform(-0.03, 0.03):
            return share(0.5 + (equity - fair))
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
    dealt), ``hands`` played, ``actions`` the players took, ``seconds``, ``conserved`` CUBES, ``illegal`` actions."""

    seats: list[SeatResult]
    hands: int = 0
    actions: int = 0
    seconds: float = 0.0
    conserved: bool = True
    illegal: int = 0
    examples: list[str] = field(default_factory=list)


def simulate_holdem(policies: Sequence[HoldemPolicy], hands: int, *, seed: int | None = 1,
                    rules: HoldemRules | None = None,
                    progress: Callable[[int], None] | None = None) -> HoldemSimResult:
    """Play ``hands`` hands of Hold'em with one seat per policy (2-9) at a real
    :class:`Holdem` table (fixed-limit 10/20 unless ``rules`` say otherwise: their
    ``limit``) on a memory wallet;
    a seat whose stack runs low is topped up to the maximum buy-in between hands (so
    every hand is played with deep stacks). Returns CUBES won per hand per seat; ``seed``
    repeats a run (``None``: a fresh one). Raises ``AssertionError`` if CUBES are not
    conserved."""
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
            if type(action) not in v.legal or not game.can(h, action, now):
                result.illegal += 1
                if len(result.examples) < 10:
                    result.examples.append(f"{policies[handles.index(h)].name}: {action!r}")
                action = act.CheckCall()
            game.apply(h, action, now)
            result.actions += 1
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


#: What an amount on the bot port may hold (str.isdigit would take "²", which int() refuses).
_DIGITS = frozenset("0123456789")


class HoldemPort:
    """Hold'em's messages on the bot port (``docs/bot-protocol.md``): ``1;fold,call,raise;
    to_call;raise_to`` (at pot and no limit ``;max_raise_to`` after it), ``3;`` ``4;``
    ``5;`` the board, ``6;handle;stack;in``, ``7;handle;CUBES`` a share of a pot,
    ``8;street;;pot;current;button;players``, ``16;`` a hand shown; from the program
    ``11;fold|check|call|bet|raise`` (fixed limit: no amount) and at pot and no limit
    ``11;bet;N`` or ``11;raise;N`` (to N in all; without N the smallest)."""

    _ACTIONS: dict[str, type[act.Action]] = {
        "fold": act.Pass, "pass": act.Pass, "check": act.CheckCall, "call": act.CheckCall,
        "bet": act.BetRaise, "raise": act.BetRaise}

    def action(self, word: str, args: list[str], snap: TableSnapshot,
               handle: str) -> act.Action:
        if word not in self._ACTIONS:
            raise ValueError(f"unknown Hold'em action {word[:20]!r} (fold, check, call, "
                             "bet, raise)")
        if self._ACTIONS[word] is act.BetRaise and args:
            if len(args) != 1 or not args[0].strip() or not set(args[0].strip()) <= _DIGITS:
                raise ValueError(f"11;{word};N needs a whole number of CUBES")
            return act.BetRaise(to=int(args[0]))
        return self._ACTIONS[word]()

    def game(self, snap: TableSnapshot) -> Hashable:
        # The players are announced when a hand starts and ends.
        return snap.view_as(HoldemTable).game_id

    def turn(self, snap: TableSnapshot, handle: str) -> tuple[Hashable, str] | None:
        mine = tuple(snap.actions.get(handle, ()))
        if act.CheckCall not in mine:
            return None
        board = snap.view_as(HoldemTable)
        key = (board.game_id, board.street, board.to_call, board.raise_to, snap.pot)
        names = (["fold"] if act.Pass in mine else []) + [
            "call" if board.to_call else "check"]
        if act.BetRaise in mine:
            names.append("raise" if any(s.bet for s in snap.seats_as(HoldemSeat)) else "bet")
        raise_to = "" if board.raise_to is None else board.raise_to
        line = f"1;{','.join(names)};{board.to_call};{raise_to}"
        if board.limit != "fixed":
            line += ";" + ("" if board.max_raise_to is None else str(board.max_raise_to))
        return key, line

    def players(self, snap: TableSnapshot) -> list[str]:
        return [f"6;{seat.handle};{seat.stack};{'in' if seat.in_hand else 'out'}"
                for seat in snap.seats_as(HoldemSeat)]

    def state(self, snap: TableSnapshot) -> str:
        # Hold'em has no rounds: the state's round field stays empty.
        board = snap.view_as(HoldemTable)
        pot = "" if snap.pot is None else snap.pot
        return (f"8;{board.street.value};;{pot};{snap.current or ''};"
                f"{board.button or ''};{len(snap.seats)}")

    def event(self, event: Event) -> list[str]:
        d = event.data
        if event.kind == "board":
            number = {"flop": 3, "turn": 4, "river": 5}[d["street"]]
            return [f"{number};{network_number(card)}" for card in d["cards"]]
        if event.kind == "won":
            return [f"7;{event.handle};{d['amount']}"]
        if event.kind == "show":
            cards = ";".join(str(network_number(c)) for c in d["cards"])
            return [f"16;{event.handle};{cards}"]
        return []


class HoldemBots(TableStakesBotKind[HoldemView]):
    """Fixed-limit Hold'em as the computer players see it (see the module docstring)."""

    name = "holdem"
    policies = HOLDEM_POLICIES
    table_view, seat_view = HoldemTable, HoldemSeat
    port = HoldemPort()
    sim_policies = ("equity", "calling")

    def observe(self, bot: Seated) -> HoldemView:
        # A Hold'em table's private cards are the hole cards, in notation.
        return observe_holdem(bot.snapshot, bot.handle, cast("tuple[str, ...]", bot.cards))

    def my_turn(self, bot: Seated) -> bool:
        # Sitting out is no turn.
        return act.CheckCall in bot.snapshot.actions.get(bot.handle, ())

    async def act(self, bot: Seated) -> bool:
        view = self.observe(bot)
        # The equity estimate takes pokerkit tens of milliseconds: not on the event loop.
        action = await asyncio.to_thread(bot.policy.decide, view, bot.rng)
        try:
            await bot.service.call(bot.handle, action)
        except RuleError as err:
            if err.code == "table_closed":
                return False
            if err.code == "not_your_turn":
                return True                      # the turn went away while it thought
            bot.illegal += 1
            log.warning("bot %s (%s): %r refused (%s); it checks or calls", bot.handle,
                        bot.policy.name, action, err.code)
            with contextlib.suppress(RuleError):
                await bot.service.call(bot.handle, act.CheckCall())
        return True

    def sim_view(self, game: Any, handle: str, now: float, seen: Any) -> HoldemView:
        return view(game, handle, now)

    def simulate(self, policies: Sequence[HoldemPolicy], games: int, *, seed: int | None,
                 progress: Callable[[int], None] | None = None) -> SimResult:
        run = simulate_holdem(policies, games, seed=seed, progress=progress)
        return SimResult(run.seats, games=run.hands, actions=run.actions,
                         illegal=run.illegal, seconds=run.seconds,
                         conserved=run.conserved, illegal_examples=run.examples)


#: Hold'em's entry in :data:`bbspoker.bots.kinds.BOT_KINDS`.
HOLDEM = HoldemBots()
