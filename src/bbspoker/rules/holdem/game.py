"""A Texas Hold'em table, fixed-limit, pot-limit or no-limit: a pure, synchronous state
machine around pokerkit.

The hand itself (blinds, betting order, the smallest and largest bet or raise: the cap of
one bet and three raises at fixed limit, the pot at pot limit, the stack at no limit;
all-ins, side pots, showdown, who shows and who may muck, split pots and their odd chips)
is pokerkit's state (``FixedLimitTexasHoldem``, ``NoLimitTexasHoldem``, and
:class:`PotLimitTexasHoldem` made of pokerkit's own parts), not a rules engine of our own;
this module owns what is around the hand, as the Finnish network-poker design
(``verkkopokeri-fi.txt``) describes it:

- seats (2-9), buying in from the player's CUBES into a stack (within ``buy_in_min`` and
  ``buy_in_max``) and cashing the stack out on leaving, through the injected
  :class:`~bbspoker.rules.money.StackWallet`;
- the dealer button, moving one seat each hand; small blind half the small bet, big blind
  the small bet; heads-up the button posts the small blind and acts first preflop
  (pokerkit's player order: the seat after the button first, the button last);
- a new hand ``between_hands`` seconds after the last when two or more players with chips
  are seated and not sitting out; the turn timeout folds, or checks when checking is free;
  two successive hands with every turn timed out stand a player up (as draw40's idle rule);
- the deck: the provably fair shuffle (:mod:`bbspoker.rules.fairness`), cards dealt from its
  top: one hole card at a time in pokerkit's order, twice round, then a burn card before
  the flop, the turn and the river;
- events as codes for the door and a record of operations for ``games show``/``verify``.

Time is a value (``now``, seconds on any monotonic scale); no I/O, no English.
"""

from __future__ import annotations

import dataclasses
import random
import secrets
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, ClassVar

from pokerkit import (Automation, FixedLimitTexasHoldem, HandHistory, Mode, NoLimitTexasHoldem,
                      Poker, PotLimitPokerMixin, StandardHighHand, State, TexasHoldemMixin,
                      UnfixedLimitHoldem)
from pokerkit import state as pk

from bbspoker.rules import actions as act
from bbspoker.rules import fairness
from bbspoker.rules.cards import STANDARD52, from_standard, to_standard
from bbspoker.rules.seating import AWAY_REASONS, RefundFailed, SeatedTable
from bbspoker.rules.events import Event, Operation, RuleError
from bbspoker.rules.money import InsufficientCubes, StackWallet

__all__ = ["HoldemRules", "Holdem", "Street", "HoldemSeat", "HoldemTable", "AUTOMATIONS",
           "POKERKIT_VERSION", "LIMITS", "PotLimitTexasHoldem", "HoldemHandHistory"]

#: The pokerkit release this module was written and tested against (pinned in pyproject).
POKERKIT_VERSION = "0.7.7"

#: What pokerkit does by itself; dealing (hole, burn, board) stays ours, from the fair deck.
AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.RUNOUT_COUNT_SELECTION,    # all-in: the board is run once
    Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)

#: Raises after the first bet of a betting round (the big blind is it preflop).
CAP_RAISES = 3

#: The deck in notation order (GV suits, standard ranks), as the fair shuffle starts from.
DECK = STANDARD52.cards()

#: The betting structures (``HoldemRules.limit``): fixed limit, pot limit, no limit.
LIMITS = ("fixed", "pot", "no")


class PotLimitTexasHoldem(PotLimitPokerMixin, TexasHoldemMixin, UnfixedLimitHoldem):
    """Pot-limit Texas Hold'em. pokerkit 0.7.7 has pot-limit Omaha but no pot-limit Texas
    Hold'em class; this one is made of its own parts as its ``NoLimitTexasHoldem`` is,
    with the pot-limit betting structure: the largest bet or raise is to the pot as it
    would be after the call, added to the call (pokerkit's
    ``pot_completion_betting_or_raising_to_amount``)."""


class HoldemHandHistory(HandHistory):
    """pokerkit's Poker Hand History (PHH) with one more variant: ``PT``, pot-limit Texas
    Hold'em (:class:`PotLimitTexasHoldem`; the PHH specification names none, and the code
    follows its ``NT``/``PO`` pattern), read and written with the fields of ``NT``
    (``min_bet``: the big blind). ``FT`` and ``NT`` hands read and write as pokerkit's."""

    game_types: ClassVar[dict[str, type[Poker]]] = {**HandHistory.game_types,
                                                     "PT": PotLimitTexasHoldem}
    variants: ClassVar[dict[type[Poker], str]] = {**HandHistory.variants,
                                                  PotLimitTexasHoldem: "PT"}
    required_field_names: ClassVar[dict[str, tuple[str, ...]]] = {
        **HandHistory.required_field_names, "PT": HandHistory.required_field_names["NT"]}


@dataclass(frozen=True)
class HoldemRules:
    """The numbers of a table (CUBES, seconds). ``limit``: the betting structure, one of
    :data:`LIMITS`. ``small_bet``: the big blind, the small blind being half of it; at
    fixed limit also the bet and raise of preflop and the flop, the big bet (turn, river)
    twice it (the Finnish design: 10/20 -> blinds 5 and 10); at pot and no limit the
    smallest bet of every betting round (a raise is at least the last bet or raise), the
    largest the pot after the call (pot limit) or the whole stack (no limit): a 10/20
    fixed-limit table and a 5/10 no-limit one have the same blinds. ``ante``: what every
    player dealt in posts before the blinds (0: none; a stack that cannot cover it posts
    what it has, all in). ``buy_in_min``/``buy_in_max`` default to 20 and 100 big blinds.

    ``tournament``: a tournament table, whose chips are a tournament's, not CUBES (the
    wallet's balance of a player is their chips not at a table): a player sits down with
    every chip they have (no buy-in range: it is not checked against the stakes, which
    rise), cannot leave (the director removes them: :meth:`Holdem.remove`), is dealt in
    while sitting out and gives their turns up at once, and stays seated with 0 chips
    once busted; the idle rule stands nobody up.

    Raises ``ValueError`` for numbers that make no game (:meth:`with_stakes` as well)."""

    seats: int = 9
    small_bet: int = 10
    buy_in_min: int | None = None
    buy_in_max: int | None = None
    turn_timeout: float = 60.0
    between_hands: float = 5.0
    idle_hands: int = 2
    limit: str = "fixed"
    ante: int = 0
    tournament: bool = False

    def __post_init__(self) -> None:
        if not 2 <= self.seats <= 9:
            raise ValueError("seats must be between 2 and 9")
        if self.limit not in LIMITS:
            raise ValueError(f"limit must be one of {', '.join(LIMITS)}")
        if not _whole(self.small_bet) or self.small_bet < 2 or self.small_bet % 2:
            raise ValueError("small_bet must be even and at least 2 (the small blind is half)")
        if not _whole(self.ante) or self.ante < 0:
            raise ValueError("ante must be a whole number of chips, not negative")
        if self.buy_in_min is None:
            object.__setattr__(self, "buy_in_min", 20 * self.big_blind)
        if self.buy_in_max is None:
            object.__setattr__(self, "buy_in_max", 100 * self.big_blind)
        assert self.buy_in_min is not None and self.buy_in_max is not None
        if not self.tournament and not self.big_blind <= self.buy_in_min <= self.buy_in_max:
            raise ValueError("need big blind <= buy_in_min <= buy_in_max")

    def with_stakes(self, small_bet: int, ante: int) -> HoldemRules:
        """These rules with the big blind ``small_bet`` (chips: even, at least 2) and the
        ``ante`` (chips, 0 or more); raises ``ValueError`` as the constructor does (at a
        cash table also when the big blind would pass ``buy_in_min``)."""
        return dataclasses.replace(self, small_bet=small_bet, ante=ante)

    @property
    def big_bet(self) -> int:
        """The bet of the turn and the river: twice the small bet."""
        return 2 * self.small_bet

    @property
    def big_blind(self) -> int:
        """The big blind: the small bet."""
        return self.small_bet

    @property
    def small_blind(self) -> int:
        """The small blind: half the big blind."""
        return self.small_bet // 2

    @property
    def fixed(self) -> bool:
        """Fixed limit: every bet and raise is the betting round's fixed amount."""
        return self.limit == "fixed"

    def game(self) -> Poker:
        """The pokerkit game these rules play (cash game, the ``ante`` of every player
        trimmed to a short stack, blinds small/big). Pot
        and no limit: ``PotLimitTexasHoldem``/``NoLimitTexasHoldem`` with the big blind as
        the smallest bet. Fixed limit: ``FixedLimitTexasHoldem`` with the Finnish design's
        cap: "three raises per betting round, so four bets in all" and preflop the big
        blind is the first of them (its example caps at 40 in 10/20). pokerkit counts only
        raises preflop (cap 50): its preflop street is given 3."""
        if not self.fixed:
            unfixed = NoLimitTexasHoldem if self.limit == "no" else PotLimitTexasHoldem
            return unfixed(AUTOMATIONS, True, self.ante, (self.small_blind, self.big_blind),
                           self.big_blind, mode=Mode.CASH_GAME)
        game = FixedLimitTexasHoldem(AUTOMATIONS, True, self.ante,
                                     (self.small_blind, self.big_blind),
                                     self.small_bet, self.big_bet, mode=Mode.CASH_GAME)
        preflop = dataclasses.replace(game.streets[0],
                                      max_completion_betting_or_raising_count=CAP_RAISES)
        game.streets = (preflop, *game.streets[1:])
        return game


def _whole(n: object) -> bool:
    """``n`` is a whole number (an ``int``, not a ``bool``)."""
    return isinstance(n, int) and not isinstance(n, bool)


class Street(Enum):
    """Where the table is: no hand, or the betting round of a running hand."""

    IDLE = "idle"
    PREFLOP = "preflop"
    FLOP = "flop"
    TURN = "turn"
    RIVER = "river"


_STREETS = (Street.PREFLOP, Street.FLOP, Street.TURN, Street.RIVER)
_BOARD_COUNTS = {Street.FLOP: 3, Street.TURN: 1, Street.RIVER: 1}


@dataclass(frozen=True, slots=True)
class HoldemSeat:
    """What everyone can see of one occupied seat: ``stack`` (CUBES not in play), ``bet``
    (put in this betting round), ``dealt`` (dealt into the running hand), ``in_hand``
    (dealt in and not folded), ``all_in``,
    ``out`` (sitting out), ``button``/``blind`` (``"small"``, ``"big"`` or ``None``),
    ``current`` (in turn) and ``shown`` (hole cards shown at the showdown, notation)."""

    seat: int
    handle: str
    stack: int
    bet: int
    in_hand: bool
    all_in: bool
    out: bool
    button: bool
    blind: str | None
    current: bool
    shown: tuple[str, ...] | None
    dealt: bool = False

    @property
    def active(self) -> bool:
        """In the running hand (the table's idle-seat rule asks every kind's seats)."""
        return self.in_hand


@dataclass(frozen=True, slots=True)
class HoldemTable:
    """The public table beyond the seats: ``street``, the ``community`` cards, the
    ``pots`` of finished betting rounds (main first) and ``pot_total`` (CUBES in play, or
    ``None`` with no hand), the ``button``'s handle, what the player in turn may do:
    ``to_call`` (CUBES; 0: check), ``raise_to`` and ``max_raise_to`` (the smallest and
    the largest total their bet may reach with a bet or raise, equal at fixed limit;
    ``None``: no bet or raise), the blinds and bets of the table, the running hand's
    ``game_id`` (the ledger's, for ``games show``) and ``hand`` number at this table (1,
    2, ... since the table was set up), the betting structure (``limit``, one of
    :data:`LIMITS`) and the ``ante`` (chips). The stakes (blinds, bets, ante) are the
    running hand's, else those the next hand will be dealt with (:meth:`Holdem.set_stakes`
    may have raised them since the last)."""

    street: Street
    community: tuple[str, ...]
    pots: tuple[int, ...]
    pot_total: int | None
    button: str | None
    to_call: int
    raise_to: int | None
    small_blind: int
    big_blind: int
    small_bet: int
    big_bet: int
    game_id: int | None
    hand: int | None = None
    max_raise_to: int | None = None
    limit: str = "fixed"
    ante: int = 0


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
    hole: tuple[str, ...] = ()    # hole cards of the running or last hand dealt in
    key: str = field(init=False)

    def __post_init__(self) -> None:
        self.key = self.handle.lower()


@dataclass
class _Hand:
    id: int
    seal: fairness.Seal
    deck: list[str]                 # undealt cards (GV notation), the top card last
    state: State
    order: list[int]                # seat of pokerkit player 0, 1, ... (button last)
    players: list[str]              # their handles
    seats: list[_Seat]              # their seats as dealt (a seat left and taken again by
                                    # the same handle in the hand is another object)
    button: int
    rules: HoldemRules              # the stakes it was dealt with
    number: int = 0                 # the hand's number at this table (1, 2, ...)
    operations: list[Operation] = field(default_factory=list)
    seen: int = 0                   # pokerkit operations already turned into events
    early_shows: list[tuple[int, tuple[str, ...]]] = field(default_factory=list)
                                    # (player, cards) shown before the board was out
    moved: int = 0                  # pokerkit operations already paid in the wallet
    paid: list[int] = field(default_factory=list)       # blinds and bets the wallet moved
    round_bets: list[int] = field(default_factory=list)  # of which this betting round's
    collected: list[int] = field(default_factory=list)  # bets that went into the pots
    returned: list[int] = field(default_factory=list)   # uncalled bets told back so far
    turn_since: float = 0.0

    def unsettled(self, p: int) -> int:
        """What player ``p`` paid in (CUBES) that is neither in a pot nor given back yet:
        their bets of the betting round in play."""
        return max(0, self.paid[p] - self.collected[p] - self.returned[p])

    def all_in(self, p: int) -> bool:
        """Player ``p`` has no chips left behind and is still in the hand."""
        return self.state.stacks[p] == 0 and bool(self.state.statuses[p])

    def share(self, p: int) -> int:
        """What player ``p`` took from the pots (CUBES; once the hand is over): their
        stack now, less what they came with, plus what they paid in, less what came
        back uncalled."""
        st = self.state
        return st.stacks[p] - st.starting_stacks[p] + self.paid[p] - self.returned[p]


class Holdem(SeatedTable):
    """One Texas Hold'em table (fixed, pot or no limit as ``rules.limit`` says); implements
    :class:`bbspoker.rules.base.GameRules`.
    Not thread-safe: one owner applies actions in order.

    ``wallet``: a :class:`~bbspoker.rules.money.StackWallet` bound to this table; ``rules``
    the numbers; ``rng`` draws the seeds of each hand's fair deck (``None``: the OS's
    random source; a seeded ``random.Random`` in tests); ``phrases(handles)`` the players'
    client seed phrases (see :class:`~bbspoker.rules.draw40.game.Draw40`); ``deck(seal,
    game_id)`` the deck of a hand, top card first (default: the published shuffle; tests
    of the rules stack decks with it).
    """

    kind = "holdem"
    table_stakes = True

    def __init__(self, wallet: StackWallet, rules: HoldemRules | None = None,
                 rng: random.Random | None = None,
                 phrases: Callable[[Sequence[str]], Mapping[str, str | None]] | None = None,
                 deck: Callable[[fairness.Seal, int], list[str]] | None = None) -> None:
        self.wallet = wallet
        self.rules = rules or HoldemRules()
        #: ``deck(seal, game_id)``: the hand's deck, top card first (GV notation); the
        #: published shuffle, or a stacked deck in tests of the rules.
        self._deck = deck or (lambda seal, game_id: seal.deck(DECK, game_id))
        self._entropy: Callable[[int], bytes] = (rng.randbytes if rng is not None
                                                 else secrets.token_bytes)
        self._phrases = phrases
        self._publish_first()
        self._seats: list[_Seat | None] = [None] * self.rules.seats
        self._button: int | None = None
        self._hand: _Hand | None = None
        self._next_hand_at: float | None = None
        self._operations: tuple[Operation, ...] | list[Operation] = ()
        self._payouts: dict[str, int] = {}
        self._board: tuple[str, ...] = ()
        self._dealing = True
        self._hands_dealt = 0          # hands dealt at this table: the next one's number - 1

    # ------------------------------------------------------------------ queries

    @property
    def hand_rules(self) -> HoldemRules:
        """The rules of the running hand (the stakes it was dealt with), else :attr:`rules`
        (those the next hand will be dealt with)."""
        return self._hand.rules if self._hand is not None else self.rules

    def set_stakes(self, small_bet: int, ante: int) -> None:
        """The stakes of every hand dealt from now on (a tournament's next level): the big
        blind ``small_bet`` (chips, even: the small blind is half of it; at fixed limit
        also the small bet, the big bet twice it) and the ``ante`` each player dealt in
        posts (chips; 0: none). The running hand keeps the stakes it was dealt with (its
        bets, view and record). Raises ``ValueError``, changing nothing, for stakes
        :class:`HoldemRules` refuses (:meth:`HoldemRules.with_stakes`)."""
        self.rules = self.rules.with_stakes(small_bet, ante)

    @property
    def street(self) -> Street:
        """The betting round of the running hand, or ``IDLE``."""
        h = self._hand
        if h is None:
            return Street.IDLE
        return _STREETS[min(h.state.street_index or 0, 3)]

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
    def button(self) -> str | None:
        """The handle at the dealer button (of the running or last hand)."""
        return self._handle(self._button)

    @property
    def current(self) -> str | None:
        """The handle in turn, or ``None``."""
        h = self._hand
        if h is None or h.state.actor_index is None:
            return None
        return h.players[h.state.actor_index]

    @property
    def community(self) -> tuple[str, ...]:
        """The community cards dealt so far (GV notation; of the last hand while idle)."""
        h = self._hand
        if h is None:
            return self._board
        return tuple(from_standard(repr(c)) for cards in h.state.board_cards for c in cards)

    @property
    def pots(self) -> list[int]:
        """The running hand's pots (CUBES), main pot first: bets of finished betting rounds;
        the current round's bets are in :meth:`seats`."""
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

    def stack(self, handle: str) -> int:
        """``handle``'s stack (CUBES at the table not in play); raises ``RuleError``
        ``not_seated``."""
        i = self._find(handle)
        p = self._player(i)
        if p is not None:
            return self._hand.state.stacks[p]  # type: ignore[union-attr]
        return self._seats[i].stack  # type: ignore[union-attr]

    def seats(self) -> list[HoldemSeat]:
        """Every occupied seat as the table shows it, in seat order."""
        h = self._hand
        out = []
        for i, s in enumerate(self._seats):
            if s is None:
                continue
            bet, in_hand, all_in, blind = 0, False, False, None
            stack = s.stack
            p = self._player(i)
            if h is not None and p is not None:
                st = h.state
                stack, bet = st.stacks[p], st.bets[p]
                in_hand = st.statuses[p]
                all_in = in_hand and stack == 0
                blind = self._blind_of(p, len(h.order))
            out.append(HoldemSeat(i, s.handle, stack, bet, in_hand, all_in, s.out,
                                  i == self._button, blind, s.handle == self.current, s.shown,
                                  p is not None))
        return out

    def hole_cards(self, handle: str) -> tuple[str, ...]:
        """``handle``'s two hole cards in the running hand (GV notation), or ``()``."""
        i = self._index(handle)
        p = None if i is None else self._player(i)
        if p is None:
            return ()
        return tuple(from_standard(repr(c)) for c in self._hand.state.hole_cards[p])  # type: ignore[union-attr]

    def to_call(self, handle: str) -> int:
        """CUBES ``handle`` would put in to check (0) or call now; 0 if not in turn."""
        h = self._hand
        if h is None or self.current is None or self.current.lower() != handle.lower():
            return 0
        return h.state.checking_or_calling_amount or 0

    def raise_to(self, handle: str) -> int | None:
        """The smallest total this round's bet of ``handle`` may reach with a bet or raise
        now (at fixed limit the only one; an all-in for less when the stack is short), or
        ``None`` if they may not bet or raise (capped or not reopened, not in turn, no
        chips)."""
        h = self._hand
        if h is None or self.current is None or self.current.lower() != handle.lower():
            return None
        if not h.state.can_complete_bet_or_raise_to():
            return None
        return h.state.min_completion_betting_or_raising_to_amount

    def max_raise_to(self, handle: str) -> int | None:
        """The largest total this round's bet of ``handle`` may reach with a bet or raise
        now: at no limit their whole stack (an all-in), at pot limit the pot after the
        call plus the call (at most the stack), at fixed limit :meth:`raise_to`; ``None``
        as :meth:`raise_to`."""
        if self.raise_to(handle) is None:
            return None
        return self._hand.state.max_completion_betting_or_raising_to_amount  # type: ignore[union-attr]

    @property
    def pot(self) -> int | None:
        """All CUBES in play in the running hand (:attr:`pot_total`), or ``None``."""
        return self.pot_total

    def all_actions(self) -> dict[str, tuple[type[act.Action], ...]]:
        """``{handle: legal action types}`` of every seated player now."""
        return {h: self.legal_actions(h, 0.0) for h in self.handles}

    def hands(self) -> dict[str, tuple[str, ...]]:
        """``{handle: hole cards}`` of every seated player: the two cards dealt in the
        running hand, else in the last hand until the next is dealt (as the board of the
        last hand stays); ``()`` for one not dealt in (they sat down since, or sit out).
        Every seated player is named, so a screen is told when its cards are gone."""
        return {s.handle: s.hole for s in self._seats if s is not None}

    def view(self, balances: Mapping[str, int] | None = None) -> HoldemTable:
        """The kind's public view for the table's snapshot: :meth:`board` (``balances``:
        unused, the stacks are the table's)."""
        return self.board()

    def board(self) -> HoldemTable:
        """The public table beyond the seats (:class:`HoldemTable`), for the screens: the
        stakes of the running hand, else of the next (:attr:`hand_rules`)."""
        current = self.current
        r = self.hand_rules
        return HoldemTable(self.street, self.community, tuple(self.pots), self.pot_total,
                           self.button, self.to_call(current) if current else 0,
                           self.raise_to(current) if current else None,
                           r.small_blind, r.big_blind, r.small_bet, r.big_bet,
                           self._hand.id if self._hand else None,
                           self._hand.number if self._hand else None,
                           self.max_raise_to(current) if current else None,
                           r.limit, r.ante)

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
        """Deal no new hand (the server is shutting down: the hand in play, if any, may
        still finish). Hands are dealt by the clock, so a game-master's refused start, as
        at the other kinds' tables, would not stop them."""
        self._dealing = False

    def legal_actions(self, handle: str, now: float) -> tuple[type[act.Action], ...]:
        """The action types ``handle`` may use now, in command-area order: ``Pass`` (fold),
        ``CheckCall``, ``BetRaise`` in turn; ``SitOut`` while seated; empty if not seated,
        and at a tournament table for a player with no chips left (out of the tournament
        unless it gives them more: only the director's :meth:`remove` is left)."""
        i = self._index(handle)
        if i is None:
            return ()
        if self.rules.tournament and self._player(i) is None and \
                self._seats[i].stack == 0:  # type: ignore[union-attr]
            return ()
        out: list[type[act.Action]] = []
        if self.current is not None and self.current.lower() == handle.lower():
            st = self._hand.state  # type: ignore[union-attr]
            if st.checking_or_calling_amount and st.can_fold():
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
            case act.Sit(buy_in=buy_in):
                if self._index(handle) is not None:
                    raise RuleError("already_seated")
                if self.is_full:
                    raise RuleError("table_full", seats=self.rules.seats)
                if self.rules.tournament and buy_in is not None:
                    raise RuleError("tournament_seat")    # every chip comes: no amount
                self._check_buy_in(buy_in)
            case act.Cancel():
                if self._hand is None:
                    raise RuleError("no_game")
            case act.Leave(reason=reason):
                self._find(handle)
                if self.rules.tournament and reason not in AWAY_REASONS:
                    raise RuleError("tournament_seat")    # the director moves players
            case act.SitOut():
                self._find(handle)
            case act.Pass() | act.CheckCall() | act.BetRaise():
                self._find(handle)
                h = self._in_turn(handle)
                if isinstance(action, act.BetRaise):
                    self._check_raise(h, action.to)
                if isinstance(action, act.Pass) and not h.state.checking_or_calling_amount:
                    # Checking costs nothing: a fold then could leave a side pot nobody
                    # can win (pokerkit cannot end such a hand), and no player loses by
                    # checking.
                    raise RuleError("check_free")
            case _:
                self._find(handle)
                raise RuleError("unknown_action")

    def _check_raise(self, h: _Hand, to: object) -> None:
        """Raise ``RuleError`` unless the player in turn may bet or raise to ``to`` (chips;
        ``None``: the smallest): ``fixed_limit`` for an amount at fixed limit, ``capped``
        (fixed limit) or ``raise_closed`` (pot and no limit: everyone else is all in, or an
        all-in for less than a raise did not reopen the betting) when no bet or raise is
        allowed, ``raise_not_number`` for an amount that is not a whole number,
        ``raise_too_small`` (``low``) or ``raise_too_large`` (``high``) outside the range."""
        st = h.state
        if self.rules.fixed and to is not None:
            raise RuleError("fixed_limit")
        if not st.can_complete_bet_or_raise_to():
            raise RuleError("capped" if self.rules.fixed else "raise_closed")
        if to is None:
            return
        if isinstance(to, bool) or not isinstance(to, int):
            raise RuleError("raise_not_number")
        low = st.min_completion_betting_or_raising_to_amount
        high = st.max_completion_betting_or_raising_to_amount
        assert low is not None and high is not None
        if to < low:
            raise RuleError("raise_too_small", low=low)
        if to > high:
            raise RuleError("raise_too_large", high=high)

    def _in_turn(self, handle: str) -> _Hand:
        """The running hand, with ``handle`` in turn; raises ``RuleError`` ``no_game`` or
        ``not_your_turn``."""
        h = self._hand
        if h is None:
            raise RuleError("no_game")
        if self.current is None or self.current.lower() != handle.lower():
            raise RuleError("not_your_turn", current=self.current)
        return h

    def apply(self, handle: str, action: act.Action, now: float) -> list[Event]:
        """Verify and apply ``action`` for ``handle`` at ``now``; the events, in order.
        Raises :class:`RuleError` (nothing changed), or what the wallet raises."""
        self.verify(handle, action, now)
        match action:
            case act.Sit(buy_in=buy_in, out=out):
                return self._sit(handle, buy_in, now, out)
            case act.Leave(reason=reason) if self.rules.tournament:
                return self._sit_out(handle, True, now)      # away: blinded, not removed
            case act.Leave(reason=reason):
                return self._leave(handle, now, reason)
            case act.SitOut(out=out):
                return self._sit_out(handle, out, now)
            case act.Cancel(reason=reason, note=note):
                return self.cancel(now, reason, note)
            case act.BetRaise(to=to):
                return self._act(handle, act.BetRaise, now, timeout=False, to=to)
            case _:
                return self._act(handle, type(action), now, timeout=False)

    def tick(self, now: float) -> list[Event]:
        """Apply what is due by ``now``, each at its own deadline: a turn that timed out
        (fold, or check when checking is free), then the next hand."""
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
                if self._hand is None:     # could not deal: try again later
                    self._next_hand_at = due + self.rules.between_hands
                    return ev
                continue
            actor = h.players[h.state.actor_index]  # type: ignore[index]
            ev += self._act(actor, self._give_up(h), due, timeout=True)

    def cancel(self, now: float, reason: str, note: str | None = None) -> list[Event]:
        """Call the running hand off (shutdown): every blind and bet goes back to the stack
        it came from. Raises ``RuleError`` ``no_game``."""
        if self._hand is None:
            raise RuleError("no_game")
        return self.call_off(now, reason, (self._hand.id,), note)

    def call_off(self, now: float, reason: str, game_ids: Collection[int],
                 note: str | None = None) -> list[Event]:
        """Call hands ``game_ids`` off without a winner (shutdown, a failed commit): the
        running hand, if among them, ends at once and its seed is revealed; then the
        wallet refunds their blinds and bets to the stacks. See ``Draw40.call_off``: if
        the wallet cannot write a refund it raises
        :class:`~bbspoker.rules.seating.RefundFailed`, and the hand is over all the same
        (nobody plays on in a hand the wallet will close when the refund is written);
        every stack not in a hand is then taken from the wallet again."""
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
        self.resync()      # the refunds went to stacks (a failed commit undid some moves)
        seated = {x.key for x in self._seats if x is not None}
        for handle in refunds:                 # refunded to a stack its owner had left
            if handle.lower() not in seated:
                self.wallet.cash_out(handle)
        return ev

    def resync(self) -> None:
        """Take every stack not in a running hand from the wallet again: after a hand was
        called off (its bets went back to the stacks) or the store could not commit a
        buy-in or cash-out (the table's idea of a stack then differs from the store's)."""
        for i, s in enumerate(self._seats):
            if s is not None and self._player(i) is None:
                s.stack = self.wallet.stack(s.handle)

    # ------------------------------------------------------------------ seating

    def _check_buy_in(self, amount: int | None) -> None:
        r = self.rules
        if amount is not None and (isinstance(amount, bool) or not isinstance(amount, int)
                                   or amount != 0 and not r.buy_in_min <= amount <= r.buy_in_max):  # type: ignore[operator]
            raise RuleError("buy_in_range", low=r.buy_in_min, high=r.buy_in_max)

    def _sit(self, handle: str, amount: int | None, now: float, out: bool = False
             ) -> list[Event]:
        """Seat ``handle`` at the first free seat with a stack of ``amount`` CUBES bought in
        (``None``: ``buy_in_max``, or all they have if less), sitting out if ``out``.
        Raises ``RuleError`` ``buy_in_short`` if their CUBES do not reach ``buy_in_min``.
        ``amount`` 0: they sit with the stack they already have at this table (kept when
        the table moved to another worker and its game was called off), no CUBES moved;
        ``buy_in_short`` if they have none.
        At a tournament table the stack is every chip of their balance, whatever the
        buy-in range (a short stack moved from another table sits with what it has);
        ``RuleError`` ``no_tournament_chips`` if they have none (or are not in the
        tournament: no account in its wallet)."""
        r = self.rules
        balance = (self.wallet.balances_of([handle]).get(handle, 0) if r.tournament
                   else self.wallet.balance(handle))     # not in the tournament: no chips
        if r.tournament:
            if balance <= 0:
                raise RuleError("no_tournament_chips")
            amount = balance
        elif amount is None:
            amount = min(r.buy_in_max, balance)
        kept = self.wallet.stack(handle) if amount == 0 and not r.tournament else 0
        if kept > 0:
            stack = kept
        else:
            if not r.tournament and (amount > balance
                                     or amount < r.buy_in_min):  # type: ignore[operator]
                raise RuleError("buy_in_short", low=r.buy_in_min, cubes=balance)
            try:
                stack = self.wallet.buy_in(handle, amount)
            except InsufficientCubes:
                raise RuleError("buy_in_short", low=r.buy_in_min, cubes=balance) from None
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
        the ``left`` event). In a hand they are still in, they fold at once if in turn, else
        when their turn comes (their bets stay in the pot); one who is all-in plays the hand
        out. Either way the seat is freed and the stack cashed out when the hand ends
        (``leaving`` until then)."""
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
        """The tournament director stands ``handle`` up (a player moved to another table,
        or out of the tournament): their stack goes back to the wallet's balance at once,
        the ``left`` event says how much (``cash_out``, chips) with ``reason``. Allowed
        between hands and while they are not in the running hand (not dealt in, or
        folded: their bets stay in the pot). Raises ``RuleError`` ``not_seated``, or
        ``in_hand`` while they are still in it (nothing changed)."""
        i = self._find(handle)
        h, p = self._hand, self._player(i)
        if h is not None and p is not None and h.state.statuses[p]:
            raise RuleError("in_hand")
        return self._stand_up(i, reason)

    @staticmethod
    def _give_up(h: _Hand) -> type[act.Action]:
        """What a player who does not act plays (a time-out, one who left, one away from
        a tournament table): a check when checking is free, else a fold."""
        return act.CheckCall if not h.state.checking_or_calling_amount else act.Pass

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
        """``handle`` sits out (``out``) or comes back. At a cash table one sitting out is
        dealt no cards; at a tournament table they are still dealt in and give their
        turns up at once (a check when free, else a fold), this one too if it is theirs
        now. Raises ``RuleError`` ``no_chips`` (``no_tournament_chips``) for one with no
        chips coming back."""
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
        one is due already. A deal time already past is stale (the table's clock deals
        every hand that falls due, so one past due had fewer than two players to deal
        to, say the first player waiting alone): it is set anew, else the hand would be
        dealt as of that time, its first turn's clock started in the past."""
        if self._hand is None and (self._next_hand_at is None or self._next_hand_at <= now):
            self._next_hand_at = now + self.rules.between_hands

    @staticmethod
    def _blind_of(p: int, n: int) -> str | None:
        """pokerkit player ``p`` of ``n``: heads-up player 1 (the button) posts the small
        blind and player 0 the big one; otherwise players 0 and 1."""
        if n == 2:
            return "small" if p == 1 else "big"
        return {0: "small", 1: "big"}.get(p)

    def _start_hand(self, now: float) -> list[Event]:
        """Deal a hand to the eligible seats (none with fewer than two): the button moves
        on, the blinds are posted, two hole cards each from the deck sealed with the
        server seed whose commitment the table published before
        (:attr:`next_commitment`); the next hand's seed is drawn and published in the
        same transaction."""
        eligible = self._eligible()
        self._next_hand_at = None
        if len(eligible) < 2:
            return []
        prev = self._button
        button = next((i for i in eligible if prev is None or i > prev), eligible[0])
        at = eligible.index(button)
        order = eligible[at + 1:] + eligible[:at + 1]        # after the button ... button
        players = [self._seats[i].handle for i in order]     # type: ignore[union-attr]
        seat_order = [self._seats[i].handle for i in eligible]   # type: ignore[union-attr]
        stacks = [self._seats[i].stack for i in order]       # type: ignore[union-attr]
        seal = self._new_seal(seat_order)
        rules = self.rules
        with self.wallet.transaction(durable=False):
            gid = self.wallet.open_game(seat_order, seal)
            upcoming = self._publish_next()
            state = rules.game()(stacks, len(order))
            zeros = [0] * len(order)
            h = _Hand(gid, seal, self._deck(seal, gid)[::-1], state, order, players,
                      [self._seats[i] for i in order], button,  # type: ignore[misc]
                      rules, number=self._hands_dealt + 1, paid=list(zeros),
                      round_bets=list(zeros), collected=list(zeros), returned=list(zeros))
            # The antes and their collection into the pot first (the collection reads
            # what the wallet took), then the blinds.
            blinds = next((k for k, op in enumerate(state.operations)
                           if isinstance(op, pk.BlindOrStraddlePosting)),
                          len(state.operations))
            self._move_chips(h, "ante", stop=blinds)
            antes = self._events(h)
            self._move_chips(h, "blind")
        self._hands_dealt = h.number
        self._next = upcoming
        self._button = button
        self._hand = h
        for s in self._seats:
            if s is not None:
                s.shown = None
                s.hole = ()
                s.turns = s.timeouts = 0
        self._board = ()
        ev = [Event("hand", None, {
            "game_id": gid, "hand": h.number,
            "button": self._seats[button].handle,   # type: ignore[union-attr]
            "small_blind": rules.small_blind, "big_blind": rules.big_blind,
            "ante": rules.ante, "players": players}),
            Event("sealed", None, {"game_id": gid, "commitment": seal.commitment,
                                   "client_seeds": [list(p) for p in
                                                    zip(seat_order, seal.client_seeds)]})]
        ev += antes
        for p, handle in enumerate(players):
            blind = self._blind_of(p, len(players))
            if blind and h.state.bets[p]:
                h.operations.append(Operation("blind", handle, {"blind": blind,
                                                                "amount": h.state.bets[p]}))
                ev.append(Event("blind", handle, {"blind": blind, "amount": h.state.bets[p]}))
        # Two rounds of one card each, from the seat after the button (pokerkit's order).
        dealt: list[list[str]] = [[] for _ in players]
        for _ in range(2):
            for p in range(len(players)):
                card = h.deck.pop()
                state.deal_hole(to_standard(card))
                dealt[p].append(card)
        for seat, handle, cards in zip(h.seats, players, dealt):
            seat.hole = tuple(cards)
            h.operations.append(Operation("deal", handle, {"cards": " ".join(cards)}))
            ev.append(Event("hole", handle, {"cards": tuple(cards)}, to=handle))
        ev += self._after(now)
        return ev

    def _move_chips(self, h: _Hand, reason: str, stop: int | None = None) -> None:
        """Mirror in the wallet what pokerkit's operations since the last call (up to
        operation ``stop``, else all) put in: each ante (journal ``ante``), blind, call,
        bet and raise (journal ``reason``) goes from its stack into the hand's pot. Read
        from the operations, not from the stacks: an action that ends the hand has
        pokerkit pay the pots out in the same call, and the stacks then show the payout,
        not the bet."""
        ops = h.state.operations[h.moved:stop]
        h.moved += len(ops)
        for op in ops:
            why = reason
            if isinstance(op, pk.AntePosting):
                p, paid, why = op.player_index, op.amount, "ante"
            elif isinstance(op, (pk.BlindOrStraddlePosting, pk.CheckingOrCalling)):
                p, paid = op.player_index, op.amount
            elif isinstance(op, pk.CompletionBettingOrRaisingTo):
                p = op.player_index
                paid = op.amount - h.round_bets[p]    # a bet or raise *to* op.amount
            elif isinstance(op, pk.BetCollection):
                h.round_bets = [0] * len(h.players)
                continue
            else:
                continue
            if paid > 0:
                h.round_bets[p] += paid
                h.paid[p] += paid
                self.wallet.stack_into_pot(h.id, h.players[p], paid, why)

    def _act(self, handle: str, kind: type[act.Action], now: float, *,
             timeout: bool, to: int | None = None) -> list[Event]:
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
            elif kind is act.CheckCall:
                st.check_or_call()
            else:
                st.complete_bet_or_raise_to(to)
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
        ``street``: the betting round the action was taken in (pokerkit may have moved on
        to the next by now)."""
        ev: list[Event] = []
        ops = h.state.operations[h.seen:]
        h.seen += len(ops)
        street = street or self.street.value
        for op in ops:
            name = h.players[op.player_index] if hasattr(op, "player_index") else None
            if h.early_shows and isinstance(op, (pk.HandKilling, pk.ChipsPushing,
                                                 pk.ChipsPulling)):
                ev += self._show(h)          # the board is out: the hands shown early
            if isinstance(op, pk.AntePosting):
                h.operations.append(Operation("ante", name, {"amount": op.amount}))
                ev.append(Event("ante", name, {"amount": op.amount}))
            elif isinstance(op, pk.Folding):
                data: dict[str, Any] = {"street": street}
                if timeout:
                    data["timeout"] = True
                h.operations.append(Operation("fold", name, data))
                ev.append(Event("fold", name, data))
            elif isinstance(op, pk.CheckingOrCalling):
                verb = "call" if op.amount else "check"
                data = {"street": street, "amount": op.amount}
                if timeout:
                    data["timeout"] = True
                h.operations.append(Operation(verb, name, data))
                ev.append(Event(verb, name, data))
            elif isinstance(op, pk.CompletionBettingOrRaisingTo):
                verb = self._bet_or_raise(h)
                data = {"street": street, "to": op.amount}
                if h.all_in(op.player_index):
                    data["all_in"] = True
                h.operations.append(Operation(verb, name, data))
                ev.append(Event(verb, name, data))
            elif isinstance(op, pk.HoleCardsShowingOrMucking):
                if op.hole_cards:
                    cards = tuple(from_standard(repr(c)) for c in op.hole_cards)
                    seat = self._seats[h.order[op.player_index]]
                    if seat is not None and seat.handle == name:
                        seat.shown = cards
                    if self._made_hand(h, op.player_index, cards):
                        ev += self._show(h, op.player_index, cards)
                    else:          # all-in before the river: said once the board is out
                        h.early_shows.append((op.player_index, cards))
                else:
                    h.operations.append(Operation("muck", name))
                    ev.append(Event("muck", name))
            elif isinstance(op, pk.BetCollection):
                ev += self._collect(h)
            elif isinstance(op, pk.ChipsPulling):
                p = op.player_index
                # What the pots paid this player (pokerkit's pull also holds, when the
                # others folded, the bets of the last round: said apart at the collection).
                won = h.share(p)
                if won <= 0:
                    continue
                data = {"amount": won, "pot": sum(h.collected)}
                if h.state.hole_cards[p] and any(
                        o.kind == "show" and o.handle == name for o in h.operations):
                    data |= self._made_hand(h, p)
                h.operations.append(Operation("won", name, data))
                ev.append(Event("won", name, data))
        return ev

    def _show(self, h: _Hand, p: int | None = None, cards: tuple[str, ...] = ()
              ) -> list[Event]:
        """Player ``p`` shows ``cards``, with the hand they make (the board is out); first
        the hands shown before the board was (all-in: pokerkit turns them up then), in
        the order shown, so that each is named with the board it plays."""
        ev = []
        early, h.early_shows = h.early_shows, []
        for q, held in early + ([(p, cards)] if p is not None else []):
            data = {"cards": " ".join(held), **self._made_hand(h, q, held)}
            h.operations.append(Operation("show", h.players[q], data))
            ev.append(Event("show", h.players[q], {**data, "cards": held}))
        return ev

    @staticmethod
    def _collect(h: _Hand) -> list[Event]:
        """A betting round's bets go into the pot (pokerkit's ``BetCollection``): each
        player's bet up to the second-highest bet of the round is in the pot; what the
        highest bet has above it nobody called, and it goes back to its bettor (a
        ``returned`` event; the ledger journals it as ``return``). The poker convention,
        whether the others folded (pokerkit then keeps the whole bet out of its pot and
        gives it back with the pot) or could not match it all-in (pokerkit gives the excess
        back at once): "p1 raises to 20, both blinds fold" puts 5 + 10 + 10 in the pot and
        returns 10."""
        bets = [h.unsettled(p) for p in range(len(h.players))]   # as the wallet paid them
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
    def _made_hand(h: _Hand, p: int, shown: Sequence[str] = ()) -> dict[str, str]:
        """Player ``p``'s best five cards once the whole board is out (by pokerkit's
        ``StandardHighHand``), from the hole cards ``shown`` (GV notation; default: those
        pokerkit holds, which a losing hand no longer has once pokerkit killed it):
        ``{"hand": label code such as "TWO_PAIR", "best": the five cards}``; ``{}``
        before the river (an all-in shows its cards earlier)."""
        board = [c for cards in h.state.board_cards for c in cards]
        hole: Any = ("".join(map(to_standard, shown)) if shown
                     else h.state.hole_cards[p])
        if len(board) < 5 or len(hole) < 2:
            return {}
        made = StandardHighHand.from_game(hole, board)
        best = sorted((from_standard(repr(c)) for c in made.cards),
                      key=lambda c: STANDARD52.ranks.index(c[:-1]), reverse=True)
        return {"hand": made.entry.label.name, "best": " ".join(best)}

    def _bet_or_raise(self, h: _Hand) -> str:
        """``bet`` for the first bet of a betting round (preflop the big blind is it),
        ``raise`` after it."""
        count = h.state.completion_betting_or_raising_count
        preflop = (h.state.street_index or 0) == 0
        return "raise" if count > 1 or preflop else "bet"

    def _after(self, now: float) -> list[Event]:
        """After an action: deal the board while no one can act, end the hand when it is
        over, else give the turn."""
        h = self._hand
        assert h is not None
        st = h.state
        ev = self._events(h)     # what the action caused (at an all-in: the hands shown)
        while st.status and (st.can_burn_card() or st.can_deal_board()):
            if st.can_burn_card():
                burn = h.deck.pop()
                st.burn_card(to_standard(burn))
            else:
                burn = None
            assert st.street_index is not None   # a board is dealt only in a street
            dealing = _STREETS[st.street_index]    # (an all-in runout moves pokerkit on
            cards = [h.deck.pop() for _ in range(_BOARD_COUNTS[dealing])]   # at once)
            st.deal_board("".join(to_standard(c) for c in cards))
            street = dealing.value
            data: dict[str, Any] = {"street": street, "cards": " ".join(cards)}
            if burn is not None:
                data["burn"] = burn
            h.operations.append(Operation("board", None, data))
            ev.append(Event("board", None, {"street": street, "cards": tuple(cards),
                                            "board": self.community}))
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
                                             "to_call": st.checking_or_calling_amount,
                                             "raise_to": self.raise_to(handle),
                                             "max_raise_to": self.max_raise_to(handle)}))
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
        history = {**self._history(h), "board": " ".join(self.community),
                   "stacks": {handle: st.stacks[p] for p, handle in enumerate(h.players)},
                   "winners": shares, "phh": self.phh(h)}
        with self.wallet.transaction(durable=False):
            self.wallet.pot_to_stacks(h.id, shares, returns)
            winner = max(shares, key=shares.__getitem__) if shares else None
            self.wallet.close_game(h.id, winner, history)
        self._board = self.community
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
        for i, s in enumerate(self._seats):     # no chips left: sits out until a rebuy
            if s is not None and s.stack == 0 and not s.out:
                s.out = True
                ev.append(Event("busted", s.handle))
        return ev

    def _history(self, h: _Hand) -> dict[str, Any]:
        r = h.rules
        return {"game": self.kind, "hand": h.number, "players": h.players,
                "button": h.players[-1],
                "blinds": [r.small_blind, r.big_blind], "ante": r.ante,
                "limit": r.limit,
                **({"bets": [r.small_bet, r.big_bet]} if r.fixed
                   else {"min_bet": r.big_blind}),
                "starting_stacks": {handle: stack for handle, stack in
                                    zip(h.players, self._starting_stacks(h))},
                "commitment": h.seal.commitment,
                "operations": [op.as_dict() for op in h.operations]}

    def phh(self, h: _Hand) -> str:
        """Hand ``h`` in the Poker Hand History format (PHH, pokerkit's
        ``HandHistory.dumps``; :class:`HoldemHandHistory` reads every variant back): variant
        ``FT``, ``PT`` or ``NT`` by the limit, antes (trimmed to a short stack), blinds,
        bets (``min_bet`` at pot and no limit), starting stacks, every action and card
        dealt, players in pokerkit's order, the hand number our game id."""
        hh = HoldemHandHistory.from_game_state(h.rules.game(), h.state,
                                               ante_trimming_status=True)
        hh.players = list(h.players)
        hh.hand = h.id
        return hh.dumps()

    @staticmethod
    def _starting_stacks(h: _Hand) -> list[int]:
        return list(h.state.starting_stacks)

    @staticmethod
    def _seed_event(h: _Hand) -> Event:
        return Event("seed", None, {"game_id": h.id, "server_seed": h.seal.server_seed.hex(),
                                    "commitment": h.seal.commitment})

    # ------------------------------------------------------------------ helpers

    def _player(self, i: int) -> int | None:
        """The running hand's pokerkit index of whoever sits at seat ``i`` now, or ``None``
        (no hand, not dealt in, or the seat changed hands during it)."""
        h = self._hand
        s = self._seats[i]
        if h is None or s is None or i not in h.order:
            return None
        p = h.order.index(i)
        return p if h.seats[p] is s else None

