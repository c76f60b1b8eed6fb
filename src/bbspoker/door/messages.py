"""Sentences for people: what the rules and the table say in codes, made into words.

The rules and the table speak in codes (:class:`~bbspoker.rules.events.Event`,
:class:`~bbspoker.rules.events.RuleError`, the game record's operations). Each game kind's
own events read as its screen's wording module says (``door/screens/<kind>_text.py``,
reached through :mod:`bbspoker.door.screens.kinds` by the table's kind); this module has
the wording every kind shares -- joins and leaves, the fair deck's seals and seeds, games
called off, connections lost and back, refusals -- and the hands' names, the player's
results table and the numbers' words. Each viewer's screen makes a line when it shows it,
with its viewer's translator, so the same event reads in each viewer's language.
``games show`` (the admin CLI) stays English.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from bbspoker.door.i18n import ENGLISH, N_, NP_, Translator
from bbspoker.rules.cards import Rank
from bbspoker.rules.draw40.hands import Category, HandValue
from bbspoker.rules.events import Event, RuleError
from bbspoker.rules.fairness import SHORT
from bbspoker.text import display_width, fit

__all__ = ["describe_hand", "shared_event", "refusal", "round_label", "shared_operation",
           "seconds_text", "cards_word", "describe_stats", "next_commitment_text",
           "STATS_WIDTH", "REASONS", "SYSTEM", "INFO"]

#: Message-area tags: table news for everyone, and notes for one player or on the game's flow.
SYSTEM, INFO = "SYSTEM", "INFO"

# Ranks as hands name them (chapter 3): alone ("rank"), several ("ranks"), and after
# "to the" (whose article follows the rank's gender in German and French).
_SINGULAR = {
    Rank.FIVE: NP_("rank", "Five"),
    Rank.SIX: NP_("rank", "Six"),
    Rank.SEVEN: NP_("rank", "Seven"),
    Rank.EIGHT: NP_("rank", "Eight"),
    Rank.NINE: NP_("rank", "Nine"),
    Rank.TEN: NP_("rank", "Ten"),
    Rank.JACK: NP_("rank", "Jack"),
    Rank.QUEEN: NP_("rank", "Queen"),
    Rank.KING: NP_("rank", "King"),
    Rank.ACE: NP_("rank", "Ace"),
}
_PLURAL = {
    Rank.FIVE: NP_("ranks", "Fives"),
    Rank.SIX: NP_("ranks", "Sixes"),
    Rank.SEVEN: NP_("ranks", "Sevens"),
    Rank.EIGHT: NP_("ranks", "Eights"),
    Rank.NINE: NP_("ranks", "Nines"),
    Rank.TEN: NP_("ranks", "Tens"),
    Rank.JACK: NP_("ranks", "Jacks"),
    Rank.QUEEN: NP_("ranks", "Queens"),
    Rank.KING: NP_("ranks", "Kings"),
    Rank.ACE: NP_("ranks", "Aces"),
}
_TO_THE = {
    Rank.FIVE: N_("to the Five"), Rank.SIX: N_("to the Six"), Rank.SEVEN: N_("to the Seven"),
    Rank.EIGHT: N_("to the Eight"), Rank.NINE: N_("to the Nine"), Rank.TEN: N_("to the Ten"),
    Rank.JACK: N_("to the Jack"), Rank.QUEEN: N_("to the Queen"),
    Rank.KING: N_("to the King"), Rank.ACE: N_("to the Ace"),
}
_HANDS = {
    Category.ROYAL_FLUSH: N_("Royal flush"),
    Category.STRAIGHT_FLUSH: N_("Straight flush {to}"),
    Category.FOUR_OF_A_KIND: N_("Four of a kind, {A}"),
    Category.FULL_HOUSE: N_("Full house, {A} over {B}"),
    Category.FLUSH: N_("Flush, {a} high"),
    Category.STRAIGHT: N_("Straight {to}"),
    Category.THREE_OF_A_KIND: N_("Three of a kind, {A}"),
    Category.TWO_PAIR: N_("Two pairs, {A} and {B}"),
    Category.ONE_PAIR: N_("One pair of {A}"),
    Category.HIGH_CARD: N_("High card {a}"),
}
#: Why a game was called off (the ``reason`` code of ``cancelled``), as the players read it
#: (English; :func:`describe_event` translates them).
REASONS = {
    "shutdown": N_("the server is shutting down"),
    "commit_failed": N_("the server could not save the last move"),
    "crash": N_("the server stopped before the game ended"),
}

def _rank(t: Translator, table: Mapping[Rank, Any], rank: Rank | None) -> str:
    """``rank`` in a word of ``table`` (a text or a ``(context, text)`` pair), or ``""``."""
    if rank is None or rank not in table:
        return ""
    word = table[rank]
    return t.pgettext(*word) if isinstance(word, tuple) else t.gettext(word)


def describe_hand(value: HandValue, t: Translator = ENGLISH) -> str:
    """A hand for people (chapter 3) in ``t``'s language, e.g. ``"Two pairs, Kings and
    Nines"``, ``"Straight to the Eight"``, ``"Full house, Jacks over Sixes"``
    (German ``"Zwei Paare, Könige und Neunen"``)."""
    first, second = value.named_ranks
    return t.gettext(_HANDS[value.category]).format(
        a=_rank(t, _SINGULAR, first), A=_rank(t, _PLURAL, first),
        B=_rank(t, _PLURAL, second), to=_rank(t, _TO_THE, first))


def round_label(phase: str, round: int | None, t: Translator = ENGLISH) -> str:
    """The game information area's round: ``1``, ``DISCARDING INTERVAL``, ``3`` ...,
    ``SHOWDOWN``, or ``NO GAME`` (``phase`` is a :class:`~bbspoker.rules.draw40.game.Phase`
    value: ``idle``, ``betting``, ``discarding``, ``showdown``), in ``t``'s language
    (German ``KEIN SPIEL``, ``KARTEN TAUSCHEN``); at most 20 cells."""
    if phase == "idle" or round is None:
        return t.gettext("NO GAME")
    if phase == "showdown":
        return t.gettext("SHOWDOWN")
    if phase == "discarding":
        return t.gettext("DISCARDING INTERVAL")
    return t.number(round)


def seconds_text(seconds: float, t: Translator = ENGLISH) -> str:
    """``"45 seconds"``, ``"1 minute"``, ``"2 minutes"`` (in ``t``'s language)."""
    if seconds % 60:
        n = int(seconds)
        return t.ngettext("{n} second", "{n} seconds", n).format(n=n)
    n = int(seconds // 60)
    return t.ngettext("{n} minute", "{n} minutes", n).format(n=n)


def cards_word(n: int, t: Translator = ENGLISH) -> str:
    """``"no cards"``, ``"1 card"``, ``"3 cards"`` (in ``t``'s language)."""
    if n == 0:
        return t.gettext("no cards")
    return t.ngettext("{n} card", "{n} cards", n).format(n=n)


_LEFT_WHY = {"lost_connection": N_("{h} has lost the connection."),
             "make_room": N_("{h} stands up to make room for a player."),
             "idle": N_("{h} pressed no key for too long and stands up."),
             "removed": N_("{h} was removed by the sysop."),
             "broke": N_("{h} is out of CUBES and leaves the table.")}
#: Why one left when :data:`_LEFT_WHY` does not say (by [X], or for any other reason). Its
#: own name, not a default inside the translating call: Babel does not extract a text
#: marked within another call.
_LEFT = N_("{h} has left the table.")


def shared_event(e: Event, t: Translator = ENGLISH) -> tuple[str, str] | None:
    """The message-area line (``(tag, text)``; ``tag`` :data:`SYSTEM` or :data:`INFO`) of
    an event every game kind's table may send -- one sits down or leaves, waits for a
    computer player's seat, becomes the game-master, cannot play this game, is removed
    as idle; the deck's seal and seed; a game called off and refunded; the server's
    shutdown; a connection lost and back; a seat refused -- in ``t``'s language, or
    ``None`` (an event with no line of its own: ``cards``, ``turn``, and any other).
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
            RuleError(d["code"], **{x: v for x, v in d.items() if x != "code"}), t))
    return None


def next_commitment_text(commitment: str, t: Translator = ENGLISH) -> str:
    """The line that shows a table's next game's deck commitment (``commitment``, 64 hex
    digits, of which the first :data:`~bbspoker.rules.fairness.SHORT` are shown): at the
    end of a game, and when a screen of the table opens."""
    return t.gettext("Next game's deck commitment: {commitment}.").format(
        commitment=commitment[:SHORT])


_REFUSALS = {
    "capped": N_("The betting is capped (one bet and three raises): call or fold."),
    "check_free": N_("Checking costs nothing here: check ([C]) instead of folding."),
    "no_chips": N_("You have no chips at this table: leave ([X]) and sit down again with a "
                   "new buy-in."),
    "buy_in_range": N_("Bring between {low} and {high} CUBES to this table."),
    "buy_in_short": N_("You need at least {low} CUBES to sit at this table; you have {cubes}."),
    "already_seated": N_("You are already sitting at the table."),
    "table_full": N_("All {seats} seats at the poker table are taken."),
    "not_seated": N_("You are not sitting at the table."),
    "game_running": N_("A game is already running."),
    "not_master": N_("Only the game-master ({master}) may start a game."),
    "too_few_antes": N_("At least two players with {ante} CUBES each are needed to start a "
                        "game."),
    "see_hands_round": N_("You may ask to see hands from round 3 on."),
    "hands_asked": N_("Hands have already been asked for."),
    "whole_cubes": N_("A bet is a whole number of CUBES."),
    "cannot_bet": N_("You cannot bet: the minimum is {low} but you can bet at most {high}."),
    "bet_range": N_("Your bet must be between {low} and {high} CUBES."),
    "discard_own": N_("You can only discard cards from your own hand."),
    "no_game": N_("No game is running."),
    "table_closed": N_("The table is closed."),
    "turn_passed": N_("Too late: your time ran out and the clock played that turn for you."),
    "failed": N_("Sorry, that did not work; please try again."),
    "shutting_down": N_("The server is shutting down: no new games."),
    "spectator": N_("You are watching: take a seat to play."),
    "seat_between_games": N_("You can take a seat between games."),
    "unknown_action": N_("That is not a move of this game."),
    # Schiebe-Poker
    "vote_running": N_("The players are voting on the rounds already."),
    "too_few_players": N_("At least two players must be seated to play."),
    "rounds_range": N_("The number of rounds must be between {low} and {high}."),
    "no_vote": N_("There is no proposal to answer."),
    "voted": N_("You have answered already."),
    "push_direction": N_("Push the middle row to the left or to the right."),
    "swap_position": N_("Positions are 1 to 3, from the left."),
}
_VERBS = {"bet": N_("You cannot bet now: this is {where}."),
          "pass": N_("You cannot pass now: this is {where}."),
          "discard": N_("You cannot discard now: this is {where}."),
          "reveal": N_("You cannot reveal now: this is {where}.")}
_PHASES = {"betting": N_("betting round {round}"), "discarding": N_("the discarding interval"),
           "showdown": N_("the showdown")}


def refusal(err: RuleError, t: Translator = ENGLISH) -> str:
    """The sentence that tells a player why an action was refused, in ``t``'s language
    (numbers grouped its way)."""
    p = {k: t.number(v) if isinstance(v, int) and not isinstance(v, bool) else v
         for k, v in err.params.items()}
    _ = t.gettext
    if err.code == "wait":
        secs = err.params["seconds"]
        return t.ngettext("Please wait {n} more second before the next game.",
                          "Please wait {n} more seconds before the next game.",
                          secs).format(n=p["seconds"])
    if err.code == "discard_max":
        most = err.params["max"]
        return t.ngettext("You may discard at most {max} card.",
                          "You may discard at most {max} cards.", most).format(max=p["max"])
    if err.code == "not_your_turn":
        return _("It is not your turn ({current} is in turn).").format(
            current=p.get("current") or _("nobody"))
    if err.code == "wrong_phase":
        phase = _PHASES.get(p.get("phase", ""))
        where = _(phase).format(round=p.get("round")) if phase else _("another phase")
        verb = _VERBS.get(p.get("verb", ""))
        if verb is None:
            return _("You cannot {verb} now: this is {where}.").format(verb=p.get("verb"),
                                                                        where=where)
        return _(verb).format(where=where)
    text = _REFUSALS.get(err.code, _REFUSALS["failed"])
    return _(text).format(**p)


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
