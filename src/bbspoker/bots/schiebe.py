"""Computer players for Schiebe-Poker: what a bot may know, two policies and
the simulator.

A :class:`SchiebeObservation` holds what the player's own screen shows: their hidden and
open cards, the middle row, every opponent's open cards, the pile counts and the top
discard, the round, the actions left in the turn. A policy's ``decide(obs, rng)`` returns
one concrete action (:mod:`bbspoker.rules.schiebe.actions`).

- :class:`RandomSchiebePolicy`: uniform over the 13 possible actions of a turn.
- :class:`LookaheadPolicy`: maximises its hand's category with a little lookahead: for the
  first action of a turn it tries every action followed by the best second one (a push's
  incoming card averaged over a few cards it has not seen), and scores a hand by its
  category, then by how near it is to a flush, a straight or more of a kind.

:func:`simulate_schiebe` plays them against each other with the real rules and a memory
wallet, with an ante so that a win is CUBES (ties split the pot), and reports CUBES per
game with a 95% confidence interval as :func:`bbspoker.bots.draw40.simulate` does.

:data:`SCHIEBE` is what the shared bot code asks of the kind
(:class:`~bbspoker.bots.kind.BotKind`): a bot needs the ante to sit; it builds its
observation from the public board and its own hidden cards
(:func:`observe_schiebe_snapshot`); as the host it proposes the table's rounds only while
a person sits there, it agrees to any proposal, and in a turn it pushes or swaps as its
policy says (``NoSwap`` if the table refuses the action). The bot port has no messages
for Schiebe-Poker: programs do not sit at its tables.
"""

from __future__ import annotations

import contextlib
import logging
import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import cast

from bbspoker.bots.kind import BotKind, Decides, Seated
from bbspoker.bots.sim import BANKROLL, SeatResult, SimResult
from bbspoker.rules import actions as act
from bbspoker.rules.events import RuleError
from bbspoker.rules.schiebe.actions import LEFT, RIGHT, NoSwap, Propose, Push, Swap, SwapAll, Vote
from bbspoker.rules.schiebe.game import Board, Phase, Schiebe, SchiebeRules
from bbspoker.rules.schiebe.hands import CARDS, category, rank
from bbspoker.store.wallet import SYSTEM, MemoryWallet
from bbspoker.table.service import TableSnapshot

__all__ = ["SchiebeObservation", "observe_schiebe", "RandomSchiebePolicy", "LookaheadPolicy",
           "SCHIEBE_POLICIES", "schiebe_policy", "simulate_schiebe", "ALL_ACTIONS",
           "SchiebePolicy", "observe_schiebe_snapshot", "SchiebeBots", "SCHIEBE"]

log = logging.getLogger(__name__)

#: A Schiebe-Poker policy: ``decide(SchiebeObservation, rng) -> action``.
SchiebePolicy = Decides["SchiebeObservation"]

#: Every action of a turn: push left or right, nine single swaps, swap all, no swap.
ALL_ACTIONS: tuple[act.Action, ...] = (
    Push(LEFT), Push(RIGHT), *(Swap(o, m) for o in range(3) for m in range(3)), SwapAll(),
    NoSwap())


@dataclass(frozen=True)
class SchiebeObservation:
    """One player's view when it must act (cards in notation): ``hidden`` (2), ``open``
    (3, left to right), ``middle`` (3), ``opponents`` (``{handle: open cards}``),
    ``top_discard`` (or ``None``), ``draw_count``, ``actions_left`` (1 or 2), ``round`` of
    ``rounds``; ``unseen``: the cards it cannot see anywhere (draw pile, the discard pile
    under the top, the opponents' hidden cards)."""

    hidden: tuple[str, ...]
    open: tuple[str, ...]
    middle: tuple[str, ...]
    opponents: dict[str, tuple[str, ...]]
    top_discard: str | None
    draw_count: int
    actions_left: int
    round: int
    rounds: int
    unseen: tuple[str, ...]


def observe_schiebe(game: Schiebe, handle: str) -> SchiebeObservation:
    """The observation of ``handle`` (in turn) from the game: its public board and the
    player's own hidden cards, nothing else."""
    board = game.board()
    opens = dict(board.open)
    seen = set(game.cards_of(handle)) | set(board.middle) | {c for cs in opens.values() for c in cs}
    if board.top_discard:
        seen.add(board.top_discard)
    return SchiebeObservation(
        game.cards_of(handle), opens.get(handle, ()), board.middle,
        {h: cs for h, cs in opens.items() if h.lower() != handle.lower()}, board.top_discard,
        board.draw_count, board.actions_left, board.round or 1, board.rounds or 1,
        tuple(c for c in CARDS if c not in seen))


def observe_schiebe_snapshot(snap: TableSnapshot, handle: str,
                             hidden: tuple[str, ...]) -> SchiebeObservation:
    """``handle``'s :class:`SchiebeObservation` at a Schiebe-Poker table from its
    subscription (the live-table twin of :func:`observe_schiebe`): its own hidden cards
    and the board."""
    board = snap.view_as(Board)
    opens = dict(board.open)
    seen = set(hidden) | set(board.middle) | {c for cs in opens.values() for c in cs}
    if board.top_discard:
        seen.add(board.top_discard)
    return SchiebeObservation(
        tuple(hidden), opens.get(handle, ()), board.middle,
        {h: cs for h, cs in opens.items() if h.lower() != handle.lower()}, board.top_discard,
        board.draw_count, board.actions_left, board.round or 1, board.rounds or 1,
        tuple(c for c in CARDS if c not in seen))


class RandomSchiebePolicy:
    """Uniform over :data:`ALL_ACTIONS`."""

    name = "random"

    def decide(self, obs: SchiebeObservation, rng: random.Random) -> act.Action:
        return rng.choice(ALL_ACTIONS)


def _score(cards: Sequence[str]) -> float:
    """A hand's worth for the lookahead: its category first (x100), then its promise: the
    most cards of one suit, the most of one rank, the most ranks in a five-rank window."""
    suits = max(Counter(c[-1] for c in cards).values())
    kinds = max(Counter(c[:-1] for c in cards).values())
    ranks = {rank(c) for c in cards} | ({1} if any(c[:-1] == "A" for c in cards) else set())
    window = max(sum(1 for r in ranks if lo <= r < lo + 5) for lo in range(1, 11))
    return 100 * category(cards) + 3 * suits + 4 * kinds + 2 * window


def _after(action: act.Action, open_: tuple[str, ...], middle: tuple[str, ...],
           incoming: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(open, middle) after ``action``; a push takes ``incoming`` from the draw pile."""
    if isinstance(action, Push):
        if action.direction == LEFT:
            return open_, (*middle[1:], incoming)
        return open_, (incoming, *middle[:2])
    if isinstance(action, Swap):
        o, m = list(open_), list(middle)
        o[action.own], m[action.middle] = m[action.middle], o[action.own]
        return tuple(o), tuple(m)
    if isinstance(action, SwapAll):
        return middle, open_
    return open_, middle


class LookaheadPolicy:
    """Maximise the hand's category with a two-action lookahead (see the module docstring);
    ``samples`` incoming cards are drawn from the unseen ones for each push."""

    name = "lookahead"

    def __init__(self, samples: int = 3) -> None:
        self.samples = samples

    def decide(self, obs: SchiebeObservation, rng: random.Random) -> act.Action:
        pool = list(obs.unseen) or list(CARDS)
        incoming = rng.sample(pool, min(self.samples, len(pool)))
        best: act.Action = NoSwap()
        best_value = float("-inf")
        for action in ALL_ACTIONS:
            value = self._value(action, obs.hidden, obs.open, obs.middle, incoming,
                                obs.actions_left - 1)
            if value > best_value + 1e-9:
                best, best_value = action, value
        return best

    def _value(self, action: act.Action, hidden: tuple[str, ...], open_: tuple[str, ...],
               middle: tuple[str, ...], incoming: list[str], then: int) -> float:
        """The expected worth of the hand after ``action`` and, with ``then`` 1, the best
        next action."""
        outcomes = incoming if isinstance(action, Push) else incoming[:1]
        total = 0.0
        for card in outcomes:
            o, m = _after(action, open_, middle, card)
            if then:
                total += max(self._value(nxt, hidden, o, m, incoming, 0)
                             for nxt in ALL_ACTIONS)
            else:
                total += _score((*hidden, *o))
        return total / len(outcomes)


#: The Schiebe-Poker policies by name.
SCHIEBE_POLICIES: dict[str, Callable[[], SchiebePolicy]] = {"random": RandomSchiebePolicy,
                                                            "lookahead": LookaheadPolicy}


def schiebe_policy(name: str) -> SchiebePolicy:
    """A Schiebe-Poker policy by name (``random``, ``lookahead``); ``ValueError`` if unknown."""
    try:
        return SCHIEBE_POLICIES[name]()
    except KeyError:
        raise ValueError(f"no schiebe policy {name!r} (known: "
                         f"{', '.join(SCHIEBE_POLICIES)})") from None


def simulate_schiebe(policies: Sequence[SchiebePolicy], games: int, *,
                     seed: int | None = None, ante: int = 10, rounds: int = 3,
                     progress: Callable[[int], None] | None = None) -> SimResult:
    """Play ``games`` Schiebe-Poker games of ``rounds`` rounds, one seat per policy (2-4),
    each player paying ``ante`` CUBES; returns the figures (CUBES won per game per seat).
    ``seed`` repeats a run exactly. An action the rules refuse counts as illegal and is
    replaced by "no swap". Raises ``AssertionError`` if CUBES are not conserved."""
    if not 2 <= len(policies) <= 4:
        raise ValueError(f"between 2 and 4 players, got {len(policies)}")
    rng = random.Random(seed)
    handles = [f"p{i + 1}" for i in range(len(policies))]
    by_handle = dict(zip(handles, policies))
    wallet = MemoryWallet({h: BANKROLL for h in handles} | {SYSTEM: 0})
    game = Schiebe(wallet, SchiebeRules(seats=4, rounds=rounds, ante=ante),
                   rng=random.Random(rng.getrandbits(64)))
    for h in handles:
        game.apply(h, act.Sit(), 0.0)
    result = SimResult([SeatResult(i, p.name) for i, p in enumerate(policies)])
    total = wallet.total()
    began = time.perf_counter()
    balances = wallet.balances
    for _ in range(games):
        before = [balances[h] for h in handles]
        game.apply(handles[0], Propose(rounds), 0.0)
        for h in handles[1:]:
            game.apply(h, Vote(True), 0.0)
        while game.phase is Phase.PLAYING:
            handle = game.current
            assert handle is not None
            action = by_handle[handle].decide(observe_schiebe(game, handle), rng)
            try:
                game.apply(handle, action, 0.0)
            except RuleError as err:
                result.illegal += 1
                if len(result.illegal_examples) < 10:
                    result.illegal_examples.append(f"{action!r} refused ({err.code})")
                game.apply(handle, NoSwap(), 0.0)
            result.actions += 1
        for seat, h in enumerate(handles):
            won = balances[h] - before[seat]
            s = result.seats[seat]
            s.games += 1
            s.total += won
            s.squares += won * won
        wallet.journal.clear()
        wallet.games.clear()
        wallet.pots.clear()
        if wallet.total() != total:
            result.conserved = False
            raise AssertionError(f"CUBES not conserved: {wallet.total()} != {total}")
        result.games += 1
        if progress is not None and result.games % 1000 == 0:
            progress(result.games)
    result.seconds = time.perf_counter() - began
    result.to_system = balances[SYSTEM]
    return result


class SchiebeBots(BotKind[SchiebeObservation]):
    """Schiebe-Poker as the computer players see it (see the module docstring)."""

    name = "schiebe"
    policies = SCHIEBE_POLICIES
    sim_policies = ("lookahead", "random")
    to_system_note = "remainders of split pots went"

    def between_games(self, snap: TableSnapshot) -> bool:
        return snap.view_as(Board).phase is not Phase.PLAYING

    def observe(self, bot: Seated) -> SchiebeObservation:
        # A Schiebe-Poker table's private cards are the hidden ones, in notation.
        return observe_schiebe_snapshot(bot.snapshot, bot.handle,
                                        cast("tuple[str, ...]", bot.cards))

    def my_turn(self, bot: Seated) -> bool:
        legal = tuple(bot.snapshot.actions.get(bot.handle, ()))
        if Propose in legal and (not bot.humans()
                                 or bot.refused_at == bot.snapshot.version):
            return False                    # a bot host proposes for people only
        return bool({Propose, Vote, Push} & set(legal))

    async def act(self, bot: Seated) -> bool:
        legal = set(bot.snapshot.actions.get(bot.handle, ()))
        if Propose in legal:
            action: act.Action = Propose(bot.snapshot.rules.rounds)
        elif Vote in legal:
            action = Vote(True)
        else:
            action = bot.policy.decide(self.observe(bot), bot.rng)
        try:
            await bot.service.call(bot.handle, action)
        except RuleError as err:
            if err.code == "table_closed":
                return False
            if isinstance(action, Propose):
                bot.refused_at = bot.service.snapshot.version   # not now: wait
                return True
            if err.code in ("not_your_turn", "wrong_phase"):
                return True
            bot.illegal += 1
            log.warning("bot %s (%s): %r refused (%s); no swap", bot.handle,
                        bot.policy.name, action, err.code)
            if Push in legal:
                with contextlib.suppress(RuleError):
                    await bot.service.call(bot.handle, NoSwap())
        return True

    def simulate(self, policies: Sequence[SchiebePolicy], games: int, *, seed: int | None,
                 progress: Callable[[int], None] | None = None) -> SimResult:
        # 3 rounds, an ante of 10, so that the ranking is in CUBES.
        return simulate_schiebe(policies, games, seed=seed, progress=progress)


#: Schiebe-Poker's entry in :data:`bbspoker.bots.kinds.BOT_KINDS`.
SCHIEBE = SchiebeBots()
