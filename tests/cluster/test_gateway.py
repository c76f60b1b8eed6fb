"""Gateways of the split deployment (bbspoker.cluster.gateway), in one process on a real
nats-server and PostgreSQL: two gateways with their own ledger connections and NATS
links, the tables served from a third connection as a worker serves them. Players on
different gateways play at one table, see each other in [W]ho, exchange X-messages; a
login takes a handle over from the other gateway; the sysop's kick ends a session on
whichever gateway holds it."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bbspoker.app import Server
from bbspoker.cluster.gateway import GatewayApp, start_gateway, stop_gateway
from bbspoker.store import open_ledger
from bbspoker.table.registry import TableRegistry
from bbspoker.table.remote import Link, TableHost
from tests.support.nats import Nats
from tests.support.tableplay import bet, join
from tests.support.telnetclient import TelnetClient, server_config, wait_until

FAST = {"reconnect_time_wait": 0.05, "connect_timeout": 1}


@dataclasses.dataclass
class Cluster:
    gateways: list[Server]
    registry: TableRegistry
    clients: list[TelnetClient] = dataclasses.field(default_factory=list)

    def app(self, n: int) -> GatewayApp:
        app = self.gateways[n].app
        assert isinstance(app, GatewayApp)
        return app

    async def client(self, n: int, handle: str) -> TelnetClient:
        """A player logged in on gateway ``n``."""
        c = await TelnetClient.connect(self.gateways[n].port)
        self.clients.append(c)
        await c.login(handle, "pw-" + handle)
        return c


@contextlib.asynccontextmanager
async def cluster(tmp_path: Path, postgres_url: str, nats: Nats, gateways: int = 2,
                  hosted: bool = True, **sections: Any) -> AsyncIterator[Cluster]:
    sections["cluster"] = {"nats": nats.url, "presence_interval": 0.2, "timeout": 2.0,
                           **sections.get("cluster", {})}
    config = server_config(tmp_path, ledger={"url": postgres_url}, **sections)
    stack = contextlib.AsyncExitStack()
    async with stack:
        # The tables, served as a worker serves them (a ledger connection and a NATS link
        # of their own).
        worker_ledger = open_ledger(config.ledger)
        stack.callback(worker_ledger.close)
        registry = TableRegistry(config.table_specs, worker_ledger,
                                 phrases=worker_ledger.client_seeds_of)
        registry.start()
        stack.push_async_callback(registry.wait_stopped)
        stack.callback(registry.stop)
        worker_link = await Link.connect(nats.url, **FAST)
        stack.push_async_callback(worker_link.close)
        for entry in registry if hosted else ():
            host = TableHost(worker_link, entry.service, entry.id)
            await host.start()
            stack.push_async_callback(host.stop)
        servers = []
        for n in range(gateways):
            ledger = open_ledger(config.ledger)
            stack.callback(ledger.close)
            link = await Link.connect(nats.url, **FAST)
            stack.push_async_callback(link.close)
            server = await start_gateway(config, ledger, link, name=f"gw{n}")
            stack.push_async_callback(stop_gateway, server)
            servers.append(server)
        world = Cluster(servers, registry)
        try:
            yield world
        finally:
            for c in world.clients:
                await c.close()


async def test_players_on_two_gateways_play_at_one_table_and_see_each_other(
        tmp_path: Path, postgres_url: str, nats_server: Nats) -> None:
    async with cluster(tmp_path, postgres_url, nats_server) as world:
        alice = await world.client(0, "alice")
        bob = await world.client(1, "bob")
        await wait_until(lambda: world.app(0).find_online("bob") is not None, 3.0)
        # [W]ho on alice's gateway lists bob, who is on the other one.
        await alice.send("w")
        await alice.wait_for("Who is online (2):")
        assert "bob               in the lobby" in alice.text
        await alice.send(" ")
        await alice.wait_for("[Q] Quit")
        # An X-message crosses gateways.
        await alice.send_x("BOB", "table one?\x1b[2J", "X-message sent to bob.")
        await bob.wait_for("*** X-message from alice: press [R] to read.")
        await bob.send("r")
        await bob.wait_for("From alice at")
        assert "table one?" in bob.text and b"one?\x1b" not in bob.received
        await bob.send(" ")
        await bob.wait_for("[Q] Quit")
        # Both at the table on the worker; a game with a bet, as everyone sees it.
        await join(alice, "Nobody")
        await join(bob, "alice")
        await alice.send("s")
        await bob.wait_for("The game is now STARTED (initial pot is 20)")
        await bet(alice, "25")
        await bob.wait_for("alice has raised the bet (25), pot is 45.")
        service = next(iter(world.registry)).service
        assert {s.handle for s in service.snapshot.seats} == {"alice", "bob"}
        assert world.app(1).ledger.balance("alice") == 965


async def test_a_login_on_one_gateway_takes_the_handle_over_from_the_other(
        tmp_path: Path, postgres_url: str, nats_server: Nats) -> None:
    async with cluster(tmp_path, postgres_url, nats_server) as world:
        first = await world.client(0, "alice")
        await wait_until(lambda: world.app(1).find_online("alice") is not None, 3.0)
        second = await TelnetClient.connect(world.gateways[1].port)
        world.clients.append(second)
        await second.take_over("alice", "pw-alice", first)
        await wait_until(lambda: world.app(0).find_online("alice") is not None
                         and world.app(0).presence.find("alice") is not None, 3.0)
        assert not world.app(0).online and list(world.app(1).online) == ["alice"]


async def test_the_sysops_kick_ends_the_session_on_whichever_gateway_holds_it(
        tmp_path: Path, postgres_url: str, nats_server: Nats) -> None:
    """Whichever gateway's watch takes the kick from the ledger first ends the session:
    here the one that does not hold it."""
    async with cluster(tmp_path, postgres_url, nats_server) as world:
        bob = await world.client(1, "bob")
        await join(bob, "Nobody")
        await wait_until(lambda: world.app(0).find_online("bob") is not None, 3.0)
        await world.app(0).remove_user("bob", "The sysop ended your session: {reason}",
                                       "flooding the chat")
        await bob.wait_for("The sysop ended your session: flooding the chat")
        service = next(iter(world.registry)).service
        await wait_until(lambda: not service.snapshot.seats, 3.0)
        await bob.wait_closed()
        await wait_until(lambda: world.app(0).find_online("bob") is None, 3.0)


async def test_a_table_no_worker_serves_is_said_so_in_the_players_words(
        tmp_path: Path, postgres_url: str, nats_server: Nats) -> None:
    """No worker serves the table (none started yet, or one taking it over): the lobby
    lists it empty and sitting down says, wrapped to the screen, to try again."""
    async with cluster(tmp_path, postgres_url, nats_server, gateways=1, hosted=False,
                       cluster={"timeout": 0.5}) as world:
        alice = await world.client(0, "alice")
        await alice.send("p")
        await alice.wait_for("Join the table? (y/n)")
        await alice.send("y")
        await alice.wait_for("Press any key.")
        said = " ".join(line.strip() for line in alice.text.splitlines())
        assert ("The table cannot be reached right now (it may be moving to another "
                "server); please try again in a moment. Press any key.") in said
        await alice.send(" ")
        await alice.wait_for("[Q] Quit")


@pytest.fixture(autouse=True)
def _no_long_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    """A take-over waits for the other gateway at most 2 s here."""
    monkeypatch.setattr("bbspoker.cluster.gateway.TAKE_OVER_WAIT", 2.0)
