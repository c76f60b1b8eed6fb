"""Computer players for fixed-limit seven-card stud.

A stud policy decides from a :class:`StudView`: its own down and up cards, the up cards
each opponent still in shows, the street, what it costs to stay in and whether it may
complete, bet or raise, whether the bring-in is due, the pot. It has no field for anyone
else's down cards, and :func:`view` reads only the player's own.

Policies: :class:`StudRandom` (uniform over the legal actions), :class:`StudCalling` (a
calling station: posts the bring-in, never folds, never raises) and :class:`StudStrength`:

- **third street** the three cards by a rule of thumb: trips or a pair of tens or better
  complete or raise; a lower pair, three to a flush or three to a straight with a card of
  ten or more call; anything else folds to a completion (posts the bring-in when due,
  checks when free);
- **fourth street on** its best hand so far (:func:`rank_hand`) against the best hand
  any opponent shows: two pair or better, or a pair above everything showing, bets and
  raises; any pair, or four to a flush or a straight before seventh street, calls when
  the pot pays for it; the rest checks or folds.

:func:`simulate_stud` plays policies against each other at a real :class:`Stud` table on a
memory wallet and reports CUBES won per hand with 95% intervals. :data:`STUD` is the kind
as the computer players at a live table see it (:mod:`bbspoker.bots.kinds`): they read the
public snapshot and their own down cards (:func:`observe_stud`); programs on the bot port
do not sit at stud tables.
"""

from __future__ import annotations

import contextlib
import logging
import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from bbspoker.bots.kind import Seated
from bbspoker.bots.tablestakes import TableStakesBotKind
from bbspoker.bots.sim import SeatResult, SimResult
from bbspoker.rules import actions as act
from bbspoker.rules.events import RuleError
from bbspoker.rules.money import SYSTEM
from bbspoker.rules.stud.game import Street, Stud, StudRules, StudSeat, StudTable
from bbspoker.store.wallet import MemoryWallet
from bbspoker.table.service import TableSnapshot

__all__ = ["StudView", "view", "StudPolicy", "StudRandom", "StudCalling", "StudStrength",
           "rank_hand", "STUD_POLICIES", "stud_policy", "StudSimResult", "simulate_stud",
           "observe_stud", "StudBots", "STUD"]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class StudView:
    """One player's view of a stud table when it must act: ``down`` and ``up`` (its own
    cards, GV notation, in the order dealt), ``showing`` (the up cards of each opponent
    still in the hand), ``street``, ``legal`` action types, ``to_call`` (CUBES; 0 = check;
    the bring-in while it is due), ``raise_to`` (``None``: may not complete, bet or
    raise), ``bring_in_due``, ``pot`` (all CUBES in play), ``stack`` and the ``rules``
    of the hand in play (its stakes: the table's may already hold the next level's)."""

    handle: str
    down: tuple[str, ...]
    up: tuple[str, ...]
    showing: tuple[tuple[str, ...], ...]
    street: Street
    legal: tuple[type[act.Action], ...]
    to_call: int
    raise_to: int | None
    bring_in_due: bool
    pot: int
    stack: int
    rules: StudRules


def view(game: Stud, handle: str, now: float = 0.0) -> StudView:
    """What ``handle`` sees of ``game`` now (its own down cards only)."""
    seats = game.seats()
    key = handle.lower()
    me = next(s for s in seats if s.handle.lower() == key)
    showing = tuple(s.up for s in seats if s.in_hand and s.handle.lower() != key)
    return StudView(handle, game.down_cards(handle), game.up_cards(handle), showing,
                    game.street, game.legal_actions(handle, now), game.to_call(handle),
                    game.raise_to(handle), game.bring_in_due, game.pot_total or 0, me.stack,
                    game.hand_rules)


def observe_stud(snap: TableSnapshot, handle: str, cards: Sequence[str]) -> StudView:
    """``handle``'s :class:`StudView` at a live stud table from what its subscription
    received: the public snapshot and its own down cards (GV notation, from
    ``PrivateCards``); the live-table twin of :func:`view`."""
    board = snap.view_as(StudTable)
    seats = snap.seats_as(StudSeat)
    rules: StudRules = snap.rules
    if (rules.small_bet, rules.ante, rules.bring_in) != (board.small_bet, board.ante,
                                                         board.bring_in):
        rules = rules.with_stakes(board.small_bet, board.ante, board.bring_in)
    key = handle.lower()
    me = next((s for s in seats if s.handle.lower() == key), None)
    showing = tuple(s.up for s in seats if s.in_hand and s.handle.lower() != key)
    return StudView(handle, tuple(str(c) for c in cards), me.up if me is not None else (),
                    showing, board.street, tuple(snap.actions.get(handle, ())),
                    board.to_call, board.raise_to, board.bring_in_due,
                    board.pot_total or 0, me.stack if me is not None else 0, rules)


class StudPolicy(Protocol):
    """A stud computer player's decisions (``name`` as config and the simulator say)."""

    name: str

    def decide(self, v: StudView, rng: random.Random) -> act.Action:
        """The action to take now (one of ``v.legal``)."""
        ...


_RANK = {r: i for i, r in enumerate(["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q",
                                     "K", "A"], 2)}


def rank_hand(cards: Sequence[str]) -> tuple[int, ...]:
    """The best poker hand in ``cards`` (0 to 7, GV notation) as a tuple that compares
    as hands do: the category first (8 straight flush, 7 four of a kind, 6 full house,
    5 flush, 4 straight, 3 three of a kind, 2 two pair, 1 one pair, 0 high card), then
    the ranks (2-14) that break ties. With fewer than five cards only sets count, as
    stud's showing hands are read (``("A+", "A*", "K#")`` -> ``(1, 14, 13)``)."""
    ranks = [_RANK[c[:-1]] for c in cards]
    suits = [c[-1] for c in cards]

    def straight(values: set[int]) -> int:
        v = values | ({1} if 14 in values else set())
        return next((hi for hi in range(14, 4, -1) if all(hi - k in v for k in range(5))), 0)

    by_suit = Counter(suits)
    flush_suit = next((s for s, n in by_suit.items() if n >= 5), None)
    if flush_suit is not None:
        suited = {r for r, s in zip(ranks, suits) if s == flush_suit}
        top = straight(suited)
        if top:
            return (8, top)
    counts = Counter(ranks)
    groups = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    order = [r for r, _ in groups]
    if groups and groups[0][1] == 4:
        return (7, order[0], max((r for r in ranks if r != order[0]), default=0))
    trips = [r for r, n in groups if n == 3]
    pairs = [r for r, n in groups if n == 2]
    if trips and (len(trips) > 1 or pairs):
        return (6, trips[0], max(trips[1:] + pairs))
    if flush_suit is not None:
        return (5, *sorted((r for r, s in zip(ranks, suits) if s == flush_suit),
                           reverse=True)[:5])
    top = straight(set(ranks))
    if top:
        return (4, top)
    kickers = sorted(ranks, reverse=True)
    if trips:
        return (3, trips[0], *[r for r in kickers if r != trips[0]][:2])
    if len(pairs) >= 2:
        rest = [r for r in kickers if r not in pairs[:2]]
        return (2, pairs[0], pairs[1], *rest[:1])
    if pairs:
        return (1, pairs[0], *[r for r in kickers if r != pairs[0]][:3])
    return (0, *kickers[:5])


def _draws(cards: Sequence[str]) -> bool:
    """Four to a flush, or four to an open-ended straight, among ``cards``."""
    if any(n >= 4 for n in Counter(c[-1] for c in cards).values()):
        return True
    values = {_RANK[c[:-1]] for c in cards}
    return any(all(lo + k in values for k in range(4)) for lo in range(2, 11))


def _check_or_fold(v: StudView) -> act.Action:
    """Post the bring-in when due, check when free, else fold."""
    if v.bring_in_due or not v.to_call or act.Pass not in v.legal:
        return act.CheckCall()
    return act.Pass()


class StudRandom:
    """Uniform over the legal actions of the hand (never sits out)."""

    name = "random"

    def decide(self, v: StudView, rng: random.Random) -> act.Action:
        return rng.choice([t for t in v.legal if t is not act.SitOut])()


class StudCalling:
    """A calling station: posts the bring-in, checks or calls every time."""

    name = "calling"

    def decide(self, v: StudView, rng: random.Random) -> act.Action:
        return act.CheckCall()


class StudStrength:
    """Third street by a rule of thumb, later streets by the hand made against the hands
    showing (see the module docstring)."""

    name = "strength"

    def decide(self, v: StudView, rng: random.Random) -> act.Action:
        may_raise = act.BetRaise in v.legal
        cards = v.down + v.up
        made = rank_hand(cards)
        if v.street is Street.THIRD:
            ranks = sorted((_RANK[c[:-1]] for c in cards), reverse=True)
            suited = len({c[-1] for c in cards}) == 1
            connected = ranks[0] - ranks[-1] <= 4 and len(set(ranks)) == 3
            if made[0] >= 3 or (made[0] == 1 and made[1] >= 10):
                return act.BetRaise() if may_raise else act.CheckCall()
            if made[0] == 1 or suited or (connected and ranks[0] >= 10):
                return act.CheckCall()
            return _check_or_fold(v)
        best_showing = max((rank_hand(up) for up in v.showing), default=(0,))
        showing_high = max((_RANK[c[:-1]] for up in v.showing for c in up), default=0)
        strong = made[0] >= 2 or (made[0] == 1 and made[1] > showing_high)
        if strong and made > best_showing:
            return act.BetRaise() if may_raise else act.CheckCall()
        if not v.to_call:
            return act.CheckCall()
        odds = v.to_call / (v.pot + v.to_call)
        if made[0] >= 1 and made > best_showing and odds < 0.4:
            return act.CheckCall()
        if v.street is not Street.SEVENTH and _draws(cards) and odds < 0.3:
            return act.CheckCall()
        return _check_or_fold(v)


#: Policy name -> a function that makes a fresh stud policy.
STUD_POLICIES: dict[str, Callable[[], StudPolicy]] = {
    "random": StudRandom, "calling": StudCalling, "strength": StudStrength}


def stud_policy(name: str) -> StudPolicy:
    """A new stud policy called ``name``; raises ``ValueError`` listing the names."""
    try:
        return STUD_POLICIES[name]()
    except KeyError:
        raise ValueError(f"unknown stud policy {name!r} "
                         f"(known: {', '.join(STUD_POLICIES)})") from None


@dataclass
class StudSimResult:
    """A run: per seat (:class:`~bbspoker.bots.sim.SeatResult`, its ``games`` the hands
    dealt), ``hands`` played, ``actions`` taken, ``seconds``, ``conserved`` CUBES,
    ``illegal`` actions."""

    seats: list[SeatResult]
    hands: int = 0
    actions: int = 0
    seconds: float = 0.0
    conserved: bool = True
    illegal: int = 0
    examples: list[str] = field(default_factory=list)


def simulate_stud(policies: Sequence[StudPolicy], hands: int, *, seed: int = 1,
                  rules: StudRules | None = None,
                  progress: Callable[[int], None] | None = None) -> StudSimResult:
    """Play ``hands`` hands of fixed-limit seven-card stud with one seat per policy (2-7)
    at a real :class:`Stud` table (10/20, ante 1, bring-in 3 unless ``rules`` say
    otherwise) on a memory wallet; a seat whose stack runs below the minimum buy-in is
    bought in again at the maximum between hands. Returns CUBES won per hand per seat.
    Raises ``AssertionError`` if CUBES are not conserved."""
    rules = rules or StudRules(between_hands=0.0)
    handles = [f"s{i + 1}" for i in range(len(policies))]
    rng = random.Random(seed)
    wallet = MemoryWallet({h: 10**12 for h in handles} | {SYSTEM: 0})
    game = Stud(wallet, rules, rng=random.Random(rng.getrandbits(64)))
    total = wallet.total()
    result = StudSimResult([SeatResult(i, p.name) for i, p in enumerate(policies)])
    began, now = time.perf_counter(), 0.0
    for n in range(hands):
        for h in handles:
            seated = h in game.handles
            if seated and game.stack(h) < rules.low:
                game.apply(h, act.Leave(), now)
                seated = False
            if not seated:
                game.apply(h, act.Sit(buy_in=rules.high), now)
        before = {h: wallet.balance(h) + game.stack(h) for h in handles}
        now = max(now, game.deadline() or now)
        game.tick(now)
        while game.street is not Street.IDLE:
            current = game.current
            assert current is not None       # a hand in play has a player in turn
            v = view(game, current, now)
            policy = policies[handles.index(current)]
            action = policy.decide(v, rng)
            if type(action) not in v.legal:
                result.illegal += 1
                if len(result.examples) < 10:
                    result.examples.append(f"{policy.name}: {action!r}")
                action = act.CheckCall()
            game.apply(current, action, now)
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


class StudBots(TableStakesBotKind[StudView]):
    """Fixed-limit seven-card stud as the computer players see it: they buy in for the
    table's smallest buy-in, sit out while no person is at the table (hands are dealt by
    the clock), act when the snapshot offers them a check, call or bring-in, and post
    the bring-in (or check, or call) when the table refuses what their policy chose."""

    name = "stud"
    policies = STUD_POLICIES
    table_view, seat_view = StudTable, StudSeat
    sim_policies = ("strength", "calling")

    def observe(self, bot: Seated) -> StudView:
        # A stud table's private cards are the down cards, in notation.
        return observe_stud(bot.snapshot, bot.handle, tuple(str(c) for c in bot.cards))

    def my_turn(self, bot: Seated) -> bool:
        # Sitting out is no turn.
        return act.CheckCall in bot.snapshot.actions.get(bot.handle, ())

    async def act(self, bot: Seated) -> bool:
        action = bot.policy.decide(self.observe(bot), bot.rng)
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

    def sim_view(self, game: Any, handle: str, now: float, seen: Any) -> StudView:
        return view(game, handle, now)

    def simulate(self, policies: Sequence[StudPolicy], games: int, *, seed: int | None,
                 progress: Callable[[int], None] | None = None) -> SimResult:
        run = simulate_stud(policies, games,
                            seed=seed if seed is not None else random.getrandbits(64),
                            progress=progress)
        return SimResult(run.seats, games=run.hands, actions=run.actions, illegal=run.illegal,
                         seconds=run.seconds, conserved=run.conserved,
                         illegal_examples=run.examples)


#: Stud's entry in :data:`bbspoker.bots.kinds.BOT_KINDS`.
STUD = StudBots()
