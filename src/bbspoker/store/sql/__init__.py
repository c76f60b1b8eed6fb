"""The CUBES ledger over SQL, the same for every database: :class:`Ledger` and its parts
(``books``, ``accounts``, ``admin``, ``tournaments``, ``audit``), which run over a
:class:`~bbspoker.store.sql.writer.Writer`; the backends (``bbspoker.store.sqlite``,
``bbspoker.store.postgres``) supply the writer and the schema. Import :class:`Ledger` and
the records from here."""

from bbspoker.store.sql.ledger import Ledger
from bbspoker.store.sql.records import (
    CRASH_REASON, DEFAULT_TABLE, MOVED_REASON, SIGNUP_ACTOR, Account, BbsSignupsFull, GameRecord,
    HandleTaken, IntegrityViolation, JournalRow, LedgerError, Notice, PlayerStats, Publication,
    Totals, bbs_handle, handle_key, reason_text, validate_handle,
)

__all__ = [
    "Ledger", "Account", "JournalRow", "GameRecord", "Totals", "PlayerStats", "Publication",
    "HandleTaken", "LedgerError", "IntegrityViolation", "Notice", "validate_handle",
    "handle_key", "reason_text", "SIGNUP_ACTOR", "BbsSignupsFull", "bbs_handle",
    "CRASH_REASON", "MOVED_REASON", "DEFAULT_TABLE",
]
