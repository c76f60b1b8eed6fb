"""What a draw40 table says, in words: its events in the message area (in the viewer's
language), its refusals (:data:`REFUSALS`), its record for ``bbspoker games show``
(English), and the hands' names (:func:`describe_hand`) and rounds' (:func:`round_label`)
that its screen's information area shows too."""

from __future__ import annotations

from typing import Any, Mapping

from bbspoker.door.i18n import ENGLISH, N_, NP_, Translator
from bbspoker.door.look import card_glyphs
from bbspoker.door.messages import (INFO, SYSTEM, WON, Wording, seconds_text, shared_event,
                                    shared_operation)
from bbspoker.rules.cards import Rank, format_cards, parse_cards
from bbspoker.rules.draw40.hands import Category, HandValue, evaluate
from bbspoker.rules.events import Event, RuleError

__all__ = ["describe_event", "describe_operation", "describe_hand", "round_label",
           "cards_word", "REFUSALS"]

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


def cards_word(n: int, t: Translator = ENGLISH) -> str:
    """``"no cards"``, ``"1 card"``, ``"3 cards"`` (in ``t``'s language)."""
    if n == 0:
        return t.gettext("no cards")
    return t.ngettext("{n} card", "{n} cards", n).format(n=n)


def _wait(err: RuleError, t: Translator) -> str:
    """``wait``: the pause between games, ``seconds`` more."""
    secs = err.params["seconds"]
    return t.ngettext("Please wait {n} more second before the next game.",
                      "Please wait {n} more seconds before the next game.",
                      secs).format(n=t.number(secs))


def _discard_max(err: RuleError, t: Translator) -> str:
    """``discard_max``: at most ``max`` cards may be discarded."""
    most = err.params["max"]
    return t.ngettext("You may discard at most {max} card.",
                      "You may discard at most {max} cards.", most).format(max=t.number(most))


_VERBS = {"bet": N_("You cannot bet now: this is {where}."),
          "pass": N_("You cannot pass now: this is {where}."),
          "discard": N_("You cannot discard now: this is {where}."),
          "reveal": N_("You cannot reveal now: this is {where}.")}
_PHASES = {"betting": N_("betting round {round}"), "discarding": N_("the discarding interval"),
           "showdown": N_("the showdown")}


def _wrong_phase(err: RuleError, t: Translator) -> str:
    """``wrong_phase``: the ``verb`` tried and the ``phase`` (and ``round``) the game is in."""
    _ = t.gettext
    p = err.params
    rnd = p.get("round")
    phase = _PHASES.get(p.get("phase", ""))
    where = (_(phase).format(round=t.number(rnd) if isinstance(rnd, int) else rnd)
             if phase else _("another phase"))
    verb = _VERBS.get(p.get("verb", ""))
    if verb is None:
        return _("You cannot {verb} now: this is {where}.").format(verb=p.get("verb"),
                                                                    where=where)
    return _(verb).format(where=where)


#: draw40's own refusals (:attr:`~bbspoker.door.screens.base.ScreenKind.refusals`): the
#: antes, the betting, the discards and the showdown; the others read as every kind's.
REFUSALS: dict[str, Wording] = {
    "too_few_antes": N_("At least two players with {ante} CUBES each are needed to start a "
                        "game."),
    "see_hands_round": N_("You may ask to see hands from round 3 on."),
    "hands_asked": N_("Hands have already been asked for."),
    "whole_cubes": N_("A bet is a whole number of CUBES."),
    "cannot_bet": N_("You cannot bet: the minimum is {low} but you can bet at most {high}."),
    "bet_range": N_("Your bet must be between {low} and {high} CUBES."),
    "discard_own": N_("You can only discard cards from your own hand."),
    "wait": _wait,
    "discard_max": _discard_max,
    "wrong_phase": _wrong_phase,
}

#: Why one won without a showdown (the ``alone`` code of ``won``).
_ALONE = {"passed": N_("the others passed"), "left": N_("the others left the table"),
          "passed_or_left": N_("the others passed or left")}


def _cards(cards: Any) -> str:
    """Cards of an event (notation or :class:`Card` s) as a log line shows them: suit glyphs."""
    return card_glyphs(cards if isinstance(cards, str) else format_cards(cards))


def _value(data: Mapping[str, Any]) -> HandValue | None:
    """The hand an event names (``value``) or an operation records (``cards``)."""
    if "value" in data:
        return data["value"]
    if data.get("cards"):
        return evaluate(parse_cards(data["cards"]))
    return None


#: :func:`_won`'s sentences (alone / with the hand, each with or without why nobody else
#: was left): CUBES at a cash table, chips at a tournament's.
_WON = {
    False: (N_("{h} wins the pot of {pot} CUBES: {alone}."),
            N_("{h} wins the pot of {pot} CUBES!"),
            N_("{h} wins the pot of {pot} CUBES with {hand}: {alone}."),
            N_("{h} wins the pot of {pot} CUBES with {hand}!")),
    True: (N_("{h} wins the pot of {pot} chips: {alone}."),
           N_("{h} wins the pot of {pot} chips!"),
           N_("{h} wins the pot of {pot} chips with {hand}: {alone}."),
           N_("{h} wins the pot of {pot} chips with {hand}!")),
}


def _won(h: str | None, d: Mapping[str, Any], t: Translator = ENGLISH) -> str:
    """A pot won (chapter 2, "End of game"): CUBES, or chips when the event says it is a
    tournament table's (``tournament``)."""
    pot = t.number(d["pot"])
    value = _value(d)
    alone = _ALONE.get(d.get("alone", ""))
    why, bare, why_with, bare_with = _WON[bool(d.get("tournament"))]
    if value is None:
        if alone:
            return t.gettext(why).format(h=h, pot=pot, alone=t.gettext(alone))
        return t.gettext(bare).format(h=h, pot=pot)
    hand = describe_hand(value, t)
    if "suit" in d:
        hand = t.gettext("{hand} (suit {suit} decides)").format(hand=hand, suit=d["suit"])
    if alone:
        return t.gettext(why_with).format(h=h, pot=pot, hand=hand, alone=t.gettext(alone))
    return t.gettext(bare_with).format(h=h, pot=pot, hand=hand)


def describe_event(e: Event, t: Translator = ENGLISH) -> tuple[str, str] | None:
    """The message-area line (``(tag, text)``, or None for an event that shows no line:
    ``cards``, ``turn`` change the screen itself) of an event of a draw40 table
    (``rules/draw40/game.py``) in ``t``'s language; the events every kind shares read as
    :func:`~bbspoker.door.messages.shared_event` says."""
    h, d, k = e.handle, e.data, e.kind
    n = t.number
    _ = t.gettext
    if k == "started":
        return SYSTEM, _("The game is now STARTED (initial pot is {pot}) ...").format(
            pot=n(d["pot"]))
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
        return WON, _won(h, d, t)
    if k == "pot_to_system":
        return SYSTEM, _("Nobody is left in the game: the pot of {pot} CUBES goes to the "
                         "system.").format(pot=n(d["pot"]))
    if k == "master_timeout":
        return SYSTEM, _("{h} has not started a game in time.").format(h=h)
    if k == "sit_out":                          # away at a tournament table
        return SYSTEM, _("{h} sits out.").format(h=h)
    if k == "sit_in":
        return SYSTEM, _("{h} is back in the game.").format(h=h)
    return shared_event(e, t, REFUSALS)


def describe_operation(op: Mapping[str, Any]) -> str:
    """One line of a draw40 game's record (an operation's stored form) for ``bbspoker
    games show``, in English; the operations every kind shares read as
    :func:`~bbspoker.door.messages.shared_operation` says."""
    kind, h = op.get("op"), op.get("handle")
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
        value = _value(op)
        if value is None:
            raise ValueError("a recorded reveal names no cards")
        return f"{h} reveals {op['cards']}: {describe_hand(value)}"
    if kind == "won":
        return _won(h, op)
    if kind == "pot_to_system":
        return f"Nobody is left in the game: the pot of {op['pot']} CUBES goes to the system."
    return shared_operation(op)
