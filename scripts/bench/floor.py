"""Benchmark: the floor of the server CPU per table action on this machine (issue 21).

``capacity.py`` charges bbspoker's server process with its CPU time per action.
This script asks what a server that does *no* poker work costs for the same
traffic, so the target of issue 21 (<= 400 us per action at a 5-player table
with 2 spectators) can be put beside what the machine and the stack allow.

The server here is a relay with no game, screen or ledger: each connection
first names its table; then every line it sends (a key press) makes the
server write one frame of ``--frame`` bytes (default 183, the mean write of
``action_cpu.py``) to each of the table's seven connections, the actor's
included (its prompt) -- 7 writes per action against bbspoker's 7.6. Two
kinds, run one after the other in the same invocation:

- ``asyncio``: a plain ``asyncio.Protocol`` server (no telnet at all): the cost
  of the selector, the transports and the kernel's loopback TCP;
- ``telnetlib3``: the same relay as a telnetlib3 shell with bbspoker's options
  (``encoding=False``, ``force_binary``): the stack bbspoker's telnet sessions
  stand on, still with no work of ours.

The load is ``capacity.py``'s: T tables of five players and ``--spectators``
(2) per table, one action per table every ``--interval`` (2) s on each table's
own beat, plus ``--idle`` (1,000) idle connections; the server pinned to core
0, the load process to core 1 (``taskset``). Server CPU (``utime + stime``
from ``/proc``) over a ``--measure`` (30) s window after ``--warmup`` (10) s,
divided by the actions in the window; the system share is reported apart.
Each action is one key press (bbspoker's bets are two: ``b`` then Enter).

Run: ``.venv/bin/python scripts/bench/floor.py [--tables 200] [--quick]``;
``--json FILE`` keeps the figures. ``--quick`` (2 tables, a few seconds, both relays
at once) runs in the suite.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import json
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

# Nothing of bbspoker (see _light.py): the relays and the load start in a tenth of a second.
from _light import frame_bytes, free_port, percentile, print_table, raise_fd_limit  # noqa: E402
from capacity import Client, cpu_split, pinned, wait_listening  # noqa: E402

SEATS = 5
KINDS = ("asyncio", "telnetlib3")


# ----------------------------------------------------------------- the two servers


def serve(kind: str, port: int, frame_size: int) -> None:
    """Run the relay of ``kind`` on 127.0.0.1:``port`` until killed."""
    raise_fd_limit()
    frame = frame_bytes(frame_size)
    tables: dict[bytes, list] = {}

    if kind == "asyncio":
        class Relay(asyncio.Protocol):
            def connection_made(self, transport) -> None:
                self.transport = transport
                self.table: list | None = None
                self.buf = b""

            def data_received(self, data: bytes) -> None:
                self.buf += data
                while b"\n" in self.buf:
                    line, self.buf = self.buf.split(b"\n", 1)
                    if self.table is None:
                        self.table = tables.setdefault(line.strip(), [])
                        self.table.append(self.transport)
                    else:
                        for transport in self.table:
                            transport.write(frame)

        async def main() -> None:
            server = await asyncio.get_running_loop().create_server(Relay, "127.0.0.1", port)
            await server.serve_forever()
    else:
        import telnetlib3

        async def shell(reader, writer) -> None:
            table = None
            while line := await reader.readline():
                if table is None:
                    table = tables.setdefault(line.strip(), [])
                    table.append(writer)
                else:
                    for other in table:
                        other.write(frame)

        async def main() -> None:
            server = await telnetlib3.create_server(
                host="127.0.0.1", port=port, shell=shell, encoding=False,
                force_binary=True, connect_maxwait=0.5)
            await server.wait_closed()

    asyncio.run(main())


# ----------------------------------------------------------------- the load


async def load(port: int, tables: int, spectators: int, idle: int, interval: float,
               warmup: float, measure: float, out: str, settle: float = 1.0) -> None:
    """Connect every client, leave them ``settle`` s (the last negotiations and welcome
    screens), play the tables' beats, and write the window's counts to ``out``."""
    raise_fd_limit()
    sem = asyncio.Semaphore(64)

    async def connect(name: bytes) -> Client:
        async with sem:
            client = await Client.connect(port)
            await asyncio.sleep(0.05)  # the telnet negotiation, if any
            client.send(name.decode() + "\r\n")
            return client

    seated = [await asyncio.gather(*(connect(b"t%d" % t) for _ in range(SEATS + spectators)))
              for t in range(tables)]
    await asyncio.gather(*(connect(b"idle") for _ in range(idle)))
    await asyncio.sleep(settle)
    Path(out).with_suffix(".started").touch()
    for clients in seated:
        for c in clients:
            c.raw.clear()
            c.arrivals.clear()
    loop_start = time.perf_counter()
    window = (loop_start + warmup, loop_start + warmup + measure)
    samples: list[float] = []
    actions, lost = [0], [0]

    async def play(t: int, clients: list[Client]) -> None:
        rng = random.Random(t)
        beat = loop_start + rng.uniform(0, interval)
        turn = 0
        while beat < window[1]:
            delay = beat - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            actor = clients[turn % SEATS]
            turn += 1
            futs = [c.arrival(b"", len(c.raw) + 1) for c in clients if c is not actor]
            pressed = actor.send("k\r\n")
            try:
                times = await asyncio.wait_for(asyncio.gather(*futs), 5.0)
            except TimeoutError:
                times = [pressed + 5.0]
                lost[0] += 1
            if window[0] <= pressed < window[1]:
                actions[0] += 1
                samples.append(max(times) - pressed)
            beat += interval

    await asyncio.gather(*(play(t, c) for t, c in enumerate(seated)))
    Path(out).write_text(json.dumps({"actions": actions[0], "lost": lost[0],
                                           "samples": samples}))


def run_kind(kind: str, args: argparse.Namespace) -> dict:
    """One kind's server and load; returns its figures."""
    port = free_port()
    multi = (os.cpu_count() or 1) >= 2 and shutil.which("taskset")
    me = str(Path(__file__).resolve())
    server = subprocess.Popen(pinned([sys.executable, me, "serve", kind, str(port),
                                      str(args.frame)], "0" if multi else None))
    try:
        wait_listening(server, port, lambda: f"the {kind} relay ended", timeout=10)
        out = Path(args.scratch) / f"floor-{kind}.json"
        loader = subprocess.Popen(pinned(
            [sys.executable, me, "load", str(port), str(args.tables), str(args.spectators),
             str(args.idle), str(args.interval), str(args.warmup), str(args.measure),
             str(out), str(args.settle)], "1" if multi else None))
        # Sample the server's CPU at the window's edges, from the load's clock: the load
        # connects first (its time is not in the window), then plays warmup + measure.
        while not _started(loader, out):
            time.sleep(0.05)
        time.sleep(args.warmup)
        before = cpu_split(server.pid)
        time.sleep(args.measure)
        after = cpu_split(server.pid)
        if loader.wait(timeout=args.measure + 60) != 0:
            raise RuntimeError(f"the load of the {kind} relay failed")
        result = json.loads(out.read_text())
    finally:
        server.kill()
        server.wait()
    actions = max(result["actions"], 1)
    user, system = after[0] - before[0], after[1] - before[1]
    samples = result["samples"] or [0.0]
    return {"kind": kind, "tables": args.tables, "spectators_per_table": args.spectators,
            "idle": args.idle, "actions": result["actions"], "lost": result["lost"],
            "actions_per_s": result["actions"] / args.measure,
            "cpu_us_per_action": (user + system) / actions * 1e6,
            "system_us_per_action": system / actions * 1e6,
            "p50_ms": percentile(samples, 50) * 1000, "p99_ms": percentile(samples, 99) * 1000}


def _started(loader: subprocess.Popen, out: Path) -> bool:
    """True once the load process has connected everyone (it touches ``out``.started)."""
    if loader.poll() is not None:
        raise RuntimeError("the load process ended before its window")
    return out.with_suffix(".started").exists()


def main(argv: list[str]) -> int:
    if argv[:1] == ["serve"]:
        serve(argv[1], int(argv[2]), int(argv[3]))
        return 0
    if argv[:1] == ["load"]:
        port, tables, spectators, idle = (int(v) for v in argv[1:5])
        interval, warmup, measure = (float(v) for v in argv[5:8])
        asyncio.run(load(port, tables, spectators, idle, interval, warmup, measure, argv[8],
                         float(argv[9])))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--spectators", type=int, default=2, help="per table")
    parser.add_argument("--idle", type=int, default=1000)
    parser.add_argument("--interval", type=float, default=2.0, help="s between a table's actions")
    parser.add_argument("--warmup", type=float, default=10.0)
    parser.add_argument("--measure", type=float, default=30.0)
    parser.add_argument("--frame", type=int, default=183, help="bytes per write")
    parser.add_argument("--kinds", default=",".join(KINDS))
    parser.add_argument("--json", default="")
    parser.add_argument("--quick", action="store_true",
                        help="2 tables, 4 idle, 0.5 s + 2 s, the relays side by side: a "
                             "smoke test")
    args = parser.parse_args(argv)
    args.settle = 1.0       # s between the last connection and the tables' first beats
    if args.quick:
        args.tables, args.idle, args.warmup, args.measure, args.interval = 2, 4, 0.5, 2.0, 0.375
        args.settle = 0.2
    with tempfile.TemporaryDirectory() as scratch:
        args.scratch = scratch
        kinds = args.kinds.split(",")
        if args.quick:
            # A smoke test's figures need no quiet machine: the relays run at once.
            with concurrent.futures.ThreadPoolExecutor(len(kinds)) as pool:
                rows = list(pool.map(lambda kind: run_kind(kind, args), kinds))
        else:
            rows = [run_kind(kind, args) for kind in kinds]
    print(f"{os.cpu_count()} cores, Python {platform.python_version()}; {args.tables} tables "
          f"of {SEATS} players + {args.spectators} spectators, {args.idle} idle, one action "
          f"per table every {args.interval:g} s, {args.frame} B per write, 7 writes per action")
    print_table([("relay", "actions", "CPU us/action", "of which system", "p50 ms", "p99 ms"),
                 *((r["kind"], r["actions"], f"{r['cpu_us_per_action']:.0f}",
                    f"{r['system_us_per_action']:.0f}", f"{r['p50_ms']:.2f}",
                    f"{r['p99_ms']:.2f}") for r in rows)])
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
