"""``bbspoker worker``: a process that serves tables to the gateways over NATS.

A :class:`Worker` holds :class:`~bbspoker.table.lease.TableLeases` over every table of
``config.table_specs`` and serves exactly the tables whose leases it holds, each as
``bbspoker serve`` runs it (its :class:`~bbspoker.table.service.TableService` and task in
the worker's :class:`~bbspoker.table.registry.TableRegistry`, its computer players when
its rules have ``bots``), published by a :class:`~bbspoker.table.remote.TableHost` on the
worker's NATS connection for the gateways' :class:`~bbspoker.table.remote.RemoteTable` s.

- A lease won (a table nobody serves: at the start, or a dead worker's):
  ``Ledger.recover_unfinished_games(now, table=id)`` first, which refunds the game the
  former owner left unfinished (every ante and bet back; at a table-stakes table the
  blinds and bets go back to the stacks, and the stacks stay at the table), logged; then
  the table is built as lobby entry ``n`` (its place in ``config.table_specs``) and its
  task starts; the people of the games refunded and those with a stack kept at the table
  are seated again (a table-stakes kind: ``Sit(buy_in=0)``, the stack kept) and their
  seats held for the reconnect grace (:class:`~bbspoker.table.service.Hold`): the
  gateways' screens still up take them back (``Return``) once the host serves the table;
  then the host and the bots start. A table that cannot be set up is logged and its
  lease given up (another worker, or this one at its next tick, tries again).
- The leases lost (the lease connection failed): those tables stop at once, before the
  connection is closed (another worker may hold them a moment later): their tasks are
  cancelled (waiting actions are refused), their bots stop, their hosts unsubscribe.
- A commit of the ledger that failed calls off the games it touched at this worker's
  tables (:meth:`~bbspoker.table.registry.TableRegistry.lose`).
- One balance poll for the tables served (the registry's).
- Bots: a bot account is seated only while this worker holds its lock on the lease
  connection (:meth:`~bbspoker.table.lease.TableLeases.claim_bot`), so that it sits at
  one table at most across every worker; a dead worker's bots are free again with its
  tables.
- Seats of players whose gateway died: every :data:`ONLINE_CHECK` s, at each table served,
  a seated person (not a bot) with a screen up (attached) whose handle is not in
  ``online()`` has their screens dropped and their seat held for the reconnect grace, as
  when a connection drops (:meth:`~bbspoker.table.service.TableService.screens_lost`).
  ``online()`` is the set of ``handle_key`` s logged in on any gateway, or ``None``
  while that is not known (then nothing happens).

:func:`run_worker` is the command: it opens the ledger (PostgreSQL only), the NATS
connection and the lease connection, serves until SIGTERM or SIGINT, then lets running
games finish for ``[table] shutdown_grace`` seconds, stops the hosts and closes the
leases, so that the other workers take the tables over.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Set
from typing import Any

from bbspoker import tasks
from bbspoker.cluster.node import connect_nats, share_ledger, process_name, start_logging
from bbspoker.cluster.presence import Presence
from bbspoker.bots.seats import BotPool, TableBots
from bbspoker.config import Config, TableSpec
from bbspoker.process import Lifetime
from bbspoker.rules import actions as act
from bbspoker.rules.events import Event, RuleError
from bbspoker.store.sql import Ledger, handle_key
from bbspoker.table.lease import TableLeases, TableLocks
from bbspoker.table.registry import TableRegistry, make_entry
from bbspoker.table.remote import Link, TableHost
from bbspoker.table.service import Direct, Hold, TableService

__all__ = ["Worker", "run_worker", "ONLINE_CHECK", "ONLINE_GRACE", "TAKEOVER_HOLD"]

log = logging.getLogger(__name__)

#: Seconds between two looks for seated players whose gateway is gone.
ONLINE_CHECK = 1.0
#: Seconds a seated player must be missing from every gateway's presence before their
#: seat is held: a gateway whose event loop stalls for a few seconds (a long collection,
#: a saturated core) is late with its announcements and forgotten by the others for a
#: moment, and its players must not lose their screens' hold on their seats for that.
ONLINE_GRACE = 10.0
#: Seconds, at least, a table taken over holds the seats of the players it seated again
#: (longer if ``[table] reconnect_grace`` is): their gateways' screens, still up, take
#: them back as soon as they see the new worker's first snapshot.
TAKEOVER_HOLD = 30.0

#: ``online()``: the ``handle_key`` s logged in on any gateway, or ``None`` while unknown.
Online = Callable[[], Set[str] | None]


def _ignore_outcome(future: asyncio.Future[None]) -> None:
    """Take a future's outcome so that a refusal (the table stopped) is not reported as
    never retrieved."""
    if not future.cancelled():
        future.exception()


class Worker:
    """The tables one worker serves (see the module docstring).

    ``config``: its ``table_specs`` are the tables it may serve, ``[cluster]``
    ``lease_interval`` (seconds between lease ticks) and ``max_tables`` (0: its fair share
    alone); ``ledger``: the shared PostgreSQL ledger (SQLite works for one worker alone:
    tests); ``link``: the NATS connection its hosts publish on; ``locks``: the lease
    locks (:class:`~bbspoker.store.postgres.lease.PostgresTableLocks`); ``clock``:
    monotonic seconds of every table; ``bot_sleep``: what the bots think with; ``online``:
    see the module docstring; ``check_every``: seconds between two online checks;
    ``online_grace``: seconds a seated player must be missing from ``online()`` before
    the seat is held (:data:`ONLINE_GRACE`).

    :meth:`start` inside the event loop; :meth:`stop` once. :attr:`tables` is the set of
    table ids served now.
    """

    def __init__(self, config: Config, ledger: Ledger, link: Link, locks: TableLocks, *,
                 clock: Callable[[], float] = time.monotonic,
                 bot_sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
                 online: Online | None = None, check_every: float = ONLINE_CHECK,
                 online_grace: float = ONLINE_GRACE) -> None:
        self.config = config
        self.ledger = ledger
        self.link = link
        self.clock = clock
        self.bot_sleep = bot_sleep
        self.online = online
        self.check_every = check_every
        self.online_grace = online_grace
        # (table, lower-case handle) -> when the check first found them on no gateway.
        self._missing: dict[tuple[str, str], float] = {}
        self._specs: dict[str, tuple[int, TableSpec]] = {
            spec.id: (number, spec) for number, spec in enumerate(config.table_specs, 1)}
        self.registry = TableRegistry((), ledger, clock, phrases=ledger.client_seeds_of)
        cluster = config.cluster
        self.leases = TableLeases(locks, list(self._specs), on_won=self._won,
                                  on_lost=self._lost, interval=cluster.lease_interval,
                                  max_tables=cluster.max_tables or None)
        self.bot_pool = BotPool(ledger, self.registry, locks=self.leases)
        self.hosts: dict[str, TableHost] = {}
        self.bots: dict[str, tuple[TableBots, asyncio.Task[None]]] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self._changing = asyncio.Lock()     # one table set-up or tear-down at a time
        self._stopping = False

    @property
    def tables(self) -> frozenset[str]:
        """The ids of the tables this worker serves now."""
        return frozenset(entry.id for entry in self.registry)

    async def start(self) -> None:
        """Start the balance poll, open the lease connection (this worker counts among the
        live ones from now, so the others' shares shrink), and after one
        ``lease_interval`` start ticking (claiming its share of the tables) and the online
        check. A lease connection that cannot be opened now is logged and tried again at
        every tick."""
        self.registry.start()
        await self.leases.connect()
        self._tasks = [tasks.start(self._run_leases(), name="table leases"),
                       tasks.start(self._watch_online(), name="online check")]

    async def _run_leases(self) -> None:
        await asyncio.sleep(self.leases.interval)
        await self.leases.run()

    # ------------------------------------------------------------ tables won and lost

    async def _won(self, ids: set[str]) -> None:
        """``on_won``: serve each table of ``ids`` (in lobby order)."""
        for table_id in sorted(ids, key=lambda t: self._specs[t][0]):
            async with self._changing:
                if self._stopping or table_id not in self.leases.held:
                    continue                     # lost again, or shutting down meanwhile
                try:
                    await self._serve(table_id)
                except Exception:
                    log.exception("table %s: cannot serve it; giving its lease up", table_id)
                    await self._unserve(table_id)
                    await self.leases.release(table_id)
                    continue
                if table_id not in self.leases.held:    # lost while it was being set up
                    await self._unserve(table_id)

    async def _serve(self, table_id: str) -> None:
        number, spec = self._specs[table_id]
        refunded = self.ledger.recover_unfinished_games(time.time(), table=table_id)
        if refunded:
            log.warning("table %s taken over: refunded the game(s) %s its former worker "
                        "left unfinished (the players keep their seats' CUBES)", table_id,
                        ", ".join(map(str, refunded)))
        entry = make_entry(number, spec, self.ledger, self.clock, self.ledger.client_seeds_of,
                           self.registry.lose)
        self.registry.add(entry)
        await self._seat_again(entry.service, table_id, refunded)
        host = self.hosts[table_id] = TableHost(self.link, entry.service, table_id)
        await host.start()
        if refunded:
            # Everyone at the table reads why the game stopped (the refund notices wait
            # for the next login): one line per game, from the table's own step.
            await entry.service.call(None, Direct(lambda now: [
                Event("cancelled", None, {"reason": "moved", "game_id": game_id})
                for game_id in refunded]))
        if spec.rules.bots:
            bots = TableBots(entry, self.bot_pool, sleep=self.bot_sleep)
            self.bots[table_id] = (bots, tasks.start(bots.run(), name=f"bots at {table_id}"))
        log.info("serving table %s (%s)", table_id, spec.name)

    async def _seat_again(self, service: TableService, table_id: str,
                          refunded: list[int]) -> None:
        """Seat again, and hold the seat of, every person the former owner had at the table
        as far as the ledger tells: the players of the games refunded and the holders of a
        stack kept there (bot accounts are left to this worker's own bots)."""
        handles: dict[str, str] = {}
        for game_id in refunded:
            game = self.ledger.game(game_id)
            for handle in game.players if game is not None else ():
                handles.setdefault(handle.lower(), handle)
        if service.table.table_stakes:
            for handle, stacks in self.ledger.table_stacks().items():
                if stacks.get(table_id, 0) > 0:
                    handles.setdefault(handle.lower(), handle)
        sit = act.Sit(buy_in=0) if service.table.table_stakes else act.Sit()
        for handle in handles.values():
            account = self.ledger.find_account(handle)
            if account is None or account.bot:
                continue
            try:
                await service.call(handle, sit)
                await service.call(handle, Hold(grace=max(service.reconnect_grace,
                                                          TAKEOVER_HOLD)))
            except RuleError as err:
                log.warning("table %s taken over: %s could not be seated again: %s",
                            table_id, handle, err.code)
                continue
            log.info("table %s taken over: %s seated again, the seat held for them",
                     table_id, handle)

    async def _unserve(self, table_id: str) -> None:
        """Stop serving ``table_id``: its bots and its task at once, then its host."""
        bots = self.bots.pop(table_id, None)
        if bots is not None:
            bots[1].cancel()
        if table_id in self.registry:
            await self.registry.remove(table_id)
        if bots is not None:
            await asyncio.gather(bots[1], return_exceptions=True)
        host = self.hosts.pop(table_id, None)
        if host is not None:
            await host.stop()

    async def _lost(self, ids: set[str]) -> None:
        """``on_lost``: stop serving ``ids`` now (another worker may hold them soon)."""
        served = [t for t in ids if t in self.registry or t in self.hosts]
        # Each table's task and bots are cancelled first, without waiting for another's
        # host to unsubscribe: nothing of them writes to the ledger from then on.
        await asyncio.gather(*(self._unserve(t) for t in served), return_exceptions=True)
        if served:
            log.error("stopped serving %s: their leases are lost", ", ".join(sorted(served)))

    # ------------------------------------------------------------ gateways gone

    def check_online(self) -> int:
        """One look for seated people whose gateway is gone (see the module docstring);
        returns how many seats were put on hold. Nothing while ``online()`` is ``None``."""
        here = self.online() if self.online is not None else None
        if here is None:
            self._missing.clear()
            return 0
        now = self.clock()
        dropped = 0
        missing: dict[tuple[str, str], float] = {}
        for entry in self.registry:
            service = entry.service
            attached = service.attached
            if not attached:
                continue
            snap = service.snapshot
            ours = self.bots[entry.id][0].players if entry.id in self.bots else {}
            for seat in snap.seats:
                key = seat.handle.lower()
                if key not in attached or key in snap.bots or key in ours \
                        or handle_key(seat.handle) in here:
                    continue
                since = missing[entry.id, key] = self._missing.get((entry.id, key), now)
                if now - since < self.online_grace:
                    continue           # a gateway late with its announcements, maybe
                log.info("%s is logged in on no gateway: their seat at %s is held for them",
                         seat.handle, entry.id)
                service.screens_lost(seat.handle).add_done_callback(_ignore_outcome)
                del missing[entry.id, key]
                dropped += 1
        self._missing = missing
        return dropped

    async def _watch_online(self) -> None:
        """:meth:`check_online` every ``check_every`` s until cancelled; a failure is
        logged and the next look goes on."""
        while True:
            await asyncio.sleep(self.check_every)
            try:
                self.check_online()
            except Exception:
                log.exception("the online check failed; trying again in %g s",
                              self.check_every)

    # ------------------------------------------------------------ shutdown

    async def stop(self, grace: float) -> None:
        """Stop: no more leases claimed; every game running finishes within ``grace``
        seconds or is called off and refunded (table-stakes stacks cashed out, as
        ``bbspoker serve`` does); then the bots, hosts and tables stop and the leases are
        given up (closing the lease connection), so that the other workers take the
        tables at their next tick."""
        self._stopping = True
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        async with self._changing:
            try:
                await self.registry.finish_for_shutdown(grace)
            except Exception:
                log.exception("finishing the games for the shutdown failed")
            await asyncio.gather(*(self._unserve(t) for t in list(self.hosts)),
                                 return_exceptions=True)
            self.registry.stop()
            await self.registry.wait_stopped()
        await self.leases.close()


async def _serve_until_signalled(config: Config, ledger: Ledger, name: str) -> int:
    from bbspoker.store.postgres.lease import PostgresTableLocks

    link = await connect_nats(config, name)
    if link is None:
        return 1
    # Who is logged in on which gateway: the seats of people whose gateway is gone are
    # held (Worker.check_online).
    presence = Presence(link, name, interval=config.cluster.presence_interval,
                        key=handle_key, timeout=config.cluster.timeout, listen_only=True)
    worker = Worker(config, ledger, link, PostgresTableLocks(config.ledger.url),
                    online=presence.online)
    try:
        async with Lifetime() as life:
            await presence.start()
            await worker.start()
            life.ready()
            log.info("worker %s started: %d table(s) configured", name,
                     len(config.table_specs))
            await life.until_signalled()
            log.info("finishing the games, then giving the tables up")
            await worker.stop(config.table.shutdown_grace)
    finally:
        await presence.stop()
        await link.close()
    return 0


def run_worker(config: Config) -> int:
    """``bbspoker worker``: serve tables until SIGTERM or SIGINT (blocking); returns the
    exit status: 0 after a clean stop, 1 (one line on stderr) if ``[ledger] url`` is not a
    PostgreSQL database (the leases need one), a ``bbspoker serve`` uses it, or NATS
    cannot be reached within
    :data:`~bbspoker.cluster.node.NATS_CONNECT_TIMEOUT` s. A lease connection that cannot
    be opened is logged and tried again every ``lease_interval``."""
    from bbspoker.store import open_ledger

    start_logging(config)
    name = process_name(config, "worker")
    lock = share_ledger(config, "worker")
    if lock is None:
        return 1
    ledger = open_ledger(config.ledger)
    try:
        with lock:
            return asyncio.run(_serve_until_signalled(config, ledger, name))
    finally:
        ledger.close()
        log.info("worker %s stopped", name)
