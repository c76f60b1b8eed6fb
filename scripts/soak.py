#!/usr/bin/env python3
"""Soak test (issue 5): many simulated players against ``bbspoker serve``, killed and restarted.

The server runs as a subprocess (``bbspoker serve --port 0``) on a fresh
database in a temporary directory, with ``BBSPOKER_LAG_LOG`` set so that it
logs its event-loop lag. ``--clients`` simulated players (default 100; their
accounts are made before the start) log in, join the table when a seat is
free, play random legal moves (call, raise within the range shown, pass,
discard, ask to see hands, reveal), chat, send X-messages, leave, quit and
come back; 10% of their visits end by dropping the connection. During the
run one client logs in, sits down and never reads again, one sends a
subnegotiation that never ends, one sends a 16 MiB line without a newline,
and the server is killed with SIGKILL and restarted ``--kills`` times (evenly
spaced). At the end the server is stopped with SIGTERM and the script prints:

- the event-loop lag (the largest per-interval p99 and the largest single lag),
- the server's RSS (largest seen, read from /proc/PID/status every second),
- games started, refunded after kills, visits, drops, chats, bets,
- ``bbspoker ledger verify``'s verdict, total CUBES at the start and at the end,
  and the games left without an end record (must be 0).

Exit status 0 only if the ledger verifies, the CUBES total is unchanged, no
game is left open and the server logged no ERROR. ``--short`` is the suite's
mode (10 clients, 12 s, 2 kills, 1 s of SIGTERM grace). Usage::

    scripts/soak.py --seconds 1800            # the issue's 30 minutes
    scripts/soak.py --short
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bbspoker.store.sqlite import Ledger  # noqa: E402
from bbspoker.store.passwords import hash_password  # noqa: E402
from tests.support.telnetclient import IAC, NAWS, SB, TelnetClient  # noqa: E402

__all__ = ["ServerProcess", "cli", "soak", "SOAK_CONFIG", "main"]

BIN = Path(sys.executable).parent
#: The soak server's config: every simulated client comes from 127.0.0.1, so the
#: per-address pre-login cap is raised; timeouts are shortened so a stuck turn moves
#: on in seconds; SIGTERM gives the running game 5 s before it is refunded (``--short``:
#: 1 s, :data:`SHORT_GRACE`).
SOAK_CONFIG = """\
[server]
max_per_address = 500
[login]
failure_delay = 0.5
[table]
turn_timeout = 10
master_timeout = 15
between_games = 2
shutdown_grace = 5
[ssh]
enabled = false
[web]
enabled = false
[door]
title = false
"""
PASSWORD = "soak-pass-1"
SHORT_GRACE = 1


class ServerProcess:
    """``bbspoker serve --port 0`` (or ``bbspoker COMMAND...``) as a subprocess on database
    ``db``, logging to ``log``.

    :meth:`start` returns once its log shows the regular expression ``ready`` (``port``
    is then set from its group, if it has one: the telnet port by default); :meth:`kill` sends
    SIGKILL, :meth:`stop` SIGTERM and returns the exit status. ``env`` adds
    environment variables (e.g. ``BBSPOKER_CONFIG``). :meth:`rss_kib` reads VmRSS.
    """

    def __init__(self, db: Path, log: Path, env: dict[str, str] | None = None,
                 command: Sequence[str] = ("serve", "--port", "0"),
                 ready: str = r"telnet listening on \S+ port (\d+)") -> None:
        self.db, self.log = db, log
        self.command, self.ready = list(command), ready
        self.env = {**os.environ, "BBSPOKER_DB": str(db), **(env or {})}
        if not env or "BBSPOKER_CONFIG" not in env:
            # The defaults, but telnet alone: SSH and the web page (on by default, on
            # fixed ports) are not what this server is for.
            plain = db.parent / "telnet-only.toml"
            plain.write_text("[ssh]\nenabled = false\n[web]\nenabled = false\n")
            self.env["BBSPOKER_CONFIG"] = str(plain)
        self.proc: subprocess.Popen | None = None
        self.port = 0
        self._offset = 0

    async def start(self, timeout: float = 30.0) -> None:
        """Start the server and wait for its ``telnet listening on ... port N`` log line."""
        self._offset = self.log.stat().st_size if self.log.exists() else 0
        with open(self.log, "ab") as out:
            self.proc = subprocess.Popen([str(BIN / "bbspoker"), *self.command],
                                         env=self.env, stdout=out, stderr=out)
        deadline = time.monotonic() + timeout
        while True:
            m = re.search(self.ready, self.new_log())
            if m:
                self.port = int(m.group(1)) if m.groups() else 0
                return
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"server did not start:\n{self.new_log()}")
            await asyncio.sleep(0.05)

    def new_log(self) -> str:
        """What the server logged since the last :meth:`start`."""
        with open(self.log, "rb") as f:
            f.seek(self._offset)
            return f.read().decode("utf-8", "replace")

    def kill(self) -> None:
        """SIGKILL (no clean-up at all, as a crash or a power loss) and reap it."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self, timeout: float = 60.0) -> int | None:
        """SIGTERM and wait for the exit status; ``None`` if it had not exited within
        ``timeout`` seconds (it is then killed, and its log says how far it got)."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            return None

    def rss_kib(self) -> int | None:
        """The server's resident set size in KiB, or None if it is not running."""
        try:
            status = Path(f"/proc/{self.proc.pid}/status").read_text()
        except (OSError, AttributeError):
            return None
        m = re.search(r"VmRSS:\s+(\d+) kB", status)
        return int(m.group(1)) if m else None


def cli(db: Path, *args: str) -> subprocess.CompletedProcess:
    """Run ``bbspoker ARGS`` on database ``db``; returns the completed process (text)."""
    env = {**os.environ, "BBSPOKER_DB": str(db)}
    env.pop("BBSPOKER_CONFIG", None)
    return subprocess.run([str(BIN / "bbspoker"), *args], env=env, capture_output=True,
                          text=True, timeout=60)


@dataclass
class Stats:
    """Counts of what the simulated players did and saw."""

    counts: Counter[str] = field(default_factory=Counter)
    rss_max_kib: int = 0
    rss_samples: list[int] = field(default_factory=list)


_TURN = {"[S] Open the game": "start", "[H] See hands!": "hands", "[B] Place bet": "bet",
         "[1]-[5] Discard": "discard", "[R] Reveal hand": "reveal"}


async def _play_table(c: TelnetClient, rng: random.Random, stats: Stats, until: float) -> None:
    """Play at the table until ``until`` (loop time): act when the screen offers a command."""
    loop = asyncio.get_running_loop()
    while loop.time() < until and not c.eof.is_set():
        await asyncio.sleep(rng.uniform(0.2, 0.8))
        text = c.text
        turn = next((what for offer, what in _TURN.items() if offer in text), None)
        if rng.random() < 0.05:
            stats.counts["chats"] += 1
            await c.send(f". {rng.choice(['nice hand', 'hi all', 'gl', 'hmm'])} {rng.randrange(999)}\r")
        elif turn == "start":
            await c.send("s")
        elif turn in ("bet", "hands"):
            pick = rng.random()
            if pick < 0.1:
                await c.send("py")
                stats.counts["passes"] += 1
                continue
            await c.send("h" if turn == "hands" and pick < 0.4 else "b")
            amount = ""
            if pick > 0.75:
                with contextlib.suppress(AssertionError):
                    await c.wait_for("Enter calls", 3)
                m = re.search(r"\((\d+)-(\d+), Enter calls\)", c.text)
                if m and int(m.group(1)) <= int(m.group(2)):
                    amount = str(rng.randint(int(m.group(1)), int(m.group(2))))
            await c.send(amount + "\r")
            stats.counts["bets"] += 1
        elif turn == "discard":
            picks = rng.sample("12345", rng.randint(0, 3))
            await c.send("".join(picks) + "d")
        elif turn == "reveal":
            await c.send("r")


async def _visit(port: int, handle: str, rng: random.Random, stats: Stats) -> None:
    """One connection of one simulated player: log in, lobby or table, then leave."""
    loop = asyncio.get_running_loop()
    c = await TelnetClient.connect(port)
    try:
        await c.login(handle, PASSWORD, timeout=30)
        stats.counts["logins"] += 1
        until = loop.time() + rng.uniform(10, 60)
        drop = rng.random() < 0.10
        if rng.random() < 0.6:
            await c.send("p")
            with contextlib.suppress(AssertionError):
                await c._wait(lambda: "(y/n)" in c.text or "seats are taken" in c.text, "table", 10)
            if "(y/n)" in c.text:
                await c.send("y")
                await c.wait_for("[X] Exit the game", 10)
                stats.counts["seated"] += 1
                await _play_table(c, rng, stats, until)
                if not drop:
                    await c.send("xy")
                    await c.wait_for("[Q]", 10)
            else:
                await c.send(" ")
        while loop.time() < until and not c.eof.is_set():
            await asyncio.sleep(rng.uniform(1, 5))
            key = rng.choice("wrh")
            await c.send(key)
            await asyncio.sleep(0.2)
            await c.send(" ")
        if drop:
            stats.counts["drops"] += 1
        else:
            await c.send("q")
            stats.counts["quits"] += 1
    finally:
        await c.close()
        stats.counts["visits"] += 1


async def _player(server: ServerProcess, handle: str, rng: random.Random, stats: Stats,
                  stop: asyncio.Event) -> None:
    while not stop.is_set():
        try:
            await _visit(server.port, handle, rng, stats)
        except (AssertionError, ConnectionError, OSError):
            stats.counts["visits cut short (server killed or busy)"] += 1
        await asyncio.sleep(rng.uniform(0.5, 3))


async def _never_reads(server: ServerProcess, stats: Stats) -> None:
    c = await TelnetClient.connect(server.port, read=False, rcvbuf=4096)
    await c.send("sleepy\r")
    await asyncio.sleep(2)
    await c.send(f"{PASSWORD}\rpy")
    stats.counts["never-reading client started"] += 1
    return c


async def _hostile_stream(server: ServerProcess, data_chunk: bytes, total: int, what: str,
                          stats: Stats) -> None:
    c = await TelnetClient.connect(server.port)
    await c.wait_for("Handle:")
    sent = 0
    with contextlib.suppress(ConnectionError, OSError):
        while sent < total and not c.eof.is_set():
            await c.send_raw(data_chunk)
            sent += len(data_chunk)
    with contextlib.suppress(AssertionError):
        await c.wait_closed(10)
    stats.counts[f"{what}: {sent // 1024} KiB sent before the server hung up"
                 if c.eof.is_set() else f"{what}: NOT disconnected"] += 1
    await c.close()


def _lag(log: str) -> list[tuple[float, float]]:
    return [(float(p99), float(mx)) for p99, mx in
            re.findall(r"loop lag ms: p50 \S+ p99 (\S+) max (\S+)", log)]


async def soak(clients: int, seconds: float, kills: int, seed: int, workdir: Path,
               lag_every: float = 5.0, grace: float | None = None) -> int:
    """Run the soak; prints the figures and returns the exit status (0: all checks passed).
    ``grace``: the ``shutdown_grace`` (s) instead of :data:`SOAK_CONFIG`'s."""
    rng = random.Random(seed)
    db, log = workdir / "soak.db", workdir / "server.log"
    config = SOAK_CONFIG
    if grace is not None:
        config = config.replace("shutdown_grace = 5\n", f"shutdown_grace = {grace:g}\n")
    (workdir / "soak.toml").write_text(config)
    handles = [f"player{i:03d}" for i in range(clients)] + ["sleepy"]
    stored = hash_password(PASSWORD)
    with Ledger(db) as ledger:
        for h in handles:
            ledger.create_account(h, stored)
        start_total = ledger.totals()
    server = ServerProcess(db, log, {"BBSPOKER_CONFIG": str(workdir / "soak.toml"),
                                     "BBSPOKER_LAG_LOG": f"{lag_every:g}"})
    await server.start()
    stats = Stats()
    stop = asyncio.Event()
    tasks = [asyncio.create_task(_player(server, h, random.Random(rng.random()), stats, stop))
             for h in handles[:-1]]
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    kill_at = [t0 + seconds * (i + 1) / (kills + 1) for i in range(kills)]
    # The hostile clients start between the restarts of a short run (kills at 1/3, 2/3).
    specials = {t0 + seconds * 0.15: "never reads", t0 + seconds * 0.45: "sb flood",
                t0 + seconds * 0.5: "16 MiB"}
    logs: list[str] = []
    refunded: list[str] = []
    hostile: list[asyncio.Task[None]] = []
    sleepy = None
    async def start_special(what: str) -> None:
        nonlocal sleepy
        if what == "never reads":
            sleepy = await _never_reads(server, stats)
        elif what == "sb flood":
            hostile.append(asyncio.create_task(_hostile_stream(
                server, bytes([IAC, SB, NAWS]) + b"\0" * 65533, 1 << 20,
                "subnegotiation flood", stats)))
        else:
            hostile.append(asyncio.create_task(_hostile_stream(
                server, b"A" * 65536, 16 << 20, "16 MiB without newline", stats)))

    try:
        while loop.time() - t0 < seconds or kill_at:       # every kill happens
            await asyncio.sleep(1)
            rss = server.rss_kib()
            if rss:
                stats.rss_samples.append(rss)
            now = loop.time()
            for at, what in list(specials.items()):
                if now >= at:
                    del specials[at]
                    await start_special(what)
            # A hostile stream must meet a live server: the next kill waits for the
            # server to hang up on it (on a busy machine a restart can take seconds).
            if kill_at and now >= kill_at[0] and all(t.done() for t in hostile):
                kill_at.pop(0)
                server.kill()
                logs.append(server.new_log())
                stats.counts["SIGKILLs"] += 1
                await server.start()
                m = re.search(r"refunded (\d+) unfinished game", server.new_log())
                refunded.append(m.group(1) if m else "0")
        for what in specials.values():     # the run ended first (a slow machine)
            await start_special(what)
    finally:
        stop.set()
        # The hostile streams end when the server hangs up on them: on a busy machine
        # that can come after the run's last second, so they are given the time.
        if hostile:
            await asyncio.wait(hostile, timeout=30)
        for t in (*tasks, *hostile):
            t.cancel()
        await asyncio.gather(*tasks, *hostile, return_exceptions=True)
        if sleepy is not None:
            await sleepy.close()
        status = server.stop()
        logs.append(server.new_log())
    full_log = "".join(logs)
    verify = cli(db, "ledger", "verify")
    with Ledger(db) as ledger:
        end_total = ledger.totals()
        games = ledger.list_games(1_000_000)
    lag = [x for part in logs for x in _lag(part)]
    errors = [line for line in full_log.splitlines() if " ERROR " in line or "Traceback" in line]
    open_games = [g.id for g in games if g.ended_at is None]
    held = lambda t: t.accounts + t.system + t.open_pots  # noqa: E731
    cancelled = sum(1 for g in games if (g.end_reason or "").startswith("cancelled"))
    c = stats.counts
    print(f"soak: {clients} clients for {seconds:.0f} s, {kills} SIGKILL restarts, seed {seed}")
    print(f"event-loop lag: p99 {max(p for p, _ in lag) if lag else float('nan'):.1f} ms "
          f"(largest {lag_every:g}-s interval p99), max {max(m for _, m in lag) if lag else float('nan'):.1f} "
          f"ms, {len(lag)} intervals")
    rss = stats.rss_samples
    print(f"server RSS: max {max(rss) / 1024:.1f} MiB, last {rss[-1] / 1024:.1f} MiB, "
          f"first {rss[0] / 1024:.1f} MiB ({len(rss)} samples)" if rss else "server RSS: none")
    print(f"games: {len(games)} recorded, {cancelled} cancelled and refunded "
          f"(refunded at each restart: {', '.join(refunded) or '-'})")
    print(f"players: {c['logins']} logins, {c['visits']} visits, {c['seated']} seated, "
          f"{c['bets']} bets, {c['passes']} passes, {c['chats']} chats, {c['drops']} dropped "
          f"connections, {c['visits cut short (server killed or busy)']} visits cut short")
    for key in sorted(k for k in c if "flood" in k or "MiB" in k or "never" in k):
        print(f"hostile: {key}")
    print(f"SIGKILLs: {c['SIGKILLs']}; final SIGTERM exit status "
          f"{'none: still running after 60 s, killed' if status is None else status}")
    if status is None:
        print("server log after SIGTERM:\n  " + "\n  ".join(
            line for line in logs[-1].splitlines()[-15:]))
    print(f"ledger verify: {'OK' if verify.returncode == 0 else 'FAILED'}: "
          f"{(verify.stdout + verify.stderr).strip()}")
    print(f"CUBES at start {held(start_total):,} = at end {held(end_total):,}: "
          f"{'yes' if held(start_total) == held(end_total) else 'NO'}"
          f" (accounts {end_total.accounts:,}, system {end_total.system:,}, "
          f"open pots {end_total.open_pots:,})")
    print(f"unfinished games left: {len(open_games)}")
    print(f"server errors logged: {len(errors)}" + "".join(f"\n  {e}" for e in errors[:10]))
    ok = (verify.returncode == 0 and held(start_total) == held(end_total) and not open_games
          and not errors and status == 0)
    return 0 if ok else 1


def main(argv: list[str] | None = None) -> int:
    """Command line; see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=1800)
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--short", action="store_true",
                        help="the suite's quick run: 10 clients, 12 s, 2 kills, the lag "
                             "logged every 2 s (each server lives ~4 s), SIGTERM's grace "
                             "for the running game 1 s")
    args = parser.parse_args(argv)
    lag_every, grace = 5.0, None
    if args.short:
        args.clients, args.seconds, args.kills, lag_every = 10, 12, 2, 2.0
        grace = SHORT_GRACE
    with tempfile.TemporaryDirectory() as tmp:
        return asyncio.run(soak(args.clients, args.seconds, args.kills, args.seed, Path(tmp),
                                lag_every, grace))


if __name__ == "__main__":
    sys.exit(main())
