"""Benchmark: ``bbspoker ledger copy`` of a SQLite ledger with 10,000 games to PostgreSQL.

A SQLite ledger is filled through the ledger's own API (``tests/support/ledger_fill.py``:
accounts with passwords, keys, blocks and bans; grants; ``--games`` games at three tables
with antes, payouts, splits, refunds and published commitments, the last one left
unfinished; stacks; tournaments with their pools), then the real command copies it to a new
database on a PostgreSQL server and verifies both sides (``ledger verify`` of each and their
totals compared); then ``ledger verify`` runs once more on the copy through a config that
names it, as a server started on it would see it. Prints the rows per table, the seconds of
the fill, the copy and each verify, and the sizes.

Run: ``.venv/bin/python scripts/bench/ledger_copy.py [--games 10000] [--url postgresql://...]
[--quick]``. Without ``--url`` a throwaway server is started (``tests/support/postgres.py``);
with it, a database ``bbspoker_copy_<pid>`` is made there and dropped. ``--quick``: 200
games, for the suite.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

import psycopg  # noqa: E402

from bbspoker.store.sql import Ledger  # noqa: E402
from tests.support.ledger_fill import fill  # noqa: E402
from tests.support.postgres import start_postgres  # noqa: E402

BBSPOKER = [sys.executable, "-m", "bbspoker.cli"]


def _run(argv: list[str], env: dict[str, str]) -> tuple[float, str]:
    """Run the CLI; (seconds, stdout). Exits with its status and output if it fails."""
    started = time.perf_counter()
    done = subprocess.run([*BBSPOKER, *argv], env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed ({done.returncode}):\n{done.stdout}{done.stderr}")
    return seconds, done.stdout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--url", help="a PostgreSQL server's URL (default: a throwaway one)")
    parser.add_argument("--quick", action="store_true", help="200 games (smoke run)")
    args = parser.parse_args(argv)
    if args.quick:
        args.games = 200
    server = None
    if args.url:
        base = args.url
    else:
        server = start_postgres()
        base = server.url
    name = f"bbspoker_copy_{os.getpid()}"
    try:
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        target = base.replace("/postgres?", f"/{name}?", 1) if "/postgres?" in base \
            else base.rsplit("/", 1)[0] + f"/{name}"
        with tempfile.TemporaryDirectory() as scratch:
            db = Path(scratch) / "bbspoker.db"
            started = time.perf_counter()
            with Ledger(db) as ledger:
                made = fill(ledger, args.games)
            fill_s = time.perf_counter() - started
            env = dict(os.environ, BBSPOKER_DB=str(db), PYTHONPATH=str(REPO / "src"))
            env.pop("BBSPOKER_CONFIG", None)
            copy_s, out = _run(["ledger", "copy", "--to", target], env)
            config = Path(scratch) / "pg.toml"
            config.write_text(f'[ledger]\nurl = "{target}"\n')
            verify_s, verified = _run(["--config", str(config), "ledger", "verify"], env)
            print(out, end="")
            print(f"filled {made['games']} finished, {made['cancelled']} called off and "
                  f"{made['unfinished']} unfinished games, {made['accounts']} accounts, "
                  f"{made['tournaments']} tournaments in {fill_s:.1f} s; SQLite file "
                  f"{db.stat().st_size / 2**20:.1f} MiB")
            print(f"bbspoker ledger copy (copy and both verifies): {copy_s:.1f} s")
            print(f"bbspoker ledger verify on the copy, through its config: {verify_s:.1f} s: "
                  f"{verified.strip()}")
    finally:
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        if server is not None:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
