"""A hypothesis state machine drives 2-5 players through random legal and illegal table
commands, joins, leaves and time jumps, and checks the table's invariants after every step."""

import random

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from bbspoker.rules.cards import DECK
from bbspoker.rules import actions as act
from bbspoker.rules.draw40.game import Draw40, Draw40Rules, Phase
from bbspoker.rules.events import RuleError
from tests.support.ruletext import label
from bbspoker.store.wallet import SYSTEM, MemoryWallet

POOL = ["ann", "bo", "cy", "di", "ed", "flo"]
names = st.sampled_from(POOL)


class TableMachine(RuleBasedStateMachine):
    @initialize(balances=st.lists(st.integers(0, 400), min_size=len(POOL), max_size=len(POOL)),
                seed=st.integers(0, 2**32 - 1), first=st.lists(names, min_size=2, max_size=5,
                                                              unique=True))
    def setup(self, balances, seed, first):
        self.wallet = MemoryWallet(dict(zip(POOL, balances)))
        self.wallet.balances[SYSTEM] = 0
        self.total = self.wallet.total()
        self.table = Draw40(self.wallet, Draw40Rules(max_round=8), rng=random.Random(seed))
        self.now = 0.0
        for h in first:
            self.table.sit(h, self.now)

    # -- helpers ---------------------------------------------------------------------------

    def fingerprint(self):
        t = self.table
        return (sorted(self.wallet.balances.items()), sorted(self.wallet.pots.items()), t.phase,
                t.current, t.master, t.pot, label(t), tuple(t.handles),
                tuple(t.cards_of(h) for h in t.handles), t.deadline(), len(self.wallet.journal))

    def attempt(self, command, *args):
        before = self.fingerprint()
        try:
            command(*args, self.now)
        except RuleError as err:
            assert str(err), "a refusal must say why"
            assert self.fingerprint() == before, "a refused command changed something"

    # -- rules -----------------------------------------------------------------------------

    @rule(h=names)
    def sit(self, h):
        self.attempt(self.table.sit, h)

    @rule(h=names)
    def leave(self, h):
        self.attempt(self.table.leave, h)

    @rule(h=names)
    def start(self, h):
        self.attempt(self.table.start, h)

    @rule(h=names)
    def master_starts(self, h):
        if self.table.master:
            self.attempt(self.table.start, self.table.master)

    @rule(amount=st.integers(-5, 260), see=st.booleans(), anyone=st.booleans(), h=names)
    def bet(self, amount, see, anyone, h):
        who = h if anyone or self.table.current is None else self.table.current
        before = self.fingerprint()
        try:
            self.table.bet(who, amount, self.now, see_hands=see)
        except RuleError:
            assert self.fingerprint() == before

    @rule()
    def call(self):
        h = self.table.current
        if h and act.Bet in self.table.legal_actions(h, self.now):
            low, high = self.table.bet_range(h)
            if low <= high:
                self.table.bet(h, low, self.now)

    @rule()
    def ask_hands(self):
        h = self.table.current
        if h and act.SeeHands in self.table.legal_actions(h, self.now):
            low, high = self.table.bet_range(h)
            if low <= high:
                self.table.bet(h, high, self.now, see_hands=True)

    @rule(h=names)
    def pass_(self, h):
        self.attempt(self.table.pass_, h)

    @rule(h=names, picks=st.lists(st.integers(0, 39), max_size=5), own=st.booleans())
    def discard(self, h, picks, own):
        who = self.table.current if own and self.table.current else h
        hand = self.table.cards_of(who) if who in self.table.handles else ()
        cards = [hand[p % 5] for p in picks] if own and hand else [DECK[p] for p in picks]
        before = self.fingerprint()
        try:
            self.table.discard(who, cards, self.now)
        except RuleError:
            assert self.fingerprint() == before

    @rule(h=names)
    def reveal(self, h):
        self.attempt(self.table.reveal, h)

    @rule(dt=st.sampled_from([0.5, 5.0, 29.0, 59.9, 60.0, 61.0, 180.0, 500.0]))
    def time_passes(self, dt):
        self.now += dt
        self.table.tick(self.now)

    @precondition(lambda self: self.table.phase is not Phase.IDLE)
    @rule()
    def current_player_drops(self):
        self.table.leave(self.table.current, self.now, reason="lost_connection")

    # -- invariants ------------------------------------------------------------------------

    @invariant()
    def cubes_are_conserved(self):
        assert self.wallet.total() == self.total
        assert all(v >= 0 for v in self.wallet.balances.values())
        if self.table.game_id is not None:
            assert self.wallet.pots[self.table.game_id] == self.table.pot

    @invariant()
    def no_card_in_two_places(self):
        held = [c for h in self.table.handles for c in self.table.cards_of(h)]
        game = self.table._game
        undealt = game.deck if game else []
        if game is not None:
            assert len(held) + len(undealt) <= 40
        assert len(set(held) | set(undealt)) == len(held) + len(undealt)

    @invariant()
    def exactly_one_player_to_act_while_a_round_runs(self):
        t = self.table
        if t.phase is Phase.IDLE:
            assert t.current is None
        else:
            assert t.current is not None and t.is_active(t.current)
            acting = [h for h in t.handles if t.legal_actions(h, self.now) and h == t.current]
            others = [h for h in t.handles if h != t.current and t.legal_actions(h, self.now)]
            assert acting == [t.current] and others == []
            assert t.is_active(t.master)

    @invariant()
    def every_closed_game_was_paid_out_exactly_once(self):
        closed = [g for g, info in self.wallet.games.items() if info["closed"]]
        for gid in closed:
            payouts = [j for j in self.wallet.journal if j[0] == gid and j[3] in ("win", "pot-to-system")]
            assert len(payouts) == 1
            assert self.wallet.pots[gid] == 0
        open_games = [g for g in self.wallet.games if g not in closed]
        assert open_games == ([self.table.game_id] if self.table.game_id else [])

    def teardown(self):
        # Every game ends: with nobody acting, timeouts alone finish it.
        for _ in range(200):
            if self.table.phase is Phase.IDLE:
                break
            self.now = self.table.deadline()
            self.table.tick(self.now)
        assert self.table.phase is Phase.IDLE
        self.cubes_are_conserved()
        self.every_closed_game_was_paid_out_exactly_once()


TableMachine.TestCase.settings = settings(
    max_examples=250, stateful_step_count=40, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
test_table_state_machine = TableMachine.TestCase
