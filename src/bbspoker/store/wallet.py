"""The wallet interface through which the table reads and moves CUBES.

The table (``bbspoker.rules.draw40.game``) never keeps money of its own: every ante and
bet leaves the player's balance through :meth:`Wallet.pay_into_pot` at the
moment it is made (chapter 2: "Bets are always subtracted from a player's
cash in the very same moment when the bet was confirmed"), and the pot leaves
the game through exactly one of :meth:`Wallet.pay_out_pot` (to the winner)
or :meth:`Wallet.pot_to_system` (nobody left). A game opened with
:meth:`Wallet.open_game` and never closed (a crash) is refunded by the ledger
on the next start.

Several calls can be grouped into one all-or-nothing unit with
:meth:`Wallet.transaction` (the table opens a game and takes every ante in
one, and pays out and closes a game in another). Inside
:meth:`Wallet.defer_commits` the non-durable units are checked and applied at
once but written and committed by :meth:`Wallet.commit_pending`: the table's
service shows a move on every screen first and commits it in the next
event-loop turn, so no screen waits for the disk.

Implementations: :class:`MemoryWallet` here (tests, bots), and
``bbspoker.store.sql.Ledger`` (SQLite or PostgreSQL, the real thing). All amounts are whole
CUBES (``int``); handles are compared without regard to case.
"""

from __future__ import annotations

import time
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping, Protocol, Sequence

from bbspoker.rules import money
from bbspoker.rules.fairness import Seal, commitment
from bbspoker.rules.money import SYSTEM, InsufficientCubes, UnknownAccount

__all__ = ["Wallet", "InsufficientCubes", "UnknownAccount", "CommitFailed", "StoreError",
           "MemoryWallet", "SYSTEM"]


class StoreError(Exception):
    """The database behind the store failed: it cannot be opened or used, a statement or a
    commit failed (I/O error, disk full, a lost connection, a write lock held by another
    connection for too long). Whatever the write was is undone. Raised the same whichever
    database the ledger runs on (SQLite's and psycopg's errors are wrapped in it, the
    driver's message as its text), so the door, the app and the CLI catch this alone."""


class CommitFailed(Exception):
    """Pending writes (see :meth:`Wallet.commit_pending`) could not be committed and were
    undone. ``games``: the ids of the games those writes touched (a frozenset); what the
    store still holds of them is as it was before the writes."""

    def __init__(self, games: frozenset[int]) -> None:
        super().__init__(f"the pending writes of game(s) {sorted(games)} could not be committed")
        self.games = games


class Wallet(money.Wallet, Protocol):
    """The store's whole CUBES interface: the rules' port (:class:`bbspoker.rules.money.Wallet`)
    plus the deferred commits the table's service uses, for every table at once: the
    methods that concern one table (its games, its commitments, the stacks held at it)
    take that table's id as ``table`` (``[[tables]] id``; the table registry binds it,
    see ``bbspoker.table.registry.TableWallet``)."""

    def open_game(self, handles: Sequence[str], seal: Seal | str, table: str = ...) -> int:
        """:meth:`bbspoker.rules.money.Wallet.open_game`, the game recorded as ``table``'s."""
        ...

    def publish_commitment(self, server_seed: bytes, table: str = ...) -> float:
        """:meth:`bbspoker.rules.money.Wallet.publish_commitment` for ``table``'s next game."""
        ...

    def stack(self, handle: str, table: str = ...) -> int:
        """:meth:`bbspoker.rules.money.StackWallet.stack` at ``table``."""
        ...

    def buy_in(self, handle: str, amount: int, table: str = ...) -> int:
        """:meth:`bbspoker.rules.money.StackWallet.buy_in` at ``table``."""
        ...

    def cash_out(self, handle: str, table: str = ...) -> int:
        """:meth:`bbspoker.rules.money.StackWallet.cash_out` at ``table``."""
        ...

    def stack_into_pot(self, game_id: int, handle: str, amount: int, reason: str,
                       table: str = ...) -> int:
        """:meth:`bbspoker.rules.money.StackWallet.stack_into_pot` at ``table``."""
        ...

    def pot_to_stacks(self, game_id: int, shares: Mapping[str, int],
                      returns: Mapping[str, int] | None = None, table: str = ...) -> None:
        """:meth:`bbspoker.rules.money.StackWallet.pot_to_stacks` at ``table``."""
        ...

    def defer_commits(self) -> AbstractContextManager[None]:
        """Inside the ``with`` block, work that commits non-durably (``durable=False``: a
        game's start with its antes, each bet, the table's end of a game) is not committed
        when its call or transaction ends: it stays pending, with every later such work
        joining it, until :meth:`commit_pending`. Each call still checks and applies its
        change at once (a debit the CUBES cannot cover is refused as always), and reads
        see it; the store may leave the writing itself to the commit (the ledger takes
        its write lock and checks against the balances and pots it holds, then queues
        the statements), so a failure of the store shows only there. Anything else (a
        durable write, a consistent snapshot, closing the store, any write outside such
        a block) first commits the pending work, so that it never joins or waits on it.
        Leaving the block commits nothing. A crash of the process loses the pending work
        (and only it): the game it belongs to is left unfinished and refunded at the
        next start.
        """
        ...

    def commit_pending(self) -> None:
        """Write and commit the work :meth:`defer_commits` left pending (returns at once if
        there is none). Raises :class:`CommitFailed` if that, or the same forced earlier
        by another use of the store, failed since the last call: the pending work was undone
        (balances, journal and games as before it), and the caller must call those games
        off (:meth:`cancel_game`, for the ones still open) and forget its own record of
        them.
        """
        ...


_MISSING = object()  # a key that was not in the mapping before a change


@dataclass
class MemoryWallet:
    """An in-memory :class:`Wallet` for tests and simulations.

    ``balances`` maps handle to CUBES; ``journal`` lists every movement as
    ``(game_id, handle, signed_amount, reason)``; ``pots`` holds what each open
    game's pot contains, so that a test can check conservation of CUBES.
    """

    balances: dict[str, int] = field(default_factory=dict)
    journal: list[tuple[int, str, int, str]] = field(default_factory=list)
    pots: dict[int, int] = field(default_factory=dict)
    games: dict[int, dict[str, Any]] = field(default_factory=dict)
    #: ``(table, handle) -> CUBES`` at that table (Hold'em), and their movements into and out
    #: of hands ``(game_id, table, handle, signed amount, reason)``.
    stacks: dict[tuple[str, str], int] = field(default_factory=dict)
    stack_moves: list[tuple[int, str, str, int, str]] = field(default_factory=list)
    #: The commitments tables published for their next games: ``(table, commitment) ->
    #: {"server_seed": bytes, "published_at": Unix seconds, "game_id": id or None}``.
    commitments: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    _next_game: int = 1
    # Inside transaction(): how to put back each change made in it (None outside one).
    _undo: list[tuple[dict, Any, Any]] | None = field(default=None, repr=False)
    _names: dict[str, str] = field(default_factory=dict, repr=False)  # lower case -> handle

    @contextmanager
    def transaction(self, durable: bool = True) -> Iterator[None]:
        """See :meth:`Wallet.transaction`: on an exception escaping the block, balances,
        journal, pots, games and the next game id are put back as they were when the
        block was entered (in place: references to them stay valid). ``durable`` has no
        meaning in memory. The cost is that of the changes made in the block (an undo
        log), not of the wallet's size: a simulation runs many thousands of games."""
        outer, self._undo = self._undo, []
        journal, next_game = len(self.journal), self._next_game
        moves = len(self.stack_moves)
        try:
            yield
        except BaseException:
            for mapping, key, old in reversed(self._undo):
                if old is _MISSING:
                    mapping.pop(key, None)
                else:
                    mapping[key] = old
            del self.journal[journal:]
            del self.stack_moves[moves:]
            self._next_game = next_game
            raise
        finally:
            done, self._undo = self._undo, outer
            if outer is not None:
                outer.extend(done)

    def _set(self, mapping: dict, key: Any, value: Any) -> None:
        """``mapping[key] = value``, remembered for the rollback of a transaction."""
        if self._undo is not None:
            self._undo.append((mapping, key, mapping.get(key, _MISSING)))
        mapping[key] = value

    def _key(self, handle: str) -> str:
        low = handle.lower()
        name = self._names.get(low)
        if name is None or name not in self.balances:
            self._names = {n.lower(): n for n in self.balances}
            name = self._names.get(low)
            if name is None:
                raise UnknownAccount(handle)
        return name

    @contextmanager
    def defer_commits(self) -> Iterator[None]:
        """See :meth:`Wallet.defer_commits`: memory commits every change at once, so
        nothing is ever pending."""
        yield

    def commit_pending(self) -> None:
        """See :meth:`Wallet.commit_pending`: nothing is pending in memory; never raises."""

    def balance(self, handle: str) -> int:
        return self.balances[self._key(handle)]

    def balances_of(self, handles: Sequence[str]) -> dict[str, int]:
        known = {name.lower(): cubes for name, cubes in self.balances.items()}
        return {h: known[h.lower()] for h in handles if h.lower() in known}

    def _open(self, game_id: int) -> None:
        if game_id not in self.games or self.games[game_id]["closed"]:
            raise ValueError(f"game {game_id} is not open")

    def open_game(self, handles: Sequence[str], seal: Seal | str, table: str = "poker", *,
                  game_id: int | None = None) -> int:
        """See :meth:`Wallet.open_game`: the game's entry holds ``deck_hash`` (the
        commitment) and, for a :class:`Seal`, the ``seal`` itself. ``game_id``: the id
        another store gave the game (its record is kept there: a tournament's hand),
        ValueError if this wallet holds a game of that id; else the next of its own."""
        if game_id is None:
            gid = self._next_game
            self._next_game += 1
        elif game_id in self.games:
            raise ValueError(f"game {game_id} is already in this wallet")
        else:
            gid = game_id
        self._set(self.pots, gid, 0)
        entry = {"players": list(handles), "closed": False, "table": table}
        if isinstance(seal, Seal):
            entry |= {"deck_hash": seal.commitment, "seal": seal}
            if seal.published_at is not None:
                key = (table, seal.commitment)
                published = self.commitments.get(key)
                if published is not None and published["game_id"] is not None:
                    raise ValueError(f"game {published['game_id']} was dealt from this seed")
                self._set(self.commitments, key, {"server_seed": seal.server_seed,
                                                  "published_at": seal.published_at,
                                                  "game_id": gid})
        else:
            entry["deck_hash"] = seal
        self._set(self.games, gid, entry)
        return gid

    def publish_commitment(self, server_seed: bytes, table: str = "poker") -> float:
        """See :meth:`bbspoker.rules.money.Wallet.publish_commitment`: recorded in
        :attr:`commitments` at the time of the wall clock."""
        at = time.time()
        self._set(self.commitments, (table, commitment(server_seed)),
                  {"server_seed": server_seed, "published_at": at, "game_id": None})
        return at


    def pay_into_pot(self, game_id: int, handle: str, amount: int, reason: str) -> int:
        if amount <= 0:
            raise ValueError(f"amount must be positive, got {amount}")
        self._open(game_id)
        key = self._key(handle)
        if self.balances[key] < amount:
            raise InsufficientCubes(f"{handle} has {self.balances[key]} CUBES, needs {amount}")
        self._set(self.balances, key, self.balances[key] - amount)
        self._set(self.pots, game_id, self.pots[game_id] + amount)
        self.journal.append((game_id, key, -amount, reason))
        return self.balances[key]

    def pay_out_pot(self, game_id: int, handle: str, amount: int) -> int:
        self._open(game_id)
        if amount != self.pots[game_id]:
            raise ValueError(f"pot of game {game_id} is {self.pots[game_id]}, not {amount}")
        key = self._key(handle)
        self._set(self.pots, game_id, 0)
        self._set(self.balances, key, self.balances[key] + amount)
        self.journal.append((game_id, key, amount, "win"))
        return self.balances[key]

    def pot_to_system(self, game_id: int, amount: int) -> None:
        self._open(game_id)
        if amount != self.pots[game_id]:
            raise ValueError(f"pot of game {game_id} is {self.pots[game_id]}, not {amount}")
        self._set(self.pots, game_id, 0)
        self._set(self.balances, SYSTEM, self.balances.get(SYSTEM, 0) + amount)
        self.journal.append((game_id, SYSTEM, amount, "pot-to-system"))

    def pay_out_split(self, game_id: int, shares: Mapping[str, int], to_system: int) -> None:
        """See :meth:`bbspoker.rules.money.Wallet.pay_out_split`."""
        self._open(game_id)
        if to_system < 0 or any(v < 0 for v in shares.values()) \
                or sum(shares.values()) + to_system != self.pots[game_id]:
            raise ValueError(f"pot of game {game_id} is {self.pots[game_id]}, not "
                             f"{sum(shares.values())} + {to_system}")
        keys = {handle: self._key(handle) for handle in shares}
        self._set(self.pots, game_id, 0)
        for handle, amount in shares.items():
            if amount:
                key = keys[handle]
                self._set(self.balances, key, self.balances[key] + amount)
                self.journal.append((game_id, key, amount, "win"))
        if to_system:
            self._set(self.balances, SYSTEM, self.balances.get(SYSTEM, 0) + to_system)
            self.journal.append((game_id, SYSTEM, to_system, "remainder"))

    def close_game(self, game_id: int, winner: str | None, history: Mapping[str, Any]) -> None:
        self._open(game_id)
        if self.pots[game_id]:
            raise ValueError(f"pot of game {game_id} still holds {self.pots[game_id]} CUBES")
        self._set(self.games, game_id, {**self.games[game_id], "closed": True, "winner": winner,
                                        "history": dict(history)})

    def cancel_game(self, game_id: int, reason: str,
                    history: Mapping[str, Any] | None = None) -> dict[str, int]:
        self._open(game_id)
        refunds: dict[str, int] = {}
        for gid, handle, amount, _ in list(self.journal):
            if gid == game_id and amount < 0:
                refunds[handle] = refunds.get(handle, 0) - amount
        for handle, amount in refunds.items():
            self._set(self.balances, handle, self.balances[handle] + amount)
            self._set(self.pots, game_id, self.pots[game_id] - amount)
            self.journal.append((game_id, handle, amount, "refund"))
        paid_out = any(gid == game_id and amount > 0 for gid, *_, amount, _r in self.stack_moves)
        for gid, table, key, amount, _ in [] if paid_out else list(self.stack_moves):
            if gid == game_id and amount < 0:   # a hand's blinds and bets go back to stacks
                self._set(self.stacks, (table, key), self.stacks[(table, key)] - amount)
                self._set(self.pots, game_id, self.pots[game_id] + amount)
                self.stack_moves.append((game_id, table, key, -amount, "refund"))
                refunds[key] = refunds.get(key, 0) - amount
        self._set(self.games, game_id, {**self.games[game_id], "closed": True, "winner": None,
                                        "history": {**(history or {}), "cancelled": reason}})
        return refunds

    # ---- table stacks (Hold'em): see bbspoker.rules.money.StackWallet; ``table`` names
    # the table, as for open_game.

    def stack(self, handle: str, table: str = "poker") -> int:
        return self.stacks.get((table, self._key(handle)), 0)

    def buy_in(self, handle: str, amount: int, table: str = "poker") -> int:
        if amount <= 0:
            raise ValueError(f"amount must be positive, got {amount}")
        key = self._key(handle)
        if self.balances[key] < amount:
            raise InsufficientCubes(f"{handle} has {self.balances[key]} CUBES, needs {amount}")
        self._set(self.balances, key, self.balances[key] - amount)
        self._set(self.stacks, (table, key), self.stacks.get((table, key), 0) + amount)
        self.journal.append((0, key, -amount, "buy-in"))
        return self.stacks[(table, key)]

    def cash_out(self, handle: str, table: str = "poker") -> int:
        key = self._key(handle)
        amount = self.stacks.get((table, key), 0)
        if amount:
            self._set(self.stacks, (table, key), 0)
            self._set(self.balances, key, self.balances[key] + amount)
            self.journal.append((0, key, amount, "cash-out"))
        return amount

    def stack_into_pot(self, game_id: int, handle: str, amount: int, reason: str,
                       table: str = "poker") -> int:
        if amount <= 0:
            raise ValueError(f"amount must be positive, got {amount}")
        self._open(game_id)
        key = self._key(handle)
        have = self.stacks.get((table, key), 0)
        if have < amount:
            raise InsufficientCubes(f"{handle} has a stack of {have}, needs {amount}")
        self._set(self.stacks, (table, key), have - amount)
        self._set(self.pots, game_id, self.pots[game_id] + amount)
        self.stack_moves.append((game_id, table, key, -amount, reason))
        return self.stacks[(table, key)]

    def pot_to_stacks(self, game_id: int, shares: Mapping[str, int],
                      returns: Mapping[str, int] | None = None, table: str = "poker") -> None:
        self._open(game_id)
        moves = [(h, a, "win") for h, a in shares.items()] + [
            (h, a, "return") for h, a in (returns or {}).items()]
        if any(a < 0 for _, a, _ in moves) or sum(a for _, a, _ in moves) != self.pots[game_id]:
            raise ValueError(f"shares {dict(shares)} and returns {dict(returns or {})} do not "
                             f"add up to the pot of game {game_id} ({self.pots[game_id]})")
        for handle, amount, reason in moves:
            key = self._key(handle)
            self._set(self.stacks, (table, key), self.stacks.get((table, key), 0) + amount)
            self.stack_moves.append((game_id, table, key, amount, reason))
        self._set(self.pots, game_id, 0)

    def total(self) -> int:
        """All CUBES held anywhere: balances (system included), open pots and stacks."""
        return sum(self.balances.values()) + sum(self.pots.values()) + sum(self.stacks.values())
