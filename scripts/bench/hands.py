"""Benchmark: hands per second of bbspoker.rules.draw40.hands against treys (issue 6, item 1).

Ranks every five-card hand of the 40-card deck (658,008) with
``bbspoker.rules.draw40.hands.evaluate`` (``strength`` is the same function) and with the
bulk ``strengths`` (one numpy array of card indices), and as many random
52-card hands with ``treys.Evaluator().evaluate`` in the same run; prints
hands/s and the ratio to treys (targets: evaluate >= 1.5x, strengths >= 10x).
Each figure is the best of ``--repeat`` timed passes over the same hands; the
evaluators take turns, so that a change of load on the machine hits all alike.

Run: ``.venv/bin/python scripts/bench/hands.py [--quick] [--repeat N]``.
``--quick`` ranks 2,000 hands once, so that the suite can run it.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from itertools import combinations, islice

import numpy as np
from treys import Card as TreysCard
from treys import Evaluator

from bbspoker.rules.cards import DECK
from bbspoker.rules.draw40.hands import evaluate, strengths

ALL_HANDS = 658_008


def one_pass(rank: Callable[..., object], *columns: Sequence[object]) -> Callable[[], None]:
    """A timed pass: call ``rank`` on every row of ``columns``."""
    def run_pass() -> None:
        for _value in map(rank, *columns):
            pass
    return run_pass


def best_seconds(passes: dict[str, Callable[[], None]], repeat: int) -> dict[str, float]:
    """Fastest of ``repeat`` runs of each pass, in seconds; the passes take turns, so that
    a change in the machine's load during the run affects all of them alike."""
    best = dict.fromkeys(passes, float("inf"))
    for _ in range(repeat):
        for name, run_pass in passes.items():
            start = time.perf_counter()
            run_pass()
            best[name] = min(best[name], time.perf_counter() - start)
    return best


def import_seconds() -> float:
    """Seconds to import bbspoker.rules.draw40.hands (its tables are built at import) in a fresh interpreter."""
    code = ("import time, bbspoker.rules.cards; t = time.perf_counter(); import bbspoker.rules.draw40.hands; "
            "print(time.perf_counter() - t)")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return float(out.stdout)


def run(count: int = ALL_HANDS, repeat: int = 3, seed: int = 1) -> dict[str, float]:
    """Measure; returns hands/s for each evaluator, the ratios to treys and the import time."""
    ours = list(islice(combinations(DECK, 5), count))
    indices = np.array([[card.index for card in hand] for hand in ours], dtype=np.int64)
    treys_deck = [TreysCard.new(r + s) for r in "23456789TJQKA" for s in "shdc"]
    rng = random.Random(seed)
    deals = [rng.sample(treys_deck, 5) for _ in ours]
    holes = [cards[:2] for cards in deals]  # treys' call: two hole cards, three on the board
    boards = [cards[2:] for cards in deals]
    n = len(ours)
    strengths(indices[:1])  # its numpy tables are built on first use; not part of the timing
    seconds = best_seconds({
        "treys": one_pass(Evaluator().evaluate, holes, boards),
        "evaluate": one_pass(evaluate, ours),
        "strengths": lambda: strengths(indices),
    }, repeat)
    figures = {name: n / s for name, s in seconds.items()}
    figures.update(hands=n, import_s=import_seconds())
    figures["evaluate_ratio"] = figures["evaluate"] / figures["treys"]
    figures["strengths_ratio"] = figures["strengths"] / figures["treys"]
    return figures


def main(argv: Sequence[str] | None = None) -> None:
    """Parse the command line, measure, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2,000 hands, one pass (smoke run)")
    parser.add_argument("--repeat", type=int, default=3, help="timed passes, best counts (default 3)")
    args = parser.parse_args(argv)
    f = run(2_000, 1) if args.quick else run(ALL_HANDS, args.repeat)
    print(f"hands ranked per evaluator: {f['hands']:,} (cores: {os.cpu_count()})")
    print(f"treys.Evaluator().evaluate   {f['treys']:>12,.0f} hands/s")
    print(f"bbspoker.rules.draw40.hands.evaluate      {f['evaluate']:>12,.0f} hands/s  "
          f"ratio {f['evaluate_ratio']:.2f}x treys (target >= 1.5x)")
    print("bbspoker.rules.draw40.hands.strength      the same function as evaluate (a HandValue is the int)")
    print(f"bbspoker.rules.draw40.hands.strengths     {f['strengths']:>12,.0f} hands/s  "
          f"ratio {f['strengths_ratio']:.2f}x treys (target >= 10x; numpy, one call)")
    print(f"import bbspoker.rules.draw40.hands (tables built): {f['import_s'] * 1000:.1f} ms")


if __name__ == "__main__":
    main()
