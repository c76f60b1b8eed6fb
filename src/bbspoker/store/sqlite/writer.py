"""The SQLite side of the ledger's writer: :class:`SqliteWriter`.

One sqlite3 connection to the database file in WAL mode with a busy timeout; a write
transaction is ``BEGIN IMMEDIATE`` (SQLite's write lock: no other connection changes a
balance until it ends). Durability per transaction is ``PRAGMA synchronous``: ``FULL`` (an
fsync of the WAL at the commit) for ``durable=True``, ``NORMAL`` (no fsync: a crash of the
process loses nothing committed, a power loss may drop the last such commits) for
``False``; SQLite refuses to change it inside a transaction, hence the switch before the
``BEGIN``, only when the level changes. "Another connection committed" is
``PRAGMA data_version``. The queueing, nesting and deferring of writes are the shared
:class:`bbspoker.store.sql.writer.Writer`'s.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from typing import Any, Callable, Sequence

from bbspoker.store.sql.records import IntegrityViolation, LedgerError
from bbspoker.store.sql.writer import Cursor, Params, Writer, create_private
from bbspoker.store.wallet import StoreError

__all__ = ["SqliteWriter", "BUSY_TIMEOUT_MS"]

#: How long a write waits for another connection's write lock (milliseconds).
BUSY_TIMEOUT_MS = 10_000


def _store_error(exc: sqlite3.Error) -> StoreError:
    """The store's error for a sqlite3 one (same message)."""
    if isinstance(exc, sqlite3.IntegrityError):
        return IntegrityViolation(str(exc))
    return StoreError(str(exc))


class SqliteWriter(Writer):
    """One sqlite3 connection to ``path`` (WAL, busy timeout 10 s, foreign keys on) with
    the shared writer's queued, nested, deferred write transactions, and a checkpoint that
    may run in a worker thread.

    ``forget(accounts: bool)`` drops the caller's caches. ``autocheckpoint=False`` leaves
    copying the WAL into the database file to :meth:`checkpoint`. Calls must not overlap
    (one thread at a time); :meth:`checkpoint` uses a connection of its own. Raises
    :class:`LedgerError` if the file cannot be opened. The file is made readable by its
    owner only (it holds password hashes); SQLite gives its -wal and -shm files the same
    mode.
    """

    backend = "sqlite"

    NEXT_GAME_ID = ("SELECT MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'games'),"
                    " 0), COALESCE((SELECT MAX(id) FROM games), 0)) + 1")
    JSON_ARRAY = "json_each({doc}, '$.{key}') AS {alias}"
    JSON_TEXT_ARRAY = JSON_ARRAY
    JSON_ITEM = "json_extract({value}, '$[{index}]')"

    def __init__(self, path: str | os.PathLike[str], *, forget: Callable[[bool], None], autocheckpoint: bool = True,
                 ) -> None:
        super().__init__(forget=forget)
        self.path = os.fspath(path)
        try:
            create_private(self.path)
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
        self._checkpointer: sqlite3.Connection | None = None
        self._checkpoint_lock = threading.Lock()

    def _execute(self, sql: str, params: Params = ()) -> Cursor:
        try:
            return self.db.execute(sql, params)
        except sqlite3.Error as exc:
            raise _store_error(exc) from exc

    def _execute_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        try:
            self.db.executemany(sql, rows)
        except sqlite3.Error as exc:
            raise _store_error(exc) from exc

    def _begin(self, durable: bool) -> None:
        if durable != self._durable:
            self._execute(f"PRAGMA synchronous = {'FULL' if durable else 'NORMAL'}")
            self._durable = durable
        self._execute("BEGIN IMMEDIATE")

    def _begin_read(self) -> None:
        self._execute("BEGIN")

    @property
    def in_transaction(self) -> bool:
        """Whether SQLite has a transaction open on this connection."""
        return self.db.in_transaction

    def data_version(self) -> int:
        """``PRAGMA data_version``: it changes when another connection commits (and only
        then: not for this connection's own commits, nor for the checkpoint thread's
        copies of the WAL into the database file)."""
        return self._execute("PRAGMA data_version").fetchone()[0]

    def _close(self) -> None:
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
        them. Raises :class:`StoreError` on an I/O error."""
        with self._checkpoint_lock:
            try:
                if self._checkpointer is None:
                    self._checkpointer = sqlite3.connect(
                        self.path, isolation_level=None, check_same_thread=False,
                        timeout=BUSY_TIMEOUT_MS / 1000)
                    self._checkpointer.execute("PRAGMA synchronous = FULL")
                _, frames, copied = self._checkpointer.execute(
                    "PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            except sqlite3.Error as exc:
                raise _store_error(exc) from exc
        return frames, copied

    def backup(self, dest_path: str) -> None:
        """Copy the whole database to the new file ``dest_path`` (mode 0600) with SQLite's
        online backup API: safe while the server writes; pending work is committed
        first. Raises FileExistsError rather than overwrite a file."""
        if os.path.exists(dest_path):
            raise FileExistsError(f"{dest_path} already exists; not overwriting it")
        self.flush()
        # Owner only, like the database (password hashes); O_EXCL: never over a file.
        os.close(os.open(dest_path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600))
        try:
            dest = sqlite3.connect(dest_path)
            try:
                self.db.backup(dest)
            finally:
                dest.close()
        except sqlite3.Error as exc:
            raise _store_error(exc) from exc
