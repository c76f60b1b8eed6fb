"""The bot port (issue 15, docs/bot-protocol.md): programs log in as bot accounts and play
with ``ID;DATA`` lines; the example client plays a whole game against a bot; bad input gets
a one-line answer and changes nothing."""

from __future__ import annotations

import asyncio
import importlib.util
from pathlib import Path

import pytest

from bbspoker.store.passwords import hash_password
from tests.support.telnetclient import FakeClock, running_server, wait_until
from tests.support.paths import ROOT

EXAMPLE = ROOT / "examples" / "bot_client.py"


def _example():
    spec = importlib.util.spec_from_file_location("bot_client", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


async def _no_sleep(_seconds: float) -> None:
    await asyncio.sleep(0)


@pytest.fixture
async def port_server(tmp_path):
    async with running_server(
            tmp_path, sleep=_no_sleep, bot_sleep=_no_sleep, bot_accounts={"Robo": 500},
            bots={"enabled": True, "port": 0}, login={"failure_delay": 0},
            table={"bots": 1, "bot_policy": "calling", "between_games": 0}) as server:
        server.app.ledger.create_account("Porty", hash_password("pw-porty"), 300, bot=True)
        yield server


class Program:
    """A raw connection to the bot port: send lines, read lines."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.seen: list[str] = []

    @classmethod
    async def connect(cls, port: int) -> "Program":
        return cls(*await asyncio.open_connection("127.0.0.1", port))

    def send(self, line: str | bytes) -> None:
        self.writer.write(line if isinstance(line, bytes) else line.encode() + b"\n")

    async def expect(self, prefix: str, timeout: float = 5.0) -> str:
        """The next line starting with ``prefix`` (the lines before it are kept in seen)."""
        try:
            return await asyncio.wait_for(self._expect(prefix), timeout)
        except TimeoutError:
            raise AssertionError(f"no {prefix!r} line; the last ones: {self.seen[-8:]}") \
                from None

    async def _expect(self, prefix: str) -> str:
        if True:
            while True:
                raw = await self.reader.readline()
                assert raw, f"connection closed before {prefix!r}: {self.seen[-5:]}"
                line = raw.decode().rstrip("\n")
                self.seen.append(line)
                if line.startswith(prefix):
                    return line

    async def close(self) -> None:
        self.writer.close()
        await self.writer.wait_closed()


async def test_the_example_client_plays_a_game_against_a_bot_over_the_port(port_server):
    server = port_server
    service = server.app.tables["poker"].service
    await wait_until(lambda: len(service.snapshot.seats) == 1)     # Robo sits, not Porty
    assert service.table.handles == ["Robo"]
    said: list[str] = []
    code = await asyncio.to_thread(_example().play, "127.0.0.1", server.bot_port, "Porty",
                                   "pw-porty", "poker", 1, said.append)
    assert code == 0
    assert "Welcome, Porty. Sit with 13;table." in said and "You sit at PoKeR." in said
    assert "The game is now STARTED (initial pot is 20) ..." in said
    won = [line for line in said if " wins the pot of " in line]
    assert len(won) == 1
    ledger = server.app.ledger
    ledger.commit_pending()
    (game,) = [g for g in ledger.list_games() if g.ended_at is not None][:1]
    assert sorted(game.players) == ["Porty", "Robo"] and game.end_reason == "finished"
    assert ledger.balance("Porty") + ledger.balance("Robo") + ledger.totals().open_pots \
        == 800 and ledger.verify() == []
    await wait_until(lambda: service.table.handles == ["Robo"])     # Porty left


async def test_the_protocol_tells_cards_turns_and_state_in_numbers(port_server):
    server = port_server
    p = await Program.connect(server.bot_port)
    await p.expect("0;bbspoker bot port")
    p.send("12;")
    assert await p.expect("9;") == "9;login_first;log in with 10;handle;password"
    p.send("10;Porty;wrong")
    assert (await p.expect("9;")).startswith("9;login_failed;")
    p.send("10;Robo;anything")                     # a table's bot has no password
    assert (await p.expect("9;")).startswith("9;login_failed;")
    p.send("10;porty;pw-porty")
    await p.expect("0;Welcome, Porty.")
    assert await p.expect("6;") == "6;Porty;300;out"
    p.send("11;call")
    assert (await p.expect("9;")).startswith("9;not_seated;")
    p.send("13;nowhere")
    assert await p.expect("9;") == "9;no_table;there is no table 'nowhere'"
    p.send("13;1")
    await p.expect("0;You sit at PoKeR.")
    state = await p.expect("8;")
    assert state.split(";")[0:2] == ["8", "idle"] and state.endswith(";2")
    await p.expect("6;Robo;500;out")
    await p.expect("6;Porty;300;out")
    await p.expect("2;")
    # Robo, the game-master, opens; Porty gets five cards as numbers and its turn.
    cards = (await p.expect("2;")).split(";")[1:]
    await p.expect("6;Porty;290;in")
    assert len(cards) == 5 and all(0 <= int(n) <= 51 for n in cards)
    assert len({int(n) % 13 for n in cards} - {0, 4, 5, 6, 7, 8, 9, 10, 11, 12}) == 0  # 5..A
    turn = await p.expect("1;")
    assert turn.startswith("1;bet,pass;") or turn.startswith("1;bet,hands,pass;")
    p.send("11;bet;lots")
    assert (await p.expect("9;")).startswith("9;bad_action;11;bet;N needs a whole number")
    p.send("11;bet;999")
    assert (await p.expect("9;")).startswith("9;bet_range;")
    p.send("11;discard;99")
    assert (await p.expect("9;")).startswith("9;bad_action;")
    p.send("17;what")
    assert (await p.expect("9;")).startswith("9;unknown;")
    assert server.app.ledger.balance("Porty") == 290          # nothing moved but the ante
    p.send("11;fold")
    await p.expect("0;Porty has passed")
    await p.expect("7;Robo;")
    await p.close()


async def test_the_port_keeps_telnets_limits_and_one_login_per_bot(port_server, tmp_path):
    server = port_server
    p = await Program.connect(server.bot_port)
    await p.expect("0;bbspoker bot port")
    p.send(b"10;" + b"x" * 7000 + b"\n")
    line = await p.expect("9;")
    assert line == "9;line_too_long;a line may have at most 6000 bytes"
    assert await p.reader.read() == b""                       # and the port closed it
    a, b = await Program.connect(server.bot_port), await Program.connect(server.bot_port)
    a.send("10;Porty;pw-porty")
    await a.expect("0;Welcome")
    b.send("10;Porty;pw-porty")
    assert (await b.expect("9;")).startswith("9;in_use;Porty is playing already")
    await a.close()
    await b.close()


async def test_a_persons_handle_on_the_bot_port_costs_its_owner_nothing(tmp_path, clients):
    """A person's handle with its right password was counted as a failed guess on the
    handle: its owner's next login at the door was slowed down."""
    async with running_server(tmp_path, sleep=_no_sleep, bots={"enabled": True, "port": 0},
                              clock=FakeClock()) as server:
        server.app.ledger.create_account("alice", hash_password("pw-alice"))
        p = await Program.connect(server.bot_port)
        await p.expect("0;bbspoker bot port")
        p.send("10;alice;pw-alice")
        assert (await p.expect("9;")).startswith("9;not_a_bot;alice is not a bot account")
        p.send("10;ALICE;wrong")                      # nor is a wrong password counted
        assert (await p.expect("9;")).startswith("9;not_a_bot;")
        owner = await clients(server.port)
        await owner.login("alice", "pw-alice")
        assert b"Checking..." not in owner.received     # no wait for the failures of others
        await p.close()


async def test_a_closed_port_is_not_listening_by_default(tmp_path):
    async with running_server(tmp_path) as server:
        assert server.bot_port is None


async def test_a_program_cannot_sit_at_a_schiebe_table(tmp_path):
    # Issue 17: the protocol's messages are draw40's; a Schiebe-Poker table says so.
    async with running_server(
            tmp_path, sleep=_no_sleep, bots={"enabled": True, "port": 0},
            login={"failure_delay": 0},
            tables=[("poker", "PoKeR"), ("push", "Push", "schiebe", {"seats": 4})]) as server:
        server.app.ledger.create_account("Porty", hash_password("pw-porty"), 300, bot=True)
        p = await Program.connect(server.bot_port)
        p.send("10;porty;pw-porty")
        await p.expect("0;Welcome, Porty.")
        p.send("13;push")
        assert await p.expect("9;") == ("9;wrong_game;the bot protocol plays draw40 and "
                                        "holdem tables, push is schiebe")
        assert server.app.tables["push"].service.table.handles == []
        await p.close()


async def test_two_programs_play_a_hold_em_hand_over_the_port(tmp_path):
    """Issue 16 over the Finnish design's own protocol: hole cards (2;), the flop, turn and
    river one card a line (3; 4; 5;), the turn with its costs (1;), the pot won (7;), the
    hands shown (16;), with a buy-in; CUBES conserved."""
    rules = {"small_bet": 10, "buy_in_min": 100, "buy_in_max": 500, "between_hands": 30.0}
    clock = FakeClock()
    async with running_server(
            tmp_path, sleep=_no_sleep, clock=clock, bots={"enabled": True, "port": 0},
            login={"failure_delay": 0},
            tables=[("hold", "Hold", "holdem", rules)]) as server:
        ledger = server.app.ledger
        programs = {}
        for name in ("Ann", "Bea"):
            ledger.create_account(name, hash_password("pw-" + name), 1000, bot=True)
            p = programs[name] = await Program.connect(server.bot_port)
            p.send(f"10;{name};pw-{name}")
            await p.expect(f"0;Welcome, {name}.")
        programs["Ann"].send("13;hold;300")
        await programs["Ann"].expect("0;You sit at Hold.")
        assert ledger.stack("Ann", table="hold") == 300 and ledger.balance("Ann") == 700
        programs["Bea"].send("13;hold;x")
        assert await programs["Bea"].expect("9;") == \
            "9;bad_action;13;table;N takes a whole number of CUBES"
        programs["Bea"].send("13;hold")
        await programs["Bea"].expect("0;You sit at Hold.")
        service = server.app.tables["hold"].service
        table = service.table
        clock.advance(30)                          # the first hand, 30 s after Bea sat
        service.wake()
        hole = {}
        for name, p in programs.items():
            line = "2;"
            while line == "2;":                   # "2;" alone: no cards (before the deal)
                line = await p.expect("2;")
            hole[name] = [int(n) for n in line.split(";")[1:]]
            assert len(hole[name]) == 2 and all(0 <= n <= 51 for n in hole[name])
        assert not set(hole["Ann"]) & set(hole["Bea"])
        # Both call or check until the hand is over; the first offer preflop has costs.
        first = None
        while table.game_id == 1:
            name = table.current
            if name is None:
                await asyncio.sleep(0.01)
                continue
            offer = await programs[name].expect("1;")
            first = first or offer
            version = service.snapshot.version
            programs[name].send("11;" + ("call" if "call" in offer else "check"))
            await wait_until(lambda: service.snapshot.version > version)
        names, to_call, raise_to = first.split(";")[1:]
        assert names == "fold,call,raise" and (to_call, raise_to) == ("5", "20")
        # The table's events in Hold'em's words, as its screens read them.
        said = [line for line in programs["Ann"].seen if line.startswith("0;")]
        assert any(line.endswith("posts the big blind (10).") for line in said), said
        p = programs["Ann"]
        if not any(line.startswith("7;") for line in p.seen):
            await p.expect("7;")
        lines = [line for line in p.seen if line[:2] in ("3;", "4;", "5;", "7;")]
        assert [line[:2] for line in lines] == ["3;"] * 3 + ["4;", "5;"] + ["7;"] * (
            len(lines) - 5)
        board = [int(line.split(";")[1]) for line in lines[:5]]
        assert len(set(board + hole["Ann"] + hole["Bea"])) == 9
        handle, amount = lines[5].split(";")[1:]
        assert handle in programs and 0 < int(amount) <= 40
        hand = ledger.game(1)
        assert hand.end_reason == "finished" and hand.history["winners"][handle] == int(amount)
        for q in programs.values():
            await q.close()
        await wait_until(lambda: not table.handles)
        ledger.commit_pending()
        assert ledger.verify() == [] and ledger.balance("Ann") + ledger.balance("Bea") == 2000
