"""What the ledger hands out and the rules for handles: records of accounts, journal
rows, games and totals, the ledger's errors, and how a handle is checked and compared.

Pure data and functions: no connection, no SQL but the column lists these records are
read from (kept here beside the records so that one changes with the other).
"""

from __future__ import annotations

import functools
import json
import unicodedata
from dataclasses import dataclass
from typing import Any

import wcwidth
from confusable_homoglyphs.confusables import confusables_data

from bbspoker.store.wallet import SYSTEM, StoreError
from bbspoker.text import clean_text

__all__ = [
    "Account", "JournalRow", "GameRecord", "Totals", "HandleTaken", "LedgerError",
    "IntegrityViolation",
    "handle_key", "handle_skeleton", "validate_handle", "SIGNUP_ACTOR", "CRASH_REASON",
    "MOVED_REASON", "DEFAULT_TABLE",
    "Notice", "REASONS", "reason_text", "InvalidHandle", "Publication", "bbs_handle",
    "BBS_SEPARATOR", "BbsSignupsFull", "ACCOUNT_LOOKS", "ACCOUNT_SUITS",
]

#: Actor recorded for the starting CUBES of an account created at the login prompt.
SIGNUP_ACTOR = "system:signup"
#: Actor recorded for the house's daily allowance (``[ledger] allowance``).
ALLOWANCE_ACTOR = "system:allowance"
#: Reason recorded for games refunded by ``Ledger.recover_unfinished_games``.
CRASH_REASON = "the server stopped before the game ended"
#: Reason recorded for a table's games refunded when another worker takes the table over
#: (``Ledger.recover_unfinished_games(now, table=...)``: the worker that ran it is gone).
MOVED_REASON = "the table moved to another server"
#: The codes of the reasons a game is called off, with the English the journal, the
#: games' ``end_reason`` and the admin CLI show (the door renders the code in the
#: reader's language). Any other reason is an admin's own words, kept as given.
REASONS = {"crash": CRASH_REASON,
           "moved": MOVED_REASON,
           "shutdown": "the server is shutting down",
           "commit_failed": "the server could not save the last move"}


def reason_text(reason: str) -> str:
    """The English of a call-off ``reason``: :data:`REASONS` for a code, else ``reason``."""
    return REASONS.get(reason, reason)
#: The looks a user may keep with their account (the door's ``look.LOOKS``; ``""``: as
#: their terminal allows) and the suits (``look.SUIT_CHOICES``; ``""``: the default).
ACCOUNT_LOOKS = ("", "colour", "classic")
ACCOUNT_SUITS = ("", "symbols", "gv")
#: Table id of games recorded before tables had ids (schema version 1), and the id of
#: the one table an old config describes.
DEFAULT_TABLE = "poker"


class HandleTaken(Exception):
    """An account with that handle (compared without regard to case) already exists
    (``code`` ``taken``), or one it looks too much like (``alike``); ``data``: ``handle``
    and ``like``. ``str()`` is the English (the admin CLI)."""

    def __init__(self, message: str, code: str = "taken", **data: str) -> None:
        super().__init__(message)
        self.code, self.data = code, data


class BbsSignupsFull(Exception):
    """A BBS's callers have had their ``signups_per_day`` new accounts in the last 24
    hours: no more until the oldest of them is a day old."""


class InvalidHandle(ValueError):
    """A handle :func:`validate_handle` refuses. ``code`` says why (``length``,
    ``printable``, ``width``, ``reserved``, ``blank``), ``data`` its details (``handle``);
    ``str()`` is the English (the admin CLI), the door shows ``code`` in the user's
    language."""

    def __init__(self, code: str, message: str, **data: str) -> None:
        super().__init__(message)
        self.code, self.data = code, data


class LedgerError(StoreError):
    """The database cannot be used: an unreadable file or unreachable server, or a schema
    newer than this code."""


class IntegrityViolation(StoreError):
    """A statement broke one of the schema's constraints (a unique key, a foreign key, a
    check): SQLite's or PostgreSQL's integrity error, wrapped by the writer."""


@functools.lru_cache(maxsize=4096)
def handle_key(handle: str) -> str:
    """The form of a handle used for uniqueness and look-up: NFKC, then case-folded.

    ``"Alice"``, ``"ALICE"`` and full-width ``"Ａｌｉｃｅ"`` share one key. Cached
    (the last 4096 handles): every balance look-up goes through it.
    """
    return unicodedata.normalize("NFKC", handle).casefold()


#: Characters that draw nothing but are not spaces (so that "bob" + U+2800 cannot pass
#: for "bob"): braille blank, Hangul fillers, and the like.
_BLANKS = frozenset("\u2800\u3164\u115f\u1160\uffa0\u180e\u2060\u3000\u00a0\u00ad")
#: Names a new handle may not look like (a chat line from "SYSTEM" would look like the
#: table's own messages): the message area's tags and staff names; and ``new``, the
#: SSH user name that signs up.
RESERVED = ("system", "info", "sysop", "admin", "administrator", "moderator", "staff",
            "server", "bbspoker", "x-message", "nobody", "new")


def _is_ascii_alnum(text: str) -> bool:
    return len(text) == 1 and text.isascii() and text.isalnum()


@functools.cache
def _ascii_classes() -> dict[str, str]:
    """Each ASCII letter and digit -> the smallest one of its class, where a class joins
    the two cases of a letter and what Unicode's confusables (``confusable_homoglyphs``)
    call look-alikes among them: ``{0, o, O}``, ``{1, i, I, l, L}``, ..."""
    chars = [chr(c) for c in range(128) if chr(c).isalnum()]
    parent = {c: c for c in chars}

    def find(c: str) -> str:
        while parent[c] != c:
            parent[c] = parent[parent[c]]
            c = parent[c]
        return c

    def union(a: str, b: str) -> None:
        ra, rb = find(a), find(b)
        parent[max(ra, rb)] = min(ra, rb)

    for c in chars:
        union(c, c.lower())
        union(c, c.upper())
        for entry in confusables_data.get(c, ()):
            if _is_ascii_alnum(entry["c"]):
                union(c, entry["c"])
    return {c: find(c) for c in chars}


@functools.lru_cache(maxsize=4096)
def handle_skeleton(handle: str) -> str:
    """The form of a handle under which look-alikes collide (after Unicode TS #39's
    skeletons, with the confusables data of ``confusable_homoglyphs``): NFKD, so that an
    accented letter is its base letter and its marks, then the marks (categories ``Mn``,
    ``Me``: ``É`` and ``E`` + U+0307 look like ``E``) and characters that draw nothing
    dropped, every other character replaced by the class of the ASCII letter or digit it
    looks like (Cyrillic ``а`` as ``a``; ``0``, ``o`` and ``O`` alike; ``1``, ``I`` and
    ``l`` alike; the two cases of a letter alike), the rest case-folded.
    Two accounts with one skeleton cannot both be made."""
    classes = _ascii_classes()
    out = []
    for ch in unicodedata.normalize("NFKD", handle):
        if ch in _BLANKS or unicodedata.category(ch) in ("Cf", "Mn", "Me", "Zs"):
            continue
        if ch in classes:
            out.append(classes[ch])
            continue
        look = [e["c"] for e in confusables_data.get(ch, ()) if _is_ascii_alnum(e["c"])]
        out.append(classes[min(look)] if look else ch.casefold())
    return "".join(out)


_RESERVED_SKELETONS = frozenset(handle_skeleton(name) for name in RESERVED)


#: What joins a BBS caller's alias and the BBS's tag in their handle (``alice@EN``); no
#: handle made here contains it, so a BBS's callers never meet this server's own users.
BBS_SEPARATOR = "@"
_TAG_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")


def _is_tag(tag: str) -> bool:
    """Whether ``tag`` is a BBS tag: 2-8 ASCII letters or digits."""
    return 2 <= len(tag) <= 8 and all(ch in _TAG_CHARS for ch in tag)


def bbs_handle(alias: str, tag: str) -> str:
    """The handle of the caller ``alias`` of the BBS ``tag``: ``alias@tag``. The alias
    must pass :func:`validate_handle` as a new handle (2-16 printable characters, no
    reserved or look-alike name, no ``@``); raises :class:`InvalidHandle` (or
    ``ValueError`` for a tag that is not 2-8 letters or digits)."""
    if not _is_tag(tag):
        raise ValueError(f"a BBS tag has 2 to 8 letters or digits, got {tag!r}")
    return f"{validate_handle(alias)}{BBS_SEPARATOR}{tag}"


def validate_handle(handle: str, new: bool = True) -> str:
    """Check a handle typed at the login prompt or given to the CLI; return it as stored.

    A handle ``alias@TAG`` names the account of a BBS's caller (:func:`bbs_handle`): it is
    accepted to log in with (``new`` False) when ``alias`` passes the rule below and
    ``TAG`` is 2-8 letters or digits; a new handle never contains ``@``.

    Rule: surrounding spaces are dropped; then 2-16
    printable characters (no C0/C1 controls, DEL, ESC, bidi or zero-width
    characters), at most 16 terminal columns wide (``wcwidth``), and not the
    reserved name of the :data:`~bbspoker.store.wallet.SYSTEM` account. For a ``new``
    handle also: no character that draws nothing but a plain space inside,
    and nothing that looks like a name of :data:`RESERVED`. Raises ``ValueError`` with a
    message fit to show the user (:class:`InvalidHandle`).
    """
    text = handle.strip()
    if BBS_SEPARATOR in text:
        alias, _, tag = text.rpartition(BBS_SEPARATOR)
        if new or not _is_tag(tag) or BBS_SEPARATOR in alias:
            raise InvalidHandle("at", f"a handle may not contain {BBS_SEPARATOR}")
        return f"{validate_handle(alias, new=False)}{BBS_SEPARATOR}{tag}"
    if not 2 <= len(text) <= 16:
        raise InvalidHandle("length", "a handle has 2 to 16 characters")
    # The one allowlist for user text on screens (bbspoker.text), plus U+FFFD: what
    # undecodable input turns into is no character anyone meant to type.
    if not text.isprintable() or clean_text(text) != text or "\ufffd" in text:
        raise InvalidHandle("printable", "a handle may only contain printable characters")
    if wcwidth.wcswidth(text) > 16:
        raise InvalidHandle("width", "a handle may be at most 16 columns wide")
    if handle_key(text) == handle_key(SYSTEM):
        raise InvalidHandle("reserved", f"the handle {SYSTEM} is reserved", handle=SYSTEM)
    if new:
        if any(ch in _BLANKS or (ch.isspace() and ch != " ") for ch in text) \
                or not text.replace(" ", ""):
            raise InvalidHandle("blank", "a handle may not contain blank or invisible "
                                "characters")
        if handle_skeleton(text) in _RESERVED_SKELETONS:
            raise InvalidHandle("reserved", f"the handle {text} is reserved", handle=text)
    return text


@dataclass(frozen=True)
class Notice:
    """A message waiting for a user's next login, stored as a code and data so
    that the door renders it in the reader's language.

    ``code``: ``game_cancelled`` (data ``game``, ``reason`` -- a code of :data:`REASONS`
    or an admin's words --, ``cubes`` refunded, ``table``: the table whose stack they went
    back to, or None for the balance) or ``stack_cashed_out`` (data ``table``, ``cubes``,
    ``reason``); ``None`` for a notice stored before schema 12, whose ``text`` is all
    there is. ``text``: the English rendering (the admin CLI). ``at``: Unix seconds."""

    code: str | None
    data: dict
    text: str
    at: float


@dataclass(frozen=True)
class Account:
    """One user account. ``cubes`` in CUBES; ``created``/``last_seen`` in Unix seconds
    (``last_seen`` is ``None`` until the first ``Ledger.touch``); ``bot``: a computer
    player's account (``users add --bot``), which plays at tables through the bots' own
    path and never logs in at the door; ``approved``: False while a new account waits for
    the sysop (``[login] approval``); ``bbs``: the tag of the BBS whose caller the
    account was made for (handle ``alias@TAG``), ``None`` for an account of this
    server's own; ``look`` and ``suits``: the user's choices in the lobby's [O]
    (:data:`ACCOUNT_LOOKS`, :data:`ACCOUNT_SUITS`; ``""``: none made)."""

    handle: str
    cubes: int
    created: float
    last_seen: float | None
    banned: bool
    ban_reason: str | None
    bot: bool = False
    approved: bool = True
    bbs: str | None = None
    look: str = ""
    suits: str = ""


@dataclass(frozen=True)
class JournalRow:
    """One movement of CUBES.

    ``amount`` is signed CUBES (negative leaves the account); ``balance`` is
    the account's CUBES after the row. ``reason`` is ``ante``/``bet`` (or what
    the table passed), ``win``, ``pot-to-system``, ``refund``, ``signup``,
    ``grant``, ``take`` or ``set``; at a table-stakes table ``buy-in``, ``cash-out``,
    ``blind``; a tournament's pool ``tournament_buy_in``, ``tournament_refund``,
    ``tournament_prize`` (with ``tournament_id``). ``game_id`` is set for game rows; ``note`` holds the admin's reason text
    or the refund reason; ``actor`` the OS user of an admin row (``system:signup`` for
    starting CUBES). ``at``: Unix seconds. ``stack_table``: ``None`` for a movement of
    the account's balance; a table id for one of the player's stack at that table
    (``balance`` is then the stack after the row). ``tournament_id``: the tournament whose
    prize pool the row paid into (negative) or out of (positive), else ``None``.
    """

    id: int
    handle: str
    amount: int
    reason: str
    game_id: int | None
    at: float
    balance: int
    note: str | None
    actor: str | None
    stack_table: str | None = None
    tournament_id: int | None = None


@dataclass(frozen=True)
class GameRecord:
    """One game as recorded: players in seat order, ``deck_hash`` the commitment to its
    deck (SHA-256 hex of the server seed; before schema 8, of the deck order),
    start/end in Unix seconds (``ended_at`` ``None`` while open), the winner,
    ``end_reason`` (``"finished"`` or why it was cancelled), the CUBES in its
    pot now, the hand history mapping stored at the end (``None`` while open),
    the id of the table it was played at (``[[tables]] id``), the ``client_seeds`` in seat
    order (``None`` for a deck not from the published shuffle), the ``server_seed``
    (hex; ``None`` while the game runs: it is revealed only once the game has ended) and
    ``tournament``: the id of the tournament whose hand it was (played for its chips:
    it moves no CUBES), ``None`` for a CUBES game."""

    id: int
    players: list[str]
    deck_hash: str
    started_at: float
    ended_at: float | None
    winner: str | None
    end_reason: str | None
    pot: int
    history: dict[str, Any] | None
    table: str = DEFAULT_TABLE
    client_seeds: list[str] | None = None
    server_seed: str | None = None
    tournament: int | None = None

    @property
    def commitment(self) -> str:
        """The commitment shown at the start (SHA-256 hex of the server seed)."""
        return self.deck_hash


@dataclass(frozen=True)
class Publication:
    """A deck commitment a table published for its next game (schema 15): the ``table``
    id, the ``commitment`` (SHA-256 hex of the server seed, which this record does not
    hold), ``published_at`` (Unix seconds) and the ``game_id`` dealt from it (``None``
    while none is)."""

    table: str
    commitment: str
    published_at: float
    game_id: int | None


PUBLICATION_SELECT = "SELECT table_id, commitment, published_at, game_id FROM commitments"


@dataclass(frozen=True)
class PlayerStats:
    """One player's results at one table (``table`` id): games played (finished games the
    player paid into, or, in a game that moved no CUBES, was dealt into), games won (a pot
    or a share of it taken; without CUBES, ranked first), CUBES won (pots taken, the
    winner's own antes and bets in them, at every game kind: journal ``win``), CUBES paid
    in (antes, blinds and bets of finished games, less uncalled bets given back: journal
    ``return``), the biggest pot won (CUBES)."""

    table: str
    played: int
    won: int
    cubes_won: int
    cubes_paid: int
    biggest_pot: int

    @property
    def net(self) -> int:
        """CUBES won less CUBES paid in."""
        return self.cubes_won - self.cubes_paid


@dataclass(frozen=True)
class Totals:
    """Where all CUBES are, for ``ledger verify``: ``grants`` and ``takes`` (both >= 0)
    are the money that entered/left through rows with no game; ``accounts`` is the
    sum of user balances, ``system`` the SYSTEM account, ``open_pots`` what open
    games hold, ``stacks`` what players hold at table-stakes tables, ``pools`` what the
    prize pools of tournaments registering or running hold. Conservation:
    ``accounts + system + open_pots + stacks + pools == grants - takes``."""

    grants: int
    takes: int
    accounts: int
    system: int
    open_pots: int
    stacks: int = 0
    pools: int = 0


ACCOUNT_COLUMNS = ("handle, cubes, created, last_seen, banned, ban_reason, bot, approved, bbs, "
                   "look, suits")
JOURNAL_SELECT = """SELECT j.id, a.handle, j.amount, j.reason, j.game_id, j.at,
                           j.balance, j.note, j.actor, j.stack_table, j.tournament_id
                    FROM journal j JOIN accounts a ON a.id = j.account_id"""
#: Journal reasons that move CUBES between a balance and a stack (rows that come in pairs
#: summing to zero: neither a grant nor a take).
STACK_TRANSFERS = ("buy-in", "cash-out")
GAME_SELECT = """SELECT g.id, g.players, g.deck_hash, g.started_at, g.ended_at, g.winner,
                        g.end_reason,
                        -(SELECT COALESCE(SUM(amount), 0) FROM journal WHERE game_id = g.id),
                        g.history, g.table_id, g.client_seeds,
                        CASE WHEN g.ended_at IS NULL THEN NULL ELSE g.server_seed END,
                        g.tournament_id
                 FROM games g"""


def account_of(row: tuple) -> Account:
    """An :class:`Account` from a row of :data:`ACCOUNT_COLUMNS`."""
    handle, cubes, created, last_seen, banned, ban_reason, bot, approved, bbs, look, suits = row
    return Account(handle, cubes, created, last_seen, bool(banned), ban_reason, bool(bot),
                   bool(approved), bbs, look, suits)


def game_of(row: tuple) -> GameRecord:
    """A :class:`GameRecord` from a row of :data:`GAME_SELECT`."""
    (gid, players, deck_hash, started, ended, winner, end_reason, pot, history, table,
     client_seeds, server_seed, tournament) = row
    return GameRecord(gid, json.loads(players), deck_hash, started, ended, winner,
                      end_reason, pot, None if history is None else json.loads(history),
                      table, None if client_seeds is None else json.loads(client_seeds),
                      server_seed, tournament)
