"""The CUBES ledger: accounts, an append-only journal, games and notices in SQL.

:class:`Ledger` composes the parts of this package, none of which holds all of it:
``schema`` (migrations), ``writer`` (the connection and its queued, deferred
transactions), ``books`` (the caches and the movements of the wallet), ``accounts``,
``admin`` (adjustments and reads of the journal and games), ``tournaments`` (tournaments
and their prize pools) and ``audit`` (verify, backup).

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
* a tournament's prize pool is, likewise, minus the sum of the journal rows with its
  ``tournament_id`` (buy-ins negative, refunds and prizes positive);
* money enters and leaves the whole system only through rows with no game or tournament:
  grants, takes, ``set`` adjustments and the starting CUBES of a new account
  (reason ``signup``, actor ``system:signup`` for accounts made at the login
  prompt, the sysop's user for ``bbspoker users add``). Hence the invariant
  checked by ``Ledger.verify``: CUBES of all accounts (the
  :data:`~bbspoker.store.wallet.SYSTEM` account included) plus open pots, stacks at
  tables and the pools of open tournaments equal grants minus takes.

The database is SQLite (a file: the default) or PostgreSQL (a ``postgresql://`` URL):
the parts above are the same for both and run over a writer
(:class:`bbspoker.store.sql.writer.Writer`), which is what differs, with each backend's
schema (``bbspoker.store.sqlite``, ``bbspoker.store.postgres``). Every write takes the
database's write lock (SQLite's ``BEGIN IMMEDIATE``; on PostgreSQL an advisory lock every
ledger takes), so the server and the admin CLI can use one database at the same time
without losing an update. Several calls can share one transaction
(:meth:`Ledger.transaction`). Opening a ledger runs the schema migrations (table
``schema_version``).

Durability: every commit is atomic and survives a crash of the process. The
stakes of a game still running (:meth:`Ledger.open_game`, antes and bets through
:meth:`Ledger.pay_into_pot`) commit without waiting for the disk (SQLite's ``synchronous
= NORMAL``, PostgreSQL's ``synchronous_commit = off``): a power loss may drop the last
such commits. That is safe: the WAL keeps a prefix of the commits, each balance change
goes with its journal row, and the game, left unfinished, is refunded by
:meth:`Ledger.recover_unfinished_games` at the next start. The table also ends its games
that way (one ``transaction(durable=False)`` for the pot and the end record): a power loss
can then roll back a game just finished, which is refunded like any unfinished game.
Everything else called on its own (cancelling a game, grants, takes, ``set``, new accounts,
notices, account fields, every tournament call: a registration, a saved tournament state)
commits durably (an fsync of the WAL, which also makes every earlier commit durable).

Writes are checked in Python and queued: a write transaction begins by taking the write
lock (no other connection can change a balance until it ends) and asking whether another
connection committed since (are the caches still valid?); each movement is then checked
against the balance, and each pot against the game's pot, that this connection holds for
the account and game, applied to those, and its statements (the balance ``UPDATE``, the
journal ``INSERT``, the game's ``INSERT``/``UPDATE``) are queued with the values of the
moment of the call (journal time, balance after it). They run in order just before the
COMMIT, or earlier when a read or a write that needs the database follows them. Each
queued statement must change exactly one row (a balance ``UPDATE`` is conditional on the
balance it was checked against), else, like any error of a statement or of the COMMIT,
the whole transaction is rolled back.

The table's service defers those non-durable commits by one event-loop turn
(:meth:`Ledger.defer_commits`, :meth:`Ledger.commit_pending`): a step's writes (a start
with its antes, a bet, the end of a game) are checked and applied at once with no SQL
statement but the lock taken by the step's first write, the update goes to every screen,
and the queued statements and the COMMIT follow in the next loop turn. Meanwhile the
transaction stays open on the server's connection (which holds the write lock: the admin
CLI waits that long); any other write, snapshot, backup or close commits it first, and a
read that asks the database runs its queued statements first. So a crash of the process
(kill -9) now loses at most the last step's writes, shown to the players for less than a
loop turn; the game, left without them, is refunded at the next start as after a power
loss. If the pending work cannot be written (a statement or the COMMIT fails: I/O error,
disk full, a constraint, a lost connection) it is rolled back; the table then calls the
game off and refunds what the ledger holds of it.

The connection caches account ids, balances, which games are open with their
pots, and the next game id. The cache is trusted only while no other
connection has committed (SQLite's ``PRAGMA data_version``, PostgreSQL's commit counter)
and is dropped on any rollback.

On SQLite the server opens its ledger with ``autocheckpoint=False`` and calls
:meth:`Ledger.checkpoint` from a worker thread every ``[ledger] sync_interval``
seconds: the WAL is synced and copied into the database file there, off the
event loop, instead of inside whichever commit passes SQLite's 1,000-page mark.
So the table's commits reach the disk within about that interval. PostgreSQL does that
in its own processes (:meth:`Ledger.checkpoint` does nothing there).

Every failure of the database reaches the caller as
:class:`~bbspoker.store.wallet.StoreError` (:class:`LedgerError` when the database cannot
be opened), whichever it is.
"""

from __future__ import annotations

import functools
import os
import time
from contextlib import AbstractContextManager
from typing import Any, Callable, Concatenate, ParamSpec, TypeVar

from bbspoker.store.sql.accounts import Accounts
from bbspoker.store.sql.admin import Admin
from bbspoker.store.sql.audit import Audit
from bbspoker.store.sql.books import Books
from bbspoker.store.sql.records import LedgerError
from bbspoker.store.sql.schema import migrate_skeletons, schema_version
from bbspoker.store.sql.tournaments import Tournaments
from bbspoker.store.sql.writer import Writer
from bbspoker.store.wallet import StoreError

__all__ = ["Ledger", "URL_SCHEMES", "is_url", "check_url"]

#: The URL schemes of a PostgreSQL ledger (``[ledger] url``).
URL_SCHEMES = ("postgresql", "postgres")


def is_url(where: str | os.PathLike[str]) -> bool:
    """Whether ``where`` names a database server (``scheme://...``) rather than a file."""
    return isinstance(where, str) and "://" in where


def check_url(url: str) -> str:
    """``url`` if it is a PostgreSQL URL (``postgresql://`` or ``postgres://``); raises
    :class:`LedgerError` naming the schemes otherwise."""
    scheme = url.partition("://")[0].lower()
    if "://" not in url or scheme not in URL_SCHEMES:
        raise LedgerError(f"a ledger URL must begin with postgresql:// (or postgres://), "
                          f"not {scheme + '://' if '://' in url else repr(url)}; leave it "
                          "empty for the SQLite file [ledger] path")
    return url


def _open(where: str | os.PathLike[str], forget: Callable[[bool], None],
          autocheckpoint: bool) -> tuple[Writer, Callable[[Any], None]]:
    """The writer for ``where`` and its backend's ``migrate``: PostgreSQL for a URL (psycopg
    is imported only then), else the SQLite file."""
    if is_url(where):
        from bbspoker.store.postgres.schema import migrate as migrate_postgres
        from bbspoker.store.postgres.writer import PostgresWriter
        return PostgresWriter(check_url(os.fspath(where)), forget=forget), migrate_postgres
    from bbspoker.store.sqlite.schema import migrate as migrate_sqlite
    from bbspoker.store.sqlite.writer import SqliteWriter
    return SqliteWriter(where, forget=forget, autocheckpoint=autocheckpoint), migrate_sqlite

_Part = TypeVar("_Part")
_P = ParamSpec("_P")
_R = TypeVar("_R")


def _via(part: str, method: Callable[Concatenate[_Part, _P], _R],
         ) -> Callable[Concatenate[Ledger, _P], _R]:
    """A method of :class:`Ledger` that calls ``method`` on its part ``part`` (same
    parameters after ``self``, result and docstring)."""
    @functools.wraps(method)
    def call(self: Ledger, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        return method(getattr(self, part), *args, **kwargs)
    return call


class Ledger:
    """The CUBES store; implements :class:`bbspoker.store.wallet.Wallet` plus accounts,
    admin adjustments, hand histories, crash recovery and verification.

    ``where``: the database: a SQLite file's path (created with its schema if missing), or
    a PostgreSQL URL ``postgresql://user:password@host/database`` (the database must
    exist; its tables are made at the first opening). Either is migrated if older.
    ``starting_cubes``: CUBES of an account created without an explicit amount.
    ``clock``: returns Unix seconds for journal times (tests inject one).
    ``autocheckpoint=False``: on SQLite, leave copying the WAL into the file to
    :meth:`checkpoint` (nothing on PostgreSQL). :func:`bbspoker.store.open_ledger` opens
    one from the configuration.

    One database connection per object (:attr:`writer`). It may be created in one thread
    and used from another, but calls must not overlap (one thread at a time). Raises
    :class:`LedgerError` if the database cannot be opened, its URL is not PostgreSQL's,
    or its schema is newer than this code. Handles are matched without regard to case. The
    methods are those of its parts:
    :class:`~bbspoker.store.sql.books.Books` (the wallet),
    :class:`~bbspoker.store.sql.accounts.Accounts`,
    :class:`~bbspoker.store.sql.admin.Admin`,
    :class:`~bbspoker.store.sql.tournaments.Tournaments` (a
    :class:`~bbspoker.store.tournaments.TournamentBook`) and
    :class:`~bbspoker.store.sql.audit.Audit`.
    """

    def __init__(self, where: str | os.PathLike[str], *, starting_cubes: int = 1000,
                 clock: Callable[[], float] = time.time, autocheckpoint: bool = True) -> None:
        if starting_cubes < 0:
            raise ValueError(f"starting_cubes must be >= 0, got {starting_cubes}")
        self.books = Books(clock)
        self.writer, migrate = _open(where, self.books.forget, autocheckpoint)
        #: The database: the SQLite file, or the PostgreSQL URL without its password.
        self.path = self.writer.path
        try:
            migrate(self.writer)
            migrate_skeletons(self.writer)
        except LedgerError:
            self.writer.close()
            raise
        except StoreError as exc:
            self.writer.close()
            raise LedgerError(f"cannot use database {self.path}: {exc}") from None
        self.books.start(self.writer)
        self.accounts = Accounts(self.books, starting_cubes)
        self.admin = Admin(self.books)
        self.audit = Audit(self.books)
        self.tournament_book = Tournaments(self.books)
        # The table's hot path (a bet, a snapshot) goes straight to the books.
        self.balances_of = self.books.balances_of
        self.pay_into_pot = self.books.pay_into_pot

    @property
    def starting_cubes(self) -> int:
        """CUBES of an account created without an explicit amount."""
        return self.accounts.starting_cubes

    @property
    def backend(self) -> str:
        """The database behind the ledger: ``"sqlite"`` or ``"postgresql"``."""
        return self.writer.backend

    @property
    def _db(self) -> Any:
        """The driver's connection (tests trace and break it)."""
        return self.writer.db

    @_db.setter
    def _db(self, db: Any) -> None:
        self.writer.db = db

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Commit pending work (see :meth:`defer_commits`; a failure is logged and the game
        is refunded at the next start), close the connection(s); the object cannot be
        used afterwards."""
        self.writer.close()

    def schema_version(self) -> int:
        """The schema version of the open database (equals ``SCHEMA_VERSION`` after opening)."""
        return schema_version(self.writer)

    def transaction(self, durable: bool = True) -> AbstractContextManager[None]:
        """Group the calls made inside the ``with`` block into one database transaction
        (:meth:`bbspoker.store.wallet.Wallet.transaction`) holding the write lock. Each
        method called inside is a nested block: if it raises, only its own work is undone
        and the block may go on. An exception escaping the block undoes everything. The
        statements are queued and run at its end, or earlier when a call inside needs the
        database to hold them, so an error of the database itself (I/O error, disk full,
        a lost connection) comes from there as :class:`StoreError` and undoes all of it.
        ``durable``: commit waiting for the disk (True) or not (False), for everything
        inside. With ``durable=False`` inside :meth:`defer_commits` the block joins the
        pending work. Raises :class:`StoreError` if another connection holds the write
        lock for longer than 10 s."""
        return self.writer.write(durable)

    def defer_commits(self) -> AbstractContextManager[None]:
        """Leave non-durable work uncommitted inside the block, for :meth:`commit_pending`
        (:meth:`bbspoker.store.wallet.Wallet.defer_commits`).

        The first such write begins a transaction (taking the write lock, and asking
        whether another connection committed) and does not commit it; later ones join
        it. Their checks use the balances and pots this connection holds, as
        authoritative as the database's while it holds the lock, so an ante, a bet, a
        payout and the end of a game run no SQL statement here: their statements are
        queued for :meth:`commit_pending`, which the table's service calls in the
        event-loop turn after each of its steps. Every other write (durable, or outside
        such a block), :meth:`totals`, :meth:`verify`, :meth:`backup` and :meth:`close`
        first commit the pending work; a read that asks the database (one not served by
        the caches) runs the queued statements first, so it sees them."""
        return self.writer.defer_commits()

    commit_pending = _via("writer", Writer.commit_pending)

    def checkpoint(self) -> tuple[int, int]:
        """Make the commits so far durable off the event loop (the server calls it from a
        worker thread every ``[ledger] sync_interval`` seconds): on SQLite, sync the WAL
        and copy it into the database file on a connection of its own
        (:meth:`bbspoker.store.sqlite.writer.SqliteWriter.checkpoint`); returns ``(frames
        in the WAL, frames now in the database file)``. On PostgreSQL nothing: the server
        writes and checkpoints its WAL in its own processes; returns ``(0, 0)``. Raises
        :class:`StoreError` on an I/O error."""
        return self.writer.checkpoint()

    # the wallet (balances_of and pay_into_pot are bound in __init__)
    balance = _via("books", Books.balance)
    open_game = _via("books", Books.open_game)
    publish_commitment = _via("books", Books.publish_commitment)
    pay_out_pot = _via("books", Books.pay_out_pot)
    pot_to_system = _via("books", Books.pot_to_system)
    pay_out_split = _via("books", Books.pay_out_split)
    close_game = _via("books", Books.close_game)
    cancel_game = _via("books", Books.cancel_game)
    recover_unfinished_games = _via("books", Books.recover_unfinished_games)
    stack = _via("books", Books.stack)
    stacks_of = _via("books", Books.stacks_of)
    buy_in = _via("books", Books.buy_in)
    cash_out = _via("books", Books.cash_out)
    stack_into_pot = _via("books", Books.stack_into_pot)
    pot_to_stacks = _via("books", Books.pot_to_stacks)

    # accounts
    find_account = _via("accounts", Accounts.find_account)
    create_account = _via("accounts", Accounts.create_account)
    bbs_account = _via("accounts", Accounts.bbs_account)
    ban_bbs = _via("accounts", Accounts.ban_bbs)
    unban_bbs = _via("accounts", Accounts.unban_bbs)
    bbs_ban = _via("accounts", Accounts.bbs_ban)
    bbs_bans = _via("accounts", Accounts.bbs_bans)
    bbs_callers = _via("accounts", Accounts.bbs_callers)
    recent_signups = _via("accounts", Accounts.recent_signups)
    check_new_handle = _via("accounts", Accounts.check_new_handle)
    password_hash = _via("accounts", Accounts.password_hash)
    set_password_hash = _via("accounts", Accounts.set_password_hash)
    touch = _via("accounts", Accounts.touch)
    ban = _via("accounts", Accounts.ban)
    unban = _via("accounts", Accounts.unban)
    list_accounts = _via("accounts", Accounts.list_accounts)
    approve = _via("accounts", Accounts.approve)
    kick = _via("accounts", Accounts.kick)
    take_kicks = _via("accounts", Accounts.take_kicks)
    banned_among = _via("accounts", Accounts.banned_among)
    admin_version = _via("accounts", Accounts.admin_version)
    allowance = _via("accounts", Accounts.allowance)
    notices = _via("accounts", Accounts.notices)
    clear_notices = _via("accounts", Accounts.clear_notices)
    client_seeds_of = _via("accounts", Accounts.client_seeds_of)
    set_client_seed = _via("accounts", Accounts.set_client_seed)
    language_of = _via("accounts", Accounts.language_of)
    set_language = _via("accounts", Accounts.set_language)
    set_look = _via("accounts", Accounts.set_look)
    block = _via("accounts", Accounts.block)
    unblock = _via("accounts", Accounts.unblock)
    blocks = _via("accounts", Accounts.blocks)
    add_user_key = _via("accounts", Accounts.add_user_key)
    user_keys = _via("accounts", Accounts.user_keys)
    remove_user_key = _via("accounts", Accounts.remove_user_key)

    # the sysop's adjustments and reads
    grant = _via("admin", Admin.grant)
    take = _via("admin", Admin.take)
    set_cubes = _via("admin", Admin.set_cubes)
    history = _via("admin", Admin.history)
    table_stacks = _via("admin", Admin.table_stacks)
    latest_journal_id = _via("admin", Admin.latest_journal_id)
    journal_since = _via("admin", Admin.journal_since)
    list_games = _via("admin", Admin.list_games)
    games_from = _via("admin", Admin.games_from)
    stats = _via("admin", Admin.stats)
    results = _via("admin", Admin.results)
    game = _via("admin", Admin.game)
    tournament_hands = _via("admin", Admin.tournament_hands)
    publication = _via("admin", Admin.publication)
    published_before = _via("admin", Admin.published_before)

    # tournaments and their prize pools (bbspoker.store.tournaments.TournamentBook)
    create_tournament = _via("tournament_book", Tournaments.create_tournament)
    register = _via("tournament_book", Tournaments.register)
    unregister = _via("tournament_book", Tournaments.unregister)
    start_tournament = _via("tournament_book", Tournaments.start_tournament)
    save_tournament_state = _via("tournament_book", Tournaments.save_tournament_state)
    finish_tournament = _via("tournament_book", Tournaments.finish_tournament)
    cancel_tournament = _via("tournament_book", Tournaments.cancel_tournament)
    tournament = _via("tournament_book", Tournaments.tournament)
    tournaments = _via("tournament_book", Tournaments.tournaments)
    tournament_entries = _via("tournament_book", Tournaments.tournament_entries)
    pool = _via("tournament_book", Tournaments.pool)
    tournaments_of = _via("tournament_book", Tournaments.tournaments_of)
    tournament_standings = _via("tournament_book", Tournaments.tournament_standings)

    # checks and backup
    totals = _via("audit", Audit.totals)
    verify = _via("audit", Audit.verify)
    backup = _via("audit", Audit.backup)
