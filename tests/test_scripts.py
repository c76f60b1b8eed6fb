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
