"""What the tables of every game kind share: seats found by handle, ``handles``,
``is_full`` and ``can``.

A game kind keeps ``self._seats``: one entry per seat, ``None`` when free, else an object
with the ``handle`` and its lower-case ``key`` (handles are compared without regard to
case), and implements ``verify``; :class:`SeatedTable` gives it the rest.
"""

from __future__ import annotations

import contextlib
from collections.abc import Collection, Mapping
from typing import Any

from bbspoker.rules import actions as act
from bbspoker.rules.events import RuleError

__all__ = ["SeatedTable"]


class SeatedTable:
    """Mixin of the game kinds' tables (draw40, Schiebe-Poker, Hold'em)."""

    _seats: list[Any]
    wallet: Any

    def _refund(self, game_ids: Collection[int], note: str,
                known: Mapping[int, Mapping[str, Any]]) -> dict[str, int]:
        """Call games ``game_ids`` off in the wallet (``cancel_game``: every stake back to
        whoever paid it, ``note`` recorded; ``known[id]``: what the table knew of a game,
        stored with it); ``{handle: CUBES refunded}`` over all of them. A game the wallet
        does not hold as open took nothing and is skipped."""
        refunds: dict[str, int] = {}
        for gid in sorted(game_ids):
            with contextlib.suppress(ValueError):
                for handle, cubes in self.wallet.cancel_game(gid, note, known.get(gid)).items():
                    refunds[handle] = refunds.get(handle, 0) + cubes
        return refunds

    def verify(self, handle: str, action: act.Action, now: float) -> None:
        """Raise :class:`RuleError` if ``action`` is not allowed now (the kind's)."""
        raise NotImplementedError

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
