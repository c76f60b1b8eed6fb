"""Fixed-limit Texas Hold'em as the Finnish network-poker design specifies it
(``verkkopokeri-fi.txt``), with pokerkit as the engine: :mod:`bbspoker.rules.holdem.game`.

``Holdem``, ``HoldemRules`` and ``Street`` are imported from the game module when first
asked for (PEP 562): the package's kind module (its config) loads without pokerkit."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bbspoker.rules.holdem.game import Holdem, HoldemRules, Street

__all__ = ["Holdem", "HoldemRules", "Street"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from bbspoker.rules.holdem import game
        return getattr(game, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
