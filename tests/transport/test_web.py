"""The browser transport (issue 19): the page, its headers and files, and the WebSocket
door session against the real server, next to telnet players; bad input on it."""

from __future__ import annotations

import asyncio
import importlib.resources
import json
import logging
import re

import aiohttp
import pyte
import pytest

from bbspoker.transport import web
from bbspoker.transport.web import FILES, SECURITY_HEADERS, page_language
from tests.support.tableplay import join
from tests.support.telnetclient import wait_until
from tests.transport.test_server import count_releases
from tests.support.termclients import WebClient, telnet, transport_server

pytestmark = pytest.mark.e2e


def web_server(tmp_path, **config):
    """The real server with the web port on a free port, a fake clock and no login delays;
    yields (server, clients: a list closed at the end, clock)."""
    return transport_server(tmp_path, "web", **config)


async def browser(server, made, **kwargs) -> WebClient:
    c = await WebClient.connect(server.web_port, **kwargs)
    made.append(c)
    return c


async def test_the_page_loads_only_its_own_files_with_a_strict_policy(tmp_path):
    async with web_server(tmp_path) as (server, made, clock):
        base = f"http://127.0.0.1:{server.web_port}"
        async with aiohttp.ClientSession() as http:
            async with http.get(base + "/") as r:
                page = await r.text()
                assert r.status == 200 and r.content_type == "text/html"
                for name, value in SECURITY_HEADERS.items():
                    assert r.headers[name] == value
            csp = SECURITY_HEADERS["Content-Security-Policy"]
            assert "default-src 'none'" in csp and "script-src 'self';" in csp
            assert "connect-src 'self'" in csp and "frame-ancestors 'none'" in csp
            # Every file the page names is this server's, and is served.
            urls = re.findall(r'(?:src|href)="([^"]+)"', page)
            assert urls and not [u for u in urls if "//" in u or u.startswith("/")]
            assert "<script>" not in page and "style=" not in page   # nothing inline
            for url in urls:
                async with http.get(f"{base}/{url}") as r:
                    assert r.status == 200, url
                    assert r.headers["X-Content-Type-Options"] == "nosniff"
            async with http.get(base + "/static/xterm/xterm.js") as r:
                assert "text/javascript" in r.headers["Content-Type"]
                assert b"xterm" in await r.read()
            for path in ("/static/../pyproject.toml", "/static/vendor/xterm/package.json",
                         "/static/nothing.js", "/etc/passwd"):
                async with http.get(base + path) as r:
                    assert r.status == 404, path
    # The files come with the package (package data), xterm.js with its licence.
    root = importlib.resources.files("bbspoker.transport") / "static"
    assert (root / "vendor" / "xterm" / "LICENSE").read_text().startswith("Copyright")
    assert all((root / path).is_file() for path, _ in FILES.values())


async def test_the_page_can_show_the_title_screen_before_its_socket_connects(tmp_path):
    """``/title.ans``: the door's title screen in UTF-8 with colour, which the page
    writes into its terminal while the WebSocket connects (the session then sends
    the same drawing itself); served with the page's security headers."""
    async with web_server(tmp_path) as (server, made, clock):
        base = f"http://127.0.0.1:{server.web_port}"
        async with aiohttp.ClientSession() as http:
            async with http.get(base + "/title.ans") as r:
                body = await r.read()
                assert r.status == 200
                assert r.headers["Content-Type"] == "text/plain; charset=utf-8"
                for name, value in SECURITY_HEADERS.items():
                    assert r.headers[name] == value
    screen = pyte.Screen(80, 24)
    pyte.Stream(screen).feed(body.decode("utf-8"))
    hearts = [cell for row in screen.buffer.values() for cell in row.values()
              if cell.data == "\u2665"]
    assert hearts and all(cell.fg == "red" for cell in hearts)
    assert "Global Village BBS" in "\n".join(screen.display)
    script = (importlib.resources.files("bbspoker.transport") / "static" / "bbspoker.js")
    assert '"title.ans"' in script.read_text()


async def test_the_page_and_its_login_speak_the_browsers_language(tmp_path):
    """Issue 18: the page is served in the language the browser prefers among en/de/fr
    (Accept-Language; else [i18n] default), its script asks the door for that language,
    and the login speaks it; a user's own choice applies once logged in."""
    assert page_language("de-CH,de;q=0.9,en;q=0.8", "en") == "de"
    assert page_language("es, fr;q=0.5, en;q=0.4", "en") == "fr"
    assert page_language("ja", "de") == page_language(None, "de") == "de"
    assert page_language("en;q=0, fr-CA", "de") == "fr"
    async with web_server(tmp_path) as (server, made, clock):
        base = f"http://127.0.0.1:{server.web_port}"
        async with aiohttp.ClientSession() as http:
            async with http.get(base + "/", headers={"Accept-Language": "fr-FR,fr;q=0.9"}) as r:
                page = await r.text()
                assert r.headers["Content-Language"] == "fr"
            assert '<html lang="fr">' in page and "Connexion" in page and "$" not in page
            async with http.get(base + "/") as r:
                assert '<html lang="en">' in await r.text()
        c = await WebClient.connect(server.web_port, lang="de")
        made.append(c)
        await c.wait_for("Global Village BBS - PoKeR-Tür")
        await c.wait_for("Name:")
        await c.send("ulla\r")
        await c.wait_for("Neuen Benutzer ulla anlegen? (j/n)")


async def test_a_browser_player_logs_in_joins_a_telnet_player_and_resizes(tmp_path):
    async with web_server(tmp_path) as (server, made, clock):
        alice = await telnet(server, made)
        await alice.login("alice", "pw-alice")
        await join(alice, "Nobody is using the poker game right now.")
        bob = await browser(server, made, cols=90, rows=30)
        await bob.login("bob", "pw-bob-1")
        session = server.app.find_online("bob")
        assert session.term.kind == "xterm-256color" and (session.cols, session.rows) == (90, 30)
        await join(bob, "alice")
        await alice.wait_for("bob has joined the table.")
        # Chat typed in the browser reaches the telnet player; an escape sequence in it
        # is taken as a key, never passed on.
        mark = len(alice.received)
        await bob.send(".hi \x1b[2Jthere\r")
        await alice.wait_for("[bob] hi there")
        assert b"\x1b[2J" not in alice.received[mark:]
        await bob.resize(120, 40)
        await wait_until(lambda: (session.cols, session.rows) == (120, 40))
        await bob.wait_for("[X] Exit the game")
        await bob.send_frame('{"type": "resize", "cols": "x", "rows": []}')   # ignored
        await bob.send_frame("not json")
        await bob.send("x")
        await bob.wait_for("(y/n)")


async def test_an_oversized_message_ends_that_connection_only(tmp_path):
    async with web_server(tmp_path) as (server, made, clock):
        alice = await telnet(server, made)
        await alice.login("alice", "pw-alice")
        calm = await browser(server, made)
        await calm.wait_for("Handle:")
        big = await browser(server, made)
        await big.wait_for("Handle:")
        await big.send_frame(b"x" * (server.app.config.web.max_message_bytes + 1))
        await big.wait_closed()
        assert big.close_code == aiohttp.WSCloseCode.MESSAGE_TOO_BIG
        # A flood of small messages is cut off by the rate limit.
        flood = await browser(server, made)
        await flood.wait_for("Handle:")
        for _ in range(10):
            await flood.send_frame(b" " * 3999 + b"\r")
        await flood.wait_for("Input faster than a person can type: disconnected.")
        await flood.wait_closed()
        # The others go on.
        await calm.login("carol", "pw-carol")
        await alice.send("w")
        await alice.wait_for("carol")
        await wait_until(lambda: server.app.limits.total == 2)


async def test_wrong_passwords_in_the_browser_lock_the_address_out(tmp_path):
    async with web_server(tmp_path, login={"max_failures": 2}) as (server, made, clock):
        alice = await telnet(server, made)
        await alice.login("alice", "pw-alice")
        await alice.send("q")
        mallory = await browser(server, made)
        await mallory.wait_for("Handle:")
        await mallory.send("alice\r")
        await mallory.wait_for("Password:")
        await mallory.send("guess1\r")
        await mallory.wait_for("Wrong password.")
        await mallory.send("alice\r")
        await wait_until(lambda: mallory.text.count("Password:") == 2)
        await mallory.send("guess2\r")
        await mallory.wait_for("Too many failed logins: try again later.")
        await mallory.wait_closed()
        again = await browser(server, made)
        await again.wait_for("Too many failed logins from your address.")


async def test_behind_a_proxy_the_forwarded_address_counts_only_when_asked(tmp_path):
    async def address_of(server, made, forwarded: str) -> str:
        http = aiohttp.ClientSession()
        ws = await http.ws_connect(f"http://127.0.0.1:{server.web_port}/ws",
                                   headers={"X-Forwarded-For": forwarded})
        c = WebClient(http, ws, 80, 24)
        made.append(c)
        await c.wait_for("Handle:")
        (session,) = [s for s in server.app.sessions if s.authenticated is None
                      and s.address not in seen]
        seen.add(session.address)
        return session.address

    seen: set[str] = set()
    async with web_server(tmp_path) as (server, made, clock):
        assert await address_of(server, made, "203.0.113.7") == "127.0.0.1"
    seen.clear()
    (tmp_path / "b").mkdir()
    async with web_server(tmp_path / "b", web={"forwarded_for": True}) as (server, made, clock):
        assert await address_of(server, made, "198.51.100.1, 203.0.113.7") == "203.0.113.7"
        assert await address_of(server, made, "not an address") == "127.0.0.1"


async def test_a_page_of_another_site_may_not_open_a_session(tmp_path):
    async with web_server(tmp_path) as (server, made, clock):
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await browser(server, made, origin="https://evil.example")
        assert refused.value.status == 403
        assert server.app.limits.total == 0
    (tmp_path / "b").mkdir()
    async with web_server(tmp_path / "b", web={"origins": "https://bbs.example.org"}) as (
            server, made, clock):
        c = await browser(server, made, origin="https://bbs.example.org")
        await c.wait_for("Handle:")


async def test_the_connection_caps_count_the_browser_with_telnet(tmp_path):
    async with web_server(tmp_path, server={"max_connections": 1}) as (server, made, clock):
        first = await telnet(server, made)
        await first.wait_for("Handle:")
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await browser(server, made)
        assert refused.value.status == 503
        await first.close()
        await wait_until(lambda: server.app.limits.total == 0)
        c = await browser(server, made)
        await c.wait_for("Handle:")


async def test_a_deeply_nested_control_message_is_refused_and_the_session_goes_on(tmp_path):
    """4,000 bytes of nested brackets (under the message cap) made the JSON parser raise
    RecursionError: the handler died and left the door session behind without its
    connection. Now the message is refused with a text message and nothing else changes."""
    async with web_server(tmp_path, i18n={"default": "de"}) as (server, made, clock):
        c = await browser(server, made)
        await c.wait_for("Name:")
        for frame in ("[" * 2000 + "]" * 2000, '{"a":' * 600 + "1" + "}" * 600,
                      "not json", '{"type": "resize", "cols": "x", "rows": []}'):
            mark = len(c.texts)
            await c.send_frame(frame)
            await wait_until(lambda: len(c.texts) > mark)
            assert json.loads(c.texts[-1]) == {
                "type": "refused", "message": "Unbekannte Steuernachricht: ignoriert."}
        await c.send("ulla\r")
        await c.wait_for("Neuen Benutzer ulla anlegen? (j/n)")
        assert len(server.app.sessions) == 1 and server.app.limits.total == 1
        await c.resize(100, 30)
        (session,) = server.app.sessions
        await wait_until(lambda: (session.cols, session.rows) == (100, 30))
        assert len(c.texts) == 4                    # a good resize is not answered


async def test_a_reader_that_fails_ends_its_session_before_its_place_is_given_back(
        tmp_path, monkeypatch, caplog):
    """Whatever way the reader ends, the door session is ended first and the address's
    count released after it: no session lives on without its connection."""
    async with web_server(tmp_path) as (server, made, clock):
        app = server.app
        live_at_release = count_releases(monkeypatch, app)
        alice = await browser(server, made)
        await alice.login("alice", "pw-alice")

        def broken(self, data: bytes) -> None:
            raise RuntimeError("the reader broke")

        monkeypatch.setattr(web.SocketLink, "feed", broken)
        await alice.send("w")
        await alice.wait_for("Sorry, something went wrong. Please log in again.")
        await alice.wait_closed()
        await wait_until(lambda: app.limits.total == 0)
        assert live_at_release == [0]
        assert not app.sessions and app.find_online("alice") is None
        failures = [r for r in caplog.records if r.exc_info and "the reader broke" in
                    str(r.exc_info[1])]
        assert len(failures) == 1 and failures[0].name == "bbspoker.transport.web"


async def raw_http(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A plain TCP connection to the web port (for what a browser would not send)."""
    return await asyncio.open_connection("127.0.0.1", port)


def parse_response(data: bytes) -> tuple[int, dict[str, str], bytes]:
    """``(status, headers with lower-case names, body)`` of one HTTP response."""
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(lines[0].split()[1]), headers, body


async def test_a_request_whose_headers_trickle_in_is_closed(tmp_path):
    """A client sending one header line now and then held a socket for an hour (300 of
    them held 300 descriptors): a request must be complete within [web] header_timeout."""
    async with web_server(tmp_path, web={"header_timeout": 0.2}) as (server, made, clock):
        player = await browser(server, made)
        await player.wait_for("Handle:")
        reader, writer = await raw_http(server.web_port)
        try:
            writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            await writer.drain()
            assert await asyncio.wait_for(reader.read(), 5) == b""     # closed, no answer
            # A WebSocket open all that time is not a request waiting for its headers.
            await player.send("alice\r")
            await player.wait_for("Create new user alice? (y/n)")
            # A request sent in time is served, and its keep-alive socket then has as
            # long to send the next one.
            reader, writer = await raw_http(server.web_port)
            writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            data = await asyncio.wait_for(reader.read(), 5)
            assert parse_response(data)[0] == 200
        finally:
            writer.close()


async def test_http_connections_are_counted_per_address_at_accept(tmp_path):
    """Plain HTTP sockets (not only WebSocket sessions) count against a cap per address,
    from the moment they are accepted: the one over it gets a 503 and is closed."""
    async with web_server(tmp_path, web={"max_connections_per_address": 3},
                          i18n={"default": "fr"}) as (server, made, clock):
        counts = server.web_connections
        idle = [await raw_http(server.web_port) for _ in range(2)]
        c = await browser(server, made)                    # a WebSocket is one of them
        await c.wait_for("Pseudo")
        await wait_until(lambda: counts.total == 3)
        reader, writer = await raw_http(server.web_port)
        data = await asyncio.wait_for(reader.read(), 5)
        writer.close()
        status, headers, body = parse_response(data)
        assert status == 503
        assert body.decode() == "Trop de connexions, veuillez réessayer plus tard.\n"
        for name, value in SECURITY_HEADERS.items():
            assert headers[name.lower()] == value
        assert counts.total == 3
        for _, w in idle:
            w.close()
        await wait_until(lambda: counts.total == 1)
        async with aiohttp.ClientSession() as http:
            async with http.get(f"http://127.0.0.1:{server.web_port}/") as r:
                assert r.status == 200
        await c.close()
        await wait_until(lambda: counts.total == 0 and server.app.limits.total == 0)


async def test_a_request_line_too_long_is_refused_with_our_headers_and_no_echo(
        tmp_path, caplog):
    """aiohttp's own 400 went out without the security headers, echoed the request and
    logged a traceback; the Server header named aiohttp's version."""
    async with web_server(tmp_path) as (server, made, clock):
        reader, writer = await raw_http(server.web_port)
        writer.write(b"GET /" + b"secret" * 1500 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        data = await asyncio.wait_for(reader.read(), 5)
        writer.close()
        status, headers, body = parse_response(data)
        assert status == 400 and body == b"Bad request.\n"
        for name, value in SECURITY_HEADERS.items():
            assert headers[name.lower()] == value
        assert headers["server"] == "bbspoker"
        async with aiohttp.ClientSession() as http:
            async with http.get(f"http://127.0.0.1:{server.web_port}/") as r:
                assert r.headers["Server"] == "bbspoker"
        records = [r for r in caplog.records if r.levelno >= logging.WARNING]
        assert len(records) == 1 and records[0].levelno == logging.WARNING
        assert records[0].exc_info is None and "\n" not in records[0].getMessage()
        assert "secret" not in records[0].getMessage() and "400" in records[0].getMessage()


async def test_a_rebound_host_name_may_not_open_a_session(tmp_path):
    """DNS rebinding: a page of evil.example whose name now points at this machine sends
    an Origin that matches its own Host header. With no [web] origins only loopback
    names are this server's."""
    async def open_ws(server, made, origin: str, host: str) -> WebClient:
        http = aiohttp.ClientSession()
        try:
            ws = await http.ws_connect(f"http://127.0.0.1:{server.web_port}/ws",
                                       headers={"Origin": origin, "Host": host})
        except BaseException:
            await http.close()
            raise
        c = WebClient(http, ws, 80, 24)
        made.append(c)
        return c

    async with web_server(tmp_path) as (server, made, clock):
        port = server.web_port
        for name in ("evil.example", "127.0.0.1.nip.io", "192.168.1.1"):
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await open_ws(server, made, f"http://{name}:{port}", f"{name}:{port}")
            assert refused.value.status == 403
        assert server.app.limits.total == 0
        for name in ("localhost", "127.0.0.1", "[::1]"):
            c = await open_ws(server, made, f"http://{name}:{port}", f"{name}:{port}")
            await c.wait_for("Handle:")


async def test_a_cancelled_reader_ends_its_session_before_its_place_is_given_back(
        tmp_path, monkeypatch):
    """The handler's reader cancelled (the server closing a connection, aiohttp giving
    up on it): the session does not outlive it either."""
    async with web_server(tmp_path) as (server, made, clock):
        app = server.app
        live_at_release = count_releases(monkeypatch, app)
        reading = asyncio.Event()

        async def cancelled(gate, ws, link) -> bool:
            await reading.wait()
            raise asyncio.CancelledError()

        monkeypatch.setattr(web, "_read", cancelled)
        alice = await browser(server, made)
        # The door's title screen (no key can reach the door: its reader waits).
        await alice.wait_for("Global Village BBS")
        assert len(app.sessions) == 1
        reading.set()
        await alice.wait_closed()
        await wait_until(lambda: app.limits.total == 0)
        assert live_at_release == [0] and not app.sessions


async def test_the_page_names_the_games_the_servers_tables_run(tmp_path):
    """The page's heading describes the game kinds of the server's tables, in the page's
    language: Hold'em and Schiebe-Poker tables are not announced as five seats and a
    40-card deck."""
    tables = [("hold", "Hold", "holdem", {"seats": 6}),
              ("push", "Push", "schiebe", {"seats": 4})]
    async with web_server(tmp_path, tables=tables) as (server, made, clock):
        base = f"http://127.0.0.1:{server.web_port}"
        async with aiohttp.ClientSession() as http:
            pages = {}
            for lang in ("en", "de", "fr"):
                async with http.get(base + "/", headers={"Accept-Language": lang}) as r:
                    pages[lang] = re.search(r"<header>.*</header>", await r.text(),
                                            re.S).group(0)
    assert "Texas Hold&#x27;em and Schiebe-Poker" in pages["en"], pages["en"]
    assert "Texas Hold&#x27;em und Schiebe-Poker" in pages["de"], pages["de"]
    assert "Texas Hold&#x27;em et Schiebe-Poker" in pages["fr"], pages["fr"]
    for page in pages.values():
        assert "40" not in page, page
