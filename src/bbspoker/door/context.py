"""What the door needs of the server: the :class:`DoorContext` interface.

The composition root (:class:`bbspoker.app.App`) implements it; the door's modules
receive it as an argument and never import the app, so no import circle runs through
the door (``tests/test_architecture.py``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from bbspoker.config import Config
    from bbspoker.door.guard import Blocks, FloodGuard, LoginGuard
    from bbspoker.door.terminal import OnlineUser, Terminal
    from bbspoker.store.sql import Ledger
    from bbspoker.table.director import TournamentDirector
    from bbspoker.table.registry import Tables

__all__ = ["DoorContext"]


class DoorContext(Protocol):
    """The server as the door sees it.

    - ``config``: the :class:`bbspoker.config.Config`.
    - ``ledger``: accounts, CUBES and notices (:class:`bbspoker.store.sql.Ledger`).
    - ``tables``: every table (:class:`bbspoker.table.registry.Tables`: in this process
      or, in a gateway, followed on the workers that serve them).
    - ``clock``: monotonic seconds; ``sleep``: ``async sleep(seconds)`` (tests inject both).
    - ``guard``: the failed-login bookkeeping (:class:`bbspoker.door.guard.LoginGuard`).
    - ``floods``: the per-user limits of chat and X-messages
      (:class:`bbspoker.door.guard.FloodGuard`); ``blocks``: who refuses X-messages from
      whom (:class:`bbspoker.door.guard.Blocks`).
    - ``tournaments``: the tournaments (:class:`bbspoker.table.director.TournamentDirector`:
      the lobby's [T] list, registration, the table each entrant sits at).
    """

    config: Config
    ledger: Ledger
    clock: Callable[[], float]
    sleep: Callable[[float], Awaitable[Any]]
    guard: LoginGuard
    floods: FloodGuard
    blocks: Blocks
    tournaments: TournamentDirector

    @property
    def tables(self) -> Tables:
        """Every table, in lobby order."""
        ...

    def find_online(self, handle: str) -> OnlineUser | None:
        """``handle`` (any case) if logged in, here or on another gateway, else ``None``."""
        ...

    def who(self) -> list[OnlineUser]:
        """Everyone logged in (on every gateway), sorted by handle without regard to case."""
        ...

    def log_in(self, session: Terminal, handle: str) -> None:
        """Register ``session`` as ``handle`` (as stored)."""
        ...

    def log_out(self, session: Terminal | OnlineUser) -> None:
        """Forget ``session`` as a logged-in user."""
        ...

    async def hash_password(self, password: str) -> str:
        """The stored form of a new password (off the event loop)."""
        ...

    async def verify_password(self, stored: str, password: str) -> bool:
        """Whether ``password`` matches ``stored`` (off the event loop)."""
        ...
