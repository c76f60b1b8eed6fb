"""The telnet server against real TCP clients: negotiation, limits and hostile input (issue 5)."""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import signal
import subprocess
import sys
import weakref

import pytest

from bbspoker.transport.telnet import FALLBACK_KIND, DoorReader, TokenBucket, terminal_for
from bbspoker.transport.session import clamp_size
from tests.support.telnetclient import (DO, ECHO, IAC, NAWS, SB, SGA, TTYPE, FakeClock, TelnetClient, wait_until,
                                running_server)




def only_session(server):
    (session,) = server.app.sessions
    return session


async def still_served(server, clients) -> None:
    """A fresh client can still log in and use the menu."""
    c = await clients(server.port)
    await c.login("witness", "pw-witness")
    await c.send("w")
    await c.wait_for("Who is online")


# --- negotiation and window size -----------------------------------------------------

async def test_character_mode_ttype_and_naws_are_negotiated(tmp_path, clients):
    async with running_server(tmp_path) as server:
        c = await clients(server.port, cols=100, rows=40, term="XTERM-256COLOR")
        await c.wait_for("Handle:")
        assert {ECHO, SGA} <= c.server_will
        assert {TTYPE, NAWS} <= c.server_do
        session = only_session(server)
        assert (session.cols, session.rows) == (100, 40)
        assert session.term.kind == "xterm-256color" and session.encoding == "utf-8"


async def test_client_that_does_not_negotiate_gets_80x24_ansi(tmp_path, clients, monkeypatch):
    """The door starts after ``CONNECT_MAXWAIT`` seconds (made short here) without answers."""
    monkeypatch.setattr("bbspoker.transport.telnet.CONNECT_MAXWAIT", 0.1)
    async with running_server(tmp_path) as server:
        c = await clients(server.port, negotiate=False)
        await c.wait_for("Handle:")
        session = only_session(server)
        assert (session.cols, session.rows, session.term.kind) == (80, 24, FALLBACK_KIND)
        await c.send("alice\r")
        await c.wait_for("Create new user alice? (y/n)")


class BridgeClient(TelnetClient):
    """A BBS's telnet bridge: it answers DO TTYPE and DO NAWS (and the TTYPE question)
    and nothing else, neither yes nor no, to any other option the server asks for."""

    def _option(self, cmd: int, opt: int) -> None:
        if cmd == DO and opt in (TTYPE, NAWS):
            super()._option(cmd, opt)
        elif cmd == DO:
            self.server_do.add(opt)


async def test_a_bbs_bridge_that_answers_only_ttype_and_naws_gets_the_login_at_once(
        tmp_path, monkeypatch):
    """The door starts as soon as TTYPE and NAWS are answered: it does not wait for the
    answers to ECHO, SGA, BINARY or NEW-ENVIRON that never come (here the wait for
    a client that answers nothing at all is made 60 s long, so that a wait shows)."""
    monkeypatch.setattr("bbspoker.transport.telnet.CONNECT_MAXWAIT", 60.0)
    async with running_server(tmp_path) as server:
        sock = await asyncio.open_connection("127.0.0.1", server.port)
        c = BridgeClient(*sock, cols=100, rows=30, term="ANSI", negotiate=True,
                         screen_cols=80, screen_rows=24)
        c._task = asyncio.create_task(c._read_loop())
        try:
            await c.wait_for("Handle:", timeout=3.0)
            session = only_session(server)
            assert (session.cols, session.rows, session.term.kind) == (100, 30, "ansi")
            await c.send("alice\r")
            await c.wait_for("Create new user alice? (y/n)")
        finally:
            await c.close()


async def test_keys_typed_before_the_door_starts_are_kept(tmp_path, clients, monkeypatch):
    """Typed while the server still waits for option negotiation (``CONNECT_MAXWAIT``, made
    0.5 s here): held by the reader and handed to the session when it starts (the first
    goes on past the title screen)."""
    monkeypatch.setattr("bbspoker.transport.telnet.CONNECT_MAXWAIT", 0.5)
    async with running_server(tmp_path) as server:
        c = await clients(server.port, negotiate=False)
        await c.send(" alice\r")
        assert not server.app.sessions          # the door has not started yet
        await c.wait_for("Create new user alice? (y/n)")


async def test_naws_values_are_clamped_and_resizes_reach_the_session(tmp_path, clients):
    async with running_server(tmp_path) as server:
        c = await clients(server.port, cols=65535, rows=0)
        await c.wait_for("Handle:")
        session = only_session(server)
        assert (session.cols, session.rows) == (999, 24)  # rows 0 = unknown (RFC 1073)
        seen: list[tuple[int, int]] = []
        session.resize_listeners.append(lambda cols, rows: seen.append((cols, rows)))
        await c.naws(10, 3)
        await c.naws(132, 50)
        await wait_until(lambda: len(seen) == 2)
        assert seen == [(40, 8), (132, 50)]
        assert (session.cols, session.rows) == (132, 50)


def test_clamp_size_bounds():
    assert clamp_size(0, 0, (80, 24)) == (80, 24)
    assert clamp_size(1, 1, (80, 24)) == (40, 8)
    assert clamp_size(5000, 5000, (80, 24)) == (999, 999)
    assert clamp_size(81, 25, (80, 24)) == (81, 25)


def test_terminal_kinds_are_shared_and_unknown_kinds_fall_back(monkeypatch):
    monkeypatch.setenv("TERM", "xterm-256color")
    assert terminal_for("VT100") is terminal_for("vt100")
    assert terminal_for("vt100").kind == "vt100"
    for odd in (None, "", "no-such-terminal", "x\x1b[2Jterm", "a" * 500):
        assert terminal_for(odd).kind == FALLBACK_KIND
    assert terminal_for("ansi").move_yx(1, 2) == "\x1b[2;3H"


async def test_no_color_in_the_server_environment_does_not_strip_cursor_moves(
        tmp_path, clients, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    async with running_server(tmp_path) as server:
        c = await clients(server.port, term="syncterm")
        await c.wait_for("Handle:")
        assert "NO_COLOR" not in os.environ
        session = only_session(server)
        assert session.encoding == "cp437"
        assert session.term.move_yx(0, 0) == "\x1b[1;1H"


# --- hostile input -------------------------------------------------------------------

async def test_0xff_bytes_and_invalid_utf8_do_not_crash_the_session(tmp_path, clients):
    async with running_server(tmp_path) as server:
        c = await clients(server.port)
        await c.wait_for("Handle:")
        await c.send(b"\xff\xfe\xc3\x28\x80\xed\xa0\x80\r")   # 0xFF escaped as IAC IAC
        await c.send_raw(b"\xff\x41\xff\xfa\x18\x07\xff\xf0")    # broken IAC commands
        await c.send(b"\xf0\x9f\r")                            # truncated UTF-8
        await c.wait_for("Handle:")
        await c.send("n")
        await c.send("\r\r")
        await c.send("alice\r")
        await c.wait_for("Create new user alice? (y/n)")
        assert not c.eof.is_set()


async def test_a_line_longer_than_the_limit_ends_the_session_with_a_message(tmp_path, clients):
    async with running_server(tmp_path) as server:
        other = await clients(server.port)
        await other.login("bob", "pw-bob")
        c = await clients(server.port)
        await c.wait_for("Handle:")
        await c.send("a" * 7000)
        await c.wait_for("Input line longer than 6000 bytes: disconnected.")
        await c.wait_closed()
        await other.send("w")
        await other.wait_for("Who is online (1):")


async def test_lines_with_newlines_may_be_long_in_total(tmp_path, clients):
    async with running_server(tmp_path) as server:
        c = await clients(server.port)
        await c.wait_for("Handle:")
        await c.send(("b" * 40 + "\r") * 200)   # 8,200 bytes, no line over the limit
        await wait_until(lambda: c.text.count("Sorry") >= 5)
        assert not c.eof.is_set()


async def test_input_faster_than_a_person_ends_the_session(tmp_path, clients):
    clock = FakeClock()  # frozen: the token bucket never refills
    async with running_server(tmp_path, clock=clock,
                              input={"rate_burst_bytes": 2000}) as server:
        c = await clients(server.port)
        await c.wait_for("Handle:")
        await c.send(("x" * 49 + "\r") * 60)
        await c.wait_for("Input faster than a person can type: disconnected.")
        await c.wait_closed()


async def test_subnegotiation_flood_is_cut_off_and_others_keep_playing(tmp_path, clients):
    async with running_server(tmp_path) as server:
        c = await clients(server.port)
        await c.wait_for("Handle:")
        await c.send_raw(bytes([IAC, SB, NAWS]) + b"\x00" * (1 << 20))   # never closed
        await c.wait_closed()
        await still_served(server, clients)


#: The default ``[input] subnegotiation_bytes``.
SB_CAP = 4096


@pytest.mark.parametrize("option", [TTYPE, 0x99], ids=["TTYPE", "unknown-option"])
async def test_a_subnegotiation_that_never_ends_is_cut_at_its_cap_and_freed(
        tmp_path, clients, caplog, option):
    """Issue 20 (2): IAC SB then an endless trickle, slower than the rate limit, held
    ~8.5 bytes of server memory per byte (telnetlib3 keeps a deque of one-byte objects,
    up to 1 MiB of them) for as long as the connection lived."""
    caplog.set_level(logging.INFO, logger="bbspoker.transport.telnet")
    clock = FakeClock()   # time moves as the trickle says: never faster than a person types
    async with running_server(tmp_path, clock=clock) as server:
        c = await clients(server.port)
        await c.wait_for("Handle:")
        session = only_session(server)
        writer = weakref.ref(session._writer)
        protocol = weakref.ref(session._writer.protocol)
        del session
        bob = await clients(server.port)
        await bob.login("bob", "pw-bob")

        await c.send_raw(bytes([IAC, SB, option]))
        sent, held, memory = 3, 0, 0
        while sent < 48 * 1024 and not c.eof.is_set():
            clock.advance(2.0)                   # 1 KiB per 2 s: half the sustained rate
            await c.send_raw(b"a" * 1024)
            sent += 1024
            await wait_until(lambda: c.eof.is_set() or protocol() is None
                             or protocol().rx_bytes >= sent)
            if writer() is not None:
                held = max(held, len(writer()._sb_buffer))
                memory = max(memory, sys.getsizeof(writer()._sb_buffer))
            if sent == 3 + 2 * 1024:             # mid-trickle, bob's keys still work
                await bob.send("w")
                await bob.wait_for("Who is online (1):")
        await c.wait_for(f"Telnet subnegotiation longer than {SB_CAP} bytes: disconnected.")
        await c.wait_closed()
        # Cut once past the cap, not after telnetlib3's 1 MiB or the rate limit.
        assert sent <= 3 + SB_CAP + 1024
        assert held <= SB_CAP
        assert memory <= 10 * SB_CAP             # ~8.25 bytes per buffered byte
        assert f"subnegotiation from 127.0.0.1 longer than {SB_CAP} bytes" in caplog.text
        # What was held is freed at once, and the connection goes with its session.
        assert writer() is None or len(writer()._sb_buffer) == 0
        await wait_until(lambda: len(server.app.sessions) == 1)
        # bob, connected all along, still gets his screen and his keys.
        await bob.send(" ")
        await bob.wait_for_gone("Who is online (1):")
        await bob.send("w")
        await bob.wait_for("Who is online (1):")
        await still_served(server, clients)   # telnetlib3 forgets closed protocols here
        gc.collect()
        assert protocol() is None and writer() is None


async def test_bytes_past_the_subnegotiation_cap_are_not_parsed_one_by_one(tmp_path, clients):
    """telnetlib3 parses a subnegotiation a byte at a time in Python: a chunk that cannot
    fit in the open one is refused whole, before any of it is parsed."""
    async with running_server(tmp_path, input={"subnegotiation_bytes": 1024}) as server:
        c = await clients(server.port)
        await c.wait_for("Handle:")
        writer = only_session(server)._writer
        await c.send_raw(bytes([IAC, SB, 0x99]) + b"a" * 100)
        await wait_until(lambda: len(writer._sb_buffer) == 101)
        parsed = writer.byte_count
        await c.send_raw(b"a" * 12 * 1024)                    # within the rate limit's burst
        await c.wait_for("Telnet subnegotiation longer than 1024 bytes: disconnected.")
        await c.wait_closed()
        assert writer.byte_count == parsed and len(writer._sb_buffer) == 0
        # Short subnegotiations, as many as a client likes, are parsed as ever.
        d = await clients(server.port)
        await d.wait_for("Handle:")
        await d.send_raw((bytes([IAC, SB, 0x99]) + b"b" * 1000 + bytes([IAC, 0xF0])) * 8)
        await d.naws(100, 30)
        await wait_until(lambda: only_session(server).cols == 100)
        assert not d.eof.is_set()


def test_token_bucket_allows_bursts_then_the_sustained_rate():
    clock = FakeClock()
    bucket = TokenBucket(rate=100, burst=1000, clock=clock)
    assert bucket.take(1000)
    assert not bucket.take(1)
    clock.advance(10)
    assert bucket.take(999)
    clock.advance(3600)
    assert bucket.take(1000) and not bucket.take(1)


# --- output: a client that never reads ------------------------------------------------

async def blind_login(c: TelnetClient, handle: str) -> None:
    """Log in without reading anything (the client never reads its socket); the first
    key goes on past the title screen."""
    await c.send(f" {handle}\r")
    await asyncio.sleep(0.05)
    await c.send("y")
    await c.send("pw-slow-1\rpw-slow-1\r")


async def test_a_client_that_never_reads_is_dropped_and_nobody_waits(tmp_path, clients, caplog,
                                                                     monkeypatch):
    """The drain timeout runs on the session's (injected) clock, looked at every
    ``STALL_POLL`` real seconds (made short here, as is the wait for the negotiation that
    a client that never reads never answers)."""
    caplog.set_level(logging.INFO, logger="bbspoker.transport.session")
    monkeypatch.setattr("bbspoker.transport.session.STALL_POLL", 0.02)
    monkeypatch.setattr("bbspoker.transport.telnet.CONNECT_MAXWAIT", 0.1)
    clock = FakeClock()
    async with running_server(tmp_path, clock=clock,
                              output={"drain_timeout": 1.0,
                                      "backlog_bytes": 1 << 20}) as server:
        fast = await clients(server.port)
        await fast.login("fast", "pw-fast")
        slow = await clients(server.port, read=False, rcvbuf=4096)
        await blind_login(slow, "slow")
        await wait_until(lambda: server.app.find_online("slow") is not None)
        session = server.app.find_online("slow")
        chunk = "#" * 16384
        while session.backlog < 64 * 1024:     # until its socket stops taking output
            session.write(chunk)
            await asyncio.sleep(0.001)
        # The stuck session holds nobody up: fast gets answers while slow is still there.
        await fast.send("w")
        await fast.wait_for("Who is online (2):")
        assert server.app.find_online("slow") is session
        await asyncio.sleep(0.1)               # several looks at the socket, 0 s on the clock
        assert server.app.find_online("slow") is session
        clock.advance(1.0)
        await wait_until(lambda: server.app.find_online("slow") is None, timeout=10)
        assert "output did not drain: no byte taken in 1.0 s" in caplog.text
        await fast.send(" ")
        await fast.send("w")
        await fast.wait_for("Who is online (1):")


async def test_output_backlog_over_the_bound_disconnects_at_once(tmp_path, clients, caplog):
    caplog.set_level(logging.INFO, logger="bbspoker.transport.session")
    async with running_server(tmp_path, output={"backlog_bytes": 64 * 1024}) as server:
        c = await clients(server.port)
        await c.login("alice", "pw-alice")
        session = server.app.find_online("alice")
        session.write("#" * (64 * 1024 + 1))
        await c.wait_closed()
        assert "output backlog over 65536 bytes" in caplog.text
        await still_served(server, clients)


# --- connections ----------------------------------------------------------------------

async def test_a_closed_connection_leaves_nothing_behind(tmp_path, clients):
    """A BBS runs for months: the sessions and telnet protocols of people who left must
    be freed (telnetlib3 alone would keep the last 1,000 connections)."""
    async with running_server(tmp_path) as server:
        gone = []
        for n in range(5):
            c = await clients(server.port)
            await c.login(f"visitor{n}", f"pw-visitor{n}")
            session = server.app.find_online(f"visitor{n}")
            gone += [weakref.ref(session), weakref.ref(session._writer.protocol)]
            del session
            await c.send("q")
            await c.wait_closed()
        await wait_until(lambda: not server.app.sessions)
        await still_served(server, clients)   # telnetlib3 forgets closed protocols here
        gc.collect()
        assert [ref() for ref in gone] == [None] * 10


def count_releases(monkeypatch, app) -> list[int]:
    """Spy on ``app.limits.release``: the list of how many sessions were live each time a
    connection's place was given back."""
    live_at_release: list[int] = []
    release = app.limits.release

    def counted_release(address: str, *, prelogin: bool) -> None:
        live_at_release.append(len(app.sessions))
        release(address, prelogin=prelogin)

    monkeypatch.setattr(app.limits, "release", counted_release)
    return live_at_release


async def test_a_reader_that_fails_ends_its_session_before_its_place_is_given_back(
        tmp_path, clients, monkeypatch):
    """Whatever way a connection's reader ends, its door session is ended and forgotten
    before its count goes down: no session lives on without its connection."""
    async with running_server(tmp_path) as server:
        app = server.app
        live_at_release = count_releases(monkeypatch, app)
        c = await clients(server.port)
        await c.login("alice", "pw-alice")

        def broken(self, data: bytes) -> None:
            raise RuntimeError("the reader broke")

        monkeypatch.setattr(DoorReader, "feed_data", broken)
        await c.send("w")
        await c.wait_closed()
        await wait_until(lambda: app.limits.total == 0)
        assert live_at_release == [0]
        assert not app.sessions and app.find_online("alice") is None


async def test_connection_caps_per_address_before_login_and_in_total(tmp_path, clients):
    async with running_server(tmp_path, server={"max_per_address": 2,
                                                "max_connections": 3}) as server:
        first = await clients(server.port)
        second = await clients(server.port)
        await first.wait_for("Handle:")
        await second.wait_for("Handle:")
        third = await clients(server.port)
        await third.wait_for("Too many connections, please try again later.")
        await third.wait_closed()

        await first.login("alice", "pw-alice")          # no longer counts as pre-login
        fourth = await clients(server.port)
        await fourth.wait_for("Handle:")
        fifth = await clients(server.port)               # 3 connections already open
        await fifth.wait_for("Too many connections")
        await fifth.wait_closed()

        await second.close()
        await wait_until(lambda: server.app.limits.total == 2)
        sixth = await clients(server.port)
        await sixth.wait_for("Handle:")


async def test_one_address_may_not_fill_the_server_with_logged_in_sessions(tmp_path, clients):
    """Issue 20 (2): the cap of 8 counted only connections not logged in yet."""
    async with running_server(tmp_path, server={"max_per_address": 2,
                                                "max_sessions_per_address": 3}) as server:
        for handle in ("ann", "ben", "cat"):
            c = await clients(server.port)
            await c.login(handle, "pw-" + handle)      # logged in: no longer pre-login
        fourth = await clients(server.port)
        await fourth.wait_for("Too many connections, please try again later.")
        await fourth.wait_closed()
        assert server.app.limits.by_address["127.0.0.1"] == 3


async def test_shutdown_tells_everyone_and_stops_accepting(tmp_path, clients):
    async with running_server(tmp_path) as server:
        alice = await clients(server.port)
        await alice.login("alice", "pw-alice")
        guest = await clients(server.port)
        await guest.wait_for("Handle:")
        await server.shutdown("The BBS is going down for maintenance.")
        for c in (alice, guest):
            await c.wait_for("The BBS is going down for maintenance.")
            await c.wait_closed()
        with pytest.raises(OSError):
            await TelnetClient.connect(server.port)


async def test_serve_stops_cleanly_on_sigterm(tmp_path, clients):
    env = dict(os.environ, BBSPOKER_DB=str(tmp_path / "serve.db"))
    env.pop("BBSPOKER_CONFIG", None)
    (tmp_path / "serve.toml").write_text("[server]\nport = 0\n[ssh]\nenabled = false\n"
                                         "[web]\nenabled = false\n")
    code = ("import sys; from bbspoker.config import load_config; from bbspoker.app import run;"
            f"sys.exit(run(load_config({str(tmp_path / 'serve.toml')!r})))")
    proc = await asyncio.create_subprocess_exec(sys.executable, "-c", code, env=env,
                                                stderr=subprocess.PIPE)
    try:
        port = None
        while port is None:
            line = (await asyncio.wait_for(proc.stderr.readline(), 30)).decode()
            assert line, "server exited before listening"
            if "telnet listening on" in line:
                port = int(line.rsplit("port", 1)[1])
        c = await clients(port)
        await c.login("alice", "pw-alice")
        proc.send_signal(signal.SIGTERM)
        await c.wait_for("The BBS is shutting down. Goodbye!")
        await c.wait_closed()
        assert await asyncio.wait_for(proc.wait(), 30) == 0
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


@pytest.mark.parametrize("option", [86, 87], ids=["MCCP3", "MCCP2"])
async def test_compression_the_server_never_offered_is_not_turned_on(tmp_path, clients, option):
    """A client that sent IAC SB MCCP3 IAC SE unasked had all its later input inflated
    (8 KiB on the wire became 8 MiB in one allocation, charged to the rate limit as 8 KiB,
    and stalled the loop for seconds); MCCP2 from a client swallowed the rest of its
    packet. The server offers neither: both are ignored and input stays plain."""
    import zlib
    async with running_server(tmp_path) as server:
        c = await clients(server.port)
        await c.wait_for("Handle:")
        session = only_session(server)
        bomb = zlib.compress(b"a" * (8 << 20), 9)
        assert len(bomb) < 16 * 1024
        await c.send_raw(bytes([IAC, SB, option, IAC, 0xF0]) + b"bob\r")
        await c.wait_for("Create new user bob? (y/n)")
        protocol = session._writer.protocol
        assert protocol._mccp3_decompressor is None and not session._writer.mccp3_active
        assert not session._writer.mccp2_active
        await c.send_raw(b"n")
        await wait_until(lambda: c.text.count("Handle:") == 2)
        await c.send_raw(bomb[:2048])        # taken as plain bytes, never inflated
        await wait_until(lambda: protocol.rx_bytes >= 2048 + 9)
        assert protocol._mccp3_decompressor is None
        await still_served(server, clients)
