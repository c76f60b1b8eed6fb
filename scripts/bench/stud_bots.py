"""Benchmark: how strong the seven-card stud computer players are.

Heads-up fixed-limit seven-card stud 10/20 (ante 1, bring-in 3) at a real table,
``--hands`` hands a pair (default 20,000): ``strength`` against ``calling`` and against ``random``; CUBES per hand of the first
seat with its 95% confidence interval. Target: strength's interval above zero against both.
Also: illegal actions (target 0), CUBES conserved after every hand, hands per second.

Run: ``.venv/bin/python scripts/bench/stud_bots.py [--quick] [--hands N] [--seed S]
[--pair strength,calling]``. ``--quick`` plays 40 hands a pair, so that the suite can run it.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
if str(ROOT / "src") not in sys.path:
    sys.path.insert(0, str(ROOT / "src"))

from bbspoker.bots.stud import simulate_stud, stud_policy  # noqa: E402

PAIRS = [("strength", "calling"), ("strength", "random")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--hands", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--pair", help="one pair only, e.g. strength,calling")
    args = parser.parse_args(argv)
    hands = 40 if args.quick else args.hands
    pairs = [tuple(args.pair.split(","))] if args.pair else PAIRS
    print(f"Stud heads-up, 10/20 ante 1 bring-in 3, {hands:,} hands a pair, seed {args.seed}, "
          f"{os.cpu_count()} cores")
    failed = False
    for first, second in pairs:
        progress = None
        if sys.stderr.isatty():
            progress = lambda n: print(f"\r  {n:,}", end="", file=sys.stderr)  # noqa: E731
        r = simulate_stud([stud_policy(first), stud_policy(second)], hands,
                            seed=args.seed, progress=progress)
        s = r.seats[0]
        low, high = s.mean - s.ci95, s.mean + s.ci95
        ok = low > 0
        failed |= r.illegal > 0 or not r.conserved
        print(f"  {first:>8} vs {second:<8} {s.mean:+8.2f} CUBES/hand  95% CI "
              f"[{low:+.2f}, {high:+.2f}]  {'above 0' if ok else 'NOT above 0'}  "
              f"illegal {r.illegal}  conserved {r.conserved}  "
              f"{r.hands / r.seconds:,.0f} hands/s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
