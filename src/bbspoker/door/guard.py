"""Failed-login bookkeeping: which addresses are locked out, how long a guess on a handle
waits, and how many accounts an address has made, on the injected clock.

A handle is never locked out (locking one after ``max_failures`` failures would let
anyone lock its owner out, again and again), and guesses still being checked count, so
that parallel connections cannot each get their own guesses. The rules:

- an **address** gets ``max_failures`` wrong guesses within ``failure_window`` seconds,
  then it is locked out for ``lockout`` seconds. Guesses being checked count too: while
  the failures plus the guesses in flight reach ``max_failures`` the next one waits
  (:meth:`LoginGuard.busy`) until one of them is decided, so parallel connections cannot
  get more guesses than that, and people behind one address who log in at once are only
  held up a moment, never locked out;
- a **handle** is never locked: once a guess on it failed, the next guesses on it are
  checked one after another, however many connections make them, each after a wait that
  doubles with every recent failure (``failure_delay``, then twice that, ... at most
  :data:`MAX_HANDLE_DELAY`), so guessing from many addresses gains little; its owner gets
  in with the right password after that wait.

Each guess holds a :class:`Turn` (its place in the handle's line and one of its address's
guesses in flight) from :meth:`LoginGuard.reserve` until it is decided or given up: a
connection that ends while it waits (it dropped, or its pre-login timeout cancelled it)
releases the turn, so it leaves neither a place in the line nor a count behind. A guess
whose turn would come after its connection's pre-login deadline is refused at once
(:class:`HandleBusy`) instead of being queued to time out, and so is one that finds
:data:`MAX_HANDLE_LINE` guesses already waiting on the handle.

Sign-ups are counted per :func:`address_group` (an IPv6 address by its /64, the block one
subscriber gets) from the moment the door offers to make the account
(:meth:`LoginGuard.reserve_signup`), so parallel connections cannot all pass the check
before any account exists; one given up is released. The accounts made are kept by the
ledger with that group, so the window outlives a restart (``signups`` of
:class:`LoginGuard`).
"""

from __future__ import annotations

import asyncio
import ipaddress
from collections import Counter, deque
from collections.abc import Callable, Iterable
from typing import Protocol

from bbspoker.config import InputConfig, LoginConfig
from bbspoker.store.sql import handle_key

__all__ = ["LoginGuard", "Turn", "HandleBusy", "SignupPlace", "address_group", "FloodGuard",
           "Blocks", "MAX_HANDLE_DELAY", "MAX_HANDLE_LINE"]

_GUARD_PRUNE_AT = 4096
#: The longest a guess on a much-guessed handle waits (seconds).
MAX_HANDLE_DELAY = 60.0
#: The most guesses that may wait on one handle at once; more are refused (:class:`HandleBusy`).
MAX_HANDLE_LINE = 16


def _recent(table: dict, key: object, now: float, window: float) -> deque[float]:
    """``table[key]``, the times of one kind of event (created empty), with those older
    than ``window`` seconds before ``now`` dropped."""
    times = table.setdefault(key, deque())
    while times and times[0] <= now - window:
        times.popleft()
    return times


def address_group(address: str) -> str:
    """The addresses counted as one for sign-ups and wrong guesses: an IPv6 address's /64
    network
    (``"2001:db8:1:2::/64"``; one subscriber usually gets a whole /64, so counting single
    addresses would count nothing), an IPv4-mapped IPv6 address as its IPv4 address, any
    other address (IPv4, or a transport's own name) as it is."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


class HandleBusy(Exception):
    """A guess on a handle was not queued: its turn would come after its connection's
    pre-login deadline, or :data:`MAX_HANDLE_LINE` guesses already wait on the handle.
    Nothing was counted. ``retry_after``: seconds (>= 0) until the guesses waiting now
    have had their turns."""

    def __init__(self, retry_after: float) -> None:
        super().__init__(f"too many guesses wait on this handle; try again in "
                         f"{retry_after:.0f} s")
        self.retry_after = retry_after


class Turn:
    """One guess's place, from :meth:`LoginGuard.reserve`: the guess may be checked once
    ``wait`` seconds have passed (``check_at``, on the guard's clock). End it with
    :meth:`failed` or :meth:`succeeded` once the password was checked, and call
    :meth:`release` in a ``finally`` for every other way out (the connection dropped, a
    timeout cancelled it): the first of the three counts, later calls do nothing."""

    __slots__ = ("_guard", "address", "key", "check_at", "wait", "_open")

    def __init__(self, guard: LoginGuard, address: str, key: str, check_at: float,
                 wait: float) -> None:
        self._guard, self.address, self.key = guard, address, key
        self.check_at, self.wait = check_at, wait
        self._open = True

    def failed(self) -> bool:
        """The guess was wrong: it stays counted against the address (which is locked out
        at ``max_failures``), and the handle's next guesses wait longer. True if the
        address has no guess left now (it is locked out)."""
        return self._end() and self._guard._failed(self)

    def succeeded(self) -> None:
        """The guess was right: it no longer counts against the address, and the handle's
        failures are forgotten."""
        if self._end():
            self._guard._succeeded(self)

    def release(self) -> None:
        """The guess was never checked: give back its place in the handle's line and its
        count against the address, as if it had not been made."""
        if self._end():
            self._guard._released(self)

    def _end(self) -> bool:
        if not self._open:
            return False
        self._open = False
        self._guard._leave(self)
        return True


class SignupPlace:
    """One sign-up being made from ``group`` (an :func:`address_group`), counted from
    :meth:`LoginGuard.reserve_signup` on: :meth:`made` once the account exists,
    :meth:`release` in a ``finally`` for every other way out; the first counts."""

    __slots__ = ("_guard", "group", "_open")

    def __init__(self, guard: LoginGuard, group: str) -> None:
        self._guard, self.group, self._open = guard, group, True

    def made(self) -> None:
        """The account was made now: it counts for the rest of the window."""
        if self._open:
            self._open = False
            self._guard._signup_done(self.group, made=True)

    def release(self) -> None:
        """The sign-up was given up: it counts no more."""
        if self._open:
            self._open = False
            self._guard._signup_done(self.group, made=False)


class LoginGuard:
    """Failed-login bookkeeping (see the module docstring). An address is counted by its
    :func:`address_group` (an IPv6 /64 as one), so a subscriber cannot step past
    ``max_failures`` by guessing from a new address of its /64 each time. ``clock``
    gives monotonic seconds. ``signups``: the sign-ups made before this guard started, ``(address group,
    age in seconds)`` (the ledger's ``recent_signups``), counted for the rest of their
    window. Memory stays bounded: expired entries are pruned once the tables grow large.
    ``Busy`` is :class:`HandleBusy`, for callers that may not import the door (the bot
    port: ``except host.guard.Busy``)."""

    Busy = HandleBusy

    def __init__(self, config: LoginConfig, clock: Callable[[], float],
                 signups: Iterable[tuple[str, float]] = ()) -> None:
        self._config = config
        self._clock = clock
        self._guesses: dict[str, deque[float]] = {}     # address -> failures in the window
        self._inflight: Counter[str] = Counter()        # address -> guesses being checked
        self._locked_until: dict[str, float] = {}       # address -> end of its lockout
        self._handle_failures: dict[str, deque[float]] = {}  # handle key -> failure times
        self._handle_next: dict[str, float] = {}        # handle key -> last decided check
        self._lines: dict[str, list[Turn]] = {}         # handle key -> turns not yet ended
        self._signups: dict[str, deque[float]] = {}     # address group -> its sign-up times
        self._signing_up: Counter[str] = Counter()      # address group -> sign-ups under way
        now = clock()
        for group, age in sorted(signups, key=lambda row: -row[1]):
            self._signups.setdefault(group, deque()).append(now - max(0.0, age))

    def _recent(self, table: dict[str, deque[float]], key: str, now: float) -> deque[float]:
        return _recent(table, key, now, self._config.failure_window)

    def locked(self, address: str) -> bool:
        """True if ``address`` (its :func:`address_group`) is locked out right now."""
        return self._locked_until.get(address_group(address), 0.0) > self._clock()

    def busy(self, address: str) -> bool:
        """True while ``address``'s failures plus its guesses being checked reach
        ``max_failures``: its next guess must wait until one is decided."""
        group = address_group(address)
        failures = len(self._recent(self._guesses, group, self._clock()))
        return failures + self._inflight[group] >= self._config.max_failures \
            and not self.locked(group)

    async def reserve_turn(self, address: str, handle: str,
                           deadline: float | None = None) -> Turn | None:
        """:meth:`reserve`, once :meth:`busy` lets ``address`` guess again (it polls every
        50 ms while other guesses from there are being checked)."""
        while self.busy(address):
            await asyncio.sleep(0.05)
        return self.reserve(address, handle, deadline)

    def reserve(self, address: str, handle: str, deadline: float | None = None) -> Turn | None:
        """A guess of ``handle``'s password from ``address`` is about to be checked (the
        caller waited while :meth:`busy`): its :class:`Turn`, counted as in flight, whose
        ``wait`` is the seconds to wait first (0 for a handle with no recent failures; else
        after the guesses ahead of it, ``failure_delay`` doubled per recent failure, at
        most :data:`MAX_HANDLE_DELAY`), or ``None`` if the address is locked out. Raises
        :class:`HandleBusy` (nothing counted) if the turn would come after ``deadline``
        (the connection's pre-login deadline on the guard's clock) or
        :data:`MAX_HANDLE_LINE` guesses wait on the handle already."""
        now = self._clock()
        if len(self._guesses) + len(self._handle_next) > _GUARD_PRUNE_AT:
            self._prune(now)
        address = address_group(address)  # one subscriber's /64 guesses as one address
        if self.locked(address):
            return None
        if len(self._recent(self._guesses, address, now)) >= self._config.max_failures:
            self._locked_until[address] = now + self._config.lockout
            return None
        key = handle_key(handle)
        failures = len(self._recent(self._handle_failures, key, now))
        delay = 0.0 if not failures else min(
            MAX_HANDLE_DELAY, self._config.failure_delay * 2 ** (failures - 1))
        line = self._lines.get(key, [])
        start = max(now, self._handle_next.get(key, now), *(t.check_at for t in line))
        if len(line) >= MAX_HANDLE_LINE or (deadline is not None and start + delay > deadline):
            raise HandleBusy(start - now)
        turn = Turn(self, address, key, start + delay, start + delay - now)
        self._inflight[address] += 1
        self._lines.setdefault(key, []).append(turn)
        return turn

    def _leave(self, turn: Turn) -> None:
        """``turn`` ends, however: it leaves its handle's line and its address's count."""
        line = self._lines.get(turn.key, [])
        if turn in line:
            line.remove(turn)
        if not line:
            self._lines.pop(turn.key, None)
        self._inflight[turn.address] -= 1
        if self._inflight[turn.address] <= 0:
            del self._inflight[turn.address]

    def _failed(self, turn: Turn) -> bool:
        now = self._clock()
        self._recent(self._handle_failures, turn.key, now).append(now)
        self._handle_next[turn.key] = max(turn.check_at, self._handle_next.get(turn.key, 0.0))
        failures = self._recent(self._guesses, turn.address, now)
        failures.append(now)
        if len(failures) >= self._config.max_failures:
            self._locked_until[turn.address] = now + self._config.lockout
            return True
        return False

    def _succeeded(self, turn: Turn) -> None:
        self._handle_failures.pop(turn.key, None)
        self._handle_next.pop(turn.key, None)

    def _released(self, turn: Turn) -> None:
        """Nothing to do beyond :meth:`_leave`: the turns behind it keep the waits they
        were given, the next one queues behind the last of them."""

    # --- sign-ups --------------------------------------------------------------------

    def reserve_signup(self, address: str) -> SignupPlace | None:
        """Count a sign-up from ``address``'s :func:`address_group` now, before the door
        offers to make the account: its :class:`SignupPlace`, or ``None`` if the group made
        or is making ``[login] signups_per_address`` accounts within the last
        ``signup_window`` seconds already (0: only the sysop makes accounts)."""
        cfg = self._config
        group = address_group(address)
        now = self._clock()
        if len(self._signups) > _GUARD_PRUNE_AT:
            cutoff = now - cfg.signup_window
            self._signups = {g: t for g, t in self._signups.items() if t and t[-1] > cutoff}
        times = _recent(self._signups, group, now, cfg.signup_window)
        if not times:
            del self._signups[group]
        if len(times) + self._signing_up[group] >= cfg.signups_per_address:
            return None
        self._signing_up[group] += 1
        return SignupPlace(self, group)

    def _signup_done(self, group: str, made: bool) -> None:
        self._signing_up[group] -= 1
        if self._signing_up[group] <= 0:
            del self._signing_up[group]
        if made:
            self._signups.setdefault(group, deque()).append(self._clock())

    def _prune(self, now: float) -> None:
        window = self._config.failure_window
        self._guesses = {k: t for k, t in self._guesses.items() if t and t[-1] > now - window}
        self._handle_failures = {k: t for k, t in self._handle_failures.items()
                                 if t and t[-1] > now - window}
        self._handle_next = {k: t for k, t in self._handle_next.items() if t > now}
        self._locked_until = {k: u for k, u in self._locked_until.items() if u > now}


class BlockStore(Protocol):
    """Where blocks are kept across restarts (the ledger: ``block``, ``unblock``,
    ``blocks`` of :class:`bbspoker.store.sql.Ledger`)."""

    def block(self, recipient: str, sender: str) -> None: ...

    def unblock(self, recipient: str, sender: str) -> None: ...

    def blocks(self) -> list[tuple[str, str]]: ...


class Blocks:
    """Who refuses X-messages from whom ([B]lock while reading them); handles
    compared without regard to case. With a ``store`` the blocks are read from it once and
    written through to it, so they outlive a restart; without one they last as long as
    this object."""

    def __init__(self, store: BlockStore | None = None) -> None:
        self._store = store
        self._blocked: dict[str, set[str]] = {}
        for recipient, sender in store.blocks() if store is not None else ():
            self._blocked.setdefault(handle_key(recipient), set()).add(handle_key(sender))

    def block(self, recipient: str, sender: str) -> None:
        """``recipient`` takes no more X-messages from ``sender``. Raises what the store
        raises (``UnknownAccount``); nothing is blocked then."""
        if self._store is not None:
            self._store.block(recipient, sender)
        self._blocked.setdefault(handle_key(recipient), set()).add(handle_key(sender))

    def unblock(self, recipient: str, sender: str) -> None:
        """``recipient`` takes X-messages from ``sender`` again."""
        if self._store is not None:
            self._store.unblock(recipient, sender)
        self._blocked.get(handle_key(recipient), set()).discard(handle_key(sender))

    def blocks(self, recipient: str, sender: str) -> bool:
        """Whether ``recipient`` refuses X-messages from ``sender``."""
        return handle_key(sender) in self._blocked.get(handle_key(recipient), ())


class FloodGuard:
    """Per-user limits of what reaches other people's screens (without them, 9,000 chat
    lines in 40 s pushed the table's messages off every screen, and X-messages at 31/s
    filled a victim's inbox): ``[input] chat_lines`` per ``chat_window`` s and ``xmessages`` per
    ``xmessage_window`` s, counted per handle across tables and connections."""

    def __init__(self, config: InputConfig, clock: Callable[[], float]) -> None:
        self._limits = {"chat": (config.chat_lines, config.chat_window),
                        "xmessage": (config.xmessages, config.xmessage_window)}
        self._clock = clock
        self._sent: dict[tuple[str, str], deque[float]] = {}

    def allow(self, kind: str, handle: str) -> bool:
        """Count one ``kind`` (``"chat"`` or ``"xmessage"``) sent by ``handle`` now; False
        (nothing counted) if that would pass its limit."""
        most, window = self._limits[kind]
        now = self._clock()
        if len(self._sent) > _GUARD_PRUNE_AT:
            self._sent = {k: t for k, t in self._sent.items() if t and t[-1] > now - 86400}
        times = _recent(self._sent, (kind, handle_key(handle)), now, window)
        if len(times) >= most:
            return False
        times.append(now)
        return True
