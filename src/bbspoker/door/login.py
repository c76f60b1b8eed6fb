"""Login: ``Handle:``/``Password:``, new users, lockouts, one session per handle.

The rules:

- Every session opens with the title screen (:func:`bbspoker.door.title.show_title`,
  with ``[door] title``), then the greeting on a cleared screen.

- A session whose transport checked the password or key (SSH: ``session.authenticated``)
  skips the dialogue; the ban and the approval are checked as below.
  :func:`check_password` is that check for SSH, with the same rules.
- ``Handle:`` then ``Password:`` (never echoed). An unknown handle is offered
  ``Create new user <handle>? (y/n)``, a password typed twice and the
  configured starting CUBES (at most ``[login] signups_per_address`` new accounts per
  address, an IPv6 address counted by its /64, within ``signup_window``: an address that
  has used them up is told so before the question, and asked for a handle again; with
  ``[login] approval`` the account waits for ``bbspoker users approve``). A ledger that
  cannot store the account (disk full) is told to the user in a sentence and logged in
  one line. Handles are checked by
  :func:`bbspoker.store.sql.validate_handle` (2-16 printable characters, unique
  without regard to case). A banned user is refused with the reason, once the
  password is right (nobody else learns it).
- A wrong password waits ``[login] failure_delay`` seconds; ``max_failures``
  guesses from one address within ``failure_window`` seconds lock that address out for
  ``lockout`` seconds; a handle is never locked, its guesses are slowed down
  (:class:`bbspoker.door.guard.LoginGuard`). A guess whose turn on the handle would come
  after the connection's ``[server] prelogin_timeout`` is refused at once with the
  seconds to wait; every way out of the dialogue (a timeout, a dropped connection)
  gives back the guess's place and the sign-up it was counting.
  Logs record address, handle and outcome only.
"""

from __future__ import annotations

import asyncio
import logging
import math
from typing import TYPE_CHECKING

from bbspoker.door import i18n, look
from bbspoker.door.guard import HandleBusy, SignupPlace
from bbspoker.door.i18n import N_
from bbspoker.door.prompts import ask_yes_no, read_line
from bbspoker.door.title import show_title
from bbspoker.store.passwords import MAX_PASSWORD_LENGTH, validate_password
from bbspoker.store.sql import HandleTaken, validate_handle
from bbspoker.store.wallet import StoreError
from bbspoker.text import clean_text, wrap

if TYPE_CHECKING:
    from bbspoker.door.context import DoorContext
    from bbspoker.store.sql import Account
    from bbspoker.door.terminal import Terminal

__all__ = ["log_in", "check_password", "HANDLE_INPUT"]

log = logging.getLogger("bbspoker.door.login")

#: Characters a handle prompt accepts (a longer handle is refused with a message).
HANDLE_INPUT = 32
_WAITING = N_("The sysop approves new accounts here: you can log in, with your starting "
              "CUBES, once yours is approved.")


def _say(session: Terminal, text: str) -> str:
    """``text`` broken at spaces into lines that fit the session's window (at most 79
    columns: a line filling the 80th would wrap by itself on many terminals), joined
    with CR LF: for :meth:`Terminal.write` (add the line end) or :meth:`Terminal.end`."""
    width = max(20, min(getattr(session, "cols", 80) or 80, 80) - 1)
    return "\r\n".join(wrap(text, width))


def _busy_text(t: i18n.Translator, handle: str, busy: HandleBusy) -> str:
    """What a user whose guess on ``handle`` was not queued (:class:`HandleBusy`) reads."""
    seconds = max(1, math.ceil(busy.retry_after))
    return t.ngettext("Too many logins on {h} are waiting to be checked. Please try again "
                      "in {n} second.",
                      "Too many logins on {h} are waiting to be checked. Please try again "
                      "in {n} seconds.", seconds).format(h=handle, n=t.number(seconds))


def _log_login(session: Terminal, handle: str, outcome: str) -> None:
    _log_address(session.address, handle, outcome)


def _log_address(address: str, handle: str, outcome: str) -> None:
    # Address, handle and outcome only: never the password or its hash.
    log.info("login address=%s handle=%r outcome=%s", address, handle, outcome)


async def check_password(app: DoorContext, address: str, handle: str,
                         password: str) -> bool | None:
    """A password given outside the door's dialogue (SSH's password authentication), with
    the rules of the dialogue: ``True`` if ``password`` is ``handle``'s (any case of the
    handle); ``False`` for a wrong one (after ``[login] failure_delay`` s, counted
    against ``address`` and slowing down the next guess on the handle, as on telnet), an
    unknown handle or a bot's account (after the same wait, counted against nothing, as
    an unknown handle typed on telnet costs no guess, and so when too many guesses wait
    on the handle to be checked before ``[server] prelogin_timeout`` from now); ``None``
    if ``address`` is locked out, now or by this failure (the caller disconnects with
    the lockout message). Cancelled while it waits, it leaves no guess counted.
    A banned or not yet approved account's right password is ``True``: the door tells
    its owner why it stays shut (:func:`log_in`)."""
    if app.guard.locked(address):
        _log_address(address, handle, "address locked out")
        return None
    try:
        handle = validate_handle(handle, new=False)
    except ValueError:
        account = None
    else:
        account = app.ledger.find_account(handle)
    if account is None or account.bot or not password:
        _log_address(address, handle, "unknown handle" if account is None else "refused")
        await app.sleep(app.config.login.failure_delay)
        return False
    # SSH's own login timeout started with the connection, a little earlier than this.
    deadline = app.clock() + app.config.server.prelogin_timeout
    try:
        turn = await app.guard.reserve_turn(address, account.handle, deadline)
    except HandleBusy:
        _log_address(address, account.handle, "refused: too many guesses wait on the handle")
        await app.sleep(app.config.login.failure_delay)
        return False
    if turn is None:
        _log_address(address, account.handle, "address locked out")
        return None
    try:
        if turn.wait > 0:
            await app.sleep(turn.wait)
        stored = app.ledger.password_hash(account.handle)
        if stored is not None and await app.verify_password(stored, password):
            turn.succeeded()
            _log_address(address, account.handle, "password ok")
            return True
        now_locked = turn.failed()
    finally:
        turn.release()
    _log_address(address, account.handle, "wrong password")
    await app.sleep(app.config.login.failure_delay)
    return None if now_locked else False


def _authenticated(session: Terminal, app: DoorContext, handle: str) -> str | None:
    """The account whose password or key the transport checked: its handle as stored, or
    ``None`` once the session was ended with the reason (gone, a bot's, banned, waiting
    for approval)."""
    account = app.ledger.find_account(handle)
    if account is None or account.bot:
        _log_login(session, handle, "no such account")
        session.end(i18n.of(session).gettext("There is no account {h} here.").format(
            h=clean_text(handle, 16)))
        return None
    if _shut_out(session, account):
        return None
    _log_login(session, account.handle, "ok (authenticated by the transport)")
    return account.handle


def _shut_out(session: Terminal, account: Account) -> bool:
    """``True`` (the session ended, its owner told why) if ``account``, whose password or
    key was right, is banned or waits for the sysop's approval."""
    if account.banned:
        _log_login(session, account.handle, "banned")
        t = i18n.of(session)
        reason = clean_text(account.ban_reason or t.gettext("no reason given"), 60)
        session.end(t.gettext("{h} is banned from this door: {reason}").format(
            h=account.handle, reason=reason))
        return True
    if not account.approved:
        _log_login(session, account.handle, "waiting for approval")
        session.end(_say(session, i18n.of(session).gettext(_WAITING)))
        return True
    return False


# --- login --------------------------------------------------------------------------

async def _login(session: Terminal, app: DoorContext, deadline: float) -> str | None:
    """The login dialogue, to be over by ``deadline`` (on ``app.clock``); returns the
    handle as stored, or None if the session ended."""
    term = session.term
    # Until logged in: the transport's choice (the browser page's language), else the
    # configured default.
    session.language = getattr(session, "language", None) or app.config.i18n.default
    _ = i18n.of(session).gettext
    if app.config.door.title:
        # The door's opening (every transport's session comes here; the bot port never
        # does): it leaves the screen cleared, the pen reset.
        await show_title(session, app.config.door.title_seconds)
    session.write(f"{term.home}{term.clear}{term.bold}Global Village BBS{term.normal}"
                  + _(" - PoKeR door") + "\r\n\r\n")
    if session.authenticated is not None:
        return _authenticated(session, app, session.authenticated)
    while True:
        if app.guard.locked(session.address):
            _log_login(session, "", "address locked out")
            session.end(_("Too many failed logins from your address. Try again later."))
            return None
        typed = await read_line(session, _("Handle: "), max_chars=HANDLE_INPUT)
        if not typed.strip():
            continue
        try:
            handle = validate_handle(typed, new=False)
        except ValueError as exc:
            session.write(_("Sorry, {reason}.").format(reason=why_refused(exc, i18n.of(session))) + "\r\n")
            continue
        account = app.ledger.find_account(handle)
        if account is None:
            created = await _new_user(session, app, handle)
            if created is not None:
                return created
            continue
        if account.bot:
            _log_login(session, account.handle, "bot account")
            session.write(_("{h} is a computer player; it does not log in here.").format(
                h=account.handle) + "\r\n\r\n")
            continue
        password = await read_line(session, _("Password: "), max_chars=MAX_PASSWORD_LENGTH,
                                   hidden=True)
        if not password:
            continue
        try:
            turn = await app.guard.reserve_turn(session.address, account.handle, deadline)
        except HandleBusy as busy:
            _log_login(session, account.handle, "refused: too many guesses wait on the handle")
            session.write(_say(session, _busy_text(i18n.of(session), account.handle, busy))
                          + "\r\n\r\n")
            continue
        if turn is None:
            _log_login(session, account.handle, "address locked out")
            session.end(_("Too many failed logins from your address. Try again later."))
            return None
        now_locked = False
        try:
            if turn.wait > 0:              # recent failures on this handle: slowed down
                session.write(_("Checking...") + "\r\n")
                await app.sleep(turn.wait)
            stored = app.ledger.password_hash(account.handle)
            right = stored is not None and await app.verify_password(stored, password)
            if right:
                turn.succeeded()
            else:
                now_locked = turn.failed()
        finally:
            turn.release()                 # a timeout or a dropped connection
        if right:
            # Only the owner learns why the door stays shut (the ban reason must not be
            # shown to anyone who types the handle).
            if _shut_out(session, account):
                return None
            _log_login(session, account.handle, "ok")
            return account.handle
        _log_login(session, account.handle, "wrong password")
        await app.sleep(app.config.login.failure_delay)
        if now_locked:
            session.end(_("Wrong password. Too many failed logins: try again later."))
            return None
        session.write(_("Wrong password.") + "\r\n\r\n")


#: Why a handle or a password is refused (the ``code`` of
#: :class:`~bbspoker.store.sql.records.InvalidHandle`, :class:`HandleTaken` and
#: :class:`~bbspoker.store.passwords.InvalidPassword`), as the user reads it.
_REFUSED = {
    "length": N_("a handle has 2 to 16 characters"),
    "printable": N_("a handle may only contain printable characters"),
    "width": N_("a handle may be at most 16 columns wide"),
    "reserved": N_("the handle {handle} is reserved"),
    "blank": N_("a handle may not contain blank or invisible characters"),
    "at": N_("a handle may not contain @"),
    "taken": N_("the handle {handle} is taken"),
    "alike": N_("{handle} looks too much like {like}"),
    "short": N_("password too short: use at least {n} characters"),
    "long": N_("password too long: use at most {n} characters"),
    "control": N_("password contains control characters"),
    "spaces": N_("a password may not be only spaces"),
}


def why_refused(exc: Exception, t: i18n.Translator) -> str:
    """Why a handle or a password was refused, in ``t``'s language: the exception's
    ``code`` and ``data`` (:data:`_REFUSED`), or its English for one without a code."""
    code = getattr(exc, "code", None)
    if code not in _REFUSED:
        return str(exc)
    data = {k: (t.number(v) if isinstance(v, int) else v)
            for k, v in getattr(exc, "data", {}).items()}
    return t.gettext(_REFUSED[code]).format(**data)


async def _new_user(session: Terminal, app: DoorContext, handle: str) -> str | None:
    """Offer to create ``handle``; returns it as stored, or None to ask for a handle again
    (or when the session ends: the new account waits for the sysop's approval). The
    sign-up counts against the address from before the question until the account is
    made, and no longer if it is given up (``n``, a password refused, a timeout, a
    dropped connection); an address that has used up its sign-ups is told so at once."""
    t = i18n.of(session)
    _ = t.gettext
    try:
        handle = app.ledger.check_new_handle(handle)
    except (ValueError, HandleTaken) as exc:
        session.write(_("Sorry, {reason}.").format(reason=why_refused(exc, t)) + "\r\n"
                      + _("Please choose another.") + "\r\n")
        return None
    place = app.guard.reserve_signup(session.address)
    if place is None:
        _log_login(session, handle, "sign-up refused: too many from this address")
        session.write(_say(session, _("There is no account {h} here.").format(h=handle) + " "
                           + _("No more new accounts from your address for now. Please try "
                               "again later, or log in with the account you have."))
                      + "\r\n\r\n")
        return None
    try:
        return await _make_account(session, app, handle, place)
    finally:
        place.release()


async def _make_account(session: Terminal, app: DoorContext, handle: str,
                        place: SignupPlace) -> str | None:
    """The rest of :func:`_new_user`, with the sign-up counted in ``place``."""
    t = i18n.of(session)
    _ = t.gettext
    if not await ask_yes_no(session, _("Create new user {h}? (y/n)").format(h=handle)):
        return None
    # One character more than allowed, so that a password too long is refused with the
    # reason rather than cut.
    password = await read_line(session, _("Password: "), max_chars=MAX_PASSWORD_LENGTH + 1,
                               hidden=True)
    try:
        validate_password(password)
    except ValueError as exc:
        session.write(_("Sorry, {reason}.").format(reason=why_refused(exc, t)) + "\r\n")
        return None
    again = await read_line(session, _("Password again: "), max_chars=MAX_PASSWORD_LENGTH,
                            hidden=True)
    if again != password:
        session.write(_("The passwords differ. Let's start again.") + "\r\n")
        return None
    password_hash = await app.hash_password(password)
    approval = app.config.login.approval
    try:
        account = app.ledger.create_account(handle, password_hash, approved=not approval,
                                            signup_from=place.group)
    except HandleTaken:
        session.write(_("Someone just took that handle. Please choose another.") + "\r\n")
        return None
    except StoreError as exc:           # disk full, I/O error, the write lock held
        log.error("login address=%s handle=%r outcome=sign-up failed: the ledger cannot "
                  "store the account: %s", session.address, handle, exc)
        session.write(_say(session, _("Sorry, the server cannot store new accounts right "
                                      "now. Please try again later.")) + "\r\n\r\n")
        return None
    place.made()
    _log_login(session, account.handle, "new user")
    if approval:
        session.end(_say(session, _("Your account {h} is made.").format(h=account.handle)
                         + " " + _(_WAITING)))
        return None
    return account.handle


async def _take_over(session: Terminal, app: DoorContext, handle: str,
                     timeout: float | None) -> bool:
    """Log ``session`` in as ``handle``; if already online elsewhere, offer to end that one.
    Logged in, the session speaks the language its user chose ([L]), else the default,
    and looks as they chose ([O]: :func:`bbspoker.door.look.detect` with their choices)."""
    _ = i18n.of(session).gettext
    while (other := app.find_online(handle)) is not None:
        if not await ask_yes_no(session, _("{h} is already online. End that session? (y/n)")
                                .format(h=handle), timeout):
            session.end(_("Goodbye."))
            return False
        other.end(i18n.of(other).gettext("You logged in from another connection."))
        await other.wait_closed()
        app.log_out(other)
    app.log_in(session, handle)
    session.language = app.ledger.language_of(handle) or app.config.i18n.default
    account = app.ledger.find_account(handle)
    if account is not None:
        session.look = look.detect(session.encoding, session.term.number_of_colors,
                                   account.look, account.suits)
    return True


async def log_in(session: Terminal, app: DoorContext) -> str | None:
    """The whole login dialogue within ``[server] prelogin_timeout``: the handle, the
    password or a new account, and taking over a session of the same handle elsewhere.
    Returns the handle as stored once ``session`` is logged in, or ``None`` if it ended
    (refused, timed out: the user has been told). Raises
    :class:`~bbspoker.door.terminal.SessionClosed` if the connection drops."""
    deadline = app.clock() + app.config.server.prelogin_timeout
    try:
        async with asyncio.timeout(app.config.server.prelogin_timeout):
            handle = await _login(session, app, deadline)
            if handle is None or not await _take_over(session, app, handle, None):
                return None
            return handle
    except TimeoutError:
        _log_login(session, "", "login timed out")
        session.end(i18n.of(session).gettext("Login timed out. Goodbye."))
        return None
