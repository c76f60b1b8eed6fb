"""The 40-card draw game as a kind (:data:`DRAW40`): its config, how a table of it is
made, its deck and the walk of its record that ``games verify`` follows."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from bbspoker.rules.base import (KindConfig, KindSpec, Phrases, SettingError, Step,
                                 TournamentPlay, setting)
from bbspoker.rules.cards import GV40
from bbspoker.rules.draw40.game import Draw40, Draw40Rules
from bbspoker.rules.tournament import Level

__all__ = ["Draw40Config", "DRAW40", "DRAW40_LEVELS", "draw40_draws"]


@dataclass(frozen=True)
class Draw40Config(KindConfig):
    """A draw40 table's config (chapter 2 of the rules): ``seats`` (2-5); ``ante`` CUBES
    each player pays to enter a game (at least 1); bets between ``min_bet`` and
    ``max_bet`` CUBES; ``master_timeout`` (s) before the game-master privilege moves on;
    ``between_games`` (s) before the next game may start; the showdown starts by itself
    at round ``max_round``; a player who sits out ``idle_games`` games in a row is
    removed."""

    seats: int = setting(5, 2, 9)
    ante: int = setting(10, 0, 10**9)
    min_bet: int = setting(1, 1, 10**9)
    max_bet: int = setting(200, 1, 10**9)
    master_timeout: float = setting(180.0, positive=True)
    between_games: float = setting(30.0, 0)
    max_round: int = setting(32700, 3, 32700)
    idle_games: int = setting(2, 1)

    kind: ClassVar[str] = "draw40"
    bot_policies: ClassVar[tuple[str, ...]] = ("equity", "calling", "aggressive", "random")

    def check(self) -> None:
        """At most 5 seats, an ante of at least 1, ``min_bet`` <= ``max_bet``, and the
        checks of every kind. Raises :class:`SettingError`."""
        if not 2 <= self.seats <= 5:
            raise SettingError(f"seats must be between 2 and 5, got {self.seats}")
        if self.ante < 1:
            raise SettingError(f"ante must be between 1 and {10**9}, got {self.ante}",
                               key="ante")
        self._check_policy()
        if self.min_bet > self.max_bet:
            raise SettingError(f"min_bet ({self.min_bet}) is above max_bet ({self.max_bet})")
        self._check_bots()

    def rules(self) -> Draw40Rules:
        """The game's numbers."""
        return Draw40Rules(seats=self.seats, ante=self.ante, min_bet=self.min_bet,
                           max_bet=self.max_bet, turn_timeout=self.turn_timeout,
                           master_timeout=self.master_timeout,
                           between_games=self.between_games, max_round=self.max_round,
                           idle_games=self.idle_games)


def _make(config: Draw40Config, wallet: Any, phrases: Phrases | None) -> Draw40:
    """A draw40 table's game (``wallet``: the table's)."""
    return Draw40(wallet, config.rules(), phrases=phrases)


def _tournament_table(config: Draw40Config, wallet: Any, bet: int, ante: int,
                      phrases: Phrases | None = None) -> Draw40:
    """A tournament's draw40 table (:class:`~bbspoker.rules.base.TournamentPlay`): the
    config's seats and times, bets from 1 to ``bet`` chips and the ``ante`` (chips),
    played as ``Draw40Rules.tournament`` says (``wallet``: the tournament's chips, a
    player's balance there their chips)."""
    rules = Draw40Rules(seats=config.seats, ante=ante, min_bet=1, max_bet=bet,
                        max_discard=3, turn_timeout=config.turn_timeout,
                        master_timeout=config.master_timeout,
                        between_games=config.between_games, max_round=config.max_round,
                        idle_games=config.idle_games, tournament=True)
    return Draw40(wallet, rules, phrases=phrases)


def _tournament_stakes(game: Draw40, bet: int, ante: int) -> None:
    """A level rose: bets up to ``bet`` and the ``ante`` from the next game."""
    game.set_stakes(bet, ante)


def _balance_chips(wallet: Any, table: str, handle: str) -> int:
    """A draw40 player's chips at a tournament table: their balance in the tournament's
    wallet (the antes and bets are paid from it)."""
    return int(wallet.balance(handle))


#: The default levels of a draw40 tournament: the bet limit (a level's ``bet``, the
#: ``max_bet``) and an ante of a tenth of it, five minutes each.
DRAW40_LEVELS: tuple[Level, ...] = tuple(
    Level(bet, bet // 10, 5.0) for bet in (
        20, 30, 50, 80, 100, 150, 200, 300, 400, 600, 800, 1000, 1500, 2000, 3000, 4000,
        6000, 8000, 10000))


def draw40_draws(operations: Sequence[Mapping[str, object]]) -> Iterator[Step]:
    """The draw40 record's use of the deck (chapter 2): ``deal`` takes five cards per
    player, player after player; a ``discard`` of n cards draws n (a discard of none, or
    a timed-out one, draws nothing); ``reveal`` and ``won`` with ``cards`` show a hand.
    A discard also names the cards given up: they must be in the hand (``discarded``)."""
    for step, op in enumerate(operations, 1):
        kind, handle = op.get("op"), op.get("handle")
        handle = handle if isinstance(handle, str) else None
        cards = str(op.get("cards") or "").split()
        if kind == "deal":
            yield step, handle, "deal", 5, cards
        elif kind == "discard" and cards:
            yield step, handle, "discarded", 0, cards
            yield step, handle, "draw", len(cards), str(op.get("drawn") or "").split()
        elif kind in ("reveal", "won") and cards:
            yield step, handle, "hand", 0, cards


def _wire() -> tuple[type, ...]:
    """draw40's own types on the wire (:attr:`~bbspoker.rules.base.KindSpec.wire`): its
    rules, seat view, table view and phase, and the hand categories and values its
    showdown events name (its actions are the shared ones)."""
    from bbspoker.rules.draw40.game import Draw40View, Phase, SeatView
    from bbspoker.rules.draw40.hands import Category, HandValue
    return (Draw40Rules, SeatView, Draw40View, Phase, Category, HandValue)


#: The 40-card draw game.
DRAW40 = KindSpec("draw40", "40-card draw", Draw40Config, _make, GV40, draw40_draws,
                  TournamentPlay("max_bet", _tournament_table, _tournament_stakes,
                                 chips=_balance_chips, levels=DRAW40_LEVELS, min_ante=1),
                  wire=_wire)
