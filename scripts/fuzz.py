#!/usr/bin/env python3
"""Fuzz the telnet, key and chat paths of the real server while a table plays (issue 5).

The server runs in this process on an ephemeral port with a fresh ledger in a
temporary directory. Three well-behaved players (alice, bob, carol) sit at
the table and play games one after another (calls, discards, see hands,
reveal) and chat, while hostile connections send seeded random and mutated
input: raw bytes, IAC sequences (unterminated subnegotiations included),
subnegotiations near and past the server's cap on their length, escape sequences, huge and malformed NAWS, invalid UTF-8, forbidden code
points, long lines and key storms. Some hostile connections stay at the
``Handle:`` prompt, some log in, some sit at the table and fuzz its keys and
its chat line.

Usage::

    scripts/fuzz.py --count 100000          # stop after this many inputs
    scripts/fuzz.py --seconds 300           # or after this long
    scripts/fuzz.py --seed 7 --count 5000   # reproduce a run

It prints the inputs sent (per kind), the hostile connections and how they
ended, and what the good players did meanwhile, then checks that the table
still serves (a chat arrives, a bet is accepted), that no session was leaked
and that ``ledger verify`` passes; exit status 1 if anything failed.
``tests/e2e/test_fuzz.py`` runs :func:`fuzz` once with 10,000 inputs.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import random
import re
import struct
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bbspoker.app import Server  # noqa: E402
from bbspoker.rules import actions as act  # noqa: E402
from tests.support.telnetclient import (DO, DONT, IAC, NAWS, SB, SE, TTYPE, WILL, WONT,  # noqa: E402
                                FakeClock, TelnetClient, running_server)

__all__ = ["hostile_inputs", "GoodTable", "FuzzResult", "fuzz", "FUZZ_CONFIG", "GOOD_HANDLES",
           "no_sleep", "main"]

#: Config sections for a fuzz server: no lockouts or login delays (every hostile
#: connection comes from 127.0.0.1 and would lock the address out at once), no
#: pause between games, and a burst large enough that most hostile input is parsed
#: rather than cut off by the rate limit (the test clock only moves when a turn is skipped).
FUZZ_CONFIG = {
    "login": {"failure_delay": 0, "max_failures": 1_000_000},
    "server": {"max_per_address": 64},
    "table": {"between_games": 0},
    "input": {"rate_burst_bytes": 64 * 1024},
}
#: The well-behaved players.
GOOD_HANDLES = ("alice", "bob", "carol")

_BAD_UTF8 = [b"\x80", b"\xbf", b"\xc0\xaf", b"\xc3\x28", b"\xe2\x82", b"\xed\xa0\x80",
             b"\xf0\x9f", b"\xf4\x90\x80\x80", b"\xf8\x88\x80\x80\x80", b"\xfe", b"\xc1\xbf",
             b"\xe0\x80\xaf", b"\xef\xbf\xbe"]
#: Code points that must never reach another screen (issue 5), as UTF-8.
_FORBIDDEN = [chr(c).encode() for c in (*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0),
                                        *range(0x202A, 0x202F), *range(0x2066, 0x206A),
                                        *range(0x200B, 0x2010), *range(0x2060, 0x2070),
                                        0x2028, 0x2029, 0xFEFF, 0xE000, 0xFFFF)]
_ESCAPES = [b"\x1b[2J", b"\x1b[H", b"\x1b[31m", b"\x1b]0;pwned\x07", b"\x1b]8;;http://x\x1b\\",
            b"\x1bP+q\x1b\\", b"\x1b[6n", b"\x1bc", b"\x1b[?1049h", b"\x1b(0", b"\x9b2J",
            b"\x1b[" + b"9" * 40 + b"m", b"\x1b[1;1H\x1b[0K", b"\x1bOA", b"\x1b[A", b"\x1b"]
_KEYS = b"pPyYnNsSbBhHxXdDrRwWqQ.12345 \r\n\x08\x7f\x1b\x00\t\x03"
#: Valid dialogues the mutator starts from: login, new user, menu, table commands, chat.
_CORPUS = [b"mallory\r", b"y", b"pw-mallory\rpw-mallory\r", b"p", b"y", b"s", b"b25\r",
           b"h\r", b"d", b"123d", b"r", b". hello table\r", b"xy", b"w ", b"xmallory\rhi\r ",
           b"r ", b"h ", b"q", b"\xff\xfa\x1f\x00\x50\x00\x18\xff\xf0",
           b"\xff\xfa\x18\x00xterm\xff\xf0", b"\xff\xfd\x01", b"\xff\xfb\x1f"]


def _sb(option: int, payload: bytes, *, close: bool = True) -> bytes:
    return bytes([IAC, SB, option]) + payload + (bytes([IAC, SE]) if close else b"")


def _iac(rng: random.Random) -> bytes:
    pick = rng.randrange(6)
    if pick == 0:
        return bytes([IAC, rng.choice([DO, DONT, WILL, WONT]), rng.randrange(256)])
    if pick == 1:
        return bytes([IAC, rng.randrange(256)])
    if pick == 2:
        return _sb(rng.randrange(256), rng.randbytes(rng.randrange(40)))
    if pick == 3:                                       # never closed
        return _sb(rng.randrange(256), rng.randbytes(rng.randrange(200)), close=False)
    if pick == 4:
        return bytes([IAC, SE]) * rng.randint(1, 3) + bytes([IAC, IAC]) * rng.randint(0, 3)
    return _sb(TTYPE, bytes([0]) + rng.randbytes(rng.randrange(80)))


def _naws(rng: random.Random) -> bytes:
    cols, rows = (rng.choice([0, 1, 39, 80, 255, 999, 1000, 65535, rng.randrange(65536)])
                  for _ in range(2))
    payload = struct.pack("!HH", cols, rows)
    pick = rng.randrange(4)
    if pick == 0:
        payload = payload.replace(b"\xff", b"\xff\xff")   # properly escaped
    elif pick == 1:
        payload = payload[:rng.randrange(4)]             # too short
    elif pick == 2:
        payload += rng.randbytes(rng.randint(1, 20))      # too long
    return _sb(NAWS, payload)


def _mutate(rng: random.Random, data: bytes) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        pick = rng.randrange(4)
        pos = rng.randrange(len(out) + 1)
        if pick == 0 and out:
            out[min(pos, len(out) - 1)] ^= 1 << rng.randrange(8)
        elif pick == 1:
            out[pos:pos] = rng.randbytes(rng.randint(1, 4))
        elif pick == 2 and out:
            del out[pos:pos + rng.randint(1, 3)]
        else:
            out[pos:pos] = out[:pos][-rng.randint(1, 8):]
    return bytes(out)


def hostile_inputs(rng: random.Random) -> Iterator[tuple[str, bytes]]:
    """Endless ``(kind, data)`` pairs of hostile input, one "input" each, from ``rng``.

    Kinds: ``bytes`` (random bytes), ``iac`` (telnet commands, subnegotiations
    closed or never closed, TTYPE garbage), ``naws`` (sizes 0-65535, short,
    long, unescaped 0xFF), ``escape`` (CSI, OSC, DCS, C1 CSI, over-long
    parameters), ``utf8`` (invalid UTF-8), ``forbidden`` (C0, DEL, C1, bidi
    and zero-width code points inside text), ``chat`` (a chat line full of
    the previous kinds), ``keys`` (a storm of the door's command keys),
    ``long`` (a line of 5,000-7,000 bytes without CR/LF, past the 6,000-byte
    limit half of the time), ``sblong`` (a subnegotiation of 3,000-5,000 bytes,
    TTYPE or any option, closed or not: past the 4,096-byte ``[input]
    subnegotiation_bytes`` about half of the time), ``mutated`` (a valid dialogue with bytes
    flipped, inserted, deleted or repeated).
    """
    kinds = ["bytes", "iac", "naws", "escape", "utf8", "forbidden", "chat", "keys", "mutated",
             "long", "sblong"]
    weights = [20, 14, 8, 12, 10, 10, 8, 10, 12, 0.3, 0.3]
    while True:
        kind = rng.choices(kinds, weights)[0]
        if kind == "bytes":
            data = rng.randbytes(rng.randint(1, 64))
        elif kind == "iac":
            data = _iac(rng)
        elif kind == "naws":
            data = _naws(rng)
        elif kind == "escape":
            data = b"".join(rng.choices(_ESCAPES, k=rng.randint(1, 4)))
        elif kind == "utf8":
            data = b"x".join(rng.choices(_BAD_UTF8, k=rng.randint(1, 6)))
        elif kind == "forbidden":
            data = b"a".join(rng.choices(_FORBIDDEN, k=rng.randint(1, 8)))
        elif kind == "chat":
            parts = rng.choices(_ESCAPES + _FORBIDDEN + _BAD_UTF8 + [b"evil", b"\xe2\x80\xae"],
                                k=rng.randint(1, 10))
            data = b". " + b"".join(parts) + b"\r"
        elif kind == "keys":
            data = bytes(rng.choices(_KEYS, k=rng.randint(10, 200)))
        elif kind == "long":
            data = b"L" * rng.randint(5000, 7000)
        elif kind == "sblong":
            data = _sb(rng.choice([TTYPE, rng.randrange(256)]), b"S" * rng.randint(3000, 5000),
                       close=rng.random() < 0.5)
        else:
            data = _mutate(rng, rng.choice(_CORPUS))
        yield kind, data


async def no_sleep(_seconds: float) -> None:
    """The server's injectable ``sleep`` for fuzzing: no failed-login delay."""
    await asyncio.sleep(0)


async def _until(cond, timeout: float, what: str) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not cond():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)


def _pot_on_screen(c: TelnetClient) -> str | None:
    m = re.search(r"Pot \.+ (.*?)\s*\|", c.text)
    return m.group(1).replace(",", "") if m else None


def _state(snap, handle: str) -> tuple:
    return (snap.view.phase, snap.current, snap.pot, snap.view.round, snap.actions.get(handle))


#: The key each table command is given by, and the command-area text that offers it.
_KEY_FOR = {act.Start: ("s", "[S] Open the game"), act.SeeHands: ("h\r", "[H] See hands!"),
            act.Bet: ("b\r", "[B] Place bet"), act.Discard: ("d", "[D] Done"),
            act.Reveal: ("r", "[R] Reveal hand")}


@dataclass
class GoodTable:
    """Three well-behaved players at the table, driven through their telnet clients.

    :meth:`step` makes whoever must act act (calls with Enter, no discards,
    asks to see hands at round 3, reveals), then waits until every good
    screen shows the new pot; when a hostile player holds the turn or the
    game-master privilege, it moves the fake clock past that deadline so the
    table's own timeout moves the game on. :meth:`chat` sends a numbered chat
    line and waits until the other good screens show it. Counts: ``actions``
    (commands accepted by the table), ``bets``, ``games`` (started),
    ``chats`` (delivered to both other screens), ``skips`` (clock moves).
    """

    server: Server
    clock: FakeClock
    clients: dict[str, TelnetClient]
    timeout: float = 10.0
    actions: int = 0
    bets: int = 0
    games: int = 0
    chats: int = 0
    skips: int = 0

    @classmethod
    async def seat(cls, server: Server, clock: FakeClock) -> GoodTable:
        """Log in :data:`GOOD_HANDLES`, seat them all (alice first: the game-master)."""
        clients = {}
        for handle in GOOD_HANDLES:
            c = await TelnetClient.connect(server.port)
            await c.login(handle, "pw-" + handle)
            await c.send("p")
            await c.wait_for("Join the table? (y/n)")
            await c.send("y")
            await c.wait_for("[X] Exit the game")
            clients[handle] = c
        return cls(server, clock, clients)

    async def close(self) -> None:
        """Close the good players' connections."""
        for c in self.clients.values():
            await c.close()

    async def step(self) -> None:
        """One table action by a good player, or one timeout of a hostile player's turn."""
        service = self.server.app.tables["poker"].service
        snap = service.snapshot
        actor = next(((h, a) for h, a in snap.actions.items() if a), None)
        if actor is None or actor[0] not in self.clients:
            due = service.table.deadline()
            if due is None:
                raise AssertionError(f"the table is stuck: {snap}")
            self.clock.now = max(self.clock.now, due + 0.01)
            service.wake()
            self.skips += 1
            await _until(lambda: service.snapshot.version != snap.version, self.timeout,
                         "the table to apply a timeout")
            return
        handle, acts = actor
        action = next(a for a in (act.Start, act.SeeHands, act.Bet, act.Discard, act.Reveal)
                      if a in acts)
        keys, offer = _KEY_FOR[action]
        c = self.clients[handle]
        await c.wait_for(offer, self.timeout)
        await c.send(keys)
        before = _state(snap, handle)
        await _until(lambda: _state(service.snapshot, handle) != before, self.timeout,
                     f"{handle}'s {action.__name__} to be applied")
        self.actions += 1
        self.bets += action in (act.Bet, act.SeeHands)
        self.games += action is act.Start
        pot = service.snapshot.pot
        shown = "NO GAME" if pot is None else str(pot)
        for other in self.clients.values():
            await _until(lambda: _pot_on_screen(other) == shown or service.snapshot.pot != pot,
                         self.timeout, f"the pot {shown} on every good screen")

    async def chat(self, sender: str, text: str) -> None:
        """``sender`` chats ``text``; returns once both other good players were sent its
        line. (Their screens may have scrolled it away already: hostile chatters at the
        table can send ten lines before a client looks at its screen again.)"""
        c = self.clients[sender]
        await c.send(". " + text + "\r")
        for handle, other in self.clients.items():
            if handle != sender:
                # The tag and the text are drawn in different colours: the text alone
                # (unique to this line) is in the output without a sequence inside it.
                await other.wait_for_received(text, self.timeout)
        self.chats += 1


@dataclass
class FuzzResult:
    """What a :func:`fuzz` run did: ``inputs`` sent (and per kind), hostile
    ``connections`` and their ``outcomes`` (still ``open`` when the fuzzer hung
    up, or ended by the server: the reason it gave), the :class:`GoodTable` counts
    meanwhile, and ``problems`` (empty when every check passed)."""

    inputs: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    connections: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    modes: Counter[str] = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)
    good: GoodTable | None = None


async def _quiet(c: TelnetClient, settle: float = 0.15, limit: float = 3.0) -> None:
    """Wait until the server has stopped sending to ``c`` (or hung up)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + limit
    seen = -1
    while not c.eof.is_set() and len(c.received) != seen and loop.time() < end:
        seen = len(c.received)
        await asyncio.sleep(settle)


#: How the server says goodbye, by the reason shown in the outcome counts.
_ENDINGS = {"line too long": "Input line longer", "input too fast": "Input faster",
            "subnegotiation too long": "Telnet subnegotiation longer",
            "quit": "Goodbye, come back soon!", "closed": ""}


def _ending(c: TelnetClient) -> str:
    if not c.eof.is_set():
        return "open"
    tail = bytes(c.received[-300:]).decode("utf-8", "replace")
    return next(reason for reason, text in _ENDINGS.items() if text in tail)


async def _hostile(server: Server, rng: random.Random, number: int, inputs: list[tuple[str, bytes]],
                   result: FuzzResult) -> None:
    """One hostile connection: get to a random place (prompt, menu, table), send ``inputs``."""
    mode = rng.choices(["raw", "prompt", "lobby", "table"], [2, 3, 2, 3])[0]
    result.modes[mode] += 1
    c = await TelnetClient.connect(server.port, negotiate=rng.random() < 0.9,
                                   cols=rng.choice([80, 0, 1, 65535]),
                                   rows=rng.choice([24, 0, 2, 65535]),
                                   term=rng.choice(["xterm", "syncterm", "\x1b[2J", "x" * 300]))
    try:
        if mode != "raw":
            await c.wait_for("Handle:")
        if mode in ("lobby", "table"):
            await c.login(f"fz{number}", "pw-fuzz-1")
        if mode == "table":
            await c.send("p")
            await _until(lambda: "(y/n)" in c.text or "seats are taken" in c.text, 10,
                         "the table's answer")
            await c.send("y")
        for kind, data in inputs:
            if c.eof.is_set():
                break
            await c.send_raw(data)
            result.inputs += 1
            result.kinds[kind] += 1
        await _quiet(c)
        result.outcomes[_ending(c)] += 1
        for bad in (b"Traceback", b"something went wrong"):
            if bad in c.received:
                result.problems.append(f"hostile connection {number} ({mode}) received {bad!r}")
    finally:
        await c.close()
        result.connections += 1


async def fuzz(server: Server, clock: FakeClock, *, count: int | None = None,
               seconds: float | None = None, seed: int = 1, per_connection: int = 250,
               parallel: int = 6, log=print) -> FuzzResult:
    """Fuzz ``server`` (started with :data:`FUZZ_CONFIG`, ``clock`` and :func:`no_sleep`)
    until ``count`` inputs were sent or ``seconds`` passed (at least one of them).

    Meanwhile the :data:`GOOD_HANDLES` play and chat at the table; afterwards a
    chat and a bet are checked once more, the hostile sessions must all be gone
    (sessions, connection counts, seats) and ``ledger.verify()`` must pass.
    Returns a :class:`FuzzResult`; ``result.problems`` lists what failed.
    """
    if count is None and seconds is None:
        raise ValueError("give count or seconds")
    rng = random.Random(seed)
    gen = hostile_inputs(rng)
    result = FuzzResult()
    table = await GoodTable.seat(server, clock)
    stop = asyncio.Event()
    started = time.monotonic()

    def done() -> bool:
        return ((count is not None and result.inputs >= count)
                or (seconds is not None and time.monotonic() - started >= seconds))

    async def players() -> None:
        n = 0
        while not stop.is_set():
            await table.step()
            n += 1
            if n % 5 == 0:
                await table.chat(GOOD_HANDLES[n % 3], f"chat-{n}-ok")

    async def attackers() -> None:
        number = 0
        pending: set[asyncio.Task[None]] = set()
        while not done() or pending:
            while not done() and len(pending) < parallel:
                number += 1
                batch = [next(gen) for _ in range(rng.randint(per_connection // 2,
                                                              per_connection * 3 // 2))]
                sub = random.Random(rng.random())
                pending.add(asyncio.create_task(_hostile(server, sub, number, batch, result)))
            finished, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            for task in finished:
                if task.exception() is not None:
                    result.problems.append(f"hostile connection failed: {task.exception()!r}")
            if number % 10 == 0 and finished:
                log(f"  {result.inputs:,} inputs, {result.connections} connections, "
                    f"{table.games} games, {table.bets} bets, {table.chats} chats")

    play = asyncio.create_task(players())
    try:
        await attackers()
        stop.set()
        await play
        # After the storm: a chat still arrives and a bet is still accepted.
        await table.chat("bob", "after-the-storm")
        bets = table.bets
        while table.bets == bets:
            await table.step()
        app = server.app
        await _until(lambda: len(app.sessions) == len(GOOD_HANDLES), 10, "hostile sessions to end")
        # A connection is counted off when its socket is lost, which can come a loop turn
        # or two after its session ended: give the counts a moment to settle.
        with contextlib.suppress(AssertionError):
            await _until(lambda: app.limits.total == len(GOOD_HANDLES)
                         and not app.limits.prelogin, 2, "connection counts to settle")
        if app.limits.total != len(GOOD_HANDLES) or app.limits.prelogin:
            result.problems.append(f"connection counts leaked: total {app.limits.total}, "
                                   f"pre-login {dict(app.limits.prelogin)}")
        if sorted(app.tables["poker"].service.table.handles) != sorted(GOOD_HANDLES):
            result.problems.append(f"seats: {app.tables['poker'].service.table.handles}")
        result.problems += app.ledger.verify()
    except AssertionError as exc:
        result.problems.append(str(exc))
    finally:
        stop.set()
        if not play.done():
            play.cancel()
        with contextlib.suppress(BaseException):
            await play
        if play.done() and not play.cancelled() and play.exception() is not None:
            result.problems.append(f"the good players failed: {play.exception()}")
        await table.close()
    result.good = table
    return result


def report(result: FuzzResult, elapsed: float | None = None) -> str:
    """The figures of a run as printed by :func:`main` (``elapsed`` seconds, if given)."""
    good = result.good
    assert good is not None
    took = "" if elapsed is None else f" in {elapsed:.0f} s"
    lines = [f"inputs sent: {result.inputs:,}{took} over {result.connections} hostile connections",
             "  per kind: " + ", ".join(f"{k} {n:,}" for k, n in result.kinds.most_common()),
             "  connections by place: " + ", ".join(f"{k} {n}" for k, n in result.modes.items()),
             "  outcome: " + ", ".join(f"{k} {n}" for k, n in result.outcomes.items()),
             f"good players meanwhile: {good.games} games started, {good.bets} bets, "
             f"{good.actions} actions, {good.chats} chats delivered, {good.skips} hostile "
             "turns timed out",
             "problems: " + ("none" if not result.problems else "; ".join(result.problems))]
    return "\n".join(lines)


class _Errors(logging.Handler):
    """Keeps every log record at ERROR or above (a traceback in the server is a finding)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


async def _main(args: argparse.Namespace) -> int:
    clock = FakeClock()
    errors = _Errors()
    logging.getLogger().addHandler(errors)
    with tempfile.TemporaryDirectory() as tmp:
        async with running_server(Path(tmp), clock=clock, sleep=no_sleep, **FUZZ_CONFIG) as server:
            started = time.monotonic()
            result = await fuzz(server, clock, count=args.count, seconds=args.seconds,
                                seed=args.seed)
            result.problems += [f"logged {r.levelname}: {r.getMessage()}" for r in errors.records]
            print(report(result, time.monotonic() - started))
    return 1 if result.problems else 0


def main(argv: list[str] | None = None) -> int:
    """Command line: ``--count N``, ``--seconds S`` (default 60 if neither), ``--seed``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, help="stop after this many inputs")
    parser.add_argument("--seconds", type=float, help="stop after this many seconds")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    args = parser.parse_args(argv)
    if args.count is None and args.seconds is None:
        args.seconds = 60.0
    logging.basicConfig(level=logging.ERROR, format="%(levelname)s %(name)s: %(message)s")
    return asyncio.run(_main(args))


if __name__ == "__main__":
    sys.exit(main())
