"""What a fixed-limit seven-card stud table says, in words: its events in the message area
(in the viewer's language), its refusals, its record for ``bbspoker games show``
(English), and the names of its streets and made hands that its screen shows too.

The events and record lines are those of :mod:`bbspoker.rules.stud.game`; the events every
kind's table sends (the deck's seal and seed, a game called off, a connection lost...)
read as the door's shared wording says (:func:`~bbspoker.door.messages.table_stakes_event`), and so do the other
refusals and record lines.
"""

from __future__ import annotations

from typing import Any, Mapping

from bbspoker.door.i18n import ENGLISH, N_, NP_, Translator
from bbspoker.door.messages import INFO, SYSTEM, Wording, cards_text, table_stakes_event
from bbspoker.door.messages import shared_operation as _shared_operation
from bbspoker.rules.events import Event

__all__ = ["describe_event", "describe_operation", "street_name", "stud_hand",
           "STUD_HANDS", "STREETS", "REFUSALS"]

#: The betting rounds of a stud hand as people name them (``Street`` values of
#: :mod:`bbspoker.rules.stud.game`): German "Dritte Straße", French "troisième rue".
STREETS = {"idle": NP_("street", "no hand"), "third": NP_("stud street", "third street"),
           "fourth": NP_("stud street", "fourth street"),
           "fifth": NP_("stud street", "fifth street"),
           "sixth": NP_("stud street", "sixth street"),
           "seventh": NP_("stud street", "seventh street")}

#: pokerkit's hand labels (the rules' ``hand`` codes) as people name them after "with"
#: (the same words as Hold'em's: German "mit zwei Paaren", French "avec une suite").
STUD_HANDS = {
    "HIGH_CARD": NP_("hand after with", "high card"),
    "ONE_PAIR": NP_("hand after with", "one pair"),
    "TWO_PAIR": NP_("hand after with", "two pairs"),
    "THREE_OF_A_KIND": NP_("hand after with", "three of a kind"),
    "STRAIGHT": NP_("hand after with", "a straight"),
    "FLUSH": NP_("hand after with", "a flush"),
    "FULL_HOUSE": NP_("hand after with", "a full house"),
    "FOUR_OF_A_KIND": NP_("hand after with", "four of a kind"),
    "STRAIGHT_FLUSH": NP_("hand after with", "a straight flush")}


#: Stud's own refusals (:attr:`~bbspoker.door.screens.base.ScreenKind.refusals`): the
#: bring-in (the lowest up card may not fold: it posts the bring-in, ``amount`` CUBES, or
#: completes), the fixed-limit betting and table stakes; the others read as every kind's.
REFUSALS: dict[str, Wording] = {
    "bring_in_due": N_("You have the lowest up card: bring it in for {amount} ([C]) or "
                       "complete ([R]); folding comes later."),
    "capped": N_("The betting is capped (one bet and three raises): call or fold."),
    "check_free": N_("Checking costs nothing here: check ([C]) instead of folding."),
    "no_chips": N_("You have no chips at this table: leave ([X]) and sit down again with a "
                   "new buy-in."),
    "buy_in_range": N_("Bring between {low} and {high} CUBES to this table."),
    "buy_in_short": N_("You need at least {low} CUBES to sit at this table; you have {cubes}."),
}

def street_name(street: str, t: Translator = ENGLISH) -> str:
    """A stud betting round (a ``Street`` value: ``"third"``) in ``t``'s language:
    ``"third street"`` (German ``"Dritte Straße"``, French ``"troisième rue"``)."""
    word = STREETS.get(street)
    return t.pgettext(*word) if word else street


def stud_hand(code: str, t: Translator = ENGLISH) -> str:
    """A made hand (a pokerkit label such as ``"TWO_PAIR"``) as it follows "with" in
    ``t``'s language: ``"two pairs"`` (German ``"zwei Paaren"``)."""
    word = STUD_HANDS.get(code)
    return t.pgettext(*word) if word else code.lower().replace("_", " ")


def describe_event(e: Event, t: Translator = ENGLISH) -> tuple[str, str] | None:
    """The message-area line (``(tag, text)``, or None for none) of an event of a stud
    table in ``t``'s language. The antes (each player's ``ante``), ``turn`` and
    ``hand_over`` show no line: the hand's line names the ante, the screen shows the
    stacks, the turn and the end. Events every kind sends read as the door's shared
    wording says."""
    h, d, k = e.handle, e.data, e.kind
    _, n = t.gettext, t.number
    late = bool(d.get("timeout"))
    if k == "hand":
        # TRANSLATORS: {hand} counts this table's hands, {game} is the game record's
        # number; the bring-in is the forced opening bet of the lowest up card.
        return INFO, _("Hand {hand} (game {game}): {dealer} deals; ante {ante}, bring-in "
                       "{bring_in}, bets {small}/{big}.").format(
            hand=n(d.get("hand") or d["game_id"]), game=d["game_id"], dealer=d["dealer"],
            ante=n(d["ante"]), bring_in=n(d["bring_in"]), small=n(d["small_bet"]),
            big=n(d["big_bet"]))
    if k in ("ante", "turn", "hand_over"):
        return None
    if k == "street":
        return INFO, street_name(d["street"], t).upper()
    if k == "down":
        return INFO, t.ngettext("You get {cards} face down.", "You get {cards} face down.",
                                len(d["cards"])).format(cards=cards_text(d["cards"]))
    if k == "up":
        return SYSTEM, _("{h} gets {cards} face up (showing {showing}).").format(
            h=h, cards=cards_text(d["cards"]), showing=cards_text(d["showing"]))
    if k == "bring_in":
        return SYSTEM, (_("{h} did not act in time and brings it in for {amount}.") if late
                        else _("{h} brings it in for {amount}.")).format(
            h=h, amount=n(d["amount"]))
    if k == "complete":
        return SYSTEM, _("{h} completes to {amount}.").format(h=h, amount=n(d["to"]))
    return table_stakes_event(e, t, stud_hand, REFUSALS)


def describe_operation(op: Mapping[str, Any]) -> str:
    """One line of a stud hand's record (an operation's stored form) for ``bbspoker
    games show``, in English; the operations every kind shares as the door's shared
    wording says."""
    kind, h = op.get("op"), op.get("handle")
    street = f"{op['street']} street: " if op.get("street") else ""
    late = " (timed out)" if op.get("timeout") else ""
    if kind == "ante":
        return f"{h} posts the ante ({op['amount']})"
    if kind == "street":
        burn = f" (burn {op['burn']})" if op.get("burn") else ""
        return f"{op['street']} street{burn}"
    if kind == "deal":
        parts = [f"{op['down']} down" if op.get("down") else "",
                 f"{op['up']} up" if op.get("up") else ""]
        return f"{street}{h} is dealt " + ", ".join(p for p in parts if p)
    if kind == "bring_in":
        return f"{street}{h} brings it in for {op['amount']}{late}"
    if kind == "complete":
        return f"{street}{h} completes to {op['to']}"
    if kind == "fold":
        return f"{street}{h} folds{late}"
    if kind == "check":
        return f"{street}{h} checks{late}"
    if kind == "call":
        return f"{street}{h} calls {op['amount']}{late}"
    if kind == "bet":
        return f"{street}{h} bets {op['to']}"
    if kind == "raise":
        return f"{street}{h} raises to {op['to']}"
    if kind == "show":
        made = f" with {stud_hand(op['hand'])} ({op.get('best', '')})" if op.get("hand") else ""
        return f"{h} shows {op['cards']}{made}"
    if kind == "muck":
        return f"{h} does not show"
    if kind == "return":
        return f"uncalled bet of {op['amount']:,} CUBES returned to {h}"
    if kind == "won":
        pot = op.get("pot", op["amount"])
        made = f" with {stud_hand(op['hand'])} ({op.get('best', '')})" if op.get("hand") else ""
        if op["amount"] >= pot:
            return f"{h} wins the pot of {pot:,} CUBES{made}"
        return f"{h} wins {op['amount']:,} of the {pot:,} CUBES in the pot{made}"
    return _shared_operation(op)
