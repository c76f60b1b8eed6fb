"""The PostgreSQL keys of table leases (``bbspoker.store.postgres.lease``): one per table
id, checked against each other and the server's other advisory keys. The leases
themselves are tested in ``tests/table/test_lease.py``."""

from __future__ import annotations

import pytest

from bbspoker.store.postgres import lease
from bbspoker.store.postgres.lease import WORKERS_KEY, lease_keys, table_key
from bbspoker.store.postgres.writer import LOCK_KEY, SERVER_LOCK_KEY


def test_a_table_key_is_a_bigint_of_its_id_alone():
    ids = [f"table-{i}" for i in range(5000)] + ["poker", "Poker", "pökér", ""]
    keys = lease_keys(ids)
    assert len(set(keys.values())) == len(ids)
    assert all(-(1 << 63) <= k < (1 << 63) for k in keys.values())
    assert table_key("poker") == keys["poker"] != keys["Poker"]
    assert not {LOCK_KEY, SERVER_LOCK_KEY, WORKERS_KEY} & set(keys.values())
    assert len({LOCK_KEY, SERVER_LOCK_KEY, WORKERS_KEY}) == 3


def test_colliding_or_reserved_keys_are_refused_by_name(monkeypatch):
    fake = {"red": 7, "blue": 7, "green": LOCK_KEY, "pink": SERVER_LOCK_KEY, "grey": 9}
    monkeypatch.setattr(lease, "table_key", fake.__getitem__)
    with pytest.raises(ValueError, match="'red' and 'blue'"):
        lease_keys(["red", "grey", "blue"])
    with pytest.raises(ValueError, match="'green'.*write lock"):
        lease_keys(["green"])
    with pytest.raises(ValueError, match="'pink'.*server lock"):
        lease_keys(["pink"])
    assert lease_keys(["red", "grey", "red"]) == {"red": 7, "grey": 9}
