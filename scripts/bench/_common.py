"""Shared pieces of the server benchmarks ``screen.py``, ``latency.py`` and ``memory.py`` (issue 6).

- :class:`BenchClient`: the tests' :class:`tests.support.telnetclient.TelnetClient` that
  also stamps the arrival time of every chunk of bytes (taken in the event
  loop's socket callback, before any parsing) and feeds its pyte screen only
  when the screen is read, so 1,000 idle clients cost no screen parsing and a
  player's timing is not delayed by another player's parsing.
- Accounts made directly in the ledger with a cheap scrypt cost
  (:func:`create_accounts`): 1,000 logins then cost milliseconds, not minutes.
- :class:`ServerProcess`: ``bbspoker serve`` (or the bare telnetlib3 server of
  ``_light.py``) in a subprocess, with its RSS read from ``/proc/PID/status``.
- The table driver: :func:`seat_players`, :func:`next_actor`, :func:`act`.
- ``python _common.py bare PORT``: the baseline, a bare telnetlib3 server whose
  shell relays each line it reads to every other connection (``_light.py``'s, which
  starts faster on its own: ``python _light.py bare PORT``).
- What needs nothing of bbspoker (:data:`PASSWORD`, :func:`percentile`,
  :func:`free_port`, :func:`scratch_dir`, :func:`print_table` ...) is ``_light.py``'s,
  offered here too.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from unittest import mock

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests.support.telnetclient import TelnetClient  # noqa: E402

from bbspoker.store import passwords  # noqa: E402
from bbspoker.store.sqlite import Ledger  # noqa: E402

from _light import (  # noqa: E402,F401 (offered here too)
    PASSWORD, frame_bytes, free_port, percentile, print_table, raise_fd_limit, scratch_dir)

#: The game commands of chapter 2.4 as the command area shows them, by what the driver does.
ACTIONS = {"start": "[S] Open the game", "bet": "[B] Place bet", "hands": "[H] See hands!",
           "pass": "[P] Pass", "discard": "[1]-[5] Discard", "reveal": "[R] Reveal hand"}


def median(values: Sequence[float]) -> float:
    """The median of ``values``."""
    return statistics.median(values)


def create_accounts(ledger: Ledger, handles: Iterable[str], cubes: int = 100_000) -> None:
    """Create ``handles`` in ``ledger`` with :data:`PASSWORD` and ``cubes`` CUBES.

    The stored scrypt string carries its own cost, so hashing here with n=2
    makes each later login's check take microseconds instead of ~50 ms.
    """
    with mock.patch.object(passwords, "_N", 2):
        stored = passwords.hash_password(PASSWORD)
    for handle in handles:
        ledger.create_account(handle, stored, cubes)


class _LazyStream:
    """Holds bytes for a pyte stream until :meth:`flush` (when someone reads the screen);
    with ``stream=None`` it drops them (a client nobody looks at)."""

    def __init__(self, stream) -> None:
        self._stream = stream
        self._pending: list[bytes] = []

    def feed(self, data: bytes) -> None:
        if self._stream is not None:
            self._pending.append(data)

    def flush(self) -> None:
        if self._pending:
            data, self._pending = b"".join(self._pending), []
            self._stream.feed(data)


class BenchClient(TelnetClient):
    """A :class:`TelnetClient` with arrival times and a lazily fed screen.

    ``arrivals`` holds ``(perf_counter seconds, raw bytes received so far)`` per
    chunk as the event loop handed it over; ``raw`` every byte (telnet commands
    included).
    """

    @classmethod
    async def connect(cls, port: int, host: str = "127.0.0.1", *, screen: bool = True,
                      **kwargs) -> BenchClient:
        """Like :meth:`TelnetClient.connect`; stamps chunk arrivals from the first byte.
        ``screen=False``: nothing is drawn (the screen stays blank; ``raw`` and
        ``received`` still hold everything)."""
        client = await super().connect(port, host, **kwargs)
        client._stream = _LazyStream(client._stream if screen else None)
        client.raw = bytearray()
        client.arrivals = []
        feed = client._reader.feed_data

        def stamped(data: bytes) -> None:
            client.raw += data
            client.arrivals.append((time.perf_counter(), len(client.raw)))
            feed(data)

        client._reader.feed_data = stamped
        return client

    @property
    def display(self) -> list[str]:
        self._stream.flush()
        return list(self.screen.display)

    @property
    def text(self) -> str:
        return "\n".join(line.rstrip() for line in self.display)

    def row(self, n: int) -> str:
        return self.display[n].rstrip()

    def arrival_of(self, needle: bytes, start: int) -> float | None:
        """When the chunk completing the first ``needle`` after raw offset ``start`` arrived."""
        at = self.raw.find(needle, start)
        if at < 0:
            return None
        end = at + len(needle)
        return next(t for t, total in self.arrivals if total >= end)

    async def wait_arrival(self, needle: bytes, start: int, timeout: float = 10.0) -> float:
        """Wait for ``needle`` in the raw bytes after ``start``; returns its arrival time."""
        await self._wait(lambda: needle in self.raw[start:], f"{needle!r} after {start}", timeout)
        return self.arrival_of(needle, start)  # type: ignore[return-value]

    async def log_in(self, handle: str, timeout: float = 30.0) -> None:
        """The login dialogue on raw bytes (no screen parsing); returns at the door's menu."""
        await self.wait_for_received(b"Handle:", timeout)
        await self.send(handle + "\r")
        await self.wait_for_received(b"Password:", timeout)
        mark = len(self.received)
        await self.send(PASSWORD + "\r")
        # The menu's keys are drawn in a colour of their own: "[", a colour, "Q", ...
        await self._wait(lambda: b"] Quit" in self.received[mark:], "the menu", timeout)

    def offered(self) -> set[str]:
        """The driver names (keys of :data:`ACTIONS`) of the game commands on screen now."""
        area = "\n".join(line[43:] for line in self.display[6:12])
        return {name for name, text in ACTIONS.items() if text in area}


async def connect_many(port: int, handles: Sequence[str], *, term: str = "xterm",
                       concurrency: int = 8, screen: bool = False) -> list[BenchClient]:
    """Connect and log in one client per handle (``concurrency`` logins at a time);
    ``screen``: whether their screens are drawn (see :meth:`BenchClient.connect`)."""
    slots = asyncio.Semaphore(concurrency)

    async def one(handle: str) -> BenchClient:
        async with slots:
            client = await BenchClient.connect(port, term=term, screen=screen)
            await client.log_in(handle)
            return client

    return list(await asyncio.gather(*(one(h) for h in handles)))


async def seat_players(port: int, handles: Sequence[str], term: str) -> list[BenchClient]:
    """Log ``handles`` in with terminal kind ``term`` and sit them at the table in order."""
    players = []
    for handle in handles:
        [client] = await connect_many(port, [handle], term=term, screen=True)
        await client.send("p")
        await client.wait_for("Join the table? (y/n)")
        await client.send("y")
        await client.wait_for("[X] Exit the game")
        players.append(client)
    return players


async def next_actor(players: Sequence[BenchClient], timeout: float = 10.0) -> BenchClient:
    """The one player whose command area offers a game command (it is their turn)."""
    deadline = time.monotonic() + timeout
    while True:
        ready = [p for p in players if p.offered()]
        if len(ready) == 1:
            return ready[0]
        if time.monotonic() > deadline:
            screens = "\n\n".join(p.text for p in players)
            raise AssertionError(f"{len(ready)} players offered a command:\n{screens}")
        await asyncio.sleep(0.005)


@dataclasses.dataclass
class Action:
    """One table action as the driver performs it: ``kind`` (``start``, ``bet``, ``pass``,
    ``discard``, ``reveal``), the keys typed before the decisive one, and the decisive
    key whose press is timed. ``needle``: bytes every seated screen receives for it."""

    kind: str
    prelude: str
    key: str
    needle: bytes


def action_for(actor: BenchClient, handle: str, kind: str, *, amount: str = "",
               discard: int = 0) -> Action:
    """The :class:`Action` of ``kind`` for ``handle``; a bet of ``amount`` ("" calls),
    ``hands`` is a bet with [H] (see hands), ``discard`` cards selected before [D]."""
    if kind in ("bet", "hands"):
        return Action("bet", kind[0] + amount, "\r", f"{handle} has ".encode())
    if kind == "pass":
        return Action("pass", "p", "y", f"{handle} has passed".encode())
    if kind == "discard":
        return Action("discard", "".join(str(i + 1) for i in range(discard)), "d",
                      f"{handle} has discarded".encode())
    if kind == "reveal":
        return Action("reveal", "", "r", f"{handle} shows ".encode())
    return Action("start", "", "s", b"is now STARTED")


async def type_prelude(actor: BenchClient, action: Action) -> None:
    """Type ``action``'s prelude one key at a time, each once its echo has arrived."""
    for ch in action.prelude:
        mark = len(actor.raw)
        await actor.send(ch)
        await actor._wait(lambda m=mark: len(actor.raw) > m, f"echo of {ch!r}", 10.0)


async def press(actor: BenchClient, action: Action) -> float:
    """Press ``action``'s decisive key; returns the ``perf_counter`` time of the press."""
    pressed = time.perf_counter()
    await actor.send(action.key)
    return pressed


async def connect_bare(port: int, count: int, concurrency: int = 64) -> list[BenchClient]:
    """Open ``count`` connections to the bare relay server and return once every one
    is served (a line sent by the first has reached all the others)."""
    slots = asyncio.Semaphore(concurrency)

    async def one() -> BenchClient:
        async with slots:
            return await BenchClient.connect(port, screen=False)

    clients = list(await asyncio.gather(*(one() for _ in range(count))))
    for attempt in range(20):
        needle = f"<ping {attempt}>".encode()
        await clients[0].send(needle + b"\r\n")
        for _ in range(25):             # up to 0.25 s per ping
            await asyncio.sleep(0.01)
            if all(needle in c.raw for c in clients[1:]):
                return clients
    raise RuntimeError("the bare server does not relay to every connection")


def write_config(directory: Path, port: int, **sections: dict[str, object]) -> Path:
    """A bbspoker TOML config in ``directory`` (ledger there, ``port``, logs at WARNING),
    plus any ``sections`` values; returns its path."""
    values: dict[str, dict[str, object]] = {
        "server": {"host": "127.0.0.1", "port": port, "log_level": "WARNING"},
        "ledger": {"path": str(directory / "bench.db")},
        "ssh": {"enabled": False},
        "web": {"enabled": False},
        "door": {"title": False},
        # Stopping the server does not wait for the game in play (120 s by default, but
        # ServerProcess kills it after 10 s).
        "table": {"shutdown_grace": 0},
    }
    for name, extra in sections.items():
        values.setdefault(name, {}).update(extra)
    lines = []
    for name, section in values.items():
        lines.append(f"[{name}]")
        lines += [f'{k} = "{v}"' if isinstance(v, str) else
                  f"{k} = {str(v).lower()}" if isinstance(v, bool) else f"{k} = {v!r}"
                  for k, v in section.items()]
    path = directory / "bench.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


class ServerProcess:
    """A server in a subprocess listening on ``port``: ``bbspoker serve`` (``config`` given)
    or the bare telnetlib3 relay of ``_light.py``, with ``work`` = (us before, us before
    each send, bytes of padding) for ``budget.py``. Use as an async context manager."""

    def __init__(self, port: int, config: Path | None = None,
                 work: tuple[float, float, int] | None = None) -> None:
        self.port = port
        if config is None:
            argv = [sys.executable, str(Path(__file__).with_name("_light.py")), "bare",
                    str(port), *map(str, work or ())]
        else:
            argv = [str(Path(sys.executable).parent / "bbspoker"), "--config", str(config), "serve"]
        env = {k: v for k, v in os.environ.items() if k != "BBSPOKER_CONFIG"}
        self._log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(argv, stdout=self._log, stderr=self._log, env=env)

    async def __aenter__(self) -> ServerProcess:
        for _ in range(200):
            if self.proc.poll() is not None:
                break
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", self.port)
            except OSError:
                await asyncio.sleep(0.05)
                continue
            writer.close()
            return self
        raise RuntimeError(f"server did not start:\n{self.log()}")

    async def __aexit__(self, *exc: object) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._log.close()

    def log(self) -> str:
        """What the server wrote to stdout/stderr so far."""
        self._log.seek(0)
        return self._log.read().decode(errors="replace")

    def rss_kib(self) -> int:
        """The server's resident set size (``VmRSS``), KiB."""
        status = Path(f"/proc/{self.proc.pid}/status").read_text()
        return int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:")))


if __name__ == "__main__" and sys.argv[1:2] == ["bare"]:
    import _light
    _light.main(sys.argv[1:])
