"""The RLOGIN door server end to end: BBSes (``[[bbs]]``) hand their callers to the real
server over RLOGIN, with the bytes ENiGMA's ``goldmine`` module sends, with Debian's real
``rlogin`` client, as CP437 and UTF-8 terminals; refusals; ``max_nodes``; ``xtrn=``;
``time=``."""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import re
import shutil
import struct
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pyte
import pytest

from bbspoker.app import Server
from bbspoker.config import BbsSystem
from bbspoker.transport.rlogin import (PROBE, WindowReports, find_system, parse_hello,
                                       parse_terminal)
from tests.support.tableplay import bet, join, my_cards
from tests.support.telnetclient import FakeClock, ScreenWaits, TelnetClient, running_server, wait_until

pytestmark = pytest.mark.e2e

LOCAL = ("127.0.0.1/32",)
DEMO = BbsSystem("DEMO", "Demo BBS", LOCAL)
ENIGMA = BbsSystem("EN", "ENiGMA test", LOCAL)
_CPR_ASK = "\x1b[6n"


class RloginClient(ScreenWaits):
    """An RLOGIN client on a pyte screen: it sends the login, reads the server's zero byte
    (a refusal follows it with one line and the close), answers the window
    question with ``cols`` x ``rows`` (``window``) and each cursor position report
    (``cpr``) with where its screen's cursor is; it decodes what it receives as
    ``encoding`` (a CP437 terminal shows the three bytes of a UTF-8 box-drawing
    character as three characters)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, cols: int,
                 rows: int, encoding: str, cpr: bool) -> None:
        self.screen = pyte.Screen(cols, rows)
        self._stream = pyte.Stream(self.screen)
        self._decoder = codecs.getincrementaldecoder(encoding)(errors="replace")
        self.received = bytearray()
        self.eof = asyncio.Event()
        self._reader, self._writer, self._cpr = reader, writer, cpr
        self._task: asyncio.Task[None] | None = None

    @classmethod
    async def connect(cls, port: int, hello: bytes, *, cols: int = 80, rows: int = 24,
                      encoding: str = "utf-8", cpr: bool = True, window: bool = True
                      ) -> RloginClient:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        c = cls(reader, writer, cols, rows, encoding, cpr)
        writer.write(hello)
        first = await reader.read(1)
        assert first == b"\0", first
        if window:                      # the answer to the server's urgent 0x80
            writer.write(b"\xff\xffss" + struct.pack(">4H", rows, cols, 0, 0))
        c._task = asyncio.create_task(c._read())
        return c

    async def _read(self) -> None:
        try:
            while data := await self._reader.read(65536):
                self.received += data
                text = self._decoder.decode(data)
                while _CPR_ASK in text:
                    before, _, text = text.partition(_CPR_ASK)
                    self._stream.feed(before)
                    if self._cpr:
                        cur = self.screen.cursor
                        self._writer.write(f"\x1b[{cur.y + 1};{cur.x + 1}R".encode())
                self._stream.feed(text)
                self._arrived()
        except (ConnectionError, OSError):
            pass
        finally:
            self._ended()

    async def send(self, data: str | bytes) -> None:
        self._writer.write(data.encode() if isinstance(data, str) else data)
        await self._writer.drain()

    async def resize(self, cols: int, rows: int) -> None:
        """The window changed (RLOGIN's in-band report)."""
        self.screen.resize(rows, cols)
        await self.send(b"\xff\xffss" + struct.pack(">4H", rows, cols, 0, 0))

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
        self._writer.close()
        with contextlib.suppress(ConnectionError, OSError):
            await self._writer.wait_closed()


class Sleeps:
    """The server's ``sleep`` (the caller's time, the failed-login delay): each call waits
    until the test lets the sleeps of that length go (:meth:`wake`)."""

    def __init__(self) -> None:
        self.waiting: list[tuple[float, asyncio.Future[None]]] = []

    async def __call__(self, seconds: float) -> None:
        fut = asyncio.get_running_loop().create_future()
        self.waiting.append((seconds, fut))
        await fut

    async def wake(self, seconds: float) -> None:
        """Wait until a sleep of ``seconds`` is waiting, and end it."""
        await wait_until(lambda: any(s == seconds and not f.done() for s, f in self.waiting))
        for s, f in self.waiting:
            if s == seconds and not f.done():
                f.set_result(None)
                break


@contextlib.asynccontextmanager
async def bbs_server(tmp_path: Path, *systems: BbsSystem, sleep: Any = None, **config: Any
                     ) -> AsyncIterator[tuple[Server, list[Any]]]:
    """The real server with the RLOGIN port on and ``systems``; yields (server, clients
    closed at the end)."""
    made: list[Any] = []

    async def no_sleep(_seconds: float) -> None:
        await asyncio.sleep(0)

    config["rlogin"] = {"enabled": True, **config.get("rlogin", {})}
    async with running_server(tmp_path, clock=FakeClock(), sleep=sleep or no_sleep,
                              bbs=systems, **config) as server:
        assert server.rlogin is not None
        server.rlogin.probe_timeout = 2.0
        try:
            yield server, made
        finally:
            for c in made:
                with contextlib.suppress(Exception):
                    await c.close()


async def caller(server: Server, made: list[Any], hello: bytes, **kwargs: Any) -> RloginClient:
    c = await RloginClient.connect(server.rlogin_port, hello, **kwargs)
    made.append(c)
    return c


async def telnet_player(server: Server, made: list[Any], handle: str) -> TelnetClient:
    c = await TelnetClient.connect(server.port)
    made.append(c)
    await c.login(handle, "pw-" + handle)
    return c


# --- the protocol's pieces -------------------------------------------------------------

def test_the_login_and_the_terminal_field_are_read_as_bbses_send_them():
    assert parse_hello(b"\0alice\0[EN]alice\0/\0") == ("alice", "[EN]alice", "/")
    assert parse_hello(b"\0alice\0[EN]alice\0") is None
    assert parse_hello(b"alice\0[EN]alice\0/\0\0") is None
    assert parse_terminal("/") == parse_terminal("") and parse_terminal("/38400").kind == "ansi"
    assert parse_terminal("/").kind == "ansi" and parse_terminal("xterm/38400").kind == "xterm"
    f = parse_terminal("ansi-bbs,time=45,xtrn=holdem/38400")
    assert (f.kind, f.minutes, f.xtrn, f.charset, f.speed) == ("ansi-bbs", 45, "holdem", None,
                                                               "38400")
    f = parse_terminal("xtrn=Poker,charset=CP437,time=lots,colour=yes/9600")
    assert (f.kind, f.xtrn, f.charset, f.minutes) == ("ansi", "poker", "cp437", None)
    assert parse_terminal("charset=utf8/").charset == "utf-8"
    assert parse_terminal("\x1b[2J,xtrn=../etc/").xtrn is None


def test_a_system_is_known_by_its_address_and_its_tag_with_or_without_brackets():
    far = BbsSystem("FAR", "Far", ("192.0.2.0/24",))
    systems = (ENIGMA, DEMO, far)
    assert find_system(systems, "127.0.0.1", "[EN]alice") == (ENIGMA, "alice")
    assert find_system(systems, "127.0.0.1", "[en] Bob Smith") == (ENIGMA, "Bob Smith")
    assert find_system(systems, "127.0.0.1", "DEMOcarol") == (DEMO, "carol")
    assert find_system(systems, "127.0.0.1", "ENdave") == (ENIGMA, "dave")
    assert find_system(systems, "127.0.0.1", "[FAR]eve") is None        # not from there
    assert find_system(systems, "192.0.2.9", "[FAR]eve") == (far, "eve")
    assert find_system(systems, "127.0.0.1", "[XX]eve") is None


def test_window_reports_are_taken_out_of_the_input_even_when_split():
    reports = WindowReports()
    report = b"\xff\xffss" + struct.pack(">4H", 50, 132, 0, 0)
    assert reports.feed(b"ab" + report + b"cd") == (b"abcd", [(132, 50)])
    assert reports.feed(b"x" + report[:3]) == (b"x", [])
    assert reports.feed(report[3:9]) == (b"", [])
    assert reports.feed(report[9:] + b"y") == (b"y", [(132, 50)])
    assert reports.feed(b"\xff") == (b"", [])
    assert reports.feed(b"q") == (b"\xffq", [])


# --- end to end ------------------------------------------------------------------------

async def test_enigma_goldmine_bytes_bring_a_caller_who_plays_draw40_with_a_telnet_player(
        tmp_path):
    """ENiGMA's goldmine module sends exactly ``\\0alice\\0[EN]alice\\0/\\0``: the caller is
    alice@EN, made on the first visit with no password, at the lobby at once; she plays a
    game of draw40 against bob on telnet, and everyone sees her as alice@EN."""
    async with bbs_server(tmp_path, ENIGMA) as (server, made):
        alice = await caller(server, made, b"\0alice\0[EN]alice\0/\0")
        await alice.menu()
        assert "Logged in as alice@EN. You have 1,000 CUBES." in alice.text
        account = server.app.ledger.find_account("alice@EN")
        assert account.bbs == "EN" and server.app.ledger.password_hash("alice@EN") is None
        session = server.app.find_online("alice@EN")
        assert (session.term.kind, session.cols, session.rows) == ("ansi", 80, 24)
        assert server.rlogin.nodes["EN"] == 1

        bob = await telnet_player(server, made, "bob")
        await join(alice, "Nobody is using the poker game right now.")
        await join(bob, "alice@EN")
        await alice.wait_for("[S] Open the game")
        await alice.send("s")
        for c in (alice, bob):
            await c.wait_for("The game is now STARTED (initial pot is 20)")
        assert len([card for card in my_cards(alice) if card]) == 5
        await bet(alice)
        await bob.wait_for("alice@EN has called the bet (1), pot is 21.")
        await bet(bob, "25")
        await alice.wait_for("bob has raised the bet (25), pot is 46.")
        await alice.wait_for("DISCARDING INTERVAL")
        await alice.send("d")
        await bob.wait_for("alice@EN has discarded no cards.")
        await bob.send("d")
        await alice.wait_for("[P] Pass")
        await alice.send("p")
        await alice.send("y")
        await bob.wait_for("alice@EN has passed.")
        await bet(bob)
        await bob.wait_for("[R] Reveal hand")
        await bob.send("r")
        await alice.wait_for("bob wins the pot of 71 CUBES")
        await alice.send("x")
        await alice.send("y")
        await alice.menu()
        await alice.send("q")
        await alice.wait_closed()
        await wait_until(lambda: not server.rlogin.nodes and server.app.limits.total == 1)
        # The second visit finds the same account.
        alice = await caller(server, made, b"\0alice\0[EN]alice\0/\0")
        await alice.menu()
        assert f"alice@EN. You have {1000 - 10 - 1:,} CUBES" in alice.text    # ante, call
        assert server.app.ledger.verify() == []


async def _refused(server: Server, made: list[Any], hello: bytes, says: str) -> None:
    """The zero byte, then one line saying ``says``, then the close."""
    c = await caller(server, made, hello, window=False)
    await c.wait_closed()
    line = bytes(c.received).decode()
    assert line.startswith("\r\n") and line.endswith("\r\n") and line.count("\r\n") == 2, line
    assert says in line, line


async def test_unknown_systems_wrong_secrets_and_banned_systems_are_refused_with_nothing_made(
        tmp_path, caplog):
    far = BbsSystem("FAR", "Far away", ("192.0.2.0/24",))
    locked = BbsSystem("SAFE", "Safe BBS", LOCAL, secret="s3cret")
    async with bbs_server(tmp_path, DEMO, locked) as (server, made):
        ledger = server.app.ledger
        unknown = "This door does not know your BBS. Please ask your sysop."
        await _refused(server, made, b"\0eve\0[XX]eve\0/\0", unknown)
        await _refused(server, made, b"\0wrong\0[SAFE]eve\0/\0", unknown)
        await _refused(server, made, b"\0eve\0[SAFE]eve\0/\0", unknown)
        await _refused(server, made, b"GET / HTTP/1.0\r\n\r\n\0\0\0\0", "sent no valid login")
        await _refused(server, made, b"\0\0[DEMO]\0/\0", "Your BBS sent no user name.")
        await _refused(server, made, b"\0SYSTEM\0[DEMO]SYSTEM\0/\0",
                       "your name cannot be a handle here: the handle SYSTEM is reserved")
        ledger.ban_bbs("DEMO", "cheating", "sysop")
        await _refused(server, made, b"\0eve\0[DEMO]eve\0/\0",
                       "Your BBS is banned from this door: cheating")
        assert ledger.list_accounts() == [] and ledger.bbs_callers() == {}
        ledger.unban_bbs("DEMO")
        ok = await caller(server, made, b"\0s3cret\0[SAFE]eve\0ansi/\0")
        await ok.menu()
        assert "Logged in as eve@SAFE." in ok.text
        await wait_until(lambda: server.app.limits.total == 1)
    assert "wrong secret" in caplog.text and "is banned" in caplog.text
    (tmp_path / "far").mkdir()
    async with bbs_server(tmp_path / "far", far) as (server, made):
        await _refused(server, made, b"\0eve\0[FAR]eve\0/\0", unknown)
        assert server.app.ledger.list_accounts() == []
        await wait_until(lambda: server.app.limits.total == 0)
    assert "no [[bbs]] system lists this address" in caplog.text


async def test_a_banned_system_s_callers_online_are_sent_away(tmp_path):
    async with bbs_server(tmp_path, DEMO, server={"admin_poll": 0.01}) as (server, made):
        carol = await caller(server, made, b"\0carol\0[DEMO]carol\0/\0")
        await carol.menu()
        server.app.ledger.ban_bbs("DEMO", "spam", "sysop")
        await carol.wait_for("You have been banned from this door: spam")
        await carol.wait_closed()


async def test_max_nodes_holds_and_a_node_is_given_back_when_its_caller_leaves(tmp_path):
    async with bbs_server(tmp_path, BbsSystem("DEMO", "Demo", LOCAL, max_nodes=2)) as (
            server, made):
        a = await caller(server, made, b"\0a1\0[DEMO]anne\0/\0")
        b = await caller(server, made, b"\0b1\0[DEMO]bert\0/\0")
        for c in (a, b):
            await c.menu()
        await _refused(server, made, b"\0c1\0[DEMO]cleo\0/\0",
                       "Every node of your BBS is in use here. Please try again later.")
        assert server.app.ledger.find_account("cleo@DEMO") is None
        await a.close()
        await wait_until(lambda: server.rlogin.nodes["DEMO"] == 1)
        c = await caller(server, made, b"\0c1\0[DEMO]cleo\0/\0")
        await c.menu()
        assert server.rlogin.nodes["DEMO"] == 2


async def test_xtrn_goes_straight_to_a_holdem_table_and_the_window_report_sizes_it(tmp_path):
    tables = [("poker", "PoKeR"), ("texas", "Texas", "holdem", {})]
    async with bbs_server(tmp_path, DEMO, tables=tables) as (server, made):
        dave = await caller(server, made, b"\0dave\0[DEMO]dave\0ansi-bbs,xtrn=holdem/38400\0",
                            cols=100, rows=30)
        await dave.wait_for("Hold'em")
        await dave.wait_for("Join the table? (y/n)")
        await dave.send("y")
        await dave.wait_for("Buy in with how many CUBES")
        session = server.app.find_online("dave@DEMO")
        assert (session.cols, session.rows, session.term.kind) == (100, 30, "ansi-bbs")
        await dave.send("\r")
        await wait_until(lambda: server.app.tables.seat_of("dave@DEMO") is not None)
        assert server.app.tables.seat_of("dave@DEMO").id == "texas"
        await dave.resize(90, 40)
        await wait_until(lambda: (session.cols, session.rows) == (90, 40))
        # A table id works as well.
        erin = await caller(server, made, b"\0erin\0[DEMO]erin\0xtrn=texas/\0")
        await erin.wait_for("dave@DEMO")
        await erin.wait_for("Join the table? (y/n)")


async def test_a_cp437_caller_s_screen_is_cp437_and_a_utf8_caller_s_is_utf8(tmp_path):
    """The character set is asked of the terminal: the CP437 one shows the three bytes of
    the probe's box-drawing character as three characters and gets CP437 from then on;
    the UTF-8 one gets UTF-8. An X-message from a telnet player, decoded with pyte as
    CP437, shows ``ß`` and ``½`` right, and what CP437 lacks as plain letters (``€`` as
    ``EUR``, ``œ`` as ``oe``; its letters at the C1 control bytes, ``ü`` and ``ö``, by
    their base letter as for every CP437 terminal); in UTF-8 all of it shows as sent. A
    system's ``charset`` settles it without asking."""
    message = "Grüße aus Köln: ½ Pott, 5 €, cœur"
    async with bbs_server(tmp_path, DEMO, BbsSystem("PC", "PC BBS", LOCAL, charset="cp437")
                          ) as (server, made):
        pc = await caller(server, made, b"\0fritz\0[DEMO]fritz\0ansi-bbs/\0", encoding="cp437")
        await pc.menu()
        assert server.app.find_online("fritz@DEMO").encoding == "cp437"
        utf = await caller(server, made, b"\0grete\0[DEMO]grete\0xterm/\0", encoding="utf-8")
        await utf.menu()
        assert server.app.find_online("grete@DEMO").encoding == "utf-8"
        told = await caller(server, made, b"\0hans\0[PC]hans\0xterm/\0", encoding="cp437",
                            cpr=False)
        await told.menu()
        assert server.app.find_online("hans@PC").encoding == "cp437"
        assert PROBE.encode() not in told.received           # nothing asked

        bob = await telnet_player(server, made, "bob")
        for to in ("fritz@DEMO", "grete@DEMO", "hans@PC"):
            await bob.send("x")
            await bob.wait_for("Send an X-message to:")
            await bob.send(to + "\r")
            await bob.wait_for("Message:")
            await bob.send(message + "\r")
            await bob.wait_for(f"X-message sent to {to}.")
            await bob.send(" ")
            await bob.wait_for("[Q]")
        for c in (pc, utf, told):
            await c.wait_for("X-message from bob")
            await c.send("r")
            await c.wait_for("From bob at")
        for c in (pc, told):
            assert "Gruße aus Koln: ½ Pott, 5 EUR, coeur" in c.text, c.text
            assert "\u00c3" not in c.text and "\u00e2" not in c.text      # no UTF-8 pairs
        assert b"Gru\xe1e aus Koln: \xab Pott, 5 EUR, coeur" in pc.received
        assert message in utf.text and "\ufffd" not in utf.text


async def test_a_terminal_that_does_not_answer_gets_cp437_for_a_bbs_kind(tmp_path):
    async with bbs_server(tmp_path, DEMO) as (server, made):
        server.rlogin.probe_timeout = 0.05
        quiet = await caller(server, made, b"\0ida\0[DEMO]ida\0/\0", encoding="cp437",
                             cpr=False)
        await quiet.menu()
        assert server.app.find_online("ida@DEMO").encoding == "cp437"
        forced = await caller(server, made, b"\0jo\0[DEMO]jo\0ansi,charset=utf-8/\0")
        await forced.menu()
        assert server.app.find_online("jo@DEMO").encoding == "utf-8"


async def test_a_bbs_caller_sets_a_password_and_then_logs_in_by_telnet(tmp_path):
    async with bbs_server(tmp_path, DEMO) as (server, made):
        kim = await caller(server, made, b"\0kim\0[DEMO]kim\0/\0")
        await kim.menu()
        tel = await TelnetClient.connect(server.port)
        made.append(tel)
        await tel.wait_for("Handle:")
        await tel.send("kim@DEMO\r")
        await tel.wait_for("Password:")
        await tel.send("anything\r")
        await tel.wait_for("Wrong password.")
        await kim.send("c")
        await kim.wait_for("New password:")
        await kim.send("kims-secret-1\r")
        await kim.wait_for("again")
        await kim.send("kims-secret-1\r")
        await kim.wait_for("Password changed: kim@DEMO can log in by telnet and SSH too.")
        await kim.send(" ")
        await kim.send("q")
        await kim.wait_closed()
        await tel.wait_for("Handle:")
        await tel.send("kim@DEMO\r")
        await tel.wait_for("Password:")
        await tel.send("kims-secret-1\r")
        await tel.menu()
        assert "Logged in as kim@DEMO." in tel.text
        # Changing it again asks for the one it has now.
        await tel.send("c")
        await tel.wait_for("Your password now:")
        await tel.send("wrong-one\r")
        await tel.wait_for("Wrong password.")
        assert await server.app.verify_password(server.app.ledger.password_hash("kim@DEMO"),
                                                "kims-secret-1")


async def _seated_with_time(server: Server, made: list[Any], sleeps: Sleeps, game: str
                            ) -> tuple[RloginClient, TelnetClient]:
    """A caller with 5 minutes (``time=5``) straight at the table of ``game`` against a
    telnet player; both seated."""
    hello = f"\0liz\0[DEMO]liz\0ansi,time=5,xtrn={game}/38400\0".encode()
    liz = await caller(server, made, hello)
    await liz.wait_for("Join the table? (y/n)")
    await liz.send("y")
    if game == "holdem":
        await liz.wait_for("Buy in with how many CUBES")
        await liz.send("\r")
    await liz.wait_for("[X]")
    bob = await telnet_player(server, made, "bob")
    await bob.send("p")
    await bob.wait_for("Pick a table")
    await bob.send({"draw40": "1", "holdem": "2"}.get(game, "3"))
    await bob.wait_for("liz@DEMO")
    await bob.wait_for("Join the table? (y/n)")
    await bob.send("y")
    if game == "holdem":
        await bob.wait_for("Buy in with how many CUBES")
        await bob.send("\r")
    await bob.wait_for("[X]")
    return liz, bob


def advance(server: Server, seconds: float) -> None:
    """Move the server's fake clock and wake every table."""
    server.app.clock.advance(seconds)
    for entry in server.app.tables:
        entry.service.wake()


async def test_a_caller_whose_time_runs_out_is_warned_and_stands_up_between_games(tmp_path):
    """``time=5``: three minutes in the caller is warned (at the table); at five, in the
    middle of a draw40 game, they play on; once out of it (they pass) they stand up and the
    session ends with a goodbye: the BBS has its caller back; the ledger is whole."""
    sleeps = Sleeps()
    tables = [("poker", "PoKeR"), ("texas", "Texas", "holdem", {})]
    async with bbs_server(tmp_path, DEMO, sleep=sleeps, tables=tables) as (server, made):
        liz, bob = await _seated_with_time(server, made, sleeps, "draw40")
        await liz.wait_for("[S] Open the game")
        await liz.send("s")
        await bob.wait_for("The game is now STARTED")
        await sleeps.wake(180)                                 # 5 min - 2 min
        await liz.wait_for("Your time on your BBS ends in 2 minutes.")
        await sleeps.wake(120)
        await liz.wait_for("Your time is up: you leave the table when this game ends.")
        assert server.app.tables.seat_of("liz@DEMO") is not None  # the game goes on
        await bet(liz)
        await bet(bob)
        await liz.wait_for("DISCARDING INTERVAL")
        await liz.send("d")
        await bob.wait_for("liz@DEMO has discarded no cards.")
        await bob.send("d")
        await liz.wait_for("[P] Pass")
        await liz.send("p")
        await liz.send("y")
        await bob.wait_for("liz@DEMO has passed.")
        await liz.wait_closed()
        assert "Your time is up: back to your BBS. Goodbye!" in liz.text
        await wait_until(lambda: server.app.tables.seat_of("liz@DEMO") is None)
        await wait_until(lambda: not server.rlogin.nodes)
        assert server.app.ledger.verify() == []


async def test_a_holdem_caller_whose_time_runs_out_folds_and_is_cashed_out(tmp_path):
    sleeps = Sleeps()
    tables = [("poker", "PoKeR"), ("texas", "Texas", "holdem", {})]
    async with bbs_server(tmp_path, DEMO, sleep=sleeps, tables=tables) as (server, made):
        ledger = server.app.ledger
        liz, bob = await _seated_with_time(server, made, sleeps, "holdem")
        advance(server, 60)
        await wait_until(lambda: server.app.tables["texas"].service.snapshot.pot is not None)
        assert ledger.stacks_of("liz@DEMO")
        await sleeps.wake(180)
        await liz.wait_for("Your time on your BBS ends in 2 minutes.")
        await sleeps.wake(120)
        await liz.wait_closed()
        assert "Your time is up: back to your BBS. Goodbye!" in liz.text
        await bob.wait_for("liz@DEMO")
        await wait_until(lambda: server.app.tables.seat_of("liz@DEMO") is None)
        await wait_until(lambda: not ledger.stacks_of("liz@DEMO"))
        held = ledger.balance("liz@DEMO")
        assert 0 < held <= 1000 and ledger.verify() == []


async def test_a_schiebe_caller_whose_time_runs_out_between_games_leaves_at_once(tmp_path):
    """At a Schiebe-Poker table with no game running, the caller whose time is up stands up
    at once and goes back to the BBS (nothing of theirs is in play)."""
    sleeps = Sleeps()
    tables = [("poker", "PoKeR"), ("texas", "Texas", "holdem", {}),
              ("push", "Push", "schiebe", {"seats": 4})]
    async with bbs_server(tmp_path, DEMO, sleep=sleeps, tables=tables) as (server, made):
        liz, bob = await _seated_with_time(server, made, sleeps, "schiebe")
        await sleeps.wake(180)
        await liz.wait_for("Your time on your BBS ends in 2 minutes.")
        await sleeps.wake(120)
        await liz.wait_closed()
        assert "Your time is up: back to your BBS. Goodbye!" in liz.text
        await bob.wait_for("liz@DEMO")
        await wait_until(lambda: server.app.tables.seat_of("liz@DEMO") is None)
        assert server.app.ledger.verify() == []


async def test_a_caller_in_the_lobby_when_the_time_runs_out_is_sent_back_at_once(tmp_path):
    sleeps = Sleeps()
    async with bbs_server(tmp_path, DEMO, sleep=sleeps) as (server, made):
        max_ = await caller(server, made, b"\0max\0[DEMO]max\0time=1/\0")
        await max_.menu()
        await sleeps.wake(60)
        await max_.wait_closed()
        assert "Your time is up: back to your BBS. Goodbye!" in max_.text


# --- Debian's rlogin client ------------------------------------------------------------

RLOGIN = shutil.which("rlogin")
TMUX = shutil.which("tmux")


@pytest.mark.skipif(RLOGIN is None or TMUX is None or os.geteuid() != 0,
                    reason="needs Debian's rlogin client (apt-get install rsh-redone-client), "
                           "tmux, and root (the client binds a port below 1024)")
async def test_debian_s_rlogin_client_brings_a_caller_of_demo_to_a_game(tmp_path):
    """``rlogin -l '[DEMO]nina' -p PORT 127.0.0.1`` in a tmux window: the real client's
    login, window report and terminal; nina@DEMO joins the draw40 table where a telnet
    player sits, they play a game to its end, and she leaves."""
    async with bbs_server(tmp_path, DEMO) as (server, made):
        bob = await telnet_player(server, made, "bob")
        await join(bob, "Nobody is using the poker game right now.")
        name = f"rlogin-test-{os.getpid()}"
        subprocess.run([TMUX, "new-session", "-d", "-s", name, "-x", "100", "-y", "30",
                        f"TERM=xterm {RLOGIN} -l '[DEMO]nina' -p {server.rlogin_port} "
                        "127.0.0.1"], check=True)

        def pane() -> str:
            return subprocess.run([TMUX, "capture-pane", "-p", "-t", name], check=True,
                                  capture_output=True, text=True).stdout

        async def wait_pane(text: str) -> str:
            for _ in range(500):
                shown = await asyncio.to_thread(pane)
                if text in shown:
                    return shown
                await asyncio.sleep(0.02)
            raise AssertionError(f"{text!r} not in the rlogin window:\n{pane()}")

        def keys(*k: str) -> None:
            subprocess.run([TMUX, "send-keys", "-t", name, *k], check=True)

        try:
            # The title screen first: a key goes on, as the caller's would (else it waits
            # its 8 s).
            await wait_pane("[Press any key]")
            keys(" ")
            await wait_pane("Logged in as nina@DEMO. You have 1,000 CUBES.")
            session = server.app.find_online("nina@DEMO")
            assert (session.cols, session.rows, session.term.kind) == (100, 30, "xterm")
            assert session.encoding == "utf-8"                # tmux answered the probe
            keys("p")
            await wait_pane("Join the table? (y/n)")
            keys("y")
            await wait_pane("[X] Exit the game")
            await bob.wait_for("nina@DEMO")
            # A game: bob (the game-master) opens it and bets when it is his turn, nina
            # passes when it is hers, bob shows his hand and takes the pot; both screens
            # say so.
            await bob.wait_for("[S] Open the game")
            await bob.send("s")
            await wait_pane("The game is now STARTED")
            for _ in range(200):
                if "wins the pot of" in bob.text:
                    break
                if "[P] Pass" in await asyncio.to_thread(pane):
                    keys("p")
                    await wait_pane("(y/n)")
                    keys("y")
                    await bob.wait_for("nina@DEMO has passed.")
                elif "[R] Reveal hand" in bob.text:             # the showdown, alone
                    await bob.send("r")
                    await bob.wait_for_gone("[R] Reveal hand")
                elif "[B] Place bet" in bob.text and "Enter calls" not in bob.text:
                    await bet(bob, "5")
                    await bob.wait_for_gone("Enter calls")
                else:
                    await asyncio.sleep(0.02)
            await bob.wait_for("bob wins the pot of")
            await wait_pane("bob wins the pot of")
            keys("x")
            keys("y")
            await wait_pane("[Q]")
            keys("q")
            await wait_until(lambda: server.app.find_online("nina@DEMO") is None)
            await wait_until(lambda: not server.rlogin.nodes)
        finally:
            subprocess.run([TMUX, "kill-session", "-t", name], check=False)
        assert server.app.ledger.find_account("nina@DEMO").bbs == "DEMO"
