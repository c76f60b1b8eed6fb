"""The light pieces of the server benchmarks: what their load processes and baseline
servers need, and nothing of bbspoker (or of the tests' clients), so that such a process
is up in a tenth of a second, not the second and more that importing bbspoker takes.
``_common.py`` offers all of it too, beside what does need bbspoker.

- :data:`PASSWORD`, :func:`raise_fd_limit`, :func:`percentile`, :func:`frame_bytes`,
  :func:`free_port`, :func:`scratch_dir`, :func:`print_table`;
- :func:`bare_server`: the baseline of ``latency.py``, ``memory.py`` and ``budget.py``, a
  bare telnetlib3 server whose shell relays each line it reads to every other connection;
  ``python _light.py bare PORT [BEFORE_US EACH_US [PAD]]`` runs it (what
  :class:`_common.ServerProcess` starts without a config).
"""

from __future__ import annotations

import asyncio
import atexit
import resource
import shutil
import socket
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

#: Password of every benchmark account.
PASSWORD = "bench-pw"


def raise_fd_limit() -> int:
    """Raise this process's open-file limit to its hard limit (1,000+ sockets); returns it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) of ``values`` by the nearest-rank method."""
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 100))
    return ordered[int(rank) - 1]


def frame_bytes(size: int) -> bytes:
    """A frame of ``size`` bytes shaped like a bet update: cursor moves and text (what
    ``floor.py``'s relay and ``capacity.py --knock screens`` write in place of a screen)."""
    unit = b"\x1b[12;44HCurrent ...... bob      \x1b[14;2Halice has bet 20 CUBES. "
    return (unit * (size // len(unit) + 1))[:size]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def scratch_dir() -> Path:
    """A new temporary directory (on disk, as a real ledger is: its commits fsync),
    removed when the process exits."""
    path = tempfile.mkdtemp(prefix="bbspoker-bench-")
    atexit.register(shutil.rmtree, path, True)
    return Path(path)


def print_table(rows: Sequence[Sequence[object]]) -> None:
    """Print rows as left-aligned columns."""
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        print("  ".join(str(v).ljust(w) for v, w in zip(r, widths)).rstrip())


def _spin(seconds: float) -> None:
    """Keep the CPU busy for ``seconds`` (simulated server work: no sleep, no yield)."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


async def bare_server(port: int, before: float = 0.0, each: float = 0.0, pad: int = 0) -> None:
    """The baseline server: plain telnetlib3 defaults; each line read goes to every other client.

    For ``budget.py`` only: ``before`` seconds of busy work once a line is read,
    ``each`` seconds before each send, and ``pad`` bytes (``x``) ahead of the
    line relayed; all 0, the plain baseline."""
    import telnetlib3

    writers: set = set()
    filler = b"x" * pad

    async def shell(reader, writer) -> None:
        writers.add(writer)
        try:
            while line := await reader.readline():
                if before:
                    _spin(before)
                for other in writers:
                    if other is not writer:
                        if each:
                            _spin(each)
                        other.write(filler + line if pad else line)
        finally:
            writers.discard(writer)

    server = await telnetlib3.create_server(host="127.0.0.1", port=port, shell=shell,
                                            encoding=False, timeout=0)
    await server.wait_closed()


def main(argv: list[str]) -> None:
    """``bare PORT [BEFORE_US EACH_US [PAD]]``: run :func:`bare_server` until killed (the
    work in microseconds)."""
    if argv[:1] != ["bare"]:
        raise SystemExit("usage: _light.py bare PORT [BEFORE_US EACH_US [PAD]]")
    argv = argv[1:]
    raise_fd_limit()
    work = [float(v) for v in argv[1:3]]
    asyncio.run(bare_server(int(argv[0]), *(us / 1e6 for us in work),
                            *(int(v) for v in argv[3:4])))


if __name__ == "__main__":
    main(sys.argv[1:])
