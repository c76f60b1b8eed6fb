"""What the tables of every game kind share: seats found by handle, ``handles``,
``is_full`` and ``can``; calling games off in the wallet (:func:`refund_games`); and the
next game's published deck commitment.

A game kind keeps ``self._seats``: one entry per seat, ``None`` when free, else an object
with the ``handle`` and its lower-case ``key`` (handles are compared without regard to
case), and implements ``verify``; :class:`SeatedTable` gives it the rest.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from bbspoker.rules import actions as act
from bbspoker.rules import fairness
from bbspoker.rules.events import Event, RuleError

__all__ = ["SeatedTable", "RefundFailed", "refund_games", "AWAY_REASONS"]

#: The reasons of the table's own :class:`~bbspoker.rules.actions.Leave` (a connection
#: lost past its grace, a seat idle too long) that at a tournament table of a
#: table-stakes kind make the player sit out instead: they stay seated and are blinded
#: away, never stood up.
AWAY_REASONS = frozenset({"lost_connection", "idle"})

#: Games to call off in the wallet: ``{game id: (note, what the table knew of the game or
#: None)}`` (see :func:`refund_games`).
Refunds = Mapping[int, tuple[str, Mapping[str, Any] | None]]


class RefundFailed(Exception):
    """The wallet could not write the call-off of some games (e.g. a full disk: the
    ``__cause__`` says what): they are still open there with every stake they took.
    ``pending``: those games as :func:`refund_games` takes them, to try again;
    ``refunds``: ``{handle: CUBES}`` given back before the failure."""

    def __init__(self, pending: dict[int, tuple[str, Mapping[str, Any] | None]],
                 refunds: dict[str, int]) -> None:
        super().__init__(f"the call-off of game(s) {sorted(pending)} could not be written")
        self.pending, self.refunds = pending, refunds


def refund_games(wallet: Any, games: Refunds) -> dict[str, int]:
    """Call ``games`` off in ``wallet``, in id order (``cancel_game``: every stake back to
    whoever paid it, with the game's note; its history, if known, stored with it);
    ``{handle: CUBES refunded}`` over all of them. A game the wallet does not hold as open
    took nothing (or was refunded already) and is skipped. Raises :class:`RefundFailed`
    with the games not yet called off when the wallet cannot write one (any error but
    ``ValueError``): what was refunded stays refunded, the rest stays open in the wallet
    (and is refunded at its next start if nobody tries again)."""
    refunds: dict[str, int] = {}
    order = sorted(games)
    for n, gid in enumerate(order):
        note, known = games[gid]
        try:
            given = wallet.cancel_game(gid, note, known)
        except ValueError:
            continue
        except Exception as exc:
            raise RefundFailed({g: games[g] for g in order[n:]}, refunds) from exc
        for handle, cubes in given.items():
            refunds[handle] = refunds.get(handle, 0) + cubes
    return refunds


class SeatedTable:
    """Base of every game kind's table: seats by handle, the next game's commitment,
    calling games off, and the defaults of the members of
    :class:`~bbspoker.rules.base.GameRules` that only some kinds need."""

    #: The players' money is at the table (stacks bought in), not in their CUBES: at
    #: shutdown everyone leaves so that it goes back (a kind with stacks says True).
    table_stakes = False

    _seats: list[Any]
    wallet: Any
    _entropy: Callable[[int], bytes]
    _phrases: Callable[[Sequence[str]], Mapping[str, str | None]] | None
    #: The server seed of the next game, its commitment published (:meth:`_publish_first`).
    _next: fairness.Published

    # -- the next game's deck commitment (docs/fairness.md)

    def _publish_first(self) -> None:
        """At the table's start: draw the first game's seed and publish its commitment
        (``wallet.publish_commitment``), before anyone can sit down. Never a seed from
        before a restart: a call-off may have revealed one whose record the store lost
        (a start and its call-off both unwritten on a full disk), and nothing in the store
        can tell such a seed from one never shown. Call once, from the constructor, after
        ``wallet`` and ``_entropy`` are set."""
        self._next = self._publish_next()

    def _publish_next(self) -> fairness.Published:
        """A fresh server seed (``_entropy``), its commitment published through the wallet:
        the next game's. The caller makes it :attr:`_next` once the game that it follows
        is open for good (the wallet's transaction succeeded)."""
        seed = self._entropy(fairness.SEED_BYTES)
        return fairness.Published(seed, self.wallet.publish_commitment(seed))

    def _new_seal(self, handles: Sequence[str]) -> fairness.Seal:
        """The seal of a game starting now for ``handles`` (seat order): the server seed
        whose commitment the table has published (:attr:`_next`), the players' client
        seeds fixed now (their phrases, else random)."""
        phrases = self._phrases(handles) if self._phrases is not None else None
        return fairness.new_seal(handles, phrases, self._entropy, self._next)

    @property
    def next_commitment(self) -> str:
        """The commitment (SHA-256 of the server seed, 64 hex digits) the next game's deck
        will be sealed with, public from the table's start and, for each game after the
        first, from the start of the game before it: before any of the game's client
        seeds exist."""
        return self._next.commitment

    def _publish_anew(self) -> Event:
        """A running game was called off and its seed revealed: a fresh seed for the next
        game, its commitment published now (:meth:`_publish_next`), and the
        ``next_commitment`` event that shows it. Not the one published at the game's
        start: when the call-off is for a start the store could not commit, the store
        lost that publication and still holds the revealed seed as unused (a restart
        would take it back); the call-off's own transaction records the new one."""
        self._next = self._publish_next()
        return self._next_event()

    def _next_event(self) -> Event:
        """``next_commitment``, shown at the end of a game with its seed: the commitment
        of the game after it (``commitment``, 64 hex digits)."""
        return Event("next_commitment", None, {"commitment": self._next.commitment})

    def _refund(self, game_ids: Collection[int], note: str,
                known: Mapping[int, Mapping[str, Any]]) -> dict[str, int]:
        """Call games ``game_ids`` off in the wallet (:func:`refund_games`: every stake back
        to whoever paid it, ``note`` recorded; ``known[id]``: what the table knew of a
        game, stored with it); ``{handle: CUBES refunded}`` over all of them. Raises
        :class:`RefundFailed` (with what it needs to try again) if the wallet cannot
        write them."""
        return refund_games(self.wallet, {gid: (note, known.get(gid)) for gid in game_ids})

    def verify(self, handle: str, action: act.Action, now: float) -> None:
        """Raise :class:`RuleError` if ``action`` is not allowed now (the kind's)."""
        raise NotImplementedError

    def resync(self) -> None:
        """Take what the table holds of the store's from it again, after the store could
        not commit some of the table's writes or refunded a game called off. A kind whose
        money is all in the players' CUBES holds nothing of it: nothing to do."""

    def stop_dealing(self) -> None:
        """Start no new game (the server is shutting down; one running may finish). A
        kind whose games a player starts needs nothing: the service refuses the start."""

    @property
    def handles(self) -> list[str]:
        """The seated handles, in seat order."""
        return [s.handle for s in self._seats if s is not None]

    @property
    def is_full(self) -> bool:
        """Whether every seat is taken."""
        return all(s is not None for s in self._seats)

    def can(self, handle: str, action: act.Action, now: float) -> bool:
        """True if :meth:`verify` lets ``handle`` take ``action`` now."""
        try:
            self.verify(handle, action, now)
        except RuleError:
            return False
        return True

    def _handle(self, i: int | None) -> str | None:
        """The handle at seat ``i``, or ``None`` (free, or no seat)."""
        s = self._seats[i] if i is not None else None
        return s.handle if s else None

    def _index(self, handle: str) -> int | None:
        """The seat of ``handle`` (any case), or ``None``."""
        low = handle.lower()
        return next((i for i, s in enumerate(self._seats) if s is not None and s.key == low),
                    None)

    def _find(self, handle: str) -> int:
        """The seat of ``handle``; raises :class:`RuleError` ``not_seated``."""
        i = self._index(handle)
        if i is None:
            raise RuleError("not_seated")
        return i
