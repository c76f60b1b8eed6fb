"""Benchmark: how strong the Hold'em computer players are.

Heads-up Hold'em at a real table, ``--hands`` hands a pair (default 20,000): ``equity``
against ``calling`` and against ``random``; CUBES per hand of the first seat with its 95%
confidence interval. Target: equity's interval above zero against both. Also: illegal
actions (target 0; at pot and no limit an amount the table refuses counts), CUBES
conserved after every hand, hands per second. ``--limit fixed`` (the default) plays
fixed-limit 10/20, ``--limit no`` no-limit and ``--limit pot`` pot-limit with the same
blinds, 5/10 (deep stacks: 100 big blinds, topped up between hands).

Run: ``.venv/bin/python scripts/bench/holdem_bots.py [--quick] [--hands N] [--seed S]
[--pair equity,calling] [--limit fixed|pot|no]``. ``--quick`` plays 40 hands a pair, so
that the suite can run it.
"""

from __future__ import annotations

import argparse
import functools
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
if str(ROOT / "src") not in sys.path:
    sys.path.insert(0, str(ROOT / "src"))

from _pairs import run_pairs  # noqa: E402
from bbspoker.bots.holdem import holdem_policy, simulate_holdem  # noqa: E402
from bbspoker.rules.holdem.game import HoldemRules  # noqa: E402

PAIRS = [("equity", "calling"), ("equity", "random")]
TITLES = {"fixed": "Hold'em heads-up, 10/20", "no": "No-limit Hold'em heads-up, 5/10",
          "pot": "Pot-limit Hold'em heads-up, 5/10"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--limit", choices=tuple(TITLES), default="fixed")
    known, rest = parser.parse_known_args(argv)
    rules = HoldemRules(between_hands=0.0, limit=known.limit)
    simulate = functools.partial(simulate_holdem, rules=rules)
    return run_pairs(__doc__.split("\n\n")[0], TITLES[known.limit], PAIRS, holdem_policy,
                     simulate, rest)


if __name__ == "__main__":
    sys.exit(main())
