#!/usr/bin/env python3
"""Cross-check the seven-card stud table against pokerkit alone.

Plays random hands with random legal actions through our table (``Stud`` with its
seating, buy-ins, cash-outs and sitting out) on a real SQLite ledger, and after every hand
replays the hand's stored PHH record in pokerkit alone (a fresh ``HandHistory`` parse, the
same deck and actions) and checks that it ends with exactly the stacks the table and the
ledger hold, and that every card of its record (burns included) is its published fair
deck's, as ``games verify`` walks it; at the end ``ledger verify`` must be clean and every
CUBE accounted for.

    scripts/stud_crosscheck.py [--hands 10000] [--seed 1] [--db PATH]

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

from pokerkit import HandHistory

from bbspoker.rules import actions as act
from bbspoker.rules.stud import Stud, StudRules, Street
from bbspoker.rules import audit
from bbspoker.store.sqlite import Ledger
from bbspoker.table.registry import TableWallet

PLAYERS = [f"x{i}" for i in range(1, 9)]
TABLE = "stud"


def crosscheck(hands: int, seed: int, db: Path) -> dict[str, float]:
    """Play ``hands`` hands; returns the figures. Raises AssertionError on a difference."""
    rng = random.Random(seed)
    ledger = Ledger(db)
    for h in PLAYERS:
        ledger.create_account(h, None, 10**7)
    total = ledger.totals()
    rules = StudRules(seats=7, small_bet=10, ante=2, bring_in=3, buy_in_min=10,
                      buy_in_max=600, between_hands=1)
    game = Stud(TableWallet(ledger, TABLE), rules, rng=random.Random(seed))
    now, actions, showdowns, all_ins, side_pots, sevens = 0.0, 0, 0, 0, 0, 0
    began = time.perf_counter()
    for n in range(hands):
        # Between hands: people come, go, sit out and come back, rebuy when broke.
        for h in PLAYERS:
            seated = h in game.handles
            roll = rng.random()
            if not seated and not game.is_full and (roll < 0.15 or len(game.handles) < 2):
                game.apply(h, act.Sit(buy_in=rng.randint(rules.low, rules.high)),
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
            else:
                game.apply(h, choice(), now)
            actions += 1
            pots = max(pots, len(game.pots))
        side_pots += pots > 1
        record = ledger.game(gid)
        history = record.history
        assert record.end_reason == "finished", (gid, record.end_reason)
        ops = history["operations"]
        showdowns += any(op["op"] == "show" for op in ops)
        sevens += sum(op["op"] == "deal" and op["street"] == "seventh" for op in ops) == 7
        assert record.server_seed is not None and record.client_seeds is not None
        verdict = audit.verify_deal(TABLE, gid, bytes.fromhex(record.server_seed),
                                    record.commitment, record.client_seeds, ops)
        assert verdict.ok, (gid, verdict.mismatches, ops)
        all_ins += any(s.all_in for s in game.seats())
        replay = HandHistory.loads(history["phh"])
        with warnings.catch_warnings():     # one who left may have folded a free check
            warnings.simplefilter("ignore", UserWarning)
            try:
                for state in replay:
                    pass
            except Exception as exc:
                raise AssertionError((gid, repr(exc), history["phh"])) from exc
        alone = dict(zip(replay.players, state.stacks))
        assert alone == history["stacks"], (gid, alone, history["stacks"], history["phh"])
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
            "side_pots": side_pots, "sevens": sevens, "seconds": seconds}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--db", type=Path, help="ledger file (default: a temporary one)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or Path(tmp) / "crosscheck.db"
        try:
            f = crosscheck(args.hands, args.seed, db)
        except AssertionError as err:
            print(f"DIFFERENCE: {err}", file=sys.stderr)
            return 1
    print(f"{f['hands']:,} hands, {f['actions']:,} actions, {f['showdowns']:,} showdowns, "
          f"{f['side_pots']:,} with side pots, {f['sevens']:,} with seven players at seventh "
          f"street: every hand's stacks equal pokerkit's replay of its PHH and the ledger's, "
          f"its cards its fair deck's; ledger verify clean ({f['seconds']:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
