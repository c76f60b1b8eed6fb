"""The SQLite CUBES ledger (the default store). Import :class:`Ledger` and the records
from here; the modules of this package are its parts (see ``ledger``)."""

from bbspoker.store.sqlite.ledger import Ledger
from bbspoker.store.sqlite.records import (
    CRASH_REASON, DEFAULT_TABLE, SIGNUP_ACTOR, Account, BbsSignupsFull, GameRecord, HandleTaken,
    JournalRow, LedgerError, Notice, PlayerStats, Publication, Totals, bbs_handle, handle_key,
    reason_text, validate_handle,
)
from bbspoker.store.sqlite.schema import SCHEMA_VERSION

__all__ = [
    "Ledger", "Account", "JournalRow", "GameRecord", "Totals", "PlayerStats", "Publication",
    "HandleTaken", "LedgerError", "Notice", "validate_handle", "handle_key", "reason_text",
    "SIGNUP_ACTOR", "BbsSignupsFull", "bbs_handle", "CRASH_REASON", "DEFAULT_TABLE",
    "SCHEMA_VERSION",
]
