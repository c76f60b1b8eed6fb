"""One connection (telnet, SSH or browser): bounded input assembly, a bounded output queue, size and inbox.

A :class:`Session` sits between a transport's link (bytes in and out: telnetlib3's
reader/writer, an SSH channel, a WebSocket; see
:class:`bbspoker.transport.gateway.Link`) and the door's code (the lobby, the poker
screen). :meth:`bbspoker.transport.gateway.Gate.serve` makes it for every transport.

- *Input* comes in the event-loop turn the bytes arrived: the reader hands
  each chunk to the session (``reader.consume``, see
  :class:`bbspoker.transport.telnet.DoorReader`), with no task to wake in between
  (which would add latency). The session ends when a line passes ``[input]
  max_line_bytes`` without CR/LF, decodes with the session's encoding and
  ``errors="replace"`` (a 0xFF byte or invalid UTF-8 becomes U+FFFD, never an
  exception) and turns the text into :class:`bbspoker.door.keys.Key` objects in a
  bounded type-ahead queue (:data:`KEY_QUEUE` keys). Keys typed while it is
  full are dropped, as a full keyboard buffer drops them: memory stays
  bounded, and the input rate limit keeps a flood from getting that far.
  The session owns one task:
- the *writer* takes what :meth:`Session.write` queued, writes it and waits
  for the socket to drain. (When nothing is queued and the socket holds no unsent
  bytes, :meth:`Session.write` hands the bytes to the socket at once, without
  waiting for the writer's turn.) No other session ever waits for it.

Output that the client does not take (a viewer who falls behind)
goes through three stages, all measured on :attr:`Session.unsent` (bytes queued
here plus bytes the transport holds; the kernel's socket buffer is not counted):

- past ``[output] congestion_bytes`` the session is :attr:`~Session.congested`:
  screens that can redraw themselves (the table) stop sending updates and wait;
- once the unsent output is back to ``[output] resume_bytes`` (the transport's
  low-water mark), the congestion ends and the ``drain_listeners`` run once (the
  table screen repaints in full, from the table as it is then);
- past ``[output] backlog_bytes`` (the hard cap; only text that is not a table
  update, such as lobby output typed for by a client that does not read, can get
  there) the session is disconnected at once, and so is a session whose socket
  takes no byte at all for ``[output] drain_timeout`` seconds on the session's
  clock (checked about once a second while output waits; a socket that drains
  slowly is never cut off for being slow).

The input rate limit (it ends a connection whose input rate cannot be a person's)
is applied on raw bytes by each transport (telnet commands included, before
telnetlib3 parses them; SSH channel data and window changes; WebSocket messages)
through its :class:`bbspoker.transport.gateway.Gate`; it calls :meth:`Session.end`
with the message.
"""

from __future__ import annotations

import asyncio
import codecs
import logging
import time
import unicodedata
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from bbspoker.door import i18n, look
from bbspoker.door.keys import Key, KeyDecoder, KeyKind
from bbspoker.door.terminal import SessionClosed, XMessage

if TYPE_CHECKING:
    import blessed

    from bbspoker.config import Config

__all__ = ["Session", "SessionClosed", "XMessage", "clamp_size",
           "KEY_QUEUE", "STALL_POLL", "INBOX_SIZE", "MIN_COLS", "MAX_COLS",
           "MIN_ROWS", "MAX_ROWS"]

log = logging.getLogger("bbspoker.transport.session")

#: Keys decoded but not yet taken by :meth:`Session.read_key`; more are dropped.
KEY_QUEUE = 256
#: Unread X-messages one user may hold; a sender is told when the inbox is full.
INBOX_SIZE = 50
#: Real seconds between the writer's looks at a socket that does not drain (the stall rule
#: itself, ``[output] drain_timeout``, is measured on the session's clock).
STALL_POLL = 1.0
#: NAWS window sizes are clamped to these bounds; 0 means "unknown" (RFC 1073).
MIN_COLS, MAX_COLS, MIN_ROWS, MAX_ROWS = 40, 999, 8, 999


def _cp437_c1_table() -> dict[int, str]:
    """The characters CP437 encodes as bytes 0x80-0x9F (``Ç ü é ... ¢ £ ¥ ƒ``), each mapped
    to its ASCII base letter (or ``?``): on a terminal that takes 8-bit C1 controls 0x9B
    is CSI, so ``¢`` typed in a chat line would start an escape sequence there."""
    table = {}
    for byte in range(0x80, 0xA0):
        ch = bytes([byte]).decode("cp437")
        base = unicodedata.normalize("NFKD", ch)[0]
        table[ord(ch)] = base if base.isascii() and base.isalpha() else "?"
    return table


#: What a CP437 session's output is translated with before encoding: the C1 stand-ins
#: above, and the suit glyphs as the code page's bytes 0x03-0x06 (the ``cp437`` codec
#: decodes those bytes as controls, so it cannot encode the glyphs itself).
_CP437_C1 = {**_cp437_c1_table(), **{ord(glyph): byte for glyph, byte in look.CP437_SUITS.items()}}
#: Characters with no single-character stand-in of their own (NFKD gives none).
_SPELLED = {"œ": "oe", "Œ": "OE", "æ": "ae", "Æ": "AE", "ß": "ss", "€": "EUR", "…": "...",
            "‘": "'", "’": "'", "‚": ",", "“": '"', "”": '"', "„": '"', "–": "-", "—": "-",
            "•": "*", "\u00a0": " "}
#: The codec error handler of session output (:func:`_stand_in`).
STAND_IN = "bbspoker-stand-in"


def _stand_in(err: UnicodeError) -> tuple[str, int]:
    """Codec error handler: each character the session's encoding lacks becomes what it
    reads as in plain letters (``À`` -> ``A``, ``œ`` -> ``oe``, ``’`` -> ``'``), or ``?``
    when it has no such stand-in; the stand-in must itself be encodable (ASCII)."""
    if not isinstance(err, UnicodeEncodeError):
        raise err
    out = []
    for ch in err.object[err.start:err.end]:
        spelled = _SPELLED.get(ch)
        if spelled is None:
            base = "".join(c for c in unicodedata.normalize("NFKD", ch)
                           if not unicodedata.combining(c))
            spelled = base if base and base.isascii() and base.isprintable() else "?"
        out.append(spelled)
    return "".join(out), err.end


codecs.register_error(STAND_IN, _stand_in)


def clamp_size(cols: int, rows: int, current: tuple[int, int]) -> tuple[int, int]:
    """A NAWS report made safe: 40-999 columns, 8-999 rows.

    A zero means "not known" (RFC 1073) and keeps the ``current`` value of
    that dimension; ``current`` is ``(cols, rows)``. Returns ``(cols, rows)``.
    """
    cols = min(max(cols, MIN_COLS), MAX_COLS) if cols > 0 else current[0]
    rows = min(max(rows, MIN_ROWS), MAX_ROWS) if rows > 0 else current[1]
    return cols, rows


class Session:
    """One connected user (before and after login).

    Public attributes:

    - ``config``: the server's :class:`bbspoker.config.Config` (input and output limits).
    - ``address``: the peer's IP address (``str``).
    - ``handle``: the logged-in handle as stored in the ledger, ``None`` before login.
    - ``authenticated``: the handle whose password or key the transport has already
      checked (SSH), else ``None``: the door then skips its own password dialogue.
    - ``where``: the name of the table the user is at (playing or watching), else ``None``.
    - ``activity``: ``"login"``, ``"lobby"`` or ``"poker"`` (shown by [W]; the
      lobby sets ``"poker"`` while ``bbspoker.door.screens.base.enter_table`` runs).
    - ``term``: the shared ``blessed.Terminal`` for this client's terminal kind
      (use it only to build escape sequences; its own size is meaningless).
    - ``encoding``: how text is encoded to and decoded from this client.
    - ``language``: the language the door speaks to this user
      (``bbspoker.door.i18n``): ``[i18n] default`` until login, then the user's choice.
    - ``cols``, ``rows``: the window size (NAWS, clamped; 80x24 until told).
    - ``counted_address``: the address the connection counts under in the per-address
      connection caps (``None``: only in the total, as a BBS's RLOGIN connection).
    - ``xtrn``: the table id or game kind the door goes straight to after login (a BBS's
      ``xtrn=``), else ``None``; ``time_left``: the seconds the caller has from the start
      of the session (a BBS's ``time=``), else ``None`` (no limit).
    - ``inbox``: unread :class:`XMessage` objects, oldest first (at most :data:`INBOX_SIZE`).
    - ``resize_listeners``: callables ``fn(cols, rows)`` run after each size change.
    - ``xmessage_listeners``: callables ``fn(message)`` run after each X-message delivered.
    - ``key_listeners``: callables ``fn()`` run after each key is queued and when the
      session ends (for a screen that waits on more than the keyboard; see
      :meth:`read_key_nowait`).
    - ``drain_listeners``: callables ``fn()`` run once each time a congestion ends
      (:attr:`congested` turns false again: the client has taken its output, down to
      ``[output] resume_bytes``); a screen that skipped updates repaints then.

    Listeners run synchronously inside the event that caused them (a key
    listener inside the protocol's ``data_received``): they must not raise or
    wait. They may do the work at once (the game screen handles its keys and
    paints there) or just set a flag; remove them when done.
    """

    def __init__(self, config: Config, reader: Any, writer: Any, *, address: str,
                 term: blessed.Terminal, encoding: str, cols: int, rows: int,
                 clock: Callable[[], float] = time.monotonic,
                 authenticated: str | None = None) -> None:
        """``clock``: monotonic seconds for the stall rule (``[output] drain_timeout``;
        tests inject a fake one); ``authenticated``: the handle a transport has already
        logged in (SSH), else ``None``."""
        self.config = config
        self.address = address
        self.handle: str | None = None
        self.authenticated = authenticated
        self.activity = "login"
        self.where: str | None = None
        self.term = term
        self.encoding = encoding
        self.look = look.detect(encoding, term.number_of_colors)
        self.language = config.i18n.default  # the user's own once logged in
        self.cols, self.rows = clamp_size(cols, rows, (80, 24))
        self.counted_address: str | None = address
        self.xtrn: str | None = None
        self.time_left: float | None = None
        self.inbox: list[XMessage] = []
        self.resize_listeners: list[Callable[[int, int], None]] = []
        self.xmessage_listeners: list[Callable[[XMessage], None]] = []
        self.key_listeners: list[Callable[[], None]] = []
        self.drain_listeners: list[Callable[[], None]] = []
        self._clock = clock
        self._congested = False
        self._reader = reader
        self._writer = writer
        self._decoder = codecs.getincrementaldecoder(encoding)(errors="replace")
        self._keys_in = KeyDecoder()
        self._keys: asyncio.Queue[Key | None] = asyncio.Queue(KEY_QUEUE)
        self._skip_enter_until = 0.0   # loop time up to which one Enter read is dropped
        self._line_bytes = 0
        self._out: list[bytes] = []
        self._backlog = 0
        self._writer_idle: asyncio.Future[None] | None = None  # what the idle writer awaits
        self._ending = False
        # A future rather than an Event: an idle session should not carry another deque.
        self._closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._tasks: list[asyncio.Task[None]] = []

    def __repr__(self) -> str:
        return f"<Session {self.handle or '-'!r} from {self.address}>"

    # --- life cycle ------------------------------------------------------------

    def start(self) -> None:
        """Take input from the reader and start the writer task (called once by the server).

        The reader must offer ``consume(on_data, on_end)`` (:class:`bbspoker.transport.telnet.DoorReader`):
        it then calls ``on_data(bytes)`` with what it holds and every later chunk, and
        ``on_end(exception or None)`` once input ends."""
        transport = self._writer.transport
        if transport is not None:
            # Both marks at resume_bytes: whenever the transport holds more, writing is
            # paused and drain() waits until it is back there (the end of a congestion).
            resume = self.config.output.resume_bytes
            transport.set_write_buffer_limits(high=resume, low=resume)
        self._tasks = [asyncio.create_task(self._write_loop(), name=f"writer {self.address}")]
        self._reader.consume(self._feed, self._input_ended)

    @property
    def closed(self) -> bool:
        """True once the session has ended or is ending (no more keys will come)."""
        return self._ending or self._closed.done()

    def end(self, message: str | None = None) -> None:
        """End the session cleanly: show ``message`` (one line, optional), flush, disconnect.

        Never blocks; idempotent. The writer flushes what is queued (bounded
        by the drain timeout) and then closes the connection. A pending
        :meth:`read_key` raises :class:`SessionClosed` at once.
        """
        if self._ending:
            return
        if message:
            self.write(f"\r\n{message}\r\n")
        self._ending = True
        self._wake_writer()
        self._wake_reader()

    def abort(self, reason: str) -> None:
        """Disconnect now without flushing (the client cannot take output); logs ``reason``."""
        if self._closed.done():
            return
        log.info("session %r from %s aborted: %s", self.handle, self.address, reason)
        self._ending = True
        self._out.clear()
        self._backlog = 0
        self._finish()

    async def wait_closed(self) -> None:
        """Wait until the connection is closed and both tasks have stopped."""
        await asyncio.shield(self._closed)
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def _finish(self) -> None:
        if self._closed.done():
            return
        self._closed.set_result(None)
        self._wake_reader()
        self._wake_writer()
        self._writer.close()
        for task in self._tasks:
            if task is not asyncio.current_task():
                task.cancel()

    def _wake_reader(self) -> None:
        # A reader waits only on an empty queue, so the end marker always fits then.
        try:
            self._keys.put_nowait(None)
        except asyncio.QueueFull:
            pass
        self._tell_key_listeners()

    def _tell_key_listeners(self) -> None:
        for listener in list(self.key_listeners):
            listener()

    # --- input -----------------------------------------------------------------

    def _feed(self, data: bytes) -> None:
        """In-band bytes from the client, called by the reader in the event-loop turn they
        arrived: the line length limit, then keys into the type-ahead queue. Never raises
        (it runs inside the protocol's ``data_received``)."""
        if self.closed:
            return
        try:
            limit = self.config.input.max_line_bytes
            last_eol = max(data.rfind(b"\r"), data.rfind(b"\n"))
            if last_eol >= 0:
                self._line_bytes = len(data) - last_eol - 1
            else:
                self._line_bytes += len(data)
            if self._line_bytes > limit:
                log.info("session %r from %s: line over %d bytes", self.handle, self.address, limit)
                self.end(i18n.of(self).gettext(
                    "Input line longer than {n} bytes: disconnected.").format(n=limit))
                return
            keys = self._keys_in.feed(self._decoder.decode(data))
            dropped = 0
            for key in keys:
                # The last place is kept for an Enter (else a paste longer than the
                # type-ahead loses its Enter, and with it the whole line).
                if key.kind is not KeyKind.ENTER and self._keys.qsize() >= KEY_QUEUE - 1:
                    dropped += 1
                    continue
                try:
                    self._keys.put_nowait(key)
                except asyncio.QueueFull:
                    dropped += 1
            if dropped:
                log.info("session %r from %s: type-ahead full, %d keys dropped", self.handle,
                         self.address, dropped)
            if keys:
                self._tell_key_listeners()
        except Exception:
            log.exception("session %r from %s: input failed", self.handle, self.address)
            self.end(i18n.of(self).gettext("Sorry, something went wrong. Please log in again."))

    def _input_ended(self, exc: Exception | None) -> None:
        """The reader's end of input: EOF (``exc`` None) or a connection error."""
        if exc is not None:
            log.info("session %r from %s: connection lost: %s", self.handle, self.address, exc)
        if not self._ending:
            self._ending = True
            self._finish()
        self._wake_reader()

    async def read_key(self, timeout: float | None = None) -> Key:
        """The next key the user pressed (a :class:`bbspoker.door.keys.Key`).

        Raises :class:`SessionClosed` once the session has ended or is ending,
        and ``TimeoutError`` if ``timeout`` seconds pass with no key. Safe to
        cancel: no key is lost.
        """
        async with asyncio.timeout(timeout):
            while not self.closed:
                key = await self._keys.get()
                if key is not None and not self._habit(key):
                    return key
        raise SessionClosed()

    def ignore_enter(self, seconds: float) -> None:
        """Drop the next key read if it is an Enter read within ``seconds`` from now: the
        Enter typed out of habit after a choice made with one key (a table's digit), in
        the same packet or a moment later, is then not the answer to the next question."""
        self._skip_enter_until = asyncio.get_running_loop().time() + seconds

    def _habit(self, key: Key) -> bool:
        """Whether ``key`` is the Enter :meth:`ignore_enter` drops (any key read ends the
        window)."""
        if not self._skip_enter_until:
            return False
        within = asyncio.get_running_loop().time() <= self._skip_enter_until
        self._skip_enter_until = 0.0
        return within and key.kind is KeyKind.ENTER

    def read_key_nowait(self) -> Key | None:
        """The next key the user pressed if one is waiting, else ``None``; never waits.

        Raises :class:`SessionClosed` once the session has ended or is ending
        (as :meth:`read_key`). With ``key_listeners`` a screen learns when to call it.
        """
        while not self.closed:
            try:
                key = self._keys.get_nowait()
            except asyncio.QueueEmpty:
                return None
            if key is not None and not self._habit(key):
                return key
        raise SessionClosed()

    # --- output ----------------------------------------------------------------

    @property
    def backlog(self) -> int:
        """Bytes queued by :meth:`write` and not yet handed to the transport."""
        return self._backlog

    @property
    def unsent(self) -> int:
        """Bytes of output the server holds for this client: :attr:`backlog` plus what
        the transport has not handed to the kernel yet."""
        transport = self._writer.transport
        held = transport.get_write_buffer_size() if transport is not None else 0
        return self._backlog + held

    @property
    def congested(self) -> bool:
        """True from the moment :attr:`unsent` passes ``[output] congestion_bytes`` until
        it is back to ``[output] resume_bytes`` (then ``drain_listeners`` run). A screen
        that can repaint itself sends nothing while it is true."""
        return self._congested

    def write(self, text: str) -> None:
        """Queue ``text`` (terminal output: escape sequences welcome) for this client.

        Never blocks and never raises; nothing is ever dropped (screens that can redraw
        themselves check :attr:`congested` first). Text is encoded with the session's
        encoding; a character it lacks becomes its plain-letter stand-in (``À`` -> ``A``,
        ``œ`` -> ``oe``) or ``?`` (:func:`_stand_in`). If the unsent output would pass
        ``[output] backlog_bytes`` the session is disconnected. Output after
        the session ended is dropped.
        """
        if self._ending:
            return
        if self.encoding == "cp437" and not text.isascii():
            text = text.translate(_CP437_C1)
        data = text.encode(self.encoding, errors=STAND_IN)
        output = self.config.output
        transport = self._writer.transport
        held = transport.get_write_buffer_size() if transport is not None else 0
        unsent = self._backlog + held + len(data)
        if unsent > output.backlog_bytes:
            self.abort(f"output backlog over {output.backlog_bytes} bytes")
            return
        if unsent > output.congestion_bytes and not self._congested:
            self._congested = True
            log.info("session %r from %s: output congested (%d bytes unsent)", self.handle,
                     self.address, unsent)
        idle = self._writer_idle
        if idle is not None and not idle.done() and transport is not None and not held:
            # Nothing queued or waiting in the socket: hand the bytes over now rather
            # than one event-loop turn later (less latency). If the socket does not
            # take them all, the writer task drains them.
            self._writer.write(data)
            if self._congested or (transport.get_write_buffer_size()
                                   and self._socket_full()):
                self._wake_writer()
            return
        self._out.append(data)
        self._backlog += len(data)
        self._wake_writer()

    def _sent_all(self) -> bool:
        """True when the transport holds no unsent bytes (the kernel took everything)."""
        transport = self._writer.transport
        return transport is not None and transport.get_write_buffer_size() == 0

    def _socket_full(self) -> bool:
        """True when the transport holds more unsent bytes than its high-water mark
        (asyncio has then paused writing: ``drain()`` waits)."""
        transport = self._writer.transport
        return (transport is not None
                and transport.get_write_buffer_size() > transport.get_write_buffer_limits()[1])

    def _wake_writer(self) -> None:
        # A future per wait rather than an asyncio.Event: an idle session then
        # holds no Event (and its deque of waiters).
        if self._writer_idle is not None and not self._writer_idle.done():
            self._writer_idle.set_result(None)

    def _decongest(self) -> None:
        """End a congestion once the unsent output is down to ``[output] resume_bytes``,
        and run the ``drain_listeners`` (each once; one that raises is logged)."""
        if not self._congested or self._ending or self.unsent > self.config.output.resume_bytes:
            return
        self._congested = False
        log.info("session %r from %s: output drained", self.handle, self.address)
        for listener in list(self.drain_listeners):
            try:
                listener()
            except Exception:
                log.exception("session %r from %s: drain listener failed", self.handle,
                              self.address)

    async def _drain(self) -> bool:
        """Wait until the transport is below its low-water mark. Returns ``False`` (after
        aborting the session) when the socket took no byte for ``[output] drain_timeout``
        seconds of the session's clock, looked at every :data:`STALL_POLL` real seconds."""
        timeout = self.config.output.drain_timeout
        transport = self._writer.transport
        last = transport.get_write_buffer_size() if transport is not None else 0
        since = self._clock()
        while True:
            try:
                async with asyncio.timeout(min(STALL_POLL, timeout)):
                    await self._writer.drain()
                return True
            except TimeoutError:
                pass
            held = transport.get_write_buffer_size() if transport is not None else 0
            now = self._clock()
            if held < last:
                last, since = held, now     # the client took something: not stalled
            elif now - since >= timeout:
                self.abort(f"output did not drain: no byte taken in {timeout} s")
                return False

    async def _write_loop(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            while True:
                if self._out:
                    data = b"".join(self._out)
                    self._out.clear()
                    self._backlog -= len(data)
                    self._writer.write(data)
                elif self._ending:
                    break
                elif not (self._socket_full() or self._congested):
                    self._writer_idle = loop.create_future()
                    await self._writer_idle
                    continue
                # What was written filled the socket (or the session is congested): wait.
                if not await self._drain():
                    return
                if not self._out:
                    self._decongest()
        except (ConnectionError, OSError) as exc:
            log.info("session %r from %s: write failed: %s", self.handle, self.address, exc)
        except Exception:
            log.exception("session %r from %s: output failed", self.handle, self.address)
        self._finish()

    # --- window size and X-messages --------------------------------------------

    def resize(self, cols: int, rows: int) -> None:
        """Apply a NAWS report (clamped by :func:`clamp_size`) and tell the listeners."""
        size = clamp_size(cols, rows, (self.cols, self.rows))
        if size == (self.cols, self.rows):
            return
        self.cols, self.rows = size
        for listener in list(self.resize_listeners):
            listener(*size)

    def deliver(self, message: XMessage) -> bool:
        """Put an X-message in the inbox and tell the listeners (a notice,
        ``message.notice`` set, only goes to the listeners).

        Returns ``False`` (and changes nothing) when the inbox already holds
        :data:`INBOX_SIZE` unread messages or the session has ended.
        """
        if self.closed or (message.notice is None and len(self.inbox) >= INBOX_SIZE):
            return False
        if message.notice is None:
            self.inbox.append(message)
        for listener in list(self.xmessage_listeners):
            listener(message)
        return True
