"""Presence across gateways over a real NATS server (bbspoker.cluster.presence): each
gateway's users appear on the others as soon as it announces them; a gateway that stops
vanishes at once, one that falls silent after three intervals; X-messages and session
ends reach the gateway holding the user; bad bytes are answered and change nothing."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import msgspec
import pytest
from nats.aio.msg import Msg

from bbspoker.cluster.presence import (EXPIRY, Announce, Present, Presence, XMessageRequest,
                                       announce_subject, request_subject)
from bbspoker.table.remote import Link
from tests.support.nats import Nats, start_nats
from tests.support.telnetclient import FakeClock, wait_until

#: Real seconds between two periodic announcements: longer than any test, so what is
#: announced here is announced by start, changed(), a newcomer, a reconnection or stop.
INTERVAL = 60.0
FAST = {"reconnect_time_wait": 0.05, "connect_timeout": 1}


@dataclass
class Gateway:
    """One gateway's presence, its users (``local()``), its own clock, and the X-messages
    and session ends its handlers took."""

    presence: Presence
    link: Link
    clock: FakeClock
    users: dict[str, Present] = field(default_factory=dict)
    xmessages: list[tuple[str, str, str, float, str | None]] = field(default_factory=list)
    ended: list[tuple[str, str]] = field(default_factory=list)

    def login(self, handle: str, activity: str = "lobby", where: str | None = None,
              language: str = "en", inbox_room: bool = True) -> None:
        self.users[handle.lower()] = Present(handle, activity, where, language, "", inbox_room)
        self.presence.changed()

    def logout(self, handle: str) -> None:
        del self.users[handle.lower()]
        self.presence.changed()


@dataclass
class Cluster:
    url: str
    made: list[Gateway] = field(default_factory=list)

    async def gateway(self, name: str, *, listen_only: bool = False, timeout: float = 2.0
                      ) -> Gateway:
        link = await Link.connect(self.url, name=name, **FAST)
        clock = FakeClock()
        users: dict[str, Present] = {}
        presence = Presence(link, name, interval=INTERVAL, local=lambda: list(users.values()),
                            clock=clock, timeout=timeout, listen_only=listen_only)
        gw = Gateway(presence, link, clock, users)

        def deliver(handle: str, sender: str, text: str, sent_at: float,
                    notice: str | None) -> bool:
            gw.xmessages.append((handle, sender, text, sent_at, notice))
            return handle.lower() in gw.users

        async def end(handle: str, message: str) -> bool:
            gw.ended.append((handle, message))
            if handle.lower() not in gw.users:
                return False
            gw.logout(handle)
            return True

        presence.on_xmessage = deliver
        presence.on_end = end
        await presence.start()
        self.made.append(gw)
        return gw


@pytest.fixture
async def cluster(nats_server: Nats) -> AsyncIterator[Cluster]:
    c = Cluster(nats_server.url)
    yield c
    for gw in c.made:
        await gw.presence.stop()
        await gw.link.nc.close()


def handles(presents: list[Present]) -> list[str]:
    return [p.handle for p in presents]


async def _ask(link: Link, subject: str, data: bytes) -> object:
    """A raw request's decoded answer (no answer within 2 s fails the test)."""
    reply = await link.nc.request(subject, data, timeout=2.0)
    return msgspec.msgpack.decode(reply.data)


async def test_a_gateways_users_appear_on_the_others_as_it_announces_them(
        cluster: Cluster) -> None:
    a, b, c = [await cluster.gateway(n) for n in ("gw-a", "gw.b", "gw-c")]
    a.login("Zoe", "table", "Holdem 1", "de")
    c.login("bob")
    a.login("alice", inbox_room=False)
    await wait_until(lambda: handles(b.presence.others()) == ["alice", "bob", "Zoe"])
    assert b.presence.find("ZOE") == Present("Zoe", "table", "Holdem 1", "de", "gw-a", True)
    assert b.presence.find("Alice") == Present("alice", "lobby", None, "en", "gw-a", False)
    assert b.presence.find("bob") is not None and b.presence.find("bob").gateway == "gw-c"
    await wait_until(lambda: handles(c.presence.others()) == ["alice", "Zoe"])
    # A gateway's own users are not among its others.
    assert handles(a.presence.others()) == ["bob"] and a.presence.find("alice") is None
    a.logout("zoe")
    await wait_until(lambda: b.presence.find("zoe") is None)
    assert handles(b.presence.others()) == ["alice", "bob"]


async def test_many_changes_in_one_turn_give_one_announcement(cluster: Cluster) -> None:
    a = await cluster.gateway("gw-a")
    b = await cluster.gateway("gw-b")
    seen: list[Announce] = []

    async def tap(msg: Msg) -> None:
        seen.append(msgspec.msgpack.decode(msg.data, type=Announce))

    sub = await a.link.nc.subscribe(announce_subject("gw-a"), cb=tap)
    await a.link.nc.flush()
    for name in ("alice", "bob", "carol", "dave"):
        a.login(name)
    await wait_until(lambda: b.presence.find("dave") is not None)
    await a.link.nc.flush()         # whatever a sent by now has come back to the tap
    # (a's empty announcements, its answer to the newcomer b, may come too.)
    assert [[p.handle for p in x.users] for x in seen if x.users] == [
        ["alice", "bob", "carol", "dave"]]
    await sub.unsubscribe()


async def test_a_newcomer_hears_every_gateway_at_once(cluster: Cluster) -> None:
    a = await cluster.gateway("gw-a")
    a.login("alice")
    await a.link.nc.flush()
    b = await cluster.gateway("gw-b")       # a's periodic announcement is a minute away
    await wait_until(lambda: b.presence.find("alice") is not None)


async def test_a_gateway_that_stops_vanishes_at_once(cluster: Cluster) -> None:
    a, b = await cluster.gateway("gw-a"), await cluster.gateway("gw-b")
    a.login("alice")
    await wait_until(lambda: b.presence.find("alice") is not None)
    await a.presence.stop()
    await wait_until(lambda: b.presence.others() == [])


async def test_a_silent_gateway_is_forgotten_after_three_intervals(cluster: Cluster) -> None:
    a, b = await cluster.gateway("gw-a"), await cluster.gateway("gw-b")
    a.login("alice")
    await wait_until(lambda: b.presence.find("alice") is not None)
    await a.link.nc.close()                 # gone without a word
    b.clock.advance(EXPIRY * INTERVAL - 0.1)
    assert handles(b.presence.others()) == ["alice"]
    b.clock.advance(0.1)
    assert b.presence.others() == [] and b.presence.find("alice") is None


async def test_online_is_none_until_three_intervals_then_everyone_anywhere(
        cluster: Cluster) -> None:
    worker = await cluster.gateway("worker-1", listen_only=True)
    a, b = await cluster.gateway("gw-a"), await cluster.gateway("gw-b")
    a.login("Alice")
    b.login("bob")
    await wait_until(lambda: len(worker.presence.others()) == 2
                     and b.presence.find("alice") is not None)
    assert worker.presence.online() is None
    worker.clock.advance(EXPIRY * INTERVAL - 0.1)
    assert worker.presence.online() is None
    worker.clock.advance(0.1)
    # The others' last announcements are as old as that now: theirs come every interval.
    a.presence.changed()
    b.presence.changed()
    await wait_until(lambda: worker.presence.online() == {"alice", "bob"})
    b.clock.advance(EXPIRY * INTERVAL)
    a.presence.changed()
    await wait_until(lambda: b.presence.find("alice") is not None)
    assert b.presence.online() == {"alice", "bob"}      # its own user and the other's
    assert worker.presence.published == 0               # a worker only listens


async def test_after_a_reconnect_a_gateway_announces_at_once_and_online_waits_again() -> None:
    try:
        server = start_nats()
    except Exception as exc:          # the fixture's rule: no server here, no test
        pytest.skip(f"no NATS server: {exc}")
    c = Cluster(server.url)
    try:
        a, b = await c.gateway("gw-a"), await c.gateway("gw-b")
        a.login("alice")
        await wait_until(lambda: b.presence.find("alice") is not None)
        a.clock.advance(EXPIRY * INTERVAL)
        assert a.presence.online() == {"alice"}
        # What b has heard when its connection drops, and a back (its presence's own
        # listener runs before this one).
        dropped: list[int] = []
        b.link.on_disconnect(lambda: dropped.append(b.presence.received["announce"]))
        back = asyncio.Event()
        a.link.on_reconnect(back.set)
        server.restart()
        await wait_until(lambda: bool(dropped) and back.is_set()
                         and b.presence.received["announce"] > dropped[0])
        assert b.presence.find("alice") is not None
        assert a.presence.online() is None          # it may have missed announcements
        a.clock.advance(EXPIRY * INTERVAL)
        assert a.presence.online() == {"alice"}
    finally:
        for gw in c.made:
            await gw.presence.stop()
            await gw.link.nc.close()
        server.stop()


async def test_an_x_message_reaches_the_gateway_holding_the_user(cluster: Cluster) -> None:
    a, b, c = [await cluster.gateway(n) for n in ("gw-a", "gw-b", "gw-c")]
    a.login("Alice")
    await wait_until(lambda: c.presence.find("alice") is not None)
    assert await c.presence.send_xmessage("ALICE", "carol", "hello there", 1234.5)
    assert await c.presence.send_xmessage("alice", "SYSOP", "", 1235.0, "time_warning")
    assert a.xmessages == [("Alice", "carol", "hello there", 1234.5, None),
                           ("Alice", "SYSOP", "", 1235.0, "time_warning")]
    assert b.xmessages == [] and c.xmessages == []


async def test_an_x_message_nobody_takes_is_false(cluster: Cluster) -> None:
    a, b = await cluster.gateway("gw-a"), await cluster.gateway("gw-b")
    a.login("alice")
    a.login("bob")
    await wait_until(lambda: b.presence.find("bob") is not None)
    assert not await b.presence.send_xmessage("nobody", "carol", "hi", 1.0)
    # a's handler says False: bob logged out there and a has not announced it yet.
    del a.users["bob"]
    assert not await b.presence.send_xmessage("bob", "carol", "hi", 1.0)
    assert a.xmessages == [("bob", "carol", "hi", 1.0, None)]
    a.presence.on_xmessage = None
    assert not await b.presence.send_xmessage("alice", "carol", "hi", 1.0)


async def test_a_failing_handler_is_logged_and_answered_false(
        cluster: Cluster, caplog: pytest.LogCaptureFixture) -> None:
    a, b = await cluster.gateway("gw-a"), await cluster.gateway("gw-b")
    a.login("alice")
    await wait_until(lambda: b.presence.find("alice") is not None)

    def broken(*_: object) -> bool:
        raise RuntimeError("inbox on fire")

    a.presence.on_xmessage = broken
    with caplog.at_level(logging.ERROR, "bbspoker.cluster.presence"):
        assert not await b.presence.send_xmessage("alice", "bob", "hi", 1.0)
        # An answer, not a silence the sender waits out.
        assert await _ask(b.link, request_subject("gw-a", "xmessage"), msgspec.msgpack.encode(
            XMessageRequest("alice", "bob", "hi", 1.0))) is False
    assert any(r.exc_info and "inbox on fire" in str(r.exc_info[1]) for r in caplog.records)


async def test_an_x_message_to_a_dead_or_mute_holder_is_false(cluster: Cluster) -> None:
    a = await cluster.gateway("gw-a")
    b = await cluster.gateway("gw-b", timeout=0.1)
    a.login("alice")
    a.login("bob")
    await wait_until(lambda: b.presence.find("bob") is not None)
    forever = asyncio.Event()

    async def mute(*_: object) -> bool:
        await forever.wait()
        return True

    a.presence.on_xmessage = mute
    assert not await b.presence.send_xmessage("alice", "carol", "hi", 1.0)      # no answer
    await a.link.nc.close()                 # dead, and b has not forgotten it yet
    assert b.presence.find("bob") is not None
    assert not await b.presence.send_xmessage("bob", "carol", "hi", 1.0)


async def test_end_session_reaches_the_holder_and_wait_gone_sees_the_user_go(
        cluster: Cluster) -> None:
    a, b = await cluster.gateway("gw-a"), await cluster.gateway("gw-b")
    a.login("Alice")
    await wait_until(lambda: b.presence.find("alice") is not None)
    assert not await b.presence.wait_gone("alice", 0.05)       # still there
    assert await b.presence.end_session("ALICE", "You logged in elsewhere.")
    assert a.ended == [("Alice", "You logged in elsewhere.")]
    assert await b.presence.wait_gone("alice", 2.0)
    assert b.presence.find("alice") is None
    assert not await b.presence.end_session("alice", "again")  # nobody holds her now
    assert await b.presence.wait_gone("alice", 0.0)


async def test_wait_gone_sees_a_silent_holder_forgotten(cluster: Cluster) -> None:
    a, b = await cluster.gateway("gw-a"), await cluster.gateway("gw-b")
    a.login("alice")
    await wait_until(lambda: b.presence.find("alice") is not None)
    await a.link.nc.close()
    waiting = asyncio.create_task(b.presence.wait_gone("alice", 5.0))
    await asyncio.sleep(0)
    b.clock.advance(EXPIRY * INTERVAL)
    # Any announcement wakes it (a real clock would have it wake when a expires).
    await b.link.nc.publish(announce_subject("gw-c"), msgspec.msgpack.encode(
        Announce("gw-c", INTERVAL, [])))
    assert await asyncio.wait_for(waiting, 2.0)


async def test_bad_bytes_are_answered_false_and_change_nothing(
        cluster: Cluster, caplog: pytest.LogCaptureFixture) -> None:
    a, b = await cluster.gateway("gw-a"), await cluster.gateway("gw-b")
    a.login("alice")
    await wait_until(lambda: b.presence.find("alice") is not None)
    with caplog.at_level(logging.WARNING, "bbspoker.cluster.presence"):
        for what in ("xmessage", "end"):
            for data in (b"", b"\xc1garbage", msgspec.msgpack.encode({"handle": 3}),
                         msgspec.msgpack.encode(["alice"])):
                assert await _ask(b.link, request_subject("gw-a", what), data) is False
        # Announcements that are none, or that name another gateway than their subject.
        nc = b.link.nc
        await nc.publish(announce_subject("gw-x"), b"\x00\x01")
        await nc.publish(announce_subject("gw-x"), msgspec.msgpack.encode(
            Announce("gw-a", INTERVAL, [], leaving=True)))
        await nc.publish(announce_subject("gw-x"), msgspec.msgpack.encode(
            {"gateway": "gw-x", "interval": -1, "users": []}))
        await nc.flush()
        await wait_until(lambda: a.presence.received["bad"] == 8 + 3
                         and b.presence.received["bad"] == 3)
    assert a.xmessages == [] and a.ended == []
    assert "bad xmessage request" in caplog.text
    assert b.presence.find("alice") is not None
    assert await b.presence.send_xmessage("alice", "bob", "still here?", 2.0)
    a.login("carol")
    await wait_until(lambda: b.presence.find("carol") is not None)


async def test_a_failing_local_is_logged_and_announcing_goes_on(
        cluster: Cluster, caplog: pytest.LogCaptureFixture) -> None:
    a, b = await cluster.gateway("gw-a"), await cluster.gateway("gw-b")
    good = a.presence.local
    calls = 0

    def flaky() -> list[Present]:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise RuntimeError("sessions table locked")
        return good()

    a.presence.local = flaky
    with caplog.at_level(logging.ERROR, "bbspoker.cluster.presence"):
        a.login("alice")
        await wait_until(lambda: calls >= 1)
    assert "announcing failed" in caplog.text
    a.login("bob")
    await wait_until(lambda: handles(b.presence.others()) == ["alice", "bob"])


def test_a_present_is_frozen_and_its_handle_not_empty() -> None:
    alice = Present("alice", "lobby", None, "fr", "gw-a", True)
    with pytest.raises(AttributeError):
        alice.handle = "bob"  # type: ignore[misc]
    with pytest.raises(msgspec.ValidationError):
        msgspec.msgpack.decode(msgspec.msgpack.encode(
            Present("", "lobby", None, "fr", "gw-a", True)), type=Present)
    with pytest.raises(ValueError):
        Presence(Link(), "gw", interval=0)
    with pytest.raises(ValueError):
        Presence(Link(), "", interval=1.0)

