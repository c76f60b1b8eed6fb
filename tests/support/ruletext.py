"""What a player would read: the door's English for the rules' codes, for assertions.

Each test module says the game kind whose words it reads (the kind of the tables it
plays), as the door does (its screens and the bot port know their table's kind)::

    text, texts, refused = wording("draw40")
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator
from typing import ContextManager, NamedTuple

import pytest

from bbspoker.door.i18n import ENGLISH
from bbspoker.door.screens.draw40_text import round_label
from bbspoker.door.screens.kinds import KINDS
from bbspoker.rules.events import Event, RuleError


class Wording(NamedTuple):
    """One kind's words: ``text(event)``, the sentence the message area shows for
    ``event`` ("" for none); ``texts(events)``, the sentences everyone at the table reads
    for ``events``, in order; ``refused(pattern)``, like
    ``pytest.raises(RuleError, match=pattern)`` matched against the sentence the player
    reads."""

    text: Callable[[Event], str]
    texts: Callable[[list[Event]], list[str]]
    refused: Callable[[str], ContextManager[pytest.ExceptionInfo[RuleError]]]


def wording(kind: str) -> Wording:
    """The English words of the game kind ``kind`` (a code of the door's registry)."""
    screen_kind = KINDS[kind]

    def text(event: Event) -> str:
        line = screen_kind.describe_event(event, ENGLISH)
        return line[1] if line else ""

    def texts(events: list[Event]) -> list[str]:
        return [text(e) for e in events if e.to is None and text(e)]

    @contextlib.contextmanager
    def refused(pattern: str) -> Iterator[pytest.ExceptionInfo[RuleError]]:
        with pytest.raises(RuleError) as info:
            yield info
        said = screen_kind.refusal(info.value)
        assert re.search(pattern, said), said

    return Wording(text, texts, refused)


def label(game) -> str:
    """The game information area's round of a draw40 game."""
    return round_label(game.phase.value, game.round)
