"""The remote table's benchmark runs once in its quick mode so that it cannot rot."""

import subprocess
import sys

from tests.support.nats import Nats
from tests.support.paths import ROOT

SCRIPT = ROOT / "scripts" / "bench" / "remote.py"


def test_bench_remote_quick_prints_each_round_trip_and_the_snapshot_s_cost(
        nats_server: Nats) -> None:
    """(The fixture skips, or fails in CI, without nats-server; the script starts its own.)"""
    done = subprocess.run([sys.executable, str(SCRIPT), "--quick"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "calls per pass: 200, best of 1" in out
    rows = {line[:24].strip(): float(line[24:34]) for line in out.splitlines()[2:]}
    assert set(rows) == {"touch round trip", "look round trip", "check/call remote",
                         "check/call in-process", "snapshot published"}
    assert all(us > 0 for us in rows.values()), rows
