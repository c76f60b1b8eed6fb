"""The registry of game kinds: every kind a table can run, each declared once in its own
package (:class:`~bbspoker.rules.base.KindSpec`) and listed here. Config, the table
registry and ``games verify`` look a kind up by its name (:func:`kind`); nothing else
outside a kind's package names it."""

from __future__ import annotations

from bbspoker.rules.base import KindSpec
from bbspoker.rules.draw40.kind import DRAW40
from bbspoker.rules.holdem.kind import HOLDEM
from bbspoker.rules.schiebe.kind import SCHIEBE
from bbspoker.rules.stud.kind import STUD

__all__ = ["KINDS", "DEFAULT_KIND", "DEFAULT_TOURNAMENT_KIND", "UnknownKind", "kind",
           "names"]

#: Every game kind, in the order config and help texts list them.
KINDS: tuple[KindSpec, ...] = (DRAW40, SCHIEBE, HOLDEM, STUD)
#: The kind of a table that names none (``[[tables]]`` without ``game``, the one table of
#: a config without ``[[tables]]``, a game record from before records named their kind).
DEFAULT_KIND = DRAW40.name
#: The kind of a ``[[tournaments]]`` entry (and of ``bbspoker sim --tournament``) that
#: names none: the usual tournament game.
DEFAULT_TOURNAMENT_KIND = HOLDEM.name

_BY_NAME = {k.name: k for k in KINDS}


class UnknownKind(LookupError):
    """No game kind has that name; the message lists those there are."""

    def __init__(self, name: object) -> None:
        super().__init__(f"unknown game kind {name!r} (known: {', '.join(names())})")
        self.name = name


def names() -> tuple[str, ...]:
    """The names of every kind, in registry order."""
    return tuple(_BY_NAME)


def kind(name: str) -> KindSpec:
    """The kind named ``name``. Raises :class:`UnknownKind`."""
    try:
        return _BY_NAME[name]
    except (KeyError, TypeError):
        raise UnknownKind(name) from None
