"""The provably fair shuffle's published function (issue 20, docs/fairness.md): the module
and the 20-line standard-library example give the same deck, any change of an input
changes it, and it is a fair permutation."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

from bbspoker.rules.cards import GV40, STANDARD52
from bbspoker.rules.fairness import commitment, message, shuffle

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "verify_deck.py"
SEED = bytes.fromhex("9f" * 16 + "01" * 16)


def test_the_commitment_is_the_sha256_of_the_seed():
    import hashlib
    assert commitment(SEED) == hashlib.sha256(SEED).hexdigest()


def test_a_shuffle_is_a_permutation_that_every_input_changes():
    deck = shuffle(GV40.cards(), SEED, 412, ["alice's phrase", "7f3a"])
    assert sorted(deck) == sorted(GV40.cards()) and deck != list(GV40.cards())
    assert shuffle(GV40.cards(), SEED, 412, ["alice's phrase", "7f3a"]) == deck
    for changed in (shuffle(GV40.cards(), SEED[:-1] + b"\x02", 412, ["alice's phrase", "7f3a"]),
                    shuffle(GV40.cards(), SEED, 413, ["alice's phrase", "7f3a"]),
                    shuffle(GV40.cards(), SEED, 412, ["alice's phrase", "7f3b"]),
                    shuffle(GV40.cards(), SEED, 412, ["7f3a", "alice's phrase"])):
        assert changed != deck
    # Seeds that would run together in a naive message stay apart.
    assert message(1, ["a|b", "c"]) != message(1, ["a", "b|c"])


def test_every_card_is_as_likely_on_top():
    tops = Counter(shuffle(GV40.cards(), SEED, game_id, ["x"])[0] for game_id in range(4000))
    assert len(tops) == 40 and all(50 <= n <= 155 for n in tops.values()), tops


def test_the_standard_library_example_gives_the_same_decks():
    for spec, kind in ((GV40, "draw40"), (STANDARD52, "holdem")):
        out = subprocess.run([sys.executable, str(EXAMPLE), SEED.hex(), commitment(SEED), "77",
                              kind, "alice's phrase", "ünïcode"], capture_output=True, text=True,
                             timeout=30, check=True).stdout.split()
        assert out == shuffle(spec.cards(), SEED, 77, ["alice's phrase", "ünïcode"])
    wrong = subprocess.run([sys.executable, str(EXAMPLE), SEED.hex(), "00" * 32, "77", "draw40"],
                           capture_output=True, text=True, timeout=30)
    assert wrong.returncode != 0 and "does not match the commitment" in wrong.stderr
