"""End to end: the real server on an ephemeral port, several telnet clients, each client's
output on a pyte 80x24 screen; what the players see through whole games (issue 3)."""

from __future__ import annotations

import asyncio
import re

import pytest

from bbspoker.cards import parse_cards
from bbspoker.config import load_config
from bbspoker.hands import evaluate
from bbspoker.ledger import Ledger
from bbspoker.server import start_server
from tests.telnetclient import TelnetClient

pytestmark = pytest.mark.e2e


class FakeClock:
    """Monotonic seconds that only move when the test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def _no_sleep(_seconds: float) -> None:
    await asyncio.sleep(0)


@pytest.fixture
async def world(tmp_path, monkeypatch):
    monkeypatch.delenv("BBSPOKER_CONFIG", raising=False)
    monkeypatch.setenv("BBSPOKER_DB", str(tmp_path / "e2e.db"))
    cfg_file = tmp_path / "bbspoker.toml"
    cfg_file.write_text("[server]\nport = 0\n")
    config = load_config(str(cfg_file))
    ledger = Ledger(str(tmp_path / "e2e.db"), starting_cubes=config.ledger.starting_cubes)
    clock = FakeClock()
    server = await start_server(config, ledger, clock=clock, sleep=_no_sleep)
    clients: list[TelnetClient] = []

    async def connect(handle: str, cols: int = 80, rows: int = 24) -> TelnetClient:
        c = await TelnetClient.connect(server.port, cols=cols, rows=rows)
        clients.append(c)
        await c.login(handle, "pw-" + handle)
        return c

    def advance(seconds: float) -> None:
        clock.now += seconds
        server.app.table_service.wake()

    yield server, connect, advance, ledger
    for c in clients:
        await c.close()
    server.close()
    await server.wait_closed()
    ledger.close()


async def join(c: TelnetClient, expect: str) -> None:
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
    m = re.search(r"\[([\d,]+) CUBES\]", c.row(12))
    assert m, c.row(12)
    return int(m.group(1).replace(",", ""))


def my_cards(c: TelnetClient) -> list[str]:
    """The player's five cards read from the boxes of region (3), left to right."""
    row = c.row(7)
    return [row[2 + 8 * i + 1: 2 + 8 * i + 4].strip() for i in range(5)]


async def bet(c: TelnetClient, amount: str = "", key: str = "b") -> None:
    """Wait for the turn ([B] or [H] offered), press the key, type the amount, Enter."""
    await c.wait_for("[B] Place bet" if key == "b" else "[H] See hands!")
    await c.send(key)
    await c.wait_for("Enter calls")
    await c.send(amount + "\r")


async def test_three_players_play_a_complete_game(world):
    server, connect, advance, ledger = world
    alice, bob, carol = [await connect(h) for h in ("alice", "bob", "carol")]
    await join(alice, "Nobody is using the poker game right now.")
    await join(bob, "alice")
    await join(carol, "alice, bob")

    # Before the game: alice is master, may open the game, and her clock counts 3:00.
    await alice.wait_for("[S] Open the game")
    assert info(alice, "Master") == "alice" and info(alice, "Current") == "NO GAME"
    assert info(bob, "Pot") == "NO GAME"
    assert "3:00" in alice.row(12) and "[S]" not in bob.text
    assert [o for o in ("bob", "carol") if o in alice.text] == ["bob", "carol"]
    assert cubes(alice) == 1000

    # Start: ante 10 each; every opponent shows five hidden cards.
    await alice.send("s")
    for c in (alice, bob, carol):
        await c.wait_for("The game is now STARTED (initial pot is 30)")
        await c.wait_for("990 CUBES")
    assert info(bob, "Current") == "alice" and info(bob, "Round") == "1"
    assert "[?] [?] [?] [?] [?]" in bob.text
    assert "[B] Place bet" in alice.text and "[B] Place bet" not in bob.text
    assert "1:00" in alice.row(12)
    hands = {c: my_cards(c) for c in (alice, bob, carol)}
    assert all(len([x for x in h if x]) == 5 for h in hands.values())

    # Round 1: alice calls with Enter, bob raises to 25, carol calls 25.
    await bet(alice)
    await bob.wait_for("alice has called the bet (1), pot is 31.")
    await bet(bob, "25")
    await carol.wait_for("bob has raised the bet (25), pot is 56.")
    await bet(carol)
    await alice.wait_for("carol has called the bet (25), pot is 81.")
    assert cubes(carol) == 965

    # Discarding interval: alice turns two cards face down and confirms.
    await alice.wait_for("DISCARDING INTERVAL")
    before = my_cards(alice)
    await alice.send("1")
    await alice.send("2")
    await alice.wait_for("|/\\/\\/| |/\\/\\/|")
    await alice.send("d")
    await bob.wait_for("alice has discarded 2 cards.")
    after = my_cards(alice)
    assert len(set(before) & set(after)) >= 3
    await bob.send("d")
    await carol.wait_for("bob has discarded no cards.")
    await carol.send("d")
    await alice.wait_for("Round ....... 3")

    # Round 3: alice calls, bob asks to see hands, carol and alice get one more turn.
    await bet(alice)
    await bob.wait_for("[H] See hands!")
    await bet(bob, "30", key="h")
    await carol.wait_for("bob wants to see hands")
    await bet(carol)
    await bet(alice)
    for c in (alice, bob, carol):
        await c.wait_for("SHOWDOWN")
    await alice.wait_for("[R] Reveal hand")
    pot = int(info(alice, "Pot").replace(",", ""))
    assert pot == 30 + (1 + 25 + 25) + (25 + 30 + 30 + 30)
    for c in (alice, bob, carol):
        await c.wait_for("[R] Reveal hand")
        await c.send("r")
    await alice.wait_for("wins the pot of")
    m = re.search(r"(\w+) wins the pot of (\d+) CUBES", alice.text)
    winner, won = m.group(1), int(m.group(2))
    assert won == pot
    # Revealed cards of the opponents are on show.
    assert "[?]" not in alice.text
    table_hands = {h: ledger_hand(ledger, h) for h in ("alice", "bob", "carol")}
    best = max(table_hands, key=lambda h: evaluate(table_hands[h]))
    assert winner == best
    # ante 10; round 1: alice 1, bob 25, carol 25; round 3: alice 25, bob 30 [H], carol 30, alice 30
    spent = {"alice": 10 + 1 + 25 + 30, "bob": 10 + 25 + 30, "carol": 10 + 25 + 30}
    winner_client = {"alice": alice, "bob": bob, "carol": carol}[winner]
    await winner_client.wait_for(f"{1000 - spent[winner] + pot:,} CUBES")
    # The mastership moved on to the next seated player after alice.
    await alice.wait_for("Master ...... bob")
    assert ledger.verify() == []


def ledger_hand(ledger: Ledger, handle: str):
    """The hand ``handle`` showed in the last recorded game (its hand history)."""
    return parse_cards(ledger.list_games(1)[0].history["hands"][handle])
