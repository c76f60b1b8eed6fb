"""What the sysop does and reads from the command line: :class:`Admin`.

Money enters or leaves the system only here and at sign-up: ``grant``, ``take`` and
``set`` are journal rows with no game, the admin's reason text (control and escape
characters removed, :func:`bbspoker.text.clean_text`) and the operating-system user who
ran the command. The journal, the stacks at tables, the game records and the deck
commitments the tables published are read here too.
"""

from __future__ import annotations

from typing import Callable

from bbspoker.rules.money import MAX_CUBES
from bbspoker.store.sql.books import Books
from bbspoker.text import clean_text
from bbspoker.store.sql.records import (
    GAME_SELECT, JOURNAL_SELECT, PUBLICATION_SELECT, GameRecord, JournalRow, PlayerStats,
    Publication, game_of,
)

__all__ = ["Admin"]

#: Above every game id (2**62): "no game" in a comparison of ids.
_NO_GAME = 1 << 62


def _check_amount(n: int, lowest: int) -> None:
    """ValueError unless ``lowest`` <= ``n`` <= :data:`MAX_CUBES`."""
    if n < lowest:
        raise ValueError(f"the number of CUBES must be at least {lowest}, got {n}")
    if n > MAX_CUBES:
        raise ValueError(f"the number of CUBES may be at most {MAX_CUBES:,}, got {n:,}")


class Admin:
    """Adjustments of CUBES and reads of the journal and games on ``books``' connection."""

    def __init__(self, books: Books) -> None:
        self.books = books

    def _adjust(self, handle: str, amount_of: Callable[[int], int], kind: str,
                reason: str, actor: str) -> int:
        reason = clean_text(reason).strip()
        if not reason:
            raise ValueError("an adjustment needs a reason")
        books = self.books
        with books.w.write():
            account_id = books.account_id(handle)
            current = books.cached_balance(account_id)
            amount = amount_of(current)
            if current + amount > MAX_CUBES:
                raise ValueError(f"{handle} would hold {current + amount:,} CUBES; an account "
                                 f"may hold at most {MAX_CUBES:,} through an adjustment")
            return books.move(account_id, amount, kind, None, reason, actor)

    def grant(self, handle: str, n: int, reason: str, actor: str) -> int:
        """Give ``n`` (> 0) CUBES to ``handle``; journal reason ``grant`` with the admin's
        ``reason`` text (stored without control or escape characters) and OS user
        ``actor``. Returns the new balance. Raises ValueError (n <= 0, a reason with
        nothing printable) or UnknownAccount."""
        _check_amount(n, 1)
        return self._adjust(handle, lambda _: n, "grant", reason, actor)

    def take(self, handle: str, n: int, reason: str, actor: str) -> int:
        """Remove ``n`` (> 0) CUBES from ``handle`` (never below zero: InsufficientCubes,
        nothing changed); journal reason ``take``. Returns the new balance."""
        _check_amount(n, 1)
        return self._adjust(handle, lambda _: -n, "take", reason, actor)

    def set_cubes(self, handle: str, n: int, reason: str, actor: str) -> int:
        """Set the balance of ``handle``'s account to ``n`` (>= 0) CUBES; journalled as reason
        ``set`` with the signed difference (counts as a grant or a take). A stack the
        player holds at a table (:meth:`table_stacks`) is a balance of its own and is not
        changed. Returns ``n``."""
        _check_amount(n, 0)
        return self._adjust(handle, lambda current: n - current, "set", reason, actor)

    def history(self, handle: str, limit: int = 20) -> list[JournalRow]:
        """The last ``limit`` journal rows of ``handle``, newest first; raises UnknownAccount."""
        account_id = self.books.account_id(handle)
        rows = self.books.w.sql(f"{JOURNAL_SELECT} WHERE j.account_id = ? "
                                "ORDER BY j.id DESC LIMIT ?", (account_id, limit)).fetchall()
        return [JournalRow(*r) for r in rows]

    def table_stacks(self, handle: str | None = None) -> dict[str, dict[str, int]]:
        """The CUBES players hold in stacks at tables (bought in at a table-stakes table
        such as Hold'em: not in their account, still theirs), as committed:
        ``{handle: {table id: CUBES}}`` for every account with a stack above 0, tables in
        id order; only ``handle``'s (possibly ``{}``) if given, raising UnknownAccount for
        an unknown one. A plain read: it takes no write lock."""
        where = ""
        params: tuple[int, ...] = ()
        if handle is not None:
            where, params = " AND s.account_id = ?", (self.books.account_id(handle),)
        held: dict[str, dict[str, int]] = {}
        for owner, table, cubes in self.books.w.sql(
                "SELECT a.handle, s.table_id, s.cubes FROM stacks s JOIN accounts a "
                f"ON a.id = s.account_id WHERE s.cubes > 0{where} "
                "ORDER BY a.handle_key, s.table_id", params):
            held.setdefault(owner, {})[table] = cubes
        return held

    def stats(self, handle: str) -> list[PlayerStats]:
        """``handle``'s results per table (per-user stats), by table id, from finished
        games (games called off and refunded count for nothing), counted as
        :meth:`results` says. Raises UnknownAccount."""
        account_id = self.books.account_id(handle)
        return [stats for _, stats in self._results(account_id, None)]

    def results(self, within: float | None = None) -> list[tuple[str, PlayerStats]]:
        """Every person's results per table (the hall of fame's figures): ``(handle,
        PlayerStats)`` by handle (case-folded) and table id, for each player with at
        least one finished game at that table that ended in the last ``within`` seconds
        by the store's clock (``None``: ever). Computer players' accounts are left out.

        The one way results are counted (:meth:`stats` is one player's): a game with
        CUBES in it counts from the journal: played when the player paid into it (an
        ante, a blind, a bet), won when a pot or a share of it went to them; CUBES won
        are the ``win`` rows, CUBES paid in the payments less uncalled bets given back
        (``return``). A game that moved no CUBES at all (Schiebe-Poker played for the
        ranking alone) counts from its record: played when the history's ``players``
        name the player, won when its ``ranking`` puts them first (or ``winner`` is
        them). Games called off and refunded count for nothing, and so do a tournament's
        hands (played for its chips: the tournament's own standings count them)."""
        since = None if within is None else self.books.clock() - within
        return self._results(None, since)

    def _results(self, account_id: int | None,
                 since: float | None) -> list[tuple[str, PlayerStats]]:
        """:meth:`results` of one account (``account_id``) or of every person
        (``None``), for games that ended at or after ``since`` (Unix seconds; ``None``:
        all)."""
        w = self.books.w
        params: dict[str, object] = {}
        staked = free = games = ""
        if account_id is not None:
            staked, free = " AND j.account_id = :account", " AND a.id = :account"
            params["account"] = account_id
        else:
            games = " AND a.bot = 0"
        if since is not None:
            # No game that ended since then has a smaller id than the first of them: the
            # journal's rows are narrowed on its game index before the exact test.
            staked += (f" AND j.game_id >= (SELECT COALESCE(MIN(id), {_NO_GAME}) FROM games "
                       "WHERE ended_at >= :since)")
            free += " AND g.ended_at >= :since"
            games += " AND g.ended_at >= :since"
            params["since"] = since
        ranking = w.JSON_ARRAY.format(doc="g.history", key="ranking", alias="r")
        players = w.JSON_TEXT_ARRAY.format(doc="g.history", key="players", alias="p")
        place = w.JSON_ITEM.format(value="r.value", index=0)
        ranked = w.JSON_ITEM.format(value="r.value", index=1)
        rows = w.sql(
            "WITH staked AS ("
            " SELECT j.account_id AS account, j.game_id AS game,"
            " MAX(CASE WHEN j.amount < 0 THEN 1 ELSE 0 END) AS played,"
            " MAX(CASE WHEN j.reason = 'win' THEN 1 ELSE 0 END) AS won, "
            " COALESCE(SUM(CASE WHEN j.reason = 'win' THEN j.amount END), 0) AS cubes_won, "
            " COALESCE(-SUM(CASE WHEN j.amount < 0 THEN j.amount END), 0) "
            " - COALESCE(SUM(CASE WHEN j.reason = 'return' THEN j.amount END), 0) AS paid, "
            " COALESCE(MAX(CASE WHEN j.reason = 'win' THEN j.amount END), 0) AS biggest "
            f" FROM journal j WHERE j.game_id IS NOT NULL{staked} "
            " GROUP BY j.account_id, j.game_id), "
            "free AS ("
            " SELECT DISTINCT a.id AS account, g.id AS game, 1 AS played, "
            " CASE WHEN g.winner = a.handle OR EXISTS (SELECT 1 FROM "
            f" {ranking} WHERE CAST({place} AS INTEGER) = 1 AND {ranked} = a.handle) "
            " THEN 1 ELSE 0 END AS won, "
            " 0 AS cubes_won, 0 AS paid, 0 AS biggest "
            f" FROM games g CROSS JOIN {players} "
            " JOIN accounts a ON a.handle = p.value WHERE g.end_reason = 'finished' "
            " AND g.tournament_id IS NULL "
            f" AND NOT EXISTS (SELECT 1 FROM journal j WHERE j.game_id = g.id){free}) "
            "SELECT a.handle, g.table_id, SUM(x.played), SUM(x.won), SUM(x.cubes_won), "
            "SUM(x.paid), MAX(x.biggest) FROM (SELECT * FROM staked UNION ALL "
            "SELECT * FROM free) x JOIN games g ON g.id = x.game "
            "JOIN accounts a ON a.id = x.account "
            f"WHERE g.end_reason = 'finished' AND g.tournament_id IS NULL{games} "
            "GROUP BY a.id, g.table_id ORDER BY a.handle_key, g.table_id",
            params).fetchall()
        return [(handle, PlayerStats(*row)) for handle, *row in rows]

    def latest_journal_id(self) -> int:
        """Id of the newest journal row (0 when empty); ids only grow."""
        return self.books.w.sql("SELECT COALESCE(MAX(id), 0) FROM journal").fetchone()[0]

    def journal_since(self, after_id: int) -> list[JournalRow]:
        """Journal rows with id > ``after_id``, oldest first. The server polls this every
        second to show admin changes (and any other movement) on status lines."""
        rows = self.books.w.sql(f"{JOURNAL_SELECT} WHERE j.id > ? ORDER BY j.id",
                                (after_id,)).fetchall()
        return [JournalRow(*r) for r in rows]

    def list_games(self, limit: int = 20, table: str | None = None) -> list[GameRecord]:
        """The last ``limit`` games, newest first; only those of table id ``table`` if given."""
        if table is None:
            rows = self.books.w.sql(f"{GAME_SELECT} ORDER BY g.id DESC LIMIT ?", (limit,))
        else:
            rows = self.books.w.sql(f"{GAME_SELECT} WHERE g.table_id = ? "
                                    "ORDER BY g.id DESC LIMIT ?", (table, limit))
        return [game_of(r) for r in rows.fetchall()]

    def games_from(self, first_id: int, limit: int = 500) -> list[GameRecord]:
        """Up to ``limit`` games with ids from ``first_id`` on, oldest first: a page of the
        whole record (``games verify --all`` reads it page by page)."""
        rows = self.books.w.sql(f"{GAME_SELECT} WHERE g.id >= ? ORDER BY g.id LIMIT ?",
                                (first_id, limit))
        return [game_of(r) for r in rows.fetchall()]

    def game(self, game_id: int) -> GameRecord | None:
        """One game with its hand history, or ``None`` if there is no such game."""
        row = self.books.w.sql(f"{GAME_SELECT} WHERE g.id = ?", (game_id,)).fetchone()
        return None if row is None else game_of(row)

    def tournament_hands(self, tournament: int) -> tuple[int, int, int] | None:
        """The game records of tournament ``tournament``'s hands: ``(first id, last id,
        how many)``, or ``None`` if it has none (it never ran, or ran on a server that did
        not record them)."""
        first, last, count = self.books.w.sql(
            "SELECT MIN(id), MAX(id), COUNT(*) FROM games WHERE tournament_id = ?",
            (tournament,)).fetchone()
        return None if not count else (first, last, count)

    def publication(self, table: str, commitment: str) -> Publication | None:
        """The record of table ``table`` publishing ``commitment`` for its next game, or
        ``None`` if it never did (docs/fairness.md)."""
        row = self.books.w.sql(f"{PUBLICATION_SELECT} WHERE table_id = ? AND commitment = ?",
                               (table, commitment)).fetchone()
        return None if row is None else Publication(*row)

    def published_before(self, table: str, at: float) -> Publication | None:
        """The last commitment table ``table`` published at or before ``at`` (Unix
        seconds), or ``None`` if it had published none by then."""
        row = self.books.w.sql(f"{PUBLICATION_SELECT} WHERE table_id = ? AND published_at "
                               "<= ? ORDER BY published_at DESC, id DESC LIMIT 1",
                               (table, at)).fetchone()
        return None if row is None else Publication(*row)
