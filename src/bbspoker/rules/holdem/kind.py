"""Texas Hold'em (fixed, pot or no limit) as a kind (:data:`HOLDEM`): its config, how a
table of it is made, its deck and the walk of its record that ``games verify`` follows.

The game (:mod:`bbspoker.rules.holdem.game`, with pokerkit: a few hundred milliseconds to
import) is imported only when a table is made: the config and every ``bbspoker``
command read this module without it."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from bbspoker.rules.base import (KindConfig, KindSpec, Phrases, SettingError, Step,
                                 TournamentPlay, setting)
from bbspoker.rules.cards import STANDARD52

if TYPE_CHECKING:
    from bbspoker.rules.holdem.game import Holdem, HoldemRules

__all__ = ["HoldemConfig", "HOLDEM", "holdem_draws"]


@dataclass(frozen=True)
class HoldemConfig(KindConfig):
    """A Texas Hold'em table's config: ``limit`` (the betting structure: ``"fixed"``,
    ``"pot"`` or ``"no"``), ``seats`` (2-9; 9 unless the table's entry says),
    ``small_bet`` (even: the big blind, the small blind being half of it; at fixed limit
    also the bet of preflop and the flop, the big bet twice it; at pot and no limit the
    smallest bet: ``small_bet = 10`` is a 10/20 fixed-limit or a 5/10 no-limit table),
    ``buy_in_min`` and
    ``buy_in_max`` (CUBES brought to the table; 0: 20 and 100 big blinds),
    ``between_hands`` (s from one hand to the next), ``idle_games`` (hands with every
    turn timed out before a player stands up); ``bots`` (none unless the entry says)
    buy in like anyone and sit out while no person is at the table."""

    seats: int = setting(9, 2, 9)
    limit: str = setting("fixed", choices=("fixed", "pot", "no"))
    small_bet: int = setting(10, 2, 10**9)
    buy_in_min: int = setting(0, 0, 10**12)
    buy_in_max: int = setting(0, 0, 10**12)
    between_hands: float = setting(5.0, 0, 3600)
    idle_games: int = setting(2, 1)

    kind: ClassVar[str] = "holdem"
    bot_policies: ClassVar[tuple[str, ...]] = ("equity", "calling", "random")
    own_defaults: ClassVar[frozenset[str]] = frozenset({"seats", "bots"})

    def buy_in_range(self) -> tuple[int, int]:
        """``(minimum, maximum)`` CUBES a player brings (0 means 20 and 100 big blinds)."""
        return (self.buy_in_min or 20 * self.small_bet, self.buy_in_max or 100 * self.small_bet)

    def check(self) -> None:
        """An even small bet, small bet <= buy-in minimum <= maximum, and the checks of
        every kind. Raises :class:`SettingError`."""
        if not 2 <= self.seats <= 9:
            raise SettingError(f"seats must be between 2 and 9, got {self.seats}")
        if self.small_bet % 2:
            raise SettingError(f"small_bet must be even (the small blind is half of it), "
                               f"got {self.small_bet}")
        low, high = self.buy_in_range()
        if not self.small_bet <= low <= high:
            raise SettingError(f"needs small_bet ({self.small_bet}) <= buy_in_min ({low}) "
                               f"<= buy_in_max ({high})")
        self._check_bots()
        self._check_policy()

    def rules(self) -> HoldemRules:
        """The game's numbers."""
        from bbspoker.rules.holdem.game import HoldemRules
        return HoldemRules(seats=self.seats, small_bet=self.small_bet,
                           buy_in_min=self.buy_in_min or None,
                           buy_in_max=self.buy_in_max or None, turn_timeout=self.turn_timeout,
                           between_hands=self.between_hands, idle_hands=self.idle_games,
                           limit=self.limit)


def _make(config: HoldemConfig, wallet: Any, phrases: Phrases | None) -> Holdem:
    """A Hold'em table's game (``wallet``: the table's, with its stacks)."""
    from bbspoker.rules.holdem.game import Holdem
    return Holdem(wallet, config.rules(), phrases=phrases)


def _tournament_table(config: HoldemConfig, wallet: Any, bet: int, ante: int,
                      phrases: Phrases | None = None) -> Holdem:
    """A tournament's Hold'em table (:class:`~bbspoker.rules.base.TournamentPlay`): the
    config's limit, seats and times, the big blind ``bet`` and the ``ante`` (chips), the
    tournament's seating (``HoldemRules.tournament``)."""
    from bbspoker.rules.holdem.game import Holdem, HoldemRules
    return Holdem(wallet, HoldemRules(seats=config.seats, small_bet=bet, ante=ante,
                                      turn_timeout=config.turn_timeout,
                                      between_hands=config.between_hands,
                                      idle_hands=config.idle_games, limit=config.limit,
                                      tournament=True), phrases=phrases)


def _tournament_stakes(game: Holdem, bet: int, ante: int) -> None:
    """A level rose: the big blind ``bet`` and the ``ante`` from the next hand."""
    game.set_stakes(bet, ante)


def holdem_draws(operations: Sequence[Mapping[str, object]]) -> Iterator[Step]:
    """The Hold'em record's use of the deck (``docs/rules.md``): the ``deal`` lines hold
    each player's two hole cards in the order dealt, one card at a time round the table
    twice; each ``board`` line a ``burn`` card, then its cards; ``show`` a hand shown."""
    deals = [(step, op) for step, op in enumerate(operations, 1) if op.get("op") == "deal"]
    for r in range(2):
        for step, op in deals:
            cards = str(op.get("cards") or "").split()
            yield step, str(op.get("handle")), "draw", 1, cards[r:r + 1]
    for step, op in enumerate(operations, 1):
        if op.get("op") == "board":
            if op.get("burn"):
                yield step, None, "draw", 1, [str(op["burn"])]
            cards = str(op.get("cards") or "").split()
            yield step, None, "draw", len(cards), cards
        elif op.get("op") == "show":
            yield step, str(op.get("handle")), "hand", 0, str(op.get("cards") or "").split()


def _wire() -> tuple[type, ...]:
    """Hold'em's own types on the wire (:attr:`~bbspoker.rules.base.KindSpec.wire`): its
    rules, seat view, table view and street (its actions are the shared ones)."""
    from bbspoker.rules.holdem.game import HoldemRules, HoldemSeat, HoldemTable, Street
    return (HoldemRules, HoldemSeat, HoldemTable, Street)


#: Texas Hold'em, fixed, pot or no limit.
HOLDEM = KindSpec("holdem", "Hold'em", HoldemConfig, _make, STANDARD52, holdem_draws,
                  TournamentPlay("small_bet", _tournament_table, _tournament_stakes),
                  wire=_wire)
