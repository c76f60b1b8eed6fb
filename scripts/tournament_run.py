#!/usr/bin/env python3
"""A scheduled multi-table tournament against ``bbspoker serve``, killed and restarted.

The server runs as a subprocess on a fresh database (``scripts/soak.py``'s
:class:`ServerProcess`) with one ``[[tournaments]]`` entry that starts a few seconds after
the server: no-limit Hold'em, ``--players`` entrants (default 27: two people and the rest
computer players) at ``--seats`` a table (default 9: three tables). The two people log in
over telnet (80x24 pyte screens), register from the lobby's [T] (the buy-in asked and
paid), and when it starts go to their tables and play (they check or call whenever it is
their turn). When the first table has broken (``--kill-at`` tables left, default one
fewer than at the start) the server is killed with SIGKILL and started again; the people
log in again and are taken back to their tournament table; the tournament goes on from
its journal to the end.

What it prints, and what must hold (exit status 0 only if all of it does):

- the tables as the journal had them after each hand the script saw (how many, players
  at each), the most players one table had above another, and that a final table was
  reached;
- that the restart resumed the tournament (the server's log says so) with the stacks of
  the journal, or cancelled it with every buy-in refunded;
- the places and prizes (``bbspoker tournaments show``), the prizes adding up to the pool;
- ``bbspoker ledger verify``: OK, and the CUBES of every account the same in total as at
  the start;
- each person's screen at the end (a capture), and that each saw the tournament line
  and a table of its tournament;
- no ERROR in the server's log.

``--short`` is the suite's mode (9 players at 3 seats, 150 chips, levels of 6 s, 0.1 s
between hands, the start 4-5 s ahead, time enough for a loaded machine to start the server;
it gives up when the tournament has not started 30 s after). Usage::

    scripts/tournament_run.py                 # 27 players, 3 tables
    scripts/tournament_run.py --short
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import importlib.util
import json
import re
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bbspoker.store.passwords import hash_password  # noqa: E402
from bbspoker.store.sqlite import Ledger  # noqa: E402
from tests.support.telnetclient import TelnetClient  # noqa: E402

_SPEC = importlib.util.spec_from_file_location("bbspoker_soak", ROOT / "scripts" / "soak.py")
soak = sys.modules.setdefault(_SPEC.name, importlib.util.module_from_spec(_SPEC))  # type: ignore[arg-type]
_SPEC.loader.exec_module(soak)  # type: ignore[union-attr]

PEOPLE = ("alice", "bob")
PASSWORD = "tourney-pass-1"

CONFIG = """\
[server]
max_per_address = 500
[login]
failure_delay = 0.2
[ssh]
enabled = false
[web]
enabled = false
[door]
title = false

[[tournaments]]
id = "three"
name = "Three Tables"
game = "holdem"
limit = "no"
starts = "{starts}"
min_players = 2
bots = {bots}
buy_in = 100
chips = {chips}
seats_per_table = {seats}
between_hands = {between_hands}
turn_timeout = 6
reconnect_grace = 600
bot_policy = "random"
bot_think_min = 0.0
bot_think_max = 0.05
levels = [{{bet = 20, minutes = {minutes}}}, {{bet = 40, minutes = {minutes}}},
          {{bet = 80, ante = 10, minutes = {minutes}}}, {{bet = 160, ante = 20, minutes = {minutes}}},
          {{bet = 300, ante = 40, minutes = {minutes}}}, {{bet = 600, ante = 75, minutes = {minutes}}}]
"""


def _running(db: Path) -> tuple[int, dict] | None:
    """The running tournament's id and journal, read straight from the database (read
    only: a CLI process per look would cost more than the server)."""
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)) as c:
        row = c.execute("SELECT id, state FROM tournaments WHERE key = 'three' AND "
                        "status = 'running' ORDER BY id DESC LIMIT 1").fetchone()
    return None if row is None or row[1] is None else (row[0], json.loads(row[1]))


def _ended(db: Path) -> int | None:
    """The id of the tournament once it has finished or was cancelled."""
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)) as c:
        row = c.execute("SELECT id FROM tournaments WHERE key = 'three' AND status IN "
                        "('finished', 'cancelled') ORDER BY id DESC LIMIT 1").fetchone()
    return None if row is None else int(row[0])


async def _person(port: int, handle: str, registered: asyncio.Event) -> TelnetClient:
    """Log in, [T], the tournament's page, [R] and yes: registered."""
    c = await TelnetClient.connect(port, cols=80, rows=24)
    await c.login(handle, PASSWORD)
    await c.send("t")
    await c.wait_for("Pick a tournament")
    await c.send("1")
    await c.wait_for("[R] Register")
    await c.send("r")
    await c.wait_for("(y/n)")
    await c.send("y")
    await c.wait_for("You are registered")
    registered.set()
    return c


async def _back(c: TelnetClient, handle: str) -> None:
    """Log in again after the restart: one seated in the running tournament is taken
    straight back to their table (one already out gets the menu)."""
    await c.wait_for("Handle:", 15)
    await c.send(handle + "\r")
    await c.wait_for("Password:", 15)
    await c.send(PASSWORD + "\r")
    await c._wait(lambda: "back to Three Tables" in c.text or "[Q]" in c.text
                  or "Press any key" in c.text, "the table or the menu", 15)


async def _play(c: TelnetClient, seen: dict[str, bool], until: asyncio.Event) -> None:
    """At the tournament's table: check or call when it is this player's turn; go to the
    table from its page once it runs; a key after the last page."""
    while not until.is_set():
        text = c.text
        if "[G] Go to your table" in text:
            await c.send("g")
        elif "[C] c" in text and "<-" in text:
            await c.send("c")
        elif "[Press any key]" in text or "Press any key" in text:
            seen["over"] = True
            await c.send(" ")
        if "Level " in text and " left " in text:
            seen["line"] = True
        if re.search(r"Three Tables #\d", text):
            seen["table"] = True
            seen["screen"] = text
        await asyncio.sleep(0.05)


async def run(players: int, seats: int, chips: int, minutes: float, kill_at: int | None,
              workdir: Path, between_hands: float = 0.3, lead: float = 3.0) -> int:
    db = workdir / "tournament.db"
    stored = hash_password(PASSWORD)
    bots = players - len(PEOPLE)
    with Ledger(db) as ledger:
        for h in PEOPLE:
            ledger.create_account(h, stored, 1000)
        for i in range(bots):
            ledger.create_account(f"Bot{i + 1:02d}", None, 1000, bot=True)
        start_total = sum(a.cubes for a in ledger.list_accounts())
    # The server starts and the people log in and register in about a second; the start
    # (whole seconds) leaves them ``lead`` seconds or up to one more.
    ahead = datetime.datetime.now() + datetime.timedelta(seconds=lead)
    starts = (ahead + datetime.timedelta(seconds=1)).strftime("%H:%M:%S")
    config = workdir / "bbspoker.toml"
    config.write_text(CONFIG.format(starts=starts, bots=bots, chips=chips, seats=seats,
                                    minutes=minutes, between_hands=between_hands))
    server = soak.ServerProcess(db, workdir / "server.log", env={"BBSPOKER_CONFIG": str(config)})
    await server.start()
    registered = [asyncio.Event() for _ in PEOPLE]
    clients = list(await asyncio.gather(*(_person(server.port, h, e)
                                          for h, e in zip(PEOPLE, registered))))
    seen: list[dict] = [{"line": False, "table": False, "over": False, "screen": ""}
                        for _ in PEOPLE]
    stop = asyncio.Event()
    players_task = [asyncio.create_task(_play(c, s, stop)) for c, s in zip(clients, seen)]
    history: list[list[int]] = []
    killed = resumed = cancelled = False
    began = time.monotonic()
    first_tables: int | None = None
    final_table = False
    try:
        while time.monotonic() - began < 600:
            running = _running(db)
            if running is None and not history and time.monotonic() - began > lead + 30:
                print("the tournament did not start within 30 s of its start time",
                      file=sys.stderr)
                break
            if running is not None:
                tables = [len(s) for s in running[1]["tables"].values()]
                if not history or history[-1] != tables:
                    history.append(tables)
                first_tables = first_tables or len(tables)
                final_table = final_table or (len(tables) == 1 and tables[0] > 1)
                at = kill_at if kill_at is not None else first_tables - 1
                if not killed and len(tables) <= at:
                    server.kill()
                    killed = True
                    stop.set()
                    await asyncio.gather(*players_task, return_exceptions=True)
                    for c in clients:
                        await c.close()
                    await server.start()
                    for _ in range(100):             # recovery logs once it has run
                        log = server.new_log()
                        resumed = "resumed with" in log
                        cancelled = re.search(r"tournament \d+ \(three\) cancelled", log)
                        if resumed or cancelled:
                            break
                        await asyncio.sleep(0.1)
                    if cancelled:
                        break
                    clients = list(await asyncio.gather(*(TelnetClient.connect(server.port)
                                                          for _ in PEOPLE)))
                    for c, h in zip(clients, PEOPLE):
                        await _back(c, h)
                    stop = asyncio.Event()
                    players_task = [asyncio.create_task(_play(c, s, stop))
                                    for c, s in zip(clients, seen)]
            if killed and _ended(db) is not None:
                break
            await asyncio.sleep(0.1)
        await asyncio.sleep(0.5)               # the last screens
        captures = [c.text for c in clients]
    finally:
        stop.set()
        await asyncio.gather(*players_task, return_exceptions=True)
        for c in clients:
            await c.close()
        status = server.stop()
    ok = True
    print(f"tables after each change: {' -> '.join('/'.join(map(str, t)) for t in history)}")
    spread = max((max(t) - min(t) for t in history if t), default=0)
    print(f"most players one table had above another in the journal: {spread} (a table "
          f"left short by its own hand waits for the others' hands to end); final table "
          f"reached: {'yes' if final_table else 'no'}")
    ok &= final_table and (first_tables or 0) >= 2
    print(f"SIGKILL with {kill_at if kill_at is not None else (first_tables or 1) - 1} tables "
          f"left: {'yes' if killed else 'no'}; resumed: {'yes' if resumed else 'no'}; "
          f"cancelled and refunded: {'yes' if cancelled else 'no'}")
    ok &= killed and (resumed or cancelled)
    tid = _ended(db)
    if tid is not None:
        shown = json.loads(soak.cli(db, "tournaments", "show", str(tid), "--json").stdout)
        entries = shown.get("entries", [])
        prizes = sum(e.get("prize") or 0 for e in entries)
        placed = sum(1 for e in entries if e.get("place"))
        print(f"tournament {tid}: {shown.get('status')}, {len(entries)} entrants, {placed} "
              f"placed, prizes {prizes} of a pool of {100 * len(entries)} CUBES")
        for e in sorted(entries, key=lambda e: e.get("place") or 999)[:5]:
            print(f"  {e.get('place')}. {e.get('handle')} {e.get('prize')}")
        ok &= (shown.get("status") == "finished" and placed == players
               and prizes == 100 * players) or shown.get("status") == "cancelled"
    else:
        print("the tournament did not end")
        ok = False
    verify = soak.cli(db, "ledger", "verify")
    print(f"ledger verify: {'OK' if verify.returncode == 0 else verify.stdout + verify.stderr}")
    ok &= verify.returncode == 0
    with Ledger(db) as ledger:
        end_total = sum(a.cubes for a in ledger.list_accounts())
    print(f"CUBES at start {start_total:,} = at end {end_total:,}: "
          f"{'yes' if start_total == end_total else 'NO'}")
    ok &= start_total == end_total
    for h, s, text in zip(PEOPLE, seen, captures):
        print(f"{h}: saw the tournament line: {'yes' if s['line'] else 'no'}, a table of "
              f"it: {'yes' if s['table'] else 'no'}; the last table screen:")
        print("\n".join("  | " + line for line in s["screen"].splitlines()))
        print("  and at the end:")
        print("\n".join("  | " + line for line in text.splitlines()[:6] if line.strip()))
        ok &= s["line"] and s["table"]
    errors = sum(1 for line in server.log.read_text().splitlines() if " ERROR " in line)
    print(f"server errors logged: {errors}; final SIGTERM exit status {status}")
    ok &= errors == 0
    return 0 if ok else 1


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--players", type=int, default=27)
    p.add_argument("--seats", type=int, default=9)
    p.add_argument("--kill-at", type=int, default=None,
                   help="SIGKILL when this many tables are left (default: one fewer than "
                        "at the start)")
    p.add_argument("--short", action="store_true",
                   help="the suite's mode: 9 players at 3 seats, 150 chips, levels of 6 s, "
                        "0.1 s between hands, the start 2-3 s ahead")
    p.add_argument("--workdir", type=Path, default=None)
    args = p.parse_args(argv)
    players, seats, chips, minutes = args.players, args.seats, 1500, 0.5
    between_hands, lead = 0.3, 4.0
    if args.short:
        players, seats, chips, minutes = 9, 3, 150, 0.1
        between_hands, lead = 0.1, 4.0
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="bbspoker-tournament-"))
    workdir.mkdir(parents=True, exist_ok=True)
    return asyncio.run(run(players, seats, chips, minutes, args.kill_at, workdir,
                           between_hands, lead))


if __name__ == "__main__":
    sys.exit(main())
