"""The door's registry of game kinds: one :class:`~bbspoker.door.screens.base.ScreenKind`
per kind, each defined in its kind's screen module and only listed here. The lobby (its
entry, table list, [H] help, hall of fame), the web page's intro, ``games show`` and the
bot port look a kind up here by its code (``TableSpec.game``, a game record's
``"game"``) instead of naming it.

Adding a kind to the door: its screen module (a :class:`~bbspoker.door.screens.base.TableScreen`
subclass, its ``KIND``), its wording module (events and operations), and one line in
:data:`KINDS`.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from bbspoker.door.i18n import ENGLISH, Translator
from bbspoker.door.screens import draw40, holdem, schiebe, stud
from bbspoker.door.screens.base import Line, ScreenKind
from bbspoker.rules.events import Event, RuleError

__all__ = ["KINDS", "DEFAULT", "kind_of", "describe_event", "describe_operation", "refusal",
           "game_title", "games_phrase"]

#: Every game kind the door shows, by code, in the order the lobby's help shows them.
KINDS: dict[str, ScreenKind] = {kind.name: kind for kind in (
    draw40.KIND,
    holdem.KIND,
    schiebe.KIND,
    stud.KIND,
)}
#: The kind of a table or record that names none (the first kind the server had: a game
#: record from before records named their kind is draw40's).
DEFAULT = draw40.KIND


def kind_of(name: str | None) -> ScreenKind:
    """The kind with the code ``name``; :data:`DEFAULT` for ``None`` or a code no kind has
    (a table's configuration only takes known codes)."""
    return KINDS.get(name or "", DEFAULT)


def describe_event(event: Event, kind: str, t: Translator = ENGLISH) -> Line | None:
    """An event of a table of the game kind ``kind`` (a code) as the message area reads
    it in ``t``'s language: ``(tag, text)``, or None for an event that shows no line."""
    return kind_of(kind).describe_event(event, t)


def describe_operation(op: Mapping[str, Any], kind: str | None) -> str:
    """One line (English) of a record of the game kind ``kind`` (its ``"game"``; None: a
    record from before records named their kind, draw40's) for ``bbspoker games show``."""
    return kind_of(kind).describe_operation(op)


def refusal(err: RuleError, kind: str, t: Translator = ENGLISH) -> str:
    """Why a table of the game kind ``kind`` (a code) refused an action, in ``t``'s
    language (:meth:`~bbspoker.door.screens.base.ScreenKind.refusal`)."""
    return kind_of(kind).refusal(err, t)


def game_title(kind: str, t: Translator = ENGLISH) -> str:
    """A game kind (a code) as people name it, in ``t``'s language: ``"40-card draw"``
    (German ``"40-Blatt-Draw"``); a code no kind has as it is."""
    found = KINDS.get(kind)
    return t.gettext(found.title) if found else kind


def games_phrase(kinds: Sequence[str], t: Translator = ENGLISH) -> str:
    """The game kinds ``kinds`` (codes, in the order given, each once) as a sentence names
    them in ``t``'s language: ``"Texas Hold'em and Schiebe-Poker"``."""
    names = [t.gettext(KINDS[k].phrase) if k in KINDS else k for k in dict.fromkeys(kinds)]
    if len(names) < 2:
        return "".join(names)
    return t.gettext("{names} and {last}").format(names=", ".join(names[:-1]), last=names[-1])
