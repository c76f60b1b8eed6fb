"""Test clients for the SSH and browser transports (issue 19), each rendering what it
receives on a pyte screen like :class:`tests.support.telnetclient.TelnetClient`, with the same
reading and waiting methods (``text``, ``row``, ``wait_for``, ``wait_closed``, ``login``),
so :mod:`tests.support.tableplay`'s helpers play through them too.

- :class:`SshClient`: an asyncssh client with a PTY (``connect(port, user, password=...,
  client_keys=...)``); ``resize`` sends a window change.
- :class:`WebClient`: an aiohttp WebSocket client speaking the page's protocol (keys as
  binary messages, resizes as JSON text messages); ``send_frame`` sends any message.
- :func:`transport_server`: the real server with SSH or the web port turned on.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import asyncssh
import pyte

from bbspoker.app import Server
from tests.support.telnetclient import FakeClock, ScreenWaits, TelnetClient, running_server

__all__ = ["SshClient", "WebClient", "transport_server", "telnet"]


class _Screen(ScreenWaits):
    """A pyte screen fed with bytes, with the telnet test client's waits and login."""

    def __init__(self, cols: int, rows: int) -> None:
        self.screen = pyte.Screen(cols, rows)
        self._stream = pyte.ByteStream(self.screen)
        self.received = bytearray()
        self.eof = asyncio.Event()

    def _feed(self, data: bytes) -> None:
        self.received += data
        self._stream.feed(data)
        self._arrived()


class _SshSession(asyncssh.SSHClientSession):
    def __init__(self, client: SshClient) -> None:
        self._client = client

    def data_received(self, data: bytes, datatype: Any) -> None:
        self._client._feed(data)

    def connection_lost(self, exc: Exception | None) -> None:
        self._client._ended()


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
        #: The text messages the server sent (the page ignores them; refusals of a
        #: control message).
        self.texts: list[str] = []
        self._task = asyncio.create_task(self._read())

    @classmethod
    async def connect(cls, port: int, *, cols: int = 80, rows: int = 24,
                      origin: str | None = "same", lang: str | None = None) -> WebClient:
        """Open ``/ws`` as the page does (``origin`` "same": the page's own; ``None``: no
        Origin header; ``lang``: the page's language, as its script sends it). Raises
        ``aiohttp.WSServerHandshakeError`` if refused."""
        http = aiohttp.ClientSession()
        headers = {}
        if origin == "same":
            headers["Origin"] = f"http://127.0.0.1:{port}"
        elif origin is not None:
            headers["Origin"] = origin
        try:
            query = f"cols={cols}&rows={rows}" + (f"&lang={lang}" if lang else "")
            ws = await http.ws_connect(f"http://127.0.0.1:{port}/ws?{query}",
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
                elif msg.type == aiohttp.WSMsgType.TEXT:
                    self.texts.append(msg.data)
        finally:
            self.close_code = self.ws.close_code
            self._ended()

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


async def _no_sleep(_seconds: float) -> None:
    await asyncio.sleep(0)


@contextlib.asynccontextmanager
async def transport_server(tmp_path: Path, transport: str, **config: Any
                           ) -> AsyncIterator[tuple[Server, list[Any], FakeClock]]:
    """The real server (:func:`tests.support.telnetclient.running_server` with ``config``) with
    ``transport`` (``"ssh"`` or ``"web"``) turned on, on a free port (an SSH host key in
    ``tmp_path``), a fake clock and no login delays. Yields ``(server, made, clock)``:
    clients appended to ``made`` are closed at the end."""
    clock = FakeClock()
    made: list[Any] = []
    config[transport] = {"enabled": True, **config.get(transport, {})}
    async with running_server(tmp_path, clock=clock, sleep=_no_sleep, **config) as server:
        try:
            yield server, made, clock
        finally:
            for c in made:
                with contextlib.suppress(Exception):
                    await c.close()


async def telnet(server: Server, made: list[Any], **kwargs: Any) -> TelnetClient:
    """A telnet client of ``server``, closed with ``made``."""
    c = await TelnetClient.connect(server.port, **kwargs)
    made.append(c)
    return c
