"""Computer players at tournament tables.

A tournament's director (:class:`bbspoker.table.director.TournamentDirector`) registers bot
accounts for the places people leave (``bots`` of a ``[[tournaments]]`` entry) and seats
them as it seats everyone: at the draw, and again at another table when it moves them.
Each time it says so (``on_seated``), :class:`TournamentBots` runs the bot there as a
:class:`~bbspoker.bots.player.BotPlayer` in a task of its own, which ends when the bot is
no longer seated at that table (moved, out, the tournament over).

A bot's task that fails (a bug) is logged with its traceback and started again at the
same table; after :data:`~bbspoker.bots.seats.RESTARTS` failures it is left to the table,
which gives its turns up when they time out (blinded away, as a person who dropped
would be), and the log says so.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable

from bbspoker.bots.kinds import bot_kind
from bbspoker.bots.player import BotPlayer
from bbspoker.bots.seats import RESTARTS
from bbspoker.table.registry import TableEntry

__all__ = ["TournamentBots"]

log = logging.getLogger(__name__)


class TournamentBots:
    """The computer players of every tournament table. ``is_bot(handle)``: whether the
    account is a computer player's (a person's seat is theirs to play); ``sleep``: what
    the bots think with (tests inject one that does not wait)."""

    def __init__(self, is_bot: Callable[[str], bool], *, rng: random.Random | None = None,
                 sleep: Callable[[float], Awaitable[object]] = asyncio.sleep) -> None:
        self.is_bot = is_bot
        self.rng = rng or random.Random()
        self.sleep = sleep
        self.players: dict[tuple[str, str], asyncio.Task[None]] = {}
        self._failures: dict[tuple[str, str], int] = {}

    def seated(self, entry: TableEntry, handle: str) -> None:
        """``handle`` was seated at tournament table ``entry``: run it if it is a bot."""
        if not self.is_bot(handle):
            return
        key = (entry.id, handle.lower())
        task = self.players.get(key)
        if task is not None and not task.done():
            return
        entry.service.mark_bot(handle)
        self._start(entry, handle)

    def _start(self, entry: TableEntry, handle: str) -> None:
        rules = entry.spec.rules
        kind = bot_kind(entry.spec.game)
        service = entry.service
        bot = BotPlayer(service, handle, kind.policy(rules.bot_policy),
                        lambda: [s.handle for s in service.snapshot.seats
                                 if s.handle.lower() not in service.snapshot.bots],
                        kind=kind, rng=random.Random(self.rng.random()),
                        think=(rules.bot_think_min, rules.bot_think_max), sleep=self.sleep)
        key = (entry.id, handle.lower())
        task = asyncio.create_task(bot.run(), name=f"bot {handle} at {entry.id}")
        task.add_done_callback(lambda t: self._ended(entry, handle, t))
        self.players[key] = task

    def _ended(self, entry: TableEntry, handle: str, task: asyncio.Task[None]) -> None:
        """A bot's task ended: off the table (forgotten), or failed (logged, started again
        up to :data:`RESTARTS` times)."""
        key = (entry.id, handle.lower())
        if self.players.get(key) is task:
            del self.players[key]
        if task.cancelled() or task.exception() is None:
            return
        log.error("%s failed", task.get_name(), exc_info=task.exception())
        failures = self._failures[key] = self._failures.get(key, 0) + 1
        if failures <= RESTARTS and not entry.service.closing:
            log.warning("bot %s at %s: starting it again (failure %d of %d allowed)",
                        handle, entry.id, failures, RESTARTS)
            self._start(entry, handle)
        else:
            log.error("bot %s at %s failed %d times: the table plays its turns out",
                      handle, entry.id, failures)

    def stop(self) -> None:
        """Cancel every bot's task (the server stops)."""
        for task in self.players.values():
            task.cancel()

    async def wait_stopped(self) -> None:
        """Wait until every bot's task has ended."""
        await asyncio.gather(*self.players.values(), return_exceptions=True)
