"""Fixed-limit seven-card stud as a kind (:data:`STUD`): its config, how a table of it is
made, its deck and the walk of its record that ``games verify`` follows.

The game (:mod:`bbspoker.rules.stud.game`, with pokerkit: a few hundred milliseconds to
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
    from bbspoker.rules.stud.game import Stud, StudRules

__all__ = ["StudConfig", "STUD", "stud_draws"]


@dataclass(frozen=True)
class StudConfig(KindConfig):
    """A fixed-limit seven-card stud table's config: ``seats`` (2-7; 7 unless the table's
    entry says), ``small_bet`` (the bet of third and fourth street, at least 2; the big
    bet of fifth to seventh street is twice it), ``ante`` (CUBES each player dealt in
    posts; 0: none), ``bring_in`` (the forced opening bet of the lowest up card, at least
    1 and below the small bet), ``buy_in_min`` and ``buy_in_max`` (CUBES brought to the
    table; 0: 20 and 100 small bets), ``between_hands`` (s from one hand to the next),
    ``idle_games`` (hands with every turn timed out before a player stands up); ``bots``
    (none unless the entry says) buy in like anyone and sit out while no person is at
    the table."""

    seats: int = setting(7, 2, 9)
    small_bet: int = setting(10, 2, 10**9)
    ante: int = setting(1, 0, 10**9)
    bring_in: int = setting(3, 1, 10**9)
    buy_in_min: int = setting(0, 0, 10**12)
    buy_in_max: int = setting(0, 0, 10**12)
    between_hands: float = setting(5.0, 0, 3600)
    idle_games: int = setting(2, 1)
    bot_policy: str = setting("strength")

    kind: ClassVar[str] = "stud"
    bot_policies: ClassVar[tuple[str, ...]] = ("strength", "calling", "random")
    # The ante is draw40's key too, in its own sense (the pot of a game of draw): a stud
    # table keeps its own unless its entry says.
    own_defaults: ClassVar[frozenset[str]] = frozenset({"seats", "bots", "ante",
                                                       "bot_policy"})

    def buy_in_range(self) -> tuple[int, int]:
        """``(minimum, maximum)`` CUBES a player brings (0 means 20 and 100 small bets)."""
        return (self.buy_in_min or 20 * self.small_bet, self.buy_in_max or 100 * self.small_bet)

    def check(self) -> None:
        """2-7 seats, a small bet of at least 2, an ante of 0 or more, 1 <= bring-in <
        small bet, small bet <= buy-in minimum <= maximum, and the checks of every kind.
        Raises :class:`SettingError`."""
        if not 2 <= self.seats <= 7:
            raise SettingError(f"seats must be between 2 and 7, got {self.seats}", "seats")
        if self.small_bet < 2:
            raise SettingError(f"small_bet must be at least 2, got {self.small_bet}",
                               "small_bet")
        if self.ante < 0:
            raise SettingError(f"ante must not be negative, got {self.ante}", "ante")
        if not 1 <= self.bring_in < self.small_bet:
            raise SettingError(f"bring_in must be at least 1 and below small_bet "
                               f"({self.small_bet}), got {self.bring_in}", "bring_in")
        low, high = self.buy_in_range()
        if not self.small_bet <= low <= high:
            raise SettingError(f"needs small_bet ({self.small_bet}) <= buy_in_min ({low}) "
                               f"<= buy_in_max ({high})")
        self._check_bots()
        self._check_policy()

    def rules(self) -> StudRules:
        """The game's numbers."""
        from bbspoker.rules.stud.game import StudRules
        return StudRules(seats=self.seats, small_bet=self.small_bet, ante=self.ante,
                         bring_in=self.bring_in, buy_in_min=self.buy_in_min or None,
                         buy_in_max=self.buy_in_max or None, turn_timeout=self.turn_timeout,
                         between_hands=self.between_hands, idle_hands=self.idle_games)


def _make(config: StudConfig, wallet: Any, phrases: Phrases | None) -> Stud:
    """A stud table's game (``wallet``: the table's, with its stacks)."""
    from bbspoker.rules.stud.game import Stud
    return Stud(wallet, config.rules(), phrases=phrases)


def _tournament_table(config: StudConfig, wallet: Any, bet: int, ante: int,
                      phrases: Phrases | None = None) -> Stud:
    """A tournament's stud table (:class:`~bbspoker.rules.base.TournamentPlay`): the
    config's seats, bring-in proportion and times, the small bet ``bet`` and the ``ante``
    (chips), the tournament's seating (``StudRules.tournament``)."""
    from bbspoker.rules.stud.game import Stud, StudRules
    rules = StudRules(seats=config.seats, small_bet=config.small_bet, ante=config.ante,
                      bring_in=config.bring_in, turn_timeout=config.turn_timeout,
                      between_hands=config.between_hands, idle_hands=config.idle_games,
                      tournament=True)
    game = Stud(wallet, rules, phrases=phrases)
    game.set_stakes(bet, ante)
    return game


def _tournament_stakes(game: Stud, bet: int, ante: int) -> None:
    """A level rose: the small bet ``bet`` (the bring-in in the table's proportion) and
    the ``ante`` from the next hand."""
    game.set_stakes(bet, ante)


def stud_draws(operations: Sequence[Mapping[str, object]]
               ) -> Iterator[Step]:
    """The stud record's use of the deck (for ``games verify``,
    :data:`bbspoker.rules.base.Walk`): each ``street`` line's ``burn`` card, if any, then
    the ``deal`` lines that follow it, one card at a time round them in their order (three
    times round on third street: down, down, up); ``show`` a hand shown, every card the
    player was dealt."""
    group: list[tuple[int, str, list[str]]] = []

    def flush() -> Iterator[Step]:
        rounds = max((len(cards) for _, _, cards in group), default=0)
        for r in range(rounds):
            for step, handle, cards in group:
                if r < len(cards):
                    yield step, handle, "draw", 1, cards[r:r + 1]
        group.clear()

    for step, op in enumerate(operations, 1):
        kind = op.get("op")
        if kind == "deal":
            cards = str(op.get("down") or "").split() + str(op.get("up") or "").split()
            group.append((step, str(op.get("handle")), cards))
            continue
        yield from flush()
        if kind == "street" and op.get("burn"):
            yield step, None, "draw", 1, [str(op["burn"])]
        elif kind == "show":
            yield step, str(op.get("handle")), "hand", 0, str(op.get("cards") or "").split()
    yield from flush()


def _wire() -> tuple[type, ...]:
    """Stud's own types on the wire (:attr:`~bbspoker.rules.base.KindSpec.wire`): its
    rules, seat view, table view and street (its actions are the shared ones)."""
    from bbspoker.rules.stud.game import Street, StudRules, StudSeat, StudTable
    return (StudRules, StudSeat, StudTable, Street)


#: Fixed-limit seven-card stud.
STUD = KindSpec("stud", "Seven-card stud", StudConfig, _make, STANDARD52, stud_draws,
                TournamentPlay("small_bet", _tournament_table, _tournament_stakes),
                wire=_wire)
