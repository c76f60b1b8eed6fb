"""Seven-card stud computer players: what they see (their own down cards and the up cards
showing, no one else's down cards), the hand ranking they read, that they only ever act
legally at a real table with CUBES conserved, and the strength policy's choices."""

from __future__ import annotations

import dataclasses
import random

import pytest

from bbspoker.bots.stud import (STUD_POLICIES, StudCalling, StudRandom, StudStrength, StudView,
                                rank_hand, simulate_stud, stud_policy, view)
from bbspoker.rules import actions as act
from bbspoker.rules.money import SYSTEM
from bbspoker.rules.stud import Street, Stud, StudRules
from bbspoker.store.wallet import MemoryWallet


@pytest.mark.parametrize("cards, ranked", [
    (("A+", "A*", "K#"), (1, 14, 13)),
    (("9+", "9*", "4#", "4-", "K+"), (2, 9, 4, 13)),
    (("2+", "3*", "4#", "5-", "A+", "K*", "K#"), (4, 5)),          # the wheel beats kings
    (("2+", "7+", "9+", "J+", "K+", "A*", "A#"), (5, 13, 11, 9, 7, 2)),
    (("Q+", "Q*", "Q#", "4-", "4+", "4*", "A-"), (6, 12, 4)),
    (("8+", "9+", "10+", "J+", "Q+", "K*", "A*"), (8, 12)),
    (("5+", "5*", "5#", "5-", "K+"), (7, 5, 13)),
    (("A+", "J*", "8#", "6-", "3+", "2*", "4-"), (0, 14, 11, 8, 6, 4))])
def test_hands_are_ranked_as_poker_ranks_them(cards, ranked):
    assert rank_hand(cards) == ranked


def test_a_view_holds_the_players_own_cards_and_only_the_up_cards_of_the_others():
    wallet = MemoryWallet({"a": 1000, "b": 1000, "c": 1000, SYSTEM: 0})
    game = Stud(wallet, StudRules(), rng=random.Random(3))
    for h in "abc":
        game.apply(h, act.Sit(), 0.0)
    game.tick(game.deadline())
    me = game.current
    assert me is not None
    v = view(game, me)
    assert v.down == game.down_cards(me) and len(v.down) == 2 and len(v.up) == 1
    assert v.bring_in_due and v.to_call == 3 and v.raise_to == 10 and v.pot == 3
    others = [s for s in game.seats() if s.handle != me]
    assert sorted(v.showing) == sorted(s.up for s in others)
    # No field could hold another player's down cards.
    assert {f.name for f in dataclasses.fields(v)} == {
        "handle", "down", "up", "showing", "street", "legal", "to_call", "raise_to",
        "bring_in_due", "pot", "stack", "rules"}
    seen = set(v.down) | set(v.up) | {c for up in v.showing for c in up}
    assert not seen & {c for s in others for c in game.down_cards(s.handle)}


@pytest.mark.parametrize("policies", [
    [StudRandom(), StudCalling(), StudRandom()],
    [StudStrength(), StudRandom(), StudCalling(), StudStrength(), StudRandom()]])
def test_policies_act_only_legally_and_cubes_are_conserved(policies):
    result = simulate_stud(policies, 60, seed=5)
    assert result.illegal == 0 and result.conserved and result.hands == 60
    assert sum(s.total for s in result.seats) == 0


def _view(**changes: object) -> StudView:
    base = dict(handle="x", down=("7*", "2-"), up=("9#",), showing=(("A+",),),
                street=Street.THIRD, legal=(act.Pass, act.CheckCall, act.BetRaise, act.SitOut),
                to_call=10, raise_to=20, bring_in_due=False, pot=23, stack=990,
                rules=StudRules())
    return StudView(**{**base, **changes})  # type: ignore[arg-type]


def test_strength_folds_rubbish_to_a_completion_and_raises_rolled_up_trips():
    s = StudStrength()
    rng = random.Random(1)
    assert type(s.decide(_view(), rng)) is act.Pass
    assert type(s.decide(_view(down=("Q*", "Q-"), up=("Q#",)), rng)) is act.BetRaise
    # The bring-in is forced: rubbish posts it rather than folding.
    due = _view(legal=(act.CheckCall, act.BetRaise, act.SitOut), to_call=3, raise_to=10,
                bring_in_due=True)
    assert type(s.decide(due, rng)) is act.CheckCall


def test_strength_bets_two_pair_over_the_board_and_gives_up_a_beaten_hand():
    s = StudStrength()
    rng = random.Random(1)
    strong = _view(street=Street.FIFTH, down=("9*", "4-"), up=("9#", "4+", "K+"),
                   showing=(("A+", "7*", "3#"),))
    assert type(s.decide(strong, rng)) is act.BetRaise
    beaten = _view(street=Street.SEVENTH, down=("9*", "4-", "2+"),
                   up=("J#", "6+", "K+", "8*"), showing=(("A+", "A*", "3#", "7-"),),
                   to_call=20, raise_to=40, pot=100)
    assert type(s.decide(beaten, rng)) is act.Pass
    assert stud_policy("calling").name == "calling"
    with pytest.raises(ValueError, match="known: random, calling, strength"):
        stud_policy("shark")


def test_bbspoker_sim_plays_stud_from_the_bot_registry(capsys, monkeypatch):
    """``bbspoker sim --game stud`` finds stud in the bot registry and plays its default
    seats (strength against calling) with no illegal action and CUBES conserved."""
    from bbspoker.bots.kinds import bot_kind
    from bbspoker.cli import main
    from bbspoker.rules.kinds import kind
    assert bot_kind("stud").name == "stud"
    assert sorted(kind("stud").config.bot_policies) == sorted(STUD_POLICIES)
    monkeypatch.delenv("BBSPOKER_CONFIG", raising=False)
    assert main(["sim", "--game", "stud", "--games", "60", "--seed", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("60 games of stud, 2 players, ")
    assert out[0].endswith("illegal actions: 0")
    rows = [line.split() for line in out[2:4]]
    assert [r[:2] for r in rows] == [["1", "strength"], ["2", "calling"]]
    assert float(rows[0][2]) == -float(rows[1][2])        # heads-up: one's gain, other's loss


def test_a_view_has_the_stakes_of_the_hand_in_play_not_the_next_levels():
    """The stakes rise mid-hand: what a bot sees of that hand, from the game or from the
    table's snapshot, is its own ante, bring-in and bets."""
    from bbspoker.bots.stud import observe_stud, view
    from bbspoker.table.bus import Bus
    from bbspoker.table.service import TableService
    game = Stud(MemoryWallet({"a": 500, "b": 500, SYSTEM: 0}), StudRules(tournament=True),
                rng=random.Random(4))
    for h in "ab":
        game.apply(h, act.Sit(), 0.0)
    game.tick(game.deadline())
    game.set_stakes(small_bet=50, ante=10)
    h = game.current
    seen = observe_stud(TableService(game, Bus(), lambda: 0.0).snapshot, h, game.hands()[h])
    for v in (view(game, h), seen):
        assert (v.rules.small_bet, v.rules.ante, v.rules.bring_in) == (10, 1, 3)
        assert v.to_call == 3
