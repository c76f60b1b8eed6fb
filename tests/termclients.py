"""Test clients for the SSH and browser transports (issue 19), each rendering what it
receives on a pyte screen like :class:`tests.telnetclient.TelnetClient`, with the same
reading and waiting methods (``text``, ``row``, ``wait_for``, ``wait_closed``, ``login``),
so :mod:`tests.tableplay`'s helpers play through them too.

- :class:`SshClient`: an asyncssh client with a PTY (``connect(port, user, password=...,
  client_keys=...)``); ``resize`` sends a window change.
- :class:`WebClient`: an aiohttp WebSocket client speaking the page's protocol (keys as
  binary messages, resizes as JSON text messages); ``send_frame`` sends any message.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp
import asyncssh
import pyte

__all__ = ["SshClient", "WebClient"]

_POLL = 0.01


class _Screen:
    """A pyte screen fed with bytes, and the waits of the telnet test client."""

    def __init__(self, cols: int, rows: int) -> None:
        self.screen = pyte.Screen(cols, rows)
        self._stream = pyte.ByteStream(self.screen)
        self.received = bytearray()
        self.eof = asyncio.Event()

    def _feed(self, data: bytes) -> None:
        self.received += data
        self._stream.feed(data)

    @property
    def text(self) -> str:
        """The screen as one string, lines joined by newlines, right-stripped."""
        return "\n".join(line.rstrip() for line in self.screen.display)

    def row(self, n: int) -> str:
        """Screen row ``n`` (0-based), right-stripped."""
        return self.screen.display[n].rstrip()

    async def wait_for(self, text: str, timeout: float = 5.0) -> str:
        """Wait until ``text`` is on the screen; AssertionError with the screen if not."""
        return await self._wait(lambda: text in self.text, f"{text!r} on screen", timeout)

    async def wait_for_received(self, text: str, timeout: float = 5.0) -> None:
        """Wait until ``text`` (UTF-8) occurs in the raw output."""
        needle = text.encode()
        await self._wait(lambda: needle in self.received, f"{text!r} received", timeout)

    async def _wait(self, cond: Any, what: str, timeout: float) -> str:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not cond():
            if self.eof.is_set():
                raise AssertionError(f"connection closed before {what}:\n{self.text}")
            if loop.time() > deadline:
                raise AssertionError(f"timed out waiting for {what}:\n{self.text}")
            await asyncio.sleep(_POLL)
        return self.text

    async def wait_closed(self, timeout: float = 5.0) -> None:
        """Wait until the server closes the connection; AssertionError on timeout."""
        try:
            await asyncio.wait_for(self.eof.wait(), timeout)
        except TimeoutError:
            raise AssertionError(f"connection still open after {timeout} s:\n{self.text}")

    async def send(self, data: str | bytes) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    async def login(self, handle: str, password: str, *, timeout: float = 10.0) -> None:
        """The door's dialogue (``Handle:``, the password or a new account) up to the menu."""
        await self.wait_for("Handle:", timeout)
        await self.send(handle + "\r")
        await self._wait(lambda: "Password:" in self.text or "Create new user" in self.text,
                         "password or new-user prompt", timeout)
        if "Create new user" in self.text:
            await self.send("y")
            await self.wait_for("Password:", timeout)
            await self.send(password + "\r")
            await self.wait_for("again", timeout)
        await self.send(password + "\r")
        await self.menu(timeout)

    async def menu(self, timeout: float = 10.0) -> None:
        """Wait for the menu, pressing a key past the notices if there are any."""
        await self._wait(lambda: "[Q]" in self.text or "Press any key" in self.text,
                         "the menu", timeout)
        if "[Q]" not in self.text:
            await self.send(" ")
            await self.wait_for("[Q]", timeout)


class _SshSession(asyncssh.SSHClientSession):
    def __init__(self, client: SshClient) -> None:
        self._client = client

    def data_received(self, data: bytes, datatype: Any) -> None:
        self._client._feed(data)

    def connection_lost(self, exc: Exception | None) -> None:
        self._client.eof.set()


class SshClient(_Screen):
    """One SSH connection with a PTY and a pyte screen; make it with :meth:`connect`."""

    def __init__(self, conn: asyncssh.SSHClientConnection, cols: int, rows: int) -> None:
        super().__init__(cols, rows)
        self.conn = conn
        self.chan: asyncssh.SSHClientChannel | None = None

    @classmethod
    async def connect(cls, port: int, username: str, *, password: str | None = None,
                      client_keys: list[Any] | None = None, cols: int = 80, rows: int = 24,
                      term: str = "xterm-256color", pty: bool = True) -> SshClient:
        """Log in as ``username`` (password or keys; none for ``new``) and open a shell.
        Raises what asyncssh raises when the login fails (``PermissionDenied``,
        ``DisconnectError`` with the server's reason)."""
        conn = await asyncssh.connect(
            "127.0.0.1", port, username=username, password=password,
            client_keys=client_keys or None, known_hosts=None, agent_path=None,
            preferred_auth="publickey,password" if client_keys else "password",
            config=None)
        client = cls(conn, cols, rows)
        chan, _ = await conn.create_session(
            lambda: _SshSession(client), term_type=term if pty else None,
            term_size=(cols, rows) if pty else None, encoding=None)
        client.chan = chan
        return client

    async def send(self, data: str | bytes) -> None:
        """Send keys (text as UTF-8)."""
        self.chan.write(data.encode() if isinstance(data, str) else data)
        await asyncio.sleep(0)

    async def resize(self, cols: int, rows: int) -> None:
        """The window changed to ``cols`` x ``rows`` (the pyte screen too)."""
        self.screen.resize(rows, cols)
        self.chan.change_terminal_size(cols, rows)
        await asyncio.sleep(0)

    async def close(self) -> None:
        """Close the connection."""
        self.conn.close()
        await self.conn.wait_closed()


class WebClient(_Screen):
    """One WebSocket of the browser page with a pyte screen; make it with :meth:`connect`."""

    def __init__(self, http: aiohttp.ClientSession, ws: aiohttp.ClientWebSocketResponse,
                 cols: int, rows: int) -> None:
        super().__init__(cols, rows)
        self.http, self.ws = http, ws
        self.close_code: int | None = None
        self._task = asyncio.create_task(self._read())

    @classmethod
    async def connect(cls, port: int, *, cols: int = 80, rows: int = 24,
                      origin: str | None = "same") -> WebClient:
        """Open ``/ws`` as the page does (``origin`` "same": the page's own; ``None``: no
        Origin header). Raises ``aiohttp.WSServerHandshakeError`` if refused."""
        http = aiohttp.ClientSession()
        headers = {}
        if origin == "same":
            headers["Origin"] = f"http://127.0.0.1:{port}"
        elif origin is not None:
            headers["Origin"] = origin
        try:
            ws = await http.ws_connect(f"http://127.0.0.1:{port}/ws?cols={cols}&rows={rows}",
                                       headers=headers, max_msg_size=0)
        except BaseException:
            await http.close()
            raise
        return cls(http, ws, cols, rows)

    async def _read(self) -> None:
        try:
            async for msg in self.ws:
                if msg.type == aiohttp.WSMsgType.BINARY:
                    self._feed(msg.data)
        finally:
            self.close_code = self.ws.close_code
            self.eof.set()

    async def send(self, data: str | bytes) -> None:
        """Send keys as the page does (a binary message, UTF-8)."""
        await self.ws.send_bytes(data.encode() if isinstance(data, str) else data)

    async def send_frame(self, data: str | bytes) -> None:
        """Send one message as given (text or binary); errors once closed are ignored."""
        try:
            if isinstance(data, str):
                await self.ws.send_str(data)
            else:
                await self.ws.send_bytes(data)
        except (ConnectionError, RuntimeError):
            pass

    async def resize(self, cols: int, rows: int) -> None:
        """The window changed to ``cols`` x ``rows`` (the pyte screen too)."""
        self.screen.resize(rows, cols)
        await self.ws.send_str(json.dumps({"type": "resize", "cols": cols, "rows": rows}))

    async def close(self) -> None:
        """Close the socket and the HTTP session."""
        await self.ws.close()
        self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)
        await self.http.close()
