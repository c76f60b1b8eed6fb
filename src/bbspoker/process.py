"""What every long-running bbspoker process does besides its work (``bbspoker serve``,
``bbspoker gateway``, ``bbspoker worker``): the garbage collector's policy
(:class:`Collector`) and the event loop's lag log (:func:`log_loop_lag`)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import math
import os
import signal
import sys
import time
from collections.abc import Callable

__all__ = ["Collector", "Lifetime", "log_loop_lag", "GC_THRESHOLDS", "GC_FREEZE_AFTER", "GC_FULL_GROWTH",
           "GC_FULL_EVERY", "ENV_LAG_LOG"]

log = logging.getLogger("bbspoker.process")

#: Environment variable: a number of seconds makes a server process log the event loop's
#: lag percentiles that often (``scripts/soak.py`` reads them); unset: no monitor.
ENV_LAG_LOG = "BBSPOKER_LAG_LOG"
_LAG_TICK = 0.05

#: The collector's thresholds in every long-running process (:class:`Collector`). The young
#: generations keep CPython's 700 and 10: a young collection looks at at most ~7,700
#: objects (a few ms). The third, 100 (CPython: 10), spaces the automatic full collections
#: out; with the long-lived objects frozen they look only at what survived since the last
#: freeze, so they are short anyway.
GC_THRESHOLDS = (700, 10, 100)
#: Collections of the middle generation (each moves what survived it to the oldest)
#: after which the survivors are frozen (:meth:`Collector.age`): a collection of every
#: generation not frozen (a few thousand objects, ~0.5 us each), then ``gc.freeze()``,
#: so that no collection looks at those objects again. Counted from the collector's own
#: callbacks, not on a timer: an event loop that runs late (a busy server) would let
#: the survivors pile up and the collection before the freeze grow with them. A full
#: collection of the whole heap takes ~0.5 us per tracked object: 0.5-0.8 s at 800 tables
#: (~1.3 million objects, ~215 per session), the pause this avoids.
GC_FREEZE_AFTER = 2
#: A full collection of the frozen objects too (``gc.unfreeze()``, collect, freeze:
#: the one long pause) runs only when the heap has grown by this factor since the last
#: one (counted in memory blocks, ``sys.getallocatedblocks()``: 0.2 ms; counting the
#: frozen objects, ``gc.get_freeze_count()``, walks them all, ~70 ms at 200 tables) ...
GC_FULL_GROWTH = 1.5
#: ... and at most once in this many seconds. It frees the cycles among objects that
#: became garbage after they were frozen: a connection that ends after a few seconds
#: leaves ~80 objects in cycles (asyncio's socket transport and its read callback,
#: telnetlib3's writer and its options, the session and its reader, its cancelled writer
#: task), which only a collection that looks at them frees. So a server whose population
#: is steady and whose connections stay never pauses for it; one that grows or has many
#: connections come and go pauses at most once an hour (0.5-0.8 s at 800 tables), and
#: the garbage it keeps meanwhile is at most half of the live heap plus an hour's.
GC_FULL_EVERY = 3600.0


async def log_loop_lag(every: float, tick: float = _LAG_TICK) -> None:
    """Log how late the event loop wakes a ``tick``-second sleep: one INFO line
    ``loop lag ms: p50 X p99 Y max Z over N samples`` every ``every`` seconds (runs until
    cancelled). Lag is what every session waits on top of its own work."""
    loop = asyncio.get_running_loop()
    samples: list[float] = []
    since = loop.time()
    while True:
        start = loop.time()
        await asyncio.sleep(tick)
        now = loop.time()
        samples.append((now - start - tick) * 1000)
        if now - since >= every:
            samples.sort()
            log.info("loop lag ms: p50 %.1f p99 %.1f max %.1f over %d samples",
                     samples[len(samples) // 2], samples[int(len(samples) * 0.99)],
                     samples[-1], len(samples))
            samples, since = [], now


class Collector:
    """The garbage collector's policy in ``bbspoker serve``: no collection looks at the
    same long-lived objects again and again (a full collection of the heap of 800 tables
    stopped the event loop for 0.8 s), and what ends is still freed.

    - :meth:`start` (once the server is ready: imports, config, ledger, tables made)
      sets :data:`GC_THRESHOLDS`, collects everything and freezes what is left
      (``gc.freeze()``: the start-up heap, ~180k objects, never looked at again).
    - :meth:`age`, in the event loop after every :data:`GC_FREEZE_AFTER` collections of
      the middle generation (:meth:`watch`): collects the generations not frozen (cyclic
      garbage made since the last freeze is freed here), then freezes the survivors;
      then, if the heap grew by :data:`GC_FULL_GROWTH` since the last full collection
      and :data:`GC_FULL_EVERY` s have passed, a full one (:meth:`full`).

    Frozen objects are still freed by reference counting when nothing refers to them;
    only their cycles wait for :meth:`full`: what ends before it was frozen (objects
    that survived two middle collections) is freed by the next collection, what ended
    later by the next :meth:`full`. ``clock``: monotonic seconds (injectable).
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.blocks = 0              # memory blocks after the last full collection
        self.full_at = -math.inf     # when the last full collection ran (clock)
        self._promotions = 0         # middle collections since the last age()
        self._due = False            # an age() is scheduled in the event loop
        self._loop: asyncio.AbstractEventLoop | None = None

    def start(self) -> None:
        """Set the thresholds and freeze the start-up heap (after a full collection)."""
        gc.set_threshold(*GC_THRESHOLDS)
        self.full()

    def full(self) -> None:
        """Collect the whole heap, the frozen objects included, and freeze the survivors:
        the one long pause (~0.5 us per tracked object)."""
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        self.blocks = sys.getallocatedblocks()
        self.full_at = self.clock()

    def age(self) -> None:
        """Collect every generation not frozen and freeze what survived; a :meth:`full`
        collection when the heap has grown by :data:`GC_FULL_GROWTH` since the last one
        (in memory blocks) and :data:`GC_FULL_EVERY` s have passed (logged)."""
        gc.collect()
        gc.freeze()
        if self.clock() - self.full_at < GC_FULL_EVERY:
            return
        blocks = sys.getallocatedblocks()
        if blocks > self.blocks * GC_FULL_GROWTH:
            started = time.perf_counter()
            self.full()
            log.info("full garbage collection: %d memory blocks before, %d after, %.0f ms",
                     blocks, self.blocks, (time.perf_counter() - started) * 1000)

    def watch(self, loop: asyncio.AbstractEventLoop) -> None:
        """Run :meth:`age` in ``loop`` after every :data:`GC_FREEZE_AFTER` collections of
        the middle generation (a ``gc.callbacks`` entry, until :meth:`unwatch`)."""
        self._loop = loop
        gc.callbacks.append(self._collected)

    def unwatch(self) -> None:
        """Stop :meth:`watch`'s callback."""
        with contextlib.suppress(ValueError):
            gc.callbacks.remove(self._collected)

    def _collected(self, phase: str, info: dict[str, int]) -> None:
        """The collector's callback (any thread, inside the collector: it only counts and
        schedules; the collection and freeze run later in the event loop)."""
        if phase != "stop" or info["generation"] != 1:
            return
        self._promotions += 1
        if self._promotions >= GC_FREEZE_AFTER and not self._due and self._loop is not None:
            self._due = True
            self._loop.call_soon_threadsafe(self._age_due)

    def _age_due(self) -> None:
        self._due = False
        self._promotions = 0
        self.age()


class Lifetime:
    """A server process's life between its start and a signal (``bbspoker serve``,
    ``gateway``, ``worker``), as an ``async with`` block: on entry SIGTERM and SIGINT
    are caught and, if :data:`ENV_LAG_LOG` is set, the loop lag is logged
    (:func:`log_loop_lag`); :meth:`ready` (once the process has built what it keeps)
    starts the :class:`Collector`; :meth:`until_signalled` waits for a signal; on exit the
    collector's callback and the lag log stop."""

    def __init__(self) -> None:
        self.collector = Collector()
        self._stop = asyncio.Event()
        self._lag: asyncio.Task[None] | None = None

    async def __aenter__(self) -> Lifetime:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, self._stop.set)
        every = os.environ.get(ENV_LAG_LOG)
        if every:
            self._lag = asyncio.create_task(log_loop_lag(float(every)), name="loop lag")
        return self

    def ready(self) -> None:
        """Freeze the start-up heap and watch the collections (:class:`Collector`)."""
        self.collector.start()
        self.collector.watch(asyncio.get_running_loop())

    async def until_signalled(self) -> None:
        """Return once SIGTERM or SIGINT has come (logged)."""
        await self._stop.wait()
        log.info("signal received: shutting down")

    async def __aexit__(self, *exc: object) -> None:
        self.collector.unwatch()
        if self._lag is not None:
            self._lag.cancel()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(sig)
