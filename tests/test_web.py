"""The browser transport (issue 19): the page, its headers and files, and the WebSocket
door session against the real server, next to telnet players; bad input on it."""

from __future__ import annotations

import importlib.resources
import re

import aiohttp
import pytest

from bbspoker.transport.web import FILES, SECURITY_HEADERS, page_language
from tests.tableplay import join
from tests.telnetclient import wait_until
from tests.termclients import WebClient, telnet, transport_server

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
    assert "fixed-limit Texas Hold&#x27;em and Schiebe-Poker" in pages["en"], pages["en"]
    assert "Fixed-Limit Texas Hold&#x27;em und Schiebe-Poker" in pages["de"], pages["de"]
    assert "Texas Hold&#x27;em à limite fixe et Schiebe-Poker" in pages["fr"], pages["fr"]
    for page in pages.values():
        assert "40" not in page, page
