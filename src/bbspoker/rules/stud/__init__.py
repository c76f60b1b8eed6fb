"""Fixed-limit seven-card stud, with pokerkit as the engine: :mod:`bbspoker.rules.stud.game`;
the walk of its record for ``games verify``: :func:`bbspoker.rules.stud.kind.stud_draws`.

``Stud``, ``StudRules`` and ``Street`` are imported from the game module when first asked
for (PEP 562): the package's kind module (its config) loads without pokerkit."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bbspoker.rules.stud.kind import stud_draws

if TYPE_CHECKING:
    from bbspoker.rules.stud.game import Street, Stud, StudRules

__all__ = ["Stud", "StudRules", "Street", "stud_draws"]


def __getattr__(name: str) -> Any:
    if name in ("Stud", "StudRules", "Street"):
        from bbspoker.rules.stud import game
        return getattr(game, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
