"""What the computer players need to know of one game kind: :class:`BotKind`.

The parts of ``bots/`` every kind shares (:class:`~bbspoker.bots.seats.TableBots` filling
seats, :class:`~bbspoker.bots.player.BotPlayer` playing one, the bot port of
:mod:`bbspoker.bots.remote`, ``bbspoker sim``) know no kind: they look the table's kind up
in :mod:`bbspoker.bots.kinds` and ask its :class:`BotKind`:

- its policies by name (what a table's ``bot_policy`` may say);
- the minimum CUBES a bot needs to sit (:meth:`BotKind.stake`: the ante, or the smallest
  buy-in), when the table is between games, when a seated bot is broke;
- whether its bots wait for people (:attr:`BotKind.waits_for_people`: a kind whose hands
  are dealt by the clock seats its bots sitting out while no person is there);
- how a bot observes the table (from the public snapshot and its own private cards),
  when it is its turn and how it acts (:meth:`BotKind.my_turn`, :meth:`BotKind.act`);
- its messages on the bot port (:class:`PortDialect`, ``None``: programs may not sit);
- how the simulator plays it (:meth:`BotKind.simulate`), and a hand of a tournament
  table (:meth:`BotKind.play_hand`).

Each kind's :class:`BotKind` is defined next to its own bot code (``bots/draw40/``,
``bots/holdem.py``, ``bots/schiebe.py``); the registry only lists them.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable, Collection, Hashable, Mapping, Sequence
from typing import Any, Generic, Protocol, TypeVar

from bbspoker.bots.sim import MAX_ACTIONS, HandPlay, SimResult
from bbspoker.rules import actions as act
from bbspoker.rules.actions import Action
from bbspoker.rules.cards import Card
from bbspoker.rules.events import Event
from bbspoker.table.service import TableService, TableSnapshot

__all__ = ["BotKind", "Decides", "Seated", "PortDialect"]

O = TypeVar("O")
O_contra = TypeVar("O_contra", contravariant=True)


class Decides(Protocol[O_contra]):
    """A policy of some kind: ``name`` as config, the simulator and [W]ho say it, and
    ``decide(observation, rng)``, the action to take now (its kind's observation type)."""

    name: str

    def decide(self, obs: O_contra, rng: random.Random) -> act.Action: ...


class Seated(Protocol):
    """What a kind's turn code uses of the bot it plays for
    (:class:`~bbspoker.bots.player.BotPlayer` is one): its table's ``service``, its
    ``handle``, ``policy``, ``rng`` and ``sleep``, what its subscription brought
    (``snapshot``, its own ``cards``, the kind's ``record`` of the game, see
    :meth:`BotKind.record`), ``humans()`` (the people seated), ``illegal`` (actions the
    rules refused: counted, must stay 0) and ``refused_at`` (the snapshot version at which
    the table refused an opening for now: the bot does not try again at that version)."""

    service: TableService
    handle: str
    policy: Any
    rng: random.Random
    sleep: Callable[[float], Awaitable[object]]
    snapshot: TableSnapshot
    cards: tuple[Card, ...]
    record: Any
    humans: Callable[[], Collection[str]]
    illegal: int
    refused_at: int | None


class PortDialect(Protocol):
    """A kind's numbered messages on the bot port (``docs/bot-protocol.md``); each
    method returns the lines to send (without the line end)."""

    def action(self, word: str, args: list[str], snap: TableSnapshot,
               handle: str) -> act.Action:
        """The typed action of ``11;word;args...``; raises ``ValueError`` saying what is
        wrong (sent as ``9;bad_action;...``)."""
        ...

    def game(self, snap: TableSnapshot) -> Hashable:
        """What marks one game: the players (``6;``) are sent whenever it changes."""
        ...

    def turn(self, snap: TableSnapshot, handle: str) -> tuple[Hashable, str] | None:
        """``handle``'s turn: (what its decision depends on, the ``1;`` line), ``None``
        when it has none. A turn is announced again only when the first changes."""
        ...

    def players(self, snap: TableSnapshot) -> list[str]:
        """The ``6;`` lines, one per seated player."""
        ...

    def state(self, snap: TableSnapshot) -> str:
        """The ``8;`` line."""
        ...

    def event(self, event: Event) -> list[str]:
        """The numbered lines an event of the table makes (e.g. ``7;`` a pot won)."""
        ...


class BotKind(Generic[O]):
    """One game kind as the computer players see it; a kind's module subclasses it and
    makes one instance, listed in :data:`bbspoker.bots.kinds.BOT_KINDS`.

    ``name`` is the kind's name in config (``[[tables]] game``); ``policies`` maps each
    policy name to a function making a fresh one (what ``bot_policy`` may say);
    ``waits_for_people``: hands are dealt by the clock, so the bots sit out while no
    person is at the table (they do not play each other for nobody); ``port``: its bot
    port messages, ``None`` if programs may not sit at its tables; ``sim_policies``: the
    seats ``bbspoker sim`` plays by default; ``to_system_note``: what the CUBES of a run
    that went to the system were (the simulator's report)."""

    name: str
    policies: Mapping[str, Callable[[], Decides[O]]]
    waits_for_people: bool = False
    port: PortDialect | None = None
    sim_policies: tuple[str, ...] = ()
    to_system_note: str = "pots nobody won went"

    def policy(self, name: str) -> Decides[O]:
        """A new policy called ``name``; raises ``ValueError`` listing the kind's names."""
        try:
            make = self.policies[name]
        except KeyError:
            raise ValueError(f"unknown policy {name!r} for {self.name} "
                             f"(known: {', '.join(self.policies)})") from None
        return make()

    # ------------------------------------------------------------ seating

    def stake(self, config: Any) -> int:
        """The CUBES a bot needs to sit at a table whose kind's config (its
        :class:`~bbspoker.rules.base.KindConfig`, ``TableSpec.config``) is ``config``: the
        ante here; a kind with stacks says its smallest buy-in."""
        return int(config.ante)

    def between_games(self, snap: TableSnapshot) -> bool:
        """No game is running at the table: bots may stand up and sit down."""
        raise NotImplementedError

    def broke(self, snap: TableSnapshot, handle: str, stake: int) -> bool:
        """Seated bot ``handle`` cannot play another game (between games): its CUBES are
        below ``stake``."""
        return snap.balances.get(handle, 0) < stake

    def sit_out(self, snap: TableSnapshot, handle: str, alone: bool) -> act.Action | None:
        """For a kind that :attr:`waits_for_people`: the action that makes seated bot
        ``handle`` sit out (``alone``: no person at the table) or come back; ``None``
        when its seat is as it should be."""
        return None

    # ------------------------------------------------------------ playing

    def record(self, handle: str) -> Any:
        """A fresh record of the running game for a bot ``handle`` (kept from the events
        of the table by :meth:`heard`); ``None`` for a kind whose bots need none."""
        return None

    def heard(self, bot: Seated, event: Event) -> None:
        """An event of the table reached ``bot`` (its subscription's)."""

    def observe(self, bot: Seated) -> O:
        """What ``bot``'s policy decides from: the public snapshot and its own cards."""
        raise NotImplementedError

    def my_turn(self, bot: Seated) -> bool:
        """``bot`` should act now (from its snapshot; sitting out or waiting is no turn)."""
        raise NotImplementedError

    async def act(self, bot: Seated) -> bool:
        """Decide and submit one action for ``bot`` (an action the table refuses is
        counted in ``bot.illegal`` and replaced by the kind's safe one); False when the
        table has closed."""
        raise NotImplementedError

    # ------------------------------------------------------------ simulating

    def play_hand(self, game: Any, policies: Mapping[str, Decides[O]], rng: random.Random,
                  now: float, seconds_per_action: float) -> HandPlay:
        """Deal the next hand of tournament table ``game`` when it falls due (at ``now`` or
        later) and play it to its end, each player deciding with ``policies[handle]``
        from :meth:`sim_view`, the table's clock moving ``seconds_per_action`` with each
        action (``bbspoker sim --tournament``). An action the table refuses is counted
        and replaced by :meth:`sim_fallback`. Raises ``ValueError`` for a kind whose
        computer players play no tournament (no :meth:`sim_view`), ``AssertionError``
        for a hand that does not end within :data:`~bbspoker.bots.sim.MAX_ACTIONS`."""
        out = HandPlay(now=now)
        due = game.deadline()
        if due is None:                          # fewer than two can play here
            return out
        now = max(now, due)
        events = game.tick(now)
        out.game_id = next((e.data["game_id"] for e in events
                            if e.kind in ("hand", "started") and "game_id" in e.data), None)
        seen = self.sim_start(game, events)
        while game.game_id is not None:
            handle = game.current
            assert handle is not None            # a hand in play has a player in turn
            view = self.sim_view(game, handle, now, seen)
            policy = policies[handle]
            action = policy.decide(view, rng)
            if type(action) not in view.legal or not game.can(handle, action, now):  # type: ignore[attr-defined]
                out.illegal += 1
                if len(out.examples) < 10:
                    out.examples.append(f"{getattr(policy, 'name', policy)}: {action!r}")
                action = self.sim_fallback(view)
            self.sim_heard(seen, game.apply(handle, action, now))
            out.actions += 1
            now += seconds_per_action
            if out.actions > MAX_ACTIONS:
                raise AssertionError(f"a tournament hand did not end in {MAX_ACTIONS} actions")
        out.now = now
        return out

    def sim_start(self, game: Any, events: Sequence[Event]) -> Any:
        """What the players of :meth:`play_hand` keep of a hand from its first events
        (draw40's public records); ``None`` for a kind whose view needs nothing."""
        return None

    def sim_heard(self, seen: Any, events: Sequence[Event]) -> None:
        """The events of an action reach what :meth:`sim_start` made."""

    def sim_view(self, game: Any, handle: str, now: float, seen: Any) -> O:
        """What ``handle``'s policy decides from at ``game`` (a rules object) now, its own
        cards only (the simulator's twin of :meth:`observe`). Raises ``ValueError`` for
        a kind whose computer players play no tournament."""
        raise ValueError(f"the computer players of {self.name} play no tournament")

    def sim_fallback(self, view: O) -> Action:
        """The safe action that replaces one the table refused: check or call."""
        return act.CheckCall()

    def simulate(self, policies: Sequence[Decides[O]], games: int, *, seed: int | None,
                 progress: Callable[[int], None] | None = None) -> SimResult:
        """Play ``games`` games between ``policies`` (one seat each) with the real rules on
        a memory wallet, without a clock; ``seed`` repeats a run. Raises ``ValueError``
        for a number of seats the kind does not allow, ``AssertionError`` if CUBES are
        not conserved."""
        raise NotImplementedError

