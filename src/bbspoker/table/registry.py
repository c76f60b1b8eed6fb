"""The registry of tables: one :class:`~bbspoker.table.service.TableService` per table
served, each with its own bus (topic), task and game records.

The registry builds the tables from the config's table specs (``[[tables]]``), runs
their tasks and one balance poll for all of them, finds where a player sits, and routes
a failed commit of the shared store to the tables whose games it touched, so that a
ledger failure at one table calls off only that table's game. ``bbspoker serve`` holds
every table of the config in one registry for its whole run; a ``bbspoker worker`` starts
with an empty one and adds and removes tables as it wins and loses their leases
(:meth:`TableRegistry.add`, :meth:`TableRegistry.remove`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from bbspoker import tasks
from bbspoker.config import TableSpec
from bbspoker.rules.base import Phrases
from bbspoker.rules.fairness import Seal
from bbspoker.rules.kinds import kind
from bbspoker.store.wallet import Wallet
from bbspoker.table import service as service_module
from bbspoker.table.bus import Bus
from bbspoker.table.service import TableAccess, TableService

__all__ = ["TableEntry", "TableRef", "Tables", "TableRegistry", "make_entry", "TableWallet", "Phrases"]

log = logging.getLogger(__name__)


class TableWallet:
    """The store as one table sees it: every call goes straight to ``wallet`` (the bound
    methods themselves: no extra call on a bet), except that a game it opens, and the
    next game's commitment it publishes, are recorded as this table's (``table_id``)."""

    def __init__(self, wallet: Wallet, table_id: str) -> None:
        self._wallet = wallet
        self.table_id = table_id
        for name in ("transaction", "defer_commits", "commit_pending", "balance",
                     "balances_of", "pay_into_pot", "pay_out_pot", "pot_to_system",
                     "pay_out_split", "close_game", "cancel_game"):
            setattr(self, name, getattr(wallet, name))

    def open_game(self, handles: Sequence[str], seal: Seal | str) -> int:
        """Record a new game at this table (see :meth:`bbspoker.store.wallet.Wallet.open_game`)."""
        return self._wallet.open_game(handles, seal, table=self.table_id)

    def publish_commitment(self, server_seed: bytes) -> float:
        """This table's next game's commitment, published (see
        :meth:`bbspoker.rules.money.Wallet.publish_commitment`)."""
        return self._wallet.publish_commitment(server_seed, table=self.table_id)


    # Table stakes (a kind with stacks): the stacks held at this table.

    def stack(self, handle: str) -> int:
        """``handle``'s stack at this table (:class:`bbspoker.rules.money.StackWallet`)."""
        return self._wallet.stack(handle, table=self.table_id)

    def buy_in(self, handle: str, amount: int) -> int:
        """Buy in at this table (:class:`bbspoker.rules.money.StackWallet`)."""
        return self._wallet.buy_in(handle, amount, table=self.table_id)

    def cash_out(self, handle: str) -> int:
        """Cash the stack at this table out (:class:`bbspoker.rules.money.StackWallet`)."""
        return self._wallet.cash_out(handle, table=self.table_id)

    def stack_into_pot(self, game_id: int, handle: str, amount: int, reason: str) -> int:
        """A blind or bet from the stack at this table (:class:`~bbspoker.rules.money.StackWallet`)."""
        return self._wallet.stack_into_pot(game_id, handle, amount, reason, table=self.table_id)

    def pot_to_stacks(self, game_id: int, shares: Mapping[str, int],
                      returns: Mapping[str, int] | None = None) -> None:
        """A hand's pot to stacks at this table (:class:`~bbspoker.rules.money.StackWallet`)."""
        self._wallet.pot_to_stacks(game_id, shares, returns, table=self.table_id)


#: The kind of service a :class:`TableEntry` holds.
ServiceT = TypeVar("ServiceT", bound=TableAccess, covariant=True)


@dataclass(frozen=True)
class TableEntry(Generic[ServiceT]):
    """One table of the lobby: its ``number`` (1-based, in lobby order), ``spec`` (id,
    name, game kind, rules from config) and ``service``: the
    :class:`~bbspoker.table.service.TableService` that owns its game, or in a gateway
    the :class:`~bbspoker.table.remote.RemoteTable` that follows it on its worker (both
    :class:`~bbspoker.table.service.TableAccess`)."""

    number: int
    spec: TableSpec
    service: ServiceT

    @property
    def id(self) -> str:
        """The table's id (stable: game records name it)."""
        return self.spec.id

    @property
    def name(self) -> str:
        """The table's name as the lobby shows it."""
        return self.spec.name

def make_entry(number: int, spec: TableSpec, wallet: Wallet, clock: Callable[[], float],
               phrases: Phrases | None,
               on_lost: Callable[[frozenset[int]], None]) -> TableEntry[TableService]:
    """The table ``spec`` as lobby entry ``number`` (1-based): its kind's game over
    ``wallet`` (as :class:`TableWallet`: its games recorded as this table's), a
    :class:`~bbspoker.table.service.TableService` with a bus of its own, time from
    ``clock``, the seed phrases from ``phrases`` and ``on_lost`` for a failed commit (see
    :class:`TableRegistry`). Its task is not started. ``KeyError`` for an unknown kind."""
    config = spec.config
    game = kind(spec.game).make(config, TableWallet(wallet, spec.id), phrases)
    service = TableService(game, Bus(), clock, config.reconnect_grace,
                           seat_idle_timeout=config.seat_idle_timeout, on_lost=on_lost)
    return TableEntry(number, spec, service)


#: A table as the door and the bot port reach it, in this process or on a worker.
TableRef = TableEntry[TableAccess]


class Tables(Protocol):
    """Every table of the lobby as the door and the bot port use them: the
    :class:`TableRegistry` of ``bbspoker serve``, or a gateway's
    :class:`~bbspoker.table.remote.RemoteTables`. ``tables[table_id]`` raises
    ``KeyError`` for an unknown id; iterating gives the tables in lobby order."""

    def __iter__(self) -> Iterator[TableRef]: ...

    def __len__(self) -> int: ...

    def __getitem__(self, table_id: str) -> TableRef: ...

    def by_number(self, number: int) -> TableRef | None:
        """The table listed as ``number`` (1-based), or ``None``."""
        ...

    def seat_of(self, handle: str) -> TableRef | None:
        """The table where ``handle`` (any case) is seated, or ``None``."""
        ...

    def held_seat(self, handle: str) -> TableRef | None:
        """The table holding ``handle``'s seat after a dropped connection, or ``None``."""
        ...

    def bots(self) -> Sequence[tuple[str, TableRef]]:
        """The computer players seated now with their tables, by handle (any case)."""
        ...


class TableRegistry:
    """The tables served by this process, in lobby order.

    ``specs``: the tables to build (``Config.table_specs``; empty: none yet, added later
    with :meth:`add`); ``wallet``: the store all tables share (the ledger); ``clock``:
    monotonic seconds for every table's task; ``phrases``: the players' client seed
    phrases for the provably fair deck (``None``: a random client seed for everyone);
    ``on_lost(games)``: a commit of the shared store failed (the ids of the games it
    held), for every table sharing it (default: :meth:`lose`, the registry's own; the
    server adds its tournaments' tables). ``registry[table_id]`` is a :class:`TableEntry`
    (``KeyError`` if unknown); iterating gives them in lobby order (by ``number``).
    """

    def __init__(self, specs: Sequence[TableSpec], wallet: Wallet,
                 clock: Callable[[], float] = time.monotonic,
                 phrases: Phrases | None = None,
                 on_lost: Callable[[frozenset[int]], None] | None = None) -> None:
        self._entries: dict[str, TableEntry[TableService]] = {}
        self._wallet = wallet
        for number, spec in enumerate(specs, 1):
            self._entries[spec.id] = make_entry(
                number, spec, wallet, clock, phrases,
                on_lost if on_lost is not None else self.lose)
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._poll: asyncio.Task[None] | None = None
        self._running = False

    def __iter__(self) -> Iterator[TableEntry[TableService]]:
        return iter(list(self._entries.values()))

    def __len__(self) -> int:
        return len(self._entries)

    def __getitem__(self, table_id: str) -> TableEntry[TableService]:
        return self._entries[table_id]

    def __contains__(self, table_id: object) -> bool:
        return table_id in self._entries

    @property
    def running(self) -> bool:
        """Whether :meth:`start` was called and :meth:`stop` was not (an entry added now
        starts at once)."""
        return self._running

    def add(self, entry: TableEntry[TableService]) -> None:
        """Serve ``entry`` from now on (its place in the iteration follows its
        ``number``); its task starts at once if the registry is running, else with
        :meth:`start`. Raises ``ValueError`` if a table of its id is served already."""
        if entry.id in self._entries:
            raise ValueError(f"table {entry.id!r} is served already")
        self._entries[entry.id] = entry
        self._entries = dict(sorted(self._entries.items(), key=lambda kv: kv[1].number))
        if self._running:
            self._start_one(entry)

    async def remove(self, table_id: str) -> TableEntry[TableService]:
        """Stop serving table ``table_id`` at once: it leaves the registry (the balance
        poll, :meth:`seat_of`, :meth:`lose` no longer see it) and its task is cancelled
        (waiting and later actions are refused ``table_closed``); returns when the task
        has ended. The game it ran is left as the ledger has it (the next owner of the
        table refunds it). Returns the entry; ``KeyError`` if it is not served."""
        entry = self._entries.pop(table_id)
        task = self._tasks.pop(table_id, None)
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        return entry

    def by_number(self, number: int) -> TableEntry[TableService] | None:
        """The table listed as ``number`` (1-based), or ``None``."""
        return next((e for e in self._entries.values() if e.number == number), None)

    def seat_of(self, handle: str) -> TableEntry[TableService] | None:
        """The table where ``handle`` (any case) is seated, or ``None``."""
        low = handle.lower()
        for entry in self._entries.values():
            if any(h.lower() == low for h in entry.service.table.handles):
                return entry
        return None

    def bots(self) -> list[tuple[str, TableEntry[TableService]]]:
        """The computer players seated now with their tables, by handle (any case)."""
        found = [(s.handle, e) for e in self._entries.values()
                 for s in e.service.snapshot.seats if s.handle.lower() in e.service.snapshot.bots]
        return sorted(found, key=lambda pair: pair[0].lower())

    def held_seat(self, handle: str) -> TableEntry[TableService] | None:
        """The table holding ``handle``'s seat after a dropped connection, or ``None``."""
        return next((e for e in self._entries.values() if e.service.held(handle)), None)

    def lose(self, games: frozenset[int]) -> None:
        """A commit of the shared store failed: every table calls off its own games."""
        for entry in list(self._entries.values()):
            entry.service.lose(games)

    def start(self) -> None:
        """Start every table's task and the balance poll (call once, inside the event
        loop); tables added later start as they are added."""
        self._running = True
        for entry in self._entries.values():
            self._start_one(entry)
        self._poll = tasks.start(self._poll_every_second(), name="balance poll")

    def _start_one(self, entry: TableEntry[TableService]) -> None:
        self._tasks[entry.id] = tasks.start(entry.service.run(), name=f"table {entry.id}")

    def poll_balances(self) -> int:
        """One balance poll of every table (:meth:`TableService.poll_balances`): the CUBES
        of everyone seated anywhere read from the wallet at once (its cache, after one
        look whether another connection committed: the admin CLI), and a step only at
        the tables where a shown balance changed or something else is due. Returns how
        many tables were woken. If the read fails (logged), every table is still polled
        for what is due but its CUBES; a table whose poll fails is logged and the others
        are polled all the same. Never raises.

        Why one poll for all tables: a timer per table costs one task switch and one
        look at the store per table per second; at 200 tables that measured ~23 ms of
        the server's CPU each second, most of an idle server's."""
        entries = list(self._entries.values())
        seated = list({s.handle: None for e in entries for s in e.service.snapshot.seats})
        balances: Mapping[str, int] = {}
        compare = True
        try:
            if seated:
                balances = self._wallet.balances_of(seated)
        except Exception:
            log.exception("balance poll: reading the CUBES failed; trying again in %g s",
                          service_module.BALANCE_POLL)
            compare = False
        woken = 0
        for entry in entries:
            try:
                woken += entry.service.poll_balances(balances, compare=compare)
            except Exception:
                log.exception("balance poll of table %s failed", entry.id)
        return woken

    async def _poll_every_second(self) -> None:
        """:meth:`poll_balances` every :data:`~bbspoker.table.service.BALANCE_POLL` s
        until cancelled."""
        while True:
            await asyncio.sleep(service_module.BALANCE_POLL)
            self.poll_balances()

    def _all_tasks(self) -> list[asyncio.Task[None]]:
        return [*self._tasks.values(), *([self._poll] if self._poll is not None else [])]

    def stop(self) -> None:
        """Cancel every table's task (and the balance poll): waiting and later actions are
        refused."""
        self._running = False
        for task in self._all_tasks():
            task.cancel()

    async def wait_stopped(self) -> None:
        """Wait until every table's task has ended."""
        await asyncio.gather(*self._all_tasks(), return_exceptions=True)

    async def finish_for_shutdown(self, grace: float) -> None:
        """Server shutdown: every table refuses new games and lets a running game finish
        for up to ``grace`` seconds, all at once (see
        :meth:`~bbspoker.table.service.TableService.finish_for_shutdown`)."""
        await asyncio.gather(*(e.service.finish_for_shutdown(grace)
                               for e in list(self._entries.values())))
