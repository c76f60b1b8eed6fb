"""Benchmark: how much server time per action fits within latency.py's 2x target (issue 6).

latency.py compares bbspoker with a bare telnetlib3 relay. This script asks
the converse question, with no bbspoker in it: the same relay made to spend
a known CPU time per line (``before`` us once the line is read, ``each`` us
before each of the four sends, like a table step and four screens) and to
send updates padded to a screen update's size, timed the same way as the
plain relay, samples alternating. The work that still gives p99 <= 2x the
plain relay's is the server-side budget of one action on this machine.

Run: ``.venv/bin/python scripts/bench/budget.py [--quick] [--lines N] [--pad B]
[--work BEFORE:EACH ...]``. ``--quick``: 20 lines and one setting, for the suite.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (  # noqa: E402
    BenchClient, ServerProcess, connect_bare, free_port, percentile, print_table)
from latency import relay_line  # noqa: E402

#: (us before the sends, us before each send): 0.3 ms to 0.9 ms of work per action.
DEFAULT_WORK = ((100, 50), (200, 60), (250, 100), (370, 130))


async def measure(lines: int, pad: int, settings: Sequence[tuple[float, float]]
                  ) -> tuple[list[list[float]], list[list[list[float]]]]:
    """The plain relay's samples and each setting's (s), one line of each in turn."""
    # Every server's process starts at once (they start up side by side; the lines are
    # relayed once all are up); each is stopped below even if it never starts.
    plain_server = ServerProcess(free_port())
    servers = [ServerProcess(free_port(), work=(before, each, pad)) for before, each in settings]
    plain: list[BenchClient] = []
    groups: list[list[BenchClient]] = []
    try:
        await plain_server.__aenter__()
        plain = await connect_bare(plain_server.port, 5)
        for server in servers:
            await server.__aenter__()
            groups.append(await connect_bare(server.port, 5))
        base: list[list[float]] = []
        worked: list[list[list[float]]] = [[] for _ in settings]
        for n in range(lines):
            base.append(await relay_line(plain, n))
            for samples, clients in zip(worked, groups):
                samples.append(await relay_line(clients, n))
    finally:
        for c in [*plain, *(c for g in groups for c in g)]:
            await c.close()
        for server in (plain_server, *servers):
            await server.__aexit__()
    return base, worked


def _work(text: str) -> tuple[float, float]:
    """``BEFORE:EACH`` (us, each >= 0) as a pair; ``argparse.ArgumentTypeError`` otherwise."""
    try:
        before, each = (float(v) for v in text.split(":"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected BEFORE:EACH in us, e.g. 250:100, not {text!r}")
    if before < 0 or each < 0:
        raise argparse.ArgumentTypeError(f"work cannot be negative: {text!r}")
    return before, each


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the command line, measure, print each setting's p50, p99 and ratio; exit 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="20 lines, one setting")
    parser.add_argument("--lines", type=int, default=600, help="lines per server (default 600)")
    parser.add_argument("--pad", type=int, default=180,
                        help="bytes added to each update (default 180: a bet's update)")
    parser.add_argument("--work", nargs="+", type=_work, metavar="BEFORE:EACH",
                        help="us of work before the sends and before each send")
    args = parser.parse_args(argv)
    settings = args.work or list(DEFAULT_WORK)
    lines = args.lines
    if args.quick:
        lines, settings = 20, settings[:1]
    base, worked = asyncio.run(measure(lines, args.pad, settings))
    base_p99 = percentile([max(s) for s in base], 99)
    rows: list[tuple[object, ...]] = [("relay", "work per action (us)", "p50 all 4", "p99 all 4",
                                       "p99 vs plain")]
    rows.append(("plain", 0, f"{percentile([max(s) for s in base], 50) * 1000:.2f}",
                 f"{base_p99 * 1000:.2f}", "1.00x"))
    for (before, each), samples in zip(settings, worked):
        last = [max(s) for s in samples]
        rows.append((f"{before:g} + 4 x {each:g}", f"{before + 4 * each:g}",
                     f"{percentile(last, 50) * 1000:.2f}", f"{percentile(last, 99) * 1000:.2f}",
                     f"{percentile(last, 99) / base_p99:.2f}x"))
    print(f"the bare relay with simulated work per line, {lines} lines each, "
          f"updates padded by {args.pad} B (ms)")
    print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
