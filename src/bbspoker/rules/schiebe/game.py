"""Schiebe-Poker (``/work/shared/reference/schiebe-poker-de.txt``): 2-4 players push the
middle row and swap cards with it for an agreed number of rounds; the best poker category
wins. A pure, synchronous state machine that implements
:class:`bbspoker.rules.base.GameRules`, as :class:`~bbspoker.rules.draw40.game.Draw40` does.

Typed actions go in through :meth:`Schiebe.apply` (``Sit``, ``Leave``, ``Cancel`` of
:mod:`bbspoker.rules.actions`; :class:`~bbspoker.rules.schiebe.actions.Propose`, ``Vote``,
``Push``, ``Swap``, ``SwapAll``, ``NoSwap``), time-outs through :meth:`Schiebe.tick`, each
with the time as ``now`` (seconds, any monotonic scale); each returns the
:class:`~bbspoker.rules.events.Event` s to tell, in codes (the door makes the sentences).
A refused action raises :class:`~bbspoker.rules.events.RuleError` and changes nothing.
CUBES (an ante, when the table has one) move only through the
:class:`~bbspoker.rules.money.Wallet`; the deck is the provably fair one
(:mod:`bbspoker.rules.fairness`, ``docs/fairness.md``), and so is every reshuffle of the
discard pile. Where the text is silent, the decisions are in ``docs/rules.md``
("Schiebe-Poker").
"""

from __future__ import annotations

import random
import secrets
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Callable, Collection, Mapping, Sequence

from bbspoker.rules import actions as act
from bbspoker.rules import fairness
from bbspoker.rules.seating import SeatedTable
from bbspoker.rules.events import Event, Operation, RuleError
from bbspoker.rules.money import InsufficientCubes, Wallet
from bbspoker.rules.schiebe.actions import (LEFT, PLAY_ORDER, RIGHT, NoSwap, Propose,
                                            Push, Swap, SwapAll, Vote)
from bbspoker.rules.schiebe.hands import CARDS, Category, category

__all__ = ["SchiebeRules", "Phase", "SeatView", "Board", "Schiebe", "HIDDEN", "OPEN",
           "MIDDLE", "ACTIONS_PER_TURN", "reshuffle_part"]

#: Cards each player gets hidden and open, and cards in the middle row ("zwei verdeckte und
#: drei offene Karten. Drei Karten werden offen in die Mitte gelegt").
HIDDEN, OPEN, MIDDLE = 2, 3, 3
#: "Pro Spielzug muss jede*r Spieler*in zwei Aktionen durchführen."
ACTIONS_PER_TURN = 2
_PROPOSE: tuple[type[act.Action], ...] = (Propose,)
_VOTE: tuple[type[act.Action], ...] = (Vote,)


def reshuffle_part(k: int) -> str:
    """The fairness sub-stream of the ``k``-th reshuffle (1, 2, ...) of a game's discard
    pile: ``"reshuffle-k"`` (docs/fairness.md)."""
    return f"reshuffle-{k}"


#: The fairness sub-stream that draws the first player.
FIRST_PART = "first"


@dataclass(frozen=True)
class SchiebeRules:
    """A Schiebe-Poker table's numbers: ``seats`` 2-4 ("für 2-4 Spieler*innen"), ``rounds``
    2-7 the host proposes unless they say otherwise, ``ante`` CUBES each player pays
    into the pot (0: no stakes), ``turn_timeout`` seconds for a turn (its remaining
    actions become "no swap") and for the vote on the rounds. Raises ``ValueError``
    out of range."""

    seats: int = 4
    rounds: int = 3
    ante: int = 0
    turn_timeout: float = 60.0

    def __post_init__(self) -> None:
        if not 2 <= self.seats <= 4:
            raise ValueError("seats must be between 2 and 4")
        if not 2 <= self.rounds <= 7:
            raise ValueError("rounds must be between 2 and 7")
        if self.ante < 0:
            raise ValueError("ante must be 0 or more")
        if not self.turn_timeout > 0:
            raise ValueError("turn_timeout must be above 0")


class Phase(Enum):
    """No game, the vote on the number of rounds, a game being played."""

    IDLE = "idle"
    VOTING = "voting"
    PLAYING = "playing"


@dataclass(frozen=True, slots=True)
class SeatView:
    """What everyone sees of one occupied seat (the fields the table's snapshot reads):
    ``active`` in the running game, ``revealed`` the five cards shown at the end (hidden
    first) or ``None``, ``is_master`` the host (who proposes the rounds), ``is_current`` in
    turn, ``open_cards`` left to right (empty out of a game)."""

    seat: int
    handle: str
    active: bool
    revealed: tuple[str, ...] | None
    is_master: bool
    is_current: bool
    open_cards: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Board:
    """The public table of Schiebe-Poker, for every screen: ``middle`` left to right,
    ``open`` each player's open cards (``(handle, cards)`` in seat order), ``draw_count``
    and ``discard_count`` the piles, ``top_discard`` the card on top of the discard pile
    (or ``None``), ``round`` of ``rounds`` (``None`` out of a game), ``actions_left`` of
    the player in turn, ``proposal`` the rounds proposed in a vote (``None``), ``voted``
    who agreed so far, ``ranking`` the last game's final ranking (``(place, handle,
    category, cards)``; until the next game starts), ``pot`` in CUBES, the ``phase`` and
    the host (``master``, who proposes the rounds). It is the kind's public view in the
    table's snapshot."""

    middle: tuple[str, ...] = ()
    open: tuple[tuple[str, tuple[str, ...]], ...] = ()
    draw_count: int = 0
    discard_count: int = 0
    top_discard: str | None = None
    round: int | None = None
    rounds: int | None = None
    actions_left: int = 0
    proposal: int | None = None
    voted: tuple[str, ...] = ()
    ranking: tuple[tuple[int, str, Category, tuple[str, ...]], ...] = ()
    pot: int = 0
    phase: Phase = Phase.IDLE
    master: str | None = None


@dataclass
class _Seat:
    handle: str
    hidden: tuple[str, ...] = ()
    open: list[str] = field(default_factory=list)
    active: bool = False
    revealed: bool = False
    key: str = field(init=False)

    def __post_init__(self) -> None:
        self.key = self.handle.lower()


@dataclass
class _Vote:
    rounds: int
    by: int                     # the proposer's seat
    voters: list[int]           # every seat asked (the proposer's yes is the proposal)
    yes: set[int]
    since: float


@dataclass
class _Game:
    id: int
    seal: fairness.Seal
    rounds: int
    order: list[int]            # seats in turn order, from the first player; leavers drop out
    draw: list[str]             # the draw pile, the top card last (pop() draws it)
    middle: list[str]
    players: list[str]          # handles dealt in, seat order (the record's)
    discard: list[str] = field(default_factory=list)   # the discard pile, the top last
    out: list[str] = field(default_factory=list)       # cards of players who left
    round: int = 1
    turn: int = 0               # index in ``order`` of the player in turn
    actions_left: int = ACTIONS_PER_TURN
    turn_since: float = 0.0
    reshuffles: int = 0
    pot: int = 0
    operations: list[Operation] = field(default_factory=list)


class Schiebe(SeatedTable):
    """One Schiebe-Poker table; implements :class:`bbspoker.rules.base.GameRules`. Not
    thread-safe: one owner applies actions in order.

    ``wallet`` moves CUBES (:class:`bbspoker.rules.money.Wallet`; with no ante a game still
    opens and closes a game record, with a pot of 0); ``rng`` draws the server seeds
    (``None``: the OS's random source; a seeded ``random.Random`` in tests); ``phrases``
    gives the players' client seed phrases (as for draw40); ``rules`` the numbers.
    """

    kind = "schiebe"

    def __init__(self, wallet: Wallet, rules: SchiebeRules | None = None,
                 rng: random.Random | None = None,
                 phrases: Callable[[Sequence[str]], Mapping[str, str | None]] | None = None
                 ) -> None:
        self.wallet = wallet
        self.rules = rules or SchiebeRules()
        self._entropy: Callable[[int], bytes] = (rng.randbytes if rng is not None
                                                 else secrets.token_bytes)
        self._phrases = phrases
        self._publish_first()
        self._seats: list[_Seat | None] = [None] * self.rules.seats
        self._host: int | None = None
        self._vote: _Vote | None = None
        self._game: _Game | None = None
        self._operations: Sequence[Operation] = ()
        self._payouts: dict[str, int] = {}
        self._ranking: tuple[tuple[int, str, Category, tuple[str, ...]], ...] = ()

    # ------------------------------------------------------------------ queries

    @property
    def phase(self) -> Phase:
        """The current :class:`Phase`."""
        if self._game is not None:
            return Phase.PLAYING
        return Phase.VOTING if self._vote is not None else Phase.IDLE

    @property
    def game_id(self) -> int | None:
        """The wallet's id of the running game, or ``None`` (also during the vote)."""
        return self._game.id if self._game else None

    @property
    def pot(self) -> int | None:
        """CUBES in the pot of the running game, or ``None`` with no game."""
        return self._game.pot if self._game else None

    @property
    def round(self) -> int | None:
        """The round (1 .. the agreed rounds) of the running game, or ``None``."""
        return self._game.round if self._game else None

    @property
    def rounds(self) -> int | None:
        """The rounds agreed for the running game, or ``None``."""
        return self._game.rounds if self._game else None

    @property
    def master(self) -> str | None:
        """The host: the first seated, who proposes the number of rounds (``None``: empty)."""
        return self._handle(self._host)

    @property
    def current(self) -> str | None:
        """The player in turn, or ``None`` with no game."""
        g = self._game
        return self._handle(g.order[g.turn]) if g and g.order else None

    @property
    def operations(self) -> tuple[Operation, ...]:
        """The record of the running game, or of the last one (empty before the first)."""
        return tuple(self._game.operations) if self._game else tuple(self._operations)

    def payouts(self) -> dict[str, int]:
        """``{handle: CUBES}`` the last game that ended paid out (its first-ranked players'
        shares; empty with no ante or after a game called off)."""
        return dict(self._payouts)

    def seats(self) -> list[SeatView]:
        """The public view of the occupied seats, in seat order."""
        g = self._game
        cur = g.order[g.turn] if g and g.order else None
        return [SeatView(i, s.handle, s.active and g is not None,
                         (*s.hidden, *s.open) if s.revealed else None, i == self._host,
                         i == cur, tuple(s.open) if s.active or s.revealed else ())
                for i, s in enumerate(self._seats) if s is not None]

    def board(self) -> Board:
        """The public :class:`Board` now."""
        g, v = self._game, self._vote
        voted = tuple(self._seats[i].handle for i in sorted(v.yes)  # type: ignore[union-attr]
                      if self._seats[i] is not None) if v else ()
        opens = tuple((s.handle, tuple(s.open)) for s in self._seats
                      if s is not None and (s.active or s.revealed))
        if g is None:
            return Board(open=opens, proposal=v.rounds if v else None, voted=voted,
                         ranking=self._ranking, phase=self.phase, master=self.master)
        return Board(tuple(g.middle), opens, len(g.draw), len(g.discard),
                     g.discard[-1] if g.discard else None, g.round, g.rounds, g.actions_left,
                     pot=g.pot, phase=self.phase, master=self.master)

    def view(self, balances: Mapping[str, int] | None = None) -> Board:
        """The kind's public view for the table's snapshot: :meth:`board` (``balances``:
        unused)."""
        return self.board()

    def hands(self) -> dict[str, tuple[str, ...]]:
        """``{handle: hidden cards}`` of everyone seated (empty if not dealt in): the cards
        only their owner sees ("Die verdeckten Handkarten ... nur von ihm/ihr einsehbar")."""
        return {s.handle: s.hidden for s in self._seats if s is not None}

    def cards_of(self, handle: str) -> tuple[str, ...]:
        """``handle``'s hidden cards; RuleError ``not_seated``."""
        return self._seats[self._find(handle)].hidden  # type: ignore[union-attr]

    def open_cards(self, handle: str) -> tuple[str, ...]:
        """``handle``'s open cards, left to right (never sorted); RuleError ``not_seated``."""
        return tuple(self._seats[self._find(handle)].open)  # type: ignore[union-attr]

    def places(self) -> dict[str, list[str]]:
        """Where every one of the 52 cards is now (for checks): ``draw``, ``discard``,
        ``middle``, ``out`` (players who left) and each handle dealt in (hidden then
        open). Empty with no game."""
        g = self._game
        if g is None:
            return {}
        found = {"draw": list(g.draw), "discard": list(g.discard), "middle": list(g.middle),
                 "out": list(g.out)}
        for s in self._seats:
            if s is not None and s.active:
                found[s.handle] = [*s.hidden, *s.open]
        return found

    def is_active(self, handle: str) -> bool:
        """True if ``handle`` plays in the running game."""
        i = self._index(handle)
        return self._game is not None and i is not None and self._seats[i].active  # type: ignore[union-attr]

    def deadline(self) -> float | None:
        """When the player in turn (or the vote) times out, as a ``now`` value, or ``None``."""
        if self._game is not None:
            return self._game.turn_since + self.rules.turn_timeout
        if self._vote is not None:
            return self._vote.since + self.rules.turn_timeout
        return None

    def bet_range(self, handle: str, cubes: int | None = None) -> tuple[int, int]:
        """There are no bets in Schiebe-Poker: always the empty range ``(1, 0)``."""
        return 1, 0

    def legal_actions(self, handle: str, now: float) -> tuple[type[act.Action], ...]:
        """The action types ``handle`` may use now: the host ``Propose`` between games
        (with two seated), each asked player ``Vote`` during the vote, the player in turn
        ``Push``, ``Swap``, ``SwapAll``, ``NoSwap``; empty otherwise."""
        i = self._index(handle)
        return () if i is None else self._actions_at(i)

    def all_actions(self) -> dict[str, tuple[type[act.Action], ...]]:
        """``{handle: action types}`` of everyone seated, in seat order."""
        return {s.handle: self._actions_at(i) for i, s in enumerate(self._seats) if s is not None}

    def _actions_at(self, i: int) -> tuple[type[act.Action], ...]:
        g, v = self._game, self._vote
        if g is not None:
            return PLAY_ORDER if g.order and g.order[g.turn] == i else ()
        if v is not None:
            return _VOTE if i in v.voters and i != v.by and i not in v.yes else ()
        seated = sum(s is not None for s in self._seats)
        return _PROPOSE if i == self._host and seated >= 2 else ()

    # ------------------------------------------------------------------ actions

    def verify(self, handle: str, action: act.Action, now: float) -> None:
        """Raise :class:`RuleError` with the code :meth:`apply` would raise if ``handle``
        may not take ``action`` now; changes nothing. (Whether the players have the ante
        is checked when it is charged, at the start.)"""
        match action:
            case act.Sit():
                if self._index(handle) is not None:
                    raise RuleError("already_seated")
                if self.is_full:
                    raise RuleError("table_full", seats=self.rules.seats)
            case act.Leave():
                self._find(handle)
            case Propose(rounds=rounds):
                self._check_propose(handle, rounds)
            case act.Start():
                self._check_propose(handle, self.rules.rounds)
            case Vote():
                self._check_vote(handle)
            case Push() | Swap() | SwapAll() | NoSwap():
                self._check_play(handle, action)
            case act.Cancel():
                if self._game is None:
                    raise RuleError("no_game")
            case _:
                raise RuleError("unknown_action", action=type(action).__name__)

    def apply(self, handle: str, action: act.Action, now: float) -> list[Event]:
        """Take ``action`` for ``handle`` (``Cancel``: the server's; ``handle`` ignored) and
        return the events. Raises :class:`RuleError` (nothing changed) if not allowed now;
        a plain ``Start`` proposes the table's default rounds."""
        self.verify(handle, action, now)
        match action:
            case act.Sit():
                return self._sit(handle, now)
            case act.Leave(reason=reason):
                return self._leave(handle, now, reason)
            case Propose(rounds=rounds):
                return self._propose(handle, rounds, now)
            case act.Start():
                return self._propose(handle, self.rules.rounds, now)
            case Vote(yes=yes):
                return self._answer(handle, yes, now)
            case act.Cancel(reason=reason, note=note):
                g = self._game
                assert g is not None
                return self.call_off(now, reason, (g.id,), note)
            case _:
                return self._play(handle, action, now)

    # -- seating

    def _sit(self, handle: str, now: float) -> list[Event]:
        free = next(i for i, s in enumerate(self._seats) if s is None)
        self._seats[free] = _Seat(handle)
        ev = [Event("sat", handle)]
        if self._host is None:
            self._host = free
            ev.append(Event("master", handle))
        if self._vote is not None:
            self._vote = None
            ev.append(Event("vote_void", None, {"why": "sat"}))
        if self._game is not None:
            ev.append(Event("inactive", handle, {"why": "running"}, to=handle))
        return ev

    def _leave(self, handle: str, now: float, reason: str) -> list[Event]:
        """Decision (the text is silent): a player who leaves a game is out of it and of
        its ranking; their cards leave play and their ante stays in the pot; with one
        player left the game ends at once and ranks them alone. A seat change during the
        vote drops it."""
        i = self._find(handle)
        s = self._seats[i]
        assert s is not None
        ev = [Event("left", handle, {"reason": reason})]
        g = self._game
        if self._vote is not None:
            self._vote = None
            ev.append(Event("vote_void", None, {"why": "left"}))
        self._seats[i] = None
        if i == self._host:
            self._host = self._next_seated(i)
            if self._host is not None:
                ev.append(Event("master", self._seats[self._host].handle))  # type: ignore[union-attr]
        if g is not None and s.active:
            s.active = False
            g.out += [*s.hidden, *s.open]
            s.open = []
            g.operations.append(Operation("left", handle, {"round": g.round}))
            pos = g.order.index(i)
            g.order.pop(pos)
            if len(g.order) < 2:
                self._end_game(now, ev)
            elif pos < g.turn:
                g.turn -= 1
            elif pos == g.turn:
                g.turn -= 1       # the next player moves into this place: begin their turn
                self._next_turn(now, ev)
        return ev

    # -- the vote on the rounds

    def _check_propose(self, handle: str, rounds: object) -> None:
        i = self._find(handle)
        if self._game is not None:
            raise RuleError("game_running")
        if self._vote is not None:
            raise RuleError("vote_running")
        if i != self._host:
            raise RuleError("not_master", master=self.master)
        if sum(s is not None for s in self._seats) < 2:
            raise RuleError("too_few_players")
        if isinstance(rounds, bool) or not isinstance(rounds, int) or not 2 <= rounds <= 7:
            raise RuleError("rounds_range", low=2, high=7)

    def _propose(self, handle: str, rounds: int, now: float) -> list[Event]:
        """The host proposes ``rounds``: every other seated player is asked (the short vote
        of docs/rules.md: all yes starts the game, one no drops the proposal, no answer
        within ``turn_timeout`` drops it too)."""
        i = self._find(handle)
        voters = [j for j, s in enumerate(self._seats) if s is not None]
        self._vote = _Vote(rounds, i, voters, {i}, now)
        return [Event("proposed", handle, {"rounds": rounds})]

    def _check_vote(self, handle: str) -> None:
        i = self._find(handle)
        v = self._vote
        if v is None:
            raise RuleError("no_vote")
        if i not in v.voters or i == v.by or i in v.yes:
            raise RuleError("voted")

    def _answer(self, handle: str, yes: bool, now: float) -> list[Event]:
        v = self._vote
        assert v is not None
        i = self._find(handle)
        if not yes:
            self._vote = None
            return [Event("vote_failed", handle, {"rounds": v.rounds})]
        v.yes.add(i)
        ev = [Event("voted", handle, {"rounds": v.rounds})]
        if v.yes >= set(v.voters):
            self._vote = None
            ev += self._start(v.rounds, now)
        return ev

    # -- the start

    def _start(self, rounds: int, now: float) -> list[Event]:
        """Everyone agreed: open the game (everyone seated with the ante pays it; fewer
        than two who can: no game, ``too_few_antes``), seal the deck, deal in seat order
        five cards each from the top (two hidden, then three open, left to right), then
        the three middle cards (left to right); the rest is the draw pile. The first
        player is drawn from the seal's ``first`` sub-stream; play goes round in seat
        order from them. The seal's server seed is the one whose commitment the table
        published before (:attr:`next_commitment`); the next game's is drawn and
        published in the same transaction."""
        handles = self.handles
        seated = [i for i, s in enumerate(self._seats) if s is not None]
        ante = self.rules.ante
        paid: list[int] = []
        with self.wallet.transaction(durable=False):
            cubes = self.wallet.balances_of(handles) if ante else {}
            if ante and sum(n >= ante for n in cubes.values()) < 2:
                return [Event("vote_failed", None, {"rounds": rounds, "why": "too_few_antes",
                                                    "ante": ante})]
            seal = self._new_seal(handles)
            gid = self.wallet.open_game(handles, seal)
            upcoming = self._publish_next()
            for i in seated:
                h = self._seats[i].handle  # type: ignore[union-attr]
                if not ante:
                    paid.append(i)
                elif cubes.get(h, ante) >= ante and self._pay(gid, h, ante):
                    paid.append(i)
        self._next = upcoming
        deck = seal.deck(CARDS, gid)
        players = [self._seats[i].handle for i in paid]  # type: ignore[union-attr]
        first = seal.deck(players, gid, FIRST_PART)[0]
        start = next(k for k, i in enumerate(paid) if self._seats[i].handle == first)  # type: ignore[union-attr]
        order = paid[start:] + paid[:start]
        g = _Game(gid, seal, rounds, order, [], [], players, turn_since=now,
                  pot=ante * len(paid))
        ev: list[Event] = []
        top = 0
        for i in seated:
            s = self._seats[i]
            assert s is not None
            s.active, s.revealed, s.hidden, s.open = False, False, (), []
            if i not in paid:
                ev.append(Event("inactive", s.handle, {"why": "no_ante", "ante": ante},
                                to=s.handle))
                continue
            s.active = True
            if ante:
                g.operations.append(Operation("ante", s.handle, {"amount": ante}))
            s.hidden = tuple(deck[top:top + HIDDEN])
            s.open = list(deck[top + HIDDEN:top + HIDDEN + OPEN])
            top += HIDDEN + OPEN
        g.middle = list(deck[top:top + MIDDLE])
        g.draw = list(reversed(deck[top + MIDDLE:]))
        self._game = g
        self._ranking = ()
        g.operations.append(Operation("rounds", None, {"rounds": rounds}))
        ev.append(Event("started", None, {"pot": g.pot, "game_id": gid, "rounds": rounds}))
        ev.append(Event("sealed", None, {
            "game_id": gid, "commitment": seal.commitment,
            "client_seeds": [list(pair) for pair in zip(handles, seal.client_seeds)]}))
        for i in paid:
            s = self._seats[i]
            assert s is not None
            g.operations.append(Operation("deal", s.handle, {"hidden": " ".join(s.hidden),
                                                            "open": " ".join(s.open)}))
            ev.append(Event("cards", s.handle, {"cards": s.hidden}, to=s.handle))
        g.operations.append(Operation("middle", None, {"cards": " ".join(g.middle)}))
        g.operations.append(Operation("first", first))
        ev.append(Event("dealt", None, {"middle": tuple(g.middle), "draw": len(g.draw),
                                        "open": [[self._seats[i].handle,  # type: ignore[union-attr]
                                                  tuple(self._seats[i].open)] for i in paid]}))  # type: ignore[union-attr]
        ev.append(Event("first", first))
        self._begin_round(now, ev)
        return ev

    def _pay(self, game_id: int, handle: str, amount: int) -> bool:
        try:
            self.wallet.pay_into_pot(game_id, handle, amount, "ante")
        except InsufficientCubes:
            return False
        return True

    # -- the turn

    def _check_play(self, handle: str, action: act.Action) -> None:
        i = self._find(handle)
        g = self._game
        if g is None:
            raise RuleError("no_game")
        if g.order[g.turn] != i:
            raise RuleError("not_your_turn", current=self.current)
        match action:
            case Push(direction=direction) if direction not in (LEFT, RIGHT):
                raise RuleError("push_direction")
            case Swap(own=own, middle=middle):
                for pos in (own, middle):
                    if isinstance(pos, bool) or not isinstance(pos, int) or not 0 <= pos <= 2:
                        raise RuleError("swap_position")

    def _play(self, handle: str, action: act.Action, now: float) -> list[Event]:
        """One of the turn's two actions ("Alle Aktionen werden hintereinander ausgeführt":
        the board changes at once, and the second action is chosen on the new board)."""
        g = self._game
        assert g is not None
        i = g.order[g.turn]
        s = self._seats[i]
        assert s is not None
        ev: list[Event] = []
        step = ACTIONS_PER_TURN - g.actions_left + 1
        base = {"round": g.round, "action": step}
        match action:
            case Push(direction=direction):
                self._push(s, direction, base, ev)
            case Swap(own=own, middle=mid):
                gave, took = s.open[own], g.middle[mid]
                s.open[own], g.middle[mid] = took, gave
                data = {**base, "own": own, "middle": mid, "gave": gave, "took": took}
                g.operations.append(Operation("swap", handle, data))
                ev.append(Event("swapped", handle, data))
            case SwapAll():
                gave_all, took_all = tuple(s.open), tuple(g.middle)
                s.open, g.middle = list(took_all), list(gave_all)
                g.operations.append(Operation("swap_all", handle, {
                    **base, "gave": " ".join(gave_all), "took": " ".join(took_all)}))
                ev.append(Event("swapped_all", handle,
                                {**base, "gave": gave_all, "took": took_all}))
            case _:
                g.operations.append(Operation("no_swap", handle, base))
                ev.append(Event("no_swap", handle, base))
        g.actions_left -= 1
        if g.actions_left == 0:
            self._next_turn(now, ev)
        else:
            ev.append(Event("turn", handle, {"round": g.round, "actions_left": g.actions_left}))
        return ev

    def _push(self, s: _Seat, direction: str, base: dict[str, Any], ev: list[Event]) -> None:
        """Schieben: to the left the left card goes open onto the discard pile, the two
        others move one place left and the right place is filled from the draw pile; to
        the right the same mirrored. The card pushed out is on the discard pile before
        the new card is drawn, so an empty draw pile reshuffles it too (docs/rules.md)."""
        g = self._game
        assert g is not None
        out = g.middle.pop(0 if direction == LEFT else -1)
        g.discard.append(out)
        data: dict[str, Any] = {**base, "direction": direction, "out": out}
        if not g.draw:
            # "Sollte der Nachziehstapel ... leer sein ..., so wird der Ablagestapel zu diesem
            # Zeitpunkt gemischt und als neuer Nachziehstapel verwendet."
            g.reshuffles += 1
            pile = sorted(g.discard, key=CARDS.index)
            g.draw = list(reversed(g.seal.deck(pile, g.id, reshuffle_part(g.reshuffles))))
            g.discard = []
            data["reshuffle"] = g.reshuffles
            data["reshuffled"] = len(pile)
        new = g.draw.pop()
        if direction == LEFT:
            g.middle.append(new)
        else:
            g.middle.insert(0, new)
        data["in"] = new
        g.operations.append(Operation("push", s.handle, data))
        ev.append(Event("pushed", s.handle, data))

    def _begin_round(self, now: float, ev: list[Event]) -> None:
        g = self._game
        assert g is not None
        ev.append(Event("round", None, {"round": g.round, "rounds": g.rounds}))
        self._begin_turn(now, ev)

    def _begin_turn(self, now: float, ev: list[Event]) -> None:
        g = self._game
        assert g is not None
        g.actions_left = ACTIONS_PER_TURN
        g.turn_since = now
        ev.append(Event("turn", self.current, {"round": g.round,
                                               "actions_left": g.actions_left}))

    def _next_turn(self, now: float, ev: list[Event]) -> None:
        """The next player in turn; after the last of a round the next round; after the
        agreed rounds the end ("Das Spiel endet nach der zu Spielbeginn festgelegten
        Anzahl an Runden")."""
        g = self._game
        assert g is not None
        g.turn += 1
        if g.turn < len(g.order):
            self._begin_turn(now, ev)
            return
        g.turn = 0
        if g.round >= g.rounds:
            self._end_game(now, ev)
            return
        g.round += 1
        self._begin_round(now, ev)

    def tick(self, now: float) -> list[Event]:
        """Apply every time-out due by ``now``, each at its own deadline: a turn's
        remaining actions become "no swap" (``timeout``); a vote not answered by everyone
        is dropped (``vote_lapsed``, naming who did not answer)."""
        ev: list[Event] = []
        while True:
            due = self.deadline()
            if due is None or now < due:
                return ev
            v, g = self._vote, self._game
            if g is None and v is not None:
                missing = [self._seats[i].handle for i in v.voters  # type: ignore[union-attr]
                           if i not in v.yes and self._seats[i] is not None]
                self._vote = None
                ev.append(Event("vote_lapsed", None, {"rounds": v.rounds, "missing": missing}))
                continue
            assert g is not None
            handle = self.current
            assert handle is not None
            left = g.actions_left
            for k in range(ACTIONS_PER_TURN - left + 1, ACTIONS_PER_TURN + 1):
                data = {"round": g.round, "action": k, "timeout": True}
                g.operations.append(Operation("no_swap", handle, data))
            ev.append(Event("no_swap", handle, {"round": g.round, "timeout": True,
                                                "count": left,
                                                "seconds": self.rules.turn_timeout}))
            g.actions_left = 0
            self._next_turn(due, ev)

    # -- the end

    def _end_game(self, now: float, ev: list[Event]) -> None:
        """Every hand (two hidden and three open cards) is shown and valued by its
        category only; the ranking gives tied players the same place (1, 1, 3); the pot is
        split equally among the first, the remainder that does not divide goes to the
        system account (docs/rules.md)."""
        g = self._game
        assert g is not None
        ranked = [(i, self._seats[i]) for i in sorted(g.order)]
        values = {i: category([*s.hidden, *s.open]) for i, s in ranked}  # type: ignore[union-attr]
        ranking = []
        for i, s in sorted(ranked, key=lambda p: -values[p[0]]):
            place = 1 + sum(v > values[i] for v in values.values())
            ranking.append((place, s.handle, values[i], (*s.hidden, *s.open)))  # type: ignore[union-attr]
        firsts = [h for place, h, _, _ in ranking if place == 1]
        share, remainder = divmod(g.pot, len(firsts)) if firsts else (0, g.pot)
        shares = {h: share for h in firsts} if share else {}
        for i, s in ranked:
            assert s is not None
            s.revealed = True
            cards = (*s.hidden, *s.open)
            g.operations.append(Operation("reveal", s.handle, {
                "hidden": " ".join(s.hidden), "open": " ".join(s.open),
                "category": values[i].name}))
            ev.append(Event("revealed", s.handle, {"cards": cards, "category": values[i]}))
        record = {"places": [[p, h, c.name] for p, h, c, _ in ranking], "pot": g.pot,
                  "shares": shares, "remainder": remainder}
        g.operations.append(Operation("ranking", None, record))
        history = {"game": self.kind, "players": g.players, "commitment": g.seal.commitment,
                   "rounds": g.rounds,
                   "operations": [op.as_dict() for op in g.operations],
                   "hands": {h: " ".join(cards) for _, h, _, cards in ranking},
                   "ranking": record["places"], "pot": g.pot,
                   "winner": ", ".join(firsts) or None}
        with self.wallet.transaction(durable=False):
            if g.pot:
                self.wallet.pay_out_split(g.id, shares, remainder)
            self.wallet.close_game(g.id, history["winner"], history)
        ev.append(Event("ranking", None, {"places": [(p, h, c) for p, h, c, _ in ranking],
                                          "pot": g.pot, "share": share,
                                          "remainder": remainder}))
        ev += [self._seed_event(g), self._next_event()]
        for s in self._seats:
            if s is not None:
                s.active = False
        self._game = None
        self._operations = g.operations
        self._payouts = shares
        self._ranking = tuple(ranking)

    def _history(self, g: _Game) -> dict[str, Any]:
        return {"game": self.kind, "players": g.players, "commitment": g.seal.commitment,
                "rounds": g.rounds, "operations": [op.as_dict() for op in g.operations]}

    @staticmethod
    def _seed_event(g: _Game) -> Event:
        """``seed``: the server seed of ``g``, revealed now that it has ended (as draw40)."""
        return Event("seed", None, {"game_id": g.id, "server_seed": g.seal.server_seed.hex(),
                                    "commitment": g.seal.commitment})

    def call_off(self, now: float, reason: str, game_ids: Collection[int],
                 note: str | None = None) -> list[Event]:
        """Call the games ``game_ids`` off without a ranking (shutdown, a lost commit): the
        running game among them ends at once, and the wallet gives back every ante it
        holds of each (as :meth:`Draw40.call_off <bbspoker.rules.draw40.game.Draw40.call_off>`)."""
        g = self._game
        if g is not None and g.id in game_ids:
            self._game = None
            self._operations, self._payouts = g.operations, {}
            for s in self._seats:
                if s is not None:
                    s.active = False
        else:
            g = None
        refunds = self._refund(game_ids, note or reason,
                               {g.id: self._history(g)} if g is not None else {})
        ev = [Event("cancelled", None, {"reason": reason, "refunds": refunds})]
        if g is not None:
            ev += [self._seed_event(g), self._publish_anew()]
        return ev

    # ------------------------------------------------------------------ internals

    def _next_seated(self, after: int) -> int | None:
        n = len(self._seats)
        return next(((after + k) % n for k in range(1, n + 1)
                     if self._seats[(after + k) % n] is not None), None)
