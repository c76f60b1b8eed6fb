#!/usr/bin/env python3
"""Recompute a bbspoker deck, top card first (docs/fairness.md); standard library only.
Usage: verify_deck.py SERVER_SEED_HEX COMMITMENT GAME_ID draw40|holdem CLIENT_SEED..."""
import hashlib, hmac, json, sys
seed_hex, committed, gid, kind, *clients = sys.argv[1:]
seed = bytes.fromhex(seed_hex)
if hashlib.sha256(seed).hexdigest() != committed.lower(): sys.exit("the seed does not match the commitment")
deck = [r + s for r in ("2 3 4 " * (kind != "draw40") + "5 6 7 8 9 10 J Q K A").split() for s in "+*#-"]
msg = json.dumps(["bbspoker-deck-v1", int(gid), clients], separators=(",", ":"), ensure_ascii=False)
block = lambda n: hmac.new(seed, msg.encode() + n.to_bytes(8, "big"), hashlib.sha256).digest()
numbers = (int.from_bytes(block(n)[k:k + 4], "big") for n in range(2**32) for k in range(0, 32, 4))
for i in range(len(deck) - 1, 0, -1):
    r = next(x for x in numbers if x < 2**32 - 2**32 % (i + 1)) % (i + 1)
    deck[i], deck[r] = deck[r], deck[i]
print(" ".join(deck))
