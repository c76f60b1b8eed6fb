"""What a game kind is: the interface every game a table can run implements
(:class:`GameRules`, with the defaults of :class:`~bbspoker.rules.seating.SeatedTable`),
its config (:class:`KindConfig`) and its declaration (:class:`KindSpec`, listed in
:mod:`bbspoker.rules.kinds`).

A game kind is pure and synchronous: it is given the time as a value (``now``,
seconds on any monotonic scale), moves CUBES only through the injected
:class:`~bbspoker.rules.money.Wallet`, and answers in codes
(:class:`~bbspoker.rules.events.Event`, :class:`~bbspoker.rules.events.RuleError`),
never in sentences. One owner (the table's task) applies actions one at a time.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, TypeVar, runtime_checkable

from bbspoker.rules.actions import Action
from bbspoker.rules.cards import DeckSpec
from bbspoker.rules.events import Event, Operation

__all__ = ["GameRules", "PublicSeat", "KindConfig", "SettingError", "KindSpec", "TournamentPlay",
           "Mismatch", "Walk", "Phrases", "setting", "stack_chips"]


@runtime_checkable
class PublicSeat(Protocol):
    """What the table service reads of every kind's public seat view: the ``seat``
    number, the ``handle`` seated there and whether they are ``active`` in the running
    game (the idle-seat rule leaves players in a game alone)."""

    @property
    def seat(self) -> int: ...

    @property
    def handle(self) -> str: ...

    @property
    def active(self) -> bool: ...


@runtime_checkable
class GameRules(Protocol):
    """One table's game: everything the table service
    (:class:`~bbspoker.table.service.TableService`) reads of it, whatever its kind.
    :class:`~bbspoker.rules.seating.SeatedTable` gives every kind the members only some
    kinds need (:meth:`resync`, :meth:`stop_dealing`, :attr:`table_stakes`).

    - ``kind``: the game kind's name in config (:data:`bbspoker.rules.kinds.KINDS`).
    - ``rules``: the game's numbers (a frozen dataclass of the kind's).
    - ``wallet``: the store as the table sees it (CUBES, the ledger's transactions).
    - ``game_id``: the ledger's id of the running game (or hand), else ``None``.
    - ``current``: the handle in turn, or ``None``; ``pot``: CUBES in play, or ``None``
      with no game.
    - ``handles``, ``is_full``; ``seats()``: the public seat views
      (:class:`PublicSeat`), in seat order; ``hands()``: ``{handle: private cards}`` of
      everyone seated (empty for one not dealt in).
    - ``view(balances)``: the kind's own frozen public view of the table beyond the
      seats (``balances``: ``{handle: CUBES}`` of the seated as the snapshot read them),
      carried by :attr:`~bbspoker.table.service.TableSnapshot.view`.
    - ``legal_actions(handle, now)``: the action types ``handle`` may use now, in the
      order the command area lists them (empty if none, or not seated);
      ``all_actions()``: that of everyone seated.
    - ``verify(handle, action, now)``: raises ``RuleError`` if ``action`` is not allowed
      now; changes nothing. ``can``: ``verify`` as a bool.
    - ``apply(handle, action, now)``: verify and apply; returns the events, in order.
    - ``tick(now)``: apply every time-out due by ``now``; returns the events.
    - ``deadline()``: when the next time-out falls due (a ``now`` value) or ``None``.
    - ``call_off(now, reason, game_ids, note)``: games called off, every stake back.
    - ``operations``: the record of the running (or last) game, one frozen
      :class:`Operation` per applied step; ``payouts()``: ``{handle: CUBES}`` paid out
      by the last game that ended; ``next_commitment``: the next game's deck commitment.
    - ``resync()``: take what the table holds of the store's (stacks) from it again;
      ``stop_dealing()``: start no new game (shutdown); ``table_stakes``: the players'
      money is at the table (stacks), so everyone leaves at shutdown to take it back.
    """

    kind: str
    table_stakes: bool

    @property
    def rules(self) -> Any: ...

    @property
    def wallet(self) -> Any: ...

    @property
    def game_id(self) -> int | None: ...

    @property
    def current(self) -> str | None: ...

    @property
    def pot(self) -> int | None: ...

    @property
    def handles(self) -> list[str]: ...

    @property
    def is_full(self) -> bool: ...

    @property
    def next_commitment(self) -> str: ...

    def seats(self) -> Sequence[PublicSeat]: ...

    def hands(self) -> Mapping[str, tuple[Any, ...]]: ...

    def view(self, balances: Mapping[str, int]) -> object: ...

    def legal_actions(self, handle: str, now: float) -> tuple[type[Action], ...]: ...

    def all_actions(self) -> Mapping[str, tuple[type[Action], ...]]: ...

    def verify(self, handle: str, action: Action, now: float) -> None: ...

    def can(self, handle: str, action: Action, now: float) -> bool: ...

    def apply(self, handle: str, action: Action, now: float) -> list[Event]: ...

    def tick(self, now: float) -> list[Event]: ...

    def deadline(self) -> float | None: ...

    def call_off(self, now: float, reason: str, game_ids: Collection[int],
                 note: str | None = None) -> list[Event]: ...

    @property
    def operations(self) -> Sequence[Operation]: ...

    def payouts(self) -> Mapping[str, int]: ...

    def resync(self) -> None: ...

    def stop_dealing(self) -> None: ...


class SettingError(ValueError):
    """A table's config does not fit its game kind; ``str()`` is the message after the
    place (``seats must be between 2 and 4 ..., got 5``). ``key``: the message is about
    that one key's value (the config file names it as ``<place> <key> ...``); ``None``:
    about keys together (``<place>: ...``)."""

    def __init__(self, message: str, key: str | None = None) -> None:
        super().__init__(message)
        self.key = key


_C = TypeVar("_C", bound="KindConfig")


def setting(default: Any, lo: float | None = None, hi: float | None = None,
            choices: tuple[str, ...] | None = None, *, positive: bool = False,
            empty: bool = False) -> Any:
    """A config key (a dataclass field) with its default and what the config file may
    give it: a number between ``lo`` and ``hi`` (inclusive; ``None``: no bound), one of
    ``choices``, above 0 (``positive``: a duration), a string that may be empty
    (``empty``). The type is the field's annotation (``int``, ``float``: seconds,
    ``str``, ``bool``). ``bbspoker.config`` checks a file's value against these."""
    return dataclasses.field(default=default, metadata={
        "lo": lo, "hi": hi, "choices": choices, "positive": positive, "empty": empty})


@dataclass(frozen=True)
class KindConfig:
    """The config of one table of a game kind: the keys every table has (below) and, in
    each kind's subclass, its own, all with the kind's defaults. Each key is declared once,
    with :func:`setting`: its type and the range the config file may give it, checked
    where the file is read (``bbspoker.config``: ``[table]`` takes every kind's keys as
    defaults, a ``[[tables]]`` entry only those of its kind); a subclass that changes a
    key's default declares it again with :func:`setting`. A kind's :meth:`check` holds
    what only that kind requires, and what ties keys together.

    ``seats`` players at most; ``turn_timeout`` (s) for a turn; a seated player whose
    connection drops keeps the seat for ``reconnect_grace`` (s; 0: given up at once); a
    person seated and not in a running game who presses no key for
    ``seat_idle_timeout`` (s) stands up (0: never); ``bots`` seats are filled by computer
    players deciding with ``bot_policy`` (one of the kind's :attr:`bot_policies`) after
    ``bot_think_min``..``bot_think_max`` s."""

    seats: int = setting(5, 2, 9)
    turn_timeout: float = setting(60.0, positive=True)
    reconnect_grace: float = setting(90.0, 0)
    seat_idle_timeout: float = setting(600.0, 0, 86400)
    bots: int = setting(0, 0, 9)
    bot_policy: str = setting("equity")
    bot_think_min: float = setting(1.5, 0)
    bot_think_max: float = setting(4.0, 0)

    #: The kind's name, for messages.
    kind: ClassVar[str] = ""
    #: The computer players' policies of the kind (``bbspoker.bots``).
    bot_policies: ClassVar[tuple[str, ...]] = ()
    #: Keys the kind does not take from ``[table]``: its own default stands unless the
    #: table's entry sets them.
    own_defaults: ClassVar[frozenset[str]] = frozenset()

    @classmethod
    def keys(cls) -> tuple[str, ...]:
        """The config keys of the kind, in declaration order."""
        return tuple(f.name for f in dataclasses.fields(cls))

    @classmethod
    def inherit(cls, defaults: Mapping[str, Any]) -> dict[str, Any]:
        """What the kind takes from the ``[table]`` defaults: every key it has but
        :attr:`own_defaults`."""
        return {k: defaults[k] for k in cls.keys() if k in defaults
                and k not in cls.own_defaults}

    @classmethod
    def of(cls: type[_C], values: Mapping[str, Any]) -> _C:
        """The config with the kind's keys found in ``values`` (others: the kind's
        defaults); not checked (tests and benchmarks build tables this way)."""
        return cls(**{k: values[k] for k in cls.keys() if k in values})

    @classmethod
    def from_keys(cls: type[_C], defaults: Mapping[str, Any], given: Mapping[str, Any]
                  ) -> _C:
        """A table's config from the ``[table]`` ``defaults`` (what :meth:`inherit`
        takes) and its own ``given`` keys (those of other kinds ignored), checked
        (:meth:`check`). Raises :class:`SettingError`."""
        config = cls.of({**cls.inherit(defaults), **given})
        config.check()
        return config

    def as_keys(self) -> dict[str, Any]:
        """``{key: value}`` of every key of the kind."""
        return {k: getattr(self, k) for k in self.keys()}

    def check(self) -> None:
        """Raise :class:`SettingError` if the keys do not fit the kind; each kind adds
        its own checks before these (more bots than seats; a policy of another kind;
        think times the wrong way round)."""
        self._check_policy()
        self._check_bots()

    def _check_policy(self) -> None:
        if self.bot_policy not in self.bot_policies:
            raise SettingError(f"bot_policy must be one of {', '.join(self.bot_policies)} "
                               f"for {self.kind}, got {self.bot_policy!r}")

    def _check_bots(self) -> None:
        if self.bots > self.seats:
            raise SettingError(f"bots ({self.bots}) is more than seats ({self.seats})")
        if self.bot_think_min > self.bot_think_max:
            raise SettingError(f"bot_think_min ({self.bot_think_min}) is above "
                               f"bot_think_max ({self.bot_think_max})")


@dataclass(frozen=True)
class Mismatch:
    """One step of a record whose cards are not what the deck gives.

    ``step``: 1-based position in the record's operations; ``handle``: whose step;
    ``what``: ``deal`` (the five cards dealt), ``draw`` (the cards drawn in a discard, in
    the order drawn), ``hand`` (a hand shown or discarded from is not the one the deck
    gave), ``short`` (the record takes more cards than the deck has) or ``record`` (the
    record contradicts its own replay: a card moved that was not where the record put
    it); ``expected`` and ``recorded``: the cards (notation, space-separated) by the deck
    (or the replay) and by the record."""

    step: int
    handle: str | None
    what: str
    expected: str
    recorded: str


#: One step of a walk: ``(step, handle, what, count, recorded cards)`` (see :data:`Walk`).
Step = tuple[int, "str | None", str, int, list[str]]

#: A game kind's walk of its record: for each operation that takes cards from the deck
#: or shows a hand, ``(step, handle, what, count, recorded cards)``; ``what`` is ``deal``
#: (``count`` cards from the top, compared as a set), ``draw`` (``count`` cards from the
#: top, compared in order), ``hand`` (``count`` 0: the cards must be the hand held),
#: ``discarded`` (``count`` 0: cards given up, which must be in the hand) or
#: ``reshuffle`` (the cards given, the discard pile, become the new deck in the order of
#: the game's sub-stream ``reshuffle-<count>``, docs/fairness.md). A walk that replays
#: the game may also yield a :class:`Mismatch` (``record``) where the record
#: contradicts itself.
Walk = Callable[[Sequence[Mapping[str, object]]], Iterator["Step | Mismatch"]]

#: ``phrases(handles)``: the client seed phrases of players (``{handle in lower case:
#: phrase or None}``), see :meth:`bbspoker.store.sql.Ledger.client_seeds_of`.
Phrases = Callable[[Sequence[str]], Mapping[str, "str | None"]]


def stack_chips(wallet: Any, table: str, handle: str) -> int:
    """A table-stakes kind's chips of ``handle`` at tournament table ``table`` (its
    wallet id, ``t<number>``): their stack there (:class:`~bbspoker.rules.money.StackWallet`)."""
    return int(wallet.stack(handle, table=table))


@dataclass(frozen=True)
class TournamentPlay:
    """How a kind's tables run a tournament (:mod:`bbspoker.rules.tournament`), with chips
    instead of CUBES. ``stake_key``: the config key a tournament's levels set (the level's
    ``bet``; a ``[[tournaments]]`` entry may not give it); ``table(config, wallet, bet,
    ante, phrases)``: a new tournament table's game from its config, the tournament's chip
    wallet (a player's balance there: their chips not at a table), the first level's stake
    and ante (chips) and the players' client seed phrases (:data:`Phrases`; ``None``: a
    random client seed for everyone), as at a cash table; ``stakes(game, bet, ante)``: the stake and ante of the hands dealt
    from now on (a level rose; the running hand keeps its own).

    ``chips(wallet, table, handle)``: a player's chips at a table between hands, read from
    the tournament's memory wallet and the table's id there (``t<number>``): the stack
    (:func:`stack_chips`, a table-stakes kind), or the balance for a kind whose players
    pay from it (draw40). ``levels``: the kind's default level structure (``None``: the
    tournaments' :data:`~bbspoker.rules.tournament.TURBO_LEVELS`); ``min_ante``: the
    smallest ante a level may have at its tables (chips; draw40 needs a pot to play
    for)."""

    stake_key: str
    table: Callable[[Any, Any, int, int, "Phrases | None"], GameRules]
    stakes: Callable[[Any, int, int], None]
    chips: Callable[[Any, str, str], int] = stack_chips
    levels: tuple[Any, ...] | None = None
    min_ante: int = 0


@dataclass(frozen=True)
class KindSpec:
    """One game kind as the server knows it, declared in the kind's own package and
    listed in :data:`bbspoker.rules.kinds.KINDS`: ``name`` (``game = ...`` in config),
    ``title`` (the lobby's English name; the door translates its own), ``config`` (its
    :class:`KindConfig` subclass), ``make(config, wallet, phrases)`` (a new table's game
    from its config, the table's wallet and the players' client seed phrases),
    ``deck`` (the cards it deals, as the fair shuffle starts from them) and ``walk``
    (how ``games verify`` follows its record through the deck, :data:`Walk`),
    ``tournament``: how its tables run a tournament (:class:`TournamentPlay`; ``None``:
    they do not), and ``wire``: ``wire()`` gives the kind's own types that cross between
    a table's task and its screens (its rules, seat view, table view, their enums, its
    own actions and what its events carry), for :mod:`bbspoker.table.codec`; a function,
    so that a kind whose game module is slow to import is imported only when the codec is
    made (``None``: the kind declares none, which the codec refuses)."""

    name: str
    title: str
    config: type[KindConfig]
    make: Callable[[Any, Any, Phrases | None], GameRules]
    deck: DeckSpec
    walk: Walk
    #: How its tables run a tournament; ``None``: the kind has no tournaments.
    tournament: TournamentPlay | None = None
    #: The kind's wire types (see above).
    wire: Callable[[], tuple[type, ...]] | None = None
