"""The ledger copy benchmark runs once in quick mode on the tests' PostgreSQL server so that
it cannot rot: the real ``bbspoker ledger copy`` of a filled SQLite ledger verifies on both
sides, and the copy verifies again through a config that names it."""

import re
import subprocess
import sys

from tests.support.paths import ROOT

SCRIPT = ROOT / "scripts" / "bench" / "ledger_copy.py"


def test_ledger_copy_quick_copies_every_game_and_both_sides_verify(postgres_server):
    out = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--url", postgres_server.url],
                         check=True, capture_output=True, text=True, timeout=60).stdout
    assert re.search(r"^games\s+200 rows$", out, re.M)
    assert "ledger verify of the source: OK" in out and "ledger verify of the copy: OK" in out
    assert "the totals of the source and the copy are equal" in out
    assert re.search(r"ledger verify on the copy, through its config: [\d.]+ s: ledger OK", out)
