"""The server benchmarks (screen bytes, latency, budget, memory) run once in quick mode so
that they cannot rot (issue 6). They print figures and PASS/MISS; nothing here checks a
speed."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from tests.support.paths import ROOT

BENCH = ROOT / "scripts" / "bench"

pytestmark = pytest.mark.e2e


def run_quick(name: str) -> str:
    """Run ``scripts/bench/<name>.py --quick``; its standard output."""
    return subprocess.run([sys.executable, str(BENCH / f"{name}.py"), "--quick"], check=True,
                          capture_output=True, text=True, timeout=120).stdout


def test_screen_bench_counts_bytes_of_every_event_kind_for_every_terminal_kind():
    out = run_quick("screen")
    for term in ("xterm", "ansi", "ansi-bbs", "syncterm"):
        section = out.split(f"terminal kind {term}:")[1].split("\n\n")[0]
        for kind in ("start", "bet", "pass", "discard", "reveal", "chat", "tick"):
            row = re.search(rf"^{kind}\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+1/", section, re.M)
            assert row, f"no {kind} row for {term}:\n{out}"
            samples, med, p95, top, repaint = map(int, row.groups())
            assert samples >= 1 and 0 < med <= p95 <= top < repaint
    assert re.search(r"median bet event \d+ B vs full repaint \d+ B = 1/[\d.]+ .*: (PASS|MISS)", out)
    assert re.search(r"largest clock tick \d+ B \(target <= 16 B\): (PASS|MISS)", out)
    for term in ("ansi", "ansi-bbs", "syncterm"):
        assert re.search(rf"^{term}: median bet \d+ B = 1/[\d.]+ of a repaint \(target <= 1/10\): "
                         r"(PASS|MISS)", out, re.M)


def test_latency_bench_times_actions_on_the_server_and_the_bare_relay():
    out = run_quick("latency")
    assert "20 idle sessions in the lobby" in out
    for name in ("bbspoker", "bare relay"):
        row = re.search(rf"^{name}\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)$", out, re.M)
        assert row, out
        assert int(row.group(1)) == 20
        p50, p99 = float(row.group(2)), float(row.group(3))
        assert 0 < p50 <= p99
    assert re.search(r"x the bare relay's [\d.]+ ms \(target <= 2x\): (PASS|MISS)", out)


def test_budget_bench_times_the_relay_with_and_without_simulated_work():
    out = run_quick("budget")
    plain = re.search(r"^plain\s+0\s+([\d.]+)\s+([\d.]+)\s+1\.00x$", out, re.M)
    worked = re.search(r"^100 \+ 4 x 50\s+300\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)x$", out, re.M)
    assert plain and worked, out
    assert 0 < float(plain.group(1)) <= float(plain.group(2))
    assert 0 < float(worked.group(1)) <= float(worked.group(2))


def test_memory_bench_reads_the_rss_of_both_servers():
    out = run_quick("memory")
    for name in ("bbspoker", "bare"):
        row = re.search(rf"^{name}\s+(\d+)\s+(\d+)\s+(-?[\d.]+)$", out, re.M)
        assert row, out
        assert int(row.group(1)) > 1000
    assert re.search(r"x the bare server's [\d.]+ KiB \(target <= 1.5x\): (PASS|MISS)", out)


def test_capacity_bench_steps_tables_and_writes_its_figures(tmp_path):
    out_json = tmp_path / "capacity.json"
    out = subprocess.run([sys.executable, str(BENCH / "capacity.py"), "--quick", "--json",
                          str(out_json)], check=True, capture_output=True, text=True,
                         timeout=120).stdout
    row = re.search(r"^2\s+10\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d,]+)\s", out, re.M)
    assert row, out
    assert 0 < float(row.group(2)) <= float(row.group(3))
    assert re.search(r"largest T with key-to-screens p99 <= 50 ms: \d+ \(target >= 400\): "
                     r"(PASS|MISS)", out)
    assert re.search(r"server CPU per action at 2 tables: [\d,-]+ us \(target <= 400 us\)", out)
    assert re.search(r"RSS per seated player at 2 tables: [\d.]+ KiB", out)
    import json
    figures = json.loads(out_json.read_text())
    [step] = figures["steps"]
    assert step["tables"] == 2 and step["players"] == 10 and step["spectators"] == 1
    assert step["actions"] > 0 and step["lost"] == 0
    assert step["journal_rows"] > 0             # the games moved CUBES in the ledger
    for key in ("p50_ms", "p99_ms", "lag_p99_ms", "cpu_us_per_action", "rss_kib_end",
                "bytes_per_action", "rss_kib_per_seated"):
        assert key in step
    assert figures["machine"]["cores"] >= 1


def test_capacity_bench_knocks_parts_out_and_the_tables_still_play(tmp_path):
    # --knock is the experiment behind docs/performance.md's knock-outs: the server with
    # its screens constant, its clocks stopped and its tables' ledger in memory must still
    # play every table (the load reads the one real screen per table), and say so.
    out_json = tmp_path / "knocked.json"
    out = subprocess.run([sys.executable, str(BENCH / "capacity.py"), "--quick", "--knock",
                          "screens,ticks,ledger", "--json", str(out_json)], check=True,
                         capture_output=True, text=True, timeout=120).stdout
    assert "knocked out: screens,ticks,ledger (an experiment" in out
    import json
    figures = json.loads(out_json.read_text())
    [step] = figures["steps"]
    assert figures["knock"] == "screens,ticks,ledger"
    assert step["actions"] > 0 and step["lost"] == 0
    assert step["journal_rows"] == 0            # no CUBES moved through the ledger
    bad = subprocess.run([sys.executable, str(BENCH / "capacity.py"), "--quick", "--knock",
                          "renderer", "--json", str(tmp_path / "x.json")],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode != 0 and "unknown part(s) ['renderer']" in bad.stdout + bad.stderr


def _split_figures(interval: float, roles: dict[str, float], server_us: float) -> dict:
    """A ``capacity.py --split`` JSON of one step of 100 tables that kept up, the split's
    CPU per action by role and the one-process server's as given (us)."""
    def step(mode: str, per: dict[str, float]) -> dict:
        return {"mode": mode, "ledger": "postgres", "tables": 100, "actions_per_s": 50.0,
                "target_actions_per_s": 100 / interval, "p50_ms": 1.0, "p99_ms": 5.0,
                "lag_p99_ms": 2.0 if mode == "serve" else None, "cpu_us_per_action": 900.0,
                "role_cpu_us_per_action": per, "all_cpu_us_per_action": sum(per.values())}

    return {"machine": {"cores": 2}, "interval": interval,
            "steps": [step("serve", {"server": server_us, "postgres": 100.0})],
            "split": [step("split", roles)]}


def test_capacity_model_splits_the_cores_by_each_roles_cpu_per_action(tmp_path):
    figures = tmp_path / "split.json"
    roles = {"gateway": 1200.0, "workers": 400.0, "nats": 100.0, "postgres": 200.0}
    figures.write_text(json.dumps(_split_figures(2.0, roles, 1500.0)))
    out = subprocess.run([sys.executable, str(BENCH / "capacity.py"), "model", str(figures)],
                         check=True, capture_output=True, text=True, timeout=60).stdout
    model = json.loads(figures.read_text())["model"]
    assert model["cpu_us_per_action"] == roles
    # A core gives 1e6 us per second; a table asks one action every 2 s.
    assert model["per_core_tables"]["gateway"] == pytest.approx(1e6 * 2 / 1200)
    eight, thirty_two = model["machines"]
    for machine in (eight, thirty_two):
        n = machine["cores"]
        assert machine["gateway_cores"] + machine["worker_cores"] \
            + machine["nats_postgres_cores"] == n
        # The costliest role gets the most cores; the role that bounds the machine runs at
        # 70%, none above.
        assert machine["gateway_cores"] > machine["worker_cores"]
        assert max(machine["utilisation"].values()) == pytest.approx(0.7, abs=0.01)
        assert machine["utilisation"][machine["bound_by"]] == pytest.approx(0.7, abs=0.01)
        assert machine["players"] == 5 * machine["tables"]
        assert f"{machine['tables']:,}" in out
    assert thirty_two["tables"] > 3 * eight["tables"]
    # The one-process server: one core at 70%, whatever the machine.
    assert model["one_process_tables"] == int(0.7 * 1e6 * 2 / 1500)
    png = tmp_path / "capacity.png"
    subprocess.run([sys.executable, str(BENCH / "capacity.py"), "plot", str(figures), str(png)],
                   check=True, capture_output=True, text=True, timeout=60)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
