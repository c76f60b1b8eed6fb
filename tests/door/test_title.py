"""The title screen (door/title.py): the ANSI drawing every telnet, SSH, web and RLOGIN
session opens with, in the session's look, before the login dialogue."""

from __future__ import annotations

import asyncio
import importlib.util
import re

import pyte
import pytest

from bbspoker.door import title
from bbspoker.door.keys import Key, KeyKind
from bbspoker.door.look import CLASSIC, Look
from tests.support.paths import ROOT
from tests.support.telnetclient import TelnetClient, running_server

_SGR = re.compile(rb"\x1b\[[0-9;]*m")
#: What the title's output may hold besides printable ASCII in the classic look: cursor
#: positioning, the clear, and CR/LF.
_CLASSIC_ESCAPES = re.compile(rb"\x1b\[(?:\d+;\d+H|H|2J)")


def _script():
    spec = importlib.util.spec_from_file_location("title_art", ROOT / "scripts/art/title.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _Watch(pyte.Screen):
    """A pyte screen that notes a character drawn in its bottom-right cell and a scroll."""

    def __init__(self) -> None:
        super().__init__(80, 24)
        self.bottom_right = False
        self.scrolled = False

    def draw(self, data: str) -> None:
        for ch in data:
            if self.cursor.y == self.lines - 1 and self.cursor.x >= self.columns - 1:
                self.bottom_right = True
            super().draw(ch)

    def index(self) -> None:
        if self.cursor.y == self.margins.bottom if self.margins else self.lines - 1:
            self.scrolled = True
        super().index()


def _screen(text: str) -> _Watch:
    screen = _Watch()
    pyte.Stream(screen).feed(text)
    return screen


def _cp437_screen(data: bytes) -> _Watch:
    return _screen(data.decode("cp437").translate(
        {3: "\u2665", 4: "\u2666", 5: "\u2663", 6: "\u2660"}))


def _cells(screen: pyte.Screen, char: str) -> list[pyte.screens.Char]:
    return [cell for row in screen.buffer.values() for cell in row.values() if cell.data == char]


# --- the file ------------------------------------------------------------------------

def test_the_drawing_has_a_sauce_record_of_80_columns_by_24_rows():
    data = (ROOT / "src/bbspoker/door" / title.ART).read_bytes()
    record = title.sauce_of(data)
    assert record.title == "PoKeR - Global Village BBS"
    assert (record.cols, record.rows) == (80, 24)
    assert data[record.size] == 0x1A and len(data) == record.size + 1 + title.SAUCE_SIZE
    assert data[record.size + 1:record.size + 8] == b"SAUCE00"


def test_the_committed_drawing_is_what_its_script_makes():
    assert _script().build() == (ROOT / "src/bbspoker/door" / title.ART).read_bytes()


def test_the_drawing_never_writes_the_bottom_right_cell_in_any_look():
    looks = [Look("cp437", True, "symbols"), Look("utf-8", True, "symbols"), CLASSIC,
             Look("ascii", True, "symbols")]
    for look in looks:
        screen = _screen(title.render(look))
        assert not screen.bottom_right and not screen.scrolled, look
        assert screen.display[23].strip() == "", look


# --- the three looks, as callers see them --------------------------------------------

async def _connect(port: int, **kwargs) -> TelnetClient:
    client = await TelnetClient.connect(port, **kwargs)
    client.skip_title = False
    client.as_classic = False      # these tests read the looks themselves
    return client


async def test_a_cp437_caller_gets_the_files_bytes_with_red_hearts(tmp_path):
    async with running_server(tmp_path) as server:
        c = await _connect(server.port, term="syncterm")
        try:
            await c.wait_for_received(title.content()[-40:])
            assert title.content() in c.received
            screen = _cp437_screen(bytes(c.received))
            hearts = _cells(screen, "\u2665")
            assert hearts and all(cell.fg == "red" for cell in hearts)
            assert all(cell.fg == "black" for cell in _cells(screen, "\u2660"))
            assert "Global Village BBS" in "\n".join(screen.display)
            assert b"Handle:" not in c.received
        finally:
            await c.close()


async def test_a_utf8_colour_caller_sees_the_drawing_in_unicode(tmp_path):
    async with running_server(tmp_path) as server:
        c = await _connect(server.port, term="xterm-256color")
        try:
            await c.wait_for("Global Village BBS")
            await c.wait_for("[Press any key]")
            hearts = _cells(c.screen, "\u2665")
            assert hearts and all(cell.fg == "red" and cell.bg == "white" for cell in hearts)
            assert _cells(c.screen, "\u2666") and _cells(c.screen, "\u2660")
            assert _cells(c.screen, "\u2588") and _cells(c.screen, "\u2591")
            assert "Handle:" not in c.text
        finally:
            await c.close()


async def test_a_classic_terminal_gets_the_drawing_in_plain_ascii_without_colours(tmp_path):
    async with running_server(tmp_path) as server:
        c = await _connect(server.port, term="vt100")
        try:
            await c.wait_for("[Press any key]")
            received = bytes(c.received)
            assert received.isascii() and not _SGR.search(received)
            assert not re.search(rb"[\x00-\x09\x0b\x0c\x0e-\x1f]",
                                 _CLASSIC_ESCAPES.sub(b"", received))
            assert "######+" in c.text and "Global Village BBS" in c.text
            assert "|A      |" in c.text and "|   *   |" in c.text
        finally:
            await c.close()


async def test_a_key_skips_the_title_and_the_login_prompt_follows_on_a_clear_screen(tmp_path):
    async with running_server(tmp_path) as server:
        c = await _connect(server.port)
        try:
            await c.wait_for("[Press any key]")
            await c.send("x")
            await c.wait_for("Handle:")
            assert c.row(0).startswith("Global Village BBS")
            assert "[Press any key]" not in c.text and "\u2588" not in c.text
            # The key went to the title, not into the handle; the pen is the default.
            assert c.row(2) == "Handle:"
            assert all(cell.fg == "default" and cell.bg == "default"
                       for row in c.screen.buffer.values() for cell in row.values()
                       if cell.data != " ")
        finally:
            await c.close()


async def test_a_window_smaller_than_80x24_goes_straight_to_the_login(tmp_path):
    async with running_server(tmp_path) as server:
        c = await _connect(server.port, cols=79, rows=24)
        try:
            await c.wait_for("Handle:")
            assert title.content()[:200].decode("cp437") not in c.received.decode()
            assert "\u2588".encode() not in c.received
        finally:
            await c.close()


async def test_the_sysop_may_turn_the_title_off(tmp_path):
    async with running_server(tmp_path, door={"title": False}) as server:
        c = await _connect(server.port)
        try:
            await c.wait_for("Handle:")
            assert "\u2588".encode() not in c.received
        finally:
            await c.close()


# --- waiting ------------------------------------------------------------------------

class _Session:
    """A terminal that records what is written and answers read_key from ``keys``
    (none left: the timeout passes at once)."""

    def __init__(self, look: Look, keys: list[Key], cols: int = 80, rows: int = 24) -> None:
        self.look, self.keys, self.cols, self.rows = look, keys, cols, rows
        self.language = "de"
        self.output: list[str] = []
        self.timeouts: list[float | None] = []

    def write(self, text: str) -> None:
        self.output.append(text)

    async def read_key(self, timeout: float | None = None) -> Key:
        self.timeouts.append(timeout)
        if not self.keys:
            raise TimeoutError
        return self.keys.pop(0)


async def test_the_title_goes_on_by_itself_after_its_seconds():
    session = _Session(CLASSIC, [])
    assert await title.show_title(session, 8.0)
    assert session.timeouts == [8.0]
    # The prompt in the session's language, centred on its row; then the screen cleared.
    assert "\x1b[21;" in session.output[0] and "[Beliebige Taste dr\u00fccken]" in session.output[0]
    assert session.output[-1] == "\x1b[H\x1b[2J"


async def test_a_key_typed_at_the_title_is_taken_by_it():
    key = Key(KeyKind.CHAR, "a")
    later = Key(KeyKind.CHAR, "b")
    session = _Session(Look("utf-8", True, "symbols"), [key, later])
    assert await title.show_title(session, 8.0)
    assert session.keys == [later]
    assert session.output[-1] == "\x1b[0m\x1b[H\x1b[2J"


async def test_a_small_window_is_not_shown_the_title_nor_waited_on():
    session = _Session(CLASSIC, [], cols=80, rows=23)
    assert not await title.show_title(session, 8.0)
    assert session.output == [] and session.timeouts == []
