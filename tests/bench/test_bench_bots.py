"""The bots benchmark runs once with tiny sizes so that it cannot rot (issue 15)."""

import subprocess
import sys
from pathlib import Path
from tests.support.paths import ROOT

SCRIPT = ROOT / "scripts" / "bench" / "bots.py"


def test_bench_bots_quick_prints_every_match_the_speed_and_the_long_run():
    out = subprocess.run([sys.executable, str(SCRIPT), "--quick"], check=True,
                         capture_output=True, text=True, timeout=120).stdout
    for match in ("equity vs calling", "equity vs random", "equity vs aggressive",
                  "seat 1 equity", "seat 5 aggressive"):
        assert match in out and "CUBES/game  95% CI [" in out.split(match)[1].splitlines()[0]
    assert "baselines" in out and "games/s of CPU time" in out
    assert "500 games ended" in out and "illegal actions 0" in out
