"""Fixed-limit Texas Hold'em (issue 16) as the Finnish design ``verkkopokeri-fi.txt``
specifies it: its worked examples move for move, heads-up, the split pots of its hand
section, buy-in and cash-out, timeouts, and hands played to the end with CUBES conserved."""

from __future__ import annotations

import random

import pytest

from bbspoker.rules import actions as act
from bbspoker.rules.cards import STANDARD52, from_standard
from bbspoker.rules.events import Event, RuleError
from bbspoker.rules.holdem import Holdem, HoldemRules, Street
from bbspoker.rules.money import SYSTEM
from bbspoker.store.wallet import MemoryWallet
from tests.support.paths import ROOT

FOLD, CALL, RAISE = act.Pass(), act.CheckCall(), act.BetRaise()


def stacked(holes: list[str], board: str = "") -> list[str]:
    """A deck, top card first, that deals ``holes`` (one "AsKd" string per player in
    dealing order: the seat after the button first) and then ``board`` (standard notation,
    e.g. "5s5dJcJhQs"), a burn card before the flop, the turn and the river; the other
    cards follow in any order."""
    split = lambda text: [text[i:i + 2] for i in range(0, len(text), 2)]  # noqa: E731
    first = [split(h)[0] for h in holes] + [split(h)[1] for h in holes]
    board_cards = split(board)
    used = set(first) | set(board_cards)
    rest = [c for c in STANDARD52.standard_cards() if c not in used]
    burns, rest = rest[:3], rest[3:]
    order = first
    if board_cards:
        order += [burns[0], *board_cards[:3], burns[1], *board_cards[3:4], burns[2],
                  *board_cards[4:5]]
    else:
        rest = burns + rest
    return [from_standard(c) for c in order + rest]


def table(n: int, *, deck: list[str] | None = None, cubes: int = 1000,
          stacks: list[int] | None = None, **rules) -> tuple:
    """(game, wallet): ``n`` players p1..pn with ``cubes`` each, seated in that order at a
    10/20 table with a stack of ``cubes`` (or ``stacks[i]``); the first hand is dealt
    (button p1)."""
    handles = [f"p{i + 1}" for i in range(n)]
    wallet = MemoryWallet({h: cubes for h in handles} | {SYSTEM: 0})
    game = Holdem(wallet, HoldemRules(**{"buy_in_max": cubes, **rules}), rng=random.Random(n),
                  deck=None if deck is None else (lambda seal, gid: list(deck)))
    for i, h in enumerate(handles):
        game.apply(h, act.Sit(buy_in=stacks[i] if stacks else None), 0.0)
    game.tick(game.deadline())
    return game, wallet


def play(game: Holdem, *moves: tuple[str, act.Action]) -> list:
    """Apply ``(handle, action)`` in order, each checked to be in turn; all the events."""
    events = []
    for handle, action in moves:
        assert game.current == handle, f"{game.current} in turn, not {handle}"
        events += game.apply(handle, action, 1.0)
    return events


def bets(game: Holdem) -> dict[str, int]:
    return {s.handle: s.bet for s in game.seats()}


def test_the_nine_player_preflop_example_ends_capped_at_forty():
    """Rules section, preflop: 10/20, nine players. UTG raises to 20, seats 4-6 fold,
    seat 7 re-raises to 30, seat 8 calls 30, the button folds, the small blind calls (25
    more), the big blind re-raises to 40: capped, and the turn goes back to UTG, who may
    only fold or call."""
    game, _ = table(9)
    # Button p1, small blind p2 (5), big blind p3 (10), UTG p4 = "seat 3" of the text.
    assert game.button == "p1" and bets(game)["p2"] == 5 and bets(game)["p3"] == 10
    assert game.current == "p4" and game.to_call("p4") == 10 and game.raise_to("p4") == 20
    play(game, ("p4", RAISE), ("p5", FOLD), ("p6", FOLD), ("p7", FOLD), ("p8", RAISE),
         ("p9", CALL), ("p1", FOLD), ("p2", CALL))
    assert bets(game) == {"p1": 0, "p2": 30, "p3": 10, "p4": 20, "p5": 0, "p6": 0, "p7": 0,
                          "p8": 30, "p9": 30}
    assert game.raise_to("p3") == 40
    play(game, ("p3", RAISE))
    assert game.current == "p4" and game.to_call("p4") == 20
    assert act.BetRaise not in game.legal_actions("p4", 1.0)        # one bet, three raises
    with pytest.raises(RuleError) as err:
        game.apply("p4", RAISE, 1.0)
    assert err.value.code == "capped"
    play(game, ("p4", CALL), ("p8", CALL), ("p9", CALL), ("p2", CALL))
    assert game.street is Street.FLOP and len(game.community) == 3
    assert game.pot_total == 5 * 40


def test_the_flop_example_small_blind_may_check_raise():
    """Flop: the small blind, the big blind and the dealer are left. The small blind
    checks, the big blind bets 10 (one small bet), the dealer calls; the small blind may
    now raise to 20, call or fold."""
    game, _ = table(3)      # button p1, small blind p2, big blind p3
    play(game, ("p1", CALL), ("p2", CALL), ("p3", CALL))
    assert game.street is Street.FLOP and game.current == "p2"   # the small blind first
    assert game.legal_actions("p2", 1.0)[:2] == (act.CheckCall, act.BetRaise)  # no fold
    play(game, ("p2", CALL), ("p3", RAISE), ("p1", CALL))
    assert bets(game) == {"p1": 10, "p2": 0, "p3": 10} and game.current == "p2"
    assert game.to_call("p2") == 10 and game.raise_to("p2") == 20
    play(game, ("p2", RAISE), ("p3", CALL), ("p1", CALL))
    assert game.street is Street.TURN


def test_the_turn_and_river_examples_in_big_bets_and_the_loser_may_muck():
    """Turn: only the big blind and the dealer are left; the big blind bets 20 (one big
    bet), the dealer raises to 40, the big blind calls. River: the big blind checks, the
    dealer bets 20, the big blind calls; the dealer's hand is shown automatically and the
    big blind, who only called and loses, need not show."""
    # Dealing order p2 (small blind), p3 (big blind), p1 (button).
    game, wallet = table(3, deck=stacked(["7c2d", "9h8h", "AsAd"], "AhKd4c3s2h"))
    play(game, ("p1", CALL), ("p2", FOLD), ("p3", CALL))
    assert game.current == "p3"            # after the flop the big blind speaks first
    play(game, ("p3", CALL), ("p1", CALL))
    assert game.street is Street.TURN
    play(game, ("p3", RAISE), ("p1", RAISE), ("p3", CALL))
    assert game.street is Street.RIVER and bets(game) == {"p1": 0, "p2": 0, "p3": 0}
    events = play(game, ("p3", CALL), ("p1", RAISE), ("p3", CALL))
    assert game.street is Street.IDLE
    kinds = [(e.kind, e.handle) for e in events if e.kind in ("show", "muck", "won")]
    assert ("show", "p1") in kinds and ("muck", "p3") in kinds and ("won", "p1") in kinds
    pot = 5 + 10 + 10 + 40 * 2 + 20 * 2
    assert game.payouts() == {"p1": pot}
    assert game.stack("p1") == 1000 - 70 + pot and game.stack("p3") == 1000 - 70
    assert wallet.total() == 3000


def test_heads_up_the_button_posts_the_small_blind_and_speaks_first_preflop():
    """Heads-up: the button posts the small blind and acts first preflop; after the flop
    the big blind speaks first; the button moves each hand."""
    game, _ = table(2)
    button = game.button
    other = "p2" if button == "p1" else "p1"
    assert bets(game) == {button: 5, other: 10}
    assert game.current == button
    play(game, (button, CALL), (other, CALL))
    assert game.street is Street.FLOP and game.current == other
    play(game, (other, RAISE), (button, FOLD))
    game.tick(game.deadline())                   # the next hand, 5 s later
    assert game.button == other and game.current == other and bets(game)[other] == 5


@pytest.mark.parametrize("first, second, result", [
    ("AsKh", "Ad4c", "split"),      # both play 5 5 J J A
    ("3s3h", "4d4c", "split"),      # the board plays: 5 5 J J Q
    ("AcKs", "6s6h", "second"),     # J J 6 6 Q beats J J 5 5 A
    ("Ah5h", "AdJs", "second"),     # J J J 5 5 beats 5 5 5 J J
])
def test_the_hand_sections_split_pot_examples(first, second, result):
    """Board 5 5 J J Q (the text's): AK and A4 split, 33 and 44 split (the board plays),
    66 beats AK, AJ beats A5."""
    game, wallet = table(2, deck=stacked([first, second], "5s5dJcJhQs"))
    # Heads-up: dealing starts with the big blind (player 0, p2), the button p1 second.
    big, button = "p2", "p1"
    play(game, (button, CALL), (big, CALL))
    for _ in range(3):
        play(game, (big, CALL), (button, CALL))
    assert game.street is Street.IDLE
    got = game.payouts()
    if result == "split":
        assert got == {big: 10, button: 10}
    else:
        assert got == {button: 20}
    assert wallet.total() == 2000


def test_a_short_all_in_makes_a_side_pot():
    """Table stakes: a player who cannot match is all-in for what they have; the others
    play on for a side pot that the all-in player cannot win."""
    # Dealing order p2 (small blind), p3 (big blind), p1 (button).
    game, wallet = table(3, deck=stacked(["AsAd", "KsKd", "2c7d"], "Ah9c4d3s8h"),
                         stacks=[400, 25, 400], buy_in_min=20)
    play(game, ("p1", RAISE), ("p2", CALL), ("p3", CALL))
    assert game.stack("p2") == 5
    play(game, ("p2", CALL), ("p3", RAISE), ("p1", CALL), ("p2", CALL))
    seats = {s.handle: s for s in game.seats()}
    assert seats["p2"].all_in and seats["p2"].stack == 0
    assert game.street is Street.TURN and sorted(game.pots) == [10, 75]
    play(game, ("p3", CALL), ("p1", CALL), ("p3", CALL), ("p1", CALL))
    assert game.payouts() == {"p2": 75, "p3": 10}     # aces take the main pot only
    assert (game.stack("p2"), game.stack("p3"), game.stack("p1")) == (75, 380, 370)
    assert wallet.total() == 3 * 1000      # every player came with 1,000 CUBES


def test_buy_in_is_bounded_and_moves_cubes_to_the_stack_and_back():
    wallet = MemoryWallet({"ann": 5000, "bob": 150, SYSTEM: 0})
    game = Holdem(wallet, HoldemRules(), rng=random.Random(1))
    with pytest.raises(RuleError) as err:
        game.apply("ann", act.Sit(buy_in=5000), 0.0)
    assert err.value.code == "buy_in_range" and err.value.params == {"low": 200, "high": 1000}
    with pytest.raises(RuleError) as err:
        game.apply("bob", act.Sit(), 0.0)
    assert err.value.code == "buy_in_short" and wallet.balance("bob") == 150
    game.apply("ann", act.Sit(buy_in=300), 0.0)
    assert wallet.balance("ann") == 4700 and game.stack("ann") == 300
    events = game.apply("ann", act.Leave(), 0.0)
    assert events[-1].data["cash_out"] == 300 and wallet.balance("ann") == 5000


def test_a_turn_that_times_out_folds_or_checks_when_checking_is_free():
    game, _ = table(3)
    due = game.deadline()
    assert due == 5.0 + 60.0
    events = game.tick(due)
    assert [(e.kind, e.handle, e.data.get("timeout")) for e in events][0] == ("fold", "p1", True)
    play(game, ("p2", CALL))
    events = game.tick(game.deadline())           # the big blind may check: it checks
    assert ("check", "p3") in [(e.kind, e.handle) for e in events]
    assert game.street is Street.FLOP


def test_a_player_who_waited_alone_gets_a_whole_turn_when_the_second_one_sits():
    """The first hand is dealt ``between_hands`` after the second player sits, whatever
    time the first one spent alone: its first turn has the whole ``turn_timeout`` (a
    deal time set when the first sat used to be kept: the first turn's clock then showed
    what was left of it, and after a minute alone the first player to act was folded by
    the clock at once)."""
    wallet = MemoryWallet({"alice": 1000, "bob": 1000, SYSTEM: 0})
    game = Holdem(wallet, HoldemRules(buy_in_max=1000), rng=random.Random(1))
    game.apply("alice", act.Sit(), 0.0)
    assert game.deadline() is None                 # alone: no hand is coming
    game.apply("bob", act.Sit(), 300.0)            # five minutes later
    assert game.deadline() == 305.0
    events = game.tick(305.0)
    assert "timeout" not in str([e.data for e in events])
    assert game.current is not None and game.deadline() == 305.0 + 60.0
    assert game.tick(364.0) == []                  # nobody timed out before the minute


def test_random_hands_conserve_cubes_and_end_with_pokerkits_stacks():
    rng = random.Random(5)
    game, wallet = table(4, cubes=300, buy_in_min=20)
    for _ in range(200):
        while game.street is not Street.IDLE:
            h = game.current
            choice = rng.choice(game.legal_actions(h, 1.0)[:-1])
            game.apply(h, choice(), 1.0)
        assert wallet.total() == 1200
        assert sum(s.stack for s in game.seats()) + sum(wallet.balances.values()) == 1200
        if game.deadline() is None:
            break
        game.tick(game.deadline())


def test_a_hand_in_phh_replays_in_pokerkit_to_the_same_stacks():
    from pokerkit import HandHistory
    game, wallet = table(3, deck=stacked(["7c2d", "9h8h", "AsAd"], "AhKd4c3s2h"))
    play(game, ("p1", RAISE), ("p2", CALL), ("p3", CALL), ("p2", CALL), ("p3", RAISE),
         ("p1", RAISE), ("p2", FOLD), ("p3", CALL))
    while game.street is not Street.IDLE:
        play(game, (game.current, CALL))
    record = wallet.games[1]["history"]
    hh = HandHistory.loads(record["phh"])
    assert hh.players == ["p2", "p3", "p1"] and hh.hand == 1
    assert "d dh p3 AsAd" in hh.actions and "d db Ah" + "Kd4c" in hh.actions
    for state in hh:
        pass
    assert dict(zip(hh.players, state.stacks)) == record["stacks"] == {
        h: game.stack(h) for h in ("p1", "p2", "p3")}


def test_the_crosscheck_against_pokerkit_alone_short_run():
    """scripts/holdem_crosscheck.py (issue 16's >= 10,000 hands) in a short run: random
    hands through the table, its seating and buy-ins on a real ledger, each replayed from
    its PHH in pokerkit alone to the same stacks; the ledger verifies clean."""
    import subprocess
    import sys
    from pathlib import Path
    script = ROOT / "scripts" / "holdem_crosscheck.py"
    done = subprocess.run([sys.executable, str(script), "--hands", "300", "--seed", "3"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("300 hands, ") and "ledger verify clean" in done.stdout


def test_a_hands_record_verifies_against_its_fair_deck_and_a_changed_card_is_found():
    """Issue 20 for Hold'em: the hole cards (dealt one at a time round the table, twice),
    the burns and the board are the published deck's, as games verify checks."""
    from bbspoker.rules.audit import verify_deal
    game, wallet = table(4)
    while game.street is not Street.IDLE:
        play(game, (game.current, CALL))
    entry = wallet.games[1]
    seal, ops = entry["seal"], entry["history"]["operations"]
    verdict = verify_deal("holdem", 1, seal.server_seed, seal.commitment, seal.client_seeds, ops)
    assert verdict.ok and verdict.checked >= 4 * 2 + 3 + 5
    board = next(op for op in ops if op["op"] == "board" and op["street"] == "turn")
    changed = [dict(op, cards="2+") if op is board else op for op in ops]
    bad = verify_deal("holdem", 1, seal.server_seed, seal.commitment, seal.client_seeds, changed)
    assert not bad.ok and bad.mismatches[0].what == "draw"


def test_games_show_phh_prints_a_hand_that_pokerkit_replays_to_the_same_stacks(
        tmp_path, monkeypatch, capsys):
    """Issue 16: `bbspoker games show N --phh` prints a hand in PHH; parsed back with
    pokerkit and replayed, it ends with the stacks the ledger holds."""
    from pokerkit import HandHistory

    from bbspoker.cli import main
    from bbspoker.store.sqlite import Ledger
    from bbspoker.table.registry import TableWallet
    ledger = Ledger(tmp_path / "phh.db")
    for h in ("ann", "bob", "cy"):
        ledger.create_account(h, None, 1000)
    game = Holdem(TableWallet(ledger, "hold"), HoldemRules(), rng=random.Random(4))
    for h, buy_in in (("ann", 300), ("bob", 500), ("cy", 1000)):
        game.apply(h, act.Sit(buy_in=buy_in), 0.0)
    game.tick(game.deadline())
    gid = game.game_id
    rng = random.Random(2)
    while game.street is not Street.IDLE:
        h = game.current
        game.apply(h, rng.choice(game.legal_actions(h, 1.0)[:-1])(), 1.0)
    ledger.commit_pending()
    monkeypatch.setenv("BBSPOKER_DB", str(tmp_path / "phh.db"))
    assert main(["games", "show", str(gid), "--phh"]) == 0
    hh = HandHistory.loads(capsys.readouterr().out)
    for state in hh:
        pass
    assert hh.starting_stacks == [{"ann": 300, "bob": 500, "cy": 1000}[p] for p in hh.players]
    assert dict(zip(hh.players, state.stacks)) == {h: ledger.stack(h, table="hold")
                                                   for h in hh.players}
    assert main(["games", "show", str(gid)]) == 0
    assert "commitment:" in capsys.readouterr().out
    # Per-user results count Hold'em hands too (the blinds are what was paid in).
    ops = ledger.game(gid).history["operations"]
    paid = {op["handle"] for op in ops if op["op"] in ("blind", "call", "bet", "raise")}
    assert paid
    for h in ("ann", "bob", "cy"):
        played = {st.table: st.played for st in ledger.stats(h)}.get("hold", 0)
        assert played == (1 if h in paid else 0)
    ledger.close()


def test_a_crash_mid_hand_gives_the_bets_back_to_the_stacks_and_cashes_them_out(tmp_path):
    """Issue 16: a crash mid-hand refunds the hand's blinds and bets as for draw40; the
    tables start empty after a restart, so every stack goes back to its owner's CUBES."""
    from bbspoker.store.sqlite import Ledger
    from bbspoker.table.registry import TableWallet
    ledger = Ledger(tmp_path / "crash.db")
    for h in ("ann", "bob"):
        ledger.create_account(h, None, 1000)
    game = Holdem(TableWallet(ledger, "hold"), HoldemRules(), rng=random.Random(9))
    game.apply("ann", act.Sit(buy_in=400), 0.0)
    game.apply("bob", act.Sit(buy_in=600), 0.0)
    game.tick(game.deadline())
    gid = game.game_id
    game.apply(game.current, RAISE, 1.0)
    ledger.commit_pending()
    assert ledger.balance("ann") == 600 and ledger.stack("ann", table="hold") < 400
    ledger.close()                                   # the process dies mid-hand
    ledger = Ledger(tmp_path / "crash.db")
    assert ledger.recover_unfinished_games(2.0) == [gid]
    assert (ledger.balance("ann"), ledger.balance("bob")) == (1000, 1000)
    assert ledger.stack("ann", table="hold") == ledger.stack("bob", table="hold") == 0
    assert ledger.verify() == [] and ledger.totals().stacks == 0
    notes = ledger.notices("ann")
    assert any("went back to your stack at table hold" in n.text for n in notes)
    assert any("Your stack of 400 CUBES at table hold was cashed out" in n.text for n in notes)
    assert ledger.game(gid).server_seed is not None
    ledger.close()


def test_a_table_that_stops_dealing_lets_the_hand_finish_and_deals_no_more():
    """Server shutdown: the hand in play may finish, no new one is dealt (hands come by
    the clock, not by a game-master whose start the shutting-down table refuses)."""
    game, _ = table(2)
    game.stop_dealing()
    assert game.game_id == 1 and game.deadline() is not None      # the turn clock runs on
    while game.street is not Street.IDLE:
        play(game, (game.current, FOLD if act.Pass in game.legal_actions(game.current, 1.0)
                    else CALL))
    assert game.deadline() is None and game.tick(10_000.0) == [] and game.game_id is None


# ------------------------------------------------------- found by review (issue 16)


def test_folding_when_checking_is_free_is_refused_and_a_leaver_checks():
    """With a short stack all-in, two players who 'fold' a free check would leave a side
    pot nobody can win (pokerkit then cannot end the hand, and the table froze)."""
    game, wallet = table(3, stacks=[200, 200, 15], buy_in_min=10)
    # Dealing order p2 (SB), p3 (BB, 15: all-in for 15 when raised), p1 (button).
    play(game, ("p1", RAISE), ("p2", CALL), ("p3", CALL))
    assert game.street is Street.FLOP and game.stack("p3") == 0
    with pytest.raises(RuleError) as err:
        game.apply("p2", FOLD, 1.0)
    assert err.value.code == "check_free"
    events = game.apply("p2", act.Leave(), 1.0)              # in turn, free: a check
    assert ("check", "p2") in [(e.kind, e.handle) for e in events]
    game.apply("p1", act.Leave(), 1.0)                       # out of turn: checks in turn
    for _ in range(10):
        if game.street is Street.IDLE:
            break
        if game.current:
            game.apply(game.current, CALL, 1.0)
    assert game.street is Street.IDLE and game.handles == ["p3"]
    assert wallet.total() == 3 * 1000


def test_a_player_who_leaves_and_sits_again_in_the_same_hand_keeps_the_new_stack():
    game, wallet = table(3)
    play(game, ("p1", FOLD))
    game.apply("p1", act.Leave(), 1.0)                       # folded: stands up at once
    assert wallet.balance("p1") == 1000
    game.apply("p1", act.Sit(buy_in=200), 1.0)               # back, smaller, mid-hand
    assert game.stack("p1") == 200 == wallet.stack("p1")
    assert game.hole_cards("p1") == () and game.legal_actions("p1", 1.0) == (act.SitOut,)
    while game.street is not Street.IDLE:
        play(game, (game.current, CALL))
    assert game.stack("p1") == 200 == wallet.stack("p1")
    game.tick(game.deadline())                               # p1 is dealt in again
    assert len(game.hole_cards("p1")) == 2 and wallet.total() == 3000


def test_a_hand_called_off_stands_up_those_who_left_and_cashes_their_refunds_out():
    game, wallet = table(3)
    play(game, ("p1", RAISE))
    game.apply("p1", act.Leave(), 1.0)        # p1 raised: still in the hand, leaving
    assert "p1" in game.handles
    events = game.cancel(2.0, "shutdown")
    assert [e for e in events if e.kind == "left" and e.handle == "p1"]
    assert "p1" not in game.handles and wallet.stack("p1") == 0
    assert wallet.balance("p1") == 1000 and wallet.total() == 3000
    for h in ("p2", "p3"):                    # the others have their blinds back
        assert game.stack(h) == wallet.stack(h) == 1000


def test_the_record_names_the_street_an_action_was_taken_in():
    game, wallet = table(2)
    play(game, ("p1", CALL), ("p2", CALL))      # the big blind's check closes preflop
    check = [op for op in game.operations if op.kind == "check"]
    assert check[0].data["street"] == "preflop" and game.street is Street.FLOP


def test_a_busted_player_is_told_how_to_play_on():
    # Heads-up the big blind p2 is dealt first: 7c 2d against p1's aces.
    game, wallet = table(2, deck=stacked(["7c2d", "AsAd"], "KhQh3c4s9d"), stacks=[1000, 20],
                         buy_in_min=10)
    while game.street is not Street.IDLE:         # p1 raises everything: p2 calls all-in
        h = game.current
        game.apply(h, RAISE if h == "p1" and act.BetRaise in game.legal_actions(h, 1) else CALL, 1)
    assert game.stack("p2") == 0 and game.stack("p1") == 1020
    assert next(s for s in game.seats() if s.handle == "p2").out      # busted: sits out
    with pytest.raises(RuleError) as err:
        game.apply("p2", act.SitOut(out=False), 2.0)
    assert err.value.code == "no_chips"


# ------------------------------------------------------------ at the table's service


async def _holdem_service(balances: dict[str, int]):
    """(service, wallet, clock, task): a Hold'em table's service on a memory wallet."""
    import asyncio

    from bbspoker.table.bus import Bus
    from bbspoker.table.service import TableService
    from tests.support.telnetclient import FakeClock
    wallet = MemoryWallet(balances | {SYSTEM: 0})
    clock = FakeClock()
    service = TableService(Holdem(wallet, HoldemRules(between_hands=5.0),
                                  rng=random.Random(2)), Bus(), clock)
    task = asyncio.create_task(service.run())
    return service, wallet, clock, task


async def test_a_spectator_too_poor_for_the_buy_in_is_told_and_the_hand_ends_for_all():
    """Found by review: the refused Sit of a waiting spectator escaped the step that ended
    the hand, so no screen learnt the hand was over."""
    from bbspoker.table.service import TableMessage, WantSeat
    from tests.support.telnetclient import wait_until
    service, wallet, clock, task = await _holdem_service({"ann": 1000, "bob": 1000, "poor": 50})
    sub = service.bus.subscribe(viewer="poor")
    await service.call("ann", act.Sit())
    await service.call("bob", act.Sit())
    clock.advance(5)
    service.wake()
    await wait_until(lambda: service.table.game_id is not None)
    await service.call("poor", WantSeat())                 # the hand runs: poor waits
    await service.call(service.table.current, act.Pass())  # heads-up: the hand is over
    seen = [item.event for item in sub.drain() if isinstance(item, TableMessage)]
    kinds = [(e.kind, e.handle) for e in seen]
    assert ("hand_over", None) in kinds and ("seed", None) in kinds
    refused = [e for e in seen if e.kind == "seat_refused"]
    assert refused and refused[0].to == "poor" and refused[0].data["code"] == "buy_in_short"
    assert "poor" not in service.table.handles and wallet.balance("poor") == 50
    task.cancel()


async def test_at_shutdown_the_hand_finishes_and_every_stack_is_cashed_out():
    service, wallet, clock, task = await _holdem_service({"ann": 1000, "bob": 1000})
    await service.call("ann", act.Sit(buy_in=400))
    await service.call("bob", act.Sit(buy_in=600))
    assert wallet.balance("ann") == 600
    await service.finish_for_shutdown(0.5)                 # no hand running: none dealt
    assert service.table.handles == [] and service.table.game_id is None
    assert (wallet.balance("ann"), wallet.balance("bob")) == (1000, 1000)
    assert wallet.total() == 2000
    task.cancel()


def test_resync_takes_the_stacks_from_the_store_after_a_lost_commit():
    """A buy-in whose commit failed touched no game: the service asks the table to take
    its stacks from the store again, so that no hand is dealt with CUBES it does not hold."""
    wallet = MemoryWallet({"ann": 1000, "bob": 1000, SYSTEM: 0})
    game = Holdem(wallet, HoldemRules(), rng=random.Random(1))
    game.apply("ann", act.Sit(buy_in=500), 0.0)
    game.apply("bob", act.Sit(buy_in=500), 0.0)
    wallet.cash_out("bob")                      # the store lost bob's buy-in
    game.resync()
    assert game.stack("bob") == 0 and game.deadline() is None      # nobody to deal to
    game.apply("bob", act.Leave(), 0.0)
    assert wallet.balance("bob") == 1000 and wallet.total() == 2000


def test_an_uncalled_bet_is_given_back_not_won():
    """The part of a bet nobody called comes back apart from the pot: p1 raises to 20
    over the big blind's 10 and both blinds fold: the pot is 25 (5 + 10 + p1's 10 the big
    blind matched) and the other 10 is returned, not won."""
    game, wallet = table(3)
    events = play(game, ("p1", RAISE), ("p2", FOLD), ("p3", FOLD))
    assert [(e.kind, e.handle, e.data["amount"]) for e in events
            if e.kind in ("won", "returned")] == [("returned", "p1", 10), ("won", "p1", 25)]
    assert game.payouts() == {"p1": 25} and game.stack("p1") == 1015
    moves = [(h, a, r) for gid, _, h, a, r in wallet.stack_moves if gid == 1 and a > 0]
    assert moves == [("p1", 25, "win"), ("p1", 10, "return")]
    assert wallet.total() == 3000


async def test_a_key_meant_for_a_turn_the_clock_played_does_not_land_on_the_next():
    """Heads-up, the big blind is in turn preflop; their key leaves as the turn times out:
    the clock checks for them, the flop comes and they are in turn again. The late key,
    made for the preflop turn, is refused (turn_passed) instead of checking the flop; a
    key made for the turn running now is taken."""
    from bbspoker.rules.events import RuleError
    from tests.support.telnetclient import wait_until
    service, wallet, clock, task = await _holdem_service({"ann": 1000, "bob": 1000})
    await service.call("ann", act.Sit())
    await service.call("bob", act.Sit())
    clock.advance(5)
    service.wake()
    await wait_until(lambda: service.table.current is not None)
    table = service.table
    now = service.snapshot                                   # a key for the turn running
    await service.submit(now.current, act.CheckCall(), turn=(now.current, now.deadline))
    bb = table.current                                       # was taken: the button called
    seen = service.snapshot
    assert seen.current == bb != now.current and table.street is Street.PREFLOP
    clock.advance(HoldemRules().turn_timeout)                # the key is late
    with pytest.raises(RuleError) as late:
        await service.submit(bb, act.CheckCall(), turn=(seen.current, seen.deadline))
    assert late.value.code == "turn_passed"
    assert table.street is Street.FLOP and table.current == bb and set(bets(table).values()) == {0}
    await service.submit(bb, act.Leave(), turn=(seen.current, seen.deadline))
    assert table.current != bb     # seating is never refused: the leaver checked the flop
    task.cancel()


def _ledger_table(tmp_path, n: int, deck: list[str] | None = None) -> tuple:
    """(game, ledger): ``n`` players p1..pn with 1,000 CUBES each in a SQLite ledger,
    seated with 1,000 at a 10/20 table "hold"; the first hand dealt (button p1)."""
    from bbspoker.store.sqlite import Ledger
    from bbspoker.table.registry import TableWallet
    ledger = Ledger(tmp_path / "pots.db")
    handles = [f"p{i + 1}" for i in range(n)]
    for h in handles:
        ledger.create_account(h, None, 1000)
    game = Holdem(TableWallet(ledger, "hold"), HoldemRules(), rng=random.Random(n),
                  deck=None if deck is None else (lambda seal, gid: list(deck)))
    for h in handles:
        game.apply(h, act.Sit(buy_in=1000), 0.0)
    game.tick(game.deadline())
    return game, ledger


def _lines(events: list, lang: str = "en") -> list[str]:
    """The message-area lines of the pots won and the bets returned among ``events``, as
    the classic look shows them (cards in GV signs)."""
    from bbspoker.door.i18n import translator
    from bbspoker.door.look import CLASSIC
    from bbspoker.door.screens.kinds import describe_event
    t = translator(lang)
    return [CLASSIC.glyphs(line[1]) for e in events if e.kind in ("won", "returned")
            and (line := describe_event(e, "holdem", t)) is not None]


def test_a_raise_nobody_calls_wins_the_pot_and_only_its_uncalled_part_comes_back(tmp_path):
    """Blinds 5/10; p1 raises to 20 and both blinds fold. The big blind's 10 matched 10
    of the raise: the pot is 5 + 10 + 10 = 25 and the uncalled 10 goes back. The
    message, the journal, the record and the stats say the same: a pot of 25 taken
    (as a draw40 pot counts the winner's own stake), 10 returned, 10 paid in."""
    from bbspoker.door.screens.kinds import describe_operation
    game, ledger = _ledger_table(tmp_path, 3)
    gid = game.game_id
    events = play(game, ("p1", RAISE), ("p2", FOLD), ("p3", FOLD))
    assert _lines(events) == ["Uncalled bet of 10 CUBES returned to p1.",
                                   "p1 wins the pot of 25 CUBES."]
    assert _lines(events, "de") == ["Nicht gecallter Einsatz von 10 CUBES geht an p1 "
                                         "zurück.", "p1 gewinnt den Pot von 25 CUBES."]
    assert game.payouts() == {"p1": 25} and game.stack("p1") == 1015
    ledger.commit_pending()
    rows = [(r.handle, r.amount, r.reason) for r in ledger.journal_since(0)
            if r.game_id == gid and r.amount > 0]
    assert rows == [("p1", 25, "win"), ("p1", 10, "return")]
    record = [describe_operation(op, "holdem") for op in ledger.game(gid).history["operations"]]
    assert record[-2:] == ["uncalled bet of 10 CUBES returned to p1",
                           "p1 wins the pot of 25 CUBES"]
    (p1,) = ledger.stats("p1")
    assert (p1.won, p1.cubes_won, p1.cubes_paid, p1.net, p1.biggest_pot) == (1, 25, 10, 15, 25)
    (p3,) = ledger.stats("p3")
    assert (p3.won, p3.cubes_won, p3.cubes_paid, p3.net) == (0, 0, 10, -10)
    ledger.close()


def test_the_showdown_winner_wins_the_whole_pot_and_a_split_names_each_share(tmp_path):
    """The message names the pot taken, the winner's own bets in it as in every pot
    ("p1 wins the pot of 145 CUBES"), and the stats count the same 135 as CUBES won
    against the 70 p1 paid in. Equal hands split: each takes half of the pot."""
    deck = stacked(["7c2d", "9h8h", "AsAd"], "AhKd4c3s2h")
    game, ledger = _ledger_table(tmp_path, 3, deck)
    play(game, ("p1", CALL), ("p2", FOLD), ("p3", CALL), ("p3", CALL), ("p1", CALL),
         ("p3", RAISE), ("p1", RAISE), ("p3", CALL))
    events = play(game, ("p3", CALL), ("p1", RAISE), ("p3", CALL))
    assert _lines(events) == ["p1 wins the pot of 145 CUBES with three of a kind "
                              "(A+ A# A* K# 4-)."]
    assert _lines(events, "fr") == ["p1 gagne le pot de 145 CUBES avec une tierce "
                                    "(A+ A# A* K# 4-)."]
    ledger.commit_pending()
    (p1,) = ledger.stats("p1")
    assert (p1.cubes_won, p1.cubes_paid, p1.net, p1.biggest_pot) == (145, 70, 75, 145)
    (p3,) = ledger.stats("p3")          # the call that ended the hand is journaled too
    assert (p3.won, p3.cubes_won, p3.cubes_paid, p3.net) == (0, 0, 70, -70)
    assert ledger.verify() == []
    ledger.close()

    game, _ = table(2, deck=stacked(["Ac2d", "Ad3c"], "KsKdQcJh9s"))   # both: K K A Q J
    events = []
    while game.street is not Street.IDLE:
        events += play(game, (game.current, CALL))
    assert sorted(_lines(events)) == [
        "p1 wins 10 of the 20 CUBES in the pot with one pair (A# K+ K# Q- J*).",
        "p2 wins 10 of the 20 CUBES in the pot with one pair (A- K+ K# Q- J*)."]
    assert game.payouts() == {"p1": 10, "p2": 10}


def test_every_seated_player_is_told_their_cards_and_one_not_dealt_in_has_none():
    """The table names every seated player's hole cards (what the service sends each
    screen): the last hand's until the next is dealt, then none for one who sits it out,
    so that no screen keeps showing cards of a hand its player is not in."""
    game, _ = table(3)
    dealt = game.hands()
    assert set(dealt) == {"p1", "p2", "p3"} and all(len(c) == 2 for c in dealt.values())
    play(game, ("p1", FOLD), ("p2", FOLD))               # the big blind wins the blinds
    assert game.street is Street.IDLE and game.hands() == dealt   # on show until the next
    game.apply("p3", act.SitOut(out=True), 2.0)
    game.tick(game.deadline())
    assert game.game_id is not None and game.hands()["p3"] == ()
    assert game.hands()["p1"] == game.hole_cards("p1") != dealt["p1"]


# ---------------------------------------------------------------- no-limit and pot-limit


def test_no_limit_bets_any_amount_from_the_minimum_raise_up_to_the_stack():
    """No limit, blinds 5/10: the minimum raise is the size of the last bet or raise
    (never below the big blind), the maximum the whole stack; an amount out of the range
    or not a number is refused with what the range is, and changes nothing."""
    game, _ = table(3, limit="no")      # button p1, small blind p2, big blind p3
    assert game.current == "p1" and game.to_call("p1") == 10
    assert (game.raise_to("p1"), game.max_raise_to("p1")) == (20, 1000)
    play(game, ("p1", act.BetRaise(to=50)))          # a raise of 40
    assert game.current == "p2" and game.to_call("p2") == 45
    assert (game.raise_to("p2"), game.max_raise_to("p2")) == (90, 1000)
    for to, code, params in [(60, "raise_too_small", {"low": 90}),
                             (1001, "raise_too_large", {"high": 1000}),
                             ("90", "raise_not_number", {}), (True, "raise_not_number", {})]:
        with pytest.raises(RuleError) as err:
            game.apply("p2", act.BetRaise(to=to), 1.0)      # type: ignore[arg-type]
        assert err.value.code == code and err.value.params == params
    assert game.current == "p2" and bets(game) == {"p1": 50, "p2": 5, "p3": 10}
    events = play(game, ("p2", RAISE))               # no amount: the minimum
    assert bets(game)["p2"] == 90 and ("raise", "p2", 90) in [
        (e.kind, e.handle, e.data.get("to")) for e in events]
    board = game.board()
    assert (board.limit, board.to_call, board.raise_to, board.max_raise_to) == (
        "no", 80, 130, 1000)
    play(game, ("p3", FOLD), ("p1", CALL))
    assert game.street is Street.FLOP and game.current == "p2"
    # After the flop the first bet is at least the big blind.
    assert (game.raise_to("p2"), game.max_raise_to("p2")) == (10, 910)


def test_an_all_in_goes_in_with_the_whole_stack_and_says_so():
    game, wallet = table(2, limit="no", stacks=[300, 500], buy_in_min=100)
    # Heads-up the button p1 posts the small blind and speaks first.
    assert game.current == "p1" and game.max_raise_to("p1") == 300
    events = play(game, ("p1", act.BetRaise(to=300)))
    raised = next(e for e in events if e.kind == "raise")
    assert raised.data == {"street": "preflop", "to": 300, "all_in": True}
    assert game.stack("p1") == 0 and game.max_raise_to("p2") is None   # nothing to raise
    assert act.BetRaise not in game.legal_actions("p2", 1.0)
    play(game, ("p2", CALL))
    assert game.street is Street.IDLE and wallet.total() == 2000
    assert sorted(game.stack(h) for h in ("p1", "p2")) in ([0, 800], [200, 600], [300, 500])


def test_an_all_in_for_less_than_a_raise_does_not_reopen_the_betting():
    """pokerkit's rule, which the table keeps: a player all in for less than a full raise
    lets those who already acted call it, not raise again; one who has not acted yet may
    still raise."""
    game, _ = table(3, limit="no", stacks=[1000, 1000, 45], buy_in_min=20)
    # Dealing order p2 (small blind), p3 (big blind, 45 CUBES), p1 (button).
    play(game, ("p1", CALL), ("p2", act.BetRaise(to=30)), ("p3", act.BetRaise(to=45)))
    assert game.current == "p1"          # had not acted on the raise to 30: may raise
    assert act.BetRaise in game.legal_actions("p1", 1.0)
    play(game, ("p1", CALL))
    assert game.current == "p2" and game.to_call("p2") == 15   # p3's all-in for 15 more
    assert act.BetRaise not in game.legal_actions("p2", 1.0)
    assert game.raise_to("p2") is None and game.max_raise_to("p2") is None
    with pytest.raises(RuleError) as err:
        game.apply("p2", act.BetRaise(to=200), 1.0)
    assert err.value.code == "raise_closed"
    play(game, ("p2", CALL))
    assert game.street is Street.FLOP


def test_no_limit_all_ins_of_different_sizes_make_side_pots_each_won_by_its_best_hand():
    """Three all-ins of 100, 250 and 600 CUBES and a caller: a main pot of 4 x 100, a
    side pot of 3 x 150 and one of 2 x 350; the best hand among those in each pot wins it
    (aces in the main pot only, kings the first side pot, queens the last)."""
    # Dealing order p2 (small blind), p3 (big blind), p4, p1 (button).
    game, wallet = table(4, limit="no", stacks=[1000, 100, 250, 600], buy_in_min=100,
                         deck=stacked(["AsAd", "KsKd", "QsQd", "7c2h"], "3h4c8d9sJc"))
    play(game, ("p4", act.BetRaise(to=600)), ("p1", CALL), ("p2", CALL), ("p3", CALL))
    assert game.street is Street.IDLE
    assert game.payouts() == {"p2": 400, "p3": 450, "p4": 700}
    assert [game.stack(h) for h in ("p1", "p2", "p3", "p4")] == [400, 400, 450, 700]
    assert wallet.total() == 4 * 1000


def test_pot_limit_raises_at_most_the_pot_after_the_call():
    """Pot limit: the largest raise is to the pot as it would be after calling, added to
    the call: blinds 5/10, the first to act may raise to 10 + (15 + 10) = 35; facing that
    the small blind may raise to 35 + (5 + 10 + 35 + 30) = 115."""
    game, _ = table(3, limit="pot")
    assert (game.raise_to("p1"), game.max_raise_to("p1")) == (20, 35)
    with pytest.raises(RuleError) as err:
        game.apply("p1", act.BetRaise(to=36), 1.0)
    assert err.value.code == "raise_too_large" and err.value.params == {"high": 35}
    play(game, ("p1", act.BetRaise(to=35)))
    assert (game.raise_to("p2"), game.max_raise_to("p2")) == (60, 115)
    play(game, ("p2", act.BetRaise(to=115)), ("p3", FOLD), ("p1", CALL))
    assert game.street is Street.FLOP and game.pot_total == 240
    assert game.max_raise_to("p2") == 240            # a bet of the pot


def test_fixed_limit_takes_no_amount():
    game, _ = table(3)
    with pytest.raises(RuleError) as err:
        game.apply("p1", act.BetRaise(to=20), 1.0)
    assert err.value.code == "fixed_limit" and game.current == "p1"
    assert game.max_raise_to("p1") == game.raise_to("p1") == 20
    assert game.board().limit == "fixed"


@pytest.mark.parametrize("limit, variant", [("no", "NT"), ("pot", "PT")])
def test_a_no_or_pot_limit_hand_in_phh_replays_in_pokerkit_to_the_same_stacks(limit, variant):
    from bbspoker.rules.holdem.game import HoldemHandHistory
    game, wallet = table(3, limit=limit, deck=stacked(["7c2d", "9h8h", "AsAd"], "AhKd4c3s2h"))
    play(game, ("p1", act.BetRaise(to=30)), ("p2", CALL), ("p3", CALL),
         ("p2", CALL), ("p3", act.BetRaise(to=40)), ("p1", act.BetRaise(to=90)),
         ("p2", FOLD), ("p3", CALL))
    while game.street is not Street.IDLE:
        play(game, (game.current, CALL))
    record = wallet.games[1]["history"]
    assert record["limit"] == limit
    hh = HoldemHandHistory.loads(record["phh"])
    assert hh.variant == variant and "p3 cbr 90" in hh.actions   # p1: pokerkit's 3rd
    for state in hh:
        pass
    assert dict(zip(hh.players, state.stacks)) == record["stacks"] == {
        h: game.stack(h) for h in ("p1", "p2", "p3")}


@pytest.mark.parametrize("limit", ["no", "pot"])
def test_the_no_and_pot_limit_crosscheck_against_pokerkit_alone_short_run(limit):
    """scripts/holdem_crosscheck.py --limit no|pot in a short run: random amounts between
    the smallest and the largest raise, all-ins, through the table on a real ledger, each
    hand replayed from its PHH in pokerkit alone to the same stacks."""
    import subprocess
    import sys
    script = ROOT / "scripts" / "holdem_crosscheck.py"
    done = subprocess.run([sys.executable, str(script), "--hands", "200", "--seed", "4",
                           "--limit", limit], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"200 hands of {limit}-limit, ") \
        and "ledger verify clean" in done.stdout


# ------------------------------------------------- stakes that change, antes, tournaments


def finish(game: Holdem) -> None:
    """Play the running hand out with checks and calls."""
    while game.street is not Street.IDLE:
        play(game, (game.current, CALL))


def test_new_stakes_take_effect_at_the_next_hand_and_the_running_hand_keeps_its_own():
    """``set_stakes`` between levels: the hand in play keeps its blinds (its bets, its
    view, its record); the next hand is dealt with the new big blind and ante, and its
    ``hand`` event and the table's view say so."""
    game, wallet = table(3)
    game.set_stakes(small_bet=20, ante=2)
    assert bets(game) == {"p1": 0, "p2": 5, "p3": 10} and game.raise_to("p1") == 20
    board = game.board()
    assert (board.small_blind, board.big_blind, board.ante) == (5, 10, 0)
    finish(game)
    assert wallet.games[1]["history"]["blinds"] == [5, 10]
    assert wallet.games[1]["history"]["ante"] == 0
    board = game.board()                      # between hands: the next hand's stakes
    assert (board.small_blind, board.big_blind, board.small_bet, board.big_bet,
            board.ante) == (10, 20, 20, 40, 2)
    events = game.tick(game.deadline())
    hand = next(e for e in events if e.kind == "hand")
    assert (hand.data["small_blind"], hand.data["big_blind"], hand.data["ante"]) == (10, 20, 2)
    # Button p2: p3 posts the small blind, p1 the big one, each on top of the ante.
    assert bets(game) == {"p1": 20, "p2": 0, "p3": 10}
    assert game.pot_total == 3 * 2 + 10 + 20 and game.raise_to("p2") == 40


@pytest.mark.parametrize("stakes", [{"small_bet": 15, "ante": 0}, {"small_bet": 0, "ante": 0},
                                    {"small_bet": 20, "ante": -1}])
def test_invalid_stakes_are_refused_and_change_nothing(stakes):
    game, _ = table(3)
    with pytest.raises(ValueError):
        game.set_stakes(**stakes)
    finish(game)
    assert (game.board().big_blind, game.board().ante) == (10, 0)


def test_every_player_dealt_in_posts_the_ante_and_the_record_and_phh_carry_it():
    """``HoldemRules.ante``: each player dealt in posts it before the blinds (journal
    ``ante``); a stack that cannot cover it goes all in with what it has (pokerkit's
    trimmed antes); the record, its English lines and the PHH carry the antes, and the
    PHH replays in pokerkit alone to the same stacks."""
    from bbspoker.door.screens.holdem_text import describe_event, describe_operation
    from bbspoker.rules.holdem.game import HoldemHandHistory
    game, wallet = table(3, ante=15, stacks=[1000, 1000, 12], buy_in_min=10)
    assert game.pot_total == 15 + 12 + 15 + 5      # p3, all in by the ante, posts no blind
    moves = [(key, -amount) for gid, _, key, amount, why in wallet.stack_moves
             if gid == 1 and why == "ante"]
    assert moves == [("p2", 15), ("p3", 12), ("p1", 15)]
    hand = next(op for op in game.operations if op.kind == "ante")
    assert describe_operation(hand.as_dict()) == "p2 posts the ante (15)"
    finish(game)
    record = wallet.games[1]["history"]
    assert record["ante"] == 15
    assert [op["amount"] for op in record["operations"] if op["op"] == "ante"] == [15, 12, 15]
    hh = HoldemHandHistory.loads(record["phh"])
    assert hh.antes == [15, 15, 15] and hh.ante_trimming_status
    for state in hh:
        pass
    assert dict(zip(hh.players, state.stacks)) == record["stacks"]
    assert wallet.total() == 3000
    line = describe_event(game.tick(game.deadline())[0])
    assert line is not None and line[1].endswith("blinds 5/10, ante 15.")


def test_the_hand_line_names_the_ante_in_every_language():
    from bbspoker.door.i18n import translator
    from bbspoker.door.screens.holdem_text import describe_event
    from bbspoker.rules.events import Event
    hand = Event("hand", None, {"game_id": 7, "hand": 3, "button": "ann", "small_blind": 50,
                                "big_blind": 100, "ante": 10, "players": ["ann", "bob"]})
    lines = {lang: describe_event(hand, translator(lang))[1] for lang in ("en", "de", "fr")}
    assert lines["en"] == "Hand 3 (game 7): ann has the button; blinds 50/100, ante 10."
    assert lines["de"] != lines["en"] and lines["fr"] != lines["en"]
    assert all("10" in line and "100" in line for line in lines.values())
    assert describe_event(Event("ante", "ann", {"amount": 10})) is None


def tournament(n: int, chips: list[int], **rules) -> tuple:
    """(game, wallet): a tournament table, ``n`` players p1..pn with ``chips[i]`` chips in
    the tournament's wallet, each seated with ``Sit()``; the first hand is dealt."""
    handles = [f"p{i + 1}" for i in range(n)]
    wallet = MemoryWallet(dict(zip(handles, chips)) | {SYSTEM: 0})
    game = Holdem(wallet, HoldemRules(tournament=True, **rules), rng=random.Random(n))
    for h in handles:
        game.apply(h, act.Sit(), 0.0)
    game.tick(game.deadline())
    return game, wallet


def test_a_tournament_seat_takes_all_the_players_chips_whatever_the_buy_in_range():
    """At a tournament table ``Sit()`` brings every chip of the player's balance, a short
    stack moved from another table as much as a deep one; one with no chips is refused,
    and so is a buy-in the player names."""
    wallet = MemoryWallet({"ann": 15, "bob": 50000, "cy": 0, "dee": 500, SYSTEM: 0})
    game = Holdem(wallet, HoldemRules(tournament=True), rng=random.Random(1))
    game.apply("ann", act.Sit(), 0.0)
    game.apply("bob", act.Sit(), 0.0)
    assert (game.stack("ann"), game.stack("bob")) == (15, 50000)
    assert wallet.balance("ann") == wallet.balance("bob") == 0
    with pytest.raises(RuleError) as err:
        game.apply("cy", act.Sit(), 0.0)
    assert err.value.code == "no_tournament_chips" and game.handles == ["ann", "bob"]
    with pytest.raises(RuleError) as err:
        game.apply("zed", act.Sit(), 0.0)          # not in the tournament at all
    assert err.value.code == "no_tournament_chips"
    with pytest.raises(RuleError) as err:
        game.apply("dee", act.Sit(buy_in=300), 0.0)
    assert err.value.code == "tournament_seat" and wallet.balance("dee") == 500


def test_a_tournament_player_cannot_leave_and_the_director_removes_them_between_hands():
    game, wallet = tournament(3, [1000, 1000, 1000])
    with pytest.raises(RuleError) as err:
        game.apply("p2", act.Leave(), 1.0)
    assert err.value.code == "tournament_seat" and "p2" in game.handles
    with pytest.raises(RuleError) as err:
        game.remove("p2", 1.0)                      # in the hand: not now
    assert err.value.code == "in_hand" and "p2" in game.handles
    play(game, ("p1", FOLD))
    events = game.remove("p1", 1.0)                 # folded: no longer in the hand
    assert [(e.kind, e.handle, e.data["cash_out"]) for e in events] == [("left", "p1", 1000)]
    assert wallet.balance("p1") == 1000 and "p1" not in game.handles
    finish(game)
    game.remove("p3", 2.0)
    assert wallet.balance("p3") > 0 and wallet.stack("p3") == 0
    assert wallet.total() == 3000 and game.handles == ["p2"]
    with pytest.raises(RuleError) as err:
        game.remove("nobody", 2.0)
    assert err.value.code == "not_seated"


def test_a_tournament_player_away_is_dealt_in_posts_and_gives_up_at_once():
    """Blinded away but not removed: one who sits out (or whose connection is lost: the
    table's ``Leave("lost_connection")``) is still dealt in, posts the ante and the blinds,
    and when their turn comes checks if it is free, else folds, at once; the idle rule
    stands nobody up."""
    game, wallet = tournament(3, [1000, 1000, 1000], ante=1, idle_hands=1)
    game.apply("p2", act.SitOut(), 1.0)             # the small blind, not yet in turn
    game.apply("p3", act.Leave("lost_connection"), 1.0)
    assert "p3" in game.handles and next(s for s in game.seats() if s.handle == "p3").out
    events = play(game, ("p1", CALL))               # p2 folds at once; p3 checks at once
    assert [(e.kind, e.handle) for e in events][:3] == [("call", "p1"), ("fold", "p2"),
                                                        ("check", "p3")]
    while game.street is not Street.IDLE:
        assert game.current == "p1"                 # only p1 is ever given the turn
        play(game, (game.current, CALL))
    assert game.handles == ["p1", "p2", "p3"]
    events = game.tick(game.deadline())             # dealt in again, both posting
    hand = next(e for e in events if e.kind == "hand")
    assert hand.data["players"] == ["p3", "p1", "p2"]
    assert sorted(e.handle for e in events if e.kind == "ante") == ["p1", "p2", "p3"]
    assert game.handles == ["p1", "p2", "p3"] and wallet.total() == 3000


def test_a_tournament_player_in_turn_who_sits_out_gives_up_at_once():
    game, _ = tournament(3, [1000, 1000, 1000])
    assert game.current == "p1"
    events = game.apply("p1", act.SitOut(), 1.0)
    assert [(e.kind, e.handle) for e in events][:2] == [("sit_out", "p1"), ("fold", "p1")]
    assert game.current == "p2"
    assert act.Pass in game.legal_actions("p2", 1.0)
    assert game.legal_actions("p1", 1.0) == (act.SitOut,)   # may come back


def test_a_busted_tournament_player_stays_seated_with_nothing_until_removed():
    # Heads-up the big blind p2 is dealt first: 7c 2d against p1's aces.
    wallet = MemoryWallet({"p1": 1000, "p2": 20, "p3": 0, SYSTEM: 0})
    deck = stacked(["7c2d", "AsAd"], "KhQh3c4s9d")
    game = Holdem(wallet, HoldemRules(tournament=True), rng=random.Random(2),
                  deck=lambda seal, gid: list(deck))
    game.apply("p1", act.Sit(), 0.0)
    game.apply("p2", act.Sit(), 0.0)
    game.tick(game.deadline())
    events = []
    while game.street is not Street.IDLE:
        h = game.current
        events += game.apply(h, RAISE if h == "p1" and act.BetRaise in game.legal_actions(h, 1)
                             else CALL, 1)
    assert game.stack("p2") == 0 and "p2" in game.handles
    assert ("busted", "p2") in [(e.kind, e.handle) for e in events]
    assert game.legal_actions("p2", 2.0) == ()
    game.apply("p2", act.SitOut(), 2.0)
    with pytest.raises(RuleError) as err:
        game.apply("p2", act.SitOut(out=False), 2.0)
    assert err.value.code == "no_tournament_chips"
    assert game.deadline() is None                  # nobody to play p1
    assert game.remove("p2", 2.0)[0].data["cash_out"] == 0 and game.handles == ["p1"]


def test_a_tournament_tables_lines_and_refusals_speak_of_chips_in_every_language():
    from bbspoker.door.i18n import translator
    from bbspoker.door.messages import refusal
    from bbspoker.door.screens.holdem_text import REFUSALS, describe_event
    wallet = MemoryWallet({"ann": 1500, "bob": 1, SYSTEM: 0})
    game = Holdem(wallet, HoldemRules(tournament=True), rng=random.Random(1))
    sat = game.apply("ann", act.Sit(), 0.0) + game.apply("bob", act.Sit(), 0.0)
    left = game.remove("ann", 0.0)
    lines = {lang: [describe_event(e, translator(lang))[1] for e in sat + left]
             for lang in ("en", "de", "fr")}
    assert lines["en"] == ["ann sits down with 1,500 chips.", "bob sits down with 1 chip.",
                           "ann leaves the table with 1,500 chips."]
    busted = Event("busted", "bob", {"tournament": True})
    assert describe_event(busted)[1] == "bob has no chips left."
    for lang in ("de", "fr"):
        t = translator(lang)
        assert all("CUBES" not in line for line in lines[lang])
        assert lines[lang] != lines["en"] and describe_event(busted, t)[1] != "bob has no chips left."
        for code in ("tournament_seat", "no_tournament_chips"):
            assert refusal(RuleError(code), t, REFUSALS) != refusal(RuleError(code),
                                                                    translator("en"), REFUSALS)
    assert refusal(RuleError("tournament_seat"), translator("en"), REFUSALS) == (
        "This is a tournament table: the tournament seats and moves its players.")


def test_the_idle_rule_stands_nobody_up_at_a_tournament_table():
    """Every turn timed out, hand after hand: at a cash table the idle rule would stand
    both up after one such hand; at a tournament table they stay, blinded."""
    game, wallet = tournament(2, [1000, 1000], idle_hands=1)
    for _ in range(4):
        game.tick(game.deadline())
    assert game.handles == ["p1", "p2"] and wallet.total() == 2000


@pytest.mark.parametrize("kind", ["holdem", "stud"])
def test_a_table_that_moved_seats_its_players_again_with_the_stacks_they_kept(tmp_path, kind):
    """A table taken over by another worker: its game is called off (``moved``) and the
    blinds and bets go back to the stacks, which stay at the table; the new worker's game
    seats each player again with ``Sit(buy_in=0)``: their whole stack, no CUBES moved.
    Without a stack there, a buy-in of 0 is refused as too short."""
    from bbspoker.rules.kinds import kind as kind_of
    from bbspoker.store.sqlite import Ledger
    from bbspoker.table.registry import TableWallet
    from bbspoker.config import load_config
    ledger = Ledger(tmp_path / "moved.db")
    for h in ("ann", "bob", "cy"):
        ledger.create_account(h, None, 1000)
    spec = kind_of(kind)
    cfg = spec.config.from_keys(load_config(None).table.keys(), {})
    first = spec.make(cfg, TableWallet(ledger, "t1"), None)
    first.apply("ann", act.Sit(), 0.0)
    first.apply("bob", act.Sit(), 0.0)
    first.tick(first.deadline())
    gid = first.game_id
    assert gid is not None
    ledger.commit_pending()
    kept = {h: ledger.stack(h, table="t1") for h in ("ann", "bob")}
    cubes = {h: ledger.balance(h) for h in ("ann", "bob")}
    assert ledger.recover_unfinished_games(1.0, table="t1") == [gid]
    kept = {h: ledger.stack(h, table="t1") for h in ("ann", "bob")}
    assert all(v > 0 for v in kept.values())
    second = spec.make(cfg, TableWallet(ledger, "t1"), None)
    for h in ("ann", "bob"):
        events = second.apply(h, act.Sit(buy_in=0), 2.0)
        assert events[0].kind == "sat" and events[0].data["stack"] == kept[h]
    ledger.commit_pending()
    assert {h: ledger.balance(h) for h in ("ann", "bob")} == cubes
    assert {h: ledger.stack(h, table="t1") for h in ("ann", "bob")} == kept
    with pytest.raises(RuleError) as err:
        second.apply("cy", act.Sit(buy_in=0), 2.0)
    assert err.value.code == "buy_in_short" and ledger.balance("cy") == 1000
    assert ledger.verify() == []
    ledger.close()
