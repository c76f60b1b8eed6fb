"""Helpers that play at the poker table through a :class:`TelnetClient`'s pyte screen:
join the table, read the game information area, the CUBES and one's cards, place a bet."""

from __future__ import annotations

import re

from tests.telnetclient import TelnetClient

__all__ = ["join", "info", "cubes", "my_cards", "bet"]


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
