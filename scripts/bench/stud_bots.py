"""Benchmark: how strong the seven-card stud computer players are.

Heads-up fixed-limit seven-card stud 10/20 (ante 1, bring-in 3) at a real table,
``--hands`` hands a pair (default 20,000): ``strength`` against ``calling`` and against ``random``; CUBES per hand of the first
seat with its 95% confidence interval. Target: strength's interval above zero against both.
Also: illegal actions (target 0), CUBES conserved after every hand, hands per second.

Run: ``.venv/bin/python scripts/bench/stud_bots.py [--quick] [--hands N] [--seed S]
[--pair strength,calling]``. ``--quick`` plays 40 hands a pair, so that the suite can run it.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
if str(ROOT / "src") not in sys.path:
    sys.path.insert(0, str(ROOT / "src"))

from _pairs import run_pairs  # noqa: E402
from bbspoker.bots.stud import simulate_stud, stud_policy  # noqa: E402

PAIRS = [("strength", "calling"), ("strength", "random")]


def main(argv: list[str] | None = None) -> int:
    return run_pairs(__doc__.split("\n\n")[0], "Stud heads-up, 10/20 ante 1 bring-in 3", PAIRS, stud_policy, simulate_stud, argv)


if __name__ == "__main__":
    sys.exit(main())
