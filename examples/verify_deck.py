#!/usr/bin/env python3
"""Recompute a bbspoker deck by hand (docs/fairness.md), standard library only.
Usage: verify_deck.py SERVER_SEED_HEX COMMITMENT GAME_ID DECK CLIENT_SEED...
(DECK: draw40 or holdem). Prints the deck from the top card down."""
import hashlib, hmac, json, sys

seed_hex, committed, game_id, kind, *clients = sys.argv[1:]
seed = bytes.fromhex(seed_hex)
assert hashlib.sha256(seed).hexdigest() == committed, "the seed does not match the commitment"
ranks = "5 6 7 8 9 10 J Q K A" if kind == "draw40" else "2 3 4 5 6 7 8 9 10 J Q K A"
deck = [r + s for r in ranks.split() for s in "+*#-"]
msg = json.dumps(["bbspoker-deck-v1", int(game_id), clients], separators=(",", ":"),
                 ensure_ascii=False).encode()
nums = (int.from_bytes(hmac.new(seed, msg + n.to_bytes(8, "big"), hashlib.sha256).digest()[k:k + 4], "big")
        for n in range(10**9) for k in range(0, 32, 4))
for i in range(len(deck) - 1, 0, -1):
    r = next(x for x in nums if x < (1 << 32) - (1 << 32) % (i + 1))
    deck[i], deck[r % (i + 1)] = deck[r % (i + 1)], deck[i]
print(" ".join(deck))
