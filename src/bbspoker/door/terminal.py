"""The door's view of one connected user: the :class:`Terminal` session interface.

The door (login, lobby, table screens) talks to a user only through this interface;
each transport (``bbspoker.transport``: telnet, SSH, the browser's WebSocket) provides
a session that implements it (``bbspoker.transport.session.Session``). The door never imports a transport.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, cast

if TYPE_CHECKING:
    import blessed

    from bbspoker.door.keys import Key
    from bbspoker.door.look import Look

__all__ = ["Terminal", "Player", "player", "SessionClosed", "XMessage", "OnlineUser"]


class SessionClosed(Exception):
    """The connection has ended (client gone, timeout, limit, shutdown)."""


@dataclass(frozen=True, slots=True)
class XMessage:
    """An X-message: ``sender`` handle, ``text`` (already cleaned), ``sent_at`` (Unix seconds).

    ``notice`` not ``None``: the door's own word to this user, shown at once wherever they
    are and never kept in the inbox: ``"time_warning"`` (their BBS's time ends soon),
    ``"time_up"`` (it has ended: they leave the table between games, or at once at
    Hold'em) or ``"time_up_now"`` (they leave the table now)."""

    sender: str
    text: str
    sent_at: float
    notice: str | None = None


class Terminal(Protocol):
    """One connected user as the door sees it (before and after login).

    Attributes: ``address`` (the peer's IP address), ``counted_address`` (the address the
    connection counts under in the per-address caps; ``None``: a BBS's connection, counted
    in the total only), ``handle`` (as stored, ``None``
    before login), ``authenticated`` (the handle whose password or key the transport
    already checked, as SSH does; ``None``: the door asks), ``activity`` (``"login"``, ``"lobby"``, ``"table"`` ...: shown by
    [W]ho), ``where`` (the table's name while at one, else ``None``), ``term`` (a shared
    ``blessed.Terminal`` of the client's terminal kind, only to build escape sequences),
    ``encoding``, ``look`` (how its screens look: :class:`bbspoker.door.look.Look`, from
    the terminal kind and the character set, then the user's own choice once logged
    in), ``language`` (the door's language for this user: ``"en"``, ``"de"``,
    ``"fr"``), ``xtrn`` (the table id or game kind to go straight to after login,
    a BBS's ``xtrn=``; else ``None``), ``time_left`` (the seconds the caller has from the
    start of the session, a BBS's ``time=``; ``None``: no limit), ``cols``/``rows`` (the window size), ``inbox`` (unread
    :class:`XMessage` s, oldest first), and the listener lists ``resize_listeners``
    (``fn(cols, rows)``), ``xmessage_listeners`` (``fn(message)``) and ``key_listeners``
    (``fn()``, after keys are queued and when the session ends) and ``drain_listeners``
    (``fn()``, once each time :attr:`congested` turns false again). Listeners run inside
    the event that caused them: they must not raise or wait.
    """

    address: str
    counted_address: str | None
    handle: str | None
    authenticated: str | None
    activity: str
    where: str | None
    term: blessed.Terminal
    encoding: str
    look: Look
    language: str
    xtrn: str | None
    time_left: float | None
    cols: int
    rows: int
    inbox: list[XMessage]
    resize_listeners: list[Callable[[int, int], None]]
    xmessage_listeners: list[Callable[[XMessage], None]]
    key_listeners: list[Callable[[], None]]
    drain_listeners: list[Callable[[], None]]

    @property
    def closed(self) -> bool:
        """True once the session has ended or is ending (no more keys will come)."""
        ...

    @property
    def congested(self) -> bool:
        """True while the client is far behind with its output: a
        screen that can repaint itself writes nothing then, and repaints from a
        ``drain_listeners`` call once the client has caught up."""
        ...

    async def read_key(self, timeout: float | None = None) -> Key:
        """The next key; raises :class:`SessionClosed` once the session ends and
        ``TimeoutError`` after ``timeout`` seconds without a key."""
        ...

    def read_key_nowait(self) -> Key | None:
        """The next key if one is waiting, else ``None``; raises :class:`SessionClosed`."""
        ...

    def ignore_enter(self, seconds: float) -> None:
        """Drop the next key read if it is an Enter read within ``seconds`` from now (the
        one typed out of habit after a one-key choice)."""
        ...

    def write(self, text: str) -> None:
        """Queue terminal output; never blocks, never raises."""
        ...

    def end(self, message: str | None = None) -> None:
        """Show ``message`` (one line), flush and disconnect; idempotent."""
        ...

    def abort(self, reason: str) -> None:
        """Disconnect now without flushing; ``reason`` goes to the log."""
        ...

    async def wait_closed(self) -> None:
        """Wait until the connection is closed."""
        ...

    def deliver(self, message: XMessage) -> bool:
        """Put an X-message in the inbox (a notice: only tell the listeners); ``False`` if
        the inbox is full or the session ended."""
        ...


class Player(Terminal, Protocol):
    """A :class:`Terminal` someone has logged in on, as the lobby and the table screens
    see it: ``handle`` is theirs (as stored), never ``None``."""

    handle: str


class OnlineUser(Protocol):
    """Someone logged in, as [W]ho, an X-message and a login that takes a handle over
    see them: a :class:`Player` of this process, or a user of another gateway
    (``bbspoker gateway``: :class:`bbspoker.cluster.gateway.RemoteUser`). ``handle`` (as
    stored), ``activity`` and ``where`` as :class:`Terminal` says, ``language`` theirs."""

    @property
    def handle(self) -> str: ...

    @property
    def activity(self) -> str: ...

    @property
    def where(self) -> str | None: ...

    @property
    def language(self) -> str: ...

    def deliver(self, message: XMessage) -> bool:
        """Send them an X-message; ``False`` if their inbox is full or they are gone."""
        ...

    def end(self, message: str | None = None) -> None:
        """End their session with ``message`` (already in their language)."""
        ...

    async def wait_closed(self) -> None:
        """Wait until that session has ended."""
        ...


def player(session: Terminal) -> Player:
    """``session`` as a :class:`Player`, once its login has set ``handle`` (a session
    stays logged in until it ends). Raises ``AssertionError`` before login."""
    assert session.handle is not None, "nobody has logged in on this session"
    return cast(Player, session)
