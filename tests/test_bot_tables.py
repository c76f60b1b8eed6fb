"""Computer players at live tables (issue 15): bot accounts fill a table's empty seats,
play a person over telnet on an 80x24 screen, stand up for a person who wants a seat, and
leave when their CUBES run out; no CUBES appear from nothing."""

from __future__ import annotations

import asyncio

from bbspoker.rules.draw40.game import Phase
from tests.tableplay import info, table_world
from tests.telnetclient import TelnetClient, wait_until

BOTS = {"Robo": 500, "Tin": 500, "Pauper": 5}     # Pauper cannot pay the ante of 10


def _table(**rules):
    return {"table": {"bots": 2, "bot_policy": "calling", "between_games": 0, **rules}}


async def _play_my_turns(c: TelnetClient, until: str, timeout: float = 15.0) -> None:
    """Act as a cautious person whenever the screen offers something, until ``until`` is
    on screen: call with Enter, keep all cards, reveal."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while until not in c.text:
        assert loop.time() < deadline, f"{until!r} never came:\n{c.text}"
        if "[B] Place bet" in c.text and "Enter calls" not in c.text:
            await c.send("b")
            await c.wait_for("Enter calls")
            await c.send("\r")
            await c.wait_for_gone("Enter calls")
        elif "[1]-[5] Discard, [D] Done" in c.text:
            await c.send("d")
            await c.wait_for_gone("[1]-[5] Discard, [D] Done")
        elif "[R] Reveal hand" in c.text:
            await c.send("r")
            await c.wait_for_gone("[R] Reveal hand")
        else:
            await asyncio.sleep(0.01)


async def test_a_person_plays_a_whole_game_against_two_bots_over_telnet(tmp_path):
    async with table_world(tmp_path, bot_accounts=BOTS, **_table()) as (server, connect, _):
        service = server.app.tables["poker"].service
        await wait_until(lambda: len(service.snapshot.seats) == 2)
        alice = await connect("alice")
        await alice.send("p")
        await alice.wait_for("At the poker table (2 of 5 seats): Robo (bot), Tin (bot)")
        await alice.send("y")
        await alice.wait_for("[X] Exit the game")
        assert "Pauper" not in alice.text                    # it cannot pay the ante
        # Robo sat first and is the game-master: with a person at the table it opens.
        await alice.wait_for("The game is now STARTED (initial pot is 30)")
        await alice.wait_for("| Robo (bot)          [?] [?] [?] [?] [?] |")
        assert "| Tin (bot)           [?] [?] [?] [?] [?] |" in alice.text
        assert info(alice, "Master") == "Robo"
        await _play_my_turns(alice, "wins the pot of")
        ledger = server.app.ledger
        ledger.commit_pending()
        # The first game (the bot master opens the next at once, and it may be over too
        # by now: the suite saw two ended games once in ~30 runs).
        game = min((g for g in ledger.list_games() if g.ended_at is not None),
                   key=lambda g: g.id)
        assert game.players == ["Robo", "Tin", "alice"] and game.end_reason == "finished"
        assert game.table == "poker" and game.winner in game.players
        winner = game.history["winner"]
        await alice.wait_for(f"{winner} wins the pot of {game.history['pot']} CUBES")
        # The next game began at once (the bot master opens it); CUBES are all there.
        t = ledger.totals()
        assert t.accounts + t.system + t.open_pots == 1000 + 500 + 500 + 5
        assert ledger.verify() == []
        bots = {p.handle: p for p, _ in server.app.bots[0].players.values()}
        assert bots["Robo"].illegal == bots["Tin"].illegal == 0

        # [W]ho names the bots and where they play.
        await alice.send("x")
        await alice.wait_for("(y/n)")
        await alice.send("y")
        await alice.wait_for("[Q]")
        await alice.send("w")
        await alice.wait_for("Who is online (3)")
        assert "Robo (bot)        playing at PoKeR" in alice.text
        assert "Tin (bot)         playing at PoKeR" in alice.text


async def test_a_bot_stands_up_between_games_for_a_person_who_wants_a_seat(tmp_path):
    async with table_world(tmp_path, bot_accounts=BOTS, **_table(seats=3)) as (
            server, connect, _):
        service = server.app.tables["poker"].service
        await wait_until(lambda: len(service.snapshot.seats) == 2)
        alice, bob = await connect("alice"), await connect("bob")
        await alice.send("p")
        await alice.wait_for("Join the table? (y/n)")
        await alice.send("y")
        await alice.wait_for("The game is now STARTED")     # full: Robo, Tin, alice
        await bob.send("p")
        await bob.wait_for("All 3 seats are taken; a computer player stands up for you")
        await bob.send("j")
        await bob.wait_for("[INFO] All seats are taken: a computer player stands up for")
        assert "You are watching this table. You have" in bob.row(6)
        assert "the next free seat." in bob.row(7)
        assert service.snapshot.waiting == ("bob",)
        await _play_my_turns(alice, "wins the pot of")
        # Between games Tin (the last bot seated) makes room and bob sits at once.
        await bob.wait_for("Tin stands up to make room for a player.")
        await bob.wait_for("[X] Exit the game")
        assert sorted(s.handle for s in service.snapshot.seats) == ["Robo", "alice", "bob"]
        assert service.snapshot.bots == frozenset({"robo"})
        assert "You are watching" not in bob.text.split("[SYSTEM]")[0]
        # Tin was the game-master: the mastership went on to alice, who opens the next
        # game, and bob plays in it.
        assert info(bob, "Master") == "alice"
        await alice.wait_for("[S] Open the game")
        await alice.send("s")
        await bob.wait_for("The game is now STARTED (initial pot is 30)")
        await bob.wait_for("bob [990 CUBES]")                  # his ante is in
        assert "/\\/\\/" not in bob.row(7)                     # and his cards face up


async def test_a_bot_out_of_cubes_leaves_and_a_funded_one_takes_the_seat(tmp_path):
    accounts = {"Robo": 10, "Tin": 500, "Zed": 300}   # Robo has the ante and no more
    async with table_world(tmp_path, bot_accounts=accounts, **_table(bots=2)) as (
            server, connect, _):
        service = server.app.tables["poker"].service
        ledger = server.app.ledger
        await wait_until(lambda: len(service.snapshot.seats) == 2)
        assert service.snapshot.bots == frozenset({"robo", "tin"})
        alice = await connect("alice")
        await alice.send("p")
        await alice.wait_for("Join the table? (y/n)")
        await alice.send("y")
        await alice.wait_for("The game is now STARTED")
        await _play_my_turns(alice, "wins the pot of")
        # Robo could not bet after its ante, so it passed and lost it.
        await alice.wait_for("Robo is out of CUBES and leaves the table.")
        await wait_until(lambda: "zed" in service.snapshot.bots)
        assert "robo" not in service.snapshot.bots and ledger.balance("Robo") == 0
        assert sum(ledger.balance(h) for h in ("alice", "Robo", "Tin", "Zed")) == 1810
        assert ledger.verify() == []


async def test_bots_sit_at_an_empty_table_but_open_no_game_for_nobody(tmp_path):
    async with table_world(tmp_path, bot_accounts=BOTS, **_table()) as (server, _, advance):
        service = server.app.tables["poker"].service
        await wait_until(lambda: len(service.snapshot.seats) == 2)
        for _ in range(50):
            await asyncio.sleep(0)
        advance(200)                               # past the master's 3:00 clock
        await asyncio.sleep(0.05)
        assert service.snapshot.phase is Phase.IDLE
        assert server.app.ledger.list_games() == []
        with_bots = [a.handle for a in server.app.ledger.list_accounts(bots=True)]
        assert with_bots == ["Pauper", "Robo", "Tin"]
        assert service.table.handles == ["Robo", "Tin"]
