"""Heads-up strength benchmarks of a game kind's computer players (``holdem_bots.py``,
``stud_bots.py``): each pair of policies plays ``--hands`` hands (``--quick``: 40, for
the suite) in the kind's simulator; printed per pair: CUBES per hand of the first seat
with its 95% confidence interval (the target: above zero), illegal actions, whether CUBES
were conserved, hands per second. Exit status 1 on an illegal action or CUBES lost."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any


def run_pairs(description: str, title: str, pairs: Sequence[tuple[str, str]],
              policy: Callable[[str], Any], simulate: Callable[..., Any],
              argv: list[str] | None = None) -> int:
    """The command line of one kind's benchmark: ``title`` heads the output (the game and
    its stakes), ``pairs`` are the default ``(first, second)`` policy names, ``policy``
    makes a policy from its name, ``simulate(policies, hands, seed=, progress=)`` is the
    kind's simulator. Returns the exit status."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--hands", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--pair", help=f"one pair only, e.g. {','.join(pairs[0])}")
    args = parser.parse_args(argv)
    hands = 40 if args.quick else args.hands
    chosen = [tuple(args.pair.split(","))] if args.pair else list(pairs)
    print(f"{title}, {hands:,} hands a pair, seed {args.seed}, {os.cpu_count()} cores")
    failed = False
    for first, second in chosen:
        progress = None
        if sys.stderr.isatty():
            progress = lambda n: print(f"\r  {n:,}", end="", file=sys.stderr)  # noqa: E731
        r = simulate([policy(first), policy(second)], hands, seed=args.seed,
                     progress=progress)
        s = r.seats[0]
        low, high = s.mean - s.ci95, s.mean + s.ci95
        failed |= r.illegal > 0 or not r.conserved
        print(f"  {first:>8} vs {second:<8} {s.mean:+8.2f} CUBES/hand  95% CI "
              f"[{low:+.2f}, {high:+.2f}]  {'above 0' if low > 0 else 'NOT above 0'}  "
              f"illegal {r.illegal}  conserved {r.conserved}  "
              f"{r.hands / r.seconds:,.0f} hands/s")
    return 1 if failed else 0
