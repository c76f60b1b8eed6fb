"""Fixtures shared by the test modules."""

from __future__ import annotations

import pytest

from tests.support.telnetclient import TelnetClient


@pytest.fixture
async def clients():
    """``connect(port, **kwargs)`` opens a TelnetClient that is closed after the test."""
    made: list[TelnetClient] = []

    async def connect(port: int, **kwargs) -> TelnetClient:
        c = await TelnetClient.connect(port, **kwargs)
        made.append(c)
        return c

    yield connect
    for c in made:
        await c.close()
