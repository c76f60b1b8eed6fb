"""The one place where any transport's connection becomes the door's session.

Telnet (:mod:`bbspoker.transport.telnet`), SSH (:mod:`bbspoker.transport.ssh`) and the
browser's WebSocket (:mod:`bbspoker.transport.web`) each hand their connections here:

- :class:`Gate` is one connection's account with the server's limits: the connection
  caps (:class:`ConnectionLimits`: in total, per address, per address before login),
  the input rate limit (:class:`TokenBucket`, ``[input]`` rate and burst, charged with
  every byte the client sends, whatever the transport wraps it in) and, once the
  transport has what the door needs (the bytes in and out, the window size and the
  terminal kind), :meth:`Gate.serve`, which builds the
  :class:`~bbspoker.transport.session.Session`, runs the host's door (login, lobby,
  tables: the door's own pre-login and idle timeouts) and cleans up after it.
- :func:`terminal_for` turns a terminal kind (telnet's TTYPE, SSH's PTY request, the
  browser's ``xterm-256color``) into the shared ``blessed.Terminal`` and the encoding
  (:func:`encoding_for`).

A transport provides the session's *link* (:class:`Link`): the bytes in (``consume``),
out (``write``, ``drain``, ``close``) and how much output is still waiting
(``transport.get_write_buffer_size()``).
"""

from __future__ import annotations

import io
import logging
import re
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, cast

import blessed

from bbspoker.config import Config
from bbspoker.door import i18n
from bbspoker.door.i18n import N_
from bbspoker.transport.session import Session

__all__ = ["Host", "Gate", "Link", "InputRelay", "TokenBucket", "ConnectionLimits", "terminal_for",
           "encoding_for", "FALLBACK_KIND", "CP437_KINDS", "DECSTBM_KINDS", "TOO_MANY", "TOO_FAST",
           "SocketLimits"]

log = logging.getLogger("bbspoker.transport.gateway")

#: Terminal kind used when the client's kind is missing or unknown.
FALLBACK_KIND = "ansi"
#: Terminal kinds whose users expect CP437 (IBM PC) characters instead of UTF-8.
CP437_KINDS = frozenset({"syncterm", "ansi-bbs"})
#: Terminal kinds given a scroll region (DECSTBM, ``CSI top;bottom r``) where their terminfo
#: entry has none: ``ansi`` (any unknown TTYPE) and ``ansi-bbs`` describe ANSI.SYS,
#: but the clients that send them (SyncTERM, NetRunner, PuTTY, netkit telnet in a terminal)
#: all honour DECSTBM; with it the message area scrolls instead of being rewritten.
DECSTBM_KINDS = frozenset({"ansi", "ansi-bbs", "syncterm"})
_DECSTBM = "\x1b[%i%p1%d;%p2%dr"  # xterm's csr
_KIND_RE = re.compile(r"[a-z0-9][a-z0-9._+-]{0,39}")
_UNKNOWN_KINDS_MAX = 256

_terminals: dict[str, blessed.Terminal] = {}
_unknown_kinds: set[str] = set()


def terminal_for(kind: str | None) -> blessed.Terminal:
    """The shared ``blessed.Terminal`` for a client's terminal kind (any case).

    One ``Terminal`` per kind serves every session of that kind (they only
    build escape sequences). A missing, malformed or unknown kind gets
    :data:`FALLBACK_KIND`; the server's own ``$TERM`` never matters.
    """
    kind = (kind or "").strip().lower()
    if not _KIND_RE.fullmatch(kind) or kind in _unknown_kinds:
        kind = FALLBACK_KIND
    term = _terminals.get(kind)
    if term is None:
        term = blessed.Terminal(kind=kind, stream=io.StringIO(), force_styling=True,
                                kind_fallback=FALLBACK_KIND)
        if term.kind != kind:
            if len(_unknown_kinds) < _UNKNOWN_KINDS_MAX:
                _unknown_kinds.add(kind)
            return terminal_for(FALLBACK_KIND)
        csr = cast(blessed.formatters.ParameterizingString, term.csr)   # takes parameters
        if kind in DECSTBM_KINDS and not str(csr(0, 1)):
            # blessed caches capabilities as instance attributes: this one is then used.
            setattr(term, "csr", blessed.formatters.ParameterizingString(_DECSTBM, term.normal,
                                                                         "csr"))
        _terminals[kind] = term
    return term


def encoding_for(term: blessed.Terminal) -> str:
    """The encoding of a terminal kind: ``"cp437"`` for :data:`CP437_KINDS`, else
    ``"utf-8"``."""
    return "cp437" if term.kind in CP437_KINDS else "utf-8"


class TokenBucket:
    """The input rate limit: ``rate`` bytes per second sustained, bursts up to ``burst`` bytes.

    ``take(n)`` spends ``n`` tokens and returns ``False`` once the bucket would
    go below zero (the input cannot come from a person). Time comes from
    ``clock`` (seconds, monotonic; tests inject one).
    """

    def __init__(self, rate: float, burst: float, clock: Callable[[], float]) -> None:
        self._rate, self._burst, self._clock = rate, burst, clock
        self._tokens = burst
        self._last = clock()

    def take(self, n: int) -> bool:
        """Spend ``n`` tokens; ``False`` if there were not enough."""
        now = self._clock()
        self._tokens = min(self._burst, self._tokens + (now - self._last) * self._rate) - n
        self._last = now
        return self._tokens >= 0


#: What a transport says when it ends a connection (message ids, translated by
#: :meth:`Gate.text` into the session's language).
TOO_MANY = N_("Too many connections, please try again later.")
TOO_FAST = N_("Input faster than a person can type: disconnected.")


class ConnectionLimits:
    """The connection caps, shared by every transport: ``max_total``
    connections at once, at most ``max_sessions`` from one address (logged in or not),
    and at most ``max_per_address`` not-yet-logged-in connections from one address."""

    def __init__(self, max_total: int, max_per_address: int, max_sessions: int = 32) -> None:
        self.max_total, self.max_per_address = max_total, max_per_address
        self.max_sessions = max_sessions
        self.total = 0
        self.prelogin: Counter[str] = Counter()
        self.by_address: Counter[str] = Counter()

    def admit(self, address: str | None) -> bool:
        """Count a new connection from ``address``; ``False`` (nothing counted) if over a cap.
        ``None``: a connection counted in the total only (a BBS's RLOGIN connection: its
        own ``max_nodes`` caps them, not the per-address caps)."""
        if self.total >= self.max_total:
            return False
        if address is None:
            self.total += 1
            return True
        if self.prelogin[address] >= self.max_per_address \
                or self.by_address[address] >= self.max_sessions:
            return False
        self.total += 1
        self.prelogin[address] += 1
        self.by_address[address] += 1
        return True

    def logged_in(self, address: str | None) -> None:
        """A connection from ``address`` has logged in: it no longer counts as pre-login
        (``None``: one counted in the total only)."""
        if address is not None:
            self._drop_prelogin(address)

    def release(self, address: str | None, *, prelogin: bool) -> None:
        """A counted connection has closed (``prelogin``: it never logged in); ``address``
        as given to :meth:`admit`."""
        self.total -= 1
        if address is None:
            return
        self.by_address[address] -= 1
        if self.by_address[address] <= 0:
            del self.by_address[address]
        if prelogin:
            self._drop_prelogin(address)

    def _drop_prelogin(self, address: str) -> None:
        self.prelogin[address] -= 1
        if self.prelogin[address] <= 0:
            del self.prelogin[address]


class SocketLimits:
    """The caps on the open sockets of a port that serves more than door sessions (the
    web port: the page, its files and WebSockets), counted at accept, before a byte is
    read: at most ``max_total`` at once, at most ``max_per_address`` from one address.
    A door session on such a socket also counts in :class:`ConnectionLimits` through its
    :class:`Gate`."""

    def __init__(self, max_total: int, max_per_address: int) -> None:
        self.max_total, self.max_per_address = max_total, max_per_address
        self.total = 0
        self.by_address: Counter[str] = Counter()

    def admit(self, address: str | None) -> bool:
        """Count a socket just accepted from ``address`` (``None``: a trusted proxy's,
        counted in the total only); ``False`` (nothing counted) if over a cap."""
        if self.total >= self.max_total or (
                address is not None and self.by_address[address] >= self.max_per_address):
            return False
        self.total += 1
        if address is not None:
            self.by_address[address] += 1
        return True

    def release(self, address: str | None) -> None:
        """A socket counted by :meth:`admit` with the same ``address`` has closed."""
        self.total -= 1
        if address is not None:
            self.by_address[address] -= 1
            if self.by_address[address] <= 0:
                del self.by_address[address]


class Host(Protocol):
    """What a transport needs from the server it serves (the composition root's
    :class:`bbspoker.app.App` is one): the config, the clock (monotonic seconds), the
    connection caps, whether it is stopping, the set of open sessions, the door to run
    for each session, and the log-out of a session that ended."""

    config: Config
    clock: Callable[[], float]
    limits: ConnectionLimits
    stopping: bool
    sessions: set[Session]

    def serve_door(self, session: Session) -> Awaitable[None]:
        """Run the door (login, lobby, tables) for ``session`` until it ends."""

    def log_out(self, session: Session) -> None:
        """Forget ``session`` as a logged-in user."""


class Link(Protocol):
    """A session's connection as a transport provides it (the reader and the writer of
    :class:`~bbspoker.transport.session.Session` may be one object):

    - ``consume(on_data, on_end)``: hand every chunk of input (``bytes``) to ``on_data``
      as it comes, then the end of input to ``on_end`` (``None`` or the exception);
    - ``write(data)`` (never blocks), ``async drain()`` (waits while too much output is
      unsent), ``close()``;
    - ``transport``: an object with ``get_write_buffer_size()`` (bytes not yet sent) and
      ``get_write_buffer_limits()`` (``(low, high)``: past ``high`` ``drain`` waits), or
      ``None`` once closed.
    """

    transport: Any

    def consume(self, on_data: Callable[[bytes], None],
                on_end: Callable[[Exception | None], None]) -> None: ...

    def write(self, data: bytes) -> None: ...

    async def drain(self) -> None: ...

    def close(self) -> None: ...


class InputRelay:
    """The input half of a link whose transport pushes data (SSH channels, WebSockets):
    :meth:`feed` chunks and :meth:`end` as they come; what comes before the session
    calls :meth:`consume` is held and handed over then. The transport charges the rate
    limit before it feeds, so what is held stays small."""

    def __init__(self) -> None:
        self._on_data: Callable[[bytes], None] | None = None
        self._on_end: Callable[[Exception | None], None] | None = None
        self._held = bytearray()
        self._ended = False
        self._end_exc: Exception | None = None

    def consume(self, on_data: Callable[[bytes], None],
                on_end: Callable[[Exception | None], None]) -> None:
        """Hand what came so far, then every later chunk, to ``on_data``; the end of
        input to ``on_end``. Called once."""
        self._on_data, self._on_end = on_data, on_end
        if self._held:
            data = bytes(self._held)
            self._held.clear()
            on_data(data)
        if self._ended:
            on_end(self._end_exc)

    def feed(self, data: bytes) -> None:
        """Input arrived (already charged to the rate limit)."""
        if self._on_data is not None:
            self._on_data(data)
        else:
            self._held += data

    def end(self, exc: Exception | None) -> None:
        """Input ended (``None``: closed by the client; else the connection was lost with
        ``exc``); later calls do nothing."""
        if self._ended:
            return
        self._ended, self._end_exc = True, exc
        self._input_ended()
        if self._on_end is not None:
            self._on_end(exc)

    def _input_ended(self) -> None:
        """What a subclass does when input ends, before the session is told."""


class Gate:
    """One connection's account with the server's limits, whatever its transport.

    ``Gate(host, address, kind)``: ``address`` is the peer's IP address (``str``),
    ``kind`` names the transport in the log (``"telnet"``, ``"ssh"``, ``"web"``).
    Call :meth:`admit` when the connection opens (``False``: over a cap, nothing
    counted; refuse it), :meth:`take` with every chunk of input (``False``: faster than a
    person; end it), :meth:`serve` to run the door, and :meth:`release` once the
    connection is gone, however it went (idempotent). ``session`` is the running session,
    else ``None``.

    The rule, for every transport: a connection's place in the caps is given back only
    after its door session has ended and been forgotten. :meth:`release` ends a session
    still running (its reader failed, its handler was cancelled, the peer went away) and
    leaves the uncounting to :meth:`serve` once the session has closed; so no session
    ever lives on without its connection, and the caps always count every live session.
    """

    def __init__(self, host: Host, address: str, kind: str, *,
                 per_address: bool = True) -> None:
        self.host = host
        self.address = address
        self.kind = kind
        #: Whether the connection counts in the per-address caps (``False``: in the total
        #: only, as a BBS's RLOGIN connection, capped by its system's ``max_nodes``).
        self.per_address = per_address
        self.session: Session | None = None
        self.counted = False
        self.gone = False
        self._had_handle = False
        inp = host.config.input
        self._bucket = TokenBucket(inp.rate_bytes_per_second, inp.rate_burst_bytes, host.clock)

    def admit(self) -> bool:
        """Count the connection against the caps; ``False`` (nothing counted) when the
        server is stopping or a cap is reached (the transport refuses it)."""
        if self.host.stopping or not self.host.limits.admit(self.counted_address):
            log.warning("refused %s connection from %s: too many connections", self.kind,
                        self.address)
            return False
        self.counted = True
        return True

    def take(self, n: int) -> bool:
        """Charge ``n`` bytes of input to the rate limit; ``False`` past it."""
        if self._bucket.take(n):
            return True
        log.warning("%s input from %s too fast: disconnecting", self.kind, self.address)
        return False

    def release(self) -> None:
        """The connection is gone (closed, lost, its reader failed or was cancelled): a
        session still running is aborted and the connection uncounted once it has closed
        (by :meth:`serve`); with no session it is uncounted now. Idempotent; never
        raises."""
        self.gone = True
        if self.session is not None:
            self.session.abort(f"{self.kind} connection gone")
            return
        self._uncount()

    def _uncount(self) -> None:
        """Give the connection's place in the caps back (once)."""
        if self.counted:
            self.counted = False
            self.host.limits.release(self.counted_address, prelogin=not self._had_handle)

    @property
    def counted_address(self) -> str | None:
        """The address the connection counts under in the per-address caps (``None``:
        the total only)."""
        return self.address if self.per_address else None

    async def serve(self, reader: Any, writer: Any, *, kind: str | None, cols: int, rows: int,
                    authenticated: str | None = None, language: str | None = None,
                    encoding: str | None = None, xtrn: str | None = None,
                    time_left: float | None = None) -> None:
        """Run the door for this connection until it ends: a
        :class:`~bbspoker.transport.session.Session` over ``reader``/``writer`` (a
        :class:`Link`, possibly the same object) with the terminal of ``kind``
        (:func:`terminal_for`), ``cols`` x ``rows`` (clamped; 0: 80x24) and
        ``authenticated`` (the handle the transport checked the password or key of, or
        ``None``). ``language``: the one the login speaks (the browser page's; ``None``:
        ``[i18n] default``). ``encoding``: ``"cp437"`` or ``"utf-8"`` when the transport
        knows it (``None``: :func:`encoding_for` the terminal). ``xtrn``: the table id or
        game kind to go straight to after login; ``time_left``: the seconds the caller has
        (their BBS's time limit), ``None`` for no limit. Any exception in the door is logged, the user sees one
        line; the session is closed and forgotten when this returns, and if the
        connection is already gone (:meth:`release`) its place in the caps is given back
        then. With the connection already gone it returns at once. Never raises (but
        ``CancelledError``)."""
        host = self.host
        if self.gone:
            return
        term = terminal_for(kind)
        session = Session(host.config, reader, writer, address=self.address, term=term,
                          encoding=encoding or encoding_for(term), cols=cols or 80,
                          rows=rows or 24, authenticated=authenticated, clock=host.clock)
        session.counted_address = self.counted_address
        session.xtrn, session.time_left = xtrn, time_left
        if language is not None:
            session.language = language
        self.session = session
        host.sessions.add(session)
        log.info("%s session from %s: terminal %s, %s, %dx%d", self.kind, session.address,
                 term.kind, session.encoding, session.cols, session.rows)
        session.start()
        try:
            await host.serve_door(session)
        except Exception:
            log.exception("session %r from %s failed", session.handle, session.address)
            session.end(i18n.of(session).gettext(
                "Sorry, something went wrong. Please log in again."))
        finally:
            try:
                host.log_out(session)
                session.end()
                await session.wait_closed()
            finally:
                host.sessions.discard(session)
                # Let the session go with its connection (telnetlib3 keeps the last 1,000
                # protocols, and with them their gates).
                self._had_handle = session.handle is not None
                self.session = None
                log.info("%s session %r from %s closed", self.kind, session.handle,
                         session.address)
                if self.gone:
                    self._uncount()

    def text(self, message: str, **data: Any) -> str:
        """``message`` (an English message id marked with ``N_``; ``{placeholders}``
        filled from ``data``) in the session's language, or in ``[i18n] default`` while
        there is no session (a refusal before the door runs, the SSH banner)."""
        t = (i18n.of(self.session) if self.session is not None
             else i18n.translator(self.host.config.i18n.default))
        return t.gettext(message).format(**data)

    def end(self, message: str, **data: Any) -> bool:
        """End the running session with ``message`` (a message id, see :meth:`text`) in
        its language; ``False`` if there is none yet."""
        if self.session is None:
            return False
        self.session.end(self.text(message, **data))
        return True
