"""A small async telnet test client that renders what it receives on a pyte 80x24 screen.

It speaks just enough telnet for the server tests and the end-to-end game
tests: it answers ``DO TTYPE``/``DO NAWS`` with ``WILL`` (then the terminal
type and the window size it was given), ``WILL ECHO``/``WILL SGA``/``WILL
BINARY`` with ``DO``, refuses everything else, strips every IAC sequence from
the output and feeds the rest to ``pyte.Screen`` through ``pyte.ByteStream``
(UTF-8). Everything it received in band is also kept in :attr:`received`.

Usage::

    c = await TelnetClient.connect(port)
    await c.wait_for("Handle:")
    await c.send("alice\\r")
    await c.login("alice", "secret")   # the whole login or new-user dialogue
    print(c.text)

Every wait presses a key once when the door's title screen shows (``skip_title``), as a
user going on to the login does.

For the server side, :func:`running_server` starts the real server on an
ephemeral port with a fresh ledger and any config values changed, and
:class:`FakeClock` is a clock that moves only when told.

Hostile tests use ``negotiate=False`` (a raw TCP client that ignores telnet),
``read=False`` (a client that never reads; ``rcvbuf`` shrinks its socket
buffer), :meth:`pause_reading`/:meth:`resume_reading` (a link that stalls for a
while) and :meth:`send_raw` (bytes exactly as given, IAC not escaped).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import socket
import struct
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pyte

from bbspoker.config import Config, TableSpec
from bbspoker.door.look import CLASSIC
from bbspoker.store import open_ledger
from bbspoker.app import Server, start_server

__all__ = ["TelnetClient", "ScreenWaits", "FakeClock", "running_server", "server_config", "wait_until", "IAC", "DONT", "DO", "WONT", "WILL", "SB", "SE",
           "ECHO", "SGA", "TTYPE", "NAWS", "BINARY"]

IAC, DONT, DO, WONT, WILL, SB, SE = 255, 254, 253, 252, 251, 250, 240
BINARY, ECHO, SGA, TTYPE, NAWS = 0, 1, 3, 24, 31
_TTYPE_IS, _TTYPE_SEND = 0, 1
_WE_WILL = {TTYPE, NAWS, BINARY}
_WE_ACCEPT = {ECHO, SGA, BINARY}
_POLL = 0.01
#: The longest a screen wait sleeps without looking again, woken by output or not (a
#: client that feeds its screen without calling ``_arrived`` is slow, not stuck).
_RECHECK = 0.1


class ScreenWaits:
    """What every test client offers on top of its ``screen`` (a ``pyte.Screen``),
    ``received`` (every byte of output) and ``eof`` (an ``asyncio.Event`` set when the
    server closes): reading the screen, waiting for text, and the door's login dialogue
    (through the client's own ``send``). A client calls :meth:`_arrived` after feeding
    its screen and :meth:`_ended` when its connection ends: the waits look again then."""

    screen: pyte.Screen
    received: bytearray
    eof: asyncio.Event
    #: Whether the client presses a key when the door's title screen shows (and what it
    #: waits for is not on it), as a user going on to the login does; tests of the title
    #: itself turn it off.
    skip_title = True
    _title_skipped = False
    #: Whether :attr:`display`, :attr:`text` and :meth:`row` read the screen's box drawing
    #: and suit symbols as the classic look draws them (``+ - |``, ``+ * # -``), so that
    #: what a test expects of a game's layout holds in every look; tests of the look
    #: itself read ``screen`` (text and colours) or turn it off.
    as_classic = True
    #: Set by :meth:`_arrived`; made by the first wait (in the running event loop).
    _changed: asyncio.Event | None = None

    # --- what is on the screen -------------------------------------------------

    @property
    def display(self) -> list[str]:
        """The screen's lines (each padded to the screen width)."""
        if self.as_classic:
            return [CLASSIC.glyphs(line) for line in self.screen.display]
        return list(self.screen.display)

    @property
    def text(self) -> str:
        """The screen as one string, lines joined by newlines, right-stripped."""
        return "\n".join(line.rstrip() for line in self.display)

    def row(self, n: int) -> str:
        """Screen row ``n`` (0-based), right-stripped."""
        return self.display[n].rstrip()

    async def wait_for(self, text: str, timeout: float = 5.0) -> str:
        """Wait until ``text`` appears on the screen; returns the screen text.

        Raises ``AssertionError`` with the screen contents when it does not
        appear within ``timeout`` seconds or the connection ends first.
        """
        return await self._wait(lambda: text in self.text, f"{text!r} on screen", timeout)

    async def wait_for_gone(self, text: str, timeout: float = 5.0) -> str:
        """Wait until ``text`` is no longer on the screen; returns the screen text."""
        return await self._wait(lambda: text not in self.text, f"{text!r} gone", timeout)

    async def wait_for_received(self, data: bytes | str, timeout: float = 5.0) -> None:
        """Wait until ``data`` (UTF-8 if str) occurs in the raw in-band output."""
        needle = data.encode() if isinstance(data, str) else data
        await self._wait(lambda: needle in self.received, f"{needle!r} received", timeout)

    @property
    def title_showing(self) -> bool:
        """Whether the door's title screen (bbspoker.door.title) is on the screen: its
        frame's bottom edge, signed ``bbspoker``, on row 22."""
        display = self.screen.display
        return len(display) > 22 and " bbspoker " in display[22]

    def _arrived(self) -> None:
        """Wake the waits: output reached the screen (and ``received``) or the connection
        ended. Every client calls it after feeding its screen and after setting ``eof``."""
        if self._changed is not None:
            self._changed.set()

    def _ended(self) -> None:
        """The connection ended: set ``eof`` and wake the waits."""
        self.eof.set()
        self._arrived()

    async def _wait(self, cond: Callable[[], bool], what: str, timeout: float) -> str:
        """Look at ``cond()`` now and each time output arrives (:meth:`_arrived`) until it
        is true; AssertionError with the screen when the connection ends first or
        ``timeout`` seconds pass."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        if self._changed is None:
            self._changed = asyncio.Event()
        changed = self._changed
        while not cond():
            if self.skip_title and not self._title_skipped and self.title_showing:
                self._title_skipped = True
                await self.send(" ")
                continue
            if self.eof.is_set():
                raise AssertionError(f"connection closed before {what}:\n{self.text}")
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise AssertionError(f"timed out waiting for {what}:\n{self.text}")
            # Nothing runs between the look above and this clear: output that arrives
            # from here on sets the event again.
            changed.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(min(remaining, _RECHECK)):
                    await changed.wait()
        return self.text

    async def wait_closed(self, timeout: float = 5.0) -> None:
        """Wait until the server closes the connection (EOF); AssertionError on timeout."""
        try:
            await asyncio.wait_for(self.eof.wait(), timeout)
        except TimeoutError:
            raise AssertionError(f"connection still open after {timeout} s:\n{self.text}")

    async def login(self, handle: str, password: str, *, timeout: float = 10.0) -> None:
        """Log in as ``handle``, creating the account if the server offers to.

        Follows the dialogue ``Handle:``, ``Password:`` or ``Create new user
        <handle>? (y/n)`` plus the password twice, and returns once the door's
        menu (``[Q]``) is on screen.
        """
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

    async def send_x(self, to: str, text: str, answer: str) -> None:
        """At the menu: send ``text`` as an X-message to ``to``, read ``answer`` (e.g.
        ``X-message sent to bob.``) and be back at the menu."""
        await self.send("x")
        await self.wait_for("Send an X-message to:")
        await self.send(to + "\r")
        await self.wait_for("Message:")
        await self.send(text + "\r")
        await self.wait_for(answer)
        await self.send(" ")
        await self.wait_for("[Q] Quit")

    async def take_over(self, handle: str, password: str, other: ScreenWaits) -> None:
        """Log in as ``handle``, who is online on ``other``: answer the door's offer to
        end that session with y, see ``other`` told and closed, and this one logged in."""
        await self.wait_for("Handle:")
        await self.send(handle + "\r")
        await self.wait_for("Password:")
        await self.send(password + "\r")
        await self.wait_for(f"{handle} is already online. End that session? (y/n)")
        await self.send("y")
        await other.wait_for("You logged in from another connection.")
        await other.wait_closed()
        await self.wait_for(f"Logged in as {handle}.")

    async def menu(self, timeout: float = 10.0) -> None:
        """Wait for the door's menu, pressing a key past the notices if there are any."""
        await self._wait(lambda: "[Q]" in self.text or "Press any key" in self.text,
                         "the menu", timeout)
        if "[Q]" not in self.text:
            await self.send(" ")
            await self.wait_for("[Q]", timeout)


class TelnetClient(ScreenWaits):
    """One telnet connection with a pyte screen; create it with :meth:`connect`."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *,
                 cols: int, rows: int, term: str, negotiate: bool,
                 screen_cols: int, screen_rows: int) -> None:
        self._reader = reader
        self._writer = writer
        self.cols, self.rows, self.term = cols, rows, term
        self.negotiate = negotiate
        self.screen = pyte.Screen(screen_cols, screen_rows)
        self._stream = pyte.ByteStream(self.screen)
        #: Every in-band byte received (telnet commands removed).
        self.received = bytearray()
        #: Options the server agreed to (its WILL answered with our DO).
        self.server_will: set[int] = set()
        #: Options the server asked us for (DO), whatever we answered.
        self.server_do: set[int] = set()
        #: Every NAWS (cols, rows) pair this client sent.
        self.naws_sent: list[tuple[int, int]] = []
        self.eof = asyncio.Event()
        self._state = "data"
        self._cmd = 0
        self._sb = bytearray()
        self._task: asyncio.Task[None] | None = None

    @classmethod
    async def connect(cls, port: int, host: str = "127.0.0.1", *, cols: int = 80,
                      rows: int = 24, term: str = "xterm", negotiate: bool = True,
                      read: bool = True, rcvbuf: int | None = None,
                      screen_cols: int = 80, screen_rows: int = 24) -> TelnetClient:
        """Open a connection to ``host:port``.

        ``cols``/``rows`` is the size reported by NAWS, ``term`` the TTYPE
        answer; ``negotiate=False`` ignores all telnet commands (answers
        nothing); ``read=False`` never reads the socket; ``rcvbuf`` sets the
        socket's receive buffer (bytes) before connecting.
        """
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if rcvbuf is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        sock.setblocking(False)
        await asyncio.get_running_loop().sock_connect(sock, (host, port))
        reader, writer = await asyncio.open_connection(sock=sock)
        client = cls(reader, writer, cols=cols, rows=rows, term=term, negotiate=negotiate,
                     screen_cols=screen_cols, screen_rows=screen_rows)
        if read:
            client._task = asyncio.create_task(client._read_loop())
        return client

    # --- sending ---------------------------------------------------------------

    async def send(self, data: str | bytes) -> None:
        """Send text (UTF-8) or bytes as typed data; a 0xFF byte is escaped as IAC IAC."""
        raw = data.encode() if isinstance(data, str) else bytes(data)
        await self.send_raw(raw.replace(b"\xff", b"\xff\xff"))

    async def send_raw(self, data: bytes) -> None:
        """Send ``data`` exactly as given (telnet commands included)."""
        self._writer.write(data)
        try:
            await self._writer.drain()
        except ConnectionError:
            self._ended()

    async def naws(self, cols: int, rows: int) -> None:
        """Report a new window size (IAC SB NAWS, values 0-65535)."""
        self.cols, self.rows = cols, rows
        await self.send_raw(self._naws_bytes())

    def _naws_bytes(self) -> bytes:
        self.naws_sent.append((self.cols, self.rows))
        size = struct.pack("!HH", self.cols, self.rows).replace(b"\xff", b"\xff\xff")
        return bytes([IAC, SB, NAWS]) + size + bytes([IAC, SE])

    def pause_reading(self) -> None:
        """Stop taking bytes from the socket (a client whose link stalls): the kernel's
        buffers fill and the server's output for this client waits. :meth:`resume_reading`
        takes up where it stopped."""
        self._writer.transport.pause_reading()

    def resume_reading(self) -> None:
        """Take bytes from the socket again after :meth:`pause_reading`."""
        self._writer.transport.resume_reading()

    async def close(self) -> None:
        """Close the connection and stop reading."""
        if self._task is not None:
            self._task.cancel()
        self._writer.close()
        try:
            await self._writer.wait_closed()
        except (ConnectionError, OSError):
            pass

    # --- the telnet parser -----------------------------------------------------

    async def _read_loop(self) -> None:
        try:
            while data := await self._reader.read(65536):
                self._feed(data)
                self._arrived()
        except (ConnectionError, OSError):
            pass
        finally:
            self._ended()

    def _feed(self, data: bytes) -> None:
        if self._state == "data" and IAC not in data:  # the usual chunk: text only
            self.received += data
            self._stream.feed(data)
            return
        text = bytearray()
        for byte in data:
            state = self._state
            if state == "data":
                if byte == IAC:
                    self._state = "iac"
                else:
                    text.append(byte)
            elif state == "iac":
                if byte == IAC:
                    text.append(IAC)
                    self._state = "data"
                elif byte in (DO, DONT, WILL, WONT):
                    self._cmd, self._state = byte, "opt"
                elif byte == SB:
                    self._sb.clear()
                    self._state = "sb"
                else:
                    self._state = "data"
            elif state == "opt":
                self._state = "data"
                self._option(self._cmd, byte)
            elif state == "sb":
                if byte == IAC:
                    self._state = "sb_iac"
                else:
                    self._sb.append(byte)
            elif state == "sb_iac":
                if byte == SE:
                    self._state = "data"
                    self._subnegotiation(bytes(self._sb))
                else:
                    self._sb.append(byte)
                    self._state = "sb"
        if text:
            self.received += text
            self._stream.feed(bytes(text))

    def _reply(self, *parts: int) -> None:
        if self.negotiate:
            self._writer.write(bytes(parts))

    def _option(self, cmd: int, opt: int) -> None:
        if cmd == DO:
            self.server_do.add(opt)
            self._reply(IAC, WILL if opt in _WE_WILL else WONT, opt)
            if opt == NAWS and self.negotiate:
                self._writer.write(self._naws_bytes())
        elif cmd == WILL:
            if opt in _WE_ACCEPT:
                self.server_will.add(opt)
            self._reply(IAC, DO if opt in _WE_ACCEPT else DONT, opt)
        elif cmd == WONT:
            self.server_will.discard(opt)

    def _subnegotiation(self, sb: bytes) -> None:
        if sb[:2] == bytes([TTYPE, _TTYPE_SEND]):
            self._reply(IAC, SB, TTYPE, _TTYPE_IS, *self.term.encode("ascii"), IAC, SE)


class FakeClock:
    """Monotonic seconds that move only when a test calls :meth:`advance`."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        """Move the clock ``seconds`` forward."""
        self.now += seconds


async def wait_until(cond: Callable[[], bool], timeout: float = 5.0) -> None:
    """Poll ``cond()`` every 10 ms until it is true; fail the test after ``timeout`` s."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not cond():
        assert loop.time() < deadline, "condition not met in time"
        await asyncio.sleep(_POLL)


def tournament_spec(tid: str = "sng", name: str = "Sunday NL", *, game: str = "holdem",
                    buy_in: int = 100, chips: int = 1500, seats: int = 9,
                    levels: Sequence[tuple[int, int, float]] = ((20, 0, 10.0), (40, 0, 10.0)),
                    **keys: Any) -> Any:
    """A ``[[tournaments]]`` entry (:class:`bbspoker.config.TournamentSpec`) with the
    defaults of ``[table]``: ``levels`` as ``(bet, ante, minutes)``; ``keys`` the spec's
    own (``sit_and_go``, ``starts``, ``bots`` ...; default a sit-and-go of 3) and the
    kind's (``limit``)."""
    from bbspoker.config import TournamentSpec
    from bbspoker.rules.kinds import kind
    from bbspoker.rules.tournament import Level, TournamentRules
    own = {k: keys.pop(k) for k in ("bots", "sit_and_go", "starts", "min_players",
                                     "late_levels") if k in keys}
    own.setdefault("sit_and_go", 0 if own.get("starts") else 3)
    defaults = Config().table
    play = kind(game).tournament
    staked = play.stake_key if play is not None else "small_bet"
    table = kind(game).config.from_keys(defaults.keys(), {
        **keys, "seats": seats, "bots": 0, staked: levels[0][0]})
    rules = TournamentRules(buy_in, chips, seats, tuple(Level(b, a, m) for b, a, m in levels))
    return TournamentSpec(tid, name, game, rules, table,
                          defaults.with_keys(**table.as_keys()), **own)


def server_config(tmp_path: Path, *, tables: Sequence[tuple[Any, ...]] = (),
                bbs: Sequence[Any] = (), tournaments: Sequence[Any] = (),
                **sections: dict[str, Any]) -> Config:
    """The config :func:`running_server` serves (see there for ``tables``, ``bbs``,
    ``tournaments`` and ``sections``): every port 0 on 127.0.0.1, SSH and the web page
    off, the ledger in ``tmp_path``, test clients' limits lifted."""
    sections = {"server": {}, **sections}
    # SSH and the web page are on by default (issue 19); a test turns them on with
    # ssh={"enabled": True} / web={"enabled": True} (on a free port and, for SSH, a host
    # key in tmp_path).
    sections["ssh"] = {"enabled": False, **sections.get("ssh", {})}
    sections["web"] = {"enabled": False, **sections.get("web", {})}
    sections["table"] = {"reconnect_grace": 0.0, **sections.get("table", {})}
    # Every test client comes from 127.0.0.1: the sign-up limit per address (issue 20) is
    # lifted unless a test sets it.
    sections["login"] = {"signups_per_address": 1000, **sections.get("login", {})}
    sections["server"] = {"max_sessions_per_address": 10_000, **sections["server"]}
    # Tests type chat faster than people: the flood limits are lifted unless a test sets them.
    sections["input"] = {"chat_lines": 1000, "xmessages": 1000, **sections.get("input", {})}
    config = dataclasses.replace(Config(), **{
        name: Config().table.with_keys(**values) if name == "table"
        else dataclasses.replace(getattr(Config(), name), **values)
        for name, values in sections.items()})
    config = dataclasses.replace(config, server=dataclasses.replace(
        config.server, host="127.0.0.1", port=0), ssh=dataclasses.replace(
        config.ssh, host="127.0.0.1", port=0), web=dataclasses.replace(
        config.web, host="127.0.0.1", port=0), rlogin=dataclasses.replace(
        config.rlogin, host="127.0.0.1", port=0), bbs=tuple(bbs), ledger=dataclasses.replace(
        config.ledger, path=str(tmp_path / "bbspoker.db")), tournaments=tuple(tournaments),
        tables=tuple(
        TableSpec(table_id, name, game[0] if game else "draw40",
                  config.table.with_keys(**(game[1] if len(game) > 1 else {})))
        for table_id, name, *game in tables))
    return config


@contextlib.asynccontextmanager
async def running_server(tmp_path: Path, *, clock: Callable[[], float] | None = None,
                         sleep: Callable[[float], Awaitable[Any]] | None = None,
                         tables: Sequence[tuple[Any, ...]] = (),
                         bot_accounts: Mapping[str, int] | None = None,
                         bot_sleep: Callable[[float], Awaitable[Any]] | None = None,
                         bbs: Sequence[Any] = (),
                         tournaments: Sequence[Any] = (),
                         **sections: dict[str, Any]) -> AsyncIterator[Server]:
    """The real server on 127.0.0.1, an ephemeral port and a new ledger in ``tmp_path``.

    ``sections`` change config values, e.g. ``login={"failure_delay": 0}``;
    ``clock``/``sleep`` are passed to :func:`bbspoker.app.start_server`.
    The ledger is ``server.app.ledger``. Everything is closed on exit. Unless
    ``table`` says otherwise, a dropped player's seat is not held (``reconnect_grace``
    0: chapter 2's rule at once); the tests of the grace set it. Unless ``login`` says
    otherwise, one address may sign up 1,000 accounts (every client is 127.0.0.1). ``tables``: ``(id, name)``
    of draw40 tables to run (``[[tables]]``) with the ``[table]`` rules, or ``(id, name,
    game, {key: value})`` for a table of another kind with its own keys; none: the one
    default table. ``bot_accounts``: computer players' accounts made before the server
    starts, ``{handle: CUBES}``; ``bot_sleep``: what they think with. ``bbs``: the
    ``[[bbs]]`` systems (:class:`bbspoker.config.BbsSystem`); ``rlogin={"enabled": True}``
    turns the RLOGIN port on (on a free port). ``tournaments``: the ``[[tournaments]]``
    entries (:class:`bbspoker.config.TournamentSpec`, :func:`tournament_spec`).
    ``ledger={"url": ...}`` puts the ledger on PostgreSQL (the ``ledger_url`` fixture).
    """
    config = server_config(tmp_path, tables=tables, bbs=bbs, tournaments=tournaments,
                         **sections)
    ledger = open_ledger(config.ledger)
    for handle, funds in (bot_accounts or {}).items():
        ledger.create_account(handle, None, funds, bot=True)
    kwargs: dict[str, Any] = {}
    if bot_sleep is not None:
        kwargs["bot_sleep"] = bot_sleep
    if clock is not None:
        kwargs["clock"] = clock
    if sleep is not None:
        kwargs["sleep"] = sleep
    server = await start_server(config, ledger, **kwargs)
    try:
        yield server
    finally:
        server.close()
        await server.wait_closed()
        ledger.close()
