"""Fixtures shared by the test modules."""

from __future__ import annotations

import os

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


@pytest.fixture(scope="session")
def postgres_server():
    """A PostgreSQL server for this test process (``tests.support.postgres``): the one at
    ``BBSPOKER_TEST_POSTGRES``, else a throwaway one started here. Where none can be had the
    test is skipped with the reason, or fails under ``BBSPOKER_REQUIRE_SERVICES=1`` (CI)."""
    from tests.support.postgres import Postgres, PostgresUnavailable, start_postgres

    given = os.environ.get("BBSPOKER_TEST_POSTGRES")
    if given:
        yield Postgres(url=given, directory="", bin_dir="", run_as=[])
        return
    try:
        server = start_postgres()
    except PostgresUnavailable as exc:
        if os.environ.get("BBSPOKER_REQUIRE_SERVICES") == "1":
            pytest.fail(f"PostgreSQL is required here: {exc}")
        pytest.skip(f"no PostgreSQL: {exc}")
    yield server
    server.stop()


@pytest.fixture
def postgres_url(postgres_server, request):
    """The URL of a new, empty PostgreSQL database for this test (dropped after it)."""
    import itertools

    import psycopg

    counter = getattr(postgres_server, "_made", None) or itertools.count()
    postgres_server._made = counter
    name = f"test_{os.getpid()}_{next(counter)}"
    with psycopg.connect(postgres_server.url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    yield postgres_server.database_url(name)
    with psycopg.connect(postgres_server.url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
