"""Table leases (``bbspoker.table.lease``) on a real PostgreSQL: two workers never hold one
table, a dead worker's tables go to another at its next tick, and the one whose
connection was lost learns it (``on_lost``) and claims again. No real sleeps: a tick is a
call, and ``run``'s sleep is the test's."""

from __future__ import annotations

import asyncio
import logging

import psycopg
import pytest

from bbspoker.store.postgres.lease import PostgresTableLocks, table_key
from bbspoker.table.lease import TableLeases

TABLES = [f"t{i}" for i in range(10)]


class Worker:
    """A lease holder with its ``on_won`` and ``on_lost`` calls recorded."""

    def __init__(self, url: str, tables: list[str] = TABLES, **kwargs) -> None:
        self.won: list[set[str]] = []
        self.lost: list[set[str]] = []
        self.locks = PostgresTableLocks(url)
        self.leases = TableLeases(self.locks, tables, on_won=self.won.append,
                                  on_lost=self.lost.append, **kwargs)


@pytest.fixture
async def workers(postgres_url):
    made: list[Worker] = []

    def make(**kwargs) -> Worker:
        made.append(Worker(postgres_url, **kwargs))
        return made[-1]

    yield make
    for w in made:
        await w.leases.close()


def holders(url: str) -> dict[str, list[int]]:
    """Every table of :data:`TABLES` with the backend pids holding its advisory lock, as
    PostgreSQL sees them (not as the workers believe)."""
    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT (classid::bigint << 32) | objid::bigint, pid FROM pg_locks "
            "WHERE locktype = 'advisory' AND objsubid = 1 AND granted").fetchall()
    by_key: dict[int, list[int]] = {}
    for key, pid in rows:
        by_key.setdefault(key - (1 << 64) if key >= 1 << 63 else key, []).append(pid)
    return {t: sorted(by_key.get(table_key(t), [])) for t in TABLES}


def terminate(url: str, pid: int) -> None:
    """End backend ``pid`` from another connection and wait until it is gone (its locks
    with it), as PostgreSQL does for a worker whose process or host died."""
    with psycopg.connect(url, autocommit=True) as conn:
        assert conn.execute("SELECT pg_terminate_backend(%s, 5000)", (pid,)).fetchone()[0]


async def test_two_workers_never_hold_the_same_table(workers, postgres_url):
    a, b = workers(), workers()
    assert await a.leases.connect() and await b.leases.connect()
    for _ in range(3):
        await a.leases.tick()
        await b.leases.tick()
    assert a.leases.held | b.leases.held == set(TABLES)
    assert a.leases.held.isdisjoint(b.leases.held)
    # b asking outright for a's tables gets none of them
    assert await b.leases.claim(sorted(a.leases.held)) == set()
    seen = holders(postgres_url)
    assert {t: seen[t] for t in a.leases.held} == {t: [a.locks.pid] for t in a.leases.held}
    assert {t: seen[t] for t in b.leases.held} == {t: [b.locks.pid] for t in b.leases.held}


@pytest.mark.parametrize("death", ["terminated", "closed"])
async def test_a_dead_workers_tables_are_taken_over_at_the_next_tick(workers, postgres_url,
                                                                     death):
    a, b = workers(), workers()
    await a.leases.connect()
    await b.leases.connect()
    assert len(await a.leases.tick()) == 5 and len(await b.leases.tick()) == 5
    mine = set(a.leases.held)

    if death == "terminated":               # its session ended by PostgreSQL
        terminate(postgres_url, a.locks.pid)
    else:                                    # its process gone: the socket closed
        await a.locks.close()

    assert await b.leases.tick() == mine
    assert b.won[-1] == mine and b.leases.held == set(TABLES)
    assert holders(postgres_url) == {t: [b.locks.pid] for t in TABLES}
    assert a.lost == []                      # a has not looked yet ...
    assert await a.leases.tick() == set()    # ... and at its next tick stops serving them
    assert a.lost == [mine] and a.leases.held == set()


async def test_a_worker_whose_connection_was_lost_claims_again(workers, postgres_url, caplog):
    a = workers()
    assert await a.leases.tick() == set(TABLES)
    terminate(postgres_url, a.locks.pid)
    with caplog.at_level(logging.ERROR, logger="bbspoker.table.lease"):
        assert await a.leases.tick() == set()
    assert a.lost == [set(TABLES)] and a.leases.held == set()
    assert any(r.exc_info for r in caplog.records), "the loss is logged with its traceback"
    assert await a.leases.tick() == set(TABLES)      # a new connection, the tables again
    assert a.won == [set(TABLES), set(TABLES)]
    assert holders(postgres_url) == {t: [a.locks.pid] for t in TABLES}


@pytest.mark.parametrize("count, shares", [(2, [5, 5]), (3, [4, 4, 2])])
async def test_each_worker_claims_its_fair_share(workers, postgres_url, count, shares):
    group = [workers() for _ in range(count)]
    for w in group:
        await w.leases.connect()
    for _ in range(2):
        for w in group:
            await w.leases.tick()
    assert [len(w.leases.held) for w in group] == shares
    assert set().union(*(w.leases.held for w in group)) == set(TABLES)
    assert [w.leases.workers for w in group] == [count] * count
    if count == 3:        # one dies: the two left share its tables, 5 each
        terminate(postgres_url, group[2].locks.pid)
        for w in group[:2]:
            await w.leases.tick()
        assert [len(w.leases.held) for w in group[:2]] == [5, 5]
        assert set().union(*(w.leases.held for w in group[:2])) == set(TABLES)


async def test_a_worker_alone_keeps_its_tables_and_knows_its_surplus(workers):
    a = workers()
    assert len(await a.leases.tick()) == 10
    b = workers()
    await b.leases.connect()
    assert await b.leases.tick() == set()            # nothing free: a keeps its tables
    await a.leases.tick()
    assert a.leases.surplus == 5
    given = sorted(a.leases.held)[:5]
    for table in given:
        await a.leases.release(table)
    assert await b.leases.tick() == set(given) and a.leases.surplus == 0


async def test_max_tables_caps_the_share(workers):
    a = workers(max_tables=3)
    assert await a.leases.tick() == set(TABLES[:3])
    assert await a.leases.tick() == set()


async def test_a_database_that_does_not_answer_in_time_loses_every_lease(workers,
                                                                         postgres_url):
    a, b = workers(), workers()
    assert await a.leases.tick() == set(TABLES)
    pid = a.locks.pid
    a.leases.timeout = 0                     # no answer can come within it
    assert await a.leases.tick() == set()
    assert a.lost == [set(TABLES)] and a.leases.held == set() and a.locks.pid is None
    # It closed its connection; PostgreSQL ends the session (and its locks) a moment later.
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("SELECT pg_terminate_backend(%s, 5000)", (pid,))
    assert await b.leases.tick() == set(TABLES)      # so its locks are free
    assert holders(postgres_url) == {t: [b.locks.pid] for t in TABLES}


async def test_run_ticks_every_interval_and_survives_a_loss(workers, postgres_url):
    a = workers(interval=1.0)
    pauses: list[float] = []

    async def sleep(seconds: float) -> None:
        pauses.append(seconds)
        if len(pauses) == 1:
            terminate(postgres_url, a.locks.pid)
        if len(pauses) == 3:
            raise asyncio.CancelledError

    a.leases._sleep = sleep
    with pytest.raises(asyncio.CancelledError):
        await a.leases.run()
    assert pauses == [1.0, 1.0, 1.0]
    assert a.won == [set(TABLES), set(TABLES)] and a.lost == [set(TABLES)]


async def test_a_failing_callback_or_database_is_logged_and_retried(workers, postgres_url,
                                                                    caplog):
    a = Worker(psycopg.conninfo.make_conninfo(postgres_url, dbname="no_such_database"))
    with caplog.at_level(logging.WARNING, logger="bbspoker.table.lease"):
        assert await a.leases.tick() == set()
        assert await a.leases.tick() == set()
    assert [r.exc_info is not None for r in caplog.records] == [True, False]
    assert "cannot connect" in caplog.records[0].getMessage()
    await a.leases.close()

    def broken(ids: set[str]) -> None:
        raise RuntimeError("the worker's own bug")

    b = workers()
    b.leases.on_lost = broken
    await b.leases.tick()
    terminate(postgres_url, b.locks.pid)
    caplog.clear()
    with caplog.at_level(logging.ERROR, logger="bbspoker.table.lease"):
        await b.leases.tick()
    assert any("on_lost" in r.getMessage() and r.exc_info for r in caplog.records)
    assert b.leases.held == set() and await b.leases.tick() == set(TABLES)


async def test_a_bot_account_is_held_by_one_worker_and_freed_with_its_connection(workers,
                                                                               postgres_url):
    a, b = workers(), workers()
    await a.leases.connect()
    await b.leases.connect()
    await a.leases.tick()
    await b.leases.tick()
    assert await a.leases.claim_bot("Robo")
    assert not await b.leases.claim_bot("robo")        # any case: the same account
    assert not await a.leases.claim_bot("ROBO")        # held already
    assert await b.leases.claim_bot("Tin")
    a.leases.release_bot("Robo")                       # given up: unlocked at a's next call
    assert a.leases.bots == set()
    await a.leases.tick()
    assert await b.leases.claim_bot("Robo")
    assert b.leases.bots == {"robo", "tin"}
    terminate(postgres_url, b.locks.pid)               # b dies: its bots are free at once
    assert await a.leases.claim_bot("Tin") and await a.leases.claim_bot("Robo")
    await b.leases.tick()                              # b finds its connection lost
    assert b.leases.bots == set() and b.lost == b.won and len(b.won[0]) == 5
