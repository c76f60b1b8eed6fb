"""Fuzz test (issue 5): 10,000 hostile inputs against the real server while a table plays.

The engine is ``scripts/fuzz.py`` (the long runs use it too); here it runs
once with a fixed seed. Hostile connections send random and mutated input
(raw bytes, IAC sequences with unterminated subnegotiations, subnegotiations past
the cap on their length, escapes, huge NAWS, invalid UTF-8, forbidden code points,
long lines, key storms) at the ``Handle:`` prompt, in the menu and seated at the table, while alice, bob and
carol play games and chat through their own telnet clients.
"""

from __future__ import annotations

import importlib.util
import logging
import sys
from pathlib import Path

import pytest

from tests.support.telnetclient import FakeClock, running_server
from tests.support.paths import ROOT

pytestmark = pytest.mark.e2e

_SPEC = importlib.util.spec_from_file_location(
    "bbspoker_fuzz", ROOT / "scripts" / "fuzz.py")
fuzz_script = sys.modules.setdefault(_SPEC.name, importlib.util.module_from_spec(_SPEC))
_SPEC.loader.exec_module(fuzz_script)


async def test_ten_thousand_hostile_inputs_while_a_table_plays(tmp_path, caplog):
    caplog.set_level(logging.INFO)
    clock = FakeClock()
    async with running_server(tmp_path, clock=clock, sleep=fuzz_script.no_sleep,
                              **fuzz_script.FUZZ_CONFIG) as server:
        result = await fuzz_script.fuzz(server, clock, count=10_000, seed=20240601,
                                        log=lambda line: None)
    print(fuzz_script.report(result))
    # Every check inside the run: a chat arrived and a bet was accepted after the
    # storm, no hostile session left behind (sessions, connection counts, seats),
    # the books balance, nobody saw a traceback.
    assert result.problems == []
    assert result.inputs >= 10_000
    # The run did reach every place and kind it claims to fuzz.
    assert set(result.modes) == {"raw", "prompt", "lobby", "table"}
    assert set(result.kinds) >= {"bytes", "iac", "naws", "escape", "utf8", "forbidden", "chat",
                                 "keys", "mutated", "long", "sblong"}
    # The good players kept playing during the storm: several games, bets and chats.
    good = result.good
    assert good.games >= 2 and good.bets >= 10 and good.chats >= 5
    # Some hostile sessions were ended by the server's limits, with a message.
    assert result.outcomes["line too long"] >= 1
    assert result.outcomes["subnegotiation too long"] >= 1
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert errors == [], [r.getMessage() for r in errors]
