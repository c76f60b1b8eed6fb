"""A computer player at a live table: it watches the table through its own bus
subscription, exactly as a player's screen does, and acts through the typed action path
(:meth:`~bbspoker.table.service.TableService.submit`), never through a screen.

What it knows is what its subscription brings: the public :class:`TableSnapshot`, its own
:class:`PrivateCards` and the events of the table. Everything that depends on the game
kind is its :class:`~bbspoker.bots.kind.BotKind`'s (looked up by the table's kind in
:mod:`bbspoker.bots.kinds`): the record of the game it keeps from the events (draw40's
public record of bets and discards), the observation it builds for its policy, whether it
is its turn (a bot that would open a game does so only while a person sits at the table:
bots do not play each other for nobody) and how it acts. Before each action it thinks
for a time drawn from ``think`` (seconds), so that a game with bots feels like one with
people; ``sleep`` is injected (tests pass one that does not wait).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable, Collection
from typing import Any

from bbspoker.bots.kind import BotKind, Decides
from bbspoker.bots.kinds import bot_kind
from bbspoker.rules.cards import Card
from bbspoker.table.service import PrivateCards, TableMessage, TableService, TableSnapshot

__all__ = ["BotPlayer", "DEFAULT_THINK"]

#: Seconds a bot thinks before it acts, drawn uniformly from this range.
DEFAULT_THINK = (1.5, 4.0)


class BotPlayer:
    """One bot seated at ``service``'s table as ``handle``, deciding with ``policy`` (one of
    ``kind``'s; ``kind`` defaults to the table's game kind's).

    ``humans()`` returns the handles of the people seated there now (a bot opens a game
    only if there is one); ``think`` is the range of seconds it waits before each action;
    ``sleep`` waits (``asyncio.sleep``; tests inject one that returns at once).
    :meth:`run` is its task: it ends when the bot is no longer seated or is cancelled.
    ``illegal`` counts the actions the rules refused (must stay 0).
    """

    def __init__(self, service: TableService, handle: str, policy: Decides[Any],
                 humans: Callable[[], Collection[str]], *, kind: BotKind[Any] | None = None,
                 rng: random.Random | None = None,
                 think: tuple[float, float] = DEFAULT_THINK,
                 sleep: Callable[[float], Awaitable[object]] = asyncio.sleep) -> None:
        self.service = service
        self.handle = handle
        self.kind = kind or bot_kind(service.table.kind)
        self.policy: Any = policy
        self.humans = humans
        self.rng = rng or random.Random()
        self.think = think
        self.sleep = sleep
        self.record: Any = self.kind.record(handle)
        self.cards: tuple[Card, ...] = service.cards_of(handle)
        self.snapshot = service.snapshot
        self.illegal = 0
        self.refused_at: int | None = None  # snapshot version of an opening refused for now
        self._changed = asyncio.Event()

    def _on_bus(self) -> None:
        self._changed.set()

    def _take(self, items: list[object]) -> None:
        for item in items:
            if isinstance(item, TableSnapshot):
                self.snapshot = item
            elif isinstance(item, PrivateCards):
                self.cards = item.cards
            elif isinstance(item, TableMessage):
                self.kind.heard(self, item.event)

    async def run(self) -> None:
        """Watch and act until the bot is off the table (or the task is cancelled)."""
        sub = self.service.bus.subscribe(notify=self._on_bus, viewer=self.handle)
        self.service.attach(self.handle)
        try:
            while True:
                self._take(sub.drain())
                if self.snapshot.seat_of(self.handle) is None:
                    return
                if not self.kind.my_turn(self):
                    self._changed.clear()
                    items = sub.drain()      # what came between the last drain and clear()
                    if items:
                        self._take(items)
                    else:
                        await self._changed.wait()
                    continue
                version = self.snapshot.version
                await self.sleep(self.rng.uniform(*self.think))
                self._take(sub.drain())
                if self.snapshot.version != version and not self.kind.my_turn(self):
                    continue            # the turn went away while it thought (a timeout)
                if not await self.kind.act(self):
                    return
        finally:
            self.service.detach(self.handle)
            sub.close()
