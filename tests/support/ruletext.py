"""What a player would read: the door's English for the rules' codes, for assertions."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator

import pytest

from bbspoker.door.messages import refusal, round_label
from bbspoker.door.screens.kinds import describe_unknown
from bbspoker.rules.events import Event, RuleError


def text(event: Event) -> str:
    """The sentence the message area shows for ``event`` ("" for none), in the words of
    the kind it is from (told from the event, as the bot port does)."""
    line = describe_unknown(event)
    return line[1] if line else ""


def texts(events: list[Event]) -> list[str]:
    """The sentences everyone at the table reads for ``events``, in order."""
    return [text(e) for e in events if e.to is None and text(e)]


def label(game) -> str:
    """The game information area's round of a draw40 game."""
    return round_label(game.phase.value, game.round)


@contextlib.contextmanager
def refused(pattern: str) -> Iterator[pytest.ExceptionInfo[RuleError]]:
    """Like ``pytest.raises(RuleError, match=pattern)``, matched against the sentence the
    player reads."""
    with pytest.raises(RuleError) as info:
        yield info
    assert re.search(pattern, refusal(info.value)), refusal(info.value)
