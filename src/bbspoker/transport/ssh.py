"""The SSH transport: asyncssh, password or public-key login, a PTY per session.

:func:`start_ssh` listens on ``[ssh] host``/``port`` and hands each connection's one
shell session to the door through :class:`~bbspoker.transport.gateway.Gate`, like
telnet's: the same connection caps, input rate limit, window-size clamps, session and
door. What SSH adds:

- **Host key**: :func:`load_host_key` reads the server's Ed25519 key from a file, or
  makes it on first start (mode 0600) and reuses it after; clients then see the same
  fingerprint every time.
- **Login**: the SSH user name is the handle. A password is checked by the host
  (:meth:`SshHost.check_password`, the door's rules: lockouts per address, slower
  guesses on a handle, the failed-login delay); an address locked out is disconnected
  with the message. A public key is accepted if the sysop added it to the account
  (``bbspoker users key add NAME FILE``; :meth:`SshHost.authorized_keys`). The user
  name :data:`NEW_USER` (``new``) needs no password: the door asks for a handle and
  offers to make the account, as on telnet. The door then checks bans and approval.
- **Terminal**: the PTY request's terminal type and size; window changes resize the
  session (clamped as NAWS is). Keys arrive as bytes (``encoding=None``, no asyncssh
  line editor): the session decodes UTF-8 itself with ``errors="replace"``. A session
  without a PTY (``ssh -T``) gets kind ``ansi`` and 80x24. A connection that has logged
  in and started no shell within ``[server] prelogin_timeout`` is closed.
- **Limits**: one shell session per connection; no exec, subsystem, port, X11 or agent
  forwarding. Every byte of channel data, and each window change (charged
  :data:`RESIZE_COST` bytes), goes through the rate limit: a flood ends that session
  with a message and closes its connection, and nobody else notices. The channel's
  receive window is :data:`WINDOW` bytes, its output above
  ``WRITE_HIGH`` bytes unsent makes the session's writer wait (``[output]``
  drain timeout and backlog apply). ``login_timeout`` is ``[server]
  prelogin_timeout``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Awaitable
from typing import Any, Protocol

import asyncssh
from wcwidth import wrap

from bbspoker.door.i18n import N_
from bbspoker.transport.gateway import TOO_FAST, TOO_MANY, Gate, Host, InputRelay

__all__ = ["SshHost", "SshListener", "ChannelLink", "start_ssh", "load_host_key", "NEW_USER",
           "RESIZE_COST", "WINDOW", "WRITE_HIGH", "BANNER_WIDTH", "banner_lines"]

log = logging.getLogger("bbspoker.transport.ssh")

#: The SSH user name that signs up: no password, the door asks for the new handle.
NEW_USER = "new"
#: Bytes of the input rate limit one window change costs (each one repaints a screen).
RESIZE_COST = 64
#: The channel's receive window (bytes): what a client may send ahead of the server.
WINDOW = 64 * 1024
#: Unsent output (bytes) above which the session's writer waits for the client.
WRITE_HIGH = 64 * 1024
_BANNER = N_("Global Village BBS - PoKeR door. Log in with your handle; new here? Log in "
             "as 'new' to make an account.")
#: Columns of a line of the banner: clients print it as it comes, and an 80-column
#: terminal would break a longer line wherever its 80th column falls, mid-word.
BANNER_WIDTH = 79
_LOCKED = N_("Too many failed logins from your address. Try again later.")


def banner_lines(text: str) -> str:
    """``text`` broken between words into lines of at most :data:`BANNER_WIDTH` columns
    (wide characters count two), each ending in CR LF, for the SSH login banner."""
    return "".join(line + "\r\n" for line in wrap(text, BANNER_WIDTH))


class SshHost(Host, Protocol):
    """What the SSH transport needs of the server beyond :class:`Host`: the password
    check (the door's rules) and the public keys of an account."""

    def check_password(self, address: str, handle: str, password: str) -> Awaitable[bool | None]:
        """``True``: ``password`` is ``handle``'s; ``False``: it is not (after the
        failed-login delay); ``None``: ``address`` is locked out."""

    def authorized_keys(self, handle: str) -> list[str]:
        """The OpenSSH public key lines ``handle`` may log in with (empty: none)."""


def load_host_key(path: str) -> asyncssh.SSHKey:
    """The server's host key from the OpenSSH private key file at ``path``; if there is
    no such file, a new Ed25519 key is made and written there with mode 0600 (the
    directory must exist). Raises ``OSError`` if the file cannot be read or written,
    ``ValueError`` (naming the file) if it holds no usable private key."""
    try:
        key = asyncssh.read_private_key(path)
    except FileNotFoundError:
        pass
    except (asyncssh.KeyImportError, ValueError) as exc:
        raise ValueError(f"SSH host key {path} is not a usable private key: {exc}") from None
    else:
        if os.stat(path).st_mode & 0o077:
            log.warning("SSH host key %s can be read by others: chmod 600 it", path)
        return key
    key = asyncssh.generate_private_key("ssh-ed25519")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(key.export_private_key("openssh"))
    log.info("made the SSH host key %s (%s)", path, key.get_fingerprint("sha256"))
    return key


class ChannelLink(InputRelay):
    """An SSH channel as a session's link (:class:`bbspoker.transport.gateway.Link`):
    input fed by :class:`_DoorChannel`, output written to the channel, ``drain`` waiting
    while asyncssh has paused writing (the client's window is full)."""

    def __init__(self, chan: asyncssh.SSHServerChannel) -> None:
        super().__init__()
        self._chan = chan
        self._limits = (WRITE_HIGH // 4, WRITE_HIGH)
        chan.set_write_buffer_limits(high=WRITE_HIGH)
        self._paused = False
        self._resumed: asyncio.Future[None] | None = None

    def _input_ended(self) -> None:
        self.resume()

    # output, to the channel
    @property
    def transport(self) -> ChannelLink | None:
        """Itself while open (it answers ``get_write_buffer_size``), ``None`` once closed."""
        return None if self._chan.is_closing() else self

    def get_write_buffer_size(self) -> int:
        """Bytes written and not yet sent (waiting for the client's window)."""
        return self._chan.get_write_buffer_size()

    def get_write_buffer_limits(self) -> tuple[int, int]:
        """``(low, high)`` bytes: past ``high`` :meth:`drain` waits."""
        return self._limits

    def set_write_buffer_limits(self, high: int, low: int) -> None:
        """Pause writing past ``high`` unsent bytes and resume at ``low`` (asyncssh's
        channel does it); the session sets both to ``[output] resume_bytes``."""
        self._limits = (low, high)
        self._chan.set_write_buffer_limits(high=high, low=low)

    def write(self, data: bytes) -> None:
        """Send ``data`` (dropped once the channel is closing)."""
        if not self._chan.is_closing():
            self._chan.write(data)

    def pause(self) -> None:
        """asyncssh paused writing."""
        self._paused = True

    def resume(self) -> None:
        """asyncssh resumed writing (or the channel ended): wake :meth:`drain`."""
        self._paused = False
        if self._resumed is not None and not self._resumed.done():
            self._resumed.set_result(None)

    async def drain(self) -> None:
        """Wait while writing is paused; raises ``ConnectionResetError`` once closed."""
        while self._paused and not self._ended:
            self._resumed = asyncio.get_running_loop().create_future()
            await self._resumed
        if self._ended and self._chan.is_closing():
            raise ConnectionResetError("SSH channel closed")

    def close(self) -> None:
        """Close the channel (what was written is still sent)."""
        self._chan.close()


class _DoorChannel(asyncssh.SSHServerSession):
    """One SSH session channel: its PTY, its data and window changes, its door."""

    def __init__(self, owner: _DoorServer) -> None:
        self._owner = owner
        self._link: ChannelLink | None = None
        self._kind: str | None = None
        self._size = (80, 24)

    def connection_made(self, chan: asyncssh.SSHServerChannel) -> None:
        self._link = ChannelLink(chan)

    def pty_requested(self, term_type: str, term_size: tuple[int, int, int, int],
                      term_modes: Any) -> bool:
        self._kind = term_type
        self._size = term_size[0] or 80, term_size[1] or 24
        return True

    def shell_requested(self) -> bool:
        return True

    def exec_requested(self, command: str) -> bool:
        return False

    def subsystem_requested(self, subsystem: str) -> bool:
        return False

    def session_started(self) -> None:
        owner = self._owner
        assert self._link is not None        # connection_made came first
        owner.start_door(self._link, self._kind, *self._size)

    def data_received(self, data: bytes, datatype: Any) -> None:
        if not self._owner.gate.take(len(data)):
            self._owner.cut_off(TOO_FAST)
            return
        assert self._link is not None        # connection_made came first
        self._link.feed(data)

    def terminal_size_changed(self, width: int, height: int, pixwidth: int,
                              pixheight: int) -> None:
        gate = self._owner.gate
        if gate.session is None:
            self._size = width or self._size[0], height or self._size[1]
            return
        if not gate.take(RESIZE_COST):
            self._owner.cut_off(N_("Window changes faster than a person makes them: "
                                   "disconnected."))
            return
        gate.session.resize(width, height)

    def break_received(self, msec: int) -> bool:
        return False

    def eof_received(self) -> bool:
        assert self._link is not None        # connection_made came first
        self._link.end(None)
        return False

    def pause_writing(self) -> None:
        assert self._link is not None
        self._link.pause()

    def resume_writing(self) -> None:
        assert self._link is not None
        self._link.resume()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._link is not None:
            self._link.end(exc)


class _DoorServer(asyncssh.SSHServer):
    """One SSH connection: its place in the caps, its login, its one door session."""

    host: SshHost
    listener: SshListener

    def __init__(self) -> None:
        self.gate = Gate(self.host, "-", "ssh")
        self._conn: asyncssh.SSHServerConnection | None = None
        self._refused = False
        self._channel_opened = False
        self._task: asyncio.Task[None] | None = None
        self._shell_timer: asyncio.TimerHandle | None = None

    # connection
    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self._conn = conn
        peer = conn.get_extra_info("peername") or ("-",)
        self.gate.address = str(peer[0])
        self.listener.connections.add(self)
        if not self.gate.admit():
            self._refused = True
            asyncio.get_running_loop().call_soon(
                self.disconnect, asyncssh.DISC_TOO_MANY_CONNECTIONS, self.gate.text(TOO_MANY))

    def connection_lost(self, exc: Exception | None) -> None:
        if self._shell_timer is not None:
            self._shell_timer.cancel()
        self.listener.connections.discard(self)
        self.gate.release()

    def auth_completed(self) -> None:
        # A client that logs in and opens no shell (ssh -N) would hold its place in the
        # caps for ever: it gets the pre-login timeout to start one.
        self._shell_timer = asyncio.get_running_loop().call_later(
            self.host.config.server.prelogin_timeout, self._no_shell)

    def _no_shell(self) -> None:
        if self._task is None:
            log.info("ssh connection from %s opened no shell: closing", self.gate.address)
            self.disconnect(asyncssh.DISC_BY_APPLICATION,
                            self.gate.text(N_("No shell was started: goodbye.")))

    def disconnect(self, code: int, reason: str) -> None:
        """End the whole connection with ``reason`` (shown by the client)."""
        if self._conn is not None:
            with contextlib.suppress(Exception):
                self._conn.disconnect(code, reason)

    def cut_off(self, message: str) -> None:
        """Input broke a limit: end the session with ``message`` (a message id, in the
        session's language: :meth:`Gate.text`), then the connection."""
        if not self.gate.end(message):
            self.disconnect(asyncssh.DISC_BY_APPLICATION, self.gate.text(message))

    # login
    def begin_auth(self, username: str) -> bool:
        if self._refused:
            return True
        if username == NEW_USER:
            return False                   # no password: the door asks for the handle
        with contextlib.suppress(Exception):
            assert self._conn is not None    # connection_made came first
            self._conn.send_auth_banner(banner_lines(self.gate.text(_BANNER)))
        return True

    def password_auth_supported(self) -> bool:
        return not self._refused

    async def validate_password(self, username: str, password: str) -> bool:
        if self._refused:
            return False
        verdict = await self.host.check_password(self.gate.address, username, password)
        if verdict is None:
            self.disconnect(asyncssh.DISC_NO_MORE_AUTH_METHODS_AVAILABLE,
                            self.gate.text(_LOCKED))
            return False
        return verdict

    def public_key_auth_supported(self) -> bool:
        return not self._refused

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        if self._refused or username == NEW_USER:
            return False
        for line in self.host.authorized_keys(username):
            with contextlib.suppress(asyncssh.KeyImportError, ValueError):
                if asyncssh.import_public_key(line).public_data == key.public_data:
                    return True
        return False

    # the session
    def session_requested(self) -> _DoorChannel | bool:
        if self._channel_opened or self._refused:
            return False                   # one door session per connection
        self._channel_opened = True
        return _DoorChannel(self)

    def start_door(self, link: ChannelLink, kind: str | None, cols: int, rows: int) -> None:
        """Run the door over ``link`` (the shell has started)."""
        assert self._conn is not None        # connection_made came first
        username = self._conn.get_extra_info("username")
        authenticated = None if username == NEW_USER else username

        async def run() -> None:
            try:
                await self.gate.serve(link, link, kind=kind, cols=cols, rows=rows,
                                      authenticated=authenticated)
            finally:
                if self._conn is not None:
                    self._conn.close()

        self._task = asyncio.create_task(run(), name=f"ssh {self.gate.address}")
        self.listener.tasks.add(self._task)
        self._task.add_done_callback(self.listener.tasks.discard)

    def close(self) -> None:
        """Drop the connection at once."""
        if self._conn is not None:
            self._conn.abort()


class SshListener:
    """The listening SSH port (from :func:`start_ssh`): ``port`` is the TCP port; the
    open connections and their door tasks."""

    def __init__(self, server: Any, port: int) -> None:
        self._server = server
        self.port = port
        self.connections: set[_DoorServer] = set()
        self.tasks: set[asyncio.Task[None]] = set()

    def stop_accepting(self) -> None:
        """Close the listening socket; connections already open go on."""
        self._server.close()

    def close(self) -> None:
        """Stop accepting and drop every connection."""
        self._server.close()
        for conn in list(self.connections):
            conn.close()

    async def wait_closed(self) -> None:
        """Wait until the socket is closed and every door task has ended."""
        await self._server.wait_closed()
        if self.tasks:
            await asyncio.gather(*self.tasks, return_exceptions=True)


async def start_ssh(host: SshHost, host_key: asyncssh.SSHKey) -> SshListener:
    """Listen on ``host.config.ssh.host``/``port`` (0: any free port) with ``host_key``
    (:func:`load_host_key`) and serve each connection's door through ``host``. Returns
    the :class:`SshListener`. Raises ``OSError`` if the port cannot be bound."""
    config = host.config
    listener: SshListener

    class Server(_DoorServer):
        pass

    Server.host = host
    server = await asyncssh.create_server(
        Server, config.ssh.host, config.ssh.port, server_host_keys=[host_key],
        encoding=None, line_editor=False, allow_pty=True, x11_forwarding=False,
        agent_forwarding=False, allow_scp=False, sftp_factory=None,
        login_timeout=config.server.prelogin_timeout, window=WINDOW,
        max_pktsize=32768)
    port = server.sockets[0].getsockname()[1]
    listener = SshListener(server, port)
    Server.listener = listener
    log.info("ssh host key %s", host_key.get_fingerprint("sha256"))
    log.info("ssh listening on %s port %d", config.ssh.host, port)
    return listener
