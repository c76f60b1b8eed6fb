"""Fill a ledger with what a live installation holds, through the ledger's own API.

:func:`fill` makes ``players`` accounts (passwords, SSH keys, blocks, languages, looks,
client seed phrases, BBS callers and a BBS ban, a ban and a kick), the sysop's grants and
takes, ``games`` games at three tables (antes, bets, a payout or a split, the fair deck's
seal; one in twenty called off and refunded, one left unfinished as a running table
leaves it), stacks bought in at a table-stakes table, and tournaments (finished, cancelled,
registering) with their pools. Every CUBE moves through the ledger, so ``ledger verify``
holds throughout. ``scripts/bench/ledger_copy.py`` and ``tests/store/test_copy.py`` copy
such a ledger.
"""

from __future__ import annotations

import random
from typing import Any

from bbspoker.rules.fairness import Seal

__all__ = ["fill"]

TABLES = ("main", "holdem", "stud")


def fill(ledger: Any, games: int, *, players: int = 40, seed: int = 1) -> dict[str, int]:
    """Fill ``ledger`` (an open, empty ledger of either backend); returns counts of what
    was made: ``accounts``, ``games`` (finished), ``cancelled``, ``unfinished``,
    ``tournaments``."""
    rng = random.Random(seed)
    handles = [f"player{i:03d}" for i in range(players)]
    for i, handle in enumerate(handles):
        ledger.create_account(handle, f"$scrypt$n=16384,r=8,p=1${i:032x}${i:064x}",
                              cubes=rng.randrange(500, 5000), actor="root",
                              signup_from=f"203.0.113.{i % 250}" if i % 3 == 0 else None)
        if i % 5 == 0:
            ledger.set_language(handle, ("de", "fr", "en")[i % 3])
            ledger.set_look(handle, "classic", "gv")
        if i % 7 == 0:
            ledger.set_client_seed(handle, f"glück {i}")
        if i % 11 == 0:
            ledger.add_user_key(handle, f"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{i:043d} {handle}",
                                f"SHA256:{i:043d}", handle, actor="root")
    for handle in ("bot-alice", "bot-bob"):
        ledger.create_account(handle, None, cubes=100_000, actor="root", bot=True)
    ledger.block(handles[1], handles[2])
    ledger.bbs_account("caller", "DEMO")
    ledger.ban_bbs("EVIL", "spam", "root")
    ledger.ban(handles[3], "rude")
    ledger.kick(handles[4], "away", "root")
    for handle in handles[:10]:
        ledger.grant(handle, 1000, "prize of the month", "root")
    ledger.take(handles[5], 100, "correction", "root")
    ledger.buy_in(handles[6], 400, table="holdem")
    ledger.buy_in(handles[7], 300, table="holdem")
    counts = {"accounts": players + 3, "games": 0, "cancelled": 0, "unfinished": 0,
              "tournaments": 0}
    for n in range(games):
        table = TABLES[n % len(TABLES)]
        seated = rng.sample(handles, rng.randrange(2, 6))
        server_seed = rng.randbytes(32)
        with ledger.transaction(durable=False):
            published = ledger.publish_commitment(server_seed, table) if n % 4 == 0 else None
            seal = Seal(server_seed, tuple(f"seed{rng.randrange(10**6)}" for _ in seated),
                        published)
            game = ledger.open_game(seated, seal, table)
            paid = {}
            for handle in seated:
                paid[handle] = min(ledger.balance(handle), rng.randrange(1, 40))
                if paid[handle]:
                    ledger.pay_into_pot(game, handle, paid[handle], "ante")
        pot = sum(paid.values())
        if n == games - 1:
            counts["unfinished"] += 1          # a running table's game: refunded at start
            continue
        if n % 20 == 19:
            ledger.cancel_game(game, "server restarted")
            counts["cancelled"] += 1
            continue
        with ledger.transaction(durable=False):
            if n % 10 == 3 and pot >= 2:
                a, b = seated[:2]
                ledger.pay_out_split(game, {a: pot // 2, b: pot - pot // 2}, 0)
                winner = None
            else:
                winner = rng.choice(seated)
                ledger.pay_out_pot(game, winner, pot)
            ledger.close_game(game, winner, {"hands": {h: "AS KS QS JS TS" for h in seated},
                                             "pot": pot, "log": ["bet", "call", "show"]})
        counts["games"] += 1
    for status in ("finished", "cancelled", "registering"):
        tid = ledger.create_tournament(f"t-{status}", f"Sunday {status}", "holdem", 100)
        entrants = handles[20:26]
        for handle in entrants:
            ledger.register(tid, handle)
        if status == "finished":
            ledger.start_tournament(tid, {"level": 0})
            pool = ledger.pool(tid)
            places = {h: i + 1 for i, h in enumerate(entrants)}
            ledger.finish_tournament(tid, places, {entrants[0]: pool * 2 // 3,
                                                   entrants[1]: pool - pool * 2 // 3},
                                     {"places": places})
        elif status == "cancelled":
            ledger.cancel_tournament(tid, "too few players")
        counts["tournaments"] += 1
    return counts
