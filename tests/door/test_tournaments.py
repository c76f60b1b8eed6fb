"""The door's tournament texts that are not the lobby's: what a tournament table's message
area says of its pots (chips, not CUBES), and that nobody takes a seat there by hand."""

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


@pytest.mark.parametrize("game", ["holdem", "stud"])
def test_nobody_takes_a_seat_at_a_tournament_table_by_hand(game):
    screen = tournament_screen(game)
    assert screen._may_sit(object.__new__(screen)) is False
