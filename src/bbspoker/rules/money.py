"""The money port of the rules: what a game kind needs from the CUBES store.

A game kind never keeps money of its own: every ante and bet leaves the player's
balance through :meth:`Wallet.pay_into_pot` at the moment it is made (chapter 2:
"Bets are always subtracted from a player's cash in the very same moment when the
bet was confirmed"), and the pot leaves the game through exactly one of
:meth:`Wallet.pay_out_pot` (to the winner) or :meth:`Wallet.pot_to_system` (nobody
left). The rules call this port synchronously; the store behind it (``bbspoker.store``:
a memory wallet, the SQLite ledger) implements it and adds what only the table's
service uses (deferred commits). This module is the one place the rules and the
store meet, so the rules import nothing from the store (``docs/architecture.md``).

All amounts are whole CUBES (``int``); handles are compared without regard to case.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any, Mapping, Protocol, Sequence

from bbspoker.rules.fairness import Seal

__all__ = ["Wallet", "StackWallet", "InsufficientCubes", "UnknownAccount", "SYSTEM",
           "MAX_CUBES"]

#: Name of the account that takes pots nobody won (chapter 2, "End of game").
SYSTEM = "*system*"
#: The most CUBES an admin may give, take or set, or an account be created with, and the
#: most an account may reach through them (amounts near 2**63 would overflow
#: SQLite's 64-bit integers). Games may carry a balance a little past it; the schema refuses
#: anything past a thousand times it.
MAX_CUBES = 10**12


class InsufficientCubes(Exception):
    """A debit would take a balance below zero; nothing was changed."""


class UnknownAccount(KeyError):
    """No account with that handle exists."""


class Wallet(Protocol):
    """What a game kind needs from the CUBES store. Every method is one atomic change."""

    def transaction(self, durable: bool = True) -> AbstractContextManager[None]:
        """Group the calls made inside the ``with`` block into one all-or-nothing unit.

        If an exception escapes the block, every change made inside it is undone and
        the exception propagates. A method that raises inside the block (for example
        :class:`InsufficientCubes` from one player's ante) undoes only its own partial
        work; if the caller catches the exception, the block goes on and what the other
        calls did is kept. Blocks nest: an inner block that raises is undone alone.
        Other users of the store see either none or all of the block's changes. A store
        that writes the block's changes late (the ledger queues them) reports a failure
        of its own (disk full, I/O error) from the call that makes it write (the end of
        the block, or a call inside that needs what is queued), and undoes all of it.

        ``durable``: once the block has exited, its changes survive a power loss. With
        ``False`` the store may keep them only as far as a crash of the process (the
        stakes of a game still running: if they are lost, the whole block is lost, and
        the unfinished game is refunded at the next start). A nested block, and every
        method called inside, takes the outermost block's durability.
        """
        ...

    def balance(self, handle: str) -> int:
        """Current CUBES of ``handle``; raises :class:`UnknownAccount`."""
        ...

    def balances_of(self, handles: Sequence[str]) -> dict[str, int]:
        """Current CUBES of several handles at once (one read), keyed by the handles as
        given; handles without an account are left out."""
        ...

    def open_game(self, handles: Sequence[str], seal: Seal | str) -> int:
        """Record a new game (players in seat order) and return its id, unique for the life
        of the store. ``seal``: the :class:`~bbspoker.rules.fairness.Seal` of its deck,
        whose commitment and client seeds are public at once and whose server seed the
        store keeps secret until the game has ended (then every record shows it); a seal
        with a ``published_at`` comes from :meth:`publish_commitment`, and the store
        records that the game was dealt from that publication (a seal whose publication
        the store lost, with a commit that failed, has it recorded again with its own
        ``published_at``; one already dealt from fails the game's commit); a bare
        hex string records only a commitment (a deck not from the published function:
        tests of the store). The store timestamps the game with its own wall clock (the
        table's ``now`` is on a monotonic clock)."""
        ...

    def publish_commitment(self, server_seed: bytes) -> float:
        """Record that the table shows ``SHA-256(server_seed)`` as its next game's
        commitment from now on, with the table and the time; the store keeps
        ``server_seed`` secret until a game opened with it has ended. Returns the time of
        publication (Unix seconds, the store's clock), which the game's
        :class:`~bbspoker.rules.fairness.Seal` carries to :meth:`open_game`."""
        ...


    def pay_into_pot(self, game_id: int, handle: str, amount: int, reason: str) -> int:
        """Move ``amount`` (> 0) CUBES from ``handle`` into the pot of ``game_id``;
        ``reason`` is ``"ante"`` or ``"bet"``. Returns the new balance. Raises
        :class:`InsufficientCubes` (and changes nothing) if the balance is too low."""
        ...

    def pay_out_pot(self, game_id: int, handle: str, amount: int) -> int:
        """Pay the whole pot (``amount`` CUBES) of ``game_id`` to the winner; returns the new balance."""
        ...

    def pot_to_system(self, game_id: int, amount: int) -> None:
        """Move the pot of a game nobody won to the :data:`SYSTEM` account."""
        ...

    def pay_out_split(self, game_id: int, shares: Mapping[str, int], to_system: int) -> None:
        """Empty the pot of ``game_id`` among several winners (Schiebe-Poker's tie for the
        first place): each handle of ``shares`` gets its CUBES (journal reason ``win``;
        0 moves nothing), and ``to_system`` CUBES, the remainder that does not divide,
        go to the :data:`SYSTEM` account (reason ``remainder``). Raises ``ValueError``
        (nothing changed) unless the shares and the remainder are not negative and add
        up to the pot."""
        ...

    def close_game(self, game_id: int, winner: str | None, history: Mapping[str, Any]) -> None:
        """Mark the game finished (its pot must be empty) and store its hand history
        (a JSON-able mapping). Raises ``ValueError`` if the game is not open or its pot
        still holds CUBES."""
        ...

    def cancel_game(self, game_id: int, reason: str,
                    history: Mapping[str, Any] | None = None) -> dict[str, int]:
        """Close an open game without a winner, giving every ante and bet back to whoever
        paid it; returns ``{handle: CUBES refunded}``. ``history``: what the table knew of
        the game (its record so far, JSON-able), stored with the reason and the refunds.
        Raises ``ValueError`` if not open."""
        ...


class StackWallet(Wallet, Protocol):
    """What a table-stakes game (Hold'em) needs beyond :class:`Wallet`, from a wallet bound
    to one table: each seated player's **stack**, CUBES bought in from their balance and
    held at this table until they leave (the Finnish design: "only the chips on the table
    play; none may be added during a hand nor taken off before one stops playing").
    Blinds and bets go from the stack into a hand's pot, pots go back to stacks.
    :meth:`Wallet.cancel_game` gives a hand's bets back to the stacks they came from."""

    def stack(self, handle: str) -> int:
        """``handle``'s stack at this table (0 if none)."""
        ...

    def buy_in(self, handle: str, amount: int) -> int:
        """Move ``amount`` (> 0) CUBES from ``handle``'s balance to their stack here; returns
        the stack. Raises :class:`InsufficientCubes` (nothing changed) or ``ValueError``."""
        ...

    def cash_out(self, handle: str) -> int:
        """Move ``handle``'s whole stack back to their balance; returns the CUBES moved
        (0 if there was none)."""
        ...

    def stack_into_pot(self, game_id: int, handle: str, amount: int, reason: str) -> int:
        """Move ``amount`` (> 0) CUBES from ``handle``'s stack into the pot of open hand
        ``game_id`` (``reason``: ``blind``, ``bet``); returns the stack. Raises
        :class:`InsufficientCubes` (nothing changed) or ``ValueError`` (hand not open)."""
        ...

    def pot_to_stacks(self, game_id: int, shares: Mapping[str, int],
                      returns: Mapping[str, int] | None = None) -> None:
        """Pay the whole pot of ``game_id`` out to stacks: ``shares`` won (``{handle:
        CUBES}``, journal reason ``win``) and ``returns``, uncalled bets given back
        (``return``); every amount >= 0 and all of them the pot (else ``ValueError``,
        nothing changed)."""
        ...
