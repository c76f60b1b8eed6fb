"""The wire codec's benchmark runs once in its quick mode so that it cannot rot."""

import subprocess
import sys

from tests.support.paths import ROOT

SCRIPT = ROOT / "scripts" / "bench" / "codec.py"


def test_bench_codec_quick_prints_bytes_and_times_of_each_kind_s_snapshot():
    out = subprocess.run([sys.executable, str(SCRIPT), "--quick"], check=True,
                         capture_output=True, text=True, timeout=120).stdout
    assert "calls per pass: 200, best of 1" in out
    lines = {tuple(line.split()[:2]): line.split() for line in out.splitlines()[2:]}
    for kind in ("draw40", "schiebe", "holdem", "stud"):
        row = lines[(kind, "snapshot")]
        seats, size, enc, dec = int(row[2]), int(row[3]), float(row[4]), float(row[5])
        assert seats >= 4 and size > 100 and enc > 0 and dec > 0, row
        assert (kind, "private") in lines and (kind, "message") in lines
