"""The door's game kinds: one registry (door/screens/kinds.py) that the lobby, the web page,
``games show`` and the message area look a kind up in; one screen loop and one renderer
protocol (door/screens/base.py) that every kind's screen runs."""

from __future__ import annotations

import ast
import dataclasses
import pathlib

from bbspoker.rules.events import Event
from tests.support.kindview import kind_view_reads
from tests.support.looks import Door
from tests.support.tableplay import table_world

SRC = pathlib.Path(__file__).resolve().parents[2] / "src" / "bbspoker"


def test_an_event_reads_as_its_tables_kind_words_it_not_as_its_data_suggests():
    """The kind of an event is its table's, never guessed from its data: a draw40 bet that
    happens to carry a ``street`` reads as a draw40 bet, a draw40 ``round`` with a
    ``rounds`` figure as a draw40 round, a record's bet as the record's kind says."""
    from bbspoker.door.screens.kinds import describe_event, describe_operation
    bet = Event("bet", "bob", {"amount": 20, "pot": 60, "raised": False, "street": "flop"})
    assert describe_event(bet, "draw40") == ("SYSTEM", "bob has called the bet (20), pot is 60.")
    assert describe_event(Event("bet", "bob", {"to": 20, "street": "flop"}), "holdem") == (
        "SYSTEM", "bob bets 20.")
    round_ = Event("round", None, {"phase": "betting", "round": 3, "rounds": 4})
    assert describe_event(round_, "draw40") == ("INFO", "Round 3 begins.")
    op = {"op": "bet", "handle": "bob", "amount": 20, "round": 1, "street": "flop"}
    assert describe_operation(op, "draw40") == "round 1: bob called the bet (20)"
    # The events every kind shares read alike at each kind's table.
    for kind in ("draw40", "holdem", "schiebe", "stud"):
        assert describe_event(Event("reconnected", "bob"), kind) == ("SYSTEM", "bob is back.")


def test_every_kinds_screen_runs_the_one_loop_and_renders_the_clock_through_its_renderer():
    """No kind's screen has a loop, a paint or a clock path of its own: each is
    :class:`TableScreen`'s, which asks the kind's renderer for the clock alone
    (``render_clock``) and paints the whole view when it cannot."""
    from bbspoker.door.screens.base import TableScreen
    from bbspoker.door.screens.kinds import KINDS
    assert set(KINDS) == {"draw40", "holdem", "schiebe", "stud"}
    for name, kind in KINDS.items():
        assert kind.name == name and issubclass(kind.screen, TableScreen)
        assert kind.screen.kind is kind
        for method in ("run", "_paint", "_paint_clock", "_on_item", "_take"):
            assert getattr(kind.screen, method) is getattr(TableScreen, method), (name, method)
        renderer = kind.screen._make_renderer
        assert renderer is not TableScreen._make_renderer, name


async def test_a_row_screens_clock_ticks_on_its_renderer(monkeypatch):
    """A Hold'em player in turn sees the clock count down: each tick of the clock paints
    the screen again through the renderer (which sends only the clock's row)."""
    import random

    from bbspoker.door.screens.holdem import HoldemScreen
    from bbspoker.rules import actions as act
    from bbspoker.rules.holdem import Holdem, HoldemRules
    from bbspoker.rules.money import SYSTEM
    from bbspoker.store.wallet import MemoryWallet
    from tests.door.test_i18n import _App, _Entry, _service, _settle, _Viewer
    rules = HoldemRules(seats=9, small_bet=10, between_hands=5.0)
    game = Holdem(MemoryWallet({"alice": 1000, "bob": 1000, SYSTEM: 0}), rules,
                  rng=random.Random(7))
    async with _service(game) as (service, clock):
        entry = _Entry(service, rules)
        await service.call("alice", act.Sit(buy_in=500))
        await service.call("bob", act.Sit(buy_in=500))
        clock.advance(5)
        await _settle(service, lambda s: s.current is not None)
        viewer = _Viewer(service.snapshot.current, "en")
        written: list[str] = []
        viewer.write, viewer.congested = written.append, False
        screen = HoldemScreen(viewer, _App(), entry)
        screen.snapshot = service.snapshot
        screen._paint()
        first = "".join(written)
        shown = screen._clock_text()
        assert shown is not None and f"Clock .... {shown}" in first
        written.clear()
        clock.advance(1.5)
        screen._paint_clock()
        tick = "".join(written)
        later = screen._clock_text()
        assert later != shown and f"Clock .... {later}" in tick and len(tick) < len(first) / 4


async def test_the_lobby_enters_a_table_through_its_kinds_registry_entry(tmp_path, monkeypatch):
    """The lobby names no kind: the entry text, the table's stakes and the screen come from
    the table's kind in the registry (a changed entry there is what a player sees)."""
    from bbspoker.door.screens import kinds
    draw40 = kinds.KINDS["draw40"]

    def intro(t, entry, app, handle):
        return ["", f"{entry.name} -- a made-up game", "", "Note: it uses ANSI.", ""]

    monkeypatch.setitem(kinds.KINDS, "draw40", dataclasses.replace(
        draw40, intro=intro, stakes=lambda rules, t: "pebbles"))
    async with table_world(tmp_path) as (server, connect, advance):
        alice = await connect("alice")
        await alice.send("p")
        await alice.wait_for("a made-up game")
        await alice.wait_for("Nobody is using the poker game right now.")
        await alice.wait_for("Join the table? (y/n)")
        await alice.send("y")
        await alice.wait_for("[X] Exit the game")


#: Modules that may name a game kind by its code: the kinds' own screen and wording
#: modules and the registry.
_KIND_MODULES = ("door/screens/kinds.py",) + tuple(
    f"door/screens/{kind}{tail}.py" for kind in ("draw40", "holdem", "schiebe", "stud")
    for tail in ("", "_text"))


def test_no_door_module_but_a_kinds_own_and_the_registry_names_a_kind():
    """The lobby, the messages, the screen loop, the web page, the composition root and
    the CLI look kinds up: no string in their code is a kind's code, and none imports a
    kind's module -- its screen or wording, nor its rules (a kind's hand names or rounds
    worded in the shared messages would import them)."""
    codes = {"draw40", "holdem", "schiebe", "stud"}
    found = []
    paths = [*(SRC / "door").rglob("*.py"), SRC / "transport" / "web.py", SRC / "app.py"]
    for path in paths:
        name = str(path.relative_to(SRC))
        if name in _KIND_MODULES:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                      if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef,
                                           ast.ClassDef))
                      and node.body and isinstance(node.body[0], ast.Expr)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and node.value in codes \
                    and id(node) not in docstrings:
                found.append(f"{name}:{node.lineno}: {node.value!r}")
            if isinstance(node, ast.ImportFrom) and node.module:
                modules = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
                for module in modules:
                    if codes & set(module.split(".")):
                        found.append(f"{name}:{node.lineno}: imports {module}")
    assert found == []


def test_the_shared_door_code_reads_no_kinds_view_of_the_table():
    """The screen loop, the row screens, the lobby and the rest of the door read only
    the snapshot's fields every kind has; what differs (the greeting's game-master) they
    ask the table's ScreenKind."""
    found = []
    for path in (SRC / "door").rglob("*.py"):
        if str(path.relative_to(SRC)) not in _KIND_MODULES:
            found += kind_view_reads(path)
    assert found == []


def test_the_view_check_sees_a_kind_field_read(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("a = self.snapshot.master\nb = snap.view.phase\nc = snap.seats\n")
    assert kind_view_reads(bad) == ["bad.py:1: snapshot.master", "bad.py:2: snap.view"]


# --- the Hold'em table in each look ---------------------------------------------------

def _holdem_flop():
    """A Hold'em hand at 10/20 on the flop: alice (the button) raised, bob folded, carol
    called and is in turn; the board K* J# 4-, alice holds K+ Q#, carol A+ A*. Returns the
    game, the table's clock (``now[0]``, seconds) and ``screen(handle, watching=False)``,
    a Hold'em screen of the table as it is then."""
    import random

    from bbspoker.door.screens.holdem import HoldemScreen
    from bbspoker.rules import actions as act
    from bbspoker.rules.holdem import Holdem, HoldemRules
    from bbspoker.rules.money import SYSTEM
    from bbspoker.store.wallet import MemoryWallet
    from bbspoker.table.bus import Bus
    from bbspoker.table.service import TableService
    from tests.door.test_stud_screen import _Entry, _Session
    from tests.rules.holdem.test_holdem import stacked
    deck = stacked(["7c2d", "AsAh", "KsQd"], "KhJd4c3s9h")
    game = Holdem(MemoryWallet({"alice": 1000, "bob": 1000, "carol": 1000, SYSTEM: 0}),
                  HoldemRules(seats=9, small_bet=10), rng=random.Random(3),
                  deck=lambda seal, gid: list(deck))
    for h in ("alice", "bob", "carol"):
        game.apply(h, act.Sit(buy_in=500), 0.0)
    game.tick(game.deadline())
    game.apply("alice", act.BetRaise(), 1.0)
    game.apply("bob", act.Pass(), 1.0)
    game.apply("carol", act.CheckCall(), 1.0)
    now = [0.0]

    def screen(handle: str, watching: bool = False) -> HoldemScreen:
        service = TableService(game, Bus(), lambda: now[0])
        s = HoldemScreen(_Session(handle), Door(), _Entry(service),  # type: ignore[arg-type]
                         watching=watching)
        s.cards = () if watching else game.hands()[handle]
        return s
    return game, now, screen


#: The rows 0-12 of the flop of :func:`_holdem_flop` as alice and carol (after a refused
#: fold) see them, and the showdown as a spectator sees rows 0-8: the plain-text screens
#: of the GV family, which the classic look keeps byte for byte.
_HOLDEM_ALICE = [
    "+- Limit Hold'em 10/20: Salon ---------------------------------- Hand 1, flop -+",
    "| 1 D  alice*         480              | 6      (free)                         |",
    "| 2 SB bob            495       fold   | 7      (free)                         |",
    "| 3 BB carol          480       <-     | 8      (free)                         |",
    "| 4      (free)                        | 9      (free)                         |",
    "| 5      (free)                        |                                       |",
    "| BOARD  [ K* ] [ J# ] [ 4- ] [    ] [    ]    POT 45                          |",
    "| YOU    [ K+ ] [ Q# ]                                                         |",
    "+----------------------------------------------+-------------------------------+",
    "| [I] sit out from the next hand               | Turn ..... carol              |",
    "| [.] chat  [X] leave the table                | Clock .... 1:01               |",
    "|                                              | Street ... flop, bets 10      |",
    "|                                              | Button ... alice              |"]
_HOLDEM_CAROL = [
    "+- Limit Hold'em 10/20: Salon ---------------------------------- Hand 1, flop -+",
    "| 1 D  alice          480              | 6      (free)                         |",
    "| 2 SB bob            495       fold   | 7      (free)                         |",
    "| 3 BB carol*         480       <-     | 8      (free)                         |",
    "| 4      (free)                        | 9      (free)                         |",
    "| 5      (free)                        |                                       |",
    "| BOARD  [ K* ] [ J# ] [ 4- ] [    ] [    ]    POT 45                          |",
    "| YOU    [ A+ ] [ A* ]                                                         |",
    "+----------------------------------------------+-------------------------------+",
    "| [C] check  [R] bet 10                        | Turn ..... carol              |",
    "| [I] sit out from the next hand               | Clock .... 1:01               |",
    "| Checking costs nothing here: check ([C])     | Street ... flop, bets 10      |",
    "| instead of folding.                          | Button ... alice              |"]
_HOLDEM_SHOWDOWN = [
    "+- Limit Hold'em 10/20: Salon --------------------------------- 3 of 9 seated -+",
    "| 1 D  alice          480              | 6      (free)                         |",
    "| 2    bob            495              | 7      (free)                         |",
    "| 3    carol          525       A+ A*  | 8      (free)                         |",
    "| 4      (free)                        | 9      (free)                         |",
    "| 5      (free)                        |                                       |",
    "| BOARD  [ K* ] [ J# ] [ 4- ] [ 3+ ] [ 9* ]                                    |",
    "| You are watching this table.                                                 |",
    "+----------------------------------------------+-------------------------------+"]


def test_the_hold_em_table_in_the_classic_look_is_the_plain_text_screen_byte_for_byte():
    """The classic look draws the Hold'em table as the GV family's plain-text screen:
    ``+ - |`` borders, suits ``+ * # -``, and not one colour sequence."""
    from bbspoker.door.look import CLASSIC
    from bbspoker.rules import actions as act
    from bbspoker.rules.holdem import Street
    from tests.support.looks import shown, sgr_of
    game, now, screen = _holdem_flop()
    alice, carol = screen("alice"), screen("carol")
    carol._game_key("f")
    for s, expected in ((alice, _HOLDEM_ALICE), (carol, _HOLDEM_CAROL)):
        view = s.view()
        assert [CLASSIC.glyphs(r) for r in view.rows[:13]] == expected
        term, data = shown(view, "classic")
        assert [line for line in term.display[:13]] == expected
        assert sgr_of(data) <= {b"\x1b[m"}            # the terminal's reset when it clears
        assert all(c.fg == "default" and c.bg == "default" and not c.bold
                   for row in term.buffer.values() for c in row.values())
    while game.street is not Street.IDLE:
        game.apply(game.current, act.CheckCall(), 2.0)
    watcher = screen("dave", watching=True).view()
    assert [CLASSIC.glyphs(r) for r in watcher.rows[:9]] == _HOLDEM_SHOWDOWN


def test_the_hold_em_table_in_colour_in_cp437_and_utf8():
    """A colour look draws the Hold'em table box-drawn, hearts and diamonds red, spades
    and clubs white, the player in turn highlighted (yellow on blue), your own seat green,
    a folded seat dark, the pot yellow, the labels of the game information cyan with their
    values white, a refusal red; the turn clock in the terminal's own colour, yellow in its last 30 s, red in its
    last 10 s. In CP437 (suits as bytes 0x03-0x06) and in UTF-8 alike."""
    from tests.support.looks import COLOUR, cell, cells, shown
    game, now, screen = _holdem_flop()
    deadline = game.deadline()
    assert deadline is not None
    for profile in COLOUR:
        now[0] = deadline - 45
        alice, _ = shown(screen("alice").view(), profile)
        carol_screen = screen("carol")
        carol_screen._game_key("f")
        carol, data = shown(carol_screen.view(), profile)
        assert b"\x1b[" in data
        if profile == "cp437":
            # A+ A* as the code page's suits (the heart after its colour)
            assert b"[ A\x06 ]" in data and b"\x1b[31m\x03" in data
        for term in (alice, carol):
            rows = term.display
            assert rows[0].startswith("┌─ Limit Hold'em") and rows[0].endswith("─┐")
            assert rows[1][0] == rows[1][39] == rows[1][79] == "│"
            assert rows[8] == "├" + "─" * 46 + "┬" + "─" * 31 + "┤"
            assert rows[13][0] == "├" and rows[13][47] == "┴"
            assert term.buffer[8][47].fg == term.buffer[0][0].fg == "cyan"
            title = cell(term, 0, "Limit")
            assert (title.fg, title.bold) == ("brown", True)
            # the board: K* red, 4- white, the rank in the card's white
            heart, club = cell(term, 6, "K♥"), cell(term, 6, "4♣")
            assert (heart.fg, heart.bold) == ("white", True)
            assert (cells(term, 6, "K♥")[1].fg, cells(term, 6, "4♣")[1].fg) == ("red", "white")
            pot = cells(term, 6, "POT 45")
            assert all((c.fg, c.bold) == ("brown", True) for c in pot)
            # carol in turn: her seat highlighted, its number to its state
            turn = cells(term, 3, "3 BB carol")
            assert all((c.fg, c.bg, c.bold) == ("brown", "blue", True) for c in turn)
            assert cell(term, 3, "<-").bg == "blue"
            folded = cells(term, 2, "2 SB bob")
            assert all((c.fg, c.bg, c.bold) == ("black", "default", True) for c in folded)
            label, value = cell(term, 9, "Turn"), cell(term, 9, "carol")
            assert (label.fg, value.fg, value.bold) == ("cyan", "white", True)
            assert cell(term, 10, "0:45").fg == "default"      # the clock before its last 30 s
        mine = cells(alice, 1, "1 D  alice*")
        assert all((c.fg, c.bold) == ("green", True) for c in mine)
        assert [c.fg for c in cells(alice, 7, "K♠ ] [ Q♦")] == [
            "white", "white", "white", "white", "white", "red"]     # K♠ ] [ Q♦, blanks left out
        assert (cells(carol, 7, "A♥")[1].fg, cells(carol, 7, "A♠")[1].fg) == ("red", "white")
        refusal = cells(carol, 11, "Checking costs nothing")
        assert all((c.fg, c.bold) == ("red", True) for c in refusal)
        key = cells(carol, 9, "[C]")
        assert key[1].fg == "brown" and key[0].fg == "default"
        # the clock: the terminal's own colour, yellow in the last 30 s, red in the last 10 s
        for left, colour in ((45, ("default", False)), (25, ("brown", True)), (5, ("red", True))):
            now[0] = deadline - left
            term, _ = shown(screen("alice").view(), profile)
            clock = cells(term, 10, f"0:{left:02d}")
            assert all((c.fg, c.bold) == colour for c in clock), (left, profile)


def _holdem_preflop(limit: str):
    """A ``limit`` ("no" or "pot") Hold'em hand at blinds 5/10 just dealt: alice (the
    button) is first in turn, 500 CUBES each. Returns the game and ``screen(handle)``, a
    Hold'em screen of the table as it is then whose commands are collected in its
    ``sent`` list instead of going to the table."""
    import random

    from bbspoker.door.screens.holdem import HoldemScreen
    from bbspoker.rules import actions as act
    from bbspoker.rules.holdem import Holdem, HoldemRules
    from bbspoker.rules.money import SYSTEM
    from bbspoker.store.wallet import MemoryWallet
    from bbspoker.table.bus import Bus
    from bbspoker.table.service import TableService
    from tests.door.test_stud_screen import _Entry, _Session
    game = Holdem(MemoryWallet({"alice": 1000, "bob": 1000, "carol": 1000, SYSTEM: 0}),
                  HoldemRules(seats=9, small_bet=10, limit=limit), rng=random.Random(3))
    for h in ("alice", "bob", "carol"):
        game.apply(h, act.Sit(buy_in=500), 0.0)
    game.tick(game.deadline())

    def screen(handle: str) -> HoldemScreen:
        service = TableService(game, Bus(), lambda: 0.0)
        s = HoldemScreen(_Session(handle), Door(), _Entry(service))  # type: ignore[arg-type]
        s.cards = game.hands()[handle]
        s.sent = []                                                   # type: ignore[attr-defined]
        s._command = s.sent.append                                    # type: ignore[method-assign]
        return s
    return game, screen


def _type(s, *keys) -> None:
    """Press ``keys`` on screen ``s`` (characters, or ``Key`` values)."""
    from bbspoker.door.keys import Key, KeyKind
    for k in keys:
        s._on_key(k if isinstance(k, Key) else Key(KeyKind.CHAR, k))


def test_a_hold_em_screens_title_shows_the_stakes_the_table_plays_now():
    """A table whose stakes rose (a tournament's next level) keeps the running hand's in
    its title until that hand is over, then shows the new blinds and the ante."""
    from bbspoker.door.look import CLASSIC
    from bbspoker.rules import actions as act
    from bbspoker.rules.holdem import Street
    game, screen = _holdem_preflop("no")
    game.set_stakes(small_bet=40, ante=5)
    assert CLASSIC.glyphs(screen("bob").view().rows[0]).startswith(
        "+- No-limit Hold'em 5/10: Salon ---")
    while game.street is not Street.IDLE:
        game.apply(game.current, act.Pass() if game.to_call(game.current) else
                   act.CheckCall(), 1.0)
    row = CLASSIC.glyphs(screen("bob").view().rows[0])
    assert row.startswith("+- No-limit Hold'em 20/40, ante 5: Salon ---") and len(row) == 80


def test_a_no_limit_hold_em_screen_shows_the_range_and_r_asks_for_the_amount():
    """No limit: the title names the blinds, the command area the call, the smallest and
    the largest raise and the all-in; R asks for the amount (Enter alone: the smallest,
    Esc drops it), A goes all in; what is not a number is refused in words and nothing is
    sent. In the classic look as text, in colour the question and the refusal in their
    pens."""
    from bbspoker.door.keys import ENTER, ESC
    from bbspoker.door.look import CLASSIC
    from bbspoker.rules import actions as act
    from tests.support.looks import COLOUR, cells, shown
    game, screen = _holdem_preflop("no")
    alice = screen("alice")
    rows = [CLASSIC.glyphs(r) for r in alice.view().rows]
    assert rows[0].startswith("+- No-limit Hold'em 5/10: Salon ---")
    assert rows[9] == ("| [F] fold  [C] call 10  [R] raise to 20-500   "
                       "| Turn ..... alice              |")
    assert rows[10].startswith("| [A] all in 500                               |")
    assert rows[11].endswith("| Street ... preflop            |")
    _type(alice, "r")
    assert alice.mode == "raise" and alice.sent == []
    _type(alice, "6", "0")
    rows = [CLASSIC.glyphs(r) for r in alice.view().rows]
    assert "| Raise to (20-500; Enter: 20): 60_" in "\n".join(rows[9:13])
    for profile in COLOUR:
        term, _ = shown(alice.view(), profile)
        question = next(r for r in range(9, 13) if "Raise to" in term.display[r])
        assert all((c.fg, c.bold) == ("white", True)
                   for c in cells(term, question, "Raise to (20-500; Enter: 20): 60_"))
    _type(alice, ENTER)
    assert alice.sent == [act.BetRaise(to=60)] and alice.mode is None
    _type(alice, "r", ENTER)                       # Enter alone: the smallest raise
    _type(alice, "r", "1", "0", ESC)               # Esc: nothing
    _type(alice, "a")                              # all in
    assert alice.sent == [act.BetRaise(to=60), act.BetRaise(), act.BetRaise(to=500)]
    _type(alice, "r", "1", "x", ENTER)
    assert len(alice.sent) == 3 and alice.mode is None
    assert alice.error == ("Type the amount to raise to in digits, or Enter alone for the "
                           "smallest.")
    rows = [CLASSIC.glyphs(r) for r in alice.view().rows]
    assert "Type the amount to raise to" in "\n".join(rows[9:13])
    for profile in COLOUR:
        term, _ = shown(alice.view(), profile)
        row = next(r for r in range(9, 13) if "Type the amount" in term.display[r])
        assert all((c.fg, c.bold) == ("red", True) for c in cells(term, row, "Type the"))
    # Out of turn: neither R nor A does anything.
    bob = screen("bob")
    _type(bob, "r", "a")
    assert bob.sent == [] and bob.mode is None


async def test_an_amount_the_table_refuses_reads_with_the_range_and_changes_nothing():
    import asyncio

    from bbspoker.rules import actions as act
    from bbspoker.rules.events import RuleError
    game, screen = _holdem_preflop("no")
    alice = screen("alice")
    alice._refresh = lambda keys=False: None  # type: ignore[method-assign]
    for to, said in ((15, "Too small: bet or raise to at least 20."),
                     (501, "Too large: bet or raise to at most 500.")):
        outcome: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        try:
            game.apply("alice", act.BetRaise(to=to), 1.0)
        except RuleError as refused:
            outcome.set_exception(refused)
        alice._command_done(outcome)
        assert alice.error == said and game.current == "alice"
        assert game.stack("alice") == 500


def test_a_pot_limit_hold_em_screen_offers_the_pot_as_its_largest_raise():
    from bbspoker.door.look import CLASSIC
    from bbspoker.rules import actions as act
    game, screen = _holdem_preflop("pot")
    alice = screen("alice")
    rows = [CLASSIC.glyphs(r) for r in alice.view().rows]
    assert rows[0].startswith("+- Pot-limit Hold'em 5/10: Salon ---")
    assert "[R] raise to 20-35" in rows[9] and "[A] pot 35" in rows[10]
    _type(alice, "a")
    assert alice.sent == [act.BetRaise(to=35)]
