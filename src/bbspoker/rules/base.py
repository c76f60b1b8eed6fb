"""The game-kind interface every game a table can run implements.

A game kind is pure and synchronous: it is given the time as a value (``now``,
seconds on any monotonic scale), moves CUBES only through the injected
:class:`~bbspoker.rules.money.Wallet`, and answers in codes
(:class:`~bbspoker.rules.events.Event`, :class:`~bbspoker.rules.events.RuleError`),
never in sentences. One owner (the table's task) applies actions one at a time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol, runtime_checkable

from bbspoker.rules.actions import Action
from bbspoker.rules.events import Event, Operation

__all__ = ["GameKind"]


@runtime_checkable
class GameKind(Protocol):
    """One table's game: seating as the kind needs it, the hand in play, its record.

    - ``kind``: the game kind's name in config (``draw40`` ...).
    - ``legal_actions(handle, now)``: the action types ``handle`` may use now, in the
      order the command area lists them (empty if none, or not seated).
    - ``verify(handle, action, now)``: raises ``RuleError`` if ``action`` is not allowed
      now; changes nothing.
    - ``can(handle, action, now)``: ``verify`` as a bool.
    - ``apply(handle, action, now)``: verify and apply; returns the events, in order.
    - ``tick(now)``: apply every time-out due by ``now``; returns the events.
    - ``deadline()``: when the next time-out falls due (a ``now`` value) or ``None``.
    - ``operations``: the record of the running (or last) game, one frozen
      :class:`Operation` per applied step.
    - ``payouts()``: ``{handle: CUBES}`` paid out by the last game that ended.
    """

    kind: str

    def legal_actions(self, handle: str, now: float) -> tuple[type[Action], ...]: ...

    def verify(self, handle: str, action: Action, now: float) -> None: ...

    def can(self, handle: str, action: Action, now: float) -> bool: ...

    def apply(self, handle: str, action: Action, now: float) -> list[Event]: ...

    def tick(self, now: float) -> list[Event]: ...

    def deadline(self) -> float | None: ...

    @property
    def operations(self) -> Sequence[Operation]: ...

    def payouts(self) -> Mapping[str, int]: ...
