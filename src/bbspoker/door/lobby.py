"""The door's lobby: the one-screen menu [P] [T] [W] [X] [R] [S] [F] [L] [O] [C] [H] [Q] after
login ([T], the tournaments, only on a server that has some).

:func:`serve` is one connection's whole dialogue after the transport's negotiation:
the login (:mod:`bbspoker.door.login`), the ledger's notices (e.g. refunds of games
cut short by a crash), then the menu with single-key choices (any case).

A BBS's caller (the RLOGIN door server) may come with a table to go to (``xtrn``: a
table id or a game kind; they go straight to it after login) and with the time they
have left on their BBS (``time_left``): :data:`TIME_WARNING` seconds before its end
they are warned; at its end a player leaves the table between games (at once at
Hold'em: their hand folds and their stack is cashed out when it ends; at the latest
:data:`FINISH_GRACE` seconds after the end) and the session ends with a goodbye, so
that the BBS gets its caller back.
"""

from __future__ import annotations

import logging
import math
import re
import time
from typing import TYPE_CHECKING

from wcwidth import wrap

from bbspoker import tasks
from bbspoker.door import halloffame, i18n, look, tournaments
from bbspoker.door.i18n import LANGUAGE_NAMES, LANGUAGES, N_
from bbspoker.door.keys import KeyKind
from bbspoker.door.look import CLASSIC, KEY, Look, Pen, handle_pen, pen_of
from bbspoker.door.messages import REASONS, describe_stats
from bbspoker.door.login import HANDLE_INPUT, log_in, why_refused
from bbspoker.door.prompts import press_any_key, read_line
from bbspoker.door.screens import kinds
from bbspoker.door.screens.base import enter_table
from bbspoker.door.terminal import SessionClosed, XMessage, player
from bbspoker.rules.fairness import PHRASE_MAX, SHORT
from bbspoker.store.passwords import MAX_PASSWORD_LENGTH, validate_password
from bbspoker.store.wallet import StoreError
from bbspoker.text import clean_text, display_width, fit

if TYPE_CHECKING:
    from bbspoker.door.context import DoorContext
    from bbspoker.door.terminal import Player, Terminal
    from bbspoker.table.registry import TableRef
    from bbspoker.store.sql import Notice

__all__ = ["serve", "XMESSAGE_WIDTH", "TIME_WARNING", "FINISH_GRACE"]

log = logging.getLogger("bbspoker.door.lobby")

#: Screen cells an X-message may take (it is shown on one line of its own).
XMESSAGE_WIDTH = 70
#: Seconds before the end of a BBS caller's time at which they are warned.
TIME_WARNING = 120.0
#: Seconds a draw40 or Schiebe-Poker game may go on after a caller's time is up before
#: they leave it anyway (a game that runs on; their stakes in it stay in the pot).
FINISH_GRACE = 180.0

_MENU = [
    ("P", N_("Play poker: the tables")),
    ("T", N_("Tournaments: sit-and-go and scheduled")),
    ("W", N_("Who is online")),
    ("X", N_("Send an X-message")),
    ("R", N_("Read X-messages")),
    ("S", N_("Stats: your results")),
    ("F", N_("Fair deck: your client seed")),
    ("L", N_("Language: English, Deutsch, Français")),
    ("O", N_("Options: colour or classic look, suits")),
    ("C", N_("Change your password")),
    ("H", N_("Help: the rules in short")),
    ("Q", N_("Quit")),
]


# --- the look of the pages ----------------------------------------------------------
#
# The lobby's pages are written as a stream. A colour look paints what each piece of text
# is (Look.paint: a heading, a key, a value, a refusal ...); the classic look's paint
# gives the text back as it is, so its pages are the GV door's, byte for byte. Widths are
# measured (fit, display_width) before painting: SGR sequences take no cells.

#: The dash of a help page's point: at the start of a line, after the indent.
_BULLET = re.compile(r"^( +)- ", re.MULTILINE)


def _keys(look: Look, text: str) -> str:
    """``text`` with the character of each key in brackets (``[P]``) in the key's pen, as
    ``look`` paints it (as is in monochrome)."""
    if not look.colour:
        return text
    return KEY.sub(lambda m: "[" + look.paint(m.group(1), Pen.KEY) + "]", text)


def _page(session: Terminal, title: str, bold: bool = True) -> str:
    """The start of a lobby page on ``session``: the screen cleared, ``title`` on the
    first row and the second row under it. In colour the title is in the title's pen
    over a rule as wide as it (``═`` as the look draws it, in the border's pen); in
    monochrome it is bold (``bold``: the pages that always had it) over a blank row."""
    term, look = session.term, session.look
    if look.colour:
        rule = look.paint(look.glyphs("═" * display_width(title)), Pen.BORDER)
        return f"{term.home}{term.clear}{look.paint(title, Pen.TITLE)}\r\n{rule}\r\n"
    if bold:
        title = f"{term.bold}{title}{term.normal}"
    return f"{term.home}{term.clear}{title}\r\n\r\n"


# --- the menu -----------------------------------------------------------------------

def _draw_menu(session: Player, app: DoorContext) -> None:
    """Clear the screen and show the menu (:func:`_menu_lines`) with the user's CUBES."""
    lines = _menu_lines(i18n.of(session), session.handle or "",
                        app.ledger.balance(session.handle),
                        sum(app.ledger.stacks_of(session.handle).values()),
                        len(session.inbox), session.look, bool(app.config.tournaments))
    session.write(_page(session, lines[0]) + "\r\n".join(lines[2:]))


def _menu_lines(t: i18n.Translator, handle: str, cubes: int, held: int,
                unread: int, look: Look = CLASSIC, tournaments: bool = False) -> list[str]:
    """The lobby's menu in ``t``'s language, as lines (the title first, a blank line
    under it, the prompt last): ``handle`` with ``cubes`` CUBES, ``held`` more CUBES in
    Hold'em stacks, ``unread`` X-messages waiting (shown after [R]), [T] only with
    ``tournaments``; painted as ``look`` paints (your handle as yourself, the numbers as
    values, the keys as keys)."""
    _ = t.gettext
    paint = look.paint
    h, n = paint(handle, Pen.SELF), paint(t.number(cubes), Pen.VALUE)
    you = _("Logged in as {h}. You have {cubes} CUBES.").format(h=h, cubes=n)
    if held:     # a Hold'em stack stays at its table until the hand one left ends
        you = _("Logged in as {h}. You have {cubes} CUBES, and {held} CUBES at the "
                "tables.").format(h=h, cubes=n, held=paint(t.number(held), Pen.VALUE))
    lines = ["Global Village BBS" + _(" - PoKeR door"), "", you, ""]
    for key, label in _MENU:
        if key == "T" and not tournaments:
            continue
        extra = (" " + paint(t.ngettext("({n} unread)", "({n} unread)", unread).format(
            n=t.number(unread)), Pen.VALUE)) if key == "R" and unread else ""
        lines.append(f"  [{paint(key, Pen.KEY)}] {_(label)}{extra}")
    return lines + ["", _("This door uses ANSI escape sequences."), "", _("Your choice: ")]


class _Visit:
    """A BBS caller's time (``session.time_left``): ``up`` once it has run out."""

    def __init__(self) -> None:
        self.up = False


async def serve(session: Terminal, app: DoorContext) -> None:
    """One connection after negotiation: login (within ``[server] prelogin_timeout``), then
    the menu until [Q], the lobby idle timeout (``lobby_idle_timeout``), the end of a BBS
    caller's time (``session.time_left``) or a disconnect."""
    visit = _Visit()
    seconds = getattr(session, "time_left", None)
    watch = (tasks.start(_watch_time(session, app, seconds, visit),
                         name=f"time of {session.address}") if seconds is not None else None)
    try:
        try:
            if await log_in(session, app) is None:
                return
        except SessionClosed:
            return
        try:
            await _lobby(player(session), app, visit)
        except TimeoutError:
            session.end(i18n.of(session).gettext("You have been idle too long. Goodbye."))
        except SessionClosed:
            pass
    finally:
        if watch is not None:
            watch.cancel()


def _time_up_text(session: Terminal) -> str:
    """The goodbye of a caller whose time on their BBS has run out."""
    return i18n.of(session).gettext("Your time is up: back to your BBS. Goodbye!")


async def _watch_time(session: Terminal, app: DoorContext, seconds: float,
                      visit: _Visit) -> None:
    """A BBS caller's time (``seconds`` from now, on ``app.sleep``): the warning
    :data:`TIME_WARNING` s before its end (a notice, shown at the table or in the lobby),
    then at its end ``visit.up``, a ``time_up`` notice (a table screen leaves between
    games) and, if they are not at a table, the end of the session; a game still running
    :data:`FINISH_GRACE` s later is left anyway (``time_up_now``)."""
    if seconds > TIME_WARNING:
        await app.sleep(seconds - TIME_WARNING)
        minutes = math.ceil(TIME_WARNING / 60)
        t = i18n.of(session)             # the user's language, once logged in
        session.deliver(XMessage("", t.ngettext(
            "Your time on your BBS ends in {n} minute.",
            "Your time on your BBS ends in {n} minutes.", minutes).format(
                n=t.number(minutes)), time.time(), notice="time_warning"))
        seconds = TIME_WARNING
    await app.sleep(max(seconds, 0.0))
    visit.up = True
    log.info("the time of %s from %s is up", session.handle, session.address)
    if session.where is None:
        session.end(_time_up_text(session))
        return
    session.deliver(XMessage("", i18n.of(session).gettext(
        "Your time is up: you leave the table when this game ends."), time.time(),
        notice="time_up"))
    await app.sleep(FINISH_GRACE)
    if session.where is not None:
        session.deliver(XMessage("", i18n.of(session).gettext("Your time is up."), time.time(),
                                 notice="time_up_now"))


def describe_notice(notice: Notice, t: i18n.Translator) -> str:
    """A notice waiting since the user's last visit, in ``t``'s language (it is stored
    as a code with data): a game called off and refunded (``game_cancelled``), a stack
    cashed out at a restart (``stack_cashed_out``), a tournament called off and its
    buy-in refunded (``tournament_cancelled``). A notice of an older database (no
    code) or of a code this version does not know is shown in its stored English."""
    d, n = notice.data, t.number
    reason = d.get("reason", "")
    reason = t.gettext(REASONS[reason]) if reason in REASONS else reason
    if notice.code == "game_cancelled" and d.get("table") is None:
        return t.gettext("Game {game} was cancelled ({reason}): your {cubes} CUBES of ante "
                         "and bets were refunded.").format(
            game=d["game"], reason=reason, cubes=n(d["cubes"]))
    if notice.code == "game_cancelled":
        return t.gettext("Game {game} was cancelled ({reason}): your {cubes} CUBES of blinds "
                         "and bets went back to your stack at table {table}.").format(
            game=d["game"], reason=reason, cubes=n(d["cubes"]), table=d["table"])
    if notice.code == "tournament_cancelled":
        return t.gettext("The tournament {name} was called off: your buy-in of {cubes} CUBES "
                         "was refunded.").format(name=clean_text(str(d.get("name", "")), 20),
                                                 cubes=n(d["cubes"]))
    if notice.code == "stack_cashed_out":
        return t.gettext("Your stack of {cubes} CUBES at table {table} was cashed out when "
                         "the server started again ({reason}).").format(
            cubes=n(d["cubes"]), table=d["table"], reason=reason)
    return notice.text


async def _lobby(session: Player, app: DoorContext, visit: _Visit) -> None:
    idle = app.config.server.lobby_idle_timeout
    app.ledger.touch(session.handle)
    notices = app.ledger.notices(session.handle)
    if notices:
        session.write("\r\n" + session.look.paint(
            i18n.of(session).gettext("Messages from the sysop:"), Pen.TITLE) + "\r\n")
        for notice in notices:   # wrapped, not cut: a refund notice ends with the amount
            lines = wrap(clean_text(describe_notice(notice, i18n.of(session))), 79,
                         initial_indent=" * ", subsequent_indent="   ", max_lines=6)
            session.write("".join(f"{line}\r\n" for line in lines))
        app.ledger.clear_notices(session.handle)
        await press_any_key(session, idle)
    rule = app.config.ledger
    given = app.ledger.allowance(session.handle, rule.allowance, rule.allowance_below)
    if given is not None:
        t = i18n.of(session)
        session.write("\r\n" + t.gettext("The house gives you {cubes} CUBES, your daily "
                                          "allowance: you have {total} now.").format(
            cubes=t.number(rule.allowance), total=t.number(given)) + "\r\n")
        await press_any_key(session, idle)
    if not await _back_to_seat(session, app):
        await _go_to(session, app, getattr(session, "xtrn", None))
    at_choice = False

    def xmessage_arrived(message: XMessage) -> None:
        if at_choice:
            _ = i18n.of(session).gettext
            line = (_keys(session.look, _("*** X-message from {h}: press [R] to read.")).format(
                h=message.sender) if message.notice is None else f"*** {clean_text(message.text)}")
            session.write("\r\n" + line + "\r\n" + _("Your choice: "))

    session.xmessage_listeners.append(xmessage_arrived)
    try:
        while True:
            if visit.up:
                session.end(_time_up_text(session))
                return
            _draw_menu(session, app)
            at_choice = True
            key = await session.read_key(idle)
            at_choice = False
            choice = key.char.upper() if key.kind is KeyKind.CHAR else ""
            if choice == "Q":
                session.end(i18n.of(session).gettext("Goodbye, come back soon!"))
                return
            action = _ACTIONS.get(choice)
            if choice == "T" and not app.config.tournaments:
                action = None
            if action is not None:
                session.write(choice + "\r\n")
                await action(session, app, idle)
    finally:
        session.xmessage_listeners.remove(xmessage_arrived)


async def _go_to(session: Player, app: DoorContext, code: str | None) -> None:
    """A BBS's ``xtrn=CODE``: straight to the table whose id is ``code``, else to the first
    table of game kind ``code`` (as [P] then its number would); an unknown code (or none)
    leaves the caller in the lobby, the code logged."""
    if not code:
        return
    entry = next((e for e in app.tables if e.id == code), None) or next(
        (e for e in app.tables if e.spec.game == code), None)
    if entry is None:
        log.info("%s asked for table or game %r: there is none", session.handle, code)
        return
    await _enter(session, app, entry)


async def _back_to_seat(session: Player, app: DoorContext) -> bool:
    """Reconnect: a player whose seat is held after a dropped connection (or who
    is still seated: the old connection is only now closing) goes straight back to it,
    with the cards and the screen as they are now; one seated in a running tournament to
    their tournament table. ``False`` if they had no seat."""
    entry = app.tables.held_seat(session.handle) or app.tables.seat_of(session.handle)
    if entry is None:
        return await tournaments.back_to_tournament(session, app)
    session.write("\r\n" + i18n.of(session).gettext(
        "Your seat at {table} was kept for you: back to the table.").format(
            table=session.look.paint(entry.name, Pen.VALUE)) + "\r\n")
    try:
        screen = kinds.kind_of(entry.spec.game).screen
        await screen(session, app, entry, returning=True).run()
    finally:
        session.activity = "lobby"
    return True


#: Cells of the table list's Game column: every kind's title fits it in every language.
GAME_WIDTH = 13


def _table_line(entry: TableRef, t: i18n.Translator = i18n.ENGLISH,
                look: Look = CLASSIC) -> str:
    """A row of the table list (:func:`_choose_table`) in ``t``'s language, painted as
    ``look`` paints: the number as the key that picks it, the name as a value."""
    _ = t.gettext
    snap = entry.service.snapshot
    rules = entry.spec.config
    n = t.number
    kind = kinds.kind_of(entry.spec.game)
    stakes = kind.stakes(rules, t)
    state = (_("playing") if snap.pot is not None else _("waiting") if snap.seats
             else _("empty"))
    seats = f"{len(snap.seats)}/{rules.seats}"   # at most 9 seats: no grouping
    number = look.paint(f"{entry.number:>2}", Pen.KEY)
    name = look.paint(fit(entry.name, 18), Pen.VALUE)
    return (f" {number}  {name}  {fit(t.gettext(kind.title), GAME_WIDTH)}  {fit(stakes, 14)}  "
            f"{seats:>6}  {t.number(snap.watchers):>6}  {fit(state, 7).rstrip()}")


def _right(s: str, width: int) -> str:
    """``s`` cut to ``width`` cells and right-aligned in them (a column of numbers)."""
    text = fit(s, width).rstrip()
    return " " * (width - display_width(text)) + text


async def _choose_table(session: Terminal, app: DoorContext, idle: float) -> TableRef | None:
    """The lobby's table list: number, name, game, stakes, seats taken / seats,
    spectators and the state (``playing``: a game runs, ``waiting``: players seated
    between games, ``empty``); pick one by its number (Enter: back): with at most 9
    tables the digit alone picks, with more it is typed and ended with Enter. Each row fits 79
    cells in every language (the name gets 18, seats and spectators 6, the state 7)."""
    t = i18n.of(session)
    _ = t.gettext
    look = session.look
    entries = list(app.tables)
    room = max(session.rows - 6, 1)
    name, game, stakes = _("Name"), _("Game"), _("Stakes")
    seats, watch = _("Seats"), _("Watch")
    session.write(_page(session, _("Tables")) + look.paint(
        f"  #  {fit(name, 18)}  {fit(game, GAME_WIDTH)}  {fit(stakes, 14)}  "
        f"{_right(seats, 6)}  {_right(watch, 6)}  " + fit(_("State"), 7), Pen.LABEL) + "\r\n")
    for listed in entries[:room]:
        session.write(_table_line(listed, t, look) + "\r\n")
    session.write("\r\n")
    prompt = _("Pick a table (1-{n}), Enter: back: ").format(n=len(entries))
    while True:
        if len(entries) <= 9:
            typed = await _read_digit(session, prompt, idle)
        else:
            typed = (await read_line(session, prompt, max_chars=3, timeout=idle)).strip()
        if not typed:
            return None
        entry = app.tables.by_number(int(typed)) if typed.isdigit() and typed.isascii() else None
        if entry is not None:
            if len(entries) <= 9:
                session.ignore_enter(HABIT_ENTER)
            return entry
        session.write(look.paint(_("There is no table {n}.").format(n=clean_text(typed, 3)),
                                 Pen.ERROR) + "\r\n")


#: Seconds after a table picked by its digit in which an Enter is taken for the one typed
#: out of habit (``Terminal.ignore_enter``), not as the answer to the table's question.
HABIT_ENTER = 1.0


async def _read_digit(session: Terminal, prompt: str, idle: float) -> str:
    """Show ``prompt`` and take one key (a list of at most 9 tables needs no Enter): the
    character typed, shown and ended with a new line, or ``""`` for Enter or Esc; other
    keys (Backspace) do nothing. Raises TimeoutError after ``idle`` seconds without a
    key, :class:`SessionClosed` when the connection ends."""
    session.write(prompt)
    while True:
        key = await session.read_key(idle)
        if key.kind in (KeyKind.ENTER, KeyKind.ESC):
            session.write("\r\n")
            return ""
        if key.kind is KeyKind.CHAR:
            session.write(clean_text(key.char, 1) + "\r\n")
            return key.char


async def _poker(session: Player, app: DoorContext, idle: float) -> None:
    """[P]: the table list, or with one table that table at once."""
    entry = next(iter(app.tables)) if len(app.tables) == 1 else await _choose_table(
        session, app, idle)
    if entry is None:
        return
    await _enter(session, app, entry)


async def _enter(session: Player, app: DoorContext, entry: TableRef) -> None:
    """The table ``entry``'s own dialogue and screen (join, watch or go back)."""
    session.activity = "poker"
    try:
        await enter_table(session, app, entry, kinds.kind_of(entry.spec.game))
    finally:
        session.activity = "lobby"


async def _who(session: Terminal, app: DoorContext, idle: float) -> None:
    """[W]: who is online and where (in the lobby, playing or watching at a table), the
    computer players at their tables; each handle in its own colour (as in the chat),
    the tables' names as values."""
    t = i18n.of(session)
    _ = t.gettext
    paint = session.look.paint
    rows: list[tuple[str, str, str]] = []        # (handle, " (bot)" or "", where)
    for other in app.who():
        if other.where is not None:
            doing = _("watching {table}") if other.activity == "watching" \
                else _("playing at {table}")
            rows.append((other.handle, "", doing.format(table=paint(other.where, Pen.VALUE))))
        else:
            rows.append((other.handle, "", _("in the lobby")))
    rows += [(handle, _(" (bot)"), _("playing at {table}").format(
        table=paint(entry.name, Pen.VALUE))) for handle, entry in app.tables.bots()]
    rows.sort(key=lambda row: (row[0] + row[1]).lower())
    room = max(session.rows - 5, 1)
    session.write(_page(session, _("Who is online ({n}):").format(n=t.number(len(rows))),
                        bold=False))
    for handle, bot, where in rows[:room]:
        # Padded by terminal columns, not characters, so that wide handles line up.
        shown, bot = clean_text(handle), clean_text(bot)
        pad = " " * max(16 - display_width(shown + bot), 0)
        session.write(f"  {paint(shown, handle_pen(handle))}{bot}{pad}  {where}\r\n")
    if len(rows) > room:
        more = len(rows) - room
        session.write("  " + t.ngettext("... and {n} more", "... and {n} more", more).format(
            n=t.number(more)) + "\r\n")
    await press_any_key(session, idle)


async def _send_xmessage(session: Player, app: DoorContext, idle: float) -> None:
    _ = i18n.of(session).gettext
    session.write("\r\n")
    if not app.floods.allow("xmessage", session.handle):
        session.write(session.look.paint(_("You are sending X-messages too fast: please wait a minute."), Pen.ERROR)
                      + "\r\n")
        await press_any_key(session, idle)
        return
    typed = await read_line(session, _("Send an X-message to: "), max_chars=HANDLE_INPUT,
                            timeout=idle)
    if not typed.strip():
        return
    recipient = app.find_online(typed.strip())
    if recipient is None:
        session.write(session.look.paint(_("Nobody called {h} is online.").format(
            h=clean_text(typed, 16)), Pen.ERROR) + "\r\n")
        await press_any_key(session, idle)
        return
    if recipient.where is not None:
        doing = (_("{h} is watching {table}: it may take a while until you get an answer.")
                 if recipient.activity == "watching" else
                 _("{h} is playing poker at {table}: it may take a while until you get an "
                   "answer."))
        session.write(doing.format(h=recipient.handle, table=recipient.where) + "\r\n")
    if app.blocks.blocks(session.handle, recipient.handle) and not await _unblock(
            session, app, recipient.handle, idle):
        session.write(_("Nothing sent.") + "\r\n")
        await press_any_key(session, idle)
        return
    width = min(XMESSAGE_WIDTH, session.cols - 10)
    text = clean_text(await read_line(session, _("Message: "), max_chars=4 * width,
                                      max_width=width, timeout=idle), XMESSAGE_WIDTH)
    if not text.strip():
        session.write(_("Nothing sent.") + "\r\n")
    elif app.blocks.blocks(recipient.handle, session.handle):
        session.write(session.look.paint(_("{h} does not take X-messages from you.").format(
            h=recipient.handle), Pen.ERROR) + "\r\n")

    elif recipient.deliver(XMessage(session.handle, text, time.time())):
        session.write(_("X-message sent to {h}.").format(h=recipient.handle) + "\r\n")
    else:
        session.write(session.look.paint(_("{h} cannot take more X-messages right now.").format(
            h=recipient.handle), Pen.ERROR) + "\r\n")
    await press_any_key(session, idle)


async def _read_xmessages(session: Player, app: DoorContext, idle: float) -> None:
    """[R]: the X-messages waiting, a page at a time (each sender's handle in its own
    colour); [B] blocks the page's senders."""
    _ = i18n.of(session).gettext
    look = session.look
    if not session.inbox:
        session.write("\r\n" + _("No X-messages.") + "\r\n")
        await press_any_key(session, idle)
        return
    per_page = max((session.rows - 4) // 2, 1)
    while session.inbox:
        page, session.inbox[:per_page] = session.inbox[:per_page], []
        session.write(_page(session, _("X-messages:"), bold=False))
        for message in page:
            sent = time.strftime("%H:%M", time.localtime(message.sent_at))
            session.write(_("From {h} at {time}:").format(
                h=look.paint(message.sender, handle_pen(message.sender)), time=sent)
                + f"\r\n  {message.text}\r\n")
        senders = list(dict.fromkeys(m.sender for m in page))
        session.write("\r\n" + _keys(look, _(
            "[B] Block X-messages from {handles}, any other key: go on ")).format(
                handles=_(" and ").join(senders)))
        try:
            key = await session.read_key(idle)
        except TimeoutError:
            return
        if key.kind is KeyKind.CHAR and key.char.lower() == "b":
            for sender in senders:
                app.blocks.block(session.handle, sender)
            session.write("\r\n" + _("Blocked: no more X-messages from {handles}. Sending "
                                      "them one lifts it.").format(
                handles=_(" and ").join(senders)) + "\r\n")
            await press_any_key(session, idle)


async def _unblock(session: Player, app: DoorContext, recipient: str, idle: float) -> bool:
    """Sending to someone one blocks asks to lift the block first: True if lifted."""
    t = i18n.of(session)
    session.write(t.gettext(
        "You block X-messages from {h}: lift that and send? (y/n) ").format(h=recipient))
    key = await session.read_key(idle)
    if key.kind is KeyKind.CHAR and t.answer(key.char):
        session.write(t.yes + "\r\n")
        app.blocks.unblock(session.handle, recipient)
        return True
    session.write(t.no + "\r\n")
    return False


FAIRNESS_TEXT = N_("""\
Every deck is sealed before the deal. For each game the server draws a secret seed
and shows its SHA-256 (the commitment) before the game: at the end of the game
before, at the table and here. Each player adds a client seed, shown to all and fixed
when the game starts: a phrase you set after seeing the commitment cannot have been
known when the seed was drawn. The deck is a published function of both and the game
number. When the game ends the server reveals its seed: with it, anyone can recompute
the whole deck and check every card (examples/verify_deck.py; bbspoker games verify).
""")

#: The most tables whose next game's commitment the fair-deck screen lists (one row each).
FAIR_TABLES = 5


def _commitments_text(app: DoorContext, t: i18n.Translator, look: Look = CLASSIC) -> str:
    """The rows of [F] that show each table's next game's deck commitment (the first
    :data:`FAIR_TABLES` tables; each table's screen shows its own), the tables' names
    as ``look`` paints values."""
    entries = list(app.tables)
    rows = [t.gettext("Next game's deck commitment at each table:")]
    for entry in entries[:FAIR_TABLES]:
        upcoming = entry.service.snapshot.next_commitment
        if upcoming is not None:
            rows.append(f"  {look.paint(entry.name, Pen.VALUE)}: {upcoming[:SHORT]}")
    more = len(entries) - FAIR_TABLES
    if more > 0:
        rows.append("  " + t.ngettext("and {n} more table: its screen shows it.",
                                      "and {n} more tables: each one's screen shows it.",
                                      more).format(n=t.number(more)))
    return "".join(f"{row}\r\n" for row in rows)


async def _client_seed(session: Player, app: DoorContext, idle: float) -> None:
    """[F]: the provably fair deck in short, the commitment each table has published for
    its next game (:func:`_commitments_text`), and the player's client seed phrase: shown,
    and changed (up to :data:`~bbspoker.rules.fairness.PHRASE_MAX` characters; ``-``
    for a random one each game; Enter keeps it)."""
    _ = i18n.of(session).gettext
    look = session.look
    current = app.ledger.client_seeds_of([session.handle]).get(session.handle.lower())
    shown = f'"{current}"' if current else _("a random one for each game")
    session.write(_page(session, _("Fair deck"))
                  + "".join(f"{line}\r\n" for line in wrap(" ".join(_(FAIRNESS_TEXT).split()),
                                                            79)) + "\r\n"
                  + _commitments_text(app, i18n.of(session), look) + "\r\n"
                  + _("Your client seed: {seed}").format(seed=look.paint(shown, Pen.VALUE))
                  + "\r\n")
    while True:
        typed = await read_line(session, _("New phrase (up to {n} characters), - for random, "
                                           "Enter: keep: ").format(n=PHRASE_MAX),
                                max_chars=PHRASE_MAX + 8, timeout=idle)
        if not typed.strip():
            return
        try:
            phrase = app.ledger.set_client_seed(session.handle,
                                                None if typed.strip() == "-" else typed)
        except ValueError as err:
            session.write(look.paint(_("Sorry, not that phrase: {reason}.").format(reason=err),
                                     Pen.ERROR) + "\r\n")
            continue
        result = f'"{phrase}"' if phrase else _("random, a new one each game")
        session.write(_("Your client seed from the next game on: {seed}.").format(
            seed=look.paint(result, Pen.VALUE)) + "\r\n")
        await press_any_key(session, idle)
        return


async def _help(session: Terminal, app: DoorContext, idle: float) -> None:
    """[H]: the rules in short of each game kind the server's tables run (in lobby
    order, each once), one screen each (:func:`_help_page`)."""
    t = i18n.of(session)
    for kind in dict.fromkeys(kinds.kind_of(entry.spec.game) for entry in app.tables):
        session.write(_help_page(session, t.gettext(kind.help)))
        await press_any_key(session, idle)


def _help_page(session: Terminal, text: str) -> str:
    """A help text (its heading on the first line, a blank line, then its points) as a
    page: the heading as a page's title (:func:`_page`), the points' dashes as borders
    and their keys as keys, as the session's look paints them."""
    look = session.look
    heading, _, body = text.partition("\n")
    if body.startswith("\n"):
        top, body = _page(session, heading, bold=False), body[1:]
    else:           # a translation without the blank line: the heading painted alone
        top = _page(session, heading, bold=False).split("\r\n")[0] + "\r\n"
    if look.colour:
        body = _BULLET.sub(lambda m: m.group(1) + look.paint("-", Pen.BORDER) + " ",
                           _keys(look, body))
    return top + body.replace("\n", "\r\n")


async def _stats(session: Player, app: DoorContext, idle: float) -> None:
    """[S]: the player's own results per table (:func:`describe_stats`) and in tournaments,
    this season and all time (:func:`bbspoker.door.halloffame.player_lines`); then [H]
    shows the hall of fame (:func:`_hall_of_fame`), any other key goes back."""
    t = i18n.of(session)
    look = session.look
    games = {entry.id: kinds.game_title(entry.spec.game, t) for entry in app.tables}
    stats = app.ledger.stats(session.handle)
    lines = describe_stats(stats, games, t)
    if stats:                                   # the column headings
        lines[0] = look.paint(lines[0], Pen.LABEL)
    own = _own_tournament_lines(session, app, t)
    session.write(_page(session, t.gettext("Your results, {h} ({cubes} CUBES now):").format(
        h=session.handle, cubes=t.number(app.ledger.balance(session.handle))), bold=False))
    shown = lines[:max(session.rows - 7 - len(own), 2)] + [""] + own
    session.write("".join(f"  {line}\r\n" if line else "\r\n" for line in shown))
    session.write("\r\n" + _keys(look, t.gettext("[H] Hall of fame, any other key: back"))
                  + " ")
    key = await session.read_key(idle)
    if key.kind is KeyKind.CHAR and key.char.lower() == "h":
        await _hall_of_fame(session, app, idle)


def _own_tournament_lines(session: Player, app: DoorContext,
                          t: i18n.Translator) -> list[str]:
    """The player's tournament lines of [S] (this season's and all time's rank, points,
    played, won, cashes, net CUBES), their headings painted as labels."""
    season = halloffame.season_at("current", app.config.seasons.length, time.time())
    standings = {which: app.ledger.tournament_standings(*halloffame.season_bounds(which))
                 for which in (season, None)}
    own = halloffame.player_lines(session.handle or "", season, standings, t)
    if len(own) > 1:
        own[0] = session.look.paint(own[0], Pen.LABEL)
    return own


#: The hall of fame's keys for its periods (:data:`bbspoker.door.halloffame.PERIODS`).
_PERIOD_KEYS = {"w": "week", "m": "month", "a": "all"}
#: The tournament standings' keys for their seasons (:data:`halloffame.SEASONS`).
_SEASON_KEYS = {"t": "current", "p": "previous", "a": "all"}


async def _hall_of_fame(session: Terminal, app: DoorContext, idle: float) -> None:
    """The hall of fame on one page (:func:`bbspoker.door.halloffame.table_lines`, the
    ranking ``bbspoker bulletin`` writes): the top ten by net CUBES won over every game
    kind and all time at first; [W], [M], [A] choose the last 7 days, the last 30, or
    all time; [G] (on a server with tables of more than one game kind) goes through the
    kinds one at a time and back to all; [T] shows the tournament standings
    (:func:`_standings`), from which [C] comes back; any other key goes back."""
    t = i18n.of(session)
    kind_of_table = {entry.id: entry.spec.game for entry in app.tables}
    distinct = list(dict.fromkeys(kind_of_table.values()))
    games: list[str | None] = [None, *distinct] if len(distinct) > 1 else [None]
    game, period = 0, "all"
    while True:
        entries = halloffame.rank(app.ledger.results(halloffame.PERIODS[period]),
                                  kind_of_table, game=games[game])
        keys = [t.gettext("[W] last 7 days  [M] last 30 days  [A] all time"),
                t.gettext("[T] the tournament standings")]
        keys.append(t.gettext("[G] next game kind, any other key: back") if len(games) > 1
                    else t.gettext("Any other key: back"))
        choice = await _ranking_page(session, halloffame.title_text(games[game], period, t),
                                     halloffame.table_lines(entries, t), keys, idle)
        if choice in _PERIOD_KEYS:
            period = _PERIOD_KEYS[choice]
        elif choice == "g" and len(games) > 1:
            game = (game + 1) % len(games)
        elif choice != "t" or not await _standings(session, app, idle):
            session.write("\r\n")
            return


async def _ranking_page(session: Terminal, title: str, lines: list[str], keys: list[str],
                        idle: float) -> str:
    """One page of a ranking (the hall of fame, the tournament standings): ``title``,
    ``lines`` (the first: the column headings, painted as labels), the ``keys`` lines;
    returns the key pressed, lower case (``""``: not a character)."""
    look = session.look
    session.write(_page(session, title)
                  + "".join(f"  {line}\r\n" for line in [look.paint(lines[0], Pen.LABEL),
                                                          *lines[1:]]) + "\r\n"
                  + _keys(look, "\r\n".join(keys)) + " ")
    key = await session.read_key(idle)
    return key.char.lower() if key.kind is KeyKind.CHAR else ""


async def _standings(session: Terminal, app: DoorContext, idle: float) -> bool:
    """The tournament standings on one page, as the hall of fame looks
    (:func:`bbspoker.door.halloffame.standings_lines`, the ranking ``bbspoker bulletin
    --tournaments`` writes): the top ten by points of the season under way (``[seasons]
    length``) at first; [T], [P], [A] choose this season, the one before, all time.
    True after [C] (back to the hall of fame), False after any other key."""
    t = i18n.of(session)
    which = "current"
    while True:
        season = halloffame.season_at(which, app.config.seasons.length, time.time())
        entries = halloffame.rank_standings(
            app.ledger.tournament_standings(*halloffame.season_bounds(season)))
        keys = [t.gettext("[T] this season  [P] the season before  [A] all time"),
                t.gettext("[C] CUBES won, any other key: back")]
        choice = await _ranking_page(session, halloffame.standings_title(season, t),
                                     halloffame.standings_lines(entries, t), keys, idle)
        if choice in _SEASON_KEYS:
            which = _SEASON_KEYS[choice]
        else:
            return choice == "c"


async def _language(session: Player, app: DoorContext, idle: float) -> None:
    """[L]: choose the door's language by its number, remembered for the user
    (the database) and used at once; Enter or another key keeps it."""
    _ = i18n.of(session).gettext
    paint = session.look.paint
    session.write(_page(session, _("Language")))
    for number, lang in enumerate(LANGUAGES, 1):
        mark = " " + paint("*", Pen.VALUE) if lang == session.language else ""
        session.write(f"  [{paint(str(number), Pen.KEY)}] {LANGUAGE_NAMES[lang]}{mark}\r\n")
    session.write("\r\n" + _("Your choice (1-{n}), any other key: back ").format(
        n=len(LANGUAGES)))
    key = await session.read_key(idle)
    choice = key.char if key.kind is KeyKind.CHAR else ""
    if not (choice.isascii() and choice.isdigit() and 1 <= int(choice) <= len(LANGUAGES)):
        session.write("\r\n")
        return
    lang = LANGUAGES[int(choice) - 1]
    app.ledger.set_language(session.handle, lang)
    session.language = lang
    session.write(choice + "\r\n" + i18n.of(session).gettext(
        "The door speaks English to you now.") + "\r\n")
    await press_any_key(session, idle)


#: The keys of [O] and what each chooses: ``("look", value)`` or ``("suits", value)``
#: (the values :func:`bbspoker.door.look.detect` takes; ``""``: as the terminal allows).
_OPTION_KEYS = {"1": ("look", "colour"), "2": ("look", "classic"), "3": ("look", ""),
                "4": ("suits", "symbols"), "5": ("suits", "gv")}


def _preview(chosen: Look) -> str:
    """Two cards, the ace of hearts and the king of spades, as ``chosen`` draws them:
    ``A♥ K♠`` (rank in the card's colour, suits red and black) in colour with symbols,
    ``A* K+`` in the classic look or with GV suits."""
    return " ".join(chosen.paint(rank, Pen.CARD) + chosen.paint(chosen.suit(gv), pen)
                    for rank, gv, pen in (("A", "*", Pen.RED_SUIT), ("K", "+", Pen.BLACK_SUIT)))


def _options_lines(t: i18n.Translator, chosen_look: str, chosen_suits: str,
                   now: Look) -> list[str]:
    """The [O] page in ``t``'s language: the look's keys [1]-[3] and the suits' [4]-[5],
    the user's choices (``chosen_look``, ``chosen_suits``: stored values, ``""`` for
    none) marked ``>``, and the preview of the session's look ``now``; the prompt last.
    Painted as ``now`` paints: the headings as labels, the keys as keys, the marks as
    values, the suit symbols in their colours."""
    _ = t.gettext
    paint = now.paint
    labels = {"1": _("Colour"),
              "2": _("Classic: monochrome, plain ASCII, as on Global Village"),
              "3": _("As your terminal allows: colour, or classic without colours"),
              "4": _("Symbols") + " " + " ".join(paint(suit, pen_of(suit)) for suit in "♠♥♦♣"),
              "5": _("GV signs: + spades, * hearts, # diamonds, - clubs")}
    chosen = {"look": chosen_look, "suits": chosen_suits or "symbols"}

    def row(key: str) -> str:
        what, value = _OPTION_KEYS[key]
        mark = paint(">", Pen.VALUE) if chosen[what] == value else " "
        return f"{mark} [{paint(key, Pen.KEY)}] {labels[key]}"

    lines = [_("Options"), "", paint(_("Look of the screens:"), Pen.LABEL), *map(row, "123"),
             "", paint(_("Suits:"), Pen.LABEL), *map(row, "45"), "",
             _("Preview: {cards}").format(cards=_preview(now))]
    if now.suit("*") == "*" and chosen["suits"] != "gv":
        lines.append(_("This look draws the suits as GV signs."))
    return lines + ["", _("Your choice (1-{n}), any other key: back ").format(
        n=len(_OPTION_KEYS))]


async def _options(session: Player, app: DoorContext, idle: float) -> None:
    """[O]: the user's look (colour, classic, or as their terminal allows) and suits
    (symbols or GV signs), with a preview of two cards as the session draws them now.
    Each choice is stored with the account (``Ledger.set_look``) and is the session's
    look at once (:func:`bbspoker.door.look.detect`; a monochrome terminal may choose
    colour); the page shows again until another key goes back."""
    t = i18n.of(session)
    account = app.ledger.find_account(session.handle)
    chosen = {"look": account.look if account else "", "suits": account.suits if account else ""}
    while True:
        lines = _options_lines(t, chosen["look"], chosen["suits"], session.look)
        session.write(_page(session, lines[0]) + "\r\n".join(lines[2:]))
        key = await session.read_key(idle)
        option = _OPTION_KEYS.get(key.char) if key.kind is KeyKind.CHAR else None
        if option is None:
            session.write("\r\n")
            return
        what, value = option
        wanted = {**chosen, what: value}
        try:
            app.ledger.set_look(session.handle, wanted["look"], wanted["suits"])
        except StoreError as exc:
            log.error("look of %r not stored: the ledger cannot store it: %s",
                      session.handle, exc)
            session.write("\r\n" + session.look.paint(t.gettext(
                "Sorry, the server cannot store it right now. Please try again later."),
                Pen.ERROR) + "\r\n")
            await press_any_key(session, idle)
            return
        chosen = wanted
        session.ignore_enter(HABIT_ENTER)
        session.look = look.detect(session.encoding, session.term.number_of_colors,
                                   chosen["look"], chosen["suits"])


async def _password(session: Player, app: DoorContext, idle: float) -> None:
    """[C]: set or change the user's password. One who has a password types it first (a
    wrong one changes nothing; it costs the failed-login delay); the new one is typed
    twice and checked as at sign-up. With one, a BBS's caller (``alias@TAG``, made with
    none) can also log in by telnet or SSH."""
    t = i18n.of(session)
    _ = t.gettext
    session.write("\r\n")
    stored = app.ledger.password_hash(session.handle)
    if stored is not None:
        current = await read_line(session, _("Your password now: "),
                                  max_chars=MAX_PASSWORD_LENGTH, hidden=True, timeout=idle)
        if not current:
            return
        if not await app.verify_password(stored, current):
            log.info("password change address=%s handle=%r outcome=wrong password",
                     session.address, session.handle)
            await app.sleep(app.config.login.failure_delay)
            session.write(session.look.paint(_("Wrong password."), Pen.ERROR) + "\r\n")
            await press_any_key(session, idle)
            return
    password = await read_line(session, _("New password: "), max_chars=MAX_PASSWORD_LENGTH + 1,
                               hidden=True, timeout=idle)
    if not password:
        return
    try:
        validate_password(password)
    except ValueError as exc:
        session.write(session.look.paint(_("Sorry, {reason}.").format(
            reason=why_refused(exc, t)), Pen.ERROR) + "\r\n")
        await press_any_key(session, idle)
        return
    again = await read_line(session, _("Password again: "), max_chars=MAX_PASSWORD_LENGTH,
                            hidden=True, timeout=idle)
    if again != password:
        session.write(session.look.paint(_("The passwords differ: nothing changed."),
                                         Pen.ERROR) + "\r\n")
        await press_any_key(session, idle)
        return
    try:
        app.ledger.set_password_hash(session.handle, await app.hash_password(password))
    except StoreError as exc:
        log.error("password change of %r failed: the ledger cannot store it: %s",
                  session.handle, exc)
        session.write(session.look.paint(_("Sorry, the server cannot store it right now. "
                                           "Please try again later."), Pen.ERROR) + "\r\n")
    else:
        log.info("password change address=%s handle=%r outcome=changed", session.address,
                 session.handle)
        session.write("".join(f"{line}\r\n" for line in wrap(_(
            "Password changed: {h} can log in by telnet and SSH too.").format(
                h=session.handle), 79)))
    await press_any_key(session, idle)


_ACTIONS = {"P": _poker, "T": tournaments.tournament_list, "W": _who, "X": _send_xmessage, "R": _read_xmessages, "S": _stats,
            "F": _client_seed, "L": _language, "O": _options, "C": _password, "H": _help}
