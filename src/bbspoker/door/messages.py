"""Sentences for people: what the rules and the table say in codes, made into words.

The rules and the table speak in codes (:class:`~bbspoker.rules.events.Event`,
:class:`~bbspoker.rules.events.RuleError`, the game record's operations). Each game kind's
own events read as its screen's wording module says (``door/screens/<kind>_text.py``,
reached through :mod:`bbspoker.door.screens.kinds` by the table's kind); this module has
the wording every kind shares -- joins and leaves, the fair deck's seals and seeds, games
called off, connections lost and back, the refusals of seats, turns and the table's state
(each kind adds its own refusals: :func:`refusal`) -- and the player's results table and
the numbers' words. It names no game kind and imports none of a kind's rules. Each viewer's screen makes a line when it shows it,
with its viewer's translator, so the same event reads in each viewer's language.
``games show`` (the admin CLI) stays English.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from bbspoker.door.i18n import ENGLISH, N_, NP_, Translator
from bbspoker.door.look import Pen, card_glyphs
from bbspoker.rules.events import Event, RuleError
from bbspoker.rules.fairness import SHORT
from bbspoker.text import display_width, fit

__all__ = ["shared_event", "table_stakes_event", "cards_text", "log_pen", "refusal", "shared_operation", "seconds_text", "describe_stats",
           "next_commitment_text", "Wording", "STATS_WIDTH", "REASONS", "SYSTEM", "INFO", "WON"]

#: Message-area tags: table news for everyone, and notes for one player or on the game's flow.
SYSTEM, INFO = "SYSTEM", "INFO"
#: The tag of a line that says who won: shown as ``[SYSTEM]`` (the marker before it is a
#: control character, which every drawing of a tag cleans away), drawn to stand out in a
#: colour look.
WON = "\x01SYSTEM"

def log_pen(tag: str) -> Pen:
    """The pen of a message-area line tagged ``tag``: who won (:data:`WON`), SYSTEM and
    INFO lines (dimmer than chat), or a chat line (its text; the handle has its own)."""
    return (Pen.WINNER if tag == WON else Pen.SYSTEM if tag == SYSTEM else
            Pen.INFO if tag == INFO else Pen.CHAT)


#: Why a game was called off (the ``reason`` code of ``cancelled``), as the players read it
#: (English; :func:`describe_event` translates them).
REASONS = {
    "shutdown": N_("the server is shutting down"),
    "commit_failed": N_("the server could not save the last move"),
    "crash": N_("the server stopped before the game ended"),
    "moved": N_("the table moved to another server"),
}

def seconds_text(seconds: float, t: Translator = ENGLISH) -> str:
    """``"45 seconds"``, ``"1 minute"``, ``"2 minutes"`` (in ``t``'s language)."""
    if seconds % 60:
        n = int(seconds)
        return t.ngettext("{n} second", "{n} seconds", n).format(n=n)
    n = int(seconds // 60)
    return t.ngettext("{n} minute", "{n} minutes", n).format(n=n)


_LEFT_WHY = {"lost_connection": N_("{h} has lost the connection."),
             "make_room": N_("{h} stands up to make room for a player."),
             "idle": N_("{h} pressed no key for too long and stands up."),
             "removed": N_("{h} was removed by the sysop."),
             "broke": N_("{h} is out of CUBES and leaves the table.")}
#: Why one left when :data:`_LEFT_WHY` does not say (by [X], or for any other reason). Its
#: own name, not a default inside the translating call: Babel does not extract a text
#: marked within another call.
_LEFT = N_("{h} has left the table.")


#: :func:`pot_won`'s sentences (the whole pot, a share, each with the made hand): CUBES at
#: a cash table, chips at a tournament's.
_POT_WON = {
    False: (N_("{h} wins the pot of {pot} CUBES."),
            N_("{h} wins {cubes} of the {pot} CUBES in the pot."),
            N_("{h} wins the pot of {pot} CUBES with {hand} ({best})."),
            N_("{h} wins {cubes} of the {pot} CUBES in the pot with {hand} ({best}).")),
    True: (N_("{h} wins the pot of {pot} chips."),
           N_("{h} wins {chips} of the {pot} chips in the pot."),
           N_("{h} wins the pot of {pot} chips with {hand} ({best})."),
           N_("{h} wins {chips} of the {pot} chips in the pot with {hand} ({best}).")),
}


def pot_won(h: str | None, d: Mapping[str, Any], t: Translator,
            hand_name: Callable[[str, Translator], str]) -> str:
    """A pot taken at a table-stakes kind (its ``won`` event): ``amount`` CUBES of the
    hand's ``pot`` (both with the winner's own bets in them, as every pot is counted; an
    uncalled bet is neither: it is said apart). The whole pot: "alice wins the pot of 70
    CUBES"; a share of it (a split, a side pot): "bob wins 35 of the 70 CUBES in the pot";
    with the made hand (``hand``, named by the kind's ``hand_name``) when it was shown.
    An event with ``tournament`` (a tournament table's) says chips instead."""
    n = t.number
    amount, pot = d["amount"], d.get("pot", d["amount"])
    whole, share, whole_with, share_with = _POT_WON[bool(d.get("tournament"))]
    figures = {"h": h, "pot": n(pot), "cubes": n(amount), "chips": n(amount)}
    if not d.get("hand"):
        return t.gettext(whole if amount >= pot else share).format(**figures)
    return t.gettext(whole_with if amount >= pot else share_with).format(
        **figures, hand=hand_name(d["hand"], t), best=cards_text(d.get("best", "")))


def cards_text(cards: Any) -> str:
    """Cards of an event (a sequence of GV notation, or one string of it) as a log line
    shows them: blank-separated, suits as glyphs (:func:`bbspoker.door.look.card_glyphs`)."""
    return card_glyphs(cards if isinstance(cards, str) else " ".join(cards))


def table_stakes_event(e: Event, t: Translator, hand_name: Callable[[str, Translator], str],
                       refusals: Mapping[str, Wording] | None = None
                       ) -> tuple[str, str] | None:
    """The message-area line of an event every table-stakes kind (Hold'em, stud) sends
    alike -- sitting down with a buy-in and leaving with a cash-out, folds, checks, calls,
    bets and raises (all in or not), shown and mucked hands, an uncalled bet returned, a
    pot won (the made hand named by the kind's ``hand_name``), sitting out and back, a
    bust -- in ``t``'s language (at a tournament table, events with ``tournament``, the
    stacks in chips, not CUBES); any other event as :func:`shared_event` says. A kind's
    own wording comes first and hands the rest to this."""
    h, d, k = e.handle, e.data, e.kind
    _, n = t.gettext, t.number
    late = bool(d.get("timeout"))
    if k == "sat" and d.get("tournament"):
        return SYSTEM, t.ngettext("{h} sits down with {chips} chip.",
                                  "{h} sits down with {chips} chips.",
                                  d["buy_in"]).format(h=h, chips=n(d["buy_in"]))
    if k == "sat":
        return SYSTEM, _("{h} sits down with {cubes} CUBES.").format(h=h, cubes=n(d["stack"]))
    if k == "left":
        cashed = d.get("cash_out", 0)
        reason = d.get("reason", "")
        if cashed and d.get("tournament"):     # the director moved them to another table
            return SYSTEM, t.ngettext("{h} leaves the table with {chips} chip.",
                                      "{h} leaves the table with {chips} chips.",
                                      cashed).format(h=h, chips=n(cashed))
        if cashed:
            text = (_("{h} lost the connection and leaves the table with {cubes} CUBES.")
                    if reason == "lost_connection" else
                    _("{h} was idle too long and leaves the table with {cubes} CUBES.")
                    if reason == "idle" else _("{h} leaves the table with {cubes} CUBES."))
        else:
            text = (_("{h} lost the connection and leaves the table.")
                    if reason == "lost_connection" else
                    _("{h} was idle too long and leaves the table.")
                    if reason == "idle" else _("{h} leaves the table."))
        return SYSTEM, text.format(h=h, cubes=n(cashed))
    if k == "fold":
        return SYSTEM, (_("{h} did not act in time and folds.") if late
                        else _("{h} folds.")).format(h=h)
    if k == "check":
        return SYSTEM, (_("{h} did not act in time and checks.") if late
                        else _("{h} checks.")).format(h=h)
    if k == "call":
        return SYSTEM, _("{h} calls {amount}.").format(h=h, amount=n(d["amount"]))
    if k == "bet":
        return SYSTEM, (_("{h} bets {amount} and is all in.") if d.get("all_in")
                        else _("{h} bets {amount}.")).format(h=h, amount=n(d["to"]))
    if k == "raise":
        return SYSTEM, (_("{h} raises to {amount} and is all in.") if d.get("all_in")
                        else _("{h} raises to {amount}.")).format(h=h, amount=n(d["to"]))
    if k == "show":
        if not d.get("hand"):
            return SYSTEM, _("{h} shows {cards}.").format(h=h, cards=cards_text(d["cards"]))
        return SYSTEM, _("{h} shows {cards} with {hand} ({best}).").format(
            h=h, cards=cards_text(d["cards"]), hand=hand_name(d["hand"], t),
            best=cards_text(d.get("best", "")))
    if k == "muck":
        return SYSTEM, _("{h} does not show.").format(h=h)
    if k == "returned" and d.get("tournament"):
        return SYSTEM, t.ngettext("Uncalled bet of {chips} chip returned to {h}.",
                                  "Uncalled bet of {chips} chips returned to {h}.",
                                  d["amount"]).format(h=h, chips=n(d["amount"]))
    if k == "returned":
        return SYSTEM, t.ngettext("Uncalled bet of {cubes} CUBE returned to {h}.",
                                  "Uncalled bet of {cubes} CUBES returned to {h}.",
                                  d["amount"]).format(h=h, cubes=n(d["amount"]))
    if k == "won":
        return WON, pot_won(h, d, t, hand_name)
    if k == "leaving":
        return SYSTEM, _("{h} leaves after this hand.").format(h=h)
    if k == "sit_out":
        return SYSTEM, _("{h} sits out.").format(h=h)
    if k == "sit_in":
        return SYSTEM, _("{h} is back in the game.").format(h=h)
    if k == "busted":
        return SYSTEM, (_("{h} has no chips left.") if d.get("tournament")
                        else _("{h} has no chips left and sits out.")).format(h=h)
    return shared_event(e, t, refusals)


def shared_event(e: Event, t: Translator = ENGLISH,
                 refusals: Mapping[str, Wording] | None = None) -> tuple[str, str] | None:
    """The message-area line (``(tag, text)``; ``tag`` :data:`SYSTEM` or :data:`INFO`) of
    an event every game kind's table may send -- one sits down or leaves, waits for a
    computer player's seat, becomes the game-master, cannot play this game, is removed
    as idle; the deck's seal and seed; a game called off and refunded; the server's
    shutdown; a connection lost and back; a seat refused -- in ``t``'s language, or
    ``None`` (an event with no line of its own: ``cards``, ``turn``, and any other). A
    refused seat's reason reads as :func:`refusal` words it with the kind's ``refusals``.
    Each kind's wording (:attr:`bbspoker.door.screens.base.ScreenKind.describe_event`)
    says its own events and hands the rest to this."""
    h, d, k = e.handle, e.data, e.kind
    n = t.number
    _ = t.gettext
    if k == "sat":
        return SYSTEM, _("{h} has joined the table.").format(h=h)
    if k == "left":
        return SYSTEM, _(_LEFT_WHY.get(d.get("reason", ""), _LEFT)).format(h=h)
    if k == "seat_wanted":
        ahead = d.get("ahead", 0)
        if ahead:
            return INFO, t.ngettext(
                "All seats are taken: a computer player stands up for you between games "
                "({ahead} player ahead of you).",
                "All seats are taken: a computer player stands up for you between games "
                "({ahead} players ahead of you).", ahead).format(ahead=n(ahead))
        return INFO, _("All seats are taken: a computer player stands up for you between "
                       "games.")
    if k == "master":
        return SYSTEM, _("{h} is now the game-master.").format(h=h)
    if k == "master_kept":
        return None
    if k == "inactive":
        why = d.get("why")
        if why == "no_ante":
            return INFO, _("You do not have the {ante} CUBES ante: you may join the next "
                           "game.").format(ante=n(d["ante"]))
        if why == "out":
            return INFO, _("You are out of this game: you may join the next game.")
        return INFO, _("A game is running: you may join the next game.")
    if k == "sealed":
        seeds = ", ".join(f'{who} "{seed}"' for who, seed in d["client_seeds"])
        return INFO, _("Deck sealed: {commitment} (SHA-256 of the server seed); client seeds: "
                       "{seeds}.").format(commitment=d["commitment"][:SHORT], seeds=seeds)
    if k == "seed":
        return INFO, _("Game {game}'s deck came from server seed {seed} (its SHA-256 begins "
                       "{commitment}, as sealed).").format(
            game=d["game_id"], seed=d["server_seed"], commitment=d["commitment"][:SHORT])
    if k == "next_commitment":
        return INFO, next_commitment_text(d["commitment"], t)
    if k == "removed":
        return SYSTEM, t.ngettext("{h} was idle for {n} game and has been removed from the "
                                  "table.", "{h} was idle for {n} games and has been removed "
                                  "from the table.", d["games"]).format(h=h, n=d["games"])
    if k == "cancelled":
        code = d.get("reason", "")
        reason = _(REASONS[code]) if code in REASONS else code
        if d.get("retry"):
            return SYSTEM, _("The game was called off ({reason}): every ante and bet will be "
                             "given back as soon as the server can save again."
                             ).format(reason=reason)
        if d.get("later"):
            return SYSTEM, _("The game was called off ({reason}): every ante and bet will be "
                             "given back when the server restarts.").format(reason=reason)
        return SYSTEM, _("The game was called off ({reason}): every ante and bet has been "
                         "given back.").format(reason=reason)
    if k == "refunded":
        code = d.get("reason", "")
        reason = _(REASONS[code]) if code in REASONS else code
        return SYSTEM, _("Every ante and bet of the game called off ({reason}) has now been "
                         "given back.").format(reason=reason)
    if k == "shutdown_grace":
        return SYSTEM, _("The server is shutting down: this game may finish within {time}; "
                         "after that it is called off and every bet refunded.").format(
            time=seconds_text(d["grace"], t))
    if k == "connection_lost":
        return SYSTEM, _("{h} lost the connection (seat held {grace} s).").format(
            h=h, grace=f"{d['grace']:g}")
    if k == "reconnected":
        return SYSTEM, _("{h} is back.").format(h=h)
    if k == "seat_refused":
        return INFO, _("You could not take the seat: {why}").format(why=refusal(
            RuleError(d["code"], **{x: v for x, v in d.items() if x != "code"}), t, refusals))
    return None


def next_commitment_text(commitment: str, t: Translator = ENGLISH) -> str:
    """The line that shows a table's next game's deck commitment (``commitment``, 64 hex
    digits, of which the first :data:`~bbspoker.rules.fairness.SHORT` are shown): at the
    end of a game, and when a screen of the table opens."""
    return t.gettext("Next game's deck commitment: {commitment}.").format(
        commitment=commitment[:SHORT])


#: How a game kind words one of its refusal codes (:attr:`bbspoker.door.screens.base.ScreenKind.refusals`):
#: a message id, its ``{placeholders}`` filled from the refusal's parameters (numbers
#: grouped in the reader's language), or a function of the refusal and the translator for
#: a sentence that needs more (a plural, words of the kind's own).
Wording = str | Callable[[RuleError, Translator], str]

#: A table on a worker (``bbspoker gateway``) that did not answer a move in time: the
#: move may have been made (``table_unreachable``, reason ``timeout``) ...
_LATE_ANSWER = N_("The table did not answer in time: your move may have been made; the "
                  "screen shows it when the table answers.")
#: ... or that nobody serves now (a worker taking it over) or that this gateway cannot reach.
_NO_ANSWER = N_("The table cannot be reached right now (it may be moving to another "
                "server); please try again in a moment.")



def _unreachable(err: RuleError) -> str:
    """The message id for a ``table_unreachable`` refusal: whether the move may have been
    made (its ``reason`` ``timeout``) or surely was not."""
    return _LATE_ANSWER if err.params.get("reason") == "timeout" else _NO_ANSWER


#: The refusals every kind's table may give (seats, turns, the table's and the server's
#: state), by code; each kind words its own (:data:`Wording`).
_REFUSALS: dict[str, Wording] = {
    "already_seated": N_("You are already sitting at the table."),
    "table_full": N_("All {seats} seats at the poker table are taken."),
    "not_seated": N_("You are not sitting at the table."),
    "game_running": N_("A game is already running."),
    "not_master": N_("Only the game-master ({master}) may start a game."),
    "no_game": N_("No game is running."),
    "table_closed": N_("The table is closed."),
    "turn_passed": N_("Too late: your time ran out and the clock played that turn for you."),
    "failed": N_("Sorry, that did not work; please try again."),
    "table_unreachable": lambda err, t: t.gettext(_unreachable(err)),
    "shutting_down": N_("The server is shutting down: no new games."),
    "spectator": N_("You are watching: take a seat to play."),
    "seat_between_games": N_("You can take a seat between games."),
    "unknown_action": N_("That is not a move of this game."),
    "tournament_seat": N_("This is a tournament table: the tournament seats and moves its "
                          "players."),
    "no_tournament_chips": N_("You have no chips left in this tournament."),
}


def _not_your_turn(err: RuleError, t: Translator) -> str:
    """``not_your_turn``: who is in turn (``current``), or nobody."""
    return t.gettext("It is not your turn ({current} is in turn).").format(
        current=err.params.get("current") or t.gettext("nobody"))


_REFUSALS["not_your_turn"] = _not_your_turn


def refusal(err: RuleError, t: Translator = ENGLISH,
            own: Mapping[str, Wording] | None = None) -> str:
    """The sentence that tells a player why an action was refused, in ``t``'s language
    (numbers grouped its way): as the table's kind words the code (``own``, its
    :attr:`~bbspoker.door.screens.base.ScreenKind.refusals`), else as every kind does
    (:data:`_REFUSALS`); a code neither words reads as ``failed`` ("Sorry, that did not
    work")."""
    wording = (own or {}).get(err.code) or _REFUSALS.get(err.code) or _REFUSALS["failed"]
    if callable(wording):
        return wording(err, t)
    p = {k: t.number(v) if isinstance(v, int) and not isinstance(v, bool) else v
         for k, v in err.params.items()}
    return t.gettext(wording).format(**p)


def shared_operation(op: Mapping[str, Any]) -> str:
    """One line of a game's record (the stored form of
    :class:`~bbspoker.rules.events.Operation`) for ``bbspoker games show``, in English,
    for an operation every kind may record (an ante paid, cards dealt, one who left);
    any other as its fields (``op=..., handle=...``). Each kind's wording
    (:attr:`bbspoker.door.screens.base.ScreenKind.describe_operation`) says its own
    operations and hands the rest to this."""
    kind, h = op.get("op"), op.get("handle")
    if kind == "ante":
        return f"{h} pays the ante ({op['amount']})"
    if kind == "deal":
        return f"{h} is dealt {op['cards']}"
    if kind == "left":
        return f"{h} left the table"
    return ", ".join(f"{k}={v}" for k, v in op.items())


#: The [S] table's columns: ``(heading, cells)``, the table's place then the numbers, each
#: heading right-aligned over its numbers; the cells add up to :data:`STATS_WIDTH`.
_STATS_COLUMNS = (
    (NP_("stats heading", "TABLE (GAME)"), 24), (NP_("stats heading", "PLAYED"), 7),
    (NP_("stats heading", "WON"), 6), (NP_("stats heading", "CUBES WON"), 10),
    (NP_("stats heading", "PAID IN"), 9), (NP_("stats heading", "NET"), 9),
    (NP_("stats heading", "BIGGEST POT"), 12))
#: Cells of a line of :func:`describe_stats`: the lobby indents it by 2, and 79 cells of
#: an 80-column screen are safe from the terminal's automatic wrap.
STATS_WIDTH = 77


def describe_stats(stats: Sequence[Any], games: Mapping[str, str],
                   t: Translator = ENGLISH) -> list[str]:
    """A player's results per table (``PlayerStats`` rows; ``games``: table id -> its
    game kind's name in ``t``'s language, see
    :func:`bbspoker.door.screens.kinds.game_title`), as lines of :data:`STATS_WIDTH` (77) cells at most in ``t``'s language: a
    header and one line a table (``id (game)`` cut to 22 cells, then games played and
    won, CUBES won, paid in, net and the biggest pot, each number right-aligned under its
    heading), or one line saying there is none yet. Each heading is cut to one cell less
    than its column, so one blank always parts two headings."""
    if not stats:
        return [t.gettext("no finished game yet")]
    (place, place_cells), *numbers = _STATS_COLUMNS
    header = fit(t.pgettext(*place), place_cells - 1) + " " + "".join(
        _right(t.pgettext(*heading), cells - (i > 0), cells)
        for i, (heading, cells) in enumerate(numbers))
    lines = [header.rstrip()]
    n = t.number
    for s in stats:
        title = games.get(s.table)
        game = "({})".format(title if title else t.gettext("gone"))
        name = fit(s.table, max(place_cells - 2 - display_width(game), 4)).rstrip()
        where = f"{name} {game}"
        net = ("+" if s.net >= 0 else "-") + n(abs(s.net))
        values = (n(s.played), n(s.won), n(s.cubes_won), n(s.cubes_paid), net,
                  n(s.biggest_pot))
        lines.append(fit(where, place_cells - 1) + " " + "".join(
            _right(value, None, cells) for value, (_, cells) in zip(values, numbers)))
    return lines


def _right(text: str, most: int | None, cells: int) -> str:
    """``text`` cut to ``most`` cells (None: a number, never cut) and right-aligned in
    ``cells``; a number wider than that keeps one blank before it."""
    if most is not None:
        text = fit(text, most).rstrip()
    return " " * max(cells - display_width(text), 1 if most is None else 0) + text
