"""Fixed-limit seven-card stud: the ante, the bring-in by the lowest up card (suits break
ties as pokerkit orders them), the completion and the cap, the streets and their bets, who
opens a later street, the showdown, side pots, what each player may see, time-outs, the
call-off, the fair deck and the PHH, and hands played to the end with CUBES conserved."""

from __future__ import annotations

import random
import subprocess
import sys
import warnings

import pytest
from pokerkit import HandHistory

from bbspoker.rules import actions as act
from bbspoker.rules import audit
from bbspoker.rules.cards import STANDARD52
from bbspoker.rules.events import RuleError
from bbspoker.rules.money import SYSTEM
from bbspoker.rules.stud import Street, Stud, StudRules, stud_draws
from bbspoker.store.wallet import MemoryWallet
from tests.support.paths import ROOT

FOLD, CALL, RAISE = act.Pass(), act.CheckCall(), act.BetRaise()


def stacked(third: list[str], *later: list[str], burn: tuple[bool, ...] = (True,) * 4
            ) -> list[str]:
    """A deck, top card first (GV notation), that deals ``third`` (one "down down up"
    string per player in dealing order: the seat after the dealer first) on third street,
    then each of ``later`` (one card per player still in, in dealing order) on the later
    streets, a burn card before each unless ``burn`` says not; the other cards follow."""
    hands = [h.split() for h in third]
    order = [hands[p][r] for r in range(3) for p in range(len(hands))]
    used = set(order) | {c for street in later for c in street}
    rest = [c for c in STANDARD52.cards() if c not in used]
    for n, street in enumerate(later):
        if burn[n]:
            order.append(rest.pop())
        order += street
    return order + rest


def table(n: int, *, deck: list[str] | None = None, cubes: int = 1000,
          stacks: list[int] | None = None, **rules: object) -> tuple[Stud, MemoryWallet]:
    """(game, wallet): ``n`` players p1..pn with ``cubes`` each, seated in that order at a
    10/20 table (ante 1, bring-in 3) with a stack of ``cubes`` (or ``stacks[i]``); the
    first hand is dealt (dealer p1: the cards go p2, p3, ..., p1)."""
    handles = [f"p{i + 1}" for i in range(n)]
    wallet = MemoryWallet({h: cubes for h in handles} | {SYSTEM: 0})
    game = Stud(wallet, StudRules(**{"buy_in_min": 10, "buy_in_max": cubes, **rules}),  # type: ignore[arg-type]
                rng=random.Random(n),
                deck=None if deck is None else (lambda seal, gid: list(deck)))
    for i, h in enumerate(handles):
        game.apply(h, act.Sit(buy_in=stacks[i] if stacks else None), 0.0)
    game.tick(game.deadline())
    return game, wallet


def play(game: Stud, *moves: tuple[str, act.Action]) -> list:
    """Apply ``(handle, action)`` in order, each checked to be in turn; all the events."""
    events = []
    for handle, action in moves:
        assert game.current == handle, f"{game.current} in turn, not {handle}"
        events += game.apply(handle, action, 1.0)
    return events


def bets(game: Stud) -> dict[str, int]:
    return {s.handle: s.bet for s in game.seats()}


def kinds(events: list) -> list[str]:
    return [e.kind for e in events]


def test_the_ante_is_posted_by_everyone_dealt_in_and_is_the_first_pot():
    game, wallet = table(3)
    assert game.street is Street.THIRD
    assert game.pots == [3] and game.pot_total == 3
    assert {s.handle: s.stack for s in game.seats()} == {"p1": 999, "p2": 999, "p3": 999}
    antes = [m for m in wallet.stack_moves if m[-1] == "ante"]
    assert sorted((m[2], m[3]) for m in antes) == [("p1", -1), ("p2", -1), ("p3", -1)]
    assert [op.kind for op in game.operations[:3]] == ["ante", "ante", "ante"]


def test_the_lowest_up_card_brings_in_and_suits_break_a_tie_clubs_lowest():
    """Two deuces showing: the deuce of clubs (``2-``) is lower than the deuce of diamonds
    (``2#``), as pokerkit orders suits (clubs, diamonds, hearts, spades)."""
    deck = stacked(["A+ K+ 2#", "A* K* 9+", "A# K# 2-"])     # dealt p2, p3, p1
    game, _ = table(3, deck=deck)
    assert game.current == "p1"
    board = game.board()
    assert board.bring_in_due and board.to_call == 3 and board.raise_to == 10
    # The bring-in may not fold: post it or complete.
    assert game.legal_actions("p1", 1.0) == (act.CheckCall, act.BetRaise, act.SitOut)
    with pytest.raises(RuleError) as err:
        game.apply("p1", FOLD, 1.0)
    assert err.value.code == "bring_in_due" and err.value.params == {"amount": 3}
    events = play(game, ("p1", CALL))
    assert events[0].kind == "bring_in" and events[0].data == {"street": "third", "amount": 3}
    assert bets(game)["p1"] == 3 and next(s for s in game.seats() if s.handle == "p1").bring_in
    # Next to act, from the bring-in's left: call 3, complete to 10, or fold.
    assert game.current == "p2" and game.to_call("p2") == 3 and game.raise_to("p2") == 10
    assert game.legal_actions("p2", 1.0)[:3] == (act.Pass, act.CheckCall, act.BetRaise)


def test_the_completion_then_raises_up_to_the_cap_of_four_bets():
    deck = stacked(["A+ K+ 5#", "A* K* 9+", "A# K# 2-", "Q+ Q* 7-"])   # p2 p3 p4 p1
    game, _ = table(4, deck=deck)
    events = play(game, ("p4", CALL), ("p1", RAISE))
    assert events[-2].kind == "complete" and events[-2].data == {"street": "third", "to": 10}
    play(game, ("p2", RAISE), ("p3", RAISE))
    assert bets(game) == {"p1": 10, "p2": 20, "p3": 30, "p4": 3}
    assert game.raise_to("p4") == 40
    events = play(game, ("p4", RAISE))
    assert events[0].kind == "raise" and events[0].data["to"] == 40
    assert act.BetRaise not in game.legal_actions("p1", 1.0)          # capped
    with pytest.raises(RuleError) as err:
        game.apply("p1", RAISE, 1.0)
    assert err.value.code == "capped"
    play(game, ("p1", CALL), ("p2", CALL), ("p3", CALL))
    assert game.street is Street.FOURTH and game.pot_total == 4 + 4 * 40


def test_the_bring_in_may_complete_itself():
    deck = stacked(["A+ K+ 5#", "A* K* 9+", "A# K# 2-"])
    game, _ = table(3, deck=deck)
    events = play(game, ("p1", RAISE))
    assert events[0].kind == "complete" and events[0].data["to"] == 10
    assert game.current == "p2" and game.to_call("p2") == 10 and not game.bring_in_due


def test_streets_deal_up_cards_to_all_and_the_seventh_down_and_bets_double_on_fifth():
    deck = stacked(["A+ K+ 5#", "A* K* 9+", "A# K# 2-"],
                   ["3+", "4+", "6+"], ["3*", "4*", "6*"], ["3#", "4#", "6#"],
                   ["3-", "4-", "6-"])
    game, wallet = table(3, deck=deck)
    play(game, ("p1", CALL), ("p2", CALL), ("p3", CALL))
    assert game.street is Street.FOURTH
    up = {s.handle: s.up for s in game.seats()}
    assert up == {"p2": ("5#", "3+"), "p3": ("9+", "4+"), "p1": ("2-", "6+")}
    assert game.raise_to(game.current) == 10                      # the small bet
    for _ in range(3):
        play(game, (game.current, CALL))
    assert game.street is Street.FIFTH
    assert game.raise_to(game.current) == 20                      # the big bet
    while game.street is not Street.SEVENTH:
        play(game, (game.current, CALL))
    seats = {s.handle: s for s in game.seats()}
    assert seats["p2"].up == ("5#", "3+", "3*", "3#") and seats["p2"].down == 3
    assert game.down_cards("p2") == ("A+", "K+", "3-")
    ops = [op.as_dict() for op in game.operations if op.kind == "street"]
    assert [op["street"] for op in ops] == ["third", "fourth", "fifth", "sixth", "seventh"]
    assert "burn" not in ops[0] and all("burn" in op for op in ops[1:])


def test_the_highest_showing_hand_opens_later_streets_the_first_from_the_dealers_left():
    # Fourth street: p3 shows a pair of nines and opens, though p1 shows an ace.
    deck = stacked(["A+ K+ 5#", "A* K* 9+", "A# K# 2-"], ["3+", "9*", "A-"],
                   ["Q+", "Q*", "Q#"])
    game, _ = table(3, deck=deck)
    play(game, ("p1", CALL), ("p2", CALL), ("p3", CALL))
    assert game.street is Street.FOURTH and game.current == "p3"
    play(game, ("p3", CALL), ("p1", CALL), ("p2", CALL))
    # Fifth street: p3 (pair of nines and a queen) still highest.
    assert game.current == "p3"
    # Equal hands showing: the first from the dealer's left (p2) opens.
    deck = stacked(["A+ K+ 7#", "A* K* 7+", "A# K# 2-"], ["3+", "3*", "5-"])
    game, _ = table(3, deck=deck)
    play(game, ("p1", CALL), ("p2", CALL), ("p3", CALL))
    assert game.current == "p2"


def test_the_showdown_best_five_of_seven_wins_and_the_loser_may_muck():
    deck = stacked(["A+ A* 5#", "K* K# 9+", "7# 8# 2-"],
                   ["3+", "4+", "J-"], ["6*", "Q-", "10-"], ["8+", "J#", "9-"],
                   ["2+", "2*", "5-"])
    game, wallet = table(3, deck=deck)
    events = []
    while game.street is not Street.IDLE:
        events += play(game, (game.current, CALL))
    shown = [e for e in events if e.kind == "show"]
    assert shown and all(len(e.data["cards"]) == 7 for e in shown)
    won = next(e for e in events if e.kind == "won")
    # p1: 2- 7# 8# J- 10- 9- 5-: the clubs flush (J 10 9 5 2) beats aces up.
    assert won.handle == "p1" and won.data["hand"] == "FLUSH"
    assert won.data["best"] == "J- 10- 9- 5- 2-"
    assert won.data["amount"] == 3 + 3 * 3               # antes, the bring-in called twice
    assert "p1" in {e.handle for e in shown}
    record = wallet.games[1]["history"]
    assert record["game"] == "stud" and record["winners"] == {"p1": won.data["amount"]}
    assert sum(game.stack(h) for h in ("p1", "p2", "p3")) == 3000


def test_a_short_stack_all_in_plays_for_the_main_pot_and_the_others_for_a_side_pot():
    """p2 has 11 CUBES: after the ante, all in with the completion to 10. p3 and p1 bet
    on into a side pot that is theirs alone; p2's three aces win only the main pot (the
    antes and 10 from each), p3's kings the side pot over p1's queen high."""
    deck = stacked(["A+ A* 5#", "K* K# 9+", "7# 8# 2-"],
                   ["A#", "4+", "J-"], ["6*", "Q-", "Q#"], ["8+", "J#", "9-"],
                   ["2+", "2*", "5*"])
    game, wallet = table(3, deck=deck, stacks=[1000, 11, 1000])
    play(game, ("p1", CALL), ("p2", RAISE), ("p3", CALL), ("p1", CALL))
    assert next(s for s in game.seats() if s.handle == "p2").all_in
    assert game.pots == [3 + 30]                     # p2's 10 matched by both
    pots = []
    while game.street is not Street.IDLE:
        h = game.current
        bet = act.BetRaise in game.legal_actions(h, 1.0) and h == "p3"
        play(game, (h, RAISE if bet else CALL))
        pots.append(len(game.pots))
    assert 2 in pots                                   # a side pot beside the main pot
    payouts = game.payouts()
    assert set(payouts) == {"p2", "p3"} and payouts["p2"] == 33 and game.stack("p2") == 33
    side = payouts["p3"]                # p1 called every bet of p3's: half of it each
    assert game.stack("p3") == 989 + side // 2 and game.stack("p1") == 989 - side // 2
    assert sum(game.stack(h) for h in ("p1", "p2", "p3")) == 2011 == sum(
        wallet.stack(h) for h in ("p1", "p2", "p3"))


def test_each_player_sees_their_own_down_cards_and_everyones_up_cards():
    deck = stacked(["A+ K+ 5#", "A* K* 9+", "A# K# 2-"])
    handles = ["p2", "p3", "p1"]
    wallet = MemoryWallet({h: 1000 for h in handles} | {SYSTEM: 0})
    game = Stud(wallet, StudRules(), rng=random.Random(1), deck=lambda seal, gid: list(deck))
    for h in ("p1", "p2", "p3"):
        game.apply(h, act.Sit(), 0.0)
    events = game.tick(game.deadline())
    downs = [e for e in events if e.kind == "down"]
    assert {(e.handle, e.to, e.data["cards"]) for e in downs} == {
        ("p2", "p2", ("A+", "K+")), ("p3", "p3", ("A*", "K*")), ("p1", "p1", ("A#", "K#"))}
    ups = [e for e in events if e.kind == "up"]
    assert all(e.to is None for e in ups)
    assert {e.handle: e.data["cards"] for e in ups} == {"p2": ("5#",), "p3": ("9+",),
                                                        "p1": ("2-",)}
    # The public seats hold up cards and a count of down cards, never the down cards.
    for s in game.seats():
        assert s.down == 2 and len(s.up) == 1
        assert not set(game.down_cards(s.handle)) & set(s.up)
    assert game.hands() == {"p1": ("A#", "K#"), "p2": ("A+", "K+"), "p3": ("A*", "K*")}
    # No public event carries a down card.
    private = {c for e in downs for c in e.data["cards"]}
    assert not any(private & set(map(str, e.data.get("cards", ()))) for e in events
                   if e.to is None)


def test_timeouts_post_the_bring_in_check_when_free_else_fold():
    deck = stacked(["A+ K+ 5#", "A* K* 9+", "A# K# 2-"], ["3+", "4+", "6+"])
    game, _ = table(3, deck=deck, turn_timeout=30.0)
    assert game.current == "p1" and game.bring_in_due
    events = game.tick(game.deadline())
    assert events[0].kind == "bring_in" and events[0].data["timeout"] is True
    play(game, ("p2", RAISE))
    events = game.tick(game.deadline())                 # p3 faces 10: folds
    assert events[0].kind == "fold" and events[0].handle == "p3"
    play(game, ("p1", CALL))
    assert game.street is Street.FOURTH
    first = game.current
    events = game.tick(game.deadline())                 # free: a check
    assert events[0].kind == "check" and events[0].handle == first


def test_calling_the_hand_off_gives_antes_and_bets_back_to_the_stacks():
    game, wallet = table(3)
    play(game, (game.current, CALL))
    events = game.apply("p1", act.Cancel("shutdown"), 2.0)
    assert events[0].kind == "cancelled"
    assert sorted(events[0].data["refunds"].values()) == [1, 1, 4]
    assert game.street is Street.IDLE
    assert {h: game.stack(h) for h in ("p1", "p2", "p3")} == {"p1": 1000, "p2": 1000,
                                                              "p3": 1000}
    assert kinds(events)[1:3] == ["seed", "next_commitment"]


def test_leaving_at_the_bring_in_posts_it_then_folds_and_cashes_out_at_the_end():
    deck = stacked(["A+ K+ 5#", "A* K* 9+", "A# K# 2-"])
    game, wallet = table(3, deck=deck)
    events = game.apply("p1", act.Leave(), 1.0)
    assert kinds(events)[:2] == ["leaving", "bring_in"]
    events = play(game, ("p2", RAISE), ("p3", CALL))
    assert ("fold", "p1") in [(e.kind, e.handle) for e in events]
    assert "p1" in game.handles                       # until the hand ends
    while game.street is not Street.IDLE:
        play(game, (game.current, CALL))
    assert "p1" not in game.handles and wallet.balance("p1") == 1000 - 1 - 3


def test_seven_players_to_seventh_street_skip_a_burn_and_the_deal_verifies():
    """Seven players and seven cards each are 49 cards: with four burns the deck would
    be one short, so seventh street is dealt without its burn; the record walks its
    fair deck card for card."""
    game, wallet = table(7, cubes=2000)
    while game.street is not Street.IDLE:
        play(game, (game.current, CALL))
    entry = wallet.games[1]
    ops = entry["history"]["operations"]
    streets = [op for op in ops if op["op"] == "street"]
    assert ["burn" in op for op in streets] == [False, True, True, True, False]
    assert sum(op["op"] == "deal" for op in ops) == 7 * 5
    seal = entry["seal"]
    verdict = audit.verify_deal("stud", 1, seal.server_seed, seal.commitment,
                                seal.client_seeds, ops)
    assert verdict.ok and verdict.checked == 49 + 3 + sum(
        len(op["cards"].split()) for op in ops if op["op"] == "show")
    changed = [dict(op, up="2+") if op["op"] == "deal" and op["street"] == "fifth"
               else op for op in ops]
    bad = audit.verify_deal("stud", 1, seal.server_seed, seal.commitment,
                            seal.client_seeds, changed)
    assert not bad.ok and bad.mismatches[0].what == "draw"


def test_a_hands_phh_replays_in_pokerkit_to_the_same_stacks():
    game, wallet = table(4, stacks=[1000, 25, 1000, 300])
    rng = random.Random(7)
    while game.street is not Street.IDLE:
        h = game.current
        play(game, (h, rng.choice(game.legal_actions(h, 1.0)[:-1])()))
    record = wallet.games[1]["history"]
    hh = HandHistory.loads(record["phh"])
    assert hh.variant == "F7S" and hh.hand == 1 and hh.players == record["players"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        for state in hh:
            pass
    assert dict(zip(hh.players, state.stacks)) == record["stacks"] == {
        h: game.stack(h) for h in ("p1", "p2", "p3", "p4")}


def test_random_hands_conserve_cubes_and_stacks_move_only_through_the_wallet():
    game, wallet = table(5)
    total = wallet.total()
    rng = random.Random(11)
    now = 1.0
    for _ in range(40):
        while game.street is not Street.IDLE:
            h = game.current
            game.apply(h, rng.choice(game.legal_actions(h, now)[:-1])(), now)
        for h in list(game.handles):
            if game.stack(h) == 0:
                game.apply(h, act.Leave(), now)
        now = game.deadline() or now
        if len(game.handles) < 2:
            break
        game.tick(now)
        assert wallet.total() == total
    for h in list(game.handles):
        assert game.stack(h) == wallet.stack(h)


@pytest.mark.parametrize("numbers, message", [
    (dict(seats=8), "seats"), (dict(seats=1), "seats"), (dict(bring_in=10), "bring_in"),
    (dict(bring_in=0), "bring_in"), (dict(ante=-1), "ante"),
    (dict(buy_in_min=5), "buy_in_min")])
def test_rules_that_make_no_game_are_refused(numbers, message):
    with pytest.raises(ValueError, match=message):
        StudRules(**numbers)  # type: ignore[arg-type]


def test_the_crosscheck_against_pokerkit_alone_short_run():
    """scripts/stud_crosscheck.py in a short run: random hands through the table, its
    seating and buy-ins on a real ledger, each replayed from its PHH in pokerkit alone to
    the same stacks and its cards checked against its fair deck; the ledger verifies."""
    script = ROOT / "scripts" / "stud_crosscheck.py"
    done = subprocess.run([sys.executable, str(script), "--hands", "300", "--seed", "3"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("300 hands, ") and "ledger verify clean" in done.stdout


def test_an_all_in_hand_is_shown_once_with_all_seven_cards_when_they_are_out():
    """Heads-up, p2 all in on third street: pokerkit turns both hands up at once and again
    at the showdown; each is shown once, after seventh street, with all seven cards."""
    deck = stacked(["A+ A* 5#", "7# 8# 2-"], ["3+", "J-"], ["6*", "Q-"], ["8+", "J#"],
                   ["2+", "5-"])                   # dealer p1: p2 is dealt first
    game, wallet = table(2, deck=deck, stacks=[1000, 11])
    events = play(game, ("p1", CALL), ("p2", RAISE), ("p1", CALL))
    assert game.street is Street.IDLE
    shows = [e for e in events if e.kind == "show"]
    assert sorted(e.handle for e in shows) == ["p1", "p2"]
    assert all(len(e.data["cards"]) == 7 for e in shows)
    last_deal = max(i for i, e in enumerate(events) if e.kind in ("up", "down"))
    assert all(events.index(e) > last_deal for e in shows)
    ops = [op.kind for op in game.operations]
    assert ops.count("show") == 2 and "muck" not in ops


def test_a_stud_tables_entry_keeps_its_own_defaults_and_refuses_what_makes_no_game(tmp_path):
    """A ``[[tables]]`` entry with ``game = "stud"`` takes the ``[table]`` bets and buy-in
    but keeps stud's own seats (7), ante (1) and policy unless it sets them; seats
    beyond 7 and a bring-in not below the small bet are refused naming the key."""
    from bbspoker.config import ConfigError, load_config
    from bbspoker.rules.stud.kind import StudConfig

    def load(text: str):
        path = tmp_path / "c.toml"
        path.write_text("[table]\nante = 10\nsmall_bet = 20\n" + text)
        return load_config(path)

    spec = load('[[tables]]\nid = "s"\nname = "S"\ngame = "stud"\n').table_specs[0]
    assert isinstance(spec.config, StudConfig)
    assert (spec.config.seats, spec.config.ante, spec.config.small_bet,
            spec.config.bring_in, spec.config.bot_policy) == (7, 1, 20, 3, "strength")
    assert spec.config.rules() == StudRules(seats=7, small_bet=20, ante=1, bring_in=3)
    with pytest.raises(ConfigError, match="seats must be between 2 and 7"):
        load('[[tables]]\nid = "s"\nname = "S"\ngame = "stud"\nseats = 8\n')
    with pytest.raises(ConfigError, match="bring_in must be at least 1 and below small_bet"):
        load('[[tables]]\nid = "s"\nname = "S"\ngame = "stud"\nbring_in = 20\n')
    with pytest.raises(ConfigError, match="bot_policy must be one of strength"):
        load('[[tables]]\nid = "s"\nname = "S"\ngame = "stud"\nbot_policy = "equity"\n')


def test_the_stud_kinds_settings_load_without_the_poker_engine():
    """The config and every ``bbspoker`` command read stud's kind (its config, its deck
    and its record's walk) without importing pokerkit; the game loads when a table is
    made."""
    code = ("import sys; from bbspoker.rules import kinds; spec = kinds.kind('stud'); "
            "spec.config, spec.walk; import bbspoker.rules.stud; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'pokerkit'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


# ------------------------------------------------- stakes that change, tournaments


def finish(game: Stud) -> None:
    """Play the running hand out: the bring-in, then checks and calls."""
    while game.street is not Street.IDLE:
        play(game, (game.current, CALL))


def test_new_stakes_take_effect_at_the_next_hand_with_the_bring_in_in_proportion():
    """``set_stakes`` between levels: the hand in play keeps its ante, bring-in and bets;
    the next hand is dealt with the new small bet and ante and a bring-in in the table's
    own proportion to the small bet (3 of 10: 6 at 20/40), and its ``hand`` event and the
    view say so."""
    game, wallet = table(3, buy_in_min=40)
    game.set_stakes(small_bet=20, ante=4)
    assert game.pot_total == 3 and game.to_call(game.current) == 3
    board = game.board()
    assert (board.ante, board.bring_in, board.small_bet) == (1, 3, 10)
    finish(game)
    assert wallet.games[1]["history"]["ante"] == 1
    board = game.board()
    assert (board.ante, board.bring_in, board.small_bet, board.big_bet) == (4, 6, 20, 40)
    events = game.tick(game.deadline())
    hand = next(e for e in events if e.kind == "hand")
    assert {k: hand.data[k] for k in ("ante", "bring_in", "small_bet", "big_bet")} == {
        "ante": 4, "bring_in": 6, "small_bet": 20, "big_bet": 40}
    assert game.pot_total == 3 * 4 and game.to_call(game.current) == 6
    assert game.raise_to(game.current) == 20
    game.set_stakes(small_bet=15, ante=0, bring_in=7)      # or one the director names
    finish(game)
    assert (game.board().bring_in, game.board().ante) == (7, 0)


@pytest.mark.parametrize("stakes", [{"small_bet": 1, "ante": 0}, {"small_bet": 20, "ante": -1},
                                    {"small_bet": 20, "ante": 1, "bring_in": 20}])
def test_invalid_stud_stakes_are_refused_and_change_nothing(stakes):
    game, _ = table(3)
    with pytest.raises(ValueError):
        game.set_stakes(**stakes)
    finish(game)
    assert (game.board().small_bet, game.board().ante, game.board().bring_in) == (10, 1, 3)


def tournament(n: int, chips: list[int], **rules: object) -> tuple[Stud, MemoryWallet]:
    """(game, wallet): a stud tournament table, p1..pn with ``chips[i]`` chips in the
    tournament's wallet, each seated with ``Sit()``; the first hand is dealt."""
    handles = [f"p{i + 1}" for i in range(n)]
    wallet = MemoryWallet(dict(zip(handles, chips)) | {SYSTEM: 0})
    game = Stud(wallet, StudRules(tournament=True, **rules),  # type: ignore[arg-type]
                rng=random.Random(n))
    for h in handles:
        game.apply(h, act.Sit(), 0.0)
    game.tick(game.deadline())
    return game, wallet


def test_a_stud_tournament_seat_takes_every_chip_and_only_the_director_removes_it():
    wallet = MemoryWallet({"ann": 7, "bob": 90000, "cy": 0, SYSTEM: 0})
    game = Stud(wallet, StudRules(tournament=True), rng=random.Random(1))
    game.apply("ann", act.Sit(), 0.0)
    game.apply("bob", act.Sit(), 0.0)
    assert (game.stack("ann"), game.stack("bob")) == (7, 90000)
    for who, action, code in (("cy", act.Sit(), "no_tournament_chips"),
                              ("zed", act.Sit(), "no_tournament_chips"),
                              ("cy", act.Sit(buy_in=100), "tournament_seat"),
                              ("ann", act.Leave(), "tournament_seat")):
        with pytest.raises(RuleError) as err:
            game.apply(who, action, 0.0)
        assert err.value.code == code
    game.tick(game.deadline())
    with pytest.raises(RuleError) as err:
        game.remove("bob", 6.0)
    assert err.value.code == "in_hand"
    finish(game)
    events = game.remove("ann", 7.0)
    assert events[0].kind == "left" and wallet.balance("ann") == events[0].data["cash_out"]
    assert game.handles == ["bob"] and wallet.total() == 90007


def test_a_stud_tournament_player_away_is_dealt_in_and_gives_up_at_once():
    """Blinded away: one sitting out (or whose connection was lost) is dealt in, posts
    the ante, posts the bring-in when it is theirs, checks when free, else folds, at
    once; the idle rule stands nobody up; a player with no chips left stays seated."""
    game, wallet = tournament(3, [200, 200, 200], idle_hands=1)
    for h in ("p2", "p3"):
        game.apply(h, act.Leave("lost_connection") if h == "p3" else act.SitOut(), 1.0)
    for _ in range(6):
        while game.street is not Street.IDLE:
            assert game.current == "p1"             # the only one ever given the turn
            play(game, ("p1", RAISE if act.BetRaise in game.legal_actions("p1", 1.0)
                        else CALL))
        assert game.handles == ["p1", "p2", "p3"]
        game.tick(game.deadline())
        hand = game.operations
        assert sorted(op.handle for op in hand if op.kind == "ante") == sorted(
            s.handle for s in game.seats() if s.dealt)
    assert wallet.total() == 600
