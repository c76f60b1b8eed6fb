"""The telnet transport: telnetlib3 settings, connection limits, terminals by TTYPE.

:func:`start_telnet` listens for the composition root (:mod:`bbspoker.app`) and hands
each negotiated connection, as a :class:`~bbspoker.transport.session.Session`, to the
host's door. telnetlib3 settings, chosen on purpose (see ``docs/architecture.md``):

- ``encoding=False``: the reader and writer carry bytes. Each session decodes
  its input itself with ``errors="replace"`` (a 0xFF byte or invalid UTF-8
  never raises) and encodes its output (UTF-8, or CP437 for BBS terminals).
- ``force_binary=True``: most BBS clients never agree to BINARY; we send
  8-bit output anyway, as BBS servers do.
- ``connect_maxwait=CONNECT_MAXWAIT``: a client that never answers option
  negotiation gets the door after this many seconds, with 80x24 and kind
  ``ansi``.
- ``timeout=0`` (telnetlib3's idle timer off): it restarts on any byte,
  telnet NOPs included, so it cannot enforce anything; the door's own
  pre-login and lobby idle timeouts (``[server]``) do the job.
- ``limit=READER_LIMIT`` plus ``reader.set_transport()``: telnetlib3 never
  pauses the socket on its own; with the transport attached its
  reader pauses reading past ``2 * limit`` buffered bytes, so a flood during
  option negotiation costs at most a few KiB per connection. Once the session
  starts, our :class:`DoorReader` hands it every chunk as it comes (no
  buffering): the session's bounded type-ahead and the input rate limit bound
  memory then.
- Character mode: telnetlib3's default ("kludge") mode sends ``WILL SGA`` and
  ``WILL ECHO`` and asks ``DO TTYPE``, ``DO NAWS``; the door echoes what it
  wants shown (passwords are never echoed). Our :class:`DoorWriter` turns
  telnetlib3's simulation of LINEMODE's special characters off: the door
  takes ^C, DEL and the like as keys, and telnetlib3 only looks for IAC.

Our protocol subclass adds: the per-address and total connection caps, the
input rate limit (a token bucket on raw bytes, before telnetlib3 parses
them, so a subnegotiation flood is cut off too), the cap on one
subnegotiation (``[input] subnegotiation_bytes``: telnetlib3 keeps up to
1 MiB of one, ~8.25 bytes of memory per byte, so a trickle slower than the
rate limit that never sends ``IAC SE`` held memory for as long as the
connection lived; past the cap the connection ends and the bytes are freed),
NAWS forwarding to the session (overriding ``on_naws`` keeps telnetlib3's own
size values current), and waking pending ``drain()`` calls when the
connection is lost.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from typing import Any, cast

import telnetlib3
from telnetlib3.telopt import DO, IAC, NAWS, SB, TTYPE

from bbspoker.door.i18n import N_
from bbspoker.transport.gateway import (CP437_KINDS, DECSTBM_KINDS, FALLBACK_KIND, TOO_FAST,
                                        TOO_MANY, ConnectionLimits, Gate, Host, TokenBucket,
                                        terminal_for)

# Host, TokenBucket, ConnectionLimits, terminal_for, FALLBACK_KIND and CP437_KINDS live in
# bbspoker.transport.gateway (every transport's); they are named here as before.
__all__ = ["Host", "TelnetListener", "DoorReader", "DoorWriter", "TokenBucket", "ConnectionLimits",
           "start_telnet", "terminal_for", "scrub_styling_environment", "CONNECT_MAXWAIT",
           "READER_LIMIT", "FALLBACK_KIND", "CP437_KINDS", "DECSTBM_KINDS", "STYLING_ENV"]

log = logging.getLogger("bbspoker.transport.telnet")

#: Seconds to wait for a client's answers to option negotiation before starting anyway.
CONNECT_MAXWAIT = 1.5
#: telnetlib3 reader limit (bytes); the socket pauses past twice this much unread input.
READER_LIMIT = 4096
#: The options whose answers the door waits for (at most :data:`CONNECT_MAXWAIT`):
#: the terminal type (asked, then its subnegotiation) and the window size.
_DOOR_OPTIONS = (DO + TTYPE, SB + TTYPE, DO + NAWS)
#: Environment variables that would make blessed drop or change our escape sequences.
STYLING_ENV = ("NO_COLOR", "FORCE_COLOR", "CLICOLOR_FORCE")
def scrub_styling_environment() -> None:
    """Remove ``NO_COLOR``, ``FORCE_COLOR`` and ``CLICOLOR_FORCE`` from the process
    environment: with ``NO_COLOR`` set blessed returns ``""`` for every sequence, cursor
    moves included (terminal notes); colour is ours to choose."""
    for name in STYLING_ENV:
        os.environ.pop(name, None)


class TelnetListener:
    """A listening telnet port (from :func:`start_telnet`): ``port`` is the TCP port."""

    def __init__(self, telnet: telnetlib3.Server) -> None:
        self._telnet = telnet
        sockets = telnet.sockets
        assert sockets is not None          # create_server returns it listening
        self.port: int = sockets[0].getsockname()[1]
        self._forget_task = asyncio.create_task(self._forget_clients(), name="forget clients")

    async def _forget_clients(self) -> None:
        """telnetlib3 queues each negotiated connection for ``wait_for_client()`` and keeps
        the last 1,000 (with their buffers) for a caller that never comes here: take them
        as they come, so that a closed connection leaves nothing behind."""
        while True:
            await self._telnet.wait_for_client()

    def stop_accepting(self) -> None:
        """Close the listening socket; connections already open go on."""
        server = self._telnet._server
        assert server is not None           # create_server returns it listening
        server.close()

    def close(self) -> None:
        """Stop accepting and close telnetlib3's server."""
        self._telnet.close()
        self._forget_task.cancel()

    async def wait_closed(self) -> None:
        """Wait until the listening socket is closed."""
        await self._telnet.wait_closed()
        await asyncio.gather(self._forget_task, return_exceptions=True)


async def start_telnet(host: Host) -> TelnetListener:
    """Listen on ``host.config.server.host``/``port`` (0: any free port) and serve each
    connection's door through ``host``. Returns the :class:`TelnetListener`."""
    scrub_styling_environment()
    config = host.config

    class Protocol(_DoorProtocol):
        pass

    Protocol.host = host
    telnet = await telnetlib3.create_server(
        host=config.server.host, port=config.server.port, protocol_factory=Protocol,
        shell=_shell, encoding=False, force_binary=True, connect_maxwait=CONNECT_MAXWAIT,
        timeout=0, limit=READER_LIMIT, cols=80, rows=24, term=FALLBACK_KIND)
    listener = TelnetListener(telnet)
    log.info("telnet listening on %s port %d", config.server.host, listener.port)
    return listener


class DoorReader(telnetlib3.TelnetReader):
    """telnetlib3's reader of in-band bytes that hands them over as they come.

    Until :meth:`consume` is called it buffers like its base class (keys typed
    during option negotiation). After, each chunk goes to ``on_data`` inside the
    protocol's ``data_received``, so a key reaches the session in the event-loop
    turn it arrived, with no task to wake (which would add latency); the end of input
    goes to ``on_end``: ``None`` for EOF, the exception for a lost connection.
    """

    _on_data: Callable[[bytes], None] | None = None
    _on_end: Callable[[Exception | None], None] | None = None

    def consume(self, on_data: Callable[[bytes], None],
                on_end: Callable[[Exception | None], None]) -> None:
        """Hand what is buffered, then every later chunk, to ``on_data``; the end of input
        (now, if it already came) to ``on_end``. Called once."""
        self._on_data, self._on_end = on_data, on_end
        if self._buffer:
            data = bytes(self._buffer)
            self._buffer.clear()
            self._maybe_resume_transport()
            on_data(data)
        if self._eof or self.exception() is not None:
            on_end(self.exception())

    def feed_data(self, data: bytes) -> None:
        """telnetlib3's protocol: in-band bytes arrived."""
        if self._on_data is None:
            super().feed_data(data)
        elif data:
            self._on_data(data)

    def feed_eof(self) -> None:
        """telnetlib3's protocol: the connection was closed."""
        super().feed_eof()
        if self._on_end is not None:
            self._on_end(None)

    def set_exception(self, exc: Exception) -> None:
        """telnetlib3's protocol: the connection was lost with ``exc``."""
        super().set_exception(exc)
        if self._on_end is not None:
            self._on_end(exc)


class DoorWriter(telnetlib3.TelnetWriter):
    """telnetlib3's writer (and IAC interpreter) without SLC simulation, with a cap on
    the length of one subnegotiation.

    telnetlib3 simulates the special line characters of the LINEMODE option
    (RFC 1184: ^C interrupt, ^O abort output, DEL erase character ...) for
    clients in character ("kludge") mode: it scans each input chunk byte by
    byte for them and calls a handler for each, which only logs. The door
    edits its own lines and takes every such byte as a key, so the scan is off:
    telnetlib3 then only looks for IAC, with ``bytes.find`` (less latency per key).

    Between ``IAC SB`` and ``IAC SE`` telnetlib3 parses each byte in Python and
    keeps it in a deque of one-byte objects (~8.25 bytes of memory per byte),
    up to 1 MiB. Past :attr:`sb_limit` bytes (the option byte included, an
    escaped ``IAC IAC`` counted once) the subnegotiation is freed,
    :attr:`sb_exceeded` is set and every later byte is ignored: the protocol
    then ends the connection.
    """

    slc_simulated = False
    #: Bytes one subnegotiation may hold (the protocol sets it from the config).
    sb_limit: int = 4096
    #: A subnegotiation went past :attr:`sb_limit`: nothing more is parsed.
    sb_exceeded: bool = False

    @property
    def in_subnegotiation(self) -> bool:
        """Whether the next byte, unless it is IAC, is one more byte of a subnegotiation."""
        return self.cmd_received == SB and not self.iac_received

    @property
    def sb_room(self) -> int:
        """Bytes the current subnegotiation may still take (0 outside one)."""
        return self.sb_limit - len(self._sb_buffer) if self.in_subnegotiation else 0

    def feed_byte(self, byte: bytes) -> bool:
        """telnetlib3's IAC interpreter, one byte (``bytes`` of length 1) at a time:
        ``True`` if the byte is in band. Nothing is parsed once :attr:`sb_exceeded`."""
        if self.sb_exceeded:
            return False
        in_band = super().feed_byte(byte)
        if len(self._sb_buffer) > self.sb_limit:
            self.drop_subnegotiation()
        return in_band

    def write(self, data: bytes) -> None:
        """telnetlib3's write of in-band bytes (each IAC doubled) in one call instead of
        four: the door writes once per screen update, to every screen at the table.
        Nothing after the connection closed."""
        transport = self._transport
        if self._connection_closed or transport is None or transport.is_closing():
            return
        if b"\xff" in data:
            data = data.replace(b"\xff", b"\xff\xff")
        transport.write(data)
        if hasattr(self._protocol, "_tx_bytes"):       # telnetlib3's count of bytes sent
            self._protocol._tx_bytes += len(data)

    def _handle_sb_mccp3(self, buf: Any) -> None:
        """``IAC SB MCCP3 IAC SE`` from a client: ignored. telnetlib3 would inflate all of
        the client's later input (8 KiB on the wire became 8 MiB at once, past the rate
        limit), though the server never offered compression."""
        log.info("client-to-server compression (MCCP3) asked for unoffered: ignored")

    def _handle_sb_mccp2(self, buf: Any) -> None:
        """``IAC SB MCCP2 IAC SE`` from a client: ignored (MCCP2 compresses what a server
        sends; telnetlib3 would drop the rest of the client's packet as compressed)."""
        log.info("server-to-client compression (MCCP2) sent by a client: ignored")

    def drop_subnegotiation(self) -> None:
        """Free the subnegotiation held so far and stop parsing (:attr:`sb_exceeded`)."""
        self.sb_exceeded = True
        self._sb_buffer.clear()


class _DoorProtocol(telnetlib3.TelnetServer):
    """telnetlib3's server protocol plus the door's limits (see the module docstring)."""

    host: Host

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(reader_factory=DoorReader, writer_factory=DoorWriter, **kwargs)
        self.gate = Gate(self.host, "-", "telnet")
        self._refused = False

    @property
    def address(self) -> str:
        """The peer's IP address (``"-"`` until connected)."""
        return self.gate.address

    @property
    def session(self) -> Any:
        """The running :class:`~bbspoker.transport.session.Session`, else ``None``."""
        return self.gate.session

    @property
    def door_writer(self) -> DoorWriter:
        """The connection's writer, a :class:`DoorWriter` (our ``writer_factory``), from
        ``connection_made`` on."""
        return cast(DoorWriter, self.writer)

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        cast(DoorReader, self.reader).set_transport(transport)
        self.door_writer.sb_limit = self.host.config.input.subnegotiation_bytes
        peer = transport.get_extra_info("peername") or ("-",)
        self.gate.address = str(peer[0])
        if not self.gate.admit():
            self._refused = True
            cast(asyncio.WriteTransport, transport).write(
                f"\r\n{self.gate.text(TOO_MANY)}\r\n".encode())
            transport.close()

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return
        if not self.gate.take(len(data)):
            self._disconnect(TOO_FAST)
            return
        writer = self.door_writer
        if writer.in_subnegotiation and self._mccp3_decompressor is None:
            # The bytes up to the next IAC all go into the open subnegotiation: if they
            # do not fit, cut it now instead of parsing them one by one in Python.
            end = data.find(IAC)
            if (len(data) if end < 0 else end) > writer.sb_room:
                writer.drop_subnegotiation()
        if not writer.sb_exceeded:
            super().data_received(data)
        if writer.sb_exceeded:
            log.warning("telnet subnegotiation from %s longer than %d bytes: disconnecting",
                        self.address, writer.sb_limit)
            self._disconnect(N_("Telnet subnegotiation longer than {n} bytes: disconnected."),
                             n=writer.sb_limit)

    def _disconnect(self, message: str, **data: Any) -> None:
        """End the connection with ``message`` (a message id with ``data`` for its
        placeholders, in the session's language: :meth:`Gate.text`; one line) and ignore
        later input."""
        self._refused = True
        if not self.gate.end(message, **data):
            self.door_writer.write(f"\r\n{self.gate.text(message, **data)}\r\n".encode())
            self.door_writer.close()

    def check_negotiation(self, final: bool = False) -> bool:
        """telnetlib3's question whether option negotiation is over: yes once every
        option asked for is answered, or once the client has answered the two the door
        needs, TTYPE (the whole cycle of terminal types) and NAWS. A BBS's telnet bridge
        answers those two and none of the others (ECHO, SGA, BINARY, NEW-ENVIRON): the
        door then starts at once instead of after :data:`CONNECT_MAXWAIT`."""
        done = super().check_negotiation(final)
        if done or not self._advanced:
            return done
        pending = self.door_writer.pending_option
        return not any(pending.get(option) for option in _DOOR_OPTIONS)

    def on_naws(self, rows: int, cols: int) -> None:
        super().on_naws(rows, cols)
        if self.session is not None:
            self.session.resize(cols, rows)

    def connection_lost(self, exc: Exception | None) -> None:
        first = not self._closing
        super().connection_lost(exc)
        # BaseServer does not call FlowControlMixin's connection_lost: without
        # this a drain() waiting on a paused socket would never wake up.
        asyncio.streams.FlowControlMixin.connection_lost(self, exc)
        if self.writer is not None:
            self.writer._sb_buffer.clear()   # telnetlib3 keeps its writer after close
        if first:
            self.gate.release()


async def _shell(reader: Any, writer: Any) -> None:
    """telnetlib3's shell: one connection's life after option negotiation."""
    protocol: _DoorProtocol = writer.protocol
    if protocol is None or protocol._refused:
        return
    await protocol.gate.serve(reader, writer, kind=writer.get_extra_info("TERM"),
                              cols=writer.get_extra_info("cols") or 80,
                              rows=writer.get_extra_info("rows") or 24)
