"""The PostgreSQL side of the ledger's writer: :class:`PostgresWriter`.

One psycopg 3 connection (synchronous, autocommit: the writer says ``BEGIN`` and ``COMMIT``
itself, as it does to SQLite). What SQLite's ``BEGIN IMMEDIATE`` and ``PRAGMA
data_version`` do is done so:

* a write transaction is ``BEGIN``, then ``SELECT pg_advisory_xact_lock(LOCK_KEY)``: every
  ledger's writes on the database take the same lock, so they run one after the other as
  on SQLite, and the balances and pots a connection has cached stay exact while it holds
  it (the lock goes with the transaction's end; ``lock_timeout`` 10 s, like SQLite's busy
  timeout);
* "another connection committed": every write transaction that changed a row adds one to
  the one-row table ``ledger_commits`` before its ``COMMIT``; the connection counts its own
  commits, so ``n`` minus that count (:meth:`PostgresWriter.data_version`) changes exactly
  when another connection committed. Commits by something else than a ledger (``psql``)
  are not seen until the caches are dropped for another reason: change the data only
  through ``bbspoker`` commands while a server runs;
* ``durable=False``: ``SET LOCAL synchronous_commit = off`` (the commit does not wait for
  the WAL's flush: a crash of PostgreSQL's host may lose the last such commits, a crash of
  the server's process loses nothing committed);
* reads in one consistent state (:meth:`~bbspoker.store.sql.writer.Writer.snapshot`):
  ``BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY``;
* a lost connection (PostgreSQL restarted) fails the transaction in progress like any
  error of the database, and the next call outside a transaction connects again; a
  connection found lost by a call that began nothing on it yet (PostgreSQL restarted while
  it was idle) is made again and the call run on the new one, so nobody notices.

The queued statements of a transaction run in one round trip (psycopg's pipeline mode),
their row counts checked before the ``COMMIT``, which goes with the counter's bump in
another. The shared SQL's ``?`` and ``:name`` placeholders are translated to psycopg's ``%s`` and
``%(name)s`` (a ``%`` doubled), outside string literals. PostgreSQL's ``SUM`` of ``BIGINT``
is a ``numeric``: a loader gives it back as a Python ``int`` (the ledger sums only whole
CUBES), as SQLite does. psycopg's errors become :class:`~bbspoker.store.wallet.StoreError`.
"""

from __future__ import annotations

import functools
import logging
import re
from contextlib import contextmanager
from decimal import Decimal
from typing import Any, Callable, Iterator, Sequence

import psycopg
from psycopg.adapt import Loader
from psycopg.pq import TransactionStatus

from bbspoker.store.sql.records import IntegrityViolation, LedgerError
from bbspoker.store.sql.writer import Cursor, Params, Writer
from bbspoker.store.wallet import StoreError

__all__ = ["PostgresWriter", "LOCK_KEY", "LOCK_TIMEOUT_MS", "SERVER_LOCK_KEY", "display_url",
           "translate", "hold_server_lock"]

log = logging.getLogger("bbspoker.store")

#: The advisory lock every ledger's write transaction takes ("bbspoker" in ASCII).
LOCK_KEY = int.from_bytes(b"bbspoker", "big")
#: How long a write waits for another connection's write lock (milliseconds).
LOCK_TIMEOUT_MS = 10_000
#: The advisory lock a running server holds on its database for as long as it runs.
SERVER_LOCK_KEY = int.from_bytes(b"bbserver", "big")

_TOKENS = re.compile(r"'(?:[^']|'')*'|\"[^\"]*\"|\?|(?<![:\w]):([A-Za-z_]\w*)|%")


@functools.lru_cache(maxsize=1024)
def translate(sql: str) -> str:
    """``sql`` with SQLite's placeholders as psycopg's: ``?`` -> ``%s``, ``:name`` ->
    ``%(name)s``, ``%`` -> ``%%``; string literals and quoted names are left as they are."""
    def one(match: re.Match[str]) -> str:
        token = match.group(0)
        if token == "?":
            return "%s"
        if token == "%":
            return "%%"
        if match.group(1) is not None:
            return f"%({match.group(1)})s"
        return token
    return _TOKENS.sub(one, sql)


def display_url(url: str) -> str:
    """``url`` with its password, if any, replaced by ``***`` (for messages and logs)."""
    return re.sub(r"(://[^:/@]*:)[^@/]*@", r"\1***@", url)


class _WholeNumeric(Loader):
    """A ``numeric`` as ``int`` when it is whole (a ``SUM`` of ``BIGINT``), else Decimal."""

    def load(self, data: Any) -> int | Decimal:
        text = bytes(data).decode()
        try:
            return int(text)
        except ValueError:
            return Decimal(text)


def _message(exc: psycopg.Error) -> str:
    """psycopg's message on one line (the server's hints and context follow its first)."""
    return " ".join(line.strip() for line in str(exc).splitlines() if line.strip()) \
        or type(exc).__name__


def _store_error(exc: psycopg.Error) -> StoreError:
    """The store's error for a psycopg one (its message on one line)."""
    message = _message(exc)
    if isinstance(exc, psycopg.IntegrityError):
        return IntegrityViolation(message)
    return StoreError(message)


class PostgresWriter(Writer):
    """One psycopg connection to the database at ``url`` (``postgresql://...``) with the
    shared writer's queued, nested, deferred write transactions (see the module
    docstring). ``forget(accounts: bool)`` drops the caller's caches. Raises
    :class:`LedgerError` if the server cannot be reached or refuses the connection. Calls
    must not overlap (one thread at a time)."""

    backend = "postgresql"

    NEXT_GAME_ID = "SELECT COALESCE(MAX(id), 0) + 1 FROM games"
    JSON_ARRAY = "jsonb_array_elements(({doc})::jsonb -> '{key}') AS {alias}(value)"
    JSON_TEXT_ARRAY = "jsonb_array_elements_text(({doc})::jsonb -> '{key}') AS {alias}(value)"
    JSON_ITEM = "({value} ->> {index})"

    def __init__(self, url: str, *, forget: Callable[[bool], None]) -> None:
        super().__init__(forget=forget)
        self.url = url
        self.path = display_url(url)
        self.db = self._connect()
        self._own_commits = 0      # commits of this connection that bumped ledger_commits

    def _connect(self) -> psycopg.Connection[Any]:
        """A new connection (autocommit, ``numeric`` sums as ``int``, the lock timeout);
        raises :class:`LedgerError` if the server cannot be reached or refuses it."""
        try:
            db = psycopg.connect(self.url, autocommit=True)
        except psycopg.Error as exc:
            raise LedgerError(f"cannot open database {self.path}: {_message(exc)}") from None
        db.adapters.register_loader("numeric", _WholeNumeric)
        try:
            db.execute(f"SET lock_timeout = {LOCK_TIMEOUT_MS}")
        except psycopg.Error as exc:
            db.close()
            raise LedgerError(f"cannot use database {self.path}: {_message(exc)}") from None
        return db

    def _reconnect(self) -> None:
        """Connect again if the connection was lost (the server restarted, the network
        failed) and no transaction of this writer is open: a lost transaction was rolled
        back by the server, and its failure reported when it was lost. The caches are
        forgotten. Raises :class:`StoreError` if the server cannot be reached yet."""
        if not (self.db.broken or self.db.closed) or self._levels or self._pending:
            return
        try:
            db = self._connect()
        except LedgerError as exc:
            raise StoreError(str(exc)) from None
        log.warning("the connection to %s was lost; connected again", self.path)
        self.db.close()
        self.db, self._own_commits, self._version = db, 0, None
        self._forget(True)

    def _idle(self) -> bool:
        """Whether no transaction is open on the connection (none of this writer's, no
        read snapshot): a statement sent now begins nothing that a lost connection loses."""
        return not self._levels and not self._pending and \
            self.db.info.transaction_status == psycopg.pq.TransactionStatus.IDLE

    def _idle_loss(self, exc: psycopg.Error, idle: bool) -> bool:
        """Whether ``exc`` says the connection was lost while it was ``idle`` (PostgreSQL
        restarted between two calls): nothing was lost with it, so the call may connect
        again and run once more."""
        return idle and self.db.broken and isinstance(exc, psycopg.OperationalError)

    def _execute(self, sql: str, params: Params = ()) -> Cursor:
        self._reconnect()
        idle = self._idle()
        try:
            return self.db.execute(translate(sql), params or None)
        except psycopg.Error as exc:
            if not self._idle_loss(exc, idle):
                raise _store_error(exc) from exc
        self._reconnect()
        try:
            return self.db.execute(translate(sql), params or None)
        except psycopg.Error as exc:
            raise _store_error(exc) from exc

    def _execute_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        """psycopg's ``executemany``: the rows go in pipeline mode, not one round trip each."""
        try:
            with self.db.cursor() as cursor:
                cursor.executemany(translate(sql), rows)
        except psycopg.Error as exc:
            raise _store_error(exc) from exc

    def continue_ids(self, table: str) -> None:
        """An identity column's sequence does not see ids written explicitly: move it on
        to the largest ``id`` of ``table``."""
        self.sql(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                 f"(SELECT COALESCE(MAX(id), 0) + 1 FROM {table}), false)")

    def _begin(self, durable: bool) -> None:
        """``BEGIN``, the write lock, and the durability of this transaction (in one round
        trip: psycopg's pipeline mode). A connection found lost here (PostgreSQL restarted
        since the last call) is made again and the transaction begun on it."""
        for again in (True, False):
            self._reconnect()
            idle = self._idle()
            try:
                with self.db.pipeline():
                    self.db.execute("BEGIN")
                    self.db.execute(f"SELECT pg_advisory_xact_lock({LOCK_KEY})")
                    if not durable:
                        self.db.execute("SET LOCAL synchronous_commit = off")
                return
            except psycopg.Error as exc:
                if not (again and self._idle_loss(exc, idle)):
                    raise _store_error(exc) from exc

    def _run_each(self, statements: list[tuple[str, tuple[Any, ...]]]) -> None:
        """Run queued statements in order in one round trip (psycopg's pipeline mode), then
        check that each changed exactly one row, as the shared writer does one by one."""
        if not statements:
            return
        self.wrote = True
        self._reconnect()
        try:
            with self.db.pipeline():
                cursors = [self.db.execute(translate(sql), params or None)
                           for sql, params in statements]
        except psycopg.Error as exc:
            raise _store_error(exc) from exc
        for (sql, _), cursor in zip(statements, cursors):
            if cursor.rowcount != 1:
                raise StoreError(f"a ledger write changed {cursor.rowcount} rows instead of "
                                 f"one: {sql}")

    def _finish(self) -> None:
        """Count the commit in ``ledger_commits`` if the transaction changed anything,
        then ``COMMIT`` (one round trip)."""
        try:
            if self.wrote:
                with self.db.pipeline():
                    self.db.execute("UPDATE ledger_commits SET n = n + 1")
                    self.db.execute("COMMIT")
                self._own_commits += 1
            else:
                self.db.execute("COMMIT")
        except psycopg.Error as exc:
            raise _store_error(exc) from exc

    @contextmanager
    def locked(self) -> Iterator[None]:
        """A transaction under the writers' lock outside the shared write blocks (no
        cache check, no commit counted): for :func:`bbspoker.store.postgres.schema.migrate`,
        which may find no ``ledger_commits`` yet. COMMITs at the end, rolls back if the
        block raises."""
        self._begin(durable=True)
        try:
            yield
        except BaseException:
            if self.in_transaction:
                self._execute("ROLLBACK")
            raise
        self._execute("COMMIT")

    def _begin_read(self) -> None:
        self._execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")

    @property
    def in_transaction(self) -> bool:
        """Whether a transaction is open on the connection (failed ones included: they
        wait for their ROLLBACK; a lost connection has none)."""
        if self.db.broken or self.db.closed:
            return False
        return self.db.info.transaction_status in (TransactionStatus.INTRANS,
                                                   TransactionStatus.INERROR)

    def data_version(self) -> int:
        """The commits counted in ``ledger_commits`` less this connection's own: it changes
        when another connection commits, and only then."""
        n: int = self._execute("SELECT n FROM ledger_commits").fetchone()[0]
        return n - self._own_commits

    def _close(self) -> None:
        self.db.close()

    def checkpoint(self) -> tuple[int, int]:
        """Nothing to do: PostgreSQL writes its WAL and checkpoints in its own processes,
        never inside a commit of this connection, and a non-durable commit reaches the
        disk within its ``wal_writer_delay`` (0.2 s by default). Returns ``(0, 0)``."""
        return 0, 0

    def backup(self, dest_path: str) -> None:
        """Not done here: raises :class:`StoreError`. A PostgreSQL database is copied with
        its own tools, safely while the server writes: ``pg_dump -Fc`` (see
        docs/operations.md)."""
        raise StoreError(f"the ledger is the PostgreSQL database {self.path}: back it up "
                         "with pg_dump (pg_dump -Fc -f FILE URL), not with bbspoker")


def hold_server_lock(url: str, shared: bool = False) -> psycopg.Connection[Any] | None:
    """Take the server lock of the database at ``url``: the session-level advisory lock
    :data:`SERVER_LOCK_KEY` on a connection of its own, held until that connection is
    closed (the returned connection is a context manager that closes it) or the process
    ends (PostgreSQL drops a dead client's locks), whichever host the servers run on.
    ``shared``: the split deployment's gateways and workers hold it together, and
    ``bbspoker serve`` (exclusive) can hold it only while none of them runs, and the other
    way round. Returns ``None`` if it cannot be had now. Raises :class:`LedgerError` if
    the database cannot be reached."""
    take = "pg_try_advisory_lock_shared" if shared else "pg_try_advisory_lock"
    try:
        conn = psycopg.connect(url, autocommit=True)
        got = conn.execute(f"SELECT {take}({SERVER_LOCK_KEY})").fetchone()
    except psycopg.Error as exc:
        raise LedgerError(f"cannot open database {display_url(url)}: {_message(exc)}") from None
    if got is not None and got[0]:
        return conn
    conn.close()
    return None
