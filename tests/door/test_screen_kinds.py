"""The door's game kinds: one registry (door/screens/kinds.py) that the lobby, the web page,
``games show`` and the message area look a kind up in; one screen loop and one renderer
protocol (door/screens/base.py) that every kind's screen runs."""

from __future__ import annotations

import ast
import dataclasses
import pathlib

from bbspoker.rules.events import Event
from tests.support.kindview import kind_view_reads
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
