"""Benchmark: key press to every other player's screen, with 1,000 idle sessions (issue 6, item 3).

The server runs as ``bbspoker serve`` in a subprocess; this process holds
1,000 telnet connections logged in and idle in the door's menu, and five
players (TTYPE ``xterm``) who play games at the table: bets (calls), the
discarding interval, [H] after a few rounds, reveals, [S] for the next game.
For each action it takes the time of the decisive key press (Enter of a bet,
[D], [R], [S]) and, for each of the four other players, the arrival of the
bytes carrying that action's message line (stamped in the event loop's
socket callback, before any parsing). The sample is the time until the last
of the four has it; p50 and p99 over all actions.

Baseline, in the same run: a bare telnetlib3 server (subprocess, this
directory's ``_light.py``) relaying each line to the four other
clients; a line sent by each client in turn, timed the same way. Both
servers run side by side and the samples alternate (one action, one line),
so that a drift in the machine's speed falls on both alike.
Target: p99 <= 2x the baseline's p99.

Run: ``.venv/bin/python scripts/bench/latency.py [--quick] [--idle N] [--actions N]``.
``--quick`` uses 20 idle sessions and 20 actions, for the suite.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (  # noqa: E402
    Action, BenchClient, ServerProcess, action_for, connect_bare, connect_many, create_accounts,
    free_port, next_actor, percentile, press, print_table, raise_fd_limit, scratch_dir,
    seat_players, type_prelude, write_config)

from bbspoker.store.sqlite import Ledger  # noqa: E402

HANDLES = ("amy", "bert", "cleo", "dirk", "eve")
#: The first bettor of this round asks to see hands, which ends the game.
HANDS_ROUND = "8"


def _round(client: BenchClient) -> str:
    m = re.search(r"Round \.+ (\S+)", client.text)
    return m.group(1) if m else ""


class Game:
    """The five players at bbspoker's table; :meth:`step` makes the next action."""

    def __init__(self, players: Sequence[BenchClient]) -> None:
        self.players = players
        self.asked: set[str] = set()

    async def step(self) -> list[float]:
        """One action by whoever is to act; the four others' latencies (s)."""
        players = self.players
        actor = await next_actor(players)
        handle = HANDLES[players.index(actor)]
        offered = actor.offered()
        if "start" in offered:
            self.asked.clear()
            kind = "start"
        elif "discard" in offered or "reveal" in offered:
            kind = "discard" if "discard" in offered else "reveal"
        elif _round(actor) == HANDS_ROUND and not self.asked:
            self.asked.add(handle)
            kind = "hands"
        else:
            kind = "bet"
        action = action_for(actor, handle, kind)
        await type_prelude(actor, action)
        marks = [len(p.raw) for p in players]
        pressed = await press(actor, action)
        times = [await p.wait_arrival(action.needle, m) for p, m in zip(players, marks)]
        return [t - pressed for p, t in zip(players, times) if p is not actor]


async def relay_line(clients: Sequence[BenchClient], n: int) -> list[float]:
    """Client ``n % 5`` sends line ``n``; the four others' latencies (s)."""
    sender = clients[n % len(clients)]
    needle = f"<line {n}>".encode()
    marks = [len(c.raw) for c in clients]
    pressed = await press(sender, Action("line", "", needle.decode() + "\r\n", needle))
    times = [await c.wait_arrival(needle, m) for c, m in zip(clients, marks) if c is not sender]
    return [t - pressed for t in times]


def summary(name: str, samples: list[list[float]]) -> tuple[object, ...]:
    """A table row: count, p50 and p99 of the last arrival, and of each arrival (ms)."""
    last = [max(s) * 1000 for s in samples]
    each = [t * 1000 for s in samples for t in s]
    return (name, len(samples), f"{percentile(last, 50):.2f}", f"{percentile(last, 99):.2f}",
            f"{percentile(each, 50):.2f}", f"{percentile(each, 99):.2f}")


async def measure(idle: int, actions: int) -> tuple[list[list[float]], list[list[float]]]:
    """Run the server and the baseline; returns (server samples, baseline samples)."""
    raise_fd_limit()
    directory = scratch_dir()
    port = free_port()
    idle_handles = [f"idle{i:04d}" for i in range(idle)]
    with Ledger(directory / "bench.db") as ledger:
        create_accounts(ledger, [*HANDLES, *idle_handles])
    config = write_config(directory, port,
                          server={"max_per_address": 64, "max_sessions_per_address": 5000},
                          table={"between_games": 0.0})
    bare_port = free_port()
    # Both processes start at once (the measuring begins once both are up).
    server, bare = ServerProcess(port, config), ServerProcess(bare_port)
    try:
        async with server, bare:
            lobby = await connect_many(port, idle_handles, concurrency=32)
            players = await seat_players(port, HANDLES, "xterm")
            clients = await connect_bare(bare_port, len(HANDLES))
            game = Game(players)
            ours, base = [], []
            try:
                # Turn about, one action and one relayed line: both see the machine alike
                # (its speed drifts by a third over minutes here).
                for n in range(actions):
                    ours.append(await game.step())
                    base.append(await relay_line(clients, n))
            finally:
                for c in [*players, *lobby, *clients]:
                    await c.close()
    finally:
        if bare.proc.poll() is None:    # bbspoker's server did not start
            await bare.__aexit__()
    return ours, base


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the command line, measure, print the figures and PASS/MISS; exit status 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="20 idle sessions, 20 actions")
    parser.add_argument("--idle", type=int, default=1000, help="idle sessions (default 1000)")
    parser.add_argument("--actions", type=int, default=600, help="timed actions (default 600)")
    args = parser.parse_args(argv)
    idle, actions = (20, 20) if args.quick else (args.idle, args.actions)
    ours, base = asyncio.run(measure(idle, actions))
    print(f"key press to the other four players, {idle} idle sessions in the lobby (ms)")
    print_table([("", "actions", "p50 all 4", "p99 all 4", "p50 each", "p99 each"),
                 summary("bbspoker", ours), summary("bare relay", base)])
    p99 = percentile([max(s) for s in ours], 99)
    p99_base = percentile([max(s) for s in base], 99)
    ratio = p99 / p99_base
    print(f"p99 {p99 * 1000:.2f} ms = {ratio:.2f}x the bare relay's {p99_base * 1000:.2f} ms "
          f"(target <= 2x): {'PASS' if ratio <= 2 else 'MISS'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
