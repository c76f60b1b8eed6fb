"""The broadcast bus: table events to every session, a bounded queue per subscriber.

It does what the original door's shared memory and semaphores did. The
task that owns the table publishes; each session's screen task reads its own
:class:`Subscription`. The rules:

- A publisher never blocks and never waits for a subscriber: :meth:`Bus.publish`
  is a plain function that appends to every queue and returns.
- Items published with a ``key`` are *state* (a screen is state): a newer item
  with the same key replaces the older one still waiting in a queue, so a
  subscriber that falls behind skips to the latest state.
- A subscriber may give a ``notify`` callable: it runs once, soon after items
  arrive, to act on them without waiting for a task switch (the poker screen
  paints from it): in the event loop's next turn (one
  ``call_soon`` for all subscribers, so the items of one publisher's turn come
  in one batch), or at once when the publisher calls :meth:`Bus.flush` after
  its batch (the table does).
- A subscriber may name its ``viewer`` (a handle): :meth:`Bus.publish_to` reaches
  only the subscribers of that viewer (a player's private cards: nobody else's
  queue ever holds them).
- Items published without a key are *messages* (chat, table announcements,
  X-message notices) and are never dropped. A subscriber holding more than
  ``maxsize`` undelivered messages is marked :attr:`Subscription.overflowed`,
  stops receiving, and its ``on_overflow`` callback runs once (the bot port
  uses it to disconnect a program; a table screen subscribes anew and starts again
  from the table's state instead).
- A *tap* (:meth:`Bus.tap`) is called with every item as it is published, private
  ones with their viewer: what carries a table's bus to another process
  (:class:`~bbspoker.table.remote.TableHost`) reads it there.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Hashable
from typing import Any

__all__ = ["Bus", "Subscription", "Tap", "DEFAULT_MAXSIZE"]

#: Undelivered messages (keyless items) a subscriber may hold before it overflows.
DEFAULT_MAXSIZE = 256

#: A tap: ``tap(item, key, viewer)`` for every item published (``viewer`` ``None``: public).
Tap = Callable[[Any, "Hashable | None", "str | None"], None]


class Subscription:
    """One subscriber's bounded queue; created by :meth:`Bus.subscribe`.

    Holds at most ``maxsize`` messages plus one item per state key. Items come
    out in publish order, except that a replaced state item moves to the
    position of its replacement (it is newer than everything before it).
    """

    def __init__(self, bus: Bus, maxsize: int, on_overflow: Callable[[], None] | None,
                 notify: Callable[[], None] | None = None, viewer: str | None = None) -> None:
        if maxsize < 1:
            raise ValueError("maxsize must be at least 1")
        self._bus = bus
        self._maxsize = maxsize
        self._on_overflow = on_overflow
        self._items: deque[tuple[Hashable | None, Any]] = deque()
        self._messages = 0
        self._waiter: asyncio.Future[None] | None = None  # what get() waits on
        self._notify = notify
        self._notify_due = False  # a notify call is scheduled and has not run yet
        self.overflowed = False
        self.closed = False
        #: The handle (lower case) this subscriber sees the table as, or ``None``.
        self.viewer = viewer.lower() if viewer is not None else None

    def __len__(self) -> int:
        """Number of items waiting (messages plus pending state items)."""
        return len(self._items)

    def put(self, item: Any, key: Hashable | None = None) -> None:
        """Queue ``item`` for this subscriber only; never blocks.

        ``key`` not None makes it a state item that replaces a waiting item with
        the same key. A keyless message past ``maxsize`` marks the subscription
        overflowed (see the module docstring); items for a closed or overflowed
        subscription are ignored.
        """
        if self.closed or self.overflowed:
            return
        if key is not None:
            for index, (waiting_key, _) in enumerate(self._items):
                if waiting_key == key:
                    del self._items[index]
                    break
        elif self._messages >= self._maxsize:
            self._overflow()
            return
        else:
            self._messages += 1
        self._items.append((key, item))
        self._wake()

    def _overflow(self) -> None:
        self.overflowed = True
        self._items.clear()
        self._messages = 0
        self._wake()
        self._bus.unsubscribe(self)
        if self._on_overflow is not None:
            self._on_overflow()

    def drain(self) -> list[Any]:
        """Take every waiting item at once, oldest first, without waiting."""
        items = [item for _, item in self._items]
        self._items.clear()
        self._messages = 0
        return items

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)
        if self._notify is not None and not self._notify_due:
            self._notify_due = True
            self._bus._notify_soon(self)

    async def get(self) -> Any:
        """Wait for and return the next item.

        Raises :class:`EOFError` once the subscription is closed or overflowed
        and nothing is left to deliver.
        """
        while not self._items:
            if self.closed or self.overflowed:
                raise EOFError("subscription ended")
            if self._waiter is None or self._waiter.done():
                self._waiter = asyncio.get_running_loop().create_future()
            await self._waiter
        key, item = self._items.popleft()
        if key is None:
            self._messages -= 1
        return item

    def close(self) -> None:
        """Stop receiving; a waiting :meth:`get` raises :class:`EOFError`. Idempotent."""
        if not self.closed:
            self.closed = True
            self._bus.unsubscribe(self)
            self._wake()
            # A closed subscription keeps no reference to its subscriber: the subscriber
            # holds it, so the two would otherwise be a cycle that only a full collection
            # frees, and the server freezes long-lived objects (bbspoker.app.Collector).
            self._notify = self._on_overflow = None


class Bus:
    """Fan-out of items to subscribers; see the module docstring for the rules."""

    def __init__(self, maxsize: int = DEFAULT_MAXSIZE) -> None:
        """``maxsize``: default message bound per subscriber (items, not bytes)."""
        self._maxsize = maxsize
        self._subscribers: list[Subscription] = []
        self._due: list[Subscription] = []  # subscribers whose notify has not run yet
        self._taps: list[Tap] = []

    def __len__(self) -> int:
        """Number of live subscribers."""
        return len(self._subscribers)

    def subscribe(self, *, maxsize: int | None = None,
                  on_overflow: Callable[[], None] | None = None,
                  notify: Callable[[], None] | None = None,
                  viewer: str | None = None) -> Subscription:
        """Add a subscriber and return its queue.

        ``maxsize`` overrides the bus default; ``on_overflow`` is called once,
        synchronously inside the publish that overflowed it (keep it short:
        e.g. schedule the session's close). ``notify`` (no arguments) runs once per
        batch of items, soon after they arrive (:meth:`flush`, or the next loop turn),
        until the subscription is closed; it typically calls :meth:`Subscription.drain`.
        Exceptions it raises go to the event loop's exception handler (the other
        subscribers are still notified). ``viewer``: the handle whose private items
        (:meth:`publish_to`) this subscriber receives too.
        """
        sub = Subscription(self, self._maxsize if maxsize is None else maxsize, on_overflow,
                           notify, viewer)
        self._subscribers.append(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        """Remove ``sub``; it receives nothing more. Unknown subscribers are ignored."""
        if sub in self._subscribers:
            self._subscribers.remove(sub)

    def tap(self, tap: Tap) -> None:
        """Call ``tap(item, key, viewer)`` with every item published from now on, inside
        :meth:`publish` (``viewer`` ``None``) and :meth:`publish_to` (the viewer in lower
        case), before the subscribers get it. It must not block; what it raises goes to the
        event loop's exception handler (the subscribers still get the item)."""
        self._taps.append(tap)

    def untap(self, tap: Tap) -> None:
        """Stop calling ``tap``; an unknown one is ignored."""
        if tap in self._taps:
            self._taps.remove(tap)

    def _tapped(self, item: Any, key: Hashable | None, viewer: str | None) -> None:
        for tap in list(self._taps):
            try:
                tap(item, key, viewer)
            except Exception as exc:  # the tap's bug must not stop the publisher
                asyncio.get_running_loop().call_exception_handler(
                    {"message": "bus tap failed", "exception": exc})

    def publish(self, item: Any, key: Hashable | None = None) -> None:
        """Queue ``item`` for every subscriber (see :meth:`Subscription.put`); never blocks."""
        if self._taps:
            self._tapped(item, key, None)
        for sub in list(self._subscribers):
            sub.put(item, key)

    def publish_to(self, viewer: str, item: Any, key: Hashable | None = None) -> None:
        """Queue ``item`` only for the subscribers whose ``viewer`` is ``viewer`` (any case);
        never blocks."""
        low = viewer.lower()
        if self._taps:
            self._tapped(item, key, low)
        for sub in list(self._subscribers):
            if sub.viewer == low:
                sub.put(item, key)

    def _notify_soon(self, sub: Subscription) -> None:
        self._due.append(sub)
        if len(self._due) == 1:
            asyncio.get_running_loop().call_soon(self.flush)

    def flush(self) -> None:
        """Run now the ``notify`` callback of every subscriber that received items since
        its last one, in subscription order; the loop turn scheduled for them then finds
        nothing to do. A publisher calls it when its batch is complete (the table, after
        each change: the screens are painted without waiting for the next loop turn)."""
        due, self._due = self._due, []
        for sub in due:
            sub._notify_due = False
            if sub._notify is None or sub.closed:
                continue
            try:
                sub._notify()
            except Exception as exc:  # one subscriber's bug must not stop the publisher
                asyncio.get_running_loop().call_exception_handler(
                    {"message": "bus subscriber's notify failed", "exception": exc})
