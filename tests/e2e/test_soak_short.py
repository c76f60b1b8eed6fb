"""The soak script runs once in its short mode so that it cannot rot (issue 5), and the
server's loop-lag monitor (``BBSPOKER_LAG_LOG``) that the soak reads reports a stall."""

from __future__ import annotations

import asyncio
import logging
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bbspoker.process import log_loop_lag
from tests.support.paths import ROOT

SCRIPT = ROOT / "scripts" / "soak.py"


@pytest.mark.e2e
def test_short_soak_survives_kills_and_the_books_balance():
    run = subprocess.run([sys.executable, str(SCRIPT), "--short"], capture_output=True,
                         text=True, timeout=120)
    out = run.stdout
    assert run.returncode == 0, out + run.stderr
    assert "SIGKILLs: 2; final SIGTERM exit status 0" in out
    assert "ledger verify: OK" in out
    start, end = re.search(r"CUBES at start ([\d,]+) = at end ([\d,]+): yes", out).groups()
    assert start == end == "11,000"                  # 11 accounts of 1,000 CUBES
    assert "unfinished games left: 0" in out and "server errors logged: 0" in out
    assert re.search(r"players: [1-9]\d* logins, .* [1-9]\d* seated, [1-9]\d* bets", out)
    for hostile in ("subnegotiation flood: ", "16 MiB without newline: "):
        assert re.search(re.escape(hostile) + r"\d+ KiB sent before the server hung up", out)
    assert re.search(r"event-loop lag: p99 [\d.]+ ms .* [1-9]\d* intervals", out)
    assert re.search(r"server RSS: max [\d.]+ MiB", out)


async def test_loop_lag_monitor_reports_a_blocked_loop(caplog):
    caplog.set_level(logging.INFO, logger="bbspoker.process")
    monitor = asyncio.create_task(log_loop_lag(every=0.3, tick=0.01))
    await asyncio.sleep(0.05)
    time.sleep(0.2)                                  # something blocks the event loop
    async with asyncio.timeout(10):
        while "loop lag ms" not in caplog.text:
            await asyncio.sleep(0.05)
    monitor.cancel()
    p99, worst = map(float, re.search(r"p99 ([\d.]+) max ([\d.]+)", caplog.text).groups())
    assert worst >= 150 and p99 >= 150
