"""A throwaway NATS server for the tests and the scripts that need one.

:func:`start_nats` runs Debian's ``nats-server`` (found on ``PATH`` or as
``/usr/sbin/nats-server``) on 127.0.0.1 at a TCP port it picks itself (read back from its
ports file), its files in a new directory under ``/tmp``; :meth:`Nats.restart` stops it and starts it again on the same port (what a
client sees when the server restarts: its connection drops, it reconnects).

``BBSPOKER_REQUIRE_SERVICES=1`` (set by ``.ci/run``) makes a missing server fail the tests
instead of skipping them (``tests/conftest.py``'s ``nats_server`` fixture).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field

__all__ = ["Nats", "NatsUnavailable", "start_nats", "nats_server_binary"]

#: Seconds a starting server has to accept connections.
START_TIMEOUT = 5.0


class NatsUnavailable(RuntimeError):
    """No NATS server can be started here (the message says why)."""


def nats_server_binary() -> str | None:
    """The ``nats-server`` program, or None if it is not installed."""
    found = shutil.which("nats-server")
    if found:
        return found
    return "/usr/sbin/nats-server" if os.access("/usr/sbin/nats-server", os.X_OK) else None


def _accepts(port: int) -> bool:
    """Whether a NATS server answers on ``port``: it greets every connection with ``INFO``
    (another program that took the port in the meantime does not)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2) as s:
            s.settimeout(0.5)
            return s.recv(4) == b"INFO"
    except OSError:
        return False


@dataclass
class Nats:
    """A running throwaway server: ``url`` (``nats://127.0.0.1:<port>``); :meth:`stop` ends
    it and removes its directory."""

    binary: str
    port: int
    directory: str
    process: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        """The server's URL."""
        return f"nats://127.0.0.1:{self.port}"

    def start(self) -> None:
        """Start the server (about 50 ms) and wait until it accepts connections: on
        :attr:`port`, or with ``port`` 0 on a port it picks itself (``-p -1``; it writes the
        port into a ports file, read back here, so no other process can take it between
        the choice and the bind). Raises :class:`NatsUnavailable` if it exits or does not
        listen within :data:`START_TIMEOUT` s."""
        log = open(os.path.join(self.directory, "log"), "ab")
        ports = os.path.join(self.directory, "ports")
        os.makedirs(ports, exist_ok=True)
        for old in os.listdir(ports):
            os.remove(os.path.join(ports, old))
        self.process = subprocess.Popen(
            [self.binary, "-a", "127.0.0.1", "-p", str(self.port or -1), "-n", "bbspoker-test",
             "--ports_file_dir", ports],
            stdout=log, stderr=log, cwd=self.directory)
        log.close()
        deadline = time.monotonic() + START_TIMEOUT
        while not self.port:
            written = [f for f in os.listdir(ports) if f.endswith(".ports")]
            if written:
                with open(os.path.join(ports, written[0]), encoding="utf-8") as f:
                    text = f.read()
                if text.strip():
                    self.port = int(json.loads(text)["nats"][0].rsplit(":", 1)[1])
                    break
            if self.process.poll() is not None or time.monotonic() > deadline:
                break
            time.sleep(0.01)
        while not (self.port and _accepts(self.port)):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop_process()
                with open(os.path.join(self.directory, "log"), encoding="utf-8",
                          errors="replace") as f:
                    raise NatsUnavailable(f"nats-server did not start: {f.read()[-500:]}")
            time.sleep(0.01)

    def stop_process(self) -> None:
        """Stop the server (its clients see the connection drop); its files stay."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def restart(self) -> None:
        """Stop the server and start it again on the same port."""
        self.stop_process()
        self.start()

    def stop(self) -> None:
        """Stop the server and remove its files."""
        self.stop_process()
        shutil.rmtree(self.directory, ignore_errors=True)


def start_nats() -> Nats:
    """Start a throwaway server on 127.0.0.1 at a free port. Raises :class:`NatsUnavailable`
    if ``nats-server`` is not installed or does not start."""
    binary = nats_server_binary()
    if binary is None:
        raise NatsUnavailable("nats-server is not installed (apt-get install nats-server)")
    server = Nats(binary, 0, tempfile.mkdtemp(prefix="bbsnats-"))
    try:
        server.start()
    except NatsUnavailable:
        shutil.rmtree(server.directory, ignore_errors=True)
        raise
    return server
