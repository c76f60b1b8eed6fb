"""The SQLite ledger's schema: an append-only list of migrations and the code that runs them.

Each migration is a tuple of SQL statements run in one transaction; its index + 1 is the
schema version it brings the database to, kept in the one-row table ``schema_version``.
Append, never edit: a database made by any earlier release is brought up to date when it
is opened, and one made by a newer release is refused (:class:`LedgerError`).
"""

from __future__ import annotations

from bbspoker.store.sql.records import DEFAULT_TABLE, LedgerError
from bbspoker.store.sql.schema import HARD_LIMIT
from bbspoker.store.sql.writer import Writer
from bbspoker.store.wallet import SYSTEM

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "migrate"]

# 10 (SSH): public keys users log in with (`bbspoker users key add NAME FILE`).
_USER_KEYS: tuple[str, ...] = (
    """CREATE TABLE user_keys (
        id          INTEGER PRIMARY KEY,
        account_id  INTEGER NOT NULL REFERENCES accounts(id),
        key         TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        comment     TEXT NOT NULL DEFAULT '',
        added_at    REAL NOT NULL,
        actor       TEXT,
        UNIQUE (account_id, fingerprint)
    )""",
)

#: 11: the language a user chose with the lobby's [L]: ``en``, ``de``, ``fr``;
#: NULL: the server's ``[i18n] default``.
_USER_LANGUAGE: tuple[str, ...] = (
    "ALTER TABLE accounts ADD COLUMN language TEXT",
)

#: Schema 12: a notice is a code with its data (JSON), rendered at login in
#: the reader's language; ``text`` keeps an English rendering for the admin CLI and for
#: notices written before (``code`` NULL: shown as they are).
_NOTICE_CODES: tuple[str, ...] = (
    "ALTER TABLE notices ADD COLUMN code TEXT",
    "ALTER TABLE notices ADD COLUMN data TEXT",
)

#: 13: skeletons leave out accents and other combining marks (``records.handle_skeleton``
#: decomposes with NFKD first): every account's is made again when the ledger opens
#: (:func:`migrate_skeletons`), so that an old ``Bób`` blocks a new ``Bob``.
_SKELETONS_WITHOUT_MARKS: tuple[str, ...] = (
    "UPDATE accounts SET skeleton = NULL",
)

#: 14: the sign-ups at the login prompt, by address group (an IPv6 address's /64) and
#: time, so that ``[login] signups_per_address`` outlives a restart; rows older than the
#: window are deleted when the server starts (``Accounts.recent_signups``).
_SIGNUPS: tuple[str, ...] = (
    """CREATE TABLE signups (
        id      INTEGER PRIMARY KEY,
        address TEXT NOT NULL,
        at      REAL NOT NULL
    )""",
    "CREATE INDEX signups_at ON signups(at)",
)

#: 15: the commitment each table publishes for its next game before that game's
#: client seeds are fixed (docs/fairness.md), with the table, the time, and the game dealt
#: from it (NULL until one is); its server seed stays secret until that game has ended
#: (read back only by the table that published it, when it starts again). At most one
#: record per commitment at a table, and one per game.
_PUBLISHED_COMMITMENTS: tuple[str, ...] = (
    """CREATE TABLE commitments (
        id           INTEGER PRIMARY KEY,
        table_id     TEXT NOT NULL,
        commitment   TEXT NOT NULL,
        server_seed  TEXT NOT NULL,
        published_at REAL NOT NULL,
        game_id      INTEGER UNIQUE REFERENCES games(id),
        UNIQUE (table_id, commitment)
    )""",
    "CREATE INDEX commitments_published ON commitments(table_id, published_at)",
)

#: 16: callers of BBSes (the RLOGIN door server, docs/bbs.md): an account made for one is
#: marked with the tag of its system (``alias@TAG``; NULL: an account of this server's
#: own), and the sysop's bans of whole systems (``bbspoker bbs ban TAG``), keyed by the
#: tag in lower case.
_BBS_SYSTEMS: tuple[str, ...] = (
    "ALTER TABLE accounts ADD COLUMN bbs TEXT",
    "CREATE INDEX accounts_bbs ON accounts(bbs, created) WHERE bbs IS NOT NULL",
    """CREATE TABLE bbs_bans (
        tag_key TEXT PRIMARY KEY,
        tag     TEXT NOT NULL,
        reason  TEXT NOT NULL,
        at      REAL NOT NULL,
        actor   TEXT
    )""",
)

#: 17: the look a user chose with the lobby's [O] (``colour``, ``classic``; ``''``: as
#: their terminal allows) and their suits (``symbols``, ``gv``; ``''``: the look's
#: default), as :data:`~bbspoker.store.sql.records.ACCOUNT_LOOKS` and ``ACCOUNT_SUITS``.
_USER_LOOK: tuple[str, ...] = (
    "ALTER TABLE accounts ADD COLUMN look TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE accounts ADD COLUMN suits TEXT NOT NULL DEFAULT ''",
)

#: 18: tournaments (``bbspoker.store.tournaments``): each run of a configured tournament
#: (``key``: the config's id) with its status, times, the director's last state and the
#: result (JSON); its entries, one per account, with the buy-in paid and, once it has
#: finished, the place and prize. The prize pool is stored nowhere else: a journal row with
#: ``tournament_id`` moves CUBES between the account and that tournament's pool (a buy-in
#: negative, a refund or prize positive), so the pool is minus the sum of its rows, as a
#: game's pot is of the game's.
_TOURNAMENTS: tuple[str, ...] = (
    """CREATE TABLE tournaments (
        id         INTEGER PRIMARY KEY AUTOINCREMENT,
        key        TEXT NOT NULL,
        name       TEXT NOT NULL,
        kind       TEXT NOT NULL,
        buy_in     INTEGER NOT NULL CHECK (buy_in >= 0),
        status     TEXT NOT NULL CHECK (status IN ('registering', 'running', 'finished',
                                                   'cancelled')),
        created_at REAL NOT NULL,
        starts_at  REAL,
        started_at REAL,
        ended_at   REAL,
        state      TEXT,
        result     TEXT,
        reason     TEXT
    )""",
    "CREATE INDEX tournaments_status ON tournaments(status, id)",
    """CREATE TABLE tournament_entries (
        tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
        account_id    INTEGER NOT NULL REFERENCES accounts(id),
        registered_at REAL NOT NULL,
        buy_in        INTEGER NOT NULL CHECK (buy_in >= 0),
        place         INTEGER CHECK (place >= 1),
        prize         INTEGER CHECK (prize >= 0),
        PRIMARY KEY (tournament_id, account_id)
    )""",
    "CREATE INDEX tournament_entries_account ON tournament_entries(account_id)",
    "ALTER TABLE journal ADD COLUMN tournament_id INTEGER REFERENCES tournaments(id)",
    "CREATE INDEX journal_tournament ON journal(tournament_id) WHERE tournament_id IS NOT NULL",
)

#: 19: a tournament's hands are game records too (the seal, the history, the server seed;
#: ``bbspoker games show``, ``games verify``), played for its chips, not CUBES: no journal
#: row names them. ``tournament_id`` says whose hand a game was (NULL: a CUBES game), so
#: that stats leave them out and a tournament's page finds its hands.
_TOURNAMENT_HANDS: tuple[str, ...] = (
    "ALTER TABLE games ADD COLUMN tournament_id INTEGER REFERENCES tournaments(id)",
    "CREATE INDEX games_tournament ON games(tournament_id, id) "
    "WHERE tournament_id IS NOT NULL",
)

MIGRATIONS: tuple[tuple[str, ...], ...] = (
    # 1: accounts, games, the journal of every movement of CUBES, notices.
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
    # 2: many tables: each game records the table it was played at; the games
    # of an older database were all played at the one table it had.
    (
        f"ALTER TABLE games ADD COLUMN table_id TEXT NOT NULL DEFAULT '{DEFAULT_TABLE}'",
        "CREATE INDEX games_table ON games(table_id, id)",
    ),
    # 3: computer players: an account may be a bot's.
    (
        "ALTER TABLE accounts ADD COLUMN bot INTEGER NOT NULL DEFAULT 0",
    ),
    # 4: bounded amounts: no balance or movement may come near SQLite's 2**63,
    # whatever writes it (triggers: SQLite cannot add a CHECK to a table in place).
    tuple(
        f"""CREATE TRIGGER {name} BEFORE {event} ON {table} WHEN {cond}
            BEGIN SELECT RAISE(ABORT, 'amount out of bounds'); END"""
        for name, event, table, cond in (
            ("accounts_cubes_insert", "INSERT", "accounts", f"NEW.cubes > {HARD_LIMIT}"),
            ("accounts_cubes_update", "UPDATE OF cubes", "accounts",
             f"NEW.cubes > {HARD_LIMIT}"),
            ("journal_amount_insert", "INSERT", "journal",
             f"abs(NEW.amount) > {HARD_LIMIT} OR NEW.balance > {HARD_LIMIT}"),
        )
    ),
    # 5: accounts made at the login prompt may wait for the sysop's approval.
    (
        "ALTER TABLE accounts ADD COLUMN approved INTEGER NOT NULL DEFAULT 1",
    ),
    # 6: look-alike handles: each account's skeleton (records.handle_skeleton),
    # filled in by Python when the ledger opens (migrate_skeletons).
    (
        "ALTER TABLE accounts ADD COLUMN skeleton TEXT",
        "CREATE INDEX accounts_skeleton ON accounts(skeleton)",
    ),
    # 7: the sysop's kicks: `users kick` leaves a row, the server ends the
    # session and deletes it.
    (
        """CREATE TABLE kicks (
            id         INTEGER PRIMARY KEY,
            account_id INTEGER NOT NULL REFERENCES accounts(id),
            reason     TEXT NOT NULL,
            at         REAL NOT NULL,
            actor      TEXT
        )""",
    ),
    # 8: the provably fair shuffle: each game keeps the seeds of its deck (the
    # server seed is read back only once the game has ended); a player's client seed
    # phrase; X-message blocks that outlive a restart.
    (
        "ALTER TABLE games ADD COLUMN server_seed TEXT",
        "ALTER TABLE games ADD COLUMN client_seeds TEXT",
        "ALTER TABLE accounts ADD COLUMN client_seed TEXT",
        """CREATE TABLE blocks (
            account_id INTEGER NOT NULL REFERENCES accounts(id),
            blocked_id INTEGER NOT NULL REFERENCES accounts(id),
            at         REAL NOT NULL,
            PRIMARY KEY (account_id, blocked_id)
        )""",
    ),
    # 9: table stakes (Hold'em): what each player holds at a table, bought in
    # from their balance; a journal row with stack_table moves that stack (its balance
    # column is then the stack after it) instead of the account's balance.
    (
        """CREATE TABLE stacks (
            table_id   TEXT NOT NULL,
            account_id INTEGER NOT NULL REFERENCES accounts(id),
            cubes      INTEGER NOT NULL CHECK (cubes >= 0),
            PRIMARY KEY (table_id, account_id)
        )""",
        "ALTER TABLE journal ADD COLUMN stack_table TEXT",
        f"""CREATE TRIGGER stacks_cubes_bound BEFORE UPDATE OF cubes ON stacks
            WHEN NEW.cubes > {HARD_LIMIT}
            BEGIN SELECT RAISE(ABORT, 'amount out of bounds'); END""",
    ),
    # 10: users' SSH public keys, above.
    _USER_KEYS,
    # 11: each user's language, above.
    _USER_LANGUAGE,
    # 12: notices as codes with data, above.
    _NOTICE_CODES,
    # 13: skeletons without combining marks, above.
    _SKELETONS_WITHOUT_MARKS,
    # 14: sign-ups by address, above.
    _SIGNUPS,
    # 15: the next game's published commitment, above.
    _PUBLISHED_COMMITMENTS,
    # 16: BBS callers' accounts and banned systems, above.
    _BBS_SYSTEMS,
    # 17: each user's look and suits, above.
    _USER_LOOK,
    # 18: tournaments, their entries and the journal's tournament_id, above.
    _TOURNAMENTS,
    # 19: the games' tournament_id (a tournament's hands), above.
    _TOURNAMENT_HANDS,
)

#: Schema version this code writes; a database with a higher version is refused.
SCHEMA_VERSION = len(MIGRATIONS)


def migrate(writer: Writer) -> None:
    """Bring the database behind ``writer`` to :data:`SCHEMA_VERSION` in one write
    transaction (all or nothing). Raises :class:`LedgerError` if its version is newer
    than this code's, :class:`~bbspoker.store.wallet.StoreError` if a statement fails."""
    with writer.write():
        writer.sql("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        row = writer.sql("SELECT version FROM schema_version").fetchone()
        version = 0 if row is None else row[0]
        if version > SCHEMA_VERSION:
            raise LedgerError(f"database {writer.path} has schema version {version}, newer "
                              f"than this bbspoker ({SCHEMA_VERSION}); upgrade bbspoker")
        for statements in MIGRATIONS[version:]:
            for statement in statements:
                writer.sql(statement)
        if row is None:
            writer.sql("INSERT INTO schema_version VALUES (?)", (SCHEMA_VERSION,))
        else:
            writer.sql("UPDATE schema_version SET version = ?", (SCHEMA_VERSION,))
