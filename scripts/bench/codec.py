"""Benchmark: the table's wire format (``bbspoker.table.codec``): bytes of a typical
snapshot of each game kind and the microseconds to encode and decode it.

For each kind, computer players (random policy) play at a table of ``--seats`` seats (as
many as the kind allows, if fewer: Schiebe-Poker 4, draw40 5) through the real table
service on a clock the script moves, until a game has run for a few actions; that
snapshot (mid-hand, the player in turn known), a player's private cards and a
message are timed: the best of ``--repeat`` passes of ``--number`` encodes and decodes
each. Prints one line per kind and object.

Run: ``.venv/bin/python scripts/bench/codec.py [--quick] [--seats N] [--repeat N]``.
``--quick`` times a few hundred calls, so that the suite can run it.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time
from collections.abc import Callable
from typing import Any

from bbspoker.bots.kinds import bot_kind
from bbspoker.bots.player import BotPlayer
from bbspoker.rules import actions as act
from bbspoker.rules.base import KindSpec
from bbspoker.rules.kinds import KINDS
from bbspoker.rules.money import SYSTEM
from bbspoker.store.wallet import MemoryWallet
from bbspoker.table import codec
from bbspoker.table.bus import Bus
from bbspoker.table.registry import TableWallet
from bbspoker.table.service import PrivateCards, TableMessage, TableService, TableSnapshot

HANDLES = ("ann", "bob", "cy", "dee", "eve", "fay", "gus", "hal", "ivy")


class Clock:
    """A clock the script moves (seconds)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def _no_sleep(_seconds: float) -> None:
    await asyncio.sleep(0)


async def mid_hand(spec: KindSpec, seats: int, actions: int = 6
                   ) -> tuple[TableSnapshot, PrivateCards, TableMessage]:
    """A snapshot of a table of ``spec`` once a game has run ``actions`` steps, a private
    view and the last public message of it."""
    seats = min(seats, spec.config.of({}).seats if spec.name != "schiebe" else 4,
                5 if spec.name == "draw40" else 9)
    wallet = MemoryWallet({h: 100_000 for h in HANDLES} | {SYSTEM: 0})
    clock = Clock()
    game = spec.make(spec.config.of({"seats": seats}), TableWallet(wallet, spec.name), None)
    service = TableService(game, Bus(), clock)
    tasks = [asyncio.create_task(service.run())]
    kind = bot_kind(spec.name)
    for i, h in enumerate(HANDLES[:seats]):
        await service.call(h, act.Sit())
        bot = BotPlayer(service, h, kind.policy("random"), lambda: list(service.table.handles),
                        rng=random.Random(i), sleep=_no_sleep)
        tasks.append(asyncio.create_task(bot.run()))
    sub = service.bus.subscribe(viewer=HANDLES[0])
    message: TableMessage | None = None
    cards: PrivateCards | None = None
    try:
        in_game = 0
        for _ in range(10_000):
            for _ in range(5):
                await asyncio.sleep(0)
            for item in sub.drain():
                if isinstance(item, TableMessage) and item.to is None:
                    message = item
                elif isinstance(item, PrivateCards) and item.cards:
                    cards = item
            snap = service.snapshot
            if snap.pot is not None and snap.current is not None:
                in_game += 1
                if in_game >= actions and message is not None and cards is not None:
                    return snap, cards, message
            clock.now += 1.0
            service.wake()
        raise RuntimeError(f"no game of {spec.name} got going")
    finally:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def best_us(call: Callable[[], object], number: int, repeat: int) -> float:
    """Fastest of ``repeat`` passes of ``number`` calls, in microseconds per call."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            call()
        best = min(best, time.perf_counter() - start)
    return best / number * 1e6


def measure(obj: Any, number: int, repeat: int) -> tuple[int, float, float]:
    """(bytes, µs to encode, µs to decode) of ``obj``; checks it comes back equal."""
    data = codec.encode(obj)
    assert codec.decode(data) == obj
    return (len(data), best_us(lambda: codec.encode(obj), number, repeat),
            best_us(lambda: codec.decode(data), number, repeat))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few hundred calls (tests)")
    parser.add_argument("--seats", type=int, default=9, help="seats per table (at most)")
    parser.add_argument("--repeat", type=int, default=5, help="timed passes (best taken)")
    args = parser.parse_args(argv)
    number, repeat = (200, 1) if args.quick else (5000, args.repeat)
    codec.registry()
    print(f"calls per pass: {number:,}, best of {repeat}")
    print(f"{'kind':8} {'object':14} {'seats':>5} {'bytes':>6} {'encode µs':>10} "
          f"{'decode µs':>10}")
    for spec in KINDS:
        snap, cards, message = asyncio.run(mid_hand(spec, args.seats))
        for name, obj in (("snapshot", snap), ("private cards", cards),
                          ("message", message)):
            size, enc, dec = measure(obj, number, repeat)
            print(f"{spec.name:8} {name:14} {len(snap.seats):5} {size:6} {enc:10.1f} "
                  f"{dec:10.1f}")


if __name__ == "__main__":
    main()
