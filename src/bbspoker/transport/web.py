"""The browser transport: a page with a terminal, and a WebSocket to the door.

:func:`start_web` serves, with aiohttp, on ``[web] host``/``port``:

- ``GET /``: the page (``static/index.html``): a short intro and a terminal emulator,
  xterm.js with its fit add-on, shipped in this package (``static/vendor/``, taken from
  the published npm packages by ``scripts/vendor-xterm``), fitted to the window;
- ``GET /static/<file>``: the page's scripts and styles, the xterm.js files and their
  licences (:data:`FILES`; nothing else is served);
- ``GET /title.ans``: the door's title screen in UTF-8 with colour
  (:func:`bbspoker.door.title.utf8_ansi`), which the page writes into its terminal
  while the WebSocket connects (the session then sends it itself, as to every caller);
- ``GET /ws``: the WebSocket of one door session, through
  :class:`~bbspoker.transport.gateway.Gate` like telnet's and SSH's: the same caps,
  input rate limit, window-size clamps, session and door.

Every response carries :data:`SECURITY_HEADERS`: a Content-Security-Policy that lets
the page load only this server's files and talk only to this server (it works on a
network with no internet; xterm.js needs inline styles, nothing needs inline
scripts), no framing, no sniffing, no referrer.

The WebSocket's messages (:func:`handle_socket`): binary messages from the page are the
keys typed, UTF-8 (``term.onData``, cut in pieces of at most 1 KiB); a text message is
JSON ``{"type": "resize", "cols": C, "rows": R}`` (:func:`parse_resize`); the first size
comes in the URL (``/ws?cols=C&rows=R``). Binary messages to the page are the terminal's
output; any other text message is answered with the text message ``{"type":
"refused", "message": "Unknown control message: ignored."}`` (translated; the page
ignores text messages) and changes nothing. Every
message counts against the rate limit with its length; a message longer than ``[web]
max_message_bytes`` ends the connection (aiohttp refuses it from its header, close code
1009, before reading it); the page's ``Origin`` must be one of ``[web] origins`` or,
with none, this server under a loopback name: a page elsewhere cannot open a session in
a visitor's name, not even under a name its owner has pointed at this machine.
Compression is off (a small message cannot inflate into a large one).
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import importlib.resources
import ipaddress
import json
import logging
from collections.abc import Sequence
from http import HTTPStatus
from string import Template
from typing import Any, cast
from urllib.parse import urlsplit

from aiohttp import WSMsgType, web
from babel.core import negotiate_locale

from bbspoker.config import loopback_host, web_origins
from bbspoker.door import i18n, title
from bbspoker.door.i18n import N_
from bbspoker.transport.gateway import (TOO_FAST, TOO_MANY, Gate, Host, InputRelay,
                                        SocketLimits)
from bbspoker.door.screens.kinds import DEFAULT, games_phrase
from bbspoker.transport.gateway import TOO_FAST, TOO_MANY, Gate, Host, InputRelay

__all__ = ["WebListener", "SocketLink", "HttpConnection", "start_web", "handle_socket",
           "client_address", "FILES", "page_language", "render_page", "parse_resize",
           "CONTROL_MAX_CHARS", "SERVER_NAME",
           "SECURITY_HEADERS", "TERMINAL_KIND", "HEARTBEAT", "WRITE_HIGH"]

log = logging.getLogger("bbspoker.transport.web")

#: The terminal kind of a browser session: what xterm.js emulates.
TERMINAL_KIND = "xterm-256color"
#: Seconds between WebSocket pings; a page that does not answer within half of it is
#: gone.
HEARTBEAT = 30.0
#: Unsent output (bytes) above which the session's writer waits for the page.
WRITE_HIGH = 64 * 1024
#: The ``Server`` header of every response (aiohttp's own names its version).
SERVER_NAME = "bbspoker"
#: The body of the answer to a request that cannot be parsed (4xx).
BAD_REQUEST = N_("Bad request.")
#: The body of the answer when a handler of ours failed (5xx).
FAILED = N_("Sorry, something went wrong.")
#: The longest control message parsed (characters); the page's resize is about 40.
CONTROL_MAX_CHARS = 256
#: The answer to a text message that is not a control message this server knows.
UNKNOWN_CONTROL = N_("Unknown control message: ignored.")
#: What the user reads when the server failed to read the socket.
SORRY = N_("Sorry, something went wrong. Please log in again.")
#: What ``/static/`` serves: URL name -> (file in the package's ``static/``, type).
FILES = {
    "bbspoker.js": ("bbspoker.js", "text/javascript; charset=utf-8"),
    "bbspoker.css": ("bbspoker.css", "text/css; charset=utf-8"),
    "favicon.svg": ("favicon.svg", "image/svg+xml"),
    "xterm/xterm.js": ("vendor/xterm/xterm.js", "text/javascript; charset=utf-8"),
    "xterm/xterm.css": ("vendor/xterm/xterm.css", "text/css; charset=utf-8"),
    "xterm/LICENSE": ("vendor/xterm/LICENSE", "text/plain; charset=utf-8"),
    "addon-fit/addon-fit.js": ("vendor/addon-fit/addon-fit.js",
                               "text/javascript; charset=utf-8"),
    "addon-fit/LICENSE": ("vendor/addon-fit/LICENSE", "text/plain; charset=utf-8"),
}
#: Headers on every response.
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
        "connect-src 'self'; img-src 'self'; font-src 'self'; base-uri 'none'; "
        "form-action 'none'; frame-ancestors 'none'"),
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Cache-Control": "no-cache",
}


def page_language(accept: str | None, default: str) -> str:
    """The language of :data:`~bbspoker.door.i18n.LANGUAGES` a browser prefers by its
    ``Accept-Language`` header (``"de-CH,fr;q=0.8"``: by quality, then order; a region
    falls back to its language), else ``default`` (``[i18n] default``)."""
    ranked = []
    for i, part in enumerate((accept or "").split(",")):
        tag, _, params = part.strip().partition(";")
        try:
            q = float(params.strip()[2:]) if params.strip().startswith("q=") else 1.0
        except ValueError:
            q = 0.0
        if tag and q > 0:
            ranked.append((-q, i, tag.strip().replace("_", "-")))
    preferred = [tag for _q, _i, tag in sorted(ranked)]
    preferred += [tag.split("-")[0] for tag in preferred]
    return negotiate_locale(preferred, list(i18n.LANGUAGES), sep="-") or default


def render_page(template: str, lang: str, kinds: Sequence[str] = (DEFAULT.name,)) -> bytes:
    """The page (``static/index.html``, a :class:`string.Template`) in ``lang``: its
    intro (naming the game kinds ``kinds`` the server's tables run, codes of
    :mod:`bbspoker.door.screens.kinds`), title and the status line's texts, HTML-escaped."""
    t = i18n.translator(lang)
    texts = {
        "door": t.gettext("PoKeR door"),
        "intro": t.gettext("Tables of {games}, played for CUBES. Type a handle to log in, or "
                           "a new one to make an account; then P for the tables. Players "
                           "come in by telnet, SSH and this page, and sit at the same "
                           "tables.").format(games=games_phrase(kinds, t)),
        "connecting": t.gettext("Connecting..."),
        "connected": t.gettext("Connected."),
        "closed": t.gettext("Disconnected. Reload the page to log in again."),
    }
    return Template(template).substitute(
        lang=lang, **{k: html.escape(v) for k, v in texts.items()}).encode()


def _pages(kinds: Sequence[str]) -> dict[str, bytes]:
    """The page in every language for a server whose tables run the game kinds
    ``kinds``, read from the package once: language -> bytes."""
    root = importlib.resources.files("bbspoker.transport") / "static"
    template = (root / "index.html").read_text(encoding="utf-8")
    return {lang: render_page(template, lang, kinds) for lang in i18n.LANGUAGES}


def _static() -> dict[str, tuple[bytes, str]]:
    """:data:`FILES`, read from the package once: name -> (bytes, type)."""
    root = importlib.resources.files("bbspoker.transport") / "static"
    files = {}
    for name, (path, kind) in FILES.items():
        node = root
        for part in path.split("/"):
            node = node / part
        files[name] = (node.read_bytes(), kind)
    return files


class SocketLink(InputRelay):
    """A WebSocket as a session's link (:class:`bbspoker.transport.gateway.Link`): input
    fed by :func:`handle_socket`, output sent as binary messages by a task of its own
    (``write`` never waits), ``drain`` waiting while more than :data:`WRITE_HIGH`
    bytes are unsent."""

    def __init__(self, ws: web.WebSocketResponse) -> None:
        super().__init__()
        self._ws = ws
        self._out = bytearray()
        self._sending = 0
        self._closing = False
        self._wake: asyncio.Future[None] | None = None
        self._sent: asyncio.Future[None] | None = None
        self._limits = (WRITE_HIGH // 4, WRITE_HIGH)
        self._task = asyncio.create_task(self._send_loop(), name="websocket sender")

    def _input_ended(self) -> None:
        self._closing = True
        self._poke()

    # output, to the socket
    @property
    def transport(self) -> SocketLink | None:
        """Itself while open (it answers ``get_write_buffer_size``), ``None`` once closing."""
        return None if self._closing else self

    def get_write_buffer_size(self) -> int:
        """Bytes written and not yet handed to the socket."""
        return len(self._out) + self._sending

    def get_write_buffer_limits(self) -> tuple[int, int]:
        """``(low, high)`` bytes: past ``high`` :meth:`drain` waits."""
        return self._limits

    def set_write_buffer_limits(self, high: int, low: int) -> None:
        """:meth:`drain` waits while more than ``high`` bytes are unsent (``low`` is kept
        for :meth:`get_write_buffer_limits`); the session sets both to ``[output]
        resume_bytes``."""
        self._limits = (low, high)

    def write(self, data: bytes) -> None:
        """Queue ``data`` as terminal output (dropped once closing)."""
        if not self._closing:
            self._out += data
            self._poke()

    async def drain(self) -> None:
        """Wait while more than the high-water mark (:data:`WRITE_HIGH` unless set)
        bytes are unsent; raises ``ConnectionResetError`` once the socket is gone."""
        while self.get_write_buffer_size() > self._limits[1] and not self._ended:
            self._sent = asyncio.get_running_loop().create_future()
            await self._sent
        if self._ended:
            raise ConnectionResetError("WebSocket closed")

    def close(self) -> None:
        """Send what is queued, then close the socket."""
        self._closing = True
        self._poke()

    def _poke(self) -> None:
        if self._wake is not None and not self._wake.done():
            self._wake.set_result(None)

    async def _send_loop(self) -> None:
        ws = self._ws
        try:
            while True:
                if self._out and not self._ended:
                    data = bytes(self._out)
                    self._out.clear()
                    self._sending = len(data)
                    await ws.send_bytes(data)
                    self._sending = 0
                    if self._sent is not None and not self._sent.done():
                        self._sent.set_result(None)
                elif self._closing:
                    break
                else:
                    self._wake = asyncio.get_running_loop().create_future()
                    await self._wake
        except (ConnectionError, RuntimeError) as exc:
            log.info("websocket send failed: %s", exc)
        finally:
            self.end(None)                      # no more output: no more input either
            if self._sent is not None and not self._sent.done():
                self._sent.set_result(None)
            with contextlib.suppress(Exception):
                await ws.close()

    async def wait_closed(self) -> None:
        """Wait until the sender has finished (the socket is closed)."""
        await asyncio.gather(self._task, return_exceptions=True)


def _allowed_origin(request: web.Request, origins: str) -> bool:
    """Whether the page that opens the WebSocket may: no ``Origin`` (not a browser), an
    ``Origin`` among ``origins`` (``[web] origins``), or with ``origins`` empty one on a
    loopback name (:func:`~bbspoker.config.loopback_host`: ``localhost``, 127.0.0.1,
    [::1]) whose host and port are the request's ``Host``. Any other name is refused
    then: its owner may have pointed it at this machine (DNS rebinding), and a page of
    such a name sends an ``Origin`` that matches its own ``Host``."""
    origin = request.headers.get("Origin")
    if origin is None:
        return True
    allowed = web_origins(origins)
    if allowed:
        return origin.rstrip("/") in allowed
    try:
        parts = urlsplit(origin)
        hostname = parts.hostname
    except ValueError:
        return False
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return False
    return parts.netloc.lower() == request.host.lower() and loopback_host(hostname)


_LOOPBACK = ("127.0.0.1", "::1")


def client_address(request: web.Request, forwarded_for: bool) -> str:
    """The address a connection counts as coming from: the peer's, or with
    ``forwarded_for`` and a peer on this machine (a reverse proxy), the last valid address
    of ``X-Forwarded-For`` (the one the proxy added)."""
    peer = request.remote or "-"
    if forwarded_for and peer in _LOOPBACK:
        last = request.headers.get("X-Forwarded-For", "").split(",")[-1].strip()
        try:
            return str(ipaddress.ip_address(last))
        except ValueError:
            return peer
    return peer


def _size(value: str | None, default: int) -> int:
    """A window dimension from the URL: a whole number, else ``default``."""
    try:
        return int(value) if value is not None and len(value) <= 6 else default
    except ValueError:
        return default


async def handle_socket(host: Host, request: web.Request, tasks: set[asyncio.Task[Any]]) \
        -> web.StreamResponse:
    """``GET /ws``: one door session over a WebSocket (see the module docstring). Refuses
    with 403 a page of another origin and with 503 a connection over the caps."""
    config = host.config
    if not _allowed_origin(request, config.web.origins):
        log.warning("refused websocket from %s: origin %r", request.remote,
                    request.headers.get("Origin"))
        return web.Response(status=403, text=i18n.translator(config.i18n.default).gettext(
            "This page may not open a session here.") + "\n")
    gate = Gate(host, client_address(request, config.web.forwarded_for), "web")
    if not gate.admit():
        return web.Response(status=503, text=gate.text(TOO_MANY) + "\n")
    try:
        ws = web.WebSocketResponse(max_msg_size=config.web.max_message_bytes, compress=False,
                                   heartbeat=HEARTBEAT, autoping=True)
        await ws.prepare(request)
        link = SocketLink(ws)
        cols = _size(request.query.get("cols"), 80)
        rows = _size(request.query.get("rows"), 24)
        lang = request.query.get("lang")           # the page's: the login speaks it too
        door = asyncio.create_task(gate.serve(
            link, link, kind=TERMINAL_KIND, cols=cols, rows=rows,
            language=lang if lang in i18n.LANGUAGES else None), name=f"web {gate.address}")
        tasks.add(door)
        door.add_done_callback(tasks.discard)
        try:
            if await _read(gate, ws, link):
                link.end(None)              # the page went away
            # else a limit was broken: the session says why, flushes and closes the socket
        except Exception:
            log.exception("websocket from %s: reading failed", gate.address)
            gate.end(SORRY)
        await door
        await link.wait_closed()
        return ws
    finally:
        # However the reader ended (the page, a limit, an exception, cancellation): the
        # gate ends a session still running before the address's count goes down.
        gate.release()


async def _read(gate: Gate, ws: web.WebSocketResponse, link: SocketLink) -> bool:
    """The page's messages, until the socket closes (``True``) or a limit is broken
    (``False``: the session has been ended with the reason)."""
    while True:
        msg = await ws.receive()
        if msg.type == WSMsgType.BINARY:
            data = msg.data
        elif msg.type == WSMsgType.TEXT:
            data = msg.data.encode("utf-8", errors="replace")
        elif msg.type == WSMsgType.ERROR:
            # aiohttp has closed the socket (1009 for a message too long).
            log.warning("websocket from %s: %s: disconnecting", gate.address, ws.exception())
            return True
        else:                                   # CLOSE, CLOSING, CLOSED
            return True
        if not gate.take(len(data)):
            gate.end(TOO_FAST)
            return False
        if msg.type == WSMsgType.BINARY:
            link.feed(data)
        else:
            size = parse_resize(msg.data)
            if size is None:
                log.info("websocket from %s: unknown control message (%d bytes) refused",
                         gate.address, len(data))
                await ws.send_str(json.dumps({"type": "refused", "message":
                                              gate.text(UNKNOWN_CONTROL)}))
            elif gate.session is not None:
                gate.session.resize(*size)


def parse_resize(text: str) -> tuple[int, int] | None:
    """The window size ``(cols, rows)`` of a control message ``{"type": "resize",
    "cols": C, "rows": R}`` (whole numbers, clamped later by the session), else ``None``:
    not JSON, another shape, or longer than :data:`CONTROL_MAX_CHARS` characters (such a
    message is not parsed at all, so no nesting can exhaust the parser). Never raises."""
    if len(text) > CONTROL_MAX_CHARS:
        return None
    try:
        message = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(message, dict) or message.get("type") != "resize":
        return None
    cols, rows = message.get("cols"), message.get("rows")
    if type(cols) is not int or type(rows) is not int:     # bool is an int: not a size
        return None
    return cols, rows


def _plain_response(status: int, text: str) -> bytes:
    """A whole HTTP/1.1 response of ``status`` with the body ``text`` (one line) and the
    page's headers, that closes the connection (for a socket refused before aiohttp reads
    it)."""
    body = (text + "\n").encode()
    fields = {"Content-Type": "text/plain; charset=utf-8", "Content-Length": str(len(body)),
              "Connection": "close", "Server": SERVER_NAME, **SECURITY_HEADERS}
    status_line = f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\n"
    return (status_line + "".join(f"{name}: {value}\r\n" for name, value in fields.items())
            + "\r\n").encode() + body


class HttpConnection(web.RequestHandler):
    """One socket of the web port: aiohttp's connection handler (its ``keepalive_timeout``
    is ``[web] header_timeout``: a socket that has not sent a whole request that long
    after it opened or after its last response is closed), plus:

    - the socket is counted in the port's :class:`SocketLimits` from accept to close
      (the address as ``[web] forwarded_for`` says: a trusted proxy's counts in the
      total only); one over a cap gets a 503 with :data:`~bbspoker.transport.gateway.TOO_MANY`
      in ``[i18n] default`` and is closed before a byte is read;
    - a request aiohttp cannot parse (a request line or a header past 8,190 bytes, bad
      syntax) is answered by :meth:`handle_error` with the page's headers and one
      translated line, never an echo of the request, and logged as one WARNING line.
    """

    def __init__(self, manager: web.Server, *, host: Host, counts: SocketLimits,
                 **kwargs: Any) -> None:
        super().__init__(manager, **kwargs)
        self._host, self._counts = host, counts
        self._address = "-"
        self._counted_as: str | None = None
        self._counted = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """Count the socket, or refuse it (503) when over a cap."""
        peer = transport.get_extra_info("peername") or ("-",)
        self._address = str(peer[0])
        trusted = self._host.config.web.forwarded_for and self._address in _LOOPBACK
        self._counted_as = None if trusted else self._address
        super().connection_made(transport)
        if self._counts.admit(self._counted_as):
            self._counted = True
            return
        log.warning("refused web connection from %s: too many connections", self._address)
        t = i18n.translator(self._host.config.i18n.default)
        cast(asyncio.Transport, transport).write(_plain_response(503, t.gettext(TOO_MANY)))
        self.force_close()

    def connection_lost(self, exc: BaseException | None) -> None:
        """Uncount the socket (once)."""
        super().connection_lost(exc)
        if self._counted:
            self._counted = False
            self._counts.release(self._counted_as)

    def handle_error(self, request: web.BaseRequest, status: int = 500,
                     exc: BaseException | None = None,
                     message: str | None = None) -> web.StreamResponse:
        """The answer to a request aiohttp could not parse (4xx) or whose handler raised
        (5xx): ``status`` with the page's headers and one translated line; the request
        is never echoed. A 4xx is logged as one WARNING line (status and error class);
        an exception of our own handlers as an ERROR with its traceback. The connection
        is closed after it. Raises ``ConnectionError`` if a response had already begun."""
        if request.writer.output_size > 0:
            raise ConnectionError("a response was already sent: cannot send the error")
        if status >= 500 and exc is not None:
            log.error("web request from %s failed", self._address, exc_info=exc)
        else:
            log.warning("web request from %s refused: %d %s", self._address, status,
                        type(exc).__name__ if exc is not None else HTTPStatus(status).phrase)
        t = i18n.translator(self._host.config.i18n.default)
        text = t.gettext(BAD_REQUEST if status < 500 else FAILED)
        response = web.Response(status=status, text=text + "\n",
                                headers={**SECURITY_HEADERS, "Server": SERVER_NAME})
        response.force_close()
        return response


class WebListener:
    """The listening web port (from :func:`start_web`): ``port`` is the TCP port,
    ``connections`` the :class:`SocketLimits` of its open sockets, ``tasks`` the door
    tasks of its WebSockets."""

    def __init__(self, runner: web.AppRunner, listening: asyncio.Server, port: int,
                 tasks: set[asyncio.Task[Any]], connections: SocketLimits) -> None:
        self._runner, self._listening = runner, listening
        self.port = port
        self.tasks = tasks
        self.connections = connections
        self._cleanup: asyncio.Task[None] | None = None

    def stop_accepting(self) -> None:
        """Close the listening socket; sessions already open go on."""
        self._listening.close()

    def close(self) -> None:
        """Stop accepting and close every connection (in a task; see :meth:`wait_closed`)."""
        self.stop_accepting()
        if self._cleanup is None:
            self._cleanup = asyncio.create_task(self._runner.cleanup(), name="web cleanup")

    async def wait_closed(self) -> None:
        """Wait until every connection is closed and every door task has ended."""
        if self._cleanup is None:
            self.close()
        assert self._cleanup is not None     # close() started it
        if self.tasks:
            await asyncio.gather(*list(self.tasks), return_exceptions=True)
        await self._cleanup
        await self._listening.wait_closed()


async def start_web(host: Host) -> WebListener:
    """Serve the page and the WebSocket on ``host.config.web.host``/``port`` (0: any
    free port) for ``host``. Returns the :class:`WebListener`. Raises ``OSError`` if the
    port cannot be bound, ``FileNotFoundError`` if the package's files are missing."""
    config = host.config
    files = _static()
    pages = _pages([spec.game for spec in config.table_specs])
    title_art = title.utf8_ansi().encode("utf-8")
    tasks: set[asyncio.Task[Any]] = set()

    async def headers(request: web.Request, response: web.StreamResponse) -> None:
        # Every response of the application, errors and the WebSocket's 101 included,
        # just before its headers go out.
        response.headers.update(SECURITY_HEADERS)
        response.headers["Server"] = SERVER_NAME

    async def page(request: web.Request) -> web.Response:
        lang = page_language(request.headers.get("Accept-Language"), config.i18n.default)
        return web.Response(body=pages[lang], headers={
            "Content-Type": "text/html; charset=utf-8", "Content-Language": lang,
            "Vary": "Accept-Language"})

    async def static(request: web.Request) -> web.Response:
        found = files.get(request.match_info["name"])
        if found is None:
            raise web.HTTPNotFound(text="Not found.\n")
        body, kind = found
        return web.Response(body=body, headers={"Content-Type": kind})

    async def title_screen(request: web.Request) -> web.Response:
        return web.Response(body=title_art, headers={
            "Content-Type": "text/plain; charset=utf-8"})

    async def socket(request: web.Request) -> web.StreamResponse:
        return await handle_socket(host, request, tasks)

    app = web.Application(client_max_size=4096)
    app.on_response_prepare.append(headers)
    app.router.add_get("/", page)
    app.router.add_get("/static/{name:.+}", static)
    app.router.add_get("/title.ans", title_screen)
    app.router.add_get("/ws", socket)
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0,
                           handle_signals=False)
    await runner.setup()
    server = runner.server
    assert server is not None                   # set up just above
    loop = asyncio.get_running_loop()
    counts = SocketLimits(config.web.max_connections, config.web.max_connections_per_address)

    def connection() -> HttpConnection:
        # aiohttp's TCPSite would make a plain RequestHandler: ours counts and answers
        # unparseable requests itself.
        return HttpConnection(server, loop=loop, host=host, counts=counts, access_log=None,
                              keepalive_timeout=config.web.header_timeout)

    try:
        listening = await loop.create_server(connection, config.web.host, config.web.port)
    except BaseException:
        await runner.cleanup()
        raise
    port = listening.sockets[0].getsockname()[1]
    log.info("web listening on %s port %d", config.web.host, port)
    return WebListener(runner, listening, port, tasks, counts)
