"""What the rules tell the table: :class:`Event` s, :class:`Operation` s and :class:`RuleError`.

The rules speak no language. An event, an operation of the game record and a
refusal each carry a ``kind``/``code`` and the figures that go with it; the door
(``bbspoker.door.messages``) turns them into sentences for each viewer, in the
viewer's language, at the moment they are shown.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

__all__ = ["Event", "Operation", "RuleError"]


@dataclass(frozen=True, slots=True)
class Event:
    """Something the players (or one of them) must be told.

    ``kind`` names it (for draw40: ``sat``, ``left``, ``master``, ``started``,
    ``inactive``, ``cards``, ``turn``, ``bet``, ``see_hands``, ``pass``, ``discard``,
    ``round``, ``showdown``, ``reveal``, ``won``, ``pot_to_system``, ``removed``,
    ``master_timeout``, ``cannot_bet``, ``cancelled``; the table adds its own);
    ``handle`` is the player it is about (``None`` for the table); ``data`` carries the
    figures (``amount``, ``pot``, ``cards`` ...: CUBES as ``int``, cards as
    :class:`~bbspoker.rules.cards.Card`); ``to`` is ``None`` for everyone at the table or
    the one handle that may see it (private cards, a notice for one player).
    """

    kind: str
    handle: str | None = None
    data: Mapping[str, Any] = field(default_factory=dict)
    to: str | None = None


@dataclass(frozen=True, slots=True)
class Operation:
    """One applied step of a game, for its record (as pokerkit's ``State.operations``).

    ``kind`` (for draw40: ``ante``, ``deal``, ``bet``, ``pass``, ``discard``,
    ``showdown``, ``reveal``, ``left``, ``won``, ``pot_to_system``), the ``handle`` it
    is about or ``None``, and ``data`` with JSON-able figures only (cards in the
    notation of :func:`~bbspoker.rules.cards.format_cards`), so that the record can be
    stored as it is. :meth:`as_dict` gives the stored form.
    """

    kind: str
    handle: str | None = None
    data: Mapping[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """``{"op": kind, "handle": handle, **data}`` (``handle`` left out when ``None``)."""
        out: dict[str, Any] = {"op": self.kind}
        if self.handle is not None:
            out["handle"] = self.handle
        out.update(self.data)
        return out


class RuleError(Exception):
    """An action the rules (or the table) do not allow now; nothing was changed.

    ``code`` names the reason (e.g. ``not_your_turn``, ``bet_range``), ``params`` the
    figures the message needs (e.g. ``low``, ``high`` in CUBES). The door renders it
    (``bbspoker.door.messages.refusal``); ``str(err)`` is for logs only.
    """

    def __init__(self, code: str, **params: Any) -> None:
        super().__init__(code)
        self.code = code
        self.params = params

    def __str__(self) -> str:
        if not self.params:
            return self.code
        return f"{self.code} " + ", ".join(f"{k}={v!r}" for k, v in self.params.items())
