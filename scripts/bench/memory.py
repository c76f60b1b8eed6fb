"""Benchmark: server memory per idle logged-in session against a bare telnetlib3 server (issue 6, item 4).

Runs ``bbspoker serve`` in a subprocess, logs one session in (so that lazy
imports and the shared per-terminal-kind objects exist), reads the server's
``VmRSS`` from ``/proc/PID/status``, logs 1,000 more sessions in (TTYPE
``xterm``; they stay idle in the door's menu) and reads it again: the
difference divided by 1,000 is the memory per session. The baseline, in the
same run, is the bare telnetlib3 server of ``_light.py`` (a relay shell
reading lines) holding the same number of negotiated connections, measured
the same way. Target: <= 1.5x the bare figure per session.

Run: ``.venv/bin/python scripts/bench/memory.py [--quick] [--sessions N]``.
``--quick`` uses 20 sessions and both servers at once, for the suite.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (  # noqa: E402
    BenchClient, ServerProcess, connect_bare, connect_many, create_accounts, free_port,
    print_table, raise_fd_limit, scratch_dir, write_config)

from bbspoker.store.sqlite import Ledger  # noqa: E402

#: Seconds to let the server settle before reading its RSS (``--quick``: QUICK_SETTLE).
SETTLE = 1.0
QUICK_SETTLE = 0.25


async def rss_per_session(server: ServerProcess, count: int,
                          connect: Callable[[int], Awaitable[list[BenchClient]]],
                          settle: float = SETTLE) -> tuple[int, int]:
    """``(RSS KiB with one connection, RSS KiB with count + 1)`` of ``server``, where
    ``connect(n)`` opens n more served connections; each reading ``settle`` s after the
    connections."""
    clients = await connect(1)
    try:
        await asyncio.sleep(settle)
        first = server.rss_kib()
        clients += await connect(count)
        await asyncio.sleep(settle)
        return first, server.rss_kib()
    finally:
        for c in clients:
            await c.close()


async def measure(count: int, quick: bool = False) -> dict[str, tuple[int, int]]:
    """RSS before and after ``count`` sessions, for ``bbspoker`` and for ``bare``: one
    server after the other, or (``quick``, a smoke run) both at once with shorter
    settles."""
    raise_fd_limit()
    directory = scratch_dir()
    handles = iter(f"user{i:04d}" for i in range(count + 1))
    with Ledger(directory / "bench.db") as ledger:
        create_accounts(ledger, [f"user{i:04d}" for i in range(count + 1)])
    port = free_port()
    config = write_config(directory, port, server={"max_per_address": 64, "max_sessions_per_address": 5000})
    figures = {}
    settle = QUICK_SETTLE if quick else SETTLE

    async def bbspoker() -> None:
        async with ServerProcess(port, config) as server:
            figures["bbspoker"] = await rss_per_session(
                server, count,
                lambda n: connect_many(port, [next(handles) for _ in range(n)], concurrency=32),
                settle)

    async def bare(port: int) -> None:
        async with ServerProcess(port) as server:
            figures["bare"] = await rss_per_session(server, count,
                                                    lambda n: connect_bare(port, n), settle)

    if quick:
        await asyncio.gather(bbspoker(), bare(free_port()))
    else:
        await bbspoker()
        await bare(free_port())
    return {name: figures[name] for name in ("bbspoker", "bare")}


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the command line, measure, print the figures and PASS/MISS; exit status 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="20 sessions (smoke run)")
    parser.add_argument("--sessions", type=int, default=1000, help="sessions (default 1000)")
    args = parser.parse_args(argv)
    count = 20 if args.quick else args.sessions
    figures = asyncio.run(measure(count, args.quick))
    per = {name: (after - before) * 1024 / count for name, (before, after) in figures.items()}
    rows = [("server", "RSS 1 session KiB", f"RSS {count + 1} KiB", "per session KiB")]
    for name, (before, after) in figures.items():
        rows.append((name, before, after, f"{per[name] / 1024:.1f}"))
    print(f"server RSS with {count} idle sessions (logged in, in the menu for bbspoker)")
    print_table(rows)
    ratio = per["bbspoker"] / per["bare"]
    print(f"per session {per['bbspoker'] / 1024:.1f} KiB = {ratio:.2f}x the bare server's "
          f"{per['bare'] / 1024:.1f} KiB (target <= 1.5x): {'PASS' if ratio <= 1.5 else 'MISS'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
