"""Computer players at live tables (issue 15): bot accounts fill a table's empty seats,
play a person over telnet on an 80x24 screen, stand up for a person who wants a seat, and
leave when their CUBES run out; no CUBES appear from nothing."""

from __future__ import annotations

import asyncio

from bbspoker.bots import seats
from bbspoker.rules.draw40.game import Phase
from tests.support.tableplay import info, table_world
from tests.support.telnetclient import TelnetClient, running_server, wait_until

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
        # Said on her screen (the bots may have played the next game out since, and its
        # lines scrolled this one out of the log: look in all she was sent).
        said = f"{winner} wins the pot of {game.history['pot']} CUBES"
        await wait_until(lambda: said in alice.received.decode("utf-8", "replace"))
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
        assert service.snapshot.view.phase is Phase.IDLE
        assert server.app.ledger.list_games() == []
        with_bots = [a.handle for a in server.app.ledger.list_accounts(bots=True)]
        assert with_bots == ["Pauper", "Robo", "Tin"]
        assert service.table.handles == ["Robo", "Tin"]


HOLDEM = {"small_bet": 10, "buy_in_min": 50, "buy_in_max": 10_000, "between_hands": 0.05,
          "turn_timeout": 10.0, "seats": 9, "bots": 1, "bot_think_min": 0.0,
          "bot_think_max": 0.02}


async def _no_login_delay(_seconds: float) -> None:
    await asyncio.sleep(0)


async def _sit_at_holdem(port: int, handle: str, buy_in: int) -> TelnetClient:
    c = await TelnetClient.connect(port)
    await c.login(handle, "pw-" + handle)
    await c.send("p")
    await c.wait_for("Join the table? (y/n)")
    await c.send("y")
    await c.wait_for("Buy in with how many CUBES")
    await c.send(f"{buy_in}\r")
    await c.wait_for("[X] leave the table")
    return c


async def test_a_hold_em_bot_acts_in_every_one_of_thirty_hands_against_a_person(tmp_path):
    """A live Hold'em table on the real clock with the real TableBots (the default
    policy, short think times, 5 ms between hands): a person who only checks and calls plays 30 hands against
    one bot, and the bot acts in every hand (no turn of it runs out the clock)."""
    async with running_server(tmp_path, sleep=_no_login_delay,
                              tables=[("holdem", "Hold'em", "holdem",
                                       HOLDEM | {"between_hands": 0.005})],
                              ledger={"starting_cubes": 10_000},
                              bot_accounts={"Robo": 20_000}) as server:
        service = server.app.tables["holdem"].service
        table = service.table
        await wait_until(lambda: len(service.snapshot.seats) == 1)
        alice = await _sit_at_holdem(server.port, "alice", 5000)
        try:
            loop = asyncio.get_running_loop()
            deadline = loop.time() + 90
            bot_turn: tuple[object, float] | None = None
            while table.game_id is None or table.game_id <= 30:
                assert loop.time() < deadline, f"hand {table.game_id} never ended"
                if table.current == "Robo":
                    turn = (table.game_id, table.deadline())
                    if bot_turn is None or bot_turn[0] != turn:
                        bot_turn = (turn, loop.time())
                    assert loop.time() - bot_turn[1] < 5, f"Robo stalled in hand {turn[0]}"
                if table.current == "alice" and "[C] " in alice.text:
                    version = service.snapshot.version
                    await alice.send("c")
                    await wait_until(lambda: service.snapshot.version > version
                                     or table.current != "alice", timeout=10)
                else:
                    await asyncio.sleep(0.005)
        finally:
            await alice.close()
        ledger = server.app.ledger
        ledger.commit_pending()
        hands = sorted((g for g in ledger.games_from(1) if g.ended_at is not None),
                       key=lambda g: g.id)[:30]
        assert len(hands) == 30
        for hand in hands:
            assert hand.players == ["Robo", "alice"] or hand.players == ["alice", "Robo"]
            ops = hand.history["operations"]
            assert not [op for op in ops if op.get("timeout")], (hand.id, ops)
            acted = [op for op in ops if op.get("handle") == "Robo"
                     and op["op"] in ("fold", "check", "call", "bet", "raise")]
            assert acted, (hand.id, ops)
        bots = {p.handle: p for p, _ in server.app.bots[0].players.values()}
        assert bots["Robo"].illegal == 0
        assert ledger.verify() == []


async def test_shutdown_with_a_bot_seated_leaves_no_cubes_in_stacks(tmp_path):
    """SIGTERM's shutdown at a Hold'em table with a bot and a person in a hand: the hand
    is called off after the grace, every stack is cashed out, and no bot buys in again
    afterwards: the ledger holds no CUBES at the table."""
    async with running_server(tmp_path, sleep=_no_login_delay,
                              tables=[("holdem", "Hold'em", "holdem", HOLDEM)],
                              table={"shutdown_grace": 0.2},
                              bot_accounts={"Robo": 20_000, "Tin": 20_000}) as server:
        service = server.app.tables["holdem"].service
        await wait_until(lambda: len(service.snapshot.seats) == 1)
        alice = await _sit_at_holdem(server.port, "alice", 1000)
        await wait_until(lambda: service.table.game_id is not None)
        ledger = server.app.ledger
        await server.shutdown()
        await alice.close()
        ledger.commit_pending()
        assert ledger.totals().stacks == 0
        assert ledger.verify() == []
        assert sum(ledger.balance(h) for h in ("alice", "Robo", "Tin")) == 1000 + 40_000


async def test_a_failing_bot_is_logged_started_again_and_at_last_stands_up(
        tmp_path, monkeypatch, caplog):
    """A bot whose task dies (here its policy raises) never dies silently: each failure is
    logged with its traceback and the bot is started again; after RESTARTS restarts it
    stands up, the table says so, and it is not seated there again."""

    class Broken:
        name = "broken"

        def decide(self, obs, rng):
            raise ValueError("policy bug")

    from bbspoker.bots.kinds import BOT_KINDS
    monkeypatch.setattr(BOT_KINDS["draw40"], "policy", lambda name: Broken())
    async with table_world(tmp_path, bot_accounts={"Robo": 500}, **_table(bots=1)) as (
            server, connect, _):
        service = server.app.tables["poker"].service
        await wait_until(lambda: len(service.snapshot.seats) == 1)
        alice = await connect("alice")
        await alice.send("p")
        await alice.wait_for("Join the table? (y/n)")
        await alice.send("y")
        await alice.wait_for("[X] Exit the game")
        await alice.wait_for("Robo has left the table.")     # the bot master never opened
        assert [s.handle for s in service.snapshot.seats] == ["alice"]
        assert service.snapshot.bots == frozenset()
        failed = [r for r in caplog.records if r.exc_info and "failed" in r.getMessage()]
        assert len(failed) == seats.RESTARTS + 1
        assert all("policy bug" in str(r.exc_info[1]) for r in failed)
        assert server.app.bots[0].pool.claim(0, exclude=server.app.bots[0]._benched) is None
        assert server.app.ledger.verify() == []


async def test_a_hold_em_bot_waiting_for_a_person_comes_back_without_a_word(tmp_path):
    """Bots sit out while no person is at a Hold'em table and come back when one sits:
    that is the table waiting for people, so nobody is told "Robo is back in the game"
    (the bot never left, as far as the person can tell)."""
    async with running_server(tmp_path, sleep=_no_login_delay,
                              tables=[("holdem", "Hold'em", "holdem", HOLDEM)],
                              bot_accounts={"Robo": 20_000}) as server:
        service = server.app.tables["holdem"].service
        await wait_until(lambda: [s.out for s in service.snapshot.seats] == [True])
        alice = await _sit_at_holdem(server.port, "alice", 1000)
        try:
            await wait_until(lambda: [s.out for s in service.snapshot.seats] == [False, False])
            await alice.wait_for("posts the big blind")
            assert "back in the game" not in alice.text
            assert "sits out" not in alice.text
            events = [m.event for m in service.recent() if hasattr(m, "event")]
            assert not [e for e in events if e.handle == "Robo"
                        and e.kind in ("sit_in", "sit_out")]
        finally:
            await alice.close()
