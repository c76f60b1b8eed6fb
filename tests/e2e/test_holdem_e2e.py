"""End to end (issue 16): a fixed-limit Hold'em table on the real server, three telnet
clients on 80x24 pyte screens: buy-ins, a hand played to showdown with an all-in and a
side pot, the pots and the winners on every screen, the ledger's stacks; then a player
who does not act in time folds."""

from __future__ import annotations

import re

import pytest

from bbspoker.door.look import CLASSIC
from bbspoker.door.screens.holdem_text import describe_event
from bbspoker.door.screens.tablerows import card as glyphs
from bbspoker.rules import actions as act
from bbspoker.rules.holdem import Street
from bbspoker.table.service import TableMessage
from tests.support.tableplay import table_world
from tests.support.telnetclient import TelnetClient, wait_until


@pytest.fixture(autouse=True)
def _colour_screens(monkeypatch):
    """The clients read their screens as the xterm shows them: the colour look's box
    drawing and suit symbols."""
    from tests.support.telnetclient import ScreenWaits
    monkeypatch.setattr(ScreenWaits, "as_classic", False)


pytestmark = pytest.mark.e2e

RULES = {"small_bet": 10, "buy_in_min": 50, "buy_in_max": 1000, "between_hands": 5.0,
         "turn_timeout": 60.0, "seats": 9}


async def sit(c: TelnetClient, amount: int,
              title: str = "fixed-limit Texas Hold'em 10/20",
              question: str = "Buy in with how many CUBES (50-1,000, Enter: 1,000)?") -> None:
    """From the menu: the one table (its entry says ``title``), join, buy in with
    ``amount`` CUBES when asked ``question``."""
    await c.send("p")
    await c.wait_for(title)
    await c.wait_for("Join the table? (y/n)")
    await c.send("y")
    await c.wait_for(question)
    await c.send(f"{amount}\r")
    await c.wait_for("[X] leave the table")


async def press(server, clients: dict[str, TelnetClient], choose) -> str:
    """The player in turn presses the key ``choose(legal actions)`` gives, once their
    screen offers it; waits until the table has applied it. Returns their handle."""
    service = server.app.tables["holdem"].service
    table = service.table
    handle = table.current
    c = clients[handle]
    await c.wait_for("[C] ")
    version = service.snapshot.version
    await c.send(choose(table.legal_actions(handle, 0.0)))
    await wait_until(lambda: service.snapshot.version > version)
    return handle


def raise_else_call(legal) -> str:
    return "r" if act.BetRaise in legal else "c"


def seat_row(c: TelnetClient, handle: str) -> str:
    """The seat cell of ``handle`` on ``c``'s screen (rows 1-5, two columns)."""
    for n in range(1, 6):
        for cell in re.split("[|│]", c.row(n)):
            if re.search(rf"\b{handle}\b", cell):
                return cell
    raise AssertionError(f"{handle} not seated on screen:\n{c.text}")


async def test_three_players_a_side_pot_to_showdown_and_a_timeout_fold(tmp_path):
    async with table_world(tmp_path, tables=[("holdem", "Hold'em", "holdem", RULES)]) as (
            server, connect, advance):
        ledger = server.app.ledger
        clients = {h: await connect(h) for h in ("alice", "bob", "carol")}
        await sit(clients["alice"], 1000)
        await sit(clients["bob"], 1000)
        await sit(clients["carol"], 60)           # short: all-in on the flop
        for h in ("alice", "bob"):
            await clients[h].wait_for("carol sits down with 60 CUBES.")
        assert ledger.balance("carol") == 940 and ledger.stack("carol", table="holdem") == 60
        table = server.app.tables["holdem"].service.table

        advance(5)                                  # the first hand, 5 s after the second sat
        for c in clients.values():
            await c.wait_for("Hand 1 (game 1): alice has the button; blinds 5/10.")
            await c.wait_for("Deck sealed:")
        # Each player sees their own two hole cards and nobody else's (an xterm in
        # colour: the suits as symbols).
        for h, c in clients.items():
            await c.wait_for("YOU    [")
            mine = table.hole_cards(h)
            assert all(f"{glyphs(card):^4}" in c.row(7) for card in mine)
            others = {x for o in clients if o != h for x in table.hole_cards(o)}
            assert not any(f"[{glyphs(card):^4}]" in c.row(7) for card in others - set(mine))
        # Preflop and flop: everyone raises while they may (the cap), else calls.
        while table.street is Street.PREFLOP:
            await press(server, clients, raise_else_call)
        assert table.stack("carol") == 20
        while table.street is Street.FLOP:
            await press(server, clients, raise_else_call)
        # Carol went all-in for her last 20: a main pot and a side pot for the others.
        assert table.stack("carol") == 0 and table.street is Street.TURN
        for c in clients.values():
            await c.wait_for("POT 220 (180 + 40)")
        assert "all-in" in seat_row(clients["alice"], "carol")
        screen = clients["alice"].screen
        pot = screen.display[6].index("POT 220")
        assert (screen.buffer[6][pot].fg, screen.buffer[6][pot].bold) == ("brown", True)
        assert screen.display[8][0] == "├" and screen.buffer[8][0].fg == "cyan"
        # Turn and river are checked down; the showdown pays the pots.
        while table.street is not Street.IDLE:
            await press(server, clients, lambda legal: "c")
        for c in clients.values():
            await c.wait_for("as sealed).")
        won = {h: table.payouts().get(h, 0) for h in clients}
        assert sum(won.values()) == 220 and won["carol"] in (0, 180, 90, 60)
        # Every pot won is said. The showdown's lines (shows, pots, the seed) come in one
        # step and may scroll the first of them out of the message area at once: the
        # table's last messages, in the screen's words, hold them all, and the screen keeps
        # the last.
        said = [line for m in server.app.tables["holdem"].service.recent()
                if isinstance(m, TableMessage) and (line := describe_event(m.event)) is not None]
        text = clients["bob"].text
        winners = [h for h, amount in won.items() if amount]
        for h in winners:
            assert any(words.startswith(f"{h} wins") for _, words in said), said
        assert any(f"{h} wins" in text for h in winners)
        stacks = {h: ledger.stack(h, table="holdem") for h in clients}
        assert sum(stacks.values()) + sum(ledger.balance(h) for h in clients) == 3000
        assert ledger.verify() == []
        if stacks["carol"] == 0:
            await clients["carol"].wait_for("carol has no chips left and sits out.")

        # The next hand: the player in turn does nothing and the clock folds them.
        advance(5)
        await wait_until(lambda: table.current is not None)
        idle = table.current
        for c in clients.values():
            await c.wait_for("Hand 2 (game 2):")
        # Everyone sees the clock of the turn count down, second by second, with no
        # table update meanwhile (each screen's clock ticks on its own).
        advance(15)
        for c in clients.values():
            await c.wait_for("0:45")
        advance(45)
        for c in clients.values():
            await c.wait_for(f"{idle} did not act in time and folds.")
            assert not c.eof.is_set()


async def test_a_person_plays_hold_em_against_computer_players(tmp_path):
    """Issue 16 with issue 15's bots: funded bot accounts fill a Hold'em table's seats,
    buy in, and play a person over telnet through the table's actions."""
    bots = {"Robo": 2000, "Tin": 2000, "Pauper": 100}       # Pauper cannot buy in (200)
    rules = {**RULES, "buy_in_min": 200, "bots": 2, "bot_policy": "calling",
             "between_hands": 0.0}
    async with table_world(tmp_path, tables=[("holdem", "Hold'em", "holdem", rules)],
                           bot_accounts=bots) as (server, connect, advance):
        service = server.app.tables["holdem"].service
        table = service.table
        await wait_until(lambda: len(service.snapshot.seats) == 2)
        assert sorted(table.handles) == ["Robo", "Tin"] and table.game_id is None
        alice = await connect("alice")
        await alice.send("p")
        await alice.wait_for("At the table (2 of 9 seats): Robo (bot), Tin (bot)")
        await alice.send("y")
        await alice.wait_for("Buy in with how many CUBES")
        await alice.send("\r")
        await alice.wait_for("Hand 1 (game 1):")            # bots play for a person only
        while table.game_id == 1:
            if table.current == "alice":
                await press(server, {"alice": alice}, lambda legal: "c")
            else:
                await wait_until(lambda: table.current == "alice" or table.game_id != 1,
                                 timeout=10)
        ledger = server.app.ledger
        ledger.commit_pending()
        hand = ledger.game(1)        # its lines may have scrolled away: the next hand is on
        assert hand.end_reason == "finished" and "alice" in hand.players
        acted = {op["handle"] for op in hand.history["operations"]
                 if op["op"] in ("check", "call")}
        assert acted & {"Robo", "Tin"} and "Pauper" not in hand.players
        assert ledger.verify() == []
        t = ledger.totals()                   # the next hand may be running: its pot counts
        assert t.accounts + t.system + t.open_pots + t.stacks == 2000 + 2000 + 100 + 1000


async def test_who_leaves_during_a_hand_sees_the_stack_still_at_the_table(tmp_path):
    """A player who leaves in the middle of a hand folds when their turn comes and their
    stack stays at the table until the hand ends: the lobby says so instead of showing a
    balance that seems short of it; once the hand is over it is all back."""
    async with table_world(tmp_path, tables=[("holdem", "Hold'em", "holdem", RULES)]) as (
            server, connect, advance):
        ledger = server.app.ledger
        clients = {h: await connect(h) for h in ("alice", "bob")}
        await sit(clients["alice"], 500)
        await sit(clients["bob"], 500)
        table = server.app.tables["holdem"].service.table
        advance(5)
        await wait_until(lambda: table.current is not None)
        waiting = next(h for h in clients if h != table.current)
        c = clients[waiting]
        await c.wait_for("[X] leave the table")
        await c.send("x")
        await c.wait_for("(y/n)")
        await c.send("y")
        await c.wait_for("[Q] Quit")
        stack = ledger.stack(waiting, table="holdem")
        assert 0 < stack < 500 and ledger.balance(waiting) == 500
        assert f"You have 500 CUBES, and {stack} CUBES at the tables." in c.text
        stayed = {h: x for h, x in clients.items() if h != waiting}
        while table.street is not Street.IDLE:     # the leaver checks or folds on their own
            await press(server, stayed, lambda legal: "c")
        await wait_until(lambda: ledger.stack(waiting, table="holdem") == 0)
        assert ledger.stacks_of(waiting) == {} and ledger.balance(waiting) > 500
        assert ledger.verify() == []


async def test_the_screen_numbers_hands_per_table_names_an_all_in_hand_and_a_bust():
    """What a Hold'em player sees through a hand (the screen with a fake session): the
    hands are numbered at this table from 1 (the ledger's game id, here 2, is named in
    the hand line for ``games show``); ``F`` when checking is free says why nothing
    happened; the hands shown at an all-in before the board is out are named once it is;
    a player who lost their last chip sits out and is told so, not shown the cards of
    the hand they lost. In English and German."""
    import random

    from bbspoker.door.screens.kinds import describe_event
    from bbspoker.door.screens.holdem import HoldemScreen
    from bbspoker.rules.holdem import Holdem, HoldemRules
    from bbspoker.rules.money import SYSTEM
    from bbspoker.store.wallet import MemoryWallet
    from tests.rules.holdem.test_holdem import stacked
    from tests.door.test_i18n import _Entry, _screens, _service, _settle, _shown
    rules = HoldemRules(seats=9, small_bet=10, buy_in_min=20, buy_in_max=1000)
    wallet = MemoryWallet({"alice": 1000, "Nicolas": 1000, SYSTEM: 0})
    wallet.open_game(["someone"], "another table's game")      # game 1 is not this table's
    # The button (alice) is dealt second: Nicolas 7c 2d, alice As Ad; board K K 4 3 9.
    deck = stacked(["7c2d", "AsAd"], "KhKd4c3s9h")
    game = Holdem(wallet, rules, rng=random.Random(3), deck=lambda seal, gid: list(deck))
    async with _service(game) as (service, clock):
        entry = _Entry(service, rules)
        await service.call("alice", act.Sit(buy_in=1000))
        await service.call("Nicolas", act.Sit(buy_in=20))
        screens = {h: _screens(HoldemScreen, entry, h) for h in ("alice", "Nicolas")}
        news = service.bus.subscribe(maxsize=1000)                 # the message area's
        clock.advance(5)
        await _settle(service, lambda s: s.current == "alice")
        assert game.game_id == 2
        await service.call("alice", act.CheckCall())              # the small blind completes
        await _settle(service, lambda s: s.current == "Nicolas")
        nicolas = _shown(screens["Nicolas"], lambda s: s._game_key("f"))
        assert "Hand 1, preflop -+" in nicolas["en"][0]
        assert "Hand 1, Preflop -+" in nicolas["de"][0]
        assert "Checking costs nothing here: check ([C])" in "".join(nicolas["en"])
        assert "Checken kostet hier nichts" in "".join(nicolas["de"])
        assert game.street.value == "preflop" and game.current == "Nicolas"    # no fold
        await service.call("Nicolas", act.BetRaise())              # all-in for his 20
        await service.call("alice", act.CheckCall())
        await _settle(service, lambda s: s.view.game_id is None)
        lines = [CLASSIC.glyphs(line[1]) for item in news.drain() if hasattr(item, "event")
                 and (line := describe_event(item.event, "holdem")) is not None]
        assert "Hand 1 (game 2): alice has the button; blinds 5/10." in lines
        assert [text for text in lines if "(board " in text] == [    # the all-in's runout
            "FLOP: K* K# 4-   (board K* K# 4-)", "TURN: 3+   (board K* K# 4- 3+)",
            "RIVER: 9*   (board K* K# 4- 3+ 9*)"]
        shows = [text for text in lines if " shows " in text]
        assert shows == ["Nicolas shows 7- 2# with one pair (K* K# 9* 7- 4-).",
                         "alice shows A+ A# with two pairs (A+ A# K* K# 9*)."], lines
        busted = _shown(screens["Nicolas"])
        assert "You sit out with no chips: [X] to leave, then buy in again." in "".join(
            busted["en"])
        assert "[I] come back in" not in "".join(busted["en"])
        assert "[ 7- ]" not in "".join(busted["en"]) and "[ 2# ]" not in "".join(busted["en"])
        assert "Du setzt ohne Chips aus: [X] zum Aufstehen" in "".join(busted["de"])


@pytest.mark.parametrize("lang", ["en", "de"])
async def test_who_left_during_a_hand_and_comes_back_is_told_the_seat_is_still_theirs(
        tmp_path, lang):
    """A player who left during a hand and enters the table again before it ends is told
    at once that the seat is still theirs until the hand ends, and may watch; they are
    not asked to join and to buy in only to be refused ("already sitting")."""
    from tests.door.test_i18n import _choose_language
    words = {"en": ("You are still seated here until the hand in play ends", "Join the table?",
                    "[W] Watch the game, any other key: back.", "You are watching Hold'em"),
             "de": ("Du sitzt hier noch, bis die laufende Hand zu Ende ist",
                    "An den Tisch setzen?", "[W] Zuschauen, andere Taste: zurück.",
                    "Du schaust an Hold'em zu")}[lang]
    async with table_world(tmp_path, tables=[("holdem", "Hold'em", "holdem", RULES)]) as (
            server, connect, advance):
        clients = {h: await connect(h) for h in ("alice", "bob", "carol")}
        for c in clients.values():
            await sit(c, 500)
        table = server.app.tables["holdem"].service.table
        advance(5)
        await wait_until(lambda: table.current is not None)
        waiting = next(h for h in clients if h != table.current)  # out of turn: stays seated
        c = clients[waiting]
        await c.send("x")
        await c.wait_for("(y/n)")
        await c.send("y")
        await c.wait_for("[Q] Quit")
        assert waiting in table.handles and table.game_id is not None
        if lang == "de":
            await _choose_language(c, "2", "Die Tür spricht jetzt Deutsch mit dir.")
        await c.send("p")
        await c.wait_for(words[0])
        await c.wait_for(words[2])
        assert words[1] not in c.text
        await c.send("w")
        await c.wait_for(words[3])


async def test_a_no_limit_hand_over_telnet_a_typed_raise_a_refusal_and_an_all_in(tmp_path):
    """A no-limit table on the real server, two telnet clients: the table list and the
    title name the blinds; the player in turn sees the call, the range of [R] and the
    all-in; R asks for the amount, one too small is refused with the range and changes
    nothing, a typed raise goes in; A goes all in, the other calls, the hand is played out
    and every CUBE is in a stack or a balance."""
    rules = {**RULES, "limit": "no"}
    async with table_world(tmp_path, tables=[("holdem", "No limit", "holdem", rules)]) as (
            server, connect, advance):
        ledger = server.app.ledger
        clients = {h: await connect(h) for h in ("alice", "bob")}
        for h, amount in (("alice", 500), ("bob", 800)):
            await sit(clients[h], amount, "no-limit Texas Hold'em 5/10",
                      "Buy in with how many CUBES")
        service = server.app.tables["holdem"].service
        table = service.table
        advance(5)
        await wait_until(lambda: table.current is not None)
        first = table.current                       # heads-up: the button, small blind
        other = "bob" if first == "alice" else "alice"
        c = clients[first]
        await c.wait_for("No-limit Hold'em 5/10: No limit")
        stack = table.stack(first) + 5
        await c.wait_for(f"[R] raise to 20-{stack}")
        await c.wait_for(f"[A] all in {stack}")
        await c.send("r")
        await c.wait_for(f"Raise to (20-{stack}; Enter: 20): _")
        await c.send("15\r")
        await c.wait_for("Too small: bet or raise to at least 20.")
        assert table.current == first and table.stack(first) == stack - 5
        version = service.snapshot.version
        await c.send("r")
        await c.wait_for("Raise to (")
        await c.send("40\r")
        await wait_until(lambda: service.snapshot.version > version)
        for x in clients.values():
            await x.wait_for(f"{first} raises to 40.")
        d = clients[other]
        other_stack = table.stack(other) + 10
        top = min(other_stack, stack)
        await d.wait_for(f"[A] all in {other_stack}")
        await d.send("a")
        for x in clients.values():
            await x.wait_for(f"{other} raises to {other_stack} and is all in.")
        await c.wait_for("[C] call ")
        await c.send("c")
        for x in clients.values():
            await x.wait_for("as sealed).")
        assert table.street is Street.IDLE
        won = table.payouts()
        assert sum(won.values()) == 2 * top
        assert ledger.stack("alice", table="holdem") + ledger.stack("bob", table="holdem") \
            + ledger.balance("alice") + ledger.balance("bob") == 2000
        assert ledger.verify() == []
