"""Sentences for people: what the rules and the table say in codes, made into English.

The rules and the table speak in codes (:class:`~bbspoker.rules.events.Event`,
:class:`~bbspoker.rules.events.RuleError`, the game record's operations); this module
is the one place that turns them into the words of the message area, the refusals,
the hand descriptions and the hand history of ``bbspoker games show``. Each viewer's
screen calls it when it shows a line, so the same event can be rendered per viewer
(and, later, per viewer's language).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from bbspoker.rules.cards import Rank, format_cards, parse_cards
from bbspoker.rules.draw40.hands import Category, HandValue, evaluate
from bbspoker.rules.events import Event, RuleError
from bbspoker.rules.fairness import SHORT

__all__ = ["describe_hand", "describe_event", "refusal", "round_label", "describe_operation",
           "seconds_text", "cards_word", "REASONS", "SYSTEM", "INFO"]

#: Message-area tags: table news for everyone, and notes for one player or on the game's flow.
SYSTEM, INFO = "SYSTEM", "INFO"

_SINGULAR = {
    Rank.FIVE: "Five", Rank.SIX: "Six", Rank.SEVEN: "Seven", Rank.EIGHT: "Eight",
    Rank.NINE: "Nine", Rank.TEN: "Ten", Rank.JACK: "Jack", Rank.QUEEN: "Queen",
    Rank.KING: "King", Rank.ACE: "Ace",
}
_PLURAL = {r: ("Sixes" if r is Rank.SIX else s + "s") for r, s in _SINGULAR.items()}
_HANDS = {
    Category.ROYAL_FLUSH: "Royal flush",
    Category.STRAIGHT_FLUSH: "Straight flush to the {a}",
    Category.FOUR_OF_A_KIND: "Four of a kind, {A}",
    Category.FULL_HOUSE: "Full house, {A} over {B}",
    Category.FLUSH: "Flush, {a} high",
    Category.STRAIGHT: "Straight to the {a}",
    Category.THREE_OF_A_KIND: "Three of a kind, {A}",
    Category.TWO_PAIR: "Two pairs, {A} and {B}",
    Category.ONE_PAIR: "One pair of {A}",
    Category.HIGH_CARD: "High card {a}",
}
#: Why a game was called off (the ``reason`` code of ``cancelled``), as the players read it.
REASONS = {
    "shutdown": "the server is shutting down",
    "commit_failed": "the server could not save the last move",
}
_ALONE = {"passed": "the others passed", "left": "the others left the table",
          "passed_or_left": "the others passed or left"}


def describe_hand(value: HandValue) -> str:
    """A hand for people (chapter 3), e.g. ``"Two pairs, Kings and Nines"``,
    ``"Straight to the Eight"``, ``"Full house, Jacks over Sixes"``."""
    first, second = value.named_ranks
    return _HANDS[value.category].format(
        a=_SINGULAR.get(first, ""), A=_PLURAL.get(first, ""), B=_PLURAL.get(second, ""))


def round_label(phase: str, round: int | None) -> str:
    """The game information area's round: ``1``, ``DISCARDING INTERVAL``, ``3`` ...,
    ``SHOWDOWN``, or ``NO GAME`` (``phase`` is a :class:`~bbspoker.rules.draw40.game.Phase`
    value: ``idle``, ``betting``, ``discarding``, ``showdown``)."""
    if phase == "idle" or round is None:
        return "NO GAME"
    if phase == "showdown":
        return "SHOWDOWN"
    if phase == "discarding":
        return "DISCARDING INTERVAL"
    return str(round)


def seconds_text(seconds: float) -> str:
    """``"45 seconds"``, ``"1 minute"``, ``"2 minutes"``."""
    if seconds % 60:
        return f"{int(seconds)} seconds"
    return f"{int(seconds // 60)} minute" + ("s" if seconds > 60 else "")


def cards_word(n: int) -> str:
    """``"no cards"``, ``"1 card"``, ``"3 cards"``."""
    return "no cards" if n == 0 else ("1 card" if n == 1 else f"{n} cards")


def _cards(cards: Any) -> str:
    return cards if isinstance(cards, str) else format_cards(cards)


def _value(data: Mapping[str, Any]) -> HandValue | None:
    """The hand an event names (``value``) or an operation records (``cards``)."""
    if "value" in data:
        return data["value"]
    if data.get("cards"):
        return evaluate(parse_cards(data["cards"]))
    return None


def _won(h: str | None, d: Mapping[str, Any]) -> str:
    text = f"{h} wins the pot of {d['pot']} CUBES"
    value = _value(d)
    if value is not None:
        text += f" with {describe_hand(value)}"
        if "suit" in d:
            text += f" (suit {d['suit']} decides)"
    alone = _ALONE.get(d.get("alone", ""))
    return text + (f": {alone}." if alone else "!")


def _event_text(e: Event) -> tuple[str, str] | None:
    h, d, k = e.handle, e.data, e.kind
    if k == "sat":
        return SYSTEM, f"{h} has joined the table."
    if k == "left":
        why = {"lost_connection": "has lost the connection",
               "make_room": "stands up to make room for a player",
               "idle": "pressed no key for too long and stands up",
               "removed": "was removed by the sysop",
               "broke": "is out of CUBES and leaves the table"}.get(d.get("reason", ""),
                                                                    "has left the table")
        return SYSTEM, f"{h} {why}."
    if k == "seat_wanted":
        ahead = d.get("ahead", 0)
        line = f" ({ahead} ahead of you)" if ahead else ""
        return INFO, (f"All seats are taken: a computer player stands up for you between "
                      f"games{line}.")
    if k == "master":
        return SYSTEM, f"{h} is now the game-master."
    if k == "master_kept":
        return None
    if k == "inactive":
        why = d.get("why")
        if why == "no_ante":
            return INFO, f"You do not have the {d['ante']} CUBES ante: you may join the next game."
        if why == "out":
            return INFO, "You are out of this game: you may join the next game."
        return INFO, "A game is running: you may join the next game."
    if k == "started":
        return SYSTEM, f"The game is now STARTED (initial pot is {d['pot']}) ..."
    if k == "sealed":
        seeds = ", ".join(f'{who} "{seed}"' for who, seed in d["client_seeds"])
        return INFO, (f"Deck sealed: {d['commitment'][:SHORT]} (SHA-256 of the server seed); "
                      f"client seeds: {seeds}.")
    if k == "seed":
        return INFO, (f"Game {d['game_id']}'s deck came from server seed {d['server_seed']} "
                      f"(its SHA-256 begins {d['commitment'][:SHORT]}, as sealed).")
    if k == "bet":
        verb = "raised the bet" if d.get("raised") else "called the bet"
        return SYSTEM, f"{h} has {verb} ({d['amount']}), pot is {d['pot']}."
    if k == "see_hands":
        return SYSTEM, f"{h} wants to see hands: everyone has one more turn."
    if k == "pass":
        why = d.get("why")
        if why == "timeout":
            return SYSTEM, f"{h} did not act within {seconds_text(d['seconds'])} and is out of the game."
        if why == "cannot_bet":
            return SYSTEM, f"{h} cannot place the minimum bet ({d['low']}) and is out of the game."
        return SYSTEM, f"{h} has passed."
    if k == "discard":
        if d.get("timeout"):
            return SYSTEM, f"{h} did not discard in time: no exchange."
        return SYSTEM, f"{h} has discarded {cards_word(d['count'])}."
    if k == "cannot_bet":
        return SYSTEM, (f"You cannot bet: the minimum bet is {d['low']} but you have only "
                        f"{d['cubes']} CUBES.")
    if k == "round":
        if d.get("phase") == "discarding":
            return INFO, f"DISCARDING INTERVAL: discard up to {d['max_discard']} cards."
        return INFO, f"Round {round_label(d.get('phase', 'betting'), d.get('round'))} begins."
    if k == "showdown":
        return SYSTEM, "SHOWDOWN: every player in turn reveals the hand ([R])."
    if k == "reveal":
        return SYSTEM, f"{h} shows {_cards(d['cards'])}: {describe_hand(d['value'])}."
    if k == "won":
        return SYSTEM, _won(h, d)
    if k == "pot_to_system":
        return SYSTEM, f"Nobody is left in the game: the pot of {d['pot']} CUBES goes to the system."
    if k == "removed":
        return SYSTEM, f"{h} was idle for {d['games']} games and has been removed from the table."
    if k == "master_timeout":
        return SYSTEM, f"{h} has not started a game in time."
    if k == "cancelled":
        reason = REASONS.get(d.get("reason", ""), d.get("reason", ""))
        if d.get("later"):
            return SYSTEM, (f"The game was called off ({reason}): every ante and bet will be "
                            "given back when the server restarts.")
        return SYSTEM, f"The game was called off ({reason}): every ante and bet has been given back."
    if k == "shutdown_grace":
        return SYSTEM, (f"The server is shutting down: this game may finish within "
                        f"{d['grace']:g} seconds; after that it is called off and every bet "
                        "refunded.")
    if k == "connection_lost":
        return SYSTEM, f"{h} lost the connection (seat held {d['grace']:g} s)."
    if k == "reconnected":
        return SYSTEM, f"{h} is back."
    return None


def describe_event(event: Event) -> tuple[str, str] | None:
    """``(tag, sentence)`` for the message area, or ``None`` for an event that shows no
    line (``cards``, ``turn``: they change the screen itself). ``tag`` is
    :data:`SYSTEM` or :data:`INFO`."""
    return _event_text(event)


_REFUSALS = {
    "already_seated": "You are already sitting at the table.",
    "table_full": "All {seats} seats at the poker table are taken.",
    "not_seated": "You are not sitting at the table.",
    "game_running": "A game is already running.",
    "not_master": "Only the game-master ({master}) may start a game.",
    "too_few_antes": "At least two players with {ante} CUBES each are needed to start a game.",
    "see_hands_round": "You may ask to see hands from round 3 on.",
    "hands_asked": "Hands have already been asked for.",
    "whole_cubes": "A bet is a whole number of CUBES.",
    "cannot_bet": "You cannot bet: the minimum is {low} but you can bet at most {high}.",
    "bet_range": "Your bet must be between {low} and {high} CUBES.",
    "discard_max": "You may discard at most {max} cards.",
    "discard_own": "You can only discard cards from your own hand.",
    "no_game": "No game is running.",
    "table_closed": "The table is closed.",
    "failed": "Sorry, that did not work; please try again.",
    "shutting_down": "The server is shutting down: no new games.",
    "spectator": "You are watching: take a seat to play.",
    "seat_between_games": "You can take a seat between games.",
    "unknown_action": "That is not a move of this game.",
}


def refusal(err: RuleError) -> str:
    """The sentence that tells a player why an action was refused."""
    p = err.params
    if err.code == "wait":
        secs = p["seconds"]
        return f"Please wait {secs} more second{'s' if secs != 1 else ''} before the next game."
    if err.code == "not_your_turn":
        return f"It is not your turn ({p.get('current') or 'nobody'} is in turn)."
    if err.code == "wrong_phase":
        where = {"betting": f"betting round {p.get('round')}",
                 "discarding": "the discarding interval",
                 "showdown": "the showdown"}.get(p.get("phase"), "another phase")
        return f"You cannot {p.get('verb')} now: this is {where}."
    text = _REFUSALS.get(err.code)
    if text is None:
        return _REFUSALS["failed"]
    return text.format(**p)


def describe_operation(op: Mapping[str, Any]) -> str:
    """One line of a game's record (the stored form of
    :class:`~bbspoker.rules.events.Operation`) for ``bbspoker games show``."""
    kind, h = op.get("op"), op.get("handle")
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


def describe_stats(stats: Sequence[Any], kinds: Mapping[str, str]) -> list[str]:
    """A player's results per table (``PlayerStats`` rows; ``kinds``: table id -> game
    kind), as lines of at most 78 columns: a header and one line a table, or one line
    saying there is none yet."""
    if not stats:
        return ["no finished game yet"]
    lines = ["TABLE (GAME)              PLAYED   WON   CUBES WON  PAID IN      NET  BIGGEST POT"]
    for s in stats:
        where = f"{s.table} ({kinds.get(s.table, 'gone')})"
        lines.append(f"{where:<24}{s.played:>7}{s.won:>6}{s.cubes_won:>11,}"
                     f"{s.cubes_paid:>9,}{s.net:>+9,}{s.biggest_pot:>13,}")
    return lines
