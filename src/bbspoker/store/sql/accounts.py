"""User accounts and the notices waiting for them: :class:`Accounts`.

An account is a handle (unique without regard to case, see ``records.handle_key``), a
password hash, CUBES and a ban flag. Accounts are never deleted or renamed. A new
account's starting CUBES are a journalled movement (reason ``signup``) like any other.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from bbspoker.rules.fairness import clean_phrase
from bbspoker.rules.money import MAX_CUBES
from bbspoker.store.sql.books import Books
from bbspoker.store.sql.records import (
    ACCOUNT_COLUMNS, ACCOUNT_LOOKS, ACCOUNT_SUITS, ALLOWANCE_ACTOR, SIGNUP_ACTOR, Account, BbsSignupsFull, HandleTaken,
    IntegrityViolation, Notice, account_of, bbs_handle, handle_key, handle_skeleton, validate_handle,
)
from bbspoker.store.wallet import UnknownAccount
from bbspoker.text import clean_text

__all__ = ["Accounts"]


class Accounts:
    """Accounts on ``books``' connection; ``starting_cubes`` (>= 0) is what an account
    made without an explicit amount receives."""

    def __init__(self, books: Books, starting_cubes: int) -> None:
        if starting_cubes < 0:
            raise ValueError(f"starting_cubes must be >= 0, got {starting_cubes}")
        self.books = books
        self.starting_cubes = starting_cubes
        # handle_key -> client seed phrase (None: random), as read or set by this process:
        # a game's start asks for the seated players' phrases without running SQL.
        self._phrases: dict[str, str | None] = {}
        #: Bans and kicks made on this connection (another connection's show in the
        #: writer's ``data_version``): see :meth:`admin_version`.
        self.bans_here = 0

    def find_account(self, handle: str) -> Account | None:
        """The account with that handle (any case), or ``None``."""
        row = self.books.w.sql(f"SELECT {ACCOUNT_COLUMNS} FROM accounts WHERE handle_key = ?",
                               (handle_key(handle),)).fetchone()
        return None if row is None else account_of(row)

    def check_new_handle(self, handle: str) -> str:
        """The handle as it would be stored for a new account; raises ValueError (see
        ``validate_handle``: reserved, invisible characters ...) or :class:`HandleTaken`
        (taken, or too much like an existing one), before anyone types a password."""
        handle = validate_handle(handle)
        self._check_unique(handle)
        return handle

    def _check_unique(self, handle: str) -> None:
        """Raise :class:`HandleTaken` if an account has ``handle`` (any case) or one that
        looks too much like it (the same skeleton)."""
        alike = self.books.w.sql("SELECT handle FROM accounts WHERE skeleton = ? OR "
                                 "handle_key = ?", (handle_skeleton(handle),
                                                    handle_key(handle))).fetchone()
        if alike is not None:
            if handle_key(alike[0]) == handle_key(handle):
                raise HandleTaken(f"the handle {handle} is taken", handle=handle)
            raise HandleTaken(f"{handle} looks too much like {alike[0]}", "alike",
                              handle=handle, like=alike[0])

    def create_account(self, handle: str, password_hash: str | None, cubes: int | None = None,
                       *, actor: str = SIGNUP_ACTOR, bot: bool = False,
                       approved: bool = True, signup_from: str | None = None,
                       bbs: str | None = None) -> Account:
        """Create an account with ``cubes`` (default: ``starting_cubes``) starting CUBES.

        The starting CUBES are journalled as reason ``signup`` by ``actor``
        (``system:signup`` at the login prompt, the sysop's OS user from the CLI) and
        count as a grant. ``bot``: a computer player's account; ``password_hash`` may then
        be ``None`` (no password: it can log in nowhere, and plays only at tables whose
        config seats bots). ``approved`` False: the account waits for :meth:`approve` and
        gets no CUBES until then. ``signup_from``: the address (group) an account made at
        the login prompt came from, kept with the time for :meth:`recent_signups` (the
        sign-ups per address outlive a restart). ``bbs``: the tag of the BBS whose caller
        the account is for, ``handle`` then being ``alias@TAG`` as :func:`bbs_handle` made
        it (:meth:`bbs_account` calls it so). Raises ValueError (bad handle, see
        :meth:`check_new_handle`, or ``cubes`` out of range), :class:`HandleTaken`, or
        :class:`~bbspoker.store.wallet.StoreError` if the database cannot store it (disk full: nothing is made).
        """
        if bbs is None:
            handle = validate_handle(handle)
        cubes = self.starting_cubes if cubes is None else cubes
        if not approved:
            cubes = 0
        if not 0 <= cubes <= MAX_CUBES:
            raise ValueError(f"starting CUBES must be between 0 and {MAX_CUBES:,}, got {cubes:,}")
        books, w = self.books, self.books.w
        now = books.clock()
        with w.write():
            self._check_unique(handle)        # inside the write lock: nobody slips in
            try:
                account_id: int = w.sql(
                    "INSERT INTO accounts (handle, handle_key, password_hash, cubes, created, "
                    "bot, approved, skeleton, bbs) VALUES (?, ?, ?, 0, ?, ?, ?, ?, ?) "
                    "RETURNING id",
                    (handle, handle_key(handle), password_hash, now, int(bot),
                     int(approved), handle_skeleton(handle), bbs)).fetchone()[0]
            except IntegrityViolation:
                raise HandleTaken(f"the handle {handle} is taken", handle=handle) from None
            books.new_account(account_id)
            books.move(account_id, cubes, "signup", None, "account created", actor)
            if signup_from is not None:
                w.sql("INSERT INTO signups (address, at) VALUES (?, ?)", (signup_from, now))
        return Account(handle, cubes, now, None, False, None, bot, approved, bbs)

    def bbs_account(self, alias: str, tag: str, *, starting_cubes: int | None = None,
                    signups_per_day: int = 50, day: float = 86400.0) -> tuple[Account, bool]:
        """The account of the caller ``alias`` of the BBS ``tag`` (handle ``alias@TAG``,
        :func:`bbs_handle`), made on their first visit: no password (it logs in only
        through its BBS until its owner sets one), ``starting_cubes`` CUBES (default: the
        ledger's), journalled as ``signup`` by ``system:bbs:TAG``. Returns ``(account,
        made now)``. Raises :class:`~bbspoker.store.sql.records.InvalidHandle` (an alias
        the handle rules refuse), :class:`HandleTaken` (one too much like another caller's
        of the same BBS), :class:`BbsSignupsFull` when ``signups_per_day`` accounts of the
        BBS were made within the last ``day`` seconds, or :class:`~bbspoker.store.wallet.StoreError`."""
        handle = bbs_handle(alias, tag)
        account = self.find_account(handle)
        if account is not None:
            return account, False
        w = self.books.w
        with w.write():
            made = w.sql("SELECT COUNT(*) FROM accounts WHERE bbs = ? AND created > ?",
                         (tag, self.books.clock() - day)).fetchone()[0]
            if made >= signups_per_day:
                raise BbsSignupsFull(f"{tag} had {made} new accounts in the last day")
            return self.create_account(handle, None, starting_cubes, actor=f"system:bbs:{tag}",
                                       bbs=tag), True

    def ban_bbs(self, tag: str, reason: str, actor: str) -> None:
        """Refuse every caller of the BBS ``tag`` (any case) from now on, and end the
        sessions of those online (``bbs ban``); ``reason`` is stored without control or
        escape characters. Raises ValueError for a reason with nothing printable."""
        reason = clean_text(reason).strip()
        if not reason:
            raise ValueError("a ban needs a reason")
        w = self.books.w
        with w.write():
            w.sql("INSERT INTO bbs_bans (tag_key, tag, reason, at, actor) VALUES (?, ?, ?, ?, ?) "
                  "ON CONFLICT (tag_key) DO UPDATE SET tag = excluded.tag, reason = "
                  "excluded.reason, at = excluded.at, actor = excluded.actor",
                  (tag.lower(), tag, reason, self.books.clock(), actor))
        self.bans_here += 1

    def unban_bbs(self, tag: str) -> bool:
        """Lift the ban of the BBS ``tag``; ``False`` if it was not banned."""
        w = self.books.w
        with w.write():
            return w.sql("DELETE FROM bbs_bans WHERE tag_key = ?", (tag.lower(),)).rowcount > 0

    def bbs_ban(self, tag: str) -> str | None:
        """Why the BBS ``tag`` (any case) is banned, or ``None`` if it is not."""
        row = self.books.w.sql("SELECT reason FROM bbs_bans WHERE tag_key = ?",
                               (tag.lower(),)).fetchone()
        return None if row is None else row[0]

    def bbs_bans(self) -> list[tuple[str, str, float, str | None]]:
        """Every banned BBS, by tag: ``[(tag, reason, Unix seconds, actor)]``."""
        return [tuple(r) for r in self.books.w.sql(
            "SELECT tag, reason, at, actor FROM bbs_bans ORDER BY tag_key")]

    def bbs_callers(self) -> dict[str, int]:
        """How many accounts each BBS's callers have: ``{tag: accounts}``."""
        return dict(self.books.w.sql("SELECT bbs, COUNT(*) FROM accounts WHERE bbs IS NOT NULL "
                                     "GROUP BY bbs").fetchall())

    def recent_signups(self, window: float) -> list[tuple[str, float]]:
        """The accounts made at the login prompt within the last ``window`` seconds, oldest
        first: ``[(address group, age in seconds)]`` (``create_account``'s
        ``signup_from``). Older rows are deleted: an address is kept no longer than the
        sign-up limit needs it (until the next start after its window)."""
        books, w = self.books, self.books.w
        now = books.clock()
        with w.write():
            w.sql("DELETE FROM signups WHERE at <= ?", (now - window,))
        return [(address, now - at) for address, at in w.sql(
            "SELECT address, at FROM signups ORDER BY at, id").fetchall()]

    def approve(self, handle: str, actor: str, cubes: int | None = None) -> int:
        """Let a waiting account log in and give it its starting CUBES (``cubes``, default
        ``starting_cubes``; journalled as ``signup`` by ``actor``, note ``account approved``).
        Returns its CUBES. Raises UnknownAccount, or ValueError if it was approved already."""
        cubes = self.starting_cubes if cubes is None else cubes
        if not 0 <= cubes <= MAX_CUBES:
            raise ValueError(f"starting CUBES must be between 0 and {MAX_CUBES:,}, got {cubes:,}")
        books, w = self.books, self.books.w
        with w.write():
            account_id = books.account_id(handle)
            if w.sql("UPDATE accounts SET approved = 1 WHERE id = ? AND approved = 0",
                     (account_id,)).rowcount == 0:
                raise ValueError(f"{handle} does not wait for approval")
            return books.move(account_id, cubes, "signup", None, "account approved", actor)

    def allowance(self, handle: str, cubes: int, below: int, every: float = 86400.0) -> int | None:
        """The house's allowance (``[ledger] allowance``): if ``handle`` holds fewer than
        ``below`` CUBES and got no allowance in the last ``every`` seconds, give it
        ``cubes`` (journalled as ``allowance`` by ``system:allowance``) and return its new
        balance; else ``None``. Raises UnknownAccount."""
        if cubes <= 0:
            return None
        books, w = self.books, self.books.w
        with w.write():
            account_id = books.account_id(handle)
            if books.cached_balance(account_id) >= below:
                return None
            last = w.sql("SELECT MAX(at) FROM journal WHERE account_id = ? AND reason = "
                         "'allowance'", (account_id,)).fetchone()[0]
            if last is not None and last > books.clock() - every:
                return None
            return books.move(account_id, cubes, "allowance", None, "daily allowance",
                              ALLOWANCE_ACTOR)

    def password_hash(self, handle: str) -> str | None:
        """The stored password hash of ``handle``, or ``None`` if there is no such account."""
        row = self.books.w.sql("SELECT password_hash FROM accounts WHERE handle_key = ?",
                               (handle_key(handle),)).fetchone()
        return None if row is None else row[0]

    def _update(self, handle: str, assignments: str, params: tuple) -> None:
        w = self.books.w
        with w.write():
            if w.sql(f"UPDATE accounts SET {assignments} WHERE handle_key = ?",
                     (*params, handle_key(handle))).rowcount == 0:
                raise UnknownAccount(handle)

    def set_password_hash(self, handle: str, password_hash: str) -> None:
        """Replace the password hash of ``handle``; raises UnknownAccount."""
        self._update(handle, "password_hash = ?", (password_hash,))

    def touch(self, handle: str) -> None:
        """Set ``last_seen`` of ``handle`` to now; raises UnknownAccount."""
        self._update(handle, "last_seen = ?", (self.books.clock(),))

    def ban(self, handle: str, reason: str) -> None:
        """Bar ``handle`` from logging in, recording ``reason`` without control or escape
        characters (:func:`~bbspoker.text.clean_text`; nothing printable left: ValueError);
        raises UnknownAccount. CUBES are untouched."""
        reason = clean_text(reason).strip()
        if not reason:
            raise ValueError("a ban needs a reason")
        self._update(handle, "banned = 1, ban_reason = ?", (reason,))
        self.bans_here += 1

    def unban(self, handle: str) -> None:
        """Lift a ban; raises UnknownAccount."""
        self._update(handle, "banned = 0, ban_reason = NULL", ())

    def client_seeds_of(self, handles: Sequence[str]) -> dict[str, str | None]:
        """The client seed phrases ``handles`` chose for the provably fair shuffle:
        ``{handle in lower case: phrase, or None for a random seed each game}``;
        unknown handles are left out. Read once per handle, then from memory."""
        keys = [handle_key(h) for h in handles]
        missing = [k for k in keys if k not in self._phrases]
        if missing:
            rows = self.books.w.sql(
                f"SELECT handle_key, client_seed FROM accounts WHERE handle_key IN "
                f"({','.join('?' * len(missing))})", tuple(missing)).fetchall()
            self._phrases.update(rows)
        return {h.lower(): self._phrases[k] for h, k in zip(handles, keys) if k in self._phrases}

    def set_client_seed(self, handle: str, phrase: str | None) -> str | None:
        """Make ``phrase`` ``handle``'s client seed from the next game on (``None`` or
        blank: a random one each game); returns it as stored
        (:func:`bbspoker.rules.fairness.clean_phrase`). Raises ValueError (control
        characters, too long) or UnknownAccount."""
        phrase = clean_phrase(phrase or "")
        self._update(handle, "client_seed = ?", (phrase,))
        self._phrases[handle_key(handle)] = phrase
        return phrase

    def language_of(self, handle: str) -> str | None:
        """The language ``handle`` chose (``"en"``, ``"de"``, ``"fr"``), or
        ``None`` if they never chose one or there is no such account."""
        row = self.books.w.sql("SELECT language FROM accounts WHERE handle_key = ?",
                               (handle_key(handle),)).fetchone()
        return None if row is None else row[0]

    def set_language(self, handle: str, language: str) -> None:
        """Remember ``language`` (a code of :data:`bbspoker.door.i18n.LANGUAGES`) for
        ``handle``. Raises UnknownAccount."""
        self._update(handle, "language = ?", (language,))

    def set_look(self, handle: str, look: str, suits: str) -> None:
        """Remember the look (:data:`~bbspoker.store.sql.records.ACCOUNT_LOOKS`:
        ``""``, ``"colour"``, ``"classic"``) and the suits (``ACCOUNT_SUITS``: ``""``,
        ``"symbols"``, ``"gv"``) ``handle`` chose, read back as the account's ``look`` and
        ``suits``. Raises ValueError for any other value (nothing changes) or
        UnknownAccount."""
        if look not in ACCOUNT_LOOKS or suits not in ACCOUNT_SUITS:
            raise ValueError(f"no such look {look!r} or suits {suits!r}")
        self._update(handle, "look = ?, suits = ?", (look, suits))

    def block(self, recipient: str, sender: str) -> None:
        """``recipient`` takes no X-messages from ``sender`` any more (kept across
        restarts). Raises UnknownAccount."""
        books, w = self.books, self.books.w
        with w.write():
            w.sql("INSERT INTO blocks (account_id, blocked_id, at) VALUES (?, ?, ?) "
                  "ON CONFLICT DO NOTHING",
                  (books.account_id(recipient), books.account_id(sender), books.clock()))

    def unblock(self, recipient: str, sender: str) -> None:
        """Lift ``recipient``'s block of ``sender`` (nothing if there is none). Raises
        UnknownAccount."""
        books, w = self.books, self.books.w
        with w.write():
            w.sql("DELETE FROM blocks WHERE account_id = ? AND blocked_id = ?",
                  (books.account_id(recipient), books.account_id(sender)))

    def blocks(self) -> list[tuple[str, str]]:
        """Every block, ``[(recipient handle, blocked sender handle)]``."""
        return [(r, s) for r, s in self.books.w.sql(
            "SELECT r.handle, s.handle FROM blocks b JOIN accounts r ON r.id = b.account_id "
            "JOIN accounts s ON s.id = b.blocked_id ORDER BY b.account_id, b.blocked_id")]

    def list_accounts(self, bots: bool | None = None) -> list[Account]:
        """All user accounts (not SYSTEM), ordered by handle without regard to case;
        ``bots`` True: only computer players', False: only people's."""
        where = "" if bots is None else f" AND bot = {int(bots)}"
        rows = self.books.w.sql(f"SELECT {ACCOUNT_COLUMNS} FROM accounts WHERE id != ?{where} "
                                "ORDER BY handle_key", (self.books.system_id,)).fetchall()
        return [account_of(r) for r in rows]

    def kick(self, handle: str, reason: str, actor: str) -> None:
        """Ask the running server to end ``handle``'s session (``users kick``): a row it
        takes within a second or two (:meth:`take_kicks`); ``reason``, shown to the
        user, is stored without control or escape characters
        (:func:`~bbspoker.text.clean_text`). Raises UnknownAccount, or ValueError for a
        reason with nothing printable."""
        reason = clean_text(reason).strip()
        if not reason:
            raise ValueError("a kick needs a reason")
        books, w = self.books, self.books.w
        with w.write():
            w.sql("INSERT INTO kicks (account_id, reason, at, actor) VALUES (?, ?, ?, ?)",
                  (books.account_id(handle), reason, books.clock(), actor))
        self.bans_here += 1

    def take_kicks(self) -> list[tuple[str, str]]:
        """The kicks waiting, ``[(handle, reason)]`` oldest first, deleted as they are
        taken. Runs only a read when there is none."""
        w = self.books.w
        if w.sql("SELECT 1 FROM kicks LIMIT 1").fetchone() is None:
            return []
        with w.write():
            rows = w.sql("SELECT k.id, a.handle, k.reason FROM kicks k JOIN accounts a "
                         "ON a.id = k.account_id ORDER BY k.id").fetchall()
            w.sql("DELETE FROM kicks WHERE id <= ?", (rows[-1][0],))
        return [(handle, reason) for _, handle, reason in rows]

    def admin_version(self) -> tuple[int, int]:
        """A value that changes whenever a ban or kick may have been made since it was last
        read: the writer's ``data_version`` (another connection committed: the admin CLI) and
        the bans and kicks made on this connection. The server's watch over the online
        users (:meth:`take_kicks`, :meth:`banned_among`) skips its reads while it stays
        the same (they would otherwise run every second over every online handle)."""
        return self.books.w.data_version(), self.bans_here

    def banned_among(self, handles: list[str]) -> dict[str, str]:
        """``{handle: ban reason}`` of those of ``handles`` who are banned now, their own
        account or their BBS (``bbs ban``)."""
        if not handles:
            return {}
        keys = {handle_key(h): h for h in handles}
        rows = self.books.w.sql(
            "SELECT a.handle_key, CASE WHEN a.banned = 1 THEN a.ban_reason ELSE b.reason END "
            "FROM accounts a LEFT JOIN bbs_bans b ON b.tag_key = lower(a.bbs) "
            "WHERE (a.banned = 1 OR b.tag_key IS NOT NULL) AND a.handle_key IN "
            f"({','.join('?' * len(keys))})", tuple(keys)).fetchall()
        return {keys[key]: reason or "" for key, reason in rows}

    def add_user_key(self, handle: str, key: str, fingerprint: str, comment: str,
                     actor: str) -> bool:
        """Let ``handle`` log in over SSH with the public key ``key`` (one OpenSSH line,
        ``"<type> <base64>"``, checked by the caller) whose ``fingerprint`` is given
        (``SHA256:...``), with ``comment`` (may be empty) and the ``actor`` who added it.
        Returns ``False`` (nothing changed) if the account has that key already.
        Raises UnknownAccount, or ValueError for an empty key or fingerprint."""
        if not key.strip() or not fingerprint.strip():
            raise ValueError("a key and its fingerprint are needed")
        books, w = self.books, self.books.w
        with w.write():
            return w.sql("INSERT INTO user_keys (account_id, key, fingerprint, comment, "
                         "added_at, actor) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                         (books.account_id(handle), key.strip(), fingerprint.strip(),
                          comment, books.clock(), actor)).rowcount == 1

    def user_keys(self, handle: str) -> list[tuple[str, str, str]]:
        """``handle``'s SSH public keys, oldest first: ``[(key line, fingerprint,
        comment)]``; empty for an unknown handle."""
        return [tuple(r) for r in self.books.w.sql(
            "SELECT k.key, k.fingerprint, k.comment FROM user_keys k JOIN accounts a "
            "ON a.id = k.account_id WHERE a.handle_key = ? ORDER BY k.id",
            (handle_key(handle),))]

    def remove_user_key(self, handle: str, fingerprint: str) -> bool:
        """Forget ``handle``'s key with ``fingerprint``; ``False`` if it had none such.
        Raises UnknownAccount."""
        books, w = self.books, self.books.w
        with w.write():
            return w.sql("DELETE FROM user_keys WHERE account_id = ? AND fingerprint = ?",
                         (books.account_id(handle), fingerprint.strip())).rowcount > 0

    def notices(self, handle: str) -> list[Notice]:
        """Messages waiting for ``handle`` (oldest first), shown at the next login:
        :class:`~bbspoker.store.sql.records.Notice` (code, data, English text); raises
        UnknownAccount."""
        account_id = self.books.account_id(handle)
        return [Notice(code, json.loads(data) if data else {}, text, at)
                for code, data, text, at in self.books.w.sql(
                    "SELECT code, data, text, at FROM notices WHERE account_id = ? "
                    "ORDER BY id", (account_id,))]

    def clear_notices(self, handle: str) -> None:
        """Delete the notices of ``handle`` once shown; raises UnknownAccount."""
        w = self.books.w
        with w.write():
            w.sql("DELETE FROM notices WHERE account_id = ?", (self.books.account_id(handle),))
