"""The tables of one tournament, kept in step with its model
(:class:`bbspoker.rules.tournament.Tournament`): a game per table made by its kind's
:class:`~bbspoker.rules.base.TournamentPlay`, every player's chips in one memory wallet
(their balance there: chips not at a table; a stack: chips at one), the levels applied as
they rise, and the model's answer to each hand's end carried out: players out stand up,
players moved stand up at one table and sit down at another with their stack, a broken
table closes.

Synchronous and clock-free like the rules (``now``: seconds on the caller's monotonic
clock): the simulator (``bbspoker sim --tournament``) plays every table's hands one after
the other through it, and the server's tournament director drives it from the tables'
tasks.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from bbspoker.rules import actions as act
from bbspoker.rules.base import GameRules, TournamentPlay
from bbspoker.rules.events import Event
from bbspoker.rules.tournament import HandOver, Level, Tournament
from bbspoker.store.wallet import MemoryWallet
from bbspoker.table.registry import TableWallet

__all__ = ["TournamentTables", "ChipsNotConserved"]


class ChipsNotConserved(AssertionError):
    """The chips in the wallet are not every entrant's starting chips (a bug)."""


@dataclass
class TournamentTables:
    """A tournament's tables: ``play`` (its kind's hooks), ``config`` (the kind config of
    its tables), ``state`` (the model), ``started`` (``now`` at the start: the levels'
    clock), ``games`` (table number -> game), ``wallet`` (the chips), ``level`` (the index
    of the level the tables deal at)."""

    play: TournamentPlay
    config: Any
    state: Tournament
    started: float
    wallet: MemoryWallet = field(default_factory=MemoryWallet)
    games: dict[int, GameRules] = field(default_factory=dict)
    level: int = 0

    @classmethod
    def open(cls, play: TournamentPlay, config: Any, state: Tournament,
             now: float, started: float | None = None) -> TournamentTables:
        """The tables of ``state`` made and everyone seated with their chips (a new
        tournament, or one resumed from its journal: ``started`` the ``now`` it began)."""
        t = cls(play, config, state, now if started is None else started)
        t.level = state.rules.level_at(now - t.started)
        for handle, chips in state.stacks.items():
            t.wallet.balances[handle.lower()] = chips
            t.wallet._names[handle.lower()] = handle
        for number, seated in state.tables.items():
            t._new_table(number)
            for handle in seated:
                t._seat(number, handle, now)
        return t

    @property
    def stakes(self) -> Level:
        """The level the tables deal at."""
        return self.state.rules.levels[self.level]

    def _new_table(self, number: int) -> GameRules:
        level = self.stakes
        game = self.play.table(self.config, TableWallet(self.wallet, f"t{number}"),
                               level.bet, level.ante)
        self.games[number] = game
        return game

    def _seat(self, number: int, handle: str, now: float) -> list[Event]:
        return self.games[number].apply(handle, act.Sit(), now)

    def chips(self, number: int, handle: str) -> int:
        """``handle``'s stack at table ``number``."""
        return self.wallet.stack(handle, table=f"t{number}")

    def check_chips(self) -> None:
        """Raise :class:`ChipsNotConserved` unless the chips in the wallet (balances,
        stacks, pots) are every entrant's starting chips."""
        if self.wallet.total() != self.state.total_chips:
            raise ChipsNotConserved(f"{self.wallet.total()} chips in play, "
                                    f"{self.state.total_chips} expected")

    def tick_level(self, now: float) -> bool:
        """Apply the level running at ``now`` to every table (from each one's next hand);
        returns whether it rose."""
        level = self.state.rules.level_at(now - self.started)
        if level == self.level:
            return False
        self.level = level
        for game in self.games.values():
            self.play.stakes(game, self.stakes.bet, self.stakes.ante)
        return True

    def hand_over(self, number: int, game_id: int | None, now: float,
                  seat: Callable[[int, str], list[Event]] | None = None
                  ) -> tuple[HandOver, list[tuple[int, Event]]]:
        """Table ``number``'s hand ``game_id`` ended: tell the model each player's chips
        before it and after (from the hand's record: ``starting_stacks`` and ``stacks``),
        and carry out what it says. ``game_id`` ``None``: the table could not deal (fewer
        than two players there), and the model may move players to it or break it.
        Returns the model's :class:`HandOver` and the events of the tables it changed
        (``(table number, event)``: stand-ups and sit-downs). ``seat(number, handle)``
        seats a moved player at their new table (default: at once, here; the server's
        director does it in that table's own step and returns no events). The hand's record and its
        wallet journal are dropped (the tournament keeps no CUBES record of its hands;
        its journal is :meth:`journal`)."""
        before: dict[str, int] = {}
        if game_id is not None:
            history = self.wallet.games.pop(game_id)["history"]
            before = {str(h): int(c) for h, c in history["starting_stacks"].items()}
            self.wallet.journal.clear()
            self.wallet.stack_moves.clear()
            self.wallet.pots.pop(game_id, None)
        after = {h: self.chips(number, h) for h in before}
        over = self.state.hand_over(number, before, after, self._movers(number))
        events: list[tuple[int, Event]] = []
        game = self.games[number]
        for handle in over.out:
            events += [(number, e) for e in self.play_remove(game, handle, now)]
        for move in over.moves:
            events += [(move.source, e) for e in
                       self.play_remove(self.games[move.source], move.handle, now)]
            sit = seat or (lambda n, h: self._seat(n, h, now))
            events += [(move.target, e) for e in sit(move.target, move.handle)]
        if over.broke:
            del self.games[number]
        return over, events

    def _movers(self, number: int) -> list[str]:
        """Who at table ``number`` moves first when it must give players up: the players
        in seat order from the one after the button's left neighbour (the next big blind
        first), so a move spares the player about to post it."""
        game = self.games[number]
        handles = list(game.handles)
        button = getattr(game, "button", None)
        if button in handles:
            at = handles.index(button)
            handles = handles[at + 2:] + handles[:at + 2]
        return handles

    @staticmethod
    def play_remove(game: GameRules, handle: str, now: float) -> list[Event]:
        """Stand ``handle`` up from ``game`` between its hands (their stack back to the
        wallet)."""
        return game.remove(handle, now)  # type: ignore[attr-defined, no-any-return]

    def enter_late(self, handle: str, now: float) -> tuple[int, list[Event]]:
        """Late registration: ``handle`` enters with the starting chips at the table the
        model picks (a new one when all are full); returns its number and the events."""
        number = self.state.enter_late(handle)
        self.wallet.balances[handle.lower()] = self.state.rules.chips
        self.wallet._names[handle.lower()] = handle
        if number not in self.games:
            self._new_table(number)
        return number, self._seat(number, handle, now)

    def journal(self, now: float) -> dict[str, Any]:
        """What the journal keeps after a hand: the model's state, the level and the
        seconds since the start."""
        return {**self.state.to_json(), "level": self.level, "elapsed": now - self.started}

    def stacks(self) -> Mapping[str, int]:
        """Every player's chips, at a table or not."""
        return {h: self.wallet.balance(h) + sum(self.wallet.stacks.get((f"t{n}", h.lower()), 0)
                                                for n in self.games)
                for h in self.state.stacks}
