"""The store's tests run on both backends: ``db`` is a database for one test, SQLite or
PostgreSQL (``tests.support.stores``), so every test that builds its ledger through it runs
twice (``[sqlite]``, ``[postgres]`` in its name). Tests that are about one backend by
nature take ``db_file`` (a SQLite file) or ``postgres_url`` (a new PostgreSQL database)
instead.

The PostgreSQL case is ``postgres_db`` (``tests/conftest.py``): the test process's ledger
database emptied in one round trip of a few ms."""

from __future__ import annotations

import pytest

from tests.support.stores import StoreDb


@pytest.fixture(params=["sqlite", "postgres"])
def db(request, tmp_path) -> StoreDb:
    if request.param == "sqlite":
        return StoreDb("sqlite", str(tmp_path / "bbspoker.db"))
    return request.getfixturevalue("postgres_db")


@pytest.fixture
def db_file(tmp_path):
    """A SQLite database file's path (not made yet)."""
    return tmp_path / "bbspoker.db"
