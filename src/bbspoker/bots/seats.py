"""Computer players filling a table's empty seats.

A table whose config says ``bots = N`` gets a :class:`TableBots`: it keeps up to ``N`` of
its seats filled with bot accounts while fewer people than seats sit there. A bot is a real
account (``bbspoker users add NAME --bot``): its CUBES come from the ledger like anyone's
(the sysop funds it; nothing appears from nothing), it is seated with the table's ``Sit``
and plays through :class:`~bbspoker.bots.player.BotPlayer` (``submit``, never a screen).

Between games:

- a person waiting for a seat (:class:`~bbspoker.table.service.WantSeat`) at a table full
  with bots among the players gets one: a bot stands up (``Leave("make_room")``) and the
  table seats the person in the same step;
- a bot whose CUBES no longer cover the stake leaves (``Leave("broke")``), and a funded bot
  takes the seat if there is one.

What depends on the game kind (when the table is between games, the stake a bot needs:
the ante or the smallest buy-in, when a bot is broke, whether bots sit out while no
person is there, the policies) is the kind's :class:`~bbspoker.bots.kind.BotKind`, looked
up by the table's kind in :mod:`bbspoker.bots.kinds`.

:class:`BotPool` hands the bot accounts out, so that one bot sits at one table at most:
among the tables of one process by itself, and across the workers of the split deployment
with a lock per bot account that every worker takes before it seats one
(:class:`BotLocks`: the worker's table leases, :meth:`bbspoker.table.lease.TableLeases.claim_bot`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Awaitable, Callable, Collection
from typing import TYPE_CHECKING, Protocol

from bbspoker.bots.kinds import bot_kind
from bbspoker.bots.player import BotPlayer
from bbspoker.rules import actions as act
from bbspoker.rules.events import RuleError
from bbspoker.table.registry import TableEntry, Tables
from bbspoker.table.service import TableSnapshot

if TYPE_CHECKING:
    from bbspoker.store.sql import Ledger

__all__ = ["BotPool", "BotLocks", "TableBots"]

log = logging.getLogger(__name__)

#: Seconds a table without a free funded bot waits before it asks the pool again (and
#: before it tries again after a step of its own failed).
RETRY = 10.0
#: How often one bot's task may fail at a table and be started again; at the next failure
#: the bot stands up and this table does not seat it again.
RESTARTS = 3


class BotLocks(Protocol):
    """Locks on bot accounts shared by every process that seats bots (the split
    deployment's workers): one holder per account at a time, freed when the holder dies."""

    async def claim_bot(self, handle: str) -> bool:
        """Take ``handle``'s lock; ``False`` if another process holds it (or it cannot be
        had now)."""

    def release_bot(self, handle: str) -> None:
        """Give ``handle``'s lock up (it may take effect a little later)."""


class BotPool:
    """The bot accounts of ``ledger`` (not banned), lent to tables one at a time.

    :meth:`claim` gives a bot that sits at no table of ``registry`` and holds at least the
    CUBES asked, and reserves it until :meth:`release`. A bot account with a password is
    a program's (it logs in on the bot port, :meth:`reserve`): tables never seat it.
    ``locks`` (a worker's, :class:`BotLocks`): other processes seat bots from the same
    ledger; a table's bots are then taken with :meth:`take`, which also holds the bot's
    lock until :meth:`release`, so that a bot sits at one table at most across them all.
    """

    def __init__(self, ledger: Ledger, registry: Tables,
                 locks: BotLocks | None = None) -> None:
        self.ledger = ledger
        self.registry = registry
        self.locks = locks
        self._claimed: set[str] = set()

    async def take(self, cubes: int, exclude: Collection[str] = ()) -> str | None:
        """What :meth:`claim` gives, with the bot's lock held too when the pool has
        ``locks``: a bot another process holds is passed over for the next one. Returns
        the handle reserved (release it with :meth:`release`) or ``None``."""
        passed: set[str] = set(exclude)
        while True:
            handle = self.claim(cubes, exclude=passed)
            if handle is None or self.locks is None:
                return handle
            try:
                won = await self.locks.claim_bot(handle)
            except BaseException:
                self.release(handle)
                raise
            if won:
                return handle
            self._claimed.discard(handle.lower())     # seated by another process
            passed.add(handle.lower())

    def claim(self, cubes: int, exclude: Collection[str] = ()) -> str | None:
        """A free bot's handle holding >= ``cubes`` CUBES (alphabetical first), reserved
        for the caller; ``None`` if there is none. ``exclude``: lower-case handles the
        caller will not take (bots that failed at its table)."""
        for account in self.ledger.list_accounts(bots=True):
            key = account.handle.lower()
            if account.banned or key in self._claimed or account.cubes < cubes \
                    or key in exclude:
                continue
            if self.registry.seat_of(account.handle) is not None:
                continue
            if self.ledger.password_hash(account.handle) is not None:
                continue                         # a program's, for the bot port
            self._claimed.add(key)
            return account.handle
        return None

    def reserve(self, handle: str) -> bool:
        """Reserve ``handle`` for a program on the bot port; False if it is in use (lent
        to a table, or logged in there already)."""
        key = handle.lower()
        if key in self._claimed or self.registry.seat_of(handle) is not None:
            return False
        self._claimed.add(key)
        return True

    def release(self, handle: str) -> None:
        """``handle`` is no longer seated by whoever claimed it (its lock, if any, is given
        up too)."""
        self._claimed.discard(handle.lower())
        if self.locks is not None:
            self.locks.release_bot(handle)


class TableBots:
    """The computer players of one table (``entry``; its ``spec.rules`` give ``bots``,
    ``bot_policy`` and ``bot_think_min``/``bot_think_max`` seconds; its ``spec.game``
    the :class:`~bbspoker.bots.kind.BotKind`, ``kind``). :meth:`run` is its
    task: it watches the table's snapshots and seats, stands up and runs bots.
    ``sleep`` is what the bots think with (tests inject one that does not wait).

    Each bot plays in a task of its own. A bot task that fails (a bug: its policy or its
    view of the table raised) is logged with its traceback and started again, so the bot
    goes on playing from the table's current state; after :data:`RESTARTS` restarts the
    bot stands up (everyone at the table sees it leave) and this table does not seat it
    again. A step of :meth:`run` itself that fails is logged and tried again after
    :data:`RETRY` s."""

    def __init__(self, entry: TableEntry, pool: BotPool, *, rng: random.Random | None = None,
                 sleep: Callable[[float], Awaitable[object]] = asyncio.sleep) -> None:
        self.entry = entry
        self.kind = bot_kind(entry.spec.game)
        self.service = entry.service
        self.pool = pool
        self.rng = rng or random.Random()
        self.sleep = sleep
        self.players: dict[str, tuple[BotPlayer, asyncio.Task[None]]] = {}
        self._changed = asyncio.Event()
        self._retry_at = 0.0       # loop time before which the pool is not asked again
        self._sitting: set[str] = set()   # bots whose Sit is in flight (lower case)
        self._failures: dict[str, int] = {}   # failed tasks per bot (lower case)
        self._benched: set[str] = set()       # bots that failed too often: not seated again

    def _humans(self) -> list[str]:
        """Who the bots play for: everyone seated but this table's own bots (people, and
        programs on the bot port, which come to play)."""
        snap = self.service.snapshot
        return [s.handle for s in snap.seats
                if s.handle.lower() not in self.players and s.handle.lower() not in self._sitting]

    async def run(self) -> None:
        """Keep the table's bots as the rules above say, until cancelled (the bots then
        stop acting; their seats go with the table, and the pool has them back)."""
        sub = self.service.bus.subscribe(notify=self._changed.set)
        try:
            while True:
                self._changed.clear()
                sub.drain()
                try:
                    progressed = await self._step(self.service.snapshot)
                except Exception:
                    log.exception("the computer players of %s failed a step; trying again "
                                  "in %s s", self.entry.id, RETRY)
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._changed.wait(), RETRY)
                    continue
                if not progressed:
                    await self._changed.wait()
        finally:
            sub.close()
            for _, task in self.players.values():
                task.cancel()
            await asyncio.gather(*(t for _, t in self.players.values()), return_exceptions=True)
            for bot, _ in self.players.values():
                self.pool.release(bot.handle)

    async def _step(self, snap: TableSnapshot) -> bool:
        """One change towards what the table should have; False when there is none."""
        rules = self.entry.spec.rules
        seated = {s.handle.lower(): s.handle for s in snap.seats}
        for key in [k for k in self.players if k not in seated]:     # gone (idle rule ...)
            self._forget(key)
        for key, (bot, task) in list(self.players.items()):
            if task.done() and not task.cancelled() and task.exception() is not None:
                return await self._recover(key, bot)
        if self.service.closing:
            return False                     # the server is stopping: nobody sits down
        kind = self.kind
        stake = kind.stake(self.entry.spec.config)
        if kind.between_games(snap) and self.players:
            if snap.waiting:
                return await self._stand_up(self._last_seated(snap), "make_room")
            for key in self.players:
                if kind.broke(snap, seated[key], stake):
                    return await self._stand_up(key, "broke")
        if len(self.players) < rules.bots and len(seated) < rules.seats and not snap.waiting:
            return await self._sit(stake)
        if kind.waits_for_people:
            # Hands are dealt by the clock, not by a game-master: bots sit out while no
            # person is at the table (they do not play each other for nobody).
            alone = not self._humans()
            for key in self.players:
                action = kind.sit_out(snap, seated[key], alone)
                if action is not None:
                    with contextlib.suppress(RuleError):
                        await self.service.call(seated[key], action)
                    return True
        return False

    def _last_seated(self, snap: TableSnapshot) -> str:
        mine = [s.handle.lower() for s in snap.seats if s.handle.lower() in self.players]
        return mine[-1]

    async def _sit(self, stake: int) -> bool:
        loop = asyncio.get_running_loop()
        if loop.time() < self._retry_at:
            return False
        handle = await self.pool.take(stake, exclude=self._benched)
        if handle is None:
            self._retry_at = loop.time() + RETRY
            return False
        self.service.mark_bot(handle)
        self._sitting.add(handle.lower())
        try:
            # Where hands are dealt by the clock a bot sits down sitting out while no
            # person is there: see _step.
            out = self.kind.waits_for_people and not self._humans()
            # A stack kept at this table (it moved from a worker that died mid-hand): the
            # bot sits with it, as a person seated again does (Sit(buy_in=0)).
            kept = self.service.table.table_stakes and self.pool.ledger.stack(
                handle, table=self.entry.id) > 0
            await self.service.call(handle, act.Sit(buy_in=0 if kept else None, out=out))
        except RuleError as err:
            log.info("bot %s could not sit at %s: %s", handle, self.entry.id, err.code)
            self.service.mark_bot(handle, False)
            self.pool.release(handle)
            return False
        except BaseException:              # cancelled: the table's bots are stopping
            self.pool.release(handle)
            raise
        finally:
            self._sitting.discard(handle.lower())
        self._start(handle)
        log.info("bot %s (%s) sat at %s", handle, self.entry.spec.rules.bot_policy,
                 self.entry.id)
        return True

    def _start(self, handle: str) -> None:
        """Run seated ``handle`` as a :class:`BotPlayer` in a task of its own."""
        rules = self.entry.spec.rules
        bot = BotPlayer(self.service, handle, self.kind.policy(rules.bot_policy),
                        self._humans, kind=self.kind, rng=random.Random(self.rng.random()),
                        think=(rules.bot_think_min, rules.bot_think_max), sleep=self.sleep)
        task = asyncio.create_task(bot.run(), name=f"bot {handle} at {self.entry.id}")
        task.add_done_callback(self._ended)
        self.players[handle.lower()] = (bot, task)

    def _ended(self, task: asyncio.Task[None]) -> None:
        """A bot's task ended: a failure is logged with its traceback at once (the next
        step of :meth:`run` restarts the bot or stands it up)."""
        if task.cancelled():
            return
        error = task.exception()
        if error is not None:
            log.error("%s failed", task.get_name(), exc_info=error)
        self._changed.set()

    async def _recover(self, key: str, bot: BotPlayer) -> bool:
        """The task of seated bot ``key`` failed: start it again, or after
        :data:`RESTARTS` restarts stand it up and keep it off this table."""
        failures = self._failures[key] = self._failures.get(key, 0) + 1
        if failures <= RESTARTS:
            log.warning("bot %s at %s: starting it again (failure %d of %d allowed)",
                        bot.handle, self.entry.id, failures, RESTARTS)
            self._start(bot.handle)
            return True
        log.error("bot %s at %s failed %d times: it stands up and is not seated here "
                  "again", bot.handle, self.entry.id, failures)
        self._benched.add(key)
        return await self._stand_up(key, "left")

    async def _stand_up(self, key: str, reason: str) -> bool:
        bot, _ = self.players[key]
        with contextlib.suppress(RuleError):
            await self.service.call(bot.handle, act.Leave(reason))
        log.info("bot %s left %s (%s)", bot.handle, self.entry.id, reason)
        self._forget(key)
        return True

    def _forget(self, key: str) -> None:
        bot, task = self.players.pop(key)
        task.cancel()
        self.service.mark_bot(bot.handle, False)
        self.pool.release(bot.handle)
