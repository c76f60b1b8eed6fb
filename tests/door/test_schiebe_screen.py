"""The Schiebe-Poker table as a player sees it: a real ``Schiebe`` game (on a
MemoryWallet) drawn by the row renderer in each of the door's three terminal profiles --
CP437 in colour (suits as the code page's bytes 0x03-0x06), UTF-8 in colour, and the
classic look (the GV family's plain-text screen, byte for byte) -- fed into a pyte 80x24
terminal, which keeps each cell's character and colour."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable


from bbspoker.door.i18n import ENGLISH
from bbspoker.door.look import CLASSIC
from bbspoker.door.screens.schiebe import KIND, SchiebeScreen
from bbspoker.rules import actions as act
from bbspoker.rules.money import SYSTEM
from bbspoker.rules.schiebe.actions import LEFT, NoSwap, Propose, Push, Vote
from bbspoker.rules.schiebe.game import Schiebe, SchiebeRules
from bbspoker.store.wallet import MemoryWallet
from bbspoker.table.bus import Bus
from bbspoker.table.service import TableService
from tests.door.test_stud_screen import _Entry, _Session
from tests.support.looks import SGR, Door, cells, shown


def _schiebe_table() -> tuple[Schiebe, list[float], Callable[..., SchiebeScreen]]:
    """A Schiebe-Poker game of 2 rounds at ante 10: alice, bob and carol play (alice did
    not swap twice, bob pushed left and has his second action), dave sat down after the
    start (not in this game), carol's connection dropped (her seat is held). Returns the
    game, the table's clock (``now[0]``, seconds) and ``screen(handle, watching=False)``,
    a Schiebe-Poker screen of the table as it is then."""
    game = Schiebe(MemoryWallet({h: 1000 for h in ("alice", "bob", "carol", "dave")}
                                | {SYSTEM: 0}),
                   SchiebeRules(seats=4, rounds=2, ante=10), rng=random.Random(3))
    for h in ("alice", "bob", "carol"):
        game.apply(h, act.Sit(), 0.0)
    game.apply("alice", Propose(2), 0.0)
    game.apply("bob", Vote(True), 0.0)
    game.apply("carol", Vote(True), 0.0)
    game.apply("dave", act.Sit(), 0.0)
    assert game.current == "alice"
    game.apply("alice", NoSwap(), 0.0)
    game.apply("alice", NoSwap(), 0.0)
    game.apply("bob", Push(LEFT), 0.0)
    now = [0.0]

    def screen(handle: str, watching: bool = False) -> SchiebeScreen:
        service = TableService(game, Bus(), lambda: now[0])
        s = SchiebeScreen(_Session(handle), Door(), _Entry(service),  # type: ignore[arg-type]
                          watching=watching)
        s.snapshot = dataclasses.replace(s.snapshot, held=frozenset({"carol"}))
        s.cards = () if watching else game.hands()[handle]
        return s
    return game, now, screen


# --- the three profiles, as a terminal shows them ----------------------------------------

def _pens(drawn: list) -> set[tuple[str, str, bool]]:
    """The (fg, bg, bold) of the cells ``drawn``, each once."""
    return {(c.fg, c.bg, c.bold) for c in drawn}


CARD = ("white", "default", True)
BACK = ("blue", "default", True)
RED = ("red", "default", True)
TURN = ("brown", "blue", True)
SELF = ("green", "default", True)
FOLDED = ("black", "default", True)
LABEL = ("cyan", "default", False)
VALUE = ("white", "default", True)
WINNER = ("green", "default", True)

#: alice's rows 0-12 of :func:`_schiebe_table`, a spectator's, and alice's after the game
#: (the final ranking): the GV family's plain-text screen, which the classic look keeps
#: byte for byte.
_ALICE = [
    "+- Schiebe-Poker: Salon ---------------------------------------- Round 1 of 2 -+",
    "| MIDDLE    [ 5+ ] [ 6+ ] [10* ]    Draw pile 33   Discard  1, top [ 8# ]      |",
    "|             1      2      3       (middle row positions)                     |",
    "| YOU       hidden [ 7- ] [ J# ]   open [ A+ ] [10# ] [ K* ]                   |",
    "|                                         1      2      3    (your open cards) |",
    "| bob       hidden [ ?? ] [ ?? ]   open [ 6# ] [ 4+ ] [ 4- ]   <- in turn      |",
    "| carol     hidden [ ?? ] [ ?? ]   open [10+ ] [ A# ] [ Q* ] (away)            |",
    "| dave      not in this game                                                   |",
    "+----------------------------------------------+-------------------------------+",
    "| [.] chat  [X] leave the table                | Turn ..... bob                |",
    "|                                              | Clock .... 1:00               |",
    "|                                              | Action ... 2 of 2             |",
    "|                                              | Pot ...... 30 CUBES           |"]
_WATCHER = [
    "+- Schiebe-Poker: Salon ---------------------------------------- Round 1 of 2 -+",
    "| MIDDLE    [ 5+ ] [ 6+ ] [10* ]    Draw pile 33   Discard  1, top [ 8# ]      |",
    "|             1      2      3       (middle row positions)                     |",
    "| You are watching this game.                                                  |",
    "|                                                                              |",
    "| alice     hidden [ ?? ] [ ?? ]   open [ A+ ] [10# ] [ K* ]                   |",
    "| bob       hidden [ ?? ] [ ?? ]   open [ 6# ] [ 4+ ] [ 4- ]   <- in turn      |",
    "| carol     hidden [ ?? ] [ ?? ]   open [10+ ] [ A# ] [ Q* ] (away)            |",
    "+----------------------------------------------+-------------------------------+",
    "| [.] chat  [X] leave the table                | Turn ..... bob                |",
    "|                                              | Clock .... 1:00               |",
    "|                                              | Action ... 2 of 2             |",
    "|                                              | Pot ...... 30 CUBES           |"]
_RANKING = [
    "+- Schiebe-Poker: Salon --------------------------------------- 4 of 4 seated -+",
    "| FINAL RANKING of the last game (hidden | open cards)                         |",
    "| 1. bob          10- 2-  | 6# 4+ 4-     One pair                              |",
    "| 2. alice        7- J#   | A+ 10# K*    High card                             |",
    "| 2. carol        6- 8*   | 10+ A# Q*    High card                             |",
    "| bob       seated                                                             |",
    "| carol     seated (away)                                                      |",
    "| dave      seated                                                             |",
    "+----------------------------------------------+-------------------------------+",
    "| [S] propose the rounds (2-7, 2)              | No game                       |",
    "| [.] chat  [X] leave the table                |                               |",
    "|                                              | Ante ..... 10 CUBES           |",
    "|                                              |                               |"]


def _finish(game: Schiebe) -> list:
    """Play the game of :func:`_schiebe_table` to its end (nobody swaps any more): the
    events of its last action."""
    events: list = []
    while game.current is not None:
        events = game.apply(game.current, NoSwap(), 1.0)
    return events


def test_the_schiebe_poker_table_in_the_classic_look_is_the_plain_text_screen_byte_for_byte():
    """The classic look draws the Schiebe-Poker table as the GV family's plain-text
    screen: ``+ - |`` borders, suits ``+ * # -``, and not one colour sequence."""
    game, now, screen = _schiebe_table()
    views = [(screen("alice").view(), _ALICE), (screen("erin", True).view(), _WATCHER)]
    _finish(game)
    views.append((screen("alice").view(), _RANKING))
    for view, expected in views:
        assert [CLASSIC.glyphs(r) for r in view.rows[:13]] == expected
        term, data = shown(view, "classic")
        assert term.display[:13] == expected
        assert set(SGR.findall(data)) <= {b"\x1b[m"}        # the terminal's reset at the clear
        assert data.isascii()
        assert all((c.fg, c.bg, c.bold) == ("default", "default", False)
                   for row in term.buffer.values() for c in row.values())


def test_the_schiebe_poker_table_in_colour_in_cp437_and_utf8():
    """A colour look draws the Schiebe-Poker table box-drawn: the title yellow, cards
    bright white with hearts and diamonds red and spades and clubs white, hidden cards
    blue, your own row green, the player in turn highlighted (yellow on blue), players
    out of the game or away dark, the labels of the game information cyan with their
    values white and the pot yellow; the turn clock in the terminal's own colour, yellow in its last 30 s, red
    in its last 10 s. In CP437 (suits as bytes 0x03-0x06) and in UTF-8 alike."""
    game, now, screen = _schiebe_table()
    deadline = game.deadline()
    assert deadline is not None
    for profile in ("cp437", "utf-8"):
        now[0] = deadline - 45
        term, data = shown(screen("alice").view(), profile)
        if profile == "cp437":
            # 7- J# as the code page's suits (between the colour sequences)
            assert b"[ 7\x05 ] [ J\x04 ]" in SGR.sub(b"", data)
        rows = term.display
        assert rows[0].startswith("┌─ Schiebe-Poker: Salon ─") and rows[0].endswith(
            " Round 1 of 2 ─┐")
        assert rows[1][0] == rows[1][79] == "│" and rows[9][47] == "│"
        assert rows[8] == "├" + "─" * 46 + "┬" + "─" * 31 + "┤"
        assert rows[13][0] == "├" and rows[13][47] == "┴"
        assert term.buffer[8][47].fg == term.buffer[0][0].fg == term.buffer[5][0].fg == "cyan"
        assert _pens(cells(term, 0, "Schiebe-Poker: Salon")) == {("brown", "default", True)}
        assert _pens(cells(term, 0, "Round 1 of 2")) == {VALUE}
        # the middle row: the cards bright white, the ten of hearts' suit red
        assert _pens(cells(term, 1, "MIDDLE")) == {LABEL}
        ten = cells(term, 1, "[10♥ ]")
        assert _pens(ten[:3] + ten[4:]) == {CARD} and _pens(ten[3:4]) == {RED}
        assert _pens(cells(term, 1, "♠", 1)) == {CARD}                  # 6+: white
        assert _pens(cells(term, 1, "[ 8♦ ]")[:2]) == {CARD}           # the top discard
        # your own row: YOU green, your hidden cards face up
        assert _pens(cells(term, 3, "YOU")) == {SELF}
        seven = cells(term, 3, "[ 7♣ ]")
        assert _pens(seven) == {CARD}
        assert _pens(cells(term, 3, "[ J♦ ]")[2:3]) == {RED}
        # bob in turn: his name and the marker highlighted, his hidden cards blue
        assert _pens(cells(term, 5, "bob")) == {TURN}
        assert _pens(cells(term, 5, "<- in turn")) == {TURN}
        assert _pens(cells(term, 5, "[ ?? ]") + cells(term, 5, "[ ?? ]", 1)) == {BACK}
        assert _pens(cells(term, 5, "[ 6♦ ]")[:2]) == {CARD}           # [6, blanks left out
        # carol away and dave out of this game: dark, suits still red and white
        assert _pens(cells(term, 6, "carol")) == {FOLDED}
        assert _pens(cells(term, 6, "(away)")) == {FOLDED}
        assert _pens(cells(term, 6, "[ ?? ]")) == {FOLDED}
        assert _pens(cells(term, 6, "♥")) == {RED}
        assert _pens(cells(term, 7, "dave      not in this game")) == {FOLDED}
        # the game information: labels cyan, values white, the pot yellow
        assert _pens(cells(term, 9, "Turn .....")) == {LABEL}
        assert _pens(cells(term, 9, "bob")) == {VALUE}
        assert _pens(cells(term, 11, "2 of 2")) == {VALUE}
        assert _pens(cells(term, 12, "30 CUBES")) == {("brown", "default", True)}
        key = cells(term, 9, "[X]")
        assert key[1].fg == "brown" and key[0].fg == "default"
        # the clock: the terminal's own colour, yellow in the last 30 s, red in the last 10 s
        for left, colour in ((45, ("default", False)), (25, ("brown", True)), (5, ("red", True))):
            now[0] = deadline - left
            term, _ = shown(screen("alice").view(), profile)
            assert _pens(cells(term, 10, f"0:{left:02d}")) == {(colour[0], "default", colour[1])}
            assert _pens(cells(term, 10, "Clock ....")) == {LABEL}


def test_a_spectator_and_the_player_in_turn_see_the_highlights_of_their_own_screen():
    """A spectator's screen has no row of its own and every hidden card face down; the
    player in turn sees ``<- your turn`` highlighted on their own row."""
    game, now, screen = _schiebe_table()
    for profile in ("cp437", "utf-8"):
        watcher, _ = shown(screen("erin", True).view(), profile)
        assert _pens(cells(watcher, 5, "alice")) == {("default", "default", False)}
        assert _pens(cells(watcher, 5, "[ ?? ]") + cells(watcher, 5, "[ ?? ]", 1)) == {BACK}
        assert _pens(cells(watcher, 6, "bob")) == {TURN}
        bob, _ = shown(screen("bob").view(), profile)
        assert _pens(cells(bob, 3, "YOU")) == {SELF}
        assert _pens(cells(bob, 3, "<- your turn")) == {TURN}
        assert _pens(cells(bob, 3, "[10♣ ]")) == {CARD}


def test_the_final_ranking_shows_who_won_in_the_winners_colour():
    """After the game the ranking's first place is drawn in the winner's colour (its
    suits red and white), the others' cards bright white; the log's line of the ranking
    and the pot is who won, shown as ``[SYSTEM]`` in the winner's colour."""
    game, now, screen = _schiebe_table()
    events = _finish(game)
    for profile in ("cp437", "utf-8"):
        alice = screen("alice")
        for event in events:
            line = KIND.describe_event(event, ENGLISH)
            if line is not None and event.to is None:
                alice._add_message(*line)
        term, _ = shown(alice.view(), profile)
        assert _pens(cells(term, 1, "FINAL RANKING")) == {("brown", "default", True)}
        first = cells(term, 2, "1. bob          10♣ 2♣  ")
        assert _pens([c for c in first if c.data not in "♣"]) == {WINNER}
        assert _pens([c for c in first if c.data == "♣"]) == {CARD}
        assert _pens(cells(term, 2, "One pair")) == {WINNER}
        assert _pens(cells(term, 3, "A♠")[:1]) == {CARD}
        assert _pens(cells(term, 3, "K♥")[1:]) == {RED}
        assert term.buffer[2][26].data == "│" and term.buffer[2][26].fg == "cyan"
        row = next(y for y, text in enumerate(term.display) if "Final ranking: 1. bob" in text)
        assert _pens(cells(term, row, "[SYSTEM] Final ranking")) == {WINNER}


def test_the_command_areas_question_is_bright_and_a_refusal_red():
    """The question in the command area (leave the table?) is drawn bright, a refusal
    red, each over every row it is wrapped on; the keys above them stay keys."""
    from bbspoker.rules.events import RuleError
    game, now, screen = _schiebe_table()
    bob = screen("bob")
    bob.mode = "exit"
    term, _ = shown(bob.view(), "utf-8")
    y = next(y for y, row in enumerate(term.display) if "Leave? You are out" in row)
    assert _pens(cells(term, y, "Leave? You are out of the game. (y/n)")) == {VALUE}
    bob.mode = None
    bob.error = bob.kind.refusal(RuleError("push_direction"), bob.t)
    term, _ = shown(bob.view(), "utf-8")
    y = next(y for y, row in enumerate(term.display) if "Push the middle row" in row)
    assert _pens(cells(term, y, "Push the middle row")) == {RED}
    assert term.buffer[9][3].fg == "brown"                  # [<] push left: still a key
