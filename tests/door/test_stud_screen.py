"""The seven-card stud table as a player sees it: snapshots of a real ``Stud`` game (on a
MemoryWallet) drawn by ``render_table`` into a pyte 80x24 terminal -- third street with
the bring-in due, after a completion, seventh street, the showdown -- in English, German
and French; the stud screen's keys; and the words of every event, refusal and record line
of a stud hand."""

from __future__ import annotations

import random

import pyte
import pytest

from bbspoker.door.i18n import LANGUAGES, translator
from bbspoker.door.look import CLASSIC
from bbspoker.door.screens import stud as stud_screen
from bbspoker.door.screens.stud import HELP, StudScreen, render_table
from bbspoker.door.screens.stud_text import describe_event, describe_operation
from bbspoker.rules import actions as act
from bbspoker.rules.cards import STANDARD52
from bbspoker.rules.events import Event, RuleError
from bbspoker.rules.money import SYSTEM
from bbspoker.rules.stud import Street, Stud, StudRules
from bbspoker.store.wallet import MemoryWallet
from bbspoker.table.bus import Bus
from bbspoker.table.service import TableService
from bbspoker.text import clean_text, display_width, fit

HANDLES = ("alice", "bob", "carol")
# Dealt from the seat after the dealer (alice): bob, carol, alice. bob's 2- is the lowest
# up card (he brings it in); on seventh street every player gets a down card.
THIRD = ["A+ K+ 2-", "Q* J* 9#", "10# 9* K*"]
LATER = [["A*", "3#", "7-"], ["5+", "5*", "6#"], ["8+", "8*", "8#"], ["4+", "4*", "4#"]]


def stacked(third: list[str], later: list[list[str]]) -> list[str]:
    """A deck, top card first: ``third`` (one "down down up" per player in dealing order)
    three times round, then each later street after a burn card, then the rest."""
    hands = [h.split() for h in third]
    order = [hands[p][r] for r in range(3) for p in range(len(hands))]
    used = set(order) | {c for street in later for c in street}
    rest = [c for c in STANDARD52.cards() if c not in used]
    for street in later:
        order.append(rest.pop())
        order += street
    return order + rest


def game(handles=HANDLES, stack: int = 500, third: list[str] = THIRD,
         later: list[list[str]] = LATER, **rules: object) -> tuple[Stud, list[Event]]:
    """A stud table (default 10/20, ante 1, bring-in 3) with ``handles`` seated, the first
    hand dealt from the deck stacked with ``third`` and ``later``; and the events so far."""
    wallet = MemoryWallet({h: 10 * stack for h in handles} | {SYSTEM: 0})
    deck = stacked(third, later)
    g = Stud(wallet, StudRules(**rules), rng=random.Random(1),  # type: ignore[arg-type]
             deck=lambda seal, gid: list(deck))
    events = []
    for h in handles:
        events += g.apply(h, act.Sit(buy_in=stack), 0.0)
    events += g.tick(g.deadline())
    return g, events


def table_rows(g: Stud, handle: str, lang: str = "en", watching: bool = False,
               **kw: object) -> list[str]:
    """The 13 rows (0-12) of the stud screen ``handle`` (a spectator if ``watching``) gets
    of ``g`` now, as rendered; each is asserted to be 80 cells wide."""
    snap = TableService(g, Bus(), lambda: 0.0).snapshot
    rows = render_table(snap, () if watching else g.hands()[handle], translator(lang),
                        handle=handle, table="Salon", watching=watching, clock="0:42",
                        **kw)  # type: ignore[arg-type]
    assert len(rows) == 13
    for row in rows:
        assert display_width(row) == 80, row
    return rows


def screen(g: Stud, handle: str, lang: str = "en", watching: bool = False,
           **kw: object) -> list[str]:
    """What ``handle`` (a spectator if ``watching``) sees of ``g`` now: rows 0-12 of the
    stud screen (:func:`table_rows`) fed into a pyte 80x24 terminal, as displayed there."""
    rows = table_rows(g, handle, lang, watching, **kw)
    term = pyte.Screen(80, 24)
    stream = pyte.Stream(term)
    for n, row in enumerate(rows):
        stream.feed(f"\x1b[{n + 1};1H{CLASSIC.glyphs(row)}")
    return term.display


def seat(shown: list[str], n: int) -> str:
    """Seat ``n``'s row (1-7)."""
    return shown[n]


def until(g: Stud, street: Street) -> None:
    """Everyone checks or calls until ``street``."""
    while g.street is not street:
        g.apply(g.current, act.CheckCall(), 1.0)


def test_third_street_with_the_bring_in_due():
    g, _ = game()
    assert g.current == "bob"
    bob = screen(g, "bob")
    assert "Stud 10/20: Salon" in bob[0] and "Hand 1, third street -+" in bob[0]
    # Your own down cards face up to you, your up card; the others' down cards counted.
    assert "bob*" in seat(bob, 2) and "(A+ )(K+ ) [2- ]" in seat(bob, 2)
    assert "(?? )(?? ) [K* ]" in seat(bob, 1) and "(?? )(?? ) [9# ]" in seat(bob, 3)
    assert "<-" in seat(bob, 2)
    assert bob[8].startswith("+- POT 3 -")                          # three antes
    # The lowest up card must open: bring-in or completion, no fold.
    keys = "\n".join(bob[9:13])
    assert "[C] bring-in 3" in keys and "[R] complete to 10" in keys
    assert "[F]" not in keys
    assert "Turn ..... bob" in bob[9] and "Bring-in . 3, due" in bob[12]
    assert "Street ... third street" in bob[11]
    # alice sees bob's up card, never his down cards, and has no keys of a turn.
    alice = screen(g, "alice")
    assert "(?? )(?? ) [2- ]" in seat(alice, 2) and "(10#)(9* ) [K* ]" in seat(alice, 1)
    assert not any(c in "\n".join(alice) for c in ("A+", "K+"))
    assert "[C]" not in "\n".join(alice[9:13])
    assert "[I] sit out from the next hand" in "\n".join(alice[9:13])
    watcher = screen(g, "dave", watching=True)
    assert "You are watching this table." in watcher[9]
    assert not any(c in "\n".join(watcher) for c in ("A+", "K+", "10#", "Q*"))
    de, fr = screen(g, "bob", "de"), screen(g, "bob", "fr")
    assert "Dritte Straße" in de[0] and "[C] Bring-in 3" in "\n".join(de[9:13])
    assert "[R] Komplettieren auf 10" in "\n".join(de[9:13])
    assert "Bring-in . 3, fällig" in de[12] and "(frei)" in de[4]
    assert "troisième rue" in fr[0] and "[R] Compléter à 10" in "\n".join(fr[9:13])
    assert "Bring-in . 3, à poser" in fr[12]


def test_after_the_bring_in_and_a_completion():
    g, _ = game()
    g.apply("bob", act.CheckCall(), 1.0)                 # the bring-in, 3
    brought = screen(g, "carol")
    assert "BI" in seat(brought, 2)[:6] and "3 (?? )" in seat(brought, 2)
    assert "Bring-in . bob 3" in brought[12]
    assert "[F] fold  [C] call 3" in brought[9] and "[R] complete to 10" in brought[9]
    g.apply("carol", act.BetRaise(), 1.0)                # completes to 10
    alice = screen(g, "alice")
    assert "10 (?? )(?? ) [9# ]" in seat(alice, 3)
    assert "[F] fold  [C] call 10" in alice[9] and "[R] raise to 20" in "\n".join(alice[9:11])
    assert "Bring-in . completed to 10" in alice[12]
    assert alice[8].startswith("+- POT 16 -")            # 3 antes, 3 and 10
    de = "\n".join(screen(g, "alice", "de"))
    assert "[F] Aussteigen  [C] Mitgehen 10" in de and "[R] Erhöhen auf 20" in de
    assert "Bring-in . komplettiert: 10" in de and "Am Zug ... alice" in de
    fr = "\n".join(screen(g, "alice", "fr"))
    assert "[F] Se coucher  [C] Suivre 10" in fr and "[R] Relancer à 20" in fr
    assert "Bring-in . complété à 10" in fr and "À jouer .. alice" in fr


def test_seventh_street_down_cards_hidden_for_others_and_shown_for_you():
    g, _ = game()
    g.apply("bob", act.CheckCall(), 1.0)
    g.apply("carol", act.BetRaise(), 1.0)
    until(g, Street.SEVENTH)
    carol = screen(g, "carol")
    assert "seventh street" in carol[0] and "Bets ..... 20" in carol[12]
    assert "(Q* )(J* ) [9# ][3# ][5* ][8* ] (4* )" in seat(carol, 3)
    assert "(?? )(?? ) [K* ][7- ][6# ][8# ] (?? )" in seat(carol, 1)
    assert "(?? )(?? ) [2- ][A* ][5+ ][8+ ] (?? )" in seat(carol, 2)
    for other in ("alice", "bob"):
        down = g.hands()[other]
        assert len(down) == 3
        assert not any(c in "\n".join(carol) for c in down if c not in ("4*",))
    assert "Siebte Straße" in screen(g, "carol", "de")[0]
    assert "Limit .... 20" in screen(g, "carol", "de")[12]
    fr = screen(g, "carol", "fr")
    assert "septième rue" in fr[0] and "Limite ... 20" in fr[12]


def test_the_showdown_shows_every_card_of_who_shows_and_none_of_who_mucks():
    g, _ = game()
    g.apply("bob", act.CheckCall(), 1.0)
    until(g, Street.IDLE)
    shown = [s.handle for s in g.seats() if s.shown]
    assert shown, "someone shows at the showdown"
    alice = screen(g, "dave", watching=True)
    for s in g.seats():
        row = seat(alice, s.seat + 1)
        if s.shown:
            assert "[" + "][".join(f"{c:^3}" for c in s.shown[:2]) + "]" in row
            assert "(" not in row                         # every card face up
        else:
            assert "(?? )(?? )" in row and "(?? )" in row.split("]")[-1]
    assert "No hand" in alice[9] and "Ante ..... 1" in alice[11]
    assert "Bring-in . 3" in alice[12] and alice[8] == "+" + "-" * 46 + "+" + "-" * 31 + "+"
    de = screen(g, "dave", "de", watching=True)
    assert "Keine Hand" in de[9] and "Einsatz .. 1" in de[11]


def test_every_row_fits_at_seven_seats_with_long_numbers_in_every_language(monkeypatch):
    """Seven players with long handles, bets of 1,000 and stacks of 100,000: in every
    language, on every street, every row is 80 cells and no text is cut to fit."""
    cut: list[tuple[str, int]] = []

    def strict(text: str, width: int) -> str:
        if display_width(clean_text(text)) > width:
            cut.append((text, width))
        return fit(text, width)

    monkeypatch.setattr(stud_screen, "fit", strict)
    handles = ("alice_long", "bobby_long", "carol_long", "dave_long", "erin_long",
               "frank_long", "grace_long")
    third = ["A+ K+ 2-", "Q* J* 9#", "10# 9* K*", "2+ 3+ 4+", "5# 6# 7#", "8- 9- 10-",
             "J- Q- K-"]
    g, _ = game(handles, stack=100000, third=third, later=[], small_bet=1000,
                bring_in=300, ante=100, buy_in_max=100000)
    # The rows as rendered (what is checked here needs no terminal to draw them).
    seen = []
    while g.street is not Street.IDLE:
        for h in handles:
            for lang in LANGUAGES:
                seen.append(table_rows(g, h, lang))
        actions = g.legal_actions(g.current, 1.0)
        g.apply(g.current, act.BetRaise() if act.BetRaise in actions else act.CheckCall(),
                1.0)
    for lang in LANGUAGES:
        seen.append(table_rows(g, handles[0], lang))
    assert not cut, sorted(set(cut))
    assert any("1.000" in "\n".join(rows) for rows in seen)


def test_the_help_fits_the_lobby_in_every_language():
    for lang in LANGUAGES:
        lines = translator(lang).gettext(HELP).splitlines()
        assert len(lines) <= 21 and max(map(display_width, lines)) <= 79, lang


class _Session:
    """What a row-drawn table screen reads of its session: a player at 80x24."""

    def __init__(self, handle: str, lang: str = "en") -> None:
        from tests.door.test_screen import term
        self.handle, self.language = handle, lang
        from bbspoker.door.look import CLASSIC
        self.term, self.encoding, self.cols, self.rows = term(), "utf-8", 80, 24
        self.look = CLASSIC
        self.inbox: list[object] = []


class _Entry:
    def __init__(self, service: TableService) -> None:
        from types import SimpleNamespace
        self.name, self.service = "Salon", service
        self.spec = SimpleNamespace(rules=service.table.rules, config=service.table.rules)


def test_the_keys_fold_is_refused_while_the_bring_in_is_due():
    g, _ = game()
    service = TableService(g, Bus(), lambda: 0.0)
    bob = StudScreen(_Session("bob"), object(), _Entry(service))  # type: ignore[arg-type]
    sent: list[act.Action] = []
    bob._command = sent.append  # type: ignore[method-assign]
    bob._game_key("f")
    assert sent == [] and bob.error == ("You have the lowest up card: bring it in for 3 "
                                        "([C]) or complete ([R]); folding comes later.")
    rows, _cursor = bob.rows()
    assert len(rows) == 24 and all(display_width(r) == 80 for r in rows[:23])
    assert "You have the lowest up card" in "\n".join(rows[9:13])
    bob._game_key("c")
    bob._game_key("r")
    assert sent == [act.CheckCall(), act.BetRaise()]
    g.apply("bob", act.CheckCall(), 1.0)
    bob.snapshot = TableService(g, Bus(), lambda: 0.0).snapshot   # carol's turn now
    bob._game_key("c")
    assert len(sent) == 2                                          # not his turn: nothing


async def test_the_tables_bring_in_refusal_reads_in_studs_words_on_the_screen():
    """A fold the table refuses because the bring-in is due (a key that raced the
    screen's own check) reads as stud words it, not as "Sorry, that did not work"."""
    import asyncio
    g, _ = game()
    service = TableService(g, Bus(), lambda: 0.0)
    bob = StudScreen(_Session("bob"), object(), _Entry(service))  # type: ignore[arg-type]
    bob._refresh = lambda keys=False: None  # type: ignore[method-assign]
    outcome: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    with pytest.raises(RuleError) as refused:
        g.apply("bob", act.Pass(), 1.0)
    outcome.set_exception(refused.value)
    bob._command_done(outcome)
    assert bob.error == ("You have the lowest up card: bring it in for 3 ([C]) or "
                         "complete ([R]); folding comes later.")


def _say(kind: str, data: dict, handle: str | None = "bob", lang: str = "en") -> str | None:
    """The log line of an event as the classic look shows it (cards in GV signs; a colour
    look shows the suit symbols the line is drawn with)."""
    line = describe_event(Event(kind, handle, data), translator(lang))
    return None if line is None else CLASSIC.glyphs(line[1])


def test_every_event_of_a_stud_hand_reads_in_words():
    """Every event a real hand sends has its sentence (or, for the antes, the turn and the
    hand's end, none: the screen shows them), in each language for stud's own."""
    g, events = game()
    events += g.apply("bob", act.CheckCall(), 1.0)
    events += g.apply("carol", act.BetRaise(), 1.0)
    while g.street is not Street.IDLE:
        events += g.apply(g.current, act.CheckCall(), 1.0)
    silent = {"ante", "turn", "hand_over"}
    for e in events:
        line = describe_event(e, translator("en"))
        assert (line is None) == (e.kind in silent), e
        if line is not None:
            assert "{" not in line[1] and "=" not in line[1], (e, line)
    kinds = {e.kind for e in events}
    assert {"hand", "sealed", "street", "down", "up", "bring_in", "complete", "call", "check",
            "show", "won", "seed", "sat"} <= kinds
    assert _say("hand", {"game_id": 7, "hand": 2, "dealer": "alice", "ante": 1,
                         "bring_in": 3, "small_bet": 10, "big_bet": 20}, None) == \
        "Hand 2 (game 7): alice deals; ante 1, bring-in 3, bets 10/20."
    assert _say("street", {"street": "fifth"}, None) == "FIFTH STREET"
    assert _say("street", {"street": "fifth"}, None, "de") == "FÜNFTE STRASSE"
    assert _say("down", {"street": "third", "cards": ("A+", "K+")}) == \
        "You get A+ K+ face down."
    assert _say("down", {"street": "seventh", "cards": ("4*",)}, lang="fr") == \
        "Vous recevez 4* face cachée."
    assert _say("up", {"street": "fourth", "cards": ("A*",), "showing": ("2-", "A*")}) == \
        "bob gets A* face up (showing 2- A*)."
    assert _say("up", {"street": "fourth", "cards": ("A*",), "showing": ("2-", "A*")},
                lang="de") == "bob bekommt A* offen (zeigt 2- A*)."
    assert _say("bring_in", {"street": "third", "amount": 3}) == "bob brings it in for 3."
    assert _say("bring_in", {"street": "third", "amount": 3}, lang="fr") == \
        "bob pose le bring-in de 3."
    assert _say("bring_in", {"street": "third", "amount": 3, "timeout": True}, lang="de") == \
        "bob hat nicht rechtzeitig gehandelt und bringt das Bring-in von 3."
    assert _say("complete", {"street": "third", "to": 1000}) == "bob completes to 1,000."
    assert _say("complete", {"street": "third", "to": 1000}, lang="de") == \
        "bob komplettiert auf 1.000."
    assert _say("complete", {"street": "third", "to": 10}, lang="fr") == "bob complète à 10."
    assert _say("raise", {"street": "fifth", "to": 40}, lang="de") == "bob erhöht auf 40."
    assert _say("bet", {"street": "fifth", "to": 20}) == "bob bets 20."
    assert _say("fold", {"street": "fourth", "timeout": True}) == \
        "bob did not act in time and folds."
    assert _say("show", {"cards": ("A+", "K+", "2-", "A*", "5+", "8+", "4+"),
                         "hand": "ONE_PAIR", "best": "A+ A* K+ 8+ 5+"}, lang="de") == \
        "bob zeigt A+ K+ 2- A* 5+ 8+ 4+ mit einem Paar (A+ A* K+ 8+ 5+)."
    assert _say("won", {"amount": 33, "pot": 33, "hand": "ONE_PAIR",
                        "best": "A+ A* K+ 8+ 5+"}) == \
        "bob wins the pot of 33 CUBES with one pair (A+ A* K+ 8+ 5+)."
    assert _say("muck", {}) == "bob does not show."
    assert _say("returned", {"amount": 10}) == "Uncalled bet of 10 CUBES returned to bob."
    assert _say("sat", {"buy_in": 500, "stack": 500}) == "bob sits down with 500 CUBES."
    assert _say("left", {"reason": "leave", "cash_out": 480}) == \
        "bob leaves the table with 480 CUBES."
    assert _say("leaving", {}) == "bob leaves after this hand."
    assert _say("sit_out", {}) == "bob sits out." and _say("sit_in", {}) == \
        "bob is back in the game."
    assert _say("busted", {}) == "bob has no chips left and sits out."


def test_the_bring_in_refusal_and_the_others_in_each_language():
    refusal = stud_screen.KIND.refusal
    err = RuleError("bring_in_due", amount=3)
    assert refusal(err, translator("de")) == (
        "Du hast die niedrigste offene Karte: bring das Bring-in von 3 ([C]) oder "
        "komplettiere ([R]); aussteigen kannst du später.")
    assert refusal(err, translator("fr")).startswith(
        "Vous avez la plus basse carte visible : posez le bring-in de 3")
    assert refusal(RuleError("capped")) == \
        "The betting is capped (one bet and three raises): call or fold."
    assert refusal(RuleError("not_your_turn", current="carol")) == \
        "It is not your turn (carol is in turn)."


def test_every_record_line_of_a_stud_hand_reads_for_games_show():
    g, _ = game()
    g.apply("bob", act.CheckCall(), 1.0)
    g.apply("carol", act.BetRaise(), 1.0)
    until(g, Street.IDLE)
    lines = [describe_operation(op.as_dict()) for op in g.operations]
    assert "bob posts the ante (1)" in lines
    assert "third street: bob is dealt A+ K+ down, 2- up" in lines
    assert "third street: bob brings it in for 3" in lines
    assert "third street: carol completes to 10" in lines
    assert any(line.startswith("fourth street (burn ") for line in lines)
    assert any(line.startswith("seventh street: alice is dealt 4# down") for line in lines)
    assert any(" wins the pot of " in line for line in lines)
    assert not any("op=" in line for line in lines), lines


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_table_before_the_first_hand(lang):
    """One player seated, no hand: the seats free, waiting for players, the stakes."""
    wallet = MemoryWallet({"alice": 5000, SYSTEM: 0})
    g = Stud(wallet, StudRules(seats=4), rng=random.Random(1))
    g.apply("alice", act.Sit(buy_in=500), 0.0)
    shown = screen(g, "alice", lang)
    t = translator(lang)
    assert t.gettext("{n} of {seats} seated").format(n=1, seats=4) in shown[0]
    assert t.gettext("No hand: waiting for players") in shown[9]
    assert shown[5].strip() == "|" + " " * 78 + "|"          # seats 5-7: none at this table


# --- the stud table in each look ---------------------------------------------------------

def _stud_screen(g: Stud, handle: str, now: list[float]) -> StudScreen:
    """``handle``'s stud screen of ``g`` now, on the table's clock ``now[0]`` (seconds)."""
    service = TableService(g, Bus(), lambda: now[0])
    screen = StudScreen(_Session(handle), object(), _Entry(service))  # type: ignore[arg-type]
    screen.cards = g.hands()[handle]
    return screen


#: Rows 0-12 of third street after bob's bring-in as carol (in turn) sees them: the
#: plain-text screen of the GV family, which the classic look keeps byte for byte.
_CAROL = [
    "+- Stud 10/20: Salon ----------------------------------- Hand 1, third street -+",
    "| 1 D  alice          499       (?? )(?? ) [K* ]                               |",
    "| 2 BI bob            496     3 (?? )(?? ) [2- ]                               |",
    "| 3    carol*         499       (Q* )(J* ) [9# ]                      <-       |",
    "| 4      (free)                                                                |",
    "| 5      (free)                                                                |",
    "| 6      (free)                                                                |",
    "| 7      (free)                                                                |",
    "+- POT 6 --------------------------------------+-------------------------------+",
    "| [F] fold  [C] call 3  [R] complete to 10     | Turn ..... carol              |",
    "| [I] sit out from the next hand               | Clock .... 0:42               |",
    "| [.] chat  [X] leave the table                | Street ... third street       |",
    "|                                              | Bring-in . bob 3              |"]


def test_the_stud_table_in_the_classic_look_is_the_plain_text_screen_byte_for_byte():
    """The classic look draws the stud table as before: ``+ - |`` borders, suits
    ``+ * # -``, not one colour sequence."""
    from tests.support.looks import sgr_of, shown
    g, _ = game()
    g.apply("bob", act.CheckCall(), 1.0)
    assert screen(g, "carol")[:13] == _CAROL
    deadline = g.deadline()
    assert deadline is not None
    view = _stud_screen(g, "carol", [deadline - 42]).view()
    assert [CLASSIC.glyphs(r) for r in view.rows[:13]] == _CAROL
    term, data = shown(view, "classic")
    assert term.display[:13] == _CAROL
    assert sgr_of(data) <= {b"\x1b[m"}              # the terminal's reset when it clears
    assert all(c.fg == "default" and c.bg == "default" and not c.bold
               for row in term.buffer.values() for c in row.values())


def test_the_stud_table_in_colour_in_cp437_and_utf8():
    """A colour look draws the stud table box-drawn, the cards face up white with red
    hearts and diamonds, the cards face down as card backs (blue), the player in turn
    highlighted, your own seat green, a folded seat dark with its cards, the pot yellow,
    the game information's labels cyan and values white, the exit question white; the
    clock in the terminal's own colour, yellow in its last 30 s, red in its last 10 s. In CP437 and UTF-8."""
    from tests.support.looks import COLOUR, cell, cells, shown
    g, _ = game()
    g.apply("bob", act.CheckCall(), 1.0)
    deadline = g.deadline()
    assert deadline is not None
    now = [deadline - 42]
    for profile in COLOUR:
        carol, data = shown(_stud_screen(g, "carol", now).view(), profile)
        alice, _ = shown(_stud_screen(g, "alice", now).view(), profile)
        if profile == "cp437":
            assert b"(?? )" in data and b"\x1b[31m\x03" in data    # Q* with its heart byte
        for term in (carol, alice):
            rows = term.display
            assert rows[0].startswith("┌─ Stud 10/20: Salon ─") and rows[0].endswith("─┐")
            assert rows[1][0] == rows[1][79] == "│" and rows[8].startswith("├─ POT 6 ──")
            assert rows[8][47] == "┬" and rows[8][79] == "┤" and rows[13][47] == "┴"
            assert term.buffer[0][0].fg == term.buffer[8][47].fg == "cyan"
            title = cells(term, 0, "Stud 10/20: Salon")
            assert all((c.fg, c.bold) == ("brown", True) for c in title)
            assert all((c.fg, c.bold) == ("brown", True) for c in cells(term, 8, "POT 6"))
            # alice's K* face up: white with a red heart; bob's 2- a white club
            king = cells(term, 1, "[K♥ ]")
            assert [c.fg for c in king] == ["white", "white", "red", "white"]        # "[K♥ ]" but its blank
            assert all(c.bold for c in king) and cells(term, 2, "[2♣ ]")[2].fg == "white"
            # carol in turn: her seat highlighted, from its number to its state
            turn = cells(term, 3, "3    carol")
            assert all((c.fg, c.bg, c.bold) == ("brown", "blue", True) for c in turn)
            assert cell(term, 3, "<-").bg == "blue"
            assert (cell(term, 12, "Bring-in").fg, cell(term, 12, "bob 3").fg) == (
                "cyan", "white")
        # the others' down cards face down (blue), carol's own face up to her
        backs = cells(carol, 1, "(?? )(?? )")
        assert all((c.fg, c.bold) == ("blue", True) for c in backs)
        own = cells(carol, 3, "(Q♥ )(J♥ ) [9♦ ]")
        assert [c.fg for c in own[:5]] == ["white", "white", "red", "white", "white"]
        assert own[10].fg == "red" and own[9].bg == "default"       # ♦ and 9, blanks left out
        mine = cells(alice, 1, "1 D  alice*")
        assert all((c.fg, c.bold) == ("green", True) for c in mine)
        # the clock: the terminal's own colour, yellow in the last 30 s, red in the last 10 s
        for left, colour in ((42, ("default", False)), (25, ("brown", True)), (5, ("red", True))):
            now[0] = deadline - left
            term, _ = shown(_stud_screen(g, "alice", now).view(), profile)
            clock = cells(term, 10, f"0:{left:02d}")
            assert all((c.fg, c.bold) == colour for c in clock), (left, profile)
        now[0] = deadline - 42
        leaving = _stud_screen(g, "carol", now)
        leaving.mode = "exit"
        term, _ = shown(leaving.view(), profile)
        question = cells(term, 12, "Leave? You fold this hand.")
        assert all((c.fg, c.bold) == ("white", True) for c in question)
    g.apply("carol", act.Pass(), 1.0)
    for profile in COLOUR:
        alice, _ = shown(_stud_screen(g, "alice", now).view(), profile)
        folded = cells(alice, 3, "3    carol")
        assert all((c.fg, c.bg, c.bold) == ("black", "default", True) for c in folded)
        assert all(c.fg == "black" for c in cells(alice, 3, "(?? )(?? )"))
        assert cells(alice, 3, "[9♦ ]")[2].fg == "red"          # a suit keeps its colour
        assert "fold" in alice.display[3]


def test_the_title_and_the_stakes_shown_are_the_ones_the_table_plays_now():
    """A table whose stakes rose keeps the running hand's in its title until that hand is
    over; then the title shows the new bets and the game information the new ante and
    bring-in."""
    g, _ = game(buy_in_min=60)
    g.set_stakes(small_bet=30, ante=5)
    assert screen(g, "alice")[0].startswith("+- Stud 10/20: Salon ---")
    while g.street is not Street.IDLE:
        g.apply(g.current, act.CheckCall(), 1.0)
    rows = screen(g, "alice")
    assert rows[0].startswith("+- Stud 30/60: Salon ---")
    info = "\n".join(rows[9:13])
    assert "Ante ..... 5" in info and "Bring-in . 9" in info
