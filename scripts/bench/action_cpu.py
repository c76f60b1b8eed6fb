"""Benchmark: the server's Python work per table action, in process (issue 21).

``capacity.py`` measures the server's CPU per action over real sockets, and one run is
good to about +-15% (the machine, the kernel, 2,400 connections' caches). This bench
measures the part an optimisation of the per-action path changes, to a few percent: T
draw40 tables of five seated players and ``--spectators`` (2) spectators each, every
one a real :class:`~bbspoker.transport.session.Session` of the real
:class:`~bbspoker.app.App` (default config, a SQLite ledger in a temporary directory),
in one process, with no sockets:

- Each connection is what the telnet transport hands the door: a
  :class:`~bbspoker.transport.telnet.DoorReader` and a
  :class:`~bbspoker.transport.telnet.DoorWriter` (TTYPE ``xterm``, 80x24) served by a
  :class:`~bbspoker.transport.gateway.Gate` (``Gate.serve``: the session, the door).
  The writer's transport (:class:`DropTransport`) takes every write at once, counts
  the calls and the bytes and drops them. Keys go in as telnet's protocol passes
  in-band bytes on: charged to the gate's rate limit, then ``DoorReader.feed_data``.
- Everyone logs in and goes to the table through the door: ``Handle:``,
  ``Password:``, the lobby's [P], the table's number, ``y`` (or ``w`` to watch).
- The play is ``capacity.py``'s: the game-master [S]tarts, players bet with [B] and
  Enter as two key batches (Enter alone calls), discard nothing with [D], ask to see
  hands with [H] (then Enter) in a round drawn from 3-6 per game, and reveal with [R].
  Who acts and what they may do is read from the table's snapshot
  (``entry.service.snapshot``), not from a screen.
- One action at a time, round-robin over the tables. After each key batch the event
  loop runs (``asyncio.sleep(0)``) until it has nothing ready: the table's step, every
  other screen painted (``Bus.flush``), the actor's screen painted after the outcome,
  the ledger's commit, the screens' loops setting their clocks again.
- The tables' clock is a fake one that never moves (``between_games`` 0 so that a
  game may follow at once; the one change to the default config): no turn times out.
  The clock ticks of the player in turn and each table's balance poll run on the
  event loop's real timers, after a table has been quiet for a second; round-robin
  never leaves a table that long (the report says how long it did).

A warm-up (``--warmup-games`` games at every table, then 0-29 actions more so that the
tables are out of phase; each action checked: the table applied it and every screen of
the table got bytes) comes first; then ``time.process_time()`` over ``--actions``
actions (4,000) gives the CPU per action. The process is pinned to the last core where
there are two or more (``--no-pin``: not): on the 2-core virtual machine of these
figures, runs back to back then agree to about +-2%, against +-5% unpinned, but batches
of runs minutes apart differed by up to 8% (the host; another benchmark on the machine
raises it too): compare code A and B by alternating runs (the CPU of each stretch
between two checkpoints is in the JSON). The ledger is opened as ``bbspoker serve`` opens it
(``autocheckpoint=False``) and checkpointed every :data:`CHECKPOINT_EVERY` actions
outside the timed part (the server does it in a thread every second; its CPU is
reported apart); the collector has the server's thresholds (``app.GC_THRESHOLDS``; a
full collection before the window, the collections in it reported).

What the figure holds: the key's decoding, the screen, ``TableService.submit``, the
table's step (rules, wallet, snapshot), every screen's view and render,
``Session.write`` and ``DoorWriter.write``, the SQLite commit, asyncio's scheduling of
all that, and this driver's own ~10 us (2-3%: the snapshot read, the key batches, the
yields, the counting transport, the paint counter, a thin wrapper around
``ScreenRenderer.render`` and ``render_clock``). Not in it: telnetlib3's parsing of
input, the socket calls and the kernel, the selector, clock ticks and balance polls,
the WAL checkpoint, idle sessions in the lobby, and the cache misses of a server whose
thousands of connections share the CPU: ``capacity.py`` has all of those, and its
figure is two to three times this one (``docs/performance.md``).

It reports the us of process CPU per action, paints (renderer calls), writes and bytes
per action, with the table count, Python version and cores; ``--json FILE`` writes the
figures, ``--cprofile FILE`` runs the timed part under cProfile (the figure is then
inflated), dumps the stats and prints the top 25 functions by own time.

Run: ``.venv/bin/python scripts/bench/action_cpu.py [--tables 50] [--actions 4000]
[--quick]``. ``--quick``: 2 tables, 200 actions, a few seconds, for
the suite.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import dataclasses
import gc
import json
import logging
import os
import platform
import pstats
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import PASSWORD, create_accounts, print_table, scratch_dir  # noqa: E402
# _common put the repository on the path: the tests' clock that moves only when told.
from tests.support.telnetclient import FakeClock  # noqa: E402

from bbspoker.app import GC_THRESHOLDS, App  # noqa: E402
from bbspoker.config import Config, TableSpec  # noqa: E402
from bbspoker.door.screens.draw40 import PokerScreen  # noqa: E402
from bbspoker.door.screens.regions import ScreenRenderer  # noqa: E402
from bbspoker.rules import actions as act  # noqa: E402
from bbspoker.rules.draw40.game import Draw40View, Phase  # noqa: E402
from bbspoker.store.sqlite import Ledger  # noqa: E402
from bbspoker.table.registry import TableEntry  # noqa: E402
from bbspoker.transport.gateway import Gate  # noqa: E402
from bbspoker.transport.telnet import READER_LIMIT, DoorReader, DoorWriter  # noqa: E402

#: Seated players per table.
SEATS = 5
#: Rounds in which the first bettor asks to see hands, drawn per game (as capacity.py).
HANDS_ROUNDS = (3, 4, 5, 6)
#: The terminal kind and window of every connection (capacity.py's load).
#: The players' terminal kind: ``xterm`` gets the colour look; ``--term vt100`` (no colours)
#: the classic one, to compare what colour costs.
TERM, COLS, ROWS = "xterm", 80, 24
#: CUBES of every account (nobody runs out).
CUBES = 1_000_000
#: Actions between two ledger checkpoints (outside the timed part).
CHECKPOINT_EVERY = 500
#: Real seconds a table may stay quiet before a clock tick or balance poll may fire.
QUIET_LIMIT = 1.0
#: The warm-up plays 0 to this many actions less one at each table after its last game
#: (the tables' games out of phase in the window).
WARMUP_SPREAD = 30
#: Yields of the event loop after which an action that is not settled is a bug here.
MAX_YIELDS = 1000
#: Actions one game may take before the driver gives up on it (a game is ~28 here).
MAX_GAME_ACTIONS = 400

#: The key batches of each kind of action (the last one is the decisive key).
KEYS = {"start": (b"s",), "bet": (b"b", b"\r"), "hands": (b"h", b"\r"),
        "discard": (b"d",), "reveal": (b"r",)}


def player(table: int, seat: int) -> str:
    """The handle of seat ``seat`` at table ``table`` (0-based)."""
    return f"t{table}s{seat}"


def spectator(table: int, n: int) -> str:
    """The handle of the ``n``-th spectator of table ``table`` (0-based)."""
    return f"t{table}w{n}"


class DropTransport:
    """A session's socket as the server sees it: every write is taken at once (nothing
    ever waits unsent, so no session is congested), counted (calls, bytes) and
    dropped. While ``keep`` is true the bytes are kept too, for the driver to find the
    prompts during the set-up."""

    def __init__(self) -> None:
        self.writes = 0
        self.bytes = 0
        self.keep = True
        self.kept = bytearray()
        self._limits = (0, 0)
        self._closing = False

    def write(self, data: bytes) -> None:
        """Count ``data`` and drop it (keep it while :attr:`keep`)."""
        self.writes += 1
        self.bytes += len(data)
        if self.keep:
            self.kept += data

    def get_write_buffer_size(self) -> int:
        """Bytes not yet sent: always 0."""
        return 0

    def get_write_buffer_limits(self) -> tuple[int, int]:
        """``(low, high)`` as last set."""
        return self._limits

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        """Remember the marks (the session sets both to ``[output] resume_bytes``)."""
        self._limits = (low or 0, high or 0)

    def is_closing(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._closing

    def close(self) -> None:
        """Mark the transport closed."""
        self._closing = True

    def get_extra_info(self, name: str, default: object = None) -> object:
        """Nothing known (no peer, no socket)."""
        return default


class Connection:
    """One user's connection in process: the telnet transport's reader and writer over a
    :class:`DropTransport`, admitted and served by a :class:`Gate` of ``app`` (its task
    runs the door from ``Handle:`` on)."""

    def __init__(self, app: App, handle: str, address: str) -> None:
        self.handle = handle
        self.term = TERM
        self.transport = DropTransport()
        self.reader = DoorReader(limit=READER_LIMIT)
        self.writer = DoorWriter(self.transport, None, server=True)
        self.gate = Gate(app, address, "telnet")
        if not self.gate.admit():
            raise RuntimeError(f"{handle}: connection refused by the server's limits")
        self.task = asyncio.create_task(
            self.gate.serve(self.reader, self.writer, kind=self.term, cols=COLS, rows=ROWS),
            name=f"door of {handle}")
        self._mark = 0

    def type(self, data: bytes) -> None:
        """The client sends ``data``: charged to the rate limit, then handed to the reader
        (what the telnet protocol does with in-band bytes)."""
        if not self.gate.take(len(data)):
            raise RuntimeError(f"{self.handle}: input over the rate limit")
        self.reader.feed_data(data)

    async def expect(self, needle: bytes, timeout: float = 30.0) -> None:
        """Wait (set-up only) until ``needle`` is in the output after the last one found."""
        deadline = time.monotonic() + timeout
        spins = 0
        kept = self.transport.kept
        while (at := kept.find(needle, self._mark)) < 0:
            if self.task.done() or time.monotonic() > deadline:
                raise RuntimeError(f"{self.handle}: no {needle!r} on screen; the last output: "
                                   f"{bytes(kept[-400:])!r}")
            spins += 1
            # A few yields first; a password check runs in a worker thread.
            await asyncio.sleep(0 if spins < 50 else 0.001)
        self._mark = at + len(needle)


async def go_to_table(app: App, handle: str, address: str, number: int,
                      watch: bool) -> Connection:
    """Log ``handle`` in through the door and take a seat at (or ``watch``) table
    ``number``: ``Handle:``, ``Password:``, [P], the number, ``y`` or ``w``."""
    conn = Connection(app, handle, address)
    await conn.expect(b"Handle:")
    conn.type(handle.encode() + b"\r")
    await conn.expect(b"Password:")
    conn.type(PASSWORD.encode() + b"\r")
    await conn.expect(b"Your choice")
    conn.type(b"p")
    if len(app.tables) > 1:
        await conn.expect(b"Pick a table")
        # A list of at most 9 tables takes the digit alone; a longer one a number + Enter.
        conn.type(f"{number}".encode() if len(app.tables) <= 9 else f"{number}\r".encode())
    # A full table offers only "[W] Watch the game"; one with a free seat "Join the
    # table? (y/n) [W] Watch".
    # A key is drawn in a colour of its own ("[", a colour, "W", ...): the words after it.
    await conn.expect(b"] Watch" if watch else b"Join the table? (y/n)")
    conn.type(b"w" if watch else b"y")
    await conn.expect(b"] Exit the game")
    return conn


async def settle(ready: object) -> int:
    """Let the event loop run until it has nothing ready (``ready``: the loop's queue of
    ready callbacks; ``None``: a fixed number of turns). Returns the yields taken."""
    await asyncio.sleep(0)
    if ready is None:
        for _ in range(7):
            await asyncio.sleep(0)
        return 8
    n = 1
    while ready:
        await asyncio.sleep(0)
        n += 1
        if n > MAX_YIELDS:
            raise RuntimeError(f"the event loop did not settle in {MAX_YIELDS} turns")
    return n


class TableDriver:
    """Plays one table: decides each action from the table's snapshot and types its
    keys at the actor's connection."""

    def __init__(self, entry: TableEntry, players: list[Connection],
                 spectators: list[Connection], seed: int) -> None:
        self.entry = entry
        self.service = entry.service
        self.players = {c.handle.lower(): c for c in players}
        self.connections = players + spectators
        self.rng = random.Random(f"{seed}:{entry.number}")
        self.hands_round = self.rng.choice(HANDS_ROUNDS)
        self.asked = False
        self.games = 0          # games started
        self.game_actions = 0   # actions in the running game
        self.unapplied = 0      # decisive keys after which the table showed no change

    def next_move(self) -> tuple[Connection, str]:
        """(the actor's connection, the kind of action: a key of :data:`KEYS`)."""
        snap = self.service.snapshot
        table = snap.view_as(Draw40View)
        if table.phase is Phase.IDLE:
            self.games += 1
            self.game_actions = 0
            self.asked = False
            self.hands_round = self.rng.choice(HANDS_ROUNDS)
            return self.players[(table.master or "").lower()], "start"
        self.game_actions += 1
        if self.game_actions > MAX_GAME_ACTIONS:
            raise RuntimeError(f"table {self.entry.number}: a game of over "
                               f"{MAX_GAME_ACTIONS} actions")
        who = snap.current or ""
        actions = snap.actions.get(who, ())
        actor = self.players[who.lower()]
        if act.Discard in actions:
            return actor, "discard"
        if act.Reveal in actions:
            return actor, "reveal"
        if act.SeeHands in actions and not self.asked and (table.round or 0) >= self.hands_round:
            self.asked = True
            return actor, "hands"
        return actor, "bet"

    async def act(self, ready: object) -> str:
        """Play the next action, each key batch settled; returns its kind."""
        actor, kind = self.next_move()
        version = self.service.snapshot.version
        for data in KEYS[kind]:
            actor.type(data)
            await settle(ready)
        if self.service.snapshot.version == version:
            self.unapplied += 1
        return kind

    async def act_checked(self, ready: object) -> str:
        """:meth:`act`, and check that the table applied it, that every other screen of
        the table got bytes and the actor's screen too after the decisive key
        (``RuntimeError`` otherwise)."""
        before = [c.transport.writes for c in self.connections]
        actor, kind = self.next_move()
        version = self.service.snapshot.version
        *prelude, decisive = KEYS[kind]
        for data in prelude:
            actor.type(data)
            await settle(ready)
            before[self.connections.index(actor)] = actor.transport.writes
        actor.type(decisive)
        await settle(ready)
        if self.service.snapshot.version == version:
            raise RuntimeError(f"table {self.entry.number}: {actor.handle}'s {kind} was not "
                               "applied")
        missed = [c.handle for c, n in zip(self.connections, before) if c.transport.writes == n]
        if missed:
            raise RuntimeError(f"table {self.entry.number}: {actor.handle}'s {kind} reached "
                               f"no screen of {', '.join(missed)}")
        return kind


def make_config(directory: Path, tables: int, sessions: int) -> Config:
    """The default config with ``tables`` draw40 tables (``between_games`` 0), the ledger
    in ``directory``, SSH and the web off (nothing listens anyway), and room for
    ``sessions`` connections if the default cap is lower."""
    base = Config()
    rules = base.table.with_keys(between_games=0.0)
    server = base.server
    if sessions > server.max_connections:
        server = dataclasses.replace(server, max_connections=sessions)
    return dataclasses.replace(
        base, server=server,
        ledger=dataclasses.replace(base.ledger, path=str(directory / "bench.db")),
        ssh=dataclasses.replace(base.ssh, enabled=False),
        web=dataclasses.replace(base.web, enabled=False),
        door=dataclasses.replace(base.door, title=False),
        tables=tuple(TableSpec(f"t{t}", f"Table {t}", "draw40", rules) for t in range(tables)))


class PaintCounter:
    """Counts ``ScreenRenderer.render`` and ``render_clock`` calls while installed (a
    wrapper around each; :meth:`remove` puts the originals back)."""

    def __init__(self) -> None:
        self.renders = 0
        self.clock_renders = 0
        render, render_clock = ScreenRenderer.render, ScreenRenderer.render_clock
        self._originals = (render, render_clock)
        counter = self

        def counted_render(renderer: ScreenRenderer, view):  # type: ignore[no-untyped-def]
            counter.renders += 1
            return render(renderer, view)

        def counted_render_clock(renderer: ScreenRenderer, clock):  # type: ignore[no-untyped-def]
            counter.clock_renders += 1
            return render_clock(renderer, clock)

        ScreenRenderer.render = counted_render  # type: ignore[method-assign]
        ScreenRenderer.render_clock = counted_render_clock  # type: ignore[method-assign]

    def remove(self) -> None:
        """Put the renderer's own methods back."""
        render, render_clock = self._originals
        ScreenRenderer.render = render  # type: ignore[method-assign]
        ScreenRenderer.render_clock = render_clock  # type: ignore[method-assign]


class NoPaints:
    """While installed, no screen paints (``PokerScreen._paint`` and ``_paint_clock`` do
    nothing): no view, render or write. For ``--no-paints``, which measures what an
    action costs before any screen is updated (the key, the table's step, rules, wallet,
    snapshot, bus, the ledger's commit, asyncio); :meth:`remove` puts them back."""

    def __init__(self) -> None:
        self._originals = (PokerScreen._paint, PokerScreen._paint_clock)
        PokerScreen._paint = PokerScreen._paint_clock = lambda screen: None  # type: ignore[method-assign]

    def remove(self) -> None:
        """Put the screens' own methods back."""
        PokerScreen._paint, PokerScreen._paint_clock = self._originals  # type: ignore[method-assign]


async def bench(args: argparse.Namespace) -> dict:
    """Build the app and the tables, warm up, measure; returns the figures."""
    directory = scratch_dir()
    per_table = SEATS + args.spectators
    config = make_config(directory, args.tables, args.tables * per_table)
    ledger = Ledger(config.ledger.path, starting_cubes=config.ledger.starting_cubes,
                    autocheckpoint=False)
    create_accounts(ledger, [h for t in range(args.tables)
                             for h in [player(t, s) for s in range(SEATS)]
                             + [spectator(t, n) for n in range(args.spectators)]], cubes=CUBES)
    app = App(config, ledger, clock=FakeClock())
    app.start_tables()
    loop = asyncio.get_running_loop()
    ready = getattr(loop, "_ready", None)      # asyncio's deque of ready callbacks
    entries = list(app.tables)
    connections: list[Connection] = []
    try:
        t0 = time.perf_counter()

        async def seat_table(t: int) -> TableDriver:
            entry = entries[t]
            address = lambda k: f"10.{t // 250}.{t % 250}.{k + 1}"  # noqa: E731
            players = [await go_to_table(app, player(t, s), address(s), entry.number, False)
                       for s in range(SEATS)]
            watchers = [await go_to_table(app, spectator(t, n), address(SEATS + n),
                                          entry.number, True)
                        for n in range(args.spectators)]
            connections.extend(players + watchers)
            return TableDriver(entry, players, watchers, args.seed)

        drivers = list(await asyncio.gather(*(seat_table(t) for t in range(args.tables))))
        await settle(ready)
        for d in drivers:
            snap = d.service.snapshot
            if len(snap.seats) != SEATS or snap.watchers != args.spectators:
                raise RuntimeError(f"table {d.entry.number}: {len(snap.seats)} seated, "
                                   f"{snap.watchers} watching")
        for c in connections:
            c.transport.keep = False
            c.transport.kept.clear()
        setup_s = time.perf_counter() - t0

        # Warm-up: every table plays its games, then a drawn number of actions more (the
        # games are out of phase in the window); each action checked.
        t0 = time.perf_counter()
        warmup_actions = 0
        left: dict[TableDriver, int] = {}
        active = list(drivers)
        while active:
            for d in list(active):
                if d not in left and d.games >= args.warmup_games \
                        and d.service.snapshot.view_as(Draw40View).phase is Phase.IDLE:
                    left[d] = d.rng.randrange(WARMUP_SPREAD)
                if left.get(d) == 0:
                    active.remove(d)
                    continue
                await d.act_checked(ready)
                warmup_actions += 1
                if d in left:
                    left[d] -= 1
        warmup_s = time.perf_counter() - t0

        # The window.
        gc.collect()
        collections = [0, 0, 0]

        def collected(phase: str, info: dict) -> None:
            if phase == "start":
                collections[info["generation"]] += 1

        writes0 = sum(c.transport.writes for c in connections)
        each0 = [c.transport.bytes for c in connections]
        games0 = sum(d.games for d in drivers)
        kinds: dict[str, int] = dict.fromkeys(KEYS, 0)
        profile = cProfile.Profile() if args.cprofile else None
        counter = PaintCounter()
        no_paints = NoPaints() if args.no_paints else None
        gc.callbacks.append(collected)
        cpu = checkpoint_cpu = 0.0
        segments: list[float] = []      # us per action of each stretch between checkpoints
        longest_round = 0.0
        tables = len(drivers)
        done = 0
        wall0 = time.perf_counter()
        round_start = wall0
        try:
            while done < args.actions:
                todo = min(CHECKPOINT_EVERY, args.actions - done)
                if profile is not None:
                    profile.enable()
                c0 = time.process_time()
                for i in range(done, done + todo):
                    kinds[await drivers[i % tables].act(ready)] += 1
                    if i % tables == tables - 1:
                        now = time.perf_counter()
                        longest_round = max(longest_round, now - round_start)
                        round_start = now
                spent = time.process_time() - c0
                if profile is not None:
                    profile.disable()
                cpu += spent
                segments.append(spent / todo * 1e6)
                done += todo
                c0 = time.process_time()
                ledger.checkpoint()
                checkpoint_cpu += time.process_time() - c0
        finally:
            gc.callbacks.remove(collected)
            counter.remove()
            if no_paints is not None:
                no_paints.remove()
        wall = time.perf_counter() - wall0
        longest_round = max(longest_round, time.perf_counter() - round_start)
        actions = args.actions
        writes = sum(c.transport.writes for c in connections) - writes0
        sent = sum(c.transport.bytes for c in connections) - sum(each0)
        # Screens of the tables that acted in the window and got no byte in it.
        acted = {c.handle for d in drivers[:actions] for c in d.connections}
        silent = [c.handle for c, b in zip(connections, each0)
                  if c.handle in acted and c.transport.bytes == b and not args.no_paints]
        if profile is not None:
            profile.dump_stats(args.cprofile)
        return {
            "machine": {"cores": os.cpu_count(), "python": platform.python_version(),
                        "implementation": platform.python_implementation(),
                        "processor": platform.processor() or platform.machine()},
            "tables": tables, "players_per_table": SEATS, "spectators_per_table": args.spectators,
            "sessions": len(connections), "seed": args.seed, "cprofile": bool(args.cprofile),
            "pinned_core": args.pinned, "no_paints": args.no_paints,
            "setup_s": setup_s, "warmup_actions": warmup_actions, "warmup_s": warmup_s,
            "actions": actions, "kinds": kinds,
            "games_started": sum(d.games for d in drivers) - games0,
            "unapplied": sum(d.unapplied for d in drivers),
            "cpu_s": cpu, "cpu_us_per_action": cpu / actions * 1e6,
            "segment_us_per_action": segments,
            "paints_per_action": (counter.renders + counter.clock_renders) / actions,
            "renders_per_action": counter.renders / actions,
            "clock_renders_per_action": counter.clock_renders / actions,
            "writes_per_action": writes / actions, "bytes_per_action": sent / actions,
            "silent_screens": silent,
            "gc_collections": collections,
            "checkpoints": -(-actions // CHECKPOINT_EVERY), "checkpoint_cpu_s": checkpoint_cpu,
            "wall_s": wall, "longest_round_s": longest_round,
        }
    finally:
        # As Server.close: drop every session, stop the tables, wait for the doors.
        app.stopping = True
        for session in list(app.sessions):
            session.abort("benchmark over")
        app.stop_tables()
        tasks = [c.task for c in connections]
        if tasks:
            await asyncio.wait(tasks, timeout=10)
        await asyncio.wait_for(app.wait_tables_stopped(), 10)
        ledger.close()


def report(figures: dict) -> None:
    """Print the figures."""
    f = figures
    m = f["machine"]
    print(f"action_cpu: {f['tables']} draw40 table{'s' if f['tables'] != 1 else ''}, "
          f"{f['players_per_table']} players + "
          f"{f['spectators_per_table']} spectators each ({f['sessions']} sessions); Python "
          f"{m['python']}, {m['cores']} cores"
          + ("" if f["pinned_core"] is None else f" (pinned to core {f['pinned_core']})")
          + (" -- UNDER cProfile" if f["cprofile"] else "")
          + (" -- NO SCREEN PAINTS in the window" if f.get("no_paints") else ""))
    print(f"set-up {f['setup_s']:.1f} s; warm-up {f['warmup_actions']:,} actions "
          f"({f['warmup_s']:.1f} s), every one checked")
    kinds = ", ".join(f"{k} {n:,}" for k, n in f["kinds"].items())
    print(f"window: {f['actions']:,} actions ({kinds}), {f['games_started']:,} games started, "
          f"{f['wall_s']:.2f} s wall")
    print()
    print_table([
        ("per action", "value"),
        ("process CPU, us", f"{f['cpu_us_per_action']:.1f}"),
        ("paints (renderer calls)", f"{f['paints_per_action']:.2f}"),
        ("  of which clock ticks", f"{f['clock_renders_per_action']:.2f}"),
        ("writes", f"{f['writes_per_action']:.2f}"),
        ("bytes", f"{f['bytes_per_action']:,.0f}"),
    ])
    seg = sorted(f["segment_us_per_action"])
    if len(seg) > 1:
        print(f"us per action in the {len(seg)} stretches between checkpoints: min "
              f"{seg[0]:.0f}, median {seg[len(seg) // 2]:.0f}, max {seg[-1]:.0f}")
    print()
    gen = f["gc_collections"]
    print(f"collections in the window: gen0 {gen[0]}, gen1 {gen[1]}, gen2 {gen[2]} "
          f"(thresholds {GC_THRESHOLDS})")
    print(f"ledger checkpoints outside the figure: {f['checkpoints']}, "
          f"{f['checkpoint_cpu_s'] * 1000:.1f} ms CPU in all")
    quiet = f["longest_round_s"]
    print(f"longest a table waited for its next action: {quiet * 1000:.0f} ms "
          + ("(under 1 s: no clock tick or balance poll could fire)" if quiet < QUIET_LIMIT
             else "(over 1 s: clock ticks and balance polls may be in the figure)"))
    if f["unapplied"]:
        print(f"WARNING: {f['unapplied']} actions were not applied by their table")
    if f["silent_screens"]:
        print("WARNING: screens at a table that acted that got no byte in the window: "
              + ", ".join(f["silent_screens"]))
    print(f"\nCPU per action: {f['cpu_us_per_action']:.1f} us "
          f"(in process; issue 21's target for the server is <= 400 us)")


def print_profile(path: str, top: int = 25) -> None:
    """The ``top`` functions of the cProfile stats in ``path`` by their own time."""
    print(f"\ncProfile of the window (stats in {path}), top {top} by own time:")
    pstats.Stats(path).sort_stats("tottime").print_stats(top)


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the options, run the benchmark, print (and write) the figures; returns the
    exit status: 1 if an action was not applied or a screen got nothing, else 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=50, help="draw40 tables (default 50)")
    parser.add_argument("--term", default=TERM,
                        help="the players' terminal kind (default xterm: the colour look; "
                             "vt100: the classic look)")
    parser.add_argument("--spectators", type=int, default=2,
                        help="spectators at every table (default 2)")
    parser.add_argument("--actions", type=int, default=4000,
                        help="actions in the timed window (default 4,000)")
    parser.add_argument("--warmup-games", type=int, default=2,
                        help="games every table plays before the window (default 2)")
    parser.add_argument("--seed", type=int, default=21, help="seed of the rounds of [H] (default 21)")
    parser.add_argument("--cprofile", metavar="FILE",
                        help="run the window under cProfile, dump the stats to FILE and "
                             "print the top 25 by own time")
    parser.add_argument("--json", metavar="FILE", help="write the figures to FILE")
    parser.add_argument("--no-pin", action="store_true",
                        help="do not pin the process to the last core")
    parser.add_argument("--no-paints", action="store_true",
                        help="no screen is painted in the window (no views, renders or "
                             "writes): the cost of an action before the screens")
    parser.add_argument("--quick", action="store_true",
                        help="2 tables, 200 actions, 1 warm-up game (smoke run)")
    args = parser.parse_args(argv)
    globals()["TERM"] = args.term       # read by every Connection made from now on
    if args.quick:
        args.tables, args.actions, args.warmup_games = 2, 200, 1
    if args.tables < 1 or args.actions < 1 or args.spectators < 0 or args.warmup_games < 0:
        parser.error("--tables and --actions must be >= 1, --spectators and "
                     "--warmup-games >= 0")
    logging.basicConfig(level=logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    gc.set_threshold(*GC_THRESHOLDS)          # as bbspoker serve
    cores = os.cpu_count() or 1
    args.pinned = None
    if not args.no_pin and cores >= 2 and hasattr(os, "sched_setaffinity"):
        # One core for the whole run (threads made later inherit it): a process that
        # moves between cores refills its caches, +-5% between runs instead of +-2%.
        args.pinned = cores - 1
        os.sched_setaffinity(0, {args.pinned})
    figures = asyncio.run(bench(args))
    report(figures)
    if args.cprofile:
        print_profile(args.cprofile)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1) + "\n")
        print(f"figures written to {args.json}")
    return 1 if figures["unapplied"] or figures["silent_screens"] else 0


if __name__ == "__main__":
    sys.exit(main())
