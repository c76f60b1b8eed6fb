"""The composition root: builds the :class:`App` that every session shares, starts the
transports (telnet, SSH, the browser's page and WebSocket, the bot port), and runs
``bbspoker serve``.

``bbspoker serve`` calls :func:`run`; tests call :func:`start_server` on port 0. Nothing
imports this module to reach the app: the door receives it as a
:class:`~bbspoker.door.context.DoorContext`, the transports as a
:class:`~bbspoker.transport.gateway.Host` (SSH: :class:`~bbspoker.transport.ssh.SshHost`).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

from bbspoker import tasks
from bbspoker.bots import remote
from bbspoker.bots.seats import BotPool, TableBots
from bbspoker.bots.tournament_seats import TournamentBots
from bbspoker.config import BbsSystem, Config
from bbspoker.door import i18n, lobby
from bbspoker.door.guard import Blocks, FloodGuard, LoginGuard
from bbspoker.door.i18n import N_
from bbspoker.door.login import check_password, why_refused
from bbspoker.door.screens.kinds import describe_event as describe_kind_event
from bbspoker.door.screens.kinds import refusal as kind_refusal
from bbspoker.door.terminal import OnlineUser, Player, Terminal, player
from bbspoker.rules import actions as act
from bbspoker.rules.events import Event, RuleError
from bbspoker.store.passwords import hash_password, verify_password
from bbspoker.store import open_ledger
from bbspoker.store.sql import BbsSignupsFull, HandleTaken, Ledger, handle_key
from bbspoker.store.sql.ledger import check_url, is_url
from bbspoker.store.wallet import StoreError
from bbspoker.table.director import TournamentDirector
from bbspoker.table.registry import TableEntry, TableRegistry, Tables
from bbspoker.process import (ENV_LAG_LOG, GC_FREEZE_AFTER, GC_FULL_EVERY, GC_FULL_GROWTH,
                              GC_THRESHOLDS, Collector, Lifetime, log_loop_lag)
from bbspoker.text import clean_text
from bbspoker.transport.gateway import SocketLimits
from bbspoker.transport.lines import LineListener, start_lines
from bbspoker.transport.rlogin import CallerRefused, RloginListener, start_rlogin
from bbspoker.transport.session import Session
from bbspoker.transport.ssh import SshListener, load_host_key, start_ssh
from bbspoker.transport.telnet import (STYLING_ENV, ConnectionLimits, TelnetListener,
                                       start_telnet)
from bbspoker.transport.web import WebListener, start_web

__all__ = ["App", "Server", "start_server", "run", "log_loop_lag", "sync_ledger", "ENV_LAG_LOG",
           "Collector", "GC_THRESHOLDS", "GC_FREEZE_AFTER", "GC_FULL_GROWTH", "GC_FULL_EVERY"]

log = logging.getLogger("bbspoker.app")

#: What every session reads when the server stops (a message id: in each one's language).
SHUTDOWN_MESSAGE = N_("The BBS is shutting down. Goodbye!")


class App:
    """Everything the sessions share; ``bbspoker.door.screens.base.enter_table(session,
    app, entry, kind)`` gets it.

    Attributes:

    - ``config``: the :class:`bbspoker.config.Config`.
    - ``ledger``: the :class:`bbspoker.store.sql.Ledger` (accounts and CUBES; its
      calls are quick SQLite transactions made on the event loop).
    - ``tables``: the :class:`bbspoker.table.registry.TableRegistry` of every table of
      ``[[tables]]`` (each with its own service, bus and task; CUBES through ``ledger``,
      time from ``clock``); :class:`Server` runs their tasks.
    - ``clock``: monotonic seconds (lockouts, rate limits; tests inject one).
    - ``sleep``: ``async sleep(seconds)`` used for the failed-login delay (tests inject one).
    - ``online``: logged-in sessions by ``handle_key(handle)``; use :meth:`find_online`.
    - ``sessions``: every open session, logged in or not.
    - ``limits``: the :class:`ConnectionLimits`.
    - ``guard``: the :class:`bbspoker.door.guard.LoginGuard` (failed logins, lockouts).
    - ``floods``: the :class:`bbspoker.door.guard.FloodGuard` (chat and X-message limits).
    - ``shutdown_hooks``: async callables run, in order, when the server stops and
      before sessions are told and closed (the table's grace period goes here).
    - ``stopping``: ``True`` once shutdown has begun.
    - ``bots``: the :class:`bbspoker.bots.seats.TableBots` of every table with ``bots``
      in its config (their tasks run with the tables'); ``bot_sleep`` is what they think
      with (tests inject one that does not wait).
    - ``tournaments``: the :class:`bbspoker.table.director.TournamentDirector` of the
      ``[[tournaments]]`` entries (none: it only refunds runs of entries no longer
      configured, at start), its prize pools in ``ledger``, its computer players lent by
      ``bot_pool`` (claimed with at least the buy-in in CUBES, reserved again when a
      tournament resumes); ``tournament_bots``: the
      :class:`~bbspoker.bots.tournament_seats.TournamentBots` that play the computer
      players seated at tournament tables, told by :meth:`tournament_seated`.
    """

    def __init__(self, config: Config, ledger: Ledger, *,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
                 bot_sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
                 tables: Tables | None = None) -> None:
        self.config = config
        self.ledger = ledger
        self.clock = clock
        #: The tables this process runs (``None`` in a gateway: ``tables`` given, the
        #: workers run them, their computer players and the tournaments).
        self.registry: TableRegistry | None = None
        if tables is None:
            self.registry = tables = TableRegistry(config.table_specs, ledger, clock,
                                                   phrases=ledger.client_seeds_of,
                                                   on_lost=self._lost)
        self.tables: Tables = tables
        self.bot_pool = BotPool(ledger, self.tables)
        self.bots = [TableBots(entry, self.bot_pool, sleep=bot_sleep)
                     for entry in self.registry or () if entry.spec.rules.bots]
        self.tournament_bots = TournamentBots(self._is_bot, sleep=bot_sleep)
        self.tournaments = TournamentDirector(
            config.tournaments if self.registry is not None else (), ledger, clock=clock,
            claim_bot=self.bot_pool.claim,
            release_bot=self.bot_pool.release, on_seated=self.tournament_seated,
            is_bot=self._is_bot, reserve_bot=self.bot_pool.reserve,
            phrases=ledger.client_seeds_of, records=ledger,
            on_lost=self._lost)
        # The door's English for the bot port's "0;" lines (worded by the kind of the
        # table the program sits at) and refusals.
        self.describe: Callable[[Event, str], tuple[str, str] | None] = describe_kind_event
        self.refusal: Callable[[RuleError, str], str] = kind_refusal
        self._bot_tasks: list[asyncio.Task[None]] = []
        self.sleep = sleep
        self.online: dict[str, Player] = {}
        self._logins = 0  # log_in calls so far (the admin watch looks at who is new)
        self.sessions: set[Session] = set()
        self.limits = ConnectionLimits(config.server.max_connections,
                                       config.server.max_per_address,
                                       config.server.max_sessions_per_address)
        self.guard = LoginGuard(config.login, clock,
                                ledger.recent_signups(config.login.signup_window))
        self.floods = FloodGuard(config.input, clock)
        self.blocks = Blocks(ledger)
        self.shutdown_hooks: list[Callable[[], Awaitable[None]]] = []
        if self.registry is not None:
            registry = self.registry
            self.shutdown_hooks.append(
                lambda: registry.finish_for_shutdown(config.table.shutdown_grace))
        self.stopping = False
        self._hash_slots = asyncio.Semaphore(config.login.hash_workers)

    async def hash_password(self, password: str) -> str:
        """:func:`bbspoker.store.passwords.hash_password` in a worker thread, at most
        ``[login] hash_workers`` at once (a login storm cannot freeze the loop)."""
        async with self._hash_slots:
            return await asyncio.to_thread(hash_password, password)

    async def verify_password(self, stored: str, password: str) -> bool:
        """:func:`bbspoker.store.passwords.verify_password` off the event loop, like :meth:`hash_password`."""
        async with self._hash_slots:
            return await asyncio.to_thread(verify_password, stored, password)

    def check_password(self, address: str, handle: str, password: str) -> Awaitable[bool | None]:
        """SSH's password check, with the door's rules
        (:func:`bbspoker.door.login.check_password`): ``True``, ``False`` or ``None``
        (``address`` locked out)."""
        return check_password(self, address, handle, password)

    def bbs_ban(self, tag: str) -> str | None:
        """Why the BBS ``tag`` is banned (``bbs ban``), or ``None``."""
        return self.ledger.bbs_ban(tag)

    def bbs_caller(self, system: BbsSystem, alias: str) -> str:
        """The handle of the caller ``alias`` of ``system`` (``alias@TAG``), the account
        made on the first visit with the system's ``starting_cubes`` (else ``[ledger]
        starting_cubes``) within its ``signups_per_day``. Raises
        :class:`~bbspoker.transport.rlogin.CallerRefused` with the reason (an alias the
        handle rules refuse, one too much like another caller's, the day's sign-ups used
        up, the ledger unable to store it)."""
        try:
            account, made = self.ledger.bbs_account(
                alias, system.tag, starting_cubes=system.starting_cubes,
                signups_per_day=system.signups_per_day)
        except (ValueError, HandleTaken) as exc:
            reason = why_refused(exc, i18n.translator(self.config.i18n.default))
            raise CallerRefused(N_("Sorry, your name cannot be a handle here: {reason}."),
                                reason=reason) from None
        except BbsSignupsFull:
            raise CallerRefused(N_("No more new players from your BBS today. Please try "
                                   "again tomorrow.")) from None
        except StoreError as exc:
            log.error("the ledger cannot store the account of %r of %s: %s", alias,
                      system.tag, exc)
            raise CallerRefused(N_("Sorry, the server cannot store new accounts right now. "
                                   "Please try again later.")) from None
        if made:
            log.info("new account %s for a caller of %s", account.handle, system.tag)
        return account.handle

    def authorized_keys(self, handle: str) -> list[str]:
        """The OpenSSH public key lines ``handle`` may log in with over SSH (``users key
        add``); empty for an unknown handle."""
        return [key for key, _, _ in self.ledger.user_keys(handle)]

    def _lost(self, games: frozenset[int]) -> None:
        """A commit of the ledger failed (``games``: the ids of the games it held): the
        cash tables and the tournaments' tables, which share it, each call off their own."""
        if self.registry is not None:
            self.registry.lose(games)
        self.tournaments.lose(games)

    def _is_bot(self, handle: str) -> bool:
        """``handle`` is a computer player's account."""
        account = self.ledger.find_account(handle)
        return account is not None and account.bot

    def tournament_seated(self, entry: TableEntry, handle: str) -> None:
        """The director seated ``handle`` at tournament table ``entry`` (at the draw, a
        move, a late entry, a resumed tournament): a computer player's is handed to
        :attr:`tournament_bots` to play there; a person's needs nothing (their screen
        follows them: ``bbspoker.door.tournaments``)."""
        self.tournament_bots.seated(entry, handle)

    def start_tables(self) -> None:
        """Start every table's task, the tables' balance poll and their computer players,
        the tournaments (each running one resumed from its journal, or cancelled and
        refunded: the lines are logged; the director's clock runs only when the config
        has tournaments) and the watch for the sysop's bans and kicks (inside the event
        loop). In a gateway only the watch: the workers run the rest."""
        if self.registry is not None:
            self.registry.start()
            self._bot_tasks = [tasks.start(b.run(), name=f"bots at {b.entry.id}")
                               for b in self.bots]
            for line in self.tournaments.recover():
                log.info("%s", line)
            if self.config.tournaments:
                self.tournaments.start()
        self._bot_tasks.append(tasks.start(self._watch_admin(), name="admin watch"))

    async def _watch_admin(self) -> None:
        """Every ``[server] admin_poll`` s: end the sessions of users the sysop banned or
        kicked from the command line, at once rather than at their next login."""
        seen: tuple[object, int] | None = None
        while True:
            await asyncio.sleep(self.config.server.admin_poll)
            try:
                # Nothing to look for unless the ledger may hold a new ban or kick, or
                # someone logged in since the last look (the reads would otherwise run
                # every second over every online handle).
                now = (self.ledger.admin_version(), self._logins)
                if now == seen:
                    continue
                ends = [(h, N_("The sysop ended your session: {reason}"), r)
                        for h, r in self.ledger.take_kicks()]
                online = [s.handle for s in self.online.values() if s.handle is not None]
                ends += [(h, N_("You have been banned from this door: {reason}"), r)
                         for h, r in self.ledger.banned_among(online).items()]
                seen = now
            except StoreError:
                log.exception("looking for bans and kicks failed; trying again")
                continue
            for handle, message, reason in ends:
                try:
                    await self.remove_user(handle, message, reason)
                except Exception:   # a bug: the next user, and the next look, go on
                    log.exception("ending the session of %s failed", handle)

    async def remove_user(self, handle: str, message: str, reason: str | None = None) -> None:
        """Take ``handle`` off any table at once (no seat held) and end their session, if
        they are online, with ``message`` (a message id, shown in their language) whose
        ``{reason}`` is the sysop's ``reason`` (cleaned; ``None`` or empty: "no reason
        given" in their language)."""
        entry = self.tables.seat_of(handle) or self.tables.held_seat(handle)
        if entry is not None:
            seated = [s.handle for s in entry.service.snapshot.seats
                      if s.handle.lower() == handle.lower()]
            with contextlib.suppress(RuleError):       # gone meanwhile, or table closed
                for h in seated:
                    await entry.service.call(h, act.Leave("removed"))
        session = self.find_online(handle)
        if session is not None:
            log.info("ending the session of %s: %s", handle, message.format(reason=reason))
            t = i18n.of(session)
            why = clean_text(reason, 160) if reason else t.gettext("no reason given")
            session.end(t.gettext(message).format(reason=why))

    def stop_tables(self) -> None:
        """Stop the computer players, every table's task and the tournaments' (their
        journals keep each running tournament as of its last whole hand)."""
        for task in self._bot_tasks:
            task.cancel()
        self.tournaments.stop()
        self.tournament_bots.stop()
        if self.registry is not None:
            self.registry.stop()

    async def wait_tables_stopped(self) -> None:
        """Wait until the computer players', the tables' and the tournaments' tasks
        have ended."""
        await asyncio.gather(*self._bot_tasks, return_exceptions=True)
        await self.tournaments.wait_stopped()
        await self.tournament_bots.wait_stopped()
        if self.registry is not None:
            await self.registry.wait_stopped()

    def find_online(self, handle: str) -> OnlineUser | None:
        """The logged-in session of ``handle`` (any case), or ``None``."""
        return self.online.get(handle_key(handle))

    def who(self) -> list[OnlineUser]:
        """Logged-in sessions sorted by handle without regard to case."""
        return [self.online[key] for key in sorted(self.online)]

    def log_in(self, session: Terminal, handle: str) -> None:
        """Register ``session`` as ``handle`` (as stored); the caller checked it is not online."""
        session.handle = handle
        session.activity = "lobby"
        self.online[handle_key(handle)] = player(session)
        self._logins += 1
        self.limits.logged_in(session.counted_address)

    def serve_door(self, session: Session) -> Awaitable[None]:
        """The door for one connection: login, lobby, tables (:func:`bbspoker.door.lobby.serve`)."""
        return lobby.serve(session, self)

    def log_out(self, session: Terminal | OnlineUser) -> None:
        """Remove ``session`` from the online users (if it is the registered one)."""
        if session.handle is not None and self.online.get(handle_key(session.handle)) is session:
            del self.online[handle_key(session.handle)]


class Server:
    """A running bbspoker server (from :func:`start_server`).

    ``port``: the telnet port it listens on; ``ssh_port``, ``web_port``, ``bot_port``,
    ``rlogin_port`` (``rlogin``: its listener):
    those of the other transports (``None`` when turned off); ``app``: its :class:`App`.
    """

    def __init__(self, telnet: TelnetListener, app: App,
                 bot_port: LineListener | None = None, ssh: SshListener | None = None,
                 web: WebListener | None = None, rlogin: RloginListener | None = None) -> None:
        self._telnet = telnet
        self.app = app
        self.port: int = telnet.port
        self._bot_port = bot_port
        self._ssh = ssh
        self._web = web
        self.rlogin = rlogin
        #: The RLOGIN port (``None`` when ``[rlogin] enabled`` is false).
        self.rlogin_port: int | None = rlogin.port if rlogin is not None else None
        #: The bot port's port number (``None`` when ``[bots] enabled`` is false).
        self.bot_port: int | None = bot_port.port if bot_port is not None else None
        #: The SSH port (``None`` when ``[ssh] enabled`` is false).
        self.ssh_port: int | None = ssh.port if ssh is not None else None
        #: The web port (``None`` when ``[web] enabled`` is false).
        self.web_port: int | None = web.port if web is not None else None
        #: The web port's open sockets (``None`` when ``[web] enabled`` is false).
        self.web_connections: SocketLimits | None = (web.connections if web is not None
                                                     else None)
        app.start_tables()

    def _door_listeners(self) -> list[Any]:
        return [x for x in (self._telnet, self._ssh, self._web, self.rlogin) if x is not None]

    async def shutdown(self, message: str = SHUTDOWN_MESSAGE) -> None:
        """Stop accepting, run ``app.shutdown_hooks``, tell every session ``message`` (a
        message id, in the session's language), let their output drain (at most
        ``[output] drain_timeout`` s) and close them."""
        self.app.stopping = True
        for listener in self._door_listeners():
            listener.stop_accepting()
        for hook in self.app.shutdown_hooks:
            try:
                await hook()
            except Exception:
                log.exception("shutdown hook %r failed", hook)
        sessions = list(self.app.sessions)
        for session in sessions:
            session.end(i18n.of(session).gettext(message))
        if sessions:
            await asyncio.wait([asyncio.create_task(s.wait_closed()) for s in sessions],
                               timeout=self.app.config.output.drain_timeout)
        self.close()
        await self.wait_closed()

    def close(self) -> None:
        """Stop accepting and drop every connection at once (no messages)."""
        self.app.stopping = True
        for session in list(self.app.sessions):
            session.abort("server closed")
        for listener in self._door_listeners():
            listener.close()
        if self._bot_port is not None:
            self._bot_port.close()
        self.app.stop_tables()

    async def wait_closed(self) -> None:
        """Wait until the listening sockets and all connections are closed."""
        for listener in self._door_listeners():
            await listener.wait_closed()
        if self._bot_port is not None:
            await self._bot_port.wait_closed()
        sessions = list(self.app.sessions)
        if sessions:
            await asyncio.gather(*(s.wait_closed() for s in sessions))
        await self.app.wait_tables_stopped()


async def start_server(config: Config, ledger: Ledger, *,
                       clock: Callable[[], float] = time.monotonic,
                       sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
                       bot_sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
                       app: App | None = None) -> Server:
    """Start listening on ``config.server.host``/``port`` (0: any free port), and on the
    SSH, web, RLOGIN and bot ports where enabled, and return the :class:`Server`. ``clock``
    (monotonic seconds), ``sleep`` and ``bot_sleep`` are injectable for tests; see
    :class:`App`. ``app``: the app to serve (a gateway's: ``bbspoker.cluster.gateway``);
    ``None``: a new :class:`App` of ``config`` and ``ledger`` with its own tables. Raises ``OSError`` if a port cannot be bound or the SSH host key
    cannot be read or made (what was started is closed again), ``ValueError`` if the
    host key file holds no usable key."""
    if app is None:
        app = App(config, ledger, clock=clock, sleep=sleep, bot_sleep=bot_sleep)
    started: list[Any] = []
    try:
        bot_port = ssh = web = rlogin = None
        if config.bots.enabled:
            bot_port = await start_lines(config, config.bots.host, config.bots.port,
                                         app.limits, lambda channel: remote.serve(channel, app),
                                         clock)
            started.append(bot_port)
        if config.ssh.enabled:
            ssh = await start_ssh(app, load_host_key(config.ssh_host_key_path))
            started.append(ssh)
        if config.web.enabled:
            web = await start_web(app)
            started.append(web)
        if config.rlogin.enabled:
            rlogin = await start_rlogin(app)
            started.append(rlogin)
        telnet = await start_telnet(app)
    except BaseException:
        for listener in started:
            listener.close()
            await listener.wait_closed()
        raise
    return Server(telnet, app, bot_port, ssh, web, rlogin)


def run(config: Config) -> int:
    """Run the server until SIGTERM or SIGINT (blocking); returns the exit status: 0, or
    1 if another server is using the same database.

    Takes the database's server lock (:func:`hold_server_lock`), opens the ledger
    (``[ledger] url``, else ``path``), refunds games left unfinished by a crash
    (``Ledger.recover_unfinished_games``), serves, and on a signal stops accepting, tells
    everyone, closes every session cleanly and returns.
    """
    for name in ("TERM",) + STYLING_ENV:
        os.environ.pop(name, None)
    logging.basicConfig(level=config.server.log_level,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        lock = hold_server_lock(config.ledger.url or config.ledger.path)
    except ServerRunning as exc:
        log.error("%s", exc)
        print(f"bbspoker: error: {exc}", file=sys.stderr)
        return 1
    with lock:
        return asyncio.run(_serve_forever(config))


class ServerRunning(Exception):
    """Another ``bbspoker serve`` holds the database's server lock."""


def hold_server_lock(db_path: str) -> Any:
    """Take the exclusive server lock of the database at ``db_path`` (``[ledger] url`` if
    set, else ``path``), held by the returned object until it is closed (a context
    manager) or the process ends, a crash included: for a SQLite file an ``flock`` on
    ``<db_path>.lock`` (made with mode 0600); for a PostgreSQL URL a session-level
    advisory lock of the database, on a connection of its own (so it holds across hosts).
    Raises :class:`ServerRunning` if another process holds it (a second server on the same
    database would refund the first one's running game before it failed to bind), and
    :class:`~bbspoker.store.sql.LedgerError` if the PostgreSQL server cannot be reached."""
    if is_url(db_path):
        from bbspoker.store.postgres.writer import display_url, hold_server_lock as hold

        held = hold(check_url(db_path))
        if held is None:
            raise ServerRunning(f"another bbspoker server is using {display_url(db_path)} "
                                "(it holds the database's server lock); not starting")
        return held
    path = f"{db_path}.lock"
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    handle = os.fdopen(fd, "r+")
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        raise ServerRunning(f"another bbspoker server is using {db_path} (it holds {path}); "
                            "not starting") from None
    handle.truncate(0)
    handle.write(f"{os.getpid()}\n")
    handle.flush()
    return handle


async def sync_ledger(ledger: Ledger, every: float) -> None:
    """Every ``every`` seconds, :meth:`Ledger.checkpoint` in a worker thread: the table's
    commits (``synchronous = NORMAL``) reach the disk without an fsync on the event loop,
    and the WAL stays small (the server's connection does not checkpoint by itself).
    On PostgreSQL the call does nothing (the database server syncs its own WAL). A failed
    sync is logged and tried again; runs until cancelled."""
    while True:
        await asyncio.sleep(every)
        try:
            await asyncio.to_thread(ledger.checkpoint)
        except StoreError:
            log.exception("ledger sync (checkpoint) failed; trying again in %g s", every)


async def _serve_forever(config: Config) -> int:
    ledger = open_ledger(config.ledger, autocheckpoint=False)
    sync = asyncio.create_task(sync_ledger(ledger, config.ledger.sync_interval))
    try:
        async with Lifetime() as life:
            refunded = ledger.recover_unfinished_games(time.time())
            if refunded:
                log.warning("refunded %d unfinished game(s): %s", len(refunded), refunded)
            server = await start_server(config, ledger)
            life.ready()             # the start-up heap, before any connection is served
            await life.until_signalled()
            await server.shutdown()
    finally:
        sync.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await sync
        ledger.close()                 # waits for a checkpoint still running in its thread
    log.info("stopped")
    return 0
