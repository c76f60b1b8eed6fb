"""The CUBES movements of the :class:`~bbspoker.store.wallet.Wallet` interface and the
caches that make them cheap: :class:`Books`.

Every movement is one ``journal`` row written in the same transaction as the balance it
changes (:meth:`Books.move`); a debit below zero is refused before anything is queued. The
pot of a game is not stored anywhere else: it is minus the sum of that game's journal rows.

The caches (account ids, balances, which games are open with their pots, the next game
id) are exact while this connection holds the database's write lock and are trusted only while
no other connection has committed: the :class:`~bbspoker.store.sql.writer.Writer`
calls :meth:`Books.forget` when another connection committed and after any rollback.
So the table's ante, bet, payout and end of a game run no SQL statement but the queued
ones (see ``writer``).
"""

from __future__ import annotations

import json
from typing import Any, Callable, Mapping, Sequence

from bbspoker.rules.fairness import Seal, commitment
from bbspoker.store.sql.records import CRASH_REASON, DEFAULT_TABLE, handle_key, reason_text
from bbspoker.store.sql.writer import Writer
from bbspoker.store.wallet import SYSTEM, InsufficientCubes, UnknownAccount

__all__ = ["Books"]


class Books:
    """Balances, pots and games on ``writer``'s connection, stamped by ``clock`` (Unix
    seconds). Create it before the writer's first write (it owns the caches the writer
    drops), then call :meth:`start` once the schema is in place."""

    #: The writer, set by :meth:`start` (the parts of the ledger use it through here).
    w: Writer

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self._ids: dict[str, int] = {}     # handle key to account id
        self._cubes: dict[int, int] = {}   # account id to CUBES
        self._open: dict[int, int] = {}    # id of a game known to be open to its pot
        self._stacks: dict[tuple[str, int], int] = {}   # (table id, account id) to CUBES
        self._next_game: int | None = None  # the id open_game gives next
        self.system_id = 0

    def start(self, writer: Writer) -> None:
        """Use ``writer`` (migrated) from now on; looks up the SYSTEM account."""
        self.w = writer
        self.system_id = self.account_id(SYSTEM)

    def forget(self, accounts: bool = True) -> None:
        """Drop the caches: after a rollback they may hold what was undone. ``accounts``
        False keeps the account ids (another connection's commit cannot change them)."""
        if accounts:
            self._ids.clear()
        self._cubes.clear()
        self._open.clear()
        self._stacks.clear()
        self._next_game = None

    # ------------------------------------------------------------ primitives

    def account_id(self, handle: str) -> int:
        """The row id of ``handle``'s account; raises UnknownAccount. Accounts are never
        deleted or renamed, so ids are remembered (forgotten on any rollback, which may
        undo an account made in it)."""
        key = handle_key(handle)
        account_id = self._ids.get(key)
        if account_id is None:
            row = self.w.sql("SELECT id FROM accounts WHERE handle_key = ?", (key,)).fetchone()
            if row is None:
                raise UnknownAccount(handle)
            account_id = self._ids[key] = row[0]
        return account_id

    def cached_balance(self, account_id: int) -> int:
        """The CUBES of an account as this transaction holds them: cached, else read (and
        cached); call inside ``writer.write`` (the write lock makes the cache exact)."""
        cubes = self._cubes.get(account_id)
        if cubes is None:
            cubes = self._cubes[account_id] = self.w.sql(
                "SELECT cubes FROM accounts WHERE id = ?", (account_id,)).fetchone()[0]
        return cubes

    def new_account(self, account_id: int) -> None:
        """Remember that the account just inserted holds 0 CUBES."""
        self._cubes[account_id] = 0

    def cached_stack(self, table: str, account_id: int) -> int:
        """The CUBES of an account's stack at ``table`` (0 if none) as this transaction
        holds them; like :meth:`cached_balance`."""
        cubes = self._stacks.get((table, account_id))
        if cubes is None:
            row = self.w.sql("SELECT cubes FROM stacks WHERE table_id = ? AND account_id = ?",
                             (table, account_id)).fetchone()
            cubes = self._stacks[(table, account_id)] = 0 if row is None else row[0]
        return cubes

    def move(self, account_id: int, amount: int, reason: str, game_id: int | None,
             note: str | None = None, actor: str | None = None, *,
             stack: str | None = None, tournament: int | None = None) -> int:
        """Change one balance by ``amount`` CUBES and journal it; call inside
        ``writer.write`` (for a game row, after :meth:`require_open`). Returns the new
        balance. ``stack``: move the account's stack at that table id instead (a
        table-stakes game), journalled with ``stack_table``; the row's ``balance`` is
        then the stack after it. ``tournament``: the row moves CUBES between the balance
        and that tournament's prize pool (``tournament_id``; the caller checks the
        tournament, see ``tournaments``).

        A debit is checked against :meth:`cached_balance`: below zero raises
        InsufficientCubes and changes nothing. Then the balance and the game's pot are
        updated in the caches, and two statements queued with the values of now (journal
        time, balance after it): the balance ``UPDATE``, conditional on the balance it
        was checked against, and the journal ``INSERT``.
        """
        if stack is not None:
            return self._move_stack(stack, account_id, amount, reason, game_id, note, actor)
        cubes = self.cached_balance(account_id)
        new = cubes + amount
        if new < 0:
            # Straight to the database, not behind the queue (writer.sql): an account's
            # row is never queued and its handle never changes, and a refused ante must
            # not make the step's queued moves run before the screens.
            handle = self.w.read_now("SELECT handle FROM accounts WHERE id = ?",
                                     (account_id,)).fetchone()[0]
            raise InsufficientCubes(f"{handle} has {cubes} CUBES, needs {-amount}")
        self.w.queue += (
            ("UPDATE accounts SET cubes = ? WHERE id = ? AND cubes = ?",
             (new, account_id, cubes)),
            ("INSERT INTO journal (account_id, amount, reason, game_id, at, balance, note, "
             "actor, tournament_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
             (account_id, amount, reason, game_id, self.clock(), new, note, actor,
              tournament)))
        self._cubes[account_id] = new
        if game_id is not None:
            self._open[game_id] -= amount
            self.w.touched.add(game_id)
        return new

    def _move_stack(self, table: str, account_id: int, amount: int, reason: str,
                    game_id: int | None, note: str | None, actor: str | None) -> int:
        """:meth:`move` for a stack: checked against :meth:`cached_stack`, the row made by
        an upsert conditional on the stack it was checked against."""
        cubes = self.cached_stack(table, account_id)
        new = cubes + amount
        if new < 0:
            handle = self.w.read_now("SELECT handle FROM accounts WHERE id = ?",
                                     (account_id,)).fetchone()[0]
            raise InsufficientCubes(f"{handle} has a stack of {cubes} CUBES at {table}, "
                                    f"needs {-amount}")
        self.w.queue += (
            ("INSERT INTO stacks (table_id, account_id, cubes) VALUES (?, ?, ?) "
             "ON CONFLICT (table_id, account_id) DO UPDATE SET cubes = excluded.cubes "
             "WHERE stacks.cubes = ?", (table, account_id, new, cubes)),
            ("INSERT INTO journal (account_id, amount, reason, game_id, at, balance, note, "
             "actor, stack_table) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
             (account_id, amount, reason, game_id, self.clock(), new, note, actor, table)))
        self._stacks[(table, account_id)] = new
        if game_id is not None:
            self._open[game_id] -= amount
            self.w.touched.add(game_id)
        return new

    def require_open(self, game_id: int) -> int:
        """The pot (CUBES) of open game ``game_id``; raises ValueError unless it is open.
        Call inside ``writer.write``. Games this connection opened or found open are
        cached with their pots (every move of the game updates it) until closed (or a
        rollback, or another connection's commit); the pot of any other game is minus
        the sum of its journal rows."""
        pot = self._open.get(game_id)
        if pot is not None:
            return pot
        row = self.w.sql("SELECT ended_at, -(SELECT COALESCE(SUM(amount), 0) FROM journal "
                         "WHERE game_id = ?) FROM games WHERE id = ?",
                         (game_id, game_id)).fetchone()
        if row is None:
            raise ValueError(f"no game {game_id}")
        if row[0] is not None:
            raise ValueError(f"game {game_id} is already closed")
        pot = self._open[game_id] = row[1]
        return pot

    def _take_pot(self, game_id: int, account_id: int, amount: int, reason: str) -> int:
        pot = self.require_open(game_id)
        if amount != pot:
            raise ValueError(f"pot of game {game_id} is {pot}, not {amount}")
        return self.move(account_id, amount, reason, game_id)

    # ------------------------------------------------------------ Wallet

    def balance(self, handle: str) -> int:
        """Current CUBES of ``handle`` (SYSTEM included), as :meth:`balances_of` reads
        them; raises UnknownAccount."""
        cubes = self.balances_of((handle,))
        if not cubes:
            raise UnknownAccount(handle)
        return cubes[handle]

    def balances_of(self, handles: Sequence[str]) -> dict[str, int]:
        """Current CUBES of several handles: ``{handle as given: CUBES}``; handles without
        an account are left out.

        Balances this connection has read or written (every movement applies the new
        one) are cached, so the table's snapshot after a bet costs no SQL; if one is not
        cached, all are read in one query (after the queued statements). The cache is
        trusted only while no other connection has committed (the writer's ``data_version``,
        looked at here outside a transaction and at the start of each write
        transaction), so an admin's grant from the CLI shows at the next read, and it is
        dropped on any rollback."""
        if not self.w.in_transaction:
            self.w.check_version()
        keys = {handle: handle_key(handle) for handle in handles}
        found: dict[str, int] = {}
        for handle, key in keys.items():
            cubes = self._cubes.get(self._ids.get(key))  # type: ignore[arg-type]
            if cubes is None:
                break
            found[handle] = cubes
        else:
            return found
        # One is not cached: read them all, so that nothing taken from the cache before the
        # read can be stale (the read runs the queue, whose failure forgets the cache).
        wanted = set(keys.values())
        rows = {key: (account_id, cubes) for account_id, key, cubes in self.w.sql(
            f"SELECT id, handle_key, cubes FROM accounts WHERE handle_key IN "
            f"({','.join('?' * len(wanted))})", tuple(wanted))}
        found = {}
        for handle, key in keys.items():
            if key in rows:
                account_id, found[handle] = rows[key]
                self._ids[key] = account_id
                self._cubes[account_id] = found[handle]
        return found

    def open_game(self, handles: Sequence[str], seal: Seal | str,
                  table: str = DEFAULT_TABLE, *, tournament: int | None = None) -> int:
        """Record a new game at table ``table`` (its ``[[tables]] id``; players in seat
        order; ``seal`` as :meth:`bbspoker.rules.money.Wallet.open_game` says: its
        commitment goes to ``deck_hash``, its seeds to ``client_seeds`` and ``server_seed``,
        the latter read back only once the game has ended), started now by the clock (Unix seconds);
        ``tournament``: the id of the tournament whose hand it is (``tournament_id``: a
        record only, played for the tournament's chips, so no CUBES may move in it);
        returns its id, never reused once committed (a start whose commit failed leaves
        its id to the next). Until :meth:`close_game` it counts as unfinished and is
        refunded by :meth:`recover_unfinished_games`. Commits without waiting for the disk,
        inside ``defer_commits`` at ``commit_pending``. The id is the one SQLite's
        AUTOINCREMENT would give (the writer's ``NEXT_GAME_ID``: read once, then counted
        on while the caches are valid), so the game's ``INSERT`` is queued like a move."""
        with self.w.write(durable=False):
            game_id = self._next_game
            if game_id is None:
                game_id = self.w.sql(self.w.NEXT_GAME_ID).fetchone()[0]
            sealed: tuple[str, str | None, str | None]
            if isinstance(seal, Seal):
                sealed = (seal.commitment, seal.server_seed.hex(),
                          json.dumps(list(seal.client_seeds), ensure_ascii=False))
            else:
                sealed = (seal, None, None)
            self.w.queue.append((
                "INSERT INTO games (id, players, deck_hash, server_seed, client_seeds, "
                "started_at, table_id, tournament_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (game_id, json.dumps(list(handles)), *sealed, self.clock(), table,
                 tournament)))
            if isinstance(seal, Seal) and seal.published_at is not None:
                # Dealt from the published seed: the record says so. A publication the
                # store lost (its commit failed) is recorded again as the table showed it;
                # one a game was already dealt from changes no row, and fails the commit.
                self.w.queue.append((
                    "INSERT INTO commitments (table_id, commitment, server_seed, "
                    "published_at, game_id) VALUES (?, ?, ?, ?, ?) ON CONFLICT (table_id, "
                    "commitment) DO UPDATE SET game_id = excluded.game_id "
                    "WHERE commitments.game_id IS NULL",
                    (table, seal.commitment, seal.server_seed.hex(), seal.published_at,
                     game_id)))
            self._next_game = game_id + 1
            self._open[game_id] = 0
            self.w.touched.add(game_id)
            return game_id

    def publish_commitment(self, server_seed: bytes, table: str = DEFAULT_TABLE) -> float:
        """Record ``SHA-256(server_seed)`` as the commitment table ``table`` shows for its
        next game from now on (:meth:`bbspoker.rules.money.Wallet.publish_commitment`):
        a ``commitments`` row with the table, the time by the clock (Unix seconds,
        returned) and the seed (for the sysop's own records: nothing reads it back, a game's
        record carries its seed once it has ended). Queued and committed like
        :meth:`open_game` (a table publishes in the game's opening transaction)."""
        with self.w.write(durable=False):
            at = self.clock()
            self.w.queue.append((
                "INSERT INTO commitments (table_id, commitment, server_seed, published_at) "
                "VALUES (?, ?, ?, ?)", (table, commitment(server_seed), server_seed.hex(), at)))
            return at

    def pay_into_pot(self, game_id: int, handle: str, amount: int, reason: str) -> int:
        """Move ``amount`` (> 0) CUBES from ``handle`` into the pot of open game
        ``game_id`` (chapter 2: bets leave the player's cash the moment they are made);
        ``reason`` is ``"ante"`` or ``"bet"``. Returns the new balance. Raises
        InsufficientCubes, UnknownAccount, or ValueError (bad amount, game not open);
        nothing is changed then. Commits like :meth:`open_game`. The open-game check, the
        account id and the balance come from the caches (see :meth:`move`), so inside
        ``defer_commits`` a bet runs no SQL statement until ``commit_pending``."""
        if amount <= 0:
            raise ValueError(f"amount must be positive, got {amount}")
        with self.w.write(durable=False):
            self.require_open(game_id)
            return self.move(self.account_id(handle), -amount, reason, game_id)

    def pay_out_pot(self, game_id: int, handle: str, amount: int) -> int:
        """Pay the whole pot (``amount`` CUBES, must equal the pot, else ValueError) of
        open game ``game_id`` to the winner; journal reason ``win``. Returns the new
        balance. Checked against the cached pot and queued like a bet (:meth:`move`)."""
        with self.w.write():
            return self._take_pot(game_id, self.account_id(handle), amount, "win")

    def pot_to_system(self, game_id: int, amount: int) -> None:
        """Move the whole pot (``amount`` CUBES, must equal the pot) of a game nobody won
        to the SYSTEM account (chapter 2, end of game); journal reason ``pot-to-system``."""
        with self.w.write():
            self._take_pot(game_id, self.system_id, amount, "pot-to-system")

    def pay_out_split(self, game_id: int, shares: Mapping[str, int], to_system: int) -> None:
        """Empty the pot of open game ``game_id`` among several winners: each handle of
        ``shares`` gets its CUBES (journal reason ``win``; a 0 share moves nothing) and
        ``to_system`` CUBES go to the SYSTEM account (reason ``remainder``). Raises
        ValueError, nothing changed, unless all are >= 0 and add up to the cached pot;
        UnknownAccount for a handle without an account. Queued like a payout."""
        with self.w.write():
            pot = self.require_open(game_id)
            if to_system < 0 or any(v < 0 for v in shares.values()) \
                    or sum(shares.values()) + to_system != pot:
                raise ValueError(f"pot of game {game_id} is {pot}, not "
                                 f"{sum(shares.values())} + {to_system}")
            ids = {handle: self.account_id(handle) for handle in shares}
            for handle, amount in shares.items():
                if amount:
                    self.move(ids[handle], amount, "win", game_id)
            if to_system:
                self.move(self.system_id, to_system, "remainder", game_id)

    def close_game(self, game_id: int, winner: str | None, history: Mapping[str, Any]) -> None:
        """Mark the game finished now (``end_reason`` ``"finished"``) and store ``history``
        as JSON. Raises ValueError if the game is not open or its pot still holds CUBES
        (they would vanish), TypeError if ``history`` is not JSON-able; nothing is changed
        then. Checked against the cached pot; the ``UPDATE`` is queued like a move."""
        with self.w.write():
            pot = self.require_open(game_id)
            if pot:
                raise ValueError(f"pot of game {game_id} still holds {pot} CUBES")
            self.w.queue.append((
                "UPDATE games SET ended_at = ?, winner = ?, end_reason = 'finished', "
                "history = ? WHERE id = ? AND ended_at IS NULL",
                (self.clock(), winner, json.dumps(dict(history)), game_id)))
            del self._open[game_id]

    def cancel_game(self, game_id: int, reason: str,
                    history: Mapping[str, Any] | None = None,
                    ended_at: float | None = None) -> dict[str, int]:
        """Close an open game without a winner and give back every ante and bet to the
        player who paid it (journal reason ``refund``, ``note`` = ``reason``), leaving a
        notice for each refunded player. The stored history is ``history`` (what the table
        knew of the game, if it could say) with ``cancelled`` (the reason) and ``refunds``;
        the server seed is revealed like that of any game that has ended. If the pot was already paid out (the game ended
        but was not closed) nothing is refunded. Returns ``{handle: CUBES refunded}``.
        Raises ValueError if the game is not open."""
        if ended_at is None:
            ended_at = self.clock()
        refunds: dict[str, int] = {}
        with self.w.write():
            self.require_open(game_id)
            paid_out = self.w.sql("SELECT COALESCE(SUM(amount), 0) FROM journal "
                                  "WHERE game_id = ? AND amount > 0", (game_id,)).fetchone()[0]
            payers = [] if paid_out else self.w.sql(
                "SELECT j.account_id, a.handle, -SUM(j.amount), j.stack_table FROM journal j "
                "JOIN accounts a ON a.id = j.account_id WHERE j.game_id = ? AND j.amount < 0 "
                "GROUP BY j.account_id, a.handle, j.stack_table ORDER BY MIN(j.id)",
                (game_id,)).fetchall()
            note = reason_text(reason)
            for account_id, handle, paid, stack in payers:
                self.move(account_id, paid, "refund", game_id, note, stack=stack)
                what = ("ante and bets were refunded" if stack is None else
                        f"blinds and bets went back to your stack at table {stack}")
                self._notice(account_id, ended_at, "game_cancelled",
                             {"game": game_id, "reason": reason, "cubes": paid,
                              "table": stack},
                             f"Game {game_id} was cancelled ({note}): your {paid} CUBES "
                             f"of {what}.")
                refunds[handle] = refunds.get(handle, 0) + paid
            self.w.queue.append((
                "UPDATE games SET ended_at = ?, end_reason = ?, history = ? "
                "WHERE id = ? AND ended_at IS NULL",
                (ended_at, f"cancelled: {note}",
                 json.dumps({**(history or {}), "cancelled": reason, "refunds": refunds}),
                 game_id)))
            del self._open[game_id]
        return refunds

    def recover_unfinished_games(self, now: float, table: str | None = None) -> list[int]:
        """Cancel and refund (:meth:`cancel_game`) the games that have no end record;
        returns the ids of the games cancelled, in order.

        ``table`` None (a server starting after kill -9 or a power loss): every such game,
        reason ``crash`` (:data:`CRASH_REASON`), then every stack still held at a table is
        cashed out (its blinds and bets already back in it), since the tables start empty.
        Call once at server start before the tables open.

        ``table`` a table id (a worker taking that table over from one that is gone, the
        table's lease won): only that table's games, reason ``moved``
        (:data:`MOVED_REASON`); a table-stakes hand's blinds and bets go back to the stacks
        at that table, and the stacks stay there: the players keep their seats' CUBES at
        the table the new worker serves. No other table's games or stacks are touched.
        Call it before the new worker's table starts."""
        if table is None:
            ids = [r[0] for r in self.w.sql(
                "SELECT id FROM games WHERE ended_at IS NULL ORDER BY id").fetchall()]
        else:
            ids = [r[0] for r in self.w.sql(
                "SELECT id FROM games WHERE ended_at IS NULL AND table_id = ? ORDER BY id",
                (table,)).fetchall()]
        for game_id in ids:
            self.cancel_game(game_id, "crash" if table is None else "moved", ended_at=now)
        if table is not None:
            return ids
        with self.w.write():
            for stack_table, account_id in self.w.sql(
                    "SELECT table_id, account_id FROM stacks WHERE cubes > 0 "
                    "ORDER BY table_id, account_id").fetchall():
                cubes = self.transfer_stack(stack_table, account_id, None, CRASH_REASON)
                self._notice(account_id, now, "stack_cashed_out",
                             {"table": stack_table, "cubes": cubes, "reason": "crash"},
                             f"Your stack of {cubes} CUBES at table {stack_table} was cashed "
                             f"out when the server started again ({CRASH_REASON}).")
        return ids

    def _notice(self, account_id: int, at: float, code: str, data: dict, text: str) -> None:
        """Queue a notice for the account's next login in the write under way: ``code``
        and ``data`` for the door to render in the reader's language, ``text`` in English
        (:class:`~bbspoker.store.sql.records.Notice`)."""
        self.w.queue.append((
            "INSERT INTO notices (account_id, at, text, code, data) VALUES (?, ?, ?, ?, ?)",
            (account_id, at, text, code, json.dumps(data))))

    # ------------------------------------------------------------ table stakes

    def transfer_stack(self, table: str, account_id: int, amount: int | None,
                       note: str | None = None) -> int:
        """Move ``amount`` CUBES from the balance to the stack at ``table`` (a buy-in), or
        with ``amount`` None the whole stack back to the balance (a cash-out): two journal
        rows in one write. Returns the CUBES moved. Raises InsufficientCubes."""
        with self.w.write():
            if amount is None:
                amount = self.cached_stack(table, account_id)
                if amount:
                    self.move(account_id, -amount, "cash-out", None, note, stack=table)
                    self.move(account_id, amount, "cash-out", None, note)
                return amount
            if amount <= 0:
                raise ValueError(f"amount must be positive, got {amount}")
            self.move(account_id, -amount, "buy-in", None, note)
            self.move(account_id, amount, "buy-in", None, note, stack=table)
            return amount

    def stack(self, handle: str, table: str = DEFAULT_TABLE) -> int:
        """``handle``'s stack at ``table`` (0 if none); raises UnknownAccount."""
        with self.w.write():
            return self.cached_stack(table, self.account_id(handle))

    def stacks_of(self, handle: str) -> dict[str, int]:
        """``handle``'s stacks at every table that holds some of their CUBES: ``{table id:
        CUBES}`` (a Hold'em player who left during a hand keeps their stack there until it
        ends); raises UnknownAccount."""
        with self.w.write():
            account_id = self.account_id(handle)
            tables = {t for (t,) in self.w.sql(
                "SELECT table_id FROM stacks WHERE account_id = ?", (account_id,))}
            tables |= {t for t, a in self._stacks if a == account_id}
            held = {t: self.cached_stack(t, account_id) for t in sorted(tables)}
            return {t: cubes for t, cubes in held.items() if cubes}

    def buy_in(self, handle: str, amount: int, table: str = DEFAULT_TABLE) -> int:
        """:meth:`bbspoker.rules.money.StackWallet.buy_in` at ``table``; returns the stack."""
        with self.w.write(durable=False):
            account_id = self.account_id(handle)
            self.transfer_stack(table, account_id, amount)
            return self.cached_stack(table, account_id)

    def cash_out(self, handle: str, table: str = DEFAULT_TABLE) -> int:
        """:meth:`bbspoker.rules.money.StackWallet.cash_out` at ``table``."""
        with self.w.write(durable=False):
            return self.transfer_stack(table, self.account_id(handle), None)

    def stack_into_pot(self, game_id: int, handle: str, amount: int, reason: str,
                       table: str = DEFAULT_TABLE) -> int:
        """:meth:`bbspoker.rules.money.StackWallet.stack_into_pot`: queued like a bet."""
        if amount <= 0:
            raise ValueError(f"amount must be positive, got {amount}")
        with self.w.write(durable=False):
            self.require_open(game_id)
            return self.move(self.account_id(handle), -amount, reason, game_id, stack=table)

    def pot_to_stacks(self, game_id: int, shares: Mapping[str, int],
                      returns: Mapping[str, int] | None = None,
                      table: str = DEFAULT_TABLE) -> None:
        """:meth:`bbspoker.rules.money.StackWallet.pot_to_stacks`: journal reasons ``win``
        and ``return``."""
        moves = [(h, a, "win") for h, a in shares.items()] + [
            (h, a, "return") for h, a in (returns or {}).items()]
        with self.w.write():
            pot = self.require_open(game_id)
            if any(a < 0 for _, a, _ in moves) or sum(a for _, a, _ in moves) != pot:
                raise ValueError(f"shares {dict(shares)} and returns {dict(returns or {})} "
                                 f"do not add up to the pot of game {game_id} ({pot})")
            for handle, amount, reason in moves:
                if amount:
                    self.move(self.account_id(handle), amount, reason, game_id, stack=table)

