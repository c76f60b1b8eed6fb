"""The ledger's one SQLite connection and how it writes: :class:`Writer`.

A write is a block (:meth:`Writer.write`) run in one ``BEGIN IMMEDIATE`` transaction
(SQLite's write lock: no other connection changes a balance until it ends). Inside it the
callers (``books``, ``accounts``, ``admin``) check each change against what they hold and
*queue* its statements (:attr:`Writer.queue`) with the values of the moment; the queue runs
in order just before the ``COMMIT``, or earlier when a statement that needs SQLite follows
(:meth:`Writer.sql`). Each queued statement must change exactly one row, else, like any
error of a statement or of the ``COMMIT``, the whole transaction is rolled back. Blocks
nest: a nested block that raises undoes only itself (its queued statements are dropped, and
if some already ran, SQL ``SAVEPOINT``\\s put back the rest).

Durability per block: ``durable=True`` commits with ``synchronous = FULL`` (an fsync of the
WAL), ``False`` with ``NORMAL`` (survives a crash of the process, a power loss may drop it).
Inside :meth:`Writer.defer_commits` a non-durable block is not committed at all: it stays
pending, later such blocks join it, and :meth:`Writer.commit_pending` (called by the table's
service in the next event-loop turn) writes and commits it. A failure there rolls it back and
is reported with the ids of the games it touched (:class:`CommitFailed`).

The writer holds no cache itself: whoever does registers ``forget`` (called with
``accounts=False`` when another connection committed, see :meth:`check_version`, and with
``True`` after any rollback, which may undo an account made in it).
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Mapping, Sequence

from bbspoker.store.sqlite.records import LedgerError
from bbspoker.store.wallet import CommitFailed

__all__ = ["Writer", "BUSY_TIMEOUT_MS"]

log = logging.getLogger("bbspoker.store.sqlite")

#: How long a write waits for another connection's write lock (milliseconds).
BUSY_TIMEOUT_MS = 10_000


@dataclass(slots=True)
class _Level:
    """A running write block (:meth:`Writer.write`): its queued statements start at
    ``mark`` in the writer's queue; ``savepoint`` once a SQL SAVEPOINT stands for it
    (statements ran while it was open, see :meth:`Writer._sync`), and from the start for
    the block that began the transaction (its undo is the rollback)."""

    mark: int
    savepoint: bool = False


def _create_private(path: str) -> None:
    """Create the database file, if missing, readable by its owner only (0600): it holds
    password hashes. SQLite gives its -wal and -shm files the same mode."""
    if path == ":memory:" or os.path.exists(path):
        return
    os.close(os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600))


class Writer:
    """One sqlite3 connection to ``path`` (WAL, busy timeout 10 s, foreign keys on) with
    queued, nested, optionally deferred write transactions, read snapshots and a
    checkpoint that may run in a worker thread.

    ``forget(accounts: bool)`` drops the caller's caches (see the module docstring).
    ``autocheckpoint=False`` leaves copying the WAL into the database file to
    :meth:`checkpoint`. Calls must not overlap (one thread at a time); :meth:`checkpoint`
    uses a connection of its own. Raises :class:`LedgerError` if the file cannot be opened.
    """

    def __init__(self, path: str | os.PathLike[str], *, forget: Callable[[bool], None],
                 autocheckpoint: bool = True) -> None:
        self.path = os.fspath(path)
        self._forget = forget
        try:
            _create_private(self.path)
            self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False,
                                      timeout=BUSY_TIMEOUT_MS / 1000)
        except (sqlite3.Error, OSError) as exc:
            raise LedgerError(f"cannot open database {self.path}: {exc}") from None
        try:
            self.db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            self.db.execute("PRAGMA journal_mode = WAL")
            self.db.execute("PRAGMA synchronous = FULL")
            self.db.execute("PRAGMA foreign_keys = ON")
            if not autocheckpoint:
                self.db.execute("PRAGMA wal_autocheckpoint = 0")
        except sqlite3.DatabaseError as exc:
            self.db.close()
            raise LedgerError(f"cannot use database {self.path}: {exc}") from None
        self._durable = True
        self._version: int | None = None   # PRAGMA data_version when last checked
        #: Statements applied by the callers, not yet run: ``(sql, params)``.
        self.queue: list[tuple[str, tuple[Any, ...]]] = []
        #: Games written in the open transaction (reported if its commit fails).
        self.touched: set[int] = set()
        self._levels: list[_Level] = []    # write blocks running, outermost first
        self._deferring = False            # inside defer_commits()
        self._pending = False              # a transaction waits for commit_pending()
        self._lost: frozenset[int] | None = None  # games of a failed pending commit
        self._checkpointer: sqlite3.Connection | None = None
        self._checkpoint_lock = threading.Lock()

    @property
    def in_transaction(self) -> bool:
        """Whether SQLite has a transaction open on this connection."""
        return self.db.in_transaction

    def close(self) -> None:
        """Commit pending work (a failure is logged; the game is refunded at the next
        start), close the connection(s)."""
        self.flush()
        with self._checkpoint_lock:
            if self._checkpointer is not None:
                self._checkpointer.close()
        self.db.close()

    def checkpoint(self) -> tuple[int, int]:
        """Sync the WAL to disk and copy it into the database file (``PRAGMA
        wal_checkpoint(PASSIVE)``: it waits for no reader or writer) on a connection of
        its own, so that it may run in a worker thread while the event loop goes on
        using the ledger. Returns ``(frames in the WAL, frames now in the database
        file)``. Every commit in the frames copied is durable afterwards (the WAL is
        fsync'd before it is copied); pending work is not committed yet, so not among
        them. Raises ``sqlite3.Error`` on an I/O error."""
        with self._checkpoint_lock:
            if self._checkpointer is None:
                self._checkpointer = sqlite3.connect(
                    self.path, isolation_level=None, check_same_thread=False,
                    timeout=BUSY_TIMEOUT_MS / 1000)
                self._checkpointer.execute("PRAGMA synchronous = FULL")
            _, frames, copied = self._checkpointer.execute(
                "PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        return frames, copied

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
        except sqlite3.Error:
            self._abort()
        else:
            self._pending = False

    def _commit(self) -> None:
        """Run the queued statements, then COMMIT. Raises ``sqlite3.Error`` with the
        transaction not yet rolled back (the caller calls :meth:`_abort`)."""
        self._run_queue()
        self.db.execute("COMMIT")

    def _abort(self) -> None:
        """Give the open transaction up: roll it back with everything queued and forget the
        caches. If it held pending work, log that at ERROR and keep its games for
        :meth:`commit_pending` to report. Call from an ``except``."""
        self.queue.clear()
        self._forget(True)
        if self.db.in_transaction:
            self.db.execute("ROLLBACK")
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

        Outside a transaction: ``BEGIN IMMEDIATE``, the cache check
        (:meth:`check_version`), the block, then the queued statements and ``COMMIT``,
        with ``PRAGMA synchronous`` set first to FULL (``durable``) or NORMAL. SQLite
        refuses to change ``synchronous`` inside a transaction, hence the switch here,
        only when the level changes. With ``durable=False`` inside :meth:`defer_commits`
        the statements and COMMIT are left to :meth:`commit_pending`. Any error rolls the
        transaction back and propagates.

        Inside a transaction (another write's, or joining the pending one): a nested
        block. If it raises, its queued statements are dropped (and what of it already
        ran in SQLite is rolled back to its SAVEPOINT, see :meth:`_sync`), the caches are
        forgotten if anything was undone, and the exception propagates; the outer
        transaction's durability applies. A write that may not join pending work
        commits it first (:meth:`flush`).
        """
        db = self.db
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
            if level.savepoint and db.in_transaction:
                db.execute("RELEASE inner")
            return
        if durable != self._durable:
            db.execute(f"PRAGMA synchronous = {'FULL' if durable else 'NORMAL'}")
            self._durable = durable
        db.execute("BEGIN IMMEDIATE")
        self.touched.clear()
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
        SAVEPOINT if it has one (skipped if SQLite has already rolled the whole
        transaction back by itself), and forget the caches if anything was undone."""
        undone = level.savepoint or len(self.queue) > level.mark
        del self.queue[level.mark:]
        if level.savepoint and self.db.in_transaction:
            # One savepoint name serves every depth: ROLLBACK TO and RELEASE act on the
            # most recent savepoint of that name, always the innermost open one.
            self.db.execute("ROLLBACK TO inner")
            self.db.execute("RELEASE inner")
        if undone:
            self._forget(True)

    def sql(self, sql: str, params: Sequence[Any] | Mapping[str, Any] = ()) -> sqlite3.Cursor:
        """Run one statement now (a read, or a write whose result is needed) behind the
        queued ones (:meth:`_sync`), so that it sees them and follows them."""
        if self.queue or (self._levels and not self._levels[-1].savepoint):
            self._sync()
        return self.db.execute(sql, params)

    def _sync(self) -> None:
        """Run the queued statements so that SQLite holds everything applied so far.

        Each open nested block first gets a SAVEPOINT at its place among them, so that
        its undo can roll back what ran. If a statement fails, the transaction is given
        up (:meth:`_abort`); the error propagates into a write in progress, while a
        plain read goes on with what is committed (a loss of pending work is reported
        by :meth:`commit_pending`)."""
        try:
            self._run_queue()
        except sqlite3.Error:
            self._abort()
            if self._levels:
                raise

    def _run_queue(self) -> None:
        """Execute the queued statements in order, placing the SAVEPOINTs of the open
        nested blocks (see :meth:`_sync`). Raises ``sqlite3.Error``, also when a
        statement changed no row or more than one (a balance not what it was checked
        against) or the transaction is gone (SQLite rolls it back by itself after
        some errors, e.g. an I/O error)."""
        db = self.db
        if not db.in_transaction:
            raise sqlite3.OperationalError("the transaction was rolled back after an "
                                           "error in one of its statements")
        queue, done = self.queue, 0
        for level in self._levels:
            if not level.savepoint:
                self._execute(queue[done:level.mark])
                done = level.mark
                db.execute("SAVEPOINT inner")
                level.savepoint = True
            level.mark = 0
        self._execute(queue[done:])
        queue.clear()

    def _execute(self, statements: list[tuple[str, tuple[Any, ...]]]) -> None:
        """Run queued statements in order; each must change exactly one row."""
        for sql, params in statements:
            changed = self.db.execute(sql, params).rowcount
            if changed != 1:
                raise sqlite3.DatabaseError(f"a ledger write changed {changed} rows instead "
                                            f"of one: {sql}")

    # ------------------------------------------------------------ reads

    def check_version(self) -> None:
        """Have the caches forgotten (``forget(False)``) if another connection (the admin
        CLI, another process) committed since the last look: ``PRAGMA data_version``
        changes then, and only then (not for this connection's own commits, nor for the
        checkpoint thread's copies of the WAL into the database file). Account ids stay:
        accounts are never deleted or renamed. Call outside a transaction or at its start;
        while this connection holds a write transaction nobody else commits."""
        version = self.db.execute("PRAGMA data_version").fetchone()[0]
        if version != self._version:
            self._version = version
            self._forget(False)

    def data_version(self) -> int:
        """``PRAGMA data_version``: it changes when another connection commits (and only
        then); unlike :meth:`check_version` this only reads it."""
        return self.db.execute("PRAGMA data_version").fetchone()[0]

    @contextmanager
    def snapshot(self) -> Iterator[sqlite3.Connection]:
        """A read transaction: several SELECTs see one consistent state. Commits pending
        work first (SQLite cannot begin a transaction inside one)."""
        self.flush()
        self.db.execute("BEGIN")
        try:
            yield self.db
        finally:
            self.db.execute("COMMIT")
