"""The store's tests run on both backends: ``db`` is a database for one test, SQLite or
PostgreSQL (``tests.support.stores``), so every test that builds its ledger through it runs
twice (``[sqlite]``, ``[postgres]`` in its name). Tests that are about one backend by
nature take ``db_file`` (a SQLite file) or ``postgres_url`` (a new PostgreSQL database)
instead.

A new PostgreSQL database costs about 0.1 s to make and drop; ``db`` instead empties one
made for the test process (:func:`_ledger_database`) in one round trip of a few ms: every
other connection to it ended, every row deleted, the ids counted from 1 again, the schema
version and the triggers tests add put back, the SYSTEM account made again and the commit
counter bumped (so no ledger trusts a cache of before), as a new database would be."""

from __future__ import annotations

import re

import pytest

from tests.support.stores import StoreDb


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
def postgres_db(_ledger_database) -> StoreDb:
    """The test process's PostgreSQL ledger database, as new (for tests about PostgreSQL)."""
    import psycopg

    url, reset = _ledger_database
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(reset)
    return StoreDb("postgres", url)


@pytest.fixture(params=["sqlite", "postgres"])
def db(request, tmp_path) -> StoreDb:
    if request.param == "sqlite":
        return StoreDb("sqlite", str(tmp_path / "bbspoker.db"))
    return request.getfixturevalue("postgres_db")


@pytest.fixture
def db_file(tmp_path):
    """A SQLite database file's path (not made yet)."""
    return tmp_path / "bbspoker.db"
