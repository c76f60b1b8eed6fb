"""The door's tournament tables (door/tournaments.py): what their message area says of its
pots (chips, not CUBES), the screens each kind gets, and that nobody takes a seat there by
hand."""

import pytest

from bbspoker.door.i18n import translator
from bbspoker.door.screens.holdem_text import describe_event
from bbspoker.door.tournaments import tournament_screen
from bbspoker.rules.events import Event

WON = Event("won", "ann", {"amount": 300, "pot": 600, "hand": "two_pair",
                           "best": "K# K* 9- 9+ 4#"})
ALL = Event("won", "ann", {"amount": 600, "pot": 600})
BACK = Event("returned", "bob", {"amount": 40})


@pytest.mark.parametrize("lang, chips", [("en", "chips"), ("de", "Chips"), ("fr", "jetons")])
def test_a_tournament_tables_pots_and_returned_bets_are_chips_in_every_language(lang, chips):
    t = translator(lang)
    for event in (WON, ALL, BACK):
        cash = describe_event(event, t)[1]
        tourney = describe_event(Event(event.kind, event.handle,
                                       {**event.data, "tournament": True}), t)[1]
        assert "CUBES" in cash and "CUBES" not in tourney and chips in tourney
        assert [w for w in cash.split() if w[0].isdigit()] == \
            [w for w in tourney.split() if w[0].isdigit()]      # the same figures


@pytest.mark.parametrize("game", ["holdem", "stud", "draw40"])
def test_nobody_takes_a_seat_at_a_tournament_table_by_hand(game):
    screen = tournament_screen(game)
    assert screen._may_sit(object.__new__(screen)) is False


def test_a_draw40_tournament_table_has_its_own_screen_and_says_its_levels():
    """draw40's screen draws regions, not rows: its tournament screen is the game screen
    with the tournament's texts (no row screen mixed in), and a level reads as its bet
    limit and ante."""
    from bbspoker.config import tournament_spec
    from bbspoker.door.screens.draw40 import PokerScreen
    from bbspoker.door.screens.rows import RowScreen
    from bbspoker.door.tournaments import describe_event as tournament_event
    screen = tournament_screen("draw40")
    assert issubclass(screen, PokerScreen) and not issubclass(screen, RowScreen)
    spec = tournament_spec({"id": "d", "name": "D", "game": "draw40", "sit_and_go": 3})
    level = Event("tournament_level", None, {"level": 2, "bet": 100, "ante": 10})
    for lang, says in (("en", "bets up to 100 ante 10"), ("de", "Einsätze bis 100"),
                       ("fr", "mises jusqu'à 100")):
        assert says in tournament_event(level, spec.table, translator(lang))[1]


@pytest.mark.parametrize("lang, chips", [("en", "chips"), ("de", "Chips"), ("fr", "jetons")])
def test_a_draw40_tournament_pot_is_chips_in_every_language(lang, chips):
    from bbspoker.door.screens.draw40_text import describe_event as draw40_event
    t = translator(lang)
    for data in ({"pot": 120}, {"pot": 120, "alone": "others_passed"},
                 {"pot": 120, "value": None, "cards": "A# A* K- K+ 5#"}):
        cash = draw40_event(Event("won", "ann", data), t)[1]
        tourney = draw40_event(Event("won", "ann", {**data, "tournament": True}), t)[1]
        assert "CUBES" in cash and "CUBES" not in tourney and chips in tourney


@pytest.mark.parametrize("lang, says", [("en", "[X] back to the lobby"),
                                        ("de", "[X] Zurück in die Lobby"),
                                        ("fr", "[X] Retour au hall")])
def test_a_tournament_tables_x_key_says_it_goes_back_to_the_lobby(lang, says):
    from bbspoker.door.screens.rows import command_area
    screen = tournament_screen("holdem")
    rows = command_area(translator(lang), [], None, screen.exit_key)
    assert any(says in row for row in rows)
    cash = command_area(translator(lang), [], None)
    assert not any(says in row for row in cash)
