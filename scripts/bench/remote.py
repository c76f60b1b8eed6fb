"""Benchmark: a table served over NATS (``bbspoker.table.remote``): microseconds per command
round trip and per published snapshot, through a local ``nats-server``.

A throwaway ``nats-server`` (``tests/support/nats.py``) runs on 127.0.0.1; a heads-up
Hold'em table (alice and bob) is served by a ``TableHost`` on one connection and followed
by a ``RemoteTable`` on another, both in this process's one event loop (so each figure is
the CPU of both ends plus the server's hop). Timed, the best of ``--repeat`` passes of
``--number`` each:

- ``touch``: a command with no table step (``Touch``: codec, NATS, the reply ``Done``);
- ``look``: the snapshot query (a mid-hand snapshot as the reply);
- ``check/call``: a game action through the remote table (the table's step, its snapshot
  and private cards published to the gateway, then the reply), one after the other, and
  the same action in-process (``TableService.call``) for comparison;
- ``snapshot``: the table's snapshot published ``--number`` times (each a new version),
  from the host's bus to the gateway's bus, pipelined: total time over the count.

Run: ``.venv/bin/python scripts/bench/remote.py [--quick] [--number N] [--repeat N]``.
``--quick`` times a couple of hundred of each, so that the suite can run it.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import random
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bbspoker.rules import actions as act  # noqa: E402
from bbspoker.rules.holdem.game import Holdem, HoldemRules  # noqa: E402
from bbspoker.rules.money import SYSTEM  # noqa: E402
from bbspoker.store.wallet import MemoryWallet  # noqa: E402
from bbspoker.table import codec  # noqa: E402
from bbspoker.table.bus import Bus  # noqa: E402
from bbspoker.table.commands import Look, Touch  # noqa: E402
from bbspoker.table.registry import TableWallet  # noqa: E402
from bbspoker.table.remote import Link, RemoteTable, TableHost  # noqa: E402
from bbspoker.table.service import TableService  # noqa: E402
from tests.support.nats import start_nats  # noqa: E402


class Clock:
    """A clock that moves only when told (seconds): no turn runs out while timing."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def table() -> TableService:
    """A heads-up Hold'em table with deep stacks (many hands of check/call)."""
    wallet = MemoryWallet({"alice": 10**9, "bob": 10**9, SYSTEM: 0})
    game = Holdem(TableWallet(wallet, "holdem"),
                  HoldemRules(buy_in_max=10**8, between_hands=0), rng=random.Random(1))
    return TableService(game, Bus(), Clock())


async def best_us(step: Callable[[], Awaitable[object]], number: int, repeat: int) -> float:
    """Fastest of ``repeat`` passes of ``number`` awaited calls, µs per call."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            await step()
        best = min(best, time.perf_counter() - start)
    return best / number * 1e6


async def check_call(service: TableService, call: Callable[[str, act.Action],
                                                           Awaitable[None]]) -> None:
    """The player in turn checks or calls (a new hand is dealt when one ends)."""
    while service.table.current is None:
        service.wake()
        await asyncio.sleep(0)
    await call(service.table.current, act.CheckCall())


async def run(number: int, repeat: int) -> list[tuple[str, float, str]]:
    server = start_nats()
    service = table()
    task = asyncio.create_task(service.run())
    host_link = await Link.connect(server.url)
    gate_link = await Link.connect(server.url)
    host = TableHost(host_link, service, "bench")
    rows: list[tuple[str, float, str]] = []
    try:
        await host.start()
        remote = await RemoteTable.open(gate_link, "bench")
        sub = remote.bus.subscribe(viewer="alice", notify=lambda: sub.drain())
        await remote.settle()
        await remote.call("alice", act.Sit(buy_in=10**8))
        await remote.call("bob", act.Sit(buy_in=10**8))
        await check_call(service, remote.call)

        rows.append(("touch round trip", await best_us(
            lambda: remote._request(Touch("alice")), number, repeat), "no table step"))
        snap_bytes = len(codec.encode(service.snapshot))
        rows.append(("look round trip", await best_us(
            lambda: remote._request(Look()), number, repeat), f"reply {snap_bytes} bytes"))
        rows.append(("check/call remote", await best_us(
            lambda: check_call(service, remote.call), number, repeat),
            "step, its items to the gateway, reply"))
        rows.append(("check/call in-process", await best_us(
            lambda: check_call(service, service.call), number, repeat), "TableService.call"))

        snap = service.snapshot
        best = float("inf")
        for _ in range(repeat):
            # Far above the table's own versions: a snapshot the table publishes meanwhile
            # (its clock's tick) is older than these and dropped by the remote table.
            base = max(service.snapshot.version, remote.snapshot.version) + 1_000_000
            start = time.perf_counter()
            for i in range(number):
                service.bus.publish(dataclasses.replace(snap, version=base + i), key="table")
            # Until the last one is the remote table's (counting arrivals would also count
            # what the table publishes meanwhile, and stop early).
            async with asyncio.timeout(30):
                while remote.snapshot.version != base + number - 1:
                    await asyncio.sleep(0)
            best = min(best, time.perf_counter() - start)
        rows.append(("snapshot published", best / number * 1e6,
                     f"{snap_bytes} bytes, host bus to gateway bus"))
        await remote.close()
    finally:
        await host.stop()
        await host_link.close()
        await gate_link.close()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        server.stop()
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a couple of hundred (tests)")
    parser.add_argument("--number", type=int, default=2000, help="calls per timed pass")
    parser.add_argument("--repeat", type=int, default=5, help="timed passes (best taken)")
    args = parser.parse_args(argv)
    number, repeat = (200, 1) if args.quick else (args.number, args.repeat)
    codec.registry()
    rows = asyncio.run(run(number, repeat))
    print(f"calls per pass: {number:,}, best of {repeat}; heads-up Hold'em, local nats-server")
    print(f"{'what':24} {'µs':>8}  note")
    for name, us, note in rows:
        print(f"{name:24} {us:8.1f}  {note}")


if __name__ == "__main__":
    main()
