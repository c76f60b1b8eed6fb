"""What a screen asks of a table, as values, and what the table answers: the table's side
of the wire (:mod:`bbspoker.table.codec` writes and reads them).

Each command stands for one of :class:`~bbspoker.table.service.TableService`'s methods a
screen or a bot calls (:class:`Act`: ``submit``/``call``; :class:`Chat`, :class:`Watch`,
:class:`Unwatch`, :class:`Attach`, :class:`Detach`, :class:`Touch`, :class:`MarkBot`;
the queries :class:`CardsOf`, :class:`Recent`, :class:`Look`), and :func:`perform` carries
one out on a service and returns the reply: :class:`Done`, :class:`Refused` (a
:class:`~bbspoker.rules.events.RuleError`'s code and figures), the player's
:class:`~bbspoker.table.service.PrivateCards`, :class:`RecentItems` or the
:class:`~bbspoker.table.service.TableSnapshot`. The server does not send them anywhere
yet: the screens call the service in-process.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bbspoker.rules import actions as act
from bbspoker.rules.events import RuleError
from bbspoker.text import clean_text

if TYPE_CHECKING:
    from bbspoker.table.service import PrivateCards, TableService, TableSnapshot

__all__ = ["Act", "Chat", "Watch", "Unwatch", "Attach", "Detach", "Touch", "MarkBot",
           "CardsOf", "Recent", "Look", "Done", "Refused", "RecentItems", "Command",
           "WIRE_TYPES", "perform"]


@dataclass(frozen=True, slots=True)
class Act:
    """``handle``'s ``action`` (a :class:`~bbspoker.rules.actions.Action` of the table's
    kind or the table's own; ``handle`` ``None``: the server's, e.g. ``Cancel``), with the
    ``turn`` ``(current, deadline)`` of the snapshot it was made on (``None``: no check),
    as :meth:`TableService.submit` takes them. Raises ``TypeError`` if ``action`` is not
    an action."""

    handle: str | None
    #: The action (annotated ``Any``: its type is told on the wire, whatever its kind).
    action: Any
    turn: tuple[str | None, float | None] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.action, act.Action):
            raise TypeError(f"not a table action: {self.action!r}")


@dataclass(frozen=True, slots=True)
class Chat:
    """A chat line ``text`` typed at the table by ``handle`` (cleaned again by
    :func:`perform`: what reaches the other screens holds no control sequence)."""

    handle: str
    text: str


@dataclass(frozen=True, slots=True)
class Watch:
    """``handle`` watches the table as a spectator."""

    handle: str


@dataclass(frozen=True, slots=True)
class Unwatch:
    """``handle`` stopped watching (and no longer waits for a seat)."""

    handle: str


@dataclass(frozen=True, slots=True)
class Attach:
    """A screen of seated ``handle`` is up."""

    handle: str


@dataclass(frozen=True, slots=True)
class Detach:
    """That screen of ``handle`` is gone."""

    handle: str


@dataclass(frozen=True, slots=True)
class Touch:
    """``handle`` pressed a key at the table (not idle)."""

    handle: str


@dataclass(frozen=True, slots=True)
class MarkBot:
    """``handle`` is a computer player (``bot``) or no longer one."""

    handle: str
    bot: bool = True


@dataclass(frozen=True, slots=True)
class CardsOf:
    """Query: the private cards last sent to ``handle`` (reply: ``PrivateCards``)."""

    handle: str


@dataclass(frozen=True, slots=True)
class Recent:
    """Query: the table's last public messages (reply: :class:`RecentItems`)."""


@dataclass(frozen=True, slots=True)
class Look:
    """Query: the table's snapshot now (reply: ``TableSnapshot``)."""


@dataclass(frozen=True, slots=True)
class Done:
    """Reply: the command was carried out."""


@dataclass(frozen=True, slots=True)
class Refused:
    """Reply: the rules (or the table) refused the action: the
    :class:`~bbspoker.rules.events.RuleError`'s ``code`` and ``params`` (the figures its
    message needs, e.g. ``low`` and ``high`` CUBES)."""

    code: str
    params: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, err: RuleError) -> Refused:
        """The reply of refusal ``err``."""
        return cls(err.code, dict(err.params))

    def error(self) -> RuleError:
        """The refusal as the :class:`~bbspoker.rules.events.RuleError` the service raised."""
        return RuleError(self.code, **self.params)


@dataclass(frozen=True, slots=True)
class RecentItems:
    """Reply to :class:`Recent`: the ``TableMessage`` s and ``ChatMessage`` s, oldest
    first (annotated ``Any``: each one's type is told on the wire)."""

    items: tuple[Any, ...] = ()


Command = Act | Chat | Watch | Unwatch | Attach | Detach | Touch | MarkBot | CardsOf | Recent \
    | Look

#: Every command and reply type of this module (the codec's registry takes them).
WIRE_TYPES: tuple[type, ...] = (Act, Chat, Watch, Unwatch, Attach, Detach, Touch, MarkBot,
                                CardsOf, Recent, Look, Done, Refused, RecentItems)


async def perform(service: TableService, command: Command
                  ) -> Done | Refused | RecentItems | PrivateCards | TableSnapshot:
    """Carry ``command`` out on ``service`` and return the reply (an :class:`Act` waits until
    the table's task applied it; a refusal is :class:`Refused`, not raised). Raises
    ``TypeError`` for what is not a command."""
    from bbspoker.table.service import PrivateCards
    match command:
        case Act(handle, action, turn):
            try:
                await service.submit(handle, action, turn)
            except RuleError as err:
                return Refused.of(err)
        case Chat(handle, text):
            line = clean_text(text).strip()
            if line:
                service.chat(handle, line)
        case Watch(handle):
            service.watch(handle)
        case Unwatch(handle):
            service.unwatch(handle)
        case Attach(handle):
            service.attach(handle)
        case Detach(handle):
            service.detach(handle)
        case Touch(handle):
            service.touch(handle)
        case MarkBot(handle, bot):
            service.mark_bot(handle, bot)
        case CardsOf(handle):
            return PrivateCards(handle, service.cards_of(handle))
        case Recent():
            return RecentItems(service.recent())
        case Look():
            return service.snapshot
        case _:
            raise TypeError(f"not a table command: {command!r}")
    return Done()
