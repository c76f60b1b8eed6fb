"""The drop-file door: a BBS on the same machine runs ``bbspoker door DROPFILE`` for its
caller, and the caller's terminal is relayed to the running server's RLOGIN port as
that BBS's user (docs/bbs.md, "The drop-file door").

- **The drop file** (:func:`read_drop_file`) says who the caller is and how long they
  may stay: DOOR32.SYS (11 lines: comm type, comm handle, baud, BBS id, user record,
  real name, alias, security level, minutes left, emulation, node), DOOR.SYS (52 lines:
  the alias on line 36, else the name on line 10; minutes left line 19, graphics line
  20, screen length line 21), DORINFOn.DEF (13 lines: the caller's first and last name
  on lines 7 and 8, emulation line 10, minutes left line 12) and WWIV's CHAIN.TXT (the
  alias on line 2, screen width and length lines 9 and 10, ANSI line 14, seconds left
  line 16). The kind is known by the file's name, in any case (Synchronet and
  ENiGMA write ``door32.sys`` in lower case); lines end in CRLF or LF; the text is
  CP437. A missing, short or malformed file raises :class:`DropFileError` with one line
  naming the file, the line and what is wrong.
- **The caller's connection** (:class:`Caller`) comes one of three ways: standard
  input and output (a pseudo-terminal in cooked mode, as Synchronet's "Standard I/O",
  Mystic and ENiGMA's ``io: stdio`` give it: the door puts it in raw mode and restores
  it on exit), a socket descriptor the door inherits (DOOR32.SYS comm type 2 and its
  handle: a telnet connection, so telnet commands are taken out of the input, a NAWS
  report resizes the window and the byte 0xFF is doubled in the output), or a port to
  connect back to (ENiGMA's ``io: socket``, raw bytes).
- **The relay** (:func:`run_door`): the RLOGIN login ``\\0SECRET\\0[TAG]alias\\0TERM,
  time=MINUTES[,charset=C]/SPEED\\0`` (without a secret the client-user is the alias),
  the server's zero byte, the window size (RLOGIN's in-band report) when known, and
  then bytes both ways until one side ends. A caller who drops is signalled with
  SIGHUP (or SIGTERM), without an end of input first: the door then closes the RLOGIN
  connection at once, and the server takes it as a lost connection. When the server
  ends the session (the caller quit, their time is up) the door exits.

The module is the BBS's side of the door: it uses the standard library only and imports
nothing of the server.
"""

from __future__ import annotations

import errno
import fcntl
import os
import re
import select
import signal
import socket
import struct
import termios
import tty
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["DropFile", "DropFileError", "DoorError", "Caller", "TelnetFilter",
           "read_drop_file", "find_drop_file", "rlogin_hello", "window_report", "run_door",
           "DROP_FILE_NAMES", "MAX_MINUTES", "CONNECT_TIMEOUT"]

#: The drop files the door reads, in the order it looks for them in a directory.
DROP_FILE_NAMES = ("door32.sys", "door.sys", "dorinfo1.def", "chain.txt")
#: The most minutes passed to the server (``time=`` takes 0-1440).
MAX_MINUTES = 24 * 60
#: Seconds to wait for the server's answer to the login.
CONNECT_TIMEOUT = 30.0
_WINDOW_MAGIC = b"\xff\xffss"
_DORINFO = re.compile(r"dorinfo[0-9a-z]\.def")
_IAC, _SB, _SE, _WILL, _WONT, _DO, _DONT, _NAWS = 255, 250, 240, 251, 252, 253, 254, 31


class DropFileError(ValueError):
    """The drop file cannot be used; the message is one line naming the file and why."""


class DoorError(RuntimeError):
    """The door cannot reach the caller or the server; the message is one line."""


@dataclass(frozen=True)
class DropFile:
    """What the door takes from a drop file. ``kind``: ``"DOOR32.SYS"``, ``"DOOR.SYS"``,
    ``"DORINFO.DEF"`` or ``"CHAIN.TXT"``; ``alias``: the caller's name on the BBS;
    ``minutes``: minutes left on the BBS (at most :data:`MAX_MINUTES`); ``ansi``: the
    caller has ANSI graphics; ``cols``/``rows``: the window if the file says (else
    ``None``); ``comm_type``/``handle``: DOOR32.SYS's lines 1 and 2 (0 local, 1 serial,
    2 telnet; the socket descriptor or -1), ``None`` for the other kinds."""

    kind: str
    alias: str
    minutes: int
    ansi: bool = True
    cols: int | None = None
    rows: int | None = None
    comm_type: int | None = None
    handle: int | None = None


def _lines(path: Path, data: bytes) -> list[str]:
    text = data.decode("cp437").rstrip("\x1a")            # a DOS end-of-file mark
    lines = re.split(r"\r?\n", text)
    if lines and lines[-1] == "":
        lines.pop()
    return [line.rstrip("\r") for line in lines]


class _Reader:
    """Lines of one drop file, with errors that name the file and the line."""

    def __init__(self, path: Path, lines: list[str], kind: str, needed: int) -> None:
        self.name, self.lines, self.kind = path.name, lines, kind
        if len(lines) < needed:
            raise DropFileError(f"{path}: truncated: {len(lines)} lines, {kind} has "
                                f"{needed} or more")

    def text(self, n: int) -> str:
        """Line ``n`` (1-based), stripped."""
        return self.lines[n - 1].strip()

    def number(self, n: int, what: str, low: int | None = None) -> int:
        """Line ``n`` as a whole number; ``DropFileError`` if it is none or below ``low``."""
        value = self.text(n)
        if not re.fullmatch(r"-?\d{1,9}", value) or (low is not None and int(value) < low):
            raise DropFileError(f"{self.name}: line {n} ({what}) is not a valid number: "
                                f"{value[:20]!r}")
        return int(value)

    def name_at(self, n: int, what: str) -> str:
        """Line ``n`` as a name; ``DropFileError`` if empty."""
        value = "".join(ch for ch in self.text(n) if ch.isprintable())
        if not value:
            raise DropFileError(f"{self.name}: line {n} ({what}) is empty")
        return value


def _minutes(value: int) -> int:
    return max(0, min(value, MAX_MINUTES))


def _door32(r: _Reader) -> DropFile:
    comm = r.number(1, "comm type", 0)
    if comm > 2:
        raise DropFileError(f"{r.name}: line 1 (comm type) is {comm}: 0 local, 1 serial or "
                            "2 telnet")
    handle = r.number(2, "comm or socket handle", -1)
    return DropFile("DOOR32.SYS", r.name_at(7, "alias"), _minutes(r.number(9, "minutes left")),
                    ansi=r.number(10, "emulation", 0) >= 1, comm_type=comm, handle=handle)


def _door_sys(r: _Reader) -> DropFile:
    graphics = r.text(20).upper()
    if graphics not in ("GR", "NG", "7E", "RIP"):
        raise DropFileError(f"{r.name}: line 20 (graphics mode) is {graphics[:10]!r}: GR, "
                            "NG or 7E")
    alias = r.text(36) and r.name_at(36, "alias") or r.name_at(10, "user name")
    rows = r.number(21, "screen length", 0)
    return DropFile("DOOR.SYS", alias, _minutes(r.number(19, "minutes left")),
                    ansi=graphics in ("GR", "RIP"), rows=rows or None)


def _dorinfo(r: _Reader) -> DropFile:
    first, last = r.name_at(7, "first name"), r.text(8)
    # ENiGMA writes the user name on both lines: one name, not "alice alice".
    alias = first if not last or last == first else f"{first} {last}"
    return DropFile("DORINFO.DEF", alias, _minutes(r.number(12, "minutes left")),
                    ansi=r.number(10, "emulation", 0) >= 1)


def _chain(r: _Reader) -> DropFile:
    cols, rows = r.number(9, "screen width", 0), r.number(10, "screen length", 0)
    return DropFile("CHAIN.TXT", r.name_at(2, "alias"),
                    _minutes(r.number(16, "seconds left", 0) // 60),
                    ansi=r.number(14, "ANSI", 0) == 1, cols=cols or None, rows=rows or None)


def find_drop_file(path: str | Path) -> Path:
    """``path`` if it is a file; if it is a directory (Mystic's ``%P``), the first drop file
    in it of :data:`DROP_FILE_NAMES` (any case). Raises :class:`DropFileError`."""
    p = Path(path)
    if p.is_dir():
        names = {child.name.lower(): child for child in p.iterdir()}
        for name in DROP_FILE_NAMES:
            if name in names:
                return names[name]
        for lower, child in sorted(names.items()):
            if _DORINFO.fullmatch(lower):
                return child
        raise DropFileError(f"{p}: no drop file in this directory (DOOR32.SYS, DOOR.SYS, "
                            "DORINFOn.DEF or CHAIN.TXT)")
    return p


def read_drop_file(path: str | Path) -> DropFile:
    """Read the drop file at ``path`` (a directory: :func:`find_drop_file`). Raises
    :class:`DropFileError` (one line) if it cannot be read, its name is none of the
    kinds, or it is short or malformed."""
    p = find_drop_file(path)
    name = p.name.lower()
    readers: dict[str, tuple[str, int, Callable[[_Reader], DropFile]]] = {
        "door32.sys": ("DOOR32.SYS", 11, _door32), "door.sys": ("DOOR.SYS", 36, _door_sys),
        "chain.txt": ("CHAIN.TXT", 16, _chain)}
    if _DORINFO.fullmatch(name):
        readers[name] = ("DORINFOn.DEF", 12, _dorinfo)
    if name in readers:
        kind, needed, parse = readers[name]
    else:
        raise DropFileError(f"{p}: not a drop file the door reads (DOOR32.SYS, DOOR.SYS, "
                            "DORINFOn.DEF or CHAIN.TXT, by name)")
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise DropFileError(f"{p}: cannot read it: {exc.strerror or exc}") from None
    return parse(_Reader(p, _lines(p, data), kind, needed))


def rlogin_hello(drop: DropFile, tag: str, secret: str, *, kind: str = "ansi-bbs",
                 charset: str | None = None, speed: str = "38400") -> bytes:
    """The RLOGIN login for the caller of ``drop`` at the system ``tag``: client-user
    ``secret`` (or the alias without one), server-user ``[TAG]alias``, terminal
    ``KIND,time=MINUTES[,charset=C]/SPEED``; every part without control characters or
    zero bytes (a terminal kind without commas or slashes)."""
    def clean(text: str) -> str:
        return "".join(ch for ch in text if ch.isprintable())

    kind = re.sub(r"[^A-Za-z0-9._+-]", "", kind)[:40] or "ansi"
    terminal = f"{kind},time={drop.minutes}" + (f",charset={charset}" if charset else "")
    parts = (clean(secret) or clean(drop.alias), f"[{tag}]{clean(drop.alias)}",
             f"{terminal}/{speed}")
    return b"\0" + b"\0".join(part.encode("utf-8") for part in parts) + b"\0"


def window_report(cols: int, rows: int) -> bytes:
    """RLOGIN's in-band window-size report: ``\\xff\\xffss``, rows, columns, x and y
    pixels (0), each a 16-bit big-endian number."""
    return _WINDOW_MAGIC + struct.pack(">4H", rows, cols, 0, 0)


class TelnetFilter:
    """Telnet commands taken out of a caller's socket input (an inherited DOOR32 socket
    is the BBS's telnet connection): ``IAC IAC`` is the byte 0xFF, a NAWS report is a
    window size, CR NUL is CR, every other command and subnegotiation is dropped. A
    command split across chunks is completed by the next chunk."""

    def __init__(self) -> None:
        self._state = "data"
        self._sb = bytearray()

    def feed(self, data: bytes) -> tuple[bytes, list[tuple[int, int]]]:
        """``(input without commands, [(cols, rows), ...])`` for the next chunk."""
        out = bytearray()
        sizes: list[tuple[int, int]] = []
        for byte in data:
            state = self._state
            if state == "data":
                if byte == _IAC:
                    self._state = "iac"
                else:
                    out.append(byte)
                    if byte == 13:
                        self._state = "cr"
            elif state == "cr":
                self._state = "data"
                if byte == _IAC:
                    self._state = "iac"
                elif byte != 0:
                    out.append(byte)
            elif state == "iac":
                if byte == _IAC:
                    out.append(_IAC)
                    self._state = "data"
                elif byte in (_WILL, _WONT, _DO, _DONT):
                    self._state = "option"
                elif byte == _SB:
                    self._sb.clear()
                    self._state = "sb"
                else:
                    self._state = "data"
            elif state == "option":
                self._state = "data"
            elif state == "sb":
                if byte == _IAC:
                    self._state = "sb_iac"
                elif len(self._sb) < 64:
                    self._sb.append(byte)
            elif state == "sb_iac":
                if byte == _SE:
                    self._state = "data"
                    if len(self._sb) == 5 and self._sb[0] == _NAWS:
                        cols, rows = struct.unpack(">HH", bytes(self._sb[1:5]))
                        sizes.append((cols, rows))
                else:
                    if len(self._sb) < 64:
                        self._sb.append(byte)
                    self._state = "sb"
        return bytes(out), sizes


class Caller:
    """The caller's side of the door: ``read_fd`` (input), ``write_fd`` (output), whether
    it is a telnet connection (:class:`TelnetFilter` on input, 0xFF doubled on output),
    and a terminal to put in raw mode and restore (``tty_fd``, or ``None``)."""

    def __init__(self, read_fd: int, write_fd: int, *, telnet: bool = False,
                 tty_fd: int | None = None) -> None:
        self.read_fd, self.write_fd, self.tty_fd = read_fd, write_fd, tty_fd
        self.telnet = TelnetFilter() if telnet else None
        self._saved: list[Any] | None = None

    @classmethod
    def stdio(cls) -> Caller:
        """Standard input and output; the terminal, if standard input is one."""
        return cls(0, 1, tty_fd=0 if os.isatty(0) else None)

    @classmethod
    def inherited_socket(cls, fd: int) -> Caller:
        """The telnet socket the BBS left open as descriptor ``fd``; :class:`DoorError` if
        ``fd`` is not an open socket."""
        try:
            sock = socket.socket(fileno=fd)
        except OSError as exc:
            raise DoorError(f"descriptor {fd} is not the caller's socket: "
                            f"{exc.strerror or exc}") from None
        sock.detach()
        return cls(fd, fd, telnet=True)

    @classmethod
    def connect_back(cls, host: str, port: int) -> tuple[Caller, socket.socket]:
        """Connect to the BBS's port ``host``:``port`` (ENiGMA's ``io: socket``); the
        socket is returned so that it stays open. :class:`DoorError` if it cannot."""
        try:
            sock = socket.create_connection((host, port), timeout=CONNECT_TIMEOUT)
        except OSError as exc:
            raise DoorError(f"cannot connect back to the BBS at {host}:{port}: "
                            f"{exc.strerror or exc}") from None
        sock.settimeout(None)
        return cls(sock.fileno(), sock.fileno()), sock

    def window(self) -> tuple[int, int] | None:
        """The terminal's (cols, rows), if the caller is on one that knows it."""
        if self.tty_fd is None:
            return None
        try:
            rows, cols, _, _ = struct.unpack(
                "4H", fcntl.ioctl(self.tty_fd, termios.TIOCGWINSZ, b"\0" * 8))
        except OSError:
            return None
        return (cols, rows) if cols and rows else None

    def raw(self) -> None:
        """Put the terminal in raw mode (no echo, no line editing, no signals from keys,
        output as sent); :meth:`restore` undoes it."""
        if self.tty_fd is None:
            return
        try:
            self._saved = termios.tcgetattr(self.tty_fd)
            tty.setraw(self.tty_fd, termios.TCSANOW)
        except termios.error:
            self._saved = None

    def restore(self) -> None:
        """Give the terminal back its modes from before :meth:`raw` (if it is still there)."""
        if self.tty_fd is not None and self._saved is not None:
            try:
                termios.tcsetattr(self.tty_fd, termios.TCSADRAIN, self._saved)
            except termios.error:
                pass
            self._saved = None

    def write(self, data: bytes) -> None:
        """Send ``data`` to the caller (0xFF doubled on a telnet connection)."""
        if self.telnet is not None:
            data = data.replace(b"\xff", b"\xff\xff")
        view = memoryview(data)
        while view:
            written = os.write(self.write_fd, view)
            view = view[written:]


def _open_server(address: tuple[str, int], hello: bytes) -> socket.socket:
    """Connect to the RLOGIN port, send ``hello`` and read the zero byte. A refusal (the
    zero byte, one line, the close) raises :class:`DoorError` with that line."""
    try:
        sock = socket.create_connection(address, timeout=CONNECT_TIMEOUT)
        sock.sendall(hello)
        first = sock.recv(1)
    except OSError as exc:
        raise DoorError(f"cannot reach the bbspoker server at {address[0]}:{address[1]}: "
                        f"{exc.strerror or exc}") from None
    if first != b"\0":
        sock.close()
        raise DoorError(f"the server at {address[0]}:{address[1]} gave no RLOGIN answer")
    sock.settimeout(None)
    return sock


class _Hangup(Exception):
    """The caller dropped (SIGHUP) or the BBS ends the door (SIGTERM)."""


def run_door(drop: DropFile, caller: Caller, server: tuple[str, int], tag: str, secret: str,
             *, kind: str = "ansi-bbs", charset: str | None = None) -> str:
    """Relay ``caller`` to the server's RLOGIN port ``server`` as the caller of ``drop``
    at the system ``tag`` (with ``secret``); returns how it ended: ``"server"`` (the
    server ended the session), ``"caller"`` (the caller's input ended) or ``"hangup"``
    (SIGHUP or SIGTERM: the RLOGIN connection is closed at once, a lost connection for
    the server). A refusal by the server is shown to the caller and raised as
    :class:`DoorError`. The caller's terminal is in raw mode meanwhile and restored,
    whatever ends it."""
    hello = rlogin_hello(drop, tag, secret, kind=kind, charset=charset)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    old_wakeup = signal.set_wakeup_fd(wake_w)
    watched = (signal.SIGHUP, signal.SIGTERM, signal.SIGWINCH)
    old_handlers = {sig: signal.signal(sig, lambda _s, _f: None) for sig in watched}
    caller.raw()
    sock: socket.socket | None = None
    try:
        try:
            sock = _open_server(server, hello)
        except DoorError as refused:
            caller.write(f"\r\n{refused}\r\n".encode())
            raise
        size = caller.window() or (
            (drop.cols or 80, drop.rows) if drop.rows else None)
        if size is not None:
            sock.sendall(window_report(*size))
        return _relay(caller, sock, wake_r)
    finally:
        if sock is not None:
            sock.close()
        caller.restore()
        signal.set_wakeup_fd(old_wakeup)
        for sig, handler in old_handlers.items():
            signal.signal(sig, handler)
        os.close(wake_r)
        os.close(wake_w)


def _relay(caller: Caller, sock: socket.socket, wake_fd: int) -> str:
    """Bytes both ways until one side ends (see :func:`run_door`)."""
    server_fd = sock.fileno()
    while True:
        try:
            ready, _, _ = select.select([caller.read_fd, server_fd, wake_fd], [], [])
        except InterruptedError:        # pragma: no cover (PEP 475 retries)
            continue
        if wake_fd in ready:
            signals = os.read(wake_fd, 64)
            if signal.SIGHUP in signals or signal.SIGTERM in signals:
                return "hangup"
            if signal.SIGWINCH in signals and (size := caller.window()) is not None:
                sock.sendall(window_report(*size))
        if server_fd in ready:
            try:
                data = sock.recv(65536, socket.MSG_DONTWAIT)
            except BlockingIOError:     # only the urgent byte (the window question) came
                data = None
            except OSError:
                data = b""
            if data == b"":
                return "server"
            if data:
                try:
                    caller.write(data)
                except OSError:
                    return "caller"
        if caller.read_fd in ready:
            try:
                data = os.read(caller.read_fd, 65536)
            except OSError as exc:      # EIO: the BBS closed the pseudo-terminal
                if exc.errno not in (errno.EIO, errno.ECONNRESET, errno.EBADF):
                    raise
                data = b""
            if not data:
                return "caller"
            if caller.telnet is not None:
                data, sizes = caller.telnet.feed(data)
                data += b"".join(window_report(c, r) for c, r in sizes if c and r)
            try:
                sock.sendall(data)
            except OSError:
                return "server"

