"""Table leases on PostgreSQL: :class:`PostgresTableLocks`, the locks behind
:class:`bbspoker.table.lease.TableLeases`.

A worker's claim on a table is a session-level advisory lock,
``pg_try_advisory_lock(table_key(table_id))``, taken on one connection of its own (not the
ledger's writer connection, whose transactions and reconnects have nothing to do with
it). PostgreSQL guarantees what the leases rest on: a session-level advisory lock is held
by one session at a time, and it ends with its session; a worker that dies (its process
killed, its host gone) loses its locks the moment PostgreSQL ends its session, which it
does at once when the socket is closed and, for a host that vanished without closing it,
when the TCP keepalive or user timeout below gives up on it.

Keys: :func:`table_key` is the first 8 bytes of BLAKE2b of the table id's UTF-8 (with the
personalisation ``bbspoker-lease``), read as a signed 64-bit integer, PostgreSQL's
``bigint``. :func:`lease_keys` checks a worker's table ids before any lock is taken: no two
ids may share a key, and no key may be one of the other advisory keys the server uses on
the same database (:data:`~bbspoker.store.postgres.writer.LOCK_KEY`, the ledger's write
lock; :data:`~bbspoker.store.postgres.writer.SERVER_LOCK_KEY`, a running server's;
:data:`WORKERS_KEY`, below), else ``ValueError``. Two ids colliding by chance has a
probability of about n^2 / 2^65 for n tables.

Computer players: a worker seats a bot account only while its lease connection also holds
the bot's lock, ``pg_try_advisory_lock(a, b)`` with the two 32-bit halves of
:func:`bot_key` (the two-key form: PostgreSQL keeps it apart from every one-key lock above,
so no bot's key can be a table's or a reserved one). It ends with the session, as the
tables' do: a bot seated by a worker that died is free for another at once, and a worker
whose lease connection is lost stops its tables, and so its bots, before it closes it.

Live workers: every lease connection also holds the *shared* advisory lock
:data:`WORKERS_KEY`; the number of sessions holding it (``pg_locks``, this database) is the
number of workers alive, from which a worker reckons its fair share.

Keepalives (:class:`Keepalive`), set on the lease connection on both ends: libpq's
``keepalives_idle``, ``keepalives_interval``, ``keepalives_count`` and ``tcp_user_timeout``
(the worker gives up on a dead network or server), and the server's ``tcp_keepalives_idle``,
``tcp_keepalives_interval``, ``tcp_keepalives_count`` and ``tcp_user_timeout`` for this
session (``SET``: PostgreSQL ends the session of a worker whose host vanished, and so frees
its tables, within seconds instead of the operating system's two hours). Over a Unix
socket PostgreSQL and libpq ignore them (there is no TCP to watch; a dead process's socket
closes at once).
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

import psycopg

from bbspoker.store.postgres.writer import LOCK_KEY, SERVER_LOCK_KEY, display_url
from bbspoker.store.wallet import StoreError

__all__ = ["PostgresTableLocks", "Keepalive", "table_key", "bot_key", "lease_keys",
           "WORKERS_KEY"]

log = logging.getLogger("bbspoker.store")

#: The shared advisory lock every lease connection holds: its holders are the live workers
#: ("bbworker" in ASCII).
WORKERS_KEY = int.from_bytes(b"bbworker", "big")
#: Advisory keys the server takes for other ends on the same database.
RESERVED_KEYS = {LOCK_KEY: "the ledger's write lock", SERVER_LOCK_KEY: "the server lock",
                 WORKERS_KEY: "the live workers' lock"}


def table_key(table_id: str) -> int:
    """The advisory lock key of table ``table_id``: BLAKE2b-64 of its UTF-8 (personalised
    ``bbspoker-lease``) as a signed 64-bit integer (see the module docstring)."""
    digest = hashlib.blake2b(table_id.encode("utf-8"), digest_size=8,
                             person=b"bbspoker-lease").digest()
    return int.from_bytes(digest, "big", signed=True)


def bot_key(handle: str) -> tuple[int, int]:
    """The advisory lock key of bot account ``handle`` (any case): BLAKE2b-64 of its lower
    case UTF-8 (personalised ``bbspoker-bot``) as two signed 32-bit integers, the high
    half first (the two-key form of ``pg_try_advisory_lock``: see the module docstring)."""
    digest = hashlib.blake2b(handle.lower().encode("utf-8"), digest_size=8,
                             person=b"bbspoker-bot").digest()
    return (int.from_bytes(digest[:4], "big", signed=True),
            int.from_bytes(digest[4:], "big", signed=True))


def lease_keys(table_ids: Iterable[str]) -> dict[str, int]:
    """``{table id: key}`` for ``table_ids`` (:func:`table_key`). Raises ``ValueError``
    naming them if two ids share a key or an id's key is one of :data:`RESERVED_KEYS`."""
    keys: dict[str, int] = {}
    owner: dict[int, str] = {}
    for table_id in table_ids:
        key = table_key(table_id)
        if key in RESERVED_KEYS:
            raise ValueError(f"table {table_id!r}: its lease key {key} is "
                             f"{RESERVED_KEYS[key]}'s; rename the table")
        if key in owner and owner[key] != table_id:
            raise ValueError(f"tables {owner[key]!r} and {table_id!r} have the same lease "
                             f"key {key}; rename one")
        keys[table_id], owner[key] = key, table_id
    return keys


@dataclass(frozen=True)
class Keepalive:
    """The TCP settings of a lease connection (seconds, except ``user_timeout_ms``):
    ``client_*`` for libpq (the worker's socket: it gives up on a dead network within about
    ``client_user_timeout_ms``), ``server_*`` for PostgreSQL's socket of this session (a
    silent worker host is dropped after about ``server_idle`` plus
    ``server_user_timeout_ms``). The worker must notice first, so the client's timeout is
    the shorter: a worker whose connection is cut stops serving its tables before
    PostgreSQL frees them for another."""

    client_idle: int = 2
    client_interval: int = 1
    client_count: int = 2
    client_user_timeout_ms: int = 2_000
    server_idle: int = 2
    server_interval: int = 1
    server_count: int = 3
    server_user_timeout_ms: int = 5_000

    def libpq(self) -> dict[str, Any]:
        """The libpq connection parameters."""
        return {"keepalives": 1, "keepalives_idle": self.client_idle,
                "keepalives_interval": self.client_interval,
                "keepalives_count": self.client_count,
                "tcp_user_timeout": self.client_user_timeout_ms}

    def settings(self) -> str:
        """The ``SET`` statements of the server's side (one string, one round trip)."""
        return (f"SET tcp_keepalives_idle = {self.server_idle}; "
                f"SET tcp_keepalives_interval = {self.server_interval}; "
                f"SET tcp_keepalives_count = {self.server_count}; "
                f"SET tcp_user_timeout = {self.server_user_timeout_ms}")


def _message(exc: BaseException) -> str:
    return " ".join(line.strip() for line in str(exc).splitlines() if line.strip()) \
        or type(exc).__name__


class PostgresTableLocks:
    """The :class:`bbspoker.table.lease.TableLocks` of a worker on the database at ``url``
    (``postgresql://...``): one psycopg async connection of its own (autocommit), the
    advisory locks of its table leases on it. Every failure of the database, a lost
    connection included, is raised as :class:`StoreError`; after one the caller closes
    this connection (:meth:`close`) and opens another (:meth:`connect`), since a lock it
    believes held may be gone. Calls must not overlap."""

    def __init__(self, url: str, *, keepalive: Keepalive = Keepalive(),
                 connect_timeout: int = 5) -> None:
        self.url = url
        self.where = display_url(url)
        self.keepalive = keepalive
        self.connect_timeout = connect_timeout
        self._db: psycopg.AsyncConnection[Any] | None = None
        self._keys: dict[str, int] = {}

    @property
    def pid(self) -> int | None:
        """The PostgreSQL backend's process id of the connection (``None`` when closed):
        ``pg_terminate_backend(pid)`` ends it and its leases."""
        if self._db is None or self._db.closed:
            return None
        return self._db.info.backend_pid

    def _conn(self) -> psycopg.AsyncConnection[Any]:
        if self._db is None or self._db.closed or self._db.broken:
            raise StoreError(f"the lease connection to {self.where} is closed")
        return self._db

    async def connect(self) -> None:
        """Open the connection (closing a former one, whose locks go with it), set its
        keepalives and join the live workers (:data:`WORKERS_KEY`, shared). Raises
        :class:`StoreError` if the database cannot be reached."""
        await self.close()
        try:
            db = await psycopg.AsyncConnection.connect(
                self.url, autocommit=True, application_name="bbspoker lease",
                connect_timeout=self.connect_timeout, **self.keepalive.libpq())
        except psycopg.Error as exc:
            raise StoreError(f"cannot open database {self.where}: {_message(exc)}") from None
        try:
            await db.execute(self.keepalive.settings())
            await db.execute("SELECT pg_advisory_lock_shared(%s)", (WORKERS_KEY,))
        except psycopg.Error as exc:
            await db.close()
            raise StoreError(f"cannot use database {self.where}: {_message(exc)}") from None
        self._db = db

    async def survey(self, table_ids: Iterable[str]) -> tuple[int, set[str]]:
        """``(live workers, ids of table_ids no session holds)`` in one round trip (this
        worker counts among the live). Raises :class:`StoreError` (``ValueError`` for
        colliding ids, :func:`lease_keys`)."""
        keys = self._keys_of(table_ids)
        rows = await self._rows(
            "SELECT (SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' "
            "AND database = d.oid AND classid = %(wc)s::oid AND objid = %(wo)s::oid "
            "AND objsubid = 1 AND granted), ARRAY(SELECT k FROM unnest(%(keys)s::bigint[]) AS k WHERE NOT "
            "EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' "
            "AND l.database = d.oid AND l.objsubid = 1 AND l.granted "
            "AND l.classid = ((k >> 32) & 4294967295)::oid "
            "AND l.objid = (k & 4294967295)::oid)) "
            "FROM pg_database d WHERE d.datname = current_database()",
            {"wc": (WORKERS_KEY >> 32) & 0xFFFFFFFF, "wo": WORKERS_KEY & 0xFFFFFFFF,
             "keys": list(keys.values())})
        workers, free = rows[0]
        by_key = {key: table_id for table_id, key in keys.items()}
        return int(workers), {by_key[k] for k in free}

    async def try_claim(self, table_ids: Iterable[str]) -> set[str]:
        """Try the lease of each of ``table_ids`` (``pg_try_advisory_lock``, never
        waiting), in one round trip; returns the ids won (a lock this session already
        held counts as won and is taken once more: hold each id once). Raises
        :class:`StoreError`."""
        keys = self._keys_of(table_ids)
        if not keys:
            return set()
        rows = await self._rows(
            "SELECT k, pg_try_advisory_lock(k) FROM unnest(%s::bigint[]) AS k",
            (list(keys.values()),))
        by_key = {key: table_id for table_id, key in keys.items()}
        return {by_key[k] for k, won in rows if won}

    async def release(self, table_id: str) -> bool:
        """Give up the lease of ``table_id`` (``pg_advisory_unlock``); returns whether this
        session held it. Raises :class:`StoreError`."""
        key = self._keys_of([table_id])[table_id]
        rows = await self._rows("SELECT pg_advisory_unlock(%s)", (key,))
        return bool(rows[0][0])

    async def try_claim_bot(self, handle: str) -> bool:
        """Take the lock of bot account ``handle`` (:func:`bot_key`), never waiting;
        returns whether it was won (held by this session now: taken once more if it
        was already, so release each win once). Raises :class:`StoreError`."""
        rows = await self._rows("SELECT pg_try_advisory_lock(%s, %s)", bot_key(handle))
        return bool(rows[0][0])

    async def release_bot(self, handle: str) -> bool:
        """Give up one hold of bot account ``handle``'s lock; returns whether this session
        held it. Raises :class:`StoreError`."""
        rows = await self._rows("SELECT pg_advisory_unlock(%s, %s)", bot_key(handle))
        return bool(rows[0][0])

    async def close(self) -> None:
        """Close the connection: PostgreSQL ends the session, and every lock on it, at
        once. Never raises."""
        db, self._db = self._db, None
        if db is not None and not db.closed:
            try:
                await db.close()
            except Exception:   # a broken socket: it is gone all the same
                log.warning("closing the lease connection to %s failed", self.where,
                            exc_info=True)

    def _keys_of(self, table_ids: Iterable[str]) -> dict[str, int]:
        """The keys of ``table_ids``, checked (:func:`lease_keys`) against each other and
        every id this connection has keyed before."""
        ids = list(table_ids)
        new = [t for t in ids if t not in self._keys]
        if new:
            self._keys = lease_keys([*self._keys, *new])
        return {t: self._keys[t] for t in ids}

    async def _rows(self, sql: str, params: Mapping[str, Any] | tuple[Any, ...]
                    ) -> list[tuple[Any, ...]]:
        db = self._conn()
        try:
            cursor = await db.execute(sql, params)
            return await cursor.fetchall()
        except psycopg.Error as exc:
            raise StoreError(f"the lease connection to {self.where} failed: "
                             f"{_message(exc)}") from exc
