"""Failed-login bookkeeping: who is locked out, on the injected clock."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from bbspoker.config import LoginConfig
from bbspoker.store.sqlite import handle_key

__all__ = ["LoginGuard"]

_GUARD_PRUNE_AT = 4096


class LoginGuard:
    """Failed-login bookkeeping (issue 5: Evennia's 5 per 5 minutes, Synchronet's lockout).

    ``max_failures`` failures from one address, or on one handle, within
    ``failure_window`` seconds lock that address or that handle out for
    ``lockout`` seconds. ``clock`` gives monotonic seconds. Memory stays
    bounded: expired entries are pruned once the tables grow large.
    """

    def __init__(self, config: LoginConfig, clock: Callable[[], float]) -> None:
        self._config = config
        self._clock = clock
        self._failures: dict[str, deque[float]] = {}
        self._locked_until: dict[str, float] = {}
        self._signups: dict[str, deque[float]] = {}   # address -> times of its sign-ups

    @staticmethod
    def _keys(address: str, handle: str | None) -> list[str]:
        keys = [f"address {address}"]
        if handle is not None:
            keys.append(f"handle {handle_key(handle)}")
        return keys

    def locked(self, address: str, handle: str | None = None) -> bool:
        """True if ``address`` (or ``handle``, if given) is locked out right now."""
        now = self._clock()
        return any(self._locked_until.get(key, 0.0) > now for key in self._keys(address, handle))

    def failed(self, address: str, handle: str) -> bool:
        """Record a failed login; returns True if it locked the address or the handle out."""
        now = self._clock()
        cfg = self._config
        if len(self._failures) + len(self._locked_until) > _GUARD_PRUNE_AT:
            self._prune(now)
        locked = False
        for key in self._keys(address, handle):
            times = self._failures.setdefault(key, deque())
            times.append(now)
            while times and times[0] <= now - cfg.failure_window:
                times.popleft()
            if len(times) >= cfg.max_failures:
                self._locked_until[key] = now + cfg.lockout
                del self._failures[key]
                locked = True
        return locked

    def signup_allowed(self, address: str) -> bool:
        """Whether ``address`` may create another account now: fewer than ``[login]
        signups_per_address`` within the last ``signup_window`` seconds (issue 20)."""
        cfg, now = self._config, self._clock()
        times = self._signups.get(address)
        while times and times[0] <= now - cfg.signup_window:
            times.popleft()
        if times is not None and not times:
            del self._signups[address]
            times = None
        return len(times or ()) < cfg.signups_per_address

    def signed_up(self, address: str) -> None:
        """``address`` created an account now."""
        if len(self._signups) > _GUARD_PRUNE_AT:
            cutoff = self._clock() - self._config.signup_window
            self._signups = {a: t for a, t in self._signups.items() if t and t[-1] > cutoff}
        self._signups.setdefault(address, deque()).append(self._clock())

    def succeeded(self, handle: str) -> None:
        """A correct password: forget the failures counted on ``handle``."""
        self._failures.pop(f"handle {handle_key(handle)}", None)

    def _prune(self, now: float) -> None:
        window = self._config.failure_window
        self._failures = {k: t for k, t in self._failures.items() if t and t[-1] > now - window}
        self._locked_until = {k: u for k, u in self._locked_until.items() if u > now}
