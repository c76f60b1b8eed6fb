"""The tournament script runs once in its short mode (9 players at three tables of three,
two of them people over telnet): the tables balance and break down to a final table, a
SIGKILL in the middle and a restart resume it, the prizes are the pool and the ledger
verifies."""

import os
import re
import signal
import subprocess
import sys

import pytest

from tests.support.paths import ROOT

SCRIPT = ROOT / "scripts" / "tournament_run.py"


@pytest.mark.e2e
def test_a_scheduled_three_table_tournament_survives_a_kill_and_pays_its_pool(tmp_path):
    # Its own session: on a timeout the script and the server it started are killed
    # together (the server would otherwise hold the output pipes open for ever).
    run = subprocess.Popen([sys.executable, str(SCRIPT), "--short", "--workdir", str(tmp_path)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           start_new_session=True)
    try:
        out, err = run.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(run.pid, signal.SIGKILL)
        out, err = run.communicate()
        raise AssertionError(f"the tournament run did not end within 120 s:\n{out}{err}")
    assert run.returncode == 0, out + err
    assert re.search(r"tables after each change: 3/3/3 -> .* -> \d$", out.splitlines()[0])
    assert "final table reached: yes" in out
    assert "SIGKILL with 2 tables left: yes; resumed: yes" in out
    assert "9 entrants, 9 placed, prizes 900 of a pool of 900 CUBES" in out
    assert "ledger verify: OK" in out
    assert "CUBES at start 9,000 = at end 9,000: yes" in out
    for person in ("alice", "bob"):
        assert f"{person}: saw the tournament line: yes, a table of it: yes" in out
    assert "server errors logged: 0; final SIGTERM exit status 0" in out
