"""A table served over a real NATS server (bbspoker.table.remote): a worker's TableHost and
gateways' RemoteTables, each on its own connection. Two players on two gateways play
Hold'em hands and see the same snapshots, each only their own cards; a spectator sees the
public state only; refusals come back as the same RuleError; bad bytes get a clear reply;
a NATS restart mid-hand and a host gone end in the current state or a clear error."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from nats.aio.msg import Msg

from bbspoker.rules import actions as act
from bbspoker.rules.events import RuleError
from bbspoker.rules.holdem.game import Holdem, HoldemRules
from bbspoker.rules.money import SYSTEM
from bbspoker.store.wallet import MemoryWallet
from bbspoker.table import codec
from bbspoker.table.bus import Bus
from bbspoker.table.commands import Done, Refused, Touch
from bbspoker.table.registry import TableWallet
from bbspoker.table.remote import (BAD_COMMAND, Link, RemoteTable, TableHost, TableUnreachable,
                                   cmd_subject, public_subject, seat_subject, subject_token)
from bbspoker.table.service import Hold, PrivateCards, TableService, TableSnapshot
from tests.support.nats import Nats, start_nats
from tests.support.telnetclient import FakeClock, wait_until

TABLE = "holdem.1"          # a dot: the table id is encoded into one subject token
FAST = {"reconnect_time_wait": 0.05, "connect_timeout": 1}


@dataclass
class World:
    """A Hold'em table (alice and bob with 1,000 CUBES, carol watching) served by a host on
    its own connection; ``remote(handle)`` opens a gateway of its own for one viewer."""

    url: str
    service: TableService
    host: TableHost
    clock: FakeClock
    links: list[Link] = field(default_factory=list)
    remotes: list[RemoteTable] = field(default_factory=list)
    #: Every snapshot the table published, by version.
    published: dict[int, TableSnapshot] = field(default_factory=dict)

    async def link(self) -> Link:
        link = await Link.connect(self.url, **FAST)
        self.links.append(link)
        return link

    async def remote(self, handle: str, timeout: float = 2.0
                     ) -> tuple[RemoteTable, list[Any]]:
        """A gateway's table and what a screen of ``handle`` is painted with: every item,
        taken as it comes (the screen's ``notify``)."""
        table = await RemoteTable.open(await self.link(), TABLE, timeout=timeout)
        self.remotes.append(table)
        seen: list[Any] = []
        sub = table.bus.subscribe(viewer=handle, notify=lambda: seen.extend(sub.drain()))
        await table.settle()
        return table, seen


@contextlib.asynccontextmanager
async def table_world(url: str) -> AsyncIterator[World]:
    wallet = MemoryWallet({"alice": 1000, "bob": 1000, "carol": 1000, SYSTEM: 0})
    game = Holdem(TableWallet(wallet, "holdem"), HoldemRules(buy_in_max=200, between_hands=0),
                  rng=random.Random(7))
    clock = FakeClock()
    service = TableService(game, Bus(), clock)
    task = asyncio.create_task(service.run())
    host_link = await Link.connect(url, **FAST)
    host = TableHost(host_link, service, TABLE)
    world = World(url, service, host, clock, [host_link])
    service.bus.tap(lambda item, _key, _viewer: world.published.__setitem__(item.version, item)
                    if isinstance(item, TableSnapshot) else None)
    await host.start()
    try:
        yield world
    finally:
        for table in world.remotes:
            await table.close()
        await host.stop()
        for link in world.links:
            await link.nc.close()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


@pytest.fixture
async def world(nats_server: Nats) -> AsyncIterator[World]:
    async with table_world(nats_server.url) as w:
        yield w


def caught_up(service: TableService, *tables: RemoteTable) -> bool:
    return all(t.snapshot.version == service.snapshot.version for t in tables)


async def play_hand(world: World, tables: dict[str, RemoteTable]) -> None:
    """The hand running plays to its end: whoever is in turn (as the gateways show it)
    checks or calls from their own gateway."""
    service = world.service
    first = service.table.game_id
    assert first is not None
    while service.table.game_id == first:
        await wait_until(lambda: caught_up(service, *tables.values()), 2.0)
        current = tables["alice"].snapshot.current
        assert current is not None and current == tables["bob"].snapshot.current
        await tables[current].call(current, act.CheckCall())


async def test_two_gateways_play_hold_em_hands_each_seeing_the_same_snapshots_and_own_cards(
        world: World) -> None:
    service = world.service
    alice, alice_sub = await world.remote("alice")
    bob, bob_sub = await world.remote("bob")
    carol, carol_sub = await world.remote("carol")
    carol.watch("carol")
    await alice.call("alice", act.Sit(buy_in=200))
    await bob.call("bob", act.Sit(buy_in=200))
    await wait_until(lambda: service.table.game_id is not None, 2.0)
    tables = {"alice": alice, "bob": bob}
    for _ in range(3):
        await play_hand(world, tables)
    await wait_until(lambda: caught_up(service, alice, bob, carol), 2.0)
    await wait_until(lambda: alice.cards_of("alice") == service.cards_of("alice")
                     and bob.cards_of("bob") == service.cards_of("bob"), 2.0)
    seen = {"alice": alice_sub, "bob": bob_sub, "carol": carol_sub}
    assert service.table.game_id is not None and len(service.cards_of("alice")) == 2
    # The same snapshots: each one a gateway shows is the one the table published.
    for name, items in seen.items():
        snaps = [i for i in items if isinstance(i, TableSnapshot)]
        assert len(snaps) > 10, name
        assert all(s == world.published[s.version] for s in snaps), name
        versions = [s.version for s in snaps]
        assert versions == sorted(versions), name        # never an older one after a newer
    assert alice.snapshot == bob.snapshot == carol.snapshot == service.snapshot
    assert carol.snapshot.watchers == 1
    # Each player's own cards, and nobody else's: not on the screen, not on the connection.
    for name in ("alice", "bob"):
        cards = [i for i in seen[name] if isinstance(i, PrivateCards)]
        assert len(cards) >= 3 and {c.handle for c in cards} == {name}
    assert not [i for i in seen["carol"] if isinstance(i, PrivateCards)]
    assert alice.cards_of("bob") == () and carol.cards_of("alice") == ()
    assert set(alice.received) == {"public", "reply", "seat.alice"}
    assert set(bob.received) == {"public", "reply", "seat.bob"}
    assert "seat.alice" not in carol.received and "seat.bob" not in carol.received
    assert world.host.sent["seat"] >= 6
    # The table's own recent lines reach a gateway that comes in now.
    late, _ = await world.remote("dave")
    assert late.recent() == service.recent() and late.recent()


async def test_a_refusal_comes_back_as_the_same_rule_error_and_the_table_plays_on(
        world: World) -> None:
    service = world.service
    alice, _ = await world.remote("alice")
    with pytest.raises(RuleError) as remote:
        await alice.call("alice", act.Sit(buy_in=5000))
    with pytest.raises(RuleError) as local:
        await service.call("alice", act.Sit(buy_in=5000))
    assert type(remote.value) is RuleError
    assert (remote.value.code, remote.value.params) == (local.value.code, local.value.params)
    assert remote.value.params                        # the figures its message needs
    await alice.call("alice", act.Sit(buy_in=200))
    with pytest.raises(RuleError) as turn:
        await alice.submit("alice", act.CheckCall())
    assert turn.value.code == "no_game"
    await wait_until(lambda: alice.snapshot.seat_of("alice") is not None, 2.0)


async def test_bytes_that_are_no_command_get_a_clear_refusal_and_break_nothing(
        world: World, caplog: pytest.LogCaptureFixture) -> None:
    link = await world.link()
    for data in (b"\xc1garbage", codec.encode(Done()), b""):
        reply = await link.nc.request(cmd_subject(TABLE), data, timeout=2)
        refused = codec.decode(reply.data)
        assert isinstance(refused, Refused) and refused.code == BAD_COMMAND
        assert refused.params["reason"]
    alice, _ = await world.remote("alice")
    await alice.call("alice", act.Sit(buy_in=200))
    assert world.service.table.handles == ["alice"]


async def test_an_older_snapshot_never_replaces_a_newer_one(world: World) -> None:
    alice, seen = await world.remote("alice")
    await alice.call("alice", act.Sit(buy_in=200))
    await alice.call("bob", act.Sit(buy_in=200))
    await wait_until(lambda: caught_up(world.service, alice), 2.0)
    newest = alice.snapshot
    older = world.published[min(world.published)]
    assert older.version < newest.version and older != newest
    seen.clear()
    headers = {"Bbs-Epoch": world.host.epoch, "Bbs-Seq": "1", "Bbs-Clock": "0.0"}
    late = Msg(alice.link.nc, public_subject(TABLE), "", codec.encode(older), headers)
    await alice._on_public(late)
    assert alice.snapshot is newest and seen == []
    # A new host of the table counts again from 1: its snapshots are taken.
    other = {**headers, "Bbs-Epoch": "another-host"}
    await alice._on_public(Msg(alice.link.nc, public_subject(TABLE), "", codec.encode(older),
                               other))
    assert alice.snapshot == older and seen == [older]


async def test_a_nats_restart_mid_hand_gives_both_gateways_the_current_state_and_play_goes_on(
        nats_server: Nats) -> None:
    server = start_nats()                   # a server of its own: this test restarts it
    try:
        async with table_world(server.url) as world:
            service = world.service
            alice, _ = await world.remote("alice")
            bob, _ = await world.remote("bob")
            await alice.call("alice", act.Sit(buy_in=200))
            await bob.call("bob", act.Sit(buy_in=200))
            await wait_until(lambda: service.table.game_id is not None, 2.0)
            await wait_until(lambda: caught_up(service, alice, bob), 2.0)
            server.stop_process()
            await wait_until(lambda: not alice.link.nc.is_connected
                             and not world.host.link.nc.is_connected, 5.0)
            current = service.snapshot.current
            assert current is not None
            with pytest.raises(TableUnreachable) as down:
                await {"alice": alice, "bob": bob}[current].call(current, act.CheckCall())
            assert down.value.reason == "disconnected" and down.value.code == "table_unreachable"
            await service.call(current, act.CheckCall())     # the table moves on meanwhile
            server.start()
            await wait_until(lambda: caught_up(service, alice, bob), 5.0)
            assert alice.snapshot == bob.snapshot == service.snapshot
            assert alice.cards_of("alice") == service.cards_of("alice")
            assert bob.cards_of("bob") == service.cards_of("bob")
            await play_hand(world, {"alice": alice, "bob": bob})
            await wait_until(lambda: caught_up(service, alice, bob), 2.0)
    finally:
        server.stop()


async def test_a_host_gone_or_mute_is_a_clear_error_not_a_hang(world: World) -> None:
    alice, _ = await world.remote("alice")
    await alice.call("alice", act.Sit(buy_in=200))
    await world.host.stop()
    with pytest.raises(TableUnreachable) as gone:
        await alice.call("alice", act.Leave())
    assert gone.value.reason == "no_host"
    alice.timeout = 0.3          # short from here on: only the calls meant to time out
    # Something takes the commands and never answers: the gateway's timeout.
    mute = await world.link()
    await mute.nc.subscribe(cmd_subject(TABLE))
    await mute.nc.flush()
    # (The server may take a moment to count the mute subscriber's interest for requests
    # from another connection: until then the answer is still "no responders".)
    reasons = []
    while "timeout" not in reasons and len(reasons) < 5:
        with pytest.raises(TableUnreachable) as silent:
            await alice.call("alice", act.Leave())
        reasons.append(silent.value.reason)
    assert reasons[-1] == "timeout" and set(reasons) <= {"no_host", "timeout"}
    with pytest.raises(TableUnreachable):
        await RemoteTable.open(world.links[0], "nobody-serves-this", timeout=0.3)


def test_each_name_is_one_subject_token_and_no_two_names_share_one() -> None:
    names = ["alice", "Alice".lower(), "a.b", "a_2eb", "*", ">", "a b", "ünï", "a-b", "a_b"]
    tokens = [subject_token(n) for n in names]
    assert len(set(tokens)) == len(set(names))
    for token in tokens:
        assert token and not set(token) & set(".*> \t\r\n") and token.isascii()
    assert seat_subject("t", "Bob") == seat_subject("t", "bob") == "bbspoker.table.t.seat.bob"
    assert seat_subject("t", "a.b") == "bbspoker.table.t.seat.a_2eb"
    with pytest.raises(ValueError):
        subject_token("")


async def test_a_seat_subject_is_followed_while_its_viewer_has_a_subscription(
        world: World) -> None:
    alice, _ = await world.remote("alice")
    sub = alice.bus._subscribers[0]
    second = alice.bus.subscribe(viewer="alice")
    await alice.settle()
    subjects = {s.subject for s in alice.link.nc._subs.values()}
    assert seat_subject(TABLE, "alice") in subjects
    sub.close()
    await alice.settle()
    assert seat_subject(TABLE, "alice") in {s.subject for s in alice.link.nc._subs.values()}
    second.close()
    await alice.settle()
    assert seat_subject(TABLE, "alice") not in {s.subject for s in alice.link.nc._subs.values()}


async def test_a_command_that_fails_in_the_table_is_logged_with_its_traceback_and_refused(
        world: World, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    alice, _ = await world.remote("alice")

    def broken(handle: str) -> None:
        raise ValueError("a bug in the table")

    monkeypatch.setattr(world.service, "touch", broken)
    reply = await alice.link.nc.request(cmd_subject(TABLE), codec.encode(Touch("alice")), timeout=2)
    assert codec.decode(reply.data) == Refused("failed")
    failed = [r for r in caplog.records if r.name == "bbspoker.table.remote" and r.exc_info]
    assert failed and "a bug in the table" in str(failed[0].exc_info[1])
    await alice.call("alice", act.Sit(buy_in=200))          # the host serves on
    assert world.service.table.handles == ["alice"]


async def test_a_gateway_follows_a_table_before_any_worker_serves_it_and_when_it_moves(
        nats_server: Nats) -> None:
    """A gateway starts before the workers: its tables show empty (nobody seated, no
    game) until a host serves them, then the host's state at once; when another host
    takes the table over, the gateway tells it its spectators and the screens up (their
    seats held by the new host are taken back), and the door's lookups (held seat, where
    a handle sits) read the new host's snapshots."""
    from bbspoker.config import TableSpec, load_config
    from bbspoker.table.remote import RemoteTables
    from bbspoker.table.service import Hold
    spec = TableSpec(TABLE, "Holdem", "holdem", load_config(None).table)
    gateway = await Link.connect(nats_server.url, **FAST)
    tables = await RemoteTables.follow(gateway, [spec], timeout=1.0, retry=0.05)
    entry = tables[TABLE]
    remote = entry.service
    try:
        assert len(tables) == 1 and tables.by_number(1) is entry
        assert remote.snapshot.version == 0 and remote.snapshot.seats == ()
        assert tables.seat_of("alice") is None and tables.held_seat("alice") is None
        with pytest.raises(TableUnreachable):
            await remote.call("alice", act.Sit(buy_in=200))
        seen: list[Any] = []
        sub = remote.bus.subscribe(viewer="alice", notify=lambda: seen.extend(sub.drain()))
        async with table_world(nats_server.url) as first:
            await wait_until(lambda: remote.snapshot.version > 0, 2.0)
            await remote.call("alice", act.Sit(buy_in=200))
            await first.service.call("bob", act.Sit(buy_in=200))
            await wait_until(lambda: len(remote.cards_of("alice")) == 2, 2.0)
            remote.attach("alice")
            remote.watch("carol")
            await wait_until(lambda: first.service.snapshot.watchers == 1
                             and remote.snapshot.watchers == 1, 2.0)
            assert tables.seat_of("ALICE") is entry
        # The first host is gone; a second takes the table over, holding alice's seat.
        async with table_world(nats_server.url) as second:
            second.service.reconnect_grace = 60.0
            await second.service.call("alice", act.Sit(buy_in=200))
            await second.service.call("alice", Hold())
            assert second.service.held("alice")
            await wait_until(lambda: second.service.snapshot.watchers == 1, 2.0)
            await wait_until(lambda: not second.service.held("alice"), 2.0)
            await wait_until(lambda: remote.snapshot == second.service.snapshot, 2.0)
            assert tables.seat_of("alice") is entry and tables.held_seat("alice") is None
            # The former game's cards are gone from alice's screen too.
            await wait_until(lambda: remote.cards_of("alice") == (), 2.0)
            assert [i.cards for i in seen if isinstance(i, PrivateCards)][-1] == ()
    finally:
        await tables.close()
        await gateway.nc.close()


async def test_a_seat_held_while_its_screen_is_up_here_is_taken_back(world: World) -> None:
    """The table held the seat of a player whose screen is up on this gateway (its worker
    missed the gateway's presence for a while and dropped the player's screens): the
    gateway tells the table of its screen again and takes the seat back, once; a seat
    held after the screen here closed (a connection that dropped) stays held."""
    service = world.service
    service.reconnect_grace = 600.0
    alice, _ = await world.remote("alice")
    await alice.call("alice", act.Sit(buy_in=200))
    alice.attach("alice")
    await wait_until(lambda: service.attached == {"alice"}, 2.0)
    await service.screens_lost("alice")
    await wait_until(lambda: service.attached == {"alice"} and not service.held("alice"), 2.0)
    # The screen here closes and the connection's hold stays.
    alice.detach("alice")
    await alice.call("alice", Hold())
    await wait_until(lambda: alice.snapshot == service.snapshot, 2.0)
    assert service.held("alice") and not service.attached
