"""The RLOGIN door server (RFC 1282): BBSes hand their callers to the door over RLOGIN.

:func:`start_rlogin` listens on ``[rlogin] host``/``port``; each connection goes to the
door through :class:`~bbspoker.transport.gateway.Gate`, like telnet's and SSH's (the
total connection cap, the input rate limit, the session and its door). What RLOGIN adds
(docs/bbs.md, "RLOGIN door server"):

- **The login.** The client sends ``\\0client-user\\0server-user\\0terminal/speed\\0``
  (at most :data:`HELLO_MAX` bytes within :data:`HELLO_TIMEOUT` seconds); the server
  answers one zero byte and from then on the connection carries the caller's terminal.
  A refusal is the zero byte, one line and the close (rlogind's byte 1 instead of the
  zero would be shown by no client but as a glyph).
- **Systems.** The BBS is a ``[[bbs]]`` entry (:class:`~bbspoker.config.BbsSystem`),
  known by the address it connects from and by its tag in front of the server-user
  (``[EN]alice`` or ``ENalice``: ENiGMA's ``goldmine`` module sends exactly
  ``\\0alice\\0[EN]alice\\0/\\0``). A system with a ``secret`` must send it as the
  client-user (as Synchronet's rlogin carries a password); without one the client-user
  is the caller's name. The caller is the rest of the server-user (or, if empty, the
  client-user). A login from an address that no system lists, with an unknown tag,
  a wrong secret, from a banned system (``bbs ban``) or one whose ``max_nodes`` callers
  are all here is refused before any account is touched; each refusal is logged. A
  system's connections count in ``[server] max_connections`` but not in the
  per-address caps (its callers all come from its address): ``max_nodes`` caps them; a
  stranger's count in the per-address caps like any other until refused.
- **The caller** is the account ``alias@TAG`` (:meth:`RloginHost.bbs_caller`: made on
  the first visit), logged in without a password.
- **The terminal** field is ``TERM/SPEED``; TERM is a terminal type (empty: ``ansi``) or
  comma-separated items: one terminal type and ``key=value`` options ``xtrn=CODE`` (go
  straight to the table of id CODE, or the first table of game kind CODE), ``time=N``
  (minutes the caller has left on the BBS) and ``charset=cp437|utf-8``
  (:func:`parse_terminal`). Example: ``ansi-bbs,time=45,xtrn=holdem/38400``.
- **The window**: after its zero byte the server asks for the window size with the
  urgent byte 0x80 (TCP out-of-band data); a client that supports it answers in band
  ``\\xff\\xffss`` and rows, columns, x and y pixels (four 16-bit big-endian numbers),
  and again whenever its window changes; those 12 bytes are taken out of the input
  (:class:`WindowReports`). Until told, the window is 80x24.
- **The character set**: the terminal field's ``charset=``, else the system's
  ``charset``, else asked of the terminal (:data:`PROBE`): the cursor's column is
  reported before and after one box-drawing character sent in UTF-8 (three bytes); a
  terminal that moved one column decodes UTF-8, one that moved three is CP437. A
  terminal that does not answer within :data:`PROBE_TIMEOUT` seconds is CP437 if its
  kind is a BBS's (``ansi``, ``ansi-bbs``, ``syncterm``), else UTF-8.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import re
import socket
import struct
from collections import Counter
from dataclasses import dataclass
from typing import Any, Protocol

from bbspoker.config import BbsSystem
from bbspoker.door.i18n import N_
from bbspoker.transport.gateway import TOO_FAST, TOO_MANY, Gate, Host, InputRelay

__all__ = ["RloginHost", "RloginListener", "RloginLink", "CallerRefused", "TerminalField",
           "WindowReports", "parse_hello", "parse_terminal", "find_system", "start_rlogin",
           "HELLO_MAX", "HELLO_TIMEOUT", "PROBE", "PROBE_TIMEOUT", "WINDOW_REQUEST",
           "WINDOW_MAGIC", "BBS_KINDS"]

log = logging.getLogger("bbspoker.transport.rlogin")

#: The most bytes the client's login (its four zero-terminated parts) may take.
HELLO_MAX = 1024
#: Seconds the client has to send its login after connecting.
HELLO_TIMEOUT = 30.0
#: The urgent byte (TCP out-of-band) that asks the client for its window size.
WINDOW_REQUEST = b"\x80"
#: What starts the client's window-size report (then 8 bytes: rows, cols, x, y pixels).
WINDOW_MAGIC = b"\xff\xffss"
_REPORT = len(WINDOW_MAGIC) + 8
#: The character-set question: a cursor position report (CPR), one box-drawing
#: character in UTF-8 (3 bytes), another report, then the line is cleared again.
PROBE = "\r\x1b[6n\u2500\x1b[6n\r\x1b[K"
#: Seconds to wait for the terminal's two answers to :data:`PROBE`.
PROBE_TIMEOUT = 3.0
#: Terminal kinds that mean a BBS's caller: CP437 when the terminal does not say.
BBS_KINDS = frozenset({"", "ansi", "ansi-bbs", "syncterm", "pc-ansi", "cp437"})
_CPR = re.compile(rb"\x1b\[(\d{1,4});(\d{1,4})R")
_CODE = re.compile(r"[a-z0-9][a-z0-9_-]{0,23}")
_KIND = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,39}")
_CHARSETS = {"cp437": "cp437", "utf-8": "utf-8", "utf8": "utf-8"}

_UNKNOWN = N_("This door does not know your BBS. Please ask your sysop.")
_BANNED = N_("Your BBS is banned from this door: {reason}")
_FULL = N_("Every node of your BBS is in use here. Please try again later.")
_BAD_HELLO = N_("This is an RLOGIN door server: your client sent no valid login.")
_NO_NAME = N_("Your BBS sent no user name.")


class CallerRefused(Exception):
    """The server will not take this caller: ``message`` (an English message id marked
    with ``N_``, its ``{placeholders}`` filled from ``data``) says why, in one line."""

    def __init__(self, message: str, **data: Any) -> None:
        super().__init__(message)
        self.message, self.data = message, data


class RloginHost(Host, Protocol):
    """What the RLOGIN transport needs of the server beyond :class:`Host`."""

    def bbs_ban(self, tag: str) -> str | None:
        """Why the BBS ``tag`` is banned (``bbs ban``), or ``None``."""

    def bbs_caller(self, system: BbsSystem, alias: str) -> str:
        """The handle of the caller ``alias`` of ``system`` (``alias@TAG``; the account
        is made on the first visit). Raises :class:`CallerRefused` (an alias the handle
        rules refuse, the system's sign-ups of the day used up, the account banned ...)."""


@dataclass(frozen=True)
class TerminalField:
    """The RLOGIN terminal field, parsed (:func:`parse_terminal`): the terminal ``kind``
    (``"ansi"`` when none is given), ``speed`` (as sent, unused), ``xtrn`` (table id or
    game kind, lower case, or ``None``), ``minutes`` (the caller's time left, or
    ``None``), ``charset`` (``"cp437"``, ``"utf-8"`` or ``None``)."""

    kind: str = "ansi"
    speed: str = ""
    xtrn: str | None = None
    minutes: int | None = None
    charset: str | None = None


def parse_terminal(field: str) -> TerminalField:
    """Parse ``TERM/SPEED`` (see the module docstring). TERM is split at commas; an item
    ``key=value`` is an option (``xtrn``, ``time``, ``charset``; an unknown key or a bad
    value is logged and ignored), the other item is the terminal type. Never raises."""
    term, _, speed = field.rpartition("/") if "/" in field else (field, "", "")
    values = TerminalField(speed=speed[:16])
    kind = ""
    options: dict[str, Any] = {}
    for item in term.split(","):
        item = item.strip()
        if "=" not in item:
            if item and _KIND.fullmatch(item):
                kind = item.lower()
            continue
        key, _, value = item.partition("=")
        key, value = key.strip().lower(), value.strip()
        if key == "xtrn" and _CODE.fullmatch(value.lower()):
            options["xtrn"] = value.lower()
        elif key == "time" and value.isascii() and value.isdigit() and int(value) <= 24 * 60:
            options["minutes"] = int(value)
        elif key == "charset" and value.lower() in _CHARSETS:
            options["charset"] = _CHARSETS[value.lower()]
        else:
            log.info("rlogin terminal field: ignored %r", item[:40])
    return TerminalField(kind=kind or "ansi", speed=values.speed, **options)


def parse_hello(data: bytes) -> tuple[str, str, str] | None:
    """``(client-user, server-user, terminal)`` from the client's login
    ``\\0client\\0server\\0terminal\\0`` (decoded as UTF-8, undecodable bytes replaced), or
    ``None`` if ``data`` is not one (then the connection is refused)."""
    if not data.startswith(b"\0") or not data.endswith(b"\0"):
        return None
    parts = data[1:-1].split(b"\0")
    if len(parts) != 3:
        return None
    client, server, terminal = (p.decode("utf-8", "replace") for p in parts)
    return client, server, terminal


def find_system(systems: tuple[BbsSystem, ...], address: str,
                server_user: str) -> tuple[BbsSystem, str] | None:
    """The system that sent ``server_user`` from ``address``, and the rest of it (the
    caller's name): among the systems that list ``address``, the one whose tag starts
    ``server_user`` in brackets (``[EN]alice``) or without (``ENalice``; the longest tag
    first), compared without regard to case. ``None`` if there is none."""
    listing = [s for s in systems if s.admits(address)]
    text = server_user.strip()
    if text.startswith("["):
        tag, sep, rest = text[1:].partition("]")
        if sep:
            for system in listing:
                if system.tag.lower() == tag.lower():
                    return system, rest.strip()
        return None
    for system in sorted(listing, key=lambda s: -len(s.tag)):
        if text.lower().startswith(system.tag.lower()):
            return system, text[len(system.tag):].strip()
    return None


class WindowReports:
    """The in-band window-size reports of an RLOGIN client taken out of its input:
    :meth:`feed` returns the input without them and the sizes reported, ``(cols,
    rows)`` each. A report split across chunks is held until its end comes (so is a
    chunk's last byte 0xFF, which may begin one)."""

    def __init__(self) -> None:
        self._held = b""

    def feed(self, data: bytes) -> tuple[bytes, list[tuple[int, int]]]:
        """``(input without reports, [(cols, rows), ...])`` for the next chunk."""
        data = self._held + data
        self._held = b""
        out = bytearray()
        sizes: list[tuple[int, int]] = []
        i = 0
        while True:
            j = data.find(WINDOW_MAGIC, i)
            if j < 0:
                tail = next((n for n in range(len(WINDOW_MAGIC) - 1, 0, -1)
                             if data.endswith(WINDOW_MAGIC[:n])), 0)
                end = len(data) - tail
                out += data[i:end]
                self._held = data[end:]
                break
            out += data[i:j]
            if len(data) - j < _REPORT:
                self._held = data[j:]
                break
            rows, cols, _, _ = struct.unpack(">4H", data[j + 4:j + _REPORT])
            sizes.append((cols, rows))
            i = j + _REPORT
        return bytes(out), sizes


class RloginLink(InputRelay):
    """A connection as a session's link (:class:`bbspoker.transport.gateway.Link`):
    input fed by the protocol, output written to the socket, ``drain`` waiting while
    asyncio has paused writing."""

    def __init__(self, transport: asyncio.Transport) -> None:
        super().__init__()
        self._transport = transport
        self._paused = False
        self._resumed: asyncio.Future[None] | None = None

    def _input_ended(self) -> None:
        self.resume()

    @property
    def transport(self) -> asyncio.Transport | None:
        """The socket's transport while open, ``None`` once closing."""
        return None if self._transport.is_closing() else self._transport

    def write(self, data: bytes) -> None:
        """Send ``data`` (dropped once the connection is closing)."""
        if not self._transport.is_closing():
            self._transport.write(data)

    def pause(self) -> None:
        """asyncio paused writing (too much unsent)."""
        self._paused = True

    def resume(self) -> None:
        """asyncio resumed writing (or the connection ended): wake :meth:`drain`."""
        self._paused = False
        if self._resumed is not None and not self._resumed.done():
            self._resumed.set_result(None)

    async def drain(self) -> None:
        """Wait while writing is paused; raises ``ConnectionResetError`` once closed."""
        while self._paused and not self._ended:
            self._resumed = asyncio.get_running_loop().create_future()
            await self._resumed
        if self._transport.is_closing():
            raise ConnectionResetError("RLOGIN connection closed")

    def close(self) -> None:
        """Close the connection once what was written is sent."""
        self._transport.close()


class _RloginProtocol(asyncio.Protocol):
    """One RLOGIN connection: its login, its window reports, its door."""

    host: RloginHost
    listener: RloginListener

    def __init__(self) -> None:
        self.gate = Gate(self.host, "-", "rlogin", per_address=False)
        self._transport: asyncio.Transport | None = None
        self._phase = "hello"          # hello, probe, door, closed
        self._buffer = bytearray()
        self._timer: asyncio.TimerHandle | None = None
        self._windows = WindowReports()
        self._size = (80, 24)
        self._node: str | None = None
        self._link: RloginLink | None = None
        self._probe: asyncio.Future[str | None] | None = None
        self._task: asyncio.Task[None] | None = None
        self._listed = False

    # connection
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport
        peer = transport.get_extra_info("peername") or ("-",)
        self.gate.address = str(peer[0])
        self.listener.connections.add(self)
        # A stranger's connection counts in the per-address caps until it is refused.
        self._listed = any(s.admits(self.gate.address) for s in self.host.config.bbs)
        self.gate.per_address = not self._listed
        if not self.gate.admit():
            self._refuse(TOO_MANY)
            return
        self._timer = asyncio.get_running_loop().call_later(
            self.listener.hello_timeout, self._hello_timed_out)

    def connection_lost(self, exc: Exception | None) -> None:
        self._phase = "closed"
        if self._timer is not None:
            self._timer.cancel()
        if self._probe is not None and not self._probe.done():
            self._probe.set_result(None)
        if self._node is not None:
            self.listener.nodes[self._node] -= 1
            if self.listener.nodes[self._node] <= 0:
                del self.listener.nodes[self._node]
            self._node = None
        self.listener.connections.discard(self)
        if self._link is not None:
            self._link.end(exc)
        self.gate.release()

    def pause_writing(self) -> None:
        if self._link is not None:
            self._link.pause()

    def resume_writing(self) -> None:
        if self._link is not None:
            self._link.resume()

    def _refuse(self, message: str, **data: Any) -> None:
        """Refuse the connection: the zero byte, one line (``message``, a message id, in
        ``[i18n] default``) and the close. Not rlogind's byte 1: Debian's rlogin client
        then shows nothing but its own error, and a BBS that pipes the connection to its
        caller would show the byte as a glyph; after the zero byte every client shows
        the line to the caller."""
        self._phase = "closed"
        assert self._transport is not None
        line = self.gate.text(message, **data)
        self._transport.write(b"\0\r\n" + line.encode() + b"\r\n")
        self._transport.close()

    def _hello_timed_out(self) -> None:
        if self._phase == "hello":
            log.info("rlogin connection from %s sent no login in %g s", self.gate.address,
                     self.listener.hello_timeout)
            self._refuse(_BAD_HELLO)

    # input
    def data_received(self, data: bytes) -> None:
        if self._phase == "closed":
            return
        if not self.gate.take(len(data)):
            self._cut_off(TOO_FAST)
            return
        if self._phase == "hello":
            self._buffer += data
            if self._buffer.count(0) >= 4 or len(self._buffer) > HELLO_MAX:
                self._hello(bytes(self._buffer))
            return
        self._after_hello(data)

    def _cut_off(self, message: str) -> None:
        self._phase = "closed"
        if not self.gate.end(message):
            assert self._transport is not None
            self._transport.write(b"\r\n" + self.gate.text(message).encode() + b"\r\n")
            self._transport.close()

    def _resize(self, cols: int, rows: int) -> None:
        if self.gate.session is not None:
            self.gate.session.resize(cols, rows)
        else:
            self._size = cols or self._size[0], rows or self._size[1]

    # the login
    def _hello(self, data: bytes) -> None:
        address = self.gate.address
        end = 0
        for _ in range(4):
            end = data.find(b"\0", end) + 1
        hello = parse_hello(data[:end]) if end > 0 else None
        rest = data[end:] if end > 0 else b""
        if self._timer is not None:
            self._timer.cancel()
        if hello is None:
            log.warning("refused rlogin connection from %s: not an RLOGIN login", address)
            self._refuse(_BAD_HELLO)
            return
        client_user, server_user, terminal = hello
        if not self._listed:
            log.warning("refused rlogin connection from %s: no [[bbs]] system lists this "
                        "address", address)
            self._refuse(_UNKNOWN)
            return
        found = find_system(self.host.config.bbs, address, server_user)
        if found is None:
            log.warning("refused rlogin connection from %s: no system of this address has "
                        "the tag of %r", address, server_user[:40])
            self._refuse(_UNKNOWN)
            return
        system, alias = found
        if system.secret:
            if not hmac.compare_digest(client_user.encode(), system.secret.encode()):
                log.warning("refused rlogin connection from %s for %s: wrong secret",
                            address, system.tag)
                self._refuse(_UNKNOWN)
                return
        elif not alias:
            alias = client_user.strip()
        banned = self.host.bbs_ban(system.tag)
        if banned is not None:
            log.warning("refused rlogin connection from %s: %s is banned", address, system.tag)
            self._refuse(_BANNED, reason=banned)
            return
        if self.listener.nodes[system.tag] >= system.max_nodes:
            log.warning("refused rlogin connection from %s: all %d nodes of %s in use",
                        address, system.max_nodes, system.tag)
            self._refuse(_FULL)
            return
        if not alias:
            log.warning("refused rlogin connection from %s for %s: no user name", address,
                        system.tag)
            self._refuse(_NO_NAME)
            return
        try:
            handle = self.host.bbs_caller(system, alias)
        except CallerRefused as refused:
            log.warning("refused rlogin caller %r of %s from %s: %s", alias[:40], system.tag,
                        address, refused.message.format(**refused.data))
            self._refuse(refused.message, **refused.data)
            return
        self._node = system.tag
        self.listener.nodes[system.tag] += 1
        field = parse_terminal(terminal)
        log.info("rlogin caller %s of %s from %s: terminal %r", handle, system.tag, address,
                 terminal[:80])
        assert self._transport is not None
        self._link = RloginLink(self._transport)
        self._transport.write(b"\0")
        self._ask_window()
        charset = field.charset or system.charset or None
        self._buffer = bytearray()
        self._phase = "probe" if charset is None else "door"
        if charset is None:
            self._probe = asyncio.get_running_loop().create_future()
            self._transport.write(PROBE.encode())
        self._task = asyncio.create_task(self._run(handle, field, charset),
                                         name=f"rlogin {address}")
        self.listener.tasks.add(self._task)
        self._task.add_done_callback(self.listener.tasks.discard)
        if rest:
            self._after_hello(rest)

    def _after_hello(self, data: bytes) -> None:
        """Input after the login (charged to the rate limit): window reports taken out,
        the rest to the character-set question or the session."""
        data, sizes = self._windows.feed(data)
        for cols, rows in sizes:
            self._resize(cols, rows)
        if self._phase == "probe":
            self._buffer += data
            self._look_for_answers()
        elif data and self._link is not None:
            self._link.feed(data)

    def _ask_window(self) -> None:
        """Send the urgent byte 0x80: a client that can answers with its window size."""
        assert self._transport is not None
        sock = self._transport.get_extra_info("socket")
        if sock is None:
            return
        try:
            with socket.socket(fileno=sock.fileno()) as raw:
                try:
                    raw.send(WINDOW_REQUEST, socket.MSG_OOB)
                finally:
                    raw.detach()
        except OSError as exc:
            log.info("rlogin connection from %s: window size not asked: %s", self.gate.address,
                     exc)

    def _look_for_answers(self) -> None:
        """During the character-set question: two cursor position reports decide it; the
        rest of what was typed goes to the session."""
        answers = list(_CPR.finditer(self._buffer))
        if len(answers) < 2 or self._probe is None or self._probe.done():
            if len(self._buffer) > 256:        # no answer among all that: typing
                self._end_probe(None)
            return
        moved = int(answers[1].group(2)) - int(answers[0].group(2))
        self._buffer = bytearray(_CPR.sub(b"", bytes(self._buffer), count=2))
        self._end_probe("utf-8" if moved == 1 else "cp437")

    def _end_probe(self, charset: str | None) -> None:
        if self._probe is not None and not self._probe.done():
            self._probe.set_result(charset)

    async def _run(self, handle: str, field: TerminalField, charset: str | None) -> None:
        """The door for the caller ``handle`` (after the character-set question, if one
        was asked)."""
        try:
            if charset is None and self._probe is not None:
                try:
                    async with asyncio.timeout(self.listener.probe_timeout):
                        charset = await self._probe
                except TimeoutError:
                    charset = None
                if charset is None:
                    charset = "cp437" if field.kind in BBS_KINDS else "utf-8"
                    log.info("rlogin caller %s: no answer about the character set: %s",
                             handle, charset)
                held, self._buffer = bytes(self._buffer), bytearray()
                if self._phase == "closed":
                    return
                self._phase = "door"
                if held and self._link is not None:
                    self._link.feed(held)
            assert self._link is not None
            minutes = field.minutes
            await self.gate.serve(self._link, self._link, kind=field.kind, cols=self._size[0],
                                  rows=self._size[1], authenticated=handle, encoding=charset,
                                  xtrn=field.xtrn,
                                  time_left=None if minutes is None else minutes * 60.0)
        finally:
            if self._transport is not None:
                self._transport.close()

    def close(self) -> None:
        """Drop the connection at once."""
        if self._transport is not None:
            self._transport.abort()


class RloginListener:
    """The listening RLOGIN port (from :func:`start_rlogin`): ``port`` is the TCP port;
    ``nodes`` the callers of each system here now (by tag); the open connections and
    their door tasks. ``hello_timeout`` and ``probe_timeout`` (seconds) are
    :data:`HELLO_TIMEOUT` and :data:`PROBE_TIMEOUT` unless a test sets them."""

    def __init__(self, server: asyncio.Server) -> None:
        self._server = server
        self.port: int = server.sockets[0].getsockname()[1]
        self.nodes: Counter[str] = Counter()
        self.connections: set[_RloginProtocol] = set()
        self.tasks: set[asyncio.Task[None]] = set()
        self.hello_timeout = HELLO_TIMEOUT
        self.probe_timeout = PROBE_TIMEOUT

    def stop_accepting(self) -> None:
        """Close the listening socket; connections already open go on."""
        self._server.close()

    def close(self) -> None:
        """Stop accepting and drop every connection."""
        self._server.close()
        for conn in list(self.connections):
            conn.close()

    async def wait_closed(self) -> None:
        """Wait until the socket is closed and every door task has ended."""
        await self._server.wait_closed()
        if self.tasks:
            await asyncio.gather(*self.tasks, return_exceptions=True)


async def start_rlogin(host: RloginHost) -> RloginListener:
    """Listen on ``host.config.rlogin.host``/``port`` (0: any free port) and serve each
    BBS caller's door through ``host``. Returns the :class:`RloginListener`. Raises
    ``OSError`` if the port cannot be bound."""
    config = host.config

    class Protocol(_RloginProtocol):
        pass

    Protocol.host = host
    loop = asyncio.get_running_loop()
    server = await loop.create_server(Protocol, config.rlogin.host, config.rlogin.port)
    listener = RloginListener(server)
    Protocol.listener = listener
    log.info("rlogin listening on %s port %d (%d BBS systems)", config.rlogin.host,
             listener.port, len(config.bbs))
    return listener
