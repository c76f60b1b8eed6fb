"""A plain TCP line transport for programs (the bot port): one message per line,
UTF-8, ``\\n`` (or ``\\r\\n``) ends a line.

It applies the limits every transport applies: the connection caps
(:class:`~bbspoker.transport.gateway.ConnectionLimits`: total, and per address until the
login), ``[input] max_line_bytes`` per line, the ``[input]`` rate as a token bucket, and
``[output] backlog_bytes`` / ``drain_timeout`` for what the program does not read. A
program that breaks a limit is told why in one line (``9;<code>;<text>``, the protocol's
error message) and disconnected; nothing else is disturbed.

What the lines mean is not this module's business: each connection is handed as a
:class:`LineSession` to ``serve`` (the bot protocol, :mod:`bbspoker.bots.remote`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from bbspoker.config import Config
from bbspoker.transport.gateway import ConnectionLimits, TokenBucket

__all__ = ["LineSession", "LineListener", "start_lines"]

log = logging.getLogger(__name__)


class LineSession:
    """One program's connection: :meth:`read_line` and :meth:`send` lines; ``address`` is
    the peer's IP address; ``handle`` is set by whoever logs it in (then the per-address
    pre-login cap no longer counts it: :meth:`logged_in`)."""

    def __init__(self, config: Config, reader: asyncio.StreamReader,
                 writer: asyncio.StreamWriter, limits: ConnectionLimits, address: str,
                 clock: Callable[[], float]) -> None:
        self.config = config
        self.address = address
        self.handle: str | None = None
        self._reader, self._writer, self._limits = reader, writer, limits
        self._bucket = TokenBucket(config.input.rate_bytes_per_second,
                                   config.input.rate_burst_bytes, clock)
        self._closed = False

    @property
    def closed(self) -> bool:
        """True once the connection is closing or closed."""
        return self._closed or self._writer.is_closing()

    def logged_in(self, handle: str) -> None:
        """The program logged in as ``handle``."""
        if self.handle is None:
            self._limits.logged_in(self.address)
        self.handle = handle

    async def read_line(self, timeout: float | None = None) -> str | None:
        """The next line without its end (undecodable bytes become U+FFFD), or ``None``
        when the connection ended, a limit was broken (the program was told and is being
        disconnected) or ``timeout`` seconds passed without a line (then it is closed)."""
        if self.closed:
            return None
        try:
            async with asyncio.timeout(timeout):
                raw = await self._reader.readuntil(b"\n")
        except TimeoutError:
            self.close("9;idle;no message for too long: goodbye")
            return None
        except asyncio.LimitOverrunError:
            self.close(f"9;line_too_long;a line may have at most "
                       f"{self.config.input.max_line_bytes} bytes")
            return None
        except (asyncio.IncompleteReadError, ConnectionError):
            self.close()
            return None
        if not self._bucket.take(len(raw)):
            self.close("9;too_fast;input faster than the limit: goodbye")
            return None
        return raw.rstrip(b"\r\n").decode("utf-8", errors="replace")

    def send(self, line: str) -> None:
        """Queue one line (no line end inside; one is added). Never blocks or raises;
        a program whose unread output passes ``[output] backlog_bytes`` is disconnected."""
        if self.closed:
            return
        transport = self._writer.transport
        if transport.get_write_buffer_size() > self.config.output.backlog_bytes:
            log.info("bot port %s (%s): output backlog over the limit", self.address,
                     self.handle)
            self._closed = True
            transport.abort()
            return
        self._writer.write(line.replace("\n", " ").encode("utf-8") + b"\n")

    def close(self, last: str | None = None) -> None:
        """Send ``last`` (if any) and close once it is written."""
        if self.closed:
            return
        if last is not None:
            self.send(last)
        self._closed = True
        self._writer.close()

    async def drain(self) -> None:
        """Wait until the output is written, at most ``[output] drain_timeout`` s (then the
        connection is dropped)."""
        try:
            async with asyncio.timeout(self.config.output.drain_timeout):
                await self._writer.drain()
        except (TimeoutError, ConnectionError):
            self._writer.transport.abort()


class LineListener:
    """The listening socket of the line transport and its open sessions."""

    def __init__(self, server: asyncio.Server) -> None:
        self._server = server
        self.sessions: set[LineSession] = set()
        self.port: int = server.sockets[0].getsockname()[1]

    def close(self) -> None:
        """Stop listening and drop every connection."""
        self._server.close()
        for session in list(self.sessions):
            session.close("0;The BBS is shutting down. Goodbye!")

    async def wait_closed(self) -> None:
        """Wait until the socket is closed."""
        await self._server.wait_closed()


async def start_lines(config: Config, host: str, port: int, limits: ConnectionLimits,
                      serve: Callable[[LineSession], Awaitable[None]],
                      clock: Callable[[], float]) -> LineListener:
    """Listen on ``host``:``port`` (0: any free port); each connection within ``limits``
    runs ``serve(session)`` and is closed after it."""
    listener: LineListener

    async def connected(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        address = peer[0] if peer else "?"
        if not limits.admit(address):
            writer.write(b"9;busy;too many connections: try again later\n")
            with contextlib.suppress(ConnectionError):
                await writer.drain()
            writer.close()
            return
        session = LineSession(config, reader, writer, limits, address, clock)
        listener.sessions.add(session)
        try:
            await serve(session)
        except Exception:
            log.exception("bot port session %s (%s) failed", address, session.handle)
            session.close("9;failed;the server failed: goodbye")
        finally:
            listener.sessions.discard(session)
            limits.release(address, prelogin=session.handle is None)
            if not session.closed:
                session.close()
            with contextlib.suppress(ConnectionError):
                await session.drain()

    server = await asyncio.start_server(connected, host, port,
                                        limit=config.input.max_line_bytes)
    listener = LineListener(server)
    log.info("bot port listening on %s port %d", host, listener.port)
    return listener
