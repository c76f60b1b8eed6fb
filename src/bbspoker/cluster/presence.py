"""Who is logged in where, across the gateways of the split deployment, over NATS.

Each gateway's :class:`Presence` announces the users logged in through it (its
``local()``, a list of :class:`Present`) and listens to every other gateway's
announcements; the door reads :meth:`Presence.others` and :meth:`Presence.find` for its
[W]ho list, an X-message's recipient and the login's "already online elsewhere", and asks
the gateway holding a user to deliver an X-message (:meth:`Presence.send_xmessage`) or to
end their session (:meth:`Presence.end_session`). A worker listens only
(``listen_only=True``): :meth:`Presence.online` tells it who is logged in anywhere.

Subjects (``<gw>`` the gateway's name as one :func:`~bbspoker.table.remote.subject_token`):

- ``bbspoker.presence.<gw>``: the gateway's announcement (:class:`Announce`), its whole
  list each time: at start, every ``interval`` seconds, at once after ``changed()`` (many
  calls in one turn of the event loop give one announcement), after a NATS reconnection,
  and when it hears a gateway for the first time since it connected or reconnected, or
  since it forgot it (so a newcomer, or a gateway that reconnected after this one, hears
  this one within a round trip, not an interval later); ``leaving`` set on
  :meth:`Presence.stop`'s last one;
- ``bbspoker.presence.<gw>.xmessage``: requests (:class:`XMessageRequest`) answered by the
  gateway's ``on_xmessage`` handler, the reply a MessagePack boolean (True: delivered);
- ``bbspoker.presence.<gw>.end``: requests (:class:`EndRequest`) answered by its
  ``on_end`` handler, the same way.

A gateway not heard for three of its intervals is forgotten (its users vanish); one that
says it is leaving is forgotten at once. Payloads are MessagePack written and read by
msgspec with the types below; bytes that are not one are logged and ignored (an
announcement) or answered False (a request). An announcement carries every user of the
gateway: NATS's default 1 MB payload holds some ten thousand.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from dataclasses import dataclass, field
from typing import Annotated, Any

import msgspec
import nats.errors
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription

from bbspoker import tasks
from bbspoker.table.remote import Link, subject_token

__all__ = ["Present", "Presence", "Announce", "XMessageRequest", "EndRequest", "PREFIX",
           "EXPIRY", "DEFAULT_TIMEOUT", "announce_subject", "request_subject"]

log = logging.getLogger(__name__)

#: The first tokens of every presence subject.
PREFIX = "bbspoker.presence"
#: A gateway silent for this many of its intervals is forgotten; a process listens this
#: many intervals before :meth:`Presence.online` answers.
EXPIRY = 3
#: Seconds a request to another gateway waits for its answer.
DEFAULT_TIMEOUT = 3.0


class Present(msgspec.Struct, frozen=True):
    """One logged-in user as another process sees them: ``handle`` as stored,
    ``activity`` (what they do: ``"lobby"``, ``"table"``, ``"watching"`` ...; the door's
    words), ``where`` (the table's name, or None), ``language`` (the door's language
    code), ``gateway`` (the name of the gateway holding their session; a gateway's
    :class:`Presence` sets it to its own name when it announces them, whatever
    ``local()`` put there) and ``inbox_room`` (whether their X-message inbox takes one
    more)."""

    handle: Annotated[str, msgspec.Meta(min_length=1)]
    activity: str
    where: str | None
    language: str
    gateway: str
    inbox_room: bool


class Announce(msgspec.Struct, frozen=True):
    """What a gateway publishes on its subject: its ``gateway`` name, its ``interval``
    (seconds between two announcements: it is forgotten after :data:`EXPIRY` of them
    missed), every user logged in through it, and ``leaving`` (it stops: forget it now)."""

    gateway: Annotated[str, msgspec.Meta(min_length=1)]
    interval: Annotated[float, msgspec.Meta(gt=0)]
    users: list[Present]
    leaving: bool = False


class XMessageRequest(msgspec.Struct, frozen=True):
    """An X-message for ``handle`` on the gateway that holds them: ``sender``'s handle,
    ``text`` (already cleaned by the sending door), ``sent_at`` (Unix seconds) and the
    door's ``notice`` code (None: a user's message)."""

    handle: str
    sender: str
    text: str
    sent_at: float
    notice: str | None = None


class EndRequest(msgspec.Struct, frozen=True):
    """End ``handle``'s session on the gateway that holds it, telling them ``message``."""

    handle: str
    message: str


XMessageHandler = Callable[[str, str, str, float, str | None], bool | Awaitable[bool]]
EndHandler = Callable[[str, str], bool | Awaitable[bool]]

_encoder = msgspec.msgpack.Encoder()
_announce = msgspec.msgpack.Decoder(Announce)
_xmessage = msgspec.msgpack.Decoder(XMessageRequest)
_end = msgspec.msgpack.Decoder(EndRequest)
_answer = msgspec.msgpack.Decoder(bool)


def announce_subject(gateway: str) -> str:
    """The subject of gateway ``gateway``'s announcements."""
    return f"{PREFIX}.{subject_token(gateway)}"


def request_subject(gateway: str, what: str) -> str:
    """The subject of the ``what`` requests (``xmessage``, ``end``) to ``gateway``."""
    return f"{announce_subject(gateway)}.{what}"


def _nobody() -> list[Present]:
    return []


@dataclass
class _View:
    """The last announcement heard from one gateway: when (the clock's seconds), its
    interval, and its users by key."""

    heard: float
    interval: float
    users: dict[str, Present] = field(default_factory=dict)


class Presence:
    """This process's side of the presence: announces ``local()`` (the :class:`Present`
    of each user logged in here) as gateway ``name`` over ``link``, and keeps the last
    announcement of every other gateway.

    ``interval``: seconds between two announcements (``[cluster] presence_interval``);
    ``key``: a handle's key (``str.lower``: ``find`` and ``online`` ignore case);
    ``clock``: monotonic seconds, for forgetting silent gateways (injectable in tests);
    ``timeout``: seconds a request to another gateway waits for its answer;
    ``listen_only``: announce nothing and answer no request (a worker): it only listens.

    Set :attr:`on_xmessage` and :attr:`on_end` (plain functions or coroutine functions
    returning True when done) before :meth:`start` so other gateways' requests reach this
    one's users; without them every request is answered False. Every task it runs logs a
    failure with its traceback and goes on. Raises ``ValueError`` for an empty ``name`` or
    an ``interval`` of 0 or less."""

    def __init__(self, link: Link, name: str, *, interval: float,
                 local: Callable[[], Iterable[Present]] = _nobody,
                 key: Callable[[str], str] = str.lower,
                 clock: Callable[[], float] = time.monotonic,
                 timeout: float = DEFAULT_TIMEOUT, listen_only: bool = False) -> None:
        if interval <= 0:
            raise ValueError("the presence interval must be more than 0 seconds")
        self._subject = announce_subject(name)          # ValueError for an empty name
        self.link = link
        self.name = name
        self.interval = interval
        self.local = local
        self.key = key
        self.clock = clock
        self.timeout = timeout
        self.listen_only = listen_only
        #: ``on_xmessage(handle, sender, text, sent_at, notice) -> bool``: deliver an
        #: X-message to ``handle`` (a user of this gateway); True if delivered.
        self.on_xmessage: XMessageHandler | None = None
        #: ``on_end(handle, message) -> bool``: end ``handle``'s session here, telling
        #: them ``message``; True if there was one.
        self.on_end: EndHandler | None = None
        #: Messages taken in, by kind: ``announce``, ``xmessage``, ``end``, ``bad`` (bytes
        #: that were none of them, or an announcement on another gateway's subject).
        self.received: Counter[str] = Counter()
        #: Announcements published.
        self.published = 0
        self._views: dict[str, _View] = {}
        #: The gateways heard since this one connected (or reconnected) to NATS: hearing
        #: another makes this one announce at once, so that it hears this one too.
        self._met: set[str] = set()
        self._listening_since: float | None = None
        self._subs: list[Subscription] = []
        self._wake = asyncio.Event()
        self._news = asyncio.Event()
        self._loop: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()

    # ---------------------------------------------------------------- life

    async def start(self) -> None:
        """Subscribe to every gateway's announcements (and, unless listening only, to this
        one's requests) and start announcing: the first announcement goes out at once."""
        nc = self.link.nc
        self._subs.append(await nc.subscribe(f"{PREFIX}.*", cb=self._on_announce))
        if not self.listen_only:
            self._subs.append(await nc.subscribe(request_subject(self.name, "xmessage"),
                                                 cb=self._on_xmessage))
            self._subs.append(await nc.subscribe(request_subject(self.name, "end"),
                                                 cb=self._on_end))
            self._loop = tasks.start(self._announce_loop(), f"presence {self.name}")
        self.link.on_reconnect(self._reconnected)
        self.link.on_disconnect(self._disconnected)
        self._listening_since = self.clock() if nc.is_connected else None
        await nc.flush()

    async def stop(self) -> None:
        """Stop: unsubscribe, end the tasks, and (unless listening only) announce that this
        gateway is leaving, so the others forget its users at once. Idempotent; a closed
        connection is no error."""
        self.link.forget(self._reconnected)
        self.link.forget(self._disconnected)
        running = [t for t in (self._loop, *self._tasks) if t is not None]
        self._loop, self._tasks = None, set()
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)
        subs, self._subs = self._subs, []
        nc = self.link.nc
        if not nc.is_closed:
            for sub in subs:
                try:
                    await sub.unsubscribe()
                except Exception:
                    log.exception("presence %s: unsubscribing failed", self.name)
            if running and not self.listen_only and nc.is_connected:
                try:
                    await nc.publish(self._subject, _encoder.encode(
                        Announce(self.name, self.interval, [], leaving=True)))
                    await nc.flush()
                except Exception:
                    log.exception("presence %s: the last announcement failed", self.name)
        self._views.clear()
        self._met.clear()
        self._listening_since = None

    def changed(self) -> None:
        """Announce this gateway's users at once (a login, a logout, a move to a table):
        every call in one turn of the event loop gives one announcement."""
        self._wake.set()

    def _reconnected(self) -> None:
        self._listening_since = self.clock()
        self._met.clear()
        self.changed()

    def _disconnected(self) -> None:
        self._listening_since = None

    def _spawn(self, coro: Coroutine[Any, Any, Any], what: str) -> None:
        task = tasks.start(coro, f"presence {self.name}: {what}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ---------------------------------------------------------------- announcing

    async def _announce_loop(self) -> None:
        while True:
            self._wake.clear()
            try:
                await self._publish()
            except Exception:
                log.exception("presence %s: announcing failed", self.name)
            try:
                await asyncio.wait_for(self._wake.wait(), self.interval)
            except TimeoutError:
                pass

    async def _publish(self) -> None:
        nc = self.link.nc
        if not nc.is_connected:
            return              # announced again on reconnecting
        users = [p if p.gateway == self.name else msgspec.structs.replace(p, gateway=self.name)
                 for p in self.local()]
        await nc.publish(self._subject,
                         _encoder.encode(Announce(self.name, self.interval, users)))
        self.published += 1

    async def _on_announce(self, msg: Msg) -> None:
        try:
            self._take(msg)
        except Exception:
            log.exception("presence %s: an announcement on %s could not be taken", self.name,
                          msg.subject)

    def _take(self, msg: Msg) -> None:
        """Keep the announcement in ``msg`` (or forget its gateway, leaving) and wake the
        waiters of :meth:`wait_gone`."""
        try:
            announce = _announce.decode(msg.data)
        except msgspec.DecodeError as err:
            self.received["bad"] += 1
            log.warning("presence %s: bad announcement on %s: %s", self.name, msg.subject, err)
            return
        if msg.subject != announce_subject(announce.gateway):
            self.received["bad"] += 1
            log.warning("presence %s: an announcement of %r on %s ignored", self.name,
                        announce.gateway, msg.subject)
            return
        if announce.gateway == self.name:
            return
        self.received["announce"] += 1
        if announce.leaving:
            self._views.pop(announce.gateway, None)
            self._met.discard(announce.gateway)
        else:
            self._fresh()
            self._views[announce.gateway] = _View(self.clock(), announce.interval, {
                self.key(p.handle): (p if p.gateway == announce.gateway else
                                     msgspec.structs.replace(p, gateway=announce.gateway))
                for p in announce.users})
            if announce.gateway not in self._met:
                # A newcomer, or one heard again after it was forgotten or after a
                # reconnection: it may not have heard this one, so announce now.
                self._met.add(announce.gateway)
                self.changed()
        news, self._news = self._news, asyncio.Event()
        news.set()

    # ---------------------------------------------------------------- views

    def _fresh(self) -> dict[str, _View]:
        """The views of the gateways heard within :data:`EXPIRY` of their intervals; the
        others are forgotten."""
        now = self.clock()
        for name in [n for n, v in self._views.items() if now - v.heard >= EXPIRY * v.interval]:
            log.info("presence %s: gateway %s silent; its users forgotten", self.name, name)
            del self._views[name]
            self._met.discard(name)
        return self._views

    def others(self) -> list[Present]:
        """The users logged in through the other gateways, sorted by key (then gateway)."""
        return sorted((p for v in self._fresh().values() for p in v.users.values()),
                      key=lambda p: (self.key(p.handle), p.gateway))

    def find(self, handle: str) -> Present | None:
        """``handle`` (any case, by :attr:`key`) on another gateway, or None; should two
        list them (a session moving), the first gateway by name."""
        k = self.key(handle)
        views = self._fresh()
        for name in sorted(views):
            found = views[name].users.get(k)
            if found is not None:
                return found
        return None

    def online(self) -> frozenset[str] | None:
        """The keys of everyone logged in anywhere (the other gateways' users and
        ``local()``), or None while this process cannot know: until it has listened for
        :data:`EXPIRY` intervals since :meth:`start` or since NATS last reconnected, and
        while disconnected (a process that just started must not think everyone gone)."""
        since = self._listening_since
        if since is None or self.clock() - since < EXPIRY * self.interval:
            return None
        return frozenset([self.key(p.handle) for p in self.others()]
                         + [self.key(p.handle) for p in self.local()])

    async def wait_gone(self, handle: str, timeout: float) -> bool:
        """Wait until no other gateway lists ``handle`` (announcements are taken as they
        come; a silent gateway is forgotten on time): True once so, False if still listed
        after ``timeout`` seconds."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while (holder := self.find(handle)) is not None:
            remaining = deadline - loop.time()
            if remaining <= 0:
                return False
            view = self._views[holder.gateway]
            expires = view.heard + EXPIRY * view.interval - self.clock()
            try:
                await asyncio.wait_for(self._news.wait(), max(0.0, min(remaining, expires)))
            except TimeoutError:
                pass
        return True

    # ---------------------------------------------------------------- requests

    async def send_xmessage(self, handle: str, sender: str, text: str, sent_at: float,
                            notice: str | None = None) -> bool:
        """Deliver an X-message to ``handle`` on the gateway that holds them: ``sender``'s
        handle, ``text`` as given (the door cleans it before), ``sent_at`` Unix seconds,
        the door's ``notice`` code. True if that gateway's ``on_xmessage`` delivered it;
        False if no other gateway lists ``handle``, it does not answer within
        :attr:`timeout`, or its handler says False."""
        holder = self.find(handle)
        if holder is None:
            return False
        return await self._ask(holder.gateway, "xmessage",
                               XMessageRequest(holder.handle, sender, text, sent_at, notice))

    async def end_session(self, handle: str, message: str) -> bool:
        """End ``handle``'s session on the gateway that holds it (a login taking the
        handle over, a sysop's kick), telling them ``message``: True if its ``on_end``
        says it did, False as for :meth:`send_xmessage`. The user vanishes from
        :meth:`others` once that gateway announces again (:meth:`wait_gone`)."""
        holder = self.find(handle)
        if holder is None:
            return False
        return await self._ask(holder.gateway, "end", EndRequest(holder.handle, message))

    async def _ask(self, gateway: str, what: str, request: msgspec.Struct) -> bool:
        try:
            reply = await self.link.nc.request(request_subject(gateway, what),
                                               _encoder.encode(request), timeout=self.timeout)
        except (nats.errors.Error, TimeoutError, OSError) as err:
            log.warning("presence %s: %s request to %s failed: %s", self.name, what, gateway,
                        type(err).__name__)
            return False
        try:
            return _answer.decode(reply.data)
        except msgspec.DecodeError as err:
            log.warning("presence %s: bad answer from %s: %s", self.name, gateway, err)
            return False

    async def _on_xmessage(self, msg: Msg) -> None:
        self._spawn(self._serve(msg, "xmessage"), "an X-message request")

    async def _on_end(self, msg: Msg) -> None:
        self._spawn(self._serve(msg, "end"), "an end request")

    async def _serve(self, msg: Msg, what: str) -> None:
        """Answer one request: the handler's True, or False for bytes that are no request,
        no handler, a handler that fails or says anything but True."""
        done = False
        try:
            call: Callable[[], bool | Awaitable[bool]] | None
            if what == "xmessage":
                x = _xmessage.decode(msg.data)
                handler = self.on_xmessage
                call = None if handler is None else (
                    lambda: handler(x.handle, x.sender, x.text, x.sent_at, x.notice))
            else:
                e = _end.decode(msg.data)
                end = self.on_end
                call = None if end is None else (lambda: end(e.handle, e.message))
        except msgspec.DecodeError as err:
            self.received["bad"] += 1
            log.warning("presence %s: bad %s request: %s", self.name, what, err)
        else:
            self.received[what] += 1
            if call is not None:
                try:
                    result = call()
                    if inspect.isawaitable(result):
                        result = await result
                    done = result is True
                except Exception:
                    log.exception("presence %s: the %s handler failed", self.name, what)
        if msg.reply:
            try:
                await msg.respond(_encoder.encode(done))
            except Exception:
                log.exception("presence %s: answering a %s request failed", self.name, what)
