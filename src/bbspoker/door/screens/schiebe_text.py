"""What a Schiebe-Poker table says, in words: its events in the message area (in the
viewer's language), its record for ``bbspoker games show`` (English), and the words of
its cards, positions and hand categories that its screen shows too."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from bbspoker.door.i18n import ENGLISH, N_, NP_, Translator
from bbspoker.door.look import card_glyphs
from bbspoker.door.messages import (INFO, SYSTEM, WON, Wording, seconds_text, shared_event,
                                    shared_operation)
from bbspoker.rules.draw40.hands import Category
from bbspoker.rules.events import Event

__all__ = ["describe_event", "describe_operation", "card_name", "category_name",
           "CATEGORY_NAMES", "POSITIONS", "OWN_POSITIONS", "MIDDLE_POSITIONS", "REFUSALS"]

#: Schiebe-Poker's own refusals (:attr:`~bbspoker.door.screens.base.ScreenKind.refusals`):
#: the vote on the rounds, the push and the swaps; the others read as every kind's.
REFUSALS: dict[str, Wording] = {
    "vote_running": N_("The players are voting on the rounds already."),
    "too_few_players": N_("At least two players must be seated to play."),
    "rounds_range": N_("The number of rounds must be between {low} and {high}."),
    "no_vote": N_("There is no proposal to answer."),
    "voted": N_("You have answered already."),
    "push_direction": N_("Push the middle row to the left or to the right."),
    "swap_position": N_("Positions are 1 to 3, from the left."),
}

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


def describe_event(e: Event, t: Translator = ENGLISH) -> tuple[str, str] | None:
    """The message-area line (``(tag, text)``, or None for none) of an event of a
    Schiebe-Poker table (``rules/schiebe/game.py``) in ``t``'s language; the final ranking
    with the pot's split is who won (tag :data:`~bbspoker.door.messages.WON`); the events
    every kind shares read as :func:`~bbspoker.door.messages.shared_event` says."""
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
            h=h, hidden=card_glyphs(" ".join(cards[:2])), open=card_glyphs(" ".join(cards[2:])),
            category=category_name(d["category"], t))
    if k == "ranking":          # who won: shown as [SYSTEM], in the winner's colour
        return WON, _ranking(d["places"], d["pot"], d["share"], d["remainder"], t)
    return shared_event(e, t, REFUSALS)


def describe_operation(op: Mapping[str, Any]) -> str:
    """One line of a Schiebe-Poker game's record (an operation's stored form) for
    ``bbspoker games show``, in English; the operations every kind shares read as
    :func:`~bbspoker.door.messages.shared_operation` says."""
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
    return shared_operation(op)
