"""Tournaments in the ledger: :class:`Tournaments`, the ledger's
:class:`~bbspoker.store.tournaments.TournamentBook`.

A tournament is a ``tournaments`` row (schema 18) and its entrants ``tournament_entries``
rows. Its prize pool is stored nowhere else, as a game's pot is not: every movement into or
out of it is one ``journal`` row of the player's account with ``tournament_id`` set (reason
``tournament_buy_in``, negative; ``tournament_refund`` or ``tournament_prize``, positive),
written by :meth:`~bbspoker.store.sql.books.Books.move` in the same transaction as the
balance it changes, so the pool is minus the sum of the tournament's rows. ``ledger
verify`` checks that an open tournament's pool equals its entrants' buy-ins and that an
ended one's is 0, and counts open pools among the CUBES that exist; pool rows are neither
grants nor takes.

Each method is one durable write (a transaction holding the write lock, committed
waiting for the disk), checked under the write lock before anything is queued: a refused call changes
nothing. A status change is an ``UPDATE`` conditional on the status it was checked
against, so two connections can never both start, finish (pay) or cancel one tournament.
Tournaments are rare and slow, so nothing of them is cached.
"""

from __future__ import annotations

import json
from typing import Any, Collection, Mapping

from bbspoker.store.sql.books import Books
from bbspoker.store.sql.records import handle_key
from bbspoker.store.tournaments import (
    BUY_IN, PRIZE, REFUND, Standing, TournamentEntry, TournamentError, TournamentRecord,
    check_new_tournament, check_payout, check_reason, check_statuses, encode_json,
    no_tournament, require_open, require_registration, require_status, standings,
)

__all__ = ["Tournaments"]

_SELECT = ("SELECT id, key, name, kind, buy_in, status, created_at, starts_at, started_at, "
           "ended_at, state, result, reason FROM tournaments")


def _record(row: tuple[Any, ...]) -> TournamentRecord:
    (tid, key, name, kind, buy_in, status, created_at, starts_at, started_at, ended_at,
     state, result, reason) = row
    return TournamentRecord(tid, key, name, kind, buy_in, status, created_at, starts_at,
                            started_at, ended_at, None if state is None else json.loads(state),
                            None if result is None else json.loads(result), reason)


class Tournaments:
    """Tournaments and their prize pools on ``books``' connection (see the module
    docstring and :class:`~bbspoker.store.tournaments.TournamentBook` for each method's
    rule and errors)."""

    def __init__(self, books: Books) -> None:
        self.books = books

    # ------------------------------------------------------------ inside a write

    def _status(self, tid: int) -> tuple[str, int]:
        """Tournament ``tid``'s status and buy-in; raises ``no_tournament``."""
        row = self.books.w.sql("SELECT status, buy_in FROM tournaments WHERE id = ?",
                               (tid,)).fetchone()
        if row is None:
            raise no_tournament(tid)
        return row[0], row[1]

    def _set_status(self, tid: int, was: str, sets: str, params: tuple[Any, ...]) -> None:
        """Queue ``UPDATE tournaments SET <sets>`` for ``tid``, conditional on ``was``."""
        self.books.w.queue.append((f"UPDATE tournaments SET {sets} WHERE id = ? AND status = ?",
                                   (*params, tid, was)))

    def _entry(self, tid: int, account_id: int) -> int | None:
        """The buy-in of the account's entry in ``tid``, or ``None`` if it has none."""
        row = self.books.w.sql("SELECT buy_in FROM tournament_entries WHERE tournament_id = ? "
                               "AND account_id = ?", (tid, account_id)).fetchone()
        return None if row is None else row[0]

    def _pool(self, tid: int) -> int:
        return -self.books.w.sql("SELECT COALESCE(SUM(amount), 0) FROM journal "
                                 "WHERE tournament_id = ?", (tid,)).fetchone()[0]

    def _handle(self, account_id: int) -> str:
        return self.books.w.sql("SELECT handle FROM accounts WHERE id = ?",
                                (account_id,)).fetchone()[0]

    # ------------------------------------------------------------ writes

    def create_tournament(self, key: str, name: str, kind: str, buy_in: int,
                          starts_at: float | None = None) -> int:
        """:meth:`~bbspoker.store.tournaments.TournamentBook.create_tournament`."""
        key, name, kind = check_new_tournament(key, name, kind, buy_in)
        w = self.books.w
        with w.write():
            tid: int = w.sql("INSERT INTO tournaments (key, name, kind, buy_in, status, "
                             "created_at, starts_at) VALUES (?, ?, ?, ?, 'registering', ?, ?) "
                             "RETURNING id",
                             (key, name, kind, buy_in, self.books.clock(), starts_at)
                             ).fetchone()[0]
            return tid

    def register(self, tid: int, handle: str, *, late: bool = False) -> int:
        """:meth:`~bbspoker.store.tournaments.TournamentBook.register`."""
        books = self.books
        with books.w.write():
            status, buy_in = self._status(tid)
            require_registration(tid, status, late)
            account_id = books.account_id(handle)
            if self._entry(tid, account_id) is not None:
                name = self._handle(account_id)
                raise TournamentError("registered", f"{name} is already registered for "
                                      f"tournament {tid}", tournament=tid, handle=name)
            balance = books.cached_balance(account_id)
            if buy_in:
                balance = books.move(account_id, -buy_in, BUY_IN, None, tournament=tid)
            books.w.queue.append((
                "INSERT INTO tournament_entries (tournament_id, account_id, registered_at, "
                "buy_in) VALUES (?, ?, ?, ?)", (tid, account_id, books.clock(), buy_in)))
            return balance

    def unregister(self, tid: int, handle: str) -> int:
        """:meth:`~bbspoker.store.tournaments.TournamentBook.unregister`."""
        books = self.books
        with books.w.write():
            status, _ = self._status(tid)
            require_status(tid, status, "registering", "not_registering")
            account_id = books.account_id(handle)
            paid = self._entry(tid, account_id)
            if paid is None:
                name = self._handle(account_id)
                raise TournamentError("not_registered", f"{name} is not registered for "
                                      f"tournament {tid}", tournament=tid, handle=name)
            if paid:
                books.move(account_id, paid, REFUND, None, tournament=tid)
            books.w.queue.append(("DELETE FROM tournament_entries WHERE tournament_id = ? "
                                  "AND account_id = ?", (tid, account_id)))
            return paid

    def start_tournament(self, tid: int, state: Mapping[str, Any]) -> None:
        """:meth:`~bbspoker.store.tournaments.TournamentBook.start_tournament`."""
        text = encode_json(state)
        with self.books.w.write():
            status, _ = self._status(tid)
            require_status(tid, status, "registering", "not_registering")
            self._set_status(tid, status, "status = 'running', started_at = ?, state = ?",
                             (self.books.clock(), text))

    def save_tournament_state(self, tid: int, state: Mapping[str, Any]) -> None:
        """:meth:`~bbspoker.store.tournaments.TournamentBook.save_tournament_state`: one
        ``UPDATE`` committed durably (so it also commits the table's
        pending work first, see ``Ledger.defer_commits``): never left pending."""
        text = encode_json(state)
        with self.books.w.write(durable=True):
            status, _ = self._status(tid)
            require_status(tid, status, "running", "not_running")
            self._set_status(tid, status, "state = ?", (text,))

    def finish_tournament(self, tid: int, places: Mapping[str, int],
                          prizes: Mapping[str, int], result: Mapping[str, Any]) -> None:
        """:meth:`~bbspoker.store.tournaments.TournamentBook.finish_tournament`."""
        text = encode_json(result)
        books = self.books
        with books.w.write():
            status, _ = self._status(tid)
            require_status(tid, status, "running", "not_running")
            entrants = {handle_key(h): (account_id, h) for account_id, h in books.w.sql(
                "SELECT e.account_id, a.handle FROM tournament_entries e JOIN accounts a "
                "ON a.id = e.account_id WHERE e.tournament_id = ?", (tid,)).fetchall()}
            placed, paid = check_payout(tid, self._pool(tid),
                                        {k: h for k, (_, h) in entrants.items()},
                                        places, prizes, handle_key)
            for k, prize in paid.items():
                if prize:
                    books.move(entrants[k][0], prize, PRIZE, None, tournament=tid)
            for k, (account_id, _) in entrants.items():
                books.w.queue.append((
                    "UPDATE tournament_entries SET place = ?, prize = ? "
                    "WHERE tournament_id = ? AND account_id = ?",
                    (placed.get(k), paid.get(k, 0), tid, account_id)))
            self._set_status(tid, status, "status = 'finished', ended_at = ?, result = ?",
                             (books.clock(), text))

    def cancel_tournament(self, tid: int, reason: str) -> dict[str, int]:
        """:meth:`~bbspoker.store.tournaments.TournamentBook.cancel_tournament`: what each
        account paid into the pool is read from the journal (its net rows), as
        ``cancel_game`` refunds a game's pot, and each entrant refunded finds a notice at
        the next login (``tournament_cancelled``)."""
        reason = check_reason(reason)
        books = self.books
        refunds: dict[str, int] = {}
        with books.w.write():
            status, _ = self._status(tid)
            require_open(tid, status)
            name = books.w.sql("SELECT name FROM tournaments WHERE id = ?", (tid,)).fetchone()[0]
            now = books.clock()
            for account_id, handle, cubes in books.w.sql(
                    "SELECT j.account_id, a.handle, -SUM(j.amount) FROM journal j "
                    "JOIN accounts a ON a.id = j.account_id WHERE j.tournament_id = ? "
                    "GROUP BY j.account_id, a.handle HAVING -SUM(j.amount) > 0 "
                    "ORDER BY MIN(j.id)",
                    (tid,)).fetchall():
                books.move(account_id, cubes, REFUND, None, reason, tournament=tid)
                books._notice(account_id, now, "tournament_cancelled",
                              {"tournament": tid, "name": name, "cubes": cubes},
                              f"Tournament {name} ({tid}) was called off ({reason}): your "
                              f"buy-in of {cubes} CUBES was refunded.")
                refunds[handle] = cubes
            self._set_status(tid, status, "status = 'cancelled', ended_at = ?, reason = ?",
                             (books.clock(), reason))
        return refunds

    # ------------------------------------------------------------ reads

    def tournament(self, tid: int) -> TournamentRecord | None:
        """:meth:`~bbspoker.store.tournaments.TournamentBook.tournament`."""
        row = self.books.w.sql(f"{_SELECT} WHERE id = ?", (tid,)).fetchone()
        return None if row is None else _record(row)

    def tournaments(self, statuses: Collection[str] | None = None) -> list[TournamentRecord]:
        """:meth:`~bbspoker.store.tournaments.TournamentBook.tournaments`."""
        wanted = check_statuses(statuses)
        rows = self.books.w.sql(f"{_SELECT} WHERE status IN ({', '.join('?' * len(wanted))}) "
                                "ORDER BY id DESC", wanted).fetchall()
        return [_record(row) for row in rows]

    def tournament_entries(self, tid: int) -> list[TournamentEntry]:
        """:meth:`~bbspoker.store.tournaments.TournamentBook.tournament_entries`."""
        w = self.books.w
        if w.sql("SELECT 1 FROM tournaments WHERE id = ?", (tid,)).fetchone() is None:
            raise no_tournament(tid)
        rows = w.sql("SELECT a.handle, e.buy_in, e.place, e.prize, e.registered_at "
                     "FROM tournament_entries e JOIN accounts a ON a.id = e.account_id "
                     # rowid: the order the entries were made in (SQLite's own; a column
                     # of PostgreSQL's schema)
                     "WHERE e.tournament_id = ? ORDER BY e.registered_at, e.rowid",
                     (tid,)).fetchall()
        return [TournamentEntry(*row) for row in rows]

    def pool(self, tid: int) -> int:
        """:meth:`~bbspoker.store.tournaments.TournamentBook.pool`."""
        row = self.books.w.sql("SELECT -(SELECT COALESCE(SUM(amount), 0) FROM journal "
                               "WHERE tournament_id = t.id) FROM tournaments t WHERE t.id = ?",
                               (tid,)).fetchone()
        if row is None:
            raise no_tournament(tid)
        return row[0]

    def tournaments_of(self, handle: str) -> list[TournamentRecord]:
        """:meth:`~bbspoker.store.tournaments.TournamentBook.tournaments_of`."""
        account_id = self.books.account_id(handle)
        rows = self.books.w.sql(f"{_SELECT} WHERE id IN (SELECT tournament_id FROM "
                                "tournament_entries WHERE account_id = ?) ORDER BY id DESC",
                                (account_id,)).fetchall()
        return [_record(row) for row in rows]

    def tournament_standings(self, since: float | None = None,
                             until: float | None = None) -> list[Standing]:
        """:meth:`~bbspoker.store.tournaments.TournamentBook.tournament_standings`: the
        entries of the finished tournaments in the range, people's only, each with its
        tournament's count of entrants, counted by
        :func:`~bbspoker.store.tournaments.standings`."""
        where, params = "", {"since": since, "until": until}
        if since is not None:
            where += " AND t.ended_at >= :since"
        if until is not None:
            where += " AND t.ended_at < :until"
        rows = self.books.w.sql(
            "SELECT a.handle, (SELECT COUNT(*) FROM tournament_entries n "
            "WHERE n.tournament_id = t.id), e.place, COALESCE(e.prize, 0), e.buy_in "
            "FROM tournaments t JOIN tournament_entries e ON e.tournament_id = t.id "
            "JOIN accounts a ON a.id = e.account_id "
            f"WHERE t.status = 'finished' AND a.bot = 0{where}",
            {k: v for k, v in params.items() if v is not None}).fetchall()
        return standings(rows)
