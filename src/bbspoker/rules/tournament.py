"""A tournament's own rules, apart from the game its tables play: levels, the draw for seats,
eliminations and places, balancing and breaking tables, and the prizes.

A tournament runs tables of an existing game kind (Hold'em at any limit, 7-card stud) with
tournament **chips**, which are not CUBES: every entrant starts with ``chips``, and the
tournament ends when one player holds them all. The CUBES are the buy-ins, all of them in the
prize pool (no fee), paid out by finishing place (:func:`prizes`).

This model is pure and synchronous like the rest of :mod:`bbspoker.rules`: the director that
runs the tables (``bbspoker.table.tournament``) and the simulator (``bbspoker sim
--tournament``) call :meth:`Tournament.hand_over` when a table's hand has ended and carry out
the :class:`Move` list it returns; time is a value (seconds since the start).

The usual rules of tournament poker, as poker-network's engine and PokerTH play them:

- **Levels** rise on the clock: :meth:`TournamentRules.level_at`; the last level stays.
- **The draw**: players are seated at random, as evenly as the tables allow.
- **Eliminations**: a player left without chips is out, and takes the place equal to the
  number of players left before they went out. Several out in the same hand place by their
  chips before the hand (more chips: the better place); equal chips share the places (and
  their prizes).
- **Balancing**: no table has more than one player above another. Only a table between hands
  gives players up (the one whose hand just ended), to the tables with the fewest.
- **Breaking**: when the players left fit at one table fewer, the table with the highest
  number breaks as soon as its hand ends, its players spread over the others, down to one
  final table.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Level", "PayoutTier", "DEFAULT_PAYOUTS", "TournamentRules", "Move", "HandOver",
           "Tournament", "prizes", "balanced", "TournamentRuleError", "TURBO_LEVELS"]


class TournamentRuleError(ValueError):
    """What a tournament cannot do (a code, like the games' ``RuleError``, and its data)."""

    def __init__(self, code: str, **data: Any) -> None:
        super().__init__(code, data)
        self.code = code
        self.data = data


@dataclass(frozen=True, slots=True)
class Level:
    """One level: ``bet`` chips, the game kind's stake (Hold'em: the big blind, the small
    blind half of it; 7-card stud: the small bet), ``ante`` chips each player posts before a
    hand, for ``minutes`` (> 0)."""

    bet: int
    ante: int = 0
    minutes: float = 10.0

    def __post_init__(self) -> None:
        if isinstance(self.bet, bool) or not isinstance(self.bet, int) or self.bet < 2:
            raise ValueError("a level's bet must be a whole number of chips, at least 2")
        if isinstance(self.ante, bool) or not isinstance(self.ante, int) or self.ante < 0:
            raise ValueError("a level's ante must be a whole number of chips, 0 or more")
        if not self.minutes > 0:
            raise ValueError("a level must last more than 0 minutes")


@dataclass(frozen=True, slots=True)
class PayoutTier:
    """The prizes of a tournament of ``entrants`` or more players (up to the next tier):
    ``shares`` of the pool by finishing place (first place first, any positive weights;
    percentages read best)."""

    entrants: int
    shares: tuple[int, ...]

    def __post_init__(self) -> None:
        if self.entrants < 2:
            raise ValueError("a payout tier starts at 2 entrants or more")
        if not self.shares or any(s <= 0 for s in self.shares):
            raise ValueError("a payout tier needs one or more positive shares")
        if len(self.shares) >= self.entrants:
            raise ValueError(f"a payout tier from {self.entrants} entrants pays at most "
                             f"{self.entrants - 1} places")
        if list(self.shares) != sorted(self.shares, reverse=True):
            raise ValueError("a payout tier's shares may not rise with the place")


#: The prizes most sit-and-go and multi-table sites use: the winner takes all up to 4
#: players, two paid from 5, three from 8 (the 9-seat sit-and-go's 50/30/20), and about one
#: in six or seven entrants paid in larger fields.
DEFAULT_PAYOUTS: tuple[PayoutTier, ...] = (
    PayoutTier(2, (100,)),
    PayoutTier(5, (65, 35)),
    PayoutTier(8, (50, 30, 20)),
    PayoutTier(19, (40, 25, 16, 11, 8)),
    PayoutTier(28, (34, 21, 14, 10, 8, 7, 6)),
    PayoutTier(46, (30, 18, 12, 9, 7, 6, 5, 5, 4, 4)),
)


#: The levels of a tournament entry that names none: a fast sit-and-go's, for 1,500
#: starting chips (bet: the big blind at Hold'em), five minutes each, antes from the
#: fifth level.
TURBO_LEVELS: tuple[Level, ...] = tuple(
    Level(bet, ante, 5.0) for bet, ante in (
        (20, 0), (30, 0), (50, 0), (80, 0), (100, 10), (150, 15), (200, 25), (300, 40),
        (400, 50), (600, 75), (800, 100), (1000, 125), (1500, 200), (2000, 250),
        (3000, 400), (4000, 500), (6000, 800), (8000, 1000), (10000, 1500)))


@dataclass(frozen=True, slots=True)
class TournamentRules:
    """The numbers of a tournament: ``buy_in`` CUBES each entrant puts into the prize pool,
    ``chips`` each starts with, ``seats_per_table`` (2-9), ``levels`` (one or more), and
    ``payouts`` (tiers by entrants, rising)."""

    buy_in: int
    chips: int
    seats_per_table: int
    levels: tuple[Level, ...]
    payouts: tuple[PayoutTier, ...] = DEFAULT_PAYOUTS

    def __post_init__(self) -> None:
        if self.buy_in < 0:
            raise ValueError("buy_in may not be negative")
        if not 2 <= self.seats_per_table <= 9:
            raise ValueError("seats_per_table must be between 2 and 9")
        if not self.levels:
            raise ValueError("a tournament needs one level or more")
        if self.chips < 2 * self.levels[0].bet:
            raise ValueError("chips must be at least two bets of the first level")
        if not self.payouts:
            raise ValueError("a tournament needs one payout tier or more")
        if [t.entrants for t in self.payouts] != sorted({t.entrants for t in self.payouts}):
            raise ValueError("payout tiers must rise by entrants")

    def level_at(self, elapsed: float) -> int:
        """The index of the level running ``elapsed`` seconds after the start (the last
        level goes on for ever)."""
        end = 0.0
        for i, level in enumerate(self.levels):
            end += level.minutes * 60.0
            if elapsed < end:
                return i
        return len(self.levels) - 1

    def level_ends(self, index: int) -> float | None:
        """Seconds after the start when level ``index`` ends (``None``: the last level)."""
        if index >= len(self.levels) - 1:
            return None
        return sum(level.minutes for level in self.levels[:index + 1]) * 60.0

    def shares(self, entrants: int) -> tuple[int, ...]:
        """The payout shares for ``entrants`` players: the tier with the most entrants not
        above it (fewer than the first tier's: the winner takes all)."""
        chosen: tuple[int, ...] = (1,)
        for tier in self.payouts:
            if tier.entrants <= entrants:
                chosen = tier.shares
        return chosen


def prizes(pool: int, shares: Sequence[int], finish: Sequence[Sequence[str]]) -> dict[str, int]:
    """The CUBES each finisher wins: ``pool`` CUBES split by ``shares`` (first place first),
    ``finish`` the players in groups by place, the winner's group first (a group of more
    than one tied: they share the prizes of the places they cover equally). Each place gets
    ``pool * share // total`` and the CUBES that do not divide go to the first place, so the
    prizes add up to the pool exactly; a tied group's odd CUBES go to its members in the
    order given. Returns every paid handle (a prize of 0 is left out)."""
    total = sum(shares)
    places = [pool * s // total for s in shares]
    if places:
        places[0] += pool - sum(places)
    out: dict[str, int] = {}
    at = 0
    for group in finish:
        covered = sum(places[at:at + len(group)])
        at += len(group)
        each, odd = divmod(covered, len(group))
        for i, handle in enumerate(group):
            amount = each + (1 if i < odd else 0)
            if amount:
                out[handle] = amount
    return out


@dataclass(frozen=True, slots=True)
class Move:
    """Take ``handle`` from table ``source`` (between its hands) to table ``target``."""

    handle: str
    source: int
    target: int


@dataclass(frozen=True, slots=True)
class HandOver:
    """What a hand's end means for the tournament: the players ``out`` (handle -> place, in
    the order they placed, worst first), the ``moves`` to make now, whether the table
    ``broke`` (all its players move and it closes) and whether the tournament is
    ``finished`` (one player left)."""

    out: dict[str, int]
    moves: list[Move]
    broke: bool = False
    finished: bool = False


@dataclass
class Tournament:
    """A running tournament's state, owned by its director: ``stacks`` (handle -> chips of
    each player still in), ``tables`` (table number -> handles seated there, in seat
    order), ``finish`` (the groups that went out, the first out first; a group shares its
    places), ``entrants`` (every handle that entered, in entry order). Serialise with
    :meth:`to_json` / :meth:`from_json` (the journal after every hand)."""

    rules: TournamentRules
    entrants: list[str] = field(default_factory=list)
    stacks: dict[str, int] = field(default_factory=dict)
    tables: dict[int, list[str]] = field(default_factory=dict)
    finish: list[list[str]] = field(default_factory=list)

    @classmethod
    def draw(cls, rules: TournamentRules, entrants: Sequence[str],
             rng: random.Random) -> Tournament:
        """Start: every entrant gets ``rules.chips`` and a seat drawn at random, on as few
        tables as hold them all, as evenly as they can be (tables numbered from 1). Raises
        :class:`TournamentRuleError` ``too_few`` with fewer than two entrants or
        ``duplicate`` if a handle enters twice."""
        if len(entrants) < 2:
            raise TournamentRuleError("too_few", entrants=len(entrants))
        if len({h.lower() for h in entrants}) != len(entrants):
            raise TournamentRuleError("duplicate")
        t = cls(rules, list(entrants), {h: rules.chips for h in entrants})
        order = list(entrants)
        rng.shuffle(order)
        count = math.ceil(len(order) / rules.seats_per_table)
        t.tables = {n: [] for n in range(1, count + 1)}
        for i, handle in enumerate(order):
            t.tables[1 + i % count].append(handle)
        return t

    # ------------------------------------------------------------------ queries

    @property
    def players_left(self) -> int:
        """Players still in (with chips)."""
        return len(self.stacks)

    @property
    def total_chips(self) -> int:
        """Chips in play: every entrant's starting chips (conserved by every hand)."""
        return self.rules.chips * len(self.entrants)

    @property
    def average_stack(self) -> int:
        """The chips in play divided by the players left (whole chips, rounded down)."""
        return self.total_chips // max(self.players_left, 1)

    @property
    def finished(self) -> bool:
        """One player (or none) is left."""
        return self.players_left <= 1

    def table_of(self, handle: str) -> int | None:
        """The number of the table ``handle`` sits at (``None``: out or not entered)."""
        key = handle.lower()
        for number, seated in self.tables.items():
            if any(h.lower() == key for h in seated):
                return number
        return None

    def places(self) -> dict[str, int]:
        """Every placed player's place (1 = the winner, once finished; a tied group has the
        best of the places it covers)."""
        out: dict[str, int] = {}
        if self.finished:
            for handle in self.stacks:
                out[handle] = 1
        place = len(self.entrants)
        for group in self.finish:
            best = place - len(group) + 1
            for handle in group:
                out[handle] = best
            place -= len(group)
        return out

    def standings(self) -> list[list[str]]:
        """The players in groups by place, the winner's first (a finished tournament):
        what :func:`prizes` takes."""
        return [list(self.stacks)] + [list(g) for g in reversed(self.finish)]

    def prizes(self, pool: int) -> dict[str, int]:
        """The prizes of a finished tournament from its ``pool`` (CUBES): :func:`prizes`
        with the shares for its number of entrants. Raises :class:`TournamentRuleError`
        ``running`` before the end."""
        if not self.finished:
            raise TournamentRuleError("running")
        return prizes(pool, self.rules.shares(len(self.entrants)), self.standings())

    def place_if_out_now(self) -> int:
        """The place a player would take going out now: the number of players left."""
        return self.players_left

    # ------------------------------------------------------------------ changes

    def hand_over(self, table: int, before: Mapping[str, int], after: Mapping[str, int],
                  order: Sequence[str] | None = None) -> HandOver:
        """Table ``table`` ended a hand: ``before`` and ``after`` are the chips of each player
        seated there, before the hand and now. Records the stacks, puts out who has none
        (placed by ``before``), and returns what to do: the moves that balance or break
        tables, taken from this table (players in ``order``: the first to give up first,
        say the next big blind; default the seat order). Raises
        :class:`TournamentRuleError` ``chips`` (nothing changed) if the hand did not keep
        the table's chips, or ``table`` for an unknown table or players not seated there."""
        seated = self.tables.get(table)
        if seated is None or {h for h in after} - set(seated) or set(before) != set(after):
            raise TournamentRuleError("table", table=table)
        if sum(before.values()) != sum(after.values()) or any(v < 0 for v in after.values()):
            raise TournamentRuleError("chips", table=table)
        for handle, chips in after.items():
            self.stacks[handle] = chips
        busted = [h for h in after if after[h] == 0]
        out: dict[str, int] = {}
        for chips in sorted({before[h] for h in busted}):
            group = [h for h in busted if before[h] == chips]
            place = self.players_left - len(group) + 1
            for handle in group:
                del self.stacks[handle]
                seated.remove(handle)
                out[handle] = place
            self.finish.append(group)
        if self.finished:
            return HandOver(out, [], finished=True)
        moves, broke = self._rebalance(table, order or seated)
        return HandOver(out, moves, broke=broke)

    def _rebalance(self, table: int, order: Sequence[str]) -> tuple[list[Move], bool]:
        """The moves that take players from ``table`` (between hands) to break it or to
        balance the tables."""
        seats = self.rules.seats_per_table
        seated = self.tables[table]
        need = math.ceil(self.players_left / seats)
        movers = [h for h in order if h in seated] + [h for h in seated if h not in order]
        moves: list[Move] = []
        others = [n for n in self.tables if n != table]
        if len(self.tables) > need and table == max(self.tables) and others:
            for handle in movers:
                target = min(others, key=lambda n: (len(self.tables[n]), n))
                moves.append(Move(handle, table, target))
                self.tables[target].append(handle)
            del self.tables[table]
            return moves, True
        for handle in movers:
            if not others:
                break
            target = min(others, key=lambda n: (len(self.tables[n]), n))
            if len(seated) - len(self.tables[target]) < 2:
                break
            seated.remove(handle)
            self.tables[target].append(handle)
            moves.append(Move(handle, table, target))
        return moves, False

    def enter_late(self, handle: str) -> int:
        """Late registration: ``handle`` enters the running tournament with ``rules.chips`` at
        the table with the fewest players (a new table when all are full); returns its
        number. Raises :class:`TournamentRuleError` ``entered`` if they entered before."""
        key = handle.lower()
        if any(h.lower() == key for h in self.entrants):
            raise TournamentRuleError("entered")
        self.entrants.append(handle)
        self.stacks[handle] = self.rules.chips
        target = min(self.tables, key=lambda n: (len(self.tables[n]), n))
        if len(self.tables[target]) >= self.rules.seats_per_table:
            target = max(self.tables) + 1
            self.tables[target] = []
        self.tables[target].append(handle)
        return target

    # ------------------------------------------------------------------ journal

    def to_json(self) -> dict[str, Any]:
        """The state as JSON-able data (the rules are the config's; not included)."""
        return {"entrants": list(self.entrants), "stacks": dict(self.stacks),
                "tables": {str(n): list(s) for n, s in self.tables.items()},
                "finish": [list(g) for g in self.finish]}

    @classmethod
    def from_json(cls, rules: TournamentRules, data: Mapping[str, Any]) -> Tournament:
        """The state :meth:`to_json` wrote, with ``rules``. Raises
        :class:`TournamentRuleError` ``journal`` if it does not add up (the chips in play
        are not every entrant's, a player both in and out, a seat for a player not in)."""
        try:
            t = cls(rules, [str(h) for h in data["entrants"]],
                    {str(h): int(c) for h, c in data["stacks"].items()},
                    {int(n): [str(h) for h in s] for n, s in data["tables"].items()},
                    [[str(h) for h in g] for g in data["finish"]])
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise TournamentRuleError("journal", why=str(exc)) from None
        seated = [h for s in t.tables.values() for h in s]
        out = [h for g in t.finish for h in g]
        if (sum(t.stacks.values()) != t.total_chips or sorted(seated) != sorted(t.stacks)
                or sorted(seated + out) != sorted(t.entrants)):
            raise TournamentRuleError("journal", why="the state does not add up")
        return t


def balanced(tables: Iterable[Sequence[str]]) -> bool:
    """No table has more than one player above another."""
    counts = [len(s) for s in tables]
    return not counts or max(counts) - min(counts) <= 1
