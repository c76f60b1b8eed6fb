"""A viewer whose link stalls while the table goes on (issue 20, item 5, "output-overflow
kick"): four players flooding the chat used to disconnect everyone whose socket drained
slowly ("fell too far behind"), and they lost their bets. Now such a viewer keeps the seat,
the server holds a bounded amount of output for it, and once it reads again it gets the
current screen, repainted once. A client that takes no byte at all for ``[output]
drain_timeout`` (on the injected clock) is still cut off. Real server, real TCP clients,
pyte screens."""

from __future__ import annotations

import asyncio
import random
import socket

import pytest

from bbspoker.transport import session as session_module
from tests.support.tableplay import bet, info, join, my_cards
from tests.support.telnetclient import FakeClock, TelnetClient, running_server, wait_until

pytestmark = pytest.mark.e2e

#: The test's output bounds: small, so that a few hundred chat lines go past them.
CONGESTION, RESUME, HARD_CAP = 8192, 2048, 16384
#: The most one update of a screen can add past the soft bound (a full repaint is ~2 KB).
ONE_SCREEN = 4096


@pytest.fixture
async def world(tmp_path):
    """A server on a frozen clock and ``arrive(handle, watch=False)``, which logs a new
    client in and seats it (or lets it watch); yields ``(server, arrive, clock)``."""
    clock = FakeClock()
    clients: list[TelnetClient] = []
    async with running_server(tmp_path, clock=clock,
                              output={"congestion_bytes": CONGESTION, "resume_bytes": RESUME,
                                      "backlog_bytes": HARD_CAP, "drain_timeout": 30.0},
                              login={"failure_delay": 0},
                              input={"rate_burst_bytes": 1 << 20,
                                     "rate_bytes_per_second": 1 << 20}) as server:
        async def arrive(handle: str, watch: bool = False) -> TelnetClient:
            c = await TelnetClient.connect(server.port, rcvbuf=4096)
            clients.append(c)
            await c.login(handle, "pw-" + handle)
            if watch:
                await c.send("p")
                await c.wait_for("[W] Watch")
                await c.send("w")
                await c.wait_for("[X] Exit the game")
            else:
                names = server.app.tables["poker"].service.table.handles
                await join(c, ", ".join(names) if names else "Nobody")
            # A small send buffer on the server's side too: a stalled link fills quickly.
            sock = server.app.find_online(handle)._writer.transport.get_extra_info("socket")
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
            return c

        yield server, arrive, clock
        for c in clients:
            await c.close()


def spy_unsent(session) -> dict[str, int | bool]:
    """Record the most output the server held for ``session`` after any write, and whether
    it ever was congested: ``{"peak": bytes, "congested": bool}``."""
    seen: dict[str, int | bool] = {"peak": 0, "congested": False}
    write = session.write

    def spying(text: str) -> None:
        write(text)
        seen["peak"] = max(seen["peak"], session.unsent)
        seen["congested"] = seen["congested"] or session.congested

    session.write = spying
    return seen


async def flood(chatters: list[TelnetClient], rounds: int) -> str:
    """Every chatter sends three chat lines in one packet, ``rounds`` times (the issue's
    attack had 85 lines in a packet, but the type-ahead now drops what passes 256 keys);
    returns the text of the last line, once the first chatter has it on screen."""
    last = ""
    noise = random.Random(rounds)   # lines that share no cells: each costs its bytes
    for r in range(rounds):
        for n, c in enumerate(chatters):
            lines = [f"r{r:02d} p{n} l{i} {noise.randbytes(24).hex()}" for i in range(3)]
            await c.send("".join(f".{line}\r" for line in lines))
            last = lines[-1]
        await chatters[0].wait_for(last)
    return last


async def test_a_stalled_viewer_keeps_the_seat_and_gets_the_current_screen(world):
    server, arrive, _ = world
    service = server.app.tables["poker"].service
    alice, bob, carol, dave, eve = [await arrive(h)
                                    for h in ("alice", "bob", "carol", "dave", "eve")]
    sam, tom = await arrive("sam", watch=True), await arrive("tom", watch=True)
    await alice.send("s")
    await eve.wait_for("The game is now STARTED (initial pot is 50)")
    # eve (seated, in the game) and sam (watching) stop reading: their links stall.
    slow = {h: server.app.find_online(h) for h in ("eve", "sam")}
    seen = {h: spy_unsent(s) for h, s in slow.items()}
    eve.pause_reading()
    sam.pause_reading()
    received = len(tom.received)
    last = await flood([alice, bob, carol, dave], rounds=150)
    await bet(alice, "25")
    for c in (bob, carol, dave):
        await bet(c)
    await alice.wait_for("dave has called the bet (25), pot is 150.")
    assert len(tom.received) - received > 8 * CONGESTION   # far more than the bound
    # Nobody was cut off, eve keeps her seat and her turn, and the server held a bounded
    # amount of output for the stalled viewers (the flood went far past the bound).
    for handle, session in slow.items():
        assert not session.closed, handle
        assert seen[handle]["congested"], handle
        assert seen[handle]["peak"] <= CONGESTION + ONE_SCREEN, (handle, seen[handle])
    assert "eve" in service.table.handles and service.snapshot.current == "eve"
    assert "eve has lost the connection" not in alice.text
    # The links come back: one repaint shows the table as it is now.
    eve.resume_reading()
    sam.resume_reading()
    await eve.wait_for("[B] Place bet")
    await wait_until(lambda: eve.display[13:23] == alice.display[13:23])
    assert info(eve, "Pot") == "150" and info(eve, "Current") == "eve"
    assert my_cards(eve) == [str(card) for card in sorted(service.cards_of("eve"))]
    assert last in eve.text
    # A spectator who stalled sees exactly what one who kept reading sees (but the
    # status line, which shows each one's handle).
    await wait_until(lambda: [r for i, r in enumerate(sam.display) if i != 12]
                     == [r for i, r in enumerate(tom.display) if i != 12])
    assert info(sam, "Pot") == "150"
    # eve plays on; her bet reaches everyone.
    await bet(eve)
    for c in (alice, sam, tom):
        await c.wait_for("eve has called the bet (25), pot is 175.")
    assert server.app.ledger.balance("eve") == 1000 - 10 - 25
    assert all(not s.congested for s in slow.values())


async def test_screens_that_fall_behind_the_table_start_again_from_its_state(world):
    """More table messages than a screen's queue holds, in one event-loop turn (chat lines
    of many people at once): every screen skips to the table's state, nobody is cut off."""
    server, arrive, _ = world
    service = server.app.tables["poker"].service
    alice, bob = await arrive("alice"), await arrive("bob")
    sam = await arrive("sam", watch=True)
    for n in range(300):                   # one turn: no screen takes anything meanwhile
        service.chat("bob", f"burst {n}")
    for c in (alice, bob, sam):
        await c.wait_for("You fell behind the table: some messages were skipped.")
    assert all(server.app.find_online(h) is not None for h in ("alice", "bob", "sam"))
    await bob.send(".after the burst\r")
    for c in (alice, bob, sam):
        await c.wait_for("[bob] after the burst")
    await alice.send("s")                  # the game goes on
    await sam.wait_for("The game is now STARTED (initial pot is 20)")
    assert info(sam, "Round") == "1"


async def test_a_viewer_that_takes_nothing_for_the_drain_timeout_is_cut_off(world, monkeypatch):
    """The stall rule runs on the session's clock: a link that takes no byte for
    ``drain_timeout`` seconds is cut off, one that drains a little in between is not."""
    monkeypatch.setattr(session_module, "STALL_POLL", 0.02)   # look often (real seconds)
    server, arrive, clock = world
    alice, eve = await arrive("alice"), await arrive("eve")
    session = server.app.find_online("eve")
    eve.pause_reading()
    await flood([alice], rounds=80)
    await wait_until(lambda: session.congested)
    clock.advance(20)
    await asyncio.sleep(0.1)               # several looks at the socket: 20 s < 30 s
    assert not session.closed
    eve.resume_reading()                   # the link takes its bytes: not stalled
    await wait_until(lambda: not session.congested)
    eve.pause_reading()
    await flood([alice], rounds=80)
    await wait_until(lambda: session.congested)
    clock.advance(20)                      # 40 s since the first stall, 20 s since the last byte
    await asyncio.sleep(0.1)
    assert not session.closed
    clock.advance(11)                      # 31 s without a byte taken
    await alice.wait_for("eve has lost the connection.", timeout=5)
    assert session.closed
    assert "eve" not in server.app.tables["poker"].service.table.handles


async def test_a_stalled_viewer_at_a_hold_em_table_is_repainted_not_cut_off(tmp_path):
    """The same at a Hold'em table (its screen draws rows, not regions): a spectator whose
    link stalls while two players chat past the output bound keeps the connection, the
    server holds a bounded amount for it, and once it reads again it gets the table as it
    is now."""
    clock = FakeClock()
    rules = {"small_bet": 10, "buy_in_min": 50, "buy_in_max": 1000, "between_hands": 5.0}
    async with running_server(tmp_path, clock=clock,
                              tables=[("holdem", "Hold'em", "holdem", rules)],
                              output={"congestion_bytes": CONGESTION, "resume_bytes": RESUME,
                                      "backlog_bytes": HARD_CAP, "drain_timeout": 30.0},
                              login={"failure_delay": 0},
                              input={"rate_burst_bytes": 1 << 20,
                                     "rate_bytes_per_second": 1 << 20}) as server:
        clients = []
        for handle in ("alice", "bob", "sam"):
            c = await TelnetClient.connect(server.port, rcvbuf=4096)
            clients.append(c)
            await c.login(handle, "pw-" + handle)
            await c.send("p")
            await c.wait_for("Join the table? (y/n)")
            if handle == "sam":
                await c.send("w")
            else:
                await c.send("y")
                await c.wait_for("Buy in with how many CUBES")
                await c.send("\r")
            await c.wait_for("[X] leave the table")
            sock = server.app.find_online(handle)._writer.transport.get_extra_info("socket")
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
        alice, bob, sam = clients
        session = server.app.find_online("sam")
        seen = spy_unsent(session)
        sam.pause_reading()
        received = len(alice.received)
        last = await flood([alice, bob], rounds=120)
        assert len(alice.received) - received > 8 * CONGESTION   # far more than the bound
        assert not session.closed
        assert seen["congested"]
        assert seen["peak"] <= CONGESTION + ONE_SCREEN, seen
        sam.resume_reading()
        await sam.wait_for(last)
        await wait_until(lambda: sam.display[14:23] == alice.display[14:23])
        assert not session.congested
        for c in clients:
            await c.close()
