"""The ledger's one database connection and how it writes: :class:`Writer`, the interface
the parts of the ledger (``books``, ``accounts``, ``admin``, ``tournaments``, ``audit``)
run over, whichever database is behind it (``bbspoker.store.sqlite.writer``,
``bbspoker.store.postgres.writer``).

A write is a block (:meth:`Writer.write`) run in one transaction that holds the database's
write lock (SQLite's ``BEGIN IMMEDIATE``; on PostgreSQL a transaction-level advisory lock
every writer takes): no other connection changes a balance until it ends. Inside it the
callers check each change against what they hold and *queue* its statements
(:attr:`Writer.queue`) with the values of the moment; the queue runs in order just before
the ``COMMIT``, or earlier when a statement that needs the database follows
(:meth:`Writer.sql`). Each queued statement must change exactly one row, else, like any
error of a statement or of the ``COMMIT``, the whole transaction is rolled back. Blocks
nest: a nested block that raises undoes only itself (its queued statements are dropped,
and if some already ran, SQL ``SAVEPOINT``\\s put back the rest).

Durability per block: ``durable=True`` commits with the database's full durability (an
fsync of the WAL), ``False`` without waiting for the disk (survives a crash of the
process, a power loss may drop it). Inside :meth:`Writer.defer_commits` a non-durable block
is not committed at all: it stays pending, later such blocks join it, and
:meth:`Writer.commit_pending` (called by the table's service in the next event-loop turn)
writes and commits it. A failure there rolls it back and is reported with the ids of the
games it touched (:class:`CommitFailed`).

The writer holds no cache itself: whoever does registers ``forget`` (called with
``accounts=False`` when another connection committed, see :meth:`Writer.check_version`, and
with ``True`` after any rollback, which may undo an account made in it).

SQL: the parts write one dialect that SQLite (3.40) and PostgreSQL (15) both accept, with
``?`` placeholders (or ``:name`` with a mapping); a backend translates them if its driver
wants others. Every error of the driver becomes a :class:`~bbspoker.store.wallet.StoreError`
(:class:`~bbspoker.store.sql.records.IntegrityViolation` for a broken constraint) here, at
the connection's edge.
"""

from __future__ import annotations

import logging
import os
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Mapping, Protocol, Sequence

from bbspoker.store.wallet import CommitFailed, StoreError

__all__ = ["Writer", "Cursor", "Params"]

log = logging.getLogger("bbspoker.store")

#: Parameters of one statement: a sequence for ``?``, a mapping for ``:name``.
Params = Sequence[Any] | Mapping[str, Any]


class Cursor(Protocol):
    """What a statement returns (a DB-API cursor: sqlite3's or psycopg's)."""

    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


@dataclass(slots=True)
class _Level:
    """A running write block (:meth:`Writer.write`): its queued statements start at
    ``mark`` in the writer's queue; ``savepoint`` once a SQL SAVEPOINT stands for it
    (statements ran while it was open, see :meth:`Writer._sync`), and from the start for
    the block that began the transaction (its undo is the rollback)."""

    mark: int
    savepoint: bool = False


#: Statements that only read (a write block that ran nothing else wrote nothing).
_READS = ("SELECT", "WITH")


class Writer:
    """One connection with queued, nested, optionally deferred write transactions and read
    snapshots; a backend (:class:`bbspoker.store.sqlite.writer.SqliteWriter`,
    :class:`bbspoker.store.postgres.writer.PostgresWriter`) supplies the connection, the
    beginning and end of a transaction, the "another connection committed" counter
    (:meth:`data_version`) and its errors.

    ``forget(accounts: bool)`` drops the caller's caches (see the module docstring). Calls
    must not overlap (one thread at a time). ``path``: what it is connected to, for
    messages (a file, or a URL without its password).
    """

    path: str
    #: ``"sqlite"`` or ``"postgresql"``.
    backend: str
    #: The driver's connection (sqlite3's or psycopg's; tests trace and break it).
    db: Any

    # The few points where the two dialects cannot share one text:
    #: A query of the id the next game gets: one more than any game ever had.
    NEXT_GAME_ID: str
    #: A FROM item of the elements (column ``value``) of the JSON array at key ``{key}`` of
    #: the JSON text ``{doc}``, named ``{alias}``; ``JSON_TEXT_ARRAY``: the same, elements
    #: that are strings as text.
    JSON_ARRAY: str
    JSON_TEXT_ARRAY: str
    #: Element ``{index}`` of the JSON array ``{value}`` (an element of ``JSON_ARRAY``) as
    #: text or number; compare numbers through ``CAST(... AS INTEGER)``.
    JSON_ITEM: str

    def __init__(self, *, forget: Callable[[bool], None]) -> None:
        self._forget = forget
        self._version: int | None = None   # data_version() when last checked
        #: Statements applied by the callers, not yet run: ``(sql, params)``.
        self.queue: list[tuple[str, tuple[Any, ...]]] = []
        #: Games written in the open transaction (reported if its commit fails).
        self.touched: set[int] = set()
        #: Whether the open transaction ran a statement that may change a row.
        self.wrote = False
        self._levels: list[_Level] = []    # write blocks running, outermost first
        self._deferring = False            # inside defer_commits()
        self._pending = False              # a transaction waits for commit_pending()
        self._lost: frozenset[int] | None = None  # games of a failed pending commit

    # ------------------------------------------------------------ the backend's part

    def _execute(self, sql: str, params: Params = ()) -> Cursor:
        """Run one statement on the connection as it is (no queue); raises
        :class:`StoreError` (:class:`IntegrityViolation` for a constraint)."""
        raise NotImplementedError

    def _begin(self, durable: bool) -> None:
        """Begin a write transaction holding the write lock, committing durably or not."""
        raise NotImplementedError

    def _finish(self) -> None:
        """COMMIT the open transaction (its queue has run); raises :class:`StoreError`."""
        self._execute("COMMIT")

    @property
    def in_transaction(self) -> bool:
        """Whether a transaction is open on the connection."""
        raise NotImplementedError

    def data_version(self) -> int:
        """A number that changes when another connection commits, and only then (not for
        this connection's own commits); like SQLite's ``PRAGMA data_version``."""
        raise NotImplementedError

    def _begin_read(self) -> None:
        """Begin a read transaction in which several SELECTs see one state."""
        raise NotImplementedError

    def _close(self) -> None:
        """Close the connection(s)."""
        raise NotImplementedError

    def checkpoint(self) -> tuple[int, int]:
        """Make the commits so far durable off the event loop, if the database needs that:
        ``(frames in the WAL, frames now in the database file)`` (see the backends)."""
        raise NotImplementedError

    def backup(self, dest_path: str) -> None:
        """Copy the whole database to the new file ``dest_path`` (pending work committed
        first), or raise :class:`StoreError` if this database is copied otherwise."""
        raise NotImplementedError

    # ------------------------------------------------------------ life

    def close(self) -> None:
        """Commit pending work (a failure is logged; the game is refunded at the next
        start), close the connection(s)."""
        try:
            self.flush()
        finally:
            self._close()

    # ------------------------------------------------------------ deferred commits

    @contextmanager
    def defer_commits(self) -> Iterator[None]:
        """Leave non-durable blocks uncommitted inside the ``with`` block, for
        :meth:`commit_pending` (see ``Ledger.defer_commits``)."""
        outer, self._deferring = self._deferring, True
        try:
            yield
        finally:
            self._deferring = outer

    def commit_pending(self) -> None:
        """Write and commit the pending work; returns at once if there is none. Raises
        :class:`CommitFailed` (``games``: the games it wrote) if that, or the same forced
        earlier by another use of the connection, failed since the last call: the work
        was rolled back, the caches forgotten and the failure logged at ERROR."""
        self.flush()
        if self._lost is not None:
            games, self._lost = self._lost, None
            raise CommitFailed(games)

    def flush(self) -> None:
        """Commit the pending work, if any; if that fails, abandon it (:meth:`_abort`)."""
        if not self._pending:
            return
        try:
            self._commit()
        except StoreError:
            self._abort()
        else:
            self._pending = False

    def _commit(self) -> None:
        """Run the queued statements, then COMMIT. Raises :class:`StoreError` with the
        transaction not yet rolled back (the caller calls :meth:`_abort`)."""
        self._run_queue()
        self._finish()

    def _abort(self) -> None:
        """Give the open transaction up: roll it back with everything queued and forget the
        caches. If it held pending work, log that at ERROR and keep its games for
        :meth:`commit_pending` to report. Call from an ``except``."""
        self.queue.clear()
        self._forget(True)
        if self.in_transaction:
            try:
                self._execute("ROLLBACK")
            except StoreError:
                log.exception("could not roll back a failed transaction")
        if self._pending:
            self._pending = False
            log.exception("the pending writes of game(s) %s could not be committed "
                          "and were undone", sorted(self.touched))
            self._lost = (self._lost or frozenset()) | self.touched

    # ------------------------------------------------------------ write blocks

    @contextmanager
    def write(self, durable: bool = True) -> Iterator[None]:
        """One all-or-nothing write. Inside, callers queue statements on :attr:`queue`
        (or run them with :meth:`sql` when they need the result).

        Outside a transaction: the backend's write transaction (:meth:`_begin`: the
        write lock, durable or not), the cache check (:meth:`check_version`), the block,
        then the queued statements and ``COMMIT``. With ``durable=False`` inside
        :meth:`defer_commits` the statements and COMMIT are left to :meth:`commit_pending`.
        Any error rolls the transaction back and propagates.

        Inside a transaction (another write's, or joining the pending one): a nested
        block. If it raises, its queued statements are dropped (and what of it already
        ran in the database is rolled back to its SAVEPOINT, see :meth:`_sync`), the
        caches are forgotten if anything was undone, and the exception propagates; the
        outer transaction's durability applies. A write that may not join pending work
        commits it first (:meth:`flush`).
        """
        if self._pending and not self._levels and (durable or not self._deferring):
            self.flush()
        if self._levels or self._pending:
            level = _Level(len(self.queue))
            self._levels.append(level)
            try:
                yield
            except BaseException:
                self._undo(level)
                raise
            finally:
                self._levels.pop()
            if level.savepoint and self.in_transaction:
                self._execute("RELEASE nested")
            return
        self._begin(durable)
        self.touched.clear()
        self.wrote = False
        # The transaction's own level: its undo is the rollback, so it needs no SAVEPOINT.
        self._levels.append(_Level(0, savepoint=True))
        try:
            self.check_version()
            yield
            if durable or not self._deferring:
                self._commit()
            else:
                self._pending = True
        except BaseException:
            self._abort()
            raise
        finally:
            self._levels.pop()

    def _undo(self, level: _Level) -> None:
        """Undo a nested block that raised: drop its queued statements, roll back to its
        SAVEPOINT if it has one (skipped if the database has already rolled the whole
        transaction back by itself), and forget the caches if anything was undone."""
        undone = level.savepoint or len(self.queue) > level.mark
        del self.queue[level.mark:]
        if level.savepoint and self.in_transaction:
            # One savepoint name serves every depth: ROLLBACK TO and RELEASE act on the
            # most recent savepoint of that name, always the innermost open one.
            self._execute("ROLLBACK TO nested")
            self._execute("RELEASE nested")
        if undone:
            self._forget(True)

    def sql(self, sql: str, params: Params = ()) -> Cursor:
        """Run one statement now (a read, or a write whose result is needed) behind the
        queued ones (:meth:`_sync`), so that it sees them and follows them. Raises
        :class:`StoreError`."""
        if self.queue or (self._levels and not self._levels[-1].savepoint):
            self._sync()
        if self._levels and not sql.lstrip().upper().startswith(_READS):
            self.wrote = True
        return self._execute(sql, params)

    def sql_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        """Run one statement once for each of ``rows`` (its ``?`` parameters), behind the
        queued ones, inside a write block: a bulk load (:mod:`bbspoker.store.sql.copy`).
        Raises :class:`StoreError`."""
        if not self._levels:
            raise RuntimeError("sql_many outside a write block")
        if self.queue or not self._levels[-1].savepoint:
            self._sync()
        self.wrote = True
        if rows:
            self._execute_many(sql, rows)

    def _execute_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        """The driver's bulk form of :meth:`_execute` (one statement per row)."""
        for row in rows:
            self._execute(sql, row)

    def continue_ids(self, table: str) -> None:
        """After rows were written into ``table`` with their ids given, make the ids
        the database gives new rows follow the largest one (a backend whose identity
        columns do not follow by themselves does it here)."""

    def read_now(self, sql: str, params: Params = ()) -> Cursor:
        """Run a read now, not behind the queue: for what no queued statement changes (an
        account's handle), so that reading it does not run the queue early."""
        return self._execute(sql, params)

    def _sync(self) -> None:
        """Run the queued statements so that the database holds everything applied so far.

        Each open nested block first gets a SAVEPOINT at its place among them, so that
        its undo can roll back what ran. If a statement fails, the transaction is given
        up (:meth:`_abort`); the error propagates into a write in progress, while a
        plain read goes on with what is committed (a loss of pending work is reported
        by :meth:`commit_pending`)."""
        try:
            self._run_queue()
        except StoreError:
            self._abort()
            if self._levels:
                raise

    def _run_queue(self) -> None:
        """Execute the queued statements in order, placing the SAVEPOINTs of the open
        nested blocks (see :meth:`_sync`). Raises :class:`StoreError`, also when a
        statement changed no row or more than one (a balance not what it was checked
        against) or the transaction is gone (SQLite rolls it back by itself after some
        errors, e.g. an I/O error)."""
        if not self.in_transaction:
            raise StoreError("the transaction was rolled back after an error in one of its "
                             "statements")
        queue, done = self.queue, 0
        for level in self._levels:
            if not level.savepoint:
                self._run_each(queue[done:level.mark])
                done = level.mark
                self._execute("SAVEPOINT nested")
                level.savepoint = True
            level.mark = 0
        self._run_each(queue[done:])
        queue.clear()

    def _run_each(self, statements: list[tuple[str, tuple[Any, ...]]]) -> None:
        """Run queued statements in order; each must change exactly one row."""
        if statements:
            self.wrote = True
        for sql, params in statements:
            changed = self._execute(sql, params).rowcount
            if changed != 1:
                raise StoreError(f"a ledger write changed {changed} rows instead of one: {sql}")

    # ------------------------------------------------------------ reads

    def check_version(self) -> None:
        """Have the caches forgotten (``forget(False)``) if another connection (the admin
        CLI, another process, another server) committed since the last look
        (:meth:`data_version` changed). Account ids stay: accounts are never deleted or
        renamed. Call outside a transaction or at its start, after the write lock is
        taken: while this connection holds it nobody else commits."""
        version = self.data_version()
        if version != self._version:
            self._version = version
            self._forget(False)

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """A read transaction: the SELECTs run inside (:meth:`sql`) see one consistent
        state. Commits pending work first (a transaction cannot begin inside one)."""
        self.flush()
        self._begin_read()
        try:
            yield
        finally:
            if self.in_transaction:
                self._execute("COMMIT")


def create_private(path: str) -> None:
    """Create the file ``path``, if missing, readable by its owner only (0600): a database
    or a copy of one holds password hashes."""
    if path == ":memory:" or os.path.exists(path):
        return
    os.close(os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600))
