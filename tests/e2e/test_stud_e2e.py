"""End to end: a fixed-limit seven-card stud table from a ``[[tables]]`` entry on the real
server, three telnet clients on 80x24 pyte screens: buy-ins, a hand with the bring-in and a
completion played to the showdown, every player's own down cards and nobody else's, the
pot and the winners on every screen, ``games verify`` and ``ledger verify``; then computer
players at a stud table play a person."""

from __future__ import annotations

from pathlib import Path

import pytest

from bbspoker.cli import main
from bbspoker.config import load_config
from bbspoker.door.screens.tablerows import card as glyphs
from bbspoker.rules import actions as act
from bbspoker.rules.stud import Street
from tests.support.tableplay import table_world
from tests.support.telnetclient import TelnetClient, wait_until


@pytest.fixture(autouse=True)
def _colour_screens(monkeypatch):
    """The clients read their screens as the xterm shows them: the colour look's box
    drawing and suit symbols."""
    from tests.support.telnetclient import ScreenWaits
    monkeypatch.setattr(ScreenWaits, "as_classic", False)


pytestmark = pytest.mark.e2e

ENTRY = """
[[tables]]
id = "stud"
name = "Stud"
game = "stud"
small_bet = 10
ante = 1
bring_in = 3
buy_in_min = 50
buy_in_max = 1000
turn_timeout = 60
"""


def stud_rules(tmp_path: Path, extra: str = "") -> dict:
    """The ``[table]`` keys of the stud table that the ``[[tables]]`` entry :data:`ENTRY`
    (with ``extra`` lines) makes, as the config file reads it."""
    path = tmp_path / "stud.toml"
    path.write_text(ENTRY + extra)
    spec = load_config(path).table_specs[0]
    assert spec.game == "stud"
    return spec.rules.keys()


async def sit(c: TelnetClient, amount: int) -> None:
    """From the menu: the one table, join, buy in with ``amount`` CUBES."""
    await c.send("p")
    await c.wait_for("fixed-limit seven-card stud 10/20")
    await c.wait_for("Join the table? (y/n)")
    await c.send("y")
    await c.wait_for("Buy in with how many CUBES (50-1,000, Enter: 1,000)?")
    await c.send(f"{amount}\r")
    await c.wait_for("[X] leave the table")


async def press(server, clients: dict[str, TelnetClient], key: str, offer: str) -> str:
    """The player in turn presses ``key`` once their screen offers ``offer`` (the key's
    words); waits until the table has applied it. Returns their handle."""
    service = server.app.tables["stud"].service
    handle = service.table.current
    c = clients[handle]
    await c.wait_for(offer)
    version = service.snapshot.version
    await c.send(key)
    await wait_until(lambda: service.snapshot.version > version)
    return handle


def seat_row(c: TelnetClient, handle: str) -> str:
    """The row of ``handle``'s seat on ``c``'s screen (rows 1-7)."""
    for n in range(1, 8):
        if f" {handle}" in c.row(n):
            return c.row(n)
    raise AssertionError(f"{handle} not seated on screen:\n{c.text}")


async def test_three_players_bring_in_completion_and_showdown(tmp_path, monkeypatch, capsys):
    rules = stud_rules(tmp_path)
    async with table_world(tmp_path, tables=[("stud", "Stud", "stud", rules)]) as (
            server, connect, advance):
        ledger = server.app.ledger
        clients = {h: await connect(h) for h in ("alice", "bob", "carol")}
        for h in clients:
            await sit(clients[h], 500)
        for h in ("alice", "bob"):
            await clients[h].wait_for("carol sits down with 500 CUBES.")
        assert ledger.stack("carol", table="stud") == 500
        table = server.app.tables["stud"].service.table

        advance(5)                                  # the first hand, 5 s after the second sat
        for c in clients.values():
            await c.wait_for("Hand 1 (game 1):")
            await c.wait_for("ante 1, bring-in 3, bets 10/20.")
        # Each player sees their own two down cards and nobody else's; the up cards of all
        # (an xterm in colour: the suits as symbols, the others' down cards as backs).
        for h, c in clients.items():
            down, up = table.down_cards(h), table.up_cards(h)
            await c.wait_for("".join(f"({glyphs(card):^3})" for card in down))
            for o in clients:
                assert f"[{glyphs(table.up_cards(o)[0]):^3}]" in seat_row(c, o)
                if o != h:
                    assert "(?? )(?? )" in seat_row(c, o)
                    assert not any(f"({glyphs(card):^3})" in c.text
                                   for card in table.down_cards(o))
            assert len(up) == 1
            row = next(n for n in range(1, 8) if "(?? )" in c.row(n))
            back = c.screen.buffer[row][c.row(row).index("(?? )") + 1]
            assert (back.data, back.fg, back.bold) == ("?", "blue", True)
        # The lowest up card must bring it in: it may not fold, [C] posts 3.
        bringer = table.current
        b = clients[bringer]
        await b.wait_for("[C] bring-in 3")
        assert "[F] fold" not in b.text and "[R] complete to 10" in b.text
        assert "Bring-in . 3, due" in b.text
        await b.send("f")
        await b.wait_for("You have the lowest up card")
        assert table.current == bringer
        await press(server, clients, "c", "[C] bring-in 3")
        for c in clients.values():
            await c.wait_for(f"{bringer} brings it in for 3.")
        # The next player completes to the small bet.
        completer = await press(server, clients, "r", "[R] complete to 10")
        for c in clients.values():
            await c.wait_for(f"{completer} completes to 10.")
            await c.wait_for("completed to 10")
        # Everyone else calls, then every street is checked or called down.
        while table.street is not Street.IDLE:
            service = server.app.tables["stud"].service
            handle = table.current
            await clients[handle].wait_for("[C] ")
            version = service.snapshot.version
            await clients[handle].send("c")
            await wait_until(lambda: service.snapshot.version > version)
        for c in clients.values():
            await c.wait_for("as sealed).")
        won = {h: table.payouts().get(h, 0) for h in clients}
        assert sum(won.values()) == 3 * 1 + 3 * 10      # the antes and third street's bets
        text = clients["bob"].text
        for h, amount in won.items():
            if amount:
                assert f"{h} wins" in text
        # At the showdown every hand still in is face up on every screen, seven cards.
        ledger.commit_pending()
        record = ledger.game(1)
        shows = [op for op in record.history["operations"] if op["op"] == "show"]
        assert shows and all(len(op["cards"].split()) == 7 for op in shows)
        ops = [op["op"] for op in record.history["operations"]]
        assert "bring_in" in ops and "complete" in ops
        stacks = {h: ledger.stack(h, table="stud") for h in clients}
        assert sum(stacks.values()) + sum(ledger.balance(h) for h in clients) == 3000
        assert ledger.verify() == []
        monkeypatch.setenv("BBSPOKER_DB", str(tmp_path / "bbspoker.db"))
        capsys.readouterr()
        assert main(["games", "verify", "1"]) == 0
        out = capsys.readouterr().out
        assert "game 1: verified" in out and "deck (stud, top first)" in out
        assert main(["games", "show", "1"]) == 0
        shown = capsys.readouterr().out
        assert f"third street: {bringer} brings it in for 3" in shown
        assert f"third street: {completer} completes to 10" in shown
        assert main(["ledger", "verify"]) == 0


async def test_a_person_plays_stud_against_computer_players(tmp_path):
    """Funded bot accounts fill a stud table's seats from its ``bots`` key, buy in, sit
    out until a person sits down, then play the person hand after hand."""
    bots = {"Robo": 2000, "Tin": 2000}
    rules = stud_rules(tmp_path, "bots = 1\nbot_policy = \"calling\"\nbetween_hands = 0\n")
    async with table_world(tmp_path, tables=[("stud", "Stud", "stud", rules)],
                           bot_accounts=bots) as (server, connect, advance):
        service = server.app.tables["stud"].service
        table = service.table
        await wait_until(lambda: len(service.snapshot.seats) == 1)
        assert table.game_id is None
        bot = table.handles[0]
        alice = await connect("alice")
        await alice.send("p")
        await alice.wait_for(f"At the table (1 of 7 seats): {bot} (bot)")
        await alice.send("y")
        await alice.wait_for("Buy in with how many CUBES")
        await alice.send("\r")
        await alice.wait_for("Hand 1 (game 1):")            # bots play for a person only
        while table.game_id is None or table.game_id <= 3:
            if table.current == "alice":
                legal = table.legal_actions("alice", 0.0)
                key = "r" if act.BetRaise in legal and table.street is Street.THIRD else "c"
                version = service.snapshot.version
                await alice.wait_for("[C] ")
                await alice.send(key)
                await wait_until(lambda: service.snapshot.version > version)
            else:
                await wait_until(lambda: table.current == "alice" or table.game_id is None
                                 or table.game_id > 3, timeout=10)
                if table.game_id is None:
                    advance(1)
                    await wait_until(lambda: table.game_id is not None, timeout=10)
        ledger = server.app.ledger
        ledger.commit_pending()
        for gid in (1, 2, 3):
            hand = ledger.game(gid)
            assert hand.end_reason == "finished" and {"alice", bot} <= set(hand.players)
            acted = {op["handle"] for op in hand.history["operations"]
                     if op["op"] in ("check", "call", "bring_in")}
            assert bot in acted, hand.history["operations"]
        assert ledger.verify() == []
        t = ledger.totals()                   # the next hand may be running: its pot counts
        assert t.accounts + t.system + t.open_pots + t.stacks == 2000 + 2000 + 1000
