"""Benchmark: PostgreSQL drivers on the CUBES ledger's hot statements.

Which Python driver should the ledger's PostgreSQL store use? This bench runs the
transactions a table step makes, and the common reads, through each candidate on one
server and reports the time and the client CPU each takes:

- ``psycopg sync``: a psycopg 3 ``Connection`` (autocommit, transactions by
  ``Connection.transaction()``), the driver of the store's synchronous interface; one
  statement at a time, and ``+pipeline``: the whole transaction in pipeline mode;
- ``psycopg async``: ``psycopg_pool.AsyncConnectionPool`` of ``AsyncConnection``\\ s,
  one statement at a time, and ``+pipeline``;
- ``asyncpg``: ``asyncpg.create_pool``, one statement at a time (its statement cache
  prepares each), and ``+batch``: the balance updates in one ``fetchmany`` (``UPDATE ...
  RETURNING``, so that a row that did not match is seen) and the journal rows in one
  ``executemany`` (each one round trip whatever the number of rows). Its pool's reset on
  release (``pg_advisory_unlock_all(); CLOSE ALL; UNLISTEN *; RESET ALL``, one more round
  trip per transaction) is switched off (``reset=``), as psycopg_pool has none.

A table step is one transaction, as the SQLite ledger makes it
(``src/bbspoker/store/sqlite/ledger.py``): ``BEGIN``; the write lock and non-durable
commit, ``SELECT set_config('synchronous_commit', 'off', true),
pg_advisory_xact_lock(K)``; the version counter read (a statement of its own: in READ
COMMITTED a statement's snapshot predates the lock it takes) and checked against the
version this process last wrote; per movement of CUBES the conditional balance
``UPDATE accounts SET cubes = new WHERE id = ? AND cubes = old`` (must change one row)
and the journal ``INSERT`` (account, signed amount, reason, game, time, balance after);
the game's ``INSERT`` (start) or ``UPDATE`` (end, must change one row); the counter's
bump; ``COMMIT``. A row that did not match, or a version that moved, rolls the
transaction back and stops the bench (a bug here, not a figure). The kinds of step:

- ``start``: the game's ``INSERT`` and five antes (5 movements);
- ``bet``: one movement (the commonest step);
- ``end``: five payouts (5 movements) and the game's ``UPDATE`` with its history.

Each table plays games of a start, ``BETS`` (8) bets and an end, on its own five accounts.
One statement at a time a step costs 7 (bet) or 16 (start, end) round trips; in pipeline
mode 2 (everything up to the counter's bump, then the checks in Python, then
``COMMIT``); asyncpg's batch 7-8.

Two loads: ``single``, one table, one transaction at a time (the latency of one step;
the client CPU of each transaction is ``time.process_time()`` around it); ``concurrent``
(async drivers only), ``--tables`` (50) tables each a coroutine playing on a pool of
``--pool`` (10) connections, serialised by the advisory lock: transactions per second,
the latency of each (pool wait and lock wait included) and the client CPU per
transaction over the whole run. The server's CPU per transaction (the ``utime + stime``
of the bench's backends in ``/proc``, 10 ms ticks) is shown where the server runs on this
machine. The reads (one statement each, no transaction; single load): an account by its
handle key, a page of 20 journal rows of an account (joined to the handles), the last 20
games (with each pot summed from the journal).

Every variant is warmed up first (``--warmup`` games per table, untimed: enough for
psycopg to prepare every statement, which it does at the fifth use). The server starts
with ``--accounts``, ``--games`` and ``--journal`` rows made by ``generate_series``;
afterwards each bench account's balance is checked against its journal rows.

Caveats: the throwaway server (``tests/support/postgres.py``, unless ``--url``) runs
with ``fsync=off`` on a Unix socket, so a durable commit costs what a non-durable one
does here and a round trip costs ~20-40 us: over TCP to another host every round trip
costs more, which favours the pipelined variants further. Client, server and whatever
else runs on the machine share its cores: run the bench two or three times and compare.

Run: ``.venv/bin/python scripts/bench/pg_drivers.py [--games-per-table 300] [--tables 50]
[--pool 10] [--reads 2000] [--url postgresql://...] [--json FILE] [--quick]``.
``--url``: a server to use (a database ``bbspoker_bench_<pid>`` is made there and dropped
afterwards) instead of a throwaway one. ``--quick`` (alias ``--short``): a few games and
reads, about a second, for the suite.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import platform
import re
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

import asyncpg  # noqa: E402
import psycopg  # noqa: E402
from psycopg_pool import AsyncConnectionPool  # noqa: E402

from tests.support.postgres import start_postgres  # noqa: E402

#: Seats (accounts) per table.
SEATS = 5
#: Bets per game between its start and its end.
BETS = 8
#: CUBES of every account at the start.
CUBES = 100_000_000
#: The ante and the bet, CUBES.
ANTE, BET = 10, 20
#: The advisory lock standing for the ledger's write lock.
LOCK_KEY = 0x6262_7370  # "bbsp"
#: Journal rows per page read.
PAGE = 20
#: A finished game's history, as JSON text (a plausible size).
HISTORY = json.dumps({"ranking": [f"player{i}" for i in range(SEATS)],
                      "actions": [["bet", f"player{i % SEATS}", BET] for i in range(40)]})

SCHEMA = (
    """CREATE TABLE accounts (
        id bigint PRIMARY KEY, handle text NOT NULL, handle_key text NOT NULL UNIQUE,
        password_hash text, cubes bigint NOT NULL CHECK (cubes >= 0),
        created double precision NOT NULL, last_seen double precision,
        banned boolean NOT NULL DEFAULT false, ban_reason text,
        bot boolean NOT NULL DEFAULT false, approved boolean NOT NULL DEFAULT true,
        bbs text, look text NOT NULL DEFAULT '', suits text NOT NULL DEFAULT '')""",
    """CREATE TABLE games (
        id bigint PRIMARY KEY, players text NOT NULL, deck_hash text NOT NULL,
        server_seed text, client_seeds text, started_at double precision NOT NULL,
        ended_at double precision, winner text, end_reason text, history text,
        table_id text NOT NULL, tournament_id bigint)""",
    "CREATE INDEX games_open ON games(id) WHERE ended_at IS NULL",
    "CREATE INDEX games_table ON games(table_id, id)",
    """CREATE TABLE journal (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id bigint NOT NULL REFERENCES accounts(id), amount bigint NOT NULL,
        reason text NOT NULL, game_id bigint REFERENCES games(id),
        at double precision NOT NULL, balance bigint NOT NULL, note text, actor text,
        stack_table text, tournament_id bigint)""",
    "CREATE INDEX journal_account ON journal(account_id, id)",
    "CREATE INDEX journal_game ON journal(game_id)",
    "CREATE TABLE ledger_version (id int PRIMARY KEY, v bigint NOT NULL)",
    "INSERT INTO ledger_version VALUES (1, 0)",
)

# The statements, with asyncpg's $n placeholders (psycopg gets %s: see _ps).
HEADER = "SELECT set_config('synchronous_commit', $1, true), pg_advisory_xact_lock($2)"
VERSION = "SELECT v FROM ledger_version WHERE id = 1"
BUMP = "UPDATE ledger_version SET v = v + 1 WHERE id = 1"
MOVE = "UPDATE accounts SET cubes = $1 WHERE id = $2 AND cubes = $3"
MOVE_RETURNING = MOVE + " RETURNING id"
JOURNAL = ("INSERT INTO journal (account_id, amount, reason, game_id, at, balance) "
           "VALUES ($1, $2, $3, $4, $5, $6)")
GAME_INSERT = ("INSERT INTO games (id, players, deck_hash, started_at, table_id) "
               "VALUES ($1, $2, $3, $4, $5)")
GAME_UPDATE = ("UPDATE games SET ended_at = $1, winner = $2, end_reason = 'finished', "
               "history = $3 WHERE id = $4 AND ended_at IS NULL")
READ_ACCOUNT = ("SELECT handle, cubes, created, last_seen, banned, ban_reason, bot, approved, "
                "bbs, look, suits FROM accounts WHERE handle_key = $1")
READ_JOURNAL = ("SELECT j.id, a.handle, j.amount, j.reason, j.game_id, j.at, j.balance, "
                "j.note, j.actor, j.stack_table, j.tournament_id FROM journal j "
                f"JOIN accounts a ON a.id = j.account_id WHERE j.account_id = $1 "
                f"ORDER BY j.id DESC LIMIT {PAGE}")
READ_GAMES = ("SELECT g.id, g.players, g.deck_hash, g.started_at, g.ended_at, g.winner, "
              "g.end_reason, -(SELECT COALESCE(SUM(amount), 0) FROM journal "
              "WHERE game_id = g.id), g.history, g.table_id, g.client_seeds, "
              "CASE WHEN g.ended_at IS NULL THEN NULL ELSE g.server_seed END, "
              f"g.tournament_id FROM games g ORDER BY g.id DESC LIMIT {PAGE}")
READS = {"account": READ_ACCOUNT, "journal page": READ_JOURNAL, "games list": READ_GAMES}
KINDS = ("start", "bet", "end")


def _ps(sql: str) -> str:
    """``sql`` with psycopg's placeholders (each ``$n`` is used once, in order)."""
    return re.sub(r"\$\d+", "%s", sql)


class Conflict(RuntimeError):
    """A checked statement changed no row, or the version counter moved: the
    transaction was rolled back."""


# ---------------------------------------------------------------- the tables' steps

@dataclasses.dataclass(slots=True)
class Step:
    """One table step's statements' parameters: ``moves`` (new, id, old) balance updates,
    ``journal`` rows (account, amount, reason, game, time, balance after) in the same
    order, and the game's insert or update parameters."""

    kind: str
    moves: list[tuple[int, int, int]]
    journal: list[tuple[int, int, str, int, float, int]]
    game_insert: tuple[int, str, str, float, str] | None = None
    game_update: tuple[float, str, str, int] | None = None


class Table:
    """A table's five accounts (ids ``5n+1``..``5n+5``) with the balances this process
    holds for them, playing games of a start, :data:`BETS` bets and an end; game ids come
    from ``next_game`` (the process's counter, as the ledger caches the next id)."""

    def __init__(self, number: int, balances: dict[int, int],
                 next_game: Callable[[], int]) -> None:
        self.name = f"t{number}"
        self.seats = [number * SEATS + i + 1 for i in range(SEATS)]
        self.balances = {a: balances[a] for a in self.seats}
        self._next_game = next_game
        self._phase = 0                     # 0: start, 1..BETS: bets, BETS+1: end
        self._game = 0
        self._staked = dict.fromkeys(self.seats, 0)

    def step(self) -> Step:
        """The next step's statements (the caches change only in :meth:`done`)."""
        now = time.time()
        if self._phase == 0:
            self._game = self._next_game()
            moves = [(a, -ANTE, "ante") for a in self.seats]
            step = self._build("start", moves, now)
            step.game_insert = (self._game, json.dumps(self.seats), "f" * 64, now, self.name)
        elif self._phase <= BETS:
            seat = self.seats[(self._phase - 1) % SEATS]
            step = self._build("bet", [(seat, -BET, "bet")], now)
        else:
            step = self._build("end", [(a, self._staked[a], "payout") for a in self.seats],
                               now)
            step.game_update = (now, f"u{self.seats[0]}", HISTORY, self._game)
        return step

    def _build(self, kind: str, moves: list[tuple[int, int, str]], now: float) -> Step:
        step = Step(kind, [], [])
        for account, amount, reason in moves:
            old = self.balances[account]
            step.moves.append((old + amount, account, old))
            step.journal.append((account, amount, reason, self._game, now, old + amount))
        return step

    def done(self, step: Step) -> None:
        """``step`` committed: apply it to the balances and go on to the next one."""
        for (new, account, _), (_, amount, *_) in zip(step.moves, step.journal):
            self.balances[account] = new
            self._staked[account] = 0 if step.kind == "end" else self._staked[account] - amount
        self._phase = (self._phase + 1) % (BETS + 2)


class Version:
    """The version counter as this process last wrote it: a transaction checks it under
    the lock and bumps it before its COMMIT (still under the lock, so the next holder of
    the lock, of this process or not, sees the bumped value)."""

    def __init__(self, value: int) -> None:
        self.value = value

    def check(self, seen: int) -> None:
        """Raise :class:`Conflict` unless ``seen`` is the expected version; then count
        this transaction's bump."""
        if seen != self.value:
            raise Conflict(f"version {seen}, expected {self.value}")
        self.value += 1


def _checked(rowcount: int, expected: int, what: str) -> None:
    if rowcount != expected:
        raise Conflict(f"{what}: {rowcount} rows changed, expected {expected}")


# ---------------------------------------------------------------- one step per driver

def step_psycopg(conn: psycopg.Connection, step: Step, version: Version) -> None:
    """One step on a sync connection, one statement (one round trip) at a time."""
    with conn.transaction():
        cur = conn.cursor()
        cur.execute(_HEADER, ("off", LOCK_KEY))
        version.check(cur.execute(_VERSION).fetchone()[0])  # type: ignore[index]
        if step.game_insert:
            cur.execute(_GAME_INSERT, step.game_insert)
        for move, row in zip(step.moves, step.journal):
            _checked(cur.execute(_MOVE, move).rowcount, 1, "balance")
            cur.execute(_JOURNAL, row)
        if step.game_update:
            _checked(cur.execute(_GAME_UPDATE, step.game_update).rowcount, 1, "game")
        cur.execute(BUMP)


def step_psycopg_pipeline(conn: psycopg.Connection, step: Step, version: Version) -> None:
    """One step on a sync connection in pipeline mode: every statement up to the bump
    sent at once (a cursor each for the results checked), one sync, the checks, COMMIT
    (the pipeline's second sync)."""
    with conn.pipeline() as pipe, conn.transaction():
        conn.execute(_HEADER, ("off", LOCK_KEY))
        seen = conn.execute(_VERSION)
        if step.game_insert:
            conn.execute(_GAME_INSERT, step.game_insert)
        moves = []
        for move, row in zip(step.moves, step.journal):
            moves.append(conn.execute(_MOVE, move))
            conn.execute(_JOURNAL, row)
        game = conn.execute(_GAME_UPDATE, step.game_update) if step.game_update else None
        conn.execute(BUMP)
        pipe.sync()
        version.check(seen.fetchone()[0])  # type: ignore[index]
        for cur in moves:
            _checked(cur.rowcount, 1, "balance")
        if game is not None:
            _checked(game.rowcount, 1, "game")


async def step_apsycopg(pool: AsyncConnectionPool, step: Step, version: Version) -> None:
    """One step on a connection of the async pool, one statement at a time."""
    async with pool.connection() as conn, conn.transaction():
        cur = conn.cursor()
        await cur.execute(_HEADER, ("off", LOCK_KEY))
        version.check((await (await cur.execute(_VERSION)).fetchone())[0])  # type: ignore[index]
        if step.game_insert:
            await cur.execute(_GAME_INSERT, step.game_insert)
        for move, row in zip(step.moves, step.journal):
            _checked((await cur.execute(_MOVE, move)).rowcount, 1, "balance")
            await cur.execute(_JOURNAL, row)
        if step.game_update:
            _checked((await cur.execute(_GAME_UPDATE, step.game_update)).rowcount, 1, "game")
        await cur.execute(BUMP)


async def step_apsycopg_pipeline(pool: AsyncConnectionPool, step: Step,
                                 version: Version) -> None:
    """One step on a connection of the async pool in pipeline mode (as
    :func:`step_psycopg_pipeline`)."""
    async with pool.connection() as conn, conn.pipeline() as pipe, conn.transaction():
        await conn.execute(_HEADER, ("off", LOCK_KEY))
        seen = await conn.execute(_VERSION)
        if step.game_insert:
            await conn.execute(_GAME_INSERT, step.game_insert)
        moves = []
        for move, row in zip(step.moves, step.journal):
            moves.append(await conn.execute(_MOVE, move))
            await conn.execute(_JOURNAL, row)
        game = (await conn.execute(_GAME_UPDATE, step.game_update)
                if step.game_update else None)
        await conn.execute(BUMP)
        await pipe.sync()
        version.check((await seen.fetchone())[0])  # type: ignore[index]
        for cur in moves:
            _checked(cur.rowcount, 1, "balance")
        if game is not None:
            _checked(game.rowcount, 1, "game")


async def step_asyncpg(pool: asyncpg.Pool, step: Step, version: Version) -> None:
    """One step on a connection of the asyncpg pool, one statement at a time (each
    prepared once per connection by asyncpg's statement cache)."""
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute(HEADER, "off", LOCK_KEY)
        version.check(await conn.fetchval(VERSION))
        if step.game_insert:
            await conn.execute(GAME_INSERT, *step.game_insert)
        for move, row in zip(step.moves, step.journal):
            if await conn.execute(MOVE, *move) != "UPDATE 1":
                raise Conflict("balance: no row changed")
            await conn.execute(JOURNAL, *row)
        if step.game_update and await conn.execute(GAME_UPDATE, *step.game_update) != "UPDATE 1":
            raise Conflict("game: no row changed")
        await conn.execute(BUMP)


async def step_asyncpg_batch(pool: asyncpg.Pool, step: Step, version: Version) -> None:
    """As :func:`step_asyncpg`, the balance updates in one ``fetchmany`` (``RETURNING``:
    one row back per row changed) and the journal rows in one ``executemany``."""
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute(HEADER, "off", LOCK_KEY)
        version.check(await conn.fetchval(VERSION))
        if step.game_insert:
            await conn.execute(GAME_INSERT, *step.game_insert)
        _checked(len(await conn.fetchmany(MOVE_RETURNING, step.moves)), len(step.moves),
                 "balance")
        await conn.executemany(JOURNAL, step.journal)
        if step.game_update and await conn.execute(GAME_UPDATE, *step.game_update) != "UPDATE 1":
            raise Conflict("game: no row changed")
        await conn.execute(BUMP)


_HEADER, _VERSION, _MOVE, _JOURNAL, _GAME_INSERT, _GAME_UPDATE = map(
    _ps, (HEADER, VERSION, MOVE, JOURNAL, GAME_INSERT, GAME_UPDATE))


# ---------------------------------------------------------------- measuring

def percentile(values: list[float], q: float) -> float:
    """The ``q``-th percentile (0-100) of ``values`` by the nearest-rank method."""
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 100))
    return ordered[int(rank) - 1]


def summary(wall: list[float], cpu: list[float] | None = None) -> dict[str, Any]:
    """p50/p99 of ``wall`` (seconds) in us, the mean of ``cpu`` (seconds) in us."""
    out: dict[str, Any] = {"n": len(wall), "p50_us": percentile(wall, 50) * 1e6,
                           "p99_us": percentile(wall, 99) * 1e6}
    if cpu is not None:
        out["cpu_us"] = sum(cpu) / len(cpu) * 1e6
    return out


class ServerCpu:
    """The CPU seconds (``utime + stime`` in ``/proc``) of the server processes serving
    the bench's database, from a connection of its own; None where they cannot be read
    (the server runs elsewhere)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.pids: list[int] = []
        self.tick = os.sysconf("SC_CLK_TCK")

    def find(self) -> None:
        """Note the backends connected now (call once the variant's connections are open)."""
        with psycopg.connect(self.url, autocommit=True) as conn:
            self.pids = [pid for (pid,) in conn.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
                "AND pid <> pg_backend_pid()")]

    def seconds(self) -> float | None:
        total = 0
        for pid in self.pids:
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                return None
            total += int(fields[11]) + int(fields[12])
        return total / self.tick if self.pids else None


@dataclasses.dataclass
class Run:
    """What a load of one variant measured: per kind the latencies (and the client CPU of
    each transaction under the single load), the totals."""

    wall: dict[str, list[float]] = dataclasses.field(
        default_factory=lambda: {k: [] for k in KINDS})
    cpu: dict[str, list[float]] = dataclasses.field(
        default_factory=lambda: {k: [] for k in KINDS})
    seconds: float = 0.0
    client_cpu: float = 0.0
    server_cpu: float | None = None

    def figures(self) -> dict[str, Any]:
        count = sum(len(v) for v in self.wall.values())
        out: dict[str, Any] = {
            "transactions": count,
            "tx_per_s": count / self.seconds if self.seconds else 0.0,
            "client_cpu_us_per_tx": self.client_cpu / count * 1e6,
            "server_cpu_us_per_tx": (None if self.server_cpu is None
                                     else self.server_cpu / count * 1e6)}
        for kind in KINDS:
            out[kind] = summary(self.wall[kind], self.cpu[kind] or None)
        return out


@contextmanager
def window(run: Run, server: ServerCpu) -> Iterator[None]:
    """Time the block: wall and process CPU seconds, and the server's CPU."""
    before = server.seconds()
    cpu, wall = time.process_time(), time.perf_counter()
    yield
    run.seconds = time.perf_counter() - wall
    run.client_cpu = time.process_time() - cpu
    after = server.seconds()
    run.server_cpu = None if before is None or after is None else after - before


class Ledger:
    """The state the bench's process holds: the version, the next game id, the balances."""

    def __init__(self, url: str) -> None:
        with psycopg.connect(url, autocommit=True) as conn:
            self.version = Version(conn.execute(VERSION).fetchone()[0])  # type: ignore[index]
            self.next_game = conn.execute(
                "SELECT COALESCE(MAX(id), 0) + 1 FROM games").fetchone()[0]  # type: ignore[index]
            self.balances = dict(conn.execute("SELECT id, cubes FROM accounts").fetchall())

    def game_id(self) -> int:
        game, self.next_game = self.next_game, self.next_game + 1
        return game

    def tables(self, count: int) -> list[Table]:
        return [Table(n, self.balances, self.game_id) for n in range(count)]

    def keep(self, tables: list[Table]) -> None:
        """Take the balances the tables end with."""
        for table in tables:
            self.balances.update(table.balances)


def run_sync(url: str, ledger: Ledger, server: ServerCpu, games: int, warmup: int,
             fn: Callable[[psycopg.Connection, Step, Version], None]) -> Run:
    """The single load on one sync connection."""
    run = Run()
    [table] = ledger.tables(1)
    with psycopg.connect(url, autocommit=True) as conn:
        server.find()
        for _ in range(warmup * (BETS + 2)):
            step = table.step()
            fn(conn, step, ledger.version)
            table.done(step)
        with window(run, server):
            for _ in range(games * (BETS + 2)):
                step = table.step()
                c0, t0 = time.process_time(), time.perf_counter()
                fn(conn, step, ledger.version)
                run.wall[step.kind].append(time.perf_counter() - t0)
                run.cpu[step.kind].append(time.process_time() - c0)
                table.done(step)
    ledger.keep([table])
    return run


async def run_async(pool: Any, ledger: Ledger, server: ServerCpu, tables: int, games: int,
                    warmup: int, fn: Callable[[Any, Step, Version], Awaitable[None]]) -> Run:
    """``tables`` coroutines, each a table playing ``games`` games on ``pool``; with one
    table the client CPU of each transaction is taken too."""
    run = Run()
    playing = ledger.tables(tables)
    single = tables == 1

    async def play(table: Table, count: int, timed: bool) -> None:
        for _ in range(count * (BETS + 2)):
            step = table.step()
            c0, t0 = time.process_time(), time.perf_counter()
            await fn(pool, step, ledger.version)
            if timed:
                run.wall[step.kind].append(time.perf_counter() - t0)
                if single:
                    run.cpu[step.kind].append(time.process_time() - c0)
            table.done(step)

    await asyncio.gather(*(play(t, warmup, False) for t in playing))
    server.find()
    with window(run, server):
        await asyncio.gather(*(play(t, games, True) for t in playing))
    ledger.keep(playing)
    return run


async def _no_reset(conn: asyncpg.Connection) -> None:
    """asyncpg pool reset: none (the bench leaves no session state behind)."""


def open_pool(kind: str, url: str, size: int) -> Any:
    """An async pool of ``size`` connections of driver ``kind`` (an awaitable)."""
    if kind == "psycopg":
        async def make() -> AsyncConnectionPool:
            pool = AsyncConnectionPool(url, min_size=size, max_size=size, open=False,
                                       kwargs={"autocommit": True})
            await pool.open(wait=True)
            return pool
        return make()
    return asyncpg.create_pool(url, min_size=size, max_size=size, reset=_no_reset)


async def close_pool(pool: Any) -> None:
    await pool.close()


#: The variants: name, driver of the pool (None: sync), the step function.
VARIANTS: list[tuple[str, str | None, Callable[..., Any]]] = [
    ("psycopg sync", None, step_psycopg),
    ("psycopg sync +pipeline", None, step_psycopg_pipeline),
    ("psycopg async", "psycopg", step_apsycopg),
    ("psycopg async +pipeline", "psycopg", step_apsycopg_pipeline),
    ("asyncpg", "asyncpg", step_asyncpg),
    ("asyncpg +batch", "asyncpg", step_asyncpg_batch),
]


# ---------------------------------------------------------------- reads

def _read_keys(accounts: int, count: int) -> list[tuple[str, int]]:
    """(handle key, account id) of ``count`` accounts spread over the ledger."""
    return [(f"user{1 + (i * 7919) % accounts}", 1 + (i * 7919) % accounts) for i in range(count)]


def reads_sync(url: str, keys: list[tuple[str, int]]) -> dict[str, Any]:
    out = {}
    with psycopg.connect(url, autocommit=True) as conn:
        for name, sql in READS.items():
            sql = _ps(sql)
            wall, cpu = [], []
            for i, (key, account) in enumerate(keys * 2):
                params = {"account": (key,), "journal page": (account,), "games list": ()}[name]
                c0, t0 = time.process_time(), time.perf_counter()
                rows = conn.execute(sql, params).fetchall()
                if i >= len(keys):           # the first pass warms up (prepares)
                    wall.append(time.perf_counter() - t0)
                    cpu.append(time.process_time() - c0)
                if name == "account" and len(rows) != 1:
                    raise RuntimeError(f"account {key} not found")
            out[name] = summary(wall, cpu)
    return out


async def reads_async(kind: str, pool: Any, keys: list[tuple[str, int]]) -> dict[str, Any]:
    out = {}
    for name, sql in READS.items():
        wall, cpu = [], []
        for i, (key, account) in enumerate(keys * 2):
            params = {"account": (key,), "journal page": (account,), "games list": ()}[name]
            c0, t0 = time.process_time(), time.perf_counter()
            if kind == "psycopg":
                async with pool.connection() as conn:
                    rows = await (await conn.execute(_ps(sql), params)).fetchall()
            else:
                async with pool.acquire() as conn:
                    rows = await conn.fetch(sql, *params)
            if i >= len(keys):
                wall.append(time.perf_counter() - t0)
                cpu.append(time.process_time() - c0)
            if name == "account" and len(rows) != 1:
                raise RuntimeError(f"account {key} not found")
        out[name] = summary(wall, cpu)
    return out


# ---------------------------------------------------------------- the database

def database_url(url: str, name: str) -> str:
    """``url`` with its database replaced by ``name``."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{name}"))


def create_database(admin_url: str, name: str, accounts: int, games: int,
                    journal: int) -> str:
    """Make database ``name`` with the schema and the starting rows; returns its URL."""
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = database_url(admin_url, name)
    with psycopg.connect(url, autocommit=True) as conn:
        for sql in SCHEMA:
            conn.execute(sql)
        conn.execute(
            "INSERT INTO accounts (id, handle, handle_key, password_hash, cubes, created) "
            "SELECT g, 'User' || g, 'user' || g, 'scrypt$x', %s, 1.7e9 + g "
            "FROM generate_series(1, %s) g", (CUBES, accounts))
        conn.execute(
            "INSERT INTO games (id, players, deck_hash, started_at, ended_at, winner, "
            "end_reason, history, table_id) SELECT g, '[]', md5(g::text), 1.7e9 + g, "
            "1.7e9 + g + 60, 'user1', 'finished', %s, 't' || (g %% 50) "
            "FROM generate_series(1, %s) g", (HISTORY, games))
        # Finished games' rows sum to zero in pairs; the accounts' balances stay CUBES.
        conn.execute(
            "INSERT INTO journal (account_id, amount, reason, game_id, at, balance) "
            "SELECT 1 + (g * 7919) %% %s, CASE WHEN g %% 2 = 0 THEN -20 ELSE 20 END, "
            "'bet', 1 + (g / 2) %% %s, 1.7e9 + g, %s FROM generate_series(0, %s - 1) g",
            (accounts, games, CUBES, journal))
        conn.execute("VACUUM ANALYZE")
    return url


def verify(url: str, journal_before: int, expected_rows: int) -> str:
    """Every bench account's balance is its starting CUBES plus its journal rows of the
    bench, and the bench wrote ``expected_rows`` rows; returns ``ok`` or what is wrong."""
    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute("SELECT count(*) FROM journal WHERE id > %s",
                            (journal_before,)).fetchone()[0]  # type: ignore[index]
        wrong = conn.execute(
            "SELECT count(*) FROM accounts a WHERE cubes <> %s + COALESCE((SELECT sum(amount) "
            "FROM journal j WHERE j.account_id = a.id AND j.id > %s), 0)",
            (CUBES, journal_before)).fetchone()[0]  # type: ignore[index]
    if rows != expected_rows:
        return f"{rows} journal rows written, expected {expected_rows}"
    return "ok" if wrong == 0 else f"{wrong} accounts disagree with their journal"


# ---------------------------------------------------------------- report

def print_report(f: dict[str, Any]) -> None:
    print(f"PostgreSQL {f['server_version']}, psycopg {f['versions']['psycopg']} "
          f"({f['versions']['psycopg_impl']}), psycopg_pool {f['versions']['psycopg_pool']}, "
          f"asyncpg {f['versions']['asyncpg']}, Python {f['machine']['python']}, "
          f"{f['machine']['cores']} cores")
    print(f"single table: {f['games_per_table']} games of {BETS + 2} steps; concurrent: "
          f"{f['tables']} tables x {f['concurrent_games']} games on a pool of {f['pool']}")
    print()
    print("single table, us per transaction (p50 / p99 / client CPU); server CPU us/tx")
    head = f"{'driver':<24}" + "".join(f"{k:>22}" for k in KINDS) + f"{'server':>8}"
    print(head)
    for name, v in f["variants"].items():
        s = v["single"]
        cells = "".join(f"{s[k]['p50_us']:>8.0f}{s[k]['p99_us']:>7.0f}{s[k]['cpu_us']:>7.0f}"
                        for k in KINDS)
        server = s["server_cpu_us_per_tx"]
        print(f"{name:<24}{cells}{'-' if server is None else f'{server:.0f}':>8}")
    print()
    print(f"concurrent, {f['tables']} tables: tx/s, us (p50 / p99) of bet and end, "
          "client and server CPU us/tx")
    print(f"{'driver':<24}{'tx/s':>7}{'bet':>16}{'end':>16}{'client':>8}{'server':>8}")
    for name, v in f["variants"].items():
        c = v.get("concurrent")
        if c is None:
            continue
        server = c["server_cpu_us_per_tx"]
        print(f"{name:<24}{c['tx_per_s']:>7.0f}"
              f"{c['bet']['p50_us']:>8.0f}{c['bet']['p99_us']:>8.0f}"
              f"{c['end']['p50_us']:>8.0f}{c['end']['p99_us']:>8.0f}"
              f"{c['client_cpu_us_per_tx']:>8.0f}{'-' if server is None else f'{server:.0f}':>8}")
    print()
    print("reads, us (p50 / p99 / client CPU)")
    print(f"{'driver':<24}" + "".join(f"{k:>22}" for k in READS))
    for name, r in f["reads"].items():
        print(f"{name:<24}" + "".join(
            f"{r[k]['p50_us']:>8.0f}{r[k]['p99_us']:>7.0f}{r[k]['cpu_us']:>7.0f}" for k in READS))
    print()
    print(f"ledger check: {f['check']}")


def bench(admin_url: str, args: argparse.Namespace) -> dict[str, Any]:
    name = f"bbspoker_bench_{os.getpid()}"
    accounts = max(args.accounts, args.tables * SEATS)
    url = create_database(admin_url, name, accounts, args.games, args.journal)
    try:
        return _bench(url, args, accounts)
    finally:
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _bench(url: str, args: argparse.Namespace, accounts: int) -> dict[str, Any]:
    ledger = Ledger(url)
    server = ServerCpu(url)
    with psycopg.connect(url, autocommit=True) as conn:
        journal_before = conn.execute("SELECT max(id) FROM journal").fetchone()[0]  # type: ignore[index]
        server_version = conn.execute("SHOW server_version").fetchone()[0]  # type: ignore[index]
    variants: dict[str, Any] = {}
    transactions = 0
    for name, kind, fn in VARIANTS:
        if args.only and not any(o in name for o in args.only):
            continue
        figures: dict[str, Any] = {}
        if kind is None:
            run = run_sync(url, ledger, server, args.games_per_table, args.warmup, fn)
            figures["single"] = run.figures()
        else:
            async def both(kind: str = kind, fn: Callable[..., Any] = fn) -> None:
                pool = await open_pool(kind, url, args.pool)
                try:
                    run = await run_async(pool, ledger, server, 1, args.games_per_table,
                                          args.warmup, fn)
                    figures["single"] = run.figures()
                    run = await run_async(pool, ledger, server, args.tables,
                                          args.concurrent_games, args.concurrent_warmup, fn)
                    figures["concurrent"] = run.figures()
                finally:
                    await close_pool(pool)
            asyncio.run(both())
        variants[name] = figures
        transactions += (args.warmup + args.games_per_table) * (BETS + 2)
        if "concurrent" in figures:
            transactions += (args.concurrent_warmup + args.concurrent_games) * (BETS + 2) \
                * args.tables
    # Journal rows: per game 5 antes, BETS bets and 5 payouts.
    rows = transactions // (BETS + 2) * (2 * SEATS + BETS)
    keys = _read_keys(accounts, args.reads)
    reads: dict[str, Any] = {"psycopg sync": reads_sync(url, keys)}
    for label, kind in (("psycopg async", "psycopg"), ("asyncpg", "asyncpg")):
        async def read(kind: str = kind) -> dict[str, Any]:
            pool = await open_pool(kind, url, args.pool)
            try:
                return await reads_async(kind, pool, keys)
            finally:
                await close_pool(pool)
        reads[label] = asyncio.run(read())
    return {
        "variants": variants, "reads": reads, "check": verify(url, journal_before, rows),
        "games_per_table": args.games_per_table, "tables": args.tables,
        "concurrent_games": args.concurrent_games, "pool": args.pool,
        "rows": {"accounts": accounts, "games": args.games, "journal": args.journal},
        "server_version": server_version,
        "versions": {"psycopg": psycopg.__version__, "psycopg_impl": psycopg.pq.__impl__,
                     "psycopg_pool": _pool_version(), "asyncpg": asyncpg.__version__},
        "machine": {"python": platform.python_version(), "cores": os.cpu_count()},
    }


def _pool_version() -> str:
    import psycopg_pool
    return str(psycopg_pool.__version__)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="a PostgreSQL server's URL (default: a throwaway one)")
    parser.add_argument("--games-per-table", type=int, default=300,
                        help="games of the single table (10 steps each)")
    parser.add_argument("--warmup", type=int, default=6, help="untimed games first")
    parser.add_argument("--tables", type=int, default=50, help="tables of the concurrent load")
    parser.add_argument("--concurrent-games", type=int, default=10,
                        help="games per table of the concurrent load")
    parser.add_argument("--concurrent-warmup", type=int, default=2)
    parser.add_argument("--pool", type=int, default=10, help="connections of the async pools")
    parser.add_argument("--reads", type=int, default=2000, help="reads of each kind")
    parser.add_argument("--accounts", type=int, default=5000)
    parser.add_argument("--games", type=int, default=20_000, help="finished games at the start")
    parser.add_argument("--journal", type=int, default=200_000,
                        help="journal rows at the start")
    parser.add_argument("--only", action="append",
                        help="only the variants whose name holds this (repeatable)")
    parser.add_argument("--json", type=Path, help="write the figures to this file")
    parser.add_argument("--quick", "--short", action="store_true",
                        help="a few games and reads, for the suite")
    args = parser.parse_args(argv)
    if args.quick:
        args.games_per_table, args.warmup, args.tables = 3, 1, 4
        args.concurrent_games, args.concurrent_warmup, args.pool = 2, 1, 2
        args.reads, args.accounts, args.games, args.journal = 10, 100, 50, 500
    postgres = None
    if args.url is None:
        postgres = start_postgres()
        args.url = postgres.url
    try:
        figures = bench(args.url, args)
    finally:
        if postgres is not None:
            postgres.stop()
    print_report(figures)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0 if figures["check"] == "ok" else 1


if __name__ == "__main__":
    sys.exit(main())
