"""Sentences for people: what the rules and the table say in codes, made into words.

The rules and the table speak in codes (:class:`~bbspoker.rules.events.Event`,
:class:`~bbspoker.rules.events.RuleError`, the game record's operations); this module
is the one place that turns them into the words of the message area, the refusals,
the hand descriptions and the hand history of ``bbspoker games show``. Each viewer's
screen calls it when it shows a line with its viewer's translator, so the same event
reads in each viewer's language. ``games show`` (the admin CLI) stays English.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from bbspoker.door.i18n import ENGLISH, N_, NP_, Translator
from bbspoker.rules.cards import Rank, format_cards, parse_cards
from bbspoker.rules.draw40.hands import Category, HandValue, evaluate
from bbspoker.rules.events import Event, RuleError
from bbspoker.rules.fairness import SHORT
from bbspoker.text import display_width, fit

__all__ = ["describe_hand", "describe_event", "refusal", "round_label", "describe_operation",
           "seconds_text", "cards_word", "describe_stats", "game_title", "GAME_TITLES",
           "games_phrase", "GAME_PHRASES", "next_commitment_text",
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
_ALONE = {"passed": N_("the others passed"), "left": N_("the others left the table"),
          "passed_or_left": N_("the others passed or left")}


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


def _cards(cards: Any) -> str:
    return cards if isinstance(cards, str) else format_cards(cards)


def _value(data: Mapping[str, Any]) -> HandValue | None:
    """The hand an event names (``value``) or an operation records (``cards``)."""
    if "value" in data:
        return data["value"]
    if data.get("cards"):
        return evaluate(parse_cards(data["cards"]))
    return None


def _won(h: str | None, d: Mapping[str, Any], t: Translator = ENGLISH) -> str:
    pot = t.number(d["pot"])
    value = _value(d)
    alone = _ALONE.get(d.get("alone", ""))
    if value is None:
        if alone:
            return t.gettext("{h} wins the pot of {pot} CUBES: {alone}.").format(
                h=h, pot=pot, alone=t.gettext(alone))
        return t.gettext("{h} wins the pot of {pot} CUBES!").format(h=h, pot=pot)
    hand = describe_hand(value, t)
    if "suit" in d:
        hand = t.gettext("{hand} (suit {suit} decides)").format(hand=hand, suit=d["suit"])
    if alone:
        return t.gettext("{h} wins the pot of {pot} CUBES with {hand}: {alone}.").format(
            h=h, pot=pot, hand=hand, alone=t.gettext(alone))
    return t.gettext("{h} wins the pot of {pot} CUBES with {hand}!").format(
        h=h, pot=pot, hand=hand)


_LEFT_WHY = {"lost_connection": N_("{h} has lost the connection."),
             "make_room": N_("{h} stands up to make room for a player."),
             "idle": N_("{h} pressed no key for too long and stands up."),
             "removed": N_("{h} was removed by the sysop."),
             "broke": N_("{h} is out of CUBES and leaves the table.")}
#: Why one left when :data:`_LEFT_WHY` does not say (by [X], or for any other reason). Its
#: own name, not a default inside the translating call: Babel does not extract a text
#: marked within another call.
_LEFT = N_("{h} has left the table.")


def _event_text(e: Event, t: Translator = ENGLISH) -> tuple[str, str] | None:
    h, d, k = e.handle, e.data, e.kind
    if k in _SCHIEBE_EVENTS or (k in ("started", "round") and "rounds" in d):
        return _schiebe_event(e, t)
    if k in _HOLDEM_EVENTS or (k == "bet" and "street" in d) or (k == "won" and "amount" in d) \
            or (k == "sat" and "buy_in" in d) or (k == "left" and "cash_out" in d):
        return _holdem_event(e, t)
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
    if k == "started":
        return SYSTEM, _("The game is now STARTED (initial pot is {pot}) ...").format(
            pot=n(d["pot"]))
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
    if k == "bet":
        text = (_("{h} has raised the bet ({amount}), pot is {pot}.") if d.get("raised")
                else _("{h} has called the bet ({amount}), pot is {pot}."))
        return SYSTEM, text.format(h=h, amount=n(d["amount"]), pot=n(d["pot"]))
    if k == "see_hands":
        return SYSTEM, _("{h} wants to see hands: everyone has one more turn.").format(h=h)
    if k == "pass":
        why = d.get("why")
        if why == "timeout":
            return SYSTEM, _("{h} did not act within {time} and is out of the game.").format(
                h=h, time=seconds_text(d["seconds"], t))
        if why == "cannot_bet":
            return SYSTEM, _("{h} cannot place the minimum bet ({low}) and is out of the "
                             "game.").format(h=h, low=n(d["low"]))
        return SYSTEM, _("{h} has passed.").format(h=h)
    if k == "discard":
        if d.get("timeout"):
            return SYSTEM, _("{h} did not discard in time: no exchange.").format(h=h)
        if not d["count"]:
            return SYSTEM, _("{h} has discarded no cards.").format(h=h)
        return SYSTEM, _("{h} has discarded {cards}.").format(h=h, cards=cards_word(d["count"], t))
    if k == "cannot_bet":
        return SYSTEM, _("You cannot bet: the minimum bet is {low} but you have only {cubes} "
                         "CUBES.").format(low=n(d["low"]), cubes=n(d["cubes"]))
    if k == "round":
        if d.get("phase") == "discarding":
            return INFO, t.ngettext("DISCARDING INTERVAL: discard up to {n} card.",
                                    "DISCARDING INTERVAL: discard up to {n} cards.",
                                    d["max_discard"]).format(n=d["max_discard"])
        return INFO, _("Round {round} begins.").format(
            round=round_label(d.get("phase", "betting"), d.get("round"), t))
    if k == "showdown":
        return SYSTEM, _("SHOWDOWN: every player in turn reveals the hand ([R]).")
    if k == "reveal":
        return SYSTEM, _("{h} shows {cards}: {hand}.").format(
            h=h, cards=_cards(d["cards"]), hand=describe_hand(d["value"], t))
    if k == "won":
        return SYSTEM, _won(h, d, t)
    if k == "pot_to_system":
        return SYSTEM, _("Nobody is left in the game: the pot of {pot} CUBES goes to the "
                         "system.").format(pot=n(d["pot"]))
    if k == "removed":
        return SYSTEM, t.ngettext("{h} was idle for {n} game and has been removed from the "
                                  "table.", "{h} was idle for {n} games and has been removed "
                                  "from the table.", d["games"]).format(h=h, n=d["games"])
    if k == "master_timeout":
        return SYSTEM, _("{h} has not started a game in time.").format(h=h)
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
    return None


def next_commitment_text(commitment: str, t: Translator = ENGLISH) -> str:
    """The line that shows a table's next game's deck commitment (``commitment``, 64 hex
    digits, of which the first :data:`~bbspoker.rules.fairness.SHORT` are shown): at the
    end of a game, and when a screen of the table opens."""
    return t.gettext("Next game's deck commitment: {commitment}.").format(
        commitment=commitment[:SHORT])


def describe_event(event: Event, t: Translator = ENGLISH) -> tuple[str, str] | None:
    """``(tag, sentence)`` for the message area, or ``None`` for an event that shows no
    line (``cards``, ``turn``: they change the screen itself). ``tag`` is
    :data:`SYSTEM` or :data:`INFO`. ``t``: the viewer's language (the events of every
    game kind are translated)."""
    return _event_text(event, t)


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


def describe_operation(op: Mapping[str, Any]) -> str:
    """One line of a game's record (the stored form of
    :class:`~bbspoker.rules.events.Operation`) for ``bbspoker games show``."""
    kind, h = op.get("op"), op.get("handle")
    if kind in _SCHIEBE_OPERATIONS or (kind in ("deal", "reveal") and "hidden" in op):
        return _schiebe_operation(op)
    if kind in _HOLDEM_OPERATIONS or (kind == "bet" and "street" in op) \
            or (kind == "won" and "amount" in op) or (kind == "blind"):
        return _holdem_operation(op)
    if kind == "ante":
        return f"{h} pays the ante ({op['amount']})"
    if kind == "deal":
        return f"{h} is dealt {op['cards']}"
    if kind == "bet":
        verb = "raised the bet" if op.get("raised") else "called the bet"
        extra = " and asked to see hands" if op.get("see_hands") else ""
        return f"round {op.get('round')}: {h} {verb} ({op['amount']}){extra}"
    if kind == "pass":
        why = {"timeout": "timed out", "cannot_bet": "could not place the minimum bet"}
        return f"round {op.get('round')}: {h} {why.get(op.get('why', ''), 'passed')}"
    if kind == "discard":
        if op.get("timeout"):
            return f"{h} timed out: no exchange"
        n = len(op["cards"].split()) if op.get("cards") else 0
        return f"{h} discards {n}" + (f" ({op['cards']}), draws {op['drawn']}" if n else "")
    if kind == "showdown":
        return "showdown"
    if kind == "reveal":
        return f"{h} reveals {op['cards']}: {describe_hand(_value(op))}"  # type: ignore[arg-type]
    if kind == "left":
        return f"{h} left the table"
    if kind == "won":
        return _won(h, op)
    if kind == "pot_to_system":
        return f"Nobody is left in the game: the pot of {op['pot']} CUBES goes to the system."
    return ", ".join(f"{k}={v}" for k, v in op.items())


#: Each game kind's name as the lobby's table list and [S] show it (:func:`game_title`).
GAME_TITLES = {"draw40": N_("40-card draw"), "schiebe": N_("Schiebe-Poker"),
               "holdem": N_("Hold'em")}
#: Each game kind as a sentence names what is played at its tables (:func:`games_phrase`).
GAME_PHRASES = {"draw40": N_("40-card draw poker at five seats"),
                "holdem": N_("fixed-limit Texas Hold'em"), "schiebe": N_("Schiebe-Poker")}
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


def game_title(kind: str, t: Translator = ENGLISH) -> str:
    """A game kind (``"draw40"``, ``"schiebe"``, ``"holdem"``) as people name it, in
    ``t``'s language: ``"40-card draw"`` (German ``"40-Blatt-Draw"``); another code as
    it is."""
    title = GAME_TITLES.get(kind)
    return t.gettext(title) if title else kind


def games_phrase(kinds: Sequence[str], t: Translator = ENGLISH) -> str:
    """The game kinds ``kinds`` (codes, in the order given, each once) as a sentence names
    them in ``t``'s language: ``"fixed-limit Texas Hold'em and Schiebe-Poker"``."""
    names = [t.gettext(GAME_PHRASES[k]) if k in GAME_PHRASES else k
             for k in dict.fromkeys(kinds)]
    if len(names) < 2:
        return "".join(names)
    return t.gettext("{names} and {last}").format(names=", ".join(names[:-1]), last=names[-1])


def describe_stats(stats: Sequence[Any], kinds: Mapping[str, str],
                   t: Translator = ENGLISH) -> list[str]:
    """A player's results per table (``PlayerStats`` rows; ``kinds``: table id -> game
    kind), as lines of :data:`STATS_WIDTH` (77) cells at most in ``t``'s language: a
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
        kind = kinds.get(s.table)
        game = "({})".format(game_title(kind, t) if kind else t.gettext("gone"))
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


# ------------------------------------------------------------------ Schiebe-Poker

# A card of the 52 in words for the log: its suit, and the faces' names (numbers stay).
_SUIT_WORDS = {"+": NP_("suit", "spades"), "*": NP_("suit", "hearts"),
               "#": NP_("suit", "diamonds"), "-": NP_("suit", "clubs")}
_FACE_WORDS = {"J": NP_("card rank", "J"), "Q": NP_("card rank", "Q"),
               "K": NP_("card rank", "K"), "A": NP_("card rank", "A")}
#: Positions of the middle row and of one's open cards, 0 to 2 from the left (codes; the
#: words people read are :data:`OWN_POSITIONS` and :data:`MIDDLE_POSITIONS`).
POSITIONS = ("left", "centre", "right")
#: One's own open card by its position, as in "your left open card" (``(context, text)``
#: for :meth:`~bbspoker.door.i18n.Translator.pgettext`).
OWN_POSITIONS = (NP_("own open card", "left"), NP_("own open card", "centre"),
                 NP_("own open card", "right"))
#: A card of the middle row by its position, as in "the middle row's left card".
MIDDLE_POSITIONS = (NP_("middle card", "left"), NP_("middle card", "centre"),
                    NP_("middle card", "right"))
_DIRECTIONS = {"left": NP_("push direction", "left"), "right": NP_("push direction", "right")}
#: Schiebe-Poker values a hand by its category only (High card to Royal flush): the
#: English names (:func:`category_name` translates them).
CATEGORY_NAMES = {
    Category.HIGH_CARD: N_("High card"), Category.ONE_PAIR: N_("One pair"),
    Category.TWO_PAIR: N_("Two pairs"), Category.THREE_OF_A_KIND: N_("Three of a kind"),
    Category.STRAIGHT: N_("Straight"), Category.FLUSH: N_("Flush"),
    Category.FULL_HOUSE: N_("Full house"), Category.FOUR_OF_A_KIND: N_("Four of a kind"),
    Category.STRAIGHT_FLUSH: N_("Straight flush"), Category.ROYAL_FLUSH: N_("Royal flush"),
}
_SCHIEBE_EVENTS = frozenset({"proposed", "voted", "vote_failed", "vote_lapsed", "vote_void",
                             "dealt", "first", "pushed", "swapped", "swapped_all", "no_swap",
                             "revealed", "ranking"})
_SCHIEBE_OPERATIONS = frozenset({"rounds", "middle", "first", "push", "swap", "swap_all",
                                 "no_swap", "ranking"})


def card_name(card: str, t: Translator = ENGLISH) -> str:
    """A card of the 52 in words for the log, in ``t``'s language: ``"7*"`` -> ``"7 of
    hearts"``, ``"Q+"`` -> ``"Q of spades"`` (German ``"Herz-7"``, ``"Pik-Dame"``; French
    ``"7 de cœur"``, ``"dame de pique"``)."""
    rank, suit = card[:-1], card[-1]
    face = _FACE_WORDS.get(rank)
    # TRANSLATORS: a card in the log: {rank} is 2-10 or a face (J, Q, K, A translated
    # with context "card rank"), {suit} a suit (context "suit").
    return t.gettext("{rank} of {suit}").format(
        rank=t.pgettext(*face) if face else rank,
        suit=t.pgettext(*_SUIT_WORDS[suit]) if suit in _SUIT_WORDS else suit)


def category_name(value: Category | str | int, t: Translator = ENGLISH) -> str:
    """A Schiebe-Poker hand value for people in ``t``'s language: ``"Two pairs"``
    (German ``"Zwei Paare"``), from the category, its recorded name ``"TWO_PAIR"`` or its
    number."""
    if isinstance(value, str):
        value = Category[value]
    return t.gettext(CATEGORY_NAMES[Category(value)])


def _names(cards: Any, t: Translator = ENGLISH) -> str:
    return ", ".join(card_name(c, t)
                     for c in (cards.split() if isinstance(cards, str) else cards))


def _pushed(h: str | None, d: Mapping[str, Any], t: Translator = ENGLISH) -> str:
    word = _DIRECTIONS.get(d["direction"])
    values = {"h": h, "direction": t.pgettext(*word) if word else d["direction"],
              "out": card_name(d["out"], t), "came": card_name(d["in"], t)}
    if not d.get("reshuffle"):
        return t.gettext("{h} pushed the middle to the {direction}; {out} to the discard "
                         "pile, {came} came in.").format(**values)
    n = d.get("reshuffled")
    if not n:
        return t.gettext("{h} pushed the middle to the {direction}; {out} to the discard "
                         "pile; the draw pile was empty, so the discard pile was shuffled "
                         "into a new one, {came} came in.").format(**values)
    return t.ngettext("{h} pushed the middle to the {direction}; {out} to the discard pile; "
                      "the draw pile was empty, so the {n} card of the discard pile was "
                      "shuffled into a new one, {came} came in.",
                      "{h} pushed the middle to the {direction}; {out} to the discard pile; "
                      "the draw pile was empty, so the {n} cards of the discard pile were "
                      "shuffled into a new one, {came} came in.", n).format(
        n=t.number(n), **values)


def _swapped(h: str | None, d: Mapping[str, Any], t: Translator = ENGLISH) -> str:
    return t.gettext("{h} swapped their {own} open card ({gave}) for the middle row's "
                     "{middle} card ({took}).").format(
        h=h, own=t.pgettext(*OWN_POSITIONS[d["own"]]), gave=card_name(d["gave"], t),
        middle=t.pgettext(*MIDDLE_POSITIONS[d["middle"]]), took=card_name(d["took"], t))


def _swapped_all(h: str | None, d: Mapping[str, Any], t: Translator = ENGLISH) -> str:
    return t.gettext("{h} swapped all three open cards with the middle row, left with left: "
                     "gave {gave}; took {took}.").format(
        h=h, gave=_names(d["gave"], t), took=_names(d["took"], t))


def _places(places: Sequence[Sequence[Any]], t: Translator = ENGLISH) -> str:
    # TRANSLATORS: one place of the final ranking: "1. alice (Two pairs)".
    return ", ".join(t.gettext("{place}. {h} ({category})").format(
        place=p, h=h, category=category_name(c, t)) for p, h, c in places)


def _split(places: Sequence[Sequence[Any]], pot: int, share: int, remainder: int,
           t: Translator = ENGLISH) -> str:
    """The pot's split among the first-ranked, and the remainder to the system (each
    sentence after a space)."""
    if not pot:
        return ""
    n = t.number
    firsts = [h for p, h, _ in places if p == 1]
    if len(firsts) == 1:
        text = t.gettext("{h} wins the pot of {pot} CUBES.").format(h=firsts[0], pot=n(pot))
    else:
        who = t.gettext("{names} and {last}").format(names=", ".join(firsts[:-1]),
                                                     last=firsts[-1])
        text = t.gettext("{who} share the pot of {pot} CUBES: {share} each.").format(
            who=who, pot=n(pot), share=n(share))
    if remainder:
        text += " " + t.ngettext("{n} CUBE that does not divide goes to the system.",
                                 "{n} CUBES that do not divide go to the system.",
                                 remainder).format(n=n(remainder))
    return " " + text


def _ranking(places: Sequence[Sequence[Any]], pot: int, share: int, remainder: int,
             t: Translator = ENGLISH) -> str:
    return (t.gettext("Final ranking: {places}.").format(places=_places(places, t))
            + _split(places, pot, share, remainder, t))


def _schiebe_event(e: Event, t: Translator = ENGLISH) -> tuple[str, str] | None:
    """The message-area line of a Schiebe-Poker event (``rules/schiebe/game.py``) in
    ``t``'s language."""
    h, d, k = e.handle, e.data, e.kind
    _, n = t.gettext, t.number
    if k == "proposed":
        return SYSTEM, _("{h} proposes to play {rounds} rounds: everyone else, [Y] agree or "
                         "[N] refuse.").format(h=h, rounds=n(d["rounds"]))
    if k == "voted":
        return SYSTEM, _("{h} agrees to {rounds} rounds.").format(h=h, rounds=n(d["rounds"]))
    if k == "vote_failed":
        if d.get("why") == "too_few_antes":
            return SYSTEM, _("At least two players with the {ante} CUBES ante are needed: "
                             "no game.").format(ante=n(d["ante"]))
        return SYSTEM, _("{h} does not want {rounds} rounds: no game.").format(
            h=h, rounds=n(d["rounds"]))
    if k == "vote_lapsed":
        missing = ", ".join(d.get("missing", ()))
        if not missing:
            return SYSTEM, _("Not everyone answered in time: no game.")
        return SYSTEM, _("Not everyone answered in time ({missing}): no game.").format(
            missing=missing)
    if k == "vote_void":
        return SYSTEM, _("The seats changed: the proposal is dropped.")
    if k == "started":
        if d.get("pot"):
            return SYSTEM, _("Schiebe-Poker STARTED: {rounds} rounds (pot {pot} CUBES).").format(
                rounds=n(d["rounds"]), pot=n(d["pot"]))
        return SYSTEM, _("Schiebe-Poker STARTED: {rounds} rounds.").format(rounds=n(d["rounds"]))
    if k == "dealt":
        return INFO, t.ngettext(
            "Each player has two hidden and three open cards; the middle row is {middle}; "
            "{n} card in the draw pile.",
            "Each player has two hidden and three open cards; the middle row is {middle}; "
            "{n} cards in the draw pile.", d["draw"]).format(
            middle=_names(d["middle"], t), n=n(d["draw"]))
    if k == "first":
        return SYSTEM, _("{h} was drawn to begin.").format(h=h)
    if k == "round":
        return INFO, _("Round {round} of {rounds} begins.").format(
            round=n(d["round"]), rounds=n(d["rounds"]))
    if k == "pushed":
        return SYSTEM, _pushed(h, d, t)
    if k == "swapped":
        return SYSTEM, _swapped(h, d, t)
    if k == "swapped_all":
        return SYSTEM, _swapped_all(h, d, t)
    if k == "no_swap":
        if d.get("timeout"):
            count = d.get("count", 1)
            return SYSTEM, t.ngettext(
                "{h} did not act within {time}: no swap for the remaining action.",
                "{h} did not act within {time}: no swap for the remaining {n} actions.",
                count).format(h=h, time=seconds_text(d["seconds"], t), n=n(count))
        return SYSTEM, _("{h} did not swap.").format(h=h)
    if k == "revealed":
        cards = list(d["cards"])
        return SYSTEM, _("{h} shows {hidden} (hidden) {open} (open): {category}.").format(
            h=h, hidden=" ".join(cards[:2]), open=" ".join(cards[2:]),
            category=category_name(d["category"], t))
    if k == "ranking":
        return SYSTEM, _ranking(d["places"], d["pot"], d["share"], d["remainder"], t)
    return None


def _schiebe_operation(op: Mapping[str, Any]) -> str:
    """One line of a Schiebe-Poker game's record for ``bbspoker games show``."""
    kind, h = op.get("op"), op.get("handle")
    where = f"round {op.get('round')}: " if op.get("round") else ""
    if kind == "rounds":
        return f"the players agreed on {op['rounds']} rounds"
    if kind == "deal":
        return f"{h} is dealt {op['hidden']} hidden and {op['open']} open"
    if kind == "middle":
        return f"the middle row: {op['cards']}"
    if kind == "first":
        return f"{h} begins"
    if kind == "push":
        return where + _pushed(h, op)
    if kind == "swap":
        return where + _swapped(h, op)
    if kind == "swap_all":
        return where + _swapped_all(h, op)
    if kind == "no_swap":
        return where + f"{h} did not swap" + (" (timed out)" if op.get("timeout") else "")
    if kind == "reveal":
        return f"{h} shows {op['hidden']} (hidden) {op['open']} (open): {category_name(op['category'])}"
    if kind == "ranking":
        places = [(p, who, c) for p, who, c in op["places"]]
        shares = op.get("shares") or {}
        share = next(iter(shares.values()), 0)
        return _ranking(places, op["pot"], share, op.get("remainder", 0))
    return ", ".join(f"{k}={v}" for k, v in op.items())


# ---------------------------------------------------------------- fixed-limit Hold'em

_HOLDEM_EVENTS = frozenset({"hand", "blind", "fold", "check", "call", "raise", "board", "show",
                            "muck", "returned", "hand_over", "leaving", "sit_out", "sit_in",
                            "busted", "seat_refused"})
_HOLDEM_OPERATIONS = frozenset({"fold", "check", "call", "raise", "board", "show", "muck",
                                "return"})

#: pokerkit's hand labels (the codes of ``rules.holdem``) as people name them after
#: "with" (``(context, text)`` for :meth:`~bbspoker.door.i18n.Translator.pgettext`: the
#: translation is the form that follows the language's "with", German "mit zwei Paaren").
HOLDEM_HANDS = {
    "HIGH_CARD": NP_("hand after with", "high card"),
    "ONE_PAIR": NP_("hand after with", "one pair"),
    "TWO_PAIR": NP_("hand after with", "two pairs"),
    "THREE_OF_A_KIND": NP_("hand after with", "three of a kind"),
    "STRAIGHT": NP_("hand after with", "a straight"),
    "FLUSH": NP_("hand after with", "a flush"),
    "FULL_HOUSE": NP_("hand after with", "a full house"),
    "FOUR_OF_A_KIND": NP_("hand after with", "four of a kind"),
    "STRAIGHT_FLUSH": NP_("hand after with", "a straight flush")}
#: The betting rounds of a hand as people name them (``Street`` values).
STREETS = {"idle": NP_("street", "no hand"), "preflop": NP_("street", "preflop"),
           "flop": NP_("street", "flop"), "turn": NP_("street", "turn"),
           "river": NP_("street", "river")}


def street_name(street: str, t: Translator = ENGLISH) -> str:
    """A Hold'em betting round (a ``Street`` value: ``"flop"``) in ``t``'s language."""
    word = STREETS.get(street)
    return t.pgettext(*word) if word else street


def holdem_hand(code: str, t: Translator = ENGLISH) -> str:
    """A made hand of Hold'em (a pokerkit label such as ``"TWO_PAIR"``) as it follows
    "with" in ``t``'s language: ``"two pairs"`` (German ``"zwei Paaren"``)."""
    word = HOLDEM_HANDS.get(code)
    return t.pgettext(*word) if word else code.lower().replace("_", " ")


def _made(d: Mapping[str, Any]) -> str:
    """`` with two pairs (A+ A* 5# 5- K+)`` for a made hand in the data, else ``""`` (the
    English of ``games show``)."""
    if not d.get("hand"):
        return ""
    return f" with {holdem_hand(d['hand'])} ({d.get('best', '')})"


def _holdem_won(h: str | None, d: Mapping[str, Any], t: Translator = ENGLISH) -> str:
    """A Hold'em pot taken (a ``won`` event or record line): ``amount`` CUBES of the hand's
    ``pot`` (both with the winner's own bets in them, as every pot is counted; an uncalled
    bet is neither: it is said apart). The whole pot: "alice wins the pot of 70 CUBES";
    a share of it (a split, a side pot): "bob wins 35 of the 70 CUBES in the pot"; with
    the made hand when it was shown."""
    n = t.number
    cubes, pot = d["amount"], d.get("pot", d["amount"])
    if not d.get("hand"):
        if cubes >= pot:
            return t.gettext("{h} wins the pot of {pot} CUBES.").format(h=h, pot=n(pot))
        return t.gettext("{h} wins {cubes} of the {pot} CUBES in the pot.").format(
            h=h, cubes=n(cubes), pot=n(pot))
    hand, best = holdem_hand(d["hand"], t), d.get("best", "")
    if cubes >= pot:
        return t.gettext("{h} wins the pot of {pot} CUBES with {hand} ({best}).").format(
            h=h, pot=n(pot), hand=hand, best=best)
    return t.gettext("{h} wins {cubes} of the {pot} CUBES in the pot with {hand} "
                     "({best}).").format(h=h, cubes=n(cubes), pot=n(pot), hand=hand,
                                         best=best)


def _holdem_event(e: Event, t: Translator = ENGLISH) -> tuple[str, str] | None:
    """The message-area line of a Hold'em event (``rules/holdem/game.py``) in ``t``'s
    language."""
    h, d, k = e.handle, e.data, e.kind
    _, n = t.gettext, t.number
    late = bool(d.get("timeout"))
    if k == "sat":
        return SYSTEM, _("{h} sits down with {cubes} CUBES.").format(h=h, cubes=n(d["buy_in"]))
    if k == "left":
        cashed = d.get("cash_out", 0)
        reason = d.get("reason", "")
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
    if k == "hand":
        # TRANSLATORS: {hand} counts this table's hands, {game} is the game record's number.
        return INFO, _("Hand {hand} (game {game}): {button} has the button; blinds "
                       "{small}/{big}.").format(
            hand=n(d.get("hand", d["game_id"])), game=d["game_id"], button=d["button"],
            small=n(d["small_blind"]), big=n(d["big_blind"]))
    if k == "blind":
        text = (_("{h} posts the small blind ({amount}).") if d["blind"] == "small"
                else _("{h} posts the big blind ({amount})."))
        return SYSTEM, text.format(h=h, amount=n(d["amount"]))
    if k == "fold":
        return SYSTEM, (_("{h} did not act in time and folds.") if late
                        else _("{h} folds.")).format(h=h)
    if k == "check":
        return SYSTEM, (_("{h} did not act in time and checks.") if late
                        else _("{h} checks.")).format(h=h)
    if k == "call":
        return SYSTEM, _("{h} calls {amount}.").format(h=h, amount=n(d["amount"]))
    if k == "bet":
        return SYSTEM, _("{h} bets {amount}.").format(h=h, amount=n(d["to"]))
    if k == "raise":
        return SYSTEM, _("{h} raises to {amount}.").format(h=h, amount=n(d["to"]))
    if k == "board":
        return INFO, _("{STREET}: {cards}   (board {board})").format(
            STREET=street_name(d["street"], t).upper(), cards=" ".join(d["cards"]),
            board=" ".join(d["board"]))
    if k == "show":
        if not d.get("hand"):
            return SYSTEM, _("{h} shows {cards}.").format(h=h, cards=" ".join(d["cards"]))
        return SYSTEM, _("{h} shows {cards} with {hand} ({best}).").format(
            h=h, cards=" ".join(d["cards"]), hand=holdem_hand(d["hand"], t),
            best=d.get("best", ""))
    if k == "muck":
        return SYSTEM, _("{h} does not show.").format(h=h)
    if k == "returned":
        return SYSTEM, t.ngettext("Uncalled bet of {cubes} CUBE returned to {h}.",
                                  "Uncalled bet of {cubes} CUBES returned to {h}.",
                                  d["amount"]).format(h=h, cubes=n(d["amount"]))
    if k == "won":
        return SYSTEM, _holdem_won(h, d, t)
    if k == "leaving":
        return SYSTEM, _("{h} leaves after this hand.").format(h=h)
    if k == "sit_out":
        return SYSTEM, _("{h} sits out.").format(h=h)
    if k == "sit_in":
        return SYSTEM, _("{h} is back in the game.").format(h=h)
    if k == "busted":
        return SYSTEM, _("{h} has no chips left and sits out.").format(h=h)
    if k == "seat_refused":
        return INFO, _("You could not take the seat: {why}").format(why=refusal(
            RuleError(d["code"], **{x: v for x, v in d.items() if x != "code"}), t))
    return None   # hand_over: the screen shows it


def _holdem_operation(op: Mapping[str, Any]) -> str:
    """One line of a Hold'em hand's record for ``games show``."""
    kind, h = op.get("op"), op.get("handle")
    street = f"{op['street']}: " if op.get("street") else ""
    late = " (timed out)" if op.get("timeout") else ""
    if kind == "blind":
        return f"{h} posts the {op['blind']} blind ({op['amount']})"
    if kind == "fold":
        return f"{street}{h} folds{late}"
    if kind == "check":
        return f"{street}{h} checks{late}"
    if kind == "call":
        return f"{street}{h} calls {op['amount']}"
    if kind == "bet":
        return f"{street}{h} bets {op['to']}"
    if kind == "raise":
        return f"{street}{h} raises to {op['to']}"
    if kind == "board":
        burn = f" (burn {op['burn']})" if op.get("burn") else ""
        return f"{op['street']}: {op['cards']}{burn}"
    if kind == "show":
        return f"{h} shows {op['cards']}{_made(op)}"
    if kind == "muck":
        return f"{h} does not show"
    if kind == "return":
        return f"uncalled bet of {op['amount']:,} CUBES returned to {h}"
    pot = op.get("pot", op["amount"])
    if op["amount"] >= pot:
        return f"{h} wins the pot of {pot:,} CUBES{_made(op)}"
    return f"{h} wins {op['amount']:,} of the {pot:,} CUBES in the pot{_made(op)}"
