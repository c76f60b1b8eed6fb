#!/usr/bin/env python3
"""Colour screenshots of every game for docs/screens.md: PNGs from the browser page and
from a CP437 terminal.

Usage (from the repository; ``chromium`` and ``chromium-driver`` from Debian, Selenium
from the ``test`` extra, pyte, Pillow from the ``bench`` extra's matplotlib)::

    PYTHONPATH=src .venv/bin/python scripts/screenshots.py [--out docs/screens] [--kind KIND]

What it does, step by step:

1. Makes a temporary directory with a config of its own (``config.toml``: telnet and the
   web page on free ports of 127.0.0.1, the page's loopback origins, SSH off, the title
   screen on for 60 s, one table of each game kind: ``poker`` draw40, ``holdem``,
   ``schiebe``, ``stud``, each with computer players seated) and makes eleven bot accounts
   with ``bbspoker users add NAME --bot --cubes 5000``; then runs ``bbspoker serve`` on it
   as a subprocess (the repository's ``src`` first on ``PYTHONPATH``). Its log is
   ``server.log`` in that directory.
2. Over telnet with TTYPE ``syncterm`` (so the server sends CP437 bytes, suits as bytes
   0x03-0x06), 80x24: the title screen (``title-cp437.png``), then a new user's lobby
   menu (``lobby-cp437.png``) and the table list of [P] (``tables-cp437.png``).
3. For each game kind, two people at the same table at once, each in a thread, among
   the bots: one in headless Chromium through Selenium (the page at ``/``, a new user
   typed into the terminal), one over telnet as a CP437 terminal. Each logs in as a new
   user, takes a seat (a buy-in of 500 CUBES at Hold'em and stud), says a line in the
   chat and plays (it calls, checks, opens, agrees; at Schiebe-Poker it pushes or swaps
   at random) until its table shows a hand well under way on its own turn: draw40 from the
   second betting round on (the bet prompt open), Hold'em from the flop on, stud from
   fifth street on, Schiebe-Poker from its second round on. It then types a second chat
   line and, once that line is in the log, saves the PNG: the page's terminal element
   (``<kind>-browser.png``) or its pyte 80x24 screen drawn cell by cell
   (``<kind>-cp437.png``). Both keep playing until both are done, then leave.
4. The CP437 rendering: the received bytes without telnet commands, decoded as CP437
   with bytes 0x03-0x06 read as ``♥ ♦ ♣ ♠`` (what those bytes show on a CP437 terminal),
   fed to a ``pyte.Screen(80, 24)``; each cell is drawn in the 16-colour VGA palette
   (SGR bold as the bright half of the foreground, reverse video swapped), 12x24 pixels:
   its text in DejaVu Sans Mono, box drawing and block elements as lines and areas of
   the cell (as terminals draw them, so frames join without gaps).

Every PNG is stored with an 8-bit palette (its 256 most frequent colours, 10-45 KB). The
script fails with a non-zero exit and the screen it waited on when a step does not come
in time, when the page's console has an error (a script error or a request the page's
CSP blocked), when the server sends UTF-8 to the CP437 terminal, or (exit 2) when
chromium, chromedriver, Selenium, pyte, Pillow or the DejaVu font is missing. A run takes
about 90 s; ``--kind`` limits it to some kinds, ``--keep`` keeps the temporary directory.
"""

from __future__ import annotations

import argparse
import io
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

REPO = Path(__file__).resolve().parents[1]
KINDS = ("draw40", "holdem", "schiebe", "stud")
#: The table of each kind in the config, in the order of the lobby's list (its number).
TABLES = {"draw40": 1, "holdem": 2, "schiebe": 3, "stud": 4}
BOTS = ("Bolt", "Chip", "Cog", "Dial", "Gear", "Lever", "Robo", "Servo", "Spark", "Tin",
        "Volt")
#: Who plays each kind: (the browser's handle, the CP437 terminal's handle).
PEOPLE = {"draw40": ("alice", "bob"), "holdem": ("carol", "dave"),
          "schiebe": ("erin", "frank"), "stud": ("grace", "heidi")}
#: Chat lines: (the first, said on sitting down; the second, just before the picture).
CHAT = {"browser": ("hello from the browser", "good luck, everyone"),
        "cp437": ("hi all, SyncTERM here", "nice pot")}
PASSWORD = "pw-screens-1"
BUY_IN = 500               # CUBES each person brings to the Hold'em and stud tables
STEP_TIMEOUT = 30.0        # seconds for one step of a dialogue
PLAY_TIMEOUT = 360.0       # seconds for a table to reach the moment of its pictures
FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")
FONT = FONT_DIR / "DejaVuSansMono.ttf"
CELL_W, CELL_H, FONT_SIZE = 12, 24, 20
#: The 16 colours of the VGA text mode (what SyncTERM shows), ANSI order: 0-7, then bright.
VGA = ((0, 0, 0), (170, 0, 0), (0, 170, 0), (170, 85, 0), (0, 0, 170), (170, 0, 170),
       (0, 170, 170), (170, 170, 170), (85, 85, 85), (255, 85, 85), (85, 255, 85),
       (255, 255, 85), (85, 85, 255), (255, 85, 255), (85, 255, 255), (255, 255, 255))
_PYTE_COLOURS = {"black": 0, "red": 1, "green": 2, "brown": 3, "yellow": 3, "blue": 4,
                 "magenta": 5, "fightmagenta": 5, "cyan": 6, "white": 7}
#: CP437's suit bytes (the ``cp437`` codec reads them as controls).
CP437_SUITS = str.maketrans({"\x03": "\u2665", "\x04": "\u2666", "\x05": "\u2663",
                             "\x06": "\u2660"})

CONFIG = """\
[server]
host = "127.0.0.1"
port = {telnet}
max_per_address = 64
max_sessions_per_address = 64
log_level = "INFO"

[login]
signups_per_address = 100

[ledger]
path = "{db}"

[table]
reconnect_grace = 0
shutdown_grace = 1
bot_think_min = 0.8
bot_think_max = 1.6

[ssh]
enabled = false

[web]
enabled = true
host = "127.0.0.1"
port = {web}

[door]
title = true
title_seconds = 60

[[tables]]
id = "poker"
name = "PoKeR"
game = "draw40"
bots = 3
bot_policy = "calling"
max_round = 4
between_games = 5

[[tables]]
id = "holdem"
name = "Holdem Hall"
game = "holdem"
bots = 3
bot_policy = "calling"
between_hands = 4

[[tables]]
id = "schiebe"
name = "Schiebe Corner"
game = "schiebe"
bots = 2
ante = 10
rounds = 3

[[tables]]
id = "stud"
name = "Stud Saloon"
game = "stud"
bots = 3
bot_policy = "calling"
between_hands = 4
"""


class Failure(Exception):
    """A step that did not come as expected; the message carries the screen."""


# --- the tools this needs ------------------------------------------------------------


def require_tools() -> tuple[str, str]:
    """(chromium, chromedriver) paths; exits with status 2 and what to install when a
    browser, its driver or a Python package this script draws with is missing."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    missing = []
    if not chromium:
        missing.append("chromium (apt-get install chromium)")
    if not driver:
        missing.append("chromedriver (apt-get install chromium-driver)")
    for module, how in (("selenium", "the test extra: pip install -e '.[test]'"),
                        ("pyte", "bbspoker's own dependencies"),
                        ("PIL", "Pillow, from the bench extra: pip install -e '.[bench]'")):
        try:
            __import__(module)
        except ImportError:
            missing.append(f"{module} ({how})")
    if not FONT.exists():
        missing.append(f"{FONT} (apt-get install fonts-dejavu-core)")
    if missing:
        print("screenshots.py: missing " + "; ".join(missing), file=sys.stderr)
        raise SystemExit(2)
    assert chromium and driver
    return chromium, driver


def free_port() -> int:
    """A TCP port of 127.0.0.1 that was free a moment ago."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# --- the server ----------------------------------------------------------------------


@dataclass
class Server:
    """``bbspoker serve`` in a subprocess on a config of its own in ``tmp``."""

    tmp: Path
    telnet: int = field(default_factory=free_port)
    web: int = field(default_factory=free_port)
    proc: subprocess.Popen[bytes] | None = None

    @property
    def config(self) -> Path:
        return self.tmp / "config.toml"

    @property
    def log(self) -> Path:
        return self.tmp / "server.log"

    def _cli(self, *args: str, **kwargs: Any) -> subprocess.CompletedProcess[bytes]:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            [str(REPO / "src"), *filter(None, [os.environ.get("PYTHONPATH")])])}
        env.pop("BBSPOKER_DB", None)
        return subprocess.run([sys.executable, "-m", "bbspoker.cli", "--config",
                               str(self.config), *args], env=env, check=True, **kwargs)

    def start(self) -> None:
        """Write the config, make the bots' accounts, start the server, wait for both
        ports (30 s)."""
        self.config.write_text(CONFIG.format(telnet=self.telnet, web=self.web,
                                             db=self.tmp / "bbspoker.db"))
        for bot in BOTS:
            self._cli("users", "add", bot, "--bot", "--cubes", "5000",
                      stdout=subprocess.DEVNULL)
        env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
        env.pop("BBSPOKER_DB", None)
        with open(self.log, "wb") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "bbspoker.cli", "--config", str(self.config), "serve"],
                stdout=log, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + 30
        while True:
            if self.proc.poll() is not None:
                raise Failure(f"the server exited ({self.proc.returncode}):\n"
                              + self.log.read_text(errors="replace")[-3000:])
            try:
                socket.create_connection(("127.0.0.1", self.telnet), 1).close()
                urllib.request.urlopen(f"http://127.0.0.1:{self.web}/", timeout=2).close()
                return
            except OSError:
                if time.monotonic() > deadline:
                    raise Failure("the server's ports did not open in 30 s")
                time.sleep(0.2)

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after 20 s."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


# --- terminals: what a player reads and types ----------------------------------------


class Terminal(Protocol):
    """A person's terminal: its screen as text, keys typed into it."""

    name: str

    def text(self) -> str:
        """The 80x24 screen, rows joined by newlines."""

    def send(self, keys: str) -> None:
        """Type ``keys`` (``"\\r"`` is Enter)."""

    def shoot(self, path: Path) -> None:
        """Save the screen as a PNG."""


def wait(term: Terminal, cond: Callable[[str], bool], what: str,
         timeout: float = STEP_TIMEOUT) -> str:
    """Poll ``term``'s screen until ``cond(text)``; the text. :class:`Failure` with the
    screen after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        shown = term.text()
        if cond(shown):
            return shown
        if time.monotonic() > deadline:
            raise Failure(f"{term.name}: no {what} in {timeout:.0f} s:\n{shown}")
        time.sleep(0.05)


def wait_for(term: Terminal, text: str, timeout: float = STEP_TIMEOUT) -> str:
    """Wait until ``text`` is on ``term``'s screen."""
    return wait(term, lambda shown: text in shown, repr(text), timeout)


def _ansi_bbs_screen(cols: int, rows: int) -> tuple[Any, Any]:
    """(screen, stream): a ``pyte.Screen`` and its ``pyte.Stream`` that also take
    ANSI.SYS's (and SyncTERM's) cursor save and restore, ``CSI s`` and ``CSI u``, which
    the door sends to BBS terminals (pyte has only ``ESC 7`` and ``ESC 8``)."""
    import pyte

    class Screen(pyte.Screen):
        def sco_save_cursor(self, *_params: int) -> None:
            self.save_cursor()

        def sco_restore_cursor(self, *_params: int) -> None:
            self.restore_cursor()

    class Stream(pyte.Stream):
        csi = {**pyte.Stream.csi, "s": "sco_save_cursor", "u": "sco_restore_cursor"}

    screen = Screen(cols, rows)
    return screen, Stream(screen)


IAC, DONT, DO, WONT, WILL, SB, SE = 255, 254, 253, 252, 251, 250, 240
BINARY, ECHO, SGA, TTYPE, NAWS = 0, 1, 3, 24, 31


class Cp437Telnet:
    """A telnet client that says it is SyncTERM (TTYPE ``syncterm``, NAWS 80x24) and shows
    what it receives as a CP437 terminal does, on a ``pyte.Screen(80, 24)`` fed by a
    thread of its own."""

    def __init__(self, port: int, name: str) -> None:
        self.name = name
        self.screen, self._stream = _ansi_bbs_screen(80, 24)
        self._error: BaseException | None = None
        self._lock = threading.Lock()
        self.received = bytearray()
        self._sock = socket.create_connection(("127.0.0.1", port), 10)
        self._sock.settimeout(None)
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Close the connection (the server frees the seat at once: no grace)."""
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._sock.close()

    def text(self) -> str:
        with self._lock:
            if self._error is not None:
                raise Failure(f"{self.name}: the screen stopped: {self._error!r}")
            return "\n".join(self.screen.display)

    def send(self, keys: str) -> None:
        self._sock.sendall(keys.encode("cp437").replace(b"\xff", b"\xff\xff"))

    def shoot(self, path: Path) -> None:
        with self._lock:
            cells = [[self.screen.buffer[y][x] for x in range(80)] for y in range(24)]
        save_png(render_cells(cells), path)

    def _read(self) -> None:
        try:
            self._parse()
        except BaseException as exc:        # the next text() reports it
            self._error = exc

    def _parse(self) -> None:
        state, cmd, sb = "data", 0, bytearray()
        while True:
            try:
                data = self._sock.recv(65536)
            except OSError:
                return
            if not data:
                return
            text = bytearray()
            for byte in data:
                if state == "data":
                    if byte == IAC:
                        state = "iac"
                    else:
                        text.append(byte)
                elif state == "iac":
                    if byte == IAC:
                        text.append(IAC)
                        state = "data"
                    elif byte in (DO, DONT, WILL, WONT):
                        cmd, state = byte, "opt"
                    elif byte == SB:
                        sb.clear()
                        state = "sb"
                    else:
                        state = "data"
                elif state == "opt":
                    state = "data"
                    self._option(cmd, byte)
                elif state == "sb":
                    if byte == IAC:
                        state = "sb_iac"
                    else:
                        sb.append(byte)
                elif state == "sb_iac":
                    if byte == SE:
                        state = "data"
                        if sb[:2] == bytes([TTYPE, 1]):
                            self._sock.sendall(bytes([IAC, SB, TTYPE, 0]) + b"syncterm"
                                               + bytes([IAC, SE]))
                    else:
                        sb.append(byte)
                        state = "sb"
            if text:
                with self._lock:
                    self.received += text
                    self._stream.feed(bytes(text).decode("cp437").translate(CP437_SUITS))

    def _option(self, cmd: int, opt: int) -> None:
        if cmd == DO:
            self._sock.sendall(bytes([IAC, WILL if opt in (TTYPE, NAWS, BINARY) else WONT,
                                      opt]))
            if opt == NAWS:
                self._sock.sendall(bytes([IAC, SB, NAWS, 0, 80, 0, 24, IAC, SE]))
        elif cmd == WILL:
            self._sock.sendall(bytes([IAC, DO if opt in (ECHO, SGA, BINARY) else DONT, opt]))

    def check_cp437(self) -> None:
        """:class:`Failure` if the server sent box drawing or suits in UTF-8 (bytes
        E2 94-97 or E2 99 lead them) instead of CP437."""
        with self._lock:
            data = bytes(self.received)
        if re.search(rb"\xe2[\x94-\x97\x99][\x80-\xbf]", data):
            raise Failure(f"{self.name}: UTF-8 box drawing or suits sent to a CP437 terminal")


class Browser:
    """Headless Chromium showing the door's page, driven by Selenium (as
    tests/e2e/test_browser.py does: no proxy, nothing fetched but from 127.0.0.1)."""

    def __init__(self, chromium: str, chromedriver: str, url: str, name: str) -> None:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        self.name = name
        options = webdriver.ChromeOptions()
        for arg in ("--headless=new", "--no-sandbox", "--disable-gpu",
                    "--disable-dev-shm-usage", "--window-size=1100,860",
                    "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=127.0.0.1",
                    "--hide-scrollbars"):
            options.add_argument(arg)
        options.binary_location = chromium
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.driver = webdriver.Chrome(service=Service(chromedriver), options=options)
        self.driver.get(url)
        self._keys: Any = None

    def close(self) -> None:
        """Quit the browser (its WebSocket closes: the seat is freed)."""
        self.driver.quit()

    def text(self) -> str:
        return str(self.driver.execute_script(
            "return window.bbspoker ? window.bbspoker.screen().join('\\n') : ''"))

    def connected(self) -> bool:
        """Whether the page's WebSocket is open (its status line says so)."""
        return bool(self.driver.execute_script(
            "var s = document.getElementById('status');"
            "return s.textContent === s.dataset.connected;"))

    def send(self, keys: str) -> None:
        from selenium.webdriver.common.keys import Keys
        if self._keys is None:
            self._keys = self.driver.find_element("css selector", ".xterm-helper-textarea")
        self._keys.send_keys(keys.replace("\r", Keys.ENTER))

    def shoot(self, path: Path) -> None:
        """Save the terminal's top left 80x24 cells (the page fills its window with as
        many cells as fit; the door draws in the top left 80x24)."""
        from PIL import Image
        time.sleep(0.4)          # xterm.js paints on the next animation frame
        cols, rows = self.driver.execute_script("return window.bbspoker.size()")
        png = self.driver.find_element("css selector", ".xterm-screen").screenshot_as_png
        image = Image.open(io.BytesIO(png)).convert("RGB")
        save_png(image.crop((0, 0, round(image.width * 80 / cols),
                             round(image.height * 24 / rows))), path)

    def console_errors(self) -> list[str]:
        """The page's console errors (a script error, a request its CSP refused)."""
        return [str(e.get("message")) for e in self.driver.get_log("browser")
                if e.get("level") == "SEVERE"]


# --- the CP437 rendering -------------------------------------------------------------


def _colour(name: str, default: int) -> int:
    """A pyte colour name as a VGA colour number 0-15 (``default`` for "default")."""
    if name == "default":
        return default
    bright = name.startswith(("bright", "bfight"))
    base = name[6:] if bright else name
    if base in _PYTE_COLOURS:
        return _PYTE_COLOURS[base] + (8 if bright else 0)
    # a 256-colour or true-colour cell (hex): the nearest of the 16
    rgb = tuple(int(name[i:i + 2], 16) for i in (0, 2, 4))
    return min(range(16), key=lambda i: sum((a - b) ** 2 for a, b in zip(VGA[i], rgb)))


#: Box drawing: each character's arms (up, right, down, left), 0 none, 1 single, 2 double.
BOX: dict[str, tuple[int, int, int, int]] = {
    "─": (0, 1, 0, 1), "│": (1, 0, 1, 0), "┌": (0, 1, 1, 0), "┐": (0, 0, 1, 1),
    "└": (1, 1, 0, 0), "┘": (1, 0, 0, 1), "├": (1, 1, 1, 0), "┤": (1, 0, 1, 1),
    "┬": (0, 1, 1, 1), "┴": (1, 1, 0, 1), "┼": (1, 1, 1, 1),
    "═": (0, 2, 0, 2), "║": (2, 0, 2, 0), "╔": (0, 2, 2, 0), "╗": (0, 0, 2, 2),
    "╚": (2, 2, 0, 0), "╝": (2, 0, 0, 2), "╠": (2, 2, 2, 0), "╣": (2, 0, 2, 2),
    "╦": (0, 2, 2, 2), "╩": (2, 2, 0, 2), "╬": (2, 2, 2, 2),
    "╤": (0, 2, 1, 2), "╧": (1, 2, 0, 2), "╟": (2, 1, 2, 0), "╢": (2, 0, 2, 1),
    "╪": (1, 2, 1, 2), "╫": (2, 1, 2, 1), "╒": (0, 2, 1, 0), "╕": (0, 0, 1, 2),
    "╘": (1, 2, 0, 0), "╛": (1, 0, 0, 2), "╓": (0, 1, 2, 0), "╖": (0, 0, 2, 1),
    "╙": (2, 1, 0, 0), "╜": (2, 0, 0, 1), "╞": (1, 2, 1, 0), "╡": (1, 0, 1, 2),
    "╥": (0, 1, 2, 1), "╨": (2, 1, 0, 1),
}
#: Block elements: the fraction of the cell's foreground (x0, y0, x1, y1) or a shade.
BLOCKS = {"█": (0, 0, 1, 1), "▀": (0, 0, 1, .5), "▄": (0, .5, 1, 1), "▌": (0, 0, .5, 1),
          "▐": (.5, 0, 1, 1)}
SHADES = {"░": .25, "▒": .5, "▓": .75}
_DIRS = ((0, -1), (1, 0), (0, 1), (-1, 0))      # up, right, down, left as (dx, dy)


def _draw_box(draw: Any, x0: int, y0: int, arms: tuple[int, int, int, int],
              fg: tuple[int, int, int]) -> None:
    """Draw a box-drawing character's arms in the cell at (x0, y0): each arm from the
    cell's edge to its centre, a double arm as two lines 2 px either side, joined as the
    character joins them (corners outside and inside, T-junctions, crossings)."""
    cx, cy = x0 + CELL_W // 2, y0 + CELL_H // 2
    gap = 2
    w = [gap if a == 2 else 0 for a in arms]     # each arm's half-width
    for d, kind in enumerate(arms):
        if not kind:
            continue
        dx, dy = _DIRS[d]
        edge = (x0 + (CELL_W - 1 if dx > 0 else 0) if dx else cx,
                y0 + (CELL_H - 1 if dy > 0 else 0) if dy else cy)
        opposite = arms[(d + 2) % 4]
        sides = ((d + 3) % 4, (d + 1) % 4)        # the perpendicular arms' directions
        offsets = (-w[d], w[d]) if kind == 2 else (0,)
        for i, off in enumerate(offsets):
            if kind == 2:
                near, far = sides[i], sides[1 - i]
                if arms[near]:
                    stop = w[near]            # meets the near arm's line
                elif opposite:
                    stop = 0                  # goes on into the opposite arm
                elif arms[far]:
                    stop = -w[far]            # the outside of a corner
                else:
                    stop = 0
            else:
                perp = [w[s] for s in sides if arms[s]]
                if not perp:
                    stop = 0
                elif len(perp) == 2 or opposite:
                    stop = max(perp)          # stops at the nearer line of a double
                else:
                    stop = -perp[0]           # a corner: reaches the far line
            # the line runs from the edge to the centre moved back by `stop` along d
            end = (cx + dx * stop, cy + dy * stop)
            if dx:                            # horizontal arm: offset in y
                draw.line([(edge[0], cy + off), (end[0], cy + off)], fill=fg)
            else:
                draw.line([(cx + off, edge[1]), (cx + off, end[1])], fill=fg)


def render_cells(cells: list[list[Any]]) -> Any:
    """An RGB ``PIL.Image`` of pyte cells (rows of ``pyte.screens.Char``), each
    :data:`CELL_W` x :data:`CELL_H` px, in the VGA palette: the terminal's default
    colours are light grey on black, bold makes a colour 0-7 bright."""
    from PIL import Image, ImageDraw, ImageFont
    font = ImageFont.truetype(str(FONT), FONT_SIZE)
    ascent, descent = font.getmetrics()
    baseline = (CELL_H - (ascent + descent)) // 2 + ascent
    image = Image.new("RGB", (CELL_W * len(cells[0]), CELL_H * len(cells)), VGA[0])
    draw = ImageDraw.Draw(image)
    for y, row in enumerate(cells):
        for x, cell in enumerate(row):
            fg_i, bg_i = _colour(cell.fg, 7), _colour(cell.bg, 0)
            if cell.bold and fg_i < 8:
                fg_i += 8
            if cell.reverse:
                fg_i, bg_i = bg_i, fg_i
            fg, bg = VGA[fg_i], VGA[bg_i]
            x0, y0 = x * CELL_W, y * CELL_H
            if bg_i:
                draw.rectangle([x0, y0, x0 + CELL_W - 1, y0 + CELL_H - 1], fill=bg)
            ch = cell.data
            if ch in BOX:
                _draw_box(draw, x0, y0, BOX[ch], fg)
            elif ch in BLOCKS:
                a, b, c, d = BLOCKS[ch]
                draw.rectangle([x0 + round(a * CELL_W), y0 + round(b * CELL_H),
                                x0 + round(c * CELL_W) - 1, y0 + round(d * CELL_H) - 1],
                               fill=fg)
            elif ch in SHADES:
                share = SHADES[ch]
                mixed = tuple(round(f * share + b * (1 - share)) for f, b in zip(fg, bg))
                draw.rectangle([x0, y0, x0 + CELL_W - 1, y0 + CELL_H - 1], fill=mixed)
            elif ch.strip():
                draw.text((x0 + CELL_W / 2, y0 + baseline), ch, font=font, fill=fg,
                          anchor="ms")
            if cell.underscore:
                draw.line([(x0, y0 + CELL_H - 2), (x0 + CELL_W - 1, y0 + CELL_H - 2)],
                          fill=fg)
    return image


def save_png(image: Any, path: Path) -> None:
    """Save ``image`` as an 8-bit palette PNG: its 256 most frequent colours (every
    colour of a cell or a glyph's core; the rarest shades of antialiased edges take the
    nearest of them), no dithering."""
    from PIL import Image
    path.parent.mkdir(parents=True, exist_ok=True)
    counts = image.getcolors(image.width * image.height)
    colours = [rgb for _, rgb in sorted(counts, reverse=True)[:256]]
    palette = Image.new("P", (1, 1))
    palette.putpalette([v for rgb in colours for v in rgb])
    image.quantize(palette=palette, dither=Image.Dither.NONE).save(path, optimize=True)
    print(f"  wrote {path.relative_to(REPO) if path.is_relative_to(REPO) else path} "
          f"({path.stat().st_size // 1024} KB)", flush=True)


# --- a person at the door ------------------------------------------------------------


def pass_title(term: Terminal) -> None:
    """Wait for the title screen, then press a key (again every 2 s while it shows:
    a browser's key before its socket opens goes nowhere) until ``Handle:``."""
    wait_for(term, "[Press any key]")
    while True:
        term.send(" ")
        try:
            wait_for(term, "Handle:", 2)
            return
        except Failure:
            if "[Press any key]" not in term.text():
                raise


def log_in(term: Terminal, handle: str) -> None:
    """From ``Handle:``: make the new account ``handle`` and go on to the menu."""
    term.send(handle + "\r")
    wait_for(term, f"Create new user {handle}? (y/n)")
    term.send("y")
    wait_for(term, "Password:")
    term.send(PASSWORD + "\r")
    wait_for(term, "again")
    term.send(PASSWORD + "\r")
    shown = wait(term, lambda s: "[Q]" in s or "Press any key" in s, "menu")
    if "[Q]" not in shown:
        term.send(" ")
        wait_for(term, "[Q]")


def say(term: Terminal, line: str) -> None:
    """Type ``line`` in the table's chat and wait until the log shows it."""
    term.send(".")
    time.sleep(0.2)
    term.send(line + "\r")
    wait_for(term, line)


def sit_down(term: Terminal, kind: str) -> None:
    """From the menu: [P], the kind's table, join (with :data:`BUY_IN` CUBES at Hold'em
    and stud)."""
    term.send("p")
    wait_for(term, "Pick a table")
    term.send(str(TABLES[kind]))
    wait_for(term, "Join the table? (y/n)")
    term.send("y")
    if kind in ("holdem", "stud"):
        wait_for(term, "Buy in with how many CUBES")
        term.send(f"{BUY_IN}\r")
    wait_for(term, "[X] ")


def _round(shown: str, pattern: str) -> int:
    m = re.search(pattern, shown)
    return int(m.group(1)) if m else 0


def decide(kind: str, shown: str) -> tuple[str | None, bool]:
    """What the player types now (``None``: nothing, not their turn) and whether this
    is the moment of the picture (their turn, a hand well under way)."""
    if kind == "draw40":
        if "Enter calls" in shown:
            return "\r", False
        if "[B] Place bet" in shown and _round(shown, r"Round \.+ (\d+)") >= 2:
            return "b", True
        for label, key in (("[S] Open the game", "s"), ("[1]-[5] Discard", "d"),
                           ("[R] Reveal hand", "r"), ("[B] Place bet", "b"),
                           ("[H] See hands!", "h"), ("[P] Pass", "p")):
            if label in shown:
                return key, False
        return None, False
    if kind in ("holdem", "stud"):
        if "[C] " not in shown:
            return None, False
        if kind == "holdem":
            ready = re.search(r"BOARD\s+\[\s*[0-9AKQJ]", shown) is not None
        else:
            ready = re.search(r"Hand \d+, (fifth|sixth|seventh) street", shown) is not None
        return "c", ready
    # schiebe
    if "[Y] agree to" in shown:
        return "y", False
    if "[S] propose the rounds" in shown:
        return "s\r", False
    keys = [key for label, key in (("[<] push left", "<"), ("[>] push right", ">"),
                                   ("[A] swap all three", "a"), ("[N] no swap", "n"))
            if label in shown]
    if not keys:
        return None, False
    return random.choice(keys), (_round(shown, r"Round (\d+) of") >= 2
                                 and "[<] push left" in shown)


def play(term: Terminal, kind: str, chat: tuple[str, str], path: Path,
         done: threading.Event, stop: Callable[[], bool]) -> None:
    """At the table: say the first chat line, play; at the moment :func:`decide` names,
    say the second line and save the picture (draw40: with the bet prompt open), then
    set ``done``; play until ``stop()``."""
    say(term, chat[0])
    deadline = time.monotonic() + PLAY_TIMEOUT
    while not stop():
        shown = term.text()
        keys, ready = decide(kind, shown)
        if ready and not done.is_set():
            say(term, chat[1])
            if kind == "draw40":
                term.send("b")
                try:
                    wait_for(term, "Enter calls", 3)
                except Failure:
                    continue
                term.shoot(path)
                done.set()
            elif decide(kind, term.text())[1]:
                term.shoot(path)
                done.set()
            continue
        if keys is not None:
            term.send(keys)
            time.sleep(0.5)
        else:
            time.sleep(0.1)
        if time.monotonic() > deadline:
            raise Failure(f"{term.name}: no {kind} hand to picture in {PLAY_TIMEOUT:.0f} s:"
                          f"\n{shown}")


# --- the pictures --------------------------------------------------------------------


@contextmanager
def telnet(server: Server, name: str) -> Iterator[Cp437Telnet]:
    client = Cp437Telnet(server.telnet, name)
    try:
        yield client
    finally:
        client.close()


def lobby_pictures(server: Server, out: Path) -> None:
    """The title screen, the menu and the table list, in CP437."""
    with telnet(server, "title") as term:
        shown = wait_for(term, "[Press any key]")
        term.shoot(out / "title-cp437.png")
        term.check_cp437()
        assert "bbspoker" in shown
    with telnet(server, "lobby") as term:
        pass_title(term)
        log_in(term, "judy")
        term.shoot(out / "lobby-cp437.png")
        term.send("p")
        wait_for(term, "Pick a table")
        term.shoot(out / "tables-cp437.png")
        term.check_cp437()


def game_pictures(server: Server, kind: str, out: Path, chromium: str,
                  chromedriver: str) -> None:
    """One browser and one CP437 terminal at the ``kind`` table until both saved their
    picture; :class:`Failure` when either fails."""
    errors: list[BaseException] = []
    done = {"browser": threading.Event(), "cp437": threading.Event()}

    def person(which: str) -> None:
        handle = PEOPLE[kind][0 if which == "browser" else 1]
        term: Any = None
        try:
            if which == "browser":
                term = Browser(chromium, chromedriver, f"http://127.0.0.1:{server.web}/",
                               f"{kind} browser ({handle})")
                wait(term, lambda _: term.connected(), "open socket")
            else:
                term = Cp437Telnet(server.telnet, f"{kind} cp437 ({handle})")
            pass_title(term)
            log_in(term, handle)
            sit_down(term, kind)
            other = "cp437" if which == "browser" else "browser"
            play(term, kind, CHAT[which], out / f"{kind}-{which}.png", done[which],
                 lambda: bool(errors) or (done[which].is_set() and done[other].is_set()))
            if which == "browser":
                console = term.console_errors()
                if console:
                    raise Failure(f"{term.name}: the page's console: {console}")
            else:
                term.check_cp437()
        except BaseException as exc:       # reported by the main thread
            errors.append(exc)
            done[which].set()
        finally:
            if term is not None:
                term.close()

    threads = [threading.Thread(target=person, args=(which,)) for which in done]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]


def main(argv: list[str] | None = None) -> int:
    """Make the PNGs; 0 when all were written, 1 when a step failed, 2 when a tool is
    missing."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "screens",
                        help="directory of the PNGs (default: docs/screens)")
    parser.add_argument("--kind", action="append", choices=KINDS,
                        help="only this game kind (repeatable; default: every kind)")
    parser.add_argument("--keep", action="store_true",
                        help="keep the temporary directory (config, database, server log)")
    args = parser.parse_args(argv)
    chromium, chromedriver = require_tools()
    random.seed(1)
    tmp = Path(tempfile.mkdtemp(prefix="bbspoker-shots-"))
    server = Server(tmp)
    try:
        server.start()
        print(f"server on telnet {server.telnet}, web {server.web} ({tmp})", flush=True)
        lobby_pictures(server, args.out)
        for kind in args.kind or KINDS:
            print(f"{kind}:", flush=True)
            game_pictures(server, kind, args.out, chromium, chromedriver)
    except Failure as exc:
        print(f"screenshots.py: {exc}", file=sys.stderr)
        print(f"(server log: {server.log})", file=sys.stderr)
        args.keep = True
        return 1
    except Exception:
        traceback.print_exc()
        args.keep = True
        return 1
    finally:
        server.stop()
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
