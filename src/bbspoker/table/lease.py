"""Which worker serves which table: :class:`TableLeases`, a worker's leases on table ids.

One writer per table, always: a worker serves a table only while it holds the table's
lease, and a lease is held by one worker at a time. The leases are locks of a
:class:`TableLocks` (on PostgreSQL: session-level advisory locks on a connection of the
worker's own, :class:`bbspoker.store.postgres.lease.PostgresTableLocks`), so a worker that
dies loses them the moment the database ends its session, and another worker takes its
tables at its next tick.

Every ``interval`` seconds (:meth:`TableLeases.run`, one :meth:`TableLeases.tick` each):

* without a connection (the first tick, or after a loss): connect, which may fail (logged,
  tried again at the next tick);
* survey: the number of live workers and the tables nobody holds, which also checks the
  connection; then try the free tables up to the worker's fair share (below) and report
  the ones won to ``on_won``;
* any failure of the connection (lost, cut, a statement failing, no answer within
  ``timeout`` seconds): every lease is lost at once, since another worker may hold them
  already or will once the database ends the session. ``on_lost(ids)`` is called with
  all the tables held, *before* the connection is closed (closing it frees the locks for
  others: the worker must have stopped serving them first), then the connection is closed
  and the next tick connects and claims again.

Computer players: a worker seats a bot account only while it holds the bot's lock on
the same connection (:meth:`TableLeases.claim_bot`), so that a bot sits at one table at most
across all workers. The lock goes with the connection, as the leases do: a worker that dies
frees its bots with its tables, and one whose connection is lost has stopped its tables (and
their bots) in ``on_lost`` before it is closed. A bot given up
(:meth:`TableLeases.release_bot`, synchronous) is unlocked at the connection's next call.

Fair share: with ``w`` live workers (every worker's lease connection counts, this one's
included) and ``n`` tables, a worker claims tables while it holds fewer than
``ceil(n / w)``, and never more than ``max_tables`` if set. A worker that already holds
more than its share (it was alone when it claimed them) keeps them: moving a table calls
its running game off, so handing tables over is the worker's own decision
(:attr:`TableLeases.surplus` says how many, :meth:`TableLeases.release` gives one up).
Workers that start at once may each claim before they see the others; the shares even
out as tables are released or workers die.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import math
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Protocol

__all__ = ["TableLeases", "TableLocks", "LeaseCallback", "DEFAULT_INTERVAL", "DEFAULT_TIMEOUT"]

log = logging.getLogger(__name__)

#: Seconds between two ticks of :meth:`TableLeases.run`.
DEFAULT_INTERVAL = 1.0
#: Seconds a tick's database work may take before the connection counts as lost.
DEFAULT_TIMEOUT = 2.0

#: ``on_won``/``on_lost``: called with a set of table ids; may be a coroutine function.
LeaseCallback = Callable[[set[str]], Awaitable[None] | None]


class TableLocks(Protocol):
    """The locks of table leases on one connection of the worker's own (the PostgreSQL
    one: :class:`bbspoker.store.postgres.lease.PostgresTableLocks`). Every method but
    :meth:`close` raises :class:`bbspoker.store.wallet.StoreError` when the database
    fails, a lost connection included; a lock is held by one connection at a time and
    ends with it."""

    async def connect(self) -> None:
        """Open a new connection (closing the former one) and count it among the live
        workers."""

    async def survey(self, table_ids: Iterable[str]) -> tuple[int, set[str]]:
        """``(live workers, ids of table_ids nobody holds)``."""

    async def try_claim(self, table_ids: Iterable[str]) -> set[str]:
        """Take each lease of ``table_ids`` that is free, never waiting; returns the ids won."""

    async def release(self, table_id: str) -> bool:
        """Give up the lease of ``table_id``; returns whether it was held."""

    async def try_claim_bot(self, handle: str) -> bool:
        """Take the lock of bot account ``handle`` if no session holds it, never waiting;
        returns whether it was won."""

    async def release_bot(self, handle: str) -> bool:
        """Give up the lock of bot account ``handle``; returns whether it was held."""

    async def close(self) -> None:
        """Close the connection, freeing every lock on it; never raises."""


class TableLeases:
    """A worker's leases on the tables ``table_ids`` (every table of the configuration:
    the ones it may serve), held through ``locks``. :attr:`held` is the set it holds.

    ``on_won(ids)`` is called with the tables :meth:`run` won (the worker recovers and
    serves them); ``on_lost(ids)`` with every table held when the connection is lost (the
    worker stops serving them at once); either may be a coroutine function, and one that
    raises is logged with its traceback and changes nothing. ``interval``: seconds
    between ticks; ``timeout``: seconds a tick's database work may take; ``max_tables``:
    at most this many tables (None: the fair share alone); ``sleep``: the pause between
    ticks (tests pass their own). ``ValueError`` from ``locks`` (two table ids with one
    lock key) goes to the caller of :meth:`claim`/:meth:`tick`."""

    def __init__(self, locks: TableLocks, table_ids: Sequence[str], *,
                 on_won: LeaseCallback | None = None, on_lost: LeaseCallback | None = None,
                 interval: float = DEFAULT_INTERVAL, timeout: float = DEFAULT_TIMEOUT,
                 max_tables: int | None = None,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        if max_tables is not None and max_tables < 0:
            raise ValueError(f"max_tables must be >= 0, got {max_tables}")
        self.locks = locks
        self.table_ids = list(dict.fromkeys(table_ids))
        self.on_won, self.on_lost = on_won, on_lost
        self.interval, self.timeout = interval, timeout
        self.max_tables = max_tables
        self._sleep = sleep
        self._held: set[str] = set()
        self._bots: set[str] = set()       # bot accounts (lower case) whose locks are held
        self._unbot: list[str] = []        # bots given up, unlocked at the next call
        self._connected = False
        self._failing = False          # the last connect failed (logged once in full)
        self._lock = asyncio.Lock()    # one database call at a time, held in step with it
        #: Live workers at the last survey (this one included; 0 before the first).
        self.workers = 0

    @property
    def held(self) -> frozenset[str]:
        """The table ids this worker holds the lease of now."""
        return frozenset(self._held)

    @property
    def bots(self) -> frozenset[str]:
        """The bot accounts (lower case) whose locks this worker holds now."""
        return frozenset(self._bots)

    @property
    def connected(self) -> bool:
        """Whether the lease connection is open (as far as the last call knew)."""
        return self._connected

    def share(self, workers: int | None = None) -> int:
        """How many tables this worker may hold with ``workers`` live (default: the last
        survey's): ``ceil(tables / workers)``, at most ``max_tables``."""
        alive = max(1, self.workers if workers is None else workers)
        fair = math.ceil(len(self.table_ids) / alive)
        return fair if self.max_tables is None else min(fair, self.max_tables)

    @property
    def surplus(self) -> int:
        """How many tables this worker holds beyond its share (0 if none): the ones it may
        hand over, between games, with :meth:`release`."""
        return max(0, len(self._held) - self.share())

    async def connect(self) -> bool:
        """Open the lease connection without claiming anything: the worker counts among
        the live workers from now on, so the others' shares shrink before it claims (a
        worker starting connects, waits an interval, then ticks). Returns whether it is
        connected; a failure is logged and the next tick tries again."""
        async with self._lock:
            if not self._connected:
                await self._guarded(self._just_connect())
            return self._connected

    async def claim(self, table_ids: Iterable[str] | None = None) -> set[str]:
        """Try to win the leases of ``table_ids`` (default: every table) that nobody holds,
        in the given order, while this worker holds fewer than its share. Returns the ids
        won now (``on_won`` is not called: the caller has them). Connects first if there is
        no connection. A failure of the connection loses every lease (``on_lost``) and
        returns an empty set; it is logged, and the next call or tick tries again."""
        known = set(self.table_ids)
        wanted = self.table_ids if table_ids is None else [
            t for t in dict.fromkeys(table_ids) if t in known]
        async with self._lock:
            return await self._guarded(self._claim(wanted))

    async def release(self, table_id: str) -> None:
        """Give up the lease of ``table_id`` (the worker has stopped serving it): another
        worker may take it at its next tick. Nothing happens for a table not held. A
        failure of the connection loses every lease, as in :meth:`claim`."""
        if table_id not in self._held:    # (so ``on_lost`` may call it: nothing is held)
            return
        async with self._lock:
            if table_id not in self._held:
                return
            self._held.discard(table_id)
            await self._guarded(self._release(table_id))

    async def claim_bot(self, handle: str) -> bool:
        """Take the lock of bot account ``handle`` (any case) for this worker, which may
        then seat it (see the module docstring). ``False`` if another worker holds it,
        this one holds it already, or there is no connection (a worker without one serves
        no table); a failure of the connection loses every lease (``on_lost``, as in
        :meth:`claim`) and returns ``False``."""
        key = handle.lower()
        async with self._lock:
            if not self._connected or key in self._bots:
                return False
            return bool(await self._guarded(self._claim_bot(key)))

    def release_bot(self, handle: str) -> None:
        """This worker no longer seats bot account ``handle`` (any case): its lock is given
        up at the connection's next call (the next tick, within ``interval`` s, or
        :meth:`claim_bot`), from when another worker may seat it. Synchronous, so that a
        table's computer players can call it as they end; nothing happens for a bot not
        held."""
        key = handle.lower()
        if key in self._bots:
            self._bots.discard(key)
            self._unbot.append(key)

    async def tick(self) -> set[str]:
        """One round of :meth:`run`: connect if needed, survey, claim up to the share;
        ``on_won`` with the tables won. Returns them (empty after a failure, which is
        logged and handled as :meth:`claim` says)."""
        won = await self.claim()
        if won:
            await self._call(self.on_won, won, "on_won")
        return won

    async def run(self) -> None:
        """Tick every ``interval`` seconds until cancelled. Never ends on an error: each is
        logged with its traceback and the next tick tries again."""
        while True:
            try:
                await self.tick()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("table leases: a tick failed; trying again")
            await self._sleep(self.interval)

    async def close(self) -> None:
        """Give up every lease at once (close the connection). The caller stops serving the
        tables first; ``on_lost`` is not called."""
        async with self._lock:
            self._held.clear()
            self._bots.clear()
            self._unbot.clear()
            self._connected = False
            await self.locks.close()

    # ------------------------------------------------------------------ internals

    async def _claim(self, wanted: list[str]) -> set[str]:
        if not self._connected:
            await self._connect()
        await self._flush_bots()
        workers, free = await self.locks.survey(self.table_ids)
        self.workers = workers
        room = self.share() - len(self._held)
        candidates = [t for t in wanted if t in free and t not in self._held][:max(0, room)]
        if not candidates:
            return set()
        won = await self.locks.try_claim(candidates)
        self._held |= won
        if won:
            log.info("table leases: won %s (%d of %d tables held, %d workers alive)",
                     ", ".join(sorted(won)), len(self._held), len(self.table_ids), workers)
        return won

    async def _claim_bot(self, key: str) -> set[str]:
        await self._flush_bots()
        if not await self.locks.try_claim_bot(key):
            return set()
        self._bots.add(key)
        return {key}

    async def _flush_bots(self) -> None:
        """Unlock the bots given up since the last call (:meth:`release_bot`)."""
        while self._unbot:
            await self.locks.release_bot(self._unbot[0])
            self._unbot.pop(0)

    async def _just_connect(self) -> set[str]:
        await self._connect()
        return set()

    async def _release(self, table_id: str) -> set[str]:
        if self._connected:
            await self.locks.release(table_id)
        return set()

    async def _connect(self) -> None:
        try:
            await self.locks.connect()
        except Exception:
            if not self._failing:
                log.exception("table leases: cannot connect; trying again every %g s",
                              self.interval)
            else:
                log.warning("table leases: still cannot connect")
            self._failing = True
            raise _Quiet() from None
        if self._failing:
            log.warning("table leases: connected again")
        self._failing = False
        self._connected = True

    async def _guarded(self, work: Awaitable[set[str]]) -> set[str]:
        """``work`` within ``timeout`` seconds; a failure loses every lease."""
        try:
            return await asyncio.wait_for(work, self.timeout)
        except _Quiet:
            return set()
        except ValueError:
            raise
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if isinstance(exc, (asyncio.TimeoutError, TimeoutError)):
                log.error("table leases: the database did not answer within %g s; every "
                          "lease counts as lost", self.timeout)
            else:
                log.error("table leases: the connection failed; every lease counts as lost",
                          exc_info=exc)
            await self._lose()
            return set()

    async def _lose(self) -> None:
        """Every lease is lost: tell the worker (it stops serving them), then close the
        connection (which frees whatever locks it still had)."""
        lost, self._held = set(self._held), set()
        self._bots.clear()
        self._unbot.clear()
        self._connected = False
        if lost:
            log.error("table leases: lost %s", ", ".join(sorted(lost)))
            await self._call(self.on_lost, lost, "on_lost")
        await self.locks.close()

    async def _call(self, callback: LeaseCallback | None, ids: set[str], what: str) -> None:
        if callback is None:
            return
        try:
            result = callback(set(ids))
            if inspect.isawaitable(result):
                await result
        except Exception:
            log.exception("table leases: %s(%s) failed", what, ", ".join(sorted(ids)))


class _Quiet(Exception):
    """A connect that failed and was logged: nothing was held, nothing is lost."""
