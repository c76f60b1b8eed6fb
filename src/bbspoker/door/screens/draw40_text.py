"""What a draw40 table says, in words: its events in the message area (in the viewer's
language) and its record for ``bbspoker games show`` (English). The hands' names
(:func:`~bbspoker.door.messages.describe_hand`) and the rounds'
(:func:`~bbspoker.door.messages.round_label`) are in :mod:`bbspoker.door.messages`, which
the screen's information area shares."""

from __future__ import annotations

from typing import Any, Mapping

from bbspoker.door.i18n import ENGLISH, N_, Translator
from bbspoker.door.messages import (INFO, SYSTEM, cards_word, describe_hand, round_label,
                                    seconds_text, shared_event, shared_operation)
from bbspoker.rules.cards import format_cards, parse_cards
from bbspoker.rules.draw40.hands import HandValue, evaluate
from bbspoker.rules.events import Event

__all__ = ["describe_event", "describe_operation", "claims"]

#: Why one won without a showdown (the ``alone`` code of ``won``).
_ALONE = {"passed": N_("the others passed"), "left": N_("the others left the table"),
          "passed_or_left": N_("the others passed or left")}


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
        return SYSTEM, _won(h, d, t)
    if k == "pot_to_system":
        return SYSTEM, _("Nobody is left in the game: the pot of {pot} CUBES goes to the "
                         "system.").format(pot=n(d["pot"]))
    if k == "master_timeout":
        return SYSTEM, _("{h} has not started a game in time.").format(h=h)
    return shared_event(e, t)


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


def claims(e: Event) -> bool:
    """Whether ``e``, from a table of unknown kind, is a draw40 table's: draw40 is the
    kind an event belongs to when no other kind claims it (its events read as the shared
    ones where they are the same)."""
    return True
