"""The door's lobby: the one-screen menu [P] [W] [X] [R] [H] [Q] after login.

:func:`serve` is one connection's whole dialogue after the transport's negotiation:
the login (:mod:`bbspoker.door.login`), the ledger's notices (e.g. refunds of games
cut short by a crash), then the menu with single-key choices (any case).
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

from wcwidth import wrap

from bbspoker.door.keys import KeyKind
from bbspoker.door.messages import describe_stats
from bbspoker.door.login import HANDLE_INPUT, log_in
from bbspoker.door.prompts import press_any_key, read_line
from bbspoker.door.screens import draw40 as poker
from bbspoker.door.screens import holdem, schiebe
from bbspoker.door.terminal import SessionClosed, XMessage
from bbspoker.rules.fairness import PHRASE_MAX
from bbspoker.text import clean_text, display_width, fit

if TYPE_CHECKING:
    from bbspoker.door.context import DoorContext
    from bbspoker.door.terminal import Terminal
    from bbspoker.table.registry import TableEntry

__all__ = ["serve", "XMESSAGE_WIDTH", "HELP_TEXT"]

log = logging.getLogger("bbspoker.door.lobby")

#: Screen cells an X-message may take (it is shown on one line of its own).
XMESSAGE_WIDTH = 70

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
    ("P", "Play poker: the tables"),
    ("W", "Who is online"),
    ("X", "Send an X-message"),
    ("R", "Read X-messages"),
    ("S", "Stats: your results"),
    ("F", "Fair deck: your client seed"),
    ("H", "Help: the rules in short"),
    ("Q", "Quit"),
]


# --- the menu -----------------------------------------------------------------------

def _draw_menu(session: Terminal, app: DoorContext) -> None:
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


async def serve(session: Terminal, app: DoorContext) -> None:
    """One connection after negotiation: login (within ``[server] prelogin_timeout``), then
    the menu until [Q], the lobby idle timeout (``lobby_idle_timeout``) or a disconnect."""
    try:
        if await log_in(session, app) is None:
            return
    except SessionClosed:
        return
    try:
        await _lobby(session, app)
    except TimeoutError:
        session.end("You have been idle too long. Goodbye.")
    except SessionClosed:
        pass


async def _lobby(session: Terminal, app: DoorContext) -> None:
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
    rule = app.config.ledger
    given = app.ledger.allowance(session.handle, rule.allowance, rule.allowance_below)
    if given is not None:
        session.write(f"\r\nThe house gives you {rule.allowance:,} CUBES, your daily "
                      f"allowance: you have {given:,} now.\r\n")
        await press_any_key(session, idle)
    await _back_to_seat(session, app)
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


async def _back_to_seat(session: Terminal, app: DoorContext) -> None:
    """Issue 14, reconnect: a player whose seat is held after a dropped connection (or who
    is still seated: the old connection is only now closing) goes straight back to it,
    with the cards and the screen as they are now."""
    entry = app.tables.held_seat(session.handle) or app.tables.seat_of(session.handle)
    if entry is None:
        return
    session.write(f"\r\nYour seat at {entry.name} was kept for you: back to the table.\r\n")
    try:
        screen = {"schiebe": schiebe.SchiebeScreen, "holdem": holdem.HoldemScreen}.get(
            entry.spec.game, poker.PokerScreen)
        await screen(session, app, entry, returning=True).run()
    finally:
        session.activity = "lobby"


def _table_line(entry: TableEntry) -> str:
    snap = entry.service.snapshot
    rules = entry.spec.rules
    stakes = f"ante {rules.ante}, {rules.min_bet}-{rules.max_bet}"
    if entry.spec.game == "schiebe":
        stakes = f"ante {rules.ante}" if rules.ante else "no stakes"
    elif entry.spec.game == "holdem":
        stakes = f"{rules.small_bet}/{2 * rules.small_bet} limit"
    state = "playing" if snap.pot is not None else "waiting" if snap.seats else "empty"
    seats = f"{len(snap.seats)}/{rules.seats}"
    return (f" {entry.number:>2}  {fit(entry.name, 20)}  {entry.title:<12}  {stakes:<15}  "
            f"{seats:>5}  {snap.watchers:>5}  {state}")


async def _choose_table(session: Terminal, app: DoorContext, idle: float) -> TableEntry | None:
    """The lobby's table list (issue 14): number, name, game, stakes, seats taken / seats,
    spectators and the state (``playing``: a game runs, ``waiting``: players seated
    between games, ``empty``); pick one by its number (Enter: back). Each row fits 79
    cells."""
    term = session.term
    entries = list(app.tables)
    room = max(session.rows - 6, 1)
    session.write(f"{term.home}{term.clear}{term.bold}Tables{term.normal}\r\n\r\n"
                  f"  #  {'Name':<20}  {'Game':<12}  {'Stakes':<15}  Seats  Watch  State\r\n")
    for entry in entries[:room]:
        session.write(_table_line(entry) + "\r\n")
    session.write("\r\n")
    while True:
        typed = (await read_line(session, f"Pick a table (1-{len(entries)}), Enter: back: ",
                                 max_chars=3, timeout=idle)).strip()
        if not typed:
            return None
        entry = app.tables.by_number(int(typed)) if typed.isdigit() and typed.isascii() else None
        if entry is not None:
            return entry
        session.write(f"There is no table {clean_text(typed, 3)}.\r\n")


async def _poker(session: Terminal, app: DoorContext, idle: float) -> None:
    """[P]: the table list, or with one table that table at once."""
    entry = next(iter(app.tables)) if len(app.tables) == 1 else await _choose_table(
        session, app, idle)
    if entry is None:
        return
    session.activity = "poker"
    try:
        enter = {"schiebe": schiebe.enter_table, "holdem": holdem.enter_table}.get(
            entry.spec.game, poker.enter_table)
        await enter(session, app, entry)
    finally:
        session.activity = "lobby"


async def _who(session: Terminal, app: DoorContext, idle: float) -> None:
    term = session.term
    rows: list[tuple[str, str]] = []
    for other in app.who():
        if other.where is not None:
            doing = "watching" if other.activity == "watching" else "playing at"
            rows.append((other.handle, f"{doing} {other.where}"))
        else:
            rows.append((other.handle, "in the lobby"))
    rows += [(f"{handle} (bot)", f"playing at {entry.name}")
             for handle, entry in app.tables.bots()]
    rows.sort(key=lambda row: row[0].lower())
    room = max(session.rows - 5, 1)
    session.write(f"{term.home}{term.clear}Who is online ({len(rows)}):\r\n\r\n")
    for name, where in rows[:room]:
        # Padded by terminal columns, not characters (issue 20: wide handles misaligned).
        name = clean_text(name)
        session.write(f"  {fit(name, max(16, display_width(name)))}  {where}\r\n")
    if len(rows) > room:
        session.write(f"  ... and {len(rows) - room} more\r\n")
    await press_any_key(session, idle)


async def _send_xmessage(session: Terminal, app: DoorContext, idle: float) -> None:
    session.write("\r\n")
    if not app.floods.allow("xmessage", session.handle):
        session.write("You are sending X-messages too fast: please wait a minute.\r\n")
        await press_any_key(session, idle)
        return
    typed = await read_line(session, "Send an X-message to: ", max_chars=HANDLE_INPUT,
                            timeout=idle)
    if not typed.strip():
        return
    recipient = app.find_online(typed.strip())
    if recipient is None:
        session.write(f"Nobody called {clean_text(typed, 16)} is online.\r\n")
        await press_any_key(session, idle)
        return
    if recipient.where is not None:
        doing = "watching" if recipient.activity == "watching" else "playing poker at"
        session.write(f"{recipient.handle} is {doing} {recipient.where}: it may take a while "
                      "until you get an answer.\r\n")
    if app.blocks.blocks(session.handle, recipient.handle) and not await _unblock(
            session, app, recipient.handle, idle):
        session.write("Nothing sent.\r\n")
        await press_any_key(session, idle)
        return
    width = min(XMESSAGE_WIDTH, session.cols - 10)
    text = clean_text(await read_line(session, "Message: ", max_chars=4 * width,
                                      max_width=width, timeout=idle), XMESSAGE_WIDTH)
    if not text.strip():
        session.write("Nothing sent.\r\n")
    elif app.blocks.blocks(recipient.handle, session.handle):
        session.write(f"{recipient.handle} does not take X-messages from you.\r\n")

    elif recipient.deliver(XMessage(session.handle, text, time.time())):
        session.write(f"X-message sent to {recipient.handle}.\r\n")
    else:
        session.write(f"{recipient.handle} cannot take more X-messages right now.\r\n")
    await press_any_key(session, idle)


async def _read_xmessages(session: Terminal, app: DoorContext, idle: float) -> None:
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
        senders = list(dict.fromkeys(m.sender for m in page))
        session.write("\r\n[B] Block X-messages from " + " and ".join(senders)
                      + ", any other key: go on ")
        try:
            key = await session.read_key(idle)
        except TimeoutError:
            return
        if key.kind is KeyKind.CHAR and key.char.lower() == "b":
            for sender in senders:
                app.blocks.block(session.handle, sender)
            session.write(f"\r\nBlocked: no more X-messages from {' and '.join(senders)}. "
                          "Sending them one lifts it.\r\n")
            await press_any_key(session, idle)


async def _unblock(session: Terminal, app: DoorContext, recipient: str, idle: float) -> bool:
    """Sending to someone one blocks asks to lift the block first: True if lifted."""
    session.write(f"You block X-messages from {recipient}: lift that and send? (y/n) ")
    key = await session.read_key(idle)
    if key.kind is KeyKind.CHAR and key.char.lower() == "y":
        session.write("y\r\n")
        app.blocks.unblock(session.handle, recipient)
        return True
    session.write("n\r\n")
    return False


FAIRNESS_TEXT = """\
Every deck is sealed before the deal. The server draws a secret seed and shows its
SHA-256 (the commitment) when the game starts; each player adds a client seed, shown
to all. The deck is a published function of both and the game number. When the game
ends the server reveals its seed: with it, anyone can recompute the whole deck and
check every card (examples/verify_deck.py; the sysop: bbspoker games verify).
"""


async def _client_seed(session: Terminal, app: DoorContext, idle: float) -> None:
    """[F]: the provably fair deck in short, and the player's client seed phrase: shown,
    and changed (up to :data:`~bbspoker.rules.fairness.PHRASE_MAX` characters; ``-``
    for a random one each game; Enter keeps it)."""
    term = session.term
    current = app.ledger.client_seeds_of([session.handle]).get(session.handle.lower())
    shown = f'"{current}"' if current else "a random one for each game"
    session.write(f"{term.home}{term.clear}{term.bold}Fair deck{term.normal}\r\n\r\n"
                  + FAIRNESS_TEXT.replace("\n", "\r\n") + f"\r\nYour client seed: {shown}\r\n")
    while True:
        typed = await read_line(session, f"New phrase (up to {PHRASE_MAX} characters), "
                                "- for random, Enter: keep: ", max_chars=PHRASE_MAX + 8,
                                timeout=idle)
        if not typed.strip():
            return
        try:
            phrase = app.ledger.set_client_seed(session.handle,
                                                None if typed.strip() == "-" else typed)
        except ValueError as err:
            session.write(f"Sorry, not that phrase: {err}.\r\n")
            continue
        result = f'"{phrase}"' if phrase else "random, a new one each game"
        session.write(f"Your client seed from the next game on: {result}.\r\n")
        await press_any_key(session, idle)
        return


async def _help(session: Terminal, app: DoorContext, idle: float) -> None:
    term = session.term
    session.write(f"{term.home}{term.clear}" + HELP_TEXT.replace("\n", "\r\n"))
    await press_any_key(session, idle)


async def _stats(session: Terminal, app: DoorContext, idle: float) -> None:
    term = session.term
    kinds = {entry.id: entry.spec.game for entry in app.tables}
    lines = describe_stats(app.ledger.stats(session.handle), kinds)
    session.write(f"{term.home}{term.clear}Your results, {session.handle} "
                  f"({app.ledger.balance(session.handle):,} CUBES now):\r\n\r\n")
    session.write("".join(f"  {line}\r\n" for line in lines[:max(session.rows - 5, 2)]))
    await press_any_key(session, idle)


_ACTIONS = {"P": _poker, "W": _who, "X": _send_xmessage, "R": _read_xmessages, "S": _stats,
            "F": _client_seed, "H": _help}
