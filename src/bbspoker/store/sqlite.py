"""The CUBES ledger: accounts, an append-only journal, games and notices in SQLite.

:class:`Ledger` is the real :class:`bbspoker.store.wallet.Wallet`. CUBES are the
users' savings, so none may appear or vanish without a record:

* every movement of CUBES is one ``journal`` row (account, signed amount,
  reason, game id, time, balance after it, and for admin rows the reason text
  and the operating-system user), written in the same transaction as the
  balance it changes;
* debits are conditional: a balance never goes below zero
  (:class:`~bbspoker.store.wallet.InsufficientCubes`, nothing changed);
* the pot of a game is not stored anywhere else: it is minus the sum of that
  game's journal rows (antes and bets are negative, the payout positive), so
  a finished game's rows sum to zero and ``ledger verify`` can prove it;
* money enters and leaves the whole system only through rows with no game:
  grants, takes, ``set`` adjustments and the starting CUBES of a new account
  (reason ``signup``, actor ``system:signup`` for accounts made at the login
  prompt, the sysop's user for ``bbspoker users add``). Hence the invariant
  checked by :meth:`Ledger.verify`: CUBES of all accounts (the
  :data:`~bbspoker.store.wallet.SYSTEM` account included) plus open pots equal
  grants minus takes.

SQLite is used with WAL, a busy timeout and ``BEGIN IMMEDIATE`` for every
write, so the server and the admin CLI can use the same file at the same time
without losing an update. Several calls can share one transaction
(:meth:`Ledger.transaction`). Opening a ledger runs the schema migrations
(table ``schema_version``).

Durability: every commit is atomic and survives a crash of the process. The
stakes of a game still running (:meth:`Ledger.open_game`, antes and bets through
:meth:`Ledger.pay_into_pot`) commit with ``synchronous = NORMAL``: no fsync, so a
power loss may drop the last such commits. That is safe: the WAL keeps a prefix
of the commits, each balance change goes with its journal row, and the game,
left unfinished, is refunded by :meth:`Ledger.recover_unfinished_games` at the
next start. The table also ends its games that way (one ``transaction(durable=False)``
for the pot and the end record): a power loss can then roll back a game just
finished, which is refunded like any unfinished game. Everything else called on
its own (cancelling a game, grants, takes, ``set``, new accounts, notices,
account fields) commits with ``synchronous = FULL``; its fsync of the WAL also
makes every earlier commit durable.

Writes are checked in Python and queued: a write transaction begins with
``BEGIN IMMEDIATE`` (SQLite's write lock, so no other connection can change a
balance until it ends) and ``PRAGMA data_version`` (are the caches still
valid?); each movement is then checked against the balance, and each pot
against the game's pot, that this connection holds for the account and game,
applied to those, and its statements (the balance ``UPDATE``, the journal
``INSERT``, the game's ``INSERT``/``UPDATE``) are queued with the values of the
moment of the call (journal time, balance after it). They run in order just
before the COMMIT, or earlier when a read or a write that needs SQLite follows
them. Each queued statement must change exactly one row (a balance ``UPDATE`` is
conditional on the balance it was checked against), else, like any error of a
statement or of the COMMIT, the whole transaction is rolled back.

The table's service defers those NORMAL commits by one event-loop turn
(:meth:`Ledger.defer_commits`, :meth:`Ledger.commit_pending`): a step's
writes (a start with its antes, a bet, the end of a game) are checked and
applied at once with no SQL statement but the ``BEGIN IMMEDIATE`` of the step's
first write, the update goes to every screen, and the queued statements and the
COMMIT follow in the next loop turn. Meanwhile the transaction stays open on
the server's connection (which holds SQLite's write lock: the admin CLI waits
that long); any other write, snapshot, backup or close commits it first, and a
read that asks SQLite runs its queued statements first. So a crash of the
process (kill -9) now loses at most the last step's writes, shown to the
players for less than a loop turn; the game, left without them, is refunded at
the next start as after a power loss. If the pending work cannot be written
(a statement or the COMMIT fails: I/O error, disk full, a constraint) it is
rolled back; the table then calls the game off and refunds what the ledger
holds of it.

The connection caches account ids, balances, which games are open with their
pots, and the next game id. The cache is trusted only while no other
connection has committed (``PRAGMA data_version``) and is dropped on any
rollback.

The server opens its ledger with ``autocheckpoint=False`` and calls
:meth:`Ledger.checkpoint` from a worker thread every ``[ledger] sync_interval``
seconds: the WAL is synced and copied into the database file there, off the
event loop, instead of inside whichever commit passes SQLite's 1,000-page mark.
So the table's commits reach the disk within about that interval.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import sqlite3
import threading
import time
import unicodedata
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Mapping, Sequence

import wcwidth

from bbspoker.text import clean_text

from bbspoker.store.wallet import SYSTEM, CommitFailed, InsufficientCubes, UnknownAccount

__all__ = [
    "Ledger", "Account", "JournalRow", "GameRecord", "Totals",
    "HandleTaken", "LedgerError", "validate_handle", "handle_key",
    "SIGNUP_ACTOR", "CRASH_REASON",
]

log = logging.getLogger(__name__)

#: Actor recorded for the starting CUBES of an account created at the login prompt.
SIGNUP_ACTOR = "system:signup"
#: Reason recorded for games refunded by :meth:`Ledger.recover_unfinished_games`.
CRASH_REASON = "the server stopped before the game ended"

_BUSY_TIMEOUT_MS = 10_000

# Each migration is a list of statements run in one transaction; the index + 1
# is the schema version it brings the database to. Append, never edit.
_MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE accounts (
            id            INTEGER PRIMARY KEY,
            handle        TEXT NOT NULL,
            handle_key    TEXT NOT NULL UNIQUE,
            password_hash TEXT,
            cubes         INTEGER NOT NULL CHECK (cubes >= 0),
            created       REAL NOT NULL,
            last_seen     REAL,
            banned        INTEGER NOT NULL DEFAULT 0,
            ban_reason    TEXT
        )""",
        """CREATE TABLE games (
            id         INTEGER PRIMARY KEY AUTOINCREMENT,
            players    TEXT NOT NULL,
            deck_hash  TEXT NOT NULL,
            started_at REAL NOT NULL,
            ended_at   REAL,
            winner     TEXT,
            end_reason TEXT,
            history    TEXT
        )""",
        """CREATE TABLE journal (
            id         INTEGER PRIMARY KEY AUTOINCREMENT,
            account_id INTEGER NOT NULL REFERENCES accounts(id),
            amount     INTEGER NOT NULL,
            reason     TEXT NOT NULL,
            game_id    INTEGER REFERENCES games(id),
            at         REAL NOT NULL,
            balance    INTEGER NOT NULL,
            note       TEXT,
            actor      TEXT
        )""",
        "CREATE INDEX journal_account ON journal(account_id, id)",
        "CREATE INDEX journal_game ON journal(game_id)",
        "CREATE INDEX games_open ON games(id) WHERE ended_at IS NULL",
        """CREATE TABLE notices (
            id         INTEGER PRIMARY KEY,
            account_id INTEGER NOT NULL REFERENCES accounts(id),
            at         REAL NOT NULL,
            text       TEXT NOT NULL
        )""",
        "CREATE INDEX notices_account ON notices(account_id)",
        f"""INSERT INTO accounts (handle, handle_key, cubes, created)
            VALUES ('{SYSTEM}', '{SYSTEM}', 0, unixepoch())""",
    ),
)

#: Schema version this code writes; a database with a higher version is refused.
SCHEMA_VERSION = len(_MIGRATIONS)


class HandleTaken(Exception):
    """An account with that handle (compared without regard to case) already exists."""


class LedgerError(Exception):
    """The database cannot be used: unreadable file, or a schema newer than this code."""


@functools.lru_cache(maxsize=4096)
def handle_key(handle: str) -> str:
    """The form of a handle used for uniqueness and look-up: NFKC, then case-folded.

    ``"Alice"``, ``"ALICE"`` and full-width ``"Ａｌｉｃｅ"`` share one key. Cached
    (the last 4096 handles): every balance look-up goes through it.
    """
    return unicodedata.normalize("NFKC", handle).casefold()


def validate_handle(handle: str) -> str:
    """Check a handle typed at the login prompt or given to the CLI; return it as stored.

    Rule (issue 3, issue 5): surrounding spaces are dropped; then 2-16
    printable characters (no C0/C1 controls, DEL, ESC, bidi or zero-width
    characters), at most 16 terminal columns wide (``wcwidth``), and not the
    reserved name of the :data:`~bbspoker.store.wallet.SYSTEM` account. Raises
    ``ValueError`` with a message fit to show the user.
    """
    text = handle.strip()
    if not 2 <= len(text) <= 16:
        raise ValueError("a handle has 2 to 16 characters")
    # The one allowlist for user text on screens (bbspoker.text), plus U+FFFD: what
    # undecodable input turns into is no character anyone meant to type.
    if not text.isprintable() or clean_text(text) != text or "\ufffd" in text:
        raise ValueError("a handle may only contain printable characters")
    if wcwidth.wcswidth(text) > 16:
        raise ValueError("a handle may be at most 16 columns wide")
    if handle_key(text) == handle_key(SYSTEM):
        raise ValueError(f"the handle {SYSTEM} is reserved")
    return text


@dataclass(frozen=True)
class Account:
    """One user account. ``cubes`` in CUBES; ``created``/``last_seen`` in Unix seconds
    (``last_seen`` is ``None`` until the first :meth:`Ledger.touch`)."""

    handle: str
    cubes: int
    created: float
    last_seen: float | None
    banned: bool
    ban_reason: str | None


@dataclass(frozen=True)
class JournalRow:
    """One movement of CUBES.

    ``amount`` is signed CUBES (negative leaves the account); ``balance`` is
    the account's CUBES after the row. ``reason`` is ``ante``/``bet`` (or what
    the table passed), ``win``, ``pot-to-system``, ``refund``, ``signup``,
    ``grant``, ``take`` or ``set``. ``game_id`` is set for game rows; ``note``
    holds the admin's reason text or the refund reason; ``actor`` the OS user
    of an admin row (``system:signup`` for starting CUBES). ``at``: Unix seconds.
    """

    id: int
    handle: str
    amount: int
    reason: str
    game_id: int | None
    at: float
    balance: int
    note: str | None
    actor: str | None


@dataclass(frozen=True)
class GameRecord:
    """One game as recorded: players in seat order, SHA-256 hex of the deck order,
    start/end in Unix seconds (``ended_at`` ``None`` while open), the winner,
    ``end_reason`` (``"finished"`` or why it was cancelled), the CUBES in its
    pot now, and the hand history mapping stored at the end (``None`` while open)."""

    id: int
    players: list[str]
    deck_hash: str
    started_at: float
    ended_at: float | None
    winner: str | None
    end_reason: str | None
    pot: int
    history: dict[str, Any] | None


@dataclass(frozen=True)
class Totals:
    """Where all CUBES are, for ``ledger verify``: ``grants`` and ``takes`` (both >= 0)
    are the money that entered/left through rows with no game; ``accounts`` is the
    sum of user balances, ``system`` the SYSTEM account, ``open_pots`` what open
    games hold. Conservation: ``accounts + system + open_pots == grants - takes``."""

    grants: int
    takes: int
    accounts: int
    system: int
    open_pots: int


_ACCOUNT_COLUMNS = "handle, cubes, created, last_seen, banned, ban_reason"
_JOURNAL_SELECT = """SELECT j.id, a.handle, j.amount, j.reason, j.game_id, j.at,
                            j.balance, j.note, j.actor
                     FROM journal j JOIN accounts a ON a.id = j.account_id"""
_GAME_SELECT = """SELECT g.id, g.players, g.deck_hash, g.started_at, g.ended_at, g.winner,
                         g.end_reason,
                         -(SELECT COALESCE(SUM(amount), 0) FROM journal WHERE game_id = g.id),
                         g.history
                  FROM games g"""


def _account(row: tuple) -> Account:
    handle, cubes, created, last_seen, banned, ban_reason = row
    return Account(handle, cubes, created, last_seen, bool(banned), ban_reason)


def _game(row: tuple) -> GameRecord:
    gid, players, deck_hash, started, ended, winner, end_reason, pot, history = row
    return GameRecord(gid, json.loads(players), deck_hash, started, ended, winner,
                      end_reason, pot, None if history is None else json.loads(history))


@dataclass(slots=True)
class _Level:
    """A running write block (:meth:`Ledger._write`): its queued statements start at
    ``mark`` in the ledger's queue; ``savepoint`` once a SQL SAVEPOINT stands for it
    (statements ran while it was open, see :meth:`Ledger._sync`), and from the start for
    the block that began the transaction (its undo is the rollback)."""

    mark: int
    savepoint: bool = False


class Ledger:
    """The SQLite CUBES store; implements :class:`bbspoker.store.wallet.Wallet` plus accounts,
    admin adjustments, hand histories, crash recovery and verification.

    ``path``: database file (created with its schema if missing).
    ``starting_cubes``: CUBES of an account created without an explicit amount.
    ``clock``: returns Unix seconds for journal times (tests inject one).

    One sqlite3 connection per object. It may be created in one thread and
    used from another, but calls must not overlap (one thread at a time).
    Raises :class:`LedgerError` if the file cannot be opened or its schema is
    newer than this code. Handles are matched without regard to case.
    """

    def __init__(self, path: str | os.PathLike[str], *, starting_cubes: int = 1000,
                 clock: Callable[[], float] = time.time, autocheckpoint: bool = True) -> None:
        if starting_cubes < 0:
            raise ValueError(f"starting_cubes must be >= 0, got {starting_cubes}")
        self.path = os.fspath(path)
        self.starting_cubes = starting_cubes
        self._clock = clock
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None,
                                       check_same_thread=False,
                                       timeout=_BUSY_TIMEOUT_MS / 1000)
        except sqlite3.Error as exc:
            raise LedgerError(f"cannot open database {self.path}: {exc}") from None
        try:
            self._db.execute(f"PRAGMA busy_timeout = {_BUSY_TIMEOUT_MS}")
            self._db.execute("PRAGMA journal_mode = WAL")
            self._db.execute("PRAGMA synchronous = FULL")
            self._durable = True
            # Caches, see _account_id, balances_of, _require_open, open_game, _check_version.
            self._ids: dict[str, int] = {}     # handle key to account id
            self._cubes: dict[int, int] = {}   # account id to CUBES
            self._open: dict[int, int] = {}    # id of a game known to be open to its pot
            self._next_game: int | None = None  # the id open_game gives next
            self._version: int | None = None   # PRAGMA data_version when last checked
            # Queued statements and deferred commits, see _write, _sync and defer_commits.
            self._queue: list[tuple[str, tuple[Any, ...]]] = []  # applied, not yet run
            self._levels: list[_Level] = []    # _write blocks running, outermost first
            self._deferring = False            # inside defer_commits()
            self._pending = False              # a transaction waits for commit_pending()
            self._touched: set[int] = set()    # games written in the open transaction
            self._lost: frozenset[int] | None = None  # games of a failed pending commit
            self._db.execute("PRAGMA foreign_keys = ON")
            if not autocheckpoint:
                self._db.execute("PRAGMA wal_autocheckpoint = 0")
            self._migrate()
        except sqlite3.DatabaseError as exc:
            self._db.close()
            raise LedgerError(f"cannot use database {self.path}: {exc}") from None
        except LedgerError:
            self._db.close()
            raise
        self._system_id = self._account_id(SYSTEM)
        self._checkpointer: sqlite3.Connection | None = None  # see checkpoint()
        self._checkpoint_lock = threading.Lock()

    # ---------------------------------------------------------------- plumbing

    def close(self) -> None:
        """Commit pending work (see :meth:`defer_commits`; a failure is logged and the game
        is refunded at the next start), close the connection(s); the object cannot be
        used afterwards."""
        self._flush()
        with self._checkpoint_lock:
            if self._checkpointer is not None:
                self._checkpointer.close()
        self._db.close()

    def checkpoint(self) -> tuple[int, int]:
        """Sync the WAL to disk and copy it into the database file (``PRAGMA
        wal_checkpoint(PASSIVE)``: it waits for no reader or writer) on a connection of
        its own, so that it may run in a worker thread while the event loop goes on
        using the ledger. Returns ``(frames in the WAL, frames now in the database
        file)``. Every commit in the frames copied is durable afterwards (the WAL is
        fsync'd before it is copied); work still pending (:meth:`defer_commits`) is not
        committed yet, so not among them. Raises ``sqlite3.Error`` on an I/O error."""
        with self._checkpoint_lock:
            if self._checkpointer is None:
                self._checkpointer = sqlite3.connect(
                    self.path, isolation_level=None, check_same_thread=False,
                    timeout=_BUSY_TIMEOUT_MS / 1000)
                self._checkpointer.execute("PRAGMA synchronous = FULL")
            _, frames, copied = self._checkpointer.execute(
                "PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        return frames, copied

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self, durable: bool = True) -> Iterator[None]:
        """Group the calls made inside the ``with`` block into one SQLite transaction
        (:meth:`bbspoker.store.wallet.Wallet.transaction`): one ``BEGIN IMMEDIATE`` ... ``COMMIT``.

        Each method called inside is a nested block: if it raises, only its own work is
        undone and the block may go on. An exception escaping the block undoes
        everything. The statements of the block are queued and run at its end, or
        earlier when a call inside needs SQLite to hold them (see the module docstring),
        so an error of SQLite itself (a statement or the COMMIT failing: I/O error, disk
        full) comes from there and undoes all of it. ``durable``: commit with
        ``synchronous = FULL`` (True) or ``NORMAL`` (False); it applies to everything
        inside, nested blocks and methods included (see :meth:`_write`). With ``durable=False`` inside :meth:`defer_commits` the
        block joins the pending work and its statements and COMMIT wait for
        :meth:`commit_pending`. Like every write, raises ``sqlite3.OperationalError`` if
        another connection holds the write lock for longer than the busy timeout (10 s)."""
        with self._write(durable):
            yield

    @contextmanager
    def defer_commits(self) -> Iterator[None]:
        """Leave non-durable work uncommitted inside the block, for :meth:`commit_pending`
        (:meth:`bbspoker.store.wallet.Wallet.defer_commits`).

        The first such write begins a transaction (``BEGIN IMMEDIATE``, which takes
        SQLite's write lock, and ``PRAGMA data_version``) and does not commit it; later
        ones join it. Their checks use the balances and pots this connection holds, as
        authoritative as SQLite's while it holds the lock, so an ante, a bet, a payout
        and the end of a game run no SQL statement here: their statements are queued
        for :meth:`commit_pending`, which the table's service calls in the event-loop
        turn after each of its steps. Every other write (durable, or outside such a
        block), :meth:`totals`, :meth:`verify`, :meth:`backup` and :meth:`close` first
        commit the pending work; a read that asks SQLite (one not served by the caches)
        runs the queued statements first, so it sees them. If the pending work cannot be
        written, see :meth:`commit_pending`.
        """
        outer, self._deferring = self._deferring, True
        try:
            yield
        finally:
            self._deferring = outer

    def commit_pending(self) -> None:
        """Write and commit the work :meth:`defer_commits` left pending: its queued
        statements in order, then COMMIT. Returns at once if there is none.

        Raises :class:`~bbspoker.store.wallet.CommitFailed` (``games``: the games it wrote) if
        that, or the same forced earlier by another use of the ledger, failed since the
        last call (I/O error, disk full, a constraint or a queued statement that
        changed no row): the pending work was rolled back, the caches forgotten and the
        failure logged at ERROR. The caller calls those games off (:meth:`cancel_game`
        refunds what is recorded of them).
        """
        self._flush()
        if self._lost is not None:
            games, self._lost = self._lost, None
            raise CommitFailed(games)

    def _flush(self) -> None:
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
        self._db.execute("COMMIT")

    def _abort(self) -> None:
        """Give the open transaction up: roll it back with everything queued and forget the
        caches. If it held pending work (:meth:`defer_commits`), log that at ERROR and
        keep its games for :meth:`commit_pending` to report. Call from an ``except``."""
        self._queue.clear()
        self._forget()
        if self._db.in_transaction:
            self._db.execute("ROLLBACK")
        if self._pending:
            self._pending = False
            log.exception("the pending writes of game(s) %s could not be committed "
                          "and were undone", sorted(self._touched))
            self._lost = (self._lost or frozenset()) | self._touched

    @contextmanager
    def _write(self, durable: bool = True) -> Iterator[None]:
        """One all-or-nothing write. Inside, moves and game records are queued (see the
        module docstring), other statements go through :meth:`_sql`.

        Outside a transaction: ``BEGIN IMMEDIATE``, the cache check, the block, then the
        queued statements and ``COMMIT``, with ``PRAGMA synchronous`` set first to FULL
        (``durable``: the commit fsyncs the WAL, so it and every earlier commit survive
        a power loss) or NORMAL (no fsync: the commit survives a crash of the process;
        a power loss may drop it and the commits after it, never part of one). SQLite
        refuses to change ``synchronous`` inside a transaction, hence the switch here,
        only when the level changes. With ``durable=False`` inside
        :meth:`defer_commits` the statements and COMMIT are left to
        :meth:`commit_pending`. Any error rolls the transaction back and propagates.

        Inside a transaction (another write's, or joining the pending one): a nested
        block. If it raises, its queued statements are dropped (and what of it already
        ran in SQLite is rolled back to its SAVEPOINT, see :meth:`_sync`), the caches are
        forgotten if anything was undone, and the exception propagates; the outer
        transaction's durability applies. A write that may not join pending work
        commits it first (:meth:`_flush`).
        """
        db = self._db
        if self._pending and not self._levels and (durable or not self._deferring):
            self._flush()
        if self._levels or self._pending:
            level = _Level(len(self._queue))
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
        self._touched.clear()
        # The transaction's own level: its undo is the rollback, so it needs no SAVEPOINT.
        self._levels.append(_Level(0, savepoint=True))
        try:
            self._check_version()
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
        undone = level.savepoint or len(self._queue) > level.mark
        del self._queue[level.mark:]
        if level.savepoint and self._db.in_transaction:
            # One savepoint name serves every depth: ROLLBACK TO and RELEASE act on the
            # most recent savepoint of that name, always the innermost open one.
            self._db.execute("ROLLBACK TO inner")
            self._db.execute("RELEASE inner")
        if undone:
            self._forget()

    def _sql(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Cursor:
        """Run one statement now (a read, or a write whose result is needed) behind the
        queued ones (:meth:`_sync`), so that it sees them and follows them."""
        if self._queue or (self._levels and not self._levels[-1].savepoint):
            self._sync()
        return self._db.execute(sql, params)

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
        db = self._db
        if not db.in_transaction:
            raise sqlite3.OperationalError("the transaction was rolled back after an "
                                           "error in one of its statements")
        queue, done = self._queue, 0
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
            changed = self._db.execute(sql, params).rowcount
            if changed != 1:
                raise sqlite3.DatabaseError(f"a ledger write changed {changed} rows instead "
                                            f"of one: {sql}")

    def _forget(self, accounts: bool = True) -> None:
        """Drop the caches: after a rollback they may hold what was undone. ``accounts``
        False keeps the account ids (see :meth:`_check_version`)."""
        if accounts:
            self._ids.clear()
        self._cubes.clear()
        self._open.clear()
        self._next_game = None

    def _check_version(self) -> None:
        """Drop the cached balances, open games and next game id if another connection
        (the admin CLI, another process) committed since the last look: ``PRAGMA
        data_version`` changes then, and only then (not for this connection's own
        commits, nor for the checkpoint thread's copies of the WAL into the database
        file). Account ids stay: accounts are never deleted or renamed. Call outside a
        transaction or at its start; while this connection holds a write transaction
        nobody else commits."""
        version = self._db.execute("PRAGMA data_version").fetchone()[0]
        if version != self._version:
            self._version = version
            self._forget(accounts=False)

    @contextmanager
    def _snapshot(self) -> Iterator[sqlite3.Connection]:
        """A read transaction: several SELECTs see one consistent state. Commits pending
        work first (SQLite cannot begin a transaction inside one)."""
        self._flush()
        self._db.execute("BEGIN")
        try:
            yield self._db
        finally:
            self._db.execute("COMMIT")

    def _migrate(self) -> None:
        with self._write():
            self._sql("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            row = self._sql("SELECT version FROM schema_version").fetchone()
            version = 0 if row is None else row[0]
            if version > SCHEMA_VERSION:
                raise LedgerError(f"database {self.path} has schema version {version}, newer "
                                  f"than this bbspoker ({SCHEMA_VERSION}); upgrade bbspoker")
            for statements in _MIGRATIONS[version:]:
                for statement in statements:
                    self._sql(statement)
            if row is None:
                self._sql("INSERT INTO schema_version VALUES (?)", (SCHEMA_VERSION,))
            else:
                self._sql("UPDATE schema_version SET version = ?", (SCHEMA_VERSION,))

    def schema_version(self) -> int:
        """The schema version of the open database (equals ``SCHEMA_VERSION`` after opening)."""
        return self._sql("SELECT version FROM schema_version").fetchone()[0]

    def _account_id(self, handle: str) -> int:
        """The row id of ``handle``'s account; raises UnknownAccount. Accounts are never
        deleted or renamed, so ids are remembered (forgotten on any rollback, which may
        undo an account made in it)."""
        key = handle_key(handle)
        account_id = self._ids.get(key)
        if account_id is None:
            row = self._sql("SELECT id FROM accounts WHERE handle_key = ?", (key,)).fetchone()
            if row is None:
                raise UnknownAccount(handle)
            account_id = self._ids[key] = row[0]
        return account_id

    def _balance(self, account_id: int) -> int:
        """The CUBES of an account as this transaction holds them: cached, else read (and
        cached); call inside :meth:`_write` (the write lock makes the cache exact)."""
        cubes = self._cubes.get(account_id)
        if cubes is None:
            cubes = self._cubes[account_id] = self._sql(
                "SELECT cubes FROM accounts WHERE id = ?", (account_id,)).fetchone()[0]
        return cubes

    def _move(self, account_id: int, amount: int, reason: str, game_id: int | None,
              note: str | None = None, actor: str | None = None) -> int:
        """Change one balance by ``amount`` CUBES and journal it; call inside :meth:`_write`
        (for a game row, after :meth:`_require_open`). Returns the new balance.

        A debit is checked against :meth:`_balance`: below zero raises InsufficientCubes
        and changes nothing. Then the balance and the game's pot are updated in the
        caches, and two statements queued with the values of now (journal time, balance
        after it): the balance ``UPDATE``, conditional on the balance it was checked
        against, and the journal ``INSERT``.
        """
        cubes = self._balance(account_id)
        new = cubes + amount
        if new < 0:
            # Straight to SQLite, not behind the queue (:meth:`_sql`): an account's row is
            # never queued and its handle never changes, and a refused ante must not make
            # the step's queued moves run before the screens.
            handle = self._db.execute("SELECT handle FROM accounts WHERE id = ?",
                                      (account_id,)).fetchone()[0]
            raise InsufficientCubes(f"{handle} has {cubes} CUBES, needs {-amount}")
        self._queue += (
            ("UPDATE accounts SET cubes = ? WHERE id = ? AND cubes = ?",
             (new, account_id, cubes)),
            ("INSERT INTO journal (account_id, amount, reason, game_id, at, balance, note, "
             "actor) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
             (account_id, amount, reason, game_id, self._clock(), new, note, actor)))
        self._cubes[account_id] = new
        if game_id is not None:
            self._open[game_id] -= amount
            self._touched.add(game_id)
        return new

    def _require_open(self, game_id: int) -> int:
        """The pot (CUBES) of open game ``game_id``; raises ValueError unless it is open.
        Call inside :meth:`_write`. Games this connection opened or found open are
        cached with their pots (every move of the game updates it) until closed (or a
        rollback, or another connection's commit: :meth:`_check_version`); the pot of
        any other game is minus the sum of its journal rows."""
        pot = self._open.get(game_id)
        if pot is not None:
            return pot
        row = self._sql("SELECT ended_at, -(SELECT COALESCE(SUM(amount), 0) FROM journal "
                        "WHERE game_id = ?) FROM games WHERE id = ?",
                        (game_id, game_id)).fetchone()
        if row is None:
            raise ValueError(f"no game {game_id}")
        if row[0] is not None:
            raise ValueError(f"game {game_id} is already closed")
        pot = self._open[game_id] = row[1]
        return pot

    def _take_pot(self, game_id: int, account_id: int, amount: int, reason: str) -> int:
        pot = self._require_open(game_id)
        if amount != pot:
            raise ValueError(f"pot of game {game_id} is {pot}, not {amount}")
        return self._move(account_id, amount, reason, game_id)

    # ------------------------------------------------------------ Wallet API

    def balance(self, handle: str) -> int:
        """Current CUBES of ``handle`` (SYSTEM included), as :meth:`balances_of` reads
        them; raises UnknownAccount."""
        cubes = self.balances_of((handle,))
        if not cubes:
            raise UnknownAccount(handle)
        return cubes[handle]

    def balances_of(self, handles: Sequence[str]) -> dict[str, int]:
        """Current CUBES of several handles: ``{handle as given: CUBES}``; handles without
        an account are left out.

        Balances this connection has read or written (every movement applies the new
        one) are cached, so the table's snapshot after a bet costs no SQL; if one is not
        cached, all are read in one query (after the queued statements, see
        :meth:`_sql`). The cache is trusted only while no other connection has
        committed (``PRAGMA data_version``, looked at here outside a transaction and at
        the start of each write transaction), so an admin's grant from the CLI shows at
        the next read, and it is dropped on any rollback."""
        if not self._db.in_transaction:
            self._check_version()
        keys = {handle: handle_key(handle) for handle in handles}
        found: dict[str, int] = {}
        for handle, key in keys.items():
            cubes = self._cubes.get(self._ids.get(key))  # type: ignore[arg-type]
            if cubes is None:
                break
            found[handle] = cubes
        else:
            return found
        # One is not cached: read them all, so that nothing taken from the cache before the
        # read can be stale (the read runs the queue, whose failure forgets the cache).
        wanted = set(keys.values())
        rows = {key: (account_id, cubes) for account_id, key, cubes in self._sql(
            f"SELECT id, handle_key, cubes FROM accounts WHERE handle_key IN "
            f"({','.join('?' * len(wanted))})", tuple(wanted))}
        found = {}
        for handle, key in keys.items():
            if key in rows:
                account_id, found[handle] = rows[key]
                self._ids[key] = account_id
                self._cubes[account_id] = found[handle]
        return found

    def open_game(self, handles: Sequence[str], deck_hash: str, table: str = "poker") -> int:
        """Record a new game (players in seat order, SHA-256 hex of the deck order), started
        now by the ledger's clock (Unix seconds); returns its id, never reused once
        committed (a start whose commit failed leaves its id to the next). Until
        :meth:`close_game` it counts as unfinished and is refunded by
        :meth:`recover_unfinished_games`. Commits with ``synchronous = NORMAL`` (see the
        module docstring: durability), inside :meth:`defer_commits` at
        :meth:`commit_pending`. The id is the one SQLite's AUTOINCREMENT would give
        (read once, then counted on while the caches are valid, see
        :meth:`_check_version`), so the game's ``INSERT`` is queued like a move."""
        with self._write(durable=False):
            game_id = self._next_game
            if game_id is None:
                game_id = self._sql(
                    "SELECT MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'games'),"
                    " 0), COALESCE((SELECT MAX(id) FROM games), 0)) + 1").fetchone()[0]
            self._queue.append((
                "INSERT INTO games (id, players, deck_hash, started_at) VALUES (?, ?, ?, ?)",
                (game_id, json.dumps(list(handles)), deck_hash, self._clock())))
            self._next_game = game_id + 1
            self._open[game_id] = 0
            self._touched.add(game_id)
            return game_id

    def pay_into_pot(self, game_id: int, handle: str, amount: int, reason: str) -> int:
        """Move ``amount`` (> 0) CUBES from ``handle`` into the pot of open game
        ``game_id`` (chapter 2: bets leave the player's cash the moment they are made);
        ``reason`` is ``"ante"`` or ``"bet"``. Returns the new balance. Raises
        InsufficientCubes, UnknownAccount, or ValueError (bad amount, game not open);
        nothing is changed then. Commits like :meth:`open_game`. The open-game check, the
        account id and the balance come from the caches (see :meth:`_move`), so inside
        :meth:`defer_commits` a bet runs no SQL statement until :meth:`commit_pending`."""
        if amount <= 0:
            raise ValueError(f"amount must be positive, got {amount}")
        with self._write(durable=False):
            self._require_open(game_id)
            return self._move(self._account_id(handle), -amount, reason, game_id)

    def pay_out_pot(self, game_id: int, handle: str, amount: int) -> int:
        """Pay the whole pot (``amount`` CUBES, must equal the pot, else ValueError) of
        open game ``game_id`` to the winner; journal reason ``win``. Returns the new balance.
        Checked against the cached pot and queued like a bet (:meth:`_move`)."""
        with self._write():
            return self._take_pot(game_id, self._account_id(handle), amount, "win")

    def pot_to_system(self, game_id: int, amount: int) -> None:
        """Move the whole pot (``amount`` CUBES, must equal the pot) of a game nobody won
        to the SYSTEM account (chapter 2, end of game); journal reason ``pot-to-system``."""
        with self._write():
            self._take_pot(game_id, self._system_id, amount, "pot-to-system")

    def close_game(self, game_id: int, winner: str | None, history: Mapping[str, Any]) -> None:
        """Mark the game finished now (ledger clock) (``end_reason`` ``"finished"``) and
        store ``history`` as JSON. Raises ValueError if the game is not open or its pot
        still holds CUBES (they would vanish), TypeError if ``history`` is not JSON-able;
        nothing is changed then. Checked against the cached pot; the ``UPDATE`` is
        queued like a move."""
        with self._write():
            pot = self._require_open(game_id)
            if pot:
                raise ValueError(f"pot of game {game_id} still holds {pot} CUBES")
            self._queue.append((
                "UPDATE games SET ended_at = ?, winner = ?, end_reason = 'finished', "
                "history = ? WHERE id = ? AND ended_at IS NULL",
                (self._clock(), winner, json.dumps(dict(history)), game_id)))
            del self._open[game_id]

    # ------------------------------------------------------------ accounts

    def find_account(self, handle: str) -> Account | None:
        """The account with that handle (any case), or ``None``."""
        row = self._sql(f"SELECT {_ACCOUNT_COLUMNS} FROM accounts WHERE handle_key = ?",
                        (handle_key(handle),)).fetchone()
        return None if row is None else _account(row)

    def create_account(self, handle: str, password_hash: str, cubes: int | None = None, *,
                       actor: str = SIGNUP_ACTOR) -> Account:
        """Create an account with ``cubes`` (default: ``starting_cubes``) starting CUBES.

        The starting CUBES are journalled as reason ``signup`` by ``actor``
        (``system:signup`` at the login prompt, the sysop's OS user from the CLI) and
        count as a grant. Raises ValueError (bad handle, see :func:`validate_handle`,
        or negative ``cubes``) or :class:`HandleTaken`.
        """
        handle = validate_handle(handle)
        cubes = self.starting_cubes if cubes is None else cubes
        if cubes < 0:
            raise ValueError(f"starting CUBES must be >= 0, got {cubes}")
        now = self._clock()
        with self._write():
            try:
                account_id = self._sql(
                    "INSERT INTO accounts (handle, handle_key, password_hash, cubes, created) "
                    "VALUES (?, ?, ?, 0, ?)",
                    (handle, handle_key(handle), password_hash, now)).lastrowid
            except sqlite3.IntegrityError:
                raise HandleTaken(f"the handle {handle} is taken") from None
            self._cubes[account_id] = 0
            self._move(account_id, cubes, "signup", None, "account created", actor)
        return Account(handle, cubes, now, None, False, None)

    def password_hash(self, handle: str) -> str | None:
        """The stored password hash of ``handle``, or ``None`` if there is no such account."""
        row = self._sql("SELECT password_hash FROM accounts WHERE handle_key = ?",
                        (handle_key(handle),)).fetchone()
        return None if row is None else row[0]

    def _update_account(self, handle: str, assignments: str, params: tuple) -> None:
        with self._write():
            if self._sql(f"UPDATE accounts SET {assignments} WHERE handle_key = ?",
                         (*params, handle_key(handle))).rowcount == 0:
                raise UnknownAccount(handle)

    def set_password_hash(self, handle: str, password_hash: str) -> None:
        """Replace the password hash of ``handle``; raises UnknownAccount."""
        self._update_account(handle, "password_hash = ?", (password_hash,))

    def touch(self, handle: str) -> None:
        """Set ``last_seen`` of ``handle`` to now; raises UnknownAccount."""
        self._update_account(handle, "last_seen = ?", (self._clock(),))

    def ban(self, handle: str, reason: str) -> None:
        """Bar ``handle`` from logging in, recording ``reason`` (non-empty, else ValueError);
        raises UnknownAccount. CUBES are untouched."""
        if not reason.strip():
            raise ValueError("a ban needs a reason")
        self._update_account(handle, "banned = 1, ban_reason = ?", (reason,))

    def unban(self, handle: str) -> None:
        """Lift a ban; raises UnknownAccount."""
        self._update_account(handle, "banned = 0, ban_reason = NULL", ())

    def list_accounts(self) -> list[Account]:
        """All user accounts (not SYSTEM), ordered by handle without regard to case."""
        rows = self._sql(f"SELECT {_ACCOUNT_COLUMNS} FROM accounts WHERE id != ? "
                         "ORDER BY handle_key", (self._system_id,)).fetchall()
        return [_account(r) for r in rows]

    # ------------------------------------------------------------ admin money

    def _adjust(self, handle: str, amount_of: Callable[[int], int], kind: str,
                reason: str, actor: str) -> int:
        if not reason.strip():
            raise ValueError("an adjustment needs a reason")
        with self._write():
            account_id = self._account_id(handle)
            return self._move(account_id, amount_of(self._balance(account_id)), kind, None,
                              reason, actor)

    def grant(self, handle: str, n: int, reason: str, actor: str) -> int:
        """Give ``n`` (> 0) CUBES to ``handle``; journal reason ``grant`` with the admin's
        ``reason`` text and OS user ``actor``. Returns the new balance. Raises ValueError
        (n <= 0, empty reason) or UnknownAccount."""
        if n <= 0:
            raise ValueError(f"the number of CUBES must be positive, got {n}")
        return self._adjust(handle, lambda _: n, "grant", reason, actor)

    def take(self, handle: str, n: int, reason: str, actor: str) -> int:
        """Remove ``n`` (> 0) CUBES from ``handle`` (never below zero: InsufficientCubes,
        nothing changed); journal reason ``take``. Returns the new balance."""
        if n <= 0:
            raise ValueError(f"the number of CUBES must be positive, got {n}")
        return self._adjust(handle, lambda _: -n, "take", reason, actor)

    def set_cubes(self, handle: str, n: int, reason: str, actor: str) -> int:
        """Set the balance of ``handle`` to ``n`` (>= 0) CUBES; journalled as reason ``set``
        with the signed difference (counts as a grant or a take). Returns ``n``."""
        if n < 0:
            raise ValueError(f"CUBES cannot be negative, got {n}")
        return self._adjust(handle, lambda current: n - current, "set", reason, actor)

    def history(self, handle: str, limit: int = 20) -> list[JournalRow]:
        """The last ``limit`` journal rows of ``handle``, newest first; raises UnknownAccount."""
        account_id = self._account_id(handle)
        rows = self._sql(f"{_JOURNAL_SELECT} WHERE j.account_id = ? "
                         "ORDER BY j.id DESC LIMIT ?", (account_id, limit)).fetchall()
        return [JournalRow(*r) for r in rows]

    def totals(self) -> Totals:
        """Grants, takes and where all CUBES are now (one consistent snapshot)."""
        with self._snapshot():
            return self._totals()

    def _totals(self) -> Totals:
        db = self._db
        grants, takes = db.execute(
            "SELECT COALESCE(SUM(MAX(amount, 0)), 0), COALESCE(SUM(MAX(-amount, 0)), 0) "
            "FROM journal WHERE game_id IS NULL").fetchone()
        accounts, system = db.execute(
            "SELECT COALESCE(SUM(cubes) FILTER (WHERE id != ?), 0), "
            "COALESCE(SUM(cubes) FILTER (WHERE id = ?), 0) FROM accounts",
            (self._system_id, self._system_id)).fetchone()
        open_pots = -db.execute(
            "SELECT COALESCE(SUM(j.amount), 0) FROM journal j JOIN games g "
            "ON g.id = j.game_id WHERE g.ended_at IS NULL").fetchone()[0]
        return Totals(grants, takes, accounts, system, open_pots)

    # ------------------------------------------------------------ live changes

    def latest_journal_id(self) -> int:
        """Id of the newest journal row (0 when empty); ids only grow."""
        return self._sql("SELECT COALESCE(MAX(id), 0) FROM journal").fetchone()[0]

    def journal_since(self, after_id: int) -> list[JournalRow]:
        """Journal rows with id > ``after_id``, oldest first. The server polls this every
        second to show admin changes (and any other movement) on status lines."""
        rows = self._sql(f"{_JOURNAL_SELECT} WHERE j.id > ? ORDER BY j.id",
                         (after_id,)).fetchall()
        return [JournalRow(*r) for r in rows]

    # ------------------------------------------------------------ crash recovery

    def cancel_game(self, game_id: int, reason: str, ended_at: float | None = None) -> dict[str, int]:
        """Close an open game without a winner and give back every ante and bet to the
        player who paid it (journal reason ``refund``, ``note`` = ``reason``), leaving a
        notice for each refunded player. If the pot was already paid out (the game ended
        but was not closed) nothing is refunded. Returns ``{handle: CUBES refunded}``.
        Raises ValueError if the game is not open."""
        if ended_at is None:
            ended_at = self._clock()
        refunds: dict[str, int] = {}
        with self._write():
            self._require_open(game_id)
            paid_out = self._sql("SELECT COALESCE(SUM(amount), 0) FROM journal "
                                 "WHERE game_id = ? AND amount > 0", (game_id,)).fetchone()[0]
            payers = [] if paid_out else self._sql(
                "SELECT j.account_id, a.handle, -SUM(j.amount) FROM journal j "
                "JOIN accounts a ON a.id = j.account_id WHERE j.game_id = ? AND j.amount < 0 "
                "GROUP BY j.account_id ORDER BY MIN(j.id)", (game_id,)).fetchall()
            for account_id, handle, paid in payers:
                self._move(account_id, paid, "refund", game_id, reason)
                self._queue.append((
                    "INSERT INTO notices (account_id, at, text) VALUES (?, ?, ?)",
                    (account_id, ended_at, f"Game {game_id} was cancelled ({reason}): your "
                     f"{paid} CUBES of ante and bets were refunded.")))
                refunds[handle] = paid
            self._queue.append((
                "UPDATE games SET ended_at = ?, end_reason = ?, history = ? "
                "WHERE id = ? AND ended_at IS NULL",
                (ended_at, f"cancelled: {reason}",
                 json.dumps({"cancelled": reason, "refunds": refunds}), game_id)))
            del self._open[game_id]
        return refunds

    def recover_unfinished_games(self, now: float) -> list[int]:
        """Cancel and refund (:meth:`cancel_game`, reason :data:`CRASH_REASON`) every game
        that has no end record, e.g. after kill -9 or a power loss. Call once at server
        start before the table opens. Returns the ids of the games cancelled."""
        ids = [r[0] for r in self._sql(
            "SELECT id FROM games WHERE ended_at IS NULL ORDER BY id").fetchall()]
        for game_id in ids:
            self.cancel_game(game_id, CRASH_REASON, now)
        return ids

    def notices(self, handle: str) -> list[str]:
        """Messages waiting for ``handle`` (oldest first), shown at the next login;
        raises UnknownAccount."""
        account_id = self._account_id(handle)
        return [r[0] for r in self._sql(
            "SELECT text FROM notices WHERE account_id = ? ORDER BY id", (account_id,))]

    def clear_notices(self, handle: str) -> None:
        """Delete the notices of ``handle`` once shown; raises UnknownAccount."""
        with self._write():
            self._sql("DELETE FROM notices WHERE account_id = ?", (self._account_id(handle),))

    # ------------------------------------------------------------ games

    def list_games(self, limit: int = 20) -> list[GameRecord]:
        """The last ``limit`` games, newest first."""
        rows = self._sql(f"{_GAME_SELECT} ORDER BY g.id DESC LIMIT ?", (limit,)).fetchall()
        return [_game(r) for r in rows]

    def game(self, game_id: int) -> GameRecord | None:
        """One game with its hand history, or ``None`` if there is no such game."""
        row = self._sql(f"{_GAME_SELECT} WHERE g.id = ?", (game_id,)).fetchone()
        return None if row is None else _game(row)

    # ------------------------------------------------------------ checks, backup

    def verify(self) -> list[str]:
        """Check the books; returns one line per discrepancy (empty list = all correct).

        Checks: every balance equals the sum of its journal rows and every row's
        ``balance`` equals the running sum; every closed game's rows sum to zero (the
        pot was emptied) and no open pot is negative; all CUBES (accounts, SYSTEM,
        open pots) equal grants minus takes.
        """
        problems: list[str] = []
        with self._snapshot() as db:
            for handle, cubes, summed in db.execute(
                    "SELECT a.handle, a.cubes, COALESCE(SUM(j.amount), 0) FROM accounts a "
                    "LEFT JOIN journal j ON j.account_id = a.id GROUP BY a.id "
                    "HAVING a.cubes != COALESCE(SUM(j.amount), 0) ORDER BY a.handle_key"):
                problems.append(f"account {handle}: balance is {cubes} CUBES but its "
                                f"journal sums to {summed}")
            for row_id, handle, balance, running in db.execute(
                    "SELECT id, handle, balance, running FROM (SELECT j.id, a.handle, "
                    "j.balance, SUM(j.amount) OVER (PARTITION BY j.account_id ORDER BY j.id) "
                    "AS running FROM journal j JOIN accounts a ON a.id = j.account_id) "
                    "WHERE balance != running ORDER BY id"):
                problems.append(f"journal row {row_id} ({handle}): records balance {balance} "
                                f"but the rows up to it sum to {running}")
            for game_id, ended, pot in db.execute(
                    "SELECT g.id, g.ended_at, -COALESCE(SUM(j.amount), 0) AS pot FROM games g "
                    "LEFT JOIN journal j ON j.game_id = g.id GROUP BY g.id "
                    "HAVING (g.ended_at IS NOT NULL AND pot != 0) OR pot < 0 ORDER BY g.id"):
                state = "closed" if ended is not None else "open"
                problems.append(f"game {game_id} ({state}): its pot holds {pot} CUBES")
            t = self._totals()
        held = t.accounts + t.system + t.open_pots
        if held != t.grants - t.takes:
            problems.append(
                f"total CUBES {held} (accounts {t.accounts} + system {t.system} + open pots "
                f"{t.open_pots}) != grants {t.grants} - takes {t.takes} = {t.grants - t.takes}")
        return problems

    def backup(self, dest_path: str | os.PathLike[str]) -> None:
        """Copy the whole database to ``dest_path`` with SQLite's online backup API (safe
        while the server writes; pending work is committed first). Raises
        FileExistsError rather than overwrite a file."""
        dest_path = os.fspath(dest_path)
        if os.path.exists(dest_path):
            raise FileExistsError(f"{dest_path} already exists; not overwriting it")
        self._flush()
        dest = sqlite3.connect(dest_path)
        try:
            self._db.backup(dest)
        finally:
            dest.close()
