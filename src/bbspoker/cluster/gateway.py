"""``bbspoker gateway``: the sessions, the door and the screens of a split deployment.

A gateway is ``bbspoker serve`` without tables: it listens for telnet, SSH, the browser
and RLOGIN as configured and runs the door for each session, and every table of the
lobby is a :class:`~bbspoker.table.remote.RemoteTable` followed over NATS on whichever
worker serves it (:class:`~bbspoker.table.remote.RemoteTables`). Accounts, CUBES and
the sysop's bans and kicks are in the shared PostgreSQL ledger; who is logged in where
crosses gateways as presence (:class:`~bbspoker.cluster.presence.Presence`): [W]ho lists
everyone, an X-message reaches a user of another gateway, a login takes a handle over
from another gateway, a sysop's kick ends a session wherever it is. Several gateways may
run at once, on several machines; each serves the same lobby.

Tournaments are run by ``bbspoker serve`` only: a gateway's [T] list is empty.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import Awaitable, Callable
from typing import Any

from bbspoker import app as app_module
from bbspoker.cluster.node import connect_nats, share_ledger, process_name, start_logging
from bbspoker.cluster.presence import Present, Presence
from bbspoker.config import Config
from bbspoker.door.lobby import XMESSAGE_WIDTH
from bbspoker.door.terminal import OnlineUser, Terminal, XMessage
from bbspoker.store import open_ledger
from bbspoker.store.sql import Ledger, handle_key
from bbspoker.process import Lifetime
from bbspoker.table.remote import Link, RemoteTables
from bbspoker.text import clean_text
from bbspoker.transport.session import INBOX_SIZE
from bbspoker.transport.telnet import STYLING_ENV

__all__ = ["GatewayApp", "RemoteUser", "start_gateway", "stop_gateway", "run_gateway"]

log = logging.getLogger(__name__)

#: Seconds a login that takes a handle over from another gateway waits for that
#: gateway to end its session and say so.
TAKE_OVER_WAIT = 5.0


class RemoteUser:
    """A user logged in on another gateway, as its latest presence announcement shows
    them (:class:`~bbspoker.door.terminal.OnlineUser`): an X-message goes to their
    gateway (sent in the background: :meth:`deliver` answers from what their gateway
    announced of their inbox), :meth:`end` asks that gateway to end the session."""

    def __init__(self, present: Present, presence: Presence) -> None:
        self.present = present
        self._presence = presence

    @property
    def handle(self) -> str:
        """The handle, as stored."""
        return self.present.handle

    @property
    def activity(self) -> str:
        """``"lobby"``, ``"table"``, ``"watching"`` ... as their gateway announced."""
        return self.present.activity

    @property
    def where(self) -> str | None:
        """The name of the table they are at, or ``None``."""
        return self.present.where

    @property
    def language(self) -> str:
        """Their language (``"en"``, ``"de"``, ``"fr"``)."""
        return self.present.language

    def deliver(self, message: XMessage) -> bool:
        """Send ``message`` to their gateway; ``False`` (nothing sent) if their inbox was
        full when it last announced them. A send that fails later is logged."""
        if not self.present.inbox_room:
            return False
        asyncio.get_running_loop().create_task(self._send(message))
        return True

    async def _send(self, message: XMessage) -> None:
        try:
            delivered = await self._presence.send_xmessage(
                self.handle, message.sender, message.text, message.sent_at, message.notice)
        except Exception:
            log.exception("an X-message from %s to %s could not be sent", message.sender,
                          self.handle)
            return
        if not delivered:
            log.warning("an X-message from %s to %s was not delivered by %s",
                        message.sender, self.handle, self.present.gateway)

    def end(self, message: str | None = None) -> None:
        """Ask their gateway to end the session with ``message`` (in their language)."""
        asyncio.get_running_loop().create_task(self._end(message or ""))

    async def _end(self, message: str) -> None:
        try:
            await self._presence.end_session(self.handle, message)
        except Exception:
            log.exception("ending %s's session on %s failed", self.handle,
                          self.present.gateway)

    async def wait_closed(self) -> None:
        """Wait until no other gateway lists them (at most :data:`TAKE_OVER_WAIT` s)."""
        await self._presence.wait_gone(self.handle, TAKE_OVER_WAIT)


class GatewayApp(app_module.App):
    """The :class:`~bbspoker.app.App` of a gateway: the lobby's tables are ``tables``
    (followed on the workers), no table, computer player or tournament runs here, and
    who is online is this gateway's sessions plus the others' presence over ``link``
    (announced every ``[cluster] presence_interval`` s as ``name``)."""

    def __init__(self, config: Config, ledger: Ledger, tables: RemoteTables, link: Link,
                 name: str, *, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep) -> None:
        super().__init__(config, ledger, clock=clock, sleep=sleep, tables=tables)
        self.remote_tables = tables
        self.name = name
        self.presence = Presence(link, name, interval=config.cluster.presence_interval,
                                 local=self._present, key=handle_key,
                                 timeout=config.cluster.timeout)
        self.presence.on_xmessage = self._xmessage_in
        self.presence.on_end = self._end_in

    def _present(self) -> list[Present]:
        """This gateway's logged-in users as the others see them."""
        return [Present(handle=s.handle, activity=s.activity, where=s.where,
                        language=s.language, gateway=self.name,
                        inbox_room=len(s.inbox) < INBOX_SIZE)
                for s in self.online.values()]

    def find_online(self, handle: str) -> OnlineUser | None:
        """``handle`` logged in here, else on another gateway, else ``None``."""
        here = super().find_online(handle)
        if here is not None:
            return here
        there = self.presence.find(handle)
        return RemoteUser(there, self.presence) if there is not None else None

    def who(self) -> list[OnlineUser]:
        """Everyone logged in on any gateway, sorted by handle without regard to case
        (a handle on two gateways for a moment, during a take-over: this one's)."""
        found: dict[str, OnlineUser] = {
            handle_key(p.handle): RemoteUser(p, self.presence) for p in self.presence.others()}
        found.update(self.online)
        return [found[key] for key in sorted(found)]

    def log_in(self, session: Terminal, handle: str) -> None:
        """As :meth:`App.log_in`; the other gateways hear of it at once."""
        super().log_in(session, handle)
        self.presence.changed()

    def log_out(self, session: Terminal | OnlineUser) -> None:
        """As :meth:`App.log_out`; the other gateways hear of it at once."""
        super().log_out(session)
        self.presence.changed()

    def _xmessage_in(self, handle: str, sender: str, text: str, sent_at: float,
                     notice: str | None) -> bool:
        """An X-message from a user of another gateway to ``handle`` here (its text
        cleaned again: it crossed a process boundary)."""
        session = self.online.get(handle_key(handle))
        if session is None:
            return False
        return session.deliver(XMessage(clean_text(sender, 40), clean_text(text, XMESSAGE_WIDTH),
                                        sent_at, notice))

    def _end_in(self, handle: str, message: str) -> bool:
        """Another gateway asks to end ``handle``'s session here (a login there took the
        handle over, or the sysop's kick was seen there)."""
        session = self.online.get(handle_key(handle))
        if session is None:
            return False
        log.info("ending the session of %s at another gateway's request", handle)
        session.end(clean_text(message, 200) or None)
        return True


async def start_gateway(config: Config, ledger: Ledger, link: Link, *,
                        name: str | None = None,
                        clock: Callable[[], float] = time.monotonic,
                        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep
                        ) -> app_module.Server:
    """Follow every table of the config over ``link``, start the listeners as
    :func:`bbspoker.app.start_server` does and the presence; returns the
    :class:`~bbspoker.app.Server` (its ``app`` a :class:`GatewayApp`). Raises what
    :func:`~bbspoker.app.start_server` raises (what was started is stopped again)."""
    tables = await RemoteTables.follow(link, config.table_specs, timeout=config.cluster.timeout)
    gateway = GatewayApp(config, ledger, tables, link, name or process_name(config, "gateway"),
                         clock=clock, sleep=sleep)
    try:
        server = await app_module.start_server(config, ledger, app=gateway)
        await gateway.presence.start()
    except BaseException:
        await tables.close()
        raise
    return server


async def stop_gateway(server: app_module.Server) -> None:
    """Shut a gateway down: every session told and closed (:meth:`Server.shutdown`:
    their seats are held by the tables as after a dropped connection), the presence
    withdrawn, the tables no longer followed."""
    gateway = server.app
    assert isinstance(gateway, GatewayApp)
    try:
        await server.shutdown()
    finally:
        await gateway.presence.stop()
        await gateway.remote_tables.close()


def run_gateway(config: Config) -> int:
    """``bbspoker gateway``: run until SIGTERM or SIGINT; returns the exit status (0; 1
    with one line on stderr if the ledger is not PostgreSQL, a ``bbspoker serve`` uses
    it, or NATS cannot be reached)."""
    for env in ("TERM",) + STYLING_ENV:
        os.environ.pop(env, None)
    start_logging(config)
    lock = share_ledger(config, "gateway")
    if lock is None:
        return 1
    with lock:
        return asyncio.run(_gateway_forever(config))


async def _gateway_forever(config: Config) -> int:
    name = process_name(config, "gateway")
    link = await connect_nats(config, name)
    if link is None:
        return 1
    ledger = open_ledger(config.ledger, autocheckpoint=False)
    try:
        async with Lifetime() as life:
            server = await start_gateway(config, ledger, link, name=name)
            log.info("gateway %s serving telnet on %s:%d", name, config.server.host,
                     server.port)
            life.ready()
            await life.until_signalled()
            await stop_gateway(server)
    finally:
        with contextlib.suppress(Exception):
            await link.close()
        ledger.close()
    log.info("gateway %s stopped", name)
    return 0
