"""Schiebe-Poker (issue 17): one test per sentence of ``schiebe-poker-de.txt``, quoted, and
the decisions of docs/rules.md where the text is silent; then a property test over random
games (every one of the 52 cards in exactly one place) and the audit of a record."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bbspoker.door.screens.kinds import describe_operation
from bbspoker.rules import actions as act
from bbspoker.rules import fairness
from bbspoker.rules.audit import verify_deal
from bbspoker.rules.base import GameRules
from bbspoker.rules.cards import STANDARD52
from bbspoker.rules.events import RuleError
from bbspoker.rules.schiebe.actions import NoSwap, Propose, Push, Swap, SwapAll, Vote
from bbspoker.rules.schiebe.game import Phase, Schiebe, SchiebeRules
from bbspoker.rules.schiebe.hands import CARDS, Category, category
from bbspoker.store.wallet import SYSTEM, MemoryWallet
from tests.support.ruletext import wording

#: This module plays schiebe tables and reads them in its words.
text, texts, refused = wording("schiebe")

PLAYERS = ("alice", "bob", "carol", "dave")


def seated(n=3, cubes=1000, seed=1, **rules):
    wallet = MemoryWallet({p: cubes for p in PLAYERS[:n]} | {SYSTEM: 0})
    game = Schiebe(wallet, SchiebeRules(**rules), rng=random.Random(seed))
    for p in PLAYERS[:n]:
        game.apply(p, act.Sit(), 0.0)
    return game, wallet


def started(n=3, rounds=2, seed=1, **rules):
    """A game agreed by everyone at time 0; returns (game, wallet, events)."""
    game, wallet = seated(n, seed=seed, **rules)
    ev = game.apply("alice", Propose(rounds), 0.0)
    for p in PLAYERS[1:n]:
        ev += game.apply(p, Vote(True), 0.0)
    return game, wallet, ev


def seal_of(wallet, game_id=1) -> fairness.Seal:
    return wallet.games[game_id]["seal"]


# ----------------------------------------------------------------- the deal


@pytest.mark.parametrize("n", [2, 3, 4])
def test_the_deal_two_hidden_three_open_three_in_the_middle_the_rest_to_draw(n):
    # "Zu Beginn des Spiels erhält jede*r Spieler*innen zwei verdeckte und drei offene
    # Karten. Drei Karten werden offen in die Mitte gelegt. Die übrigen Karten bilden einen
    # Nachziehstapel. Zusätzlich gibt es einen Ablagestapel, der zu Beginn des Spiels leer ist."
    game, wallet, ev = started(n)
    assert isinstance(game, GameRules) and game.kind == "schiebe"
    board = game.board()
    for p in PLAYERS[:n]:
        assert len(game.cards_of(p)) == 2 and len(game.open_cards(p)) == 3
    assert len(board.middle) == 3
    assert board.draw_count == 52 - 5 * n - 3 and board.discard_count == 0
    assert board.top_discard is None
    # Dealt from the top of the sealed deck of 52, in seat order: hidden, open; then the middle.
    deck = seal_of(wallet).deck(STANDARD52.cards(), 1)
    dealt = [c for p in PLAYERS[:n] for c in (*game.cards_of(p), *game.open_cards(p))]
    assert dealt + list(board.middle) == deck[:5 * n + 3]
    # The hidden cards go to their owner only.
    private = [e for e in ev if e.kind == "cards"]
    assert [(e.to, e.data["cards"]) for e in private] == [(p, game.cards_of(p))
                                                          for p in PLAYERS[:n]]


def test_2_to_4_players_and_a_standard_deck_of_52():
    # "Schiebe-Poker ist ein Kartenspiel für 2-4 Spieler*innen und wird mit einem
    # Standard-Blatt bestehend aus 52 Karten gespielt"
    assert len(CARDS) == len(set(CARDS)) == 52
    assert Counter(c[-1] for c in CARDS) == {"+": 13, "*": 13, "#": 13, "-": 13}
    for bad in (1, 5):
        with pytest.raises(ValueError):
            SchiebeRules(seats=bad)
    game, _ = seated(4, seats=4)
    with refused("All 4 seats"):
        game.apply("erin", act.Sit(), 0.0)
    alone, _ = seated(1)
    assert alone.legal_actions("alice", 0.0) == ()
    with refused("At least two players"):
        alone.apply("alice", Propose(3), 0.0)


# ----------------------------------------------------------------- the rounds


def test_the_players_agree_on_two_to_seven_rounds_before_the_start():
    # "Die Spieler*innen einigen sich vor Spielstart auf eine Anzahl an zu spielenden Runden
    # zwischen zwei und sieben." The first to sit proposes; each other player confirms.
    game, _ = seated(3)
    assert game.legal_actions("alice", 0.0) == (Propose,)
    assert game.legal_actions("bob", 0.0) == ()
    for bad in (1, 8):
        with refused("between 2 and 7"):
            game.apply("alice", Propose(bad), 0.0)
    with refused("Only the game-master"):
        game.apply("bob", Propose(3), 0.0)
    ev = game.apply("alice", Propose(4), 0.0)
    assert texts(ev) == ["alice proposes to play 4 rounds: everyone else, [Y] agree or [N] refuse."]
    assert game.phase is Phase.VOTING and game.game_id is None
    assert game.legal_actions("bob", 1.0) == game.legal_actions("carol", 1.0) == (Vote,)
    assert texts(game.apply("bob", Vote(True), 1.0)) == ["bob agrees to 4 rounds."]
    with refused("answered already"):
        game.apply("bob", Vote(True), 1.0)
    ev = game.apply("carol", Vote(True), 2.0)
    assert game.phase is Phase.PLAYING and game.rounds == 4 and game.round == 1
    assert "Schiebe-Poker STARTED: 4 rounds." in texts(ev)


def test_one_no_or_no_answer_in_time_drops_the_proposal():
    game, _ = seated(3, turn_timeout=30.0)
    game.apply("alice", Propose(3), 0.0)
    assert texts(game.apply("carol", Vote(False), 1.0)) == ["carol does not want 3 rounds: no game."]
    assert game.phase is Phase.IDLE and game.legal_actions("alice", 1.0) == (Propose,)
    game.apply("alice", Propose(2), 10.0)
    game.apply("bob", Vote(True), 11.0)
    assert game.deadline() == 40.0
    assert texts(game.tick(39.9)) == []
    assert texts(game.tick(40.0)) == ["Not everyone answered in time (carol): no game."]
    assert game.phase is Phase.IDLE


def test_a_random_first_player_drawn_from_the_seal_then_round_in_seat_order():
    # "Beginnend mit einem/einer zufälligen Startspieler*in sind reihum alle Spieler*innen
    # an der Reihe."
    firsts = set()
    for seed in range(12):
        game, wallet, ev = started(3, seed=seed)
        seal = seal_of(wallet)
        first = seal.deck(list(PLAYERS[:3]), 1, "first")[0]
        assert game.current == first
        assert f"{first} was drawn to begin." in texts(ev)
        firsts.add(first)
        order = [game.current]
        for _ in range(2):
            game.apply(game.current, NoSwap(), 1.0)
            game.apply(game.current, NoSwap(), 1.0)
            order.append(game.current)
        i = PLAYERS.index(first)
        assert order == [PLAYERS[(i + k) % 3] for k in range(3)]
    assert firsts == set(PLAYERS[:3])


# ----------------------------------------------------------------- the actions


def test_push_left_discards_the_left_card_and_fills_the_right_from_the_draw_pile():
    # "Beim Verschieben nach links werden die Karten in der Mitte nach links verschoben. Die
    # Karte am linken Rand wird offen auf den Ablagestapel gelegt. Die beiden übrigen Karten
    # wandern einen Platz nach links, und der freie Platz am rechten Rand wird mit einer
    # Karte vom Nachziehstapel aufgefüllt"
    game, _, _ = started(3)
    a, b, c = game.board().middle
    top = game._game.draw[-1]
    who = game.current
    ev = game.apply(who, Push("left"), 1.0)
    board = game.board()
    assert board.middle == (b, c, top)
    assert board.top_discard == a and board.discard_count == 1 and board.draw_count == 33
    from bbspoker.door.screens.schiebe_text import card_name
    assert texts(ev) == [f"{who} pushed the middle to the left; {card_name(a)} to the discard "
                         f"pile, {card_name(top)} came in."]


def test_push_right_is_the_mirror():
    # "Verschieben nach rechts erfolgt analog."
    game, _, _ = started(3)
    a, b, c = game.board().middle
    top = game._game.draw[-1]
    game.apply(game.current, Push("right"), 1.0)
    assert game.board().middle == (top, a, b) and game.board().top_discard == c
    with refused("left or to the right"):
        game.apply(game.current, Push("up"), 1.0)


def test_swap_one_open_card_with_one_middle_card():
    # "eine seiner/ihrer offenen Karten mit einer aus der Mitte"
    game, _, _ = started(3)
    who = game.current
    mine, middle = game.open_cards(who), game.board().middle
    ev = game.apply(who, Swap(0, 2), 1.0)
    assert game.open_cards(who) == (middle[2], mine[1], mine[2])
    assert game.board().middle == (middle[0], middle[1], mine[0])
    from bbspoker.door.screens.schiebe_text import card_name
    assert texts(ev) == [f"{who} swapped their left open card ({card_name(mine[0])}) for the "
                         f"middle row's right card ({card_name(middle[2])})."]
    with refused("Positions are 1 to 3"):
        game.apply(who, Swap(3, 0), 1.0)


def test_swap_all_three_position_by_position_and_no_swap():
    # "alle drei seiner/ihrer offenen Karten mit den drei Karten in der Mitte" - "Bei einem
    # Dreifach-Tausch wird die linke offene Karte des Spielenden mit der linken offenen Karte
    # in der Mitte getauscht. Für die mittlere und die rechte Karte folgt die Regel analog."
    # "oder verzichtet auf einen Tausch."
    game, _, _ = started(3)
    who = game.current
    mine, middle = game.open_cards(who), game.board().middle
    game.apply(who, SwapAll(), 1.0)
    assert game.open_cards(who) == middle and game.board().middle == mine
    before = (game.open_cards(who), game.board())
    ev = game.apply(who, NoSwap(), 1.0)
    assert texts(ev) == [f"{who} did not swap."]
    assert game.open_cards(who) == before[0] and game.board().middle == before[1].middle


def test_two_actions_a_turn_the_second_chosen_on_the_board_the_first_left():
    # "Pro Spielzug muss jede*r Spieler*in zwei Aktionen durchführen. ... nach der ersten
    # ausgeführten Aktion [wird] das Spielfeld entsprechend dieser Aktion aktualisiert.
    # Daraufhin kann der/die Spieler*in die zweite Aktion auf Basis des neuen Spielfeldes
    # auswählen." Any combination: push x push, swap x swap, push x swap, swap x push.
    for first, second in ((Push("left"), Push("right")), (Swap(1, 1), Swap(1, 1)),
                          (Push("right"), Swap(2, 0)), (SwapAll(), Push("left"))):
        game, _, _ = started(3)
        who = game.current
        game.apply(who, first, 1.0)
        assert game.current == who and game.board().actions_left == 1
        assert game.legal_actions(who, 1.0) == (Push, Swap, SwapAll, NoSwap)
        seen = game.board().middle             # the board after the first action
        mine = game.open_cards(who)
        game.apply(who, second, 2.0)
        assert game.current != who
        if isinstance(second, Swap):           # the second took what the first left there
            assert game.open_cards(who)[second.own] == seen[second.middle]
            assert game.board().middle[second.middle] == mine[second.own]
    with refused("not your turn"):
        game.apply(who, NoSwap(), 3.0)


def test_the_open_cards_are_never_sorted():
    # "Die offenen Karten der Spielenden dürfen nicht sortiert werden. Die Reihenfolge der
    # Karten ergibt sich alleine aus der initialen Befüllung der Karten und den daraufhin
    # ausgeführten Spielaktionen."
    for seed in range(20):
        game, wallet, _ = started(2, seed=seed)
        deck = seal_of(wallet).deck(STANDARD52.cards(), 1)
        assert game.open_cards("alice") == tuple(deck[2:5])     # the deal's order, as dealt
        assert game.open_cards("bob") == tuple(deck[7:10])
        who = game.current
        mine, middle = game.open_cards(who), game.board().middle
        game.apply(who, Swap(1, 0), 1.0)                        # the new card takes its place
        assert game.open_cards(who) == (mine[0], middle[0], mine[2])
    unsorted = [game for seed in range(20) for game in [started(2, seed=seed)[0]]
                if list(game.open_cards("alice")) != sorted(game.open_cards("alice"),
                                                              key=CARDS.index)]
    assert unsorted                                             # so a sort would show


def test_an_empty_draw_pile_reshuffles_the_discard_pile_from_the_seal():
    # "Sollte der Nachziehstapel zu einem Zeitpunkt leer sein, an dem eine Karte gezogen
    # werden müsste, so wird der Ablagestapel zu diesem Zeitpunkt gemischt und als neuer
    # Nachziehstapel verwendet."
    game, wallet, _ = started(4, rounds=7)
    assert game.board().draw_count == 29
    for _ in range(29):
        game.apply(game.current, Push("left"), 1.0)
    board = game.board()
    assert board.draw_count == 0 and board.discard_count == 29   # not shuffled before needed
    pile = [*game._game.discard, board.middle[0]]                 # the next push adds one
    ev = game.apply(game.current, Push("left"), 1.0)
    board = game.board()
    assert board.discard_count == 0 and board.draw_count == 29    # 30 shuffled, 1 drawn
    expected = seal_of(wallet).deck(sorted(pile, key=CARDS.index), 1, "reshuffle-1")
    assert board.middle[2] == expected[0]
    assert list(reversed(game._game.draw)) == expected[1:]
    assert "the draw pile was empty, so the 30 cards of the discard pile were shuffled into " \
           "a new one" in texts(ev)[0]


def test_the_game_ends_after_the_agreed_rounds():
    # "Das Spiel endet nach der zu Spielbeginn festgelegten Anzahl an Runden."
    for n, rounds in ((2, 2), (3, 3), (4, 7)):
        game, _, _ = started(n, rounds=rounds)
        actions = 0
        while game.phase is Phase.PLAYING:
            game.apply(game.current, NoSwap(), 1.0)
            actions += 1
        assert actions == 2 * n * rounds
        assert game.operations[-1].kind == "ranking"


def test_a_turn_timeout_makes_the_remaining_actions_no_swap():
    game, _, _ = started(3, turn_timeout=60.0)
    first = game.current
    game.apply(first, Push("left"), 10.0)
    assert game.deadline() == 60.0               # the turn's clock, from its start
    ev = game.tick(60.0)
    assert texts(ev) == [f"{first} did not act within 1 minute: no swap for the remaining "
                         "action."]
    second = game.current
    assert second != first and game.deadline() == 120.0
    assert texts(game.tick(120.0)) == [f"{second} did not act within 1 minute: no swap for "
                                       "the remaining 2 actions."]
    kinds = [(op.kind, op.data.get("timeout")) for op in game.operations[-3:]]
    assert kinds == [("no_swap", True)] * 3


# ----------------------------------------------------------------- the value of a hand


@pytest.mark.parametrize("hand,expected", [
    ("A+ K+ Q+ J+ 10+", Category.ROYAL_FLUSH), ("9* 8* 7* 6* 5*", Category.STRAIGHT_FLUSH),
    ("5# 4# 3# 2# A#", Category.STRAIGHT_FLUSH), ("7+ 7* 7# 7- 2+", Category.FOUR_OF_A_KIND),
    ("3+ 3* 3# 2- 2+", Category.FULL_HOUSE), ("2- 9- J- 4- K-", Category.FLUSH),
    ("A+ 2* 3# 4- 5+", Category.STRAIGHT), ("10+ J* Q# K- A+", Category.STRAIGHT),
    ("Q+ Q* Q# 2- 9+", Category.THREE_OF_A_KIND), ("K+ K* 3# 3- 9+", Category.TWO_PAIR),
    ("8+ 8* 3# 4- 9+", Category.ONE_PAIR), ("A+ 2* 7# 4- 9+", Category.HIGH_CARD),
    ("Q+ K* A# 2- 3+", Category.HIGH_CARD),   # no wrap-around straight
])
def test_a_hand_is_valued_by_its_poker_category(hand, expected):
    # "Der Wert einer Hand ergibt sich nach den Regeln für Poker ... und liegt zwischen
    # Höchste Karte und Royal Flush."
    assert category(hand.split()) is expected


def test_equal_categories_tie_whatever_decides_them_the_texts_examples():
    # "Haben zwei Spieler*innen die gleiche Handstärke, wird es als unentschieden gewertet,
    # unabhängig vom Entscheidungskriterium ... Dies gilt auch für „Höchste Karte“. ... einmal
    # ein Ass als höchste Karte und einmal einen König ... unentschieden. ... je zwei Paare,
    # ist dies als unentschieden zu werten, unabhängig von der Höhe der jeweiligen Paare bzw.
    # fünften Karte."
    assert category("A+ 2* 7# 4- 9+".split()) == category("K+ 2* 7# 4- 9*".split())
    assert category("A+ A* K# K- Q+".split()) == category("3+ 3* 2# 2- 4+".split())
    game, wallet, _ = started(4, rounds=2, ante=10)
    hands = {"alice": "A+ A* K# K- Q+", "bob": "3+ 3* 2# 2- 4+",      # two pairs, both
             "carol": "A# 2* 7# 4- 9+", "dave": "K+ J* 7* 5- 9*"}    # high card, both
    _deal(game, hands)
    ev = _finish(game)
    assert ("Final ranking: 1. alice (Two pairs), 1. bob (Two pairs), 3. carol (High card), "
            "3. dave (High card). alice and bob share the pot of 40 CUBES: 20 each.") in texts(ev)
    assert wallet.balances["alice"] == wallet.balances["bob"] == 1010
    assert game.payouts() == {"alice": 20, "bob": 20}


def test_a_pot_that_does_not_divide_leaves_its_remainder_to_the_system_recorded():
    game, wallet, _ = started(3, rounds=2, ante=5)
    _deal(game, {"alice": "A+ A* K# K- Q+", "bob": "3+ 3* 2# 2- 4+", "carol": "A# 2* 7# 4- 9+"})
    ev = _finish(game)
    assert ("Final ranking: 1. alice (Two pairs), 1. bob (Two pairs), 3. carol (High card). "
            "alice and bob share the pot of 15 CUBES: 7 each. 1 CUBE that does not divide "
            "goes to the system.") in texts(ev)
    assert wallet.balances[SYSTEM] == 1 and wallet.total() == 3000
    ranking = game.operations[-1]
    assert ranking.kind == "ranking" and ranking.data["remainder"] == 1
    assert ranking.data["shares"] == {"alice": 7, "bob": 7}
    assert describe_operation(ranking.as_dict(), "schiebe").endswith("goes to the system.")
    assert wallet.games[1]["history"]["ranking"] == [[1, "alice", "TWO_PAIR"],
                                                     [1, "bob", "TWO_PAIR"],
                                                     [3, "carol", "HIGH_CARD"]]


def test_no_ante_no_money_but_a_game_record_with_its_ranking():
    game, wallet, _ = started(2, rounds=2)
    _finish(game)
    assert wallet.total() == 2000 and not wallet.journal
    record = wallet.games[1]
    assert record["closed"] and record["history"]["game"] == "schiebe"
    assert record["history"]["pot"] == 0 and record["history"]["ranking"]


def test_a_player_who_leaves_is_out_and_the_last_one_left_is_ranked_alone():
    game, wallet, _ = started(3, rounds=3, ante=10)
    leaver = game.current
    game.apply(leaver, Push("left"), 1.0)
    ev = game.apply(leaver, act.Leave(), 2.0)
    assert game.phase is Phase.PLAYING and game.current not in (leaver, None)
    assert leaver not in game.handles and game.board().actions_left == 2
    assert sum(len(v) for v in game.places().values()) == 52
    ev = game.apply(game.current, act.Leave(), 3.0)
    assert game.phase is Phase.IDLE
    last = game.handles[0]
    assert any(t.startswith(f"Final ranking: 1. {last} (") and
               t.endswith(f"{last} wins the pot of 30 CUBES.") for t in texts(ev))


def test_a_cancel_gives_every_ante_back():
    game, wallet, _ = started(3, ante=10)
    ev = game.apply(None, act.Cancel("shutdown"), 1.0)
    assert ev[0].data["refunds"] == {"alice": 10, "bob": 10, "carol": 10}
    assert [e.kind for e in ev] == ["cancelled", "seed", "next_commitment"]
    assert game.phase is Phase.IDLE and wallet.balances["alice"] == 1000


def _deal(game: Schiebe, hands: dict[str, str]) -> None:
    """Give each player these five cards (two hidden, three open) in place of the deal,
    taking them out of wherever they are (the draw pile, the middle) and putting what the
    players held there instead: every card stays in one place."""
    g = game._game
    wanted = {h: cards.split() for h, cards in hands.items()}
    taken = {c for cards in wanted.values() for c in cards}
    freed = [c for s in game._seats if s is not None for c in (*s.hidden, *s.open)
             if c not in taken]
    for pile in (g.draw, g.middle, g.discard):
        for k, c in enumerate(pile):
            if c in taken:
                pile[k] = freed.pop()
    for s in game._seats:
        if s is not None and s.handle in wanted:
            s.hidden, s.open = tuple(wanted[s.handle][:2]), wanted[s.handle][2:]
    assert sum(len(v) for v in game.places().values()) == 52 == len(
        {c for v in game.places().values() for c in v})


def _finish(game: Schiebe) -> list:
    ev = []
    while game.phase is Phase.PLAYING:
        ev += game.apply(game.current, NoSwap(), 1.0)
    return ev


# ----------------------------------------------------------------- properties and audit

_ACTIONS = st.one_of(
    st.tuples(st.just("push"), st.sampled_from(["left", "right"])),
    st.tuples(st.just("swap"), st.integers(0, 2), st.integers(0, 2)),
    st.tuples(st.just("all")), st.tuples(st.just("none")), st.tuples(st.just("timeout")),
    st.tuples(st.just("leave")))


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 4), rounds=st.integers(2, 7), seed=st.integers(0, 2**32),
       moves=st.lists(_ACTIONS, min_size=0, max_size=120))
def test_random_games_account_for_all_52_cards_in_one_place_each(n, rounds, seed, moves):
    game, wallet, _ = started(n, rounds=rounds, seed=seed, ante=3)
    now = 0.0
    for move in moves:
        if game.phase is not Phase.PLAYING:
            break
        who = game.current
        if move[0] == "push":
            game.apply(who, Push(move[1]), now)
        elif move[0] == "swap":
            game.apply(who, Swap(move[1], move[2]), now)
        elif move[0] == "all":
            game.apply(who, SwapAll(), now)
        elif move[0] == "none":
            game.apply(who, NoSwap(), now)
        elif move[0] == "timeout":
            now += 60.0
            game.tick(now)
        elif len(game.handles) > 2 or rounds == 7:
            game.apply(who, act.Leave(), now)
        if game.phase is Phase.PLAYING:
            places = game.places()
            cards = [c for cards in places.values() for c in cards]
            assert len(cards) == 52 and set(cards) == set(CARDS)
            for handle in game.handles:
                if game.is_active(handle):
                    assert len(places[handle]) == 5
            assert len(places["middle"]) == 3
    _finish(game)
    assert wallet.total() == n * 1000 and not any(wallet.pots.values())
    record = wallet.games[1]["history"]["operations"]
    seal = seal_of(wallet)
    verdict = verify_deal("schiebe", 1, seal.server_seed, seal.commitment, seal.client_seeds,
                          record)
    assert verdict.ok, verdict.mismatches


def test_the_audit_replays_a_record_with_a_reshuffle_and_finds_a_changed_card():
    game, wallet, _ = started(4, rounds=7)
    rng = random.Random(5)
    while game.phase is Phase.PLAYING:
        game.apply(game.current, rng.choice([Push("left"), Push("right"), Swap(0, 1)]), 1.0)
    ops = [op.as_dict() for op in game.operations]
    assert any(op.get("reshuffle") for op in ops)
    seal = seal_of(wallet)

    def check(record):
        return verify_deal("schiebe", 1, seal.server_seed, seal.commitment,
                           seal.client_seeds, record)

    assert check(ops).ok and check(ops).checked == 23 + sum(op["op"] == "push" for op in ops)
    after = next(k for k, op in enumerate(ops) if op.get("reshuffle"))
    changed = [dict(op) for op in ops]
    later = next(k for k in range(after + 1, len(ops)) if ops[k]["op"] == "push")
    changed[later]["in"] = next(c for c in CARDS if c != ops[later]["in"])
    verdict = check(changed)
    assert not verdict.ok and verdict.mismatches[0].what == "draw"
    assert verdict.mismatches[0].step == later + 1
    swapped = [dict(op) for op in ops]
    k = next(k for k, op in enumerate(ops) if op["op"] == "swap")
    swapped[k]["gave"] = next(c for c in CARDS if c != ops[k]["gave"])
    assert [m.what for m in check(swapped).mismatches][:1] == ["record"]


def test_a_plain_start_proposes_the_tables_rounds_and_a_refusal_changes_nothing():
    game, wallet = seated(2, rounds=5)
    game.apply("alice", act.Start(), 0.0)
    assert game.board().proposal == 5
    for handle, action, code in [("alice", Vote(True), "voted"), ("bob", Push("left"), "no_game"),
                                 ("alice", Propose(3), "vote_running")]:
        with pytest.raises(RuleError) as err:
            game.apply(handle, action, 1.0)
        assert err.value.code == code and not game.can(handle, action, 1.0)
    assert game.board().proposal == 5 and game.phase is Phase.VOTING
