"""``bbspoker worker`` (bbspoker.cluster.worker) on a real PostgreSQL and a real NATS server:
workers share the tables of a config, each served by one; a gateway's RemoteTable plays
through the worker that serves it; a worker that dies (its lease connection gone) hands its
tables to another, which refunds the game it left; a worker whose leases are lost stops
serving at once; a bot account sits at one table at most across workers; a seated player
whose gateway is gone has the seat held for them; and the command itself starts, serves and
stops on SIGTERM."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import psycopg
import pytest

from bbspoker.bots import seats
from bbspoker.cluster import node
from bbspoker.cluster import worker as worker_module
from bbspoker.cluster.worker import Worker, run_worker
from bbspoker.config import Config, TableSpec
from bbspoker.rules import actions as act
from bbspoker.store import open_ledger
from bbspoker.store.postgres.lease import PostgresTableLocks
from bbspoker.store.sql import Ledger
from bbspoker.store.sql.records import MOVED_REASON
from bbspoker.table.remote import Link, RemoteTable, TableUnreachable
from bbspoker.table.service import Return
from tests.support.nats import Nats
from tests.support.paths import ROOT
from tests.support.stores import StoreDb
from tests.support.telnetclient import FakeClock, wait_until

TABLES = ("t1", "t2", "t3", "t4")
FAST = {"reconnect_time_wait": 0.05, "connect_timeout": 1}
#: Lease ticks every 50 ms: a takeover within a few ticks is well within wait_until's time.
TICK = 0.05
#: A lease interval so long that a worker never ticks by itself: the test ticks it.
MANUAL = 3600.0


def config_of(url: str, nats: str, tables: tuple[str, ...] = TABLES, *,
              lease_interval: float = TICK, **rules: Any) -> Config:
    """A config of draw40 ``tables`` (``[table]`` keys ``rules``, the games between
    started at once) on the PostgreSQL ledger ``url`` and NATS ``nats``."""
    base = Config().table.with_keys(**{"between_games": 0, **rules})
    config = Config()
    return dataclasses.replace(
        config, table=base,
        tables=tuple(TableSpec(t, t.upper(), "draw40", base) for t in tables),
        ledger=dataclasses.replace(config.ledger, url=url),
        cluster=dataclasses.replace(config.cluster, nats=nats, lease_interval=lease_interval))


async def no_think(_seconds: float) -> None:
    await asyncio.sleep(0)


class Cluster:
    """Workers, each with its own ledger connection, NATS connection and lease connection
    (as separate processes have), and gateways' RemoteTables; all closed at the end."""

    def __init__(self, db: StoreDb, nats: Nats) -> None:
        self.url = db.target
        self.nats = nats.url
        self.workers: list[Worker] = []
        self.dead: set[int] = set()
        self.remotes: list[RemoteTable] = []
        self.links: list[Link] = []
        self.ledgers: list[Ledger] = []

    def ledger(self) -> Ledger:
        ledger = open_ledger(self.url)
        self.ledgers.append(ledger)
        return ledger

    async def worker(self, config: Config, *, start: bool = True,
                     online: Callable[[], Any] | None = None, **kwargs: Any) -> Worker:
        link = await Link.connect(self.nats, **FAST)
        worker = Worker(config, self.ledger(), link, PostgresTableLocks(self.url),
                        bot_sleep=no_think, online=online, **kwargs)
        self.workers.append(worker)
        if start:
            await worker.start()
        return worker

    async def pair(self, config: Config) -> tuple[Worker, Worker]:
        """Two workers, both counted among the live ones before either claims (as two
        workers started a moment apart are, after their first interval)."""
        a = await self.worker(config, start=False)
        b = await self.worker(config, start=False)
        assert await a.leases.connect() and await b.leases.connect()
        await a.start()
        await b.start()
        return a, b

    async def remote(self, table_id: str, timeout: float = 2.0) -> RemoteTable:
        link = await Link.connect(self.nats, **FAST)
        self.links.append(link)
        table = await RemoteTable.open(link, table_id, timeout=timeout)
        self.remotes.append(table)
        return table

    async def kill(self, worker: Worker) -> None:
        """What ``kill -9`` does to a worker: everything of it stops without a word, its
        lease connection and NATS connection close (PostgreSQL ends its session)."""
        self.dead.add(id(worker))
        for task in [*worker._tasks, *(t for _, t in worker.bots.values())]:
            task.cancel()
        worker.registry.stop()
        await worker.leases.locks.close()
        await worker.link.nc.close()

    async def close(self) -> None:
        for table in self.remotes:
            await table.close()
        for worker in self.workers:
            if id(worker) not in self.dead:
                await worker.stop(0)
            else:
                await worker.registry.wait_stopped()
            await worker.link.nc.close()
        for link in self.links:
            await link.nc.close()
        for ledger in self.ledgers:
            ledger.close()


@pytest.fixture
async def cluster(postgres_db: StoreDb, nats_server: Nats) -> AsyncIterator[Cluster]:
    c = Cluster(postgres_db, nats_server)
    try:
        yield c
    finally:
        await c.close()


def accounts(url: str, cubes: dict[str, int], bots: dict[str, int] | None = None) -> None:
    with open_ledger(url) as ledger:
        for handle, funds in cubes.items():
            ledger.create_account(handle, "h", funds)
        for handle, funds in (bots or {}).items():
            ledger.create_account(handle, None, funds, bot=True)


async def test_two_workers_share_the_tables_none_served_twice(cluster: Cluster) -> None:
    config = config_of(cluster.url, cluster.nats)
    a, b = await cluster.pair(config)
    await wait_until(lambda: a.tables | b.tables == set(TABLES))
    assert a.tables.isdisjoint(b.tables)
    assert len(a.tables) == len(b.tables) == 2          # each its fair share
    for worker in (a, b):                               # served: in the registry and on NATS
        assert set(worker.hosts) == worker.tables == worker.leases.held
    for table_id in TABLES:                             # each answers through one host
        table = await cluster.remote(table_id)
        assert table.snapshot.seats == ()


async def test_a_gateway_plays_through_the_worker_serving_the_table(cluster: Cluster) -> None:
    accounts(cluster.url, {"alice": 1000, "bob": 1000})
    config = config_of(cluster.url, cluster.nats, ("t1",), lease_interval=MANUAL)
    worker = await cluster.worker(config)
    assert await worker.leases.tick() == {"t1"} and worker.tables == {"t1"}
    table = await cluster.remote("t1")
    await table.call("alice", act.Sit())
    await table.call("bob", act.Sit())
    await table.call("alice", act.Start())
    service = worker.registry["t1"].service
    assert service.table.game_id is not None
    await wait_until(lambda: table.snapshot.version == service.snapshot.version)
    assert [s.handle for s in table.snapshot.seats] == ["alice", "bob"]
    assert table.snapshot.pot == 20                     # both antes, seen by the gateway


async def test_a_dead_workers_tables_move_and_its_unfinished_game_is_refunded(
        cluster: Cluster) -> None:
    accounts(cluster.url, {"alice": 1000, "bob": 1000})
    config = config_of(cluster.url, cluster.nats)
    a, b = await cluster.pair(config)
    await wait_until(lambda: a.tables | b.tables == set(TABLES))
    table_id = min(a.tables)
    gateway = await cluster.remote(table_id)
    for handle in ("alice", "bob"):
        await gateway.call(handle, act.Sit())
    await gateway.call("alice", act.Start())
    game_id = a.registry[table_id].service.table.game_id
    cli = cluster.ledger()                              # the sysop's view: another connection
    await wait_until(lambda: cli.balances_of(["alice", "bob"]) == {"alice": 990, "bob": 990})
    theirs = set(a.tables)

    await cluster.kill(a)

    await wait_until(lambda: b.tables == set(TABLES))   # within a few of b's ticks
    assert b.leases.held == set(TABLES) and theirs <= set(b.hosts)
    game = cli.game(game_id)
    assert game.ended_at is not None and game.end_reason == f"cancelled: {MOVED_REASON}"
    assert cli.balances_of(["alice", "bob"]) == {"alice": 1000, "bob": 1000}
    assert cli.verify() == []
    # b serves the table with no game running, alice and bob seated again and their seats
    # held until a gateway's screen takes each back.
    service = b.registry[table_id].service
    assert service.table.game_id is None
    fresh = await cluster.remote(table_id)
    assert [s.handle for s in fresh.snapshot.seats] == ["alice", "bob"]
    assert service.held("alice") and service.held("bob")
    fresh.attach("alice")
    await fresh.call("alice", Return())
    assert not service.held("alice") and service.held("bob")


async def test_a_worker_whose_leases_are_lost_stops_serving_at_once(cluster: Cluster) -> None:
    accounts(cluster.url, {"alice": 1000, "bob": 1000})
    config = config_of(cluster.url, cluster.nats, ("t1",), lease_interval=MANUAL)
    worker = await cluster.worker(config)
    await worker.leases.tick()
    gateway = await cluster.remote("t1", timeout=0.5)
    await gateway.call("alice", act.Sit())
    service = worker.registry["t1"].service
    with psycopg.connect(cluster.url, autocommit=True) as conn:   # its session ended
        conn.execute("SELECT pg_terminate_backend(%s, 5000)", (worker.leases.locks.pid,))

    assert await worker.leases.tick() == set()          # it finds out at its next tick ...
    assert worker.tables == set() and worker.hosts == {}   # ... and serves nothing now
    with pytest.raises(TableUnreachable) as unreachable:
        await gateway.call("bob", act.Sit())
    assert unreachable.value.reason in ("no_host", "timeout")
    with pytest.raises(Exception) as closed:            # the table itself has stopped
        await service.call("bob", act.Sit())
    assert getattr(closed.value, "code", None) == "table_closed"
    assert await worker.leases.tick() == {"t1"}         # the next tick takes it again
    fresh = await cluster.remote("t1")
    assert fresh.snapshot.seats == ()


async def test_a_bot_account_sits_at_one_table_across_workers_and_is_freed_when_its_worker_dies(
        cluster: Cluster, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(seats, "RETRY", 0.05)           # a table without a bot asks again soon
    accounts(cluster.url, {}, bots={"Robo": 500, "Tin": 500})
    config = config_of(cluster.url, cluster.nats, ("t1", "t2"), bots=1, bot_policy="calling")
    a, b = await cluster.pair(config)
    await wait_until(lambda: len(a.tables) == len(b.tables) == 1)

    def bots_at(worker: Worker) -> dict[str, list[str]]:
        return {e.id: sorted(e.service.snapshot.bots) for e in worker.registry}

    await wait_until(lambda: all(len(seated) == 1 for w in (a, b)
                                 for seated in bots_at(w).values()))
    (a_table, [a_bot]), = bots_at(a).items()
    (b_table, [b_bot]), = bots_at(b).items()
    assert {a_bot, b_bot} == {"robo", "tin"}            # never the same account twice

    await cluster.kill(a)
    # b takes a's table over; a's bot is free again and sits there, for b.
    await wait_until(lambda: bots_at(b) == {a_table: [a_bot], b_table: [b_bot]})
    assert b.leases.bots == {"robo", "tin"}


async def test_a_seated_player_whose_gateway_is_gone_has_the_seat_held(
        cluster: Cluster) -> None:
    accounts(cluster.url, {"alice": 1000, "bob": 1000, "robo": 1000})
    online: set[str] | None = None
    config = config_of(cluster.url, cluster.nats, ("t1",), lease_interval=MANUAL,
                       reconnect_grace=600.0)
    clock = FakeClock()
    worker = await cluster.worker(config, online=lambda: online, check_every=3600.0,
                                  clock=clock, online_grace=10.0)
    await worker.leases.tick()
    gateway = await cluster.remote("t1")
    for handle in ("alice", "bob", "robo"):
        await gateway.call(handle, act.Sit())
    gateway.mark_bot("robo")
    for handle in ("alice", "robo"):                    # their screens are up; bob's is not
        gateway.attach(handle)
    service = worker.registry["t1"].service
    await wait_until(lambda: service.attached == {"alice", "robo"}
                     and service.snapshot.bots == {"robo"})
    assert worker.check_online() == 0                   # nobody knows who is online yet
    online = {"alice"}
    assert worker.check_online() == 0                   # alice is, on some gateway
    online = set()                   # alice's gateway is late with its announcements
    assert worker.check_online() == 0
    clock.advance(9.0)
    assert worker.check_online() == 0 and not service.held("alice")
    online = {"alice"}                                  # ... and back in time
    assert worker.check_online() == 0
    online = set()                                      # now it is gone
    await gateway.close()                               # (it shows no screen any more)
    assert worker.check_online() == 0
    clock.advance(9.0)
    assert worker.check_online() == 0
    clock.advance(1.0)                                  # missing for the whole grace
    assert worker.check_online() == 1
    await wait_until(lambda: service.held("alice"))
    assert service.attached == {"robo"}                 # the bot plays on
    assert not service.held("bob") and not service.held("robo")
    assert [s.handle for s in service.snapshot.seats] == ["alice", "bob", "robo"]


def test_the_worker_refuses_a_ledger_that_is_not_postgresql(tmp_path: Path, capsys) -> None:
    config = dataclasses.replace(Config(), ledger=dataclasses.replace(
        Config().ledger, path=str(tmp_path / "bbspoker.db")))
    assert run_worker(config) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "PostgreSQL" in err[0] and "[ledger] url" in err[0]
    assert not (tmp_path / "bbspoker.db").exists()


def test_the_worker_says_so_when_nats_cannot_be_reached(postgres_db: StoreDb, capsys,
                                                        monkeypatch) -> None:
    monkeypatch.setattr(node, "NATS_CONNECT_TIMEOUT", 0.5)
    config = config_of(postgres_db.target, "nats://127.0.0.1:1")
    assert run_worker(config) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cannot connect to NATS at nats://127.0.0.1:1" in err[0]


async def test_bbspoker_worker_serves_a_table_and_stops_on_sigterm(
        postgres_db: StoreDb, nats_server: Nats, tmp_path: Path) -> None:
    conf = tmp_path / "worker.toml"
    conf.write_text(f'[ledger]\nurl = "{postgres_db.target}"\n'
                    f'[cluster]\nnats = "{nats_server.url}"\nlease_interval = 0.1\n'
                    '[[tables]]\nid = "lounge"\nname = "Lounge"\n')
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    env.pop("BBSPOKER_DB", None)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bbspoker.cli", "--config", str(conf), "worker", "--name", "w1",
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    link = await Link.connect(nats_server.url, **FAST)
    try:
        table: RemoteTable | None = None
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 20
        while table is None:                            # until the worker serves it
            assert proc.returncode is None and loop.time() < deadline
            with contextlib.suppress(TableUnreachable):
                table = await RemoteTable.open(link, "lounge", timeout=1.0)
        assert table.snapshot.seats == () and table.snapshot.kind == "draw40"
        await table.close()
        proc.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(proc.wait(), 20) == 0
        err = (await proc.stderr.read()).decode()
        assert "worker w1 started" in err and "serving table lounge" in err
        assert "Traceback" not in err
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        await link.nc.close()


async def test_a_bot_with_a_stack_kept_at_a_table_taken_over_sits_with_that_stack(
        cluster: Cluster) -> None:
    """A Hold'em table whose worker died mid-hand keeps its players' stacks; the worker
    that takes it over seats its computer player with the stack it kept there, buying
    nothing more in: its CUBES and its stack stay as they were."""
    accounts(cluster.url, {}, bots={"Robo": 2000})
    with open_ledger(cluster.url) as ledger:
        ledger.buy_in("Robo", 300, table="h1")        # left there by the former worker
    rules = Config().table.with_keys(between_games=0, bots=1)
    config = dataclasses.replace(config_of(cluster.url, cluster.nats, ()),
                                 tables=(TableSpec("h1", "H1", "holdem", rules),))
    worker = await cluster.worker(config)
    await wait_until(lambda: "h1" in worker.tables)
    service = worker.registry["h1"].service
    await wait_until(lambda: [s.handle for s in service.snapshot.seats] == ["Robo"])
    assert service.table.stack("Robo") == 300
    with open_ledger(cluster.url) as ledger:
        assert ledger.balance("Robo") == 1700 and ledger.stack("Robo", table="h1") == 300
        assert ledger.verify() == []


def test_a_worker_and_bbspoker_serve_refuse_to_share_a_database(postgres_url: str,
                                                                capsys) -> None:
    """``bbspoker serve`` refunds every unfinished game at its start: it may not run on the
    database of gateways and workers (they hold the server lock together, shared), nor
    they on its."""
    from bbspoker.app import ServerRunning, hold_server_lock
    from bbspoker.cluster.node import share_ledger

    config = config_of(postgres_url, "nats://127.0.0.1:1")
    first, second = share_ledger(config, "worker"), share_ledger(config, "gateway")
    assert first is not None and second is not None          # they share it
    with pytest.raises(ServerRunning):
        hold_server_lock(postgres_url)
    first.close()
    second.close()
    with hold_server_lock(postgres_url):
        assert run_worker(config) == 1
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "a bbspoker serve is using" in err[0] and "worker" in err[0]
    held = share_ledger(config, "worker")                     # free again
    assert held is not None
    held.close()
