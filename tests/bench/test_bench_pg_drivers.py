"""The PostgreSQL drivers benchmark runs once in quick mode on the tests' server so that it
cannot rot. Nothing here checks a speed: only that every driver played every kind of step,
that the ledger it left agrees with its journal, and that it cleaned up after itself."""

import json
import subprocess
import sys

import psycopg

from tests.support.paths import ROOT

SCRIPT = ROOT / "scripts" / "bench" / "pg_drivers.py"
VARIANTS = ["psycopg sync", "psycopg sync +pipeline", "psycopg async",
            "psycopg async +pipeline", "asyncpg", "asyncpg +batch"]


def test_pg_drivers_quick_runs_every_driver_on_every_kind_of_step(postgres_server, tmp_path):
    figures_path = tmp_path / "figures.json"
    out = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--url", postgres_server.url,
                          "--json", str(figures_path)], check=True, capture_output=True,
                         text=True, timeout=60).stdout
    f = json.loads(figures_path.read_text())
    assert list(f["variants"]) == VARIANTS
    # Quick: 3 games of a start, 8 bets and an end on one table; 4 tables x 2 games on
    # the async pools.
    for name, v in f["variants"].items():
        single = v["single"]
        assert (single["start"]["n"], single["bet"]["n"], single["end"]["n"]) == (3, 24, 3)
        assert single["transactions"] == 30
        assert 0 < single["bet"]["p50_us"] <= single["bet"]["p99_us"]
        assert single["bet"]["cpu_us"] > 0 and single["client_cpu_us_per_tx"] > 0
        if name.startswith("psycopg sync"):
            assert "concurrent" not in v
        else:
            assert v["concurrent"]["transactions"] == 80, name
            assert v["concurrent"]["tx_per_s"] > 0
    assert list(f["reads"]) == ["psycopg sync", "psycopg async", "asyncpg"]
    for reads in f["reads"].values():
        assert {k: r["n"] for k, r in reads.items()} == {
            "account": 10, "journal page": 10, "games list": 10}
    # Every balance the bench changed is its journal's sum, and no row is missing.
    assert f["check"] == "ok"
    assert "ledger check: ok" in out
    for name in VARIANTS:
        assert any(line.startswith(name + " ") for line in out.splitlines()), name
    # Its database is gone.
    with psycopg.connect(postgres_server.url, autocommit=True) as conn:
        left = conn.execute("SELECT datname FROM pg_database WHERE datname LIKE "
                            "'bbspoker_bench_%'").fetchall()
    assert left == []
