"""The in-process CPU-per-action benchmark (issue 21) runs once in quick mode so that it
cannot rot. Nothing here checks a speed: only that it played, that every screen was
painted, and that its figures agree with each other."""

import json
import pstats
import re
import subprocess
import sys
from pathlib import Path
from tests.support.paths import ROOT

SCRIPT = ROOT / "scripts" / "bench" / "action_cpu.py"


def test_action_cpu_quick_plays_every_kind_of_action_and_paints_every_screen(tmp_path):
    figures_path, stats_path = tmp_path / "figures.json", tmp_path / "window.prof"
    out = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--json", str(figures_path),
                          "--cprofile", str(stats_path)], check=True, capture_output=True,
                         text=True, timeout=120).stdout
    f = json.loads(figures_path.read_text())
    assert (f["tables"], f["players_per_table"], f["spectators_per_table"]) == (2, 5, 2)
    assert f["sessions"] == 14
    # It played: the window's actions, of every kind, each applied by its table; the
    # warm-up (every action checked) came first.
    assert f["actions"] == 200 and f["warmup_actions"] > 0
    assert sum(f["kinds"].values()) == 200
    assert all(n > 0 for n in f["kinds"].values()), f["kinds"]
    assert f["games_started"] >= 2 and f["unapplied"] == 0
    # Every screen got bytes, and every action reached the six other screens of its table
    # and the actor's own: at least seven writes, each of at least one byte, and no more
    # writes than paints (a screen writes only what its renderer returned).
    assert f["silent_screens"] == []
    assert f["cpu_us_per_action"] > 0 and f["cpu_s"] > 0
    assert f["writes_per_action"] >= 7
    assert f["writes_per_action"] <= f["paints_per_action"]
    assert f["bytes_per_action"] > f["writes_per_action"]
    assert 0 <= f["clock_renders_per_action"] <= f["paints_per_action"]
    assert f["machine"]["cores"] >= 1 and f["machine"]["python"].startswith("3.")
    # The report says the same.
    assert f"CPU per action: {f['cpu_us_per_action']:.1f} us" in out
    assert re.search(rf"^writes\s+{f['writes_per_action']:.2f}$", out, re.M), out
    assert "2 draw40 tables, 5 players + 2 spectators each (14 sessions)" in out
    assert "WARNING" not in out
    # The profile covers the production path: the table's step and the screens' renders.
    assert "top 25 by own time" in out and "tottime" in out
    names = {name for _, _, name in pstats.Stats(str(stats_path)).stats}
    assert {"_step", "render", "write", "submit"} <= names


def test_action_cpu_no_paints_plays_the_tables_and_sends_nothing(tmp_path):
    figures_path = tmp_path / "figures.json"
    out = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--no-paints",
                          "--json", str(figures_path)], check=True, capture_output=True,
                         text=True, timeout=120).stdout
    f = json.loads(figures_path.read_text())
    # The tables played the window as ever (each action applied: the driver reads the
    # table, not the screens) while no screen was painted or written to.
    assert f["no_paints"] is True
    assert f["actions"] == 200 and f["unapplied"] == 0 and f["games_started"] >= 2
    assert f["paints_per_action"] == 0 and f["writes_per_action"] == 0
    assert f["bytes_per_action"] == 0
    assert "NO SCREEN PAINTS in the window" in out and "WARNING" not in out
