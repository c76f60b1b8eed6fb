"""The broadcast bus: publishers never block, state may be skipped, messages never are."""

import asyncio
import gc
import weakref

import pytest

from bbspoker.table.bus import Bus


async def test_every_subscriber_gets_every_message_in_order():
    bus = Bus()
    alice, bob = bus.subscribe(), bus.subscribe()
    for text in ("alice has joined the table.", "bob has raised the bet (25)."):
        bus.publish(text)
    assert [await alice.get(), await alice.get()] == [
        "alice has joined the table.", "bob has raised the bet (25)."]
    assert bob.drain() == ["alice has joined the table.", "bob has raised the bet (25)."]


async def test_slow_subscriber_skips_to_latest_state_but_keeps_every_chat_line():
    bus = Bus(maxsize=10)
    slow = bus.subscribe()
    bus.publish({"pot": 50}, key="table")
    bus.publish("[alice] hi")
    bus.publish({"pot": 60}, key="table")
    bus.publish("[bob] hello")
    bus.publish({"pot": 75}, key="table")
    assert slow.drain() == ["[alice] hi", "[bob] hello", {"pot": 75}]
    assert not slow.overflowed


async def test_state_keys_are_independent():
    bus = Bus()
    sub = bus.subscribe()
    bus.publish("table 1", key="table")
    bus.publish("clock 0:59", key="clock")
    bus.publish("clock 0:58", key="clock")
    assert sub.drain() == ["table 1", "clock 0:58"]


async def test_a_stuck_subscriber_overflows_alone_and_publisher_never_waits():
    bus = Bus(maxsize=3)
    dropped = []
    stuck = bus.subscribe(on_overflow=lambda: dropped.append("stuck"))
    reader = bus.subscribe(maxsize=100)
    for n in range(5):
        bus.publish(f"message {n}")  # plain call: returns without awaiting anybody
    assert stuck.overflowed and dropped == ["stuck"]
    assert len(bus) == 1
    assert reader.drain() == [f"message {n}" for n in range(5)]
    with pytest.raises(EOFError):
        await stuck.get()


async def test_state_updates_alone_never_overflow():
    bus = Bus(maxsize=2)
    sub = bus.subscribe()
    for n in range(1000):
        bus.publish(n, key="table")
    assert not sub.overflowed
    assert sub.drain() == [999]


async def test_get_waits_for_the_next_item_and_close_wakes_it():
    bus = Bus()
    sub = bus.subscribe()
    waiter = asyncio.create_task(sub.get())
    await asyncio.sleep(0)
    assert not waiter.done()
    bus.publish("[INFO] carol sits down.")
    assert await waiter == "[INFO] carol sits down."
    waiter = asyncio.create_task(sub.get())
    await asyncio.sleep(0)
    sub.close()
    with pytest.raises(EOFError):
        await waiter
    bus.publish("after close")
    assert len(sub) == 0 and len(bus) == 0


async def test_put_to_one_subscriber_reaches_only_that_subscriber():
    bus = Bus()
    alice, bob = bus.subscribe(), bus.subscribe()
    alice.put("your cards", key="hand")
    assert alice.drain() == ["your cards"] and bob.drain() == []


async def test_flush_notifies_at_once_and_a_failing_subscriber_spares_the_others():
    bus = Bus()
    seen: list[tuple[str, list]] = []
    errors: list[BaseException] = []
    asyncio.get_running_loop().set_exception_handler(lambda loop, ctx: errors.append(ctx["exception"]))

    def broken() -> None:
        raise RuntimeError("a screen's bug")

    bus.subscribe(notify=broken)
    alice = bus.subscribe(notify=lambda: seen.append(("alice", alice.drain())))
    bob = bus.subscribe(notify=lambda: seen.append(("bob", bob.drain())))
    bus.publish("alice has passed.")
    bus.flush()                               # the publisher's batch is complete: paint now
    assert seen == [("alice", ["alice has passed."]), ("bob", ["alice has passed."])]
    assert [str(e) for e in errors] == ["a screen's bug"]
    await asyncio.sleep(0)                    # the scheduled turn has nothing left to do
    assert len(seen) == 2 and len(errors) == 1


async def test_notify_runs_once_per_loop_turn_after_the_publishers_batch():
    bus = Bus()
    seen: list[list] = []
    sub = bus.subscribe(notify=lambda: seen.append(sub.drain()))
    bus.publish("alice has called the bet (5), pot is 35.")
    bus.publish({"pot": 35}, key="table")
    assert seen == []                        # not inside publish: the publisher finishes first
    await asyncio.sleep(0)
    assert seen == [["alice has called the bet (5), pot is 35.", {"pot": 35}]]
    bus.publish("bob has passed.")
    sub.close()                              # closed before its turn: no call any more
    await asyncio.sleep(0)
    assert len(seen) == 1


async def test_a_tap_sees_every_item_with_its_key_and_viewer_and_a_failing_tap_spares_the_rest():
    bus = Bus()
    seen: list[tuple[object, object, object]] = []
    errors: list[dict] = []
    asyncio.get_running_loop().set_exception_handler(lambda _loop, ctx: errors.append(ctx))

    def broken(item: object, key: object, viewer: object) -> None:
        raise RuntimeError("tap bug")

    def tap(item: object, key: object, viewer: object) -> None:
        seen.append((item, key, viewer))

    bus.tap(broken)
    bus.tap(tap)
    alice = bus.subscribe(viewer="alice")
    bus.publish({"pot": 50}, key="table")
    bus.publish_to("Alice", ("A♠", "K♠"), key="cards")
    bus.publish("[bob] hi")
    bus.untap(tap)
    bus.publish("after the untap")
    assert seen == [({"pot": 50}, "table", None), (("A♠", "K♠"), "cards", "alice"),
                    ("[bob] hi", None, None)]
    assert len(errors) == 4 and errors[0]["message"] == "bus tap failed"
    assert alice.drain() == [{"pot": 50}, ("A♠", "K♠"), "[bob] hi", "after the untap"]


async def test_a_closed_subscription_lets_go_of_its_subscriber():
    """A screen holds its subscription, and the subscription the screen's callbacks: once
    closed, the subscription must not keep the screen (the pair would be a cycle, which
    the server's collector frees only in its rare full collection once it froze them)."""

    class Screen:
        def __init__(self, bus: Bus) -> None:
            self.sub = bus.subscribe(notify=self.on_bus, on_overflow=self.on_bus)

        def on_bus(self) -> None:
            pass

    bus = Bus()
    screen = Screen(bus)
    gone = weakref.ref(screen)
    screen.sub.close()
    gc.disable()
    try:
        del screen
        assert gone() is None            # freed at once, by reference counting
    finally:
        gc.enable()
