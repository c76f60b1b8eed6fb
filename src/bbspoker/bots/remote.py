"""The bot port's protocol (``docs/bot-protocol.md``): programs play at the
tables as bot accounts, one message per line ``ID;DATA``, as the Finnish network-poker
design's protocol ("Tietoliikenneprotokolla" in ``verkkopokeri-fi.txt``) has it, with cards
as its numbers (:func:`~bbspoker.rules.cards.network_number`).

A program acts through the same typed action path as every player
(:meth:`~bbspoker.table.service.TableService.call`) and sees what a player's screen shows:
its subscription to the table's bus carries the public snapshot, its own cards and the
news meant for it, never another player's hidden cards.

Server to program::

    0;text                      a line for people (table news, chat, greetings)
    1;actions[;min;max]         your turn: actions from start,bet,hands,pass,discard,reveal
                                (comma-separated); with bet/hands the bet range, with
                                discard the most cards you may discard
    2;n;n;n;n;n                 your cards (whenever they change; "2;" when you have none)
    6;handle;cubes;in           a player: CUBES and whether in the game (in/out)
    7;winner;pot                a game is over (winner empty: nobody, the pot went to the system)
    8;phase;round;pot;current;master;players   the table's state, then one 6; per player
    9;code;text                 refused or an error (the code is the rules' or the port's)
    16;handle;n;n;n;n;n         a hand revealed at the showdown

Program to server::

    10;handle;password          log in (a bot account with a password)
    11;start | 11;bet;N | 11;call | 11;check | 11;hands;N | 11;pass | 11;fold
    11;discard[;n;...] | 11;reveal          your action
    12;                         ask for the state (8; and 6; lines, then 2;)
    13;table[;buy_in]           sit at a table (its id, or its number in the lobby list;
                                at Hold'em with the CUBES to bring, default the most)
    14;                         leave the table

At a fixed-limit Hold'em table (the design's own game) the same messages mean:
``1;fold,call,raise;to_call;raise_to`` (your turn: the names of what you may do, the CUBES a
call costs, 0 for a check, and the total a bet or raise reaches, empty if you may not),
``2;n;n`` your hole cards, ``3;n`` a flop card (three lines), ``4;n`` the turn, ``5;n`` the
river (the design's 03-05), ``6;handle;stack;in`` with the stack at the table, ``7;handle;
CUBES`` a share of a pot won, ``8;street;;pot;current;button;players`` the state, ``16;
handle;n;n`` a hand shown; and ``11;fold``, ``11;check``/``11;call``, ``11;bet``/``11;raise``
(the fixed amount: no number) from the program.

The lines that depend on the game kind (``1;`` ``6;`` ``8;``, an action's words, the
numbered news of events) are the kind's :class:`~bbspoker.bots.kind.PortDialect`, looked up
in :mod:`bbspoker.bots.kinds`; a kind without one (Schiebe-Poker) refuses programs.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from bbspoker.bots.kind import PortDialect
from bbspoker.bots.kinds import BOT_KINDS
from bbspoker.rules import actions as act
from bbspoker.rules.cards import Card, network_number
from bbspoker.rules.events import Event, RuleError
from bbspoker.table.bus import Subscription
from bbspoker.table.registry import TableRef
from bbspoker.table.service import (ChatMessage, PrivateCards, TableMessage, TableAccess,
                                    TableSnapshot)

__all__ = ["RemoteHost", "LineChannel", "serve"]

log = logging.getLogger(__name__)



def _spoken() -> str:
    """The game kinds the protocol has messages for, as a sentence ("a, b and c")."""
    names = [k.name for k in BOT_KINDS.values() if k.port is not None]
    return " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)


class LineChannel(Protocol):
    """What the protocol needs of a connection (``bbspoker.transport.lines.LineSession``)."""

    address: str

    @property
    def closed(self) -> bool: ...

    async def read_line(self, timeout: float | None = None) -> str | None: ...
    def send(self, line: str) -> None: ...
    def close(self, last: str | None = None) -> None: ...
    def logged_in(self, handle: str) -> None: ...


class RemoteHost(Protocol):
    """What the protocol needs of the server (the composition root's ``App``):
    ``config``, ``ledger``, ``tables`` (the registry), ``guard`` (failed logins:
    :class:`bbspoker.door.guard.LoginGuard`), ``clock`` (its monotonic seconds),
    ``sleep``, ``verify_password``, ``describe(event, kind) -> (tag, text) | None`` (an
    event of a table of the game kind ``kind``, a code) and
    ``refusal(error, kind) -> text`` (the door's English, as the kind ``kind`` words it), and ``bot_pool`` (which bot
    accounts are in use)."""

    config: Any
    ledger: Any
    tables: Any
    guard: Any
    bot_pool: Any
    clock: Callable[[], float]
    sleep: Callable[[float], Awaitable[Any]]
    describe: Callable[[Event, str], tuple[str, str] | None]
    refusal: Callable[[RuleError, str], str]

    async def verify_password(self, stored: str, password: str) -> bool: ...


def _fields(line: str) -> tuple[int | None, list[str]]:
    head, _, rest = line.partition(";")
    try:
        number = int(head)
    except ValueError:
        return None, []
    return number, rest.split(";") if rest else []


async def serve(channel: LineChannel, host: RemoteHost) -> None:
    """One program's whole connection: the login, then its messages until it leaves."""
    channel.send("0;bbspoker bot port. Log in with 10;handle;password")
    handle = await _login(channel, host)
    if handle is None:
        return
    try:
        await _Player(channel, host, handle).run()
    finally:
        host.bot_pool.release(handle)


async def _login(channel: LineChannel, host: RemoteHost) -> str | None:
    """``10;handle;password`` until a bot account logs in (its handle) or the connection
    ends (``None``). A person's account is refused before its password is looked at: it
    costs no guess on the handle, so its owner is not slowed down at the door. A guess on
    a bot account holds its turn (``host.guard``) until it is decided or the connection
    ends, however it ends."""
    timeout = host.config.server.prelogin_timeout
    while True:
        line = await channel.read_line(timeout)
        if line is None:
            return None
        number, data = _fields(line)
        if number != 10 or len(data) != 2:
            channel.send("9;login_first;log in with 10;handle;password")
            continue
        name, password = data
        account = host.ledger.find_account(name)
        if account is not None and not account.bot:
            log.info("bot port: %s from %s refused: not a bot account", account.handle,
                     channel.address)
            await host.sleep(host.config.login.failure_delay)
            channel.send(f"9;not_a_bot;{account.handle} is not a bot account: people log "
                         f"in over telnet, SSH or the web page")
            continue
        try:
            turn = await host.guard.reserve_turn(channel.address, name,
                                                 host.clock() + timeout)
        except host.guard.Busy as busy:
            channel.send(f"9;busy;too many logins on this handle are waiting: try again "
                         f"in {max(1, round(busy.retry_after))} s")
            continue
        if turn is None:
            channel.close("9;locked;too many failed logins: try again later")
            return None
        locked = False
        try:
            await host.sleep(turn.wait)
            stored = host.ledger.password_hash(name) if account is not None else None
            right = account is not None and account.bot and not account.banned \
                and stored is not None and await host.verify_password(stored, password)
            if right:
                turn.succeeded()
            else:
                locked = turn.failed()
        finally:
            turn.release()
        if right and account is not None:
            if not host.bot_pool.reserve(account.handle):
                channel.send(f"9;in_use;{account.handle} is playing already")
                continue
            channel.logged_in(account.handle)
            log.info("bot port: %s logged in from %s", account.handle, channel.address)
            channel.send(f"0;Welcome, {account.handle}. Sit with 13;table.")
            channel.send(f"6;{account.handle};{account.cubes};out")
            return account.handle
        await host.sleep(host.config.login.failure_delay)
        if locked:
            channel.close("9;locked;too many failed logins: try again later")
            return None
        channel.send("9;login_failed;wrong handle or password, or not a bot account")


class _Player:
    """A logged-in program: its table (if seated) and what it has been told."""

    def __init__(self, channel: LineChannel, host: RemoteHost, handle: str) -> None:
        self.channel, self.host, self.handle = channel, host, handle
        self.entry: TableRef | None = None
        self.sub: Subscription | None = None
        self.dialect: PortDialect | None = None        # the table's kind's messages
        self.offered: Any = None      # what the turn last announced (1;) depended on
        self.phase: Any = None        # the game last announced (6;)

    @property
    def service(self) -> TableAccess:
        assert self.entry is not None
        return self.entry.service

    async def run(self) -> None:
        try:
            while True:
                line = await self.channel.read_line(self.host.config.server.lobby_idle_timeout)
                if line is None:
                    return
                await self._message(line)
        finally:
            await self._leave("lost_connection")

    async def _message(self, line: str) -> None:
        number, data = _fields(line)
        send = self.channel.send
        if number == 11:
            if self.entry is None:
                send("9;not_seated;sit with 13;table first")
                return
            try:
                action = self._action(data)
            except ValueError as err:
                send(f"9;bad_action;{err}")
                return
            game = self.entry.spec.game          # the kind that words a refusal
            try:
                await self.service.call(self.handle, action)
            except RuleError as err:
                send(f"9;{err.code};{self.host.refusal(err, game)}")
                if err.code == "wait":        # the pause between games: offer it again after
                    asyncio.get_running_loop().call_later(
                        float(err.params.get("seconds", 1)), self._offer_again)
        elif number == 12:
            self._state()
        elif number == 13:
            await self._sit(data[0] if data else "", data[1].strip() if len(data) > 1 else "")
        elif number == 14:
            await self._leave("left")
            send("0;You left the table.")
        elif number == 10:
            send("9;logged_in;you are logged in already")
        else:
            send(f"9;unknown;unknown message {line[:20]!r} (see docs/bot-protocol.md)")

    def _action(self, data: list[str]) -> act.Action:
        """The typed action of an ``11;`` message; ValueError says what is wrong."""
        if not data:
            raise ValueError("11; needs an action")
        word, args = data[0].strip().lower(), data[1:]
        assert self.dialect is not None
        return self.dialect.action(word, args, self.service.snapshot, self.handle)

    async def _sit(self, which: str, buy_in: str = "") -> None:
        if self.entry is not None:
            self.channel.send("9;already_seated;leave with 14; first")
            return
        tables = self.host.tables
        entry = tables.by_number(int(which)) if which.isdigit() else None
        if entry is None:
            entry = next((e for e in tables if e.id == which), None)
        if entry is None:
            self.channel.send(f"9;no_table;there is no table {which[:24]!r}")
            return
        kind = BOT_KINDS.get(entry.spec.game)
        if kind is None or kind.port is None:          # the protocol has no messages for it
            self.channel.send(f"9;wrong_game;the bot protocol plays {_spoken()} "
                              f"tables, {entry.id} is {entry.spec.game}")
            return
        if buy_in and not buy_in.isdigit():
            self.channel.send("9;bad_action;13;table;N takes a whole number of CUBES")
            return
        service = entry.service
        service.mark_bot(self.handle)
        try:
            await service.call(self.handle, act.Sit(buy_in=int(buy_in) if buy_in else None))
        except RuleError as err:
            service.mark_bot(self.handle, False)
            self.channel.send(f"9;{err.code};{self.host.refusal(err, entry.spec.game)}")
            return
        self.entry, self.dialect = entry, kind.port
        self.sub = service.bus.subscribe(notify=self._on_bus, viewer=self.handle,
                                         on_overflow=lambda: self.channel.close(
                                             "9;too_slow;you fell too far behind the table"))
        service.attach(self.handle)
        self.channel.send(f"0;You sit at {entry.name}.")
        self._state()

    async def _leave(self, reason: str) -> None:
        if self.entry is None:
            return
        service, self.entry = self.service, None
        if self.sub is not None:
            self.sub.close()
            self.sub = None
        service.detach(self.handle)
        try:
            await service.call(self.handle, act.Leave(reason))
        except RuleError:
            pass
        service.mark_bot(self.handle, False)
        self.offered = self.phase = self.dialect = None

    # ------------------------------------------------------------ to the program

    def _on_bus(self) -> None:
        """Items from the table, in the table's step: each becomes lines."""
        if self.sub is None:
            return
        for item in self.sub.drain():
            if isinstance(item, TableSnapshot):
                self._snapshot(item)
            elif isinstance(item, TableMessage):
                self._event(item.event)
            elif isinstance(item, PrivateCards):
                self._cards(item.cards)
            elif isinstance(item, ChatMessage):
                self.channel.send(f"0;{item.handle}: {item.text}")

    def _event(self, event: Event) -> None:
        if event.to is not None and event.to.lower() != self.handle.lower():
            return
        assert self.entry is not None              # events come from the table it sits at
        line = self.host.describe(event, self.entry.spec.game)
        if line is not None:
            self.channel.send(f"0;{line[1]}")
        if self.dialect is not None:
            for numbered in self.dialect.event(event):
                self.channel.send(numbered)

    def _cards(self, cards: tuple[Card, ...]) -> None:
        self.channel.send("2;" + ";".join(str(network_number(str(c))) for c in cards))

    def _snapshot(self, snap: TableSnapshot) -> None:
        if snap.seat_of(self.handle) is None:          # removed by the table
            self.channel.send("0;You are no longer seated.")
            asyncio.get_running_loop().create_task(self._leave("removed"))
            return
        dialect = self.dialect
        if dialect is None:
            return
        game = dialect.game(snap)
        if game != self.phase:
            self._players(snap)
        self.phase = game
        turn = dialect.turn(snap, self.handle)
        if turn is None:
            self.offered = None
            return
        key, line = turn
        if key == self.offered:
            return
        self.offered = key
        self.channel.send(line)

    def _offer_again(self) -> None:
        if self.entry is not None and not self.channel.closed:
            self.offered = None
            self._snapshot(self.service.snapshot)

    def _players(self, snap: TableSnapshot) -> None:
        assert self.dialect is not None
        for line in self.dialect.players(snap):
            self.channel.send(line)

    def _state(self) -> None:
        if self.entry is None or self.dialect is None:
            cubes = self.host.ledger.balance(self.handle)
            self.channel.send("8;idle;;;;;0")
            self.channel.send(f"6;{self.handle};{cubes};out")
            return
        snap = self.service.snapshot
        self.channel.send(self.dialect.state(snap))
        self._players(snap)
        self._cards(self.service.cards_of(self.handle))
        self.offered, self.phase = None, self.dialect.game(snap)
        self._snapshot(snap)
