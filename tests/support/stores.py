"""A database for a ledger test, on either backend: :class:`StoreDb`.

The store's tests build their ledgers through the ``db`` fixture (``tests/store/conftest.py``),
parametrised over ``sqlite`` (a file under the test's ``tmp_path``) and ``postgres`` (a new
database on the test process's throwaway server, ``tests.support.postgres``). What a test
does to the database behind the ledger's back (another process reading it, a trigger that
fails writes as a broken disk would, tampering with a row) goes through this object, in
the backend's own words.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any

import pytest

from bbspoker.store.sql import Ledger
from bbspoker.store.sql.ledger import is_url

#: Runs a test above the store on both backends: its ``ledger_backend`` fixture
#: (``tests/conftest.py``) is ``sqlite`` in one case and ``postgres`` in the other, and so
#: are the ``ledger_db`` and ``ledger_url`` it builds its ledger or server from.
both_backends = pytest.mark.parametrize("ledger_backend", ["sqlite", "postgres"],
                                        indirect=True)


@dataclass
class StoreDb:
    """``backend``: ``"sqlite"`` or ``"postgres"``; ``target``: the file's path or the URL."""

    backend: str
    target: str

    def __str__(self) -> str:
        return self.target

    def open(self, **kwargs: Any) -> Ledger:
        """A new :class:`Ledger` (another connection) on this database."""
        return Ledger(self.target, **kwargs)

    def raw(self, *statements: str, params: tuple = ()) -> list[tuple]:
        """Run ``statements`` on a connection of their own (one transaction, committed);
        returns the last one's rows (if it has any)."""
        if self.backend == "sqlite":
            conn = sqlite3.connect(self.target)
            try:
                with conn:
                    cur = None
                    for statement in statements:
                        cur = conn.execute(statement, params)
                    return cur.fetchall() if cur is not None else []
            finally:
                conn.close()
        import psycopg
        with psycopg.connect(self.target) as pg:
            cur = None
            for statement in statements:
                cur = pg.execute(statement.replace("?", "%s"), params or None)
            return cur.fetchall() if cur is not None and cur.description else []

    def committed(self, handle: str) -> int:
        """The CUBES of ``handle`` as another process (the admin CLI) reads them now."""
        return self.raw("SELECT cubes FROM accounts WHERE handle = ?", params=(handle,))[0][0]

    def break_journal(self, when: str, action: str = "ABORT") -> None:
        """From now on the database itself fails every journal row for which the SQL
        condition ``when`` (on ``NEW``) holds, a trigger made by another connection:
        ``"ABORT"`` raises an error as a full disk would, ``"IGNORE"`` silently writes
        nothing. :meth:`mend_journal` takes it away."""
        if self.backend == "sqlite":
            raise_ = "RAISE(ABORT, 'disk trouble')" if action == "ABORT" else "RAISE(IGNORE)"
            self.raw(f"CREATE TRIGGER broken BEFORE INSERT ON journal WHEN {when} "
                     f"BEGIN SELECT {raise_}; END")
            return
        do = "RAISE EXCEPTION 'disk trouble'" if action == "ABORT" else "RETURN NULL"
        self.raw(f"CREATE FUNCTION broken() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                 f"IF {when} THEN {do}; END IF; RETURN NEW; END $$",
                 "CREATE TRIGGER broken BEFORE INSERT ON journal FOR EACH ROW "
                 "EXECUTE FUNCTION broken()")

    def mend_journal(self) -> None:
        if self.backend == "sqlite":
            self.raw("DROP TRIGGER broken")
        else:
            self.raw("DROP TRIGGER broken ON journal", "DROP FUNCTION broken()")

    def disk_full(self) -> Exception:
        """The error the backend's driver raises for a full disk."""
        if self.backend == "sqlite":
            return sqlite3.OperationalError("database or disk is full")
        import psycopg
        return psycopg.errors.DiskFull("could not extend file: No space left on device")


class FailingCommits:
    """A ledger's connection on a disk that fails the next ``failures`` COMMITs (as the
    database reports a full disk, :meth:`StoreDb.disk_full`); everything else goes to the
    real connection. ``target``: the ledger (either backend), or its sqlite3 connection:
    ``ledger._db = FailingCommits(ledger)``."""

    def __init__(self, target: Any) -> None:
        backend = target.backend if isinstance(target, Ledger) else "sqlite"
        self._db = target._db if isinstance(target, Ledger) else target
        self._error = StoreDb("postgres" if backend == "postgresql" else "sqlite", "").disk_full
        self.failures = 0

    def execute(self, sql: str, *args: Any) -> Any:
        if sql == "COMMIT" and self.failures:
            self.failures -= 1
            raise self._error()
        return self._db.execute(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._db, name)


def store_db(db: Any) -> StoreDb:
    """``db`` as a :class:`StoreDb`: ``db`` itself, a PostgreSQL URL, or a SQLite file's path."""
    if isinstance(db, StoreDb):
        return db
    return StoreDb("postgres" if is_url(db) else "sqlite", str(db))


_of = store_db


def committed(db: Any, handle: str) -> int:
    """:meth:`StoreDb.committed` of ``db`` (:func:`store_db`: a StoreDb, URL or file)."""
    return _of(db).committed(handle)


def break_journal(db: Any, reason: str, action: str) -> None:
    """:meth:`StoreDb.break_journal` for the journal rows of ``reason``."""
    _of(db).break_journal(f"NEW.reason = '{reason}'", action)


def mend_journal(db: Any) -> None:
    """:meth:`StoreDb.mend_journal`."""
    _of(db).mend_journal()
