"""A fixed-limit seven-card stud table: a pure, synchronous state machine around pokerkit.

The hand itself (antes, the bring-in by the lowest up card, the completion, who opens each
later street by the highest hand showing, the cap of four bets, all-ins, side pots,
showdown, who shows and who may muck, split pots and their odd chips) is pokerkit's
``FixedLimitSevenCardStud`` state, not a rules engine of our own; this module owns what is
around the hand:

- seats (2-7: seven players' seven cards and the burns fit one 52-card deck), buying in
  from the player's CUBES into a stack (within ``buy_in_min`` and ``buy_in_max``) and
  cashing the stack out on leaving, through the injected
  :class:`~bbspoker.rules.money.StackWallet` (table stakes, as Hold'em);
- the streets: third street (two down cards and one up card each, then the bring-in:
  the lowest up card, suits breaking ties clubs lowest, then diamonds, hearts, spades,
  posts ``bring_in`` or completes to the small bet), fourth, fifth and sixth street (one
  up card each; the small bet on fourth, the big bet from fifth) and seventh street (one
  down card); from fourth street the highest poker hand showing opens, the first of equal
  ones from the dealer's left; a betting round has at most one bet (or completion) and
  three raises;
- a nominal dealer position that moves one seat each hand: the cards go round from the
  seat after it (pokerkit's player order), which also breaks ties of the opener;
- a new hand ``between_hands`` seconds after the last when two or more players with chips
  are seated and not sitting out; the turn timeout posts the bring-in when it is due,
  checks when checking is free, else folds; two successive hands with every turn timed
  out stand a player up;
- the deck: the provably fair shuffle (:mod:`bbspoker.rules.fairness`), cards dealt from its
  top one at a time round the table (on third street three times round), a burn card
  before each of fourth to seventh street unless the deck, less the burn, could then not
  give every player still in their remaining cards (seven players at seventh street);
- events as codes for the door and a record of operations for ``games show`` and
  ``games verify`` (its walk: :func:`bbspoker.rules.stud.kind.stud_draws`);
  a hand's PHH (pokerkit's ``HandHistory``) is stored with its history.

Up cards are public (:meth:`Stud.seats`); down cards go only to their owner
(:meth:`Stud.hands`, ``down`` events with ``to``). Time is a value (``now``, seconds on
any monotonic scale); no I/O, no English.
"""

from __future__ import annotations

import dataclasses
import random
import secrets
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from pokerkit import (Automation, FixedLimitSevenCardStud, HandHistory, Mode, StandardHighHand,
                      State)
from pokerkit import state as pk

from bbspoker.rules import actions as act
from bbspoker.rules import fairness
from bbspoker.rules.cards import STANDARD52, from_standard, to_standard
from bbspoker.rules.events import Event, Operation, RuleError
from bbspoker.rules.money import InsufficientCubes, StackWallet
from bbspoker.rules.seating import AWAY_REASONS, RefundFailed, SeatedTable

__all__ = ["StudRules", "Stud", "Street", "StudSeat", "StudTable", "AUTOMATIONS", "DECK",
           "POKERKIT_VERSION"]

#: The pokerkit release this module was written and tested against (pinned in pyproject).
POKERKIT_VERSION = "0.7.7"

#: What pokerkit does by itself; dealing (down and up cards, burns) stays ours, from the
#: fair deck, and so does the bring-in (the player chooses it or the completion).
AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.RUNOUT_COUNT_SELECTION,
    Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)

#: The deck in notation order (GV suits, standard ranks), as the fair shuffle starts from.
DECK = STANDARD52.cards()

#: Cards each player gets on the streets from the given one (index 0: third street) on.
_CARDS_FROM = (7, 4, 3, 2, 1)


@dataclass(frozen=True)
class StudRules:
    """The numbers of a table (CUBES, seconds). ``small_bet``: the bet and raise of third
    and fourth street (the completion is to it); the big bet (fifth to seventh street) is
    twice it. ``ante``: what each player dealt in posts before the cards (0: none);
    ``bring_in``: the forced opening bet of the lowest up card, below the small bet.
    ``buy_in_min``/``buy_in_max`` default to 20 and 100 small bets.

    ``tournament``: a tournament table (chips, not CUBES), seated as Hold'em's
    (:class:`~bbspoker.rules.holdem.game.HoldemRules`): every chip brought, no buy-in
    range (not checked against the stakes, which rise), no leaving but the director's
    :meth:`Stud.remove`, one sitting out dealt in and giving their turns up at once (the
    bring-in when it is theirs), no idle rule, a busted player seated with 0.

    Raises ``ValueError`` for numbers that make no game (:meth:`with_stakes` as well)."""

    seats: int = 7
    small_bet: int = 10
    ante: int = 1
    bring_in: int = 3
    buy_in_min: int | None = None
    buy_in_max: int | None = None
    turn_timeout: float = 60.0
    between_hands: float = 5.0
    idle_hands: int = 2
    tournament: bool = False

    def __post_init__(self) -> None:
        if not 2 <= self.seats <= 7:
            raise ValueError("seats must be between 2 and 7")
        if not _whole(self.small_bet) or self.small_bet < 2:
            raise ValueError("small_bet must be at least 2")
        if not _whole(self.ante) or self.ante < 0:
            raise ValueError("ante must not be negative")
        if not _whole(self.bring_in) or not 1 <= self.bring_in < self.small_bet:
            raise ValueError("bring_in must be at least 1 and below the small bet")
        if self.buy_in_min is None:
            object.__setattr__(self, "buy_in_min", 20 * self.small_bet)
        if self.buy_in_max is None:
            object.__setattr__(self, "buy_in_max", 100 * self.small_bet)
        if not self.tournament and not self.small_bet <= self.low <= self.high:
            raise ValueError("need small bet <= buy_in_min <= buy_in_max")

    def with_stakes(self, small_bet: int, ante: int, bring_in: int) -> StudRules:
        """These rules with the ``small_bet``, ``ante`` and ``bring_in`` (chips); raises
        ``ValueError`` as the constructor does (at a cash table also when the small bet
        would pass ``buy_in_min``)."""
        return dataclasses.replace(self, small_bet=small_bet, ante=ante, bring_in=bring_in)

    @property
    def low(self) -> int:
        """``buy_in_min`` (CUBES), its default filled in."""
        assert self.buy_in_min is not None
        return self.buy_in_min

    @property
    def high(self) -> int:
        """``buy_in_max`` (CUBES), its default filled in."""
        assert self.buy_in_max is not None
        return self.buy_in_max

    @property
    def big_bet(self) -> int:
        """The bet of fifth, sixth and seventh street: twice the small bet."""
        return 2 * self.small_bet

    def game(self) -> FixedLimitSevenCardStud:
        """The pokerkit game these rules play: cash game, uniform antes trimmed to a short
        stack (one who cannot cover the ante plays for what they put in), the bring-in,
        small and big bets, pokerkit's cap of four bets a round. Burns are ours (the deck
        may lack one at seventh street), so pokerkit's streets burn none."""
        game = FixedLimitSevenCardStud(AUTOMATIONS, True, self.ante, self.bring_in,
                                       self.small_bet, self.big_bet, mode=Mode.CASH_GAME)
        game.streets = tuple(dataclasses.replace(s, card_burning_status=False)
                             for s in game.streets)
        return game


def _whole(n: object) -> bool:
    """``n`` is a whole number (an ``int``, not a ``bool``)."""
    return isinstance(n, int) and not isinstance(n, bool)


class Street(Enum):
    """Where the table is: no hand, or the betting round of a running hand."""

    IDLE = "idle"
    THIRD = "third"
    FOURTH = "fourth"
    FIFTH = "fifth"
    SIXTH = "sixth"
    SEVENTH = "seventh"


_STREETS = (Street.THIRD, Street.FOURTH, Street.FIFTH, Street.SIXTH, Street.SEVENTH)


@dataclass(frozen=True, slots=True)
class StudSeat:
    """What everyone can see of one occupied seat: ``stack`` (CUBES not in play), ``bet``
    (put in this betting round), ``dealt`` (dealt into the running hand), ``in_hand``
    (dealt in and not folded), ``all_in``, ``out`` (sitting out), ``dealer`` (the cards
    went round from the seat after it), ``bring_in`` (posted the bring-in this hand),
    ``current`` (in turn), ``up`` (the up cards of the running or last hand, GV notation,
    in the order dealt; a folded player's stay shown, as they were seen), ``down`` (how
    many down cards they hold, not which) and ``shown`` (every card shown at the
    showdown, in the order dealt)."""

    seat: int
    handle: str
    stack: int
    bet: int
    in_hand: bool
    all_in: bool
    out: bool
    dealer: bool
    bring_in: bool
    current: bool
    up: tuple[str, ...]
    down: int
    shown: tuple[str, ...] | None
    dealt: bool = False

    @property
    def active(self) -> bool:
        """In the running hand (the table's idle-seat rule asks every kind's seats)."""
        return self.in_hand


@dataclass(frozen=True, slots=True)
class StudTable:
    """The public table beyond the seats: ``street``, the ``pots`` of finished betting
    rounds (main first; the antes are in them from the deal) and ``pot_total`` (CUBES in
    play, or ``None`` with no hand), the ``dealer``'s handle, what the player in turn may
    do: ``to_call`` (0: check; the bring-in while it is due), ``raise_to`` (``None``: no
    completion, bet or raise) and ``bring_in_due`` (they must post the bring-in or
    complete: no fold), the table's ``ante``, ``bring_in``, ``small_bet`` and ``big_bet``
    (the running hand's, else those the next hand will be dealt with:
    :meth:`Stud.set_stakes` may have raised them since the last), and the running hand's
    ``game_id`` (the ledger's) and ``hand`` number at this table."""

    street: Street
    pots: tuple[int, ...]
    pot_total: int | None
    dealer: str | None
    to_call: int
    raise_to: int | None
    bring_in_due: bool
    ante: int
    bring_in: int
    small_bet: int
    big_bet: int
    game_id: int | None
    hand: int | None = None


@dataclass(eq=False)
class _Seat:
    handle: str
    stack: int
    out: bool = False
    leaving: str | None = None    # stood up during a hand: the reason, until it ends
    turns: int = 0
    timeouts: int = 0
    idle_streak: int = 0
    shown: tuple[str, ...] | None = None
    down: tuple[str, ...] = ()    # down cards of the running or last hand dealt in
    up: tuple[str, ...] = ()      # up cards of the running or last hand dealt in
    key: str = field(init=False)

    def __post_init__(self) -> None:
        self.key = self.handle.lower()


@dataclass
class _Hand:
    id: int
    seal: fairness.Seal
    deck: list[str]                 # undealt cards (GV notation), the top card last
    state: State
    order: list[int]                # seat of pokerkit player 0, 1, ... (dealer last)
    players: list[str]              # their handles
    seats: list[_Seat]              # their seats as dealt
    dealer: int
    rules: StudRules                # the stakes it was dealt with
    number: int = 0                 # the hand's number at this table (1, 2, ...)
    operations: list[Operation] = field(default_factory=list)
    seen: int = 0                   # pokerkit operations already turned into events
    moved: int = 0                  # pokerkit operations already paid in the wallet
    early_shows: list[int] = field(default_factory=list)  # shown before seventh street
    showed: set[int] = field(default_factory=set)         # whose show was said
    cards: list[list[str]] = field(default_factory=list)  # each player's, as dealt
    bring_in: int | None = None     # the player who posted the bring-in
    paid: list[int] = field(default_factory=list)       # antes and bets the wallet moved
    round_bets: list[int] = field(default_factory=list)  # of which this betting round's
    collected: list[int] = field(default_factory=list)  # bets that went into the pots
    returned: list[int] = field(default_factory=list)   # uncalled bets told back so far
    turn_since: float = 0.0

    def unsettled(self, p: int) -> int:
        """What player ``p`` paid in (CUBES) that is neither in a pot nor given back yet."""
        return max(0, self.paid[p] - self.collected[p] - self.returned[p])

    def share(self, p: int) -> int:
        """What player ``p`` took from the pots (CUBES; once the hand is over)."""
        st = self.state
        return st.stacks[p] - st.starting_stacks[p] + self.paid[p] - self.returned[p]


class Stud(SeatedTable):
    """One fixed-limit seven-card stud table; implements
    :class:`bbspoker.rules.base.GameRules`. Not thread-safe: one owner applies actions in
    order.

    ``wallet``: a :class:`~bbspoker.rules.money.StackWallet` bound to this table; ``rules``
    the numbers; ``rng`` draws the seeds of each hand's fair deck (``None``: the OS's
    random source; a seeded ``random.Random`` in tests); ``phrases(handles)`` the players'
    client seed phrases; ``deck(seal, game_id)`` the deck of a hand, top card first
    (default: the published shuffle; tests of the rules stack decks with it).

    Actions in a hand: :class:`~bbspoker.rules.actions.CheckCall` checks, calls, or posts
    the bring-in when it is due; :class:`~bbspoker.rules.actions.BetRaise` completes the
    bring-in, bets or raises by the street's fixed amount;
    :class:`~bbspoker.rules.actions.Pass` folds.
    """

    kind = "stud"
    table_stakes = True

    def __init__(self, wallet: StackWallet, rules: StudRules | None = None,
                 rng: random.Random | None = None,
                 phrases: Callable[[Sequence[str]], Mapping[str, str | None]] | None = None,
                 deck: Callable[[fairness.Seal, int], list[str]] | None = None) -> None:
        self.wallet: StackWallet = wallet
        self.rules = rules or StudRules()
        self._deck = deck or (lambda seal, game_id: seal.deck(DECK, game_id))
        self._entropy: Callable[[int], bytes] = (rng.randbytes if rng is not None
                                                 else secrets.token_bytes)
        self._phrases = phrases
        self._publish_first()
        self._seats: list[_Seat | None] = [None] * self.rules.seats
        self._dealer: int | None = None
        self._hand: _Hand | None = None
        self._next_hand_at: float | None = None
        self._operations: Sequence[Operation] = ()
        self._payouts: dict[str, int] = {}
        self._dealing = True
        self._hands_dealt = 0
        #: The table's own bring-in to small bet, kept when the stakes change.
        self._bring_in_ratio = (self.rules.bring_in, self.rules.small_bet)

    # ------------------------------------------------------------------ queries

    @property
    def hand_rules(self) -> StudRules:
        """The rules of the running hand (the stakes it was dealt with), else :attr:`rules`
        (those the next hand will be dealt with)."""
        return self._hand.rules if self._hand is not None else self.rules

    def set_stakes(self, small_bet: int, ante: int, bring_in: int | None = None) -> None:
        """The stakes of every hand dealt from now on (a tournament's next level): the
        ``small_bet`` (chips; the big bet twice it), the ``ante`` each player dealt in
        posts (chips; 0: none) and the ``bring_in`` (chips; ``None``: in the proportion
        to the small bet of the rules the table was made with, rounded down, at least 1:
        3 of 10 makes 6 at a small bet of 20). The running hand keeps the stakes it was
        dealt with. Raises ``ValueError``, changing nothing, for stakes
        :class:`StudRules` refuses (:meth:`StudRules.with_stakes`)."""
        if bring_in is None and _whole(small_bet):
            num, den = self._bring_in_ratio
            bring_in = min(max(1, small_bet * num // den), small_bet - 1)
        self.rules = self.rules.with_stakes(small_bet, ante,
                                            bring_in)  # type: ignore[arg-type]

    @property
    def street(self) -> Street:
        """The betting round of the running hand, or ``IDLE``."""
        h = self._hand
        if h is None:
            return Street.IDLE
        return _STREETS[min(h.state.street_index or 0, 4)]

    @property
    def game_id(self) -> int | None:
        """The running hand's id (the ledger's game id), or ``None``."""
        return self._hand.id if self._hand else None

    @property
    def operations(self) -> tuple[Operation, ...]:
        """The record of the running hand, else of the last one."""
        return tuple(self._hand.operations if self._hand else self._operations)

    def payouts(self) -> dict[str, int]:
        """``{handle: CUBES}`` the last hand that ended paid to each winner's stack."""
        return dict(self._payouts)

    @property
    def dealer(self) -> str | None:
        """The handle at the dealer position (of the running or last hand)."""
        return self._handle(self._dealer)

    @property
    def current(self) -> str | None:
        """The handle in turn, or ``None``."""
        h = self._hand
        if h is None or h.state.actor_index is None:
            return None
        return h.players[h.state.actor_index]

    @property
    def pots(self) -> list[int]:
        """The running hand's pots (CUBES), main pot first: antes and bets of finished
        betting rounds; the current round's bets are in :meth:`seats`."""
        h = self._hand
        if h is None:
            return []
        return [p.amount for p in h.state.pots]

    @property
    def pot_total(self) -> int | None:
        """All CUBES in play in the running hand (pots and this round's bets), or ``None``."""
        h = self._hand
        if h is None:
            return None
        return sum(self.pots) + sum(h.state.bets)

    @property
    def bring_in_due(self) -> bool:
        """The player in turn must post the bring-in or complete (third street's first
        action): they may not fold."""
        h = self._hand
        return h is not None and h.state.actor_index is not None and h.state.bring_in_status

    def stack(self, handle: str) -> int:
        """``handle``'s stack (CUBES at the table not in play); raises ``RuleError``
        ``not_seated``."""
        i = self._find(handle)
        p = self._player(i)
        if p is not None:
            assert self._hand is not None
            return self._hand.state.stacks[p]
        s = self._seats[i]
        assert s is not None
        return s.stack

    def seats(self) -> list[StudSeat]:
        """Every occupied seat as the table shows it, in seat order."""
        h = self._hand
        out = []
        current = self.current
        for i, s in enumerate(self._seats):
            if s is None:
                continue
            bet, in_hand, all_in, brought = 0, False, False, False
            stack = s.stack
            p = self._player(i)
            if h is not None and p is not None:
                st = h.state
                stack, bet = st.stacks[p], st.bets[p]
                in_hand = st.statuses[p]
                all_in = in_hand and stack == 0
                brought = h.bring_in == p
            out.append(StudSeat(i, s.handle, stack, bet, in_hand, all_in, s.out,
                                i == self._dealer, brought, s.handle == current, s.up,
                                len(s.down), s.shown, p is not None))
        return out

    def down_cards(self, handle: str) -> tuple[str, ...]:
        """``handle``'s down cards in the running hand (GV notation, in the order dealt:
        the two of third street, then seventh street's), or ``()``; private to them."""
        s = self._dealt_seat(handle)
        return s.down if s is not None else ()

    def up_cards(self, handle: str) -> tuple[str, ...]:
        """``handle``'s up cards in the running hand (public), or ``()``."""
        s = self._dealt_seat(handle)
        return s.up if s is not None else ()

    def to_call(self, handle: str) -> int:
        """CUBES ``handle`` would put in to check (0), call, or post the bring-in now; 0
        if not in turn."""
        h = self._hand
        if h is None or self.current is None or self.current.lower() != handle.lower():
            return 0
        if h.state.bring_in_status:
            return h.state.effective_bring_in_amount or 0
        return h.state.checking_or_calling_amount or 0

    def raise_to(self, handle: str) -> int | None:
        """The total this round's bet would reach with ``handle``'s completion, bet or
        raise now, or ``None`` if they may not (capped, not in turn, no chips)."""
        h = self._hand
        if h is None or self.current is None or self.current.lower() != handle.lower():
            return None
        if not h.state.can_complete_bet_or_raise_to():
            return None
        return h.state.min_completion_betting_or_raising_to_amount

    @property
    def pot(self) -> int | None:
        """All CUBES in play in the running hand (:attr:`pot_total`), or ``None``."""
        return self.pot_total

    def all_actions(self) -> dict[str, tuple[type[act.Action], ...]]:
        """``{handle: legal action types}`` of every seated player now."""
        return {h: self.legal_actions(h, 0.0) for h in self.handles}

    def hands(self) -> dict[str, tuple[str, ...]]:
        """``{handle: down cards}`` of every seated player, each for its owner only: those
        dealt in the running hand, else in the last hand until the next is dealt; ``()``
        for one not dealt in. Up cards are public: :meth:`seats`."""
        return {s.handle: s.down for s in self._seats if s is not None}

    def view(self, balances: Mapping[str, int] | None = None) -> StudTable:
        """The kind's public view for the table's snapshot: :meth:`board` (``balances``:
        unused, the stacks are the table's)."""
        return self.board()

    def board(self) -> StudTable:
        """The public table beyond the seats (:class:`StudTable`), for the screens: the
        stakes of the running hand, else of the next (:attr:`hand_rules`)."""
        current = self.current
        h = self._hand
        r = self.hand_rules
        return StudTable(self.street, tuple(self.pots), self.pot_total, self.dealer,
                         self.to_call(current) if current else 0,
                         self.raise_to(current) if current else None, self.bring_in_due,
                         r.ante, r.bring_in, r.small_bet, r.big_bet,
                         h.id if h else None, h.number if h else None)

    def deadline(self) -> float | None:
        """When the turn in play times out, or when the next hand is dealt, or ``None``."""
        h = self._hand
        if h is not None:
            if h.state.actor_index is None:
                return None
            return h.turn_since + self.rules.turn_timeout
        if not self._dealing or len(self._eligible()) < 2:
            return None
        return self._next_hand_at

    def stop_dealing(self) -> None:
        """Deal no new hand (the server is shutting down: the hand in play may finish)."""
        self._dealing = False

    def legal_actions(self, handle: str, now: float) -> tuple[type[act.Action], ...]:
        """The action types ``handle`` may use now, in command-area order: ``Pass`` (fold;
        not when checking is free nor while the bring-in is due), ``CheckCall`` (check,
        call, or post the bring-in), ``BetRaise`` (complete, bet or raise) in turn;
        ``SitOut`` while seated; empty if not seated, and at a tournament table for a
        player with no chips left (only the director's :meth:`remove` is left)."""
        i = self._index(handle)
        if i is None:
            return ()
        s = self._seats[i]
        if self.rules.tournament and self._player(i) is None and s is not None \
                and s.stack == 0:
            return ()
        out: list[type[act.Action]] = []
        h = self._hand
        if h is not None and self.current is not None \
                and self.current.lower() == handle.lower():
            st = h.state
            if not st.bring_in_status and st.checking_or_calling_amount:
                out.append(act.Pass)
            out.append(act.CheckCall)
            if st.can_complete_bet_or_raise_to():
                out.append(act.BetRaise)
        out.append(act.SitOut)
        return tuple(out)

    # ------------------------------------------------------------------ actions

    def verify(self, handle: str, action: act.Action, now: float) -> None:
        """Raise :class:`RuleError` if ``action`` is not allowed now; changes nothing."""
        match action:
            case act.Sit(buy_in=amount):
                if self._index(handle) is not None:
                    raise RuleError("already_seated")
                if self.is_full:
                    raise RuleError("table_full", seats=self.rules.seats)
                if self.rules.tournament and amount is not None:
                    raise RuleError("tournament_seat")    # every chip comes: no amount
                self._check_buy_in(amount)
                return
            case act.Cancel():
                if self._hand is None:
                    raise RuleError("no_game")
                return
        self._find(handle)
        match action:
            case act.Leave(reason=reason) if self.rules.tournament \
                    and reason not in AWAY_REASONS:
                raise RuleError("tournament_seat")        # the director moves players
            case act.Leave() | act.SitOut():
                return
            case act.Pass() | act.CheckCall() | act.BetRaise():
                pass
            case _:
                raise RuleError("unknown_action")
        h = self._hand
        if h is None:
            raise RuleError("no_game")
        if self.current is None or self.current.lower() != handle.lower():
            raise RuleError("not_your_turn", current=self.current)
        match action:
            case act.BetRaise() if not h.state.can_complete_bet_or_raise_to():
                raise RuleError("capped")
            case act.Pass() if h.state.bring_in_status:
                # The lowest up card must open: the bring-in or a completion.
                raise RuleError("bring_in_due", amount=self.to_call(handle))
            case act.Pass() if not h.state.checking_or_calling_amount:
                # Checking costs nothing: a fold then could leave a side pot nobody can
                # win, and no player loses by checking.
                raise RuleError("check_free")

    def apply(self, handle: str, action: act.Action, now: float) -> list[Event]:
        """Verify and apply ``action`` for ``handle`` at ``now``; the events, in order.
        Raises :class:`RuleError` (nothing changed), or what the wallet raises."""
        self.verify(handle, action, now)
        match action:
            case act.Sit(buy_in=amount, out=out):
                return self._sit(handle, amount, now, out)
            case act.Leave() if self.rules.tournament:
                return self._sit_out(handle, True, now)      # away: blinded, not removed
            case act.Leave(reason=reason):
                return self._leave(handle, now, reason)
            case act.SitOut(out=out):
                return self._sit_out(handle, out, now)
            case act.Cancel(reason=reason, note=note):
                return self.cancel(now, reason, note)
            case _:
                return self._act(handle, type(action), now, timeout=False)

    def tick(self, now: float) -> list[Event]:
        """Apply what is due by ``now``, each at its own deadline: a turn that timed out
        (the bring-in when due, a check when free, else a fold), then the next hand."""
        ev: list[Event] = []
        while True:
            due = self.deadline()
            if due is None or now < due:
                return ev
            h = self._hand
            if h is None:
                try:
                    ev += self._start_hand(due)
                except InsufficientCubes:  # a stack the store does not hold (a failed
                    self.resync()          # commit): the store's, and deal again later
                if self._hand is None:
                    self._next_hand_at = due + self.rules.between_hands
                    return ev
                continue
            actor = h.state.actor_index
            assert actor is not None
            ev += self._act(h.players[actor], self._give_up(h), due, timeout=True)

    def cancel(self, now: float, reason: str, note: str | None = None) -> list[Event]:
        """Call the running hand off (shutdown): every ante and bet goes back to the stack
        it came from. Raises ``RuleError`` ``no_game``."""
        if self._hand is None:
            raise RuleError("no_game")
        return self.call_off(now, reason, (self._hand.id,), note)

    def call_off(self, now: float, reason: str, game_ids: Collection[int],
                 note: str | None = None) -> list[Event]:
        """Call hands ``game_ids`` off without a winner (shutdown, a failed commit): the
        running hand, if among them, ends at once and its seed is revealed; then the
        wallet refunds their antes and bets to the stacks. If the wallet cannot write a
        refund it raises :class:`~bbspoker.rules.seating.RefundFailed`, and the hand is
        over all the same; every stack not in a hand is then taken from the wallet
        again."""
        h = self._hand
        if h is not None and h.id not in game_ids:
            h = None
        if h is not None:
            self._hand = None
            self._operations, self._payouts = h.operations, {}
            self._next_hand_at = now + self.rules.between_hands
        try:
            refunds = self._refund(game_ids, note or reason,
                                   {h.id: self._history(h)} if h is not None else {})
        except RefundFailed:
            self.resync()
            raise
        ev = [Event("cancelled", None, {"reason": reason, "refunds": refunds})]
        if h is not None:
            ev += [self._seed_event(h), self._publish_anew()]
            for s in h.seats:                  # who left during the hand goes now
                if s.leaving and any(x is s for x in self._seats):
                    ev += self._stand_up(self._seats.index(s), s.leaving)
        self.resync()
        seated = {x.key for x in self._seats if x is not None}
        for handle in refunds:                 # refunded to a stack its owner had left
            if handle.lower() not in seated:
                self.wallet.cash_out(handle)
        return ev

    def resync(self) -> None:
        """Take every stack not in a running hand from the wallet again (after a call-off,
        or a buy-in or cash-out the store could not commit)."""
        for i, s in enumerate(self._seats):
            if s is not None and self._player(i) is None:
                s.stack = self.wallet.stack(s.handle)

    # ------------------------------------------------------------------ seating

    def _check_buy_in(self, amount: int | None) -> None:
        r = self.rules
        if amount is not None and (isinstance(amount, bool) or not isinstance(amount, int)
                                   or amount != 0 and not r.low <= amount <= r.high):
            raise RuleError("buy_in_range", low=r.low, high=r.high)

    def _sit(self, handle: str, amount: int | None, now: float, out: bool = False
             ) -> list[Event]:
        """Seat ``handle`` at the first free seat with a stack of ``amount`` CUBES bought in
        (``None``: ``buy_in_max``, or all they have if less), sitting out if ``out``.
        Raises ``RuleError`` ``buy_in_short`` if their CUBES do not reach ``buy_in_min``.
        ``amount`` 0: they sit with the stack they already have at this table (kept when
        the table moved to another worker and its game was called off), no CUBES moved;
        ``buy_in_short`` if they have none.
        At a tournament table the stack is every chip of their balance, whatever the
        buy-in range; ``RuleError`` ``no_tournament_chips`` if they have none (or are not
        in the tournament: no account in its wallet)."""
        r = self.rules
        balance = (self.wallet.balances_of([handle]).get(handle, 0) if r.tournament
                   else self.wallet.balance(handle))
        if r.tournament:
            if balance <= 0:
                raise RuleError("no_tournament_chips")
            amount = balance
        elif amount is None:
            amount = min(r.high, balance)
        kept = self.wallet.stack(handle) if amount == 0 and not r.tournament else 0
        if kept > 0:
            stack = kept
        else:
            if not r.tournament and (amount > balance or amount < r.low):
                raise RuleError("buy_in_short", low=r.low, cubes=balance)
            try:
                stack = self.wallet.buy_in(handle, amount)
            except InsufficientCubes:
                raise RuleError("buy_in_short", low=r.low, cubes=balance) from None
        free = self._seats.index(None)
        self._seats[free] = _Seat(handle, stack, out=out)
        ev = [Event("sat", handle, {"buy_in": amount, "stack": stack,
                                    **({"tournament": True} if r.tournament else {})})]
        if self._hand is not None:
            ev.append(Event("inactive", handle, {"why": "running"}, to=handle))
        if not out:
            self._ready(now)
        return ev

    def _leave(self, handle: str, now: float, reason: str) -> list[Event]:
        """``handle`` stands up and their stack goes back to their CUBES (``cash_out`` in
        the ``left`` event). In a hand they are still in, they give up their turn at once
        if in turn (posting the bring-in if it is due), else when it comes; one who is
        all-in plays the hand out. The seat is freed when the hand ends."""
        i = self._find(handle)
        s = self._seats[i]
        assert s is not None
        h = self._hand
        p = self._player(i)
        if h is None or p is None or not h.state.statuses[p]:
            return self._stand_up(i, reason)
        s.leaving = reason
        ev = [Event("leaving", handle)]
        if h.state.actor_index == p:
            ev += self._act(handle, self._give_up(h), now, timeout=False)
        return ev

    def remove(self, handle: str, now: float, reason: str = "removed") -> list[Event]:
        """The tournament director stands ``handle`` up (moved to another table, or out
        of the tournament): their stack goes back to the wallet's balance at once (the
        ``left`` event's ``cash_out``, chips, with ``reason``). Allowed between hands and
        while they are not in the running hand (not dealt in, or folded). Raises
        ``RuleError`` ``not_seated``, or ``in_hand`` while they are still in it."""
        i = self._find(handle)
        h, p = self._hand, self._player(i)
        if h is not None and p is not None and h.state.statuses[p]:
            raise RuleError("in_hand")
        return self._stand_up(i, reason)

    @staticmethod
    def _give_up(h: _Hand) -> type[act.Action]:
        """What a player who does not act plays (a time-out, one who left, one away from
        a tournament table): the bring-in when due, a check when checking is free, else
        a fold."""
        st = h.state
        if st.bring_in_status or not st.checking_or_calling_amount:
            return act.CheckCall
        return act.Pass

    def _stand_up(self, i: int, reason: str) -> list[Event]:
        """Free seat ``i``; its stack goes back to the wallet's balance: the ``left``
        event (``cash_out``: CUBES, or chips with ``tournament``)."""
        s = self._seats[i]
        assert s is not None
        cashed = self.wallet.cash_out(s.handle)
        self._seats[i] = None
        return [Event("left", s.handle, {"reason": reason, "cash_out": cashed,
                                         **({"tournament": True} if self.rules.tournament
                                            else {})})]

    def _sit_out(self, handle: str, out: bool, now: float) -> list[Event]:
        """``handle`` sits out (``out``) or comes back: as at a Hold'em table (at a
        tournament table still dealt in, giving their turns up at once, this one too if
        it is theirs now). Raises ``RuleError`` ``no_chips`` (``no_tournament_chips``)
        for one with no chips coming back."""
        i = self._find(handle)
        s = self._seats[i]
        assert s is not None
        if s.out == out:
            return []
        if not out and s.stack == 0 and self._player(i) is None:
            raise RuleError("no_tournament_chips" if self.rules.tournament else "no_chips")
        s.out = out
        s.idle_streak = 0
        if not out:
            self._ready(now)
        ev = [Event("sit_out" if out else "sit_in", handle)]
        h = self._hand
        if out and self.rules.tournament and h is not None and self.current is not None \
                and self.current.lower() == handle.lower():
            ev += self._act(handle, self._give_up(h), now, timeout=False)
        return ev

    # ------------------------------------------------------------------ the hand

    def _eligible(self) -> list[int]:
        """Seats dealt into the next hand: seated with chips, and not sitting out (at a
        tournament table one sitting out is dealt in all the same)."""
        return [i for i, s in enumerate(self._seats) if s is not None
                and (not s.out or self.rules.tournament) and s.stack > 0]

    def _ready(self, now: float) -> None:
        """A player came (back): the next hand falls due ``between_hands`` from now unless
        one is due already (a deal time already past is stale and set anew)."""
        if self._hand is None and (self._next_hand_at is None or self._next_hand_at <= now):
            self._next_hand_at = now + self.rules.between_hands

    def _start_hand(self, now: float) -> list[Event]:
        """Deal a hand to the eligible seats (none with fewer than two): the dealer
        position moves on, the antes are posted, three cards each from the deck sealed
        with the server seed whose commitment the table published before; the next
        hand's seed is drawn and published in the same transaction."""
        eligible = self._eligible()
        self._next_hand_at = None
        if len(eligible) < 2:
            return []
        prev = self._dealer
        dealer = next((i for i in eligible if prev is None or i > prev), eligible[0])
        at = eligible.index(dealer)
        order = eligible[at + 1:] + eligible[:at + 1]        # after the dealer ... dealer
        seats = [self._seats[i] for i in order]
        dealt = [s for s in seats if s is not None]
        assert len(dealt) == len(seats)
        players = [s.handle for s in dealt]
        seat_order = [s.handle for s in (self._seats[i] for i in eligible) if s is not None]
        seal = self._new_seal(seat_order)
        rules = self.rules
        with self.wallet.transaction(durable=False):
            gid = self.wallet.open_game(seat_order, seal)
            upcoming = self._publish_next()
            state = rules.game()([s.stack for s in dealt], len(order))
            zeros = [0] * len(order)
            h = _Hand(gid, seal, self._deck(seal, gid)[::-1], state, order, players, dealt,
                      dealer, rules, number=self._hands_dealt + 1, cards=[[] for _ in order],
                      paid=list(zeros), round_bets=list(zeros), collected=list(zeros),
                      returned=list(zeros))
            self._move_chips(h, "ante")
        self._hands_dealt = h.number
        self._next = upcoming
        self._dealer = dealer
        self._hand = h
        for s in self._seats:
            if s is not None:
                s.shown = None
                s.down = s.up = ()
                s.turns = s.timeouts = 0
        ev = [Event("hand", None, {
            "game_id": gid, "hand": h.number, "dealer": self._handle(dealer),
            "ante": rules.ante, "bring_in": rules.bring_in,
            "small_bet": rules.small_bet, "big_bet": rules.big_bet,
            "players": players}),
            Event("sealed", None, {"game_id": gid, "commitment": seal.commitment,
                                   "client_seeds": [list(p) for p in
                                                    zip(seat_order, seal.client_seeds)]})]
        ev += self._events(h)                    # the antes, and their collection
        ev += self._after(now)
        return ev

    def _needed(self, h: _Hand, street: int) -> int:
        """Cards the players still in need from street ``street`` (0: third) to the end."""
        return sum(h.state.statuses) * _CARDS_FROM[street]

    def _deal_street(self, h: _Hand) -> list[Event]:
        """Deal the street pokerkit waits for: a burn card (from fourth street, unless the
        deck could then not deal the hand out), then one card at a time round the players
        still in, from the dealer's left (three times round on third street); each
        player's down cards told to them alone, their up cards to everyone."""
        st = h.state
        si = st.street_index
        assert si is not None
        street = _STREETS[si].value
        data: dict[str, Any] = {"street": street}
        if si > 0 and len(h.deck) > self._needed(h, si):
            data["burn"] = h.deck.pop()
        got: dict[int, tuple[list[str], list[str]]] = {}
        while st.status and st.street_index == si and st.can_deal_hole():
            p = st.hole_dealee_index
            assert p is not None
            card = h.deck.pop()
            op = st.deal_hole(to_standard(card), p)
            down, up = got.setdefault(p, ([], []))
            (up if op.statuses[0] else down).append(card)
            h.cards[p].append(card)
        h.operations.append(Operation("street", None, data))
        ev = [Event("street", None, {"street": street})]
        for p in sorted(got):
            down, up = got[p]
            handle, seat = h.players[p], h.seats[p]
            seat.down += tuple(down)
            seat.up += tuple(up)
            record: dict[str, Any] = {"street": street}
            if down:
                record["down"] = " ".join(down)
                ev.append(Event("down", handle, {"street": street, "cards": tuple(down)},
                                to=handle))
            if up:
                record["up"] = " ".join(up)
                ev.append(Event("up", handle, {"street": street, "cards": tuple(up),
                                               "showing": seat.up}))
            h.operations.append(Operation("deal", handle, record))
        return ev

    def _move_chips(self, h: _Hand, reason: str) -> None:
        """Mirror in the wallet what pokerkit's operations since the last call put in:
        each ante, bring-in, call, completion, bet and raise goes from its stack into the
        hand's pot (journal ``ante`` for antes, else ``reason``). Read from the operations,
        not from the stacks: an action that ends the hand has pokerkit pay the pots out
        in the same call."""
        ops = h.state.operations[h.moved:]
        h.moved += len(ops)
        for op in ops:
            why = reason
            match op:
                case pk.AntePosting(player_index=p, amount=paid):
                    why = "ante"
                case pk.BringInPosting(player_index=p, amount=paid):
                    pass
                case pk.CheckingOrCalling(player_index=p, amount=paid):
                    pass
                case pk.CompletionBettingOrRaisingTo(player_index=p, amount=to):
                    paid = to - h.round_bets[p]      # a bet or raise *to* the amount
                case pk.BetCollection():
                    h.round_bets = [0] * len(h.players)
                    continue
                case _:
                    continue
            if paid > 0:
                h.round_bets[p] += paid
                h.paid[p] += paid
                self.wallet.stack_into_pot(h.id, h.players[p], paid, why)

    def _act(self, handle: str, kind: type[act.Action], now: float, *,
             timeout: bool) -> list[Event]:
        h = self._hand
        assert h is not None
        st = h.state
        p = st.actor_index                   # verify (or the clock) made sure it is them
        assert p is not None and h.players[p].lower() == handle.lower()
        s = h.seats[p]
        street = self.street.value           # before pokerkit moves on to the next one
        with self.wallet.transaction(durable=False):
            if kind is act.Pass:
                st.fold()
            elif kind is act.CheckCall and st.bring_in_status:
                st.post_bring_in()
            elif kind is act.CheckCall:
                st.check_or_call()
            else:
                st.complete_bet_or_raise_to()
            self._move_chips(h, "bet")
        s.turns += 1
        if timeout:
            s.timeouts += 1
        ev = self._events(h, timeout=timeout, street=street)
        ev += self._after(now)
        return ev

    def _events(self, h: _Hand, *, timeout: bool = False, street: str | None = None
                ) -> list[Event]:
        """Turn the pokerkit operations since the last call into events and record lines;
        ``street``: the betting round the action was taken in."""
        ev: list[Event] = []
        ops = h.state.operations[h.seen:]
        h.seen += len(ops)
        street = street or self.street.value
        for op in ops:
            p = getattr(op, "player_index", None)
            name = h.players[p] if p is not None else None
            if h.early_shows and isinstance(op, (pk.HandKilling, pk.ChipsPushing,
                                                 pk.ChipsPulling)):
                ev += self._show(h)          # every card is out: the hands shown early
            data: dict[str, Any]
            match op:
                case pk.AntePosting(amount=amount):
                    h.operations.append(Operation("ante", name, {"amount": amount}))
                    ev.append(Event("ante", name, {"amount": amount}))
                case pk.BringInPosting(amount=amount):
                    h.bring_in = p
                    data = {"street": street, "amount": amount}
                    if timeout:
                        data["timeout"] = True
                    h.operations.append(Operation("bring_in", name, data))
                    ev.append(Event("bring_in", name, data))
                case pk.Folding():
                    data = {"street": street}
                    if timeout:
                        data["timeout"] = True
                    h.operations.append(Operation("fold", name, data))
                    ev.append(Event("fold", name, data))
                case pk.CheckingOrCalling(amount=amount):
                    verb = "call" if amount else "check"
                    data = {"street": street, "amount": amount}
                    if timeout:
                        data["timeout"] = True
                    h.operations.append(Operation(verb, name, data))
                    ev.append(Event(verb, name, data))
                case pk.CompletionBettingOrRaisingTo(amount=amount):
                    verb = self._bet_or_raise(h, street)
                    data = {"street": street, "to": amount}
                    h.operations.append(Operation(verb, name, data))
                    ev.append(Event(verb, name, data))
                case pk.HoleCardsShowingOrMucking(hole_cards=shown):
                    # pokerkit turns the hands up when betting is over with cards to
                    # come (all-in), and shows (or mucks) them again at the showdown:
                    # each hand is said once, with all its cards, when they are out.
                    assert p is not None
                    if p in h.showed or p in h.early_shows:
                        continue
                    if shown and len(h.cards[p]) == 7:
                        ev += self._show(h, p)
                    elif shown:
                        h.early_shows.append(p)
                    else:
                        h.operations.append(Operation("muck", name))
                        ev.append(Event("muck", name))
                case pk.BetCollection():
                    ev += self._collect(h)
                case pk.ChipsPulling():
                    assert p is not None
                    won = h.share(p)
                    if won <= 0:
                        continue
                    data = {"amount": won, "pot": sum(h.collected)}
                    if any(o.kind == "show" and o.handle == name for o in h.operations):
                        data |= self._made_hand(h.cards[p])
                    h.operations.append(Operation("won", name, data))
                    ev.append(Event("won", name, data))
        return ev

    def _show(self, h: _Hand, p: int | None = None) -> list[Event]:
        """Player ``p`` shows every card dealt to them, with the hand they make; first the
        hands shown before seventh street (all-in), in the order shown."""
        ev = []
        early, h.early_shows = h.early_shows, []
        for q in early + ([p] if p is not None else []):
            if q in h.showed:
                continue
            h.showed.add(q)
            held = tuple(h.cards[q])
            h.seats[q].shown = held
            data = {"cards": " ".join(held), **self._made_hand(held)}
            h.operations.append(Operation("show", h.players[q], data))
            ev.append(Event("show", h.players[q], {**data, "cards": held}))
        return ev

    @staticmethod
    def _collect(h: _Hand) -> list[Event]:
        """A betting round's bets (or the antes) go into the pot (pokerkit's
        ``BetCollection``): each player's bet up to the second-highest of the round is
        in the pot; what the highest has above it nobody called and goes back to its
        bettor (a ``returned`` event; the ledger journals it as ``return``)."""
        bets = [h.unsettled(p) for p in range(len(h.players))]
        called = sorted(bets)[-2] if len(bets) > 1 else 0
        ev = []
        for p, bet in enumerate(bets):
            h.collected[p] += min(bet, called)
            back = bet - min(bet, called)
            if back > 0:
                h.returned[p] += back
                h.operations.append(Operation("return", h.players[p], {"amount": back}))
                ev.append(Event("returned", h.players[p], {"amount": back}))
        return ev

    @staticmethod
    def _made_hand(cards: Sequence[str]) -> dict[str, str]:
        """The best five of seven ``cards`` (GV notation) by pokerkit's
        ``StandardHighHand``: ``{"hand": label code such as "TWO_PAIR", "best": the five
        cards, highest rank first}``; ``{}`` with fewer than five cards."""
        if len(cards) < 5:
            return {}
        made = StandardHighHand.from_game("".join(map(to_standard, cards)))
        best = sorted((from_standard(repr(c)) for c in made.cards),
                      key=lambda c: STANDARD52.ranks.index(c[:-1]), reverse=True)
        return {"hand": made.entry.label.name, "best": " ".join(best)}

    @staticmethod
    def _bet_or_raise(h: _Hand, street: str) -> str:
        """The first of a betting round: ``complete`` on third street (to the small bet,
        over the bring-in), ``bet`` later; ``raise`` after it."""
        if h.state.completion_betting_or_raising_count > 1:
            return "raise"
        return "complete" if street == Street.THIRD.value else "bet"

    def _after(self, now: float) -> list[Event]:
        """After an action: deal while no one can act, end the hand when it is over, else
        give the turn."""
        h = self._hand
        assert h is not None
        st = h.state
        ev = self._events(h)
        while st.status and st.can_deal_hole():
            ev += self._deal_street(h)
            ev += self._events(h)
        if not st.status:
            ev += self._end_hand(now)
        elif st.actor_index is not None:
            h.turn_since = now
            handle = h.players[st.actor_index]
            seat = h.seats[st.actor_index]
            if seat.leaving or (seat.out and self.rules.tournament):
                return ev + self._act(handle, self._give_up(h), now, timeout=False)
            ev.append(Event("turn", handle, {"street": self.street.value,
                                             "to_call": self.to_call(handle),
                                             "raise_to": self.raise_to(handle),
                                             "bring_in": st.bring_in_status}))
        return ev

    def _end_hand(self, now: float) -> list[Event]:
        h = self._hand
        assert h is not None
        st = h.state
        for p in range(len(h.players)):     # a bet no collection took: back with the pot
            h.returned[p] += h.unsettled(p)
        shares = {handle: h.share(p) for p, handle in enumerate(h.players) if h.share(p) > 0}
        returns = {handle: h.returned[p] for p, handle in enumerate(h.players)
                   if h.returned[p]}
        history = {**self._history(h),
                   "stacks": {handle: st.stacks[p] for p, handle in enumerate(h.players)},
                   "winners": shares, "phh": self.phh(h)}
        with self.wallet.transaction(durable=False):
            self.wallet.pot_to_stacks(h.id, shares, returns)
            winner = max(shares, key=shares.__getitem__) if shares else None
            self.wallet.close_game(h.id, winner, history)
        players = [self._seats[i] if self._player(i) == p else None
                   for p, i in enumerate(h.order)]
        for p, s in enumerate(players):
            if s is not None:
                s.stack = st.stacks[p]
        self._hand = None
        self._operations, self._payouts = h.operations, shares
        self._next_hand_at = now + self.rules.between_hands
        ev = [Event("hand_over", None, {"game_id": h.id, "winners": shares}),
              self._seed_event(h), self._next_event()]
        for s in players:                      # who left during the hand goes now
            if s is not None and s.leaving:
                ev += self._stand_up(self._seats.index(s), s.leaving)
        # The idle rule: every turn timed out in ``idle_hands`` successive hands (not at a
        # tournament table: one away there is blinded, never stood up).
        for s in players:
            if s is None or s.turns == 0 or not any(x is s for x in self._seats) \
                    or self.rules.tournament:
                continue
            i = self._seats.index(s)
            s.idle_streak = s.idle_streak + 1 if s.timeouts == s.turns else 0
            if s.idle_streak >= self.rules.idle_hands:
                ev.append(Event("removed", s.handle, {"games": self.rules.idle_hands}))
                ev += self._stand_up(i, "idle")
        if self.rules.tournament:              # no chips left: seated until removed
            return ev + [Event("busted", s.handle, {"tournament": True}) for s in players
                         if s is not None and s.stack == 0
                         and any(x is s for x in self._seats)]
        for s in self._seats:                  # no chips left: sits out until a rebuy
            if s is not None and s.stack == 0 and not s.out:
                s.out = True
                ev.append(Event("busted", s.handle))
        return ev

    def _history(self, h: _Hand) -> dict[str, Any]:
        r = h.rules
        return {"game": self.kind, "hand": h.number, "players": h.players,
                "dealer": h.players[-1], "ante": r.ante, "bring_in": r.bring_in,
                "bets": [r.small_bet, r.big_bet],
                "starting_stacks": dict(zip(h.players, h.state.starting_stacks)),
                "commitment": h.seal.commitment,
                "operations": [op.as_dict() for op in h.operations]}

    def phh(self, h: _Hand) -> str:
        """Hand ``h`` in the Poker Hand History format (PHH, pokerkit's
        ``HandHistory.dumps``): variant ``F7S``, antes (trimmed to a short stack), the
        bring-in, bets, starting stacks, every action and card dealt (one card a line:
        pokerkit's compressed form would join the cards of several streets dealt in a row
        after an all-in into one line, which it then cannot replay; burns are not part of
        the format), players in pokerkit's order, the hand number our game id."""
        hh = HandHistory.from_game_state(h.rules.game(), h.state, False,
                                         ante_trimming_status=True)
        hh.players = list(h.players)
        hh.hand = h.id
        return hh.dumps()

    @staticmethod
    def _seed_event(h: _Hand) -> Event:
        return Event("seed", None, {"game_id": h.id, "server_seed": h.seal.server_seed.hex(),
                                    "commitment": h.seal.commitment})

    # ------------------------------------------------------------------ helpers

    def _dealt_seat(self, handle: str) -> _Seat | None:
        """``handle``'s seat if they are dealt into the running hand, else ``None``."""
        i = self._index(handle)
        if i is None or self._player(i) is None:
            return None
        return self._seats[i]

    def _player(self, i: int) -> int | None:
        """The running hand's pokerkit index of whoever sits at seat ``i`` now, or ``None``
        (no hand, not dealt in, or the seat changed hands during it)."""
        h = self._hand
        s = self._seats[i]
        if h is None or s is None or i not in h.order:
            return None
        p = h.order.index(i)
        return p if h.seats[p] is s else None

