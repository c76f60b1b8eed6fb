"""What a Hold'em table (fixed, pot or no limit) says, in words: its events in the message area (in
the viewer's language), its record for ``bbspoker games show`` (English), and the names of
its streets and made hands that its screen shows too."""

from __future__ import annotations

from typing import Any, Mapping

from bbspoker.door.i18n import ENGLISH, N_, NP_, Translator
from bbspoker.door.messages import (INFO, SYSTEM, Wording, cards_text, shared_operation,
                                     table_stakes_event)
from bbspoker.rules.events import Event

__all__ = ["describe_event", "describe_operation", "street_name", "holdem_hand",
           "HOLDEM_HANDS", "STREETS", "REFUSALS"]

#: Hold'em's own refusals (:attr:`~bbspoker.door.screens.base.ScreenKind.refusals`): the
#: betting (fixed limit; the amounts of pot and no limit) and table stakes; the others
#: read as every kind's.
REFUSALS: dict[str, Wording] = {
    "capped": N_("The betting is capped (one bet and three raises): call or fold."),
    "fixed_limit": N_("The bets of this table are fixed: [R] bets or raises the amount "
                      "shown."),
    "raise_closed": N_("You cannot raise now (an all-in for less than a raise does not "
                       "reopen the betting): call or fold."),
    "raise_not_number": N_("Type the amount to raise to in digits, or Enter alone for the "
                           "smallest."),
    "raise_too_small": N_("Too small: bet or raise to at least {low}."),
    "raise_too_large": N_("Too large: bet or raise to at most {high}."),
    "check_free": N_("Checking costs nothing here: check ([C]) instead of folding."),
    "no_chips": N_("You have no chips at this table: leave ([X]) and sit down again with a "
                   "new buy-in."),
    "buy_in_range": N_("Bring between {low} and {high} CUBES to this table."),
    "buy_in_short": N_("You need at least {low} CUBES to sit at this table; you have {cubes}."),
}

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


def describe_event(e: Event, t: Translator = ENGLISH) -> tuple[str, str] | None:
    """The message-area line (``(tag, text)``, or None for none) of an event of a Hold'em
    table (``rules/holdem/game.py``) in ``t``'s language: each player's ``ante`` shows no
    line (the hand's line names it, as at a stud table); the events every table-stakes
    kind shares read as :func:`~bbspoker.door.messages.table_stakes_event` says."""
    h, d, k = e.handle, e.data, e.kind
    _, n = t.gettext, t.number
    if k == "hand":
        # TRANSLATORS: {hand} counts this table's hands, {game} is the game record's number.
        text = (_("Hand {hand} (game {game}): {button} has the button; blinds "
                  "{small}/{big}, ante {ante}.") if d.get("ante") else
                _("Hand {hand} (game {game}): {button} has the button; blinds "
                  "{small}/{big}."))
        return INFO, text.format(
            hand=n(d.get("hand", d["game_id"])), game=d["game_id"], button=d["button"],
            small=n(d["small_blind"]), big=n(d["big_blind"]), ante=n(d.get("ante", 0)))
    if k == "ante":
        return None   # the hand's line names the ante
    if k == "blind":
        text = (_("{h} posts the small blind ({amount}).") if d["blind"] == "small"
                else _("{h} posts the big blind ({amount})."))
        return SYSTEM, text.format(h=h, amount=n(d["amount"]))
    if k == "board":
        return INFO, _("{STREET}: {cards}   (board {board})").format(
            STREET=street_name(d["street"], t).upper(), cards=cards_text(d["cards"]),
            board=cards_text(d["board"]))
    if k == "hand_over":
        return None   # the screen shows it
    return table_stakes_event(e, t, holdem_hand, REFUSALS)


def describe_operation(op: Mapping[str, Any]) -> str:
    """One line of a Hold'em hand's record (an operation's stored form) for ``bbspoker
    games show``, in English; the operations every kind shares read as
    :func:`~bbspoker.door.messages.shared_operation` says."""
    kind, h = op.get("op"), op.get("handle")
    street = f"{op['street']}: " if op.get("street") else ""
    late = " (timed out)" if op.get("timeout") else ""
    if kind == "ante":
        return f"{h} posts the ante ({op['amount']})"
    if kind == "blind":
        return f"{h} posts the {op['blind']} blind ({op['amount']})"
    if kind == "fold":
        return f"{street}{h} folds{late}"
    if kind == "check":
        return f"{street}{h} checks{late}"
    if kind == "call":
        return f"{street}{h} calls {op['amount']}"
    all_in = " (all in)" if op.get("all_in") else ""
    if kind == "bet":
        return f"{street}{h} bets {op['to']}{all_in}"
    if kind == "raise":
        return f"{street}{h} raises to {op['to']}{all_in}"
    if kind == "board":
        burn = f" (burn {op['burn']})" if op.get("burn") else ""
        return f"{op['street']}: {op['cards']}{burn}"
    if kind == "show":
        return f"{h} shows {op['cards']}{_made(op)}"
    if kind == "muck":
        return f"{h} does not show"
    if kind == "return":
        return f"uncalled bet of {op['amount']:,} CUBES returned to {h}"
    if kind != "won":
        return shared_operation(op)
    pot = op.get("pot", op["amount"])
    if op["amount"] >= pot:
        return f"{h} wins the pot of {pot:,} CUBES{_made(op)}"
    return f"{h} wins {op['amount']:,} of the {pot:,} CUBES in the pot{_made(op)}"
