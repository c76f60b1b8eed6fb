"""Seasons (calendar weeks and months, their labels and bounds across summer time) and
the league points of a finish."""

from __future__ import annotations

import math
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bbspoker.rules.seasons import Season, points, season_of

BERLIN = ZoneInfo("Europe/Berlin")


@pytest.mark.parametrize("moment, start, end, label", [
    (datetime(2026, 11, 30, 23, 59, 59, tzinfo=BERLIN), date(2026, 11, 30), date(2026, 12, 7),
     "2026-W49"),                                 # Monday night: still its own week
    (datetime(2026, 11, 29, 23, 59, 59, tzinfo=BERLIN), date(2026, 11, 23), date(2026, 11, 30),
     "2026-W48"),                                 # Sunday 23:59:59: the week before
    (datetime(2026, 11, 30, 0, 0, tzinfo=BERLIN), date(2026, 11, 30), date(2026, 12, 7),
     "2026-W49"),                                 # Monday 00:00: the new week
    (date(2027, 1, 1), date(2026, 12, 28), date(2027, 1, 4), "2026-W53"),   # ISO year
    (date(2025, 12, 29), date(2025, 12, 29), date(2026, 1, 5), "2026-W01"),
])
def test_a_week_runs_from_monday_midnight_and_is_named_by_its_iso_week(moment, start, end, label):
    season = season_of(moment, "week")
    assert (season.start, season.end, season.label) == (start, end, label)
    assert season.next().start == end and season.next().previous() == season


@pytest.mark.parametrize("moment, start, end, label", [
    (datetime(2026, 11, 30, 23, 59, 59, tzinfo=BERLIN), date(2026, 11, 1), date(2026, 12, 1),
     "2026-11"),
    (datetime(2026, 12, 1, 0, 0, tzinfo=BERLIN), date(2026, 12, 1), date(2027, 1, 1), "2026-12"),
    (date(2026, 12, 31), date(2026, 12, 1), date(2027, 1, 1), "2026-12"),    # the year's end
    (date(2028, 2, 29), date(2028, 2, 1), date(2028, 3, 1), "2028-02"),
])
def test_a_month_runs_from_the_first_and_is_named_by_year_and_month(moment, start, end, label):
    season = season_of(moment, "month")
    assert (season.start, season.end, season.label) == (start, end, label)
    assert season.previous().end == start and season.previous().next() == season


def test_the_season_before_january_is_last_years_december():
    assert season_of(date(2027, 1, 15), "month").previous() == Season("month", date(2026, 12, 1))
    assert season_of(date(2027, 1, 1), "week").previous().label == "2026-W52"


def test_bounds_are_local_midnights_across_a_change_of_summer_time():
    """The week of the change to summer time (29 March 2026 in Berlin) is 167 hours long,
    the week of the change back (25 October) 169; each starts at Monday's midnight there."""
    spring = season_of(datetime(2026, 3, 29, 3, 30, tzinfo=BERLIN), "week")
    start, end = spring.bounds(BERLIN)
    assert datetime.fromtimestamp(start, BERLIN) == datetime(2026, 3, 23, tzinfo=BERLIN)
    assert datetime.fromtimestamp(end, BERLIN) == datetime(2026, 3, 30, tzinfo=BERLIN)
    assert end - start == 167 * 3600
    autumn_start, autumn_end = season_of(date(2026, 10, 25), "week").bounds(BERLIN)
    assert autumn_end - autumn_start == 169 * 3600
    march = season_of(date(2026, 3, 31), "month").bounds(BERLIN)
    assert march[1] - march[0] == (31 * 24 - 1) * 3600
    # A moment an instant before the end is in the season, the end itself in the next.
    last = datetime.fromtimestamp(end - 1, BERLIN)
    assert season_of(last, "week") == spring
    assert season_of(datetime.fromtimestamp(end, BERLIN), "week") == spring.next()


def test_a_season_of_another_length_is_refused():
    with pytest.raises(ValueError, match="week, month"):
        season_of(date(2026, 1, 1), "year")


@given(st.dates(min_value=date(1990, 1, 1), max_value=date(2100, 12, 31)),
       st.sampled_from(["week", "month"]))
def test_every_day_is_in_exactly_the_season_season_of_gives(day, length):
    season = season_of(day, length)
    assert season.start <= day < season.end
    assert season_of(season.end - timedelta(days=1), length) == season
    assert season_of(season.end, length) == season.next()


@pytest.mark.parametrize("entrants, place, expected", [
    (10, 1, 32), (10, 10, 10), (10, 3, 18), (2, 1, 14), (2, 2, 10), (1, 1, 10),
    (100, 1, 100), (441, 400, 11),          # 10 * sqrt(441 / 400) = 10.5: a half, up
    (0, 1, 0),
])
def test_points_are_ten_times_the_root_of_entrants_over_place(entrants, place, expected):
    assert points(entrants, place) == expected


@given(st.integers(1, 10_000), st.integers(1, 10_000))
def test_points_round_the_formula_to_the_nearest_whole_number(entrants, place):
    exact = 10 * math.sqrt(entrants / place)
    assert abs(points(entrants, place) - exact) <= 0.5 + 1e-9


def test_no_points_for_a_place_below_one():
    with pytest.raises(ValueError):
        points(10, 0)
