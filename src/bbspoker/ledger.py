"""The CUBES ledger: accounts, an append-only journal, games and notices in SQLite.

:class:`Ledger` is the real :class:`bbspoker.wallet.Wallet`. CUBES are the
users' savings, so none may appear or vanish without a record:

* every movement of CUBES is one ``journal`` row (account, signed amount,
  reason, game id, time, balance after it, and for admin rows the reason text
  and the operating-system user), written in the same transaction as the
  balance it changes;
* debits are conditional: a balance never goes below zero
  (:class:`~bbspoker.wallet.InsufficientCubes`, nothing changed);
* the pot of a game is not stored anywhere else: it is minus the sum of that
  game's journal rows (antes and bets are negative, the payout positive), so
  a finished game's rows sum to zero and ``ledger verify`` can prove it;
* money enters and leaves the whole system only through rows with no game:
  grants, takes, ``set`` adjustments and the starting CUBES of a new account
  (reason ``signup``, actor ``system:signup`` for accounts made at the login
  prompt, the sysop's user for ``bbspoker users add``). Hence the invariant
  checked by :meth:`Ledger.verify`: CUBES of all accounts (the
  :data:`~bbspoker.wallet.SYSTEM` account included) plus open pots equal
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

The table's service defers those NORMAL commits by one event-loop turn
(:meth:`Ledger.defer_commits`, :meth:`Ledger.commit_pending`): a step's
writes (a start with its antes, a bet, the end of a game) are checked and made
at once, the update goes to every screen, and the COMMIT follows in the next
loop turn. Meanwhile the transaction stays open on the server's connection
(which holds SQLite's write lock: the admin CLI waits that long); any other
write, snapshot, backup or close commits it first. So a crash of the process
(kill -9) now loses at most the last step's writes, shown to the players for
less than a loop turn; the game, left without them, is refunded at the next
start as after a power loss. A COMMIT that fails (I/O error, disk full) rolls
the step back; the table then calls the game off and refunds what the ledger
holds of it.

The connection caches account ids, balances and which games are open, so a
bet's open-game check and the table's balance read cost no SELECT. The cache
is trusted only while no other connection has committed (``PRAGMA
data_version``) and is dropped on any rollback.

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

from .wallet import SYSTEM, CommitFailed, InsufficientCubes, UnknownAccount

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
    reserved name of the :data:`~bbspoker.wallet.SYSTEM` account. Raises
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


class Ledger:
    """The SQLite CUBES store; implements :class:`bbspoker.wallet.Wallet` plus accounts,
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
            # Caches, see _account_id, balances_of, _require_open and _check_version.
            self._ids: dict[str, int] = {}     # handle key to account id
            self._cubes: dict[int, int] = {}   # account id to CUBES
            self._open: set[int] = set()       # ids of games known to be open
            self._version: int | None = None   # PRAGMA data_version when last checked
            # Deferred commits, see defer_commits and _write.
            self._depth = 0                    # _write blocks running
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
        if self._pending:
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
        (:meth:`bbspoker.wallet.Wallet.transaction`): one ``BEGIN IMMEDIATE`` ... ``COMMIT``.

        Each method called inside runs in its own SAVEPOINT: if it raises, only its own
        partial work is rolled back and the block may go on. An exception escaping the
        block rolls back everything. Nested blocks are SAVEPOINTs too. ``durable``:
        commit with ``synchronous = FULL`` (True) or ``NORMAL`` (False); it applies to
        everything inside, nested blocks and methods included (see :meth:`_write`).
        With ``durable=False`` inside :meth:`defer_commits` the block joins the pending
        work and its COMMIT waits for :meth:`commit_pending`.
        Like every write, raises ``sqlite3.OperationalError`` if another connection
        holds the write lock for longer than the busy timeout (10 s)."""
        with self._write(durable):
            yield

    @contextmanager
    def defer_commits(self) -> Iterator[None]:
        """Leave non-durable work uncommitted inside the block, for :meth:`commit_pending`
        (:meth:`bbspoker.wallet.Wallet.defer_commits`).

        The first such write begins a transaction (``BEGIN IMMEDIATE``) and does not
        commit it; later ones join it (each in its own SAVEPOINT, rolled back alone if it
        raises). So the connection holds SQLite's write lock until the commit: the
        table's service commits in the event-loop turn after each of its steps. Every
        other write (durable, or outside such a block), :meth:`totals`, :meth:`verify`,
        :meth:`backup` and :meth:`close` first commit the pending work; plain reads on
        this connection see it. If that commit fails, see :meth:`commit_pending`.
        """
        outer, self._deferring = self._deferring, True
        try:
            yield
        finally:
            self._deferring = outer

    def commit_pending(self) -> None:
        """Commit the work :meth:`defer_commits` left pending; returns at once if none.

        Raises :class:`~bbspoker.wallet.CommitFailed` (``games``: the games it wrote) if
        that commit, or one forced earlier by another use of the ledger, failed since
        the last call (I/O error, disk full, or SQLite had already rolled the
        transaction back after an error in one of its statements): the pending work was
        rolled back, the caches forgotten and the failure logged at ERROR. The caller
        calls those games off (:meth:`cancel_game` refunds what is recorded of them).
        """
        if self._pending:
            self._flush()
        if self._lost is not None:
            games, self._lost = self._lost, None
            raise CommitFailed(games)

    def _flush(self) -> None:
        """Commit the pending work. On failure roll it back, forget the caches, log at
        ERROR and keep its games for :meth:`commit_pending` to report."""
        db = self._db
        self._pending = False
        try:
            if not db.in_transaction:
                raise sqlite3.OperationalError("SQLite rolled the transaction back after an "
                                               "error in one of its statements")
            db.execute("COMMIT")
        except sqlite3.Error:
            log.exception("the pending writes of game(s) %s could not be committed "
                          "and were undone", sorted(self._touched))
            self._forget()
            if db.in_transaction:
                db.execute("ROLLBACK")
            self._lost = (self._lost or frozenset()) | self._touched

    @contextmanager
    def _write(self, durable: bool = True) -> Iterator[sqlite3.Connection]:
        """One all-or-nothing write.

        Outside a transaction: ``BEGIN IMMEDIATE`` ... ``COMMIT``, with ``PRAGMA
        synchronous`` set first to FULL (``durable``: the commit fsyncs the WAL, so it
        and every earlier commit survive a power loss) or NORMAL (no fsync: the commit
        survives a crash of the process; a power loss may drop it and the commits after
        it, never part of one). SQLite refuses to change ``synchronous`` inside a
        transaction, hence the switch here, only when the level changes. With
        ``durable=False`` inside :meth:`defer_commits` the COMMIT is left to
        :meth:`commit_pending`.

        Inside a transaction (another write's, or joining the pending one): a SAVEPOINT,
        rolled back alone if the block raises (the exception propagates); the outer
        transaction's durability applies. A write that may not join pending work
        commits it first (:meth:`_flush`). Any rollback forgets the caches.
        """
        db = self._db
        if (not self._depth and self._pending
                and (durable or not self._deferring or not db.in_transaction)):
            self._flush()
        self._depth += 1
        try:
            # The rollbacks below are skipped when SQLite has already rolled the whole
            # transaction back by itself (I/O error, disk full): the original error
            # propagates (and pending work so lost is reported by the next _flush).
            if db.in_transaction:
                # One savepoint name serves every depth: ROLLBACK TO and RELEASE act on
                # the most recent savepoint of that name, always the innermost open one.
                db.execute("SAVEPOINT inner")
                try:
                    yield db
                except BaseException:
                    self._forget()
                    if db.in_transaction:
                        db.execute("ROLLBACK TO inner")
                        db.execute("RELEASE inner")
                    raise
                db.execute("RELEASE inner")
                return
            if durable != self._durable:
                db.execute(f"PRAGMA synchronous = {'FULL' if durable else 'NORMAL'}")
                self._durable = durable
            db.execute("BEGIN IMMEDIATE")
            self._touched.clear()
            try:
                self._check_version()
                yield db
                if durable or not self._deferring:
                    db.execute("COMMIT")
                else:
                    self._pending = True
            except BaseException:
                self._forget()
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
        finally:
            self._depth -= 1

    def _forget(self) -> None:
        """Drop every cache: after a rollback they may hold what was undone."""
        self._ids.clear()
        self._cubes.clear()
        self._open.clear()

    def _check_version(self) -> None:
        """Drop the cached balances and open games if another connection (the admin CLI,
        another process) committed since the last look: ``PRAGMA data_version`` changes
        then, and only then (not for this connection's own commits, nor for the
        checkpoint thread's copies of the WAL into the database file). Account ids stay:
        accounts are never deleted or renamed. Call outside a transaction or at its
        start; while this connection holds a write transaction nobody else commits."""
        version = self._db.execute("PRAGMA data_version").fetchone()[0]
        if version != self._version:
            self._version = version
            self._cubes.clear()
            self._open.clear()

    @contextmanager
    def _snapshot(self) -> Iterator[sqlite3.Connection]:
        """A read transaction: several SELECTs see one consistent state. Commits pending
        work first (SQLite cannot begin a transaction inside one)."""
        if self._pending:
            self._flush()
        self._db.execute("BEGIN")
        try:
            yield self._db
        finally:
            self._db.execute("COMMIT")

    def _migrate(self) -> None:
        with self._write() as db:
            db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            row = db.execute("SELECT version FROM schema_version").fetchone()
            version = 0 if row is None else row[0]
            if version > SCHEMA_VERSION:
                raise LedgerError(f"database {self.path} has schema version {version}, newer "
                                  f"than this bbspoker ({SCHEMA_VERSION}); upgrade bbspoker")
            for statements in _MIGRATIONS[version:]:
                for statement in statements:
                    db.execute(statement)
            if row is None:
                db.execute("INSERT INTO schema_version VALUES (?)", (SCHEMA_VERSION,))
            else:
                db.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION,))

    def schema_version(self) -> int:
        """The schema version of the open database (equals ``SCHEMA_VERSION`` after opening)."""
        return self._db.execute("SELECT version FROM schema_version").fetchone()[0]

    def _account_id(self, handle: str) -> int:
        """The row id of ``handle``'s account; raises UnknownAccount. Accounts are never
        deleted or renamed, so ids are remembered (forgotten on any rollback, which may
        undo an account made in it)."""
        key = handle_key(handle)
        account_id = self._ids.get(key)
        if account_id is None:
            row = self._db.execute("SELECT id FROM accounts WHERE handle_key = ?", (key,)).fetchone()
            if row is None:
                raise UnknownAccount(handle)
            account_id = self._ids[key] = row[0]
        return account_id

    def _move(self, account_id: int, amount: int, reason: str, game_id: int | None,
              note: str | None = None, actor: str | None = None) -> int:
        """Change one balance by ``amount`` and journal it; call inside :meth:`_write`.

        Conditional debit: raises InsufficientCubes if the balance would go below zero.
        The new balance is cached (see :meth:`balances_of`).
        """
        row = self._db.execute(
            "UPDATE accounts SET cubes = cubes + ? WHERE id = ? AND cubes + ? >= 0 "
            "RETURNING cubes", (amount, account_id, amount)).fetchone()
        if row is None:
            handle, cubes = self._db.execute("SELECT handle, cubes FROM accounts WHERE id = ?",
                                             (account_id,)).fetchone()
            raise InsufficientCubes(f"{handle} has {cubes} CUBES, needs {-amount}")
        self._db.execute(
            "INSERT INTO journal (account_id, amount, reason, game_id, at, balance, note, actor)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (account_id, amount, reason, game_id, self._clock(), row[0], note, actor))
        self._cubes[account_id] = row[0]
        if game_id is not None:
            self._touched.add(game_id)
        return row[0]

    def _pot(self, game_id: int) -> int:
        return -self._db.execute("SELECT COALESCE(SUM(amount), 0) FROM journal "
                                 "WHERE game_id = ?", (game_id,)).fetchone()[0]

    def _require_open(self, game_id: int) -> None:
        """Raise ValueError unless ``game_id`` is open; call inside :meth:`_write`. Games
        this connection opened or found open are cached until closed (or a rollback, or
        another connection's commit: :meth:`_check_version`)."""
        if game_id in self._open:
            return
        row = self._db.execute("SELECT ended_at FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise ValueError(f"no game {game_id}")
        if row[0] is not None:
            raise ValueError(f"game {game_id} is already closed")
        self._open.add(game_id)

    def _take_pot(self, game_id: int, account_id: int, amount: int, reason: str) -> int:
        self._require_open(game_id)
        pot = self._pot(game_id)
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

        Balances this connection has read or written (every movement returns the new
        one) are cached, so the table's snapshot after a bet costs no SQL; the others
        are read in one query. The cache is trusted only while no other connection has
        committed (``PRAGMA data_version``, looked at here outside a transaction and at
        the start of each write transaction), so an admin's grant from the CLI shows at
        the next read, and it is dropped on any rollback."""
        if not self._db.in_transaction:
            self._check_version()
        found: dict[str, int] = {}
        missing: dict[str, str] = {}  # handle as given to its key
        for handle in handles:
            key = handle_key(handle)
            cubes = self._cubes.get(self._ids.get(key))  # type: ignore[arg-type]
            if cubes is None:
                missing[handle] = key
            else:
                found[handle] = cubes
        if missing:
            keys = set(missing.values())
            rows = {key: (account_id, cubes) for account_id, key, cubes in self._db.execute(
                f"SELECT id, handle_key, cubes FROM accounts WHERE handle_key IN "
                f"({','.join('?' * len(keys))})", tuple(keys))}
            for handle, key in missing.items():
                if key in rows:
                    account_id, found[handle] = rows[key]
                    self._ids[key] = account_id
                    self._cubes[account_id] = found[handle]
        return found

    def open_game(self, handles: Sequence[str], deck_hash: str) -> int:
        """Record a new game (players in seat order, SHA-256 hex of the deck order), started
        now by the ledger's clock (Unix seconds); returns its id, never reused. Until
        :meth:`close_game` it counts as unfinished and is refunded by
        :meth:`recover_unfinished_games`. Commits with ``synchronous = NORMAL`` (see the
        module docstring: durability), inside :meth:`defer_commits` at
        :meth:`commit_pending`."""
        with self._write(durable=False) as db:
            game_id = db.execute(
                "INSERT INTO games (players, deck_hash, started_at) VALUES (?, ?, ?)",
                (json.dumps(list(handles)), deck_hash, self._clock())).lastrowid
            self._open.add(game_id)
            self._touched.add(game_id)
            return game_id

    def pay_into_pot(self, game_id: int, handle: str, amount: int, reason: str) -> int:
        """Move ``amount`` (> 0) CUBES from ``handle`` into the pot of open game
        ``game_id`` (chapter 2: bets leave the player's cash the moment they are made);
        ``reason`` is ``"ante"`` or ``"bet"``. Returns the new balance. Raises
        InsufficientCubes, UnknownAccount, or ValueError (bad amount, game not open);
        nothing is changed then. Commits like :meth:`open_game`. The open-game check and
        the account id come from the caches, so a bet is the UPDATE ... RETURNING of the
        balance and the INSERT of its journal row."""
        if amount <= 0:
            raise ValueError(f"amount must be positive, got {amount}")
        with self._write(durable=False):
            self._require_open(game_id)
            return self._move(self._account_id(handle), -amount, reason, game_id)

    def pay_out_pot(self, game_id: int, handle: str, amount: int) -> int:
        """Pay the whole pot (``amount`` CUBES, must equal the pot, else ValueError) of
        open game ``game_id`` to the winner; journal reason ``win``. Returns the new balance."""
        with self._write():
            return self._take_pot(game_id, self._account_id(handle), amount, "win")

    def pot_to_system(self, game_id: int, amount: int) -> None:
        """Move the whole pot (``amount`` CUBES, must equal the pot) of a game nobody won
        to the SYSTEM account (chapter 2, end of game); journal reason ``pot-to-system``."""
        with self._write():
            self._take_pot(game_id, self._system_id, amount, "pot-to-system")

    def close_game(self, game_id: int, winner: str | None, history: Mapping[str, Any]) -> None:
        """Mark the game finished now (ledger clock) (``end_reason`` ``"finished"``) and store ``history``
        as JSON. Raises ValueError if the game is not open or its pot still holds CUBES
        (they would vanish), TypeError if ``history`` is not JSON-able."""
        with self._write() as db:
            self._require_open(game_id)
            pot = self._pot(game_id)
            if pot:
                raise ValueError(f"pot of game {game_id} still holds {pot} CUBES")
            db.execute("UPDATE games SET ended_at = ?, winner = ?, end_reason = 'finished', "
                       "history = ? WHERE id = ?",
                       (self._clock(), winner, json.dumps(dict(history)), game_id))
            self._open.discard(game_id)

    # ------------------------------------------------------------ accounts

    def find_account(self, handle: str) -> Account | None:
        """The account with that handle (any case), or ``None``."""
        row = self._db.execute(f"SELECT {_ACCOUNT_COLUMNS} FROM accounts WHERE handle_key = ?",
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
        with self._write() as db:
            try:
                account_id = db.execute(
                    "INSERT INTO accounts (handle, handle_key, password_hash, cubes, created) "
                    "VALUES (?, ?, ?, 0, ?)",
                    (handle, handle_key(handle), password_hash, now)).lastrowid
            except sqlite3.IntegrityError:
                raise HandleTaken(f"the handle {handle} is taken") from None
            self._move(account_id, cubes, "signup", None, "account created", actor)
        return Account(handle, cubes, now, None, False, None)

    def password_hash(self, handle: str) -> str | None:
        """The stored password hash of ``handle``, or ``None`` if there is no such account."""
        row = self._db.execute("SELECT password_hash FROM accounts WHERE handle_key = ?",
                               (handle_key(handle),)).fetchone()
        return None if row is None else row[0]

    def _update_account(self, handle: str, assignments: str, params: tuple) -> None:
        with self._write() as db:
            if db.execute(f"UPDATE accounts SET {assignments} WHERE handle_key = ?",
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
        rows = self._db.execute(f"SELECT {_ACCOUNT_COLUMNS} FROM accounts WHERE id != ? "
                                "ORDER BY handle_key", (self._system_id,)).fetchall()
        return [_account(r) for r in rows]

    # ------------------------------------------------------------ admin money

    def _adjust(self, handle: str, amount_of: Callable[[int], int], kind: str,
                reason: str, actor: str) -> int:
        if not reason.strip():
            raise ValueError("an adjustment needs a reason")
        with self._write():
            account_id = self._account_id(handle)
            current = self._db.execute("SELECT cubes FROM accounts WHERE id = ?",
                                       (account_id,)).fetchone()[0]
            return self._move(account_id, amount_of(current), kind, None, reason, actor)

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
        rows = self._db.execute(f"{_JOURNAL_SELECT} WHERE j.account_id = ? "
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
        return self._db.execute("SELECT COALESCE(MAX(id), 0) FROM journal").fetchone()[0]

    def journal_since(self, after_id: int) -> list[JournalRow]:
        """Journal rows with id > ``after_id``, oldest first. The server polls this every
        second to show admin changes (and any other movement) on status lines."""
        rows = self._db.execute(f"{_JOURNAL_SELECT} WHERE j.id > ? ORDER BY j.id",
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
        with self._write() as db:
            self._require_open(game_id)
            paid_out = db.execute("SELECT COALESCE(SUM(amount), 0) FROM journal "
                                  "WHERE game_id = ? AND amount > 0", (game_id,)).fetchone()[0]
            payers = [] if paid_out else db.execute(
                "SELECT j.account_id, a.handle, -SUM(j.amount) FROM journal j "
                "JOIN accounts a ON a.id = j.account_id WHERE j.game_id = ? AND j.amount < 0 "
                "GROUP BY j.account_id ORDER BY MIN(j.id)", (game_id,)).fetchall()
            for account_id, handle, paid in payers:
                self._move(account_id, paid, "refund", game_id, reason)
                db.execute("INSERT INTO notices (account_id, at, text) VALUES (?, ?, ?)",
                           (account_id, ended_at,
                            f"Game {game_id} was cancelled ({reason}): your {paid} CUBES "
                            f"of ante and bets were refunded."))
                refunds[handle] = paid
            db.execute("UPDATE games SET ended_at = ?, end_reason = ?, history = ? "
                       "WHERE id = ?",
                       (ended_at, f"cancelled: {reason}",
                        json.dumps({"cancelled": reason, "refunds": refunds}), game_id))
            self._open.discard(game_id)
        return refunds

    def recover_unfinished_games(self, now: float) -> list[int]:
        """Cancel and refund (:meth:`cancel_game`, reason :data:`CRASH_REASON`) every game
        that has no end record, e.g. after kill -9 or a power loss. Call once at server
        start before the table opens. Returns the ids of the games cancelled."""
        ids = [r[0] for r in self._db.execute(
            "SELECT id FROM games WHERE ended_at IS NULL ORDER BY id").fetchall()]
        for game_id in ids:
            self.cancel_game(game_id, CRASH_REASON, now)
        return ids

    def notices(self, handle: str) -> list[str]:
        """Messages waiting for ``handle`` (oldest first), shown at the next login;
        raises UnknownAccount."""
        account_id = self._account_id(handle)
        return [r[0] for r in self._db.execute(
            "SELECT text FROM notices WHERE account_id = ? ORDER BY id", (account_id,))]

    def clear_notices(self, handle: str) -> None:
        """Delete the notices of ``handle`` once shown; raises UnknownAccount."""
        with self._write() as db:
            db.execute("DELETE FROM notices WHERE account_id = ?", (self._account_id(handle),))

    # ------------------------------------------------------------ games

    def list_games(self, limit: int = 20) -> list[GameRecord]:
        """The last ``limit`` games, newest first."""
        rows = self._db.execute(f"{_GAME_SELECT} ORDER BY g.id DESC LIMIT ?",
                                (limit,)).fetchall()
        return [_game(r) for r in rows]

    def game(self, game_id: int) -> GameRecord | None:
        """One game with its hand history, or ``None`` if there is no such game."""
        row = self._db.execute(f"{_GAME_SELECT} WHERE g.id = ?", (game_id,)).fetchone()
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
        if self._pending:
            self._flush()
        dest = sqlite3.connect(dest_path)
        try:
            self._db.backup(dest)
        finally:
            dest.close()
