"""Hold'em computer players (issue 16): what they see, the preflop formula, that they only
ever act legally at a real table, and the strength benchmark's quick run."""

from __future__ import annotations

import dataclasses
import random
import subprocess
import sys
from pathlib import Path

import pytest

from bbspoker.bots.holdem import (HoldemCalling, HoldemEquity, HoldemRandom, chen, holdem_policy,
                                  simulate_holdem, view)
from bbspoker.rules import actions as act
from bbspoker.rules.holdem import Holdem, HoldemRules, Street
from bbspoker.rules.money import SYSTEM
from bbspoker.store.wallet import MemoryWallet
from tests.support.paths import ROOT



@pytest.mark.parametrize("hole, points", [
    (("A+", "A*"), 20), (("K+", "K#"), 16), (("5+", "5*"), 5), (("2+", "2-"), 5),
    (("A+", "K+"), 12), (("A+", "K*"), 10), (("J+", "10+"), 9), (("7*", "2-"), -1),
    (("Q*", "J*"), 9), (("9#", "8#"), 8), (("A-", "5-"), 7)])
def test_the_chen_formula_scores_the_hole_cards(hole, points):
    assert chen(hole) == points


def test_a_view_holds_the_players_own_cards_and_no_one_elses():
    wallet = MemoryWallet({"a": 1000, "b": 1000, "c": 1000, SYSTEM: 0})
    game = Holdem(wallet, HoldemRules(), rng=random.Random(3))
    for h in "abc":
        game.apply(h, act.Sit(), 0.0)
    game.tick(game.deadline())
    v = view(game, game.current)
    assert v.hole == game.hole_cards(game.current) and len(v.hole) == 2
    assert v.opponents == 2 and v.to_call == 10 and v.raise_to == 20 and v.pot == 15
    # No field could hold another player's hole cards: cards are the own two and the board.
    assert {f.name for f in dataclasses.fields(v)} == {
        "handle", "hole", "community", "street", "legal", "to_call", "raise_to", "pot",
        "stack", "opponents", "rules", "max_raise_to", "bet"}
    assert v.community == ()


def test_a_view_has_the_stakes_of_the_hand_in_play_not_the_next_levels():
    """The stakes rise (a tournament's next level) in the middle of a hand: what a bot
    sees of that hand, from the game or from the table's snapshot, is its own blinds and
    ante."""
    from bbspoker.bots.holdem import observe_holdem
    from bbspoker.table.bus import Bus
    from bbspoker.table.service import TableService
    wallet = MemoryWallet({"a": 1000, "b": 1000, "c": 1000, SYSTEM: 0})
    game = Holdem(wallet, HoldemRules(ante=1, tournament=True), rng=random.Random(3))
    for h in "abc":
        game.apply(h, act.Sit(), 0.0)
    game.tick(game.deadline())
    game.set_stakes(small_bet=40, ante=5)
    h = game.current
    seen = observe_holdem(TableService(game, Bus(), lambda: 0.0).snapshot, h,
                          game.hole_cards(h))
    for v in (view(game, h), seen):
        assert (v.rules.big_blind, v.rules.small_blind, v.rules.ante) == (10, 5, 1)
        assert v.to_call == 10 and v.raise_to == 20


@pytest.mark.parametrize("policies", [
    [HoldemRandom(), HoldemCalling(), HoldemRandom()],
    [HoldemEquity(samples=8), HoldemRandom(), HoldemCalling(), HoldemRandom()]])
def test_policies_act_only_legally_and_cubes_are_conserved(policies):
    result = simulate_holdem(policies, 60, seed=5)
    assert result.illegal == 0 and result.conserved and result.hands == 60
    assert sum(s.total for s in result.seats) == 0


def test_equity_folds_rubbish_to_a_raise_and_raises_aces():
    rules = HoldemRules()
    base = dict(handle="x", community=(), street=Street.PREFLOP,
                legal=(act.Pass, act.CheckCall, act.BetRaise, act.SitOut), to_call=20,
                raise_to=30, pot=35, stack=990, opponents=2, rules=rules)
    from bbspoker.bots.holdem import HoldemView
    eq = HoldemEquity(samples=8)
    assert type(eq.decide(HoldemView(hole=("7*", "2-"), **base), random.Random(1))) is act.Pass
    assert type(eq.decide(HoldemView(hole=("A+", "A*"), **base), random.Random(1))) is act.BetRaise
    assert holdem_policy("calling").name == "calling"
    with pytest.raises(ValueError, match="known: random, calling, equity"):
        holdem_policy("shark")


def test_the_strength_benchmark_runs_in_its_quick_mode():
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "bench" / "holdem_bots.py"),
                           "--quick"], capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("Hold'em heads-up, 10/20, 40 hands a pair")
    assert [line.split()[:3] for line in lines[1:]] == [["equity", "vs", "calling"],
                                                       ["equity", "vs", "random"]]
    assert all("illegal 0" in line and "conserved True" in line for line in lines[1:])


@pytest.mark.parametrize("limit", ["no", "pot"])
def test_no_and_pot_limit_policies_act_only_legally_and_cubes_are_conserved(limit):
    """Every policy's bet or raise at pot and no limit is an amount the table takes (the
    simulator asks the table: ``can``), over many hands with all-ins and side pots."""
    rules = HoldemRules(limit=limit, between_hands=0.0)
    result = simulate_holdem([HoldemEquity(samples=8), HoldemRandom(), HoldemCalling(),
                              HoldemEquity(samples=8)], 150, seed=7, rules=rules)
    assert result.illegal == 0 and result.conserved and result.hands == 150, result.examples
    assert sum(s.total for s in result.seats) == 0


def _nl_view(**changes):
    from bbspoker.bots.holdem import HoldemView
    base = dict(handle="x", hole=("A+", "A*"), community=(), street=Street.PREFLOP,
                legal=(act.Pass, act.CheckCall, act.BetRaise, act.SitOut), to_call=30,
                raise_to=70, max_raise_to=1000, bet=10, pot=55, stack=990, opponents=1,
                rules=HoldemRules(limit="no"))
    return HoldemView(**{**base, **changes})


def test_equity_sizes_no_limit_bets_from_its_equity_and_the_pot():
    """At no limit the equity policy raises a strong hand by a share of the pot (not the
    smallest raise, not the whole stack with deep stacks), goes all in short-stacked,
    folds rubbish to a raise, calls by the pot odds after the flop and bets more with more
    equity."""
    eq = HoldemEquity(samples=8)
    rng = random.Random(1)
    aces = eq.decide(_nl_view(), rng)
    assert isinstance(aces, act.BetRaise) and aces.to is not None and 70 < aces.to < 1000
    short = eq.decide(_nl_view(stack=140, max_raise_to=150), rng)
    assert short == act.BetRaise(to=150)                       # all in
    assert eq.decide(_nl_view(hole=("7*", "2-")), rng) == act.Pass()
    flop = dict(street=Street.FLOP, community=("K*", "7+", "2#"), to_call=0, bet=0,
                raise_to=10, max_raise_to=900, pot=100, stack=900)
    sure = HoldemEquity(strength=lambda *a: 0.95)
    good = HoldemEquity(strength=lambda *a: 0.75)
    poor = HoldemEquity(strength=lambda *a: 0.2)
    big, fair = sure.decide(_nl_view(**flop), rng), good.decide(_nl_view(**flop), rng)
    assert isinstance(big, act.BetRaise) and isinstance(fair, act.BetRaise)
    assert 10 < fair.to < big.to <= 900                        # type: ignore[operator]
    assert poor.decide(_nl_view(**flop), rng) == act.CheckCall()
    # Facing a pot-sized bet, 20% equity does not pay (it needs a third), 40% does.
    facing = {**flop, "to_call": 100, "pot": 200, "raise_to": 200}
    assert poor.decide(_nl_view(**facing), rng) == act.Pass()
    assert HoldemEquity(strength=lambda *a: 0.4).decide(_nl_view(**facing), rng) == act.CheckCall()


def test_the_strength_benchmark_runs_in_its_quick_no_limit_mode():
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "bench" / "holdem_bots.py"),
                           "--quick", "--limit", "no"], capture_output=True, text=True,
                          timeout=240)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("No-limit Hold'em heads-up, 5/10, 40 hands a pair")
    assert [line.split()[:3] for line in lines[1:]] == [["equity", "vs", "calling"],
                                                       ["equity", "vs", "random"]]
    assert all("illegal 0" in line and "conserved True" in line for line in lines[1:])


def test_the_bot_port_takes_an_amount_at_no_limit_and_offers_the_range():
    """``11;raise;N`` raises to N (``11;raise`` alone: the smallest); the turn's ``1;``
    line at pot and no limit ends with the largest total; a word not a whole number is
    refused."""
    from bbspoker.bots.holdem import HoldemPort
    from bbspoker.table.bus import Bus
    from bbspoker.table.service import TableService
    wallet = MemoryWallet({"a": 1000, "b": 1000, "c": 1000, SYSTEM: 0})
    game = Holdem(wallet, HoldemRules(limit="no", buy_in_max=500), rng=random.Random(3))
    for h in "abc":
        game.apply(h, act.Sit(), 0.0)
    game.tick(game.deadline())
    snap = TableService(game, Bus(), lambda: 0.0).snapshot
    port, me = HoldemPort(), game.current
    assert port.action("raise", ["60"], snap, me) == act.BetRaise(to=60)
    assert port.action("bet", [], snap, me) == act.BetRaise()
    with pytest.raises(ValueError, match="whole number"):
        port.action("raise", ["lots"], snap, me)
    _, offer = port.turn(snap, me)
    assert offer == "1;fold,call,raise;10;20;500"
