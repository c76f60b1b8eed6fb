"""The composition root: the garbage collector's policy in ``bbspoker serve``."""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import os
import signal
import weakref
from collections.abc import Iterator

import pytest

from bbspoker import app as app_module
from bbspoker import process
from bbspoker.app import GC_FULL_EVERY, GC_THRESHOLDS, Collector
from bbspoker.config import Config
from tests.support.tableplay import join, table_world
from tests.support.telnetclient import wait_until


@pytest.fixture
def collector_state() -> Iterator[None]:
    """The test process's collector as it was, afterwards (a test freezes the heap)."""
    thresholds = gc.get_threshold()
    gc.unfreeze()
    try:
        yield
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)


def frozen(obj: object) -> bool:
    """``obj`` is in the permanent generation: no collection looks at it."""
    return gc.is_tracked(obj) and all(o is not obj for o in gc.get_objects())


async def test_serve_freezes_the_start_up_heap_with_its_tables_and_sets_the_thresholds(
        tmp_path, monkeypatch, collector_state):
    config = Config()
    config = dataclasses.replace(
        config, server=dataclasses.replace(config.server, port=0),
        ssh=dataclasses.replace(config.ssh, enabled=False),
        web=dataclasses.replace(config.web, enabled=False),
        ledger=dataclasses.replace(config.ledger, path=str(tmp_path / "serve.db")))
    made = []
    start_server = app_module.start_server

    async def spied(*args, **kwargs):
        made.append(server := await start_server(*args, **kwargs))
        return server

    monkeypatch.setattr(app_module, "start_server", spied)
    gc.set_threshold(700, 10, 10)
    serving = asyncio.create_task(app_module._serve_forever(config))
    try:
        await wait_until(lambda: gc.get_freeze_count() > 0, timeout=30)
        assert gc.get_threshold() == GC_THRESHOLDS
        assert any(isinstance(getattr(cb, "__self__", None), Collector) for cb in gc.callbacks)
        (server,) = made
        (entry,) = server.app.tables
        assert frozen(entry.service) and frozen(server.app)
    finally:
        if made:                # listening: _serve_forever's own SIGTERM handler stops it
            os.kill(os.getpid(), signal.SIGTERM)
            assert await asyncio.wait_for(serving, 30) == 0
        else:
            serving.cancel()
    assert not any(isinstance(getattr(cb, "__self__", None), Collector) for cb in gc.callbacks)


async def screens_at(server, handles):
    """Weak references to the sessions of ``handles`` and to their table subscriptions
    and screens (the subscribers)."""
    (entry,) = server.app.tables
    subs = list(entry.service.bus._subscribers)
    assert len(subs) == len(handles)
    return ([weakref.ref(server.app.find_online(h)) for h in handles]
            + [weakref.ref(sub) for sub in subs] + [weakref.ref(s._notify.__self__) for s in subs])


async def sit_and_watch(connect, player: str, spectator: str):
    p, s = await connect(player), await connect(spectator)
    await join(p, "")
    await s.send("p")
    await s.wait_for("Join the table? (y/n)")
    await s.send("w")
    await s.wait_for("You are watching")
    return p, s


async def test_a_player_and_a_spectator_who_leave_are_freed_frozen_or_not(
        tmp_path, collector_state):
    """What ends before the collector froze it (Collector.age: what lived a few seconds)
    is freed by the young collections; what was frozen, by the full collection (at most
    once an hour): a closed session, its screen and its table subscription."""
    collector = Collector()
    async with table_world(tmp_path) as (server, connect, advance):
        collector.start()
        for freeze in (False, True):
            player, spectator = await sit_and_watch(connect, f"p{freeze}", f"s{freeze}")
            refs = await screens_at(server, [f"p{freeze}", f"s{freeze}"])
            if freeze:
                collector.age()
                assert all(frozen(ref()) for ref in refs)
            await player.close()
            await spectator.close()
            await wait_until(lambda: not server.app.sessions)
            witness = await connect("witness")       # telnetlib3 forgets closed protocols
            collector.full() if freeze else gc.collect()
            assert [ref() for ref in refs] == [None] * len(refs)
            await witness.close()
            await wait_until(lambda: not server.app.sessions)


def test_a_cycle_that_dies_frozen_waits_for_the_full_collection_at_most_an_hour(
        monkeypatch, collector_state):
    monkeypatch.setattr(process, "GC_FULL_GROWTH", 0.0)   # as if the heap had grown
    now = [0.0]
    collector = Collector(clock=lambda: now[0])
    collector.start()

    class Node:
        pass

    node = Node()
    node.me = node                                   # a cycle
    ref = weakref.ref(node)
    collector.age()
    assert frozen(node)
    del node
    now[0] = GC_FULL_EVERY - 1
    collector.age()
    assert ref() is not None                         # frozen: no young collection frees it
    now[0] = GC_FULL_EVERY
    collector.age()
    assert ref() is None


async def test_the_collector_freezes_the_survivors_after_every_second_middle_collection(
        collector_state):
    """Objects reach the oldest generation only through the middle generation's
    collections: after GC_FREEZE_AFTER of them the survivors are collected and frozen, in
    the event loop soon after (however late its timers run), and not before."""
    collector = Collector()
    aged: list[int] = []
    age = collector.age
    collector.age = lambda: (aged.append(1), age())  # type: ignore[method-assign]
    collector.watch(asyncio.get_running_loop())
    try:
        for _ in range(app_module.GC_FREEZE_AFTER - 1):
            gc.collect(1)
        await asyncio.sleep(0)
        assert aged == []
        gc.collect(1)
        await asyncio.sleep(0)
        assert aged == [1]
        gc.collect(1)                                # counted from zero again
        await asyncio.sleep(0)
        assert aged == [1]
    finally:
        collector.unwatch()
    for _ in range(2 * app_module.GC_FREEZE_AFTER):
        gc.collect(1)
    await asyncio.sleep(0)
    assert aged == [1]                               # no longer watching
