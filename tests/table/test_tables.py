"""Many tables in one server (issue 14): the registry's tables share one ledger but not
their faults; each table's private cards reach only their player; a dropped player's seat
is held for the reconnect grace."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import sqlite3

import pytest

from bbspoker.config import Config, TableSpec
from bbspoker.rules import actions as act
from bbspoker.rules.draw40.game import Phase
from bbspoker.store.sqlite import Ledger
from bbspoker.rules.events import RuleError
from bbspoker.table.registry import TableRegistry, make_entry
from bbspoker.table.service import LOST_REASON, PrivateCards, TableMessage, TableSnapshot
from tests.support.stores import both_backends
from tests.support.tableplay import bet, corner, cubes, info, join, my_cards, table_world
from tests.support.telnetclient import FakeClock, TelnetClient, wait_until

HANDLES = {"red": ("alice", "bob"), "blue": ("carol", "dave")}


def specs(*ids: str, **rules) -> tuple[TableSpec, ...]:
    """Draw40 tables named after their ids, with ``[table]`` defaults changed by ``rules``."""
    base = Config().table.with_keys(**rules)
    return tuple(TableSpec(i, i.title(), "draw40", base) for i in ids)


@pytest.fixture
async def two_tables(ledger_db):
    """(registry, ledger, db): tables red (alice, bob) and blue (carol, dave) on one ledger
    (SQLite; each backend for a test marked ``both_backends``), their tasks running,
    everyone seated."""
    db = ledger_db
    ledger = Ledger(db)
    for handles in HANDLES.values():
        for h in handles:
            ledger.create_account(h, "h")
    registry = TableRegistry(specs("red", "blue", between_games=0), ledger, FakeClock())
    registry.start()
    for table_id, handles in HANDLES.items():
        for h in handles:
            await registry[table_id].service.call(h, act.Sit())
    yield registry, ledger, db
    registry.stop()
    await registry.wait_stopped()
    ledger.close()


def break_game(db, game_id: int) -> None:
    """From now on SQLite fails every bet of game ``game_id`` in the journal (as a disk
    gone bad under it would), whoever writes it; refunds still go through."""
    raw = sqlite3.connect(db)
    with raw:
        raw.execute(f"CREATE TRIGGER broken BEFORE INSERT ON journal WHEN NEW.game_id = "
                    f"{int(game_id)} AND NEW.reason = 'bet' BEGIN SELECT RAISE(ABORT, 'disk trouble'); END")
    raw.close()


async def test_a_ledger_fault_at_one_table_calls_off_only_that_tables_game(two_tables):
    registry, ledger, db = two_tables
    red, blue = registry["red"].service, registry["blue"].service
    await red.call("alice", act.Start())
    await blue.call("carol", act.Start())
    await asyncio.sleep(0)                          # the starts are committed
    break_game(db, red.table.game_id)
    told = {table_id: registry[table_id].service.bus.subscribe() for table_id in HANDLES}
    # Both tables move in the same turn of the event loop, so their writes meet in the
    # ledger before either table's commit runs.
    await asyncio.gather(red.call("alice", act.Bet(5)), blue.call("carol", act.Bet(7)))
    await wait_until(lambda: red.table.phase is Phase.IDLE)
    cancelled = [i.event for i in told["red"].drain()
                 if isinstance(i, TableMessage) and i.kind == "cancelled"]
    assert [e.data["reason"] for e in cancelled] == [LOST_REASON]
    assert ledger.balance("alice") == ledger.balance("bob") == 1000   # every ante refunded
    # Blue plays on, and its bet is in the ledger as it is on the table.
    assert blue.table.phase is not Phase.IDLE and blue.table.pot == 27
    assert not any(isinstance(i, TableMessage) and i.kind == "cancelled"
                   for i in told["blue"].drain())
    await blue.call("dave", act.Bet(7))
    await asyncio.sleep(0)
    assert ledger.game(blue.table.game_id).pot == 34 == blue.table.pot
    assert ledger.balance("carol") == 1000 - 10 - 7 == ledger.balance("dave")
    assert ledger.verify() == []


async def test_a_registry_serves_the_tables_added_and_stops_one_removed_at_once(fast_poll):
    # A worker's registry starts empty and holds the tables whose leases it wins: an
    # added table runs at once and is polled; a removed one stops at once (its actions are
    # refused) and is polled, found and called off no more.
    ledger = Ledger(":memory:")
    for h in ("alice", "bob"):
        ledger.create_account(h, "h")
    registry = TableRegistry((), ledger, FakeClock())
    registry.start()
    try:
        assert list(registry) == []
        red, blue = (make_entry(n, spec, ledger, FakeClock(), None, registry.lose)
                     for n, spec in enumerate(specs("red", "blue", between_games=0), 1))
        registry.add(blue)
        registry.add(red)
        assert [e.id for e in registry] == ["red", "blue"]        # lobby order
        with pytest.raises(ValueError):
            registry.add(red)
        await red.service.call("alice", act.Sit())                # its task runs
        await blue.service.call("bob", act.Sit())
        assert registry.seat_of("alice") is red
        polled: list[str] = []
        for entry in (red, blue):
            poll = entry.service.poll_balances
            entry.service.poll_balances = (                       # type: ignore[method-assign]
                lambda *a, poll=poll, tid=entry.id, **k: (polled.append(tid), poll(*a, **k))[1])
        assert await registry.remove("red") is red
        assert "red" not in registry and [e.id for e in registry] == ["blue"]
        with pytest.raises(RuleError) as refused:
            await red.service.call("alice", act.Leave("left"))
        assert refused.value.code == "table_closed"
        assert registry.seat_of("alice") is None and registry.seat_of("bob") is blue
        polled.clear()
        await wait_until(lambda: polled.count("blue") >= 2)
        assert "red" not in polled
        await blue.service.call("bob", act.Leave("left"))         # blue plays on
    finally:
        registry.stop()
        await registry.wait_stopped()
        ledger.close()


@pytest.fixture
def fast_poll(monkeypatch):
    """The registry's balance poll every 0.02 s instead of every second (ask for it
    before ``two_tables``: the poll's task reads it when it starts)."""
    monkeypatch.setattr("bbspoker.table.service.BALANCE_POLL", 0.02)


async def test_one_balance_poll_wakes_only_the_table_whose_cubes_changed(fast_poll, two_tables,
                                                                         monkeypatch):
    # Issue 21: the registry polls every table's CUBES once a second with one read of the
    # store; a table whose shown balances are still right is not woken.
    registry, ledger, db = two_tables
    red, blue = registry["red"].service, registry["blue"].service
    steps = {"red": [], "blue": []}
    for table_id, service in (("red", red), ("blue", blue)):
        step = service._step
        monkeypatch.setattr(service, "_step",
                            lambda cmd, step=step, seen=steps[table_id]: (seen.append(cmd), step(cmd)))
    assert registry.poll_balances() == 0           # nothing changed anywhere

    def admin() -> None:                           # the CLI: another connection
        with Ledger(db) as cli:
            cli.grant("carol", 50, "a present", "sysop")

    await asyncio.to_thread(admin)
    # No call here: the registry's own poll, every BALANCE_POLL s, finds it.
    await wait_until(lambda: blue.snapshot.balances["carol"] == 1050, 5.0)
    await asyncio.sleep(0.1)                       # some more polls
    assert steps["red"] == [] and steps["blue"] == [None]
    assert red.snapshot.balances == {"alice": 1000, "bob": 1000}


async def test_the_balance_poll_goes_on_past_a_failed_read_and_a_failed_table(two_tables,
                                                                              monkeypatch,
                                                                              caplog):
    # The store cannot be read: what is due without it (a turn's time is up) still is, and
    # a table whose poll fails leaves the other tables polled.
    registry, ledger, db = two_tables
    red, blue = registry["red"].service, registry["blue"].service
    await red.call("alice", act.Start())
    await red.call("alice", act.Bet(10))           # bob's turn: 60 s
    red.clock.advance(61)                          # no wake(): only a poll can see it

    def unreadable(handles):
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(ledger, "balances_of", unreadable)
    assert registry.poll_balances() == 1           # red: bob's time is up
    await wait_until(lambda: red.snapshot.view.phase is not Phase.BETTING or
                     red.snapshot.current != "bob", 2.0)
    assert "reading the CUBES failed" in caplog.text
    monkeypatch.undo()

    def broken(balances, compare=True):
        raise RuntimeError("a bug at one table")

    monkeypatch.setattr(red, "poll_balances", broken)
    with Ledger(db) as cli:                        # the CLI: another connection
        cli.grant("carol", 50, "a present", "sysop")
    assert registry.poll_balances() == 1           # blue all the same
    await wait_until(lambda: blue.snapshot.balances["carol"] == 1050, 2.0)
    assert "balance poll of table red failed" in caplog.text


async def test_private_cards_reach_only_their_player(two_tables):
    registry, ledger, _ = two_tables
    red = registry["red"].service
    alice, bob = (red.bus.subscribe(viewer=h) for h in HANDLES["red"])
    rail = red.bus.subscribe()                     # a spectator: no viewer's cards
    await red.call("alice", act.Start())
    hands = red.table.hands()
    for sub, me in ((alice, "alice"), (bob, "bob"), (rail, None)):
        items = sub.drain()
        cards = [i for i in items if isinstance(i, PrivateCards)]
        assert all(i.event.to in (None, me) for i in items if isinstance(i, TableMessage))
        assert [c.handle for c in cards] == ([me] if me else [])
        assert all(c.cards == hands[me] for c in cards)
        # Nothing else anyone receives names a card of another player's hand.
        others = {c for h, hand in hands.items() if h != me for c in hand}
        for item in items:
            if isinstance(item, TableSnapshot):
                assert not any(hasattr(s, "cards") for s in item.seats)
            assert not others & set(_cards_in(item)), item
    # What a newcomer is shown of the past holds no private news either.
    assert red.recent() and all(i.event.to is None for i in red.recent()
                                if isinstance(i, TableMessage))
    assert not set(_cards_in(red.recent())) & {c for hand in hands.values() for c in hand}


def _cards_in(item) -> list:
    """Every card value found in ``item``'s fields (recursively through containers)."""
    from bbspoker.rules.cards import Card
    found: list = []

    def walk(value) -> None:
        if isinstance(value, Card):
            found.append(value)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, (list, tuple, set, frozenset)):
            for v in value:
                walk(v)
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            for f in dataclasses.fields(value):
                walk(getattr(value, f.name))

    walk(item)
    return found


# --------------------------------------------------------------- three tables, end to end


@pytest.fixture
async def three_tables(tmp_path):
    """(server, connect, db): the real server with tables Red Room, Blue Room and Green
    Room; ``connect(handle)`` logs a new client in and leaves it at the menu."""
    async with table_world(tmp_path, tables=[("red", "Red Room"), ("blue", "Blue Room"),
                                             ("green", "Green Room")]) as (server, connect, _):
        yield server, connect, tmp_path / "bbspoker.db"


async def pick_table(c: TelnetClient, number: int, choice: str) -> None:
    """From the menu: [P], the table list, table ``number``, then y (join) or w (watch)."""
    await c.send("p")
    await c.wait_for("Pick a table (1-3)")
    await c.send(str(number))                 # at most 9 tables: the digit alone
    await c.wait_for("Join the table? (y/n) [W] Watch")
    await c.send(choice)
    await c.wait_for("[X] Exit the game")


async def x_message(sender: TelnetClient, to: str, text: str, where: str) -> None:
    """``sender`` (at the menu) sends ``text`` to ``to``, and is told where ``to`` is."""
    await sender.send("x")
    await sender.wait_for("Send an X-message to:")
    await sender.send(to + "\r")
    await sender.wait_for(f"{to} is {where}")
    await sender.send(text + "\r")
    await sender.wait_for(f"X-message sent to {to}.")
    await sender.send(" ")
    await sender.wait_for("[Q]")


async def test_three_tables_play_watch_and_message_at_once_and_a_fault_stays_at_its_table(
        three_tables):
    server, connect, db = three_tables
    alice, bob, carol, dave, erin, frank = [
        await connect(h) for h in ("alice", "bob", "carol", "dave", "erin", "frank")]

    # The table list: three tables, nobody anywhere yet.
    await frank.send("p")
    await frank.wait_for("Pick a table (1-3)")
    rows = [line for line in frank.text.splitlines() if "Room" in line]
    assert [r.split()[:3] for r in rows] == [["1", "Red", "Room"], ["2", "Blue", "Room"],
                                             ["3", "Green", "Room"]]
    assert all("40-card draw" in r and "ante 10, 1-200" in r and r.endswith("0/5       0  empty")
               for r in rows)
    await frank.send("9")
    await frank.wait_for("There is no table 9.")
    await frank.send("x")
    await frank.wait_for("There is no table x.")
    await frank.send("\r")
    await frank.wait_for("[Q]")

    for c, number in ((alice, 1), (bob, 1), (carol, 2), (dave, 2)):
        await pick_table(c, number, "y")
    await pick_table(erin, 3, "w")
    await erin.wait_for("You are watching this table. [J] takes")
    await erin.wait_for("[1 watching]")
    assert "[J] Take a free seat" in erin.text and "[S]" not in erin.text

    # Games at two tables at once; each table sees only its own.
    await alice.send("s")
    await carol.send("s")
    for c in (alice, bob, carol, dave):
        await c.wait_for("The game is now STARTED (initial pot is 20)")
    await bet(alice, "5")
    await bet(carol, "9")
    await bob.wait_for("alice has raised the bet (5), pot is 25.")
    await dave.wait_for("carol has raised the bet (9), pot is 29.")
    assert "carol" not in alice.text and "alice" not in dave.text
    assert "STARTED" not in erin.text and info(erin, "Pot") == "NO GAME"

    # The lobby sees both games running and the spectator; [W]ho says where everyone is.
    await frank.send("p")
    await frank.wait_for("Pick a table (1-3)")
    rows = {line.split()[0]: line for line in frank.text.splitlines() if "Room" in line}
    assert "2/5" in rows["1"] and rows["1"].endswith("playing")
    assert "2/5" in rows["2"] and rows["2"].endswith("playing")
    assert rows["3"].split()[-3:] == ["0/5", "1", "empty"]     # one watching, nobody seated
    await frank.send("\r")
    await frank.wait_for("[Q]")
    await frank.send("w")
    await frank.wait_for("Who is online (6)")
    where = {line.split()[0]: " ".join(line.split()[1:])
             for line in frank.text.splitlines()[2:8] if line.strip()}
    assert where == {"alice": "playing at Red Room", "bob": "playing at Red Room",
                     "carol": "playing at Blue Room", "dave": "playing at Blue Room",
                     "erin": "watching Green Room", "frank": "in the lobby"}
    await frank.send(" ")
    await frank.wait_for("[Q]")

    # X-messages reach players at any table, and the spectator.
    await x_message(frank, "bob", "lunch?", "playing poker at Red Room")
    await x_message(frank, "dave", "lunch?", "playing poker at Blue Room")
    await x_message(frank, "erin", "lunch?", "watching Green Room")
    for c in (bob, dave, erin):
        await c.wait_for("[1 X-message]")
    assert "X-message" not in alice.row(6) + carol.row(6)

    # The disk fails Red Room's next bet: that game is called off and refunded, Blue
    # Room's game goes on as if nothing happened.
    red = server.app.tables["red"].service
    break_game(db, red.table.game_id)
    await bet(bob)
    for c in (alice, bob):
        await c.wait_for("the server could not save the last move")
        await c.wait_for("1,000 CUBES")
    assert info(alice, "Pot") == "NO GAME"
    await bet(dave)
    await carol.wait_for("dave has called the bet (9), pot is 38.")
    assert "could not save" not in carol.text + dave.text
    assert server.app.ledger.balance("dave") == 1000 - 10 - 9
    assert server.app.ledger.verify() == []


# ------------------------------------------------------------------- reconnect to the seat

@pytest.fixture
async def held(tmp_path):
    """(server, connect, advance, ledger): the one default table with the seat of a dropped
    player held 90 s; ``connect(handle)`` logs a new client in (menu), ``advance(s)``
    moves the table's fake clock and wakes it."""
    async with table_world(tmp_path, table={"reconnect_grace": 90.0}) as (server, connect,
                                                                         advance):
        yield server, connect, advance, server.app.ledger


async def log_in_again(server, handle: str) -> TelnetClient:
    """A new connection for ``handle``: after the password it goes straight to the table."""
    c = await TelnetClient.connect(server.port)
    await c.wait_for("Handle:")
    await c.send(handle + "\r")
    await c.wait_for("Password:")
    await c.send("pw-" + handle + "\r")
    await c.wait_for("[X] Exit the game")
    return c


async def three_in_a_game(connect):
    alice, bob, carol = [await connect(h) for h in ("alice", "bob", "carol")]
    await join(alice, "Nobody is using the poker game")
    await join(bob, "alice")
    await join(carol, "alice, bob")
    await alice.wait_for("[S] Open the game")
    await alice.send("s")
    await bet(alice, "5")
    await bob.wait_for("[B] Place bet")
    return alice, bob, carol


async def test_a_dropped_player_gets_the_same_seat_and_cards_back_within_the_grace(held):
    server, connect, advance, ledger = held
    alice, bob, carol = await three_in_a_game(connect)
    cards = my_cards(bob)
    await bob.close()
    for c in (alice, carol):
        await c.wait_for("bob lost the connection (seat held 90 s).")
    await alice.wait_for("| bob          (away) [?] [?] [?] [?] [?] |")   # seat and cards wait
    advance(30)
    bob = await log_in_again(server, "bob")
    await bob.wait_for("[B] Place bet")                     # his turn, as it was
    await bob.wait_for("Welcome back to PoKeR, bob.")
    # What happened meanwhile is in his message area, above the greeting.
    assert bob.text.index("alice has raised the bet (5), pot is 35.") \
        < bob.text.index("bob lost the connection (seat held 90 s).") \
        < bob.text.index("Welcome back to PoKeR, bob.")
    assert my_cards(bob) == cards and info(bob, "Pot") == "35"
    assert info(bob, "Current") == "bob" and cubes(bob) == 990
    assert "0:30" in bob.row(12)                            # the turn clock kept running
    await alice.wait_for("bob is back.")
    await alice.wait_for("| bob                 [?] [?] [?] [?] [?] |")
    await bet(bob)
    await carol.wait_for("bob has called the bet (5), pot is 40.")
    assert ledger.verify() == []


async def test_the_turn_clock_runs_on_while_the_seat_waits_and_the_grace_ends_the_seat(held):
    server, connect, advance, ledger = held
    alice, bob, carol = await three_in_a_game(connect)
    await bob.close()
    await alice.wait_for("bob lost the connection (seat held 90 s).")
    advance(60)                                             # his turn times out: he passes
    await alice.wait_for("bob did not act within 1 minute and is out of the game.")
    await bet(carol)
    await alice.wait_for("carol has called the bet (5), pot is 40.")
    advance(31)                                             # 91 s: the seat is given up
    await alice.wait_for("bob has lost the connection.")
    assert "bob" not in alice.row(2) + alice.row(3) + alice.row(4)
    assert info(alice, "Pot") == "40" and ledger.balance("bob") == 990  # his ante stays
    bob = await TelnetClient.connect(server.port)
    await bob.login("bob", "pw-bob")                        # too late: the menu, no seat
    assert "kept for you" not in bob.text
    await bob.close()


# ------------------------------------------------------------------------------ spectators

async def test_a_spectator_sees_no_cards_has_no_game_commands_chats_and_sits_between_games(
        held):
    server, connect, advance, ledger = held
    alice, bob, carol = await three_in_a_game(connect)
    erin = await connect("erin")
    await erin.send("p")
    await erin.wait_for("At the poker table (3 of 5 seats): alice, bob, carol")
    await erin.send("w")
    await erin.wait_for("You are watching this table.")
    await erin.wait_for("[INFO] You are watching PoKeR, erin. alice is the game-master.")
    assert "alice has raised the bet (5), pot is 35." in erin.text   # from before she came
    for c in (alice, bob, carol, erin):
        await c.wait_for("[1 watching]")
    # The same table, nobody's cards: three hidden hands and no cards of her own.
    assert erin.text.count("[?] [?] [?] [?] [?]") == 3
    assert info(erin, "Pot") == "35" and info(erin, "Current") == "bob"
    # No face of alice's cards (their boxes' corners; "A-" alone is in "SHA-256").
    assert not any(corner(card) in erin.text for card in my_cards(alice) if len(card) > 1)
    assert "[B]" not in erin.text and "[P]" not in erin.text and "[J]" not in erin.text
    assert "You may take a free seat between games." in player_area(erin)
    # Game keys do nothing for her; the game goes on.
    await erin.send("b")
    await erin.send("p")
    await bet(bob)
    await erin.wait_for("bob has called the bet (5), pot is 40.")
    assert ledger.balance("erin") == 1000
    # Chat both ways.
    await erin.send(".")
    await erin.send("go bob\r")
    await bob.wait_for("->[erin] go bob")
    await alice.send(".")
    await alice.send("thanks\r")
    await erin.wait_for("->[alice] thanks")
    # Everyone else passes: the game ends, and now she may take a free seat.
    await pass_(carol)
    for c in (alice, bob):
        await c.wait_for("[D] Done")
        await c.send("d")
    await pass_(alice)
    # Passed players still sit at the table: the last one in bets and shows (chapter 2).
    await bet(bob, "5", key="h")
    await bob.wait_for("[R] Reveal hand")
    await bob.send("r")
    await erin.wait_for("bob wins the pot of 45 CUBES")
    await erin.wait_for("[J] Take a free seat")
    await erin.send("j")
    await erin.wait_for("erin has joined the table.")
    assert "[J] Take a free seat" not in erin.text
    assert "You are watching" not in player_area(erin)
    # alice's frame loses its count of spectators (it may come a paint after the line).
    await alice.wait_for("erin has joined the table.")
    await alice._wait(lambda: "watching" not in alice.row(5), "no spectator count", 5.0)


async def pass_(c: TelnetClient) -> None:
    """Wait for [P], pass and confirm."""
    await c.wait_for("[P] Pass")
    await c.send("p")
    await c.wait_for("Really pass? (y/n)")
    await c.send("y")


def player_area(c: TelnetClient) -> str:
    """The text of the player's area (region 3), its wrapped rows joined by spaces."""
    return " ".join(c.row(n)[1:42].strip() for n in range(6, 12)).strip()


async def test_private_news_reaches_only_its_player(two_tables):
    registry, ledger, _ = two_tables
    red = registry["red"].service
    ledger.create_account("erin", "h")
    await red.call("erin", act.Sit())
    ledger.take("bob", 995, "test", "sysop")           # bob cannot pay the ante
    alice, bob = (red.bus.subscribe(viewer=h) for h in HANDLES["red"])
    rail = red.bus.subscribe()
    await red.call("alice", act.Start())
    private = lambda sub: [i.event for i in sub.drain()  # noqa: E731
                           if isinstance(i, TableMessage) and i.event.to is not None]
    assert [(e.kind, e.to) for e in private(bob)] == [("inactive", "bob")]
    assert private(alice) == private(rail) == []


@both_backends
async def test_games_list_and_show_name_the_table_and_tell_the_game(two_tables, monkeypatch,
                                                                      capsys):
    from bbspoker.cli import main
    registry, ledger, db = two_tables
    red, blue = registry["red"].service, registry["blue"].service
    await red.call("alice", act.Start())
    await blue.call("carol", act.Start())
    red_game, blue_game = red.table.game_id, blue.table.game_id
    first = red.snapshot.current
    await red.call(first, act.Pass())
    other = red.snapshot.current                    # the one left bets, shows and wins
    await red.call(other, act.Bet(1))
    await red.call(other, act.Reveal())
    assert red.snapshot.view.phase is Phase.IDLE
    ledger.commit_pending()
    monkeypatch.setenv("BBSPOKER_DB", str(db))
    monkeypatch.delenv("BBSPOKER_CONFIG", raising=False)

    assert main(["games", "list"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[0].split()[:3] == ["ID", "TABLE", "STARTED"]
    assert {r.split()[0]: r.split()[1] for r in rows[1:]} == {str(red_game): "red",
                                                              str(blue_game): "blue"}
    assert main(["games", "list", "--table", "blue"]) == 0
    rows = capsys.readouterr().out.splitlines()[1:]
    assert [r.split()[:2] for r in rows] == [[str(blue_game), "blue"]]
    assert "open, pot 20 CUBES" in rows[0]
    assert main(["games", "list", "--table", "green"]) == 0
    assert capsys.readouterr().out == "no games at table green\n"

    assert main(["games", "show", str(red_game)]) == 0
    out = capsys.readouterr().out
    assert "  table:        red\n" in out
    assert "     1. alice pays the ante (10)\n" in out
    assert f"round 1: {first} passed\n" in out and f"{other} wins" in out
    assert main(["games", "show", str(red_game), "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["table"] == "red" and record["winner"] == other
    assert record["history"]["operations"][0] == {"op": "ante", "handle": "alice",
                                                  "amount": 10}


@both_backends
async def test_users_show_tells_a_players_results_per_table(two_tables, monkeypatch, capsys):
    """Issue 20: per-user results (games played, won, CUBES won and lost, biggest pot)."""
    from bbspoker.cli import main
    registry, ledger, db = two_tables
    red = registry["red"].service
    for _ in range(2):                                # two games at red: bob passes
        await red.call(red.snapshot.view.master, act.Start())
        first = red.snapshot.current
        await red.call(first, act.Pass())
        other = red.snapshot.current
        await red.call(other, act.Bet(1))
        await red.call(other, act.Reveal())
    ledger.commit_pending()
    wins = {h: sum(1 for g in ledger.list_games(table="red") if g.winner == h)
            for h in ("alice", "bob")}
    (alice,) = ledger.stats("alice")
    assert (alice.table, alice.played, alice.won) == ("red", 2, wins["alice"])
    assert alice.net == ledger.balance("alice") - 1000
    monkeypatch.setenv("BBSPOKER_DB", str(db))
    monkeypatch.delenv("BBSPOKER_CONFIG", raising=False)
    assert main(["users", "show", "alice"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if "red (gone)" in line).split()
    assert row[2:4] == ["2", str(wins["alice"])] and int(row[6].replace(",", "")) == alice.net
    assert main(["users", "show", "carol"]) == 0
    assert "results:    no finished game yet" in capsys.readouterr().out
