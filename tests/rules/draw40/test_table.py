"""The table state machine against chapter 2 of the rules, as decided in issue 2."""

import itertools
import random
import sqlite3

import pytest

from bbspoker.rules.cards import DECK
from bbspoker.rules.draw40.hands import evaluate
from bbspoker.store.sqlite import Ledger
from bbspoker.rules import actions as act
from bbspoker.rules.draw40.game import Draw40, Draw40Rules, Phase
from bbspoker.rules.events import RuleError
from bbspoker.door.screens.kinds import describe_operation
from tests.support.ruletext import label, wording
from bbspoker.store.wallet import SYSTEM, MemoryWallet

#: This module plays draw40 tables and reads them in its words.
text, texts, refused = wording("draw40")


def make(players=("alice", "bob", "carol"), cubes=1000, rules=None, seed=1):
    wallet = MemoryWallet({p: cubes for p in players})
    table = Draw40(wallet, rules or Draw40Rules(), rng=random.Random(seed))
    for p in players:
        table.sit(p, 0.0)
    return table, wallet


def started(players=("alice", "bob", "carol"), **kw):
    table, wallet = make(players, **kw)
    table.start(players[0], 1.0)
    return table, wallet


def play_to_round3(table, now=2.0):
    """Everyone calls 1 in round 1 and discards nothing."""
    while label(table) == "1":
        table.bet(table.current, table.bet_range(table.current)[0], now)
    while label(table) == "DISCARDING INTERVAL":
        table.discard(table.current, [], now)
    assert label(table) == "3"


# --------------------------------------------------------------------------- seats and master

def test_first_to_sit_is_master_and_full_table_refuses():
    table, _ = make(("a1", "b2", "c3", "d4", "e5"))
    assert table.master == "a1" and table.is_full
    with refused("All 5 seats"):
        table.sit("f6", 0.0)


def test_same_handle_cannot_sit_twice_regardless_of_case():
    table, _ = make(("alice", "bob"))
    with refused("already sitting"):
        table.sit("ALICE", 0.0)


def test_sitting_down_during_a_game_is_inactive_until_next_game():
    table, wallet = started(("alice", "bob"))
    wallet.balances["dave"] = 500
    ev = table.sit("dave", 3.0)
    assert not table.is_active("dave")
    assert any(e.to == "dave" and "next game" in text(e) for e in ev)
    assert table.cards_of("dave") == ()
    assert "dave" not in [table.current]


def test_master_timeout_without_game_passes_mastership_to_next_seated():
    table, _ = make(("alice", "bob"))
    assert table.deadline() == pytest.approx(180.0)
    assert table.tick(179.9) == []
    ev = table.tick(180.0)
    assert table.master == "bob"
    assert "alice has not started a game in time." in texts(ev)
    assert table.deadline() == pytest.approx(360.0)


def test_lone_master_keeps_mastership_after_timeout():
    table, _ = make(("alice",))
    table.tick(1000.0)
    assert table.master == "alice" and table.deadline() > 1000.0


def test_master_leaving_without_game_hands_mastership_on():
    table, _ = make(("alice", "bob", "carol"))
    ev = table.leave("alice", 5.0)
    assert table.master == "bob"
    assert "alice has left the table." in texts(ev) and "bob is now the game-master." in texts(ev)


# --------------------------------------------------------------------------- start

def test_only_master_may_start_and_nobody_is_charged_when_refused():
    table, wallet = make(("alice", "bob"))
    with refused(r"Only the game-master \(alice\)"):
        table.start("bob", 1.0)
    assert wallet.balances == {"alice": 1000, "bob": 1000}
    assert table.phase is Phase.IDLE


def test_start_needs_two_players_with_the_ante():
    table, wallet = make(("alice", "bob"))
    wallet.balances["bob"] = 9
    with refused("two players with 10 CUBES"):
        table.start("alice", 1.0)
    assert wallet.balances["alice"] == 1000


def test_a_master_left_alone_after_a_game_stays_master_unannounced_with_a_new_clock():
    table, wallet = started(("alice", "bob"))
    table.bet("alice", 1, 2.0)
    ev = table.leave("bob", 3.0)                   # alice, the last player, wins
    assert "alice wins the pot of 21 CUBES: the others left the table." in texts(ev)
    assert not any(e.kind == "master" for e in ev)  # nobody else to hand it to
    assert table.master == "alice"
    assert table.deadline() == 3.0 + table.rules.master_timeout


def test_start_charges_ante_deals_five_private_cards_and_master_acts_first():
    table, wallet = make(("alice", "bob", "carol"))
    wallet.balances["carol"] = 5  # cannot pay the ante: stays inactive
    ev = table.start("alice", 1.0)
    assert wallet.balances == {"alice": 990, "bob": 990, "carol": 5}
    assert table.pot == 20
    assert "The game is now STARTED (initial pot is 20) ..." in texts(ev)
    private = {e.to: e.data["cards"] for e in ev if e.kind == "cards"}
    assert set(private) == {"alice", "bob"}
    assert all(len(c) == 5 for c in private.values())
    assert not set(private["alice"]) & set(private["bob"])
    assert any(e.to == "carol" and "ante" in text(e) for e in ev)
    assert table.current == "alice" and label(table) == "1"
    assert table.legal_actions("alice", 1.0) == (act.Bet, act.Pass)
    assert table.legal_actions("bob", 1.0) == ()


def test_master_without_ante_gives_mastership_to_next_active():
    table, wallet = make(("alice", "bob", "carol"))
    wallet.balances["alice"] = 0
    # alice cannot pay: bob and carol can, so the game starts and bob leads
    table.start("alice", 1.0)
    assert table.master == "bob" and table.current == "bob"
    assert not table.is_active("alice")


def test_between_games_wait_is_announced_in_seconds():
    table, wallet = started(("alice", "bob"))
    table.pass_("alice", 2.0)  # mastership passes to bob during the game
    # alice passed but still sits (inactive): bob must bet, then show his cards, then wins
    table.bet("bob", 1, 3.0)
    table.reveal("bob", 4.0)
    assert table.phase is Phase.IDLE
    # after the game the mastership moves on from bob: back to alice (chapter 2.2)
    assert table.master == "alice"
    with refused("wait 21 more seconds"):
        table.start("alice", 13.5)
    table.start("alice", 34.0)
    assert table.phase is Phase.BETTING


# --------------------------------------------------------------------------- betting

def test_bet_limits_call_and_raise_messages():
    table, wallet = started()
    assert table.bet_range("alice") == (1, 200)
    with refused("between 1 and 200"):
        table.bet("alice", 201, 2.0)
    with refused("between 1 and 200"):
        table.bet("alice", 0, 2.0)
    with refused("not your turn"):
        table.bet("bob", 5, 2.0)
    assert wallet.balances["alice"] == 990 and table.pot == 30
    ev = table.bet("alice", 1, 2.0)
    assert texts(ev)[0] == "alice has called the bet (1), pot is 31."
    assert wallet.balances["alice"] == 989
    assert table.bet_range("bob") == (1, 200)
    ev = table.bet("bob", 25, 3.0)
    assert texts(ev)[0] == "bob has raised the bet (25), pot is 56."
    assert table.bet_range("carol") == (25, 200)
    with refused("between 25 and 200"):
        table.bet("carol", 24, 4.0)


def test_a_bet_over_own_cubes_is_refused_with_the_range_and_charges_nothing():
    table, wallet = started()
    wallet.balances["alice"] = 40          # an admin took CUBES after the start
    with refused("between 1 and 40 CUBES"):
        table.bet("alice", 41, 2.0)
    assert wallet.balances["alice"] == 40 and table.pot == 30 and table.current == "alice"
    table.bet("alice", 40, 2.0)
    assert wallet.balances["alice"] == 0 and table.pot == 70
    wallet.balances["bob"] = 10            # an admin leaves bob below the minimum in his turn
    with refused("cannot bet: the minimum is 40 but you can bet at most 10"):
        table.bet("bob", 40, 3.0)
    assert wallet.balances["bob"] == 10 and table.pot == 70


def test_maximum_is_own_cubes_and_below_minimum_passes_automatically():
    table, wallet = started(("alice", "bob", "carol"))
    wallet.balances["carol"] = 30
    table.bet("alice", 50, 2.0)
    ev = table.bet("bob", 50, 3.0)
    # carol's maximum (30) is below the minimum (50): she is out, and everyone is told why
    assert not table.is_active("carol")
    assert any("carol cannot place the minimum bet (50)" in t for t in texts(ev))
    assert any(e.to == "carol" and e.kind == "cannot_bet" for e in ev)
    assert wallet.balances["carol"] == 30
    assert label(table) == "DISCARDING INTERVAL"


def test_pass_drops_cards_and_master_pass_moves_mastership_to_next_active():
    table, _ = started()
    ev = table.pass_("alice", 2.0)
    assert "alice has passed." in texts(ev)
    assert table.master == "bob" and table.current == "bob"
    assert not table.is_active("alice")


def test_turn_timeout_is_a_pass():
    table, wallet = started()
    assert table.deadline() == pytest.approx(61.0)
    assert table.tick(60.9) == []
    ev = table.tick(61.0)
    assert not table.is_active("alice")
    assert any("alice did not act within 1 minute" in t for t in texts(ev))
    assert table.current == "bob" and table.deadline() == pytest.approx(121.0)


def test_a_non_current_player_leaving_does_not_restart_the_clock():
    table, wallet = started()
    table.leave("carol", 30.0)
    assert table.current == "alice" and table.deadline() == pytest.approx(61.0)
    assert table.pot == 30 and wallet.balances["carol"] == 990  # money stays in the pot


# --------------------------------------------------------------------------- discarding

def test_discarding_interval_exchanges_up_to_three_cards_from_undealt_pack():
    table, _ = started()
    while label(table) == "1":
        table.bet(table.current, 1, 2.0)
    assert label(table) == "DISCARDING INTERVAL" and table.current == "alice"
    assert table.legal_actions("alice", 2.0) == (act.Discard,)
    hand = table.cards_of("alice")
    with refused("at most 3"):
        table.discard("alice", hand[:4], 3.0)
    other = table.cards_of("bob")[0]
    with refused("own hand"):
        table.discard("alice", [other], 3.0)
    with refused("discarding interval"):
        table.bet("alice", 1, 3.0)
    ev = table.discard("alice", hand[:2], 3.0)
    assert "alice has discarded 2 cards." in texts(ev)
    new = table.cards_of("alice")
    assert set(hand[2:]) <= set(new) and not set(hand[:2]) & set(new)
    assert [e.data["cards"] for e in ev if e.kind == "cards" and e.to == "alice"] == [new]
    table.discard("bob", table.cards_of("bob")[:3], 4.0)
    table.tick(4.0 + 60.0)  # carol times out: no exchange
    assert label(table) == "3" and table.current == "alice"
    everyone = [c for h in ("alice", "bob", "carol") for c in table.cards_of(h)]
    assert len(set(everyone)) == 15 and set(everyone) <= set(DECK)


# --------------------------------------------------------------------------- see hands, showdown

def test_see_hands_only_from_round_3():
    table, _ = started()
    with refused("from round 3"):
        table.bet("alice", 1, 2.0, see_hands=True)
    assert table.pot == 30


def test_see_hands_gives_everyone_one_more_turn_then_showdown_and_best_hand_wins():
    table, wallet = started()
    play_to_round3(table)
    table.bet("alice", 1, 5.0)
    assert act.SeeHands in table.legal_actions("bob", 5.0)
    ev = table.bet("bob", 5, 6.0, see_hands=True)
    assert any("bob wants to see hands" in t for t in texts(ev))
    assert table.current == "carol"
    assert act.SeeHands not in table.legal_actions("carol", 6.0)
    table.bet("carol", 5, 7.0)
    assert table.current == "alice"  # alice gets exactly one more turn
    ev = table.bet("alice", 5, 8.0)
    assert label(table) == "SHOWDOWN" and table.current == "alice"
    assert table.legal_actions("alice", 8.0) == (act.Reveal,)
    pot = table.pot
    hands = {h: evaluate(table.cards_of(h)) for h in ("alice", "bob", "carol")}
    winner = max(hands, key=hands.get)
    before = wallet.balances[winner]
    table.reveal("alice", 9.0)
    assert [s.revealed for s in table.seats()][0] is not None
    table.reveal("bob", 10.0)
    ev = table.tick(10.0 + 60.0)  # carol's reveal happens by itself, she stays in
    assert any(e.kind == "reveal" and e.handle == "carol" for e in ev)
    assert wallet.balances[winner] == before + pot
    assert any(t.startswith(f"{winner} wins the pot of {pot} CUBES with ") for t in texts(ev))
    assert table.phase is Phase.IDLE and table.master == "bob"  # next seated after alice
    assert all(s.revealed is not None for s in table.seats())  # cards stay on show
    game = wallet.games[table_game_id(wallet)]
    assert game["winner"] == winner and len(game["history"]["hands"]) == 3


def table_game_id(wallet):
    return max(wallet.games)


def test_see_hands_requester_last_in_round_gives_others_turns_into_next_lap():
    table, _ = started()
    play_to_round3(table)
    table.bet("alice", 1, 5.0)
    table.bet("bob", 1, 5.0)
    table.bet("carol", 1, 5.0, see_hands=True)
    assert table.current == "alice"
    table.pass_("alice", 6.0)
    table.bet("bob", 1, 7.0)
    assert label(table) == "SHOWDOWN"


def test_last_player_standing_with_nobody_inactive_wins_at_once():
    table, wallet = started(("alice", "bob"))
    table.leave("alice", 2.0)
    assert table.phase is Phase.IDLE
    assert wallet.balances["bob"] == 1010  # 990 + pot of 20


def test_last_player_with_inactive_seated_must_bet_then_show():
    table, wallet = started()
    table.pass_("alice", 2.0)
    table.pass_("bob", 3.0)
    assert table.current == "carol" and table.phase is Phase.BETTING
    table.bet("carol", 1, 4.0)
    assert label(table) == "SHOWDOWN" and table.current == "carol"
    ev = table.reveal("carol", 5.0)
    assert wallet.balances["carol"] == 990 - 1 + 31
    assert any("carol wins the pot of 31 CUBES" in t for t in texts(ev))


def test_last_player_who_already_bet_this_round_goes_to_showdown():
    table, _ = started()
    table.bet("alice", 3, 2.0)
    table.pass_("bob", 3.0)
    table.pass_("carol", 4.0)
    assert label(table) == "SHOWDOWN" and table.current == "alice"


def test_nobody_left_sends_pot_to_system():
    table, wallet = started()
    table.pass_("alice", 2.0)
    table.pass_("bob", 3.0)
    ev = table.tick(3.0 + 60.0)  # carol, the last, times out
    assert wallet.balances[SYSTEM] == 30
    assert any("the pot of 30 CUBES goes to the system" in t for t in texts(ev))
    assert table.phase is Phase.IDLE
    assert wallet.total() == 3000


def test_round_limit_starts_showdown_by_itself():
    table, _ = started(rules=Draw40Rules(max_round=5))
    play_to_round3(table)
    for _ in range(2):  # rounds 3 and 4
        for _ in range(3):
            table.bet(table.current, 1, 9.0)
    assert label(table) == "SHOWDOWN"


def test_round_limit_three_goes_from_discarding_straight_to_showdown():
    table, _ = started(rules=Draw40Rules(max_round=3))
    while label(table) == "1":
        table.bet(table.current, 1, 2.0)
    while label(table) == "DISCARDING INTERVAL":
        table.discard(table.current, [], 3.0)
    assert label(table) == "SHOWDOWN"


def test_dropped_player_during_their_turn_passes_the_turn_on():
    table, wallet = started()
    ev = table.leave("alice", 2.0, reason="lost_connection")
    assert "alice has lost the connection." in texts(ev)
    assert table.current == "bob" and table.master == "bob"
    assert table.pot == 30 and "alice" not in table.handles


def test_idle_for_two_complete_games_is_removed_from_table():
    table, wallet = make(("alice", "bob", "carol"))
    now = 0.0
    for game in range(2):
        master = table.master
        now += 31
        table.start(master, now)
        while table.phase is not Phase.IDLE:
            if table.current == "carol":
                now = table.deadline()
                ev = table.tick(now)
            else:
                h = table.current
                if act.Reveal in table.legal_actions(h, now):
                    ev = table.reveal(h, now)
                elif act.Discard in table.legal_actions(h, now):
                    ev = table.discard(h, [], now)
                elif act.SeeHands in table.legal_actions(h, now):
                    ev = table.bet(h, table.bet_range(h)[0], now, see_hands=True)
                else:
                    ev = table.bet(h, table.bet_range(h)[0], now)
        if game == 0:
            assert "carol" in table.handles
    assert "carol" not in table.handles
    assert any("carol was idle for 2 games" in t for t in texts(ev))


def test_hand_history_is_handed_to_the_wallet():
    table, wallet = started(("alice", "bob"))
    table.pass_("alice", 2.0)
    table.bet("bob", 1, 3.0)
    table.reveal("bob", 4.0)
    game = wallet.games[1]
    assert game["players"] == ["alice", "bob"] and len(game["deck_hash"]) == 64
    actions = [describe_operation(op, "draw40") for op in game["history"]["operations"]]
    assert actions[:2] == ["alice pays the ante (10)", "bob pays the ante (10)"]
    assert "round 1: alice passed" in actions
    assert game["winner"] == "bob"


# --------------------------------------------------------------------------- what the screens read

def seat_views(table):
    """(handle, active, revealed cards, game-master, in turn) of each occupied seat."""
    return [(s.handle, s.active, s.revealed, s.is_master, s.is_current) for s in table.seats()]


def test_seat_views_follow_turn_mastership_passes_and_revealed_hands():
    table, _ = make()
    assert seat_views(table) == [("alice", False, None, True, False),
                                 ("bob", False, None, False, False),
                                 ("carol", False, None, False, False)]
    table.start("alice", 1.0)
    assert seat_views(table) == [("alice", True, None, True, True),
                                 ("bob", True, None, False, False),
                                 ("carol", True, None, False, False)]
    table.pass_("alice", 2.0)            # the mastership moves on with the turn
    assert seat_views(table) == [("alice", False, None, False, False),
                                 ("bob", True, None, True, True),
                                 ("carol", True, None, False, False)]
    table.pass_("bob", 3.0)
    table.bet("carol", 1, 4.0)           # the last one in bets, then shows
    assert seat_views(table)[2] == ("carol", True, None, True, True)
    carol = table.cards_of("carol")
    table.reveal("carol", 5.0)           # carol wins; alice, next after her, is master
    assert seat_views(table) == [("alice", False, None, True, False),
                                 ("bob", False, None, False, False),
                                 ("carol", True, carol, False, False)]
    table.start("alice", 40.0)           # a new game hides the old hand
    assert seat_views(table) == [("alice", True, None, True, True),
                                 ("bob", True, None, False, False),
                                 ("carol", True, None, False, False)]


def test_every_hand_and_command_read_at_once_is_each_players_own():
    table, _ = make()
    assert table.hands() == {"alice": (), "bob": (), "carol": ()}
    assert table.all_actions() == {"alice": (act.Start,), "bob": (), "carol": ()}
    ev = table.start("alice", 1.0)
    dealt = {e.to: e.data["cards"] for e in ev if e.kind == "cards"}
    assert table.hands() == dealt and all(list(c) == sorted(c) for c in dealt.values())
    assert table.all_actions() == {"alice": (act.Bet, act.Pass), "bob": (), "carol": ()}
    while label(table) == "1":
        table.bet(table.current, 1, 2.0)
    assert table.all_actions() == {"alice": (act.Discard,), "bob": (), "carol": ()}
    ev = table.discard("alice", table.cards_of("alice")[:3], 3.0)
    assert table.hands()["alice"] == next(e.data["cards"] for e in ev if e.kind == "cards")
    table.discard("bob", [], 3.0)
    table.discard("carol", [], 3.0)
    assert table.all_actions()["alice"] == (act.Bet, act.SeeHands, act.Pass)


# --------------------------------------------------------------------------- wallet transactions

def test_on_the_ledger_a_start_and_an_end_are_one_commit_each_and_kept_after_reopen(tmp_path):
    """carol cannot pay the ante: the others are charged in the same transaction,
    she stays inactive; every row of the game is in the file when it is opened again."""
    path = tmp_path / "table.db"
    with Ledger(path) as ledger:
        for handle, cubes in (("alice", 1000), ("bob", 1000), ("carol", 5)):
            ledger.create_account(handle, "h", cubes)
        table = Draw40(ledger, Draw40Rules(), rng=random.Random(1))
        for handle in ("alice", "bob", "carol"):
            table.sit(handle, 0.0)
        statements: list[str] = []
        ledger._db.set_trace_callback(statements.append)
        ev = table.start("alice", 1.0)
        assert statements.count("COMMIT") == 1
        assert table.is_active("alice") and table.is_active("bob")
        assert not table.is_active("carol")
        assert any(e.to == "carol" and "ante" in text(e) for e in ev)
        gid = table.game_id
        with Ledger(path) as other:                # another connection sees the whole start
            assert other.game(gid).pot == 20 and other.balance("carol") == 5
        table.pass_("alice", 2.0)
        table.bet("bob", 1, 3.0)
        statements.clear()
        table.reveal("bob", 4.0)                   # bob, the last player, wins
        assert statements.count("COMMIT") == 1
    with Ledger(path) as ledger:
        rows = [(r.handle, r.amount, r.reason) for r in ledger.journal_since(0) if r.game_id == gid]
        assert rows == [("alice", -10, "ante"), ("bob", -10, "ante"), ("bob", -1, "bet"),
                        ("bob", 21, "win")]
        game = ledger.game(gid)
        assert (game.players, game.winner, game.pot) == (["alice", "bob", "carol"], "bob", 0)
        assert (ledger.balance("alice"), ledger.balance("bob"), ledger.balance("carol")) == (
            990, 990 - 1 + 21, 5)
        assert ledger.verify() == []


def test_on_the_ledger_a_start_refused_for_want_of_antes_writes_nothing(tmp_path):
    """Only alice has the ante: the start is refused with the reason, and the ledger holds
    no game, no journal row and the same balances; once bob has CUBES the game starts."""
    with Ledger(tmp_path / "table.db") as ledger:
        ledger.create_account("alice", "h", 1000)
        ledger.create_account("bob", "h", 9)
        table = Draw40(ledger, Draw40Rules(), rng=random.Random(1))
        for handle in ("alice", "bob"):
            table.sit(handle, 0.0)
        with refused("two players with 10 CUBES"):
            table.start("alice", 1.0)
        assert ledger.list_games() == [] and {r.reason for r in ledger.journal_since(0)} == {"signup"}
        assert (ledger.balance("alice"), ledger.balance("bob")) == (1000, 9)
        assert table.phase is Phase.IDLE and ledger.verify() == []
        ledger.grant("bob", 1, "test", "sysop")
        table.start("alice", 2.0)
        assert table.pot == 20 and ledger.balance("bob") == 0


def test_a_lone_master_is_told_two_players_are_needed_without_touching_the_ledger(tmp_path):
    with Ledger(tmp_path / "table.db") as ledger:
        ledger.create_account("alice", "h")
        table = Draw40(ledger, Draw40Rules(), rng=random.Random(1))
        table.sit("alice", 0.0)
        statements: list[str] = []
        ledger._db.set_trace_callback(statements.append)
        with refused("two players with 10 CUBES"):
            table.start("alice", 1.0)
        assert statements == [] and table.phase is Phase.IDLE  # no write lock taken


def break_wallet(wallet, method, call_no):
    """Make the ``call_no``-th call of ``wallet.method`` fail as a broken disk would."""
    real, calls = getattr(wallet, method), itertools.count(1)

    def broken(*args):
        if next(calls) == call_no:
            raise sqlite3.OperationalError("disk I/O error")
        return real(*args)
    setattr(wallet, method, broken)


def test_a_start_the_wallet_fails_charges_nobody_and_leaves_the_table_as_it_was():
    table, wallet = make(("alice", "bob", "carol"))
    break_wallet(wallet, "pay_into_pot", 2)          # bob's ante
    with pytest.raises(sqlite3.OperationalError):
        table.start("alice", 1.0)
    assert wallet.balances == {"alice": 1000, "bob": 1000, "carol": 1000}
    assert wallet.journal == [] and wallet.games == {} and wallet.pots == {}
    assert table.phase is Phase.IDLE and table.game_id is None and table.pot is None
    assert not any(table.is_active(h) or table.cards_of(h) for h in ("alice", "bob", "carol"))
    del wallet.pay_into_pot                          # the disk is back
    table.start("alice", 2.0)
    assert table.game_id == 1 and table.pot == 30
    assert wallet.balances == {"alice": 990, "bob": 990, "carol": 990}


def test_an_end_the_wallet_fails_pays_nothing_out_and_keeps_the_game():
    table, wallet = started(("alice", "bob"))
    break_wallet(wallet, "close_game", 1)
    table.pass_("alice", 2.0)
    table.bet("bob", 1, 3.0)
    with pytest.raises(sqlite3.OperationalError):
        table.reveal("bob", 4.0)
    assert wallet.balances == {"alice": 990, "bob": 989}    # the pot of 21 is not paid
    assert wallet.pots == {1: 21} and not wallet.games[1]["closed"]
    assert wallet.total() == 2000 and wallet.journal[-1][3] == "bet"
    assert table.game_id == 1


# --------------------------------------------------------------- a tournament table

def tournament(chips, ante=10, max_bet=200, seed=1, between=5.0):
    """(table, wallet): a draw40 tournament table, p1..pn seated with ``chips[i]`` chips
    in the tournament's wallet (their balances); no game yet."""
    handles = [f"p{i + 1}" for i in range(len(chips))]
    wallet = MemoryWallet(dict(zip(handles, chips)) | {SYSTEM: 0})
    table = Draw40(wallet, Draw40Rules(ante=ante, max_bet=max_bet, between_games=between,
                                       tournament=True), rng=random.Random(seed))
    for h in handles:
        table.apply(h, act.Sit(), 0.0)
    return table, wallet


def play_out(table, now, choose=None):
    """Play the running game to its end: each player in turn takes ``choose(handle)``
    (default: calls the minimum, keeps the cards, asks to see hands in round 3,
    reveals); returns every event."""
    events = []
    while table.game_id is not None:
        h = table.current
        legal = table.legal_actions(h, now)
        action = choose(h, legal) if choose else None
        if action is None:
            action = (act.SeeHands(table.bet_range(h)[0]) if act.SeeHands in legal
                      else act.Bet(table.bet_range(h)[0]) if act.Bet in legal
                      else act.Discard(()) if act.Discard in legal else act.Reveal())
        events += table.apply(h, action, now)
    return events


def test_a_draw40_tournament_seat_takes_the_chips_and_only_the_director_stands_up():
    table, wallet = tournament([300, 300])
    wallet.balances["cy"] = 0
    for who, action, code in (("cy", act.Sit(), "no_tournament_chips"),
                              ("zed", act.Sit(), "no_tournament_chips"),
                              ("cy", act.Sit(buy_in=100), "tournament_seat"),
                              ("p1", act.Leave(), "tournament_seat"),
                              ("p1", act.Start(), "unknown_action")):
        with pytest.raises(RuleError) as err:
            table.apply(who, action, 1.0)
        assert err.value.code == code
    assert table.legal_actions(table.master, 1.0) == ()       # no [S]: it starts by itself
    assert table.tick(4.9) == [] and table.game_id is None
    events = table.tick(5.0)
    assert events[0].kind == "started" and table.pot == 20
    playing = table.current
    other = "p2" if playing == "p1" else "p1"
    with pytest.raises(RuleError) as err:
        table.remove(playing, 6.0)
    assert err.value.code == "in_hand"
    events = play_out(table, 6.0)
    over = [e for e in events if e.kind == "hand_over"]
    assert over and over[0].data["game_id"] == 1
    history = wallet.games[1]["history"]
    assert history["starting_stacks"] == {"p1": 300, "p2": 300}
    assert table.remove(other, 7.0)[0].kind == "left"
    assert table.handles == [playing] and wallet.total() == 600


def test_a_draw40_tournament_deals_by_itself_between_games_at_the_stakes_set():
    table, wallet = tournament([500, 500, 500])
    table.tick(5.0)
    table.set_stakes(50, 25)                    # a level rose: from the next game
    assert table.pot == 30
    play_out(table, 6.0)
    assert table.deadline() == 6.0 + 5.0
    assert table.tick(10.9) == []
    table.tick(11.0)
    assert table.pot == 75 and table.rules.max_bet == 50
    assert table.bet_range(table.current) == (1, 50)
    with pytest.raises(ValueError):
        table.set_stakes(50, 0)                # an ante of at least 1


def test_a_draw40_tournament_player_short_of_the_ante_is_all_in_for_it():
    """p1 antes its 4 chips and bets no more; the others bet on. p1 can win only the
    4 chips it matched from each (12); the rest is the others' to win."""
    outcomes = set()
    for seed in range(1, 40):
        table, wallet = tournament([4, 300, 300], seed=seed)
        table.tick(5.0)
        assert table.pot == 24
        events = play_out(table, 6.0)
        bets = [op for op in table.operations if op.kind == "bet"]
        assert bets and all(op.handle != "p1" for op in bets)
        assert "p1" in [op.handle for op in table.operations if op.kind == "reveal"]
        won = {e.handle: e.data["pot"] for e in events if e.kind == "won"}
        if "p1" in won:
            assert wallet.balances["p1"] == won["p1"] == 12 and len(won) == 2
            outcomes.add("short won")
        else:
            assert wallet.balances["p1"] == 0 and len(won) == 1
            outcomes.add("short lost")
        assert wallet.balances["p2"] + wallet.balances["p3"] == 604 - wallet.balances["p1"]
        assert wallet.balances[SYSTEM] == 0
    assert outcomes == {"short won", "short lost"}


def test_a_draw40_tournament_all_in_for_less_than_the_minimum_keeps_the_minimum():
    table, wallet = tournament([100, 40, 400])
    table.tick(5.0)
    assert table.current == "p1"                    # the master, the first to sit
    table.apply("p1", act.Bet(60), 6.0)
    assert table.bet_range("p2") == (30, 30)        # all its 30 chips, below the 60
    with pytest.raises(RuleError) as err:
        table.apply("p2", act.Bet(20), 6.0)
    assert err.value.code == "bet_range"
    table.apply("p2", act.Bet(30), 6.0)
    assert table.current == "p3" and table.bet_range("p3") == (60, 200)
    play_out(table, 7.0)
    assert wallet.total() == 540 and wallet.balances[SYSTEM] == 0


def test_a_draw40_tournament_player_away_is_dealt_in_and_passes_at_once():
    table, wallet = tournament([300, 300, 300])
    events = table.apply("p2", act.Leave("lost_connection"), 1.0)
    assert [e.kind for e in events] == ["sit_out"] and table.handles == ["p1", "p2", "p3"]
    assert [s.out for s in table.seats()] == [False, True, False]
    for n in range(3):                          # no idle rule either
        table.tick(table.deadline())
        assert "p2" in [op.handle for op in table.operations if op.kind == "ante"]
        seen = []
        play_out(table, table.deadline() or 0.0, lambda h, legal: seen.append(h) or None)
        assert "p2" not in seen
        assert table.handles == ["p1", "p2", "p3"]
    assert wallet.balances["p2"] == 270 and wallet.total() == 900
    assert table.apply("p2", act.SitOut(out=False), 99.0)[0].kind == "sit_in"


def test_a_draw40_tournament_game_goes_to_the_last_player_left():
    """No pot to the system at a tournament table: a pass that leaves one player ends
    the game, the others seated or not."""
    table, wallet = tournament([300, 300, 300])
    table.tick(5.0)
    table.apply(table.current, act.Pass(), 6.0)
    events = table.apply(table.current, act.Pass(), 6.0)
    assert [e.kind for e in events if e.kind in ("won", "hand_over")] == ["won", "hand_over"]
    assert wallet.balances[SYSTEM] == 0 and wallet.total() == 900


def test_a_busted_draw40_tournament_player_stays_seated_and_is_dealt_no_more():
    table, wallet = tournament([300, 300, 300])
    wallet.balances["p3"] = 0
    table.tick(5.0)
    assert "p3" not in [op.handle for op in table.operations if op.kind == "ante"]
    assert table.handles == ["p1", "p2", "p3"] and table.pot == 20
