"""The SSH transport end to end (issue 19): an asyncssh client with a PTY against the real
server, next to telnet players; logins, lockouts, keys, the host key, floods."""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat

import asyncssh
import pytest

from bbspoker.cli import main as cli_main
from bbspoker.transport.ssh import ChannelLink, load_host_key
from tests.support.stores import both_backends
from tests.support.tableplay import bet, cubes, join, my_cards
from tests.transport.test_server import count_releases
from tests.support.telnetclient import wait_until
from tests.support.termclients import SshClient, telnet, transport_server

pytestmark = pytest.mark.e2e


def ssh_server(tmp_path, **config):
    """The real server with SSH on a free port, a fake clock and no login delays;
    yields (server, clients: a list closed at the end, clock)."""
    return transport_server(tmp_path, "ssh", **config)


async def ssh(server, made, user, **kwargs) -> SshClient:
    c = await SshClient.connect(server.ssh_port, user, **kwargs)
    made.append(c)
    return c


async def test_an_ssh_player_signs_up_logs_in_and_plays_a_telnet_player(tmp_path):
    async with ssh_server(tmp_path) as (server, made, clock):
        # "new" needs no password: the door's own dialogue makes the account.
        bob = await ssh(server, made, "new")
        await bob.login("bob", "pw-bob-1")
        await bob.send("q")
        await bob.wait_closed()
        # Then bob logs in with his handle and password: straight to the menu.
        bob = await ssh(server, made, "bob", password="pw-bob-1", cols=80, rows=24)
        await bob.menu()
        assert "Logged in as bob. You have 1,000 CUBES." in bob.text
        session = server.app.find_online("bob")
        assert session.term.kind == "xterm-256color" and session.encoding == "utf-8"

        alice = await telnet(server, made)
        await alice.login("alice", "pw-alice")
        await join(alice, "Nobody is using the poker game right now.")
        await join(bob, "alice")

        # A game: alice opens and calls, bob (over SSH) raises, both keep their cards,
        # alice passes: bob wins.
        await alice.wait_for("[S] Open the game")
        await alice.send("s")
        for c in (alice, bob):
            await c.wait_for("The game is now STARTED (initial pot is 20)")
        assert len([card for card in my_cards(bob) if card]) == 5
        await bet(alice)
        await bob.wait_for("alice has called the bet (1), pot is 21.")
        await bet(bob, "25")
        await alice.wait_for("bob has raised the bet (25), pot is 46.")
        await alice.wait_for("DISCARDING INTERVAL")
        await alice.send("d")
        await bob.wait_for("alice has discarded no cards.")
        await bob.send("d")
        await alice.wait_for("Round ....... 3")
        await alice.wait_for("[P] Pass")
        await alice.send("p")
        await alice.send("y")
        await bob.wait_for("alice has passed.")
        await bet(bob)                            # calls 25 alone: the showdown
        await bob.wait_for("[R] Reveal hand")
        await bob.send("r")
        await bob.wait_for("bob wins the pot of 71 CUBES")
        await bob.wait_for(f"{1000 - 10 - 25 - 25 + 71:,} CUBES")
        await alice.wait_for("bob wins the pot of")
        assert cubes(alice) == 1000 - 10 - 1

        # The window grows: the session takes the new size and the table is redrawn.
        await bob.resize(100, 30)
        await wait_until(lambda: (session.cols, session.rows) == (100, 30))
        await bob.wait_for("[X] Exit the game")
        await bob.resize(10, 3)                       # clamped as NAWS is
        await wait_until(lambda: (session.cols, session.rows) == (40, 8))


async def test_wrong_ssh_passwords_lock_the_address_out_as_on_telnet(tmp_path):
    async with ssh_server(tmp_path, login={"max_failures": 3}) as (server, made, clock):
        alice = await telnet(server, made)
        await alice.login("alice", "pw-alice")
        for _ in range(2):
            with pytest.raises(asyncssh.PermissionDenied):
                await ssh(server, made, "alice", password="wrong")
        # The third wrong guess locks the address out: the client is told why.
        with pytest.raises(asyncssh.DisconnectError, match="Too many failed logins"):
            await ssh(server, made, "alice", password="wrong")
        # Now even the right password is refused from this address, on SSH and on telnet.
        with pytest.raises(asyncssh.DisconnectError, match="Too many failed logins"):
            await ssh(server, made, "alice", password="pw-alice")
        late = await telnet(server, made)
        await late.wait_for("Too many failed logins from your address.")
        # An unknown handle is refused like a wrong password, and costs no guess.
        clock.advance(server.app.config.login.lockout + 1)
        with pytest.raises(asyncssh.PermissionDenied):
            await ssh(server, made, "nobody-here", password="x")
        again = await ssh(server, made, "alice", password="pw-alice")
        await again.wait_for("alice is already online")


async def test_a_banned_user_with_the_right_password_is_told_why(tmp_path):
    async with ssh_server(tmp_path) as (server, made, clock):
        c = await ssh(server, made, "new")
        await c.login("mallory", "pw-mallory")
        await c.send("q")
        await c.wait_closed()
        server.app.ledger.ban("mallory", "cheating")
        c = await ssh(server, made, "mallory", password="pw-mallory")
        await c.wait_for("mallory is banned from this door: cheating")
        await c.wait_closed()


@both_backends
async def test_public_key_login_after_users_key_add(tmp_path, capsys, monkeypatch, ledger_url):
    async with ssh_server(tmp_path, ledger={"url": ledger_url}) as (server, made, clock):
        c = await telnet(server, made)
        await c.login("carol", "pw-carol")
        await c.send("q")
        key = asyncssh.generate_private_key("ssh-ed25519", comment="carol@laptop")
        other = asyncssh.generate_private_key("ssh-ed25519")
        (tmp_path / "carol.pub").write_bytes(key.export_public_key("openssh"))
        monkeypatch.setenv("BBSPOKER_DB", ledger_url or server.app.config.ledger.path)
        monkeypatch.delenv("BBSPOKER_CONFIG", raising=False)
        assert cli_main(["users", "key", "add", "carol", str(tmp_path / "carol.pub")]) == 0
        assert key.get_fingerprint("sha256") in capsys.readouterr().out
        # Someone else's key gets nowhere; carol's key logs her in without a password.
        with pytest.raises(asyncssh.PermissionDenied):
            await ssh(server, made, "carol", client_keys=[other])
        carol = await ssh(server, made, "carol", client_keys=[key])
        await carol.menu()
        assert "Logged in as carol." in carol.text
        # A private key file, or a file that is no key, is refused and changes nothing.
        (tmp_path / "carol").write_bytes(key.export_private_key("openssh"))
        assert cli_main(["users", "key", "add", "carol", str(tmp_path / "carol")]) == 1
        assert "holds a private key" in capsys.readouterr().err
        assert len(server.app.ledger.user_keys("carol")) == 1
        # list shows it; remove forgets it (an unknown fingerprint changes nothing).
        fingerprint = key.get_fingerprint("sha256")
        assert cli_main(["users", "key", "list", "carol"]) == 0
        assert f"{fingerprint}  ssh-ed25519  carol@laptop" in capsys.readouterr().out
        assert cli_main(["users", "key", "remove", "carol", "SHA256:nothing"]) == 1
        assert "nothing changed" in capsys.readouterr().err
        assert cli_main(["users", "key", "remove", "carol", fingerprint]) == 0
        assert server.app.ledger.user_keys("carol") == []
        with pytest.raises(asyncssh.PermissionDenied):
            await ssh(server, made, "carol", client_keys=[key])


async def test_the_host_key_is_made_private_once_and_reused(tmp_path):
    path = tmp_path / "keys" / "host"
    path.parent.mkdir()
    first = load_host_key(str(path))
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert load_host_key(str(path)).public_data == first.public_data
    async with ssh_server(tmp_path) as (server, made, clock):
        made_key = tmp_path / "ssh_host_ed25519_key"      # beside the ledger
        assert stat.S_IMODE(os.stat(made_key).st_mode) == 0o600
        c = await ssh(server, made, "new")
        seen = c.conn.get_server_host_key().public_data
        assert seen == load_host_key(str(made_key)).public_data
    (tmp_path / "bad").write_text("not a key")
    with pytest.raises(ValueError, match="not a usable private key"):
        load_host_key(str(tmp_path / "bad"))


async def test_an_ssh_flood_ends_that_session_only(tmp_path):
    async with ssh_server(tmp_path) as (server, made, clock):
        alice = await telnet(server, made)
        await alice.login("alice", "pw-alice")
        flooder = await ssh(server, made, "new")
        await flooder.wait_for("Handle:")
        # More than the burst (16 KiB) at once: not a person.
        await flooder.send(b"x" * 40_000)
        await flooder.wait_for("Input faster than a person can type: disconnected.")
        await flooder.wait_closed()
        # Window changes are charged too.
        resizer = await ssh(server, made, "new")
        await resizer.wait_for("Handle:")
        for n in range(400):
            resizer.chan.change_terminal_size(80 + n % 2, 24)
        await resizer.wait_for("Window changes faster than a person makes them")
        await resizer.wait_closed()
        # Nobody else noticed; the caps were given back.
        await alice.send("w")
        await alice.wait_for("Who is online")
        await wait_until(lambda: server.app.limits.total == 1)


async def test_one_shell_per_connection_and_no_commands(tmp_path):
    async with ssh_server(tmp_path) as (server, made, clock):
        c = await ssh(server, made, "new")
        await c.wait_for("Handle:")
        with pytest.raises(asyncssh.ChannelOpenError):
            await c.conn.create_session(asyncssh.SSHClientSession, term_type="xterm")
        result = None
        with contextlib.suppress(asyncssh.ChannelOpenError):
            result = await asyncio.wait_for(c.conn.run("cat /etc/passwd"), 5)
        assert result is None or "root:" not in str(result.stdout)
        assert len(server.app.sessions) == 1


async def test_the_connection_caps_count_ssh_with_telnet(tmp_path):
    async with ssh_server(tmp_path, server={"max_connections": 2}) as (server, made, clock):
        first = await telnet(server, made)
        await first.wait_for("Handle:")
        second = await ssh(server, made, "new")
        await second.wait_for("Handle:")
        with pytest.raises((asyncssh.DisconnectError, ConnectionError),
                           match="Too many connections"):
            await ssh(server, made, "new")
        third = await telnet(server, made)
        await third.wait_for("Too many connections, please try again later.")
        await second.close()
        await wait_until(lambda: server.app.limits.total == 1)
        again = await ssh(server, made, "new")
        await again.wait_for("Handle:")


async def test_a_login_that_opens_no_shell_is_closed(tmp_path):
    async with ssh_server(tmp_path, server={"prelogin_timeout": 0.3}) as (server, made, clock):
        conn = await asyncssh.connect("127.0.0.1", server.ssh_port, username="new",
                                      known_hosts=None, agent_path=None, config=None)
        try:
            await asyncio.wait_for(conn.wait_closed(), 5)
        finally:
            conn.close()
        await wait_until(lambda: server.app.limits.total == 0)


async def test_a_reader_that_fails_ends_its_session_before_its_place_is_given_back(
        tmp_path, monkeypatch):
    """As on telnet and the web page: the session ends before the count goes down."""
    async with ssh_server(tmp_path) as (server, made, clock):
        app = server.app
        live_at_release = count_releases(monkeypatch, app)
        c = await ssh(server, made, "new")
        await c.login("bob", "pw-bob-1")

        def broken(self, data: bytes) -> None:
            raise RuntimeError("the reader broke")

        monkeypatch.setattr(ChannelLink, "feed", broken)
        await c.send("w")
        await c.wait_closed()
        await wait_until(lambda: app.limits.total == 0)
        assert live_at_release == [0]
        assert not app.sessions and app.find_online("bob") is None


@pytest.mark.parametrize("lang", ["en", "de", "fr"])
async def test_the_login_banner_breaks_between_words_within_79_columns(tmp_path, lang):
    """The banner a client prints before the password prompt comes in lines of at most 79
    columns, broken between words (an 80-column terminal broke it mid-word: "Log in as
    'n" / "ew'"), in the server's default language."""
    from bbspoker.door.i18n import translator
    from bbspoker.text import display_width
    from bbspoker.transport.ssh import _BANNER
    banners: list[str] = []

    class Recorder(asyncssh.SSHClient):
        def auth_banner_received(self, msg: str, lang: str) -> None:
            banners.append(msg)

    async with ssh_server(tmp_path, i18n={"default": lang}) as (server, made, clock):
        with pytest.raises(asyncssh.PermissionDenied):
            await asyncssh.connect("127.0.0.1", server.ssh_port, username="alice",
                                   password="wrong", known_hosts=None, agent_path=None,
                                   preferred_auth="password", config=None,
                                   client_factory=Recorder)
    (banner,) = banners
    lines = banner.rstrip("\r\n").split("\r\n")
    assert len(lines) > 1 and all(display_width(line) <= 79 for line in lines), lines
    assert " ".join(lines) == translator(lang).gettext(_BANNER)
