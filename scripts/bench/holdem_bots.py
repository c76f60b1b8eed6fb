"""Benchmark: how strong the Hold'em computer players are (issue 16).

Heads-up fixed-limit Hold'em 10/20 at a real table, ``--hands`` hands a pair (default
20,000): ``equity`` against ``calling`` and against ``random``; CUBES per hand of the first
seat with its 95% confidence interval. Target: equity's interval above zero against both.
Also: illegal actions (target 0), CUBES conserved after every hand, hands per second.

Run: ``.venv/bin/python scripts/bench/holdem_bots.py [--quick] [--hands N] [--seed S]
[--pair equity,calling]``. ``--quick`` plays 40 hands a pair, so that the suite can run it.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
if str(ROOT / "src") not in sys.path:
    sys.path.insert(0, str(ROOT / "src"))

from _pairs import run_pairs  # noqa: E402
from bbspoker.bots.holdem import holdem_policy, simulate_holdem  # noqa: E402

PAIRS = [("equity", "calling"), ("equity", "random")]


def main(argv: list[str] | None = None) -> int:
    return run_pairs(__doc__.split("\n\n")[0], "Hold'em heads-up, 10/20", PAIRS, holdem_policy, simulate_holdem, argv)


if __name__ == "__main__":
    sys.exit(main())
