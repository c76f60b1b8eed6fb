"""The split deployment end to end, every part its own process: nats-server, PostgreSQL,
two ``bbspoker worker`` and two ``bbspoker gateway`` processes. Two telnet players play
at a table served by worker 1 through gateway A, a spectator watches through gateway B
and sends an X-message across; then worker 1 is killed with SIGKILL mid-game: worker 2
takes the table over within seconds, the game is called off and refunded, both players
keep their seats and read why on their screens, the next game plays on the new worker,
and ``bbspoker ledger verify`` is clean."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import re
import sys
import time
from pathlib import Path

import pytest

from tests.support.nats import Nats
from tests.support.paths import ROOT
from tests.support.tableplay import bet, info, join
from tests.support.telnetclient import TelnetClient, wait_until

pytestmark = pytest.mark.e2e

_SPEC = importlib.util.spec_from_file_location("bbspoker_soak", ROOT / "scripts" / "soak.py")
soak = sys.modules.setdefault(_SPEC.name, importlib.util.module_from_spec(_SPEC))
_SPEC.loader.exec_module(soak)

WORKER_READY = r"worker \S+ started"


def cubes(url: str, handle: str) -> int:
    out = soak.cli(url, "cubes", "show", handle, "--json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)["cubes"]


async def log_shows(process: "soak.ServerProcess", pattern: str, timeout: float) -> str:
    """Wait until ``process``'s log since its start matches ``pattern``; the match."""
    deadline = time.monotonic() + timeout
    while True:
        m = re.search(pattern, process.new_log())
        if m:
            return m.group(0)
        if time.monotonic() > deadline:
            raise AssertionError(f"{pattern!r} not in the log:\n{process.new_log()[-3000:]}")
        await asyncio.sleep(0.05)


async def test_a_game_through_two_gateways_survives_the_kill_of_its_worker(
        tmp_path: Path, postgres_url: str, nats_server: Nats) -> None:
    config = tmp_path / "split.toml"
    config.write_text(
        f'[ledger]\nurl = "{postgres_url}"\n'
        f'[cluster]\nnats = "{nats_server.url}"\npresence_interval = 0.3\n'
        'lease_interval = 0.3\ntimeout = 3.0\n'
        "[table]\nreconnect_grace = 60.0\nshutdown_grace = 0.2\n"
        "[ssh]\nenabled = false\n[web]\nenabled = false\n"
        '[[tables]]\nid = "draw"\nname = "Draw Table"\ngame = "draw40"\n')
    env = {"BBSPOKER_CONFIG": str(config)}
    for handle in ("alice", "bob", "carol"):
        (tmp_path / f"pw-{handle}").write_text(f"pw-{handle}\n")
        made = soak.cli(postgres_url, "users", "add", handle, "--password-file",
                        str(tmp_path / f"pw-{handle}"), "--cubes", "1000")
        assert made.returncode == 0, made.stderr

    def process(name: str, *command: str, ready: str) -> "soak.ServerProcess":
        return soak.ServerProcess(tmp_path / "unused.db", tmp_path / f"{name}.log", env=env,
                                  command=command, ready=ready)

    worker1 = process("worker1", "worker", "--name", "w1", ready=WORKER_READY)
    worker2 = process("worker2", "worker", "--name", "w2", ready=WORKER_READY)
    gateway_a = process("gateway-a", "gateway", "--name", "a", "--port", "0",
                        ready=r"telnet listening on \S+ port (\d+)")
    gateway_b = process("gateway-b", "gateway", "--name", "b", "--port", "0",
                        ready=r"telnet listening on \S+ port (\d+)")
    processes = [worker1, worker2, gateway_a, gateway_b]
    clients: list[TelnetClient] = []
    try:
        # Worker 1 first, alone, so that it wins the table; the gateways meanwhile.
        await asyncio.gather(worker1.start(), gateway_a.start(), gateway_b.start())
        await log_shows(worker1, r"serving table draw", 10.0)
        await worker2.start()

        async def player(gateway: "soak.ServerProcess", handle: str) -> TelnetClient:
            c = await TelnetClient.connect(gateway.port)
            clients.append(c)
            await c.login(handle, f"pw-{handle}")
            return c

        alice = await player(gateway_a, "alice")
        bob = await player(gateway_a, "bob")
        carol = await player(gateway_b, "carol")
        await join(alice, "Nobody")
        await join(bob, "alice")
        # An X-message from carol on gateway B reaches alice, at the table on gateway A.
        await carol.send_x("alice", "good luck", "X-message sent to alice.")
        await alice.wait_for("[1 X-message]")
        # carol watches from the other gateway.
        await carol.send("p")
        await carol.wait_for("Join the table? (y/n)")
        await carol.send("w")
        await carol.wait_for("[X] Exit the game")
        await alice.send("s")
        await bob.wait_for("The game is now STARTED (initial pot is 20)")
        await bet(alice, "25")
        await bet(bob, "40")
        await carol.wait_for("bob has raised the bet (40), pot is 85.")
        await wait_until(lambda: info(carol, "Pot") == "85", 5.0)
        assert (cubes(postgres_url, "alice"), cubes(postgres_url, "bob")) == (965, 950)

        # Worker 1 dies mid-game; worker 2 takes the table over and refunds the game.
        killed_at = time.monotonic()
        worker1.kill()
        await log_shows(worker2, r"serving table draw", 10.0)
        moved_in = time.monotonic() - killed_at
        assert moved_in < 8.0, moved_in
        for c in (alice, bob, carol):
            await c.wait_for("the table moved to another server", timeout=10.0)
        assert (cubes(postgres_url, "alice"), cubes(postgres_url, "bob")) == (1000, 1000)
        verify = soak.cli(postgres_url, "ledger", "verify")
        assert verify.returncode == 0, verify.stdout + verify.stderr
        assert "open pots 0" in verify.stdout
        # Both kept their seats: the next game plays on the new worker.
        await alice.send("s")
        await bob.wait_for("The game is now STARTED (initial pot is 20)", timeout=10.0)
        await carol.wait_for("The game is now STARTED (initial pot is 20)")
        assert cubes(postgres_url, "alice") == 990
        for p in (gateway_a, gateway_b, worker2):
            assert "Traceback" not in p.new_log(), p.new_log()[-3000:]
        for p in (gateway_a, gateway_b):
            assert await asyncio.to_thread(p.stop, 30) == 0
        assert await asyncio.to_thread(worker2.stop, 30) == 0
        verify = soak.cli(postgres_url, "ledger", "verify")
        assert verify.returncode == 0, verify.stdout + verify.stderr
    finally:
        for c in clients:
            await c.close()
        for p in processes:
            if p.proc is not None and p.proc.poll() is None:
                p.kill()
