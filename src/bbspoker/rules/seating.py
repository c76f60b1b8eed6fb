"""What the tables of every game kind share: seats found by handle, ``handles``,
``is_full`` and ``can``.

A game kind keeps ``self._seats``: one entry per seat, ``None`` when free, else an object
with the ``handle`` and its lower-case ``key`` (handles are compared without regard to
case), and implements ``verify``; :class:`SeatedTable` gives it the rest.
"""

from __future__ import annotations

from typing import Any

from bbspoker.rules import actions as act
from bbspoker.rules.events import RuleError

__all__ = ["SeatedTable"]


class SeatedTable:
    """Mixin of the game kinds' tables (draw40, Schiebe-Poker, Hold'em)."""

    _seats: list[Any]

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
