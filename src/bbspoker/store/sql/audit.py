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

from bbspoker.rules.money import MAX_CUBES
from bbspoker.store.sql.books import Books
from bbspoker.store.sql.records import STACK_TRANSFERS, Totals
from bbspoker.store.tournaments import OPEN_STATUSES
from bbspoker.store.wallet import StoreError

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
        sql, system_id = self.books.w.sql, self.books.system_id
        grants, takes = sql(
            "SELECT COALESCE(SUM(CASE WHEN amount > 0 THEN amount ELSE 0 END), 0), "
            "COALESCE(SUM(CASE WHEN amount < 0 THEN -amount ELSE 0 END), 0) "
            f"FROM journal WHERE game_id IS NULL AND tournament_id IS NULL AND reason NOT IN "
            f"({', '.join(repr(r) for r in STACK_TRANSFERS)})").fetchone()
        accounts, system = sql(
            "SELECT COALESCE(SUM(cubes) FILTER (WHERE id != ?), 0), "
            "COALESCE(SUM(cubes) FILTER (WHERE id = ?), 0) FROM accounts",
            (system_id, system_id)).fetchone()
        open_pots = -sql(
            "SELECT COALESCE(SUM(j.amount), 0) FROM journal j JOIN games g "
            "ON g.id = j.game_id WHERE g.ended_at IS NULL").fetchone()[0]
        stacks = sql("SELECT COALESCE(SUM(cubes), 0) FROM stacks").fetchone()[0]
        pools = -sql(
            "SELECT COALESCE(SUM(j.amount), 0) FROM journal j JOIN tournaments t "
            f"ON t.id = j.tournament_id WHERE t.status IN {OPEN_STATUSES!r}").fetchone()[0]
        return Totals(grants, takes, accounts, system, open_pots, stacks, pools)

    def verify(self) -> list[str]:
        """Check the books (see the module docstring); returns one line per discrepancy
        (empty list = all correct). Never raises for what it finds: a check the database
        cannot finish (an integer overflow in a damaged database) is reported as a line
        too."""
        problems: list[str] = []
        with self.books.w.snapshot():
            for name, check in (("balances", self._balances), ("running balances", self._running),
                                ("pots", self._pots), ("tournaments' pools", self._pools),
                                ("totals", self._conservation)):
                try:
                    check(problems)
                except (StoreError, OverflowError) as exc:
                    problems.append(f"could not check the {name}: {exc}")
        return problems

    def _balances(self, problems: list[str]) -> None:
        sql = self.books.w.sql
        for handle, cubes in sql(
                "SELECT handle, cubes FROM accounts WHERE cubes > ? ORDER BY handle_key",
                (MAX_CUBES,)):
            problems.append(f"account {handle}: holds {cubes} CUBES, more than the "
                            f"{MAX_CUBES:,} an account may reach")
        for handle, cubes, summed in sql(
                    "SELECT a.handle, a.cubes, COALESCE(SUM(j.amount), 0) FROM accounts a "
                    "LEFT JOIN journal j ON j.account_id = a.id AND j.stack_table IS NULL "
                    "GROUP BY a.id HAVING a.cubes != COALESCE(SUM(j.amount), 0) "
                    "ORDER BY a.handle_key"):
            problems.append(f"account {handle}: balance is {cubes} CUBES but its "
                            f"journal sums to {summed}")
        for table, handle, cubes, summed in sql(
                    "SELECT table_id, handle, cubes, summed FROM (SELECT s.table_id, a.handle, "
                    "a.handle_key, s.cubes, COALESCE((SELECT SUM(j.amount) FROM journal j "
                    "WHERE j.account_id = s.account_id AND j.stack_table = s.table_id), 0) "
                    "AS summed FROM stacks s JOIN accounts a ON a.id = s.account_id) held "
                    "WHERE cubes != summed ORDER BY table_id, handle_key"):
            problems.append(f"stack of {handle} at table {table}: holds {cubes} CUBES but "
                            f"its journal sums to {summed}")

    def _running(self, problems: list[str]) -> None:
        for row_id, handle, balance, running in self.books.w.sql(
                    "SELECT id, handle, balance, running FROM (SELECT j.id, a.handle, "
                    "j.balance, SUM(j.amount) OVER (PARTITION BY j.account_id, j.stack_table "
                    "ORDER BY j.id) "
                    "AS running FROM journal j JOIN accounts a ON a.id = j.account_id) sums "
                    "WHERE balance != running ORDER BY id"):
            problems.append(f"journal row {row_id} ({handle}): records balance {balance} "
                            f"but the rows up to it sum to {running}")

    def _pots(self, problems: list[str]) -> None:
        for game_id, ended, pot in self.books.w.sql(
                    "SELECT id, ended_at, pot FROM (SELECT g.id, g.ended_at, "
                    "-COALESCE(SUM(j.amount), 0) AS pot FROM games g "
                    "LEFT JOIN journal j ON j.game_id = g.id GROUP BY g.id) pots "
                    "WHERE (ended_at IS NOT NULL AND pot != 0) OR pot < 0 ORDER BY id"):
            state = "closed" if ended is not None else "open"
            problems.append(f"game {game_id} ({state}): its pot holds {pot} CUBES")

    def _pools(self, problems: list[str]) -> None:
        for tid, status, pool, entered in self.books.w.sql(
                    "SELECT id, status, pool, entered FROM (SELECT t.id, t.status, "
                    "-(SELECT COALESCE(SUM(amount), 0) FROM journal "
                    "WHERE tournament_id = t.id) AS pool, (SELECT COALESCE(SUM(buy_in), 0) "
                    "FROM tournament_entries WHERE tournament_id = t.id) AS entered "
                    "FROM tournaments t) pools "
                    f"WHERE CASE WHEN status IN {OPEN_STATUSES!r} "
                    "THEN pool != entered ELSE pool != 0 END ORDER BY id"):
            if status in OPEN_STATUSES:
                problems.append(f"tournament {tid} ({status}): its pool holds {pool} CUBES "
                                f"but its entrants' buy-ins sum to {entered}")
            else:
                problems.append(f"tournament {tid} ({status}): its pool holds {pool} CUBES")

    def _conservation(self, problems: list[str]) -> None:
        t = self._totals()
        held = t.accounts + t.system + t.open_pots + t.stacks + t.pools
        if held != t.grants - t.takes:
            problems.append(
                f"total CUBES {held} (accounts {t.accounts} + system {t.system} + open pots "
                f"{t.open_pots} + stacks {t.stacks} + tournament pools {t.pools}) != grants "
                f"{t.grants} - takes {t.takes} = {t.grants - t.takes}")

    def backup(self, dest_path: str | os.PathLike[str]) -> None:
        """Copy the whole database to the new file ``dest_path`` (readable by its owner
        only) while the server may go on writing; pending work is committed first. On
        SQLite with its online backup API; a PostgreSQL database is copied with
        ``pg_dump`` instead (raises :class:`StoreError` saying so). Raises
        FileExistsError rather than overwrite a file."""
        self.books.w.backup(os.fspath(dest_path))
