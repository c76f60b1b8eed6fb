"""``bbspoker ledger copy``: a whole ledger into a new database, SQLite to PostgreSQL and
back, row for row with the same ids (``bbspoker.store.sql.copy``)."""

from __future__ import annotations

import re
import sqlite3

import psycopg
import pytest

from bbspoker.store.sql import Ledger
from bbspoker.store.sql.copy import COPIED_TABLES, copy_ledger
from bbspoker.store.sql.records import LedgerError
from tests.support.ledger_fill import fill

#: Tables a backend keeps for itself, not the ledger's data.
_OWN = {"schema_version", "ledger_commits", "sqlite_sequence"}


def _everything(ledger: Ledger) -> dict:
    """What a user or the sysop can read of a ledger."""
    accounts = ledger.list_accounts()
    games = ledger.games_from(1, limit=10_000)
    return {
        "accounts": [(a.handle, a.cubes, a.bot, a.banned) for a in accounts],
        "history": {a.handle: [(r.id, r.amount, r.reason, r.game_id, r.balance)
                               for r in ledger.history(a.handle, limit=10_000)]
                    for a in accounts},
        "games": [(g.id, g.players, g.winner, g.end_reason, g.history) for g in games],
        "stacks": ledger.table_stacks(),
        "tournaments": [(t.id, t.key, t.status) for t in ledger.tournaments()],
        "entries": {t.id: [(e.handle, e.place, e.prize) for e in ledger.tournament_entries(t.id)]
                    for t in ledger.tournaments()},
        "keys": ledger.user_keys("player000"),
        "blocks": ledger.blocks(),
        "bans": ledger.bbs_bans(),
        "totals": ledger.totals(),
    }


def test_a_sqlite_ledger_copied_to_postgresql_and_back_reads_the_same(tmp_path, postgres_db):
    with Ledger(tmp_path / "live.db", clock=lambda: 1_700_000_000.0) as live:
        made = fill(live, 120)
        before = _everything(live)
        with postgres_db.open() as pg:
            report = copy_ledger(live, pg)
            # the house account is one more row
            assert report.rows["games"] == 120 and report.rows["accounts"] == made["accounts"] + 1
            assert pg.verify() == [] and _everything(pg) == before
            # Ids go on from the copied ones: the next game and journal row follow them.
            game = pg.open_game(["player001", "player002"], "c" * 64, "main")
            assert game == 121
            pg.pay_into_pot(game, "player001", 1, "ante")
            assert pg.history("player001", limit=1)[0].id == 1 + live.latest_journal_id()
            pg.cancel_game(game, "test")
            # (an id the sequence gave again would break the primary key)
            assert pg.create_account("newcomer", None).cubes == 1000
            pg.kick("newcomer", "test", "root")
            expected = _everything(pg)
            with Ledger(tmp_path / "back.db") as back:
                copy_ledger(pg, back)
                assert back.verify() == [] and _everything(back) == expected


def test_the_unfinished_game_of_a_running_table_is_refunded_where_the_copy_is_opened(
        tmp_path, postgres_db):
    with Ledger(tmp_path / "live.db") as live:
        fill(live, 20)                     # its last game is left open, as at a running table
        assert live.totals().open_pots > 0
        with postgres_db.open() as pg:
            copy_ledger(live, pg)
    with postgres_db.open() as pg:
        assert pg.recover_unfinished_games(1_800_000_000.0) == [20]
        totals = pg.totals()
        assert totals.open_pots == 0 and pg.verify() == []


def test_a_copy_into_a_ledger_that_holds_anything_is_refused_and_changes_nothing(
        tmp_path, postgres_db):
    with postgres_db.open() as pg:
        pg.create_account("already", None, cubes=5)
    with Ledger(tmp_path / "live.db") as live, postgres_db.open() as pg:
        fill(live, 5)
        with pytest.raises(LedgerError, match="already holds 2 accounts"):
            copy_ledger(live, pg)
        assert [a.handle for a in pg.list_accounts()] == ["already"]
        with pytest.raises(LedgerError, match="is the ledger being copied"):
            copy_ledger(live, live)


def test_the_copy_knows_every_table_of_both_schemas(tmp_path, postgres_db):
    """A table added to the schema must be added to the copy too, or its rows are lost."""
    Ledger(tmp_path / "x.db").close()
    with sqlite3.connect(tmp_path / "x.db") as conn:
        in_sqlite = {r[0] for r in conn.execute("SELECT name FROM sqlite_master "
                                                "WHERE type = 'table'")}
    with psycopg.connect(postgres_db.target) as conn:
        in_postgres = {r[0] for r in conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}
    copied = {table for table, _ in COPIED_TABLES}
    assert in_sqlite - _OWN == copied == in_postgres - _OWN


def test_bbspoker_ledger_copy_moves_the_configured_ledger_and_verifies_both(
        tmp_path, postgres_db, monkeypatch, capsys):
    from bbspoker.cli import main

    path = tmp_path / "bbspoker.db"
    with Ledger(path) as live:
        fill(live, 30)
    monkeypatch.setenv("BBSPOKER_DB", str(path))
    monkeypatch.delenv("BBSPOKER_CONFIG", raising=False)
    assert main(["ledger", "copy", "--to", postgres_db.target]) == 0
    out = capsys.readouterr().out
    assert re.search(r"games\s+30 rows", out)
    assert "ledger verify of the source: OK" in out and "ledger verify of the copy: OK" in out
    assert "the totals of the source and the copy are equal" in out
    # A second copy into the same database, or onto an existing file, is refused.
    assert main(["ledger", "copy", "--to", postgres_db.target]) == 1
    assert "copied only into a new, empty database" in capsys.readouterr().err
    assert main(["ledger", "copy", "--to", str(path)]) == 1
    assert "exists" in capsys.readouterr().err
