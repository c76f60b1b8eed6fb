"""A table served over NATS: :class:`TableHost` on the worker that owns the table,
:class:`RemoteTable` on each gateway whose screens show it.

Subjects (``<table>`` and ``<seat>`` in :func:`subject_token`'s encoding):

- ``bbspoker.table.<table>.cmd``: the commands of :mod:`bbspoker.table.commands`, each a
  request whose reply is the command's reply (:func:`~bbspoker.table.commands.perform`:
  ``Done``, ``Refused``, ``PrivateCards``, ``RecentItems``, the ``TableSnapshot``); bytes
  that are no command are answered ``Refused("bad_command", reason=...)``;
- ``bbspoker.table.<table>.public``: every public bus item of the table (snapshots,
  messages for everyone, chat lines), in publish order;
- ``bbspoker.table.<table>.seat.<seat>``: the private items of one viewer (their cards,
  events meant for them only), subscribed by the gateways that show the table to them.

Every item and reply is :func:`~bbspoker.table.codec.encode`'s bytes, with headers:
``Bbs-Epoch`` (the host's random token: a new host of the table starts its numbers
again), ``Bbs-Seq`` (the host's count of items sent when it was sent: a reply carries the
count of the items sent before it), ``Bbs-Clock`` (the table's clock then, seconds) and,
for a state item, ``Bbs-Key`` (the bus key: ``table``, ``cards``). A gateway applies a
state item only if it is not older than the one it holds (snapshots by their
``version``, private cards by ``Bbs-Seq``), since items and replies come in through
different subscriptions and need not be handled in the order they were sent.

NATS is the only shared thing: a gateway that loses its connection fails the commands in
flight (:class:`TableUnreachable`) and, once nats-py has reconnected and resubscribed,
asks for the snapshot and its viewers' cards again; messages published while it was
away are not replayed.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import secrets
import time
from collections import Counter, deque
from collections.abc import Awaitable, Callable, Coroutine, Hashable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from nats.aio.client import Client as NATS
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription as NatsSubscription

from bbspoker.rules import actions as act
from bbspoker.rules.events import RuleError
from bbspoker.table import codec
from bbspoker.config import TableSpec
from bbspoker.table.bus import Bus, Subscription
from bbspoker.table.commands import (Act, Attach, CardsOf, Chat, Command, Detach, Done, Look,
                                     MarkBot, Recent, RecentItems, Refused, Touch, Unwatch,
                                     Watch, perform)
from bbspoker.table.registry import TableEntry
from bbspoker.table.service import (RECENT, ChatMessage, PrivateCards, Return,
                                    TableMessage, TableService, TableSnapshot)

__all__ = ["Link", "TableHost", "RemoteTable", "RemoteTables", "TableUnreachable", "subject_token",
           "cmd_subject", "public_subject", "seat_subject", "PREFIX", "UNREACHABLE",
           "BAD_COMMAND", "DEFAULT_TIMEOUT"]

log = logging.getLogger(__name__)

#: The first tokens of every table subject.
PREFIX = "bbspoker.table"
#: The code of :class:`TableUnreachable`.
UNREACHABLE = "table_unreachable"
#: The refusal code of bytes on the command subject that are no command.
BAD_COMMAND = "bad_command"
#: Seconds a gateway waits for the reply to a command.
DEFAULT_TIMEOUT = 5.0

_SEQ, _EPOCH, _CLOCK, _KEY = "Bbs-Seq", "Bbs-Epoch", "Bbs-Clock", "Bbs-Key"
#: The status header of the server's answer to a request nobody subscribes to.
NO_RESPONDERS = "503"
_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-")


def subject_token(text: str) -> str:
    """``text`` as one NATS subject token: letters, digits and ``-`` as they are, every
    other character (``.``, ``*``, ``>``, spaces, ``_`` itself, any non-ASCII) as ``_`` and
    the hex of its UTF-8 bytes (``a.b`` -> ``a_2eb``). One token per text and one text per
    token: no handle can name another's subject. Raises ``ValueError`` for ``""``."""
    if not text:
        raise ValueError("an empty name has no subject")
    return "".join(c if c in _SAFE else "".join(f"_{b:02x}" for b in c.encode())
                   for c in text)


def cmd_subject(table_id: str) -> str:
    """The subject of the commands to table ``table_id``."""
    return f"{PREFIX}.{subject_token(table_id)}.cmd"


def public_subject(table_id: str) -> str:
    """The subject of table ``table_id``'s public items."""
    return f"{PREFIX}.{subject_token(table_id)}.public"


def seat_subject(table_id: str, handle: str) -> str:
    """The subject of the private items of viewer ``handle`` (any case) at ``table_id``."""
    return f"{PREFIX}.{subject_token(table_id)}.seat.{subject_token(handle.lower())}"


class TableUnreachable(RuleError):
    """A command that reached no table, or whose reply did not come: the code
    :data:`UNREACHABLE`, ``reason`` one of ``timeout`` (no reply within the gateway's
    timeout: the command may have been carried out, the next snapshot says), ``no_host``
    (nobody serves the table: NATS answered *no responders*), ``disconnected`` (the
    gateway's NATS connection is down, or dropped while the command was in flight: one
    already sent may have been carried out, the snapshot fetched on reconnecting says). A
    :class:`~bbspoker.rules.events.RuleError`, so that the door shows it as it shows a
    refusal."""

    def __init__(self, reason: str, table: str = "") -> None:
        super().__init__(UNREACHABLE, reason=reason, table=table)
        self.reason = reason


def _log_failure(what: str) -> Callable[[asyncio.Future[Any]], None]:
    """A done callback that logs a task's exception with its traceback."""
    def done(task: asyncio.Future[Any]) -> None:
        if not task.cancelled() and task.exception() is not None:
            log.error("%s failed", what, exc_info=task.exception())
    return done


class _Tasks:
    """Tasks started on their own, kept until done; each one's failure is logged."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()

    def spawn(self, coro: Coroutine[Any, Any, Any], what: str) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        task.add_done_callback(_log_failure(what))
        return task

    async def cancel(self) -> None:
        tasks, self._tasks = set(self._tasks), set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


Listener = Callable[[], Awaitable[None] | None]


class Link:
    """One NATS connection (nats-py's client, :attr:`nc`) with listeners for its
    reconnections and drops, which nats-py takes only when it connects: a
    :class:`RemoteTable` asks for the table's state again after each reconnection and
    fails its commands in flight on a drop. Make one with :meth:`connect`."""

    def __init__(self) -> None:
        self.nc: NATS = NATS()
        self._on_reconnect: list[Listener] = []
        self._on_disconnect: list[Listener] = []

    @classmethod
    async def connect(cls, servers: str | list[str], *, name: str | None = None,
                      **options: Any) -> Link:
        """Connect to ``servers`` (``nats://host:port``); ``options`` go to nats-py's
        ``connect`` (e.g. ``reconnect_time_wait`` seconds, ``max_reconnect_attempts``,
        ``-1`` for ever, the default here). Raises what nats-py raises when no server
        can be reached."""
        link = cls()
        options.setdefault("max_reconnect_attempts", -1)
        await link.nc.connect(servers, name=name, reconnected_cb=link._reconnected,
                              disconnected_cb=link._disconnected, error_cb=link._error,
                              **options)
        return link

    def on_reconnect(self, listener: Listener) -> None:
        """Call ``listener()`` (awaited if it is a coroutine function) after each
        reconnection, once nats-py has subscribed again."""
        self._on_reconnect.append(listener)

    def on_disconnect(self, listener: Listener) -> None:
        """Call ``listener()`` when the connection drops."""
        self._on_disconnect.append(listener)

    def forget(self, listener: Listener) -> None:
        """Stop calling ``listener``."""
        for lst in (self._on_reconnect, self._on_disconnect):
            if listener in lst:
                lst.remove(listener)

    async def _fire(self, listeners: list[Listener], what: str) -> None:
        for listener in list(listeners):
            try:
                result = listener()
                if result is not None:
                    await result
            except Exception:
                log.exception("a NATS %s listener failed", what)

    async def _reconnected(self) -> None:
        url = self.nc.connected_url
        log.warning("NATS connection back (%s)", url.netloc if url is not None else "?")
        await self._fire(self._on_reconnect, "reconnect")

    async def _disconnected(self) -> None:
        if not self.nc.is_closed:
            log.warning("NATS connection lost; reconnecting")
        await self._fire(self._on_disconnect, "disconnect")

    async def _error(self, err: Exception) -> None:
        log.warning("NATS: %s", err or type(err).__name__)

    async def close(self) -> None:
        """Drain and close the connection (the subscriptions' pending messages are handled
        first); idempotent."""
        if not self.nc.is_closed:
            try:
                await self.nc.drain()
            except Exception:
                log.exception("draining the NATS connection failed")
                await self.nc.close()


def _headers(seq: int, epoch: str, clock: float, key: Hashable | None = None
             ) -> dict[str, str]:
    headers = {_SEQ: str(seq), _EPOCH: epoch, _CLOCK: repr(clock)}
    if key is not None:
        headers[_KEY] = str(key)
    return headers


class TableHost:
    """Serves one :class:`~bbspoker.table.service.TableService` on NATS as table
    ``table_id`` (see the module's doc for the subjects): its commands, each carried out
    by :func:`~bbspoker.table.commands.perform` as it arrives (an action waits for the
    table's step, the next command does not wait for it), and every item of its bus.

    Items and replies are sent by one task in the order they were made, so a command's
    reply is sent after the items of the step that carried it out. Nothing it serves can
    stop it: bytes that are no command get a :data:`BAD_COMMAND` refusal, a failure of
    the service is logged and answered ``Refused("failed")``, an item that cannot be
    encoded or sent is logged and skipped."""

    def __init__(self, link: Link, service: TableService, table_id: str) -> None:
        self.link = link
        self.service = service
        self.table_id = table_id
        #: This host's token: gateways start counting again when it changes.
        self.epoch = secrets.token_hex(8)
        self._seq = 0
        self._out: deque[tuple[str, bytes, dict[str, str]]] = deque()
        self._ready = asyncio.Event()
        self._sub: NatsSubscription | None = None
        self._tasks = _Tasks()
        self._sender: asyncio.Task[None] | None = None
        self._public = public_subject(table_id)
        #: Items and replies sent, by kind (``public``, ``seat``, ``reply``).
        self.sent: Counter[str] = Counter()

    async def start(self) -> None:
        """Subscribe to the command subject and start publishing the bus."""
        self._sender = asyncio.get_running_loop().create_task(self._send_loop())
        self._sender.add_done_callback(_log_failure(f"table {self.table_id}'s NATS sender"))
        self.service.bus.tap(self._tap)
        self._sub = await self.link.nc.subscribe(cmd_subject(self.table_id), cb=self._on_cmd)
        # The table's state at once: gateways that follow it (a table just taken over, or
        # one whose first host this is) need not ask.
        self._tap(self.service.snapshot, "table", None)
        await self.link.nc.flush()

    async def stop(self) -> None:
        """Stop serving: unsubscribe, send what is queued, stop the tasks."""
        self.service.bus.untap(self._tap)
        if self._sub is not None:
            try:
                await self._sub.unsubscribe()
            except Exception:
                log.exception("unsubscribing table %s's commands failed", self.table_id)
            self._sub = None
        await self._tasks.cancel()
        if self._sender is not None:
            self._out.append(("", b"", {}))          # the last one: stop
            self._ready.set()
            try:
                await asyncio.wait_for(self._sender, 5.0)
            except (TimeoutError, asyncio.CancelledError):
                self._sender.cancel()
            self._sender = None
        if not self.link.nc.is_closed:
            try:
                await self.link.nc.flush()
            except Exception:
                log.exception("flushing table %s's last items failed", self.table_id)

    def _queue(self, subject: str, data: bytes, key: Hashable | None = None) -> None:
        self._out.append((subject, data,
                          _headers(self._seq, self.epoch, self.service.clock(), key)))
        self._ready.set()

    def _tap(self, item: Any, key: Hashable | None, viewer: str | None) -> None:
        """A bus item: numbered and queued for its subject."""
        try:
            data = codec.encode(item)
        except codec.CodecError:
            log.exception("table %s: a bus item could not be encoded; not sent", self.table_id)
            return
        self._seq += 1
        if viewer is None:
            self.sent["public"] += 1
            self._queue(self._public, data, key)
        else:
            self.sent["seat"] += 1
            self._queue(seat_subject(self.table_id, viewer), data, key)

    async def _send_loop(self) -> None:
        nc = self.link.nc
        while True:
            await self._ready.wait()
            self._ready.clear()
            while self._out:
                subject, data, headers = self._out.popleft()
                if not subject:
                    return
                try:
                    await nc.publish(subject, data, headers=headers)
                except Exception:
                    log.exception("table %s: publishing on %s failed", self.table_id, subject)

    async def _on_cmd(self, msg: Msg) -> None:
        """One command: carried out in a task of its own (started in arrival order, so the
        table queues the actions in that order)."""
        self._tasks.spawn(self._serve(msg), f"table {self.table_id}'s command")

    async def _serve(self, msg: Msg) -> None:
        reply: object
        try:
            command = codec.decode(msg.data)
            if not isinstance(command, Command):
                raise codec.CodecError(f"a {type(command).__name__} is not a command")
        except codec.CodecError as err:
            log.warning("table %s: bad command bytes: %s", self.table_id, err)
            reply = Refused(BAD_COMMAND, {"reason": str(err)})
        else:
            try:
                reply = await perform(self.service, command)
            except Exception:
                log.exception("table %s: command %r failed", self.table_id, command)
                reply = Refused("failed")
        if msg.reply:
            self.sent["reply"] += 1
            self._queue(msg.reply, codec.encode(reply))


def _empty_snapshot(kind: str) -> TableSnapshot:
    """What a gateway shows of a table no host has answered for yet: nobody seated, no
    game, version 0 (any host's first snapshot replaces it)."""
    return TableSnapshot(version=0, seats=(), current=None, pot=None, deadline=None,
                         actions={}, balances={}, kind=kind)


@dataclass
class _Seat:
    """A viewer whose private subject the gateway follows: their subscribers and cards."""

    subscribers: int = 0
    sub: NatsSubscription | None = None
    cards: tuple[Any, ...] = ()
    seq: int = -1          # Bbs-Seq of the cards held
    epoch: str = ""        # and the host that sent them


@dataclass
class _Pending:
    """A command waiting to be sent and its reply."""

    data: bytes
    reply: asyncio.Future[Msg] | None
    token: str = ""
    sent: bool = field(default=False)


class RemoteBus(Bus):
    """The gateway's bus of a :class:`RemoteTable`: a :class:`~bbspoker.table.bus.Bus`
    whose subscriptions with a ``viewer`` make the table follow that viewer's private
    subject (and stop following it when the viewer's last subscription ends)."""

    def __init__(self, table: RemoteTable) -> None:
        super().__init__()
        self._table = table

    def subscribe(self, *, maxsize: int | None = None,
                  on_overflow: Callable[[], None] | None = None,
                  notify: Callable[[], None] | None = None,
                  viewer: str | None = None) -> Subscription:
        """See :meth:`Bus.subscribe`; a ``viewer``'s first subscription follows their
        private subject."""
        sub = super().subscribe(maxsize=maxsize, on_overflow=on_overflow, notify=notify,
                                viewer=viewer)
        if sub.viewer is not None:
            self._table._want(sub.viewer, +1)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        """See :meth:`Bus.unsubscribe`."""
        live = sub in self._subscribers
        super().unsubscribe(sub)
        if live and sub.viewer is not None:
            self._table._want(sub.viewer, -1)


class RemoteTable:
    """A table served by a :class:`TableHost` elsewhere, as the door uses a
    :class:`~bbspoker.table.service.TableService`: :meth:`call`, :meth:`submit`,
    :attr:`snapshot`, :attr:`bus` (subscribed as the service's; a subscription with a
    ``viewer`` receives that viewer's private items), :meth:`cards_of`, :meth:`recent`,
    :meth:`clock` and the commands that return nothing (:meth:`chat`, :meth:`watch`,
    :meth:`unwatch`, :meth:`attach`, :meth:`detach`, :meth:`touch`, :meth:`mark_bot`:
    sent in order, a failure logged). Make one with :meth:`open`.

    Commands are sent in the order they are made, by one task, each a request with a reply
    within ``timeout`` seconds; :meth:`call` raises the table's refusal as the same
    :class:`~bbspoker.rules.events.RuleError`, and :class:`TableUnreachable` when the
    reply does not come."""

    def __init__(self, link: Link, table_id: str, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.link = link
        self.table_id = table_id
        self.timeout = timeout
        self.bus = RemoteBus(self)
        self._snapshot: TableSnapshot | None = None
        self._epoch = ""                 # the host of the snapshot held
        self._recent: deque[tuple[int, TableMessage | ChatMessage]] = deque(maxlen=RECENT)
        self._seats: dict[str, _Seat] = {}
        self._seat_task: asyncio.Task[None] | None = None
        self._outbox: deque[_Pending] = deque()
        self._waiting: dict[str, _Pending] = {}
        self._ready = asyncio.Event()
        self._tokens = itertools.count(1)
        self._inbox = ""
        self._subs: list[NatsSubscription] = []
        self._tasks = _Tasks()
        self._sender: asyncio.Task[None] | None = None
        self._clock_at: tuple[float, float] = (0.0, time.monotonic())
        self._closed = False
        # What this gateway told the table about its own sessions, told again to a new
        # host (a worker that took the table over starts with none of it): screens up per
        # seated handle, spectators, computer players (all by lower-case handle).
        self._attached: Counter[str] = Counter()
        self._watching: dict[str, str] = {}
        self._marked: dict[str, str] = {}
        self._retry: asyncio.Task[None] | None = None
        self._healing: set[str] = set()   # held seats of screens up here, told again
        #: Messages received, by subject (``public``, ``seat.<viewer>``, ``reply``).
        self.received: Counter[str] = Counter()

    @classmethod
    async def open(cls, link: Link, table_id: str, *, timeout: float = DEFAULT_TIMEOUT
                   ) -> RemoteTable:
        """Follow table ``table_id`` over ``link``: subscribe to its public subject, then
        ask for its snapshot and recent messages. Raises :class:`TableUnreachable` if no
        host answers within ``timeout`` seconds. (NATS may answer *no responders* for a
        moment after a host on another connection subscribed: that answer is asked again
        until the timeout.)"""
        table = cls(link, table_id, timeout=timeout)
        try:
            await table._start(refresh=False)
            deadline = asyncio.get_running_loop().time() + timeout
            while True:
                try:
                    await table._refresh()
                    break
                except TableUnreachable as err:
                    if err.reason != "no_host" or asyncio.get_running_loop().time() > deadline:
                        raise
                    await asyncio.sleep(0.05)
        except BaseException:
            await table.close()
            raise
        return table

    @classmethod
    async def follow(cls, link: Link, table_id: str, kind: str, *,
                     timeout: float = DEFAULT_TIMEOUT, retry: float = 1.0) -> RemoteTable:
        """Follow table ``table_id`` (of game kind ``kind``) whether or not a worker serves
        it now: as :meth:`open`, but if no host answers, the table shows an empty
        snapshot (version 0, no seats) and asks again every ``retry`` seconds until a host
        answers or publishes (a worker that wins the table publishes its snapshot at
        once). A gateway follows every table of the lobby this way, so that it can start
        before the workers. Raises only what NATS raises for a subscription."""
        table = cls(link, table_id, timeout=timeout)
        table._snapshot = _empty_snapshot(kind)
        try:
            await table._start(refresh=False)
        except BaseException:
            await table.close()
            raise
        table._retry = asyncio.get_running_loop().create_task(table._refresh_until(retry))
        table._retry.add_done_callback(_log_failure(f"looking for table {table_id}'s host"))
        return table

    async def _refresh_until(self, retry: float) -> None:
        """Ask for the table's state until a host has answered or published (the empty
        snapshot's version 0 replaced)."""
        while not self._closed and self.snapshot.version == 0:
            try:
                await self._refresh()
            except TableUnreachable as err:
                log.debug("table %s: no host yet (%s)", self.table_id, err.reason)
            if self.snapshot.version == 0:
                await asyncio.sleep(retry)

    async def _start(self, refresh: bool = True) -> None:
        nc = self.link.nc
        self._inbox = nc.new_inbox()
        self._subs.append(await nc.subscribe(self._inbox + ".*", cb=self._on_reply))
        self._subs.append(await nc.subscribe(public_subject(self.table_id), cb=self._on_public))
        self._sender = asyncio.get_running_loop().create_task(self._send_loop())
        self._sender.add_done_callback(_log_failure(f"table {self.table_id}'s command sender"))
        self.link.on_reconnect(self._reconnected)
        self.link.on_disconnect(self._disconnected)
        if refresh:
            await self._refresh()

    async def close(self) -> None:
        """Stop following the table: unsubscribe, fail the commands not answered
        (``disconnected``). Idempotent."""
        if self._closed:
            return
        self._closed = True
        self.link.forget(self._reconnected)
        self.link.forget(self._disconnected)
        self._fail_all("disconnected")
        for task in (self._sender, self._seat_task, self._retry):
            if task is not None:
                task.cancel()
        await self._tasks.cancel()
        subs = self._subs + [s.sub for s in self._seats.values() if s.sub is not None]
        self._subs, self._seats = [], {}
        if not self.link.nc.is_closed:
            for sub in subs:
                try:
                    await sub.unsubscribe()
                except Exception:
                    log.exception("unsubscribing from table %s failed", self.table_id)

    # ------------------------------------------------------------------- commands

    async def _request(self, command: Command) -> tuple[object, Msg]:
        """Send ``command``; its decoded reply and the reply's message (for its headers).
        Raises :class:`TableUnreachable`, or ``RuleError("failed")`` for a reply that cannot
        be read."""
        if self._closed or not self.link.nc.is_connected:
            raise TableUnreachable("disconnected", self.table_id)
        pending = _Pending(codec.encode(command), asyncio.get_running_loop().create_future(),
                           str(next(self._tokens)))
        assert pending.reply is not None
        self._waiting[pending.token] = pending
        self._outbox.append(pending)
        self._ready.set()
        try:
            msg = await asyncio.wait_for(asyncio.shield(pending.reply), self.timeout)
        except TimeoutError:
            raise TableUnreachable("timeout", self.table_id) from None
        finally:
            self._waiting.pop(pending.token, None)
            if not pending.sent and pending in self._outbox:
                self._outbox.remove(pending)       # never sent: never carried out
        if msg.headers and msg.headers.get("Status") == NO_RESPONDERS:
            raise TableUnreachable("no_host", self.table_id)
        item = self._decode(msg)
        if item is None:
            raise RuleError("failed")
        return item, msg

    def _send(self, command: Command) -> None:
        """Send ``command`` without waiting: its failure is logged."""
        async def run() -> None:
            try:
                reply, _ = await self._request(command)
            except RuleError as err:
                if not self._closed:         # (closing: the gateway is stopping)
                    log.warning("table %s: %r not carried out: %s", self.table_id, command,
                                err)
                return
            if isinstance(reply, Refused):
                log.warning("table %s refused %r: %s", self.table_id, command, reply.error())
        self._tasks.spawn(run(), f"table {self.table_id}'s {type(command).__name__}")

    async def _send_loop(self) -> None:
        nc = self.link.nc
        subject = cmd_subject(self.table_id)
        while True:
            await self._ready.wait()
            self._ready.clear()
            while self._outbox:
                pending = self._outbox.popleft()
                if pending.reply is not None and pending.reply.done():
                    continue
                pending.sent = True
                try:
                    await nc.publish(subject, pending.data,
                                     reply=f"{self._inbox}.{pending.token}")
                except Exception as err:
                    log.warning("table %s: a command could not be sent: %r", self.table_id, err)
                    if pending.reply is not None and not pending.reply.done():
                        pending.reply.set_exception(TableUnreachable("disconnected",
                                                                     self.table_id))

    async def _on_reply(self, msg: Msg) -> None:
        self.received["reply"] += 1
        token = msg.subject.rsplit(".", 1)[-1]
        pending = self._waiting.get(token)
        if pending is not None and pending.reply is not None and not pending.reply.done():
            pending.reply.set_result(msg)
            self._note_clock(msg)

    def _fail_all(self, reason: str) -> None:
        for pending in list(self._waiting.values()):
            if pending.reply is not None and not pending.reply.done():
                pending.reply.set_exception(TableUnreachable(reason, self.table_id))
                pending.reply.exception()       # retrieved: a caller gone logs nothing
        self._outbox.clear()

    async def call(self, handle: str | None, action: act.Action) -> None:
        """Apply ``action`` of ``handle`` at the table and wait for it. Raises the table's
        :class:`~bbspoker.rules.events.RuleError` if it refuses, :class:`TableUnreachable`
        if no reply comes within the timeout."""
        await self._act(Act(handle, action))

    def submit(self, handle: str | None, action: act.Action,
               turn: tuple[str | None, float | None] | None = None) -> asyncio.Future[None]:
        """:meth:`call` as a future (the screen's way, with the ``turn`` it acted on, see
        :meth:`TableService.submit`), sent now in order. Raises ``TypeError`` at once for
        what is not an action."""
        command = Act(handle, action, turn)
        task: asyncio.Future[None] = asyncio.get_running_loop().create_task(self._act(command))
        return task

    async def _act(self, command: Act) -> None:
        reply, _ = await self._request(command)
        if isinstance(reply, Refused):
            raise reply.error()
        if not isinstance(reply, Done):
            raise RuleError("failed")

    def chat(self, handle: str, text: str) -> None:
        """Send a chat line (cleaned again by the table)."""
        self._send(Chat(handle, text))

    def watch(self, handle: str) -> None:
        """``handle`` watches the table."""
        self._watching[handle.lower()] = handle
        self._send(Watch(handle))

    def unwatch(self, handle: str) -> None:
        """``handle`` stopped watching."""
        self._watching.pop(handle.lower(), None)
        self._send(Unwatch(handle))

    def attach(self, handle: str) -> None:
        """A screen of seated ``handle`` is up."""
        self._attached[handle.lower()] += 1
        self._send(Attach(handle))

    def detach(self, handle: str) -> None:
        """That screen of ``handle`` is gone."""
        key = handle.lower()
        self._attached[key] -= 1
        if self._attached[key] <= 0:
            del self._attached[key]
        self._send(Detach(handle))

    def held(self, handle: str) -> bool:
        """True while ``handle``'s seat waits for them after a dropped connection (the
        snapshot's ``held``)."""
        key = handle.lower()
        return any(h.lower() == key for h in self.snapshot.held)

    def touch(self, handle: str) -> None:
        """``handle`` pressed a key at the table."""
        self._send(Touch(handle))

    def mark_bot(self, handle: str, bot: bool = True) -> None:
        """Mark ``handle`` as a computer player or not."""
        if bot:
            self._marked[handle.lower()] = handle
        else:
            self._marked.pop(handle.lower(), None)
        self._send(MarkBot(handle, bot))

    def _tell_new_host(self) -> None:
        """A new host serves the table (another worker took it over): ask it for the
        private cards of this gateway's viewers (the former game's are void), tell it this
        gateway's spectators, computer players and screens up, as the former host knew
        them (it holds the seats of the players it seated again: a screen attached
        takes its player's seat back)."""
        for viewer, seat in self._seats.items():
            if seat.sub is not None:       # the former host's cards are no one's now
                self._tasks.spawn(self._cards_again(viewer), f"{viewer}'s cards")
        for handle in self._marked.values():
            self._send(MarkBot(handle, True))
        for handle in self._watching.values():
            self._send(Watch(handle))
        for key, count in self._attached.items():
            for _ in range(count):
                self._send(Attach(key))
            self._tasks.spawn(self._take_back(key), f"table {self.table_id}'s seat of {key}")

    async def _cards_again(self, viewer: str) -> None:
        """``viewer``'s cards from the new host (a failure is logged: the next change of
        their cards brings them)."""
        try:
            await self._fetch_cards(viewer)
        except RuleError as err:
            log.warning("table %s: %s's cards not fetched from its new host: %s",
                        self.table_id, viewer, err)

    async def _take_back(self, handle: str) -> None:
        """``handle``'s screen is up here: if the new host holds their seat, they are back
        (``Return``); a seat not held (or not there) is no error."""
        try:
            reply, _ = await self._request(Act(handle, Return()))
        except RuleError as err:
            log.warning("table %s: %s's seat not taken back: %s", self.table_id, handle, err)
            return
        if isinstance(reply, Refused) and reply.code != "not_seated":
            log.warning("table %s: %s's seat not taken back: %s", self.table_id, handle,
                        reply.error())

    # ------------------------------------------------------------------- state

    def cards_of(self, handle: str) -> tuple[Any, ...]:
        """The private cards last received for ``handle`` (empty if none, or if no
        subscription of the bus has ``handle`` as its viewer)."""
        seat = self._seats.get(handle.lower())
        return seat.cards if seat is not None else ()

    def recent(self) -> tuple[TableMessage | ChatMessage, ...]:
        """The table's last public messages received (at most
        :data:`~bbspoker.table.service.RECENT`), oldest first."""
        return tuple(item for _, item in self._recent)

    def clock(self) -> float:
        """The table's clock (seconds, the snapshot's deadlines are on it) as this gateway
        reckons it: the last value the host sent, plus the time since it came."""
        host, local = self._clock_at
        return host + (time.monotonic() - local)

    def _note_clock(self, msg: Msg) -> None:
        if msg.headers and _CLOCK in msg.headers:
            try:
                self._clock_at = (float(msg.headers[_CLOCK]), time.monotonic())
            except ValueError:
                pass

    @staticmethod
    def _seq(msg: Msg) -> int:
        try:
            return int((msg.headers or {}).get(_SEQ, "-1"))
        except ValueError:
            return -1

    @staticmethod
    def _epoch_of(msg: Msg) -> str:
        return (msg.headers or {}).get(_EPOCH, "")

    @property
    def snapshot(self) -> TableSnapshot:
        """The newest snapshot received (by version; a new host's first one replaces any).
        Raises ``RuntimeError`` before :meth:`open` got one."""
        if self._snapshot is None:
            raise RuntimeError(f"table {self.table_id} is not open")
        return self._snapshot

    def _take_snapshot(self, snap: TableSnapshot, msg: Msg) -> bool:
        """Hold and publish ``snap`` unless the one held is newer (from the same host)."""
        epoch = self._epoch_of(msg)
        old = self._snapshot
        if old is not None and epoch == self._epoch and snap.version <= old.version:
            return False
        moved = old is not None and epoch != self._epoch and old.version > 0
        self._snapshot, self._epoch = snap, epoch
        self.bus.publish(snap, key="table")
        if moved:
            log.info("table %s has a new host", self.table_id)
            self._tell_new_host()
        else:
            self._take_back_held(snap)
        return True

    def _take_back_held(self, snap: TableSnapshot) -> None:
        """A seat the table holds (a dropped connection) of a player whose screen is up
        here: the table lost track of that screen (its worker found the player on no
        gateway while this one was too late with its presence), so it is told again and
        the seat taken back, once per hold."""
        held = {h.lower() for h in snap.held}
        self._healing &= held
        for key in held & set(self._attached) - self._healing:
            self._healing.add(key)
            log.info("table %s holds the seat of %s, whose screen is up here: taking it "
                     "back", self.table_id, key)
            for _ in range(self._attached[key]):
                self._send(Attach(key))
            self._tasks.spawn(self._take_back(key), f"table {self.table_id}'s seat of {key}")

    def _take_cards(self, viewer: str, cards: PrivateCards, msg: Msg) -> None:
        """Hold ``viewer``'s ``cards`` unless those held are newer (from the same host), and
        publish them if they changed."""
        seat = self._seats.get(viewer)
        if seat is None:
            return
        epoch, seq = self._epoch_of(msg), self._seq(msg)
        if epoch == seat.epoch and seq < seat.seq:
            return
        changed = cards.cards != seat.cards
        seat.seq, seat.epoch, seat.cards = seq, epoch, cards.cards
        if changed:                      # as the table does: a change only
            self.bus.publish_to(viewer, cards, key="cards")

    def _decode(self, msg: Msg) -> object | None:
        try:
            return codec.decode(msg.data)
        except codec.CodecError:
            log.exception("table %s: an item on %s could not be read", self.table_id,
                          msg.subject)
            return None

    async def _on_public(self, msg: Msg) -> None:
        self.received["public"] += 1
        self._note_clock(msg)
        item = self._decode(msg)
        if isinstance(item, TableSnapshot):
            self._take_snapshot(item, msg)
        elif isinstance(item, (TableMessage, ChatMessage)):
            self._recent.append((self._seq(msg), item))
            self.bus.publish(item)
        elif item is not None:
            log.warning("table %s: unexpected public item %r", self.table_id, item)
        self.bus.flush()

    def _on_seat(self, viewer: str) -> Callable[[Msg], Awaitable[None]]:
        async def on_msg(msg: Msg) -> None:
            self.received[f"seat.{viewer}"] += 1
            item = self._decode(msg)
            if isinstance(item, PrivateCards):
                self._take_cards(viewer, item, msg)
            elif item is not None:
                key = (msg.headers or {}).get(_KEY)
                self.bus.publish_to(viewer, item, key=key)
            self.bus.flush()
        return on_msg

    async def _refresh(self) -> None:
        """Ask for the snapshot, the recent messages and every followed viewer's cards."""
        snap, msg = await self._request(Look())
        if isinstance(snap, TableSnapshot):
            self._take_snapshot(snap, msg)
        items, msg = await self._request(Recent())
        if isinstance(items, RecentItems):
            seq = self._seq(msg)
            newer = [(s, it) for s, it in self._recent if s > seq]
            self._recent.clear()
            self._recent.extend([(seq, it) for it in items.items] + newer)
        for viewer, seat in list(self._seats.items()):
            if seat.sub is not None:
                await self._fetch_cards(viewer)
        self.bus.flush()
        self._follow()

    async def _fetch_cards(self, viewer: str) -> None:
        cards, msg = await self._request(CardsOf(viewer))
        if isinstance(cards, PrivateCards):
            self._take_cards(viewer, cards, msg)

    # ------------------------------------------------------------------- viewers

    def _want(self, viewer: str, delta: int) -> None:
        """A subscription of ``viewer`` began (+1) or ended (-1)."""
        seat = self._seats.setdefault(viewer, _Seat())
        seat.subscribers += delta
        self._follow()

    def _follow(self) -> None:
        """Make the private subjects followed those of the bus's viewers (a task)."""
        if self._closed:
            return
        if self._seat_task is None or self._seat_task.done():
            self._seat_task = asyncio.get_running_loop().create_task(self._follow_seats())
            self._seat_task.add_done_callback(
                _log_failure(f"following table {self.table_id}'s seats"))

    async def settle(self) -> None:
        """Wait until the private subjects followed are those of the bus's viewers now (and
        their cards asked for)."""
        while self._seat_task is not None and not self._seat_task.done():
            await asyncio.shield(self._seat_task)

    async def _follow_seats(self) -> None:
        """Subscribe to the private subject of each viewer with subscribers, unsubscribe
        from the others, until nothing changes."""
        nc = self.link.nc
        while True:
            todo = [(v, s) for v, s in self._seats.items()
                    if (s.subscribers > 0) != (s.sub is not None)]
            if not todo:
                return
            for viewer, seat in todo:
                if seat.subscribers > 0:
                    seat.sub = await nc.subscribe(seat_subject(self.table_id, viewer),
                                                  cb=self._on_seat(viewer))
                    try:
                        await self._fetch_cards(viewer)
                    except TableUnreachable as err:
                        log.warning("table %s: %s's cards not fetched: %s", self.table_id,
                                    viewer, err)
                else:
                    sub, seat.sub = seat.sub, None
                    if seat.subscribers <= 0:
                        self._seats.pop(viewer, None)
                    if sub is not None:
                        await sub.unsubscribe()

    # ------------------------------------------------------------------- faults

    def _disconnected(self) -> None:
        self._fail_all("disconnected")

    async def _reconnected(self) -> None:
        if self._closed:
            return
        try:
            await self._refresh()
        except TableUnreachable as err:
            log.warning("table %s: state not fetched after reconnecting: %s",
                        self.table_id, err)


class RemoteTables:
    """Every table of the lobby as a gateway follows them: one :class:`RemoteTable` per
    table spec, on whichever worker serves it now (:meth:`follow`). The door's
    :class:`~bbspoker.table.registry.Tables`: ``tables[table_id]`` (``KeyError`` if
    unknown), iteration in lobby order, and where a handle sits, read from the
    snapshots."""

    def __init__(self, entries: Sequence[TableEntry[RemoteTable]]) -> None:
        self._entries = {entry.id: entry for entry in entries}

    @classmethod
    async def follow(cls, link: Link, specs: Sequence[TableSpec], *,
                     timeout: float = DEFAULT_TIMEOUT, retry: float = 1.0) -> RemoteTables:
        """Follow every table of ``specs`` (lobby numbers from 1 in their order) over
        ``link`` (:meth:`RemoteTable.follow`: a table no worker serves yet shows empty
        until one does)."""
        entries: list[TableEntry[RemoteTable]] = []
        try:
            for number, spec in enumerate(specs, 1):
                table = await RemoteTable.follow(link, spec.id, spec.game, timeout=timeout,
                                                 retry=retry)
                entries.append(TableEntry(number, spec, table))
        except BaseException:
            for entry in entries:
                await entry.service.close()
            raise
        return cls(entries)

    def __iter__(self) -> Iterator[TableEntry[RemoteTable]]:
        return iter(self._entries.values())

    def __len__(self) -> int:
        return len(self._entries)

    def __getitem__(self, table_id: str) -> TableEntry[RemoteTable]:
        return self._entries[table_id]

    def by_number(self, number: int) -> TableEntry[RemoteTable] | None:
        """The table listed as ``number`` (1-based), or ``None``."""
        return next((e for e in self._entries.values() if e.number == number), None)

    def seat_of(self, handle: str) -> TableEntry[RemoteTable] | None:
        """The table where ``handle`` (any case) is seated, as its snapshot says."""
        return next((e for e in self._entries.values()
                     if e.service.snapshot.seat_of(handle) is not None), None)

    def held_seat(self, handle: str) -> TableEntry[RemoteTable] | None:
        """The table holding ``handle``'s seat after a dropped connection, or ``None``."""
        return next((e for e in self._entries.values() if e.service.held(handle)), None)

    def bots(self) -> list[tuple[str, TableEntry[RemoteTable]]]:
        """The computer players seated now with their tables, by handle (any case)."""
        found = [(seat.handle, e) for e in self._entries.values()
                 for seat in e.service.snapshot.seats
                 if seat.handle.lower() in e.service.snapshot.bots]
        return sorted(found, key=lambda pair: pair[0].lower())

    async def close(self) -> None:
        """Stop following every table."""
        for entry in self._entries.values():
            await entry.service.close()
