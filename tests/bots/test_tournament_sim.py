"""Whole tournaments of computer players in the simulator (``bbspoker sim --tournament``):
the real tables and the real model, chips counted after every hand, prizes the pool."""

import random

import pytest

from bbspoker.bots.draw40 import DRAW40
from bbspoker.bots.holdem import HOLDEM
from bbspoker.bots.stud import STUD
from bbspoker.bots.tournament import simulate_tournaments
from bbspoker.config import tournament_spec
from bbspoker.rules.kinds import kind
from bbspoker.table.tournament import ChipsNotConserved, TournamentTables
from bbspoker.rules.tournament import Tournament



def spec(game: str = "holdem", players: int = 9, **keys):
    entry = {"id": "t", "name": "T", "game": game, "sit_and_go": players, **keys}
    if game == "holdem":
        entry.setdefault("limit", "no")
    return tournament_spec(entry)


@pytest.mark.parametrize("limit", ["no", "pot", "fixed"])
def test_a_nine_player_sit_and_go_of_bots_plays_to_one_winner(limit):
    s = spec(limit=limit)
    policies = [HOLDEM.policy(n) for n in ("random", "calling", "equity") * 3]
    result = simulate_tournaments(HOLDEM, kind("holdem").tournament, s.table, s.rules,
                                  policies, 2, seed=7, seconds_per_action=40.0)
    assert result.tournaments == 2 and result.illegal == 0 and result.examples == []
    assert result.hands > 10
    # Every entrant placed, one winner each time (players out in the same hand with the
    # same chips share a place, so the places may add up to less than 1 + ... + 9).
    assert sum(r.entries for r in result.policies.values()) == 18
    assert sum(r.wins for r in result.policies.values()) == 2
    assert 2 * 9 < sum(r.places for r in result.policies.values()) <= 2 * sum(range(1, 10))
    # The prizes are the pools: what the entrants won and lost adds up to nothing.
    assert sum(r.net for r in result.policies.values()) == 0
    assert result.paid == 2 * 9 * s.rules.buy_in


def test_a_two_table_tournament_moves_players_and_ends_at_one_table():
    s = spec(players=12, seats_per_table=6)
    policies = [HOLDEM.policy("random")] * 12
    result = simulate_tournaments(HOLDEM, kind("holdem").tournament, s.table, s.rules,
                                  policies, 1, seed=3, seconds_per_action=30.0)
    assert result.tournaments == 1 and result.illegal == 0
    assert sum(r.net for r in result.policies.values()) == 0


def test_a_stud_sit_and_go_plays_to_the_end():
    s = spec("stud", players=5, levels=[{"bet": 10, "ante": 1, "minutes": 2},
                                        {"bet": 40, "ante": 5, "minutes": 2},
                                        {"bet": 200, "ante": 25, "minutes": 2}])
    policies = [STUD.policy(n) for n in ("strength", "calling", "random", "random", "random")]
    result = simulate_tournaments(STUD, kind("stud").tournament, s.table, s.rules, policies,
                                  1, seed=5, seconds_per_action=20.0)
    assert result.tournaments == 1 and result.illegal == 0
    assert sum(r.net for r in result.policies.values()) == 0


def test_draw40_sit_and_goes_play_to_the_end_with_the_pool_paid():
    """draw40's tables pay from the balance: the chips are read there, the short stacks
    go all-in for their antes, and every tournament ends with its pool paid."""
    s = spec("draw40", players=5, chips=500,
             levels=[{"bet": 50, "ante": 5, "minutes": 2},
                     {"bet": 100, "ante": 20, "minutes": 2},
                     {"bet": 200, "ante": 60, "minutes": 2}])
    policies = [DRAW40.policy(n) for n in ("equity", "calling", "aggressive", "random",
                                           "random")]
    result = simulate_tournaments(DRAW40, kind("draw40").tournament, s.table, s.rules,
                                  policies, 3, seed=2, seconds_per_action=10.0)
    assert result.tournaments == 3 and result.illegal == 0 and result.examples == []
    assert result.hands > 3
    assert sum(r.wins for r in result.policies.values()) == 3
    assert sum(r.net for r in result.policies.values()) == 0
    assert result.paid == 3 * 5 * s.rules.buy_in


def test_a_two_table_draw40_tournament_moves_players_and_ends():
    s = spec("draw40", players=8, seats_per_table=4, chips=300,
             levels=[{"bet": 40, "ante": 10, "minutes": 1},
                     {"bet": 150, "ante": 50, "minutes": 1}])
    policies = [DRAW40.policy("random")] * 8
    result = simulate_tournaments(DRAW40, kind("draw40").tournament, s.table, s.rules,
                                  policies, 1, seed=4, seconds_per_action=10.0)
    assert result.tournaments == 1 and result.illegal == 0
    assert sum(r.net for r in result.policies.values()) == 0


def test_bbspoker_sim_tournament_plays_draw40(capsys, monkeypatch):
    from bbspoker.cli import main
    monkeypatch.delenv("BBSPOKER_CONFIG", raising=False)
    assert main(["sim", "--tournament", "--game", "draw40", "--games", "2", "--players", "3",
                 "--seed", "3", "--policies", "calling,aggressive,random"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("2 tournaments of draw40, 3 players each, ")
    assert out[0].endswith("illegal actions: 0")
    assert "prizes paid 600 CUBES = the pools" in out[1]


def test_chips_that_appear_from_nowhere_are_caught_after_the_hand():
    s = spec(players=3)
    state = Tournament.draw(s.rules, ["a", "b", "c"], random.Random(1))
    tables = TournamentTables.open(kind("holdem").tournament, s.table, state, 0.0)
    tables.check_chips()
    tables.wallet.balances["a"] += 1
    with pytest.raises(ChipsNotConserved):
        tables.check_chips()


def test_bbspoker_sim_tournament_prints_the_run_and_each_policy(capsys, monkeypatch):
    from bbspoker.cli import main
    monkeypatch.delenv("BBSPOKER_CONFIG", raising=False)
    assert main(["sim", "--tournament", "--games", "2", "--players", "4", "--seed", "4",
                 "--policies", "random,calling,random,calling",
                 "--seconds-per-action", "30"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("2 tournaments of no-limit holdem, 4 players each, ")
    assert out[0].endswith("illegal actions: 0")
    assert "prizes paid 800 CUBES = the pools" in out[1]
    rows = {line.split()[0]: line.split() for line in out[3:5]}
    assert set(rows) == {"random", "calling"} and rows["random"][1] == "4"
    assert float(rows["random"][-1]) == -float(rows["calling"][-1])


def test_bbspoker_sim_tournament_plays_a_configured_entry(capsys, monkeypatch, tmp_path):
    from bbspoker.cli import main
    path = tmp_path / "c.toml"
    path.write_text('[[tournaments]]\nid = "studs"\nname = "Studs"\ngame = "stud"\n'
                    'sit_and_go = 3\nlevels = [{bet = 10, ante = 1, minutes = 1}, '
                    '{bet = 100, ante = 10, minutes = 1}]\n')
    monkeypatch.setenv("BBSPOKER_CONFIG", str(path))
    assert main(["sim", "--tournament", "studs", "--games", "1", "--seed", "1",
                 "--policies", "random"]) == 0
    assert capsys.readouterr().out.startswith("1 tournaments of stud, 3 players each")


@pytest.mark.parametrize("argv, says", [
    (["--tournament", "nope"], "no [[tournaments]] entry 'nope'"),
    (["--tournament", "--game", "schiebe"], "game must be one of draw40, holdem, stud"),
    (["--tournament", "--game", "stud", "--limit", "no"], "--limit is for a game with"),
    (["--tournament", "--players", "3", "--policies", "random,calling"],
     "3 players but 2 policies"),
    (["--limit", "no"], "--limit is for --tournament runs"),
])
def test_bbspoker_sim_tournament_refuses_in_one_line(argv, says, capsys, monkeypatch):
    from bbspoker.cli import main
    monkeypatch.delenv("BBSPOKER_CONFIG", raising=False)
    assert main(["sim", "--games", "1", *argv]) == 1
    assert says in capsys.readouterr().err
