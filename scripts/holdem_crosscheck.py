#!/usr/bin/env python3
"""Cross-check the Hold'em table against pokerkit alone.

Plays random hands with random legal actions through our table (``Holdem`` with its
seating, buy-ins, cash-outs and sitting out) on a real SQLite ledger, and after every hand
replays the hand's stored PHH record in pokerkit alone (a fresh ``HandHistory`` parse, the
same deck and actions) and checks that it ends with exactly the stacks the table and the
ledger hold, and that it pays the same winners (at a showdown the same shares of the
pots); at the end ``ledger verify`` must be clean and every CUBE accounted for.

``--limit pot`` or ``no`` plays pot-limit or no-limit tables: a bet or raise is then the
smallest one, the largest (at no limit an all-in) or any amount between, at random. The
pot-limit record's PHH variant ``PT`` is read by ``HoldemHandHistory``, pokerkit's
``HandHistory`` with pokerkit's own pot-limit betting structure for Texas Hold'em.

The stakes change as a tournament's levels do: the table starts with or without an ante,
and now and then between hands ``set_stakes`` gives it another big blind and ante (short
stacks then post trimmed antes, all in).

    scripts/holdem_crosscheck.py [--hands 10000] [--seed 1] [--limit fixed|pot|no] [--db PATH]

Prints the figures and exits 1 on the first difference (with the hand's id and PHH).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
import warnings
from pathlib import Path

from pokerkit import ChipsPushing

from bbspoker.rules import actions as act
from bbspoker.rules.holdem import Holdem, HoldemRules, Street
from bbspoker.rules.holdem.game import HoldemHandHistory
from bbspoker.store.sqlite import Ledger
from bbspoker.table.registry import TableWallet

PLAYERS = [f"x{i}" for i in range(1, 10)]
#: The antes a table plays with (0: none), in chips.
ANTES = (0, 0, 1, 5, 25)
TABLE = "holdem"


def crosscheck(hands: int, seed: int, db: Path, limit: str = "fixed") -> dict[str, float]:
    """Play ``hands`` hands at a ``limit`` table; returns the figures. Raises
    AssertionError on a difference."""
    rng = random.Random(seed)
    ledger = Ledger(db)
    for h in PLAYERS:
        ledger.create_account(h, None, 10**7)
    total = ledger.totals()
    rules = HoldemRules(seats=9, small_bet=10, buy_in_min=20, buy_in_max=600, between_hands=1,
                        limit=limit, ante=rng.choice(ANTES))
    game = Holdem(TableWallet(ledger, TABLE), rules, rng=random.Random(seed))
    now, actions, showdowns, all_ins, side_pots, antes = 0.0, 0, 0, 0, 0, 0
    began = time.perf_counter()
    for n in range(hands):
        if rng.random() < 0.02:                          # the next level's stakes
            game.set_stakes(small_bet=rng.choice((10, 20)), ante=rng.choice(ANTES))
        # Between hands: people come, go, sit out and come back, rebuy when broke.
        for h in PLAYERS:
            seated = h in game.handles
            roll = rng.random()
            if not seated and (roll < 0.15 or len(game.handles) < 2):
                game.apply(h, act.Sit(buy_in=rng.randint(rules.buy_in_min, rules.buy_in_max)),
                           now)
            elif seated and (roll < 0.03 or game.stack(h) == 0):
                game.apply(h, act.Leave(), now)
            elif seated and roll < 0.06:
                game.apply(h, act.SitOut(out=not next(s.out for s in game.seats()
                                                      if s.handle == h)), now)
        due = game.deadline()
        if due is None:
            continue
        now = max(now, due)
        game.tick(now)
        gid = game.game_id
        if gid is None:
            continue
        pots = 1
        while game.street is not Street.IDLE:
            h = game.current
            choice = rng.choices(game.legal_actions(h, now)[:-1], k=1)[0]
            if rng.random() < 0.01:                       # someone leaves mid-hand
                game.apply(h, act.Leave(), now)
            elif rng.random() < 0.01:                     # or times out
                now = game.deadline()
                game.tick(now)
            elif choice is act.BetRaise and limit != "fixed":
                low, high = game.raise_to(h), game.max_raise_to(h)
                assert low is not None and high is not None
                game.apply(h, act.BetRaise(to=rng.choice([low, high, rng.randint(low, high)])),
                           now)
            else:
                game.apply(h, choice(), now)
            actions += 1
            pots = max(pots, len(game.pots))
        side_pots += pots > 1
        record = ledger.game(gid)
        history = record.history
        assert record.end_reason == "finished", (gid, record.end_reason)
        showdowns += any(op["op"] == "show" for op in history["operations"])
        antes += history["ante"] > 0
        all_ins += any(s.all_in for s in game.seats())
        replay = HoldemHandHistory.loads(history["phh"])
        assert replay.variant == {"fixed": "FT", "pot": "PT", "no": "NT"}[limit]
        with warnings.catch_warnings():     # one who left may have folded a free check
            warnings.simplefilter("ignore", UserWarning)
            for state in replay:
                pass
        alone = dict(zip(replay.players, state.stacks))
        assert alone == history["stacks"], (gid, alone, history["stacks"], history["phh"])
        pushed = dict.fromkeys(replay.players, 0)
        for op in state.operations:
            if isinstance(op, ChipsPushing):
                for p, amount in enumerate(op.amounts):
                    pushed[replay.players[p]] += amount
        won = {h: cubes for h, cubes in pushed.items() if cubes}
        # The same winners; at a showdown the same shares (when all others fold, pokerkit
        # pushes the pots without the last betting round's bets, which it then pulls in
        # with them: the stacks above hold that).
        shown = any(op["op"] == "show" for op in history["operations"])
        assert (won if shown else won.keys()) == (
            history["winners"] if shown else history["winners"].keys()), (
            gid, won, history["winners"], history["phh"])
        for h, stack in alone.items():
            if h in game.handles:
                assert game.stack(h) == stack == ledger.stack(h, table=TABLE), (
                    gid, h, game.stack(h), stack, ledger.stack(h, table=TABLE))
            else:
                assert ledger.stack(h, table=TABLE) == 0, (gid, h)
    for h in list(game.handles):
        game.apply(h, act.Leave(), now)
    ledger.commit_pending()
    problems = ledger.verify()
    assert problems == [], problems
    after = ledger.totals()
    assert after.grants - after.takes == total.grants - total.takes and after.stacks == 0
    seconds = time.perf_counter() - began
    ledger.close()
    return {"hands": hands, "actions": actions, "showdowns": showdowns,
            "side_pots": side_pots, "antes": antes, "seconds": seconds}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--limit", choices=("fixed", "pot", "no"), default="fixed")
    parser.add_argument("--db", type=Path, help="ledger file (default: a temporary one)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or Path(tmp) / "crosscheck.db"
        try:
            f = crosscheck(args.hands, args.seed, db, args.limit)
        except AssertionError as err:
            print(f"DIFFERENCE: {err}", file=sys.stderr)
            return 1
    of = "" if args.limit == "fixed" else f" of {args.limit}-limit"
    print(f"{f['hands']:,} hands{of}, {f['actions']:,} actions, {f['showdowns']:,} showdowns, "
          f"{f['side_pots']:,} with side pots, {f['antes']:,} with antes: every hand's stacks equal pokerkit's replay "
          f"of its PHH and the ledger's, its winners the replay's; ledger verify clean "
          f"({f['seconds']:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
