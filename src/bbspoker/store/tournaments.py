"""Tournament prize pools: what the store keeps of a tournament, and the interface the
tournament director uses to move CUBES in and out of a tournament's pool.

A tournament's ``buy_in`` (CUBES, no fee) leaves a player's balance when they register and
goes into the tournament's **prize pool**; it goes back to them when they unregister (only
while the tournament is registering) or when the tournament is cancelled (registering or
running); when the tournament ends the whole pool is paid out as prizes to its finishers.
Tournament chips are not CUBES and never reach the store. The pool is held nowhere but in
the movements themselves: it is the sum of the CUBES paid into it less those paid out of it
(in the ledger, minus the sum of the tournament's journal rows, as a game's pot is),
so while a tournament is open its pool equals the sum of its entrants' buy-ins, and once it
has finished or been cancelled its pool is 0 (``ledger verify`` checks both).

A tournament's status goes ``registering`` -> ``running`` -> ``finished``, or to
``cancelled`` from either of the first two, and never back. While it runs, the director
records its state (level, stacks, seats, places so far: any JSON object) after every hand
(:meth:`TournamentBook.save_tournament_state`), durably, so that a server started again
can resume it or cancel it and refund every buy-in.

Implementations: :class:`MemoryTournaments` here (tests, simulations) and the SQL
``Ledger`` (``bbspoker.store.sql.tournaments``). Every method is atomic: a refused call
(:class:`TournamentError`, :class:`~bbspoker.store.wallet.InsufficientCubes`,
:class:`~bbspoker.store.wallet.UnknownAccount`) changes nothing. Handles are matched without
regard to case; records name the account as it is spelt.
"""

from __future__ import annotations

import json
import time
from copy import deepcopy
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Collection, Iterable, Mapping, Protocol

from bbspoker.rules.money import MAX_CUBES
from bbspoker.rules.seasons import points
from bbspoker.store.wallet import InsufficientCubes, MemoryWallet
from bbspoker.text import clean_text

__all__ = [
    "STATUSES", "OPEN_STATUSES", "BUY_IN", "REFUND", "PRIZE", "POOL_REASONS",
    "TournamentError", "TournamentRecord", "TournamentEntry", "Standing", "TournamentBook",
    "MemoryTournaments", "standings", "check_new_tournament", "check_payout", "check_reason",
    "check_statuses", "encode_json", "no_tournament", "require_open", "require_registration", "require_status",
]

#: The statuses of a tournament, in the order it goes through them (or to ``cancelled``).
STATUSES = ("registering", "running", "finished", "cancelled")
#: The statuses in which a tournament's pool holds its entrants' buy-ins.
OPEN_STATUSES = ("registering", "running")
#: The journal reasons of the pool's movements: a buy-in paid into the pool when a player
#: registers, given back when they unregister or the tournament is cancelled, a prize paid
#: out of the pool when it finishes.
BUY_IN = "tournament_buy_in"
REFUND = "tournament_refund"
PRIZE = "tournament_prize"
POOL_REASONS = (BUY_IN, REFUND, PRIZE)


class TournamentError(ValueError):
    """A tournament call refused; nothing was changed. ``code`` says why, ``data`` gives
    its details (``tournament``: the id, and ``handle``, ``status``, ... as the code
    needs); ``str()`` is the English (the admin CLI and the logs).

    Codes: ``no_tournament`` (no tournament with that id), ``not_registering`` (it does
    not take registrations now), ``registered`` (the player already is),
    ``not_registered`` (the player is not), ``not_running``, ``ended`` (already finished
    or cancelled), ``not_entrant`` (a handle of places or prizes did not register),
    ``prizes_not_pool`` (the prizes do not add up to the pool), ``bad_prize`` (a prize
    below 0), ``bad_place`` (a place below 1), ``duplicate`` (a handle named twice,
    spelt differently), ``bad_buy_in`` (not 0 .. ``MAX_CUBES``), ``blank`` (a key, name,
    kind or reason with nothing printable), ``bad_status`` (not one of
    :data:`STATUSES`)."""

    def __init__(self, code: str, message: str, **data: Any) -> None:
        super().__init__(message)
        self.code, self.data = code, data


@dataclass(frozen=True)
class TournamentRecord:
    """One tournament as stored. ``key``: the config's tournament id (``"nightly"``), which
    many runs share; ``id``: this run's number. ``buy_in`` in CUBES; ``status`` one of
    :data:`STATUSES`; times in Unix seconds (``starts_at``: when a scheduled tournament is
    to start, ``None`` for a sit-and-go; ``started_at``/``ended_at`` ``None`` until then);
    ``state``: the director's last saved state (``None`` before the start); ``result``:
    what :meth:`TournamentBook.finish_tournament` was given; ``reason``: why it was
    cancelled."""

    id: int
    key: str
    name: str
    kind: str
    buy_in: int
    status: str
    created_at: float
    starts_at: float | None
    started_at: float | None
    ended_at: float | None
    state: dict[str, Any] | None
    result: dict[str, Any] | None
    reason: str | None


@dataclass(frozen=True)
class TournamentEntry:
    """One player's registration: the ``handle`` as the account spells it, the ``buy_in``
    paid (CUBES), the ``place`` (1 = winner) and ``prize`` (CUBES; 0 for an entrant who won
    none) once the tournament has finished, else ``None``; ``registered_at`` in Unix
    seconds."""

    handle: str
    buy_in: int
    place: int | None
    prize: int | None
    registered_at: float


@dataclass(frozen=True)
class Standing:
    """One player's line of the tournament standings over a time range (a season, or
    all time): the ``handle`` as the account spells it, finished tournaments ``played``,
    ``wins`` (1st places, shared ones included), ``cashes`` (a prize above 0),
    ``points`` (:func:`bbspoker.rules.seasons.points` summed over the finishes) and
    ``net`` CUBES (the prizes won less the buy-ins paid)."""

    handle: str
    played: int
    wins: int
    cashes: int
    points: int
    net: int


def standings(finishes: Iterable[tuple[str, int, int | None, int, int]]) -> list[Standing]:
    """The standings of ``finishes``: one ``(handle, entrants, place, prize, buy_in)`` per
    entry of a finished tournament (``entrants``: how many it had; ``place`` ``None``: an
    entrant the result did not place, who played but scores no points; ``prize`` and
    ``buy_in`` in CUBES). One :class:`Standing` a handle, ranked by points, then wins,
    then net CUBES, then the handle (case-folded), best first. Both stores count through
    this function, so they rank alike."""
    sums: dict[str, list[int]] = {}
    for handle, entrants, place, prize, buy_in in finishes:
        line = sums.setdefault(handle, [0, 0, 0, 0, 0])
        line[0] += 1
        line[1] += place == 1
        line[2] += prize > 0
        line[3] += 0 if place is None else points(entrants, place)
        line[4] += prize - buy_in
    lines = [Standing(handle, *line) for handle, line in sums.items()]
    return sorted(lines, key=lambda s: (-s.points, -s.wins, -s.net, s.handle.casefold(),
                                        s.handle))


class TournamentBook(Protocol):
    """The store's side of tournaments (see the module docstring). Every method is atomic
    and raises :class:`TournamentError` (``no_tournament`` for an unknown id, and the codes
    named below) with nothing changed; amounts are whole CUBES."""

    def create_tournament(self, key: str, name: str, kind: str, buy_in: int,
                          starts_at: float | None = None) -> int:
        """Record a new tournament, status ``registering``, created now; returns its id.
        ``key``, ``name``, ``kind`` are stored without control characters and must keep
        something printable (``blank``); ``buy_in`` 0 .. ``MAX_CUBES`` (``bad_buy_in``)."""
        ...

    def register(self, tid: int, handle: str, *, late: bool = False) -> int:
        """Enter ``handle`` in tournament ``tid``: its buy-in goes from their balance into
        the pool (journal reason :data:`BUY_IN`; none for a free tournament). Returns the
        new balance. Only while registering (``not_registering``), or with ``late`` only
        while running (``not_running``: the director's late registration), once
        (``registered``); raises InsufficientCubes, UnknownAccount."""
        ...

    def unregister(self, tid: int, handle: str) -> int:
        """Withdraw ``handle``'s entry while the tournament is registering
        (``not_registering``, ``not_registered``): the buy-in goes back from the pool
        (reason :data:`REFUND`). Returns the CUBES refunded."""
        ...

    def start_tournament(self, tid: int, state: Mapping[str, Any]) -> None:
        """``registering`` -> ``running`` (``not_registering``), started now, with the
        first ``state`` (a JSON object; TypeError or ValueError if it is not JSON-able)."""
        ...

    def save_tournament_state(self, tid: int, state: Mapping[str, Any]) -> None:
        """Replace a running tournament's state (``not_running``); durable once it
        returns: it survives a kill -9 of the server, and a power loss."""
        ...

    def finish_tournament(self, tid: int, places: Mapping[str, int],
                          prizes: Mapping[str, int], result: Mapping[str, Any]) -> None:
        """End a running tournament (``not_running``; so a pool is never paid twice): pay
        each handle of ``prizes`` its CUBES from the pool (reason :data:`PRIZE`; a prize
        of 0 moves nothing), record every entrant's place (``places``; ``None`` for one
        not named) and prize (0 for one not named), store ``result`` (a JSON object) and
        mark it ``finished`` now. Every handle must be an entrant (``not_entrant``), named
        once (``duplicate``), places >= 1 (``bad_place``), prizes >= 0 (``bad_prize``)
        adding up to the pool exactly (``prizes_not_pool``)."""
        ...

    def cancel_tournament(self, tid: int, reason: str) -> dict[str, int]:
        """Call off a registering or running tournament (``ended`` if it already
        finished or was cancelled): every entrant gets back what they paid into the pool
        (reason :data:`REFUND`, with ``reason`` as the note), it is marked ``cancelled``
        now with ``reason`` (stored without control characters; ``blank`` if nothing is
        left). Returns ``{handle: CUBES refunded}``."""
        ...

    def tournament(self, tid: int) -> TournamentRecord | None:
        """Tournament ``tid``, or ``None`` if there is none."""
        ...

    def tournaments(self, statuses: Collection[str] | None = None) -> list[TournamentRecord]:
        """Every tournament (only those in ``statuses`` if given; ``bad_status`` for a
        status not in :data:`STATUSES`), newest first."""
        ...

    def tournament_entries(self, tid: int) -> list[TournamentEntry]:
        """The entrants of tournament ``tid`` in the order they registered (a player who
        unregistered is no longer one)."""
        ...

    def pool(self, tid: int) -> int:
        """The CUBES in tournament ``tid``'s pool now."""
        ...

    def tournaments_of(self, handle: str) -> list[TournamentRecord]:
        """The tournaments ``handle`` is entered in, newest first; raises UnknownAccount."""
        ...

    def tournament_standings(self, since: float | None = None,
                             until: float | None = None) -> list[Standing]:
        """The players' standings (:func:`standings`, best first) over the tournaments
        that finished at or after ``since`` and before ``until`` (Unix seconds of their
        ``ended_at``; ``None``: no bound), such as a season's
        (:meth:`bbspoker.rules.seasons.Season.bounds`). Cancelled and unfinished
        tournaments count for nothing; computer players' accounts (the ledger's) take
        their places and count among the entrants but are not ranked."""
        ...


# ---------------------------------------------------------------- checks both stores share


def _printable(value: str, what: str) -> str:
    text = clean_text(value).strip()
    if not text:
        raise TournamentError("blank", f"a tournament's {what} needs printable text")
    return text


def check_new_tournament(key: str, name: str, kind: str,
                         buy_in: int) -> tuple[str, str, str]:
    """The ``key``, ``name`` and ``kind`` of a new tournament as stored (control and escape
    characters removed, surrounding spaces dropped); raises :class:`TournamentError`
    (``blank``, ``bad_buy_in``) as :meth:`TournamentBook.create_tournament` says."""
    if isinstance(buy_in, bool) or not isinstance(buy_in, int) or not 0 <= buy_in <= MAX_CUBES:
        raise TournamentError("bad_buy_in", f"a buy-in is 0 to {MAX_CUBES:,} CUBES, "
                              f"got {buy_in!r}", buy_in=buy_in)
    return _printable(key, "key"), _printable(name, "name"), _printable(kind, "kind")


def check_reason(reason: str) -> str:
    """A cancellation's reason as stored (no control or escape characters); ``blank``."""
    return _printable(reason, "cancellation reason")


def encode_json(value: Mapping[str, Any]) -> str:
    """``value`` (a tournament's state or result) as JSON text; TypeError or ValueError
    (NaN, infinity) if it is not a JSON object's worth, before anything is changed."""
    if not isinstance(value, Mapping):
        raise TypeError(f"a tournament's state or result is a mapping, got "
                        f"{type(value).__name__}")
    return json.dumps(dict(value), allow_nan=False, ensure_ascii=False)


def require_status(tid: int, status: str, wanted: str, code: str) -> None:
    """Raise :class:`TournamentError` ``code`` unless tournament ``tid`` is ``wanted``."""
    if status != wanted:
        raise TournamentError(code, f"tournament {tid} is {status}, not {wanted}",
                              tournament=tid, status=status)


def require_registration(tid: int, status: str, late: bool) -> None:
    """Raise :class:`TournamentError` unless tournament ``tid`` takes a registration:
    ``registering`` (``not_registering``), or with ``late`` ``running`` (``not_running``)."""
    if late:
        require_status(tid, status, "running", "not_running")
    else:
        require_status(tid, status, "registering", "not_registering")


def require_open(tid: int, status: str) -> None:
    """Raise :class:`TournamentError` ``ended`` if tournament ``tid`` finished or was
    cancelled."""
    if status not in OPEN_STATUSES:
        raise TournamentError("ended", f"tournament {tid} is already {status}",
                              tournament=tid, status=status)


def check_statuses(statuses: Collection[str] | None) -> tuple[str, ...]:
    """``statuses`` as a tuple (all of :data:`STATUSES` for ``None``); ``bad_status``."""
    if statuses is None:
        return STATUSES
    for status in statuses:
        if status not in STATUSES:
            raise TournamentError("bad_status", f"no tournament status {status!r} (one of "
                                  f"{', '.join(STATUSES)})", status=status)
    return tuple(statuses)


def no_tournament(tid: int) -> TournamentError:
    """The error for an unknown tournament id."""
    return TournamentError("no_tournament", f"no tournament {tid}", tournament=tid)


def check_payout(tid: int, pool: int, entrants: Mapping[str, str],
                 places: Mapping[str, int], prizes: Mapping[str, int],
                 key: Callable[[str], str]) -> tuple[dict[str, int], dict[str, int]]:
    """Check the end of tournament ``tid`` (:meth:`TournamentBook.finish_tournament`):
    ``entrants`` maps each entrant's handle key to the handle; ``key`` makes a handle's
    key. Returns ``(places, prizes)`` keyed by handle key; raises :class:`TournamentError`
    (``duplicate``, ``not_entrant``, ``bad_place``, ``bad_prize``, ``prizes_not_pool``)."""
    def keyed(mapping: Mapping[str, int], what: str) -> dict[str, int]:
        out: dict[str, int] = {}
        for handle, value in mapping.items():
            k = key(handle)
            if k in out:
                raise TournamentError("duplicate", f"{handle} is named twice in the {what}",
                                      tournament=tid, handle=handle)
            if k not in entrants:
                raise TournamentError("not_entrant", f"{handle} is not an entrant of "
                                      f"tournament {tid}", tournament=tid, handle=handle)
            if isinstance(value, bool) or not isinstance(value, int):
                raise TournamentError(f"bad_{what[:-1]}", f"the {what[:-1]} of {handle} is "
                                      f"not a whole number: {value!r}", tournament=tid,
                                      handle=handle)
            out[k] = value
        return out

    placed, paid = keyed(places, "places"), keyed(prizes, "prizes")
    for k, place in placed.items():
        if place < 1:
            raise TournamentError("bad_place", f"the place of {entrants[k]} must be at "
                                  f"least 1, got {place}", tournament=tid, handle=entrants[k])
    for k, prize in paid.items():
        if prize < 0:
            raise TournamentError("bad_prize", f"the prize of {entrants[k]} must be at least "
                                  f"0 CUBES, got {prize}", tournament=tid, handle=entrants[k])
    if sum(paid.values()) != pool:
        raise TournamentError("prizes_not_pool", f"the prizes add up to "
                              f"{sum(paid.values())} CUBES, but the pool of tournament "
                              f"{tid} holds {pool}", tournament=tid, pool=pool,
                              prizes=sum(paid.values()))
    return placed, paid


# ---------------------------------------------------------------- in memory


@dataclass(frozen=True)
class _Entry:
    handle: str
    buy_in: int
    registered_at: float
    place: int | None = None
    prize: int | None = None


@dataclass
class MemoryTournaments:
    """A :class:`TournamentBook` in memory on a :class:`MemoryWallet`'s balances (tests and
    the simulator); ``clock`` gives Unix seconds.

    :attr:`journal` lists the pool's movements ``(tournament id, handle, signed CUBES,
    reason)`` (negative: into the pool), so the pool is minus the sum of a tournament's
    rows, as in the ledger; :meth:`total` is every CUBE of the wallet plus the open pools.
    Each call is one :meth:`MemoryWallet.transaction` whose changes go through the wallet's
    undo log, so it joins an enclosing transaction (and is undone with it) like the
    ledger's methods, and a call that raises halfway leaves nothing behind."""

    wallet: MemoryWallet
    clock: Callable[[], float] = time.time
    _records: dict[int, TournamentRecord] = field(default_factory=dict, repr=False)
    # tournament id -> {handle's key: entry} in registration order, replaced on each change
    _entries: dict[int, dict[str, _Entry]] = field(default_factory=dict, repr=False)
    # the journal by row number (a mapping, so that the undo log can take rows back)
    _rows: dict[int, tuple[int, str, int, str]] = field(default_factory=dict, repr=False)

    @property
    def journal(self) -> list[tuple[int, str, int, str]]:
        """The pool's movements, oldest first: ``(tournament id, handle, CUBES, reason)``."""
        return list(self._rows.values())

    def _get(self, tid: int) -> TournamentRecord:
        record = self._records.get(tid)
        if record is None:
            raise no_tournament(tid)
        return record

    def _put(self, record: TournamentRecord, **changes: Any) -> None:
        record = replace(record, **changes)
        self.wallet._set(self._records, record.id, record)

    def _move(self, tid: int, handle: str, amount: int, reason: str) -> int:
        """Change ``handle``'s (the wallet's spelling) balance by ``amount`` CUBES and
        journal it; InsufficientCubes below zero."""
        balances = self.wallet.balances
        if balances[handle] + amount < 0:
            raise InsufficientCubes(f"{handle} has {balances[handle]} CUBES, needs {-amount}")
        self.wallet._set(balances, handle, balances[handle] + amount)
        self.wallet._set(self._rows, len(self._rows), (tid, handle, amount, reason))
        return balances[handle]

    def create_tournament(self, key: str, name: str, kind: str, buy_in: int,
                          starts_at: float | None = None) -> int:
        key, name, kind = check_new_tournament(key, name, kind, buy_in)
        with self.wallet.transaction():
            tid = max(self._records, default=0) + 1
            self._put(TournamentRecord(tid, key, name, kind, buy_in, "registering",
                                       self.clock(), starts_at, None, None, None, None, None))
            self.wallet._set(self._entries, tid, {})
            return tid

    def register(self, tid: int, handle: str, *, late: bool = False) -> int:
        with self.wallet.transaction():
            record = self._get(tid)
            require_registration(tid, record.status, late)
            name = self.wallet._key(handle)
            entries = self._entries[tid]
            if name.lower() in entries:
                raise TournamentError("registered", f"{name} is already registered for "
                                      f"tournament {tid}", tournament=tid, handle=name)
            balance = self.wallet.balances[name]
            if record.buy_in:
                balance = self._move(tid, name, -record.buy_in, BUY_IN)
            self.wallet._set(self._entries, tid, {
                **entries, name.lower(): _Entry(name, record.buy_in, self.clock())})
            return balance

    def unregister(self, tid: int, handle: str) -> int:
        with self.wallet.transaction():
            record = self._get(tid)
            require_status(tid, record.status, "registering", "not_registering")
            name = self.wallet._key(handle)
            entries = dict(self._entries[tid])
            entry = entries.pop(name.lower(), None)
            if entry is None:
                raise TournamentError("not_registered", f"{name} is not registered for "
                                      f"tournament {tid}", tournament=tid, handle=name)
            if entry.buy_in:
                self._move(tid, name, entry.buy_in, REFUND)
            self.wallet._set(self._entries, tid, entries)
            return entry.buy_in

    def start_tournament(self, tid: int, state: Mapping[str, Any]) -> None:
        text = encode_json(state)
        with self.wallet.transaction():
            record = self._get(tid)
            require_status(tid, record.status, "registering", "not_registering")
            self._put(record, status="running", started_at=self.clock(),
                      state=json.loads(text))

    def save_tournament_state(self, tid: int, state: Mapping[str, Any]) -> None:
        text = encode_json(state)
        with self.wallet.transaction():
            record = self._get(tid)
            require_status(tid, record.status, "running", "not_running")
            self._put(record, state=json.loads(text))

    def finish_tournament(self, tid: int, places: Mapping[str, int],
                          prizes: Mapping[str, int], result: Mapping[str, Any]) -> None:
        text = encode_json(result)
        with self.wallet.transaction():
            record = self._get(tid)
            require_status(tid, record.status, "running", "not_running")
            entries = self._entries[tid]
            placed, paid = check_payout(
                tid, self.pool(tid), {k: e.handle for k, e in entries.items()},
                places, prizes, str.lower)
            for k, prize in paid.items():
                if prize:
                    self._move(tid, entries[k].handle, prize, PRIZE)
            self.wallet._set(self._entries, tid, {
                k: replace(e, place=placed.get(k), prize=paid.get(k, 0))
                for k, e in entries.items()})
            self._put(record, status="finished", ended_at=self.clock(),
                      result=json.loads(text))

    def cancel_tournament(self, tid: int, reason: str) -> dict[str, int]:
        reason = check_reason(reason)
        with self.wallet.transaction():
            record = self._get(tid)
            require_open(tid, record.status)
            paid: dict[str, int] = {}
            for t, handle, amount, _ in self.journal:
                if t == tid:
                    paid[handle] = paid.get(handle, 0) - amount
            refunds = {handle: cubes for handle, cubes in paid.items() if cubes > 0}
            for handle, cubes in refunds.items():
                self._move(tid, handle, cubes, REFUND)
            self._put(record, status="cancelled", ended_at=self.clock(), reason=reason)
            return refunds

    @staticmethod
    def _copy(record: TournamentRecord) -> TournamentRecord:
        """``record`` with its own state and result, as the ledger reads them afresh: a
        caller who changes them changes nothing stored."""
        return replace(record, state=deepcopy(record.state), result=deepcopy(record.result))

    def tournament(self, tid: int) -> TournamentRecord | None:
        record = self._records.get(tid)
        return None if record is None else self._copy(record)

    def tournaments(self, statuses: Collection[str] | None = None) -> list[TournamentRecord]:
        wanted = check_statuses(statuses)
        return [self._copy(r) for _, r in sorted(self._records.items(), reverse=True)
                if r.status in wanted]

    def tournament_entries(self, tid: int) -> list[TournamentEntry]:
        self._get(tid)
        return [TournamentEntry(e.handle, e.buy_in, e.place, e.prize, e.registered_at)
                for e in self._entries[tid].values()]

    def pool(self, tid: int) -> int:
        self._get(tid)
        return -sum(amount for t, _, amount, _ in self._rows.values() if t == tid)

    def tournaments_of(self, handle: str) -> list[TournamentRecord]:
        key = self.wallet._key(handle).lower()
        return [r for r in self.tournaments() if key in self._entries[r.id]]

    def tournament_standings(self, since: float | None = None,
                             until: float | None = None) -> list[Standing]:
        return standings(
            (e.handle, len(entries), e.place, e.prize or 0, e.buy_in)
            for tid, entries in self._entries.items()
            if (r := self._records[tid]).status == "finished" and r.ended_at is not None
            and (since is None or r.ended_at >= since) and (until is None or r.ended_at < until)
            for e in entries.values())

    def total(self) -> int:
        """Every CUBE: the wallet's (:meth:`MemoryWallet.total`) plus the open pools."""
        return self.wallet.total() + sum(
            self.pool(r.id) for r in self._records.values() if r.status in OPEN_STATUSES)
