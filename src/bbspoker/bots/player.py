"""A computer player at a live table: it watches the table through its own bus
subscription, exactly as a player's screen does, and acts through the typed action path
(:meth:`~bbspoker.table.service.TableService.submit`), never through a screen.

What it knows is what its subscription brings: the public :class:`TableSnapshot`, its own
:class:`PrivateCards` and the events of the table (:class:`PublicLog` keeps the public
record). From them it builds the same :class:`~bbspoker.bots.observation.Observation`
the simulator builds from the rules, and asks its policy. At a Hold'em table (the
snapshot's ``board`` is a :class:`~bbspoker.rules.holdem.game.HoldemTable`) it builds a
:class:`~bbspoker.bots.holdem.HoldemView` instead and asks a Hold'em policy
(:func:`observe_holdem`); at a Schiebe-Poker table (a
:class:`~bbspoker.rules.schiebe.game.Board`) a
:class:`~bbspoker.bots.schiebe.SchiebeObservation` (:func:`observe_schiebe_snapshot`),
and as the host it proposes the table's rounds only while a person sits there, and it
agrees to any proposal. Before each action it thinks
for a time drawn from ``think`` (seconds), so that a game with bots feels like one with
people; ``sleep`` is injected (tests pass one that does not wait).

A bot opens a game when it is the game-master only if a person sits at the table: bots
do not play each other for nobody. A start the table refuses for the moment (the pause
between games, nobody else with the ante) is no mistake: the bot waits (the pause, or the
next change at the table) and tries again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Awaitable, Callable, Collection

from bbspoker.bots.base import Policy, fallback
from bbspoker.bots.holdem import HoldemView
from bbspoker.bots.schiebe import SchiebeObservation
from bbspoker.bots.observation import Observation, PublicLog
from bbspoker.rules import actions as act
from bbspoker.rules.cards import Card
from bbspoker.rules.draw40.game import Phase
from bbspoker.rules.events import RuleError
from bbspoker.rules.holdem.game import HoldemSeat, HoldemTable
from bbspoker.rules.schiebe.actions import NoSwap, Propose, Push, Vote
from bbspoker.rules.schiebe.game import Board
from bbspoker.rules.schiebe.hands import CARDS as SCHIEBE_CARDS
from bbspoker.table.service import PrivateCards, TableMessage, TableService, TableSnapshot

__all__ = ["BotPlayer", "observe_snapshot", "observe_holdem", "observe_schiebe_snapshot",
           "DEFAULT_THINK"]

log = logging.getLogger(__name__)

#: Seconds a bot thinks before it acts, drawn uniformly from this range.
DEFAULT_THINK = (1.5, 4.0)
#: Refusals of a game-master's start that only say "not now".
_NOT_NOW = frozenset({"wait", "too_few_antes", "shutting_down", "game_running", "not_master"})


def observe_holdem(snap: TableSnapshot, handle: str, cards: tuple[str, ...]) -> HoldemView:
    """``handle``'s :class:`~bbspoker.bots.holdem.HoldemView` at a Hold'em table from what
    its subscription received (the live-table twin of :func:`bbspoker.bots.holdem.view`)."""
    board: HoldemTable = snap.board
    me = snap.seat_as(HoldemSeat, handle)
    return HoldemView(handle, tuple(cards), board.community, board.street,
                      tuple(snap.actions.get(handle, ())), board.to_call, board.raise_to,
                      board.pot_total or 0, me.stack if me is not None else 0,
                      sum(s.in_hand for s in snap.seats_as(HoldemSeat)) - 1, snap.rules)


def observe_schiebe_snapshot(snap: TableSnapshot, handle: str,
                             hidden: tuple[str, ...]) -> SchiebeObservation:
    """``handle``'s :class:`~bbspoker.bots.schiebe.SchiebeObservation` at a Schiebe-Poker
    table from its subscription (the live-table twin of
    :func:`bbspoker.bots.schiebe.observe_schiebe`): its own hidden cards and the board."""
    board: Board = snap.board
    opens = dict(board.open)
    seen = set(hidden) | set(board.middle) | {c for cs in opens.values() for c in cs}
    if board.top_discard:
        seen.add(board.top_discard)
    return SchiebeObservation(
        tuple(hidden), opens.get(handle, ()), board.middle,
        {h: cs for h, cs in opens.items() if h.lower() != handle.lower()}, board.top_discard,
        board.draw_count, board.actions_left, board.round or 1, board.rounds or 1,
        tuple(c for c in SCHIEBE_CARDS if c not in seen))


def observe_snapshot(snap: TableSnapshot, handle: str, cards: tuple[Card, ...],
                     log_: PublicLog) -> Observation:
    """``handle``'s :class:`Observation` from what its subscription received: the public
    snapshot, its own cards and its public record (the live-table twin of
    :func:`bbspoker.bots.observation.observe`)."""
    running = snap.phase is not Phase.IDLE
    return Observation(
        handle=handle,
        cards=cards,
        legal=tuple(snap.actions.get(handle, ())),
        bet_range=snap.bet_ranges.get(handle, (1, 0)),
        cubes=snap.balances.get(handle, 0),
        phase=snap.phase,
        round=snap.round,
        pot=snap.pot,
        active=tuple(s.handle for s in snap.seats if running and s.active),
        revealed={s.handle: s.revealed for s in snap.seats if s.revealed},
        log=tuple(log_.seen),
        rules=snap.rules,
    )


class BotPlayer:
    """One bot seated at ``service``'s table as ``handle``, deciding with ``policy``.

    ``humans()`` returns the handles of the people seated there now (a bot master opens a
    game only if there is one); ``think`` is the range of seconds it waits before each
    action; ``sleep`` waits (``asyncio.sleep``; tests inject one that returns at once).
    :meth:`run` is its task: it ends when the bot is no longer seated or is cancelled.
    """

    def __init__(self, service: TableService, handle: str, policy: Policy,
                 humans: Callable[[], Collection[str]], *, rng: random.Random | None = None,
                 think: tuple[float, float] = DEFAULT_THINK,
                 sleep: Callable[[float], Awaitable[object]] = asyncio.sleep) -> None:
        self.service = service
        self.handle = handle
        self.policy = policy
        self.humans = humans
        self.rng = rng or random.Random()
        self.think = think
        self.sleep = sleep
        self.log = PublicLog(handle)
        self.cards: tuple[Card, ...] = service.cards_of(handle)
        self.snapshot = service.snapshot
        self.illegal = 0  # actions the rules refused (must stay 0)
        self._changed = asyncio.Event()
        self._refused_at: int | None = None  # snapshot version of a start refused for now

    def _on_bus(self) -> None:
        self._changed.set()

    def _take(self, items: list[object]) -> None:
        for item in items:
            if isinstance(item, TableSnapshot):
                self.snapshot = item
            elif isinstance(item, PrivateCards):
                self.cards = item.cards
            elif isinstance(item, TableMessage) and not isinstance(
                    self.snapshot.board, (HoldemTable, Board)):
                # The public record is draw40's (its bets, see-hands, discards): the
                # events of another kind have other shapes and mean other things.
                self.log.feed((item.event,))

    def _my_turn(self) -> tuple[type[act.Action], ...]:
        legal = tuple(self.snapshot.actions.get(self.handle, ()))
        if isinstance(self.snapshot.board, HoldemTable):       # sitting out is no turn
            return legal if act.CheckCall in legal else ()
        if isinstance(self.snapshot.board, Board):
            if Propose in legal and (not self.humans()
                                     or self._refused_at == self.snapshot.version):
                return ()                   # a bot host proposes for people only
            return legal if {Propose, Vote, Push} & set(legal) else ()
        if legal == (act.Start,) and (not self.humans()
                                      or self._refused_at == self.snapshot.version):
            return ()
        return legal

    async def run(self) -> None:
        """Watch and act until the bot is off the table (or the task is cancelled)."""
        sub = self.service.bus.subscribe(notify=self._on_bus, viewer=self.handle)
        self.service.attach(self.handle)
        try:
            while True:
                self._take(sub.drain())
                if self.snapshot.seat_of(self.handle) is None:
                    return
                if not self._my_turn():
                    self._changed.clear()
                    items = sub.drain()      # what came between the last drain and clear()
                    if items:
                        self._take(items)
                    else:
                        await self._changed.wait()
                    continue
                version = self.snapshot.version
                await self.sleep(self.rng.uniform(*self.think))
                self._take(sub.drain())
                if self.snapshot.version != version and not self._my_turn():
                    continue            # the turn went away while it thought (a timeout)
                if not await self._act():
                    return
        finally:
            self.service.detach(self.handle)
            sub.close()

    async def _act(self) -> bool:
        """Decide and submit one action; False when the table has closed."""
        if isinstance(self.snapshot.board, HoldemTable):
            return await self._act_holdem()
        if isinstance(self.snapshot.board, Board):
            return await self._act_schiebe()
        obs = observe_snapshot(self.snapshot, self.handle, self.cards, self.log)
        action = self.policy.decide(obs, self.rng)
        try:
            await self.service.call(self.handle, action)
        except RuleError as err:
            if err.code == "table_closed":
                return False
            if isinstance(action, act.Start) and err.code in _NOT_NOW:
                if err.code == "wait":
                    await self.sleep(float(err.params.get("seconds", 1)))
                else:
                    # The table published its snapshot before it answered: wait for the next.
                    self._refused_at = self.service.snapshot.version
                return True
            self.illegal += 1
            log.warning("bot %s (%s): %r refused (%s); it falls back", self.handle,
                        self.policy.name, action, err.code)
            with contextlib.suppress(RuleError):
                await self.service.call(self.handle, fallback(obs))
        return True

    async def _act_holdem(self) -> bool:
        """A Hold'em turn: the policy's action, or check/call if the table refuses it
        (counted in :attr:`illegal`); False when the table has closed."""
        view = observe_holdem(self.snapshot, self.handle, self.cards)  # type: ignore[arg-type]
        # The equity estimate takes pokerkit tens of milliseconds: not on the event loop.
        action = await asyncio.to_thread(self.policy.decide, view, self.rng)  # type: ignore[arg-type]
        try:
            await self.service.call(self.handle, action)
        except RuleError as err:
            if err.code == "table_closed":
                return False
            if err.code == "not_your_turn":
                return True                      # the turn went away while it thought
            self.illegal += 1
            log.warning("bot %s (%s): %r refused (%s); it checks or calls", self.handle,
                        self.policy.name, action, err.code)
            with contextlib.suppress(RuleError):
                await self.service.call(self.handle, act.CheckCall())
        return True

    async def _act_schiebe(self) -> bool:
        """A Schiebe-Poker turn: propose the table's rounds (as host), agree to a
        proposal, or the policy's push or swap (``NoSwap`` if the table refuses it,
        counted in :attr:`illegal`); False when the table has closed."""
        legal = set(self.snapshot.actions.get(self.handle, ()))
        if Propose in legal:
            action: act.Action = Propose(self.snapshot.rules.rounds)
        elif Vote in legal:
            action = Vote(True)
        else:
            obs = observe_schiebe_snapshot(self.snapshot, self.handle, self.cards)  # type: ignore[arg-type]
            action = self.policy.decide(obs, self.rng)  # type: ignore[arg-type]
        try:
            await self.service.call(self.handle, action)
        except RuleError as err:
            if err.code == "table_closed":
                return False
            if isinstance(action, Propose):
                self._refused_at = self.service.snapshot.version   # not now: wait
                return True
            if err.code in ("not_your_turn", "wrong_phase"):
                return True
            self.illegal += 1
            log.warning("bot %s (%s): %r refused (%s); no swap", self.handle,
                        self.policy.name, action, err.code)
            if Push in legal:
                with contextlib.suppress(RuleError):
                    await self.service.call(self.handle, NoSwap())
        return True
