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

Given a record store (:class:`HandRecords`: the server's ledger), every hand is also a game
record there, as a cash table's is (:class:`RecordedTableWallet`): the published
commitment, the seal, the history and the server seed, under the table id
``<tournament key>-<run id>-<table number>`` and the tournament's id, so that ``bbspoker
games show`` and ``games verify`` take a tournament's hands too (docs/fairness.md). The
chips stay in memory: such a record moves no CUBES. The simulator records nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol

from bbspoker.rules import actions as act
from bbspoker.rules.base import GameRules, Phrases, TournamentPlay
from bbspoker.rules.events import Event
from bbspoker.rules.fairness import Seal
from bbspoker.rules.tournament import HandOver, Level, Tournament
from bbspoker.store.wallet import MemoryWallet
from bbspoker.table.registry import TableWallet

__all__ = ["TournamentTables", "ChipsNotConserved", "GameRecords", "HandRecords",
           "RecordedTableWallet"]

log = logging.getLogger(__name__)


class ChipsNotConserved(AssertionError):
    """The chips in the wallet are not every entrant's starting chips (a bug)."""


class GameRecords(Protocol):
    """The record side of the store (``bbspoker.store.sql.Ledger``): games opened,
    closed and called off, the commitments published, in transactions whose commits a
    table's service defers (:class:`bbspoker.store.wallet.Wallet`)."""

    def transaction(self, durable: bool = True) -> AbstractContextManager[None]:
        """:meth:`bbspoker.store.wallet.Wallet.transaction`."""
        ...

    def defer_commits(self) -> AbstractContextManager[None]:
        """:meth:`bbspoker.store.wallet.Wallet.defer_commits`."""
        ...

    def commit_pending(self) -> None:
        """:meth:`bbspoker.store.wallet.Wallet.commit_pending`."""
        ...

    def publish_commitment(self, server_seed: bytes, table: str = ...) -> float:
        """:meth:`bbspoker.store.wallet.Wallet.publish_commitment`."""
        ...

    def open_game(self, handles: Sequence[str], seal: Seal | str, table: str = ..., *,
                  tournament: int | None = None) -> int:
        """:meth:`bbspoker.store.sql.books.Books.open_game`: a record of
        ``tournament``'s hand."""
        ...

    def close_game(self, game_id: int, winner: str | None,
                   history: Mapping[str, Any]) -> None:
        """:meth:`bbspoker.store.wallet.Wallet.close_game`."""
        ...

    def cancel_game(self, game_id: int, reason: str,
                    history: Mapping[str, Any] | None = None) -> dict[str, int]:
        """:meth:`bbspoker.store.wallet.Wallet.cancel_game`."""
        ...


@dataclass(frozen=True)
class HandRecords:
    """Where one tournament's hands are recorded: ``store`` (the ledger), the run's
    ``tournament`` id and its config ``key``."""

    store: GameRecords
    tournament: int
    key: str

    def table_id(self, number: int) -> str:
        """The record's table id of table ``number``: ``<key>-<run id>-<number>`` (the
        director's table ids)."""
        return f"{self.key}-{self.tournament}-{number}"


class RecordedTableWallet:
    """A tournament table's wallet that records its hands: the chips are the tournament's
    memory wallet's (``chips``; stacks under ``t<number>``), exactly as a
    :class:`~bbspoker.table.registry.TableWallet` over it, and the hand's record goes to
    ``records.store`` too, as a cash hand's does: the commitment published for the next
    hand, the game opened (its seal; the id is the store's, and the memory wallet keeps
    the hand under it), closed with its history, or called off (the chips refunded in
    memory; the record says how many under ``tournament.chips_refunded``). Every history
    stored carries ``"tournament": {"id": run id, "key": config id, "table": number}``.

    No chip is a CUBE: the store's record of a hand has no journal row. A transaction is
    one in both (the record and the chips undone together), and the table's service
    defers and commits the records' writes like any table's (``defer_commits``,
    ``commit_pending``, :class:`~bbspoker.store.wallet.CommitFailed` included)."""

    def __init__(self, chips: MemoryWallet, number: int, records: HandRecords) -> None:
        self._memory = chips
        self._chips = TableWallet(chips, f"t{number}")
        self._records = records.store
        self._tournament = records.tournament
        self.table_id = records.table_id(number)
        self.mark: dict[str, Any] = {"id": records.tournament, "key": records.key,
                                     "table": number}
        self.defer_commits = self._records.defer_commits
        self.commit_pending = self._records.commit_pending
        # The chips: bound methods of the memory wallet's table view (no extra call).
        for name in ("balance", "balances_of", "pay_into_pot", "pay_out_pot",
                     "pot_to_system", "pay_out_split", "stack", "buy_in", "cash_out",
                     "stack_into_pot", "pot_to_stacks"):
            setattr(self, name, getattr(self._chips, name))

    @contextmanager
    def transaction(self, durable: bool = True) -> Iterator[None]:
        """One all-or-nothing unit in the record store and the chips (see
        :meth:`bbspoker.store.wallet.Wallet.transaction`)."""
        with self._records.transaction(durable), self._memory.transaction(durable):
            yield

    def publish_commitment(self, server_seed: bytes) -> float:
        """The next hand's commitment, published in the record store (see
        :meth:`bbspoker.rules.money.Wallet.publish_commitment`)."""
        return self._records.publish_commitment(server_seed, table=self.table_id)

    def open_game(self, handles: Sequence[str], seal: Seal | str) -> int:
        """Record a new hand in the store (this table's, the tournament's) and open it in
        the chips' wallet under the store's id; returns that id."""
        with self.transaction(durable=False):
            gid = self._records.open_game(handles, seal, table=self.table_id,
                                          tournament=self._tournament)
            commitment = seal.commitment if isinstance(seal, Seal) else seal
            self._memory.open_game(handles, commitment, table=self._chips.table_id,
                                   game_id=gid)
            return gid

    def close_game(self, game_id: int, winner: str | None,
                   history: Mapping[str, Any]) -> None:
        """End hand ``game_id`` in both (its pot of chips must be empty); the store's
        record keeps ``history`` with the tournament's mark."""
        with self.transaction(durable=False):
            self._memory.close_game(game_id, winner, history)
            self._records.close_game(game_id, winner, {**history, "tournament": self.mark})

    def cancel_game(self, game_id: int, reason: str,
                    history: Mapping[str, Any] | None = None) -> dict[str, int]:
        """Call hand ``game_id`` off: its chips back to the stacks (returns ``{handle:
        chips}``) and its record closed as called off. A record the store does not hold
        open (its start was lost with a failed commit, and the store may give its id
        again) is left as it is. The chips' wallet then forgets the hand (no hand's end
        reads it). Raises ValueError if the chips' wallet does not hold the hand open."""
        with self.transaction():
            refunds = self._memory.cancel_game(game_id, reason, history)
            try:
                self._records.cancel_game(game_id, reason, {
                    **(history or {}), "tournament": {**self.mark, "chips_refunded": refunds}})
            except ValueError as err:
                log.warning("tournament %s: hand %s called off has no open record: %s",
                            self._tournament, game_id, err)
        memory = self._memory
        memory.games.pop(game_id, None)
        memory.pots.pop(game_id, None)
        memory.stack_moves[:] = [m for m in memory.stack_moves if m[0] != game_id]
        memory.journal[:] = [m for m in memory.journal if m[0] != game_id]
        return refunds


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
    #: Where the hands are recorded (:class:`RecordedTableWallet`); ``None``: nowhere.
    records: HandRecords | None = None
    #: The players' client seed phrases for the fair deck (``None``: random ones).
    phrases: Phrases | None = None

    @classmethod
    def open(cls, play: TournamentPlay, config: Any, state: Tournament,
             now: float, started: float | None = None,
             records: HandRecords | None = None,
             phrases: Phrases | None = None) -> TournamentTables:
        """The tables of ``state`` made and everyone seated with their chips (a new
        tournament, or one resumed from its journal: ``started`` the ``now`` it began);
        ``records``: where each hand is recorded (``None``: nowhere); ``phrases``: the
        players' client seed phrases (``None``: random ones)."""
        t = cls(play, config, state, now if started is None else started, records=records,
                phrases=phrases)
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
        wallet: TableWallet | RecordedTableWallet = (
            TableWallet(self.wallet, f"t{number}") if self.records is None
            else RecordedTableWallet(self.wallet, number, self.records))
        game = self.play.table(self.config, wallet, level.bet, level.ante, self.phrases)
        self.games[number] = game
        return game

    def _seat(self, number: int, handle: str, now: float) -> list[Event]:
        return self.games[number].apply(handle, act.Sit(), now)

    def chips(self, number: int, handle: str) -> int:
        """``handle``'s chips at table ``number`` between its hands (the kind's
        :attr:`~bbspoker.rules.base.TournamentPlay.chips`: the stack, or the balance)."""
        return self.play.chips(self.wallet, f"t{number}", handle)

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
        director does it in that table's own step and returns no events). The hand's entry
        and its wallet journal are dropped from the memory wallet (the tournament's own
        journal is :meth:`journal`; the hand's record is the record store's, if any); those
        of hands still running at other tables stay, for a call-off to refund."""
        before: dict[str, int] = {}
        if game_id is not None:
            history = self.wallet.games.pop(game_id)["history"]
            before = {str(h): int(c) for h, c in history["starting_stacks"].items()}
            wallet = self.wallet
            wallet.journal[:] = [m for m in wallet.journal if m[0] != game_id]
            wallet.stack_moves[:] = [m for m in wallet.stack_moves if m[0] != game_id]
            wallet.pots.pop(game_id, None)
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

    def enter_late(self, handle: str) -> tuple[int, bool]:
        """Late registration: ``handle`` enters with the starting chips at the table the
        model picks (a new one when all are full); returns its number and whether that
        table is new. The caller seats them there (``Sit``, in that table's step).
        Raises :class:`~bbspoker.rules.tournament.TournamentRuleError` ``entered`` if they
        entered before."""
        number = self.state.enter_late(handle)
        self.wallet.balances[handle.lower()] = self.state.rules.chips
        self.wallet._names[handle.lower()] = handle
        new = number not in self.games
        if new:
            self._new_table(number)
        return number, new

    def journal(self, now: float) -> dict[str, Any]:
        """What the journal keeps after a hand: the model's state, the level and the
        seconds since the start."""
        return {**self.state.to_json(), "level": self.level, "elapsed": now - self.started}

    def stacks(self) -> Mapping[str, int]:
        """Every player's chips, at a table or not."""
        return {h: self.wallet.balance(h) + sum(self.wallet.stacks.get((f"t{n}", h.lower()), 0)
                                                for n in self.games)
                for h in self.state.stacks}
