"""A task started with :func:`bbspoker.tasks.start` never ends silently."""

from __future__ import annotations

import asyncio
import logging

from bbspoker import tasks


async def test_a_failing_task_is_logged_with_its_traceback_and_a_cancelled_one_is_not(caplog):
    async def broken() -> None:
        raise ValueError("the poll broke")

    async def forever() -> None:
        await asyncio.Event().wait()

    with caplog.at_level(logging.ERROR, logger="bbspoker.tasks"):
        failing = tasks.start(broken(), name="balance poll")
        waiting = tasks.start(forever(), name="admin watch")
        await asyncio.wait([failing])
        waiting.cancel()
        await asyncio.wait([waiting])
        await asyncio.sleep(0)          # the done callbacks run on the next loop turn
    [record] = caplog.records
    assert "balance poll" in record.getMessage()
    assert isinstance(record.exc_info[1], ValueError)
