"""Login and the door's menu, as a user sees them on an 80x24 pyte screen (issues 3 and 5)."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import re
import time

import pytest

from bbspoker.config import LoginConfig
from bbspoker.rules import actions as act
from bbspoker.door.guard import MAX_HANDLE_LINE, HandleBusy, LoginGuard, address_group
from bbspoker.door.login import check_password
from bbspoker.store.passwords import hash_password, verify_password
from bbspoker.store.wallet import StoreError
from bbspoker.text import display_width
from tests.support.stores import both_backends, store_db
from tests.support.telnetclient import FakeClock, running_server, wait_until


async def no_sleep(_seconds: float) -> None:
    await asyncio.sleep(0)



@pytest.fixture
async def server(tmp_path, ledger_url):
    """The server with its ledger on SQLite, or on each backend for a test marked
    ``both_backends`` (or ``languages_and_postgres``)."""
    async with running_server(tmp_path, sleep=no_sleep, ledger={"url": ledger_url}) as srv:
        yield srv


#: A test in English, German and French on SQLite, and in English on PostgreSQL.
languages_and_postgres = pytest.mark.parametrize(
    "lang, ledger_backend", [("en", "sqlite"), ("de", "sqlite"), ("fr", "sqlite"),
                             ("en", "postgres")], indirect=["ledger_backend"])


async def alice_and_bob(server, clients):
    """Two clients logged in (new users alice and bob), at the door's menu."""
    alice = await clients(server.port)
    await alice.login("alice", "pw-alice")
    bob = await clients(server.port)
    await bob.login("bob", "pw-bob")
    return alice, bob


def add_user(server, handle: str, password: str) -> None:
    server.app.ledger.create_account(handle, hash_password(password))




async def test_new_user_is_created_with_starting_cubes_and_password_never_echoed(server, clients):
    c = await clients(server.port)
    await c.wait_for("Handle:")
    await c.send("Alice\r")
    await c.wait_for("Create new user Alice? (y/n)")
    await c.send("y")
    await c.wait_for("Password:")
    await c.send("sesame12\r")
    await c.wait_for("Password again:")
    await c.send("sesame12\r")
    await c.wait_for("Logged in as Alice. You have 1,000 CUBES.")
    await c.wait_for("[Q] Quit")
    assert b"sesame12" not in c.received
    account = server.app.ledger.find_account("alice")
    assert account.handle == "Alice" and account.cubes == 1000
    stored = server.app.ledger.password_hash("Alice")
    assert "sesame12" not in stored and verify_password(stored, "sesame12")


async def test_new_user_passwords_must_match_and_nothing_is_created_otherwise(server, clients):
    c = await clients(server.port)
    await c.wait_for("Handle:")
    await c.send("carol\r")
    await c.wait_for("Create new user carol? (y/n)")
    await c.send("y")
    await c.wait_for("Password:")
    await c.send("first-pw\r")
    await c.wait_for("Password again:")
    await c.send("other-pw\r")
    await c.wait_for("The passwords differ")
    assert server.app.ledger.find_account("carol") is None
    await c.send("carol\r")
    await c.wait_for("Create new user carol? (y/n) ")
    await c.send("n")
    await wait_until(lambda: c.text.count("Handle:") == 3)
    assert server.app.ledger.find_account("carol") is None


async def test_bad_handle_gets_a_clear_message_and_a_new_prompt(server, clients):
    c = await clients(server.port)
    await c.wait_for("Handle:")
    await c.send("x\r")
    await c.wait_for("Sorry, a handle has 2 to 16 characters.")
    await c.send("abcdefghijklmnopq\r")
    await wait_until(lambda: c.text.count("Sorry, a handle has 2 to 16 characters.") == 2)
    assert c.text.rstrip().endswith("Handle:")


async def test_handles_are_unique_without_regard_to_case(server, clients):
    add_user(server, "Alice", "sesame12")
    c = await clients(server.port)
    await c.wait_for("Handle:")
    await c.send("ALICE\r")
    await c.wait_for("Password:")
    assert "Create new user" not in c.text
    await c.send("sesame12\r")
    await c.wait_for("Logged in as Alice.")


async def test_wrong_password_waits_the_failure_delay_before_answering(tmp_path, clients):
    delays: list[float] = []
    release = asyncio.Event()

    async def held_sleep(seconds: float) -> None:
        delays.append(seconds)
        await release.wait()

    async with running_server(tmp_path, sleep=held_sleep) as server:
        add_user(server, "bob", "right-pw")
        c = await clients(server.port)
        await c.wait_for("Handle:")
        await c.send("bob\r")
        await c.wait_for("Password:")
        await c.send("wrong-pw\r")
        await wait_until(lambda: delays)
        assert delays == [5.0]
        await asyncio.sleep(0.05)
        assert "Wrong password" not in c.text
        release.set()
        await c.wait_for("Wrong password.")
        await wait_until(lambda: c.text.count("Handle:") == 2)
        await c.send("bob\r")
        await wait_until(lambda: c.text.count("Password:") == 2)
        await c.send("right-pw\r")
        await c.wait_for("Logged in as bob.")


async def test_five_failures_lock_the_address_out_for_ten_minutes(tmp_path, clients, caplog):
    clock = FakeClock()
    caplog.set_level(logging.INFO, logger="bbspoker.door.login")
    async with running_server(tmp_path, clock=clock, sleep=no_sleep) as server:
        add_user(server, "bob", "right-pw")
        c = await clients(server.port)
        await c.wait_for("Handle:")   # past the title screen
        for attempt in range(1, 6):
            await wait_until(lambda: c.text.count("Handle:") == attempt)
            await c.send("bob\r")
            await wait_until(lambda: c.text.count("Password:") == attempt)
            await c.send(f"guess-{attempt}\r")
        await c.wait_for("Too many failed logins")
        await c.wait_closed()

        again = await clients(server.port)
        await again.wait_for("Too many failed logins from your address")
        await again.wait_closed()

        clock.advance(601)
        later = await clients(server.port)
        await later.login("bob", "right-pw")
        assert "Logged in as bob." in later.text

    log_text = caplog.text
    assert "handle='bob' outcome=wrong password" in log_text
    assert "address=127.0.0.1" in log_text and "outcome=ok" in log_text
    assert "guess-" not in log_text and "right-pw" not in log_text and "scrypt" not in log_text


def test_guard_never_locks_a_handle_but_slows_its_guesses_down():
    """Issue 20 (3): five guesses from anywhere locked the owner out for ten minutes,
    again and again."""
    clock = FakeClock()
    guard = LoginGuard(LoginConfig(failure_delay=5), clock)
    waits = []
    for n in range(5):                       # five attackers, one guess each
        turn = guard.reserve(f"10.0.0.{n}", "Carol")
        waits.append(turn.wait)
        assert not turn.failed()
    assert waits == [0, 5, 10 + 5, 20 + 15, 40 + 35]   # each waits for the one before
    clock.advance(200)
    owner = guard.reserve("192.168.1.1", "CAROL")
    assert owner.wait == 60                              # the owner: slowed, never refused
    owner.succeeded()
    assert guard.reserve("192.168.1.1", "carol").wait == 0   # and the slow-down is forgotten
    assert not guard.locked("192.168.1.1")


def test_guard_counts_parallel_guesses_from_one_address_when_they_are_made():
    """Issue 20 (3): eight parallel connections got eight guesses, not five."""
    clock = FakeClock()
    guard = LoginGuard(LoginConfig(), clock)
    turns = []
    for n in range(5):
        assert not guard.busy("10.0.0.1")
        turns.append(guard.reserve("10.0.0.1", f"user{n}"))
        assert turns[-1].wait == 0
    assert guard.busy("10.0.0.1") and not guard.busy("10.0.0.2")   # the sixth waits
    for turn in turns:                                # the five are wrong
        turn.failed()
    assert guard.locked("10.0.0.1") and guard.reserve("10.0.0.1", "user5") is None
    clock.advance(601)
    assert not guard.locked("10.0.0.1")


def test_people_behind_one_address_logging_in_at_once_are_never_locked_out():
    clock = FakeClock()
    guard = LoginGuard(LoginConfig(), clock)
    turns = []
    for n in range(20):                               # five at a time, all right
        while guard.busy("10.0.0.1"):
            turns.pop(0).succeeded()
        turns.append(guard.reserve("10.0.0.1", f"user{n}"))
        assert turns[-1].wait == 0
    assert not guard.locked("10.0.0.1")


def test_a_handles_line_is_bounded_and_a_turn_given_up_leaves_it():
    clock = FakeClock()
    guard = LoginGuard(LoginConfig(), clock)
    turns = [guard.reserve(f"10.0.{n}.1", "carol") for n in range(MAX_HANDLE_LINE)]
    with pytest.raises(HandleBusy):
        guard.reserve("10.0.99.1", "carol")
    turns[3].release()
    turns[3].failed()                                 # after the release: nothing counted
    assert guard.reserve("10.0.99.1", "carol").wait == 0
    assert not guard.busy("10.0.3.1") and not guard.locked("10.0.3.1")


def test_guard_forgets_failures_older_than_the_window():
    clock = FakeClock()
    guard = LoginGuard(LoginConfig(), clock)
    for _ in range(4):
        guard.reserve("10.0.0.1", "erin").failed()
    clock.advance(301)
    turn = guard.reserve("10.0.0.1", "erin")
    assert turn.wait == 0
    assert not turn.failed()
    assert not guard.locked("10.0.0.1")


class VirtualTime:
    """Monotonic seconds and a sleep on them, for ``clock`` and ``sleep``: a sleeper wakes
    once :meth:`advance` has passed its end, so waits of minutes take no real time."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now
        self._sleepers: list[tuple[float, asyncio.Future]] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        if seconds <= 0:
            await asyncio.sleep(0)
            return
        wake = asyncio.get_running_loop().create_future()
        self._sleepers.append((self.now + seconds, wake))
        await wake

    async def advance(self, seconds: float) -> None:
        """Move on ``seconds``, waking the sleepers it passes, and let them run."""
        self.now += seconds
        for end, wake in list(self._sleepers):
            if end <= self.now:
                self._sleepers.remove((end, wake))
                if not wake.done():
                    wake.set_result(None)
        for _ in range(3):
            await asyncio.sleep(0.002)

    async def run_until(self, done, seconds: float) -> None:
        """Advance one second at a time until ``done()`` or ``seconds`` have passed."""
        for _ in range(int(seconds)):
            if done():
                return
            await self.advance(1)


async def _verify_now(stored: str, password: str) -> bool:
    """The app's password check without its worker thread: each step of a login then
    follows the virtual time."""
    return verify_password(stored, password)


async def _guess(app, address: str, handle: str, passwords) -> bool | None:
    """One connection's SSH password tries, one after another, until one is right or the
    address is locked out: the last answer of :func:`check_password`."""
    verdict = False
    for password in passwords:
        verdict = await check_password(app, address, handle, password)
        if verdict is not False:
            break
    return verdict


async def test_guesses_cut_off_by_a_timeout_leave_no_place_and_no_count_behind(tmp_path):
    """Guesses on one handle from a few addresses, dropped by their timeout while they
    waited their turn, kept their places in the handle's line (its owner waited past the
    pre-login timeout) and their counts against their address (which could not log in to
    another account, with the right password, minutes later)."""
    time = VirtualTime()
    async with running_server(tmp_path, clock=time, sleep=time.sleep) as server:
        app = server.app
        app.verify_password = _verify_now
        add_user(server, "carol", "pw-carol")
        add_user(server, "dave", "pw-dave")
        # One address guesses five times: it is locked out, carol's guesses wait a minute.
        first = asyncio.create_task(_guess(app, "10.0.0.2", "carol",
                                           [f"guess-{n}" for n in range(5)]))
        await time.run_until(first.done, 300)
        assert first.done() and first.result() is None
        # Another sends five guesses at once, on five connections; they drop after 10 s.
        drops = [asyncio.create_task(check_password(app, "10.0.0.1", "carol", f"try-{n}"))
                 for n in range(5)]
        await time.advance(10)
        for task in drops:
            task.cancel()
        await asyncio.gather(*drops, return_exceptions=True)
        # The owner, from a fourth address, gets in within the pre-login timeout.
        owner = asyncio.create_task(check_password(app, "10.0.0.4", "carol", "pw-carol"))
        await time.run_until(owner.done, app.config.server.prelogin_timeout)
        assert owner.done() and owner.result() is True
        # Six minutes later the address whose guesses dropped logs in to its own account.
        await time.advance(360)
        own = asyncio.create_task(check_password(app, "10.0.0.1", "dave", "pw-dave"))
        await time.run_until(own.done, 10)
        assert own.done() and own.result() is True


async def test_a_guess_whose_turn_comes_after_the_prelogin_timeout_is_refused_at_once(
        tmp_path, clients):
    """The owner's right password, behind guesses that will take minutes, waited until
    "Login timed out"; now the door says how long to wait, and lets them in afterwards."""
    time = VirtualTime()
    async with running_server(tmp_path, clock=time, sleep=time.sleep) as server:
        app = server.app
        add_user(server, "carol", "pw-carol")
        first = asyncio.create_task(_guess(app, "10.0.0.2", "carol",
                                           [f"guess-{n}" for n in range(5)]))
        await time.run_until(first.done, 300)
        assert first.result() is None                 # carol's guesses wait a minute each
        waiting = [asyncio.create_task(check_password(app, "10.0.0.1", "carol", f"try-{n}"))
                   for n in range(3)]                 # three turns: a minute, two, three
        await time.advance(0)
        owner = await clients(server.port)
        await owner.wait_for("Handle:")
        await owner.send("carol\r")
        await owner.wait_for("Password:")
        await owner.send("pw-carol\r")
        await owner.wait_for("Too many logins on carol are waiting to be checked.")
        assert "Please try again in 180" in owner.text and b"Checking..." not in owner.received
        for task in waiting:                           # those connections drop
            task.cancel()
        await asyncio.gather(*waiting, return_exceptions=True)
        await owner.send("carol\r")
        await wait_until(lambda: owner.text.count("Password:") == 2)
        await owner.send("pw-carol\r")
        await owner.wait_for("Checking...")
        await time.run_until(lambda: "Logged in as carol." in owner.text, 61)
        await owner.wait_for("Logged in as carol.")


async def test_banned_user_is_refused_with_the_reason_once_the_password_is_right(
        server, clients):
    add_user(server, "mallory", "pw-mallory")
    server.app.ledger.ban("mallory", "card counting bots")
    # Issue 20 (10): anyone who typed the handle used to read the reason.
    nosy = await clients(server.port)
    await nosy.wait_for("Handle:")
    await nosy.send("mallory\r")
    await nosy.wait_for("Password:")
    await nosy.send("guess\r")
    await nosy.wait_for("Wrong password.")
    assert "card counting" not in nosy.text
    c = await clients(server.port)
    await c.wait_for("Handle:")
    await c.send("mallory\r")
    await c.wait_for("Password:")
    await c.send("pw-mallory\r")
    await c.wait_for("mallory is banned from this door: card counting bots")
    await c.wait_closed()


async def test_a_computer_players_account_does_not_log_in_at_the_door(server, clients):
    server.app.ledger.create_account("Robo", None, 100, bot=True)
    c = await clients(server.port)
    await c.wait_for("Handle:")
    await c.send("robo\r")
    await c.wait_for("Robo is a computer player; it does not log in here.")
    await c.wait_for("Handle:")
    assert "Password:" not in c.text and "Create new user" not in c.text


@both_backends
async def test_crash_refund_notices_are_shown_once_after_login(server, clients):
    ledger = server.app.ledger
    add_user(server, "dave", "pw-dave")
    game = ledger.open_game(["dave"], "0" * 64)
    ledger.pay_into_pot(game, "dave", 10, "ante")
    ledger.recover_unfinished_games(2.0)
    notices = ledger.notices("dave")
    assert notices
    c = await clients(server.port)
    await c.wait_for("Handle:")
    await c.send("dave\r")
    await c.wait_for("Password:")
    await c.send("pw-dave\r")
    await c.wait_for("Messages from the sysop:")
    await c.wait_for(notices[0].text[:40])
    await c.send(" ")
    await c.wait_for("[Q] Quit")
    assert ledger.notices("dave") == []


def test_every_reason_a_game_is_called_off_is_worded_in_each_language():
    """Every reason code the store records for a game called off (a takeover's ``moved``
    among them) reads in the player's language in the refund notice, not in the
    store's English."""
    from bbspoker.door.i18n import translator
    from bbspoker.door.lobby import describe_notice
    from bbspoker.store.sql.records import REASONS, Notice

    for code, english in REASONS.items():
        notice = Notice("game_cancelled", {"game": 7, "reason": code, "cubes": 20,
                                           "table": "holdem"}, "stored English", 1.0)
        assert english in describe_notice(notice, translator("en"))
        for lang in ("de", "fr"):
            text = describe_notice(notice, translator(lang))
            assert english not in text and "holdem" in text, (code, lang, text)
    moved = Notice("game_cancelled", {"game": 7, "reason": "moved", "cubes": 20,
                                      "table": "holdem"}, "stored English", 1.0)
    assert "anderen Server" in describe_notice(moved, translator("de"))
    assert "autre serveur" in describe_notice(moved, translator("fr"))


@both_backends
async def test_notices_are_shown_in_the_readers_language_and_old_ones_as_stored(server, clients):
    """Issue 18: a refund notice is stored as a code with data and read in the language of
    whoever logs in (German here, with German grouping); a notice of an older database
    (no code) is shown as it was stored."""
    ledger = server.app.ledger
    add_user(server, "dora", "pw-dora")
    ledger.set_language("dora", "de")
    ledger.grant("dora", 2000, "test", actor="test")
    game = ledger.open_game(["dora"], "0" * 64)
    ledger.pay_into_pot(game, "dora", 1200, "ante")
    ledger.recover_unfinished_games(2.0)
    (stored,) = ledger.notices("dora")
    assert stored.code == "game_cancelled" and "1200 CUBES of ante" in stored.text
    config = server.app.config.ledger                # what a schema-11 server left behind
    store_db(config.url or config.path).raw(
        "INSERT INTO notices (account_id, at, text) SELECT id, 1.0, "
        "'An old notice, in English.' FROM accounts WHERE handle = 'dora'")
    c = await clients(server.port)
    await c.wait_for("Handle:")
    await c.send("dora\r")
    await c.wait_for("Password:")                  # the login speaks the default language
    await c.send("pw-dora\r")
    await c.wait_for("Nachrichten vom Sysop:")
    await c.wait_for("An old notice, in English.")
    assert f"Spiel {game} wurde abgebrochen (der Server stoppte, bevor das Spiel zu Ende " \
           "war): Deine 1.200 CUBES an Grundeinsatz" in " ".join(
               row.strip() for row in c.text.splitlines())
    assert "refunded" not in c.text
    await c.send(" ")
    await c.wait_for("[Q] Beenden")
    assert ledger.notices("dora") == []


@pytest.mark.parametrize("lang, says", [
    ("en", "The tournament Nightly was called off: your buy-in of 250 CUBES was refunded."),
    ("de", "Das Turnier Nightly wurde abgesagt: dein Buy-in von 250 CUBES wurde erstattet."),
    ("fr", "Le tournoi Nightly a été annulé : votre buy-in de 250 CUBES a été remboursé."),
])
async def test_a_tournament_called_off_while_one_was_away_is_said_at_the_next_login(
        server, clients, lang, says):
    ledger = server.app.ledger
    add_user(server, "dora", "pw-dora")
    ledger.set_language("dora", lang)
    tid = ledger.create_tournament("nightly", "Nightly", "holdem", 250)
    ledger.register(tid, "dora")
    assert ledger.balance("dora") == 750
    ledger.cancel_tournament(tid, "fewer than 6 players")
    (stored,) = ledger.notices("dora")
    assert stored.code == "tournament_cancelled" and "fewer than 6 players" in stored.text
    assert ledger.balance("dora") == 1000
    c = await clients(server.port)
    await c.wait_for("Handle:")
    await c.send("dora\r")
    await c.wait_for("Password:")
    await c.send("pw-dora\r")
    await c.wait_for(says[:30])
    assert says in " ".join(row.strip() for row in c.text.splitlines())


async def test_who_lists_everyone_online_and_where(server, clients):
    alice, bob = await alice_and_bob(server, clients)
    await alice.send("w")
    await alice.wait_for("Who is online (2):")
    assert "alice             in the lobby" in alice.text
    assert "bob               in the lobby" in alice.text
    await alice.send(" ")
    await alice.wait_for("[Q] Quit")


async def test_x_message_reaches_the_other_user(server, clients):
    alice, bob = await alice_and_bob(server, clients)
    await alice.send("X")
    await alice.wait_for("Send an X-message to:")
    await alice.send("BOx\x7fB\r")   # Backspace (DEL) works while typing
    await alice.wait_for("Message:")
    assert alice.text.count("Send an X-message to:") == 1
    assert "Send an X-message to: BOB" in alice.text
    await alice.send("poker at nine?\x1b[2J\x07\r")
    await alice.wait_for("X-message sent to bob.")
    await bob.wait_for("*** X-message from alice: press [R] to read.")
    await bob.send("r")
    await bob.wait_for("From alice at")
    assert "poker at nine?" in bob.text
    assert b"\x07" not in bob.received
    await bob.send(" ")
    await bob.wait_for("[R] Read X-messages")
    assert "unread" not in bob.text


async def test_x_messages_are_rate_limited_per_sender(tmp_path, clients):
    """Issue 20 (9): X-messages at 31/s filled a victim's inbox."""
    clock = FakeClock()
    async with running_server(tmp_path, sleep=no_sleep, clock=clock,
                              input={"xmessages": 2, "xmessage_window": 60}) as server:
        alice, bob = await alice_and_bob(server, clients)
        for n in range(2):
            await alice.send_x("bob", f"spam {n}", "X-message sent to bob.")
        await alice.send("x")
        await alice.wait_for("You are sending X-messages too fast: please wait a minute.")
        await alice.send(" ")
        assert len(server.app.find_online("bob").inbox) == 2
        clock.advance(61)
        await alice.send("x")
        await alice.wait_for("Send an X-message to:")


async def test_x_message_to_someone_offline_changes_nothing(server, clients):
    alice = await clients(server.port)
    await alice.login("alice", "pw-alice")
    await alice.send("x")
    await alice.wait_for("Send an X-message to:")
    await alice.send("nobody\r")
    await alice.wait_for("Nobody called nobody is online.")


async def test_sender_is_told_the_recipient_is_playing_poker(server, clients):
    alice, bob = await alice_and_bob(server, clients)
    await bob.send("p")
    await bob.wait_for("Join the table? (y/n)")
    await bob.send("y")
    await bob.wait_for("[X] Exit the game")
    await alice.send("w")
    await alice.wait_for("bob               playing at PoKeR")
    await alice.send(" ")
    await alice.send("x")
    await alice.wait_for("Send an X-message to:")
    await alice.send("bob\r")
    await alice.wait_for("bob is playing poker")
    await alice.send("see you later\r")
    await alice.wait_for("X-message sent to bob.")
    assert [m.text for m in server.app.find_online("bob").inbox] == ["see you later"]


async def test_second_login_may_end_the_first_session(server, clients):
    first = await clients(server.port)
    await first.login("alice", "pw-alice")
    second = await clients(server.port)
    await second.take_over("alice", "pw-alice", first)
    assert server.app.find_online("alice") is not None
    assert len(server.app.online) == 1


async def test_login_must_finish_within_the_prelogin_timeout(tmp_path, clients):
    async with running_server(tmp_path, server={"prelogin_timeout": 0.3}) as server:
        c = await clients(server.port)
        await c.wait_for("Handle:")
        await c.wait_for("Login timed out. Goodbye.")
        await c.wait_closed()


async def test_idle_lobby_user_is_logged_out(tmp_path, clients):
    async with running_server(tmp_path, server={"lobby_idle_timeout": 0.3}) as server:
        c = await clients(server.port)
        await c.login("alice", "pw-alice")
        await c.wait_for("You have been idle too long. Goodbye.")
        await c.wait_closed()
        assert server.app.find_online("alice") is None


async def test_help_then_quit(server, clients):
    c = await clients(server.port)
    await c.login("alice", "pw-alice")
    await c.send("h")
    await c.wait_for("PoKeR in short")
    assert "40 cards" in c.text
    assert all(len(line.rstrip()) <= 80 for line in c.display)
    await c.send("z")
    await c.wait_for("[Q] Quit")
    await c.send("k")  # not a menu key: nothing happens
    await c.send("Q")
    await c.wait_for("Goodbye, come back soon!")
    await c.wait_closed()
    await wait_until(lambda: server.app.find_online("alice") is None)


async def test_poker_entry_can_be_declined(server, clients):
    c = await clients(server.port)
    await c.login("alice", "pw-alice")
    await c.send("p")
    await c.wait_for("ANSI")
    await c.wait_for("Nobody is using the poker game right now.")
    await c.wait_for("Join the table? (y/n)")
    await c.send("n")
    await c.wait_for("[Q] Quit")
    assert server.app.find_online("alice").activity == "lobby"


# Every character issue 5 forbids on another user's screen (CR/LF aside: the server's own).
FORBIDDEN = ({chr(c) for c in range(0x20)} - {"\r", "\n"}) | {"\x7f"} \
    | {chr(c) for c in range(0x80, 0xA0)} | {chr(c) for c in range(0x202A, 0x202F)} \
    | {chr(c) for c in range(0x2066, 0x206A)} | {chr(c) for c in range(0x200B, 0x2010)} \
    | {chr(c) for c in range(0x2060, 0x2070)}
SERVER_SEQUENCE = re.compile(rb"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\([0-9A-Za-z]")


async def test_hostile_characters_in_x_messages_never_reach_the_recipient(server, clients):
    alice, bob = await alice_and_bob(server, clients)
    # CR, LF and ESC end or cancel the prompt: ESC is tried at the end.
    hostile = sorted(FORBIDDEN - {"\r", "\n", "\x1b"})
    chunks = ["".join(hostile[i:i + 12]) for i in range(0, len(hostile), 12)]
    sent = 0
    for n, chunk in enumerate(chunks + ["tail\x1b"]):
        await alice.send("x")
        await alice.wait_for("Send an X-message to:")
        await alice.send("bob\r")
        await alice.wait_for("Message:")
        await alice.send(f"m{n}<{chunk}>\r" if "\x1b" not in chunk else f"m{n}<{chunk}")
        await alice.wait_for("[Press any key]")
        sent += "X-message sent to bob." in alice.text
        await alice.send(" ")
        await wait_until(lambda: "[Press any key]" not in alice.text)
    await alice.send(b"\xff\xfe\x80")  # raw bytes that are not UTF-8: ignored at the menu
    assert sent == len(chunks) and len(server.app.find_online("bob").inbox) == len(chunks)
    await bob.send("r")
    for page_end in range(10, len(chunks) + 10, 10):   # 10 X-messages per page
        await bob.wait_for(f"  m{min(page_end, len(chunks)) - 1}")
        await bob.send(" ")
    await bob.wait_for("[R] Read X-messages")
    assert "unread" not in bob.text
    shown = SERVER_SEQUENCE.sub(b"", bytes(bob.received)).decode("utf-8")
    assert not FORBIDDEN & set(shown)


# ------------------------------------------------------------------ issue 20: sign-ups


async def _sign_up(clients, server, handle: str):
    c = await clients(server.port)
    await c.wait_for("Handle:")
    await c.send(handle + "\r")
    await c.wait_for("Create new user")
    await c.send("y")
    return c


async def test_one_address_may_create_only_so_many_accounts_in_a_window(tmp_path, clients):
    """Issue 20 (1): one address created 803 accounts in 41 s, each with 1,000 CUBES. A
    third sign-up was asked "Create new user carol? (y/n)", then refused, the message
    broken mid-word at column 80: now it is refused before the question, in whole words,
    and the connection may still log in."""
    clock = FakeClock()
    async with running_server(tmp_path, sleep=no_sleep, clock=clock,
                              login={"signups_per_address": 2, "signup_window": 600}) as server:
        for handle in ("alice", "bob"):
            c = await clients(server.port)
            await c.login(handle, "pw-" + handle)
        third = await clients(server.port)
        await third.wait_for("Handle:")
        await third.send("carol\r")
        await third.wait_for("No more new accounts")
        await wait_until(lambda: third.text.count("Handle:") == 2)
        assert "Create new user" not in third.text and "Password:" not in third.text
        lines = [line.rstrip() for line in third.display]
        assert all(display_width(line) <= 79 for line in lines)
        said = " ".join(line for line in lines if line)
        assert ("There is no account carol here. No more new accounts from your address for "
                "now. Please try again later, or log in with the account you have.") in said
        ledger = server.app.ledger
        assert ledger.find_account("carol") is None
        assert ledger.totals().grants == 2 * 1000
        await third.send("alice\r")                   # the account they have still works
        await wait_until(lambda: "Password:" in third.text)
        await third.send("pw-alice\r")
        await third.wait_for("alice is already online")
        clock.advance(601)                            # the window has passed
        c = await clients(server.port)
        await c.login("carol", "pw-carol")
        assert ledger.balance("carol") == 1000


@both_backends
async def test_sign_ups_are_counted_when_offered_and_given_back_when_abandoned(
        tmp_path, clients, ledger_url):
    """Eight connections that all answered y before any typed a password made eight
    accounts against a limit of two: the check came at y, the count after the hash."""
    async with running_server(tmp_path, ledger={"url": ledger_url}, sleep=no_sleep,
                              login={"signups_per_address": 2, "signup_window": 600}) as server:
        farm = [await clients(server.port) for _ in range(8)]
        for n, c in enumerate(farm):
            await c.wait_for("Handle:")
            await c.send(f"farm{n}\r")
        await wait_until(lambda: all("Create new user" in c.text or "No more new" in c.text
                                     for c in farm))
        asked = [c for c in farm if "Create new user" in c.text]
        for c in asked:
            await c.send("y")
        for c in asked:
            await c.wait_for("Password:")
        for c in asked:
            await c.send("pw-farm\r")
            await c.wait_for("again")
            await c.send("pw-farm\r")
        await wait_until(lambda: sum("Logged in as" in c.text or "No more new" in c.text
                                     for c in farm) == 8)
        ledger = server.app.ledger
        assert len(ledger.list_accounts()) == 2 and ledger.totals().grants == 2 * 1000
    async with running_server(tmp_path, ledger={"url": ledger_url},    # a restart
                              sleep=no_sleep,
                              login={"signups_per_address": 3, "signup_window": 600}) as server:
        quitter = await clients(server.port)              # asked, then says no
        await quitter.wait_for("Handle:")
        await quitter.send("dora\r")
        await quitter.wait_for("Create new user dora? (y/n)")
        late = await clients(server.port)                 # the window is full meanwhile
        await late.wait_for("Handle:")
        await late.send("erin\r")
        await late.wait_for("No more new accounts")
        await quitter.send("n")                            # given back: erin may sign up now
        await wait_until(lambda: quitter.text.count("Handle:") == 2)
        await late.login("erin", "pw-erin")
        assert server.app.ledger.find_account("erin") is not None
        assert server.app.ledger.find_account("dora") is None


def test_sign_ups_from_one_ipv6_64_count_together():
    clock = FakeClock()
    guard = LoginGuard(LoginConfig(signups_per_address=1), clock,
                       signups=[("2001:db8:0:1::/64", 30.0)])     # made before a restart
    assert address_group("2001:db8:0:1::5") == address_group("2001:db8:0:1:ffff::9") \
        == "2001:db8:0:1::/64"
    assert address_group("::ffff:192.0.2.7") == "192.0.2.7" == address_group("192.0.2.7")
    assert guard.reserve_signup("2001:db8:0:1:abcd::1") is None   # same /64 as before
    place = guard.reserve_signup("2001:db8:0:2::1")                # the next /64
    assert place is not None and guard.reserve_signup("2001:db8:0:2::2") is None
    place.release()
    assert guard.reserve_signup("2001:db8:0:2::2") is not None
    clock.advance(600 - 30)                                        # the window has passed
    assert guard.reserve_signup("2001:db8:0:1::1") is not None


def test_wrong_guesses_from_one_ipv6_64_lock_the_whole_64_out():
    """One subscriber holds a whole /64: guessing from a new address of it for each try
    must not get past ``max_failures``; a neighbouring /64 and an IPv4 address are not
    locked with it."""
    clock = FakeClock()
    guard = LoginGuard(LoginConfig(max_failures=3), clock)
    for n in range(3):
        turn = guard.reserve(f"2001:db8:0:1::{n + 1}", f"user{n}")
        assert turn is not None
        turn.failed()
    assert guard.locked("2001:db8:0:1::99") and guard.reserve("2001:db8:0:1:ff::7", "zed") is None
    assert not guard.locked("2001:db8:0:2::1") and not guard.locked("192.0.2.7")
    assert guard.reserve("2001:db8:0:2::1", "zed") is not None


async def test_a_sign_up_on_a_full_disk_is_told_so_and_logged_in_one_line(
        tmp_path, clients, caplog):
    """It gave "Sorry, something went wrong" and a traceback in the log."""
    caplog.set_level(logging.INFO)
    async with running_server(tmp_path, sleep=no_sleep,
                              login={"signups_per_address": 1}) as server:
        ledger = server.app.ledger

        def disk_full(*args, **kwargs):
            raise StoreError("database or disk is full")

        ledger.create_account = disk_full
        c = await _sign_up(clients, server, "newbie")
        await c.wait_for("Password:")
        await c.send("pw-newbie\r")
        await c.wait_for("again")
        await c.send("pw-newbie\r")
        await c.wait_for("the server cannot store new accounts right now.")
        await wait_until(lambda: c.text.count("Handle:") == 2)
        assert "something went wrong" not in c.text
        failed = [r for r in caplog.records if "database or disk is full" in r.getMessage()]
        assert len(failed) == 1 and failed[0].exc_info is None
        assert "\n" not in failed[0].getMessage() and "Traceback" not in caplog.text
        del ledger.create_account                        # room again: the sign-up was
        await c.login("newbie", "pw-newbie")              # given back, it may be made
        assert ledger.find_account("newbie") is not None


@both_backends
async def test_with_approval_a_new_account_waits_for_the_sysop_and_its_cubes(
        tmp_path, clients, ledger_url):
    async with running_server(tmp_path, ledger={"url": ledger_url},
                              sleep=no_sleep, login={"approval": True}) as server:
        c = await _sign_up(clients, server, "newbie")
        await c.wait_for("Password:")
        await c.send("pw-newbie\r")
        await c.wait_for("again")
        await c.send("pw-newbie\r")
        await c.wait_for("Your account newbie is made. The sysop approves new accounts here")
        await c.wait_closed()
        ledger = server.app.ledger
        account = ledger.find_account("newbie")
        assert not account.approved and account.cubes == 0 and ledger.totals().grants == 0
        again = await clients(server.port)
        await again.wait_for("Handle:")
        await again.send("newbie\r")
        await again.wait_for("Password:")
        await again.send("pw-newbie\r")
        await again.wait_for("once yours is approved.")
        await again.wait_closed()
        assert ledger.approve("newbie", "sysop-test") == 1000
        assert ledger.history("newbie", 1)[0].note == "account approved"
        ok = await clients(server.port)
        await ok.login("newbie", "pw-newbie")
        assert "[Q]" in ok.text and ledger.verify() == []


@both_backends
async def test_the_daily_allowance_comes_once_a_day_to_a_poor_player_only(
        tmp_path, clients, ledger_url):
    async with running_server(tmp_path, sleep=no_sleep,
                              ledger={"allowance": 50, "allowance_below": 100,
                                      "url": ledger_url}) as server:
        ledger = server.app.ledger
        add_user(server, "poor", "pw-poor")
        add_user(server, "rich", "pw-rich")
        ledger.set_cubes("poor", 20, "lost it all", "sysop-test")
        for handle in ("poor", "rich"):
            c = await clients(server.port)
            await c.login(handle, "pw-" + handle)
            await c.close()
        assert ledger.balance("poor") == 70 and ledger.balance("rich") == 1000
        row = ledger.history("poor", 1)[0]
        assert (row.reason, row.amount, row.actor) == ("allowance", 50, "system:allowance")
        c = await clients(server.port)
        await c.login("poor", "pw-poor")          # the same day: nothing more
        assert ledger.balance("poor") == 70 and ledger.verify() == []


async def test_a_new_password_too_long_is_refused_with_the_reason_not_cut(server, clients):
    """Issue 20 (10): passwords over 128 characters were cut without a word."""
    c = await clients(server.port)
    await c.wait_for("Handle:")
    await c.send("longpw\r")
    await c.wait_for("Create new user")
    await c.send("y")
    await c.wait_for("Password:")
    await c.send("x" * 200 + "\r")
    await c.wait_for("password too long: use at most 128 characters")
    assert server.app.ledger.find_account("longpw") is None


async def test_who_lines_up_wide_and_accented_handles_by_columns(server, clients):
    """Issue 20 (10): [W]ho padded by characters, so wide handles pushed the column."""
    alice = await clients(server.port)
    await alice.login("alice", "pw-alice")
    wide = await clients(server.port)
    await wide.login("日本語", "pw-wide")
    await alice.send("w")
    await alice.wait_for("Who is online (2)")
    rows = [line for line in alice.text.splitlines() if "in the lobby" in line]
    assert len(rows) == 2
    columns = {display_width(row[:row.index("in the lobby")]) for row in rows}
    assert columns == {20}


async def test_the_lobby_s_key_shows_ones_results(server, clients):
    alice = await clients(server.port)
    await alice.login("alice", "pw-alice")
    assert "[S] Stats: your results" in alice.text
    await alice.send("s")
    await alice.wait_for("Your results, alice (1,000 CUBES now):")
    await alice.wait_for("no finished game yet")
    await alice.send(" ")
    await alice.wait_for("[Q] Quit")


async def test_a_reserved_or_look_alike_handle_is_refused_before_any_password(server, clients):
    add_user(server, "alice", "pw-alice")
    c = await clients(server.port)
    await c.wait_for("Handle:")
    await c.send("SYSTEM\r")
    await c.wait_for("Sorry, the handle SYSTEM is reserved")
    await wait_until(lambda: c.text.count("Handle:") == 2)
    await c.send("а1ice\r")                                     # Cyrillic а and a one
    await c.wait_for("Sorry, а1ice looks too much like alice.")
    assert "Create new user" not in c.text and "Password:" not in c.text


@both_backends
async def test_a_reader_blocks_a_senders_x_messages(server, clients):
    """[B] while reading an X-message blocks its sender: their next X-message is refused
    with a notice to them and never reaches the reader's inbox."""
    alice, bob = await alice_and_bob(server, clients)
    await alice.send_x("bob", "buy my cubes", "X-message sent to bob.")
    await bob.send("r")
    await bob.wait_for("[B] Block X-messages from alice, any other key: go on")
    await bob.send("b")
    await bob.wait_for("Blocked: no more X-messages from alice. Sending them one lifts it.")
    await alice.send_x("bob", "again", "bob does not take X-messages from you.")
    assert server.app.find_online("bob").inbox == []


async def test_a_paste_longer_than_the_type_ahead_keeps_its_enter(server, clients):
    """Issue 20 (10): a paste longer than the type-ahead lost its Enter."""
    c = await clients(server.port)
    await c.wait_for("Handle:")
    await c.send("x" * 400 + "\r")
    await c.wait_for("Sorry, a handle has 2 to 16 characters.")


@both_backends
async def test_blocks_outlive_a_restart_and_sending_to_the_blocked_lifts_them(
        tmp_path, clients, ledger_url):
    """Issue 20 (9): blocks kept across restarts; a way to lift one."""
    async with running_server(tmp_path, ledger={"url": ledger_url}, sleep=no_sleep) as server:
        alice, bob = await alice_and_bob(server, clients)
        await alice.send_x("bob", "buy my cubes", "X-message sent to bob.")
        await bob.send("r")
        await bob.wait_for("[B] Block X-messages from alice")
        await bob.send("b")
        await bob.wait_for("Blocked: no more X-messages from alice.")
    async with running_server(tmp_path, ledger={"url": ledger_url}, sleep=no_sleep) as server:
        alice = await clients(server.port)
        await alice.login("alice", "pw-alice")
        bob = await clients(server.port)
        await bob.login("bob", "pw-bob")
        await alice.send_x("bob", "again", "bob does not take X-messages from you.")
        assert server.app.find_online("bob").inbox == []
        # bob writes to alice: he is asked to lift his block first; "n" sends nothing.
        for answer, result in (("n", "Nothing sent."), ("y", "X-message sent to alice.")):
            await bob.send("x")
            await bob.wait_for("Send an X-message to:")
            await bob.send("alice\r")
            await bob.wait_for("lift that and send? (y/n)")
            await bob.send(answer)
            if answer == "y":
                await bob.wait_for("Message:")
                await bob.send("sorry\r")
            await bob.wait_for(result)
            await bob.send(" ")
            await bob.wait_for("[Q] Quit")
        await alice.send_x("bob", "thanks", "X-message sent to bob.")
        assert server.app.ledger.blocks() == []


@both_backends
async def test_the_fair_deck_screen_shows_each_tables_next_commitment(server, clients):
    """[F] lists the commitment each table has published for its next game, so that a
    player can set a phrase knowing the commitment it will be mixed with."""
    alice = await clients(server.port)
    await alice.login("alice", "pw-alice")
    await alice.send("f")
    await alice.wait_for("New phrase (up to 16 characters)")
    for entry in server.app.tables:
        commitment = entry.service.snapshot.next_commitment
        assert f"{entry.name}: {commitment[:16]}" in alice.text, alice.text


@both_backends
async def test_a_player_chooses_the_client_seed_of_the_fair_deck(server, clients):
    """[F] in the lobby sets the user's own client seed phrase (at most 16 characters,
    spaces squeezed; a longer one is refused with the reason) for the next game on;
    ``-`` goes back to a random seed each game."""
    alice = await clients(server.port)
    await alice.login("alice", "pw-alice")
    await alice.send("f")
    await alice.wait_for("Your client seed: a random one for each game")
    assert "SHA-256" in alice.text
    await alice.wait_for("New phrase (up to 16 characters)")
    await alice.send("x" * 17 + "\r")
    await alice.wait_for("Sorry, not that phrase: longer than 16 characters.")
    await alice.send("  lucky   seven \r")
    await alice.wait_for('Your client seed from the next game on: "lucky seven".')
    assert server.app.ledger.client_seeds_of(["Alice"]) == {"alice": "lucky seven"}
    await alice.send(" ")
    await alice.send("f")
    await alice.wait_for('Your client seed: "lucky seven"')
    await alice.send("-\r")
    await alice.wait_for("Your client seed from the next game on: random")
    assert server.app.ledger.client_seeds_of(["alice"]) == {"alice": None}


@languages_and_postgres
async def test_the_stats_table_fits_the_80x24_screen_unwrapped_in_every_language(
        server, clients, lang):
    """[S] in English, German and French on an 80x24 pyte screen: the heading and every
    row of the results table are each on one screen row, whole (the screen indents
    them, so the text alone fitting 80 columns is not enough)."""
    from bbspoker.door.i18n import translator
    from bbspoker.door.messages import describe_stats
    from bbspoker.door.screens.kinds import game_title
    ledger = server.app.ledger
    add_user(server, "erin", "pw-erin")
    add_user(server, "dave", "pw-dave")
    ledger.set_language("erin", lang)
    ledger.grant("erin", 900_000, "test", actor="test")
    for winner in ("erin", "dave"):                  # a big pot won, one lost
        game = ledger.open_game(["erin", "dave"], "0" * 64)
        for handle in ("erin", "dave"):
            ledger.pay_into_pot(game, handle, 123_456 if handle == "erin" else 10, "bet")
        ledger.pay_out_pot(game, winner, 123_466)
        ledger.close_game(game, winner, {"players": ["erin", "dave"]})
    c = await clients(server.port)
    await c.login("erin", "pw-erin")
    await c.send("s")
    games = {entry.id: game_title(entry.spec.game, translator(lang))
             for entry in server.app.tables}
    lines = describe_stats(ledger.stats("erin"), games, translator(lang))
    assert len(lines) == 2
    await c.wait_for(lines[0].split()[0])
    await c.wait_for(lines[1][:12])
    rows = [row.rstrip() for row in c.display]
    for line in lines:
        assert "  " + line.rstrip() in rows, (lang, line, rows)
    assert all(display_width(row) <= 79 for row in rows), rows


HALL_OF_FAME = {"en": ("Hall of fame: all games, all time",
                       "Hall of fame: all games, last 30 days"),
                "de": ("Ruhmeshalle: alle Spiele, seit Beginn",
                       "Ruhmeshalle: alle Spiele, letzte 30 Tage"),
                "fr": ("Tableau d'honneur : tous les jeux, depuis le début",
                       "Tableau d'honneur : tous les jeux, 30 derniers jours")}


@languages_and_postgres
async def test_stats_then_the_hall_of_fame_on_the_80x24_screen_in_every_language(
        tmp_path, clients, ledger_url, lang):
    """[S] keeps the player's own results and leads with [H] to the hall of fame: the top
    ten by net CUBES won with each player's BBS (``alias@TAG``; "-": came directly), the
    same ranking as ``bbspoker bulletin``, on one 80x24 page in the player's language;
    [M] narrows it to the last 30 days, [G] to one game kind, another key goes back."""
    from bbspoker.door.halloffame import rank, table_lines, title_text
    from bbspoker.door.i18n import translator
    tables = [("poker", "PoKeR"), ("hold", "Hold", "holdem", {})]
    async with running_server(tmp_path, ledger={"url": ledger_url},
                              sleep=no_sleep, tables=tables) as server:
        ledger = server.app.ledger
        add_user(server, "erin", "pw-erin")
        ledger.set_language("erin", lang)
        for handle in ("bob@EN", "carl@DE"):
            alias, _, tag = handle.partition("@")
            ledger.bbs_account(alias, tag)
        real_clock = ledger.books.clock
        for days_ago, table, paid, winner in (
                (40, "poker", {"erin": 100, "bob@EN": 400}, "erin"),
                (10, "poker", {"carl@DE": 50, "bob@EN": 250}, "carl@DE"),
                (2, "hold", {"erin": 60, "carl@DE": 60}, "carl@DE")):
            ledger.books.clock = lambda: real_clock() - days_ago * 86400
            game = ledger.open_game(list(paid), "0" * 64, table=table)
            for handle, cubes in paid.items():
                ledger.pay_into_pot(game, handle, cubes, "bet")
            ledger.pay_out_pot(game, winner, sum(paid.values()))
            ledger.close_game(game, winner, {"players": list(paid)})
        ledger.books.clock = real_clock
        t = translator(lang)
        c = await clients(server.port)
        await c.login("erin", "pw-erin")
        await c.send("s")
        await c.wait_for(t.gettext("[H] Hall of fame, any other key: back"))
        own = [row for row in c.display if row.startswith("  ") and "(" in row]
        assert len(own) == 3, c.display       # the headings and her two tables, as before
        await c.send("h")
        titles = HALL_OF_FAME[lang]
        for key, title, game, names in (
                (None, titles[0], None, ["erin", "carl", "bob"]),
                ("m", titles[1], None, ["carl", "erin", "bob"]),
                ("g", title_text("draw40", "month", t), "draw40", ["carl", "bob"]),
                ("g", title_text("holdem", "month", t), "holdem", ["carl", "erin"]),
                ("g", titles[1], None, ["carl", "erin", "bob"])):
            if key:
                await c.send(key)
            await c.wait_for(title)
            await wait_until(lambda: [r.split()[1] for r in c.display
                                      if r[:6].strip().rstrip(".").isdigit()] == names)
            rows = [row.rstrip() for row in c.display]
            assert rows[0] == title, rows
            entries = rank(ledger.results(None if key is None else 30 * 86400),
                           {"poker": "draw40", "hold": "holdem"}, game=game)
            for line in table_lines(entries, t):
                assert "  " + line in rows, (lang, line, rows)
            bob = next((r for r in rows if " bob " in r), "x x EN -250").split()
            assert bob[2] == "EN" and bob[3] in ("-650", "-250"), bob
            erin = next((r for r in rows if " erin " in r), "x x -").split()
            assert erin[2] == "-", erin
            assert all(display_width(row) <= 79 for row in rows), rows
        await c.send("q")
        await c.wait_for("[Q] ")
        assert server.app.find_online("erin") is not None


STANDINGS = {"en": ("Tournaments: season {}", "Tournaments: all time"),
             "de": ("Turniere: Saison {}", "Turniere: seit Beginn"),
             "fr": ("Tournois : saison {}", "Tournois : depuis le début")}


def _tourney(ledger, when: float, places: dict[str, int], prizes: dict[str, int],
             buy_in: int) -> None:
    """A tournament of the handles of ``places`` that ended at ``when`` (Unix seconds),
    made through the store as the director makes it."""
    real_clock = ledger.books.clock
    ledger.books.clock = lambda: when
    try:
        tid = ledger.create_tournament("nightly", "Nightly", "holdem", buy_in)
        for handle in places:
            ledger.register(tid, handle)
        ledger.start_tournament(tid, {"level": 1})
        ledger.finish_tournament(tid, places, prizes, {})
    finally:
        ledger.books.clock = real_clock


@languages_and_postgres
async def test_stats_and_the_hall_of_fame_show_the_seasons_tournament_standings(
        tmp_path, clients, ledger_url, lang):
    """[S] adds the player's tournament rank, points, played, won, cashes and net CUBES
    this season and all time; the hall of fame's [T] shows the season's standings (the
    ranking ``bbspoker bulletin --tournaments`` writes) in the same look, [P] the season
    before, [A] all time, [C] goes back to the CUBES won; on 80x24, in every language."""
    from datetime import date
    from bbspoker.door.halloffame import (
        player_lines, rank_standings, season_bounds, standings_lines)
    from bbspoker.door.i18n import translator
    from bbspoker.rules.seasons import season_of
    now = time.time()
    season = season_of(date.fromtimestamp(now), "week")
    start, _ = season.bounds()
    before = season.previous()
    this_week, last_week = start + (now - start) / 2, sum(before.bounds()) / 2
    async with running_server(tmp_path, ledger={"url": ledger_url},
                              sleep=no_sleep, seasons={"length": "week"}) as server:
        ledger = server.app.ledger
        add_user(server, "erin", "pw-erin")
        ledger.set_language("erin", lang)
        for handle in ("bob@EN", "carl@DE"):
            alias, _, tag = handle.partition("@")
            ledger.bbs_account(alias, tag)
        _tourney(ledger, last_week, {"erin": 1, "bob@EN": 2}, {"erin": 200}, 100)
        _tourney(ledger, this_week, {"carl@DE": 1, "erin": 2, "bob@EN": 3},
                 {"carl@DE": 100, "erin": 50}, 50)
        t = translator(lang)
        standings = {which: ledger.tournament_standings(*season_bounds(which))
                     for which in (season, None)}
        c = await clients(server.port)
        await c.login("erin", "pw-erin")
        await c.send("s")
        await c.wait_for(t.gettext("[H] Hall of fame, any other key: back"))
        own = player_lines("erin", season, standings, t)
        assert len(own) == 3
        rows = [row.rstrip() for row in c.display]
        for line in own:
            assert "  " + line in rows, (lang, line, rows)
        # this week 2nd (12 points, a cash, net 0), all time 1st (14 + 12, +100 CUBES)
        assert own[1].split()[-6:] == ["2", "12", "1", "0", "1", "0"], own
        assert own[2].split()[-6:] == ["1", "26", "2", "1", "2", "+100"], own
        assert all(display_width(row) <= 79 for row in rows), rows
        await c.send("h")
        await c.wait_for(HALL_OF_FAME[lang][0])
        await c.wait_for(t.gettext("[T] the tournament standings"))
        titles = STANDINGS[lang]
        for key, title, which, names in (
                ("t", titles[0].format(season.label), season, ["carl", "erin", "bob"]),
                ("p", titles[0].format(before.label), before, ["erin", "bob"]),
                ("a", titles[1], None, ["erin", "bob", "carl"])):
            await c.send(key)
            await c.wait_for(title)
            await wait_until(lambda: [r.split()[1] for r in c.display
                                      if r[:6].strip().rstrip(".").isdigit()] == names)
            rows = [row.rstrip() for row in c.display]
            assert rows[0] == title, rows
            entries = rank_standings(ledger.tournament_standings(*season_bounds(which)))
            for line in standings_lines(entries, t):
                assert "  " + line in rows, (lang, line, rows)
            assert all(display_width(row) <= 79 for row in rows), rows
        assert next(r for r in rows if " carl " in r).split()[2:] == [
            "DE", "17", "1", "1", "1", "+50"]
        await c.send("c")
        await c.wait_for(HALL_OF_FAME[lang][0])
        await c.send("t")
        await c.wait_for(titles[0].format(season.label))
        await c.send("q")
        await c.wait_for("[Q] ")
        assert server.app.find_online("erin") is not None


async def test_help_describes_the_games_of_the_servers_tables(tmp_path, clients):
    """[H] explains each game kind the server's tables run, one page each in the reader's
    language, and no other: a Hold'em and Schiebe-Poker server says nothing of the 40-card
    deck; each page fits the 80x24 screen."""
    tables = [("hold", "Hold", "holdem", {"seats": 6}),
              ("push", "Push", "schiebe", {"seats": 4})]
    async with running_server(tmp_path, sleep=no_sleep, tables=tables) as server:
        add_user(server, "erin", "pw-erin")
        server.app.ledger.set_language("erin", "de")
        c = await clients(server.port)
        await c.login("erin", "pw-erin")
        await c.send("h")
        await c.wait_for("Hold'em kurz")
        assert "40 Karten" not in c.text and "Schiebe-Poker kurz" not in c.text
        assert "[F] steigt aus" in c.text and c.row(23) == "", c.text
        await c.send(" ")
        await c.wait_for("Schiebe-Poker kurz")
        assert "Hold'em kurz" not in c.text and "[A]" in c.text
        await c.send(" ")
        await c.wait_for("[Q] Beenden")


async def test_with_at_most_nine_tables_one_digit_picks_a_table_at_once(tmp_path, clients):
    """Pick a table (1-3): the digit alone takes the player to that table (no Enter
    needed); an Enter typed after it out of habit does not answer the next question; a
    digit or key with no table says so and asks again; Enter alone goes back."""
    tables = [("red", "Red Room"), ("blue", "Blue Room"), ("green", "Green Room")]
    async with running_server(tmp_path, sleep=no_sleep, tables=tables) as server:
        c = await clients(server.port)
        await c.login("erin", "pw-erin")
        await c.send("p")
        await c.wait_for("Pick a table (1-3), Enter: back:")
        await c.send("9")
        await c.wait_for("There is no table 9.")
        await c.send("x")
        await c.wait_for("There is no table x.")
        await c.send("2")
        await c.wait_for("Blue Room -- 40-card European draw poker")
        await c.wait_for("Join the table? (y/n) [W] Watch")
        await c.send("\r")                                 # habit: ignored
        await c.send("n")
        await c.wait_for("[Q] Quit")
        await c.send("p")
        await c.wait_for("Pick a table (1-3), Enter: back:")
        await c.send("\r")
        await c.wait_for("[Q] Quit")
        assert not server.app.tables["blue"].service.snapshot.seats


async def test_an_enter_typed_after_the_digit_does_not_send_one_back_from_a_full_table(
        tmp_path, clients):
    """A player who types "1" and Enter out of habit at the list of tables: the digit picks
    the table at once, and the Enter, whether it comes in the same packet or a moment
    later, is not the answer to the full table's "any other key: back"; the next key is."""
    tables = [("red", "Red Room", "draw40", {"seats": 2}), ("blue", "Blue Room")]
    async with running_server(tmp_path, sleep=no_sleep, tables=tables) as server:
        for handle in ("alice", "bob"):
            server.app.ledger.create_account(handle, None)
            await server.app.tables["red"].service.call(handle, act.Sit())
        c = await clients(server.port)
        await c.login("erin", "pw-erin")
        for typed in ("1\r", "1"):
            await c.send("p")
            await c.wait_for("Pick a table (1-2), Enter: back:")
            await c.send(typed)
            await c.wait_for("All 2 seats are taken. [W] Watch the game")
            if typed == "1":
                await c.send("\r")                 # the Enter of "1\r" a moment later
            await c.send("w")
            await c.wait_for("You are watching")
            await c.send("x")
            await c.wait_for("Really leave the table? (y/n)")
            await c.send("y")
            await c.wait_for("[Q] Quit")


# --- [O] options: the look ---------------------------------------------------------------

def _options_row(c, start: str) -> str:
    """The row of the options page on ``c``'s screen that starts with ``start`` (after the
    choice mark), or ``""``."""
    return next((row.rstrip() for row in c.display if row[2:].startswith(start)), "")


async def test_a_user_who_chooses_classic_gets_it_again_at_the_next_login(server, clients):
    """[O] then [2]: the classic look, stored with the account and the session's look at
    once; a new login (another connection of the same colour terminal) gets it again,
    and its options page shows the preview without colour."""
    from bbspoker.door.look import CLASSIC
    c = await clients(server.port)
    c.as_classic = False     # the look itself is tested
    await c.login("alice", "pw-alice")
    assert server.app.find_online("alice").look.colour          # xterm: 8 colours
    await c.send("o")
    await c.wait_for("Preview: A\u2665 K\u2660")
    assert _options_row(c, "[3] As your terminal allows").startswith(">")
    await c.send("2")
    await c.wait_for("Preview: A* K+")
    assert _options_row(c, "[2] Classic").startswith(">")
    assert not _options_row(c, "[3]").startswith(">")
    assert server.app.find_online("alice").look == CLASSIC
    await c.send("q")
    await c.wait_for("[Q] Quit")
    await c.send("q")
    await c.wait_closed()
    again = await clients(server.port)
    again.as_classic = False     # the look itself is tested
    await again.login("alice", "pw-alice")
    assert server.app.find_online("alice").look == CLASSIC
    received = len(again.received)
    await again.send("o")
    await again.wait_for("Preview: A* K+")
    assert b"\x1b[1;31m" not in again.received[received:]


async def test_switching_suits_changes_the_preview_at_once(server, clients):
    """[5] draws the suits as GV signs (``A* K+``), still in colour (the ace's suit red);
    [4] brings the symbols back; each is stored with the account at once."""
    c = await clients(server.port)
    c.as_classic = False     # the look itself is tested
    await c.login("bob", "pw-bob")
    await c.send("o")
    await c.wait_for("Preview: A\u2665 K\u2660")
    row = next(y for y, text in enumerate(c.display) if text.startswith("Preview: "))
    heart = c.display[row].index("\u2665")
    assert c.screen.buffer[row][heart].fg == "red"
    await c.send("5")
    await c.wait_for("Preview: A* K+")
    assert c.screen.buffer[row][heart].fg == "red" and c.screen.buffer[row][heart].data == "*"
    assert _options_row(c, "[5] GV signs").startswith(">")
    account = server.app.ledger.find_account("bob")
    assert (account.look, account.suits) == ("", "gv")
    assert server.app.find_online("bob").look.suits == "gv"
    await c.send("4")
    await c.wait_for("Preview: A\u2665 K\u2660")
    assert server.app.ledger.find_account("bob").suits == "symbols"


async def test_a_monochrome_terminal_gets_the_classic_look_unless_its_user_chooses_colour(
        server, clients):
    """A terminal kind without colours (vt100) gets the classic look by default, and the
    options page says why the suits are signs; choosing colour gives colour anyway."""
    from bbspoker.door.look import CLASSIC
    c = await clients(server.port, term="vt100")
    c.as_classic = False     # the look itself is tested
    await c.login("carol", "pw-carol")
    assert server.app.find_online("carol").look == CLASSIC
    await c.send("o")
    await c.wait_for("Preview: A* K+")
    await c.wait_for("This look draws the suits as GV signs.")
    await c.send("1")
    await c.wait_for("Preview: A\u2665 K\u2660")
    await c.wait_for_gone("This look draws the suits as GV signs.")
    assert server.app.find_online("carol").look.colour
    assert server.app.ledger.find_account("carol").look == "colour"


async def test_bad_keys_on_the_options_page_change_nothing(server, clients):
    """Any key but [1]-[5] on the options page goes back to the menu (an arrow key is
    none: the door drops it): the stored choices and the session's look stay as they
    were."""
    c = await clients(server.port)
    c.as_classic = False     # the look itself is tested
    await c.login("dave", "pw-dave")
    before = server.app.find_online("dave").look
    for key in ("\x1b[A9", "0", "x", "\u00bd", "\x1b", "\r"):   # an arrow key is no key
        await c.send("o")
        await c.wait_for("Preview: ")
        await c.send(key)
        await c.wait_for_gone("Preview: ")
        await c.wait_for("[Q] Quit")
    account = server.app.ledger.find_account("dave")
    assert (account.look, account.suits) == ("", "")
    assert server.app.find_online("dave").look == before


@pytest.mark.parametrize("lang", ["en", "de", "fr"])
async def test_the_options_page_and_the_menu_fit_80x24_in_every_language(server, clients, lang):
    """The menu with [O] and the options page, in English, German and French on an 80x24
    screen: the title on the first row, the prompt on screen, no row wider than 79 cells."""
    from bbspoker.door.i18n import translator
    t = translator(lang)
    add_user(server, "erin", "pw-erin")
    server.app.ledger.set_language("erin", lang)
    c = await clients(server.port, term="vt100")
    c.as_classic = False     # the look itself is tested          # classic: the longest page
    await c.login("erin", "pw-erin")
    await c.wait_for("[O] " + t.gettext("Options: colour or classic look, suits"))
    assert all(display_width(row.rstrip()) <= 79 for row in c.display), c.display
    await c.send("o")
    await c.wait_for(t.gettext("Your choice (1-{n}), any other key: back ").format(n=5).strip())
    await c.wait_for(t.gettext("This look draws the suits as GV signs."))
    rows = [row.rstrip() for row in c.display]
    assert rows[0] == t.gettext("Options"), rows
    assert any(row.endswith("[5] " + t.gettext("GV signs: + spades, * hearts, # diamonds, "
                                                "- clubs")) for row in rows), rows
    assert all(display_width(row) <= 79 for row in rows), rows


async def test_a_look_the_ledger_cannot_store_is_told_and_changes_nothing(server, clients, caplog):
    """A full disk when [O] stores a choice: the user is told, the session keeps its look,
    the log has one line (no traceback), and the session goes on to the menu."""
    ledger = server.app.ledger

    def disk_full(*args, **kwargs):
        raise StoreError("database or disk is full")

    c = await clients(server.port)

    c.as_classic = False     # the look itself is tested
    await c.login("erin", "pw-erin")
    before = server.app.find_online("erin").look
    ledger.set_look = disk_full
    await c.send("o")
    await c.wait_for("Preview: ")
    await c.send("2")
    await c.wait_for("the server cannot store it right now.")
    assert server.app.find_online("erin").look == before
    failed = [r for r in caplog.records if "database or disk is full" in r.getMessage()]
    assert len(failed) == 1 and failed[0].exc_info is None and "Traceback" not in caplog.text
    await c.send(" ")
    await c.wait_for("[Q] Quit")
    del ledger.set_look
    assert ledger.find_account("erin").look == ""


# --- the lobby in colour and in the classic look ------------------------------------------

_NAMES = ("black", "red", "green", "brown", "blue", "magenta", "cyan", "white")
_SGR = re.compile(rb"\x1b\[([0-9;]*)m")


def _looks(pen) -> tuple[str, bool]:
    """The (fg, bold) a pyte screen shows for ``pen`` (:data:`bbspoker.door.look.PALETTE`)."""
    from bbspoker.door.look import PALETTE
    colour = PALETTE[pen]
    return ("default" if colour.fg is None else _NAMES[colour.fg]), colour.bright


def _pens_of(c, row: int, text: str) -> set[tuple[str, bool]]:
    """The (fg, bold) of the cells of ``text`` (its first occurrence) on ``c``'s ``row``."""
    at = c.display[row].index(text)
    return {(cell.fg, cell.bold) for cell in
            (c.screen.buffer[row][x] for x in range(at, at + len(text)))}


def _row_of(c, text: str) -> int:
    return next(y for y, row in enumerate(c.display) if text in row)


async def test_the_menu_in_colour_shows_its_title_keys_and_values(server, clients):
    """A colour terminal's menu: the title yellow over a rule, each key yellow inside its
    white brackets, the label as the terminal draws text, your handle green and your
    CUBES bright white."""
    from bbspoker.door.look import Pen
    c = await clients(server.port)                       # xterm: colour after the login
    c.as_classic = False
    await c.login("alice", "pw-alice")
    title = "Global Village BBS - PoKeR door"
    assert c.display[0].rstrip() == title and _pens_of(c, 0, title) == {_looks(Pen.TITLE)}
    assert c.display[1].rstrip() == "═" * len(title)
    assert _pens_of(c, 1, "═") == {_looks(Pen.BORDER)}
    y = _row_of(c, "[P] Play poker")
    at = c.display[y].index("[P]")
    key, bracket = c.screen.buffer[y][at + 1], c.screen.buffer[y][at]
    assert (key.fg, key.bold) == _looks(Pen.KEY) and (bracket.fg, bracket.bold) == (
        "default", False)
    assert _pens_of(c, y, "Play poker: the tables") == {("default", False)}
    y = _row_of(c, "Logged in as")
    assert _pens_of(c, y, "alice") == {_looks(Pen.SELF)}
    assert _pens_of(c, y, "1,000") == {_looks(Pen.VALUE)}


async def test_the_classic_lobby_shows_the_colour_lobbys_text_without_a_colour(tmp_path):
    """The same pages of the lobby -- the menu, the table list and a wrong number, [W]ho,
    [S]tats and the hall of fame, [L]anguage, [F]air deck, the help pages, an X-message
    to nobody, a wrong password -- on a colour terminal and on a monochrome one (the
    classic look): the classic pages hold the colour pages' text (but the rule under a
    heading) and not one colour. In colour, the table list's numbers are keys and its
    names values, refusals red, handles each in their own colour, column headings
    cyan, the help's heading yellow and its keys as keys."""
    from bbspoker.door.look import Pen, handle_pen
    tables = [("pk", "PoKeR"), ("sp", "Salon", "schiebe", {"seats": 3, "ante": 10})]
    async with running_server(tmp_path, sleep=no_sleep, tables=tables,
                              login={"failure_delay": 0}) as server:
        from tests.support.telnetclient import TelnetClient
        colour = await TelnetClient.connect(server.port)
        colour.as_classic = False
        classic = await TelnetClient.connect(server.port, term="vt100")
        try:
            await colour.login("alice", "pw-alice")
            await classic.login("bobby", "pw-bobby")
            assert not server.app.find_online("bobby").look.colour
            start = len(classic.received)
            steps = [("p", "Pick a table (1-2)"), ("7", "There is no table 7."),
                     ("\r", "[Q] Quit"), ("w", "[Press any key]"), (" ", "[Q] Quit"),
                     ("s", "[H] Hall of fame"), ("h", "[W] last 7 days"), ("x", "[Q] Quit"),
                     ("l", "Deutsch"), ("x", "[Q] Quit"), ("f", "Your client seed"),
                     ("\r", "[Q] Quit"), ("h", "PoKeR in short"),
                     (" ", "Schiebe-Poker in short"), (" ", "[Q] Quit"),
                     ("x", "Send an X-message to:"), ("nobody\r", "Nobody called nobody"),
                     (" ", "[Q] Quit"), ("c", "Your password now:"),
                     ("wrong-pw\r", "Wrong password."), (" ", "[Q] Quit")]
            pages = {}
            for keys, wait in steps:
                for c in (colour, classic):
                    await c.send(keys)
                    await c.wait_for(wait)
                def same(rows: list[str]) -> list[str]:       # the handles alike
                    return [row.replace("alice", "HANDL").replace("bobby", "HANDL")
                            for row in rows]
                for y, (mine, theirs) in enumerate(zip(same(colour.display),
                                                       same(classic.display))):
                    assert mine == theirs or (theirs.strip() == "" and set(mine.strip()) == {
                        "═"}), (wait, y, mine, theirs)
                pages[wait] = [
                    (y, row, [(colour.screen.buffer[y][x].fg, colour.screen.buffer[y][x].bold)
                              for x in range(len(row))]) for y, row in enumerate(colour.display)]
            sgr = {m for m in _SGR.findall(bytes(classic.received[start:]))}
            assert sgr <= {b"1", b"", b"0"}, sgr        # the bold headings, as always
            assert all(cell.fg == "default" and cell.bg == "default"
                       for row in classic.screen.buffer.values() for cell in row.values())
        finally:
            await colour.close()
            await classic.close()

    def pens(page: str, text: str, nth: int = 0) -> set[tuple[str, bool]]:
        rows = [(y, row, cells) for y, row, cells in pages[page] if text in row]
        _, row, cells = rows[nth]
        at = row.index(text)
        return set(cells[at:at + len(text)])

    def pen_at(page: str, text: str, offset: int, nth: int = 0) -> tuple[str, bool]:
        _, row, cells = [(y, row, cells) for y, row, cells in pages[page] if text in row][nth]
        return cells[row.index(text) + offset]

    assert pens("Pick a table (1-2)", "Name") == {_looks(Pen.LABEL)}
    assert pens("Pick a table (1-2)", "PoKeR") == {_looks(Pen.VALUE)}
    assert pen_at("Pick a table (1-2)", " 1  PoKeR", 1) == _looks(Pen.KEY)
    assert pens("There is no table 7.", "There is no table 7.") == {_looks(Pen.ERROR)}
    assert pens("[Press any key]", "alice") == {_looks(handle_pen("alice"))}
    assert pens("[Press any key]", "bobby") == {_looks(handle_pen("bobby"))}
    assert pens("[W] last 7 days", "PLAYER") == {_looks(Pen.LABEL)}
    assert pen_at("[W] last 7 days", "[W] last", 1) == _looks(Pen.KEY)
    assert pens("PoKeR in short", "PoKeR in short") == {_looks(Pen.TITLE)}
    assert pen_at("PoKeR in short", "[S]", 1) == _looks(Pen.KEY)
    assert pen_at("Schiebe-Poker in short", " - ", 1) == _looks(Pen.BORDER)
    assert pens("Nobody called nobody", "Nobody called nobody") == {_looks(Pen.ERROR)}
    assert pens("Wrong password.", "Wrong password.") == {_looks(Pen.ERROR)}


def test_every_kinds_name_is_whole_in_the_table_lists_game_column_in_every_language():
    """The table list names each table's game in a column of its own: no kind's title is
    cut there in any language (``Seven-card stud`` once lost its last word)."""
    from bbspoker.door.i18n import LANGUAGES, translator
    from bbspoker.door.lobby import GAME_WIDTH
    from bbspoker.door.screens.kinds import KINDS
    for lang in LANGUAGES:
        t = translator(lang)
        for kind in KINDS.values():
            assert display_width(t.gettext(kind.title)) <= GAME_WIDTH, (lang, kind.title)


# ---------------------------------------------------------------- tournaments ([T])

from bbspoker.door import tournaments as tdoor  # noqa: E402
from bbspoker.door.i18n import translator  # noqa: E402
from tests.support.telnetclient import tournament_spec  # noqa: E402

#: What the [T] pages say, per language: the list's title, the register key, the question,
#: the answer "yes", registered, the refund, not enough CUBES.
_T_WORDS = {
    "en": ("Tournaments", "[R] Register", "The buy-in is 100 CUBES", "y",
           "You are registered: 100 CUBES paid.", "You are no longer registered: 100 CUBES back.",
           "You do not have the 100 CUBES of the buy-in."),
    "de": ("Turniere", "[R] Anmelden", "Das Buy-in kostet 100 CUBES", "j",
           "Du bist angemeldet: 100 CUBES bezahlt.", "Du bist abgemeldet: 100 CUBES zurück.",
           "Du hast die 100 CUBES des Buy-ins nicht."),
    "fr": ("Tournois", "[R] S'inscrire", "Le buy-in coûte 100 CUBES", "o",
           "Vous êtes inscrit : 100 CUBES payés.", "Vous n'êtes plus inscrit : 100 CUBES rendus.",
           "Vous n'avez pas les 100 CUBES du buy-in."),
}


async def test_the_lobby_has_no_tournaments_key_without_tournaments(server, clients):
    c = await clients(server.port)
    await c.login("alice", "pw-alice")
    await c.menu()
    assert "[T]" not in c.text
    await c.send("t")
    await c.menu()
    assert "Tournaments" not in c.text


@languages_and_postgres
async def test_tournament_registration_costs_the_buy_in_asked_first_and_unregistering_refunds(
        tmp_path, clients, ledger_url, lang):
    async with running_server(tmp_path, ledger={"url": ledger_url}, sleep=no_sleep,
                              tournaments=[tournament_spec(sit_and_go=3, limit="no")]) as server:
        server.app.ledger.create_account("alice", hash_password("pw-alice"))
        server.app.ledger.set_language("alice", lang)
        title, register, question, yes, done, back, poor = _T_WORDS[lang]
        c = await clients(server.port)
        await c.login("alice", "pw-alice")
        await c.menu()
        assert "[T]" in c.text
        await c.send("t")
        await c.wait_for("Sunday NL")
        row = next(line for line in c.display if "Sunday NL" in line)
        assert "Hold'em NL" in row and "100" in row and "0/3" in row
        assert all(len(line.rstrip()) <= 79 for line in c.display)
        await c.send("1")
        await c.wait_for(register)
        await c.send("r")
        await c.wait_for(question)
        await c.send("n")                         # no: nothing paid
        await wait_until(lambda: server.app.ledger.balance("alice") == 1000)
        await c.send("r")
        await wait_until(lambda: c.text.count(question) == 1 and "(" in c.text)
        await c.send(yes)
        await c.wait_for(done)
        assert server.app.ledger.balance("alice") == 900
        assert server.app.tournaments.view("sng", "alice").registered
        await c.send("u")
        await c.wait_for(back)
        assert server.app.ledger.balance("alice") == 1000
        assert not server.app.tournaments.view("sng", "alice").registered
        server.app.ledger.create_account("poor", hash_password("pw-poor"), 50)
        server.app.ledger.set_language("poor", lang)
        p = await clients(server.port)
        await p.login("poor", "pw-poor")
        await p.menu()
        await p.send("t")
        await p.wait_for(title)
        await p.send("1")
        await p.wait_for(register)
        await p.send("r")
        await p.wait_for(question)
        await p.send(yes)
        await p.wait_for(poor)
        assert server.app.ledger.balance("poor") == 50
        assert server.app.tournaments.view("sng").entrants == 0


async def test_a_registered_player_on_the_page_goes_to_the_table_when_it_starts(
        tmp_path, clients):
    """alice registered and waits on the tournament's page; the last place is taken (by
    bob, elsewhere): her screen becomes her table's, with the tournament line, without a
    key pressed."""
    async with running_server(tmp_path, sleep=no_sleep,
                              tournaments=[tournament_spec(sit_and_go=2, limit="no")]) as server:
        for h in ("alice", "bob"):
            server.app.ledger.create_account(h, hash_password("pw-" + h))
        c = await clients(server.port)
        await c.login("alice", "pw-alice")
        await c.send("t")
        await c.wait_for("Sunday NL")
        await c.send("1")
        await c.wait_for("[R] Register")
        await c.send("r")
        await c.wait_for("(y/n)")
        await c.send("y")
        await c.wait_for("You are registered")
        await server.app.tournaments.register("sng", "bob")
        await c.wait_for("Sunday NL #1")
        await c.wait_for("out now: 2nd")
        assert server.app.tournaments.table_of("alice") is not None
        assert "[X] back to the lobby" in c.text and "leave the table" not in c.text


@pytest.mark.parametrize("lang, says", [("en", ("L1 1-50 a5", "next ", "2 left")),
                                        ("de", ("L1 1-50 A5", "Ende ", "2 übrig")),
                                        ("fr", ("N1 1-50 a5", "fin ", "2 en jeu"))])
async def test_a_draw40_tournament_tables_status_border_has_the_tournament_line_ticking(
        tmp_path, clients, lang, says):
    """alice at her draw40 sit-and-go's table: the status border shows her chips and the
    tournament line (level, bets and ante, time to the next level, players left) in her
    language, inside the border, and its clock counts down by itself."""
    spec = tournament_spec(game="draw40", seats=5, sit_and_go=2,
                           levels=((50, 5, 10.0), (100, 10, 10.0)))
    async with running_server(tmp_path, sleep=no_sleep, tournaments=[spec]) as server:
        for h in ("alice", "bob"):
            server.app.ledger.create_account(h, hash_password("pw-" + h))
        server.app.ledger.set_language("alice", lang)
        await server.app.tournaments.register("sng", "alice")
        await server.app.tournaments.register("sng", "bob")
        c = await clients(server.port)
        await c.wait_for("Handle:")
        await c.send("alice\r")
        await c.wait_for("Password:")
        await c.send("pw-alice\r")          # seated: straight back to the table
        await c.wait_for(says[0])
        row = next(line for line in c.display if says[0] in line)
        assert all(part in row for part in says) and "CUBES" not in row, row
        assert row.startswith(("+", "╟")) and len(row.rstrip()) == 80
        first = row
        await wait_until(lambda: any(says[0] in line and line != first for line in c.display))


@pytest.mark.parametrize("lang", ["en", "de", "fr"])
def test_tournament_list_page_and_table_line_fit_80_columns(lang):
    from bbspoker.table.director import TournamentView
    t = translator(lang)
    spec = tournament_spec(sit_and_go=9, buy_in=250_000, chips=1_500_000,
                           levels=[(20_000, 2_000, 10.0)] * 3 + [(400_000, 40_000, 10.0)])
    running = TournamentView(spec, 1, "running", entrants=9, pool=2_250_000, level=3,
                             next_level_in=299.2, players_left=7, average_stack=1_928_571,
                             tables=1, registered=True, table=1, chips=2_500_000,
                             place_if_out=7,
                             results=((1, "bobbybobbybobby", 1_125_000), (2, "carol", 675_000)))
    lines = tdoor.list_lines([running], t) + tdoor.page_lines(running, t)
    assert all(len(line) <= 79 for line in lines), [ln for ln in lines if len(ln) > 79]
    line = tdoor.status_line(dataclasses.replace(running, level=0), t)
    assert len(line) <= 78 and tdoor.place_text(7, t) in line and "4:60" not in line
    assert "5:00" in line
    assert "CUBES" not in line


def test_places_are_ordinals_in_each_language():
    assert [tdoor.place_text(n, translator("en")) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd"]
    assert tdoor.place_text(7, translator("de")) == "7."
    assert [tdoor.place_text(n, translator("fr")) for n in (1, 2)] == ["1re", "2e"]
