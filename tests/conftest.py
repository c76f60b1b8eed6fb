"""Fixtures shared by the test modules."""

from __future__ import annotations

import os
import re

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


@pytest.fixture(autouse=True)
def cheap_scrypt(request, monkeypatch):
    """Passwords hashed in a test process cost scrypt n = 16 instead of 2**14 (a hash or a
    check ~40 ms less): the stored string carries its cost, so checking it works the same.
    The store's own tests (tests/store/) hash at the real cost; servers started as
    processes do too."""
    if "store" not in request.node.path.parts:
        from bbspoker.store import passwords
        monkeypatch.setattr(passwords, "_N", 16)


def _service(what: str, start, unavailable: type[Exception]):
    """``start()``'s server, or the test skipped saying why ``what`` cannot be had (it
    fails instead under ``BBSPOKER_REQUIRE_SERVICES=1``, as CI sets it)."""
    try:
        return start()
    except unavailable as exc:
        if os.environ.get("BBSPOKER_REQUIRE_SERVICES") == "1":
            pytest.fail(f"{what} is required here: {exc}")
        pytest.skip(f"no {what}: {exc}")


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
    server = _service("PostgreSQL", start_postgres, PostgresUnavailable)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def nats_server():
    """A NATS server for this test process (``tests.support.nats``), started here on a port
    of 127.0.0.1 it picks itself. Where none can be had the test is skipped with the reason, or fails
    under ``BBSPOKER_REQUIRE_SERVICES=1`` (CI)."""
    from tests.support.nats import NatsUnavailable, start_nats

    server = _service("a NATS server", start_nats, NatsUnavailable)
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


@pytest.fixture(scope="session")
def _ledger_database(postgres_server):
    """``(url, reset)``: a PostgreSQL database with the ledger's schema for this test
    process, and the SQL that makes it as new."""
    import psycopg

    from bbspoker.store.postgres.schema import CREATE, SCHEMA_VERSION
    from bbspoker.store.sql import Ledger

    counter = getattr(postgres_server, "_made", None)
    if counter is None:
        import itertools
        counter = postgres_server._made = itertools.count()
    name = f"ledger_{next(counter)}_{id(postgres_server) % 100000}"
    with psycopg.connect(postgres_server.url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    url = postgres_server.database_url(name)
    Ledger(url).close()
    tables = [m.group(1) for s in CREATE if (m := re.match(r"CREATE TABLE (\w+)", s))
              and m.group(1) != "ledger_commits"]
    system = next(s for s in CREATE if s.lstrip().startswith("INSERT INTO accounts"))
    with psycopg.connect(url) as conn:
        identities = conn.execute(
            "SELECT table_name, column_name FROM information_schema.columns "
            "WHERE table_schema = 'public' AND is_identity = 'YES'").fetchall()
    reset = (
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
        "WHERE datname = current_database() AND pid <> pg_backend_pid();"
        "DROP TRIGGER IF EXISTS broken ON journal; DROP FUNCTION IF EXISTS broken();"
        + "".join(f"DELETE FROM {t};" for t in reversed(tables))
        + "".join(f"SELECT setval(pg_get_serial_sequence('{t}', '{c}'), 1, false);"
                  for t, c in identities)
        + f"UPDATE schema_version SET version = {SCHEMA_VERSION};"
        "UPDATE ledger_commits SET n = n + 1;" + system)
    yield url, reset
    with psycopg.connect(postgres_server.url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def postgres_db(_ledger_database):
    """The test process's PostgreSQL ledger database, as new: a
    :class:`tests.support.stores.StoreDb`. A new database costs about 0.1 s to make and
    drop; this empties one made for the test process (``_ledger_database``) in one round
    trip of a few ms: every other connection to it ended, every row deleted, the ids
    counted from 1 again, the schema version and the triggers tests add put back, the
    SYSTEM account made again and the commit counter bumped (so no ledger trusts a cache of
    before), as a new database would be."""
    import psycopg

    from tests.support.stores import StoreDb

    url, reset = _ledger_database
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(reset)
    return StoreDb("postgres", url)


@pytest.fixture
def ledger_backend(request) -> str:
    """The backend of the ledger a test above the store builds through ``ledger_db`` or
    ``ledger_url``: ``"sqlite"``, unless the test is marked
    :data:`tests.support.stores.both_backends` (then it runs once with each, ``[sqlite]``
    and ``[postgres]`` in its name; a test may name other values, e.g. ``"memory"`` for a
    wallet without a database, which ``ledger_db`` gives as SQLite)."""
    return getattr(request, "param", "sqlite")


@pytest.fixture
def ledger_db(ledger_backend, tmp_path, request) -> str:
    """Where this test's ledger is, as ``Ledger(where)`` and ``BBSPOKER_DB`` take it: a
    SQLite file under ``tmp_path`` (not made yet), or on ``postgres`` the URL of the test
    process's ledger database, emptied (``postgres_db``)."""
    if ledger_backend == "postgres":
        return request.getfixturevalue("postgres_db").target
    return str(tmp_path / "bbspoker.db")


@pytest.fixture
def ledger_url(ledger_backend, request) -> str:
    """``[ledger] url`` for this test's server: empty (the SQLite file ``[ledger] path``),
    or on ``postgres`` the URL ``ledger_db`` gives."""
    if ledger_backend == "postgres":
        return request.getfixturevalue("postgres_db").target
    return ""
