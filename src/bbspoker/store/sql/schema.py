"""What every backend's schema shares: the bound on amounts, and the steps run when a
ledger opens after its backend's migrations (``bbspoker.store.sqlite.schema``,
``bbspoker.store.postgres.schema``)."""

from __future__ import annotations

from bbspoker.rules.money import MAX_CUBES
from bbspoker.store.sql.records import handle_skeleton
from bbspoker.store.sql.writer import Writer

__all__ = ["HARD_LIMIT", "migrate_skeletons", "schema_version"]

#: What the schema refuses outright: a thousand times :data:`MAX_CUBES`, far below 2**63.
HARD_LIMIT = 1000 * MAX_CUBES


def migrate_skeletons(writer: Writer) -> None:
    """Fill in the skeleton of every account that has none (made before schema 6, or
    emptied by schema 13 for the rule of today)."""
    with writer.write():
        for account_id, handle in writer.sql(
                "SELECT id, handle FROM accounts WHERE skeleton IS NULL").fetchall():
            writer.sql("UPDATE accounts SET skeleton = ? WHERE id = ?",
                       (handle_skeleton(handle), account_id))


def schema_version(writer: Writer) -> int:
    """The schema version of the open database."""
    version: int = writer.sql("SELECT version FROM schema_version").fetchone()[0]
    return version
