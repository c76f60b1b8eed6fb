"""The ledger: Wallet semantics, accounts, admin money, crash refunds, verify. Every test
that takes ``db`` or ``ledger`` runs on SQLite and on PostgreSQL (``tests/store/conftest.py``);
the few about one backend by nature say why."""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bbspoker.store.sqlite import (BbsSignupsFull, CRASH_REASON, SCHEMA_VERSION, HandleTaken, Ledger, LedgerError,
                             validate_handle)
from bbspoker.store.sql.records import REASONS
from bbspoker.store.passwords import hash_password, validate_password, verify_password
from bbspoker.app import sync_ledger
from bbspoker.store.wallet import (SYSTEM, CommitFailed, InsufficientCubes, MemoryWallet,
                                   StoreError, UnknownAccount)

from tests.support.stores import FailingCommits, StoreDb
from tests.support.telnetclient import wait_until


class Clock:
    """A fake clock: each call returns the next whole second."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self.ticks = itertools.count(start)

    def __call__(self) -> float:
        return next(self.ticks)


@pytest.fixture
def ledger(db):
    with db.open(clock=Clock()) as led:
        led.create_account("Alice", "hash-a")
        led.create_account("bob", "hash-b", cubes=50)
        yield led


# ---------------------------------------------------------------- passwords


def test_password_hash_is_salted_and_verifies_only_the_right_password():
    first, second = hash_password("s3cret pass"), hash_password("s3cret pass")
    assert first != second                      # a fresh salt every time
    assert "s3cret" not in first
    assert first.startswith("scrypt$")
    assert verify_password(first, "s3cret pass")
    assert verify_password(second, "s3cret pass")
    assert not verify_password(first, "s3cret pasS")
    assert not verify_password(first, "")


@pytest.mark.parametrize("stored", ["", "garbage", "scrypt$1$2$3$4$5", "bcrypt$x$y$z$a$b",
                                    "scrypt$16384$8$1$!!!$AAAA"])
def test_malformed_stored_hash_never_verifies(stored):
    assert verify_password(stored, "anything") is False


@pytest.mark.parametrize("password, message", [("abc", "too short"), ("x" * 129, "too long"),
                                               ("tab\there", "control"),
                                               ("    ", "only spaces")])
def test_bad_new_passwords_are_refused(password, message):
    with pytest.raises(ValueError, match=message):
        validate_password(password)


def test_a_password_is_the_same_whichever_unicode_form_it_is_typed_in():
    """Issue 20 (10): NFC and NFD forms of one password differed."""
    composed, decomposed = "caf\u00e9 noir", "cafe\u0301 noir"
    assert verify_password(hash_password(composed), decomposed)
    assert verify_password(hash_password(decomposed), composed)
    assert not verify_password(hash_password(composed), "cafe noir")


# ---------------------------------------------------------------- handles


@pytest.mark.parametrize("handle", ["a", "x" * 17, "evil\x1b[2J", "bell\x07", "del\x7f",
                                    "c1\x9b1m", "bidi\u202ex", "zero\u200bwidth", "wj\u2060x",
                                    "*SYSTEM*", "\u4e00" * 9, "  "])
def test_validate_handle_refuses_unsafe_or_bad_handles(handle):
    with pytest.raises(ValueError):
        validate_handle(handle)


def test_validate_handle_accepts_and_trims():
    assert validate_handle("  Jo ") == "Jo"
    assert validate_handle("x" * 16) == "x" * 16
    assert validate_handle("Zoë") == "Zoë"
    assert validate_handle("\u4e00" * 8) == "\u4e00" * 8  # 16 columns


def test_handles_are_unique_without_regard_to_case(ledger):
    with pytest.raises(HandleTaken):
        ledger.create_account("ALICE", "h")
    with pytest.raises(HandleTaken):
        ledger.create_account("Ａｌｉｃｅ", "h")  # full-width look-alike
    account = ledger.find_account("aLiCe")
    assert account is not None and account.handle == "Alice" and account.cubes == 1000
    assert ledger.find_account("carol") is None
    assert [a.handle for a in ledger.list_accounts()] == ["Alice", "bob"]


def test_admin_version_changes_with_a_ban_or_kick_here_or_another_connections_commit(ledger, db):
    # Issue 21: the server's ban and kick watch reads the ledger only when this changed.
    first = ledger.admin_version()
    assert ledger.admin_version() == first
    ledger.touch("bob")                      # this connection's other writes: no change
    assert ledger.admin_version() == first
    ledger.ban("bob", "spamming the chat")
    second = ledger.admin_version()
    assert second != first
    ledger.kick("Alice", "go to bed", "sysop")
    third = ledger.admin_version()
    assert third != second
    with db.open() as cli:                  # the admin CLI: another connection
        cli.unban("bob")
    assert ledger.admin_version() != third


def test_account_fields_password_ban_touch(ledger):
    assert ledger.password_hash("ALICE") == "hash-a"
    assert ledger.password_hash("nobody") is None
    ledger.set_password_hash("alice", "hash-new")
    assert ledger.password_hash("Alice") == "hash-new"
    assert ledger.find_account("bob").last_seen is None
    ledger.touch("bob")
    assert ledger.find_account("bob").last_seen is not None
    ledger.ban("bob", "spamming the chat")
    bob = ledger.find_account("bob")
    assert bob.banned and bob.ban_reason == "spamming the chat"
    ledger.unban("BOB")
    assert not ledger.find_account("bob").banned
    with pytest.raises(ValueError):
        ledger.ban("bob", "  ")
    for call in (lambda: ledger.touch("zed"), lambda: ledger.ban("zed", "x"),
                 lambda: ledger.set_password_hash("zed", "h"), lambda: ledger.balance("zed")):
        with pytest.raises(UnknownAccount):
            call()


def test_admin_reasons_are_stored_without_control_or_escape_characters(ledger):
    """Whoever calls the ledger (not only the CLI), a reason shown later on a terminal or
    to a user keeps no control or escape character; one with nothing printable left is
    refused and changes nothing."""
    ledger.grant("bob", 5, "prize\x1b[2J\r\n", "sysop")
    ledger.ban("bob", "\x1b]0;title\x07spam")
    ledger.kick("bob", "bye\x1b[5m", "sysop")
    assert ledger.history("bob", 1)[0].note == "prize[2J"
    assert ledger.find_account("bob").ban_reason == "]0;titlespam"
    assert ledger.take_kicks() == [("bob", "bye[5m")]
    for call in (lambda: ledger.take("bob", 5, "\x1b\x07", "sysop"),
                 lambda: ledger.ban("alice", "\x1b\r"),
                 lambda: ledger.kick("alice", "\x7f", "sysop")):
        with pytest.raises(ValueError):
            call()
    assert ledger.balance("bob") == 55 and not ledger.find_account("alice").banned
    assert ledger.take_kicks() == []


def test_table_stacks_are_read_per_player_and_table(ledger):
    assert ledger.table_stacks() == {} and ledger.table_stacks("bob") == {}
    ledger.buy_in("bob", 30, table="holdem")
    ledger.buy_in("alice", 100, table="holdem")
    ledger.buy_in("alice", 200, table="big")
    assert ledger.table_stacks() == {"Alice": {"big": 200, "holdem": 100},
                                     "bob": {"holdem": 30}}
    assert ledger.table_stacks("BOB") == {"bob": {"holdem": 30}}
    ledger.cash_out("bob", table="holdem")
    assert ledger.table_stacks("bob") == {}
    with pytest.raises(UnknownAccount):
        ledger.table_stacks("zed")


# ---------------------------------------------------------------- Wallet API


def test_a_game_moves_cubes_through_the_pot_and_journals_every_move(ledger):
    gid = ledger.open_game(["Alice", "bob"], "d" * 64)
    assert ledger.pay_into_pot(gid, "alice", 10, "ante") == 990
    assert ledger.pay_into_pot(gid, "BOB", 10, "ante") == 40
    assert ledger.pay_into_pot(gid, "alice", 25, "bet") == 965
    assert ledger.game(gid).pot == 45
    assert ledger.totals().open_pots == 45
    assert ledger.pay_out_pot(gid, "bob", 45) == 85
    ledger.close_game(gid, "bob", {"winner": "bob", "pot": 45})
    rows = [(r.handle, r.amount, r.reason, r.game_id) for r in ledger.history("alice", 10)]
    assert rows == [("Alice", -25, "bet", gid), ("Alice", -10, "ante", gid),
                    ("Alice", 1000, "signup", None)]
    assert ledger.history("bob", 1)[0].balance == 85
    game = ledger.game(gid)
    assert (game.winner, game.end_reason, game.pot) == ("bob", "finished", 0)
    assert game.started_at < game.ended_at  # stamped by the ledger's own clock
    assert ledger.verify() == []


def test_pot_to_system_goes_to_the_system_account(ledger):
    gid = ledger.open_game(["Alice", "bob"], "d")
    ledger.pay_into_pot(gid, "alice", 10, "ante")
    ledger.pay_into_pot(gid, "bob", 10, "ante")
    ledger.pot_to_system(gid, 20)
    ledger.close_game(gid, None, {})
    assert ledger.balance(SYSTEM) == 20
    assert ledger.totals().system == 20
    assert ledger.verify() == []


def test_a_split_pot_pays_each_winner_and_the_remainder_to_the_system(wallet):
    # Issue 17: Schiebe-Poker's tie for the first place. 21 CUBES among two: 10 each, 1 over.
    gid = wallet.open_game(["Alice", "bob"], "d")
    wallet.pay_into_pot(gid, "alice", 11, "ante")
    wallet.pay_into_pot(gid, "bob", 10, "ante")
    for shares, rest in (({"alice": 10, "bob": 10}, 0), ({"alice": 11, "bob": 11}, 0),
                         ({"alice": -1, "bob": 21}, 1), ({"alice": 11, "bob": 11}, -1)):
        with pytest.raises(ValueError):        # not the pot, or a negative part: no change
            wallet.pay_out_split(gid, shares, rest)
    assert wallet.balance(SYSTEM) == 0
    wallet.pay_out_split(gid, {"alice": 10, "bob": 10}, 1)
    wallet.close_game(gid, "Alice, bob", {})
    assert wallet.balance("alice") == 999 and wallet.balance("bob") == 50
    assert wallet.balance(SYSTEM) == 1
    if isinstance(wallet, Ledger):
        assert wallet.verify() == []
        assert wallet.totals().system == 1


def test_debits_never_go_below_zero_and_change_nothing(ledger):
    gid = ledger.open_game(["bob"], "d")
    last = ledger.latest_journal_id()
    with pytest.raises(InsufficientCubes):
        ledger.pay_into_pot(gid, "bob", 51, "bet")
    with pytest.raises(InsufficientCubes):
        ledger.take("bob", 51, "too much", "root")
    assert ledger.balance("bob") == 50
    assert ledger.game(gid).pot == 0
    assert ledger.latest_journal_id() == last
    assert ledger.pay_into_pot(gid, "bob", 50, "bet") == 0   # exactly all of it is fine


def test_wallet_misuse_is_refused_without_change(ledger):
    gid = ledger.open_game(["Alice", "bob"], "d")
    ledger.pay_into_pot(gid, "alice", 10, "ante")
    last = ledger.latest_journal_id()
    for bad in (lambda: ledger.pay_into_pot(gid, "alice", 0, "bet"),
                lambda: ledger.pay_into_pot(gid, "alice", -5, "bet"),
                lambda: ledger.pay_out_pot(gid, "bob", 11),          # not the whole pot
                lambda: ledger.pot_to_system(gid, 9),
                lambda: ledger.close_game(gid, None, {}),       # pot still holds 10
                lambda: ledger.pay_into_pot(999, "alice", 1, "bet")):
        with pytest.raises(ValueError):
            bad()
    with pytest.raises(UnknownAccount):
        ledger.pay_into_pot(gid, "nobody", 1, "bet")
    assert ledger.latest_journal_id() == last
    assert ledger.balance("alice") == 990
    ledger.pay_out_pot(gid, "alice", 10)
    ledger.close_game(gid, "Alice", {})
    with pytest.raises(ValueError):
        ledger.pay_into_pot(gid, "alice", 1, "bet")              # closed
    with pytest.raises(ValueError):
        ledger.close_game(gid, "Alice", {})


_OPS = st.lists(st.one_of(
    st.tuples(st.just("pay"), st.sampled_from(["ann", "BOB", "cy"]), st.integers(-2, 90),
              st.sampled_from(["ante", "bet"])),
    st.tuples(st.just("out"), st.sampled_from(["ann", "BOB", "cy"]), st.integers(-1, 1)),
    st.tuples(st.just("system"), st.integers(-1, 1)),
    st.tuples(st.just("balance"), st.sampled_from(["ann", "bob", "cy", "zz", SYSTEM])),
), max_size=25)


def _apply(wallet, gid, op):
    """Run one op on a wallet; return its result or the exception type it raised."""
    kind = op[0]
    try:
        if kind == "pay":
            return wallet.pay_into_pot(gid, op[1], op[2], op[3])
        if kind == "out":
            pot = -sum(a for g, _, a, _ in journal_rows(wallet) if g == gid)
            return wallet.pay_out_pot(gid, op[1], pot + op[2])
        if kind == "system":
            pot = -sum(a for g, _, a, _ in journal_rows(wallet) if g == gid)
            return wallet.pot_to_system(gid, pot + op[1])
        return wallet.balance(op[1])
    except (ValueError, KeyError, InsufficientCubes) as exc:
        return type(exc)


def journal_rows(wallet):
    if isinstance(wallet, MemoryWallet):
        return wallet.journal
    return [(r.game_id, r.handle, r.amount, r.reason) for r in wallet.journal_since(0)
            if r.game_id is not None]


# SQLite only: many random sequences, a new database each; the SQL is the same on
# PostgreSQL, where the tests of each call run too (all of it there would cost seconds).
@settings(max_examples=40, deadline=None)
@given(_OPS)
def test_ledger_behaves_exactly_like_memory_wallet(ops):
    """Same ops, same results, same exceptions, same balances and game journal."""
    start = {"ann": 100, "bob": 60, "cy": 0}
    memory = MemoryWallet(balances=dict(start) | {SYSTEM: 0})
    with tempfile.TemporaryDirectory() as tmp, Ledger(os.path.join(tmp, "x.db")) as ledger:
        for handle, cubes in start.items():
            ledger.create_account(handle, "h", cubes)
        gids = [w.open_game(list(start), "d") for w in (memory, ledger)]
        for op in ops:
            assert _apply(memory, gids[0], op) == _apply(ledger, gids[1], op), op
        for handle in [*start, SYSTEM]:
            assert memory.balance(handle) == ledger.balance(handle)
        assert journal_rows(memory) == journal_rows(ledger)
        assert memory.total() == sum(start.values()) == ledger.totals().grants
        assert ledger.verify() == []


# ---------------------------------------------------------------- transactions


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def wallet(request, tmp_path):
    """Alice with 1000 CUBES and bob with 50, in each Wallet implementation."""
    if request.param == "memory":
        yield MemoryWallet({"Alice": 1000, "bob": 50, SYSTEM: 0})
        return
    where = (str(tmp_path / "w.db") if request.param == "sqlite" else
             request.getfixturevalue("postgres_db").target)
    with Ledger(where, clock=Clock()) as led:
        led.create_account("Alice", "h")
        led.create_account("bob", "h", cubes=50)
        yield led


def books(wallet):
    """Everything a transaction could change: balances, game journal, pots, games."""
    balances = {h: wallet.balance(h) for h in ("alice", "bob", SYSTEM)}
    if isinstance(wallet, MemoryWallet):
        games = {gid: (dict(g), wallet.pots[gid]) for gid, g in wallet.games.items()}
    else:
        games = {g.id: g for g in wallet.list_games(100)}
    return balances, list(journal_rows(wallet)), games


def test_balances_of_reads_several_handles_as_given_and_skips_unknown_ones(wallet):
    gid = wallet.open_game(["Alice", "bob"], "d")
    wallet.pay_into_pot(gid, "bob", 20, "ante")
    assert wallet.balances_of(["ALICE", "bob", "nobody"]) == {"ALICE": 1000, "bob": 30}
    assert wallet.balances_of([]) == {}


def test_an_exception_escaping_a_transaction_undoes_all_of_it(wallet):
    before = books(wallet)
    with pytest.raises(RuntimeError, match="power cut"):
        with wallet.transaction():
            gid = wallet.open_game(["Alice", "bob"], "d")
            wallet.pay_into_pot(gid, "alice", 10, "ante")
            with wallet.transaction():                  # a nested block that succeeded
                wallet.pay_into_pot(gid, "bob", 10, "ante")
            wallet.pay_out_pot(gid, "bob", 20)
            wallet.close_game(gid, "bob", {"winner": "bob"})
            raise RuntimeError("power cut")
    assert books(wallet) == before
    assert wallet.open_game(["Alice"], "d") == gid      # the undone game never existed


def test_a_call_failing_inside_a_transaction_undoes_only_itself(wallet):
    with wallet.transaction(durable=False):
        gid = wallet.open_game(["Alice", "bob"], "d")
        assert wallet.pay_into_pot(gid, "alice", 10, "ante") == 990
        with pytest.raises(InsufficientCubes):
            wallet.pay_into_pot(gid, "bob", 51, "ante")
        with pytest.raises(ValueError):
            with wallet.transaction():                  # a nested block that failed
                wallet.pay_into_pot(gid, "bob", 10, "ante")
                wallet.pay_out_pot(gid, "bob", 999)
        assert wallet.pay_into_pot(gid, "alice", 5, "bet") == 985
    assert (wallet.balance("alice"), wallet.balance("bob")) == (985, 50)
    assert journal_rows(wallet) == [(gid, "Alice", -10, "ante"), (gid, "Alice", -5, "bet")]


def test_a_write_failing_halfway_inside_a_transaction_leaves_no_half(ledger, db):
    """The balance UPDATE of bob's ante succeeds, then its journal INSERT fails (the
    block's statements run at its end): the ante is not taken without its journal
    row; the whole block (the game, alice's ante) is undone and the caller told."""
    db.break_journal("NEW.account_id = (SELECT id FROM accounts WHERE handle = 'bob')")
    before = books(ledger)
    with pytest.raises(StoreError, match="disk trouble"):
        with ledger.transaction(durable=False):
            gid = ledger.open_game(["Alice", "bob"], "d")
            assert ledger.pay_into_pot(gid, "alice", 10, "ante") == 990
            assert ledger.pay_into_pot(gid, "bob", 10, "ante") == 40
    db.mend_journal()
    assert books(ledger) == before and ledger.verify() == []
    assert ledger.open_game(["Alice", "bob"], "d") == gid   # the undone game never existed


@pytest.fixture
def sqlite_ledger(db_file):
    """The ``ledger`` fixture's accounts in a SQLite file (for tests about SQLite itself)."""
    with Ledger(db_file, clock=Clock()) as led:
        led.create_account("Alice", "hash-a")
        led.create_account("bob", "hash-b", cubes=50)
        yield led


# SQLite only: SQLite's progress handler interrupts a statement; on PostgreSQL the same
# failure is a lost connection (the next test).
def test_a_transaction_sqlite_rolled_back_by_itself_reports_the_real_error(sqlite_ledger):
    """An interrupted write makes SQLite roll the whole transaction back on its own (as
    an I/O error or a full disk would): the caller sees that error, and nothing is kept."""
    ledger = sqlite_ledger
    running = [""]
    ledger._db.set_trace_callback(lambda statement: running.__setitem__(0, statement))
    ledger._db.set_progress_handler(lambda: running[0].startswith("UPDATE accounts"), 1)
    before = books(ledger)
    with pytest.raises(StoreError, match="interrupted"):
        with ledger.transaction(durable=False):
            gid = ledger.open_game(["Alice", "bob"], "d")
            ledger.pay_into_pot(gid, "alice", 10, "ante")
            ledger.pay_into_pot(gid, "bob", 10, "ante")
    ledger._db.set_trace_callback(None)
    ledger._db.set_progress_handler(None, 1)
    assert books(ledger) == before and ledger.verify() == []


def test_a_lost_postgresql_connection_undoes_the_transaction_and_is_made_again(postgres_db):
    """The server's connection to PostgreSQL ends in the middle of a write (the database
    restarted, the network failed): the caller sees the error, nothing of the write is
    kept, and the next call connects again (its caches forgotten)."""
    with postgres_db.open(clock=Clock()) as ledger:
        ledger.create_account("Alice", "h")
        ledger.create_account("bob", "h", cubes=50)
        before = books(ledger)
        with pytest.raises(StoreError):
            with ledger.transaction(durable=False):
                gid = ledger.open_game(["Alice", "bob"], "d")
                ledger.pay_into_pot(gid, "alice", 10, "ante")
                postgres_db.raw(
                    f"SELECT pg_terminate_backend({ledger._db.info.backend_pid})")
                ledger.pay_into_pot(gid, "bob", 10, "ante")
        assert books(ledger) == before and ledger.verify() == []
        assert ledger.pay_into_pot(ledger.open_game(["bob"], "d"), "bob", 5, "ante") == 45


def test_a_postgresql_restart_between_moves_goes_unnoticed_by_the_next_one(postgres_db):
    """PostgreSQL restarted while the server's connection was idle (between two moves, two
    page reads): nothing was lost, so the next write and the next read connect again and
    succeed; the player is not told of it."""
    with postgres_db.open(clock=Clock()) as ledger:
        ledger.create_account("Alice", "h")
        ledger.create_account("bob", "h", cubes=50)
        gid = ledger.open_game(["Alice", "bob"], "d")
        ledger.pay_into_pot(gid, "bob", 10, "ante")
        postgres_db.raw(f"SELECT pg_terminate_backend({ledger._db.info.backend_pid})")
        assert ledger.pay_into_pot(gid, "Alice", 10, "ante") == 990
        postgres_db.raw(f"SELECT pg_terminate_backend({ledger._db.info.backend_pid})")
        assert ledger.game(gid).pot == 20
        assert ledger.verify() == []


def test_a_pot_is_not_paid_out_if_the_game_cannot_be_closed(ledger):
    gid = ledger.open_game(["Alice", "bob"], "d")
    ledger.pay_into_pot(gid, "bob", 10, "ante")
    with pytest.raises(TypeError):
        with ledger.transaction():
            ledger.pay_out_pot(gid, "alice", 10)
            ledger.close_game(gid, "Alice", {"bad": object()})   # history not JSON-able
    assert (ledger.balance("alice"), ledger.game(gid).pot, ledger.game(gid).ended_at) == (
        1000, 10, None)
    assert ledger.verify() == []


# SQLite only: PRAGMA synchronous (PostgreSQL's synchronous_commit: the next test).
def test_game_stakes_commit_without_fsync_and_everything_else_with_it(sqlite_ledger):
    """Durability policy: open_game, antes and bets commit with synchronous NORMAL;
    game ends and CUBES changed outside a game with FULL (SQLite: 1 = NORMAL, 2 = FULL)."""
    ledger = sqlite_ledger

    def level():
        return ledger._db.execute("PRAGMA synchronous").fetchone()[0]

    gid = ledger.open_game(["Alice", "bob"], "d")
    assert level() == 1
    ledger.grant("bob", 5, "prize", "root")
    assert level() == 2
    ledger.pay_into_pot(gid, "bob", 10, "bet")
    assert level() == 1
    with ledger.transaction():
        ledger.pay_into_pot(gid, "alice", 10, "bet")   # inside: the block's level counts
    assert level() == 2
    ledger.pay_out_pot(gid, "bob", 20)
    assert level() == 2
    ledger.pay_into_pot(gid, "bob", 1, "bet")
    ledger.pot_to_system(gid, 1)
    assert level() == 2
    ledger.cancel_game(ledger.open_game(["bob"], "d"), "test")
    assert level() == 2


def test_on_postgresql_game_stakes_commit_without_waiting_for_the_wal(postgres_db):
    """The same policy on PostgreSQL: a non-durable transaction (a game's stakes) runs with
    ``synchronous_commit = off``, a durable one (a grant, a game's end on its own) with the
    server's setting."""
    def level(ledger):
        return ledger._db.execute("SHOW synchronous_commit").fetchone()[0]

    with postgres_db.open(clock=Clock()) as ledger:
        ledger.create_account("bob", "h", cubes=50)
        server = level(ledger)
        with ledger.transaction(durable=False):
            gid = ledger.open_game(["bob"], "d")
            assert level(ledger) == "off"
        with ledger.transaction():
            ledger.pay_into_pot(gid, "bob", 10, "bet")     # inside: the block's level counts
            assert level(ledger) == server
        assert level(ledger) == server                     # SET LOCAL: this transaction only


# ---------------------------------------------------------------- deferred commits, caches


def test_inside_defer_commits_debits_are_checked_at_once_and_read_back(wallet):
    """The table's service runs each step in defer_commits: a debit the CUBES cannot cover
    is refused there and then, changing nothing; the accepted ones are read back."""
    gid = wallet.open_game(["Alice", "bob"], "d")
    with wallet.defer_commits():
        assert wallet.pay_into_pot(gid, "bob", 30, "bet") == 20
        with pytest.raises(InsufficientCubes):
            wallet.pay_into_pot(gid, "bob", 21, "bet")
        assert wallet.balances_of(["bob", "alice"]) == {"bob": 20, "alice": 1000}
    wallet.commit_pending()
    wallet.commit_pending()                              # nothing left: nothing to do
    assert journal_rows(wallet) == [(gid, "bob", -30, "bet")]


def test_pending_work_is_committed_before_a_durable_write(ledger, db):
    gid = ledger.open_game(["Alice", "bob"], "d")
    with ledger.defer_commits():
        ledger.pay_into_pot(gid, "alice", 25, "bet")
        ledger.pay_into_pot(gid, "bob", 5, "bet")
        assert ledger.balance("alice") == 975            # this connection sees it ...
        assert (db.committed("Alice"), db.committed("bob")) == (1000, 50)  # ... no other
        ledger.grant("bob", 7, "prize", "sysop")         # durable even in the block
        assert (db.committed("Alice"), db.committed("bob")) == (975, 52)
    ledger.commit_pending()
    assert ledger.verify() == []


@pytest.mark.parametrize("use, cubes", [(lambda led: led.verify(), 40),
                                        (lambda led: led.close(), 40),
                                        (lambda led: led.pay_into_pot(1, "bob", 1, "bet"), 39)],
                         ids=["verify", "close", "write outside defer_commits"])
def test_pending_work_is_committed_before_a_snapshot_a_close_or_an_immediate_write(
        db, use, cubes):
    led = db.open()
    led.create_account("bob", "h", cubes=50)
    gid = led.open_game(["bob"], "d")
    with led.defer_commits():
        led.pay_into_pot(gid, "bob", 10, "ante")
    assert db.committed("bob") == 50
    use(led)
    assert db.committed("bob") == cubes
    led.close()


@pytest.mark.parametrize("fault", ["COMMIT", "ABORT", "IGNORE"],
                         ids=["the COMMIT fails", "a statement fails",
                              "a statement writes nothing"])
def test_a_failed_pending_commit_is_undone_and_reported_with_its_games(ledger, db, caplog,
                                                                      fault):
    """The pending work cannot be written (the disk fails the COMMIT, or SQLite the bet's
    journal row), forced here by an admin's grant: the grant goes through, the pending
    bet is undone, and the next commit_pending names its game (the table calls it off);
    the failure is logged as an ERROR."""
    gid = ledger.open_game(["Alice", "bob"], "d")
    ledger.pay_into_pot(gid, "alice", 10, "ante")
    disk = ledger._db = FailingCommits(ledger)
    if fault != "COMMIT":
        db.break_journal("NEW.reason = 'bet'", fault)
    with ledger.defer_commits():
        assert ledger.pay_into_pot(gid, "alice", 25, "bet") == 965
    disk.failures = fault == "COMMIT"
    with caplog.at_level(logging.ERROR, logger="bbspoker.store"):
        assert ledger.grant("bob", 7, "prize", "sysop") == 57
    assert any("could not be committed" in r.getMessage() for r in caplog.records)
    assert ledger.balance("alice") == 990 == db.committed("Alice")
    assert ledger.game(gid).pot == 10 and db.committed("bob") == 57
    with pytest.raises(CommitFailed) as failed:
        ledger.commit_pending()
    assert failed.value.games == {gid}
    ledger.commit_pending()                              # reported once
    assert ledger.verify() == []


def test_balances_read_when_pending_writes_fail_are_the_ones_that_remain(ledger, db):
    """The table's snapshot reads balances while a step's writes are pending; reading one
    that is not cached runs them, and they fail: no balance of the undone step is shown."""
    gid = ledger.open_game(["Alice", "bob"], "d")
    ledger.pay_into_pot(gid, "alice", 10, "ante")
    db.break_journal("NEW.reason = 'bet'")
    with ledger.defer_commits():
        assert ledger.pay_into_pot(gid, "alice", 25, "bet") == 965   # alice's balance cached
    assert ledger.balances_of(["alice", "bob"]) == {"alice": 990, "bob": 50}
    with pytest.raises(CommitFailed):
        ledger.commit_pending()
    assert ledger.verify() == []


def test_an_admin_take_just_before_a_bet_is_seen_by_the_bet(ledger, db):
    """The connection holds alice's balance from her ante; an admin takes CUBES on another
    connection; her next bet is checked against what she has now, not what was cached."""
    gid = ledger.open_game(["Alice", "bob"], "d")
    assert ledger.pay_into_pot(gid, "alice", 10, "ante") == 990
    with db.open() as cli:
        cli.take("alice", 980, "chargeback", "sysop")
    last = ledger.latest_journal_id()
    with ledger.defer_commits():
        with pytest.raises(InsufficientCubes, match="Alice has 10 CUBES, needs 25"):
            ledger.pay_into_pot(gid, "alice", 25, "bet")
        assert ledger.balance("alice") == 10
    ledger.commit_pending()
    assert ledger.latest_journal_id() == last and ledger.game(gid).pot == 10
    with ledger.defer_commits():
        assert ledger.pay_into_pot(gid, "alice", 10, "bet") == 0
    ledger.commit_pending()
    assert db.committed("Alice") == 0 and ledger.verify() == []


def test_reads_during_a_pending_step_see_its_moves(ledger, db):
    """Until commit_pending the moves are queued, not yet in SQLite: whatever reads SQLite
    (a game's pot, the journal, an account's history, a pot no longer cached after a
    nested block failed) sees them, while another connection sees the last commit."""
    gid = ledger.open_game(["Alice", "bob"], "d")
    ledger.pay_into_pot(gid, "bob", 10, "ante")
    seen = ledger.latest_journal_id()
    with ledger.defer_commits():
        ledger.pay_into_pot(gid, "alice", 25, "bet")
        with pytest.raises(ValueError, match="still holds"):
            with ledger.transaction(durable=False):       # undone alone
                ledger.pay_into_pot(gid, "bob", 5, "bet")
                ledger.close_game(gid, None, {})
        assert ledger.game(gid).pot == 35
        assert [(r.handle, r.amount, r.balance) for r in ledger.journal_since(seen)] == [
            ("Alice", -25, 975)]
        assert ledger.history("alice", 1)[0].amount == -25
        assert ledger.balances_of(["alice", "bob"]) == {"alice": 975, "bob": 40}
        with ledger.transaction(durable=False):           # as the table ends a game
            assert ledger.pay_out_pot(gid, "alice", 35) == 1010
        assert db.committed("Alice") == 1000
    ledger.commit_pending()
    assert db.committed("Alice") == 1010 and ledger.verify() == []


def test_a_game_another_connection_closed_takes_no_more_bets(ledger, db):
    gid = ledger.open_game(["Alice", "bob"], "d")
    ledger.pay_into_pot(gid, "alice", 10, "ante")        # known to be open now
    with db.open() as cli:
        cli.cancel_game(gid, "the sysop called it off")
    with pytest.raises(ValueError, match="closed"):
        ledger.pay_into_pot(gid, "alice", 10, "bet")
    assert ledger.balance("alice") == 1000 and ledger.verify() == []


def test_balances_follow_grants_made_by_another_connection(ledger, db):
    assert ledger.balances_of(["alice", "BOB"]) == {"alice": 1000, "BOB": 50}
    with db.open() as cli:
        cli.take("bob", 20, "chargeback", "sysop")
    assert ledger.balances_of(["alice", "BOB"]) == {"alice": 1000, "BOB": 30}
    assert ledger.balance("bob") == 30


class Traced:
    """A ledger's connection that records every statement run on it."""

    def __init__(self, conn) -> None:
        self._conn = conn
        self.statements: list[str] = []

    def execute(self, sql: str, *args):
        self.statements.append(sql)
        return self._conn.execute(sql, *args)

    def __getattr__(self, name: str):
        return getattr(self._conn, name)


def test_a_start_a_bet_and_an_end_run_no_sql_before_their_commit_but_the_write_lock(
        ledger, db):
    """What the table does in each step inside defer_commits: until commit_pending the only
    statements take the write lock and check the caches (issue 6: no SQL between a key
    and the screens); every move is in the books after it."""
    ledger.open_game(["Alice", "bob"], "d")                 # not the ledger's first game
    ledger.balances_of(["Alice", "bob"])                     # the table's snapshot
    traced = ledger._db = Traced(ledger._db)
    statements = traced.statements
    if db.backend == "sqlite":
        lock = {"BEGIN IMMEDIATE", "PRAGMA data_version", "PRAGMA synchronous = NORMAL"}
    else:
        from bbspoker.store.postgres.writer import LOCK_KEY
        lock = {"BEGIN", f"SELECT pg_advisory_xact_lock({LOCK_KEY})",
                "SET LOCAL synchronous_commit = off", "SELECT n FROM ledger_commits"}

    def step(work):
        statements.clear()
        with ledger.defer_commits():
            result = work()
            ledger.balances_of(["Alice", "bob"])
        assert set(statements) <= lock, statements
        ledger.commit_pending()
        return result

    def start():
        with ledger.transaction(durable=False):
            gid = ledger.open_game(["Alice", "bob"], "d")
            for handle in ("Alice", "bob"):
                ledger.pay_into_pot(gid, handle, 10, "ante")
        return gid

    def end():
        with ledger.transaction(durable=False):
            ledger.pay_out_pot(gid, "bob", 45)
            ledger.close_game(gid, "bob", {"winner": "bob"})

    gid = step(start)
    assert step(lambda: ledger.pay_into_pot(gid, "alice", 25, "bet")) == 965
    step(end)
    ledger._db = traced._conn
    assert (db.committed("Alice"), db.committed("bob")) == (965, 85)
    assert [(r.handle, r.amount, r.reason) for r in ledger.journal_since(0) if r.game_id] == [
        ("Alice", -10, "ante"), ("bob", -10, "ante"), ("Alice", -25, "bet"), ("bob", 45, "win")]
    assert ledger.game(gid).winner == "bob" and ledger.verify() == []


# SQLite only: the WAL file and its checkpoint are SQLite's (PostgreSQL checkpoints by itself).
def test_without_autocheckpoint_commits_stay_in_the_wal_until_checkpoint(db_file):
    """The server's connection never copies the WAL into the database file inside a
    commit (SQLite's default does it every 1,000 pages); checkpoint() does, from any
    thread, and what it copied is in the database file."""
    with Ledger(db_file, clock=Clock(), autocheckpoint=False) as led:
        led.create_account("ann", "h", cubes=10**6)
        gid = led.open_game(["ann"], "d")
        size = os.path.getsize(db_file)
        for _ in range(400):                              # ~5 WAL pages a bet
            led.pay_into_pot(gid, "ann", 1, "bet")
        wal_pages = os.path.getsize(f"{db_file}-wal") // led._db.execute("PRAGMA page_size").fetchone()[0]
        assert wal_pages > 1000 and os.path.getsize(db_file) == size
        result: list[tuple[int, int]] = []
        worker = threading.Thread(target=lambda: result.append(led.checkpoint()))
        worker.start()
        worker.join()
        frames, copied = result[0]
        assert frames == copied >= 1000
        assert os.path.getsize(db_file) > size
        led.pay_into_pot(gid, "ann", 1, "bet")              # the WAL starts over after a full copy
        frames, copied = led.checkpoint()
        assert frames == copied < 10
    with Ledger(db_file) as again:
        assert again.balance("ann") == 10**6 - 401


# SQLite only: the WAL file and its checkpoint are SQLite's (PostgreSQL checkpoints by itself).
async def test_the_servers_ledger_sync_copies_the_wal_in_the_background(db_file):
    with Ledger(db_file, clock=Clock(), autocheckpoint=False) as led:
        led.create_account("ann", "h")
        size = os.path.getsize(db_file)
        for n in range(300):
            led.grant("ann", 1, f"prize {n}", "root")
        assert os.path.getsize(db_file) == size
        sync = asyncio.create_task(sync_ledger(led, 0.01))
        try:
            await wait_until(lambda: os.path.getsize(db_file) > size)
        finally:
            sync.cancel()


# ---------------------------------------------------------------- admin money


def test_grant_take_set_record_reason_and_actor(ledger):
    assert ledger.grant("bob", 100, "contest prize", "sysop") == 150
    assert ledger.take("BOB", 30, "refund abuse", "sysop") == 120
    assert ledger.set_cubes("bob", 500, "reset", "root") == 500
    assert ledger.set_cubes("bob", 0, "wipe", "root") == 0
    rows = ledger.history("bob", 4)
    assert [(r.amount, r.reason, r.note, r.actor, r.balance) for r in rows] == [
        (-500, "set", "wipe", "root", 0), (380, "set", "reset", "root", 500),
        (-30, "take", "refund abuse", "sysop", 120), (100, "grant", "contest prize", "sysop", 150)]
    totals = ledger.totals()
    assert (totals.grants, totals.takes) == (1000 + 50 + 100 + 380, 30 + 500)
    assert totals.accounts == 1000 == totals.grants - totals.takes
    assert ledger.history("bob", 100)[-1].actor == "system:signup"
    assert ledger.verify() == []


@pytest.mark.parametrize("call", [lambda l: l.grant("bob", 0, "x", "r"),
                                  lambda l: l.take("bob", -1, "x", "r"),
                                  lambda l: l.set_cubes("bob", -1, "x", "r"),
                                  lambda l: l.grant("bob", 5, " ", "r")])
def test_bad_adjustments_change_nothing(ledger, call):
    last = ledger.latest_journal_id()
    with pytest.raises(ValueError):
        call(ledger)
    assert ledger.latest_journal_id() == last and ledger.balance("bob") == 50


def test_a_second_ledger_on_postgresql_waits_for_the_firsts_write_lock(postgres_db):
    """Two servers' (or a server's and the CLI's) ledgers on one PostgreSQL database: while
    one holds a step's pending writes (its transaction, with the advisory write lock), the
    other's write waits for it, then checks against what was committed: no update lost,
    and the first's caches follow the second's commit."""
    from bbspoker.store.postgres.writer import LOCK_KEY

    with postgres_db.open(clock=Clock()) as server, postgres_db.open() as cli:
        server.create_account("alice", "h", cubes=100)
        gid = server.open_game(["alice"], "d")
        done: list[int] = []
        with server.defer_commits():
            assert server.pay_into_pot(gid, "alice", 60, "bet") == 40
        taker = threading.Thread(target=lambda: done.append(
            cli.take("alice", 30, "chargeback", "sysop")))
        taker.start()

        def waiting() -> bool:
            return postgres_db.raw(
                "SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted "
                "AND (classid::bigint << 32 | objid::bigint) = ?", params=(LOCK_KEY,)
            )[0][0] == 1
        deadline = time.monotonic() + 10
        while not waiting():
            assert time.monotonic() < deadline and not done, "the CLI's take did not wait"
        assert done == [] and postgres_db.committed("alice") == 100
        server.commit_pending()
        taker.join()
        assert done == [10] and server.balance("alice") == 10
        with pytest.raises(InsufficientCubes):
            server.pay_into_pot(gid, "alice", 11, "bet")
        assert server.verify() == []


def test_ledgers_opened_at_once_on_a_new_postgresql_database_make_its_schema_once(
        postgres_url):
    opened: list[int] = []
    errors: list[BaseException] = []

    def open_one() -> None:
        try:
            with Ledger(postgres_url) as led:
                opened.append(led.schema_version())
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=open_one) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and opened == [SCHEMA_VERSION] * 4
    db = StoreDb("postgres", postgres_url)
    assert db.raw("SELECT COUNT(*) FROM schema_version") == [(1,)]
    assert db.raw("SELECT COUNT(*) FROM accounts") == [(1,)]          # SYSTEM, once


def test_journal_since_shows_changes_made_by_another_connection(ledger, db):
    seen = ledger.latest_journal_id()
    with db.open() as cli:
        cli.grant("alice", 7, "welcome back", "sysop")
    rows = ledger.journal_since(seen)
    assert [(r.handle, r.amount, r.balance, r.note, r.actor) for r in rows] == [
        ("Alice", 7, 1007, "welcome back", "sysop")]
    assert ledger.latest_journal_id() == rows[-1].id
    assert ledger.journal_since(rows[-1].id) == []


def test_concurrent_cli_grants_during_games_lose_no_update(db):
    """A server thread plays games while a CLI connection grants and takes on the
    same accounts; every change lands and the books balance."""
    with db.open() as setup:
        for handle in ("p1", "p2", "p3"):
            setup.create_account(handle, "h", 1000)
    games, grants = 30, 60
    errors: list[BaseException] = []

    def server() -> None:
        try:
            with db.open() as led:
                for n in range(games):
                    gid = led.open_game(["p1", "p2", "p3"], f"{n}")
                    for h in ("p1", "p2", "p3"):
                        led.pay_into_pot(gid, h, 10, "ante")
                    led.pay_into_pot(gid, "p1", 5, "bet")
                    led.pay_into_pot(gid, "p2", 5, "bet")
                    led.pay_out_pot(gid, "p3", 40)
                    led.close_game(gid, "p3", {"winner": "p3"})
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    thread = threading.Thread(target=server)
    thread.start()
    with db.open() as cli:
        for n in range(grants):
            cli.grant("p1", 3, f"grant {n}", "sysop")
            cli.take("p3", 1, f"take {n}", "sysop")
    thread.join()
    assert errors == []
    with db.open() as check:
        assert check.balance("p1") == 1000 - games * 15 + grants * 3
        assert check.balance("p2") == 1000 - games * 15
        assert check.balance("p3") == 1000 + games * 30 - grants
        assert check.verify() == []


# ---------------------------------------------------------------- crash recovery

_CRASHING_SERVER = """
import sys, time
from bbspoker.store.sqlite import Ledger
led = Ledger(sys.argv[1])
done = led.open_game(["Alice", "bob"], "d")
led.pay_into_pot(done, "Alice", 10, "ante"); led.pay_into_pot(done, "bob", 10, "ante")
led.pay_out_pot(done, "bob", 20); led.close_game(done, "bob", {})
gid = led.open_game(["Alice", "bob", "carol"], "d")
led.pay_into_pot(gid, "Alice", 10, "ante"); led.pay_into_pot(gid, "bob", 10, "ante")
led.pay_into_pot(gid, "Alice", 30, "bet")
with led.defer_commits():
    led.pay_into_pot(gid, "bob", 30, "bet")   # shown to the players, not yet committed
print(gid, led.balance("bob"), flush=True)
time.sleep(600)
"""


def test_kill_9_mid_game_refunds_every_ante_and_bet(db):
    """Killed with a bet still pending (defer_commits): that bet, and only it, is lost;
    the game is refunded from what was committed."""
    with db.open() as led:
        for handle in ("Alice", "bob", "carol"):
            led.create_account(handle, "h", 100)
    proc = subprocess.Popen([sys.executable, "-c", _CRASHING_SERVER, str(db)],
                            stdout=subprocess.PIPE, text=True)
    try:
        gid, shown = map(int, proc.stdout.readline().split())
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
    assert shown == 70
    with db.open() as led:
        assert led.balance("Alice") == 50 and led.balance("bob") == 100
        assert led.recover_unfinished_games(1000.0) == [gid]
        assert (led.balance("Alice"), led.balance("bob"), led.balance("carol")) == (90, 110, 100)
        assert led.verify() == []
        assert led.totals().open_pots == 0
        game = led.game(gid)
        assert game.ended_at == 1000.0 and CRASH_REASON in game.end_reason
        assert game.history["refunds"] == {"Alice": 40, "bob": 10}
        refunds = [r for r in led.history("bob", 1)]
        assert (refunds[0].reason, refunds[0].amount, refunds[0].game_id) == ("refund", 10, gid)
        assert len(led.notices("alice")) == 1 and "40 CUBES" in led.notices("alice")[0].text
        assert (led.notices("alice")[0].code, led.notices("alice")[0].data) == (
            "game_cancelled", {"game": gid, "reason": "crash", "cubes": 40, "table": None})
        assert led.notices("carol") == []           # paid nothing, nothing to tell
        led.clear_notices("alice")
        assert led.notices("alice") == []
        assert led.recover_unfinished_games(1001.0) == []


def test_recovery_does_not_refund_a_pot_already_paid_out(ledger):
    gid = ledger.open_game(["Alice", "bob"], "d")
    ledger.pay_into_pot(gid, "alice", 10, "ante")
    ledger.pay_into_pot(gid, "bob", 10, "ante")
    ledger.pay_out_pot(gid, "bob", 20)            # crash before close_game
    assert ledger.recover_unfinished_games(5.0) == [gid]
    assert (ledger.balance("alice"), ledger.balance("bob")) == (990, 60)
    assert ledger.notices("alice") == [] and ledger.verify() == []


def test_a_takeover_calls_off_only_its_tables_games_and_keeps_their_stacks(ledger):
    """A worker taking over table ``holdem`` from a dead one (``recover_unfinished_games``
    with ``table``): that table's unfinished hand is called off, its blinds and bets go
    back to the stacks there, which stay at the table (the players keep their seats'
    CUBES for the new worker's table); another table's hand and stacks are untouched."""
    ledger.buy_in("alice", 100, table="holdem")
    ledger.buy_in("bob", 40, table="holdem")
    ledger.buy_in("alice", 200, table="other")
    moved = ledger.open_game(["Alice", "bob"], "d", table="holdem")
    ledger.stack_into_pot(moved, "alice", 10, "blind", table="holdem")
    ledger.stack_into_pot(moved, "bob", 20, "blind", table="holdem")
    elsewhere = ledger.open_game(["Alice"], "e", table="other")
    ledger.stack_into_pot(elsewhere, "alice", 5, "blind", table="other")
    balances = (ledger.balance("alice"), ledger.balance("bob"))

    assert ledger.recover_unfinished_games(7.0, table="holdem") == [moved]

    assert (ledger.stack("alice", "holdem"), ledger.stack("bob", "holdem")) == (100, 40)
    assert (ledger.balance("alice"), ledger.balance("bob")) == balances
    assert ledger.stack("alice", "other") == 195          # still in the other table's pot
    assert ledger.game(moved).ended_at == 7.0
    assert ledger.game(moved).end_reason == f"cancelled: {REASONS['moved']}"
    assert ledger.game(elsewhere).ended_at is None
    assert [(n.code, n.data) for n in ledger.notices("bob")] == [
        ("game_cancelled", {"game": moved, "reason": "moved", "cubes": 20, "table": "holdem"})]
    assert ledger.verify() == [] and ledger.totals().open_pots == 5
    assert ledger.recover_unfinished_games(8.0, table="holdem") == []


def test_cancel_game_at_shutdown_refunds_with_the_given_reason(ledger):
    gid = ledger.open_game(["Alice"], "d")
    ledger.pay_into_pot(gid, "alice", 10, "ante")
    assert ledger.cancel_game(gid, "the sysop stopped the server", ended_at=9.0) == {"Alice": 10}
    assert ledger.balance("alice") == 1000
    assert "the sysop stopped the server" in ledger.notices("alice")[0].text
    with pytest.raises(ValueError):
        ledger.cancel_game(gid, "again", ended_at=10.0)


# ---------------------------------------------------------------- history, verify, backup


def test_hand_history_is_stored_and_listed_newest_first(ledger):
    history = {"players": ["Alice", "bob"], "actions": ["Alice antes 10", "bob antes 10"],
               "hands": {"Alice": "9- 10* J+ Q# K*", "bob": "5- 5# 6* 7+ 9#"},
               "winner": "Alice", "pot": 20}
    first = ledger.open_game(["Alice", "bob"], "ab" * 32)
    ledger.pay_into_pot(first, "alice", 10, "ante")
    ledger.pay_into_pot(first, "bob", 10, "ante")
    ledger.pay_out_pot(first, "alice", 20)
    ledger.close_game(first, "Alice", history)
    second = ledger.open_game(["bob"], "cd" * 32)
    assert ledger.game(first).history == history
    assert ledger.game(first).deck_hash == "ab" * 32
    assert [g.id for g in ledger.list_games(10)] == [second, first]
    assert ledger.list_games(10)[0].history is None
    assert ledger.game(12345) is None


@pytest.mark.parametrize("tamper, expected", [
    # CUBES appear from nowhere: the balance, and the total, disagree with the journal
    ("UPDATE accounts SET cubes = cubes + 5 WHERE handle = 'bob'",
     ["account bob: balance is 45 CUBES but its journal sums to 40", "total CUBES 1055"]),
    # a journal row altered: the account, the running balance and the game disagree
    ("UPDATE journal SET amount = amount - 1 WHERE id = (SELECT MAX(id) FROM journal)",
     ["account Alice: balance is 1010", "records balance 1010", "game 1 (closed): its pot "
      "holds 1 CUBES"]),
    # a payout row deleted: the winner's balance has no record, the pot was never emptied
    ("DELETE FROM journal WHERE reason = 'win'",
     ["account Alice: balance is 1010 CUBES but its journal sums to 1000",
      "game 1 (closed): its pot holds 10 CUBES"]),
])
def test_verify_names_what_differs(ledger, db, tamper, expected):
    gid = ledger.open_game(["Alice", "bob"], "d")
    ledger.pay_into_pot(gid, "bob", 10, "ante")
    ledger.pay_out_pot(gid, "alice", 10)
    ledger.close_game(gid, "Alice", {})
    assert ledger.verify() == []
    db.raw(tamper)
    problems = ledger.verify()
    for text in expected:
        assert any(text in p for p in problems), (text, problems)


# SQLite only: SQLite's online backup into a file (PostgreSQL's: pg_dump, the next test).
def test_backup_is_a_complete_usable_copy(sqlite_ledger, tmp_path):
    ledger = sqlite_ledger
    ledger.grant("bob", 5, "x", "root")
    dest = tmp_path / "copy.db"
    ledger.backup(dest)
    with Ledger(dest) as copy:
        assert copy.balance("bob") == 55 and copy.verify() == []
    with pytest.raises(FileExistsError):
        ledger.backup(dest)


def test_a_postgresql_ledger_is_backed_up_with_pg_dump_not_by_bbspoker(postgres_db, tmp_path):
    with postgres_db.open() as ledger:
        with pytest.raises(StoreError, match="pg_dump"):
            ledger.backup(tmp_path / "copy.db")
    assert not (tmp_path / "copy.db").exists()


def test_schema_is_versioned_and_migrations_run_once(db):
    with db.open() as led:
        led.create_account("Alice", "h")
        assert led.schema_version() == SCHEMA_VERSION
    with db.open() as led:
        assert led.balance("alice") == 1000
    if db.backend == "sqlite":
        assert db.raw("PRAGMA journal_mode") == [("wal",)]
    db.raw("UPDATE schema_version SET version = ?", params=(SCHEMA_VERSION + 1,))
    with pytest.raises(LedgerError, match=f"schema version {SCHEMA_VERSION + 1}, newer"):
        db.open()


def test_both_backends_are_at_the_same_schema_version():
    from bbspoker.store.postgres import schema as postgres
    assert postgres.SCHEMA_VERSION == SCHEMA_VERSION


# SQLite only: a file (a PostgreSQL URL that leads nowhere: the next test).
def test_a_file_that_is_not_a_database_is_refused(tmp_path):
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(LedgerError, match="junk.db"):
        Ledger(junk)
    with pytest.raises(LedgerError):
        Ledger(tmp_path / "missing-dir" / "x.db")


def test_a_ledger_url_of_another_scheme_or_a_missing_postgresql_database_is_refused(
        postgres_db):
    with pytest.raises(LedgerError, match="must begin with postgresql://"):
        Ledger("mysql://root@localhost/bbspoker")
    missing = postgres_db.target.replace("/ledger_", "/no_such_", 1)
    with pytest.raises(LedgerError, match="no_such_.*does not exist"):
        Ledger(missing)
    with pytest.raises(LedgerError) as refused:
        Ledger("postgresql://sysop:s3cret@localhost:1/bbspoker")
    assert "s3cret" not in str(refused.value) and "sysop:***@" in str(refused.value)


def test_history_json_must_be_serialisable(ledger):
    gid = ledger.open_game(["Alice"], "d")
    with pytest.raises(TypeError):
        ledger.close_game(gid, None, {"bad": object()})
    assert ledger.game(gid).ended_at is None


@pytest.mark.parametrize("bad", ["a\ufffdb", "al\u200bice", "bob\u202e", "ca\x1b[2Jrol", "x\u00ady"])
def test_handles_with_invisible_or_replacement_characters_are_refused(bad):
    with pytest.raises(ValueError, match="printable"):
        validate_handle(bad)


# SQLite only: it migrates a database an older SQLite schema made (PostgreSQL starts at 19).
def test_a_version_1_database_is_migrated_and_its_games_belong_to_the_one_table(db_file):
    from bbspoker.store.sqlite.schema import MIGRATIONS
    raw = sqlite3.connect(db_file)                       # a database as the first release made it
    with raw:
        raw.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        for statement in MIGRATIONS[0]:
            raw.execute(statement)
        raw.execute("INSERT INTO schema_version VALUES (1)")
        raw.execute("INSERT INTO games (players, deck_hash, started_at) "
                    "VALUES ('[\"alice\"]', 'ab', 1.0)")
    raw.close()
    with Ledger(db_file) as led:
        assert led.schema_version() == SCHEMA_VERSION
        (old,) = led.list_games()
        assert old.table == "poker" and old.players == ["alice"]
        assert led.list_games(table="poker") == [old] and led.list_games(table="red") == []
        led.create_account("alice", "h")
        assert led.find_account("alice").bot is False     # accounts of old are people's
        new = led.open_game(["alice"], "cd", table="red")
        led.pay_into_pot(new, "alice", 10, "ante")
        assert [g.table for g in led.list_games()] == ["red", "poker"]
        assert [g.id for g in led.list_games(table="red")] == [new]
        assert led.recover_unfinished_games(2.0) == [old.id, new] and led.verify() == []


def database_of_schema(db, version: int) -> sqlite3.Connection:
    """A new database file ``db`` as schema ``version`` made it (its first ``version``
    migrations, nothing later), open for the test to add its rows; close it before the
    ledger opens the file."""
    from bbspoker.store.sqlite.schema import MIGRATIONS
    raw = sqlite3.connect(db)
    with raw:
        raw.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        for statements in MIGRATIONS[:version]:
            for statement in statements:
                raw.execute(statement)
        raw.execute("INSERT INTO schema_version VALUES (?)", (version,))
    return raw


# SQLite only: it migrates a database an older SQLite schema made (PostgreSQL starts at 19).
def test_a_schema_12_database_is_migrated_and_its_games_verify_without_a_publication(
        db_file, monkeypatch):
    """Schema 15 records each table's published next-game commitment: a database of schema
    12 keeps its games, which ``games verify`` still verifies, saying that nothing was
    recorded of a commitment published in advance; its tables publish one from then on."""
    import hashlib
    import io
    from contextlib import redirect_stdout
    from bbspoker import cli
    from bbspoker.rules.fairness import Seal
    raw = database_of_schema(db_file, 12)
    with raw:
        seed = bytes(range(32))
        raw.execute("INSERT INTO games (players, deck_hash, server_seed, client_seeds, "
                    "started_at, ended_at, end_reason, table_id) VALUES (?, ?, ?, ?, 1.0, "
                    "2.0, 'cancelled', 'red')",
                    ('["alice", "bob"]', hashlib.sha256(seed).hexdigest(), seed.hex(),
                     '["a1", "b2"]'))
    raw.close()
    with Ledger(db_file) as led:
        assert led.schema_version() == SCHEMA_VERSION >= 15
        out = io.StringIO()
        with redirect_stdout(out):
            monkeypatch.setenv("BBSPOKER_DB", str(db_file))
            assert cli.main(["games", "verify", "1"]) == 0
        assert out.getvalue().startswith("game 1: verified"), out.getvalue()
        assert ("published in advance: not recorded (table red published no commitment "
                "before this game)") in out.getvalue()
        at = led.publish_commitment(b"\x07" * 32, table="red")
        led.commit_pending()
    with sqlite3.connect(db_file) as raw:                    # the publication is recorded
        assert raw.execute("SELECT table_id, published_at, game_id FROM commitments"
                           ).fetchall() == [("red", at, None)]


def test_a_game_dealt_from_a_published_seed_records_it_and_the_seed_deals_only_once(ledger):
    """A table publishes its next game's commitment before the game; the game's record
    then names the publication, and a second game from the same seed fails its commit."""
    from bbspoker.rules.fairness import Seal

    seed = b"\x05" * 32
    with ledger.defer_commits():
        at = ledger.publish_commitment(seed, table="red")
    ledger.commit_pending()
    with ledger.defer_commits():
        game = ledger.open_game(["Alice", "bob"], Seal(seed, ("a", "b"), at), "red")
    ledger.commit_pending()
    seal = Seal(seed, ("a", "b"), at)
    assert ledger.publication("red", seal.commitment).game_id == game
    with ledger.defer_commits():
        again = ledger.open_game(["Alice", "bob"], Seal(seed, ("a", "b"), at), "red")
    with pytest.raises(CommitFailed) as failed:
        ledger.commit_pending()
    assert again in failed.value.games
    assert ledger.verify() == []


# SQLite only: it migrates a database an older SQLite schema made (PostgreSQL starts at 19).
def test_a_schema_15_database_is_migrated_and_takes_bbs_callers_and_bans(db_file):
    """Schema 16 marks the accounts of BBS callers with their system and keeps banned
    systems: a database of schema 15 keeps its accounts (none of a BBS) and gets both."""
    raw = database_of_schema(db_file, 15)
    with raw:
        raw.execute("INSERT INTO accounts (handle, handle_key, cubes, created, skeleton) "
                    "VALUES ('bob', 'bob', 0, 0, 'bob')")
    raw.close()
    with Ledger(db_file) as led:
        assert led.schema_version() == SCHEMA_VERSION >= 16
        assert led.find_account("bob").bbs is None
        account, made = led.bbs_account("bob", "EN")
        assert made and (account.handle, account.bbs) == ("bob@EN", "EN")
        led.ban_bbs("EN", "spam", "sysop")
        assert led.bbs_ban("en") == "spam" and led.banned_among(["bob@EN", "bob"]) == {
            "bob@EN": "spam"}
        assert led.verify() == []


# SQLite only: it migrates a database an older SQLite schema made (PostgreSQL starts at 19).
def test_a_schema_16_database_is_migrated_and_its_users_choose_a_look(db_file):
    """Schema 17 keeps each user's look and suits (the lobby's [O]): the accounts of a
    database of schema 16 have no choice (``""``: as the terminal allows) until they make
    one."""
    raw = database_of_schema(db_file, 16)
    with raw:
        raw.execute("INSERT INTO accounts (handle, handle_key, cubes, created, skeleton) "
                    "VALUES ('bob', 'bob', 0, 0, 'bob')")
    raw.close()
    with Ledger(db_file) as led:
        assert led.schema_version() == SCHEMA_VERSION >= 17
        bob = led.find_account("bob")
        assert (bob.look, bob.suits) == ("", "")
        led.set_look("bob", "classic", "gv")
        assert led.verify() == []
    with Ledger(db_file) as led:
        bob = led.find_account("BOB")
        assert (bob.look, bob.suits) == ("classic", "gv")


# SQLite only: it migrates a database an older SQLite schema made (PostgreSQL starts at 19).
def test_a_schema_17_database_is_migrated_and_its_journal_has_no_tournament(db_file):
    """Schema 18 adds tournaments and the journal's ``tournament_id``: the rows of an older
    database move no prize pool, its books still verify, and tournaments can be held."""
    raw = database_of_schema(db_file, 17)
    with raw:
        raw.execute("INSERT INTO accounts (handle, handle_key, cubes, created, skeleton) "
                    "VALUES ('bob', 'bob', 70, 0, 'bob')")
        raw.execute("INSERT INTO journal (account_id, amount, reason, at, balance, actor) "
                    "SELECT id, 70, 'signup', 0, 70, 'root' FROM accounts WHERE handle = 'bob'")
    raw.close()
    with Ledger(db_file) as led:
        assert led.schema_version() == SCHEMA_VERSION >= 18
        assert [r.tournament_id for r in led.history("bob")] == [None]
        assert led.verify() == [] and led.totals().pools == 0
        tid = led.create_tournament("nightly", "Nightly", "holdem", 20)
        assert led.register(tid, "bob") == 50 and led.pool(tid) == 20
        assert led.verify() == [] and led.totals().pools == 20



# SQLite only: it migrates a database an older SQLite schema made (PostgreSQL starts at 19).
def test_a_schema_18_database_is_migrated_and_its_games_are_no_tournaments_hands(db_file):
    """Schema 19 marks a tournament's hands (``games.tournament_id``): the games of an
    older database are CUBES games, listed and counted as before."""
    raw = database_of_schema(db_file, 18)
    with raw:
        raw.execute("INSERT INTO accounts (handle, handle_key, cubes, created, skeleton) "
                    "VALUES ('bob', 'bob', 0, 0, 'bob')")
        raw.execute("INSERT INTO games (players, deck_hash, started_at, ended_at, "
                    "end_reason, table_id) VALUES ('[\"bob\"]', 'x', 1.0, 2.0, "
                    "'cancelled', 'red')")
    raw.close()
    with Ledger(db_file) as led:
        assert led.schema_version() == SCHEMA_VERSION >= 19
        (game,) = led.list_games()
        assert game.tournament is None and game.table == "red"
        assert led.verify() == []


def test_a_users_look_is_kept_with_the_account_and_bad_choices_change_nothing(db):
    """``set_look`` stores the look (``""``, ``"colour"``, ``"classic"``) and the suits
    (``""``, ``"symbols"``, ``"gv"``) a user chose, read back with the account after a
    restart; any other value, or an unknown handle, raises and changes nothing."""
    with db.open() as led:
        led.create_account("alice", "h")
        alice = led.find_account("alice")
        assert (alice.look, alice.suits) == ("", "")
        led.set_look("Alice", "colour", "gv")
        for look, suits in (("color", "gv"), ("colour", "hearts"), ("CLASSIC", ""),
                            ("colour\x1b[2J", "gv")):
            with pytest.raises(ValueError):
                led.set_look("alice", look, suits)
        with pytest.raises(UnknownAccount):
            led.set_look("nobody", "classic", "gv")
        assert [(a.handle, a.look, a.suits) for a in led.list_accounts()] == [
            ("alice", "colour", "gv")]
    with db.open() as led:
        alice = led.find_account("alice")
        assert (alice.look, alice.suits) == ("colour", "gv")
        led.set_look("alice", "", "")
        assert (led.find_account("alice").look, led.find_account("alice").suits) == ("", "")


def test_the_stores_look_choices_are_the_doors():
    """The store accepts exactly the looks and suits the door offers (and ``""``)."""
    from bbspoker.door import look
    from bbspoker.store.sql.records import ACCOUNT_LOOKS, ACCOUNT_SUITS
    assert ACCOUNT_LOOKS == ("", *look.LOOKS) and ACCOUNT_SUITS == ("", *look.SUIT_CHOICES)


def test_a_bbs_caller_gets_an_account_of_their_own_on_the_first_visit(db):
    """A BBS's caller is ``alias@TAG``, made with no password and the system's starting
    CUBES on the first visit and found again after; two BBSes' Bobs are two accounts and
    neither is the server's own bob; the alias follows the handle rules; a system gets at
    most ``signups_per_day`` new accounts in a day."""
    now = [1_700_000_000.0]
    with db.open(clock=lambda: now[0]) as led:
        led.create_account("bob", "h")
        en, made = led.bbs_account("Bob", "EN", starting_cubes=300, signups_per_day=2)
        assert made and (en.handle, en.cubes, en.bbs) == ("Bob@EN", 300, "EN")
        assert led.password_hash("Bob@EN") is None
        again, made = led.bbs_account("bob", "EN", starting_cubes=300, signups_per_day=2)
        assert not made and again.handle == "Bob@EN"
        demo, _ = led.bbs_account("Bob", "DEMO")
        assert demo.handle == "Bob@DEMO" and led.balance("Bob@DEMO") == 1000
        assert led.balance("bob") == 1000 and led.find_account("bob").bbs is None
        for alias, why in (("SYSTEM", "reserved"), ("x", "2 to 16"), ("a@b", "may not contain @"),
                           ("B0b", "looks too much like Bob@EN"), ("sy\x1bs", "printable")):
            with pytest.raises((ValueError, HandleTaken), match=why):
                led.bbs_account(alias, "EN")
        led.bbs_account("carol", "EN", signups_per_day=2)
        with pytest.raises(BbsSignupsFull):
            led.bbs_account("dave", "EN", signups_per_day=2)
        now[0] += 86401
        assert led.bbs_account("dave", "EN", signups_per_day=2)[1]
        assert led.bbs_callers() == {"DEMO": 1, "EN": 3}
        assert [r.actor for r in led.history("dave@EN")] == ["system:bbs:EN"]
        assert led.verify() == []


def test_no_new_handle_has_an_at_sign_and_a_bbs_handle_can_log_in(db):
    """``@`` joins a BBS caller's alias and tag: nobody can make ``bob@EN`` at the login
    prompt or the CLI, and ``bob@EN`` is a handle one can log in with (its owner set a
    password)."""
    with pytest.raises(ValueError, match="may not contain @"):
        validate_handle("bob@EN")
    assert validate_handle(" a long alias he@ABCDEFGH ", new=False) == "a long alias he@ABCDEFGH"
    for bad in ("bob@", "bob@E", "bob@E-N", "@EN", "a@b@EN", "bob@ABCDEFGHI"):
        with pytest.raises(ValueError):
            validate_handle(bad, new=False)
    with db.open() as led:
        with pytest.raises(ValueError, match="may not contain @"):
            led.create_account("bob@EN", "h")
        led.bbs_account("bob", "EN")
        assert led.find_account("BOB@en").handle == "bob@EN"


def test_a_banned_bbs_is_remembered_until_unbanned(db):
    with db.open() as led:
        assert led.bbs_ban("EN") is None and led.bbs_bans() == []
        with pytest.raises(ValueError, match="needs a reason"):
            led.ban_bbs("EN", " \x1b ", "sysop")
        led.ban_bbs("EN", "cheating \x1b[2J", "sysop")
        assert [(t, r, a) for t, r, _, a in led.bbs_bans()] == [("EN", "cheating [2J", "sysop")]
        assert led.unban_bbs("en") and not led.unban_bbs("EN")
        assert led.bbs_ban("EN") is None


# SQLite only: a file's mode (PostgreSQL keeps its data in its own directory, 0700).
def test_the_database_its_wal_and_backups_are_private_to_their_owner(tmp_path):
    """Issue 20 (10): they were created 0644, password hashes world-readable."""
    db = tmp_path / "private.db"
    with Ledger(db) as led:
        led.create_account("alice", "hash")
        led.backup(tmp_path / "copy.db")
        for path in (db, f"{db}-wal", f"{db}-shm", tmp_path / "copy.db"):
            assert oct(os.stat(path).st_mode & 0o777) == "0o600", path


@pytest.mark.parametrize("handle, says", [
    ("SYSTEM", "is reserved"), ("INFO", "is reserved"), ("sysop", "is reserved"),
    ("SYSTЕМ", "is reserved"),                      # Cyrillic Е and М
    ("Sys0p", "is reserved"),
    ("SYST\u00c9M", "is reserved"), ("SYSTE\u0301M", "is reserved"),   # an accent on a letter
    ("INFO\u0307", "is reserved"),                  # a combining dot above the O
    ("bob\u2800", "blank or invisible"), ("b\u3164ob", "printable characters|blank or invisible"),
    ("bo\u00a0b", "printable characters|blank or invisible"),
])
def test_new_handles_may_not_impersonate_the_door_or_hide_characters(handle, says):
    """Issue 20 (7): SYSTEM, INFO, sysop and look-alikes were allowed (a chat line then looks
    like a table message), and so were invisible characters."""
    with pytest.raises(ValueError, match=says):
        validate_handle(handle)
    validate_handle("bob the great")                   # plain spaces inside are fine


def test_a_handle_that_looks_like_an_existing_one_is_taken(db):
    with db.open() as led:
        led.create_account("alice", "h")
        led.create_account("Bob", "h")
        for alike, original in (("аlice", "alice"), ("a1ice", "alice"), ("B0B", "Bob"),
                                ("Ｂｏｂ", "Bob"), ("B\u00f3b", "Bob"), ("alic\u0323e", "alice")):
            with pytest.raises(HandleTaken, match=f"looks too much like {original}|is taken"):
                led.create_account(alike, "h")
        led.create_account("carol", "h")                   # different enough
        assert [a.handle for a in led.list_accounts()] == ["alice", "Bob", "carol"]


# SQLite only: it migrates a database an older SQLite schema made (PostgreSQL starts at 19).
def test_a_version_12_database_gets_skeletons_without_accents(db_file):
    """An account made before accents were left out of skeletons ("B\u00f3b" kept the
    skeleton "B\u00f3B") blocks its look-alike "Bob" once the database is migrated."""
    raw = database_of_schema(db_file, 12)
    with raw:
        raw.execute("INSERT INTO accounts (handle, handle_key, cubes, created, skeleton) "
                    "VALUES ('B\u00f3b', 'b\u00f3b', 0, 0, 'B\u00f3B')")
    raw.close()
    with Ledger(db_file) as led:
        assert led.schema_version() == SCHEMA_VERSION
        with pytest.raises(HandleTaken, match="looks too much like B\u00f3b"):
            led.create_account("Bob", "h")
        assert led.find_account("B\u00f3b") is not None
        assert led.recent_signups(600) == []             # schema 14's table, empty
        led.create_account("carol", "h", signup_from="192.0.2.7")
        assert [address for address, _age in led.recent_signups(600)] == ["192.0.2.7"]


def test_sign_ups_are_kept_with_their_address_for_their_window_only(db):
    """The sign-ups per address outlive a restart: the ledger keeps each one's address
    group and time, and forgets those older than the window when asked."""
    now = [1_700_000_000.0]
    with db.open(clock=lambda: now[0]) as led:
        led.create_account("alice", "h", signup_from="2001:db8:0:1::/64")
        now[0] += 400
        led.create_account("bob", "h", signup_from="192.0.2.7")
        led.create_account("Robo", None, bot=True)          # the sysop's: not a sign-up
    now[0] += 300
    with db.open(clock=lambda: now[0]) as led:
        assert led.recent_signups(800) == [("2001:db8:0:1::/64", 700.0), ("192.0.2.7", 300.0)]
        assert led.recent_signups(600) == [("192.0.2.7", 300.0)]
        assert led.recent_signups(800) == [("192.0.2.7", 300.0)]   # the older one is gone


def test_an_old_account_with_a_now_reserved_name_can_still_log_in_and_gets_a_skeleton(db):
    with db.open():
        pass
    db.raw("INSERT INTO accounts (handle, handle_key, cubes, created) "
           "VALUES ('info', 'info', 0, 0)")
    with db.open() as led:                       # the skeleton is filled in at opening
        assert validate_handle("info", new=False) == "info"
        assert led.find_account("info") is not None
        with pytest.raises(ValueError, match="is reserved"):
            led.create_account("lnfo", "h")


def test_a_tournaments_hand_is_a_game_record_outside_the_stats(ledger):
    """A tournament's hand is recorded like any game (its tournament named) but moves no
    CUBES and counts in nobody's stats; a game without CUBES outside one still counts."""
    tid = ledger.create_tournament("sng", "Sit-and-go", "holdem", 10)
    hands = []
    for _ in range(2):
        gid = ledger.open_game(["Alice", "bob"], "c0ffee", table=f"sng-{tid}-1",
                               tournament=tid)
        ledger.close_game(gid, "Alice", {"players": ["Alice", "bob"],
                                         "tournament": {"id": tid, "key": "sng", "table": 1}})
        hands.append(gid)
    assert [(g.id, g.tournament, g.pot) for g in ledger.list_games()] == \
        [(hands[1], tid, 0), (hands[0], tid, 0)]
    assert ledger.tournament_hands(tid) == (hands[0], hands[1], 2)
    assert ledger.results() == [] and ledger.stats("Alice") == []
    assert ledger.verify() == []
    free = ledger.open_game(["Alice", "bob"], "beef", table="schiebe")
    ledger.close_game(free, "Alice", {"players": ["Alice", "bob"]})
    assert [(h, s.table) for h, s in ledger.results()] == [("Alice", "schiebe"),
                                                         ("bob", "schiebe")]
    assert ledger.game(free).tournament is None
    assert ledger.tournament_hands(tid + 1) is None
