"""The seven-card stud bots' strength benchmark (scripts/bench/stud_bots.py) in its quick
mode: both pairs play, no illegal action, CUBES conserved."""

from __future__ import annotations

import subprocess
import sys

from tests.support.paths import ROOT


def test_the_stud_strength_benchmark_runs_in_its_quick_mode():
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "bench" / "stud_bots.py"),
                           "--quick"], capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("Stud heads-up, 10/20 ante 1 bring-in 3, 40 hands a pair")
    assert [line.split()[:3] for line in lines[1:]] == [["strength", "vs", "calling"],
                                                       ["strength", "vs", "random"]]
    assert all("illegal 0" in line and "conserved True" in line for line in lines[1:])
