"""The drop-file door (``bbspoker door``) end to end: the real command as a subprocess,
fed drop files written byte for byte as ENiGMA's ``core/dropfile.js`` and Synchronet's
``xtrn_sec.cpp`` write them, handed the caller the three ways BBSes do on Linux (a
pseudo-terminal in cooked mode, pipes, an inherited telnet socket, a port to connect
back to), against the real server's RLOGIN port; SIGHUP mid-game; the caller's time."""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import errno
import fcntl
import os
import signal
import socket
import struct
import subprocess
import sys
import termios
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pyte
import pytest

from bbspoker.app import Server
from bbspoker.config import BbsSystem
from bbspoker.transport.dropfile import (DropFileError, TelnetFilter, read_drop_file,
                                         rlogin_hello)
from tests.support.tableplay import bet
from tests.support.telnetclient import ScreenWaits, TelnetClient, wait_until
from tests.transport.test_rlogin import Sleeps, advance, bbs_server

pytestmark = pytest.mark.e2e

LOCAL = ("127.0.0.1/32",)
SECRET = "door-secret-4711"
DEMO = BbsSystem("DEMO", "Demo BBS", LOCAL, secret=SECRET, charset="utf-8")
TABLES = [("poker", "PoKeR"), ("texas", "Texas", "holdem", {})]
_CPR_ASK = "\x1b[6n"


# --- drop files as BBSes write them ----------------------------------------------------

def enigma_door32(alias: str, *, real: str = "Alice Liddell", node: int = 3) -> bytes:
    """ENiGMA's ``getDoor32Buffer``: comm type 2 and handle -1 whatever the door's io,
    115200, the board's name, the user id, real name, user name, security level, 546
    minutes (fixed), 1 (ANSI), the node; CRLF; CP437. Its file name is ``door32.sys``."""
    return ("\r\n".join(["2", "-1", "115200", "ENiGMA Test Board", "7", real, alias, "30",
                         "546", "1", str(node)]) + "\r\n").encode("cp437")


def synchronet_door32(alias: str, minutes: int, *, socket_fd: int | None = None,
                      native: bool = True) -> bytes:
    """Synchronet's ``xtrndat`` DOOR32.SYS: comm type 0 and handle -1 for a Standard I/O
    door, else 2 and the socket's descriptor; the DTE rate; ``VERSION_NOTICE`` and the
    revision letter; user number, real name, name, level, minutes left, ANSI 1, the node.
    On Unix a native door's file has LF line ends, a DOS door's CRLF (``lfexpand``)."""
    comm, handle = (0, -1) if socket_fd is None else (2, socket_fd)
    text = (f"{comm}\n{handle}\n38400\nSynchronet BBS for Linux  Version 3.21b\n12\n"
            f"Bob Smith\n{alias}\n50\n{minutes}\n1\n2\n")
    return (text if native else text.replace("\n", "\r\n")).encode("cp437")


def enigma_door_sys(alias: str, minutes: int, rows: int = 24) -> bytes:
    """ENiGMA's ``getDoorSysBuffer`` (52 lines, CRLF), with the minutes left (line 19,
    which ENiGMA fixes at 256) and the seconds (line 18) set for the test."""
    lines = ["COM1:", "57600", "8", "1", "57600", "Y", "Y", "Y", "Y", "Alice Liddell",
             "Anywhere", "123-456-7890", "123-456-7890", "NOPE", "30", "12", "05/04/26",
             str(minutes * 60), str(minutes), "GR", str(rows), "N", "1,2,3,4,5,6,7", "1",
             "01/01/99", "7", "Z", "0", "0", "0", "999999", "01/01/90", "X:\\MAIN\\",
             "X:\\GEN\\", "SysOp", alias, "00:05", "Y", "Y", "Y", "7", "256", "07/07/90",
             "10:00", "10:00", "9999", "0", "0", "0", "None", "0", "0"]
    assert len(lines) == 52
    return ("\r\n".join(lines) + "\r\n").encode("cp437")


def test_drop_files_are_read_as_bbses_write_them(tmp_path):
    enigma = tmp_path / "enigma" / "door32.sys"
    enigma.parent.mkdir()
    enigma.write_bytes(enigma_door32("alice"))
    d = read_drop_file(enigma)
    assert (d.kind, d.alias, d.minutes, d.ansi, d.comm_type, d.handle) == (
        "DOOR32.SYS", "alice", 546, True, 2, -1)
    assert read_drop_file(enigma.parent) == d                      # Mystic's %P: the directory
    sync = tmp_path / "DOOR32.SYS"
    sync.write_bytes(synchronet_door32("Bob Smith", 42, socket_fd=7))
    d = read_drop_file(sync)
    assert (d.alias, d.minutes, d.comm_type, d.handle) == ("Bob Smith", 42, 2, 7)
    door_sys = tmp_path / "DOOR.SYS"
    door_sys.write_bytes(enigma_door_sys("ålice", 17, rows=30))
    d = read_drop_file(door_sys)
    assert (d.kind, d.alias, d.minutes, d.ansi, d.rows) == ("DOOR.SYS", "ålice", 17, True, 30)
    dorinfo = tmp_path / "DORINFO1.DEF"
    dorinfo.write_bytes(b"ENIGMA\r\nSysOp\r\nSysOp\r\nCOM1\r\n57600\r\n0\r\ncarol\r\ncarol\r\n"
                        b"\r\n1\r\n30\r\n546\r\n-1\r\n")     # ENiGMA: the name on both lines
    assert (read_drop_file(dorinfo).alias, read_drop_file(dorinfo).minutes) == ("carol", 546)
    dorinfo.write_bytes(b"DEMO\nSYS\nOP\nCOM0\n38400 BAUD,N,8,1\n0\nBOB\nSMITH\nTOWN\n1\n50\n33\n")
    assert read_drop_file(dorinfo).alias == "BOB SMITH"              # Synchronet's
    chain = tmp_path / "chain.txt"
    chain.write_bytes(b"12\ndave\nDave Real\n\n33\nM\n0\n05/04/26\n132\n50\n50\n0\n0\n1\n1\n"
                      b"1234\n")
    d = read_drop_file(chain)
    assert (d.alias, d.cols, d.rows, d.minutes, d.ansi) == ("dave", 132, 50, 20, True)
    # what the door sends: the secret, [TAG]alias, the terminal with the minutes
    assert rlogin_hello(d, "DEMO", "s3", charset="cp437") == (
        b"\0s3\0[DEMO]dave\0ansi-bbs,time=20,charset=cp437/38400\0")
    assert rlogin_hello(d, "DEMO", "", kind="xterm,x/") == (
        b"\0dave\0[DEMO]dave\0xtermx,time=20/38400\0")


@pytest.mark.parametrize(("name", "data", "says"), [
    ("door32.sys", b"2\r\n-1\r\n115200\r\nBoard\r\n", "truncated: 4 lines"),
    ("door32.sys", b"2\n-1\n1\nB\n1\nR\nal\n30\nlots\n1\n1\n", "line 9 (minutes left)"),
    ("door32.sys", b"2\n-1\n1\nB\n1\nR\n\n30\n5\n1\n1\n", "line 7 (alias) is empty"),
    ("DOOR.SYS", enigma_door_sys("x", 5)[:150], "truncated"),
    ("notes.txt", b"hello\n", "not a drop file the door reads"),
])
def test_a_bad_drop_file_is_refused_with_one_line(tmp_path, name, data, says):
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(DropFileError, match=says.replace("(", r"\(").replace(")", r"\)")):
        read_drop_file(path)


def test_the_command_refuses_bad_and_missing_drop_files_with_one_line_and_status_1(tmp_path):
    bad = tmp_path / "door32.sys"
    bad.write_bytes(b"2\r\n-1\r\n115200\r\n")
    for path in (bad, tmp_path / "missing" / "door32.sys"):
        done = subprocess.run([sys.executable, "-m", "bbspoker.cli", "door", str(path),
                               "--bbs", "DEMO", "--server", "127.0.0.1:9"],
                              capture_output=True, text=True, env=_env(), timeout=10,
                              stdin=subprocess.DEVNULL)
        assert done.returncode == 1 and done.stdout == ""
        assert done.stderr.count("\n") == 1 and done.stderr.startswith("bbspoker: error: ")
    assert "truncated: 3 lines" in done.stderr or "cannot read it" in done.stderr


def test_telnet_commands_are_taken_out_of_a_socket_caller_s_input():
    f = TelnetFilter()
    naws = bytes([255, 250, 31, 0, 90, 0, 40, 255, 240])
    assert f.feed(b"a\xff\xfb\x01b\xff\xffc\r\0d" + naws[:4]) == (b"ab\xffc\rd", [])
    assert f.feed(naws[4:] + b"e\r\n") == (b"e\r\n", [(90, 40)])


# --- the door command against the real server -------------------------------------------

def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("BBSPOKER_CONFIG", None)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    return env


class CallerScreen(ScreenWaits):
    """The caller's terminal at the BBS's end of the door: bytes read from ``fd`` (a
    pseudo-terminal's master, a pipe, a socket) onto a pyte screen, decoded as
    ``encoding``; each cursor position report asked for is answered through ``write``."""

    def __init__(self, fd: int, write: Callable[[bytes], Any], *, cols: int = 80,
                 rows: int = 24, encoding: str = "utf-8") -> None:
        self.screen = pyte.Screen(cols, rows)
        self._stream = pyte.Stream(self.screen)
        self._decoder = codecs.getincrementaldecoder(encoding)(errors="replace")
        self.received = bytearray()
        self.eof = asyncio.Event()
        self._fd, self._write = fd, write
        os.set_blocking(fd, False)
        asyncio.get_running_loop().add_reader(fd, self._readable)

    def _readable(self) -> None:
        try:
            data = os.read(self._fd, 65536)
        except BlockingIOError:
            return
        except OSError as exc:          # EIO: the pseudo-terminal's other side is closed
            if exc.errno != errno.EIO:
                raise
            data = b""
        if not data:
            self.stop()
            return
        self.received += data
        text = self._decoder.decode(data)
        while _CPR_ASK in text:
            before, _, text = text.partition(_CPR_ASK)
            self._stream.feed(before)
            cur = self.screen.cursor
            self._write(f"\x1b[{cur.y + 1};{cur.x + 1}R".encode())
        self._stream.feed(text)
        self._arrived()

    def stop(self) -> None:
        """Stop reading (the end of output)."""
        asyncio.get_running_loop().remove_reader(self._fd)
        self._ended()

    async def send(self, data: str | bytes) -> None:
        self._write(data.encode() if isinstance(data, str) else data)
        await asyncio.sleep(0)


def _write_all(fd: int) -> Callable[[bytes], None]:
    def write(data: bytes) -> None:
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(fd, view):]
            except BlockingIOError:
                pass
    return write


async def start_door(server: Server, dropfile: Path, *args: str, secret: bool = True,
                     **popen: Any) -> asyncio.subprocess.Process:
    """``python -m bbspoker.cli door DROPFILE --bbs DEMO --server ... ARGS`` as a child
    process (its secret in a file unless ``secret`` is false)."""
    extra = ["--bbs", "DEMO", "--server", f"127.0.0.1:{server.rlogin_port}"]
    if secret:
        secret_file = dropfile.parent / "secret.txt"
        secret_file.write_text(SECRET + "\n")
        extra += ["--secret-file", str(secret_file)]
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bbspoker.cli", "door", str(dropfile), *extra, *args,
        env=_env(), **popen)


async def ended(proc: asyncio.subprocess.Process) -> int:
    return await asyncio.wait_for(proc.wait(), 5.0)


@contextlib.asynccontextmanager
async def door_server(tmp_path: Path, **kwargs: Any) -> AsyncIterator[tuple[Server, list[Any]]]:
    """The real server with the RLOGIN port on and DEMO (its secret, UTF-8) known; its
    ``sleep`` (the caller's time) waits until the test wakes it (:class:`Sleeps`)."""
    kwargs.setdefault("sleep", Sleeps())
    async with bbs_server(tmp_path, DEMO, **kwargs) as (server, made):
        yield server, made


@contextlib.contextmanager
def pseudo_terminal(cols: int, rows: int):
    """A pseudo-terminal in cooked mode, as a BBS gives a stdio door: (master, slave)."""
    master, slave = os.openpty()
    fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("4H", rows, cols, 0, 0))
    try:
        yield master, slave
    finally:
        for fd in (master, slave):
            with contextlib.suppress(OSError):
                os.close(fd)


async def test_the_door_on_a_cooked_pseudo_terminal_from_enigma_s_door32_sys(tmp_path):
    """ENiGMA's ``io: stdio`` door: a pseudo-terminal in cooked mode (echo, lines,
    signals), its ``door32.sys`` (CRLF, comm type 2, handle -1), the system found in the
    config file. The door puts the terminal in raw mode (a key goes through at once, no
    echo), the caller is alice@DEMO at 100x30, a new size reaches the server, and the
    terminal's modes are back when the caller quits."""
    drop = tmp_path / "node3" / "door32.sys"
    drop.parent.mkdir()
    drop.write_bytes(enigma_door32("alice"))
    async with door_server(tmp_path) as (server, made):
        config = tmp_path / "door.toml"
        config.write_text(f'[rlogin]\nport = {server.rlogin_port}\n\n[[bbs]]\ntag = "DEMO"\n'
                          f'name = "Demo"\naddresses = ["127.0.0.1"]\nsecret = "{SECRET}"\n')
        with pseudo_terminal(100, 30) as (master, slave):
            cooked = termios.tcgetattr(slave)
            assert cooked[3] & termios.ICANON and cooked[3] & termios.ECHO
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bbspoker.cli", "--config", str(config), "door",
                str(drop), stdin=slave, stdout=slave, stderr=slave, env=_env())
            caller = CallerScreen(master, _write_all(master), cols=100, rows=30)
            try:
                await caller.menu()
                assert "Logged in as alice@DEMO. You have 1,000 CUBES." in caller.text
                raw = termios.tcgetattr(slave)
                assert not raw[3] & (termios.ICANON | termios.ECHO | termios.ISIG)
                session = server.app.find_online("alice@DEMO")
                assert (session.cols, session.rows, session.time_left) == (100, 30, 546 * 60)
                await caller.send("w")                         # no Enter: raw mode
                await caller.wait_for("Who is online")
                fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("4H", 40, 120, 0, 0))
                assert proc.pid is not None
                os.kill(proc.pid, signal.SIGWINCH)
                await wait_until(lambda: (session.cols, session.rows) == (120, 40))
                await caller.send(" ")
                await caller.wait_for("[Q]")
                await caller.send("q")
                assert await ended(proc) == 0
                assert termios.tcgetattr(slave) == cooked
            finally:
                caller.stop()
                if proc.returncode is None:
                    proc.kill()
                    await proc.wait()
        assert server.app.ledger.find_account("alice@DEMO").bbs == "DEMO"


async def test_the_door_on_stdio_pipes_from_synchronet_s_door32_sys(tmp_path):
    """Synchronet's Standard I/O native door: DOOR32.SYS with LF line ends, comm type 0;
    pipes (no terminal to set); ``--charset cp437`` makes the caller's screen CP437. The
    end of the caller's input ends the door and the session."""
    drop = tmp_path / "DOOR32.SYS"
    drop.write_bytes(synchronet_door32("Bob Smith", 45))
    async with door_server(tmp_path) as (server, made):
        to_door_r, to_door_w = os.pipe()
        from_door_r, from_door_w = os.pipe()
        proc = await start_door(server, drop, "--charset", "cp437", stdin=to_door_r,
                                stdout=from_door_w)
        os.close(to_door_r)
        os.close(from_door_w)
        caller = CallerScreen(from_door_r, _write_all(to_door_w), encoding="cp437")
        try:
            await caller.menu()
            assert "Logged in as Bob Smith@DEMO." in caller.text
            session = server.app.find_online("Bob Smith@DEMO")
            assert (session.encoding, session.time_left, session.term.kind) == (
                "cp437", 45 * 60, "ansi-bbs")
            assert "\u2500" not in bytes(caller.received).decode("utf-8", "replace")
            os.close(to_door_w)                                 # the caller's input ends
            assert await ended(proc) == 0
            await wait_until(lambda: server.app.find_online("Bob Smith@DEMO") is None)
        finally:
            caller.stop()
            os.close(from_door_r)


async def test_the_door_on_an_inherited_telnet_socket_from_synchronet(tmp_path):
    """Synchronet's socket door: DOOR32.SYS comm type 2 and the socket's descriptor,
    which the door inherits. Telnet commands in the caller's input are taken out; a NAWS
    report resizes the window."""
    ours, theirs = socket.socketpair()
    drop = tmp_path / "door32.sys"
    drop.write_bytes(synchronet_door32("carol", 60, socket_fd=theirs.fileno()))
    async with door_server(tmp_path) as (server, made):
        proc = await start_door(server, drop, pass_fds=(theirs.fileno(),),
                                stdin=subprocess.DEVNULL)
        theirs.close()
        caller = CallerScreen(ours.fileno(), ours.sendall)
        try:
            await caller.menu()
            assert "Logged in as carol@DEMO." in caller.text
            session = server.app.find_online("carol@DEMO")
            await caller.send(bytes([255, 251, 1]) + bytes([255, 250, 31, 0, 90, 0, 40, 255,
                                                            240]) + b"w")
            await caller.wait_for("Who is online")
            await wait_until(lambda: (session.cols, session.rows) == (90, 40))
            ours.shutdown(socket.SHUT_WR)
            assert await ended(proc) == 0
        finally:
            caller.stop()
            ours.close()


async def test_the_door_connects_back_to_enigma_s_socket_port(tmp_path):
    """ENiGMA's ``io: socket``: the BBS listens on ``{srvPort}`` and the door connects
    to it (``--connect``); the drop file's handle is -1. When the server ends the
    session the door closes that connection and exits."""
    drop = tmp_path / "door32.sys"
    drop.write_bytes(enigma_door32("dora"))
    listener = socket.create_server(("127.0.0.1", 0))
    listener.setblocking(False)
    port = listener.getsockname()[1]
    async with door_server(tmp_path) as (server, made):
        proc = await start_door(server, drop, "--connect", f"127.0.0.1:{port}",
                                stdin=subprocess.DEVNULL)
        conn, _ = await asyncio.get_running_loop().sock_accept(listener)
        listener.close()
        caller = CallerScreen(conn.fileno(), conn.sendall)
        try:
            await caller.menu()
            assert "Logged in as dora@DEMO." in caller.text
            await caller.send("q")
            assert await ended(proc) == 0
            await caller.wait_closed()
        finally:
            caller.stop()
            conn.close()


async def _seat(caller: Any, table: str) -> None:
    await caller.send("p")
    await caller.wait_for("Pick a table")
    await caller.send(table)
    await caller.wait_for("Join the table? (y/n)")
    await caller.send("y")


async def test_sighup_mid_game_is_a_lost_connection(tmp_path):
    """The BBS signals the door with SIGHUP when its caller drops (no end of input
    first): the door closes the RLOGIN connection at once, and the server takes it as a
    lost connection: the seat is held, the others are told; the ledger stays whole."""
    drop = tmp_path / "door32.sys"
    drop.write_bytes(enigma_door32("eve"))
    async with door_server(tmp_path, tables=TABLES, table={"reconnect_grace": 90}) as (
            server, made):
        with pseudo_terminal(80, 24) as (master, slave):
            proc = await start_door(server, drop, stdin=slave, stdout=slave, stderr=slave)
            caller = CallerScreen(master, _write_all(master))
            try:
                await caller.menu()
                await _seat(caller, "1")
                await caller.wait_for("[X]")
                bob = await TelnetClient.connect(server.port)
                made.append(bob)
                await bob.login("bob", "pw-bob")
                await _seat(bob, "1")
                await caller.wait_for("bob has joined the table.")   # two for a game now
                await caller.wait_for("[S] Open the game")
                await caller.send("s")
                await bob.wait_for("Current ..... eve@DEMO")
                await bet(caller)
                await bob.wait_for("eve@DEMO has called the bet")
                assert proc.pid is not None
                os.kill(proc.pid, signal.SIGHUP)
                assert await ended(proc) == 0
                await bob.wait_for("eve@DEMO lost the connection (seat held 90 s).")
                assert server.app.tables.seat_of("eve@DEMO") is not None     # held
                await wait_until(lambda: server.app.find_online("eve@DEMO") is None)
                assert server.app.ledger.verify() == []
            finally:
                caller.stop()
                if proc.returncode is None:
                    proc.kill()
                    await proc.wait()


async def test_a_caller_whose_minutes_run_out_is_warned_and_cashed_out(tmp_path):
    """DOOR.SYS gives 5 minutes (line 19): the door sends ``time=5``. The caller sits at
    the Hold'em table; three minutes in they are warned, at five their hand folds, their
    stack is cashed out and the session ends with the goodbye; the door exits, and
    ``ledger verify`` is clean."""
    drop = tmp_path / "DOOR.SYS"
    drop.write_bytes(enigma_door_sys("fay", 5))
    sleeps = Sleeps()
    async with door_server(tmp_path, sleep=sleeps, tables=TABLES) as (server, made):
        ledger = server.app.ledger
        to_door_r, to_door_w = os.pipe()
        from_door_r, from_door_w = os.pipe()
        proc = await start_door(server, drop, stdin=to_door_r, stdout=from_door_w)
        os.close(to_door_r)
        os.close(from_door_w)
        caller = CallerScreen(from_door_r, _write_all(to_door_w))
        try:
            await caller.menu()
            await _seat(caller, "2")
            await caller.wait_for("Buy in with how many CUBES")
            await caller.send("\r")
            await caller.wait_for("[X]")
            bob = await TelnetClient.connect(server.port)
            made.append(bob)
            await bob.login("bob", "pw-bob")
            await _seat(bob, "2")
            await bob.wait_for("Buy in with how many CUBES")
            await bob.send("\r")
            await bob.wait_for("[X]")
            advance(server, 60)
            await wait_until(lambda: server.app.tables["texas"].service.snapshot.pot is not None)
            assert ledger.stacks_of("fay@DEMO")
            await sleeps.wake(180)
            await caller.wait_for("Your time on your BBS ends in 2 minutes.")
            await sleeps.wake(120)
            assert await ended(proc) == 0
            assert "Your time is up: back to your BBS. Goodbye!" in caller.text
            await wait_until(lambda: not ledger.stacks_of("fay@DEMO"))
            assert 0 < ledger.balance("fay@DEMO") <= 1000 and ledger.verify() == []
        finally:
            caller.stop()
            os.close(to_door_w)
            os.close(from_door_r)
