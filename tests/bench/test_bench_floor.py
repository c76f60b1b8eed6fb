"""The floor benchmark (issue 21: what a relay with no poker work costs per action) runs
once in quick mode so that it cannot rot. Nothing here checks a speed: only that both
relays served every table and every action reached the six other screens."""

import json
import subprocess
import sys
from pathlib import Path
from tests.support.paths import ROOT

SCRIPT = ROOT / "scripts" / "bench" / "floor.py"


def test_floor_quick_relays_every_action_to_every_other_screen(tmp_path):
    figures = tmp_path / "floor.json"
    out = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--json", str(figures)],
                         check=True, capture_output=True, text=True, timeout=120).stdout
    rows = json.loads(figures.read_text())
    assert [r["kind"] for r in rows] == ["asyncio", "telnetlib3"]
    for r in rows:
        # 2 tables, one action each every 0.5 s over a 3 s window: about 12 in all.
        assert (r["tables"], r["spectators_per_table"]) == (2, 2)
        assert 8 <= r["actions"] <= 16, r
        # Every update reached all six other connections of its table (a lost one
        # would count as 5 s).
        assert r["lost"] == 0 and r["p99_ms"] < 5000, r
        assert r["cpu_us_per_action"] >= r["system_us_per_action"] >= 0
        assert f"{r['kind']:<11} {r['actions']}" in out
    assert "7 writes per action" in out
