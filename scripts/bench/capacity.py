"""Benchmark: the tables one server process (or a gateway and two workers) serves; CPU per action.

The server is ``bbspoker serve`` (with a probe of the event loop's lag and of
every garbage collection, see :func:`serve`) pinned to core 0 with ``taskset``
where there are two cores or more; load processes pinned to the other core(s)
hold the clients, each many real telnet connections:

- T tables of five seated players each (TTYPE ``xterm``), driven at a steady
  pace: one action per table every ``--interval`` s (default 2). The game:
  [S], calls, no discards, [H] in a round drawn from 3-6 per game, reveals.
  Who acts is read from the first player's screen (pyte, the only screen a
  load process draws): ``Master``, ``Current`` and ``Round`` of the info area;
- 2 spectators per 10 tables (``--spectators``), spread over the tables;
  ``--spectators-per-table 2`` puts two at every table (the case of the issue's
  target for the CPU per action: a 5-player table with 2 spectators);
- ``--idle`` (1,000) sessions logged in and idle in the lobby.

The tables come in one by one over 90% of the ``--warmup`` (60 s): the load
never passes its steady rate and the games are out of phase in the window.
For each action the load process stamps the decisive key press and the
arrival (in the socket callback, before any parsing) of the action's update
at each other screen of that table (four players and its spectators: the
first bytes they get after the key; nothing else reaches them between two
actions); a sample is the time until the last of them has it (an update
that has not reached every screen after 5 s counts as 5 s). Steps of T (25,
50, 100, 200, 400, 800 by default; each a fresh server and ledger, the
accounts made beforehand) are measured for ``--measure`` s, and for each step
it reports key-to-all-other-screens p50/p99, the event loop's lag p99 (a
50 ms sleep's lateness, sampled in the server), the collections of each
generation, server CPU seconds per action (``utime + stime`` of the process
over the window / actions), RSS, bytes received by all clients per action,
the actions per second reached, the load processes' CPU use (a saturated load
core would inflate the latencies) and other processes' (the machine may be
shared). It stops after the first step whose p99 passes ``--stop-ms`` (100
ms) and prints the largest T whose p99 stays <= 50 ms.

The figures go to ``--json`` (default ``capacity.json``); ``capacity.py plot
JSON PNG`` draws T against p99 and CPU per action with matplotlib;
``--profile DIR`` runs py-spy on the server during each window and
``capacity.py breakdown RAW [US_PER_ACTION]`` sorts its samples by where an
action's CPU goes.

``--knock screens,ticks,ledger`` (any of them) switches those parts of the server
off, an experiment to measure what an action costs without them (:func:`knock`);
the report then says so, and ``journal_rows`` (CUBES movements the step's ledger
recorded) shows a ledger knocked out.

``--split`` measures the split deployment beside it: after each step's one-process
server, the same load (the same load processes, connected to the gateway's telnet port)
on ``bbspoker gateway`` and :data:`WORKERS` ``bbspoker worker`` processes, joined by a
throwaway nats-server and sharing a throwaway PostgreSQL (``tests/support``; its
database per step a ``CREATE DATABASE ... TEMPLATE`` of one the accounts were copied into
once, with ``copy_ledger`` as ``bbspoker ledger copy`` does). The workers start first and
the step waits until they serve every table between them (their ``serving table`` log
lines). ``--ledger postgres`` (the default with ``--split``) puts the one-process
server's ledger on that PostgreSQL too, so that both pay the same ledger; ``sqlite`` (the
default without) a SQLite file; the report says which. Pinning on two cores: the gateway
gets core 0 alone, as the one-process server does: it is the process holding the
sessions and drawing the screens, the one whose core decides the latency, so the two
deployments' front processes are compared on equal terms; the workers, nats-server and
PostgreSQL share the load core(s) with the load processes (their CPU is small next to
the gateway's; the report gives the load's and the others' CPU share, so a saturated
load core shows). CPU is measured per process over the window (``utime + stime``), by
role: ``gateway``, ``workers`` (both together), ``nats`` (nats-server), ``postgres``
(its server process and every child, ended children through its ``cutime + cstime``);
the one-process server's ``server`` and, on PostgreSQL, ``postgres``. The report prints
key-to-all-other-screens p50/p99 and the CPU per action of all processes together and of
each role, side by side with the one-process server at the same T, and how often the
workers lost the gateway's presence (three ``presence_interval``s without a word: they
then hold the seats of all its players, and the actions of that moment are lost). The
gateway has no lag probe (its loop lag is not reported).

``capacity.py model JSON`` (and a ``--split`` run at its end) plans machines on paper
from the split's CPU per action by role (:func:`model`): with one action per table every
``--interval`` s and a core giving 1e6 us/s, a core sustains ``1e6 * interval / us``
tables of a role; for 8 and 32 cores it tries every split into gateway cores, worker
cores and cores for nats-server + PostgreSQL and keeps the one serving most tables with
every core at 70%; printed and written into the JSON (``model``). ``capacity.py plot
JSON PNG [SPLIT_JSON]`` draws the one-process curve of JSON with the split's points and
a panel of CPU per action by role (from SPLIT_JSON's run if given).

Targets (issue 21): >= 400 tables at one action per table every 2 s with p99
<= 50 ms and loop lag p99 <= 20 ms; server CPU per action <= 400 us; RSS per
seated player <= 64 KiB.

Run: ``.venv/bin/python scripts/bench/capacity.py [--quick] [--steps 25,50,...] [--split]``.
``--quick``: one step of 2 tables, 4 idle sessions, a few seconds, for the suite
(``--quick --split``: ~18 s on a loaded 2-core machine, most of it the processes' start).
Every load loop is bounded: logins and seating time out, each load process
stops at the end of its window, and the server is killed after each step.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import platform
import random
import resource
import shutil
import signal
import sqlite3
import struct
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

# Nothing of bbspoker at the top: the load processes (``load``, and floor.py's) start in a
# tenth of a second; the server (``serve``) and the template ledger import it themselves.
from _light import (  # noqa: E402
    PASSWORD, frame_bytes, free_port, percentile, print_table, raise_fd_limit, scratch_dir)

IAC, DONT, DO, WONT, WILL, SB, SE = 255, 254, 253, 252, 251, 250, 240
BINARY, ECHO, SGA, TTYPE, NAWS = 0, 1, 3, 24, 31
_WE_WILL = {TTYPE, NAWS, BINARY}
_WE_ACCEPT = {ECHO, SGA, BINARY}

#: Lag probe: how long the server's probe sleeps between samples (s).
LAG_TICK = 0.05
#: Seconds an action's message may take to reach every screen before it counts as lost.
ACTION_TIMEOUT = 5.0
#: Rounds in which the first bettor asks to see hands, drawn per game: games of ~16-30
#: actions that end (showdown, reveals) and drift apart in phase from table to table.
HANDS_ROUNDS = (3, 4, 5, 6)
SEATS = 5


def player(table: int, seat: int) -> str:
    return f"t{table}s{seat}"


def spectator(n: int) -> str:
    return f"w{n}"


def idler(n: int) -> str:
    return f"i{n}"


# ----------------------------------------------------------------- the load clients


class Client(asyncio.Protocol):
    """One telnet connection of a load process: just enough telnet (TTYPE, NAWS, ECHO,
    SGA, BINARY), every in-band byte kept in ``raw`` with each chunk's arrival time, and
    futures for "these bytes after that offset have arrived". Only a table's first
    player draws a pyte screen (``screen=True``)."""

    def __init__(self, term: str, screen: bool) -> None:
        self.term = term
        self.raw = bytearray()
        self.arrivals: list[tuple[float, int]] = []
        self.watchers: list[tuple[bytes, int, asyncio.Future[float]]] = []
        self.transport: asyncio.Transport | None = None
        self.closed = asyncio.get_running_loop().create_future()
        self._state = 0  # 0 data, 1 iac, 2 option, 3 sb, 4 sb-iac
        self._cmd = 0
        self._sb = bytearray()
        self.screen = self._stream = None
        self._pending: list[bytes] = []
        if screen:
            import pyte
            self.screen = pyte.Screen(80, 24)
            self._stream = pyte.ByteStream(self.screen)

    @classmethod
    async def connect(cls, port: int, term: str = "xterm", screen: bool = False) -> Client:
        loop = asyncio.get_running_loop()
        _, client = await loop.create_connection(lambda: cls(term, screen), "127.0.0.1", port)
        return client

    def connection_made(self, transport) -> None:
        self.transport = transport

    def connection_lost(self, exc) -> None:
        if not self.closed.done():
            self.closed.set_result(None)
        for _, _, fut in self.watchers:
            if not fut.done():
                fut.set_exception(ConnectionError("closed"))
        self.watchers.clear()

    def data_received(self, data: bytes) -> None:
        now = time.perf_counter()
        if self._state == 0 and IAC not in data:
            text = data
        else:
            text = self._telnet(data)
        if not text:
            return
        before = len(self.raw)
        self.raw += text
        self.arrivals.append((now, len(self.raw)))
        if self._stream is not None:
            self._pending.append(bytes(text))
        if self.watchers:
            keep = []
            for needle, start, fut in self.watchers:
                if fut.done():
                    continue
                if self.raw.find(needle, max(start, before - len(needle) + 1)) >= 0:
                    fut.set_result(now)
                else:
                    keep.append((needle, start, fut))
            self.watchers = keep

    def _telnet(self, data: bytes) -> bytes:
        text = bytearray()
        for byte in data:
            state = self._state
            if state == 0:
                if byte == IAC:
                    self._state = 1
                else:
                    text.append(byte)
            elif state == 1:
                if byte == IAC:
                    text.append(IAC)
                    self._state = 0
                elif byte in (DO, DONT, WILL, WONT):
                    self._cmd, self._state = byte, 2
                elif byte == SB:
                    self._sb.clear()
                    self._state = 3
                else:
                    self._state = 0
            elif state == 2:
                self._state = 0
                self._option(self._cmd, byte)
            elif state == 3:
                if byte == IAC:
                    self._state = 4
                else:
                    self._sb.append(byte)
            else:
                if byte == SE:
                    self._state = 0
                    if self._sb[:2] == bytes([TTYPE, 1]):
                        self.transport.write(bytes([IAC, SB, TTYPE, 0]) + self.term.encode()
                                             + bytes([IAC, SE]))
                else:
                    self._sb.append(byte)
                    self._state = 3
        return bytes(text)

    def _option(self, cmd: int, opt: int) -> None:
        if cmd == DO:
            self.transport.write(bytes([IAC, WILL if opt in _WE_WILL else WONT, opt]))
            if opt == NAWS:
                self.transport.write(bytes([IAC, SB, NAWS]) + struct.pack("!HH", 80, 24)
                                     + bytes([IAC, SE]))
        elif cmd == WILL:
            self.transport.write(bytes([IAC, DO if opt in _WE_ACCEPT else DONT, opt]))

    def send(self, text: str) -> float:
        """Send ``text``; returns the ``perf_counter`` time just before the write."""
        now = time.perf_counter()
        self.transport.write(text.encode())
        return now

    def arrival(self, needle: bytes, start: int) -> asyncio.Future[float]:
        """The future arrival time of the chunk completing ``needle`` after offset ``start``."""
        fut = asyncio.get_running_loop().create_future()
        at = self.raw.find(needle, start)
        if at >= 0:
            end = at + len(needle)
            fut.set_result(next(t for t, total in self.arrivals if total >= end))
        else:
            self.watchers.append((needle, start, fut))
        return fut

    async def wait(self, needle: bytes, start: int = 0, timeout: float = 30.0) -> float:
        return await asyncio.wait_for(self.arrival(needle, start), timeout)

    def info(self) -> dict[str, str]:
        """The info area of the drawn screen: Master, Current, Pot, Round."""
        if self._pending:
            data, self._pending = b"".join(self._pending), []
            self._stream.feed(data)
        values = {}
        for line in self.screen.display[1:5]:
            words = line[43:79].strip().split(" ", 2)
            if len(words) == 3 and words[1].startswith("..."):
                values[words[0]] = words[2].strip()
        return values

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()


async def log_in(port: int, handle: str, term: str = "xterm", screen: bool = False) -> Client:
    client = await Client.connect(port, term, screen)
    await client.wait(b"Handle:")
    client.send(handle + "\r")
    await client.wait(b"Password:")
    mark = len(client.raw)
    client.send(PASSWORD + "\r")
    await client.wait(b"] Quit", mark)       # "[Q] Quit", the key in a colour of its own
    return client


async def go_to_table(client: Client, number: int, watch: bool, tables: int) -> None:
    """From the menu to table ``number`` of ``tables`` (a list of at most 9 takes the
    digit alone, a longer one the number and Enter), seated or watching."""
    mark = len(client.raw)
    client.send("p")
    await client.wait(b"Pick a table", mark)
    mark = len(client.raw)
    client.send(f"{number}" if tables <= 9 else f"{number}\r")
    await client.wait(b"] Watch" if watch else b"Join the table? (y/n)", mark)
    mark = len(client.raw)
    client.send("w" if watch else "y")
    await client.wait(b"You are watching" if watch else b"] Exit the game", mark)


class TableDriver:
    """Plays one table at a steady pace and times every action."""

    def __init__(self, number: int, players: list[Client], handles: list[str],
                 spectators: list[Client]) -> None:
        self.number = number
        self.players = players
        self.handles = handles
        self.spectators = spectators
        self.asked = False
        self.rng = random.Random(number)
        self.hands_round = self.rng.choice(HANDS_ROUNDS)
        self.samples: list[tuple[float, float, str]] = []  # (press time, latency s, kind)
        self.lost = 0
        self.undecided = 0

    def decide(self) -> tuple[int, str, str, bytes] | None:
        """(actor index, keys before the decisive one, decisive key, needle) or None."""
        info = self.players[0].info()
        rnd, current = info.get("Round", ""), info.get("Current", "")
        if rnd == "NO GAME":
            who = info.get("Master", "")
            if who not in self.handles:
                return None
            self.asked = False
            self.hands_round = self.rng.choice(HANDS_ROUNDS)
            return self.handles.index(who), "", "s", b"is now STARTED"
        if current not in self.handles:
            return None
        i = self.handles.index(current)
        if rnd.startswith("DISCARDING"):
            return i, "", "d", f"{current} has discarded".encode()
        if rnd == "SHOWDOWN":
            return i, "", "r", f"{current} shows ".encode()
        if rnd.isdigit() and int(rnd) >= self.hands_round and not self.asked:
            self.asked = True
            return i, "h", "\r", f"{current} has ".encode()
        return i, "b", "\r", f"{current} has ".encode()

    async def act(self) -> None:
        decision = self.decide()
        if decision is None:
            self.lost += 1
            self.undecided += 1
            if self.undecided <= 2:
                print(f"table {self.number}: no actor on\n"
                      + "\n".join(self.players[0].screen.display), file=sys.stderr)
            return
        i, prelude, key, needle = decision
        actor = self.players[i]
        for ch in prelude:
            mark = len(actor.raw)
            actor.send(ch)
            await _wait_more(actor, mark)
        others = [p for p in self.players if p is not actor] + self.spectators
        # The first bytes each other screen gets after the key are the action's update:
        # nothing else reaches them between two actions (the clock ticks on the actor's
        # screen only, nobody chats). The message line itself is not always in the bytes
        # whole: the renderer may rewrite a row by the cells that differ.
        futs = [o.arrival(b"", len(o.raw) + 1) for o in others]
        pressed = actor.send(key)
        try:
            times = await asyncio.wait_for(asyncio.gather(*futs), ACTION_TIMEOUT)
        except (TimeoutError, ConnectionError) as exc:
            self.lost += 1
            # Censored: it took at least this long (it counts in the percentiles).
            self.samples.append((pressed, ACTION_TIMEOUT, "lost"))
            if self.lost <= 1:
                print(f"table {self.number}: {type(exc).__name__} waiting for {needle!r} "
                      f"after {prelude!r}+{key!r}; the actor's screen:\n"
                      + "\n".join(actor.screen.display if actor.screen else [])
                      + "\n" + repr(bytes(actor.raw[-600:])), file=sys.stderr)
            return
        kind = {"s": "start", "d": "discard", "r": "reveal"}.get(key, "bet")
        self.samples.append((pressed, max(times) - pressed, kind))

    async def run(self, start: float, interval: float, end: float) -> None:
        """Act every ``interval`` s from ``start`` (perf_counter) until ``end``; a beat
        that is late (the previous action still waiting) is taken at once."""
        beat = start
        while beat < end:
            delay = beat - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            try:
                await self.act()
            except Exception:
                self.lost += 1
            beat += interval


async def _wait_more(client: Client, mark: int) -> None:
    """Wait until any byte arrives after offset ``mark`` (the echo of a key)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + ACTION_TIMEOUT
    while len(client.raw) <= mark and loop.time() < deadline:
        fut = loop.create_future()
        client.watchers.append((b"", mark, fut))   # "" is found at once past mark
        try:
            await asyncio.wait_for(fut, deadline - loop.time())
        except TimeoutError:
            return


async def gather_limited(coros, limit: int):
    slots = asyncio.Semaphore(limit)

    async def one(coro):
        async with slots:
            return await coro

    return await asyncio.gather(*(one(c) for c in coros))


async def load(args: argparse.Namespace) -> None:
    """A load process: log the idle sessions in, say ``idle``; on ``seat`` seat the
    players and spectators, say ``ready``; on ``go T0`` play until the window ends and
    print the results as one JSON line."""
    raise_fd_limit()
    loop = asyncio.get_running_loop()
    stdin = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stdin), sys.stdin)
    tables = list(range(args.first, args.last))
    specs = [int(s) for s in args.specs.split(",") if s]  # table number per spectator
    idle = await gather_limited([log_in(args.port, idler(n))
                                 for n in range(args.idle_first, args.idle_last)], 16)
    print("idle", flush=True)
    assert (await stdin.readline()).strip() == b"seat"

    async def seat_table(t: int) -> TableDriver:
        players, handles = [], []
        for s in range(SEATS):
            h = player(t, s)
            c = await log_in(args.port, h, screen=(s == 0))
            await go_to_table(c, t + 1, watch=False, tables=args.tables)
            players.append(c)
            handles.append(h)
        return TableDriver(t, players, handles, [])

    drivers = await gather_limited([seat_table(t) for t in tables], 16)
    by_table = {d.number: d for d in drivers}

    async def seat_spectator(n: int, t: int) -> None:
        c = await log_in(args.port, spectator(n))
        await go_to_table(c, t + 1, watch=True, tables=args.tables)
        by_table[t].spectators.append(c)

    await gather_limited([seat_spectator(n, t) for n, t in zip(args.spec_ids, specs)], 16)
    print("ready", flush=True)
    line = (await stdin.readline()).split()
    assert line[0] == b"go"
    t0 = float(line[1])                     # time.monotonic() of the coordinator
    offset = time.perf_counter() - time.monotonic()
    start = t0 + offset
    window = (start + args.warmup, start + args.warmup + args.measure)
    rng = random.Random(args.seed)
    clients = [c for d in drivers for c in d.players + d.spectators] + idle
    # The tables come in one by one over most of the warm-up (a ramp: the load never
    # passes its steady rate), so that their games are out of phase in the window.
    runs = [asyncio.create_task(d.run(start + rng.uniform(0, 0.9 * args.warmup),
                                      args.interval, window[1])) for d in drivers]
    await asyncio.sleep(max(0.0, window[0] - time.perf_counter()))
    bytes0 = sum(len(c.raw) for c in clients)
    cpu0 = resource.getrusage(resource.RUSAGE_SELF)
    await asyncio.sleep(max(0.0, window[1] - time.perf_counter()))
    bytes1 = sum(len(c.raw) for c in clients)
    cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    await asyncio.wait(runs, timeout=ACTION_TIMEOUT + 1)
    samples = [(lat, kind) for d in drivers for pressed, lat, kind in d.samples
               if window[0] <= pressed < window[1]]
    print(json.dumps({
        "latencies": [lat for lat, _ in samples],
        "kinds": [kind for _, kind in samples],
        "lost": sum(d.lost for d in drivers),
        "bytes": bytes1 - bytes0,
        "cpu": (cpu1.ru_utime + cpu1.ru_stime) - (cpu0.ru_utime + cpu0.ru_stime),
    }), flush=True)
    for c in clients:
        c.close()


# ----------------------------------------------------------------- the server, probed


def serve(config: str, lagfile: str) -> int:
    """``bbspoker --config CONFIG serve`` with a task that samples the event loop's lag
    every :data:`LAG_TICK` s and appends ``monotonic-time lag-ms`` lines to ``lagfile``."""
    import bbspoker.app as app_module
    from bbspoker.cli import main as cli_main

    raise_fd_limit()
    serve_forever = app_module._serve_forever

    gc_lines: list[str] = []
    started = [0.0, 0.0]

    def collected(phase: str, info: dict) -> None:
        # Every garbage collection in the server, with its generation and duration.
        # Wall time and the thread's CPU time: on a shared machine the wall time also
        # holds the time other processes had the core.
        if phase == "start":
            started[0] = time.perf_counter()
            started[1] = time.thread_time()
        else:
            gc_lines.append(f"gc {time.monotonic():.3f} {info['generation']} "
                            f"{(time.perf_counter() - started[0]) * 1000:.3f} "
                            f"{(time.thread_time() - started[1]) * 1000:.3f}\n")

    gc.callbacks.append(collected)
    knock(os.environ.get("CAPACITY_KNOCK", ""))
    if os.environ.get("CAPACITY_GC"):          # experiments: thresholds for the server
        gc.set_threshold(*(int(v) for v in os.environ["CAPACITY_GC"].split(",")))

    async def probe() -> None:
        loop = asyncio.get_running_loop()
        with open(lagfile, "w") as out:
            lines: list[str] = []
            flushed = loop.time()
            every = float(os.environ.get("CAPACITY_CENSUS") or 0)
            census = [flushed, every] if every else []
            while True:
                before = loop.time()
                await asyncio.sleep(LAG_TICK)
                now = loop.time()
                lines.append(f"lag {time.monotonic():.3f} {(now - before - LAG_TICK) * 1000:.3f}\n")
                if now - flushed >= 1.0:
                    if census and now - census[0] >= census[1]:
                        # CAPACITY_CENSUS=S: the tracked objects of each generation and
                        # the frozen ones every S s ("objs TIME GEN0 GEN1 GEN2 FROZEN").
                        census[0] = now
                        counts = [len(gc.get_objects(g)) for g in (0, 1, 2)]
                        lines.append(f"objs {time.monotonic():.3f} "
                                     + " ".join(map(str, counts))
                                     + f" {gc.get_freeze_count()}\n")
                    out.writelines(lines + gc_lines)
                    out.flush()
                    lines, flushed = [], now
                    gc_lines.clear()

    async def profiled(path: str, start: float, duration: float) -> None:
        # Experiments: CAPACITY_CPROFILE="out.prof,START_S,DURATION_S" runs cProfile in the
        # server from START_S s after it started, for DURATION_S s (call counts and each
        # function's time per call; its overhead inflates everything).
        import cProfile
        await asyncio.sleep(start)
        prof = cProfile.Profile()
        prof.enable()
        await asyncio.sleep(duration)
        prof.disable()
        prof.dump_stats(path)

    async def probed(cfg):
        task = asyncio.create_task(probe())
        if os.environ.get("CAPACITY_CPROFILE"):
            path, start, duration = os.environ["CAPACITY_CPROFILE"].split(",")
            prof_task = asyncio.create_task(profiled(path, float(start), float(duration)))  # noqa: F841
        try:
            return await serve_forever(cfg)
        finally:
            task.cancel()

    app_module._serve_forever = probed
    return cli_main(["--config", config, "serve"])


#: What ``--knock`` can switch off in the server (an experiment: the figures are then
#: not bbspoker's, but what is left of an action without that part).
KNOCKABLE = ("screens", "ticks", "ledger")
#: The frame a knocked-out screen writes for each paint: the mean write of
#: ``action_cpu.py`` (183 B), as ``floor.py``'s relay does; a clock's tick writes 12.
KNOCKED_FRAME = frame_bytes(183).decode()


def knock_parts(parts: str) -> set[str]:
    """The parts named in ``--knock``'s comma-separated ``parts``; ValueError naming any
    not in :data:`KNOCKABLE`."""
    wanted = {p for p in parts.split(",") if p}
    if unknown := wanted - set(KNOCKABLE):
        raise ValueError(f"--knock: unknown part(s) {sorted(unknown)}; "
                         f"known: {', '.join(KNOCKABLE)}")
    return wanted


def knock(parts: str) -> None:
    """Switch parts of the server off, in this process, before it starts (``--knock``):

    - ``screens``: every draw40 table screen (the only kind this bench seats; Schiebe-Poker
      and Hold'em screens paint their own way and are left as they are) but the first
      player's of each table (the one the load reads) paints a constant :data:`KNOCKED_FRAME` instead of its view after its
      first paint (a real one, which the load waits for), and takes the table's messages
      without applying them (only the table's snapshot, for the clock): what an action
      would cost if a screen's update were free but its write;
    - ``ticks``: no screen's clock ticks (the clock shows the second of the last paint);
    - ``ledger``: the tables' wallet is a :class:`MemoryWallet` (balances read once from
      the ledger): no SQL, no commit, no checkpoint work for a table's step.

    An experiment to measure what is left of an action's CPU without the part; a server
    so changed plays, but its screens and ledger are not the product's."""
    try:
        wanted = knock_parts(parts)
    except ValueError as e:
        raise SystemExit(str(e)) from None
    from bbspoker.door.screens import draw40

    screen = draw40.PokerScreen
    if "screens" in wanted:
        paint, paint_clock, take = screen._paint, screen._paint_clock, screen._take

        def reader(self) -> bool:             # the screen the load's pyte reads
            return self.handle == player(self.entry.number - 1, 0)

        def knocked_paint(self) -> None:
            if reader(self) or not self.knock_painted:   # the first paint: the real one
                self.knock_painted = True
                return paint(self)
            if not self._busy:
                self.session.write(KNOCKED_FRAME)

        def knocked_clock(self) -> None:
            if reader(self):
                return paint_clock(self)
            self.session.write(KNOCKED_FRAME[:12])

        def knocked_take(self) -> None:
            if reader(self):
                return take(self)
            sub = self._sub
            sub.drain()
            self.snapshot = self.service.snapshot
            if sub.closed or sub.overflowed:
                raise EOFError("subscription ended")

        screen.knock_painted = False
        screen._paint, screen._paint_clock, screen._take = (
            knocked_paint, knocked_clock, knocked_take)
    if "ticks" in wanted:
        screen._set_clock = lambda self: None
    if "ledger" in wanted:
        from bbspoker.store.wallet import SYSTEM, MemoryWallet
        from bbspoker.table import registry

        init = registry.TableRegistry.__init__

        def with_memory(self, specs, wallet, *args, **kwargs):
            memory = MemoryWallet({SYSTEM: 0})
            key, read = memory._key, {SYSTEM.lower()}

            def seeded(handle: str) -> str:    # each account's CUBES read once
                if (low := handle.lower()) not in read:
                    memory.balances[handle] = wallet.balance(handle)
                    read.add(low)
                return key(handle)

            def balances_of(handles):       # (MemoryWallet's reads every account)
                return {h: memory.balances[seeded(h)] for h in handles}

            memory._key, memory.balances_of = seeded, balances_of
            init(self, specs, memory, *args, **kwargs)

        registry.TableRegistry.__init__ = with_memory


# ----------------------------------------------------------------- the coordinator


def pinned(argv: list[str], cores: str | None) -> list[str]:
    return ["taskset", "-c", cores, *argv] if cores else argv


def wait_listening(server: subprocess.Popen, port: int, died=lambda: "the server ended",
                   timeout: float = 60.0) -> None:
    """Return once 127.0.0.1:``port`` takes a connection; ``RuntimeError`` with ``died()``
    if ``server`` ended first, or after ``timeout`` s."""
    import socket
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(died())
        try:
            socket.create_connection(("127.0.0.1", port), 1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("the server did not start")


def cpu_seconds(pid: int) -> float:
    return sum(cpu_split(pid))


def cpu_split(pid: int) -> tuple[float, float]:
    """(user, system) CPU seconds of process ``pid`` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) / os.sysconf("SC_CLK_TCK"), int(fields[12]) / os.sysconf("SC_CLK_TCK")


def busy_seconds() -> float:
    """CPU seconds all cores spent busy since boot (``/proc/stat``: not idle, not iowait)."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(fields[:8]) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def rss_kib(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:")))


def write_config(directory: Path, port: int, tables: int, ledger: str,
                 log_level: str = "WARNING", nats: str = "", name: str = "bench") -> Path:
    """``directory/NAME.toml``: a server on 127.0.0.1:``port`` with ``tables`` draw40 tables,
    limits out of the load's way, its ledger ``ledger`` (a ``postgresql://`` URL or a SQLite
    file) and, with ``nats``, the ``[cluster]`` of a split deployment."""
    ledger_key = "url" if ledger.startswith("postgresql://") else "path"
    lines = [
        "[server]", 'host = "127.0.0.1"', f"port = {port}", f'log_level = "{log_level}"',
        "max_connections = 20000", "max_per_address = 20000",
        "max_sessions_per_address = 20000", "prelogin_timeout = 3600",
        "lobby_idle_timeout = 3600",
        "[login]", "max_failures = 1000000", "signups_per_address = 0",
        "[ledger]", f'{ledger_key} = "{ledger}"',
        "[table]", "between_games = 0", "shutdown_grace = 0", "seat_idle_timeout = 0",
        "[input]", "rate_bytes_per_second = 100000", "rate_burst_bytes = 1000000",
        # Telnet only: the SSH and web ports' defaults (2222, 8023) would collide with any
        # other server on the machine, another bench's or the suite's.
        "[ssh]", "enabled = false", "[web]", "enabled = false",
        # No title screen: the clients go straight to the login.
        "[door]", "title = false",
    ]
    if nats:
        lines += ["[cluster]", f'nats = "{nats}"']
    for t in range(tables):
        lines += ["[[tables]]", f'id = "t{t}"', f'name = "Table {t}"']
    path = directory / f"{name}.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def spectator_tables(tables: int, per_ten: float) -> list[int]:
    count = int(tables * per_ten / 10)
    return [n * tables // count for n in range(count)] if count else []


class Services:
    """The PostgreSQL server and the NATS server of a run, started once (pinned with the
    coordinator: to the load cores) when ``--ledger postgres`` or ``--split`` wants them,
    from ``tests/support`` (throwaway: no fsync, a Unix socket; root runs PostgreSQL as
    the ``postgres`` user); :meth:`stop` ends both."""

    def __init__(self, postgres: bool, nats: bool) -> None:
        from tests.support.nats import start_nats
        from tests.support.postgres import start_postgres

        self.pg = start_postgres() if postgres else None
        self.nats = None
        try:
            self.nats = start_nats() if nats else None
        except BaseException:
            self.stop()
            raise
        self._made = 0
        self.template = ""

    def load_template(self, sqlite_template: Path) -> None:
        """Copy the SQLite template's accounts into database ``bench_template``
        (``bbspoker.store.sql.copy.copy_ledger``, as ``bbspoker ledger copy`` does): each
        step's database is then a ``CREATE DATABASE ... TEMPLATE`` of it (a file copy)."""
        import psycopg

        from bbspoker.store import open_ledger
        from bbspoker.store.sql.copy import copy_ledger

        assert self.pg is not None
        with psycopg.connect(self.pg.url, autocommit=True) as conn:
            conn.execute('CREATE DATABASE "bench_template"')
        self.template = self.pg.database_url("bench_template")
        with open_ledger(sqlite_template) as source, open_ledger(self.template) as copy:
            copy_ledger(source, copy)

    def new_database(self) -> str:
        """The URL of a new database holding the template's accounts."""
        import psycopg

        assert self.pg is not None
        self._made += 1
        name = f"bench_step_{self._made}"
        with psycopg.connect(self.pg.url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "bench_template"')
        return self.pg.database_url(name)

    def drop_database(self, url: str) -> None:
        import psycopg

        assert self.pg is not None
        name = url.split("/")[-1].split("?")[0]
        with psycopg.connect(self.pg.url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def postmaster(self) -> int:
        """The PostgreSQL server's main process (its first line of ``postmaster.pid``)."""
        assert self.pg is not None
        return int(Path(self.pg.directory, "data", "postmaster.pid").read_text().split()[0])

    def stop(self) -> None:
        if self.nats is not None:
            self.nats.stop()
        if self.pg is not None:
            self.pg.stop()


def tree_cpu(pid: int) -> float:
    """CPU seconds (user + system) of process ``pid`` and of all its children, the live ones
    read from ``/proc`` and the ended ones from ``pid``'s ``cutime + cstime`` (what the
    kernel adds on reaping them): a PostgreSQL server with its backends and helpers."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            fields = Path(entry.path, "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue                          # ended meanwhile
        if int(entry.name) == pid:
            total += sum(int(v) for v in fields[11:15]) / tick
        elif int(fields[1]) == pid:
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


#: The roles of the split deployment whose CPU is measured, in report order.
SPLIT_ROLES = ("gateway", "workers", "nats", "postgres")
#: Workers of the split deployment.
WORKERS = 2


class Step:
    """One step of T tables: the server (``bbspoker serve``, mode ``serve``) or a gateway and
    :data:`WORKERS` workers (mode ``split``), the load processes, the window, the figures."""

    def __init__(self, args: argparse.Namespace, tables: int, template: Path,
                 services: Services | None = None, mode: str = "serve") -> None:
        self.args, self.tables, self.mode, self.services = args, tables, mode, services
        self.dir = scratch_dir()
        self.port = free_port()
        self.lagfile = self.dir / "lag.txt"
        self.procs: list[subprocess.Popen] = []
        if mode == "split" or args.ledger == "postgres":
            assert services is not None
            self.ledger = services.new_database()
        else:
            shutil.copy(template, self.dir / "bench.db")
            self.ledger = str(self.dir / "bench.db")
        nats = services.nats.url if mode == "split" and services and services.nats else ""
        self.config = write_config(self.dir, self.port, tables, self.ledger, nats=nats)
        # The workers log at INFO: "serving table ..." tells when every table is served.
        self.worker_config = write_config(self.dir, self.port, tables, self.ledger, "INFO",
                                          nats, "worker") if mode == "split" else None

    def _start(self, me: list[str], multi: bool) -> subprocess.Popen:
        """Start the server side; returns the process holding the sessions (the server or
        the gateway) once it listens. Sets ``self.roles``: role -> pids (``postgres``: the
        postmaster, measured with its children)."""
        args, log = self.args, lambda name: open(self.dir / f"{name}.log", "w")
        load_cores = "1-%d" % ((os.cpu_count() or 2) - 1) if multi else None
        pg = [self.services.postmaster()] if self.services and self.services.pg else []
        if self.mode == "serve":
            server = subprocess.Popen(
                pinned([*me, "serve", str(self.config), str(self.lagfile)], "0" if multi else None),
                env={**os.environ, "CAPACITY_KNOCK": args.knock}, stdout=subprocess.DEVNULL,
                stderr=log("server"))
            self.procs.append(server)
            self._wait_listening(server)
            self.roles = {"server": [server.pid]} | ({"postgres": pg} if pg else {})
            return server
        node = [sys.executable, "-c", "import sys; from bbspoker.cli import main; "
                "sys.exit(main(sys.argv[1:]))"]
        workers = [subprocess.Popen(pinned([*node, "--config", str(self.worker_config), "worker",
                                            "--name", f"w{k + 1}"], load_cores),
                                    stdout=subprocess.DEVNULL, stderr=log(f"worker{k + 1}"))
                   for k in range(WORKERS)]
        self.procs += workers
        deadline = time.monotonic() + 60 + self.tables * 0.2
        while (served := self.served()) and sum(served) < self.tables:
            if time.monotonic() > deadline or any(w.poll() is not None for w in workers):
                raise RuntimeError(f"the workers serve {served} of {self.tables} tables: "
                                   + self._logs())
            time.sleep(0.1)
        gateway = subprocess.Popen(pinned([*node, "--config", str(self.config), "gateway",
                                           "--name", "g1"], "0" if multi else None),
                                   stdout=subprocess.DEVNULL, stderr=log("gateway"))
        self.procs.append(gateway)
        self._wait_listening(gateway)
        self.roles = {"gateway": [gateway.pid], "workers": [w.pid for w in workers],
                      "nats": [self.services.nats.process.pid], "postgres": pg}
        return gateway

    def served(self) -> list[int]:
        """Tables each worker has said it serves (its log's ``serving table`` lines)."""
        return [(self.dir / f"worker{k + 1}.log").read_text().count("serving table ")
                for k in range(WORKERS)] or [0]

    def _role_cpu(self) -> dict[str, float]:
        return {role: sum(tree_cpu(p) if role == "postgres" else cpu_seconds(p) for p in pids)
                for role, pids in self.roles.items()}

    def run(self) -> dict:
        args = self.args
        multi = bool((os.cpu_count() or 1) >= 2 and shutil.which("taskset") and not args.no_pin)
        me = [sys.executable, str(Path(__file__).resolve())]
        loaders: list[subprocess.Popen] = []
        journal0 = self._journal_rows()
        try:
            server = self._start(me, multi)
            rss0 = rss_kib(server.pid)
            loaders = self._start_loaders(me, "1-%d" % ((os.cpu_count() or 2) - 1) if multi else None)
            self._expect(loaders, "idle", 600)
            time.sleep(args.settle)
            rss_idle = rss_kib(server.pid)
            for p in loaders:
                p.stdin.write(b"seat\n")
                p.stdin.flush()
            self._expect(loaders, "ready", 1200)
            time.sleep(args.settle)
            rss_seated = rss_kib(server.pid)
            t0 = time.monotonic() + 0.5
            for p in loaders:
                p.stdin.write(f"go {t0}\n".encode())
                p.stdin.flush()
            start, end = t0 + args.warmup, t0 + args.warmup + args.measure
            time.sleep(max(0.0, start - time.monotonic()))
            split0, busy0, roles0 = cpu_split(server.pid), busy_seconds(), self._role_cpu()
            cpu0 = sum(split0)
            spy = None
            if args.profile:
                # Sampled from the load core; --nonblocking: the server is never paused.
                out = Path(args.profile) / f"pyspy-{self.mode}-{self.tables}.txt"
                out.parent.mkdir(parents=True, exist_ok=True)
                spy = subprocess.Popen(pinned(
                    [str(Path(sys.executable).parent / "py-spy"), "record", "--nonblocking",
                     "-r", str(args.profile_rate), "-f", "raw", "-d", str(int(args.measure)), "-p",
                     str(server.pid), "-o", str(out)],
                    "1" if multi else None), stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL)
            time.sleep(max(0.0, end - time.monotonic()))
            split1, busy1, roles1 = cpu_split(server.pid), busy_seconds(), self._role_cpu()
            cpu1 = sum(split1)
            rss_end = rss_kib(server.pid)
            rss_others = {role: sum(rss_kib(p) for p in pids)
                          for role, pids in self.roles.items() if role in ("workers",)}
            results = [json.loads(self._expect([p], "{", ACTION_TIMEOUT + 30)[0]) for p in loaders]
            if spy is not None:
                spy.wait(60)
            served = self.served() if self.mode == "split" else []
        finally:
            for p in self.procs:
                p.kill()
                p.wait()
            for p in loaders:
                if p.poll() is None:
                    p.kill()
                p.wait()
        time.sleep(args.settle / 2)
        journal = self._journal_rows() - journal0
        if self.ledger.startswith("postgresql://"):
            self.services.drop_database(self.ledger)
        records = ([line.split() for line in self.lagfile.read_text().splitlines() if line]
                   if self.lagfile.exists() else [])
        for r in records:
            if r[0] == "objs":
                print(f"  census at {float(r[1]) - t0:7.1f} s: tracked objects by generation "
                      f"{r[2]} {r[3]} {r[4]}, frozen {r[5]}", flush=True)
        lags = [float(r[2]) for r in records if r[0] == "lag" and start <= float(r[1]) < end]
        gcs = [(int(r[2]), float(r[3])) for r in records
               if r[0] == "gc" and start <= float(r[1]) < end]
        gc_cpu = [(int(r[2]), float(r[4])) for r in records
                  if r[0] == "gc" and start <= float(r[1]) < end]
        full = [ms for gen, ms in gcs if gen == 2]
        latencies = [lat * 1000 for r in results for lat in r["latencies"]]
        kinds = [k for r in results for k in r["kinds"]]
        actions = len(latencies)
        players = SEATS * self.tables
        spectators = len(spectator_tables(self.tables, args.spectators))
        cpu = cpu1 - cpu0
        roles = {role: roles1[role] - roles0[role] for role in self.roles}
        all_cpu = sum(roles.values())
        load_cpu = sum(r["cpu"] for r in results)
        by_kind = {}
        for kind in sorted(set(kinds)):
            got = [lat for lat, k in zip(latencies, kinds) if k == kind]
            by_kind[kind] = {"n": len(got), "p50_ms": percentile(got, 50), "p99_ms": percentile(got, 99)}
        step = {
            "mode": self.mode, "ledger": "postgres" if self.ledger.startswith("postgresql")
            else "sqlite",
            "tables": self.tables, "players": players, "spectators": spectators,
            "idle": args.idle, "actions": actions,
            "actions_per_s": actions / args.measure,
            "target_actions_per_s": self.tables / args.interval,
            "lost": sum(r["lost"] for r in results),
            "p50_ms": percentile(latencies, 50) if latencies else None,
            "p99_ms": percentile(latencies, 99) if latencies else None,
            "max_ms": max(latencies) if latencies else None,
            "by_kind": by_kind,
            "lag_p50_ms": percentile(lags, 50) if lags else None,
            "lag_p99_ms": percentile(lags, 99) if lags else None,
            "lag_max_ms": max(lags) if lags else None,
            "gc_ms_per_s": sum(ms for _, ms in gcs) / args.measure,
            "gc_full": len(full), "gc_full_max_ms": max(full) if full else 0.0,
            # The longest collection of each generation, wall and CPU ms.
            "gc_max_ms_by_gen": [max((ms for g, ms in gcs if g == gen), default=0.0)
                                 for gen in (0, 1, 2)],
            "gc_max_cpu_ms_by_gen": [max((ms for g, ms in gc_cpu if g == gen), default=0.0)
                                     for gen in (0, 1, 2)],
            "gc_per_s": [sum(1 for g, _ in gcs if g == gen) / args.measure for gen in (0, 1, 2)],
            "gc_ms_per_s_by_gen": [sum(ms for g, ms in gcs if g == gen) / args.measure
                                   for gen in (0, 1, 2)],
            # The process holding the sessions: the server, or the split's gateway.
            "server_cpu_s": cpu, "server_cpu_share": cpu / args.measure,
            # Of which in the kernel (socket calls; on loopback a send also runs the TCP
            # receive path of the client's end).
            "server_system_cpu_s": split1[1] - split0[1],
            "cpu_us_per_action": cpu / actions * 1e6 if actions else None,
            # The same without the full collections in the window (one of ~0.4 s comes
            # every few minutes: in a 30 s window or not, by chance), for A/B runs.
            "cpu_us_per_action_no_full_gc": (cpu - sum(full) / 1000) / actions * 1e6
            if actions else None,
            # Every process of the deployment: CPU s over the window and us per action, by
            # role (serve: the server and PostgreSQL's processes if the ledger is there;
            # split: the gateway, the workers together, nats-server, PostgreSQL's processes).
            "role_cpu_s": roles,
            "role_cpu_us_per_action": {role: c / actions * 1e6 if actions else None
                                       for role, c in roles.items()},
            "all_cpu_us_per_action": all_cpu / actions * 1e6 if actions else None,
            "all_cpu_share": all_cpu / args.measure,
            "rss_kib_start": rss0, "rss_kib_idle": rss_idle, "rss_kib_seated": rss_seated,
            "rss_kib_end": rss_end,
            "rss_kib_per_idle": (rss_idle - rss0) / args.idle if args.idle else None,
            "rss_kib_per_seated": (rss_end - rss_idle) / players,
            "bytes_per_action": sum(r["bytes"] for r in results) / actions if actions else None,
            # CUBES movements the ledger recorded in the step (none with --knock ledger).
            "journal_rows": journal,
            "load_cpu_share": load_cpu / args.measure,
            # What other processes of the machine used meanwhile (cores' worth).
            "other_cpu_share": max(0.0, busy1 - busy0 - all_cpu - load_cpu) / args.measure,
        }
        if self.mode == "split":
            step["tables_per_worker"] = served
            step["rss_kib_workers"] = rss_others["workers"]
            # Times a worker heard nothing from the gateway for three presence intervals
            # (a gateway stalled, or NATS): it then holds the seats of all its players.
            step["presence_lapses"] = sum(
                (self.dir / f"worker{k + 1}.log").read_text().count(" silent; its users forgotten")
                for k in range(WORKERS))
        return step

    def _journal_rows(self) -> int:
        """Rows in the step's ledger's journal (every movement of CUBES)."""
        if self.ledger.startswith("postgresql://"):
            import psycopg
            with psycopg.connect(self.ledger) as db:
                return db.execute("SELECT count(*) FROM journal").fetchone()[0]
        with contextlib.closing(sqlite3.connect(self.ledger)) as db:
            return db.execute("SELECT count(*) FROM journal").fetchone()[0]

    def _wait_listening(self, server: subprocess.Popen) -> None:
        wait_listening(server, self.port, self._logs)

    def _start_loaders(self, me: list[str], cores: str | None) -> list[subprocess.Popen]:
        args = self.args
        n = max(1, min(args.loaders, self.tables))
        specs = spectator_tables(self.tables, args.spectators)
        loaders = []
        for k in range(n):
            first, last = k * self.tables // n, (k + 1) * self.tables // n
            mine = [(i, t) for i, t in enumerate(specs) if first <= t < last]
            argv = [*me, "load", "--port", str(self.port), "--first", str(first),
                    "--last", str(last), "--tables", str(self.tables),
                    "--idle-first", str(k * args.idle // n),
                    "--idle-last", str((k + 1) * args.idle // n),
                    "--specs", ",".join(str(t) for _, t in mine),
                    "--spec-ids", ",".join(str(i) for i, _ in mine),
                    "--interval", str(args.interval), "--warmup", str(args.warmup),
                    "--measure", str(args.measure), "--seed", str(args.seed + k)]
            loaders.append(subprocess.Popen(pinned(argv, cores), stdin=subprocess.PIPE,
                                            stdout=subprocess.PIPE,
                                            stderr=None))
        return loaders

    def _expect(self, procs: Sequence[subprocess.Popen], what: str, timeout: float) -> list[str]:
        """Read one line starting with ``what`` from each process (bounded by ``timeout``)."""
        import selectors
        lines = []
        deadline = time.monotonic() + timeout
        for p in procs:
            sel = selectors.DefaultSelector()
            sel.register(p.stdout, selectors.EVENT_READ)
            if not sel.select(max(0.0, deadline - time.monotonic())):
                raise RuntimeError(f"no {what!r} from a load process in {timeout} s: "
                                   + self._logs())
            line = p.stdout.readline().decode()
            if not line.startswith(what):
                raise RuntimeError(f"expected {what!r}, got {line!r}: " + self._logs())
            lines.append(line)
        return lines

    def _logs(self) -> str:
        return "\n".join(f.read_text()[-3000:] for f in sorted(self.dir.glob("*.log")))


def make_template(args: argparse.Namespace, largest: int) -> Path:
    """A ledger holding every account any step needs (copied per step)."""
    from _common import create_accounts
    from bbspoker.store.sqlite import Ledger
    path = scratch_dir() / "template.db"
    specs = len(spectator_tables(largest, args.spectators))
    handles = ([player(t, s) for t in range(largest) for s in range(SEATS)]
               + [spectator(n) for n in range(specs)] + [idler(n) for n in range(args.idle)])
    with Ledger(path) as ledger:
        create_accounts(ledger, handles, cubes=1_000_000)
    return path


def report(steps: list[dict], args: argparse.Namespace) -> dict:
    print(f"\ncapacity: {args.idle} idle sessions, {args.spectators:g} spectators per 10 tables, "
          f"one action per table every {args.interval:g} s, window {args.measure:g} s; "
          f"{os.cpu_count()} cores (server on one); ledger {args.ledger}")
    if args.knock:
        print(f"knocked out: {args.knock} (an experiment: these are not bbspoker's figures)")
    rows = [("tables", "players", "actions/s", "p50 ms", "p99 ms", "lag p99 ms",
             "CPU us/action", "server CPU", "RSS MiB", "B/action", "load CPU", "others",
             "lost")]
    for s in steps:
        rows.append((s["tables"], s["players"], f"{s['actions_per_s']:.1f}",
                     _f(s["p50_ms"]), _f(s["p99_ms"]), _f(s["lag_p99_ms"]),
                     _f(s["cpu_us_per_action"], 0), f"{s['server_cpu_share']:.0%}",
                     f"{s['rss_kib_end'] / 1024:.0f}", _f(s["bytes_per_action"], 0),
                     f"{s['load_cpu_share']:.0%}", f"{s.get('other_cpu_share', 0):.0%}",
                     s["lost"]))
    print_table(rows)
    ok = [s["tables"] for s in steps if s["p99_ms"] is not None and s["p99_ms"] <= 50]
    both = [s["tables"] for s in steps if s["p99_ms"] is not None and s["p99_ms"] <= 50
            and s["lag_p99_ms"] is not None and s["lag_p99_ms"] <= 20]
    largest = max(ok) if ok else 0
    print(f"largest T with key-to-screens p99 <= 50 ms: {largest} "
          f"(target >= 400): {'PASS' if largest >= 400 else 'MISS'}")
    print(f"largest T with p99 <= 50 ms and loop lag p99 <= 20 ms: {max(both) if both else 0}")
    kept_up = [s for s in steps if s["actions_per_s"] >= 0.95 * s["target_actions_per_s"]]
    top = (kept_up or steps)[-1]
    cpu = top["cpu_us_per_action"]
    print(f"server CPU per action at {top['tables']} tables: {_f(cpu, 0)} us "
          f"(target <= 400 us): {'PASS' if cpu is not None and cpu <= 400 else 'MISS'}")
    # That figure holds the process's fixed work too (idle sessions, the sysop's watch,
    # timers); the slope between two steps is what one more action costs.
    marginal = None
    first = steps[0]
    if top is not first and top["actions_per_s"] > first["actions_per_s"]:
        marginal = ((top["server_cpu_share"] - first["server_cpu_share"])
                    / (top["actions_per_s"] - first["actions_per_s"]) * 1e6)
        print(f"server CPU per additional action ({first['tables']} to {top['tables']} "
              f"tables): {marginal:.0f} us")
    per = top["rss_kib_per_seated"]
    print(f"RSS per seated player at {top['tables']} tables: {per:.1f} KiB "
          f"(target <= 64 KiB): {'PASS' if per <= 64 else 'MISS'}")
    return {"largest_tables_p99_50ms": largest, "largest_tables_both": max(both) if both else 0,
            "marginal_cpu_us_per_action": marginal}


def report_split(steps: list[dict], split: list[dict], args: argparse.Namespace) -> None:
    """Print the split deployment's steps beside the one-process server's at the same T."""
    print(f"\nsplit deployment: a gateway on core 0; {WORKERS} workers, nats-server and "
          f"PostgreSQL on the load core(s) with the load; the one-process server's ledger: "
          f"{args.ledger}")
    rows = [("tables", "deployment", "actions/s", "p50 ms", "p99 ms", "CPU us/action (all)",
             *(f"{r} us" for r in SPLIT_ROLES), "front CPU", "load CPU", "others", "lost")]
    serve = {s["tables"]: s for s in steps}
    for sp in split:
        for s in (serve.get(sp["tables"]), sp):
            if s is None:
                continue
            per = s["role_cpu_us_per_action"]
            rows.append((s["tables"], "one process" if s["mode"] == "serve" else "split",
                         f"{s['actions_per_s']:.1f}", _f(s["p50_ms"]), _f(s["p99_ms"]),
                         _f(s["all_cpu_us_per_action"], 0),
                         *(_f(per.get("server" if r == "gateway" and s["mode"] == "serve"
                                      else r), 0) for r in SPLIT_ROLES),
                         f"{s['server_cpu_share']:.0%}", f"{s['load_cpu_share']:.0%}",
                         f"{s['other_cpu_share']:.0%}", s["lost"]))
    print_table(rows)
    print("(one process: the server's CPU is under 'gateway us'; front CPU: the share of a "
          "core used by the process holding the sessions, the server or the gateway)")
    for sp in split:
        print(f"T={sp['tables']}: tables per worker {sp['tables_per_worker']}; the workers "
              f"lost the gateway's presence {sp.get('presence_lapses', 0)} time(s)")


#: The share of each core the model plans to use: room for bursts, collections and the
#: clock ticks that the measured window averages out.
UTILISATION = 0.7
#: Machines the model plans for (cores).
MODEL_CORES = (8, 32)


def model(data: dict, cores: Sequence[int] = MODEL_CORES) -> dict:
    """A model on paper of the tables one machine of N cores serves, from a run's figures
    (``data``: the JSON of a ``--split`` run).

    Taken: the split step at the largest T that kept up (>= 95% of its target actions per
    second; else the largest), its CPU per action of each role (us: ``gateway``,
    ``workers`` together, ``nats``, ``postgres``). A core gives 1e6 us of CPU per second
    and a table asks one action per ``interval`` s, so a core sustains
    ``1e6 * interval / us`` tables of a role (``per_core_tables``). For N cores every
    split into ``g`` gateway cores (a gateway process each), ``w`` worker cores (a worker
    each) and ``N - g - w >= 1`` cores shared by nats-server and PostgreSQL is tried; the
    tables it serves with every core at :data:`UTILISATION` are
    ``UTILISATION * 1e6 * interval * min(g / gateway, w / workers, rest / (nats +
    postgres))``, and the split serving most is kept (``machines``: cores per role, tables,
    seated players, the role that bounds it). ``one_process_tables``: ``bbspoker serve``
    at the same utilisation of its one core (its CPU per action at the same T; PostgreSQL,
    if its ledger was there, on other cores).

    The figures are linear in the measured per-action CPU, which holds each process's
    fixed work (idle sessions, presence, lease ticks, balance polls) spread over that
    step's actions: at more tables per process that share falls (conservative). Each
    gateway follows every table over NATS, so a machine of several gateways pays each
    table's snapshot decode once per gateway (optimistic for many gateways); and the
    load's clients run on the measured machine, not on the planned one."""
    split = data["split"]
    interval = data["interval"]
    kept = [s for s in split if s["actions_per_s"] >= 0.95 * s["target_actions_per_s"]]
    step = (kept or split)[-1]
    us = {r: step["role_cpu_us_per_action"][r] for r in SPLIT_ROLES}
    if not all(us.values()):
        raise ValueError(f"no CPU per action for every role at T={step['tables']}: {us}")
    rest = us["nats"] + us["postgres"]
    budget = UTILISATION * 1e6 * interval
    machines = []
    for n in cores:
        best: tuple[float, int, int] | None = None
        for g in range(1, n - 1):
            for w in range(1, n - g):
                tables = budget * min(g / us["gateway"], w / us["workers"], (n - g - w) / rest)
                if best is None or tables > best[0]:
                    best = (tables, g, w)
        assert best is not None
        tables, g, w = best
        shares = {"gateway": g / us["gateway"], "workers": w / us["workers"],
                  "nats + postgres": (n - g - w) / rest}
        machines.append({
            "cores": n, "gateway_cores": g, "worker_cores": w, "nats_postgres_cores": n - g - w,
            "tables": int(tables), "players": SEATS * int(tables),
            "bound_by": min(shares, key=lambda r: shares[r]),
            # The busy share of each role's cores at that many tables.
            "utilisation": {"gateway": tables * us["gateway"] / interval / 1e6 / g,
                            "workers": tables * us["workers"] / interval / 1e6 / w,
                            "nats + postgres": tables * rest / interval / 1e6 / (n - g - w)},
        })
    serve = next((s for s in data["steps"] if s["tables"] == step["tables"]), None)
    one = (budget / serve["role_cpu_us_per_action"]["server"]
           if serve and serve["role_cpu_us_per_action"].get("server") else None)
    return {
        "from_tables": step["tables"], "interval": interval, "utilisation": UTILISATION,
        "cpu_us_per_action": us,
        "per_core_tables": {r: 1e6 * interval / v for r, v in us.items()},
        "machines": machines,
        "one_process_tables": int(one) if one else None,
        "one_process_ledger": serve.get("ledger") if serve else None,
    }


def print_model(m: dict) -> None:
    """Print :func:`model`'s figures."""
    print(f"\nmodel on paper (from the split at {m['from_tables']} tables; one action per "
          f"table every {m['interval']:g} s; cores at {m['utilisation']:.0%}):")
    print("CPU us per action: " + ", ".join(f"{r} {v:,.0f}" for r, v in
                                             m["cpu_us_per_action"].items()))
    print("tables one core sustains (100%): " + ", ".join(
        f"{r} {v:,.0f}" for r, v in m["per_core_tables"].items()))
    rows = [("cores", "gateways", "workers", "nats+pg cores", "tables", "players", "bound by",
             "gateway busy", "workers busy", "nats+pg busy")]
    for k in m["machines"]:
        u = k["utilisation"]
        rows.append((k["cores"], k["gateway_cores"], k["worker_cores"],
                     k["nats_postgres_cores"], f"{k['tables']:,}", f"{k['players']:,}",
                     k["bound_by"], f"{u['gateway']:.0%}", f"{u['workers']:.0%}",
                     f"{u['nats + postgres']:.0%}"))
    print_table(rows)
    if m["one_process_tables"]:
        print(f"one process (bbspoker serve, ledger {m['one_process_ledger']}): "
              f"{m['one_process_tables']:,} tables at {m['utilisation']:.0%} of its one core, "
              f"whatever the machine's cores")


def _f(value, digits: int = 1) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


#: Colours of the roles in the CPU-per-action bars.
ROLE_COLOURS = {"server": "tab:gray", "gateway": "tab:blue", "workers": "tab:green",
                "nats": "tab:olive", "postgres": "tab:brown"}


def plot(json_path: str, png_path: str, split_path: str | None = None) -> int:
    """Draw T against key-to-screens p99 and server CPU per action (matplotlib): the
    one-process curve of ``json_path``; with a split run (the ``split`` steps of
    ``json_path``, or of ``split_path`` if given) its p50/p99 and all-process CPU per
    action as points on the curve, and a second panel of bars: CPU us per action of each
    role, the one-process server beside the split deployment at each T of the split run."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    data = json.loads(Path(json_path).read_text())
    other = json.loads(Path(split_path).read_text()) if split_path else data
    split, twin = other.get("split", []), {s["tables"]: s for s in other["steps"]}
    steps = data["steps"]
    t = [s["tables"] for s in steps]
    if split:
        fig, (ax, bars) = plt.subplots(1, 2, figsize=(12, 4.5), dpi=100,
                                       gridspec_kw={"width_ratios": [3, 2]})
    else:
        fig, ax = plt.subplots(figsize=(8, 4.5), dpi=100)
    ax.plot(t, [s["p99_ms"] for s in steps], "o-", color="tab:red", label="key to screens p99")
    ax.plot(t, [s["p50_ms"] for s in steps], "o--", color="tab:orange", label="key to screens p50")
    ax.plot(t, [s["lag_p99_ms"] for s in steps], "s:", color="tab:purple", label="loop lag p99")
    ts = [s["tables"] for s in split]
    if split:
        ax.plot(ts, [s["p99_ms"] for s in split], "*", ms=12, color="tab:red",
                label="split: key to screens p99 (its run)")
        ax.plot(ts, [s["p50_ms"] for s in split], "*", ms=9, color="tab:orange",
                label="split: key to screens p50")
    ax.axhline(50, color="tab:red", lw=0.8, ls="--")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ticks = sorted(set(t) | set(ts))
    ax.set_xticks(ticks, [str(v) for v in ticks])
    ax.set_xlabel(f"tables (5 players each, one action per table every {data['interval']:g} s)")
    ax.set_ylabel("ms")
    ax2 = ax.twinx()
    ax2.plot(t, [s["cpu_us_per_action"] for s in steps], "^-", color="tab:blue",
             label="server CPU per action")
    cpus = [s["cpu_us_per_action"] or 0 for s in steps]
    if split:
        ax2.plot(ts, [s["all_cpu_us_per_action"] for s in split], "P", ms=10, color="tab:blue",
                 label="split: CPU per action, all processes")
        cpus += [s["all_cpu_us_per_action"] or 0 for s in split]
    ax2.set_ylabel("CPU us per action")
    ax2.set_ylim(0, max(cpus) * 1.3)
    lines = ax.get_legend_handles_labels()[0] + ax2.get_legend_handles_labels()[0]
    ax.legend(lines, [h.get_label() for h in lines], loc="upper left", fontsize=7)
    ax.set_title(f"bbspoker capacity, server on one core ({data['machine']['cores']} cores)")
    if split:
        labels, x = [], 0
        for sp in split:
            for s in (twin.get(sp["tables"]), sp):
                if s is None:
                    continue
                bottom = 0.0
                per = s["role_cpu_us_per_action"]
                for role in [r for r in ROLE_COLOURS if r in per]:
                    us = per[role]
                    bars.bar(x, us or 0, bottom=bottom, color=ROLE_COLOURS.get(role, "k"),
                             label=role if role not in bars.get_legend_handles_labels()[1]
                             else None)
                    bottom += us or 0
                labels.append(f"{'one process' if s['mode'] == 'serve' else 'split'}\n"
                              f"T={s['tables']}")
                x += 1
        bars.set_xticks(range(len(labels)), labels, fontsize=8)
        bars.set_ylabel("CPU us per action")
        bars.set_xlabel("ledger: " + ", ".join(sorted({s["ledger"] for s in split}
                                                      | {s["ledger"] for s in twin.values()})))
        bars.legend(fontsize=8)
        bars.set_title("CPU per action by process role (the same run, same load)", fontsize=10)
    fig.tight_layout()
    fig.savefig(png_path)
    print(f"wrote {png_path}")
    return 0


#: Where a server's busy samples go, by the first of these functions found in the stack
#: from its leaf up (``capacity.py breakdown RAW``): (category, function names).
CATEGORIES = (
    ("ledger commit (SQL, COMMIT)", ("TableService._commit", "Writer.commit_pending")),
    ("socket writes", ("Session.write", "_SelectorSocketTransport.write")),
    ("rendering, per viewer", ("ScreenRenderer.render",)),
    ("views and messages, per viewer", ("PokerScreen.view", "describe_event",
                                        "TableScreen._on_item", "TableScreen._take")),
    ("the table's snapshot", ("TableService._take_snapshot",)),
    ("rules (the game's step)", ("Draw40.apply", "Draw40.tick", "TableService._act")),
    ("table step, rest (bus, cards)", ("TableService._step", "TableService.run")),
    ("screens, rest (clock ticks, prompts)", ("TableScreen._paint", "TableScreen._on_bus",
                                             "TableScreen.run", "TableScreen._on_keys")),
    ("input: telnet, keys", ("_DoorProtocol.data_received", "_read_ready")),
    ("sysop's ban/kick watch", ("App._watch_admin",)),
    ("ledger checkpoint thread", ("Writer.checkpoint",)),
)


def breakdown(raw_path: str, cpu_us: float | None = None) -> list[tuple[str, float]]:
    """Shares of the busy samples of a ``py-spy record -f raw`` file by :data:`CATEGORIES`
    (idle: a stack ending in the selector's wait); printed, with us per action if
    ``cpu_us`` (the server's CPU per action) is given."""
    counts: dict[str, int] = {}
    busy = 0
    for line in Path(raw_path).read_text().splitlines():
        stack, _, n = line.rpartition(" ")
        if not stack.endswith(")") or not n.isdigit():
            continue        # a stray line (py-spy prints a multi-line name as it is)
        frames = [f.split(" (", 1)[0] for f in stack.split(";")]
        if frames[-1] in ("EpollSelector.select", "select"):
            continue
        busy += int(n)
        name = "event loop, asyncio, other"
        for frame in reversed(frames):
            hit = next((c for c, names in CATEGORIES if frame in names), None)
            if hit is not None:
                name = hit
                break
        counts[name] = counts.get(name, 0) + int(n)
    shares = sorted(((k, v / busy) for k, v in counts.items()), key=lambda kv: -kv[1])
    print(f"{busy} busy samples")
    for name, share in shares:
        per = f"  {share * cpu_us:6.0f} us/action" if cpu_us else ""
        print(f"{share:6.1%}{per}  {name}")
    return shares


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["breakdown"]:
        breakdown(argv[1], float(argv[2]) if len(argv) > 2 else None)
        return 0
    if argv[:1] == ["serve"]:
        return serve(argv[1], argv[2])
    if argv[:1] == ["plot"]:
        return plot(argv[1], argv[2], argv[3] if len(argv) > 3 else None)
    if argv[:1] == ["model"]:
        data = json.loads(Path(argv[1]).read_text())
        data["model"] = model(data)
        print_model(data["model"])
        Path(argv[1]).write_text(json.dumps(data, indent=1) + "\n")
        return 0
    if argv[:1] == ["load"]:
        p = argparse.ArgumentParser()
        for name in ("--port", "--first", "--last", "--tables", "--idle-first", "--idle-last",
                     "--seed"):
            p.add_argument(name, type=int)
        for name in ("--interval", "--warmup", "--measure"):
            p.add_argument(name, type=float)
        p.add_argument("--specs", default="")
        p.add_argument("--spec-ids", default="")
        args = p.parse_args(argv[1:])
        args.spec_ids = [int(s) for s in args.spec_ids.split(",") if s]
        asyncio.run(load(args))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one step of 2 tables (smoke run)")
    parser.add_argument("--steps", default="25,50,100,200,400,800", help="table counts")
    parser.add_argument("--interval", type=float, default=2.0, help="s between a table's actions")
    parser.add_argument("--idle", type=int, default=1000, help="idle sessions in the lobby")
    parser.add_argument("--spectators", type=float, default=2.0, help="spectators per 10 tables")
    parser.add_argument("--spectators-per-table", type=float, metavar="N",
                        help="spectators at every table (the issue's CPU-per-action case: 2); "
                             "overrides --spectators")
    parser.add_argument("--warmup", type=float, default=60.0,
                        help="s before the window; the tables start one by one over 90%% of it")
    parser.add_argument("--measure", type=float, default=30.0, help="s of the window")
    parser.add_argument("--loaders", type=int, default=2, help="load processes")
    parser.add_argument("--stop-ms", type=float, default=100.0, help="stop past this p99")
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--no-pin", action="store_true", help="no taskset")
    parser.add_argument("--profile", metavar="DIR",
                        help="py-spy the server during each window (raw stacks to DIR)")
    parser.add_argument("--profile-rate", type=int, default=250, metavar="HZ",
                        help="py-spy's samples per second (--profile)")
    parser.add_argument("--knock", default="", metavar="PARTS",
                        help="an experiment: switch these parts of the server off (comma-"
                             f"separated, of {', '.join(KNOCKABLE)}; see knock()) to measure "
                             "what is left of an action without them")
    parser.add_argument("--ledger", choices=("sqlite", "postgres"),
                        help="the one-process server's ledger: a SQLite file (the default "
                             "without --split) or a database on a throwaway PostgreSQL (the "
                             "default with --split: the same ledger as the split's)")
    parser.add_argument("--split", action="store_true",
                        help="after each step, the same load on a gateway (core 0) and two "
                             "workers, nats-server and PostgreSQL (the load cores)")
    parser.add_argument("--json", default="capacity.json", help="where the figures go")
    args = parser.parse_args(argv)
    # s the server is left alone before each RSS reading (and after it ends).
    args.settle = 1.0
    try:
        knock_parts(args.knock)
    except ValueError as e:
        parser.error(str(e))
    if args.knock and args.split:
        parser.error("--knock changes the one-process server only: not with --split")
    if args.spectators_per_table is not None:
        args.spectators = 10 * args.spectators_per_table
    if args.ledger is None:
        args.ledger = "postgres" if args.split else "sqlite"
    if args.quick:
        # A smoke run, not steady figures: a short ramp and settles; but the window holds
        # more than one second, so that the server's lag probe, which writes its samples
        # once a second (and is killed with the step), has written some of the window's.
        args.steps, args.idle, args.spectators = "2", 4, 5.0
        args.interval, args.warmup, args.measure, args.loaders = 0.25, 0.25, 1.5, 1
        args.settle = 0.1
    steps_t = [int(s) for s in args.steps.split(",")]
    raise_fd_limit()
    template = make_template(args, max(steps_t))
    if (os.cpu_count() or 1) >= 2 and not args.no_pin:
        os.sched_setaffinity(0, set(range(1, os.cpu_count())))
    # Started after the coordinator's own pinning: PostgreSQL and nats-server inherit it
    # (the load cores; the server or the gateway has core 0 to itself).
    services = None
    if args.ledger == "postgres" or args.split:
        from tests.support.nats import NatsUnavailable
        from tests.support.postgres import PostgresUnavailable
        try:
            services = Services(postgres=True, nats=args.split)
        except (NatsUnavailable, PostgresUnavailable) as e:
            raise SystemExit(f"capacity.py: {e}") from None
    steps, split = [], []
    try:
        if services is not None:
            services.load_template(template)
        for tables in steps_t:
            step = Step(args, tables, template, services).run()
            steps.append(step)
            print(f"T={tables}: p99 {_f(step['p99_ms'])} ms, lag p99 {_f(step['lag_p99_ms'])} ms, "
                  f"{_f(step['cpu_us_per_action'], 0)} us CPU/action, "
                  f"{step['actions_per_s']:.1f} actions/s", flush=True)
            if args.split:
                other = Step(args, tables, template, services, mode="split").run()
                split.append(other)
                print(f"T={tables} split: p99 {_f(other['p99_ms'])} ms, "
                      f"{_f(other['all_cpu_us_per_action'], 0)} us CPU/action (all processes), "
                      f"{other['actions_per_s']:.1f} actions/s", flush=True)
            if step["p99_ms"] is None or step["p99_ms"] > args.stop_ms:
                break
    finally:
        if services is not None:
            services.stop()
    summary = report(steps, args)
    out = {"machine": {"cores": os.cpu_count(), "python": platform.python_version(),
                       "processor": platform.processor() or platform.machine()},
           "interval": args.interval, "idle": args.idle, "spectators_per_10": args.spectators,
           "warmup": args.warmup, "measure": args.measure, "knock": args.knock,
           "ledger": args.ledger, "steps": steps, **summary}
    if split:
        out["split"] = split
        report_split(steps, split, args)
        out["model"] = model(out)
        print_model(out["model"])
    Path(args.json).write_text(json.dumps(out, indent=1) + "\n")
    print(f"figures written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
