"""The table's wire format (bbspoker.table.codec): every snapshot, private view, message
and action of random games of every kind, cash and tournament tables, comes back from
its bytes equal and of the same type; the computer players play those games from the
decoded copies and through decoded commands; what is not on the wire is refused with
one clear exception."""

from __future__ import annotations

import asyncio
import dataclasses
import random
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from bbspoker.bots.kinds import bot_kind
from bbspoker.bots.player import BotPlayer
from bbspoker.rules import actions as act
from bbspoker.rules.base import KindSpec
from bbspoker.rules.events import Event, RuleError
from bbspoker.rules.kinds import KINDS
from bbspoker.rules.money import SYSTEM
from bbspoker.store.wallet import MemoryWallet
from bbspoker.table import codec, commands
from bbspoker.table.bus import Bus
from bbspoker.table.registry import TableWallet
from bbspoker.table.service import (ChatMessage, Direct, Hold, PrivateCards, Return,
                                    TableMessage, TableService, TableSnapshot, WantSeat)
from tests.support.telnetclient import FakeClock

HANDLES = ("ann", "bob", "cy", "dee", "eve", "fay", "gus", "hal", "ivy")


def same(x: object) -> object:
    """``x`` through the wire; fails unless it is equal and of the same type, and so is
    everything in it (the reprs, which name each value's type, are the same: a card is
    not its int, a tuple not a list, a full house names its pair)."""
    y = codec.decode(codec.encode(x))
    assert type(y) is type(x), (type(x), type(y))
    assert y == x, (x, y)
    assert _typed(y) == _typed(x), (x, y)
    return y


def _typed(x: object) -> object:
    """``x`` as nested tuples of each value's type and contents (a set's in a fixed order),
    and a value's repr beyond that (a hand's value names the ranks its int leaves out)."""
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return (type(x), tuple(_typed(getattr(x, f.name)) for f in dataclasses.fields(x)
                                if f.compare))
    if isinstance(x, (tuple, list)):
        return (type(x), tuple(_typed(v) for v in x))
    if isinstance(x, (set, frozenset)):
        return (type(x), tuple(sorted((_typed(v) for v in x), key=repr)))
    if isinstance(x, dict):
        return (type(x), tuple(sorted(((_typed(k), _typed(v)) for k, v in x.items()),
                                      key=repr)))
    return (type(x), repr(x))


class WireBus(Bus):
    """A bus that sends every item through the wire and hands the decoded copy on (each
    checked equal and counted by type): the screens and bots of the table read only
    what came back from bytes."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: dict[str, int] = {}
        #: What did not come back (the table's step logs the exception and goes on).
        self.failures: list[str] = []

    def _wire(self, item: Any) -> Any:
        self.seen[type(item).__name__] = self.seen.get(type(item).__name__, 0) + 1
        if isinstance(item, TableMessage):
            self.seen["event:" + item.kind] = self.seen.get("event:" + item.kind, 0) + 1
        try:
            copy = same(item)
            if isinstance(item, TableSnapshot):
                assert isinstance(copy, TableSnapshot) and copy.by_handle == item.by_handle
        except (AssertionError, codec.CodecError) as err:
            self.failures.append(f"{item!r}: {err!r}")
            raise
        return copy

    def publish(self, item: Any, key: Any = None) -> None:
        super().publish(self._wire(item), key)

    def publish_to(self, viewer: str, item: Any, key: Any = None) -> None:
        super().publish_to(viewer, self._wire(item), key)


class WireService(TableService):
    """A table service whose every action arrives as a decoded :class:`commands.Act`."""

    actions: dict[str, int]

    def submit(self, handle: str | None, action: act.Action,
               turn: tuple[str | None, float | None] | None = None) -> asyncio.Future[None]:
        if isinstance(action, Direct):           # the director's, in-process only
            return super().submit(handle, action, turn)
        cmd = same(commands.Act(handle, action, turn))
        assert isinstance(cmd, commands.Act)
        self.actions[type(action).__name__] = self.actions.get(type(action).__name__, 0) + 1
        return super().submit(cmd.handle, cmd.action, cmd.turn)


async def _no_sleep(_seconds: float) -> None:
    await asyncio.sleep(0)


def _game(spec: KindSpec, seats: int, tournament: bool, wallet: MemoryWallet) -> Any:
    """A table of ``spec`` with ``seats`` seats: a cash table, or a tournament's."""
    keys: dict[str, Any] = {"seats": seats, "turn_timeout": 20.0}
    config = spec.config.of(keys)
    if tournament:
        assert spec.tournament is not None
        return spec.tournament.table(config, TableWallet(wallet, "t1"), 20, 2, None)
    return spec.make(config, TableWallet(wallet, spec.name), None)


async def play(spec: KindSpec, seed: int, seats: int, steps: int, tournament: bool = False
               ) -> tuple[WireBus, WireService]:
    """Bots with random policies play ``steps`` rounds at a table of ``spec`` behind the wire,
    the fake clock moving on between them (turns time out, games start); a spectator
    watches, chats, asks for a seat; a player's connection drops and comes back; and the
    queries and replies go through the wire too."""
    rng = random.Random(seed)
    wallet = MemoryWallet({h: 100_000 for h in HANDLES} | {SYSTEM: 0})
    seats = min(seats, spec.config.of({}).seats if spec.name != "schiebe" else 4,
                5 if spec.name == "draw40" else 9)
    clock = FakeClock()
    bus = WireBus()
    service = WireService(_game(spec, seats, tournament, wallet), bus, clock,
                          reconnect_grace=30.0)
    service.actions = {}
    kind = bot_kind(spec.name)
    tasks = [asyncio.create_task(service.run())]
    players = list(HANDLES[:seats])
    bots = players[1:]
    try:
        await _perform(service, commands.Watch("ivy"))
        for h in players:
            refused = await _perform(service, commands.Act(h, act.Sit()))
            assert isinstance(refused, commands.Done), refused
        for i, h in enumerate(bots):
            await _perform(service, commands.MarkBot(h))
            policy = kind.policy(rng.choice(sorted(kind.policies)))
            bot = BotPlayer(service, h, policy, lambda: list(service.table.handles),
                            rng=random.Random(seed * 10 + i), sleep=_no_sleep)
            tasks.append(asyncio.create_task(bot.run()))
        person = players[0]
        person_bot = BotPlayer(service, person, kind.policy("random"),
                               lambda: list(service.table.handles),
                               rng=random.Random(seed), sleep=_no_sleep)
        tasks.append(asyncio.create_task(person_bot.run()))
        for step in range(steps):
            for _ in range(30):
                await asyncio.sleep(0)
            roll = rng.random()
            if roll < 0.1:
                await _perform(service, commands.Chat("ivy", f"gg \x1b[31m{step}"))
            elif roll < 0.15:
                await _perform(service, commands.Act("ivy", WantSeat()))
            elif roll < 0.2 and person in service.table.handles:
                await _perform(service, commands.Detach(person))
                await _perform(service, commands.Act(person, Hold()))
                clock.advance(rng.choice((1.0, 40.0)))
                await _perform(service, commands.Act(person, Return()))
                await _perform(service, commands.Attach(person))
            elif roll < 0.25:
                await _perform(service, commands.Touch(person))
            same(await _perform(service, commands.CardsOf(person)))
            same(await _perform(service, commands.Recent()))
            clock.advance(rng.choice((0.5, 2.0, 6.0, 25.0)))
            service.wake()
        same(await _perform(service, commands.Look()))
    finally:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return bus, service


async def _perform(service: TableService, command: commands.Command) -> object:
    """``command`` sent and its reply received through the wire."""
    cmd = same(command)
    assert isinstance(cmd, type(command))
    return same(await commands.perform(service, cmd))


KIND_NAMES = [k.name for k in KINDS]


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), seats=st.integers(2, 9), steps=st.integers(5, 25))
@pytest.mark.parametrize("name", KIND_NAMES)
def test_every_item_of_random_games_of_every_kind_comes_back_equal(name, seed, seats, steps):
    spec = next(k for k in KINDS if k.name == name)
    bus, service = asyncio.run(play(spec, seed, seats, steps))
    assert not bus.failures, bus.failures[0]
    assert bus.seen.get("TableSnapshot", 0) > 0 and bus.seen.get("TableMessage", 0) > 0
    assert service.actions.get("Sit", 0) >= 2


@pytest.mark.parametrize("name", KIND_NAMES)
def test_a_long_game_of_every_kind_sends_cards_events_and_the_kind_s_actions(name):
    """One long run per kind: cards dealt, the kind's events and its game actions (not just
    seating) went through the wire."""
    spec = next(k for k in KINDS if k.name == name)
    bus, service = asyncio.run(play(spec, 7, 5, 120))
    assert not bus.failures, bus.failures[0]
    assert bus.seen.get("PrivateCards", 0) > 0, bus.seen
    assert bus.seen.get("ChatMessage", 0) > 0, bus.seen
    assert len([k for k in bus.seen if k.startswith("event:")]) >= 5, bus.seen
    assert set(service.actions) - {"Sit", "Hold", "Return", "WantSeat", "SitOut", "Leave"}, \
        service.actions


@settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), seats=st.integers(2, 9))
@pytest.mark.parametrize("name", [k.name for k in KINDS if k.tournament is not None])
def test_tournament_tables_of_every_kind_come_back_equal(name, seed, seats):
    spec = next(k for k in KINDS if k.name == name)
    bus, service = asyncio.run(play(spec, seed, seats, 25, tournament=True))
    assert not bus.failures, bus.failures[0]
    assert service.table.rules.tournament
    assert bus.seen.get("TableSnapshot", 0) > 0


def test_a_chat_line_through_the_wire_is_cleaned_again():
    async def run() -> tuple[ChatMessage, ...]:
        spec = KINDS[0]
        service = TableService(_game(spec, 2, False, MemoryWallet({"ann": 10})), Bus(),
                               FakeClock())
        chat = codec.decode(codec.encode(commands.Chat("ann", "hi\x1b[2J there\x07")))
        assert isinstance(chat, commands.Chat)
        await commands.perform(service, chat)
        return tuple(i for i in service.recent() if isinstance(i, ChatMessage))
    assert asyncio.run(run()) == (ChatMessage("ann", "hi[2J there"),)


def test_a_refusal_comes_back_as_the_same_rule_error():
    reply = same(commands.Refused.of(RuleError("bet_range", low=1, high=200)))
    assert isinstance(reply, commands.Refused)
    err = reply.error()
    assert (err.code, err.params) == ("bet_range", {"low": 1, "high": 200})


# ------------------------------------------------------------------ the registry


def test_every_kind_declares_the_types_its_tables_send():
    """A kind without its wire types (or missing one: its rules, seat view or table view)
    fails here, before any table of it runs."""
    registry = codec.registry()
    for spec in KINDS:
        assert spec.wire is not None, spec.name
        wallet = MemoryWallet({"ann": 5000, "bob": 5000, SYSTEM: 0})
        game = spec.make(spec.config.of({}), TableWallet(wallet, spec.name), None)
        for h in ("ann", "bob"):
            game.apply(h, act.Sit(), 0.0)
        assert type(game.rules) in registry, spec.name
        assert type(game.view(wallet.balances_of(["ann", "bob"]))) in registry, spec.name
        assert all(type(s) in registry for s in game.seats()), spec.name
        for t in (a for acts in game.all_actions().values() for a in acts):
            assert t in registry, (spec.name, t)


def test_a_kind_without_wire_types_is_refused_by_name():
    bare = dataclasses.replace(KINDS[0], name="bridge", wire=None)
    with pytest.raises(ValueError, match="'bridge' declares no wire types"):
        codec.WireTypes(codec.SHARED_TYPES, [bare])


def test_two_types_under_one_tag_are_refused():
    @dataclasses.dataclass(frozen=True)
    class Bet:
        amount: int
    with pytest.raises(ValueError, match="two wire types tagged 'Bet'"):
        codec.WireTypes((act.Bet, Bet), [])


# ------------------------------------------------------------------ what is refused


@pytest.mark.parametrize("data", [
    b"", b"\xc1", b"garbage", b"\x92\xa3Bet", codec.encode(act.Bet(5))[:-1],
    msgspec.msgpack.encode(["NoSuchType", {}]),
    msgspec.msgpack.encode(["Bet", {"amount": "five"}]),
    msgspec.msgpack.encode(["Bet", {}]),
    msgspec.msgpack.encode(["Event", {"kind": "x", "data": {
        "c": msgspec.msgpack.Ext(codec.EXT_OBJECT, msgspec.msgpack.encode(["Nope", 1]))}}]),
    msgspec.msgpack.encode(["Event", {"kind": "x", "data": {
        "c": msgspec.msgpack.Ext(99, b"")}}]),
    msgspec.msgpack.encode(["Discard", {"cards": ["Z9"]}]),
    msgspec.msgpack.encode(["Act", {"handle": "a", "action": 5}]),
    msgspec.msgpack.encode(["TableSnapshot", {"version": 1, "seats": [], "current": None,
                                              "pot": None, "deadline": None,
                                              "actions": {"a": ["Event"]},
                                              "balances": {}}]),
    msgspec.msgpack.encode(["draw40.Draw40Rules", {"ante": 0}]),
])
def test_garbage_and_unknown_tags_raise_codec_error(data):
    with pytest.raises(codec.CodecError):
        codec.decode(data)


@pytest.mark.parametrize("obj", [
    Direct(lambda now: []), object(), "a string", Event("x", None, {"f": lambda: 1}),
    Event("x", None, {"o": object()}),
])
def test_what_is_not_on_the_wire_raises_codec_error(obj):
    with pytest.raises(codec.CodecError):
        codec.encode(obj)


def test_a_private_view_keeps_its_cards_types():
    from bbspoker.rules.cards import parse_cards
    same(PrivateCards("ann", parse_cards("9- 10* J+ Q# A+")))
    same(PrivateCards("ann", ("2+", "10*")))
    same(TableMessage(Event("won", "ann", {"cards": parse_cards("9- J+"), "refunds": {"a": 1},
                                           "games": [1, 2], "grace": 1.5}, to="ann")))
