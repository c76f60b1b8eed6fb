"""Copy a whole ledger into another database: ``bbspoker ledger copy --to URL``.

:func:`copy_ledger` moves an installation from one backend to another (the SQLite file to
PostgreSQL, or back): every table the ledger keeps (accounts with their password hashes,
the journal, games with their seeds and histories, tournaments and their entries, notices,
kicks, blocks, stacks, SSH keys, sign-ups, commitments, BBS bans), row for row with the
same ids, so that game ids, journal ids and ``games verify`` stay what they were.

The source is read in one snapshot (a read transaction), so a server may keep playing on
it meanwhile: the copy holds the ledger as it was when the copy began, and its unfinished
games stay unfinished (the server that next opens the copy refunds them, as after a
restart). The destination must be a new ledger (nothing in it but the house account) and
is written in one transaction: all or nothing. Its own ``schema_version`` and change
counter are its own, not copied.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bbspoker.store.sql.records import LedgerError
from bbspoker.store.wallet import SYSTEM

if TYPE_CHECKING:
    from bbspoker.store.sql.ledger import Ledger

__all__ = ["copy_ledger", "CopyReport", "COPIED_TABLES", "IDENTITY_TABLES"]

#: The ledger's tables in an order that meets their foreign keys, each with the order its
#: rows are read in (tournament entries keep their order of registration, which breaks ties
#: between entrants).
COPIED_TABLES: tuple[tuple[str, str], ...] = (
    ("accounts", "id"),
    ("tournaments", "id"),
    ("games", "id"),
    ("journal", "id"),
    ("notices", "id"),
    ("kicks", "id"),
    ("blocks", "account_id, blocked_id"),
    ("stacks", "table_id, account_id"),
    ("user_keys", "id"),
    ("signups", "id"),
    ("commitments", "id"),
    ("bbs_bans", "tag_key"),
    ("tournament_entries", "rowid"),
)

#: Tables whose ``id`` the database gives new rows: after the copy they go on from the
#: largest id copied.
IDENTITY_TABLES = ("accounts", "tournaments", "journal", "notices", "kicks", "user_keys",
                   "signups", "commitments")

#: Columns a backend keeps that are not data (PostgreSQL's stand-in for SQLite's rowid,
#: which the order of insertion gives again).
_NOT_COPIED = {"rowid"}

#: Rows written per bulk statement.
BATCH = 2000


@dataclass
class CopyReport:
    """What :func:`copy_ledger` copied: ``rows`` per table, in :data:`COPIED_TABLES` order."""

    rows: dict[str, int] = field(default_factory=dict)


def _columns(ledger: Ledger, table: str) -> list[str]:
    """The column names of ``table`` in ``ledger``'s database, less :data:`_NOT_COPIED`."""
    cursor: Any = ledger.writer.sql(f"SELECT * FROM {table} WHERE 1 = 0")
    cursor.fetchall()
    return [d[0] for d in cursor.description if d[0] not in _NOT_COPIED]


def _check_empty(destination: Ledger) -> None:
    """Raise :class:`LedgerError` unless ``destination`` is a new ledger: no rows in any
    table but the house account, holding nothing."""
    w = destination.writer
    for table, _ in COPIED_TABLES:
        if table == "accounts":
            rows = w.sql("SELECT handle, cubes FROM accounts").fetchall()
            if [tuple(r) for r in rows] not in ([], [(SYSTEM, 0)]):
                raise LedgerError(f"{w.path} already holds {len(rows)} accounts: a ledger is "
                                  "copied only into a new, empty database")
        elif w.sql(f"SELECT COUNT(*) FROM {table}").fetchone()[0]:
            raise LedgerError(f"{w.path} already holds {table}: a ledger is copied only into "
                              "a new, empty database")


def copy_ledger(source: Ledger, destination: Ledger) -> CopyReport:
    """Copy every row of ``source`` into ``destination`` (see the module docstring); both
    open, at the same schema version (opening migrates them). Returns the rows copied per
    table. Raises :class:`LedgerError` if the destination is the source, is not empty, or
    its tables' columns differ from the source's (nothing is written then), and
    :class:`~bbspoker.store.wallet.StoreError` if either database fails (the destination's
    transaction is rolled back: it stays empty)."""
    src, dst = source.writer, destination.writer
    if src.backend == dst.backend and src.path == dst.path:
        raise LedgerError(f"{src.path} is the ledger being copied")
    report = CopyReport()
    with src.snapshot(), dst.write(durable=True):
        _check_empty(destination)
        dst.sql("DELETE FROM accounts")          # the new ledger's house account: copied anew
        for table, order in COPIED_TABLES:
            columns = _columns(source, table)
            theirs = _columns(destination, table)
            if sorted(columns) != sorted(theirs):
                raise LedgerError(f"table {table} differs: {', '.join(columns)} here, "
                                  f"{', '.join(theirs)} in {dst.path}")
            names = ", ".join(columns)
            insert = (f"INSERT INTO {table} ({names}) "
                      f"VALUES ({', '.join('?' * len(columns))})")
            rows = iter(src.sql(f"SELECT {names} FROM {table} ORDER BY {order}"))
            count = 0
            while batch := [tuple(r) for r in itertools.islice(rows, BATCH)]:
                dst.sql_many(insert, batch)
                count += len(batch)
            report.rows[table] = count
        for table in IDENTITY_TABLES:
            dst.continue_ids(table)
    destination.books.forget(True)
    return report
