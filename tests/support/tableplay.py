"""Helpers that play at the poker table through a :class:`TelnetClient`'s pyte screen:
join the table, read the game information area, the CUBES and one's cards, place a bet."""

from __future__ import annotations

import re

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from bbspoker.app import Server
from tests.support.telnetclient import FakeClock, TelnetClient, running_server

__all__ = ["join", "info", "cubes", "my_cards", "bet", "table_world"]

Connect = Callable[..., Awaitable[TelnetClient]]


async def _no_sleep(_seconds: float) -> None:
    await asyncio.sleep(0)


@contextlib.asynccontextmanager
async def table_world(tmp_path: Path, **config: Any
                      ) -> AsyncIterator[tuple[Server, Connect, Callable[[float], None]]]:
    """(server, connect, advance): the real server (:func:`running_server` with
    ``config``) on a fake clock, with no login delays. ``await connect(handle, cols=80,
    rows=24)`` logs a new client in (password ``pw-<handle>``) and leaves it at the menu;
    ``advance(s)`` moves the clock ``s`` seconds and wakes every table. The clients are
    closed at the end."""
    clock = FakeClock()
    clients: list[TelnetClient] = []
    config.setdefault("bot_sleep", _no_sleep)
    async with running_server(tmp_path, clock=clock, sleep=_no_sleep, **config) as server:

        async def connect(handle: str, cols: int = 80, rows: int = 24) -> TelnetClient:
            c = await TelnetClient.connect(server.port, cols=cols, rows=rows)
            clients.append(c)
            await c.login(handle, "pw-" + handle)
            return c

        def advance(seconds: float) -> None:
            clock.advance(seconds)
            for entry in server.app.tables:
                entry.service.wake()

        try:
            yield server, connect, advance
        finally:
            for c in clients:
                await c.close()


async def join(c: TelnetClient, expect: str) -> None:
    """From the menu: [P], check the entry text shows ``expect`` (who sits there), say y."""
    await c.send("p")
    await c.wait_for("ANSI")
    await c.wait_for(expect)
    await c.wait_for("Join the table? (y/n)")
    await c.send("y")
    await c.wait_for("[X] Exit the game")


def info(c: TelnetClient, label: str) -> str:
    """The value of a game-information line (region 2), e.g. info(c, "Pot")."""
    m = re.search(re.escape(label) + r" \.+ (.*?)\s*\|", c.text)
    assert m, f"{label} not on screen:\n{c.text}"
    return m.group(1)


def cubes(c: TelnetClient) -> int:
    """The CUBES on the status line (region 5)."""
    m = re.search(r"\[([\d,]+) CUBES\]", c.row(12))
    assert m, c.row(12)
    return int(m.group(1).replace(",", ""))


def my_cards(c: TelnetClient) -> list[str]:
    """The player's five cards read from the boxes of region (3), left to right, e.g.
    ``"10+"`` or ``"K#"`` (a face-down card reads ``"/\\"``)."""
    row = c.row(7)
    boxes = [row[2 + 8 * i: 2 + 8 * i + 7] for i in range(5)]
    return [box[:3] if box.startswith("10") else box[1:3].strip() for box in boxes]


def corner(card: str) -> str:
    """The top text row of ``card``'s face-up box, as :func:`my_cards` reads it:
    ``"|K# #K|"``, ``"10+ +10"``."""
    rank, suit = card[:-1], card[-1]
    return f"10{suit} {suit}10" if rank == "10" else f"|{rank}{suit} {suit}{rank}|"


async def bet(c: TelnetClient, amount: str = "", key: str = "b") -> None:
    """Wait for the turn ([B] or [H] offered), press the key, type the amount, Enter."""
    await c.wait_for("[B] Place bet" if key == "b" else "[H] See hands!")
    await c.send(key)
    await c.wait_for("Enter calls")
    await c.send(amount + "\r")
