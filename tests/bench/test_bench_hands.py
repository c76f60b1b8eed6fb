"""The hand-ranking benchmark runs once with tiny sizes so that it cannot rot (issue 6)."""

import subprocess
import sys
from pathlib import Path
from tests.support.paths import ROOT

SCRIPT = ROOT / "scripts" / "bench" / "hands.py"


def test_bench_hands_quick_prints_each_evaluator_and_its_ratio_to_treys():
    out = subprocess.run([sys.executable, str(SCRIPT), "--quick"], check=True,
                         capture_output=True, text=True, timeout=60).stdout
    assert "hands ranked per evaluator: 2,000" in out
    for line in ("treys.Evaluator().evaluate", "bbspoker.rules.draw40.hands.evaluate", "bbspoker.rules.draw40.hands.strengths"):
        assert line in out and "hands/s" in out.split(line)[1].splitlines()[0]
    assert "x treys (target >= 1.5x)" in out and "x treys (target >= 10x" in out
    assert "import bbspoker.rules.draw40.hands" in out
