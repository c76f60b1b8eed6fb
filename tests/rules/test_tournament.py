"""The tournament's own rules: levels, the draw, places, balancing and breaking, prizes."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bbspoker.rules.tournament import (DEFAULT_PAYOUTS, Level, PayoutTier, Tournament,
                                       TournamentRuleError, TournamentRules, balanced, prizes)

LEVELS = (Level(20, 0, 10), Level(40, 0, 10), Level(60, 5, 10), Level(100, 10, 10))


def rules(seats: int = 9, chips: int = 1500, buy_in: int = 100) -> TournamentRules:
    return TournamentRules(buy_in=buy_in, chips=chips, seats_per_table=seats, levels=LEVELS)


def test_the_levels_rise_on_the_clock_and_the_last_one_stays() -> None:
    r = rules()
    assert [r.level_at(s) for s in (0, 599, 600, 1199, 1200, 1800, 10**6)] == [0, 0, 1, 1, 2, 3, 3]
    assert r.level_ends(0) == 600 and r.level_ends(2) == 1800 and r.level_ends(3) is None


@pytest.mark.parametrize("entrants,paid", [(2, 1), (4, 1), (5, 2), (9, 3), (27, 5), (100, 10)])
def test_the_places_paid_grow_with_the_field(entrants: int, paid: int) -> None:
    assert len(rules().shares(entrants)) == paid


def test_prizes_add_up_to_the_pool_and_the_odd_cubes_go_to_the_winner() -> None:
    won = prizes(901, (50, 30, 20), [["a"], ["b"], ["c"], ["d"]])
    assert won == {"a": 451, "b": 270, "c": 180}
    assert sum(won.values()) == 901


def test_players_tied_for_places_share_their_prizes() -> None:
    # b and c went out in the same hand with the same chips: places 2 and 3 shared.
    won = prizes(1000, (50, 30, 20), [["a"], ["b", "c"], ["d"]])
    assert won == {"a": 500, "b": 250, "c": 250}


@given(st.integers(0, 10**9), st.integers(2, 200), st.randoms(use_true_random=False))
def test_prizes_are_the_pool_exactly_whatever_the_field(pool: int, entrants: int,
                                                         rng: random.Random) -> None:
    handles = [f"p{i}" for i in range(entrants)]
    rng.shuffle(handles)
    groups: list[list[str]] = []
    while handles:
        k = rng.choice((1, 1, 1, 2, 3))
        groups.append(handles[:k])
        handles = handles[k:]
    won = prizes(pool, rules().shares(entrants), groups)
    assert sum(won.values()) == pool
    assert all(v >= 0 for v in won.values())


def test_the_draw_seats_everyone_at_as_few_tables_as_evenly_as_can_be() -> None:
    t = Tournament.draw(rules(), [f"p{i}" for i in range(27)], random.Random(1))
    assert sorted(len(s) for s in t.tables.values()) == [9, 9, 9]
    t = Tournament.draw(rules(), [f"p{i}" for i in range(20)], random.Random(1))
    assert sorted(len(s) for s in t.tables.values()) == [6, 7, 7]
    assert t.total_chips == 20 * 1500 and t.average_stack == 1500


def test_too_few_or_twice_entered_players_are_refused() -> None:
    with pytest.raises(TournamentRuleError) as e:
        Tournament.draw(rules(), ["solo"], random.Random(1))
    assert e.value.code == "too_few"
    with pytest.raises(TournamentRuleError) as e:
        Tournament.draw(rules(), ["Bob", "bob"], random.Random(1))
    assert e.value.code == "duplicate"


def test_players_out_in_the_same_hand_place_by_their_chips_before_it() -> None:
    t = Tournament.draw(rules(), ["a", "b", "c", "d", "e"], random.Random(1))
    before = {"a": 1500, "b": 1000, "c": 2000, "d": 1500, "e": 1500}
    t.stacks.update(before)
    after = {"a": 6500, "b": 0, "c": 0, "d": 0, "e": 1000}
    over = t.hand_over(1, before, after)
    # b had the fewest chips: 5th; d had more: 4th; c the most: 3rd.
    assert over.out == {"b": 5, "d": 4, "c": 3}
    assert t.players_left == 2 and t.place_if_out_now() == 2
    assert t.places() == {"b": 5, "d": 4, "c": 3}


def test_equal_chips_share_the_better_place_and_the_prizes_of_both() -> None:
    t = Tournament.draw(rules(), ["a", "b", "c", "d"], random.Random(1))
    over = t.hand_over(1, {h: 1500 for h in "abcd"}, {"a": 4500, "b": 0, "c": 0, "d": 1500})
    assert over.out == {"b": 3, "c": 3}
    over = t.hand_over(1, {"a": 4500, "d": 1500}, {"a": 6000, "d": 0})
    assert over.finished and t.places() == {"a": 1, "d": 2, "b": 3, "c": 3}
    assert t.standings() == [["a"], ["d"], ["b", "c"]]


def test_a_hand_that_does_not_keep_the_chips_is_refused_and_changes_nothing() -> None:
    t = Tournament.draw(rules(), ["a", "b", "c"], random.Random(1))
    state = t.to_json()
    with pytest.raises(TournamentRuleError) as e:
        t.hand_over(1, {"a": 1500, "b": 1500, "c": 1500}, {"a": 4600, "b": 0, "c": 0})
    assert e.value.code == "chips" and t.to_json() == state
    with pytest.raises(TournamentRuleError) as e:
        t.hand_over(2, {"a": 1500}, {"a": 1500})
    assert e.value.code == "table"


def test_a_table_with_two_more_players_gives_them_up_when_its_hand_ends() -> None:
    t = Tournament.draw(rules(seats=6), [f"p{i}" for i in range(12)], random.Random(2))
    one, two = t.tables[1], t.tables[2]
    # Two players at table 2 go out: table 1 has two more than table 2.
    before = {h: 1500 for h in two}
    after = dict(before)
    after[two[0]], after[two[1]], after[two[2]] = 4500, 0, 0
    t.hand_over(2, before, after)
    assert len(t.tables[1]) - len(t.tables[2]) == 2
    # Table 1's hand ends with nobody out: it gives one player (the next big blind first).
    order = list(reversed(one))
    over = t.hand_over(1, {h: 1500 for h in one}, {h: 1500 for h in one}, order)
    assert [(m.handle, m.source, m.target) for m in over.moves] == [(order[0], 1, 2)]
    assert balanced(t.tables.values())


def test_the_highest_table_breaks_when_the_rest_can_seat_everyone() -> None:
    t = Tournament.draw(rules(seats=6), [f"p{i}" for i in range(10)], random.Random(3))
    one, two = list(t.tables[1]), list(t.tables[2])
    assert len(one) == len(two) == 5
    # Three out at table 1: 7 left need two tables still.
    t.hand_over(1, {h: 1500 for h in one},
                {one[0]: 6000, **{h: 0 for h in one[1:4]}, one[4]: 1500})
    assert set(t.tables) == {1, 2}
    # One more: 6 left fit at one table; table 2 (the highest) breaks when its own hand
    # ends, not when table 1's does.
    over = t.hand_over(1, {one[0]: 6000, one[4]: 1500}, {one[0]: 7500, one[4]: 0})
    assert over.moves == [] and not over.broke
    over = t.hand_over(2, {h: 1500 for h in two}, {h: 1500 for h in two})
    assert over.broke and [m.handle for m in over.moves] == two
    assert {m.target for m in over.moves} == {1}
    assert set(t.tables) == {1} and len(t.tables[1]) == 6


def test_late_registration_seats_at_the_smallest_table_or_opens_one() -> None:
    t = Tournament.draw(rules(seats=2), ["a", "b", "c"], random.Random(1))
    assert t.enter_late("d") in t.tables and balanced(t.tables.values())
    assert t.enter_late("e") == 3 and t.total_chips == 5 * 1500
    with pytest.raises(TournamentRuleError):
        t.enter_late("A")


def test_the_journal_brings_the_same_state_back_and_refuses_one_that_does_not_add_up() -> None:
    t = Tournament.draw(rules(), [f"p{i}" for i in range(10)], random.Random(4))
    seated = t.tables[1]
    t.hand_over(1, {h: 1500 for h in seated},
                {seated[0]: 3000, seated[1]: 0, **{h: 1500 for h in seated[2:]}})
    again = Tournament.from_json(rules(), t.to_json())
    assert again == t
    broken = t.to_json()
    broken["stacks"][seated[0]] += 1
    with pytest.raises(TournamentRuleError) as e:
        Tournament.from_json(rules(), broken)
    assert e.value.code == "journal"


def test_bad_numbers_are_refused_with_what_is_wrong() -> None:
    with pytest.raises(ValueError, match="at least 2"):
        Level(1)
    with pytest.raises(ValueError, match="pays at most"):
        PayoutTier(2, (60, 40))
    with pytest.raises(ValueError, match="two bets"):
        TournamentRules(buy_in=1, chips=10, seats_per_table=9, levels=LEVELS)
    assert DEFAULT_PAYOUTS[0].shares == (100,)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 60), st.integers(2, 9), st.randoms(use_true_random=False))
def test_a_tournament_of_random_hands_stays_balanced_and_conserves_chips(
        entrants: int, seats: int, rng: random.Random) -> None:
    """Each round every table plays a hand; in a busy round chips move at random and
    players go out, then quiet rounds follow until a round moves nobody: by then the
    tables are balanced and as few as can seat everyone (one table breaks per round,
    the highest first). No table is ever over its seats, chips are conserved after every
    hand, and the end has one winner with every chip and every entrant placed once."""
    r = rules(seats=seats, chips=100)
    t = Tournament.draw(r, [f"p{i}" for i in range(entrants)], rng)
    busy = True
    for _ in range(10_000):
        if t.finished:
            break
        moved = False
        for number in sorted(t.tables):
            if number not in t.tables:
                continue
            seated = list(t.tables[number])
            before = {h: t.stacks[h] for h in seated}
            after = dict(before)
            if len(seated) >= 2 and busy:
                a, b = rng.sample(seated, 2)
                after[a] += after[b]
                after[b] = 0
            over = t.hand_over(number, before, after, rng.sample(seated, len(seated)))
            moved = moved or bool(over.moves)
            assert sum(t.stacks.values()) == t.total_chips
            assert all(len(s) <= seats for s in t.tables.values())
            if over.finished:
                break
        if not busy and not moved and not t.finished:
            assert balanced(t.tables.values())
            assert len(t.tables) == -(-t.players_left // seats)
        busy = not busy and not moved
    assert t.finished
    places = t.places()
    assert sorted(places) == sorted(t.entrants) and list(places.values()).count(1) == 1
    won = t.prizes(entrants * r.buy_in)
    assert sum(won.values()) == entrants * r.buy_in
