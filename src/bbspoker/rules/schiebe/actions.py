"""Schiebe-Poker's own typed actions (``schiebe-poker-de.txt``); seating and the server's
actions (:class:`~bbspoker.rules.actions.Sit`, ``Leave``, ``Cancel``) are the shared ones.

Positions count from the left, 0 to 2: 0 left, 1 middle, 2 right, for the middle row
and for a player's open cards alike.
"""

from __future__ import annotations

from dataclasses import dataclass

from bbspoker.rules import actions as act

__all__ = ["Propose", "Vote", "Push", "Swap", "SwapAll", "NoSwap", "LEFT", "RIGHT",
           "PLAY_ORDER"]

LEFT, RIGHT = "left", "right"


@dataclass(frozen=True, slots=True)
class Propose(act.Start):
    """The host (the first seated) proposes to play ``rounds`` rounds, 2 to 7 ("Die
    Spieler*innen einigen sich vor Spielstart auf eine Anzahl an zu spielenden Runden
    zwischen zwei und sieben"); the game starts once every other seated player said yes.
    A :class:`~bbspoker.rules.actions.Start`, so that a server that is closing refuses it."""

    rounds: int = 3


@dataclass(frozen=True, slots=True)
class Vote(act.Action):
    """Answer the host's proposal: ``yes`` agrees to the number of rounds, ``no`` drops it."""

    yes: bool


@dataclass(frozen=True, slots=True)
class Push(act.Action):
    """Aktion 1, Schieben: move the middle row one place to the ``direction`` (``"left"`` or
    ``"right"``); the card pushed out goes open onto the discard pile, the free place is
    filled from the draw pile."""

    direction: str


@dataclass(frozen=True, slots=True)
class Swap(act.Action):
    """Aktion 2, Tauschen: one's open card at position ``own`` (0-2) with the middle card
    at position ``middle`` (0-2)."""

    own: int
    middle: int


@dataclass(frozen=True, slots=True)
class SwapAll(act.Action):
    """Aktion 2, Tauschen: all three open cards with the three middle cards, position by
    position (left with left, middle with middle, right with right)."""


@dataclass(frozen=True, slots=True)
class NoSwap(act.Action):
    """Aktion 2, Tauschen: "verzichtet auf einen Tausch" (no swap); it is one of the turn's
    two actions."""


#: The actions of a turn, in the order the command area lists them.
PLAY_ORDER: tuple[type[act.Action], ...] = (Push, Swap, SwapAll, NoSwap)
