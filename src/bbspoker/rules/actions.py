"""Typed actions: what a player (or the server) asks a table to do.

Actions are frozen values; a game kind says which it allows now
(:meth:`~bbspoker.rules.base.GameRules.legal_actions` gives the action *types*),
checks one (``verify``, raising :class:`~bbspoker.rules.events.RuleError`) and
applies it (``apply``, returning :class:`~bbspoker.rules.events.Event` s). Seating
actions (:class:`Sit`, :class:`Leave`) and the server's :class:`Cancel` go the same
way, so one queue in the table's task orders everything.
"""

from __future__ import annotations

from dataclasses import dataclass

from bbspoker.rules.cards import Card

__all__ = ["Action", "Sit", "Leave", "Start", "Bet", "SeeHands", "Pass", "Discard", "Reveal",
           "Cancel", "CheckCall", "BetRaise", "SitOut"]


@dataclass(frozen=True, slots=True)
class Action:
    """Base class of every action."""


@dataclass(frozen=True, slots=True)
class Sit(Action):
    """Take the first free seat. ``buy_in``: the CUBES to bring to a table-stakes game
    (Hold'em; ``None``: as much as the table allows and the player has); ``out``: sit down
    sitting out (Hold'em: dealt no cards until :class:`SitOut` ``out=False``). draw40
    ignores both."""

    buy_in: int | None = None
    out: bool = False


@dataclass(frozen=True, slots=True)
class Leave(Action):
    """Leave the seat at once; ``reason`` is a code: ``left`` ([X]), ``lost_connection``
    (the seat's grace after a drop ran out)."""

    reason: str = "left"


@dataclass(frozen=True, slots=True)
class Start(Action):
    """The game-master opens a game ([S])."""


@dataclass(frozen=True, slots=True)
class Bet(Action):
    """Bet ``amount`` CUBES ([B]; equal to the previous bet is a call)."""

    amount: int


@dataclass(frozen=True, slots=True)
class SeeHands(Action):
    """Bet ``amount`` CUBES and ask to see hands ([H], draw40 from round 3)."""

    amount: int


@dataclass(frozen=True, slots=True)
class Pass(Action):
    """Pass/fold ([P]): stop competing for this game's pot."""


@dataclass(frozen=True, slots=True)
class Discard(Action):
    """Exchange ``cards`` (0 to the game's maximum, from one's own hand) for new ones."""

    cards: tuple[Card, ...] = ()


@dataclass(frozen=True, slots=True)
class Reveal(Action):
    """Show one's hand in the showdown ([R])."""


@dataclass(frozen=True, slots=True)
class Cancel(Action):
    """The server calls the running game off (shutdown): every ante and bet goes back.
    ``reason`` is a code (``shutdown``); ``note`` is what the ledger records with the
    refund (its notices), ``None`` for the code itself (the ledger knows the codes'
    English and stores notices as codes, rendered in each reader's language)."""

    reason: str
    note: str | None = None


@dataclass(frozen=True, slots=True)
class CheckCall(Action):
    """Check, or call the bet to match ([C], Hold'em: the amount is the game's)."""


@dataclass(frozen=True, slots=True)
class BetRaise(Action):
    """Bet or raise ([R], Hold'em). ``to``: the total (chips) this betting round's bet of
    the player reaches with it, as "raise to 60" says; ``None``: the smallest bet or raise
    allowed now. A fixed-limit table takes only ``None`` (its bets are the betting
    round's fixed amount); no-limit and pot-limit tables take any whole number from the
    smallest to the largest bet or raise allowed now, the player's whole stack being an
    all-in ([A])."""

    to: int | None = None


@dataclass(frozen=True, slots=True)
class SitOut(Action):
    """Sit out from the next hand (``out`` True) or come back (``out`` False) ([I], Hold'em):
    one sitting out keeps the seat and the stack and is dealt no cards."""

    out: bool = True
