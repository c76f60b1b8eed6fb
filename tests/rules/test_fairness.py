"""The provably fair shuffle (issue 20, docs/fairness.md): the published function (the
module and the standard-library example give the same deck, any change of an input changes
it, it is a fair permutation), the tables dealing from it (the commitment at the start, the
seed at the end, for games that finish, are called off or cut short by a crash), and
``bbspoker games verify`` over a thousand recorded games and on tampered records; the next
game's commitment published before its client seeds are fixed, kept over a restart, and
checked by ``games verify``."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import random
import re
import sqlite3
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from bbspoker import cli
from bbspoker.rules import actions as act
from bbspoker.rules.cards import GV40, STANDARD52
from bbspoker.rules.draw40.game import Draw40, Draw40Rules, Phase
from bbspoker.rules.fairness import PHRASE_MAX, clean_phrase, commitment, message, shuffle
from bbspoker.rules.holdem.game import Holdem, HoldemRules
from bbspoker.rules.schiebe.actions import Propose, Vote
from bbspoker.rules.schiebe.game import Schiebe, SchiebeRules
from bbspoker.store.sqlite import Ledger
from bbspoker.table.registry import TableWallet
from tests.support.paths import ROOT
from tests.support.stores import both_backends, store_db

EXAMPLE = ROOT / "examples" / "verify_deck.py"
SEED = bytes.fromhex("9f" * 16 + "01" * 16)


def test_the_commitment_is_the_sha256_of_the_seed():
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


def test_every_card_lands_in_every_place_of_the_deck_equally_often():
    """A deal favours no card and no seat: over 8,000 games (ids 0-7999, one seed) each
    (card, position) count stays within 5 standard deviations of 8000/40 = 200 (about 14)."""
    counts = Counter()
    for game_id in range(8000):
        counts.update(enumerate(shuffle(GV40.cards(), SEED, game_id, ["x"])))
    assert len(counts) == 40 * 40 and all(abs(n - 200) < 5 * 14 for n in counts.values())


def test_the_standard_library_example_gives_the_same_decks():
    for spec, kind in ((GV40, "draw40"), (STANDARD52, "holdem")):
        out = subprocess.run([sys.executable, str(EXAMPLE), SEED.hex(), commitment(SEED), "77",
                              kind, "alice's phrase", "ünïcode"], capture_output=True, text=True,
                             timeout=30, check=True).stdout.split()
        assert out == shuffle(spec.cards(), SEED, 77, ["alice's phrase", "ünïcode"])
    wrong = subprocess.run([sys.executable, str(EXAMPLE), SEED.hex(), "00" * 32, "77", "draw40"],
                           capture_output=True, text=True, timeout=30)
    assert wrong.returncode != 0 and "does not match the commitment" in wrong.stderr


# ---------------------------------------------------------------- at the tables


PLAYERS = ("alice", "bob", "carol", "dave")


def play_one(game: Draw40, rng: random.Random) -> list:
    """One whole game with random legal choices (passes, bets, discards, [H]); its events."""
    events = game.apply(game.master, act.Start(), 0.0)
    while game.phase is not Phase.IDLE:
        h = game.current
        if game.phase is Phase.DISCARDING:
            cards = game.cards_of(h)
            action = act.Discard(tuple(rng.sample(cards, rng.randint(0, 3))))
        elif game.phase is Phase.SHOWDOWN:
            action = act.Reveal()
        else:
            low, high = game.bet_range(h)
            roll = rng.random()
            see = act.SeeHands in game.legal_actions(h, 0.0) and roll < 0.3
            if roll > 0.9:
                action = act.Pass()
            else:
                amount = rng.randint(low, min(high, low + 20))
                action = act.SeeHands(amount) if see else act.Bet(amount)
        events += game.apply(h, action, 0.0)
    return events


@pytest.fixture
def table(ledger_db):
    """(ledger, game): four players with a million CUBES each at a draw40 table dealing
    from the published function, alice with her own client seed phrase (SQLite; each
    backend for a test marked ``both_backends``)."""
    ledger = Ledger(ledger_db)
    for h in PLAYERS:
        ledger.create_account(h, None, 10**6)
    ledger.set_client_seed("alice", "alice's phrase")
    game = Draw40(ledger, Draw40Rules(between_games=0), rng=random.Random(20),
                  phrases=ledger.client_seeds_of)
    for h in PLAYERS:
        game.apply(h, act.Sit(), 0.0)
    yield ledger, game
    ledger.close()


def test_the_commitment_shown_at_the_start_is_the_sha256_of_the_seed_revealed_at_the_end(table):
    ledger, game = table
    events = play_one(game, random.Random(1))
    sealed = next(e for e in events if e.kind == "sealed")
    revealed = next(e for e in events if e.kind == "seed")
    assert events.index(sealed) < next(i for i, e in enumerate(events) if e.kind == "cards")
    assert revealed is events[-1] or events.index(revealed) > events.index(
        next(e for e in events if e.kind in ("won", "pot_to_system")))
    seed = bytes.fromhex(revealed.data["server_seed"])
    assert hashlib.sha256(seed).hexdigest() == sealed.data["commitment"]
    # The client seeds in seat order, alice's phrase among them, public from the start.
    seeds = dict(sealed.data["client_seeds"])
    assert list(seeds) == list(PLAYERS) and seeds["alice"] == "alice's phrase"
    assert all(len(seeds[h]) == 8 and int(seeds[h], 16) >= 0 for h in PLAYERS[1:])
    # The record keeps the same, and the cards dealt are the deck's.
    record = ledger.game(sealed.data["game_id"])
    assert record.commitment == sealed.data["commitment"]
    assert record.server_seed == seed.hex() and record.client_seeds == list(seeds.values())
    deck = shuffle(GV40.cards(), seed, record.id, record.client_seeds)
    dealt = [op for op in record.history["operations"] if op["op"] == "deal"]
    assert [sorted(op["cards"].split()) for op in dealt] == [
        sorted(deck[5 * i:5 * i + 5]) for i in range(len(dealt))]


def test_the_seed_of_a_running_game_stays_secret_until_it_ends(table):
    ledger, game = table
    events = game.apply("alice", act.Start(), 0.0)
    assert all(e.kind != "seed" and "server_seed" not in e.data for e in events)
    gid = game.game_id
    assert ledger.game(gid).server_seed is None
    assert "secret" in _cli(ledger, ["games", "show", str(gid)])[1]
    # A game called off (shutdown) reveals its seed too, and keeps the cards it dealt.
    events = game.cancel(0.0, "shutdown")
    revealed = next(e for e in events if e.kind == "seed")
    record = ledger.game(gid)
    assert record.server_seed == revealed.data["server_seed"]
    assert hashlib.sha256(bytes.fromhex(record.server_seed)).hexdigest() == record.commitment
    code, out = _cli(ledger, ["games", "verify", str(gid)])
    assert code == 0 and f"game {gid}: verified (20 cards dealt" in out


def test_a_game_cut_short_by_a_crash_reveals_its_seed_in_the_record(tmp_path):
    ledger = Ledger(tmp_path / "crash.db")
    for h in PLAYERS[:2]:
        ledger.create_account(h, None)
    game = Draw40(ledger, Draw40Rules(), rng=random.Random(3))
    for h in PLAYERS[:2]:
        game.apply(h, act.Sit(), 0.0)
    game.apply("alice", act.Start(), 0.0)
    gid = game.game_id
    ledger.close()   # the process dies with the game open
    ledger = Ledger(tmp_path / "crash.db")
    assert ledger.game(gid).server_seed is None
    assert ledger.recover_unfinished_games(1.0) == [gid]
    record = ledger.game(gid)
    assert record.server_seed is not None and record.end_reason.startswith("cancelled")
    code, out = _cli(ledger, ["games", "verify", str(gid)])
    assert code == 0 and "verified (no cards recorded" in out
    ledger.close()


def _cli(ledger: Ledger, argv: list[str]) -> tuple[int, str]:
    """Run ``bbspoker ARGV`` on ``ledger``'s database (its writes committed first)."""
    ledger.commit_pending()
    out = io.StringIO()
    old = os.environ.get("BBSPOKER_DB")
    os.environ["BBSPOKER_DB"] = str(ledger.path)
    try:
        with contextlib.redirect_stdout(out):
            code = cli.main(argv)
    finally:
        if old is None:
            del os.environ["BBSPOKER_DB"]
        else:
            os.environ["BBSPOKER_DB"] = old
    return code, out.getvalue()


def test_the_published_function_reproduces_the_decks_of_a_thousand_recorded_games(table):
    ledger, game = table
    rng = random.Random(7)
    for _ in range(1000):
        play_one(game, rng)
    code, out = _cli(ledger, ["games", "verify", "--all"])
    assert code == 0, out
    assert out.splitlines()[-1] == "1000 verified, 0 FAILED, 0 not verifiable"
    # A few of them by hand, with the standard-library example of docs/fairness.md.
    for record in ledger.games_from(1, 3):
        printed = subprocess.run(
            [sys.executable, str(EXAMPLE), record.server_seed, record.commitment,
             str(record.id), "draw40", *record.client_seeds],
            capture_output=True, text=True, timeout=30, check=True).stdout.split()
        first = record.history["operations"]
        dealt = [op["cards"].split() for op in first if op["op"] == "deal"]
        assert [sorted(c) for c in dealt] == [sorted(printed[5 * i:5 * i + 5])
                                              for i in range(len(dealt))]


def _tamper(ledger: Ledger, gid: int, column: str, change) -> None:
    """Change one column of game ``gid``'s row behind the ledger's back."""
    with sqlite3.connect(ledger.path) as raw:
        value = raw.execute(f"SELECT {column} FROM games WHERE id = ?", (gid,)).fetchone()[0]
        raw.execute(f"UPDATE games SET {column} = ? WHERE id = ?", (change(value), gid))


def _swap_a_drawn_card(history: str) -> str:
    record = json.loads(history)
    op = next(op for op in record["operations"] if op["op"] == "discard" and op["drawn"])
    drawn = op["drawn"].split()
    seen = {c for o in record["operations"] for c in
            o.get("cards", "").split() + o.get("drawn", "").split()}
    unseen = next(c for c in GV40.cards() if c not in seen)
    op["drawn"] = " ".join([unseen] + drawn[1:])
    return json.dumps(record)


@pytest.mark.parametrize("column, change, says", [
    ("history", _swap_a_drawn_card, "draw): the deck gives"),
    ("server_seed", lambda seed: ("0" if seed[0] != "0" else "1") + seed[1:],
     "does not match the commitment"),
    ("client_seeds", lambda seeds: json.dumps(["not alice's"] + json.loads(seeds)[1:]),
     "deal): the deck gives"),
])
def test_games_verify_finds_a_changed_card_seed_or_client_seed(table, column, change, says):
    ledger, game = table
    rng = random.Random(11)
    while True:   # a game in which someone drew cards
        play_one(game, rng)
        if any(op.kind == "discard" and op.data.get("drawn") for op in game.operations):
            break
    gid = ledger.list_games(1)[0].id
    code, out = _cli(ledger, ["games", "verify", str(gid)])
    assert code == 0 and out.startswith(f"game {gid}: verified")
    ledger.close()
    _tamper(ledger, gid, column, change)
    ledger = Ledger(ledger.path)
    code, out = _cli(ledger, ["games", "verify", str(gid)])
    assert code == 1 and out.startswith(f"game {gid}: FAILED") and says in out, out
    code, out = _cli(ledger, ["games", "verify", "--all"])
    assert code == 1 and "1 FAILED" in out.splitlines()[-1]
    ledger.close()


def test_a_client_seed_phrase_is_cleaned_and_bounded():
    assert clean_phrase("  lucky   seven ") == "lucky seven"
    assert clean_phrase("   ") is None and clean_phrase("tab\there") == "tab here"
    for bad in ("\x1b[2J", "zero\u200bwidth", "bell\x07", "x" * (PHRASE_MAX + 1)):
        with pytest.raises(ValueError):
            clean_phrase(bad)


#: Each game kind: how to make a table of it on a wallet, and how to open a game with
#: alice and bob seated at time ``now`` (returns the events).
KINDS = {
    "draw40": (lambda w, rng: Draw40(w, Draw40Rules(between_games=0), rng=rng),
               lambda g, now: g.apply("alice", act.Start(), now)),
    "schiebe": (lambda w, rng: Schiebe(w, SchiebeRules(), rng=rng),
                lambda g, now: g.apply("alice", Propose(2), now) + g.apply("bob", Vote(True), now)),
    "holdem": (lambda w, rng: Holdem(w, HoldemRules(), rng=rng),
               lambda g, now: g.tick(max(now, g.deadline()))),
}


def _ledger_with_players(path: Path) -> Ledger:
    ledger = Ledger(path)
    for h in PLAYERS[:2]:
        ledger.create_account(h, None, 10**6)
    return ledger


@pytest.mark.parametrize("kind", list(KINDS))
def test_every_kind_publishes_the_next_games_commitment_before_the_game_and_deals_from_it(
        tmp_path, kind):
    """The commitment of a game is out before anyone sits down for it (so before its
    client seeds exist), the game deals from exactly that seed, and the one after it is
    out before this one ends: its end says so, and ``games verify`` checks it."""
    ledger = _ledger_with_players(tmp_path / "next.db")
    make, start = KINDS[kind]
    game = make(TableWallet(ledger, "t1"), random.Random(5))
    published = game.next_commitment
    assert re.fullmatch("[0-9a-f]{64}", published)
    for h in PLAYERS[:2]:
        game.apply(h, act.Sit(), 0.0)
    events = start(game, 0.0)
    sealed = next(e for e in events if e.kind == "sealed")
    assert sealed.data["commitment"] == published
    following = game.next_commitment
    assert following != published and re.fullmatch("[0-9a-f]{64}", following)
    gid = sealed.data["game_id"]
    # Called off (shutdown, or a start the store lost): its seed is revealed, and a
    # fresh commitment is published for the next game, and shown.
    events = game.call_off(1.0, "shutdown", [gid])
    anew = game.next_commitment
    assert anew not in (published, following)
    assert [e.kind for e in events][-2:] == ["seed", "next_commitment"]
    assert events[-1].data == {"commitment": anew}
    code, out = _cli(ledger, ["games", "verify", str(gid)])
    assert code == 0, out
    assert "  published in advance: yes, at table t1" in out, out
    # The next game deals from the one shown.
    events = start(game, 100.0)
    assert next(e for e in events if e.kind == "sealed").data["commitment"] == anew
    ledger.close()


def test_a_restart_publishes_a_new_commitment_at_every_table(tmp_path):
    """A table started again draws a new seed and shows its commitment before any game:
    it never takes back a seed from before the restart (one that a call-off may have
    revealed while the store lost the record of it, see the next test); each table has
    its own; a game cut short by a crash verifies as published in advance."""
    path = tmp_path / "restart.db"
    ledger = _ledger_with_players(path)
    first = Draw40(TableWallet(ledger, "t1"), rng=random.Random(1)).next_commitment
    ledger.close()
    ledger = Ledger(path)
    game = Draw40(TableWallet(ledger, "t1"), rng=random.Random(2))   # the server again
    assert game.next_commitment != first
    other = Draw40(TableWallet(ledger, "t2"), rng=random.Random(3))
    assert other.next_commitment not in (first, game.next_commitment)
    shown = game.next_commitment
    for h in PLAYERS[:2]:
        game.apply(h, act.Sit(), 0.0)
    sealed = next(e for e in game.apply("alice", act.Start(), 0.0) if e.kind == "sealed")
    assert sealed.data["commitment"] == shown
    second = game.next_commitment
    ledger.close()                                   # the process dies with the game open
    ledger = Ledger(path)
    assert ledger.recover_unfinished_games(2.0) == [sealed.data["game_id"]]
    again = Draw40(TableWallet(ledger, "t1"), rng=random.Random(6))
    assert again.next_commitment not in (first, shown, second)
    code, out = _cli(ledger, ["games", "verify", str(sealed.data["game_id"])])
    assert code == 0 and "published in advance: yes, at table t1" in out, out
    ledger.close()


def test_a_seed_revealed_while_the_disk_lost_its_record_is_never_dealt_from(tmp_path):
    """A full disk loses a game's start and then the call-off's write too: the call-off
    reveals the seed on every screen while the store still holds it as unused. After a
    restart the table deals from a new seed, never from the revealed one."""
    from bbspoker.store.wallet import CommitFailed
    from tests.support.stores import FailingCommits

    path = tmp_path / "lost.db"
    ledger = _ledger_with_players(path)
    game = Draw40(TableWallet(ledger, "t1"), rng=random.Random(4))
    ledger.commit_pending()
    for h in PLAYERS[:2]:
        game.apply(h, act.Sit(), 0.0)
    ledger.commit_pending()
    disk = ledger._db = FailingCommits(ledger._db)
    disk.failures = 10
    with ledger.defer_commits():
        sealed = next(e for e in game.apply("alice", act.Start(), 0.0) if e.kind == "sealed")
    with pytest.raises(CommitFailed) as lost:
        ledger.commit_pending()
    with ledger.defer_commits():                     # as the table's step calls it
        revealed = game.call_off(1.0, "commit_failed", lost.value.games)
    seed = next(e for e in revealed if e.kind == "seed").data["server_seed"]
    assert commitment(bytes.fromhex(seed)) == sealed.data["commitment"]
    with contextlib.suppress(CommitFailed):
        ledger.commit_pending()                      # the new publication is lost too
    ledger._db = disk._db
    ledger.close()                                   # and the server is restarted
    ledger = Ledger(path)
    again = Draw40(TableWallet(ledger, "t1"), rng=random.Random(5))
    assert again.next_commitment != sealed.data["commitment"]
    for h in PLAYERS[:2]:
        again.apply(h, act.Sit(), 0.0)
    dealt = next(e for e in again.apply("alice", act.Start(), 0.0) if e.kind == "sealed")
    assert dealt.data["commitment"] != sealed.data["commitment"]
    ledger.close()


def _move_publication(ledger: Ledger, gid: int, how: str) -> None:
    """Change the record of game ``gid``'s published commitment behind the ledger's back."""
    db = store_db(ledger.path)
    ((commitment_, started),) = db.raw("SELECT deck_hash, started_at FROM games WHERE id = ?",
                                       params=(gid,))
    if how == "later":
        db.raw("UPDATE commitments SET published_at = ? WHERE commitment = ?",
               params=(started + 5, commitment_))
    else:
        db.raw("DELETE FROM commitments WHERE commitment = ?", params=(commitment_,))


@both_backends
@pytest.mark.parametrize("how, says", [
    ("later", "was published only after the game's client seeds were fixed"),
    ("gone", "is not the one table poker had published for it"),
])
def test_games_verify_fails_a_game_whose_commitment_was_not_published_before_it(
        table, how, says):
    ledger, game = table
    rng = random.Random(3)
    play_one(game, rng)
    play_one(game, rng)
    gid = ledger.list_games(1)[0].id
    code, out = _cli(ledger, ["games", "verify", str(gid)])
    assert code == 0 and "published in advance: yes, at table poker" in out, out
    _move_publication(ledger, gid, how)
    code, out = _cli(ledger, ["games", "verify", str(gid)])
    assert code == 1 and out.startswith(f"game {gid}: FAILED") and says in out, out
