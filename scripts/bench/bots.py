"""Benchmark: how strong the computer players are and how fast the simulator is (issue 15).

1. Heads-up draw40, ``--games`` games a pair (default 20,000): ``equity`` against
   ``calling``, ``random`` and ``aggressive``, and the baselines against each other;
   CUBES per game of the first seat with its 95% confidence interval. Target: equity's
   interval above zero against each baseline.
2. A five-handed mixed table (equity, calling, calling, random, aggressive), as many games.
3. Simulator speed on one core: complete 5-player games per second of the real rules
   with the baseline policies (target >= 1,000), and with ``equity`` in one seat.
4. A long run of ``--long`` games (default 100,000) of baseline and equity policies,
   rotating the mixes: illegal actions (target 0), CUBES conserved after every game,
   every game ended.

Run: ``.venv/bin/python scripts/bench/bots.py [--quick] [--games N] [--long N] [--seed S]``.
``--quick`` plays 100 games a pair, for the speed and 500 long, so that the suite can run
it.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
if str(ROOT / "src") not in sys.path:
    sys.path.insert(0, str(ROOT / "src"))

from bbspoker.bots.draw40.policies import policy  # noqa: E402
from bbspoker.bots.draw40 import simulate  # noqa: E402
from bbspoker.bots.sim import SimResult  # noqa: E402

PAIRS = [("equity", "calling"), ("equity", "random"), ("equity", "aggressive"),
         ("calling", "random"), ("calling", "aggressive"), ("random", "aggressive")]
MIXED = ["equity", "calling", "calling", "random", "aggressive"]
BASELINE5 = ["calling", "random", "aggressive", "calling", "random"]
LONG_MIXES = [BASELINE5, ["random"] * 5, MIXED, ["aggressive", "calling"], ["random", "equity"]]


def _row(label: str, result: SimResult, seat: int = 0) -> str:
    s = result.seats[seat]
    low, high = s.mean - s.ci95, s.mean + s.ci95
    return (f"  {label:<24} {s.mean:>+9.2f} CUBES/game  95% CI [{low:+.2f}, {high:+.2f}]  "
            f"({result.games:,} games, {result.games_per_second:,.0f} games/s, "
            f"illegal {result.illegal})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes, for the suite")
    parser.add_argument("--games", type=int, default=20_000, help="games per match")
    parser.add_argument("--long", type=int, default=100_000, help="games of the long run")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    games, long_games = (100, 500) if args.quick else (args.games, args.long)
    failures: list[str] = []

    print(f"1. heads-up draw40, {games:,} games a pair (first seat's result)")
    for a, b in PAIRS:
        r = simulate([policy(a), policy(b)], games, seed=args.seed)
        print(_row(f"{a} vs {b}", r))
        s = r.seats[0]
        if a == "equity" and not s.mean - s.ci95 > 0:
            failures.append(f"equity vs {b}: CI not above zero")

    print(f"\n2. five-handed mixed table, {games:,} games")
    r = simulate([policy(n) for n in MIXED], games, seed=args.seed)
    for seat, name in enumerate(MIXED):
        print(_row(f"seat {seat + 1} {name}", r, seat))

    print("\n3. simulator speed, 5 players, one core")
    speed = games if args.quick else max(games, 2_000)
    for label, names in (("baselines", BASELINE5), ("with equity", MIXED)):
        began = time.process_time()
        r = simulate([policy(n) for n in names], speed, seed=args.seed)
        cpu = time.process_time() - began
        print(f"  {label:<12} {r.games / cpu:>8,.0f} games/s of CPU time "
              f"({r.actions / r.games:.1f} actions/game, {r.games:,} games)")
        if label == "baselines" and r.games / cpu < 1000:
            failures.append(f"baseline speed {r.games / cpu:,.0f} games/s < 1,000")

    print(f"\n4. long run, {long_games:,} games over {len(LONG_MIXES)} mixes")
    illegal = done = actions = 0
    each = long_games // len(LONG_MIXES)
    for i, names in enumerate(LONG_MIXES):
        n = each if i < len(LONG_MIXES) - 1 else long_games - each * i
        r = simulate([policy(x) for x in names], n, seed=args.seed + i)
        illegal += r.illegal
        done += r.games
        actions += r.actions
        if not r.conserved:
            failures.append(f"CUBES not conserved with {names}")
    print(f"  {done:,} games ended, {actions:,} actions, illegal actions {illegal}, "
          f"CUBES conserved after every game: {'yes' if not failures else 'see below'}")
    if illegal:
        failures.append(f"{illegal} illegal actions")

    for f in failures:
        print(f"MISS: {f}")
    if not failures:
        print("\nall targets met")
    return 1 if failures and not args.quick else 0


if __name__ == "__main__":
    sys.exit(main())
