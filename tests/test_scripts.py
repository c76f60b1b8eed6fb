"""The scripts around the package: scripts/_venv.sh, which scripts/serve and scripts/test
source to install the project into .venv when needed, run against a stand-in python3 (no
network, no real install)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: A python3 that makes a venv whose python does nothing (pip "installs" at once).
FAKE_PYTHON = """#!/usr/bin/env bash
if [ "$1 $2" = "-m venv" ]; then
    mkdir -p "$3/bin"
    printf '#!/usr/bin/env bash\\nexit 0\\n' > "$3/bin/python"
    chmod +x "$3/bin/python"
fi
"""


@pytest.fixture
def project(tmp_path):
    """A copy of scripts/_venv.sh in a project of its own, and the PATH with the fake
    python3 first."""
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "_venv.sh", tmp_path / "scripts" / "_venv.sh")
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    bin_dir = tmp_path / "fakebin"
    bin_dir.mkdir()
    (bin_dir / "python3").write_text(FAKE_PYTHON)
    (bin_dir / "python3").chmod(0o755)
    return tmp_path, f"{bin_dir}{os.pathsep}{os.environ['PATH']}"


def source(root: Path, path: str, extras: str = "") -> subprocess.CompletedProcess[str]:
    """``source scripts/_venv.sh`` as scripts/serve does, then print a line of our own."""
    return subprocess.run(
        ["bash", "-c", 'BBSPOKER_EXTRAS="$1" source "$2"; echo "ready"', "_", extras,
         str(root / "scripts" / "_venv.sh")],
        capture_output=True, text=True, env={**os.environ, "PATH": path}, timeout=60,
        check=True)


def test_the_first_install_says_what_it_does_on_stderr_and_later_runs_say_nothing(project):
    """A first run installs for about a minute: one line on stderr says so before it
    starts (scripts/serve was silent); stdout stays the command's own (scripts/test's
    pytest output). Once installed, nothing is said; a changed pyproject.toml says it
    updates."""
    root, path = project
    first = source(root, path)
    assert first.stderr == "installing bbspoker into .venv (first run, about a minute)...\n"
    assert first.stdout == "ready\n"
    again = source(root, path)
    assert (again.stderr, again.stdout) == ("", "ready\n")
    with_extras = source(root, path, "test,bench")
    assert with_extras.stderr == ("installing bbspoker[test,bench] into .venv (first run, "
                                  "about a minute)...\n")
    stamp = root / ".venv" / ".bbspoker-installed"
    os.utime(stamp, (1, 1))                          # pyproject.toml is newer now
    changed = source(root, path)
    assert changed.stderr == ("updating bbspoker in .venv (pyproject.toml changed, about a "
                              "minute)...\n")
    assert changed.stdout == "ready\n"


#: The project's python in .venv for scripts/test: ``-m mypy`` and ``-m pytest`` print a
#: line and exit with $MYPY_RC and $PYTEST_RC. Each waits (at most 10 s) for the other
#: to have started, so they pass only when they run at the same time.
FAKE_VENV_PYTHON = """#!/usr/bin/env bash
here="$(dirname "$0")"
if [ "$2" = mypy ]; then mine=mypy; other=pytest; rc="$MYPY_RC"; else
    mine=pytest; other=mypy; rc="$PYTEST_RC"; fi
touch "$here/$mine-started"
for _ in $(seq 1000); do [ -e "$here/$other-started" ] && break; sleep 0.01; done
[ -e "$here/$other-started" ] || { echo "$mine ran alone"; exit 99; }
echo "$mine says: ${*:3}"
exit "$rc"
"""


@pytest.fixture
def test_project(tmp_path):
    """A copy of scripts/test (and _venv.sh) in a project already installed in .venv,
    whose python is :data:`FAKE_VENV_PYTHON`."""
    (tmp_path / "scripts").mkdir()
    for name in ("test", "_venv.sh"):
        shutil.copy(ROOT / "scripts" / name, tmp_path / "scripts" / name)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "python").write_text(FAKE_VENV_PYTHON)
    (bin_dir / "python").chmod(0o755)
    (tmp_path / ".venv" / ".bbspoker-installed-test,bench").touch()
    return tmp_path


def run_test_script(root: Path, mypy_rc: int, pytest_rc: int) -> subprocess.CompletedProcess[str]:
    for marker in (root / ".venv" / "bin").glob("*-started"):
        marker.unlink()
    return subprocess.run([str(root / "scripts" / "test"), "-k", "hands"], capture_output=True,
                          text=True, timeout=60,
                          env={**os.environ, "MYPY_RC": str(mypy_rc), "PYTEST_RC": str(pytest_rc)})


def test_the_test_command_type_checks_the_sources_while_the_tests_run(test_project):
    """scripts/test runs mypy (over src/, as pyproject.toml says) at the same time as the
    tests, and passes only if both do: a type error fails it, with mypy's report shown
    after the tests'; a failing test fails it with pytest's status."""
    ok = run_test_script(test_project, 0, 0)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    # one worker more than the cores (many tests wait on sockets and processes)
    assert (f"pytest says: -n {len(os.sched_getaffinity(0)) + 1} --dist worksteal -k hands"
            in ok.stdout)
    assert "mypy says:" in ok.stdout
    typed_wrong = run_test_script(test_project, 1, 0)
    assert typed_wrong.returncode == 1
    assert typed_wrong.stdout.index("pytest says") < typed_wrong.stdout.index("mypy says")
    assert run_test_script(test_project, 0, 5).returncode == 5
