"""Proving the books and copying them: :class:`Audit` (``ledger verify``, ``ledger
backup``).

The invariants checked: every balance, and every stack held at a table, equals the sum of
its journal rows and every row's ``balance`` is the running sum; a closed game's rows sum
to zero (its pot was emptied) and no open pot is negative; the prize pool of a tournament
registering or running equals the sum of its entrants' buy-ins, that of one finished or
cancelled is 0; all CUBES (accounts, SYSTEM, open pots, stacks, open tournaments' pools)
equal grants minus takes (a buy-in or cash-out is neither: its two rows move CUBES between
a balance and a stack; nor is a row of a tournament's pool).
"""

from __future__ import annotations

import os
import sqlite3

from bbspoker.rules.money import MAX_CUBES
from bbspoker.store.sqlite.books import Books
from bbspoker.store.sqlite.records import STACK_TRANSFERS, Totals
from bbspoker.store.tournaments import OPEN_STATUSES

__all__ = ["Audit"]


class Audit:
    """Totals, verification and online backup of ``books``' database."""

    def __init__(self, books: Books) -> None:
        self.books = books

    def totals(self) -> Totals:
        """Grants, takes and where all CUBES are now (one consistent snapshot)."""
        with self.books.w.snapshot():
            return self._totals()

    def _totals(self) -> Totals:
        db, system_id = self.books.w.db, self.books.system_id
        grants, takes = db.execute(
            "SELECT COALESCE(SUM(MAX(amount, 0)), 0), COALESCE(SUM(MAX(-amount, 0)), 0) "
            f"FROM journal WHERE game_id IS NULL AND tournament_id IS NULL AND reason NOT IN "
            f"({', '.join(repr(r) for r in STACK_TRANSFERS)})").fetchone()
        accounts, system = db.execute(
            "SELECT COALESCE(SUM(cubes) FILTER (WHERE id != ?), 0), "
            "COALESCE(SUM(cubes) FILTER (WHERE id = ?), 0) FROM accounts",
            (system_id, system_id)).fetchone()
        open_pots = -db.execute(
            "SELECT COALESCE(SUM(j.amount), 0) FROM journal j JOIN games g "
            "ON g.id = j.game_id WHERE g.ended_at IS NULL").fetchone()[0]
        stacks = db.execute("SELECT COALESCE(SUM(cubes), 0) FROM stacks").fetchone()[0]
        pools = -db.execute(
            "SELECT COALESCE(SUM(j.amount), 0) FROM journal j JOIN tournaments t "
            f"ON t.id = j.tournament_id WHERE t.status IN {OPEN_STATUSES!r}").fetchone()[0]
        return Totals(grants, takes, accounts, system, open_pots, stacks, pools)

    def verify(self) -> list[str]:
        """Check the books (see the module docstring); returns one line per discrepancy
        (empty list = all correct). Never raises for what it finds: a check SQLite cannot
        finish (an integer overflow in a damaged database) is reported as a line too."""
        problems: list[str] = []
        with self.books.w.snapshot() as db:
            for name, check in (("balances", self._balances), ("running balances", self._running),
                                ("pots", self._pots), ("tournaments' pools", self._pools),
                                ("totals", self._conservation)):
                try:
                    check(db, problems)
                except (sqlite3.Error, OverflowError) as exc:
                    problems.append(f"could not check the {name}: {exc}")
        return problems

    def _balances(self, db: sqlite3.Connection, problems: list[str]) -> None:
        for handle, cubes in db.execute(
                "SELECT handle, cubes FROM accounts WHERE cubes > ? ORDER BY handle_key",
                (MAX_CUBES,)):
            problems.append(f"account {handle}: holds {cubes} CUBES, more than the "
                            f"{MAX_CUBES:,} an account may reach")
        for handle, cubes, summed in db.execute(
                    "SELECT a.handle, a.cubes, COALESCE(SUM(j.amount), 0) FROM accounts a "
                    "LEFT JOIN journal j ON j.account_id = a.id AND j.stack_table IS NULL "
                    "GROUP BY a.id HAVING a.cubes != COALESCE(SUM(j.amount), 0) "
                    "ORDER BY a.handle_key"):
            problems.append(f"account {handle}: balance is {cubes} CUBES but its "
                            f"journal sums to {summed}")
        for table, handle, cubes, summed in db.execute(
                    "SELECT s.table_id, a.handle, s.cubes, COALESCE((SELECT SUM(j.amount) "
                    "FROM journal j WHERE j.account_id = s.account_id AND j.stack_table = "
                    "s.table_id), 0) AS summed FROM stacks s JOIN accounts a "
                    "ON a.id = s.account_id WHERE s.cubes != summed ORDER BY s.table_id, "
                    "a.handle_key"):
            problems.append(f"stack of {handle} at table {table}: holds {cubes} CUBES but "
                            f"its journal sums to {summed}")

    def _running(self, db: sqlite3.Connection, problems: list[str]) -> None:
        for row_id, handle, balance, running in db.execute(
                    "SELECT id, handle, balance, running FROM (SELECT j.id, a.handle, "
                    "j.balance, SUM(j.amount) OVER (PARTITION BY j.account_id, j.stack_table "
                    "ORDER BY j.id) "
                    "AS running FROM journal j JOIN accounts a ON a.id = j.account_id) "
                    "WHERE balance != running ORDER BY id"):
            problems.append(f"journal row {row_id} ({handle}): records balance {balance} "
                            f"but the rows up to it sum to {running}")

    def _pots(self, db: sqlite3.Connection, problems: list[str]) -> None:
        for game_id, ended, pot in db.execute(
                    "SELECT g.id, g.ended_at, -COALESCE(SUM(j.amount), 0) AS pot FROM games g "
                    "LEFT JOIN journal j ON j.game_id = g.id GROUP BY g.id "
                    "HAVING (g.ended_at IS NOT NULL AND pot != 0) OR pot < 0 ORDER BY g.id"):
            state = "closed" if ended is not None else "open"
            problems.append(f"game {game_id} ({state}): its pot holds {pot} CUBES")

    def _pools(self, db: sqlite3.Connection, problems: list[str]) -> None:
        for tid, status, pool, entered in db.execute(
                    "SELECT t.id, t.status, -(SELECT COALESCE(SUM(amount), 0) FROM journal "
                    "WHERE tournament_id = t.id) AS pool, (SELECT COALESCE(SUM(buy_in), 0) "
                    "FROM tournament_entries WHERE tournament_id = t.id) AS entered "
                    f"FROM tournaments t WHERE CASE WHEN t.status IN {OPEN_STATUSES!r} "
                    "THEN pool != entered ELSE pool != 0 END ORDER BY t.id"):
            if status in OPEN_STATUSES:
                problems.append(f"tournament {tid} ({status}): its pool holds {pool} CUBES "
                                f"but its entrants' buy-ins sum to {entered}")
            else:
                problems.append(f"tournament {tid} ({status}): its pool holds {pool} CUBES")

    def _conservation(self, db: sqlite3.Connection, problems: list[str]) -> None:
        t = self._totals()
        held = t.accounts + t.system + t.open_pots + t.stacks + t.pools
        if held != t.grants - t.takes:
            problems.append(
                f"total CUBES {held} (accounts {t.accounts} + system {t.system} + open pots "
                f"{t.open_pots} + stacks {t.stacks} + tournament pools {t.pools}) != grants "
                f"{t.grants} - takes {t.takes} = {t.grants - t.takes}")

    def backup(self, dest_path: str | os.PathLike[str]) -> None:
        """Copy the whole database to ``dest_path`` with SQLite's online backup API (safe
        while the server writes; pending work is committed first). Raises
        FileExistsError rather than overwrite a file."""
        dest_path = os.fspath(dest_path)
        if os.path.exists(dest_path):
            raise FileExistsError(f"{dest_path} already exists; not overwriting it")
        w = self.books.w
        w.flush()
        # Owner only, like the database (password hashes); O_EXCL: never over a file.
        os.close(os.open(dest_path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600))
        dest = sqlite3.connect(dest_path)
        try:
            w.db.backup(dest)
        finally:
            dest.close()
