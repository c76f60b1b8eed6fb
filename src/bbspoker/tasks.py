"""Tasks that run on their own (a table, the balance poll, a table's computer players, the
watch for the sysop's bans) never end silently: :func:`start` logs a task that ends with
an exception, with its traceback, the moment it ends."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["start"]

log = logging.getLogger(__name__)

T = TypeVar("T")


def start(coro: Coroutine[Any, Any, T], name: str) -> asyncio.Task[T]:
    """``asyncio.create_task(coro, name=name)`` (inside the running loop) whose failure is
    logged at ERROR with its traceback as soon as it happens (a cancelled task is not a
    failure). Returns the task."""
    task = asyncio.create_task(coro, name=name)
    task.add_done_callback(_report)
    return task


def _report(task: asyncio.Task[Any]) -> None:
    if task.cancelled():
        return
    error = task.exception()
    if error is not None:
        log.error("task %r failed", task.get_name(), exc_info=error)
