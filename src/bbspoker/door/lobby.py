"""Login and the door's menu: ``Handle:``/``Password:``, new users, lockouts, [P] [W] [X] [R] [H] [Q].

:func:`serve` is one connection's whole dialogue after telnet negotiation
(issue 3 "Login and lobby", issue 5 "Logins"):

- ``Handle:`` then ``Password:`` (never echoed). An unknown handle is offered
  ``Create new user <handle>? (y/n)``, a password typed twice and the
  configured starting CUBES. Handles are checked by
  :func:`bbspoker.store.sqlite.validate_handle` (2-16 printable characters, unique
  without regard to case). A banned user is refused with the reason.
- A wrong password waits ``[login] failure_delay`` seconds; ``max_failures``
  failures from one address or on one handle within ``failure_window``
  seconds lock that address or handle out for ``lockout`` seconds
  (:class:`LoginGuard`). Logs record address, handle and outcome only.
- After login: the ledger's notices (e.g. refunds of games cut short by a
  crash), then the one-screen menu with single-key choices (any case).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING

from wcwidth import wrap

from bbspoker.door.screens import draw40 as poker
from bbspoker.config import LoginConfig
from bbspoker.door.keys import Edit, KeyKind, LineEditor
from bbspoker.store.sqlite import HandleTaken, handle_key, validate_handle
from bbspoker.store.passwords import MAX_PASSWORD_LENGTH, validate_password
from bbspoker.transport.session import Session, SessionClosed, XMessage
from bbspoker.text import clean_text

if TYPE_CHECKING:
    from bbspoker.app import App

__all__ = ["serve", "LoginGuard", "XMESSAGE_WIDTH", "HELP_TEXT"]

log = logging.getLogger("bbspoker.door.lobby")

#: Screen cells an X-message may take (it is shown on one line of its own).
XMESSAGE_WIDTH = 70
#: Characters a handle prompt accepts (a longer handle is refused with a message).
_HANDLE_INPUT = 32
_GUARD_PRUNE_AT = 4096

HELP_TEXT = """\
PoKeR in short (40-card European draw poker; the full rules: chapter 3)

 - The pack has 40 cards: the 2s, 3s and 4s are taken out. A-K-Q-J-10-9-8-7-6-5.
 - Up to five players sit at the table. The game-master starts a game with [S];
   everyone seated pays the ante (10 CUBES) into the pot and gets five cards.
 - Round 1: bet with [B] (at least the last bet, at most 200 CUBES; Enter alone
   calls) or pass with [P]. Bets leave your CUBES at once.
 - Discarding interval: select up to three cards with [1]-[5], confirm with [D].
 - Rounds 3 and on: bet again; [H] then a bet asks to see hands (showdown).
 - Showdown: reveal your hand with [R]; the best hand takes the whole pot.
 - Hands, best first: royal flush, straight flush, four of a kind, full house,
   flush, straight (8-7-6-5-A is the lowest), three of a kind, two pairs,
   one pair, high card. Suits decide only between equal hands: + * # -
 - You have one minute to act (three minutes for a master to start a game).
 - [.] chats with the table, [X] leaves it. Money left in the pot stays there.
"""

_MENU = [
    ("P", "Enter the poker table"),
    ("W", "Who is online"),
    ("X", "Send an X-message"),
    ("R", "Read X-messages"),
    ("H", "Help: the rules in short"),
    ("Q", "Quit"),
]


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

    def succeeded(self, handle: str) -> None:
        """A correct password: forget the failures counted on ``handle``."""
        self._failures.pop(f"handle {handle_key(handle)}", None)

    def _prune(self, now: float) -> None:
        window = self._config.failure_window
        self._failures = {k: t for k, t in self._failures.items() if t and t[-1] > now - window}
        self._locked_until = {k: u for k, u in self._locked_until.items() if u > now}


# --- small dialogue helpers ---------------------------------------------------------

async def read_line(session: Session, prompt: str, *, max_chars: int,
                    max_width: int | None = None, hidden: bool = False,
                    timeout: float | None = None) -> str:
    """Show ``prompt`` (one line, no CR/LF) and read one line with :class:`bbspoker.door.keys.LineEditor`.

    Echoes what is typed (nothing when ``hidden``: passwords), Backspace
    works. Returns the line on Enter, ``""`` on Esc (callers take it as
    "cancelled"). Raises :class:`SessionClosed` or ``TimeoutError`` (no key
    for ``timeout`` s).
    """
    editor = LineEditor(max_chars, max_width)
    session.write(prompt)
    while True:
        edit = editor.press(await session.read_key(timeout))
        if edit in (Edit.DONE, Edit.CANCELLED):
            session.write("\r\n")
            return editor.text
        if edit is Edit.TYPING and not hidden:
            session.write(f"\r{prompt}{editor.text}{session.term.clear_eol}")


async def ask_yes_no(session: Session, question: str, timeout: float | None = None) -> bool:
    """Show ``question`` and wait for Y or N (any case; other keys do nothing)."""
    session.write(question + " ")
    while True:
        key = await session.read_key(timeout)
        if key.kind is KeyKind.CHAR and key.char.lower() in ("y", "n"):
            session.write(key.char.lower() + "\r\n")
            return key.char.lower() == "y"


async def press_any_key(session: Session, timeout: float | None) -> None:
    """Show ``Press any key`` and wait for one."""
    session.write("\r\n[Press any key]")
    await session.read_key(timeout)


def _log_login(session: Session, handle: str, outcome: str) -> None:
    # Address, handle and outcome only: never the password or its hash.
    log.info("login address=%s handle=%r outcome=%s", session.address, handle, outcome)


# --- login --------------------------------------------------------------------------

async def _login(session: Session, app: App) -> str | None:
    """The login dialogue; returns the handle as stored, or None if the session ended."""
    term = session.term
    session.write(f"{term.home}{term.clear}{term.bold}Global Village BBS{term.normal}"
                  " - PoKeR door\r\n\r\n")
    while True:
        if app.guard.locked(session.address):
            _log_login(session, "", "address locked out")
            session.end("Too many failed logins from your address. Try again later.")
            return None
        typed = await read_line(session, "Handle: ", max_chars=_HANDLE_INPUT)
        if not typed.strip():
            continue
        try:
            handle = validate_handle(typed)
        except ValueError as exc:
            session.write(f"Sorry, {exc}.\r\n")
            continue
        if app.guard.locked(session.address, handle):
            _log_login(session, handle, "locked out")
            session.end("Too many failed logins. Try again later.")
            return None
        account = app.ledger.find_account(handle)
        if account is None:
            created = await _new_user(session, app, handle)
            if created is not None:
                return created
            continue
        if account.banned:
            _log_login(session, account.handle, "banned")
            reason = clean_text(account.ban_reason or "no reason given", 60)
            session.end(f"{account.handle} is banned from this door: {reason}")
            return None
        password = await read_line(session, "Password: ", max_chars=MAX_PASSWORD_LENGTH,
                                   hidden=True)
        if not password:
            continue
        stored = app.ledger.password_hash(account.handle)
        if stored is not None and await app.verify_password(stored, password):
            app.guard.succeeded(account.handle)
            _log_login(session, account.handle, "ok")
            return account.handle
        now_locked = app.guard.failed(session.address, account.handle)
        _log_login(session, account.handle, "wrong password")
        await app.sleep(app.config.login.failure_delay)
        if now_locked:
            session.end("Wrong password. Too many failed logins: try again later.")
            return None
        session.write("Wrong password.\r\n\r\n")


async def _new_user(session: Session, app: App, handle: str) -> str | None:
    """Offer to create ``handle``; returns it as stored, or None to ask for a handle again."""
    if not await ask_yes_no(session, f"Create new user {handle}? (y/n)"):
        return None
    password = await read_line(session, "Password: ", max_chars=MAX_PASSWORD_LENGTH, hidden=True)
    try:
        validate_password(password)
    except ValueError as exc:
        session.write(f"Sorry, {exc}.\r\n")
        return None
    again = await read_line(session, "Password again: ", max_chars=MAX_PASSWORD_LENGTH,
                            hidden=True)
    if again != password:
        session.write("The passwords differ. Let's start again.\r\n")
        return None
    password_hash = await app.hash_password(password)
    try:
        account = app.ledger.create_account(handle, password_hash)
    except HandleTaken:
        session.write("Someone just took that handle. Please choose another.\r\n")
        return None
    _log_login(session, account.handle, "new user")
    return account.handle


async def _take_over(session: Session, app: App, handle: str, timeout: float) -> bool:
    """Log ``session`` in as ``handle``; if already online elsewhere, offer to end that one."""
    while (other := app.find_online(handle)) is not None:
        if not await ask_yes_no(session, f"{handle} is already online. "
                                         "End that session? (y/n)", timeout):
            session.end("Goodbye.")
            return False
        other.end("You logged in from another connection.")
        await other.wait_closed()
        app.log_out(other)
    app.log_in(session, handle)
    return True


# --- the menu -----------------------------------------------------------------------

def _draw_menu(session: Session, app: App) -> None:
    term = session.term
    unread = len(session.inbox)
    cubes = app.ledger.balance(session.handle)
    lines = [f"{term.home}{term.clear}{term.bold}Global Village BBS - PoKeR door{term.normal}",
             "", f"Logged in as {session.handle}. You have {cubes:,} CUBES.", ""]
    for key, label in _MENU:
        extra = f" ({unread} unread)" if key == "R" and unread else ""
        lines.append(f"  [{key}] {label}{extra}")
    lines += ["", "This door uses ANSI escape sequences.", "", "Your choice: "]
    session.write("\r\n".join(lines))


async def serve(session: Session, app: App) -> None:
    """One connection after negotiation: login (within ``[server] prelogin_timeout``), then
    the menu until [Q], the lobby idle timeout (``lobby_idle_timeout``) or a disconnect."""
    try:
        async with asyncio.timeout(app.config.server.prelogin_timeout):
            handle = await _login(session, app)
            if handle is None or not await _take_over(session, app, handle, None):
                return
    except TimeoutError:
        _log_login(session, "", "login timed out")
        session.end("Login timed out. Goodbye.")
        return
    except SessionClosed:
        return
    try:
        await _lobby(session, app)
    except TimeoutError:
        session.end("You have been idle too long. Goodbye.")
    except SessionClosed:
        pass


async def _lobby(session: Session, app: App) -> None:
    idle = app.config.server.lobby_idle_timeout
    app.ledger.touch(session.handle)
    notices = app.ledger.notices(session.handle)
    if notices:
        session.write("\r\nMessages from the sysop:\r\n")
        for notice in notices:   # wrapped, not cut: a refund notice ends with the amount
            lines = wrap(clean_text(notice), 79, initial_indent=" * ", subsequent_indent="   ",
                         max_lines=6)
            session.write("".join(f"{line}\r\n" for line in lines))
        app.ledger.clear_notices(session.handle)
        await press_any_key(session, idle)
    at_choice = False

    def xmessage_arrived(message: XMessage) -> None:
        if at_choice:
            session.write(f"\r\n*** X-message from {message.sender}: press [R] to read."
                          "\r\nYour choice: ")

    session.xmessage_listeners.append(xmessage_arrived)
    try:
        while True:
            _draw_menu(session, app)
            at_choice = True
            key = await session.read_key(idle)
            at_choice = False
            choice = key.char.upper() if key.kind is KeyKind.CHAR else ""
            if choice == "Q":
                session.end("Goodbye, come back soon!")
                return
            action = _ACTIONS.get(choice)
            if action is not None:
                session.write(choice + "\r\n")
                await action(session, app, idle)
    finally:
        session.xmessage_listeners.remove(xmessage_arrived)


async def _poker(session: Session, app: App, idle: float) -> None:
    session.activity = "poker"
    try:
        await poker.enter_table(session, app)
    finally:
        session.activity = "lobby"


async def _who(session: Session, app: App, idle: float) -> None:
    term = session.term
    users = app.who()
    room = max(session.rows - 5, 1)
    session.write(f"{term.home}{term.clear}Who is online ({len(users)}):\r\n\r\n")
    for other in users[:room]:
        where = "at the poker table" if other.activity == "poker" else "in the lobby"
        session.write(f"  {other.handle:<16}  {where}\r\n")
    if len(users) > room:
        session.write(f"  ... and {len(users) - room} more\r\n")
    await press_any_key(session, idle)


async def _send_xmessage(session: Session, app: App, idle: float) -> None:
    session.write("\r\n")
    typed = await read_line(session, "Send an X-message to: ", max_chars=_HANDLE_INPUT,
                            timeout=idle)
    if not typed.strip():
        return
    recipient = app.find_online(typed.strip())
    if recipient is None:
        session.write(f"Nobody called {clean_text(typed, 16)} is online.\r\n")
        await press_any_key(session, idle)
        return
    if recipient.activity == "poker":
        session.write(f"{recipient.handle} is playing poker: it may take a while "
                      "until you get an answer.\r\n")
    width = min(XMESSAGE_WIDTH, session.cols - 10)
    text = clean_text(await read_line(session, "Message: ", max_chars=4 * width,
                                      max_width=width, timeout=idle), XMESSAGE_WIDTH)
    if not text.strip():
        session.write("Nothing sent.\r\n")
    elif recipient.deliver(XMessage(session.handle, text, time.time())):
        session.write(f"X-message sent to {recipient.handle}.\r\n")
    else:
        session.write(f"{recipient.handle} cannot take more X-messages right now.\r\n")
    await press_any_key(session, idle)


async def _read_xmessages(session: Session, app: App, idle: float) -> None:
    term = session.term
    if not session.inbox:
        session.write("\r\nNo X-messages.\r\n")
        await press_any_key(session, idle)
        return
    per_page = max((session.rows - 4) // 2, 1)
    while session.inbox:
        page, session.inbox[:per_page] = session.inbox[:per_page], []
        session.write(f"{term.home}{term.clear}X-messages:\r\n\r\n")
        for message in page:
            sent = time.strftime("%H:%M", time.localtime(message.sent_at))
            session.write(f"From {message.sender} at {sent}:\r\n  {message.text}\r\n")
        await press_any_key(session, idle)


async def _help(session: Session, app: App, idle: float) -> None:
    term = session.term
    session.write(f"{term.home}{term.clear}" + HELP_TEXT.replace("\n", "\r\n"))
    await press_any_key(session, idle)


_ACTIONS = {"P": _poker, "W": _who, "X": _send_xmessage, "R": _read_xmessages, "H": _help}
