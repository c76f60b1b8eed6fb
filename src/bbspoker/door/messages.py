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
    if k in _SCHIEBE_EVENTS or (k in ("started", "round") and "rounds" in d):
        return _schiebe_event(e)
    if k in _HOLDEM_EVENTS or (k == "bet" and "street" in d) or (k == "won" and "amount" in d) \
            or (k == "sat" and "buy_in" in d) or (k == "left" and "cash_out" in d):
        return _holdem_event(e)
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
    "capped": "The betting is capped (one bet and three raises): call or fold.",
    "check_free": "Checking costs nothing here: check ([C]) instead of folding.",
    "no_chips": "You have no chips at this table: leave ([X]) and sit down again with a new "
                "buy-in.",
    "buy_in_range": "Bring between {low:,} and {high:,} CUBES to this table.",
    "buy_in_short": "You need at least {low:,} CUBES to sit at this table; you have {cubes:,}.",
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
    # Schiebe-Poker (issue 17)
    "vote_running": "The players are voting on the rounds already.",
    "too_few_players": "At least two players must be seated to play.",
    "rounds_range": "The number of rounds must be between {low} and {high}.",
    "no_vote": "There is no proposal to answer.",
    "voted": "You have answered already.",
    "push_direction": "Push the middle row to the left or to the right.",
    "swap_position": "Positions are 1 to 3, from the left.",
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


# ------------------------------------------------------------------ Schiebe-Poker (issue 17)

_SUIT_WORDS = {"+": "spades", "*": "hearts", "#": "diamonds", "-": "clubs"}
#: Positions of the middle row and of one's open cards, 0 to 2 from the left.
POSITIONS = ("left", "centre", "right")
#: Schiebe-Poker values a hand by its category only (High card to Royal flush).
CATEGORY_NAMES = {
    Category.HIGH_CARD: "High card", Category.ONE_PAIR: "One pair",
    Category.TWO_PAIR: "Two pairs", Category.THREE_OF_A_KIND: "Three of a kind",
    Category.STRAIGHT: "Straight", Category.FLUSH: "Flush", Category.FULL_HOUSE: "Full house",
    Category.FOUR_OF_A_KIND: "Four of a kind", Category.STRAIGHT_FLUSH: "Straight flush",
    Category.ROYAL_FLUSH: "Royal flush",
}
_SCHIEBE_EVENTS = frozenset({"proposed", "voted", "vote_failed", "vote_lapsed", "vote_void",
                             "dealt", "first", "pushed", "swapped", "swapped_all", "no_swap",
                             "revealed", "ranking"})
_SCHIEBE_OPERATIONS = frozenset({"rounds", "middle", "first", "push", "swap", "swap_all",
                                 "no_swap", "ranking"})


def card_name(card: str) -> str:
    """A card of the 52 in words for the log: ``"7*"`` -> ``"7 of hearts"``, ``"Q+"`` ->
    ``"Q of spades"``."""
    return f"{card[:-1]} of {_SUIT_WORDS.get(card[-1], card[-1])}"


def category_name(value: Category | str | int) -> str:
    """A Schiebe-Poker hand value for people: ``"Two pairs"`` (from the category, its
    recorded name ``"TWO_PAIR"`` or its number)."""
    if isinstance(value, str):
        value = Category[value]
    return CATEGORY_NAMES[Category(value)]


def _names(cards: Any) -> str:
    return ", ".join(card_name(c) for c in (cards.split() if isinstance(cards, str) else cards))


def _pushed(h: str | None, d: Mapping[str, Any]) -> str:
    text = f"{h} pushed the middle to the {d['direction']}; {card_name(d['out'])} to the discard pile"
    if d.get("reshuffle"):
        n = d.get("reshuffled")
        pile = f"the {n} cards of the discard pile" if n else "the discard pile"
        text += f"; the draw pile was empty, so {pile} were shuffled into a new one"
    return text + f", {card_name(d['in'])} came in."


def _swapped(h: str | None, d: Mapping[str, Any]) -> str:
    return (f"{h} swapped their {POSITIONS[d['own']]} open card ({card_name(d['gave'])}) "
            f"for the middle row's {POSITIONS[d['middle']]} card ({card_name(d['took'])}).")


def _swapped_all(h: str | None, d: Mapping[str, Any]) -> str:
    return (f"{h} swapped all three open cards with the middle row, left with left: gave "
            f"{_names(d['gave'])}; took {_names(d['took'])}.")


def _places(places: Sequence[Sequence[Any]]) -> str:
    return ", ".join(f"{p}. {h} ({category_name(c)})" for p, h, c in places)


def _split(places: Sequence[Sequence[Any]], pot: int, share: int, remainder: int) -> str:
    """The pot's split among the first-ranked, and the remainder to the system."""
    if not pot:
        return ""
    firsts = [h for p, h, _ in places if p == 1]
    if len(firsts) == 1:
        text = f" {firsts[0]} wins the pot of {pot} CUBES."
    else:
        who = ", ".join(firsts[:-1]) + " and " + firsts[-1]
        text = f" {who} share the pot of {pot} CUBES: {share} each."
    if remainder == 1:
        text += " 1 CUBE that does not divide goes to the system."
    elif remainder:
        text += f" {remainder} CUBES that do not divide go to the system."
    return text


def _schiebe_event(e: Event) -> tuple[str, str] | None:
    """The message-area line of a Schiebe-Poker event (``rules/schiebe/game.py``)."""
    h, d, k = e.handle, e.data, e.kind
    if k == "proposed":
        return SYSTEM, (f"{h} proposes to play {d['rounds']} rounds: everyone else, [Y] agree "
                        "or [N] refuse.")
    if k == "voted":
        return SYSTEM, f"{h} agrees to {d['rounds']} rounds."
    if k == "vote_failed":
        if d.get("why") == "too_few_antes":
            return SYSTEM, (f"At least two players with the {d['ante']} CUBES ante are needed: "
                            "no game.")
        return SYSTEM, f"{h} does not want {d['rounds']} rounds: no game."
    if k == "vote_lapsed":
        missing = ", ".join(d.get("missing", ())) or "someone"
        return SYSTEM, f"Not everyone answered in time ({missing}): no game."
    if k == "vote_void":
        return SYSTEM, "The seats changed: the proposal is dropped."
    if k == "started":
        pot = f" (pot {d['pot']} CUBES)" if d.get("pot") else ""
        return SYSTEM, f"Schiebe-Poker STARTED: {d['rounds']} rounds{pot}."
    if k == "dealt":
        return INFO, (f"Each player has two hidden and three open cards; the middle row is "
                      f"{_names(d['middle'])}; {d['draw']} cards in the draw pile.")
    if k == "first":
        return SYSTEM, f"{h} was drawn to begin."
    if k == "round":
        return INFO, f"Round {d['round']} of {d['rounds']} begins."
    if k == "pushed":
        return SYSTEM, _pushed(h, d)
    if k == "swapped":
        return SYSTEM, _swapped(h, d)
    if k == "swapped_all":
        return SYSTEM, _swapped_all(h, d)
    if k == "no_swap":
        if d.get("timeout"):
            n = d.get("count", 1)
            return SYSTEM, (f"{h} did not act within {seconds_text(d['seconds'])}: no swap for "
                            f"the remaining {'action' if n == 1 else f'{n} actions'}.")
        return SYSTEM, f"{h} did not swap."
    if k == "revealed":
        cards = list(d["cards"])
        return SYSTEM, (f"{h} shows {' '.join(cards[:2])} (hidden) {' '.join(cards[2:])} "
                        f"(open): {category_name(d['category'])}.")
    if k == "ranking":
        return SYSTEM, ("Final ranking: " + _places(d["places"]) + "."
                        + _split(d["places"], d["pot"], d["share"], d["remainder"]))
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
        return ("Final ranking: " + _places(places) + "."
                + _split(places, op["pot"], share, op.get("remainder", 0)))
    return ", ".join(f"{k}={v}" for k, v in op.items())


# ---------------------------------------------------------------- fixed-limit Hold'em

_HOLDEM_EVENTS = frozenset({"hand", "blind", "fold", "check", "call", "raise", "board", "show",
                            "muck", "hand_over", "leaving", "sit_out", "sit_in", "busted",
                            "seat_refused"})
_HOLDEM_OPERATIONS = frozenset({"fold", "check", "call", "raise", "board", "show", "muck"})

#: pokerkit's hand labels (the codes of ``rules.holdem``) as people name them.
HOLDEM_HANDS = {
    "HIGH_CARD": "high card", "ONE_PAIR": "one pair", "TWO_PAIR": "two pairs",
    "THREE_OF_A_KIND": "three of a kind", "STRAIGHT": "a straight", "FLUSH": "a flush",
    "FULL_HOUSE": "a full house", "FOUR_OF_A_KIND": "four of a kind",
    "STRAIGHT_FLUSH": "a straight flush"}


def _made(d: Mapping[str, Any]) -> str:
    """`` with two pairs (A+ A* 5# 5- K+)`` for a made hand in the data, else ``""``."""
    if not d.get("hand"):
        return ""
    return f" with {HOLDEM_HANDS.get(d['hand'], d['hand'].lower())} ({d.get('best', '')})"


def _holdem_event(e: Event) -> tuple[str, str] | None:
    """The message-area line of a Hold'em event (``rules/holdem/game.py``)."""
    h, d, k = e.handle, e.data, e.kind
    late = " did not act in time and" if d.get("timeout") else ""
    if k == "sat":
        return SYSTEM, f"{h} sits down with {d['buy_in']:,} CUBES."
    if k == "left":
        cashed = d.get("cash_out", 0)
        why = {"lost_connection": "lost the connection and leaves",
               "idle": "was idle too long and leaves"}.get(d.get("reason", ""), "leaves")
        return SYSTEM, f"{h} {why} the table" + (f" with {cashed:,} CUBES." if cashed else ".")
    if k == "hand":
        return INFO, (f"Hand {d['game_id']}: {d['button']} has the button; blinds "
                      f"{d['small_blind']}/{d['big_blind']}.")
    if k == "blind":
        return SYSTEM, f"{h} posts the {d['blind']} blind ({d['amount']})."
    if k == "fold":
        return SYSTEM, f"{h}{late} folds."
    if k == "check":
        return SYSTEM, f"{h}{late} checks."
    if k == "call":
        return SYSTEM, f"{h} calls {d['amount']}."
    if k == "bet":
        return SYSTEM, f"{h} bets {d['to']}."
    if k == "raise":
        return SYSTEM, f"{h} raises to {d['to']}."
    if k == "board":
        return INFO, f"{d['street'].upper()}: {' '.join(d['cards'])}   (board {' '.join(d['board'])})"
    if k == "show":
        return SYSTEM, f"{h} shows {' '.join(d['cards'])}{_made(d)}."
    if k == "muck":
        return SYSTEM, f"{h} does not show."
    if k == "won":
        return SYSTEM, f"{h} wins {d['amount']:,} CUBES{_made(d)}."
    if k == "leaving":
        return SYSTEM, f"{h} leaves after this hand."
    if k == "sit_out":
        return SYSTEM, f"{h} sits out."
    if k == "sit_in":
        return SYSTEM, f"{h} is back in the game."
    if k == "busted":
        return SYSTEM, f"{h} has no chips left and sits out."
    if k == "seat_refused":
        return INFO, "You could not take the seat: " + refusal(
            RuleError(d["code"], **{x: v for x, v in d.items() if x != "code"}))
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
    return f"{h} wins {op['amount']:,} CUBES{_made(op)}"
