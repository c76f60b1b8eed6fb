"""draw40's computer players at a live table, on the bot port and in the simulator.

What a draw40 policy sees is an :class:`~bbspoker.bots.draw40.observation.Observation`
(:mod:`bbspoker.bots.draw40.observation`), its policies are those of
:mod:`bbspoker.bots.draw40.policies` (and :class:`~bbspoker.bots.draw40.equity.EquityPolicy`). This
module adds what the shared bot code asks of the kind (:data:`DRAW40`, a
:class:`~bbspoker.bots.kind.BotKind`):

- a bot builds its observation from the public snapshot, its own cards and the public
  record of the game it keeps from the table's events (:class:`PublicLog`:
  :func:`observe_snapshot`, the live-table twin of
  :func:`~bbspoker.bots.draw40.observation.observe`);
- a bot that is the game-master opens a game only while a person sits at the table (bots
  do not play each other for nobody); a start the table refuses for the moment (the
  pause between games, nobody else with the ante) is no mistake: the bot waits (the
  pause, or the next change at the table) and tries again;
- an action the table refuses is counted and replaced by
  :func:`~bbspoker.bots.draw40.base.fallback`;
- :func:`simulate` plays policies against each other: the game-master's policy opens
  each game, then the player in turn acts until the game is over;
- :meth:`Draw40Bots.play_hand` plays one game of a tournament table for ``bbspoker sim
  --tournament`` (the game starts by itself there).
"""

from __future__ import annotations

import contextlib
import logging
import random
import time
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from bbspoker.bots.draw40.base import Policy, fallback
from bbspoker.bots.kind import BotKind, Seated
from bbspoker.bots.draw40.observation import Observation, PublicLog, observe
from bbspoker.bots.draw40.policies import POLICIES
from bbspoker.bots.sim import BANKROLL, MAX_ACTIONS, SeatResult, SimResult
from bbspoker.rules import actions as act
from bbspoker.rules.actions import Action
from bbspoker.rules.cards import Card, from_network_number, network_number, parse_card
from bbspoker.rules.draw40.game import Draw40, Draw40Rules, Draw40View, Phase
from bbspoker.rules.events import Event, RuleError
from bbspoker.store.wallet import SYSTEM, MemoryWallet
from bbspoker.table.service import TableSnapshot

__all__ = ["DRAW40", "Draw40Bots", "observe_snapshot", "simulate"]

log = logging.getLogger(__name__)

#: Refusals of a game-master's start that only say "not now".
_NOT_NOW = frozenset({"wait", "too_few_antes", "shutting_down", "game_running", "not_master"})
#: Action types as the bot port names them.
_NAMES = {act.Start: "start", act.Bet: "bet", act.SeeHands: "hands", act.Pass: "pass",
          act.Discard: "discard", act.Reveal: "reveal"}


def observe_snapshot(snap: TableSnapshot, handle: str, cards: tuple[Card, ...],
                     log_: PublicLog) -> Observation:
    """``handle``'s :class:`Observation` from what its subscription received: the public
    snapshot, its own cards and its public record (the live-table twin of
    :func:`bbspoker.bots.draw40.observation.observe`)."""
    table = snap.view_as(Draw40View)
    running = table.phase is not Phase.IDLE
    return Observation(
        handle=handle,
        cards=cards,
        legal=tuple(snap.actions.get(handle, ())),
        bet_range=table.bet_ranges.get(handle, (1, 0)),
        cubes=snap.balances.get(handle, 0),
        phase=table.phase,
        round=table.round,
        pot=snap.pot,
        active=tuple(s.handle for s in snap.seats if running and s.active),
        revealed={s.handle: s.revealed for s in snap.seats if s.revealed},
        log=tuple(log_.seen),
        rules=snap.rules,
    )


class Draw40Port:
    """draw40's messages on the bot port (``docs/bot-protocol.md``): ``1;actions[;min;max]``
    or ``1;...;discard;most``, ``6;handle;cubes;in``, ``7;winner;pot``, ``16;`` a revealed
    hand; from the program ``11;start|bet;N|call|check|hands;N|pass|fold|discard;n...|
    reveal``."""

    def action(self, word: str, args: list[str], snap: TableSnapshot,
               handle: str) -> act.Action:
        if word in ("call", "check"):
            ranges = snap.view_as(Draw40View).bet_ranges
            return act.Bet(ranges.get(handle, (snap.rules.min_bet, 0))[0])
        if word in ("bet", "hands"):
            if len(args) != 1 or not args[0].strip().isdigit():
                raise ValueError(f"11;{word};N needs a whole number of CUBES")
            amount = int(args[0])
            return act.Bet(amount) if word == "bet" else act.SeeHands(amount)
        if word in ("pass", "fold"):
            return act.Pass()
        if word == "start":
            return act.Start()
        if word == "reveal":
            return act.Reveal()
        if word == "discard":
            try:
                return act.Discard(tuple(parse_card(from_network_number(int(a)))
                                         for a in args if a.strip()))
            except ValueError:
                raise ValueError("11;discard;n;... takes card numbers 0-51") from None
        raise ValueError(f"unknown action {word[:20]!r}")

    def game(self, snap: TableSnapshot) -> Hashable:
        # The players are announced when a game starts and when it ends.
        return snap.view_as(Draw40View).phase is not Phase.IDLE

    def turn(self, snap: TableSnapshot, handle: str) -> tuple[Hashable, str] | None:
        mine = tuple(snap.actions.get(handle, ()))
        if not mine:
            return None
        # What the decision depends on: a start refused for now (nobody else has the
        # ante) is offered again only when the players or their CUBES change.
        table = snap.view_as(Draw40View)
        key = (table.phase, table.round, snap.pot, mine, table.bet_ranges.get(handle),
               tuple((s.handle, snap.balances.get(s.handle)) for s in snap.seats))
        names = ",".join(_NAMES[a] for a in mine if a in _NAMES)
        extra = ""
        if act.Bet in mine:
            low, high = table.bet_ranges.get(handle, (1, 0))
            extra = f";{low};{high}"
        elif act.Discard in mine:
            extra = f";{snap.rules.max_discard}"
        return key, f"1;{names}{extra}"

    def players(self, snap: TableSnapshot) -> list[str]:
        running = snap.view_as(Draw40View).phase is not Phase.IDLE
        return [f"6;{s.handle};{snap.balances.get(s.handle, 0)};"
                f"{'in' if running and s.active else 'out'}" for s in snap.seats]

    def state(self, snap: TableSnapshot) -> str:
        table = snap.view_as(Draw40View)
        pot = "" if snap.pot is None else snap.pot
        rnd = "" if table.round is None else table.round
        return (f"8;{table.phase.value};{rnd};{pot};{snap.current or ''};"
                f"{table.master or ''};{len(snap.seats)}")

    def event(self, event: Event) -> list[str]:
        if event.kind == "won":
            return [f"7;{event.handle};{event.data.get('pot', 0)}"]
        if event.kind == "pot_to_system":
            return [f"7;;{event.data.get('pot', 0)}"]
        if event.kind == "reveal":
            cards = ";".join(str(network_number(str(c))) for c in event.data["cards"])
            return [f"16;{event.handle};{cards}"]
        return []


class Draw40Bots(BotKind[Observation]):
    """draw40 as the computer players see it (see the module docstring)."""

    name = "draw40"
    policies = POLICIES
    port = Draw40Port()
    sim_policies = ("equity", "calling")

    def between_games(self, snap: TableSnapshot) -> bool:
        return snap.view_as(Draw40View).phase is Phase.IDLE

    def record(self, handle: str) -> PublicLog:
        return PublicLog(handle)

    def heard(self, bot: Seated, event: Event) -> None:
        # The public record: bets, see-hands, passes, discards, reveals.
        bot.record.feed((event,))

    def observe(self, bot: Seated) -> Observation:
        return observe_snapshot(bot.snapshot, bot.handle, bot.cards, bot.record)

    def my_turn(self, bot: Seated) -> bool:
        legal = tuple(bot.snapshot.actions.get(bot.handle, ()))
        if legal == (act.Start,) and (not bot.humans()
                                      or bot.refused_at == bot.snapshot.version):
            return False                    # a bot master opens for people only
        return bool(legal)

    async def act(self, bot: Seated) -> bool:
        obs = self.observe(bot)
        action = bot.policy.decide(obs, bot.rng)
        try:
            await bot.service.call(bot.handle, action)
        except RuleError as err:
            if err.code == "table_closed":
                return False
            if isinstance(action, act.Start) and err.code in _NOT_NOW:
                if err.code == "wait":
                    await bot.sleep(float(err.params.get("seconds", 1)))
                else:
                    # The table published its snapshot before it answered: wait for the next.
                    bot.refused_at = bot.service.snapshot.version
                return True
            bot.illegal += 1
            log.warning("bot %s (%s): %r refused (%s); it falls back", bot.handle,
                        bot.policy.name, action, err.code)
            with contextlib.suppress(RuleError):
                await bot.service.call(bot.handle, fallback(obs))
        return True

    def simulate(self, policies: Sequence[Policy], games: int, *, seed: int | None,
                 progress: Callable[[int], None] | None = None) -> SimResult:
        return simulate(policies, games, seed=seed, progress=progress)

    def sim_start(self, game: Any, events: Sequence[Event]) -> dict[str, PublicLog]:
        """Each player's public record of the game (draw40's bets and discards), from the
        events that started it."""
        logs = {h: PublicLog(h) for h in game.handles}
        self.sim_heard(logs, events)
        return logs

    def sim_heard(self, seen: Any, events: Sequence[Event]) -> None:
        for record in seen.values():
            record.feed(events)

    def sim_view(self, game: Any, handle: str, now: float, seen: Any) -> Observation:
        return observe(game, handle, seen[handle], now)

    def sim_fallback(self, view: Observation) -> Action:
        return fallback(view)


#: draw40's entry in :data:`bbspoker.bots.kinds.BOT_KINDS`.
DRAW40 = Draw40Bots()


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
