"""The door's side of tournaments: the lobby's [T] list and a tournament's page, entering
and leaving (registration costs the buy-in in CUBES, asked first), and playing at the
tournament's tables.

The tables of a tournament are the tables of its game kind, so a player sees the screen
a cash table of that kind shows, made a tournament's (:func:`tournament_screen`): the
status line shows the stack only (chips, not CUBES) and under it the tournament line
(level, blinds or bets and ante, the time to the next level as ``m:ss``, players left,
average stack, the place of one going out now; draw40's screen of regions has it,
compact, in its status border); the tournament's events read in the
message area (:func:`describe_event`); [X] goes back to the lobby while the player stays
seated and is blinded away (the tournament seats them, never the player).

:func:`play` follows a player from table to table: when the director moves them (they
are no longer at the table, :meth:`~bbspoker.table.director.TournamentDirector.table_of`
names another) the new table's screen opens by itself; when they are out, or the
tournament is over, their place (and prize) is shown before the lobby.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime
import logging
import math
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

from bbspoker.door import i18n
from bbspoker.door.i18n import N_, NP_
from bbspoker.door.keys import Key, KeyKind
from bbspoker.door.look import CLASSIC, KEY, Look, Pen
from bbspoker.door.prompts import press_any_key
from bbspoker.door.screens import kinds
from bbspoker.door.screens.base import Line, TableScreen
from bbspoker.door.screens.rows import RowScreen
from bbspoker.rules.events import Event
from bbspoker.rules.tournament import prizes
from bbspoker.store.wallet import StoreError
from bbspoker.table.director import TournamentRefused, TournamentView
from bbspoker.text import clean_text, display_width, fit

if TYPE_CHECKING:
    from bbspoker.door.context import DoorContext
    from bbspoker.door.terminal import Player, Terminal
    from bbspoker.table.registry import TableRef

__all__ = ["tournament_list", "choose", "play", "back_to_tournament", "place_text",
           "game_text", "list_lines", "page_lines", "status_line", "compact_lines",
           "describe_event",
           "refusal_text", "tournament_screen", "SEATING_WAIT"]

log = logging.getLogger(__name__)

#: Seconds a moved player's screen waits for their seat at the new table (the director
#: seats them in that table's own step, soon after the move).
SEATING_WAIT = 10.0

#: Why the director (or the store under it) refused a registration, by code.
_REFUSALS = {
    "unknown": N_("There is no such tournament."),
    "no_tournament": N_("There is no such tournament."),
    "not_registering": N_("This tournament does not take registrations now."),
    "ended": N_("This tournament does not take registrations now."),
    "registered": N_("You are registered already."),
    "not_registered": N_("You are not registered for this tournament."),
    "cubes": N_("You do not have the {buy_in} CUBES of the buy-in."),
    "full": N_("This sit-and-go has all its players."),
}


# --------------------------------------------------------------------- words

def place_text(place: int, t: i18n.Translator = i18n.ENGLISH) -> str:
    """A finishing place as an ordinal in ``t``'s language: ``1st``, ``2nd``, ``11th``,
    ``23rd`` (en); ``1.``, ``7.`` (de); ``1re``, ``7e`` (fr: of *la place*)."""
    n = t.number(place)
    if t.lang == "de":
        return f"{n}."
    if t.lang == "fr":
        return f"{n}re" if place == 1 else f"{n}e"
    suffix = "th" if 10 <= place % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(
        place % 10, "th")
    return f"{n}{suffix}"


def game_text(view: TournamentView, t: i18n.Translator = i18n.ENGLISH) -> str:
    """What the tournament's tables play: the kind's title and, for Hold'em, the limit
    (``Hold'em NL``, ``Hold'em PL``, ``Hold'em FL``: no, pot, fixed limit)."""
    spec = view.spec
    title = kinds.game_title(spec.game, t)
    limit = getattr(spec.table, "limit", None)
    if _blinds(spec.table) and limit in ("no", "pot", "fixed"):
        word = {"no": t.gettext("NL"), "pot": t.gettext("PL"), "fixed": t.gettext("FL")}[limit]
        return f"{title} {word}"
    return title


def _blinds(table: Any) -> bool:
    """Whether a tournament's tables (their kind config ``table``) play with blinds and
    a choice of limit (Hold'em: a level's bet is the big blind), not with fixed bets (a
    level's bet is the small bet)."""
    return hasattr(table, "limit")


def _stakes(table: Any, bet: int, ante: int, t: i18n.Translator) -> str:
    """A level's stakes at tables of the kind config ``table``: blinds (the bet is the
    big blind), bets up to the bet (draw40's bet limit), or bets (the bet is the small
    bet), and the ante if any."""
    n = t.number
    if _blinds(table):
        text = t.gettext("blinds {small}/{big}").format(small=n(bet // 2), big=n(bet))
    elif hasattr(table, "max_bet"):           # draw40: the bet is the limit of a bet
        text = t.gettext("bets up to {high}").format(high=n(bet))
    else:
        text = t.gettext("bets {small}/{big}").format(small=n(bet), big=n(2 * bet))
    if ante:
        text += " " + t.gettext("ante {ante}").format(ante=n(ante))
    return text


def _short_stakes(table: Any, bet: int, t: i18n.Translator) -> str:
    """A level's stakes as figures only, at tables of the kind config ``table``: the
    blinds ``5/10`` (the bet is the big blind), draw40's bets ``1-50`` (from the table's
    least bet up to the level's), or the bets ``10/20`` (the bet is the small bet)."""
    n = t.number
    if _blinds(table):
        return f"{n(bet // 2)}/{n(bet)}"
    if hasattr(table, "max_bet"):
        return f"{n(table.min_bet)}-{n(bet)}"
    return f"{n(bet)}/{n(2 * bet)}"


def _minutes_seconds(seconds: float) -> str:
    """``m:ss`` (``h:mm:ss`` from an hour on), rounded up to the second."""
    secs = max(0, math.ceil(seconds))
    if secs >= 3600:
        return f"{secs // 3600}:{secs % 3600 // 60:02d}:{secs % 60:02d}"
    return f"{secs // 60}:{secs % 60:02d}"


def _start_text(view: TournamentView, local: Any) -> str:
    """The list's Start column: a sit-and-go's ``entrants/size``, a scheduled run's time
    of day (``local(unix_seconds)`` -> a datetime)."""
    spec = view.spec
    if spec.sit_and_go:
        return f"{view.entrants}/{spec.sit_and_go}"
    if view.starts_at is not None:
        return local(view.starts_at).strftime("%H:%M")
    return spec.starts


def _status_text(view: TournamentView, t: i18n.Translator) -> str:
    """The list's Status column: registering, running (its level and players left),
    finished, cancelled."""
    if view.status == "running" and view.level is not None:
        return t.ngettext("L{level}: {n} left", "L{level}: {n} left", view.players_left).format(
            level=view.level + 1, n=t.number(view.players_left))
    return {"registering": t.gettext("registering"), "running": t.gettext("running"),
            "finished": t.gettext("finished"),
            "cancelled": t.gettext("cancelled")}.get(view.status, view.status)


def _yours(view: TournamentView, t: i18n.Translator) -> str:
    """The list's You column: registered, at table N, out in Nth place, won X."""
    if view.table is not None:
        return t.gettext("table {n}").format(n=view.table)
    if view.prize:
        return t.gettext("won {cubes}").format(cubes=t.number(view.prize))
    if view.place is not None:
        return t.gettext("out: {place}").format(place=place_text(view.place, t))
    if view.registered:
        return t.gettext("registered")
    return ""


def refusal_text(err: TournamentRefused, t: i18n.Translator = i18n.ENGLISH) -> str:
    """Why the director refused, in ``t``'s language (any code it or the store may give;
    one this door does not know: that it is not possible now)."""
    text = _REFUSALS.get(err.code)
    if text is None:
        return t.gettext("Sorry, that is not possible now.")
    return t.gettext(text).format(buy_in=t.number(int(err.data.get("buy_in", 0))))


#: The [T] list's column headings.
_LIST_HEADS = (NP_("tournament list", "Name"), NP_("tournament list", "Game"),
               NP_("tournament list", "Buy-in"), NP_("tournament list", "Start"),
               NP_("tournament list", "Status"), NP_("tournament list", "Pool"),
               NP_("tournament list", "You"))
#: The level table's column headings (the stakes': Hold'em's blinds, another kind's bets).
_LEVEL_HEADS = (NP_("tournament levels", "Level"), NP_("tournament levels", "Blinds"),
                NP_("tournament levels", "Bets"), NP_("tournament levels", "Ante"),
                NP_("tournament levels", "Minutes"))

#: Cells of the list's columns: name, game, buy-in, start, status, pool, you.
_COLUMNS = (12, 13, 7, 5, 13, 8, 11)


def list_lines(views: list[TournamentView], t: i18n.Translator = i18n.ENGLISH,
               look: Look = CLASSIC, local: Any = None) -> list[str]:
    """The [T] list's rows: the column headings, then one row per tournament (number,
    name, game, buy-in in CUBES, how it starts, its status, prize pool in CUBES, the
    viewer's own state), each at most 79 cells in every language; the numbers as keys,
    the names as values, as ``look`` paints."""
    local = local or datetime.datetime.fromtimestamp
    name, game, buy, start, status, pool, you = _COLUMNS
    _ = t.gettext

    def right(text: str, width: int) -> str:
        text = fit(text, width).rstrip()
        return " " * (width - display_width(text)) + text

    heads = [t.pgettext(*label) for label in _LIST_HEADS]
    head = (f"  #  {fit(heads[0], name)} {fit(heads[1], game)} {right(heads[2], buy)} "
            f"{fit(heads[3], start)} {fit(heads[4], status)} {right(heads[5], pool)} "
            f"{fit(heads[6], you)}").rstrip()
    lines = [look.paint(head, Pen.LABEL)]
    for number, view in enumerate(views, 1):
        row = (f" {look.paint(f'{number:>2}', Pen.KEY)}  "
               f"{look.paint(fit(view.spec.name, name), Pen.VALUE)} "
               f"{fit(game_text(view, t), game)} {right(t.number(view.spec.rules.buy_in), buy)} "
               f"{fit(_start_text(view, local), start)} {fit(_status_text(view, t), status)} "
               f"{right(t.number(view.pool), pool)} ")
        lines.append((row + look.paint(fit(_yours(view, t), you), Pen.SELF)).rstrip())
    return lines


def _keys(look: Look, text: str) -> str:
    """``text`` with each ``[K]`` in the key's pen (as is in monochrome)."""
    if not look.colour:
        return text
    return KEY.sub(lambda m: "[" + look.paint(m.group(1), Pen.KEY) + "]", text)


def page_lines(view: TournamentView, t: i18n.Translator = i18n.ENGLISH,
               look: Look = CLASSIC, now: float = 0.0, local: Any = None,
               rows: int = 24) -> list[str]:
    """A tournament's page (after its title): what it is, its status (entrants, pool,
    time to the start or to the next level, players left), the viewer's own state, the
    levels (the running one marked ``>``) beside the payouts for the entrants now, the
    last results, and the keys that apply. ``now``: Unix seconds (a scheduled start's
    count-down); at most ``rows - 3`` lines, each at most 79 cells."""
    local = local or datetime.datetime.fromtimestamp
    spec, rules = view.spec, view.spec.rules
    n, _ = t.number, t.gettext
    paint = look.paint
    lines = [_("{game}: buy-in {buy_in} CUBES, {chips} chips each, {seats} seats a "
               "table.").format(game=game_text(view, t), buy_in=n(rules.buy_in),
                                chips=n(rules.chips), seats=rules.seats_per_table)]
    if view.status == "registering":
        if spec.sit_and_go:
            missing = max(spec.sit_and_go - view.entrants, 0)
            start = t.ngettext("Sit-and-go: starts when {size} have registered ({n} more "
                               "player).", "Sit-and-go: starts when {size} have registered "
                               "({n} more players).", missing).format(
                size=n(spec.sit_and_go), n=n(missing))
        elif view.starts_at is not None:
            start = _("Starts at {time} (in {left}).").format(
                time=local(view.starts_at).strftime("%H:%M"),
                left=_minutes_seconds(view.starts_at - now))
        else:
            start = ""
        lines.append(start)
    elif view.status == "running" and view.level is not None:
        level = rules.levels[view.level]
        running = _("Running: level {level} ({stakes}).").format(
            level=view.level + 1, stakes=_stakes(spec.table, level.bet, level.ante, t))
        lines.append(running)
        if view.next_level_in is not None:
            following = _("Next level in {time}.").format(
                time=_minutes_seconds(view.next_level_in))
            if display_width(running + " " + following) <= 79:
                lines[-1] = running + " " + following
            else:
                lines.append(following)
        lines.append(t.ngettext("{left} of {n} player left, average stack {avg} chips.",
                                "{left} of {n} players left, average stack {avg} chips.",
                                view.entrants).format(left=n(view.players_left),
                                                      n=n(view.entrants),
                                                      avg=n(view.average_stack)))
    else:
        lines.append(_("Finished.") if view.status == "finished" else _("Cancelled."))
    lines.append(t.ngettext("{n} entrant, prize pool {pool} CUBES.",
                            "{n} entrants, prize pool {pool} CUBES.", view.entrants).format(
        n=n(view.entrants), pool=paint(n(view.pool), Pen.VALUE)))
    mine = _mine(view, t)
    if mine:
        lines.append(paint(mine, Pen.SELF))
    lines.append("")
    # the levels (left, 44 cells) beside the payouts (right): (plain text, its pen)
    level_h, blinds_h, bets_h, ante_h, minutes_h = (t.pgettext(*h) for h in _LEVEL_HEADS)
    stake_head = blinds_h if _blinds(spec.table) else bets_h
    left: list[tuple[str, Pen | None]] = [(f"   {fit(level_h, 6)} {fit(stake_head, 13)} "
                                           f"{fit(ante_h, 6)} {fit(minutes_h, 7)}",
                                           Pen.LABEL)]
    room = max(rows - 3 - len(lines) - 5, 3)
    current = view.level if view.level is not None else 0
    first = max(0, min(current - 1, len(rules.levels) - room))
    for i, level in enumerate(rules.levels[first:first + room], first):
        stakes = _short_stakes(spec.table, level.bet, t)
        marked = view.status == "running" and i == view.level
        left.append((f" {'>' if marked else ' '} {fit(str(i + 1), 6)} "
                     f"{fit(stakes, 13)} {fit(n(level.ante), 6)} "
                     f"{fit(n(level.minutes), 7)}", Pen.VALUE if marked else None))
    # A sit-and-go's payouts are those of its full field; others', of the field so far.
    entrants = max(view.entrants, view.spec.sit_and_go, 2)
    shares = rules.shares(entrants)
    right: list[tuple[str, Pen | None]] = [(t.ngettext(
        "Payouts ({n} entrant)", "Payouts ({n} entrants)", entrants).format(n=n(entrants)),
        Pen.LABEL)]
    prizes = _prizes(view.pool, shares)
    total = sum(shares)
    for place, share in enumerate(shares[:room], 1):
        amount = (t.gettext("{cubes} CUBES").format(cubes=n(prizes[place - 1])) if view.pool
                  else f"{n(round(100 * share / total))} %")
        right.append((f"{fit(place_text(place, t), 5)} {amount}", None))
    for i in range(max(len(left), len(right))):
        l_text, l_pen = left[i] if i < len(left) else ("", None)
        r_text, r_pen = right[i] if i < len(right) else ("", None)
        l_text = fit(l_text, 44)
        lines.append((_painted(look, l_text, l_pen) + _painted(look, r_text, r_pen)).rstrip())
    if view.results:
        paid = [f"{place_text(p, t)} {clean_text(h, 16)} {n(w)}" for p, h, w in view.results
                if w] or [f"{place_text(p, t)} {clean_text(h, 16)}" for p, h, w in
                          view.results[:1]]
        lines.append("")
        lines.append(fit(_("Last results: {results}").format(results=", ".join(paid)),
                         79).rstrip())
    return lines[:max(rows - 3, 1)]


def _painted(look: Look, text: str, pen: Pen | None) -> str:
    """``text`` in ``pen`` (as is without one)."""
    return text if pen is None else look.paint(text, pen)


def _prizes(pool: int, shares: tuple[int, ...]) -> list[int]:
    """The CUBES of each paid place from ``pool`` by ``shares``, as the tournament pays
    them (:func:`bbspoker.rules.tournament.prizes`, no ties)."""
    paid = prizes(pool, shares, [[str(place)] for place in range(len(shares))])
    return [paid.get(str(place), 0) for place in range(len(shares))]


def _mine(view: TournamentView, t: i18n.Translator) -> str:
    """The viewer's own state on the page, or ``""``."""
    n = t.number
    if view.table is not None:
        text = t.gettext("You play at table {table}").format(table=view.table)
        if view.chips is not None:
            text += " " + t.gettext("with {chips} chips").format(chips=n(view.chips))
        return text + "."
    if view.place is not None and view.prize:
        return t.gettext("You finished {place} and won {cubes} CUBES.").format(
            place=place_text(view.place, t), cubes=n(view.prize))
    if view.place is not None:
        return t.gettext("You finished {place}.").format(place=place_text(view.place, t))
    if view.registered:
        return t.gettext("You are registered.")
    return ""


def _page_keys(view: TournamentView, t: i18n.Translator, watchable: bool) -> str:
    """The keys of a tournament's page that apply now."""
    keys = []
    if view.status == "registering" and not view.registered or view.late and not \
            view.registered:
        keys.append(t.gettext("[R] Register"))
    if view.status == "registering" and view.registered:
        keys.append(t.gettext("[U] Unregister"))
    if view.table is not None:
        keys.append(t.gettext("[G] Go to your table"))
    if watchable:
        keys.append(t.gettext("[W] Watch a table"))
    keys.append(t.gettext("Esc: back"))
    return "  ".join(keys)


# --------------------------------------------------------------------- the lobby

async def tournament_list(session: Player, app: DoorContext, idle: float) -> None:
    """[T]: the list of tournaments; a number opens its page (:func:`choose`), Enter or
    Esc goes back."""
    t = i18n.of(session)
    look = session.look
    while True:
        views = app.tournaments.views(session.handle)
        session.write(_title(session, t.gettext("Tournaments")) + "".join(
            f"{line}\r\n" for line in list_lines(views[:max(session.rows - 6, 1)], t, look,
                                                 app.tournaments.local)) + "\r\n")
        prompt = t.gettext("Pick a tournament (1-{n}), Enter: back: ").format(n=len(views))
        session.write(prompt)
        key = await session.read_key(idle)
        if key.kind in (KeyKind.ENTER, KeyKind.ESC) or key.kind is not KeyKind.CHAR:
            session.write("\r\n")
            return
        char = key.char
        if not (char.isascii() and char.isdigit() and 1 <= int(char) <= len(views)):
            session.write("\r\n")
            return
        await choose(session, app, views[int(char) - 1].spec.id, idle)


def _title(session: Terminal, title: str) -> str:
    """A lobby page's start (as the lobby's own pages: cleared, the title, a rule)."""
    term, look = session.term, session.look
    if look.colour:
        rule = look.paint(look.glyphs("═" * display_width(title)), Pen.BORDER)
        return f"{term.home}{term.clear}{look.paint(title, Pen.TITLE)}\r\n{rule}\r\n"
    return f"{term.home}{term.clear}{term.bold}{title}{term.normal}\r\n\r\n"


async def choose(session: Player, app: DoorContext, tid: str, idle: float) -> None:
    """A tournament's page and its keys: [R] register (the buy-in asked first), [U]
    unregister, [G] go to your table, [W] watch a table, Esc (or any other key) back.
    A refusal is said in the viewer's language and changes nothing."""
    t = i18n.of(session)
    look = session.look
    director = app.tournaments
    note: str | None = None
    while True:
        view = director.view(tid, session.handle)
        watchable = bool(director.tables(tid))
        session.write(_title(session, view.spec.name) + "".join(
            f"{line}\r\n" for line in page_lines(view, t, look, director.wall(),
                                                 director.local, session.rows)))
        if note:
            session.write(note + "\r\n")
        session.write(_keys(look, _page_keys(view, t, watchable)) + " ")
        note = None
        key = await _key_or_start(session, director, tid, view, idle)
        if key is None:                        # it started: straight to the table
            session.write("\r\n")
            await play(session, app, tid=tid)
            continue
        char = key.char.lower() if key.kind is KeyKind.CHAR else ""
        if char == "r" and (view.status == "registering" or view.late) and not view.registered:
            note = await _register(session, app, view, idle)
        elif char == "u" and view.status == "registering" and view.registered:
            note = await _unregister(session, app, view)
        elif char == "g" and view.table is not None:
            session.write("\r\n")
            await play(session, app, tid=tid)
        elif char == "w" and watchable:
            session.write("\r\n")
            await _watch(session, app, tid, idle)
        else:
            session.write("\r\n")
            return


#: How often (seconds) a registered player's page looks whether the tournament started.
START_POLL = 1.0


async def _key_or_start(session: Player, director: Any, tid: str, view: TournamentView,
                        idle: float) -> Key | None:
    """The player's next key on a tournament's page, or ``None`` when the tournament they
    are registered in starts while they look at it (they go to their table at once, as
    they would at a real one when the director calls "shuffle up and deal"). Raises
    ``TimeoutError`` after ``idle`` seconds without a key, as :meth:`read_key` does."""
    if not (view.registered and view.status == "registering"):
        return await session.read_key(idle)
    loop = asyncio.get_running_loop()
    until = loop.time() + idle
    while True:
        try:
            return await session.read_key(max(0.0, min(START_POLL, until - loop.time())))
        except TimeoutError:
            if loop.time() >= until:
                raise
        now = director.view(tid, session.handle)
        if now.status == "running" and now.table is not None:
            return None


async def _register(session: Player, app: DoorContext, view: TournamentView,
                    idle: float) -> str:
    """Ask to pay the buy-in, then register; returns what to say (painted)."""
    t = i18n.of(session)
    look = session.look
    n = t.number
    buy_in = view.spec.rules.buy_in
    session.write("\r\n" + t.gettext("Register for {name}? The buy-in is {buy_in} CUBES; you "
                                     "have {cubes}. (y/n) ").format(
        name=view.spec.name, buy_in=n(buy_in), cubes=n(app.ledger.balance(session.handle))))
    try:
        key = await session.read_key(idle)
    except TimeoutError:
        return ""
    if not (key.kind is KeyKind.CHAR and t.answer(key.char)):
        session.write(t.no + "\r\n")
        return t.gettext("Not registered.")
    session.write(t.yes + "\r\n")
    failed = await _director_call(session, app.tournaments.register(view.spec.id,
                                                                    session.handle),
                                  f"registration of {session.handle} for {view.spec.id}")
    return failed or look.paint(t.gettext("You are registered: {buy_in} CUBES paid.").format(
        buy_in=n(buy_in)), Pen.VALUE)


async def _unregister(session: Player, app: DoorContext, view: TournamentView) -> str:
    """Unregister (the buy-in comes back); returns what to say (painted)."""
    t = i18n.of(session)
    failed = await _director_call(session, app.tournaments.unregister(view.spec.id,
                                                                      session.handle),
                                  f"unregistering {session.handle} from {view.spec.id}")
    return failed or session.look.paint(t.gettext(
        "You are no longer registered: {buy_in} CUBES back.").format(
            buy_in=t.number(view.spec.rules.buy_in)), Pen.VALUE)


async def _director_call(session: Player, call: Awaitable[None], what: str) -> str | None:
    """Await the director's ``call`` (a registration or its withdrawal); ``None`` when it
    went through, else what to say, painted: the refusal in the player's language, or
    that the store failed (logged, with ``what``)."""
    t = i18n.of(session)
    try:
        await call
    except TournamentRefused as err:
        return session.look.paint(refusal_text(err, t), Pen.ERROR)
    except StoreError as exc:
        log.error("%s failed: %s", what, exc)
        return session.look.paint(t.gettext("Sorry, the server cannot store it right now. "
                                             "Please try again later."), Pen.ERROR)
    return None


async def _watch(session: Player, app: DoorContext, tid: str, idle: float) -> None:
    """[W]: pick one of the tournament's tables (with one, that one) and watch it."""
    t = i18n.of(session)
    entries = app.tournaments.tables(tid)[:9]
    if not entries:
        return
    entry = entries[0]
    if len(entries) > 1:
        for number, listed in enumerate(entries, 1):
            session.write(f"  [{session.look.paint(str(number), Pen.KEY)}] "
                          f"{clean_text(listed.name)}: "
                          + t.ngettext("{n} player", "{n} players",
                                       len(listed.service.snapshot.seats)).format(
                n=len(listed.service.snapshot.seats)) + "\r\n")
        session.write(t.gettext("Watch which table (1-{n})? ").format(n=len(entries)))
        key = await session.read_key(idle)
        char = key.char if key.kind is KeyKind.CHAR else ""
        if not (char.isascii() and char.isdigit() and 1 <= int(char) <= len(entries)):
            session.write("\r\n")
            return
        session.write(char + "\r\n")
        entry = entries[int(char) - 1]
    screen = tournament_screen(entry.spec.game)(session, app, entry, watching=True)
    screen.tournament = tid
    await screen.run()


# --------------------------------------------------------------------- playing

def _tournament_of(app: DoorContext, entry: TableRef) -> str | None:
    """The id of the tournament entry whose running tables include ``entry``."""
    for spec_id in app.tournaments.specs:
        if any(e is entry for e in app.tournaments.tables(spec_id)):
            return spec_id
    return None


async def _seated_at(entry: TableRef, handle: str, timeout: float) -> bool:
    """Wait (at most ``timeout`` s) until ``handle`` has a seat at ``entry``: a moved
    player is seated in the new table's own step, a moment after the move."""
    service = entry.service
    if service.snapshot.seat_of(handle) is not None:
        return True
    changed = asyncio.Event()
    sub = service.bus.subscribe(notify=changed.set)
    try:
        async with asyncio.timeout(timeout):
            while service.snapshot.seat_of(handle) is None:
                changed.clear()
                sub.drain()
                if service.snapshot.seat_of(handle) is not None:
                    break
                await changed.wait()
    except TimeoutError:
        return False
    finally:
        sub.close()
    return True


async def play(session: Player, app: DoorContext, returning: bool = False,
               tid: str | None = None) -> None:
    """Play the tournament the player sits in: its table's screen (:func:`tournament_screen`),
    then, when the director moved them, the new table's, and so on; [X] goes back to the
    lobby (they stay seated). When they are out, or the tournament ended, their place
    (and prize) is shown, and a key goes back to the lobby."""
    t = i18n.of(session)
    director = app.tournaments
    entry = director.table_of(session.handle, tid)
    tid = None if entry is None else _tournament_of(app, entry)
    while entry is not None and tid is not None:
        if not await _seated_at(entry, session.handle, SEATING_WAIT):
            log.warning("%s is not seated at tournament table %s in time", session.handle,
                        entry.id)
            break
        screen = tournament_screen(entry.spec.game)(session, app, entry, returning=returning)
        screen.tournament = tid
        session.activity = "poker"
        try:
            await screen.run()
        finally:
            session.activity = "lobby"
        if screen.chose_to_leave or session.closed:
            return
        moved = director.table_of(session.handle, tid)
        if moved is None or moved is entry:
            break
        entry, returning = moved, False
        session.write(t.gettext("You move to {table}.").format(table=moved.name) + "\r\n")
    if tid is None:
        return
    view = director.view(tid, session.handle)
    mine = _mine(view, t)
    session.write("\x1b[H\x1b[2J" + session.look.paint(view.spec.name, Pen.TITLE) + "\r\n\r\n")
    # Once it has ended the view is the next run's, with this one's results.
    if view.status != "running" and view.results:
        session.write(t.gettext("The tournament is over.") + "\r\n")
        for place, handle, prize in view.results[:10]:
            session.write(f"  {fit(place_text(place, t), 5)} {clean_text(handle, 16):16} "
                          + (t.gettext("{cubes} CUBES").format(cubes=t.number(prize))
                             if prize else "") + "\r\n")
    if mine:
        session.write(mine + "\r\n")
    await press_any_key(session, app.config.server.lobby_idle_timeout)


async def back_to_tournament(session: Player, app: DoorContext) -> bool:
    """At login: one seated in a running tournament goes straight back to their
    tournament table (as a held seat at a cash table does). ``False`` if they sit in
    none."""
    entry = app.tournaments.table_of(session.handle)
    if entry is None:
        return False
    session.write("\r\n" + i18n.of(session).gettext(
        "Your tournament is running: back to {table}.").format(
            table=session.look.paint(entry.name, Pen.VALUE)) + "\r\n")
    await play(session, app, returning=True)
    return True


# --------------------------------------------------------------------- the screen

def describe_event(event: Event, table: Any, t: i18n.Translator = i18n.ENGLISH) -> Line | None:
    """A tournament's event at one of its tables as the message area reads it in ``t``'s
    language (``None``: not a tournament's): a player out and their place
    (``tournament_out``), moved to another table (``tournament_moved``), the next level
    (``tournament_level``, 1-based, with the stakes of tables of kind config ``table``), the table broken
    up (``tournament_table_broken``), the end and its prizes (``tournament_over``)."""
    d, k, h = event.data, event.kind, clean_text(event.handle or "", 16)
    n = t.number
    if k == "tournament_out":
        return "SYSTEM", t.gettext("{h} is out of the tournament in {place} place.").format(
            h=h, place=place_text(int(d["place"]), t))
    if k == "tournament_moved":
        return "SYSTEM", t.gettext("{h} moves to table {table}.").format(h=h, table=d["table"])
    if k == "tournament_level":
        return "INFO", t.gettext("Level {level} from the next hand: {stakes}.").format(
            level=d["level"], stakes=_stakes(table, int(d["bet"]), int(d.get("ante", 0)), t))
    if k == "tournament_table_broken":
        return "SYSTEM", t.gettext("Table {table} is broken up: its players move to the "
                                   "other tables.").format(table=d["table"])
    if k == "tournament_over":
        results = ", ".join(f"{place_text(int(p), t)} {clean_text(str(w), 16)} {n(int(c))}"
                            for p, w, c in d.get("results", []))
        return "SYSTEM", t.gettext("The tournament is over: {results}.").format(
            results=results)
    return None


def status_line(view: TournamentView, t: i18n.Translator = i18n.ENGLISH) -> str:
    """The tournament line of a tournament table's screen (at most 78 cells in every
    language): level, blinds or bets and ante, the time to the next level (``m:ss``),
    players left, average stack (chips) and the place of one who went out now."""
    if view.level is None:
        return ""
    spec = view.spec
    level = spec.rules.levels[view.level]
    parts = [t.gettext("Level {n}: {stakes}").format(
        n=view.level + 1, stakes=_stakes(spec.table, level.bet, level.ante, t))]
    if view.next_level_in is not None:
        parts.append(t.gettext("next {time}").format(time=_minutes_seconds(view.next_level_in)))
    parts.append(t.ngettext("{n} left", "{n} left", view.players_left).format(
        n=t.number(view.players_left)))
    average = t.gettext("avg {chips}").format(chips=t.number(view.average_stack))
    parts.append(average)
    if view.place_if_out is not None and view.table is not None:
        parts.append(t.gettext("out now: {place}").format(
            place=place_text(view.place_if_out, t)))
    # Large stakes: one blank between the parts, then without the average stack.
    for text in ("  ".join(parts), " ".join(parts),
                 " ".join(p for p in parts if p is not average)):
        if display_width(text) <= 78:
            return text
    return fit(text, 78).rstrip()


def compact_lines(view: TournamentView, t: i18n.Translator = i18n.ENGLISH) -> tuple[str, ...]:
    """The tournament line in the few cells of draw40's status border (``L3 1-50 a5 next
    4:12 5 left avg 900 out 5th``: level, stakes as figures and ante, time to the next
    level as ``m:ss``, players left, average stack in chips, the place of one who went out
    now), as the forms the screen may draw, fullest first: each next one without the
    part least used of those left (the average stack, the place if out now, the players
    left, the time to the next level); ``()`` when no level runs."""
    if view.level is None:
        return ()
    spec = view.spec
    level = spec.rules.levels[view.level]
    n = t.number
    stakes = t.pgettext("tournament line", "L{level} {stakes}").format(
        level=view.level + 1, stakes=_short_stakes(spec.table, level.bet, t))
    if level.ante:
        stakes += " " + t.pgettext("tournament line", "a{ante}").format(ante=n(level.ante))
    # (text, when it goes: 1 first, 0 never), in the order shown
    parts: list[tuple[str, int]] = [(stakes, 0)]
    if view.next_level_in is not None:
        parts.append((t.gettext("next {time}").format(
            time=_minutes_seconds(view.next_level_in)), 4))
    parts.append((t.ngettext("{n} left", "{n} left", view.players_left).format(
        n=n(view.players_left)), 3))
    parts.append((t.gettext("avg {chips}").format(chips=n(view.average_stack)), 1))
    if view.place_if_out is not None and view.table is not None:
        parts.append((t.pgettext("tournament line", "out {place}").format(
            place=place_text(view.place_if_out, t)), 2))
    dropped = sorted({rank for _, rank in parts if rank})
    return tuple(" ".join(text for text, rank in parts if not rank or rank > gone)
                 for gone in (0, *dropped))


class _TournamentTable(TableScreen[Any]):
    """Any kind's screen at a tournament table (mixed in before the kind's screen by
    :func:`tournament_screen`): the tournament's event texts, no seat to take, [X] back
    to the lobby (still seated), the end of the tournament ends the screen, and the
    screen painted again once a second for the tournament line's clock."""

    #: What [X] does at a tournament table: back to the lobby, the seat kept.
    exit_key = N_("[X] back to the lobby")
    #: The tournament entry's id (``TournamentSpec.id``), set before :meth:`run`.
    tournament: str | None = None
    #: The player chose [X]: back to the lobby (still seated).
    chose_to_leave: bool = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.over = False
        self._level_timer: asyncio.TimerHandle | None = None

    def _describe(self, event: Event) -> Line | None:
        if event.kind.startswith("tournament_"):
            return describe_event(event, self.entry.spec.config, self.t)
        if event.kind in ("won", "returned"):      # the pot and the bets are chips
            event = dataclasses.replace(event, data={**event.data, "tournament": True})
        return super()._describe(event)

    def _may_sit(self) -> bool:
        """Nobody takes a seat at a tournament table: the director seats its players."""
        return False

    def _prompt(self) -> str | None:
        if self.mode == "exit" and not self.watching:
            return self.t.gettext("Back to the lobby? You stay seated and are blinded away "
                                  "until you come back. (y/n)")
        return super()._prompt()

    def _on_item(self, item: Any) -> None:
        super()._on_item(item)
        event = getattr(item, "event", None)
        if isinstance(event, Event) and event.kind == "tournament_over":
            self.over = True
            self.leaving = True

    def _on_key(self, key: Any) -> None:
        was_exit = self.mode == "exit"
        super()._on_key(key)
        if was_exit and self.leaving:
            self.chose_to_leave = True

    def tournament_view(self) -> TournamentView | None:
        """The tournament as this screen's player sees it now (``None`` before
        :attr:`tournament` is set)."""
        if self.tournament is None:
            return None
        return self.app.tournaments.view(self.tournament, self.handle)

    def tournament_line(self) -> tuple[str, ...]:
        """The forms of the compact tournament line (:func:`compact_lines`) for a screen
        of regions (draw40's status border), fullest first."""
        view = self.tournament_view()
        return () if view is None else compact_lines(view, self.t)

    def _level_tick(self) -> None:
        """Once a second: the tournament line's clock (the rest as it was)."""
        self._level_timer = None
        if self._ended or self.leaving:
            return
        self._guarded(self._paint)
        self._level_timer = asyncio.get_running_loop().call_later(1.0, self._level_tick)

    async def run(self) -> None:
        if self.tournament is not None:
            self._level_timer = asyncio.get_running_loop().call_later(1.0, self._level_tick)
        try:
            await super().run()
        finally:
            if self._level_timer is not None:
                self._level_timer.cancel()
                self._level_timer = None


class _TournamentRows(_TournamentTable, RowScreen):
    """A row screen at a tournament table: with the tournament's line under the status
    line (level, stakes, players left)."""

    def status_cubes(self) -> str:
        """A tournament's stacks are chips: the status line shows no CUBES."""
        return ""

    def extra_row(self) -> tuple[str, Pen] | None:
        """The tournament line under the status line."""
        view = self.tournament_view()
        if view is None:
            return None
        return status_line(view, self.t), Pen.VALUE


_SCREENS: dict[str, type[TableScreen[Any]]] = {}


def tournament_screen(game: str) -> type[Any]:
    """The screen class of a tournament table of the game kind ``game``: the kind's own
    screen with the tournament's event texts and [X] (back to the lobby, still seated),
    and the tournament line: a row screen's under its status line (:func:`status_line`),
    draw40's screen of regions in its status border (:func:`compact_lines`, beside the
    player's chips)."""
    cls = _SCREENS.get(game)
    if cls is None:
        base = kinds.kind_of(game).screen
        mixin = _TournamentRows if issubclass(base, RowScreen) else _TournamentTable
        cls = _SCREENS[game] = type(f"Tournament{base.__name__}", (mixin, base), {})
    return cls

