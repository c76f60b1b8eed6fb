"""The authoritative five-seat PoKeR table: a pure, synchronous state machine.

Commands go in (:meth:`Table.sit`, :meth:`Table.leave`, :meth:`Table.start`,
:meth:`Table.bet`, :meth:`Table.pass_`, :meth:`Table.discard`,
:meth:`Table.reveal`, :meth:`Table.tick`), each with the current time in
seconds (any monotonic scale) as ``now``; each returns the list of
:class:`Event` s that the players must be told. A command that the rules do
not allow raises :class:`TableError` with a message fit to show the player,
and changes nothing. CUBES move only through the injected
:class:`~bbspoker.store.wallet.Wallet`; the table never holds money that is not in
the pot.

The rules are chapter 2 of the Global Village BBS PoKeR guide as decided in
``docs/rules.md``; every number is a field of :class:`TableRules`.
"""

from __future__ import annotations

import contextlib
import hashlib
import random
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Collection, Iterable, Mapping

from bbspoker.rules.cards import Card, format_cards, shuffled_deck, sort_hand
from bbspoker.rules.draw40.hands import evaluate
from bbspoker.rules.money import InsufficientCubes, Wallet

__all__ = ["TableRules", "TableError", "Event", "Phase", "Action", "SeatView", "Table"]


@dataclass(frozen=True)
class TableRules:
    """The numbers of the game (chapter 2 defaults). Money in CUBES, times in seconds."""

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

    def __post_init__(self) -> None:
        if not 2 <= self.seats <= 8:
            raise ValueError("seats must be between 2 and 8")
        if self.ante < 1 or self.min_bet < 1 or self.max_bet < self.min_bet:
            raise ValueError("need ante >= 1 and 1 <= min_bet <= max_bet")
        if not 0 <= self.max_discard <= 3:
            raise ValueError("max_discard must be 0..3 (5 x 5 + 5 x 3 = 40 cards)")
        if self.max_round < 3:
            raise ValueError("max_round must be at least 3")


class TableError(Exception):
    """A command the rules do not allow now; ``str(err)`` is the message for the player."""


class Phase(Enum):
    """What the table is doing: no game, a betting round, the discarding interval, the showdown."""

    IDLE = "idle"
    BETTING = "betting"
    DISCARDING = "discarding"
    SHOWDOWN = "showdown"


class Action(Enum):
    """Game commands a seated player may have available (the command area of chapter 2.4)."""

    START = "S"
    BET = "B"
    PASS = "P"
    DISCARD = "D"
    SEE_HANDS = "H"
    REVEAL = "R"


@dataclass(frozen=True, slots=True)
class Event:
    """Something the players must be told.

    ``kind`` names it (``sat``, ``left``, ``master``, ``started``, ``ante``,
    ``inactive``, ``turn``, ``bet``, ``pass``, ``discard``, ``round``,
    ``showdown``, ``reveal``, ``won``, ``pot_to_system``, ``removed``,
    ``cards``); ``text`` is the sentence for the message area (may be empty);
    ``to`` is ``None`` for everyone at the table, or the one handle that may see
    it (private cards); ``tag`` is ``"SYSTEM"`` or ``"INFO"``; ``data`` carries
    the figures (``handle``, ``amount``, ``pot``, ``cards`` ...).
    """

    kind: str
    text: str
    to: str | None = None
    tag: str = "SYSTEM"
    data: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class SeatView:
    """What everyone can see of one occupied seat."""

    seat: int
    handle: str
    active: bool
    revealed: tuple[Card, ...] | None
    is_master: bool
    is_current: bool


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
    key: str = field(init=False)  # the handle in lower case, to find it without regard to case
    view: SeatView | None = None  # the last view made of this seat, see Table.seats

    def __post_init__(self) -> None:
        self.key = self.handle.lower()


@dataclass
class _Game:
    id: int
    deck: list[Card]
    deck_hash: str
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
    actions: list[str] = field(default_factory=list)


class Table:
    """One PoKeR table (chapter 2). Not thread-safe: one owner applies commands in order.

    ``wallet`` moves CUBES (see :mod:`bbspoker.store.wallet`); ``rng`` shuffles
    (``None`` = ``secrets.SystemRandom``, pass a seeded ``random.Random`` in
    tests); ``rules`` holds the numbers.
    """

    def __init__(self, wallet: Wallet, rules: TableRules | None = None,
                 rng: random.Random | None = None) -> None:
        self.wallet = wallet
        self.rules = rules or TableRules()
        self._rng = rng
        self._seats: list[_Seat | None] = [None] * self.rules.seats
        self._master: int | None = None
        self._master_since = 0.0
        self._game: _Game | None = None
        self._last_game_end: float | None = None
        self._turn_since = 0.0

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
    def round_label(self) -> str:
        """The game information area's round: ``1``, ``DISCARDING INTERVAL``, ``3``..., ``SHOWDOWN``, ``NO GAME``."""
        g = self._game
        if g is None:
            return "NO GAME"
        if g.phase is Phase.SHOWDOWN:
            return "SHOWDOWN"
        if g.phase is Phase.DISCARDING:
            return "DISCARDING INTERVAL"
        return str(g.round)

    @property
    def master(self) -> str | None:
        """Handle of the game-master, or ``None`` at an empty table."""
        return self._handle(self._master)

    @property
    def current(self) -> str | None:
        """Handle of the player in turn, or ``None`` with no game."""
        g = self._game
        return self._handle(g.queue[0]) if g and g.queue else None

    @property
    def handles(self) -> list[str]:
        """Handles of everyone seated, in seat order."""
        return [s.handle for s in self._seats if s is not None]

    @property
    def is_full(self) -> bool:
        """True when every seat is taken."""
        return all(s is not None for s in self._seats)

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
                     i == cur)
            view = s.view
            if view is None or (view.active, view.revealed, view.is_master,
                                view.is_current) != state:
                view = s.view = SeatView(i, s.handle, *state)
            views.append(view)
        return views

    def cards_of(self, handle: str) -> tuple[Card, ...]:
        """The private hand of ``handle``, sorted highest at the right; empty if not dealt in.
        Raises :class:`TableError` if ``handle`` is not seated."""
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
        the mastership (no game), as a ``now`` value; ``None`` if no clock runs."""
        if self._game is not None:
            return self._turn_since + self.rules.turn_timeout if self._game.queue else None
        if self._master is not None:
            return self._master_since + self.rules.master_timeout
        return None

    def bet_range(self, handle: str, cubes: int | None = None) -> tuple[int, int]:
        """``(minimum, maximum)`` bet for ``handle`` now: minimum = the previous bet of this
        game (``min_bet`` if none), maximum = min(``max_bet``, own CUBES). May be empty.
        ``cubes``: the player's CUBES if the caller has just read them (else the wallet is asked)."""
        low = self._min_bet()
        if cubes is None:
            cubes = self.wallet.balance(handle)
        return low, min(self.rules.max_bet, cubes)

    def actions(self, handle: str, now: float) -> list[Action]:
        """The game commands ``handle`` may use now, in command-area order (chapter 2.4);
        empty if ``handle`` is not seated."""
        i = self._index(handle)
        return [] if i is None else list(self._actions_at(i))

    def all_actions(self) -> dict[str, tuple[Action, ...]]:
        """``{handle: game commands}`` of everyone seated, in seat order, as :meth:`actions`
        gives each (one pass over the seats)."""
        return {s.handle: self._actions_at(i) for i, s in enumerate(self._seats) if s is not None}

    def start_refusal(self, handle: str, now: float) -> str | None:
        """Why ``handle`` may not start a game now (not seated, a game running, not the
        game-master, the pause between games, nobody else seated), or ``None``. Whether
        two players have the ante is checked by :meth:`start` itself, in the wallet
        transaction that charges it."""
        i = self._index(handle)
        if i is None:
            return "You are not sitting at the table."
        if self._game is not None:
            return "A game is already running."
        if i != self._master:
            return f"Only the game-master ({self.master}) may start a game."
        if self._last_game_end is not None:
            wait = self._last_game_end + self.rules.between_games - now
            if wait > 0:
                secs = int(wait) + (wait > int(wait))
                return f"Please wait {secs} more second{'s' if secs != 1 else ''} before the next game."
        if sum(s is not None for s in self._seats) < 2:
            return self._too_few_antes()
        return None

    def _too_few_antes(self) -> str:
        return f"At least two players with {self.rules.ante} CUBES each are needed to start a game."

    # ------------------------------------------------------------------ commands

    def sit(self, handle: str, now: float) -> list[Event]:
        """Seat ``handle`` at the first free seat (chapter 2). During a game the newcomer is
        inactive until the next game. The first to sit becomes game-master.
        Raises :class:`TableError` if the table is full or ``handle`` already sits."""
        if self._index(handle) is not None:
            raise TableError("You are already sitting at the table.")
        free = next((i for i, s in enumerate(self._seats) if s is None), None)
        if free is None:
            raise TableError(f"All {self.rules.seats} seats at the poker table are taken.")
        self._seats[free] = _Seat(handle)
        ev = [Event("sat", f"{handle} has joined the table.", data={"handle": handle})]
        if self._master is None:
            self._set_master(free, now, ev)
        if self._game is not None:
            ev.append(Event("inactive", "A game is running: you may join the next game.", to=handle,
                            tag="INFO"))
        return ev

    def leave(self, handle: str, now: float, reason: str = "has left the table") -> list[Event]:
        """Take ``handle`` off the table at once ([X] or a dropped connection). CUBES already
        bet stay in the pot; turn and mastership move on. Raises :class:`TableError` if not seated."""
        i = self._find(handle)
        ev: list[Event] = [Event("left", f"{handle} {reason}.", data={"handle": handle})]
        self._remove(i, now, ev)
        return ev

    def start(self, handle: str, now: float) -> list[Event]:
        """The game-master opens a game ([S]). Everyone seated with at least the ante pays it
        into the pot and becomes active (the others stay inactive, without further notice
        but for themselves); five cards each; round 1 starts with the master.
        Raises :class:`TableError` with the reason (nobody is charged) if it may not start."""
        refusal = self.start_refusal(handle, now)
        if refusal:
            raise TableError(refusal)
        order = self._order_from(self._master)  # type: ignore[arg-type]
        # One wallet transaction for the game and every ante; a failed ante undoes only
        # itself. The table changes only after the wallet work succeeded.
        paid: set[int] = set()
        ante, handles = self.rules.ante, self.handles
        with self.wallet.transaction(durable=False):
            # Read inside the transaction, which holds the store's write lock: every ante
            # checked here is paid below, and the ledger's look at its caches at the
            # transaction's start serves this read too (issue 6, latency).
            cubes = self.wallet.balances_of(handles)
            if sum(n >= ante for n in cubes.values()) < 2:
                raise TableError(self._too_few_antes())  # the transaction is undone
            deck = shuffled_deck(self._rng)
            deck_hash = hashlib.sha256(format_cards(deck).encode()).hexdigest()
            gid = self.wallet.open_game(handles, deck_hash)
            for i in order:
                handle = self._seats[i].handle  # type: ignore[union-attr]
                # One known to be short is not asked (no refused debit to undo); one the
                # read left out (no account) is, and the wallet says why.
                if cubes.get(handle, ante) >= ante and self._pay(gid, handle, ante, "ante"):
                    paid.add(i)
        g = self._game = _Game(gid, deck, deck_hash, now)
        ev: list[Event] = []
        for i in order:
            s = self._seats[i]
            assert s is not None
            s.active, s.revealed, s.cards, s.bet_this_round = False, False, (), False
            s.turns = s.timeouts = 0
            if i not in paid:
                ev.append(Event("inactive", f"You do not have the {self.rules.ante} CUBES ante: "
                                "you may join the next game.", to=s.handle, tag="INFO"))
                continue
            s.active = True
            g.pot += self.rules.ante
            g.dealt.append(i)
            g.players.append(s.handle)
            s.cards = sort_hand(g.deck.pop() for _ in range(5))
            g.actions.append(f"{s.handle} pays the ante ({self.rules.ante})")
        ev.append(Event("started", f"The game is now STARTED (initial pot is {g.pot}) ...",
                        data={"pot": g.pot, "game_id": gid}))
        for i in g.dealt:
            s = self._seats[i]
            ev.append(Event("cards", "", to=s.handle, data={"cards": s.cards}))  # type: ignore[union-attr]
        if not self._seats[self._master].active:  # type: ignore[index, union-attr]
            self._move_master_to_active(now, ev)
        self._begin_round(now, ev)
        return ev

    def bet(self, handle: str, amount: int, now: float, see_hands: bool = False) -> list[Event]:
        """Bet ``amount`` CUBES ([B]), or ask to see hands with that bet ([H], from round 3).
        The amount leaves the player's CUBES at once into the pot. Equal to the minimum is a
        call, more a raise. Raises :class:`TableError` if it is not ``handle``'s turn to bet,
        the amount is out of range, or [H] is not allowed now."""
        i, g = self._current_turn(handle, Phase.BETTING, "bet")
        if see_hands:
            if g.round < 3:
                raise TableError("You may ask to see hands from round 3 on.")
            if g.see_hands_by is not None:
                raise TableError("Hands have already been asked for.")
        if isinstance(amount, bool) or not isinstance(amount, int):
            raise TableError("A bet is a whole number of CUBES.")
        low = self._min_bet()
        # The wallet's conditional debit is the check of the player's CUBES: the balance
        # is read only to explain a refusal (one read fewer on every bet).
        if not (low <= amount <= self.rules.max_bet and self._pay(g.id, handle, amount, "bet")):
            low, high = self.bet_range(handle)
            if high < low:
                raise TableError(f"You cannot bet: the minimum is {low} but you can bet at most "
                                 f"{high}.") from None
            raise TableError(f"Your bet must be between {low} and {high} CUBES.") from None
        s = self._seats[i]
        assert s is not None
        g.pot += amount
        g.last_bet = amount
        s.bet_this_round = True
        s.turns += 1
        verb = "called the bet" if amount == low else "raised the bet"
        g.actions.append(f"round {g.round}: {handle} {verb} ({amount}){' and asked to see hands' if see_hands else ''}")
        ev = [Event("bet", f"{handle} has {verb} ({amount}), pot is {g.pot}.",
                    data={"handle": handle, "amount": amount, "pot": g.pot,
                          "raised": amount > low})]
        g.queue.pop(0)
        if see_hands:
            g.see_hands_by = i
            g.queue = [j for j in self._order_from(i)[1:] if self._seats[j].active]  # type: ignore[union-attr]
            ev.append(Event("see_hands", f"{handle} wants to see hands: everyone has one more turn.",
                            data={"handle": handle}))
        self._advance(now, ev)
        return ev

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
        Raises :class:`TableError` if it is not ``handle``'s turn in a betting round."""
        i, g = self._current_turn(handle, Phase.BETTING, "pass")
        self._seats[i].turns += 1  # type: ignore[union-attr]
        ev: list[Event] = []
        self._fold(i, now, f"{handle} has passed.", ev)
        return ev

    def discard(self, handle: str, cards: Iterable[Card], now: float) -> list[Event]:
        """Exchange 0..``max_discard`` of one's cards for cards from the undealt pack
        (discarding interval, [1]-[5] then [D]). Raises :class:`TableError` if it is not
        ``handle``'s turn to discard, a card is not in the hand, or too many are given."""
        i, g = self._current_turn(handle, Phase.DISCARDING, "discard")
        s = self._seats[i]
        assert s is not None
        chosen = list(dict.fromkeys(cards))
        if len(chosen) > self.rules.max_discard:
            raise TableError(f"You may discard at most {self.rules.max_discard} cards.")
        if any(c not in s.cards for c in chosen):
            raise TableError("You can only discard cards from your own hand.")
        kept = [c for c in s.cards if c not in chosen]
        s.cards = sort_hand(kept + [g.deck.pop() for _ in chosen])
        s.turns += 1
        n = len(chosen)
        g.actions.append(f"{handle} discards {n}" + (f" ({format_cards(chosen)})" if n else ""))
        ev = [Event("discard", f"{handle} has discarded {self._cards_word(n)}.",
                    data={"handle": handle, "count": n})]
        if n:
            ev.append(Event("cards", "", to=handle, data={"cards": s.cards}))
        g.queue.pop(0)
        self._advance(now, ev)
        return ev

    def reveal(self, handle: str, now: float) -> list[Event]:
        """Show one's cards in the showdown ([R]). Raises :class:`TableError` if it is not
        ``handle``'s turn to reveal."""
        i, g = self._current_turn(handle, Phase.SHOWDOWN, "reveal")
        self._seats[i].turns += 1  # type: ignore[union-attr]
        ev: list[Event] = []
        self._reveal(i, ev)
        g.queue.pop(0)
        self._advance(now, ev)
        return ev

    def cancel(self, now: float, reason: str) -> list[Event]:
        """Call the running game off (the server is stopping and the grace period is over):
        every ante and bet goes back to whoever paid it, through the wallet (see
        :meth:`call_off`). Raises :class:`TableError` if no game runs."""
        if self._game is None:
            raise TableError("No game is running.")
        return self.call_off(now, reason, (self._game.id,))

    def call_off(self, now: float, reason: str, game_ids: Collection[int]) -> list[Event]:
        """Call the games ``game_ids`` (wallet ids) off, without a winner: at shutdown, or
        when the wallet could not commit their last moves
        (:class:`~bbspoker.store.wallet.CommitFailed`). The running game, if among them, ends
        at once: its pot and bets as the table knew them are dropped. Then the wallet
        gives back every ante and bet it holds of each game still open there
        (:meth:`~bbspoker.store.wallet.Wallet.cancel_game`; a game it does not hold as open,
        such as a start that was never committed, took nothing). So no CUBES appear or
        vanish whatever part of a game was lost. Returns the ``cancelled`` event (data
        ``refunds``: ``{handle: CUBES}``). What ``cancel_game`` raises other than
        ``ValueError`` propagates; the game then stays open in the wallet and is
        refunded at the next start."""
        g = self._game
        if g is not None and g.id in game_ids:
            self._game = None
            self._last_game_end = now
            self._master_since = now
        refunds: dict[str, int] = {}
        for gid in sorted(game_ids):
            with contextlib.suppress(ValueError):   # not open in the wallet: nothing held
                for handle, cubes in self.wallet.cancel_game(gid, reason).items():
                    refunds[handle] = refunds.get(handle, 0) + cubes
        return [Event("cancelled", f"The game was called off ({reason}): every ante and bet "
                      "has been given back.", data={"refunds": refunds})]

    def tick(self, now: float) -> list[Event]:
        """Apply every timeout due by ``now`` (in order, each at its own deadline):
        a betting turn times out as a pass, a discarding turn as no exchange, a showdown
        turn as an automatic reveal (the player stays active); with no game, a master who
        has not started one for ``master_timeout`` seconds hands the mastership on."""
        ev: list[Event] = []
        while True:
            due = self.deadline()
            if due is None or now < due:
                return ev
            g = self._game
            if g is None:
                nxt = self._next_seated(self._master)  # type: ignore[arg-type]
                if nxt is not None and nxt != self._master:
                    old = self.master
                    ev.append(Event("master_timeout", f"{old} has not started a game in time.",
                                    data={"handle": old}))
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
                self._fold(i, due, f"{s.handle} did not act within {self._secs(self.rules.turn_timeout)} "
                                   "and is out of the game.", ev)
            elif g.phase is Phase.DISCARDING:
                g.actions.append(f"{s.handle} timed out: no exchange")
                ev.append(Event("discard", f"{s.handle} did not discard in time: no exchange.",
                                data={"handle": s.handle, "count": 0}))
                g.queue.pop(0)
                self._advance(due, ev)
            else:
                self._reveal(i, ev)
                g.queue.pop(0)
                self._advance(due, ev)

    # ------------------------------------------------------------------ internals

    def _handle(self, i: int | None) -> str | None:
        s = self._seats[i] if i is not None else None
        return s.handle if s else None

    def _index(self, handle: str) -> int | None:
        low = handle.lower()
        for i, s in enumerate(self._seats):
            if s is not None and s.key == low:
                return i
        return None

    def _actions_at(self, i: int) -> tuple[Action, ...]:
        """The game commands of the player in seat ``i`` (see :meth:`actions`)."""
        g = self._game
        if g is None:
            return (Action.START,) if i == self._master else ()
        if not g.queue or g.queue[0] != i:
            return ()
        if g.phase is Phase.BETTING:
            if g.round >= 3 and g.see_hands_by is None:
                return (Action.BET, Action.SEE_HANDS, Action.PASS)
            return (Action.BET, Action.PASS)
        if g.phase is Phase.DISCARDING:
            return (Action.DISCARD,)
        return (Action.REVEAL,)

    def _find(self, handle: str) -> int:
        i = self._index(handle)
        if i is None:
            raise TableError("You are not sitting at the table.")
        return i

    def _current_turn(self, handle: str, phase: Phase, verb: str) -> tuple[int, _Game]:
        i = self._find(handle)
        g = self._game
        if g is None:
            raise TableError("No game is running.")
        if not g.queue or g.queue[0] != i:
            raise TableError(f"It is not your turn ({self.current or 'nobody'} is in turn).")
        if g.phase is not phase:
            where = {Phase.BETTING: f"betting round {g.round}",
                     Phase.DISCARDING: "the discarding interval",
                     Phase.SHOWDOWN: "the showdown"}[g.phase]
            raise TableError(f"You cannot {verb} now: this is {where}.")
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
            ev.append(Event("master", f"{h} is now the game-master.", data={"handle": h}))

    def _move_master_to_active(self, now: float, ev: list[Event]) -> None:
        """During a game the master must always be active (chapter 2.2)."""
        nxt = self._next_active(self._master)  # type: ignore[arg-type]
        if nxt is not None and nxt != self._master:
            self._set_master(nxt, now, ev)

    def _fold(self, i: int, now: float, text: str, ev: list[Event]) -> None:
        g = self._game
        s = self._seats[i]
        assert g is not None and s is not None
        s.active = False
        g.actions.append(f"round {g.round}: {text}")
        ev.append(Event("pass", text, data={"handle": s.handle}))
        ev.append(Event("inactive", "You are out of this game: you may join the next game.",
                        to=s.handle, tag="INFO"))
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
        shown = f"{format_cards(s.cards)}: {evaluate(s.cards).describe()}"
        g.actions.append(f"{s.handle} reveals {shown}")
        ev.append(Event("reveal", f"{s.handle} shows {shown}.",
                        data={"handle": s.handle, "cards": s.cards}))

    def _remove(self, i: int, now: float, ev: list[Event]) -> None:
        s = self._seats[i]
        assert s is not None
        g = self._game
        was_master = i == self._master
        if g is not None and s.active:
            s.active = False
            g.actions.append(f"{s.handle} left the table")
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
        if g.phase is Phase.BETTING:
            low, high = self.bet_range(s.handle)
            if high < low:
                ev.append(Event("cannot_bet", f"You cannot bet: the minimum bet is {low} but you "
                                f"have only {self.wallet.balance(s.handle)} CUBES.", to=s.handle))
                self._fold(i, now, f"{s.handle} cannot place the minimum bet ({low}) and is out "
                                   "of the game.", ev)
                return
        ev.append(Event("turn", "", data={"handle": s.handle, "phase": g.phase.value}))

    def _begin_round(self, now: float, ev: list[Event]) -> None:
        """Open the next round (or the showdown) after the current one has ended."""
        g = self._game
        assert g is not None
        active = [j for j in self._order_from(self._master) if self._seats[j].active]  # type: ignore[union-attr]
        g.queue = active
        for j in active:
            self._seats[j].bet_this_round = False  # type: ignore[union-attr]
        label = self.round_label
        if g.phase is Phase.DISCARDING:
            text = "DISCARDING INTERVAL: discard up to " f"{self.rules.max_discard} cards."
        else:
            text = f"Round {label} begins."
        ev.append(Event("round", text, tag="INFO", data={"round": label}))
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
        if len(active) == 1 and g.phase is not Phase.SHOWDOWN:
            sole = self._seats[active[0]]
            assert sole is not None
            inactive_seated = any(s is not None and not s.active for s in self._seats)
            if not inactive_seated:
                self._end_game(now, active[0], ev)
                return
            if g.phase is Phase.BETTING and sole.bet_this_round:
                self._start_showdown(now, ev)
                return
        g.queue = [j for j in g.queue if self._seats[j] is not None and self._seats[j].active]  # type: ignore[union-attr]
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
        g.actions.append("showdown")
        ev.append(Event("showdown", "SHOWDOWN: every player in turn reveals the hand ([R]).",
                        data={"round": "SHOWDOWN"}))
        g.queue = [j for j in self._order_from(self._master) if self._seats[j].active]  # type: ignore[union-attr,arg-type]
        self._begin_turn(now, ev)

    def _end_game(self, now: float, winner: int | None, ev: list[Event]) -> None:
        g = self._game
        assert g is not None
        w = self._seats[winner] if winner is not None else None
        if w is not None:
            desc = f" with {evaluate(w.cards).describe()}" if w.revealed else ""
            text = f"{w.handle} wins the pot of {g.pot} CUBES{desc}!"
            end = Event("won", text, data={"handle": w.handle, "pot": g.pot})
        else:
            text = f"Nobody is left in the game: the pot of {g.pot} CUBES goes to the system."
            end = Event("pot_to_system", text, data={"pot": g.pot})
        history = {
            "players": g.players,
            "deck_hash": g.deck_hash,
            "actions": [*g.actions, text],
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
        ev.append(end)
        self._game = None
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
            ev.append(Event("removed", f"{h} was idle for {self.rules.idle_games} games and has "
                            "been removed from the table.", data={"handle": h}))
            self._remove(i, now, ev)

    @staticmethod
    def _cards_word(n: int) -> str:
        return "no cards" if n == 0 else ("1 card" if n == 1 else f"{n} cards")

    @staticmethod
    def _secs(t: float) -> str:
        return f"{int(t)} seconds" if t % 60 else (f"{int(t // 60)} minute" + ("s" if t > 60 else ""))
