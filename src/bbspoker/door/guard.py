"""Failed-login bookkeeping: which addresses are locked out, how long a guess on a handle
waits, and how many accounts an address has made, on the injected clock.

Issue 5 locked an address *or a handle* after ``max_failures`` failures; issue 20 found
that anyone could then lock the owner of any handle out, again and again, and that
parallel connections each got their own guesses. So now:

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
"""

from __future__ import annotations

import asyncio
from collections import Counter, deque
from collections.abc import Callable
from typing import Protocol

from bbspoker.config import InputConfig, LoginConfig
from bbspoker.store.sqlite import handle_key

__all__ = ["LoginGuard", "FloodGuard", "Blocks", "MAX_HANDLE_DELAY"]

_GUARD_PRUNE_AT = 4096
#: The longest a guess on a much-guessed handle waits (seconds).
MAX_HANDLE_DELAY = 60.0


def _recent(table: dict, key: object, now: float, window: float) -> deque[float]:
    """``table[key]``, the times of one kind of event (created empty), with those older
    than ``window`` seconds before ``now`` dropped."""
    times = table.setdefault(key, deque())
    while times and times[0] <= now - window:
        times.popleft()
    return times


class LoginGuard:
    """Failed-login bookkeeping (see the module docstring). ``clock`` gives monotonic
    seconds. Memory stays bounded: expired entries are pruned once the tables grow large."""

    def __init__(self, config: LoginConfig, clock: Callable[[], float]) -> None:
        self._config = config
        self._clock = clock
        self._guesses: dict[str, deque[float]] = {}     # address -> failures in the window
        self._inflight: Counter[str] = Counter()        # address -> guesses being checked
        self._locked_until: dict[str, float] = {}       # address -> end of its lockout
        self._handle_failures: dict[str, deque[float]] = {}  # handle key -> failure times
        self._handle_next: dict[str, float] = {}        # handle key -> next guess's time
        self._signups: dict[str, deque[float]] = {}     # address -> times of its sign-ups

    def _recent(self, table: dict[str, deque[float]], key: str, now: float) -> deque[float]:
        return _recent(table, key, now, self._config.failure_window)

    def locked(self, address: str) -> bool:
        """True if ``address`` is locked out right now."""
        return self._locked_until.get(address, 0.0) > self._clock()

    def busy(self, address: str) -> bool:
        """True while ``address``'s failures plus its guesses being checked reach
        ``max_failures``: its next guess must wait until one is decided."""
        failures = len(self._recent(self._guesses, address, self._clock()))
        return failures + self._inflight[address] >= self._config.max_failures \
            and not self.locked(address)

    async def reserve_turn(self, address: str, handle: str) -> float | None:
        """:meth:`reserve`, once :meth:`busy` lets ``address`` guess again (it polls every
        50 ms while other guesses from there are being checked)."""
        while self.busy(address):
            await asyncio.sleep(0.05)
        return self.reserve(address, handle)

    def reserve(self, address: str, handle: str) -> float | None:
        """A guess of ``handle``'s password from ``address`` is about to be checked (the
        caller waited while :meth:`busy`): count it as in flight and return the seconds it
        must wait first (0 for a handle with no recent failures), or ``None`` if the
        address is locked out. Call :meth:`succeeded` or :meth:`failed` after."""
        now = self._clock()
        if len(self._guesses) + len(self._handle_next) > _GUARD_PRUNE_AT:
            self._prune(now)
        if self.locked(address):
            return None
        if len(self._recent(self._guesses, address, now)) >= self._config.max_failures:
            self._locked_until[address] = now + self._config.lockout
            return None
        self._inflight[address] += 1
        key = handle_key(handle)
        failures = len(self._recent(self._handle_failures, key, now))
        delay = 0.0 if not failures else min(
            MAX_HANDLE_DELAY, self._config.failure_delay * 2 ** (failures - 1))
        start = max(now, self._handle_next.get(key, now))
        self._handle_next[key] = start + delay
        return start + delay - now

    def failed(self, address: str, handle: str) -> bool:
        """The reserved guess was wrong: it stays counted against the address, and the
        handle's next guess waits longer. True if the address has no guess left now (it
        is locked out)."""
        now = self._clock()
        self._done(address)
        self._recent(self._handle_failures, handle_key(handle), now).append(now)
        failures = self._recent(self._guesses, address, now)
        failures.append(now)
        if len(failures) >= self._config.max_failures:
            self._locked_until[address] = now + self._config.lockout
            return True
        return False

    def succeeded(self, address: str, handle: str) -> None:
        """The reserved guess was right: it no longer counts against the address, and the
        handle's failures are forgotten."""
        self._done(address)
        key = handle_key(handle)
        self._handle_failures.pop(key, None)
        self._handle_next.pop(key, None)

    def _done(self, address: str) -> None:
        self._inflight[address] -= 1
        if self._inflight[address] <= 0:
            del self._inflight[address]

    def signup_allowed(self, address: str) -> bool:
        """Whether ``address`` may create another account now: fewer than ``[login]
        signups_per_address`` within the last ``signup_window`` seconds (issue 20)."""
        cfg = self._config
        times = _recent(self._signups, address, self._clock(), cfg.signup_window)
        if not times:
            del self._signups[address]
        return len(times) < cfg.signups_per_address

    def signed_up(self, address: str) -> None:
        """``address`` created an account now."""
        if len(self._signups) > _GUARD_PRUNE_AT:
            cutoff = self._clock() - self._config.signup_window
            self._signups = {a: t for a, t in self._signups.items() if t and t[-1] > cutoff}
        self._signups.setdefault(address, deque()).append(self._clock())

    def _prune(self, now: float) -> None:
        window = self._config.failure_window
        self._guesses = {k: t for k, t in self._guesses.items() if t and t[-1] > now - window}
        self._handle_failures = {k: t for k, t in self._handle_failures.items()
                                 if t and t[-1] > now - window}
        self._handle_next = {k: t for k, t in self._handle_next.items() if t > now}
        self._locked_until = {k: u for k, u in self._locked_until.items() if u > now}


class BlockStore(Protocol):
    """Where blocks are kept across restarts (the ledger: ``block``, ``unblock``,
    ``blocks`` of :class:`bbspoker.store.sqlite.Ledger`)."""

    def block(self, recipient: str, sender: str) -> None: ...

    def unblock(self, recipient: str, sender: str) -> None: ...

    def blocks(self) -> list[tuple[str, str]]: ...


class Blocks:
    """Who refuses X-messages from whom ([B]lock while reading them; issue 20); handles
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
    """Per-user limits of what reaches other people's screens (issue 20: 9,000 chat lines in
    40 s pushed the table's messages off every screen; X-messages at 31/s filled a
    victim's inbox): ``[input] chat_lines`` per ``chat_window`` s and ``xmessages`` per
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
