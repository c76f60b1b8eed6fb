"""The SQLite side of the CUBES ledger (the default store): its writer (``writer``) and its
migrations (``schema``). The ledger itself is the shared :class:`bbspoker.store.sql.Ledger`,
re-exported here with its records (``from bbspoker.store.sqlite import Ledger`` opens a
file as it always did)."""

from bbspoker.store.sql import (
    CRASH_REASON, DEFAULT_TABLE, SIGNUP_ACTOR, Account, BbsSignupsFull, GameRecord, HandleTaken,
    JournalRow, Ledger, LedgerError, Notice, PlayerStats, Publication, Totals, bbs_handle,
    handle_key, reason_text, validate_handle,
)
from bbspoker.store.sqlite.schema import SCHEMA_VERSION

__all__ = [
    "Ledger", "Account", "JournalRow", "GameRecord", "Totals", "PlayerStats", "Publication",
    "HandleTaken", "LedgerError", "Notice", "validate_handle", "handle_key", "reason_text",
    "SIGNUP_ACTOR", "BbsSignupsFull", "bbs_handle", "CRASH_REASON", "DEFAULT_TABLE",
    "SCHEMA_VERSION",
]
