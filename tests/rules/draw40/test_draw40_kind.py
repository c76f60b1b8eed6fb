"""The draw40 game behind the game-kind interface: typed actions through verify/can/apply,
the record of operations, payouts, and the issue-14 mends to the end of a game."""

import random

import pytest

from bbspoker.door.screens.kinds import describe_operation
from bbspoker.rules import actions as act
from bbspoker.rules.base import GameRules
from bbspoker.rules.cards import parse_cards
from bbspoker.rules.draw40.game import Draw40, Phase
from bbspoker.rules.events import RuleError
from bbspoker.store.wallet import MemoryWallet
from tests.support.ruletext import wording

#: This module plays draw40 tables and reads them in its words.
text, texts, refused = wording("draw40")


def seated(players=("alice", "bob", "carol"), cubes=1000, seed=1):
    wallet = MemoryWallet({p: cubes for p in players})
    game = Draw40(wallet, rng=random.Random(seed))
    for p in players:
        game.apply(p, act.Sit(), 0.0)
    return game, wallet


def test_draw40_is_a_game_kind_and_offers_typed_actions_in_command_order():
    game, _ = seated()
    assert isinstance(game, GameRules) and game.kind == "draw40"
    assert game.legal_actions("alice", 0.0) == (act.Start,)
    assert game.legal_actions("bob", 0.0) == ()
    game.apply("alice", act.Start(), 1.0)
    assert game.legal_actions("alice", 1.0) == (act.Bet, act.Pass)


def test_verify_refuses_what_apply_refuses_and_changes_nothing():
    game, wallet = seated()
    game.apply("alice", act.Start(), 1.0)
    before = dict(wallet.balances)
    for handle, action, code in [
        ("bob", act.Bet(5), "not_your_turn"),
        ("alice", act.Bet(201), "bet_range"),
        ("alice", act.SeeHands(5), "see_hands_round"),
        ("alice", act.Reveal(), "wrong_phase"),
        ("alice", act.Discard(()), "wrong_phase"),
        ("dave", act.Pass(), "not_seated"),
        ("alice", act.Sit(), "already_seated"),
        ("bob", act.Start(), "game_running"),
    ]:
        with pytest.raises(RuleError) as verified:
            game.verify(handle, action, 2.0)
        assert verified.value.code == code
        assert not game.can(handle, action, 2.0)
        with pytest.raises(RuleError) as applied:
            game.apply(handle, action, 2.0)
        assert applied.value.code == code
    assert wallet.balances == before and game.current == "alice"
    assert game.can("alice", act.Bet(5), 2.0)


def test_a_bet_the_cubes_cannot_cover_is_refused_by_verify_with_the_range():
    game, _ = seated(("alice", "bob"), cubes=30)
    game.apply("alice", act.Start(), 1.0)            # 20 CUBES left each
    with refused("between 1 and 20 CUBES"):
        game.verify("alice", act.Bet(25), 2.0)


def test_the_record_of_operations_and_the_payouts():
    game, _ = seated(("alice", "bob"))
    game.apply("alice", act.Start(), 1.0)
    game.apply("alice", act.Bet(5), 2.0)
    game.apply("bob", act.Pass(), 3.0)
    ops = game.operations
    assert [op.kind for op in ops] == ["ante", "ante", "deal", "deal", "bet", "pass", "showdown"]
    assert ops[4].handle == "alice" and ops[4].data["amount"] == 5
    game.apply("alice", act.Reveal(), 4.0)         # bob sits on, inactive: alice shows
    assert [op.kind for op in game.operations][-2:] == ["reveal", "won"]
    assert game.payouts() == {"alice": 25}
    lines = [describe_operation(op.as_dict(), "draw40") for op in game.operations]
    assert lines[-1].startswith("alice wins the pot of 25 CUBES with ")
    assert lines[-1].endswith(": the others passed.")


def test_a_cancel_through_apply_gives_back_every_ante_and_bet():
    game, wallet = seated(("alice", "bob"))
    game.apply("alice", act.Start(), 1.0)
    game.apply("alice", act.Bet(5), 2.0)
    ev = game.apply(None, act.Cancel("shutdown"), 3.0)
    assert ev[0].kind == "cancelled" and ev[0].data["refunds"] == {"alice": 15, "bob": 10}
    assert wallet.balances["alice"] == wallet.balances["bob"] == 1000
    assert game.phase is Phase.IDLE and game.payouts() == {}


def test_the_last_opponent_leaving_in_the_showdown_makes_the_other_win_at_once():
    game, wallet = seated(("alice", "bob"))
    game.apply("alice", act.Start(), 1.0)
    while game.phase is not Phase.SHOWDOWN:          # call, discard nothing, then [H]
        h = game.current
        if game.phase is Phase.DISCARDING:
            game.apply(h, act.Discard(), 2.0)
        elif act.SeeHands in game.legal_actions(h, 2.0):
            game.apply(h, act.SeeHands(game.bet_range(h)[0]), 2.0)
        else:
            game.apply(h, act.Bet(game.bet_range(h)[0]), 2.0)
    winner = next(h for h in ("alice", "bob") if h != game.current)
    ev = game.apply(game.current, act.Leave(), 3.0)   # the one in turn leaves
    assert game.phase is Phase.IDLE                  # no [R] awaited
    assert any(t.startswith(f"{winner} wins the pot of") for t in texts(ev))
    assert wallet.balances[winner] > 1000


def test_a_tie_broken_by_suit_names_the_suit():
    game, _ = seated(("alice", "bob"))
    game.apply("alice", act.Start(), 1.0)
    # Same ranks, different suits: alice's flush of + beats bob's flush of -.
    seats = {s.handle: s for s in game._seats if s is not None}
    seats["alice"].cards = parse_cards("5+ 7+ 9+ J+ K+")
    seats["bob"].cards = parse_cards("5- 7- 9- J- K-")
    game._game.phase = Phase.SHOWDOWN
    game._game.queue = [0, 1]
    game.apply("alice", act.Reveal(), 2.0)
    ev = game.apply("bob", act.Reveal(), 3.0)
    assert "alice wins the pot of 20 CUBES with Flush, King high (suit + decides)!" in texts(ev)


def test_a_lone_winner_after_some_passed_and_some_left_says_so():
    game, _ = seated(("alice", "bob", "carol"))
    game.apply("alice", act.Start(), 1.0)
    game.apply("alice", act.Bet(1), 2.0)
    game.apply("bob", act.Pass(), 3.0)
    game.apply("carol", act.Leave(), 4.0)
    assert game.phase is Phase.SHOWDOWN              # bob sits on, inactive: alice shows
    ev = game.apply("alice", act.Reveal(), 5.0)
    assert any("alice wins the pot of" in t and "the others passed or left" in t
               for t in texts(ev))
