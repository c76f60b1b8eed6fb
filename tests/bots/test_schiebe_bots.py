"""Computer players of Schiebe-Poker (issue 17): the lookahead policy beats random play in
the simulator, with the 95% confidence interval above 0; no action is ever refused."""

from bbspoker.bots.schiebe import (LookaheadPolicy, RandomSchiebePolicy, observe_schiebe,
                                   simulate_schiebe)
from bbspoker.cli import main as cli_main
from bbspoker.rules import actions as act
from bbspoker.rules.schiebe.actions import Propose, Vote
from bbspoker.rules.schiebe.game import Schiebe
from bbspoker.store.wallet import MemoryWallet


def test_the_lookahead_policy_beats_random_play_with_the_ci_above_zero():
    # A short run (docs/bots.md has the long one): heads-up, 3 rounds, ante 10.
    result = simulate_schiebe([LookaheadPolicy(), RandomSchiebePolicy()], 80, seed=17)
    smart, rand = result.seats
    assert result.illegal == 0 and result.conserved and result.games == 80
    assert smart.mean - smart.ci95 > 0 and smart.mean == -rand.mean


def test_three_seats_and_ties_keep_every_cube():
    result = simulate_schiebe([LookaheadPolicy(), RandomSchiebePolicy(), RandomSchiebePolicy()],
                              30, seed=3, ante=7)
    assert result.illegal == 0
    assert sum(s.total for s in result.seats) + result.to_system == 0


def test_a_bot_sees_its_own_hidden_cards_and_no_one_elses():
    game = Schiebe(MemoryWallet({"a": 0, "b": 0}))
    for h in "ab":
        game.apply(h, act.Sit(), 0.0)
    game.apply("a", Propose(2), 0.0)
    game.apply("b", Vote(True), 0.0)
    obs = observe_schiebe(game, game.current)
    other = "b" if game.current == "a" else "a"
    assert obs.hidden == game.cards_of(game.current)
    assert set(game.cards_of(other)) <= set(obs.unseen)
    assert obs.opponents == {other: game.open_cards(other)}
    assert len(obs.unseen) == 52 - 2 - 3 - 3 - 3


def test_bbspoker_sim_plays_schiebe(capsys):
    assert cli_main(["sim", "--game", "schiebe", "--games", "20", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "20 games of schiebe, 2 players" in out and "lookahead" in out
