"""The authoritative five-seat PoKeR table: a pure, synchronous state machine.

Typed actions go in through :meth:`Draw40.apply` (``Sit``, ``Leave``, ``Start``,
``Bet``, ``SeeHands``, ``Pass``, ``Discard``, ``Reveal``, ``Cancel`` of
:mod:`bbspoker.rules.actions`; each also has a method of its own, :meth:`Draw40.sit`
...), and time-outs through :meth:`Draw40.tick`, each with the current time in
seconds (any monotonic scale) as ``now``; each returns the list of
:class:`~bbspoker.rules.events.Event` s that the players must be told, as codes with
data (the door makes the sentences). An action that the rules do not allow raises
:class:`~bbspoker.rules.events.RuleError` with a code and its figures, and changes
nothing. CUBES move only through the injected
:class:`~bbspoker.store.wallet.Wallet`; the table never holds money that is not in
the pot.

The rules are chapter 2 of the Global Village BBS PoKeR guide as decided in
``docs/rules.md``; every number is a field of :class:`Draw40Rules`.
"""

from __future__ import annotations

import dataclasses
import random
import secrets
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Callable, Collection, Iterable, Mapping, Sequence

from bbspoker.rules import actions as act
from bbspoker.rules import fairness
from bbspoker.rules.cards import GV40, Card, Suit, format_cards, parse_card, sort_hand
from bbspoker.rules.draw40.hands import evaluate
from bbspoker.rules.seating import AWAY_REASONS, SeatedTable
from bbspoker.rules.events import Event, Operation, RuleError
from bbspoker.rules.money import InsufficientCubes, Wallet

__all__ = ["Draw40Rules", "Phase", "SeatView", "Draw40View", "Draw40", "COMMAND_ORDER"]


@dataclass(frozen=True)
class Draw40Rules:
    """The numbers of the game (chapter 2 defaults). Money in CUBES, times in seconds.
    ``tournament``: a tournament table, played for the tournament's chips (see
    :class:`Draw40` and docs/rules.md "draw40 at a tournament table")."""

    seats: int = 5
    ante: int = 10
    min_bet: int = 1
    max_bet: int = 200
    max_discard: int = 3
    turn_timeout: float = 60.0
    master_timeout: float = 180.0
    between_games: float = 30.0
    max_round: int = 32700
    idle_games: int = 2
    tournament: bool = False

    def __post_init__(self) -> None:
        if not 2 <= self.seats <= 8:
            raise ValueError("seats must be between 2 and 8")
        if self.ante < 1 or self.min_bet < 1 or self.max_bet < self.min_bet:
            raise ValueError("need ante >= 1 and 1 <= min_bet <= max_bet")
        if not 0 <= self.max_discard <= 3:
            raise ValueError("max_discard must be 0..3 (5 x 5 + 5 x 3 = 40 cards)")
        if self.max_round < 3:
            raise ValueError("max_round must be at least 3")


class Phase(Enum):
    """What the table is doing: no game, a betting round, the discarding interval, the showdown."""

    IDLE = "idle"
    BETTING = "betting"
    DISCARDING = "discarding"
    SHOWDOWN = "showdown"


#: The game's action types in command-area order (chapter 2.4).
COMMAND_ORDER = (act.Start, act.Bet, act.SeeHands, act.Pass, act.Discard, act.Reveal)
_START: tuple[type[act.Action], ...] = (act.Start,)
_BET: tuple[type[act.Action], ...] = (act.Bet, act.Pass)
_BET_OR_SEE: tuple[type[act.Action], ...] = (act.Bet, act.SeeHands, act.Pass)
_DISCARD: tuple[type[act.Action], ...] = (act.Discard,)
_REVEAL: tuple[type[act.Action], ...] = (act.Reveal,)
#: The deciding suit in the lowest two bits of a strength -> its symbol (chapter 3).
_SUIT_SYMBOL = {int(s): s.symbol for s in Suit}
#: The 40 cards in the notation order the published shuffle starts from (docs/fairness.md).
NOTATION_ORDER: tuple[Card, ...] = tuple(parse_card(c) for c in GV40.cards())


@dataclass(frozen=True, slots=True)
class SeatView:
    """What everyone can see of one occupied seat."""

    seat: int
    handle: str
    active: bool
    revealed: tuple[Card, ...] | None
    is_master: bool
    is_current: bool
    #: Sitting out at a tournament table (dealt in, giving every turn up at once).
    out: bool = False


@dataclass(frozen=True, slots=True)
class Draw40View:
    """The public table beyond the seats, for the table's snapshot: the ``phase``, the
    ``round`` of the running game (``None`` with none), the game-``master``'s handle and
    ``bet_ranges``: ``{handle in turn: (minimum, maximum) bet}`` in CUBES while a
    betting turn runs (the maximum from the CUBES the snapshot read; empty otherwise)."""

    phase: Phase = Phase.IDLE
    round: int | None = None
    master: str | None = None
    bet_ranges: Mapping[str, tuple[int, int]] = field(default_factory=dict)


@dataclass
class _Seat:
    handle: str
    active: bool = False
    cards: tuple[Card, ...] = ()   # sorted, highest at the right (sort_hand)
    revealed: bool = False
    bet_this_round: bool = False
    turns: int = 0          # turns had in the current game
    timeouts: int = 0       # of which timed out
    idle_streak: int = 0    # successive complete games with every turn timed out
    out: bool = False       # sitting out at a tournament table: every turn given up at once
    key: str = field(init=False)  # the handle in lower case, to find it without regard to case
    view: SeatView | None = None  # the last view made of this seat, see Table.seats

    def __post_init__(self) -> None:
        self.key = self.handle.lower()


@dataclass
class _Game:
    id: int
    deck: list[Card]          # the undealt cards, the top card last (pop() deals it)
    seal: fairness.Seal       # the deck's server seed and client seeds (docs/fairness.md)
    started_at: float
    phase: Phase = Phase.BETTING
    round: int = 1
    pot: int = 0
    last_bet: int | None = None
    see_hands_by: int | None = None
    queue: list[int] = field(default_factory=list)   # seats yet to act; queue[0] is in turn
    dealt: list[int] = field(default_factory=list)   # seats that paid the ante
    players: list[str] = field(default_factory=list)  # their handles
    turn_of: int | None = None                       # whose turn began last
    operations: list[Operation] = field(default_factory=list)
    # Tournament tables: chips each player dealt in put into the pot (ante and bets, by
    # handle), their chips before the game, and the seats with no chip left (all-in).
    paid: dict[str, int] = field(default_factory=dict)
    starting: dict[str, int] = field(default_factory=dict)
    all_in: set[int] = field(default_factory=set)


class Draw40(SeatedTable):
    """One PoKeR table of the GV 40-card draw game (chapter 2); implements
    :class:`bbspoker.rules.base.GameRules`. Not thread-safe: one owner applies actions in
    order.

    ``wallet`` moves CUBES (the port :class:`bbspoker.rules.money.Wallet`); ``rng``
    draws the seeds of each game's provably fair deck (:mod:`bbspoker.rules.fairness`;
    ``None`` = the OS's random source, pass a seeded ``random.Random`` in tests);
    ``phrases(handles)`` gives the client seed phrases the players chose (``{handle in
    lower case: phrase or None}``; ``None`` or a missing handle: a random client seed);
    ``rules`` holds the numbers. The game-master and the idle rule are part of this game
    kind (chapter 2.2 and 4): the other kinds have a button or a vote instead.

    A tournament table (``rules.tournament``) plays for chips, a player's balance in the
    tournament's wallet; docs/rules.md "draw40 at a tournament table" gives its rules:
    games start by themselves ``between_games`` after the last (no [S]; the mastership
    still moves round and says who acts first), every seated player with chips is dealt
    in, a short one antes what they have and is all-in (only the antes and bets they
    matched can be theirs), the last player left in a game wins it, ``Leave`` is the
    director's :meth:`remove` (or, for the away reasons, sitting out), the idle rule stands
    nobody up, and each game's end says ``hand_over`` with the chips before it in the
    record (``starting_stacks``).
    """

    kind = "draw40"

    def __init__(self, wallet: Wallet, rules: Draw40Rules | None = None,
                 rng: random.Random | None = None,
                 phrases: Callable[[Sequence[str]], Mapping[str, str | None]] | None = None
                 ) -> None:
        self.wallet = wallet
        self.rules = rules or Draw40Rules()
        self._entropy: Callable[[int], bytes] = (rng.randbytes if rng is not None
                                                 else secrets.token_bytes)
        self._phrases = phrases
        self._operations: tuple[Operation, ...] | list[Operation] = ()
        self._payouts: dict[str, int] = {}
        self._seats: list[_Seat | None] = [None] * self.rules.seats
        self._master: int | None = None
        self._master_since = 0.0
        self._game: _Game | None = None
        self._last_game_end: float | None = None
        self._turn_since = 0.0
        # Tournament tables: when the next game starts by itself (None: nobody seated
        # yet), whether games are still dealt, and the stakes of the games after this one.
        self._next_game_at: float | None = None
        self._dealing = True
        self._next_rules: Draw40Rules | None = None
        self._publish_first()

    # ------------------------------------------------------------------ queries

    @property
    def phase(self) -> Phase:
        """The current :class:`Phase`."""
        return self._game.phase if self._game else Phase.IDLE

    @property
    def game_id(self) -> int | None:
        """The wallet's id of the running game, or ``None``."""
        return self._game.id if self._game else None

    @property
    def pot(self) -> int | None:
        """CUBES in the pot, or ``None`` with no game (shown as ``NO GAME``)."""
        return self._game.pot if self._game else None

    @property
    def round(self) -> int | None:
        """The round of the running game (1, 2 = the discarding interval, 3 ...), or
        ``None`` with no game; with :attr:`phase` it makes the game information area's
        round (``1``, ``DISCARDING INTERVAL``, ``3`` ..., ``SHOWDOWN``, ``NO GAME``)."""
        return self._game.round if self._game else None

    @property
    def operations(self) -> tuple[Operation, ...]:
        """The record of the running game, or of the last one if none runs (empty before
        the first): one :class:`~bbspoker.rules.events.Operation` per step, in order."""
        return tuple(self._game.operations) if self._game else tuple(self._operations)

    def payouts(self) -> dict[str, int]:
        """``{handle: CUBES}`` the last game that ended paid out (empty if the pot went
        to the system or the game was called off)."""
        return dict(self._payouts)

    @property
    def master(self) -> str | None:
        """Handle of the game-master, or ``None`` at an empty table."""
        return self._handle(self._master)

    @property
    def current(self) -> str | None:
        """Handle of the player in turn, or ``None`` with no game."""
        g = self._game
        return self._handle(g.queue[0]) if g and g.queue else None

    def seats(self) -> list[SeatView]:
        """Public view of the occupied seats in seat order (chapter 2.1). A seat that looks
        as at the last call gives the same :class:`SeatView` object again."""
        g = self._game
        cur = g.queue[0] if g and g.queue else None
        views = []
        for i, s in enumerate(self._seats):
            if s is None:
                continue
            # (active, revealed, is_master, is_current): what may change while one sits
            state = (s.active, s.cards if s.revealed and s.cards else None, i == self._master,
                     i == cur, s.out)
            view = s.view
            if view is None or (view.active, view.revealed, view.is_master,
                                view.is_current, view.out) != state:
                view = s.view = SeatView(i, s.handle, *state)
            views.append(view)
        return views

    def cards_of(self, handle: str) -> tuple[Card, ...]:
        """The private hand of ``handle``, sorted highest at the right; empty if not dealt in.
        Raises :class:`RuleError` ``not_seated`` if ``handle`` is not seated."""
        return self._seats[self._find(handle)].cards  # type: ignore[union-attr]

    def hands(self) -> dict[str, tuple[Card, ...]]:
        """``{handle: private hand}`` of everyone seated, in seat order, as :meth:`cards_of`
        gives each (one pass over the seats)."""
        return {s.handle: s.cards for s in self._seats if s is not None}

    def is_active(self, handle: str) -> bool:
        """True if ``handle`` still competes for the pot in the running game."""
        i = self._index(handle)
        return self._game is not None and i is not None and self._seats[i].active  # type: ignore[union-attr]

    def deadline(self) -> float | None:
        """When the player in turn times out (game running), or when the master loses
        the mastership (no game), as a ``now`` value; ``None`` if no clock runs. At a
        tournament table with no game: when the next game starts by itself, while two
        or more seated players have chips (else ``None``)."""
        if self._game is not None:
            return self._turn_since + self.rules.turn_timeout if self._game.queue else None
        if self.rules.tournament:
            if self._next_game_at is None or not self._dealing or not self._can_deal():
                return None
            return self._next_game_at
        if self._master is not None:
            return self._master_since + self.rules.master_timeout
        return None

    def bet_range(self, handle: str, cubes: int | None = None) -> tuple[int, int]:
        """``(minimum, maximum)`` bet for ``handle`` now: minimum = the previous bet of this
        game (``min_bet`` if none), maximum = min(``max_bet``, own CUBES). May be empty.
        ``cubes``: the player's CUBES if the caller has just read them (else the wallet is asked).
        At a tournament table a player with chips below the minimum may bet them all
        (all-in): the range is then ``(chips, chips)``."""
        low = self._min_bet()
        if cubes is None:
            cubes = self.wallet.balance(handle)
        if self.rules.tournament and 0 < cubes < low:
            return cubes, cubes
        return low, min(self.rules.max_bet, cubes)

    def view(self, balances: Mapping[str, int]) -> Draw40View:
        """The kind's public view for the table's snapshot (:class:`Draw40View`);
        ``balances``: ``{handle: CUBES}`` of the seated as the snapshot read them (the
        bet range of the player in turn is capped by theirs)."""
        current, phase = self.current, self.phase
        ranges = ({current: self.bet_range(current, balances.get(current, 0))}
                  if current is not None and phase is Phase.BETTING else {})
        return Draw40View(phase, self.round, self.master, ranges)

    def legal_actions(self, handle: str, now: float) -> tuple[type[act.Action], ...]:
        """The game's action types ``handle`` may use now, in command-area order (chapter
        2.4, :data:`COMMAND_ORDER`); empty if ``handle`` is not seated. (Seating actions,
        ``Sit`` and ``Leave``, are always open to whoever is not or is seated.)"""
        i = self._index(handle)
        return () if i is None else self._actions_at(i)

    def all_actions(self) -> dict[str, tuple[type[act.Action], ...]]:
        """``{handle: action types}`` of everyone seated, in seat order, as
        :meth:`legal_actions` gives each (one pass over the seats)."""
        return {s.handle: self._actions_at(i) for i, s in enumerate(self._seats) if s is not None}

    def start_refusal(self, handle: str, now: float) -> RuleError | None:
        """Why ``handle`` may not start a game now (``not_seated``, ``game_running``,
        ``not_master``, ``wait`` for the pause between games, ``too_few_antes`` with nobody
        else seated), or ``None``. Whether two players have the ante is checked by
        :meth:`start` itself, in the wallet transaction that charges it."""
        i = self._index(handle)
        if i is None:
            return RuleError("not_seated")
        if self.rules.tournament:
            return RuleError("unknown_action", action="Start")   # games start by themselves
        if self._game is not None:
            return RuleError("game_running")
        if i != self._master:
            return RuleError("not_master", master=self.master)
        if self._last_game_end is not None:
            wait = self._last_game_end + self.rules.between_games - now
            if wait > 0:
                return RuleError("wait", seconds=int(wait) + (wait > int(wait)))
        if sum(s is not None for s in self._seats) < 2:
            return self._too_few_antes()
        return None

    def _too_few_antes(self) -> RuleError:
        return RuleError("too_few_antes", ante=self.rules.ante)

    # ------------------------------------------------------------------ actions

    def verify(self, handle: str, action: act.Action, now: float) -> None:
        """Raise :class:`RuleError` (with the code :meth:`apply` would raise) if ``handle``
        may not take ``action`` now; changes nothing. A bet is checked against the
        player's CUBES as the wallet has them now; ``Start`` only as far as
        :meth:`start_refusal` goes (the antes are checked as they are charged)."""
        match action:
            case act.Sit(buy_in=amount):
                if self._index(handle) is not None:
                    raise RuleError("already_seated")
                if self.is_full:
                    raise RuleError("table_full", seats=self.rules.seats)
                if self.rules.tournament:
                    self._check_tournament_seat(handle, amount)
            case act.Leave(reason=reason):
                self._find(handle)
                if self.rules.tournament and reason not in AWAY_REASONS:
                    raise RuleError("tournament_seat")        # the director moves players
            case act.SitOut():
                self._find(handle)
                if not self.rules.tournament:
                    raise RuleError("unknown_action", action="SitOut")
            case act.Start():
                refusal = self.start_refusal(handle, now)
                if refusal is not None:
                    raise refusal
            case act.Bet(amount=amount) | act.SeeHands(amount=amount):
                g = self._current_turn(handle, Phase.BETTING, "bet")[1]
                self._check_see_hands(g, isinstance(action, act.SeeHands))
                self._check_bet(handle, amount)
                low, high = self.bet_range(handle)
                if not low <= amount <= high:
                    raise self._bet_refusal(low, high)
            case act.Pass():
                self._current_turn(handle, Phase.BETTING, "pass")
            case act.Discard(cards=cards):
                i, _ = self._current_turn(handle, Phase.DISCARDING, "discard")
                seat = self._seats[i]
                assert seat is not None
                self._check_discard(seat, list(dict.fromkeys(cards)))
            case act.Reveal():
                self._current_turn(handle, Phase.SHOWDOWN, "reveal")
            case act.Cancel():
                if self._game is None:
                    raise RuleError("no_game")
            case _:
                raise RuleError("unknown_action", action=type(action).__name__)

    def apply(self, handle: str, action: act.Action, now: float) -> list[Event]:
        """Take ``action`` for ``handle`` (``Cancel``: the server's; ``handle`` is ignored)
        and return the events. Raises :class:`RuleError` (nothing changed) if the rules
        do not allow it now; each action's method below says which codes."""
        match action:
            case act.Bet(amount=amount):
                return self.bet(handle, amount, now)
            case act.SeeHands(amount=amount):
                return self.bet(handle, amount, now, see_hands=True)
            case act.Pass():
                return self.pass_(handle, now)
            case act.Discard(cards=cards):
                return self.discard(handle, cards, now)
            case act.Reveal():
                return self.reveal(handle, now)
            case act.Start():
                return self.start(handle, now)
            case act.Sit(buy_in=amount):
                if self.rules.tournament and amount is not None:
                    raise RuleError("tournament_seat")        # every chip comes: no amount
                return self.sit(handle, now)
            case act.Leave(reason=reason):
                return self.leave(handle, now, reason)
            case act.SitOut(out=out):
                return self.sit_out(handle, out, now)
            case act.Cancel(reason=reason, note=note):
                return self.cancel(now, reason, note)
        raise RuleError("unknown_action", action=type(action).__name__)

    # ------------------------------------------------------------------ one method each

    def sit(self, handle: str, now: float) -> list[Event]:
        """Seat ``handle`` at the first free seat (chapter 2). During a game the newcomer is
        inactive until the next game. The first to sit becomes game-master.
        Raises :class:`RuleError` ``table_full`` or ``already_seated``. At a tournament
        table every chip comes with the player (their balance in the tournament's wallet)
        and the first game starts ``between_games`` after the first player sat down;
        ``RuleError`` ``no_tournament_chips`` for one with none (or not in the tournament)."""
        if self._index(handle) is not None:
            raise RuleError("already_seated")
        free = next((i for i, s in enumerate(self._seats) if s is None), None)
        if free is None:
            raise RuleError("table_full", seats=self.rules.seats)
        if self.rules.tournament:
            self._check_tournament_seat(handle, None)
            if self._next_game_at is None:
                self._next_game_at = now + self.rules.between_games
        self._seats[free] = _Seat(handle)
        ev = [Event("sat", handle)]
        if self._master is None:
            self._set_master(free, now, ev)
        if self._game is not None:
            ev.append(Event("inactive", handle, {"why": "running"}, to=handle))
        return ev

    def leave(self, handle: str, now: float, reason: str = "left") -> list[Event]:
        """Take ``handle`` off the table at once ([X], or a dropped connection whose grace
        ran out); ``reason`` is a code (``left``, ``lost_connection``) the ``left`` event
        carries. CUBES already bet stay in the pot; turn and mastership move on. Raises
        :class:`RuleError` ``not_seated``. At a tournament table only the away reasons
        (:data:`~bbspoker.rules.seating.AWAY_REASONS`) are taken, and make the player sit
        out (:meth:`sit_out`); any other is refused (``tournament_seat``): the director
        stands players up (:meth:`remove`)."""
        i = self._find(handle)
        if self.rules.tournament:
            if reason not in AWAY_REASONS:
                raise RuleError("tournament_seat")
            return self.sit_out(handle, True, now)
        ev: list[Event] = [Event("left", handle, {"reason": reason})]
        self._remove(i, now, ev)
        return ev

    def remove(self, handle: str, now: float, reason: str = "removed") -> list[Event]:
        """The tournament director stands ``handle`` up (moved to another table, or out of
        the tournament): the ``left`` event with ``reason``; their chips stay in their
        balance. Allowed between games and while they are not in the running game (not
        dealt in, or passed). Raises :class:`RuleError` ``not_seated``, or ``in_hand``
        while they are still in it."""
        i = self._find(handle)
        s = self._seats[i]
        assert s is not None
        if self._game is not None and s.active:
            raise RuleError("in_hand")
        ev: list[Event] = [Event("left", s.handle, {"reason": reason})]
        self._remove(i, now, ev)
        return ev

    def sit_out(self, handle: str, out: bool, now: float) -> list[Event]:
        """At a tournament table: ``handle`` sits out (``out``; also what an away
        ``Leave`` does) or comes back. One sitting out stays seated and is dealt in, and
        gives each turn up at once: passes in a betting round, exchanges nothing, reveals
        at the showdown (this turn too if it is theirs now). Events ``sit_out`` or
        ``sit_in`` (none if nothing changes). Raises :class:`RuleError` ``not_seated``,
        or ``unknown_action`` at a cash table (chapter 2 has no sitting out)."""
        i = self._find(handle)
        if not self.rules.tournament:
            raise RuleError("unknown_action", action="SitOut")
        s = self._seats[i]
        assert s is not None
        if s.out == out:
            return []
        s.out = out
        ev = [Event("sit_out" if out else "sit_in", s.handle)]
        g = self._game
        if out and g is not None and g.queue and g.queue[0] == i:
            self._give_up(i, now, ev)
        return ev

    def set_stakes(self, max_bet: int, ante: int) -> None:
        """The stakes of every game started from now on (a tournament's next level): bets
        up to ``max_bet`` and the ``ante`` (chips). The running game keeps its own. Raises
        ``ValueError`` (nothing changed) for stakes :class:`Draw40Rules` refuses."""
        base = self._next_rules or self.rules
        rules = dataclasses.replace(base, max_bet=max_bet, ante=ante)
        if self._game is None:
            self.rules, self._next_rules = rules, None
        else:
            self._next_rules = rules

    def stop_dealing(self) -> None:
        """Start no new game (the server is shutting down): a tournament table deals by
        itself; at a cash table the service refuses the master's start."""
        self._dealing = False

    def _check_tournament_seat(self, handle: str, amount: int | None) -> None:
        """A tournament seat takes no amount (``tournament_seat``) and a player with chips
        (``no_tournament_chips``)."""
        if amount is not None:
            raise RuleError("tournament_seat")
        if self._chips(handle) <= 0:
            raise RuleError("no_tournament_chips")

    def _chips(self, handle: str) -> int:
        """``handle``'s balance (a tournament's chips); 0 with no account."""
        return int(self.wallet.balances_of([handle]).get(handle, 0))

    def _can_deal(self) -> bool:
        """Two or more seated players have chips (a tournament table can start a game)."""
        handles = self.handles
        return len(handles) >= 2 and sum(
            c > 0 for c in self.wallet.balances_of(handles).values()) >= 2

    def start(self, handle: str, now: float) -> list[Event]:
        """The game-master opens a game ([S]). Everyone seated with at least the ante pays it
        into the pot and becomes active (the others stay inactive, without further notice
        but for themselves); five cards each, from the top of the deck, player after player
        from the master on; round 1 starts with the master.
        The deck is the published function of the server seed whose commitment the table
        published before (:attr:`next_commitment`), the seated players' client seeds and
        the game id (docs/fairness.md): ``sealed``, right after ``started``, carries the
        seed's ``commitment`` and the ``client_seeds`` (``[[handle, seed], ...]`` in seat
        order); the seed itself is revealed by the ``seed`` event at the end, followed by
        ``next_commitment``. The next game's seed is drawn and its commitment published
        here, in the game's opening transaction.
        Raises :class:`RuleError` with the reason (nobody is charged) if it may not start:
        see :meth:`start_refusal`, and ``too_few_antes`` when fewer than two have the ante."""
        refusal = self.start_refusal(handle, now)
        if refusal:
            raise refusal
        return self._open_game(now)

    def _open_game(self, now: float) -> list[Event]:
        """Open a game (see :meth:`start`; at a tournament table :meth:`tick` calls it
        when the game falls due): everyone with the ante pays it; at a tournament table
        everyone with chips, a player short of the ante all they have (all-in). Raises
        ``too_few_antes`` (nothing changed) with fewer than two to deal in."""
        order = self._order_from(self._master)  # type: ignore[arg-type]
        # One wallet transaction for the game and every ante; a failed ante undoes only
        # itself. The table changes only after the wallet work succeeded.
        paid: dict[int, int] = {}
        ante, handles, tournament = self.rules.ante, self.handles, self.rules.tournament
        with self.wallet.transaction(durable=False):
            # Read inside the transaction, which holds the store's write lock: every ante
            # checked here is paid below, and the ledger's look at its caches at the
            # transaction's start serves this read too (no extra latency on starting a game).
            cubes = self.wallet.balances_of(handles)
            least = 1 if tournament else ante
            if sum(n >= least for n in cubes.values()) < 2:
                raise self._too_few_antes()  # the transaction is undone
            seal = self._new_seal(handles)
            gid = self.wallet.open_game(handles, seal)
            upcoming = self._publish_next()
            deck = seal.deck(NOTATION_ORDER, gid)
            deck.reverse()  # the top card last: pop() deals it
            for i in order:
                handle = self._seats[i].handle  # type: ignore[union-attr]
                # One known to be short is not asked (no refused debit to undo); one the
                # read left out (no account) is, and the wallet says why.
                due = min(ante, cubes.get(handle, 0)) if tournament else ante
                if due > 0 and cubes.get(handle, ante) >= due \
                        and self._pay(gid, handle, due, "ante"):
                    paid[i] = due
        self._next = upcoming
        g = self._game = _Game(gid, deck, seal, now)
        ev: list[Event] = []
        for i in order:
            s = self._seats[i]
            assert s is not None
            s.active, s.revealed, s.cards, s.bet_this_round = False, False, (), False
            s.turns = s.timeouts = 0
            if i not in paid:
                ev.append(Event("inactive", s.handle, {"why": "no_ante", "ante": self.rules.ante},
                                to=s.handle))
                continue
            s.active = True
            g.pot += paid[i]
            g.dealt.append(i)
            g.players.append(s.handle)
            if tournament:
                g.paid[s.handle] = paid[i]
                g.starting[s.handle] = cubes[s.handle]
                if cubes[s.handle] == paid[i]:
                    g.all_in.add(i)
            s.cards = sort_hand(g.deck.pop() for _ in range(5))
            g.operations.append(Operation("ante", s.handle, {"amount": paid[i]}))
        ev.append(Event("started", None, {"pot": g.pot, "game_id": gid}))
        ev.append(Event("sealed", None, {
            "game_id": gid, "commitment": seal.commitment,
            "client_seeds": [list(pair) for pair in zip(handles, seal.client_seeds)]}))
        for i in g.dealt:
            s = self._seats[i]
            assert s is not None
            g.operations.append(Operation("deal", s.handle, {"cards": format_cards(s.cards)}))
            ev.append(Event("cards", s.handle, {"cards": s.cards}, to=s.handle))
        if not self._seats[self._master].active:  # type: ignore[index, union-attr]
            self._move_master_to_active(now, ev)
        self._begin_round(now, ev)
        return ev

    def bet(self, handle: str, amount: int, now: float, see_hands: bool = False) -> list[Event]:
        """Bet ``amount`` CUBES ([B]), or ask to see hands with that bet ([H], from round 3).
        The amount leaves the player's CUBES at once into the pot. Equal to the minimum is a
        call, more a raise. Raises :class:`RuleError` if it is not ``handle``'s turn to bet
        (``not_seated``, ``no_game``, ``not_your_turn``, ``wrong_phase``), the amount is not
        whole (``whole_cubes``) or out of range (``bet_range``, ``cannot_bet``), or [H] is
        not allowed now (``see_hands_round``, ``hands_asked``)."""
        i, g = self._current_turn(handle, Phase.BETTING, "bet")
        self._check_see_hands(g, see_hands)
        self._check_bet(handle, amount)
        low = self._min_bet()
        s = self._seats[i]
        assert s is not None
        if self.rules.tournament:
            # An all-in for less than the minimum is a bet too: the range says so.
            chips = self.wallet.balance(handle)
            bounds = self.bet_range(handle, chips)
            if not (bounds[0] <= amount <= bounds[1]
                    and self._pay(g.id, handle, amount, "bet")):
                raise self._bet_refusal(*bounds) from None
            g.paid[s.handle] = g.paid.get(s.handle, 0) + amount
            if amount == chips:
                g.all_in.add(i)
        # The wallet's conditional debit is the check of the player's CUBES: the balance
        # is read only to explain a refusal (one read fewer on every bet).
        elif not (low <= amount <= self.rules.max_bet
                  and self._pay(g.id, handle, amount, "bet")):
            raise self._bet_refusal(*self.bet_range(handle)) from None
        g.pot += amount
        if amount >= low:          # an all-in for less leaves the minimum as it was
            g.last_bet = amount
        s.bet_this_round = True
        s.turns += 1
        raised = amount > low
        g.operations.append(Operation("bet", handle, {"round": g.round, "amount": amount,
                                                      "raised": raised, "see_hands": see_hands}))
        ev = [Event("bet", handle, {"amount": amount, "pot": g.pot, "raised": raised})]
        g.queue.pop(0)
        if see_hands:
            g.see_hands_by = i
            g.queue = [j for j in self._order_from(i)[1:] if self._seats[j].active]  # type: ignore[union-attr]
            ev.append(Event("see_hands", handle))
        self._advance(now, ev)
        return ev

    @staticmethod
    def _check_see_hands(g: _Game, see_hands: bool) -> None:
        if see_hands:
            if g.round < 3:
                raise RuleError("see_hands_round")
            if g.see_hands_by is not None:
                raise RuleError("hands_asked")

    @staticmethod
    def _check_bet(handle: str, amount: object) -> None:
        if isinstance(amount, bool) or not isinstance(amount, int):
            raise RuleError("whole_cubes")

    @staticmethod
    def _bet_refusal(low: int, high: int) -> RuleError:
        if high < low:
            return RuleError("cannot_bet", low=low, high=high)
        return RuleError("bet_range", low=low, high=high)

    def _min_bet(self) -> int:
        """The smallest bet now: the previous bet of this game, ``min_bet`` if none."""
        g = self._game
        return g.last_bet if g and g.last_bet is not None else self.rules.min_bet

    def _pay(self, game_id: int, handle: str, amount: int, reason: str) -> bool:
        """Pay an ante or bet (``reason``) into the pot; False (nothing paid) if ``handle``
        has too few CUBES."""
        try:
            self.wallet.pay_into_pot(game_id, handle, amount, reason)
        except InsufficientCubes:
            return False
        return True

    def pass_(self, handle: str, now: float) -> list[Event]:
        """Pass ([P]): drop the cards and stop competing for this game's pot.
        Raises :class:`RuleError` if it is not ``handle``'s turn in a betting round."""
        i, g = self._current_turn(handle, Phase.BETTING, "pass")
        self._seats[i].turns += 1  # type: ignore[union-attr]
        ev: list[Event] = []
        self._fold(i, now, "pass", ev)
        return ev

    def discard(self, handle: str, cards: Iterable[Card], now: float) -> list[Event]:
        """Exchange 0..``max_discard`` of one's cards for cards from the undealt pack
        (discarding interval, [1]-[5] then [D]). Raises :class:`RuleError` if it is not
        ``handle``'s turn to discard, a card is not in the hand (``discard_own``), or too
        many are given (``discard_max``)."""
        i, g = self._current_turn(handle, Phase.DISCARDING, "discard")
        s = self._seats[i]
        assert s is not None
        chosen = list(dict.fromkeys(cards))
        self._check_discard(s, chosen)
        kept = [c for c in s.cards if c not in chosen]
        drawn = [g.deck.pop() for _ in chosen]
        s.cards = sort_hand(kept + drawn)
        s.turns += 1
        n = len(chosen)
        g.operations.append(Operation("discard", handle, {"cards": format_cards(chosen),
                                                          "drawn": format_cards(drawn)}))
        ev = [Event("discard", handle, {"count": n})]
        if n:
            ev.append(Event("cards", handle, {"cards": s.cards}, to=handle))
        g.queue.pop(0)
        self._advance(now, ev)
        return ev

    def _check_discard(self, s: _Seat, chosen: list[Card]) -> None:
        if len(chosen) > self.rules.max_discard:
            raise RuleError("discard_max", max=self.rules.max_discard)
        if any(c not in s.cards for c in chosen):
            raise RuleError("discard_own")

    def reveal(self, handle: str, now: float) -> list[Event]:
        """Show one's cards in the showdown ([R]). Raises :class:`RuleError` if it is not
        ``handle``'s turn to reveal."""
        i, g = self._current_turn(handle, Phase.SHOWDOWN, "reveal")
        self._seats[i].turns += 1  # type: ignore[union-attr]
        ev: list[Event] = []
        self._reveal(i, ev)
        g.queue.pop(0)
        self._advance(now, ev)
        return ev

    def cancel(self, now: float, reason: str, note: str | None = None) -> list[Event]:
        """Call the running game off (the server is stopping and the grace period is over):
        every ante and bet goes back to whoever paid it, through the wallet (see
        :meth:`call_off`). Raises :class:`RuleError` ``no_game`` if no game runs."""
        if self._game is None:
            raise RuleError("no_game")
        return self.call_off(now, reason, (self._game.id,), note)

    def call_off(self, now: float, reason: str, game_ids: Collection[int],
                 note: str | None = None) -> list[Event]:
        """Call the games ``game_ids`` (wallet ids) off, without a winner: at shutdown, or
        when the wallet could not commit their last moves
        (:class:`~bbspoker.store.wallet.CommitFailed`). The running game, if among them, ends
        at once: its pot and bets as the table knew them are dropped. Then the wallet
        gives back every ante and bet it holds of each game still open there
        (:meth:`~bbspoker.store.wallet.Wallet.cancel_game`; a game it does not hold as open,
        such as a start that was never committed, took nothing). So no CUBES appear or
        vanish whatever part of a game was lost. ``reason`` is a code (``shutdown``,
        ``commit_failed``) the ``cancelled`` event carries with ``refunds``
        (``{handle: CUBES}``); ``note`` is what the wallet records with each refund
        (``None``: the code). If the wallet cannot write a refund it raises
        :class:`~bbspoker.rules.seating.RefundFailed` (the table has dropped the game all
        the same): the games it names stay open in the wallet, for the caller to try
        again (:func:`~bbspoker.rules.seating.refund_games`) or for the next start."""
        g = self._game
        if g is not None and g.id in game_ids:
            self._game = None
            self._last_game_end = now
            self._master_since = now
            self._operations, self._payouts = g.operations, {}
            if self.rules.tournament:
                self._next_game_at = now + self.rules.between_games
            if self._next_rules is not None:
                self.rules, self._next_rules = self._next_rules, None
        else:
            g = None
        refunds = self._refund(game_ids, note or reason,
                               {g.id: self._history(g)} if g is not None else {})
        ev = [Event("cancelled", None, {"reason": reason, "refunds": refunds})]
        if g is not None:   # a game called off reveals its seed too
            ev += [self._seed_event(g), self._publish_anew()]
        return ev

    def tick(self, now: float) -> list[Event]:
        """Apply every timeout due by ``now`` (in order, each at its own deadline):
        a betting turn times out as a pass, a discarding turn as no exchange, a showdown
        turn as an automatic reveal (the player stays active); with no game, a master who
        has not started one for ``master_timeout`` seconds hands the mastership on. At a
        tournament table with no game, the next game starts when it falls due (one that
        cannot start is tried again ``between_games`` later)."""
        ev: list[Event] = []
        while True:
            due = self.deadline()
            if due is None or now < due:
                return ev
            g = self._game
            if g is None and self.rules.tournament:
                try:
                    ev += self._open_game(due)
                except (RuleError, InsufficientCubes):
                    self._next_game_at = due + max(self.rules.between_games, 1.0)
                    return ev
                continue
            if g is None:
                nxt = self._next_seated(self._master)  # type: ignore[arg-type]
                if nxt is not None and nxt != self._master:
                    old = self.master
                    ev.append(Event("master_timeout", old))
                    self._set_master(nxt, due, ev)
                else:
                    self._master_since = due
                continue
            i = g.queue[0]
            s = self._seats[i]
            assert s is not None
            s.turns += 1
            s.timeouts += 1
            if g.phase is Phase.BETTING:
                self._fold(i, due, "timeout", ev)
            elif g.phase is Phase.DISCARDING:
                g.operations.append(Operation("discard", s.handle, {"cards": "", "drawn": "",
                                                                    "timeout": True}))
                ev.append(Event("discard", s.handle, {"count": 0, "timeout": True}))
                g.queue.pop(0)
                self._advance(due, ev)
            else:
                self._reveal(i, ev)
                g.queue.pop(0)
                self._advance(due, ev)

    # ------------------------------------------------------------------ internals

    def _actions_at(self, i: int) -> tuple[type[act.Action], ...]:
        """The action types of the player in seat ``i`` (see :meth:`legal_actions`)."""
        g = self._game
        if g is None:
            return _START if i == self._master and not self.rules.tournament else ()
        if not g.queue or g.queue[0] != i:
            return ()
        if g.phase is Phase.BETTING:
            if g.round >= 3 and g.see_hands_by is None:
                return _BET_OR_SEE
            return _BET
        if g.phase is Phase.DISCARDING:
            return _DISCARD
        return _REVEAL

    def _current_turn(self, handle: str, phase: Phase, verb: str) -> tuple[int, _Game]:
        i = self._find(handle)
        g = self._game
        if g is None:
            raise RuleError("no_game")
        if not g.queue or g.queue[0] != i:
            raise RuleError("not_your_turn", current=self.current)
        if g.phase is not phase:
            raise RuleError("wrong_phase", verb=verb, phase=g.phase.value, round=g.round)
        return i, g

    def _order_from(self, start: int) -> list[int]:
        """Occupied seats in seat order beginning at ``start`` (wrapping round)."""
        n = len(self._seats)
        return [(start + k) % n for k in range(n) if self._seats[(start + k) % n] is not None]

    def _next_seated(self, after: int) -> int | None:
        n = len(self._seats)
        for k in range(1, n + 1):
            j = (after + k) % n
            if self._seats[j] is not None:
                return j
        return None

    def _next_active(self, after: int) -> int | None:
        n = len(self._seats)
        for k in range(1, n + 1):
            j = (after + k) % n
            s = self._seats[j]
            if s is not None and s.active:
                return j
        return None

    def _active(self) -> list[int]:
        return [i for i, s in enumerate(self._seats) if s is not None and s.active]

    def _set_master(self, i: int | None, now: float, ev: list[Event]) -> None:
        self._master = i
        self._master_since = now
        if i is not None:
            h = self._seats[i].handle  # type: ignore[union-attr]
            ev.append(Event("master", h))

    def _move_master_to_active(self, now: float, ev: list[Event]) -> None:
        """During a game the master must always be active (chapter 2.2)."""
        nxt = self._next_active(self._master)  # type: ignore[arg-type]
        if nxt is not None and nxt != self._master:
            self._set_master(nxt, now, ev)

    def _fold(self, i: int, now: float, why: str, ev: list[Event], **data: object) -> None:
        """Seat ``i`` is out of the game: ``why`` is ``pass``, ``timeout`` (with
        ``seconds``) or ``cannot_bet`` (with ``low``)."""
        g = self._game
        s = self._seats[i]
        assert g is not None and s is not None
        s.active = False
        if why == "timeout":
            data = {"seconds": self.rules.turn_timeout, **data}
        g.operations.append(Operation("pass", s.handle, {"round": g.round, "why": why, **data}))
        ev.append(Event("pass", s.handle, {"why": why, **data}))
        ev.append(Event("inactive", s.handle, {"why": "out"}, to=s.handle))
        if g.queue and g.queue[0] == i:
            g.queue.pop(0)
        if i == self._master:
            self._move_master_to_active(now, ev)
        self._advance(now, ev)

    def _reveal(self, i: int, ev: list[Event]) -> None:
        s = self._seats[i]
        g = self._game
        assert s is not None and g is not None
        s.revealed = True
        value = evaluate(s.cards)
        g.operations.append(Operation("reveal", s.handle, {"cards": format_cards(s.cards)}))
        ev.append(Event("reveal", s.handle, {"cards": s.cards, "value": value}))

    def _remove(self, i: int, now: float, ev: list[Event]) -> None:
        s = self._seats[i]
        assert s is not None
        g = self._game
        was_master = i == self._master
        if g is not None and s.active:
            s.active = False
            g.operations.append(Operation("left", s.handle))
        if g is not None and i in g.queue:
            g.queue.remove(i)
        if was_master:
            if g is not None:
                self._move_master_to_active(now, ev)
            if self._master == i:
                nxt = self._next_seated(i)
                self._set_master(nxt if nxt != i else None, now, ev)
        self._seats[i] = None
        if g is not None:
            self._advance(now, ev)

    def _begin_turn(self, now: float, ev: list[Event]) -> None:
        """Give the turn to ``queue[0]``; in a betting round a player whose maximum bet is
        below the minimum is passed automatically (chapter 2) and the game moves on."""
        g = self._game
        assert g is not None and g.queue
        i = g.queue[0]
        s = self._seats[i]
        assert s is not None
        self._turn_since = now
        g.turn_of = i
        if s.out and self.rules.tournament:
            self._give_up(i, now, ev)
            return
        if g.phase is Phase.BETTING:
            low, high = self.bet_range(s.handle)
            if high < low:
                ev.append(Event("cannot_bet", s.handle,
                                {"low": low, "cubes": self.wallet.balance(s.handle)},
                                to=s.handle))
                self._fold(i, now, "cannot_bet", ev, low=low)
                return
        ev.append(Event("turn", s.handle, {"phase": g.phase.value}))

    def _give_up(self, i: int, now: float, ev: list[Event]) -> None:
        """Seat ``i``, sitting out at a tournament table, gives its turn up at once: a
        pass in a betting round, no exchange, a reveal at the showdown."""
        g = self._game
        s = self._seats[i]
        assert g is not None and s is not None
        s.turns += 1
        if g.phase is Phase.BETTING:
            self._fold(i, now, "pass", ev)
            return
        if g.phase is Phase.DISCARDING:
            g.operations.append(Operation("discard", s.handle, {"cards": "", "drawn": ""}))
            ev.append(Event("discard", s.handle, {"count": 0}))
        else:
            self._reveal(i, ev)
        g.queue.pop(0)
        self._advance(now, ev)

    def _in_turn_order(self, j: int) -> bool:
        """Seat ``j`` still has turns in this phase: it is in the game, and in a betting
        round not all-in (a tournament table's player with no chip left bets no more)."""
        g = self._game
        s = self._seats[j]
        return (s is not None and s.active
                and not (g is not None and g.phase is Phase.BETTING and j in g.all_in))

    def _begin_round(self, now: float, ev: list[Event]) -> None:
        """Open the next round (or the showdown) after the current one has ended. At a
        tournament table a betting round that fewer than two players could bet in (the
        others all-in) is not played: round 1 goes on to the discarding interval, a later
        round to the showdown."""
        g = self._game
        assert g is not None and self._master is not None    # a game has its master
        if g.phase is Phase.BETTING and g.all_in \
                and sum(self._in_turn_order(j) for j in self._active()) < 2:
            if g.round != 1:
                self._start_showdown(now, ev)
                return
            g.phase, g.round = Phase.DISCARDING, 2
        active = [j for j in self._order_from(self._master) if self._in_turn_order(j)]
        g.queue = active
        for j in active:
            self._seats[j].bet_this_round = False  # type: ignore[union-attr]
        ev.append(Event("round", None, {"phase": g.phase.value, "round": g.round,
                                        "max_discard": self.rules.max_discard}))
        if g.queue:
            self._begin_turn(now, ev)

    def _advance(self, now: float, ev: list[Event]) -> None:
        """After any change during a game: end it, open the next round or showdown, or give
        the turn to the next player."""
        g = self._game
        assert g is not None
        active = self._active()
        if not active:
            self._end_game(now, None, ev)
            return
        if len(active) == 1 and self.rules.tournament:   # the last player left wins
            self._end_game(now, active[0], ev)
            return
        if len(active) == 1:
            sole = self._seats[active[0]]
            assert sole is not None
            inactive_seated = any(s is not None and not s.active for s in self._seats)
            if not inactive_seated:   # also in the showdown: nobody is left to show to
                self._end_game(now, active[0], ev)
                return
            if g.phase is Phase.BETTING and sole.bet_this_round:
                self._start_showdown(now, ev)
                return
        g.queue = [j for j in g.queue if self._in_turn_order(j)]
        if g.queue:
            if g.queue[0] != g.turn_of:
                self._begin_turn(now, ev)
            return
        # The round is over.
        if g.phase is Phase.SHOWDOWN:
            best = max(active, key=lambda j: evaluate(self._seats[j].cards))  # type: ignore[union-attr]
            self._end_game(now, best, ev)
            return
        if g.see_hands_by is not None:
            self._start_showdown(now, ev)
            return
        if g.round == 1:
            g.phase, g.round = Phase.DISCARDING, 2
        elif g.round + 1 >= self.rules.max_round:   # round max_round is the showdown
            self._start_showdown(now, ev)
            return
        else:
            g.phase, g.round = Phase.BETTING, g.round + 1
        self._begin_round(now, ev)

    def _start_showdown(self, now: float, ev: list[Event]) -> None:
        g = self._game
        assert g is not None
        g.phase = Phase.SHOWDOWN
        g.operations.append(Operation("showdown"))
        ev.append(Event("showdown"))
        g.queue = [j for j in self._order_from(self._master) if self._seats[j].active]  # type: ignore[union-attr,arg-type]
        self._begin_turn(now, ev)

    def _end_game(self, now: float, winner: int | None, ev: list[Event]) -> None:
        g = self._game
        assert g is not None
        if self.rules.tournament and winner is not None:
            self._end_tournament_game(g, now, winner, ev)
            return
        w = self._seats[winner] if winner is not None else None
        if w is not None:
            data = self._win_data(w, winner)  # type: ignore[arg-type]
            end = Event("won", w.handle, {"pot": g.pot, **data})
            recorded = {k: v for k, v in data.items() if k != "value"}
            if "value" in data:
                recorded["cards"] = format_cards(w.cards)
            g.operations.append(Operation("won", w.handle, {"pot": g.pot, **recorded}))
        else:
            end = Event("pot_to_system", None, {"pot": g.pot})
            g.operations.append(Operation("pot_to_system", None, {"pot": g.pot}))
        history = {
            **self._history(g),
            "hands": {s.handle: format_cards(s.cards)
                      for s in self._seats if s is not None and s.revealed},
            "pot": g.pot,
            "winner": w.handle if w is not None else None,
        }
        # Pot and end record in one wallet transaction; the game is over for the table
        # only once it succeeded. Not durable at once (no fsync while every player waits):
        # a power loss before the server's next ledger sync rolls the game back, and it is
        # refunded at the next start like any unfinished game.
        with self.wallet.transaction(durable=False):
            if w is not None:
                self.wallet.pay_out_pot(g.id, w.handle, g.pot)
            else:
                self.wallet.pot_to_system(g.id, g.pot)
            self.wallet.close_game(g.id, history["winner"], history)
        ev += [end, self._seed_event(g), self._next_event()]
        self._game = None
        self._operations = g.operations
        self._payouts = {w.handle: g.pot} if w is not None else {}
        self._last_game_end = now
        # Chapter 4: two successive complete games with every turn timed out.
        idle: list[int] = []
        for i in g.dealt:
            s = self._seats[i]
            if s is None or s.turns == 0:
                continue
            s.idle_streak = s.idle_streak + 1 if s.timeouts == s.turns else 0
            if s.idle_streak >= self.rules.idle_games:
                idle.append(i)
        if self._master is not None:
            nxt = self._next_seated(self._master)
            if nxt == self._master:  # nobody else seated: it stays, its clock starts anew
                self._master_since = now
            else:
                self._set_master(nxt, now, ev)
        for i in idle:
            h = self._seats[i].handle  # type: ignore[union-attr]
            ev.append(Event("removed", h, {"games": self.rules.idle_games}))
            self._remove(i, now, ev)

    def _pot_shares(self, g: _Game, winner: int) -> tuple[list[tuple[str, int]], dict[str, int]]:
        """How a tournament game's pot is shared (docs/rules.md): ``(won, returned)``.
        ``won``: ``(handle, chips)`` of each player winning part of it, best first;
        ``returned``: ``{handle: chips}`` given back because no player still in the game
        could win them. Each all-in player can win from every player only as much as they
        put in themselves; a player still in and not all-in can win every chip. The pot is
        cut in layers at the all-in players' totals, each layer going to the best hand
        among those who may win it (the lone ``winner`` if the others passed)."""
        players = self._active()
        if len(players) > 1:                       # the showdown: the best hand first
            players.sort(key=lambda j: evaluate(self._seats[j].cards), reverse=True)  # type: ignore[union-attr]
        else:
            players = [winner]
        handle = {j: self._seats[j].handle for j in players}  # type: ignore[union-attr]
        caps = sorted({g.paid[handle[j]] for j in players if j in g.all_in})
        won: dict[str, int] = {}
        returned: dict[str, int] = {}
        low = 0
        for cap in [*caps, None]:
            layer = {h: (c if cap is None else min(c, cap)) - min(c, low)
                     for h, c in g.paid.items()}
            may_win = [j for j in players
                       if j not in g.all_in or (cap is not None and g.paid[handle[j]] >= cap)]
            if may_win:
                best = handle[may_win[0]]
                won[best] = won.get(best, 0) + sum(layer.values())
            else:
                for h, c in layer.items():
                    if c:
                        returned[h] = returned.get(h, 0) + c
            if cap is None:
                break
            low = cap
        return [(h, c) for h, c in won.items() if c], returned

    def _end_tournament_game(self, g: _Game, now: float, winner: int,
                             ev: list[Event]) -> None:
        """A tournament game ends with ``winner`` the best hand (or the last player left):
        the pot shared by :meth:`_pot_shares`, a ``won`` event per share, the record with
        ``starting_stacks`` (chips before the game), then ``hand_over`` (with ``game_id``)
        for the director. No idle rule; the next game starts ``between_games`` later at
        the stakes set meanwhile (:meth:`set_stakes`)."""
        won, returned = self._pot_shares(g, winner)
        ends: list[Event] = []
        for n, (h, chips) in enumerate(won):
            i = self._find(h)
            s = self._seats[i]
            assert s is not None
            data = self._win_data(s, i) if n == 0 else (
                {"value": evaluate(s.cards)} if s.revealed else {})
            ends.append(Event("won", h, {"pot": chips, **data}))
            recorded = {k: v for k, v in data.items() if k != "value"}
            if "value" in data:
                recorded["cards"] = format_cards(s.cards)
            g.operations.append(Operation("won", h, {"pot": chips, **recorded}))
        payouts = dict(won)
        for h, chips in returned.items():
            payouts[h] = payouts.get(h, 0) + chips
        history = {
            **self._history(g),
            "hands": {s.handle: format_cards(s.cards)
                      for s in self._seats if s is not None and s.revealed},
            "pot": g.pot,
            "winner": won[0][0],
            "starting_stacks": dict(g.starting),
            "returned": returned,
            "stakes": {"ante": self.rules.ante, "max_bet": self.rules.max_bet},
        }
        with self.wallet.transaction(durable=False):
            self.wallet.pay_out_split(g.id, payouts, 0)
            self.wallet.close_game(g.id, history["winner"], history)
        ev += [*ends, self._seed_event(g), self._next_event()]
        self._game = None
        self._operations = g.operations
        self._payouts = payouts
        self._last_game_end = now
        self._next_game_at = now + self.rules.between_games
        if self._master is not None:
            nxt = self._next_seated(self._master)
            if nxt is not None and nxt != self._master:
                self._set_master(nxt, now, ev)
        if self._next_rules is not None:
            self.rules, self._next_rules = self._next_rules, None
        ev.append(Event("hand_over", None, {"game_id": g.id, "winners": dict(won)}))

    def _history(self, g: _Game) -> dict[str, Any]:
        """The part of game ``g``'s stored history that a finished game and one called
        off share: the game kind, the players dealt in, the commitment, the operations."""
        return {"game": self.kind, "players": g.players, "commitment": g.seal.commitment,
                "operations": [op.as_dict() for op in g.operations]}

    @staticmethod
    def _seed_event(g: _Game) -> Event:
        """``seed``: the server seed of game ``g`` (hex), now that it has ended, with its
        ``commitment`` and ``game_id``: with the client seeds shown at the start, anyone
        can recompute the deck (docs/fairness.md)."""
        return Event("seed", None, {"game_id": g.id, "server_seed": g.seal.server_seed.hex(),
                                    "commitment": g.seal.commitment})

    def _win_data(self, w: _Seat, seat: int) -> dict[str, object]:
        """What the winning line names: the hand (``value``) if it was shown, and the suit
        that decided it (``suit``, its symbol) when the best other hand shown was equal
        but for the suit (chapter 3); for a lone winner (nobody else still in the game),
        whether the others ``passed``, ``left`` or ``passed_or_left`` (``alone``)."""
        data: dict[str, object] = {}
        others = [s for j, s in enumerate(self._seats) if s is not None and j != seat and s.active]
        if w.revealed:
            value = data["value"] = evaluate(w.cards)
            shown = [evaluate(s.cards) for s in others if s.revealed]
            if shown and max(shown) >> 2 == value >> 2:
                data["suit"] = _SUIT_SYMBOL[value & 3]
        if not others:
            g = self._game
            assert g is not None
            left = {op.handle for op in g.operations if op.kind == "left"}
            passed = {op.handle for op in g.operations if op.kind == "pass"} - left
            data["alone"] = "left" if not passed else "passed" if not left else "passed_or_left"
        return data
