"""The registry of game kinds as the computer players know them.

Each kind's :class:`~bbspoker.bots.kind.BotKind` is defined next to its own bot code; this
module only lists them. :class:`~bbspoker.bots.seats.TableBots`,
:class:`~bbspoker.bots.player.BotPlayer`, the bot port (:mod:`bbspoker.bots.remote`) and
``bbspoker sim`` look a table's kind up here (:func:`bot_kind`) and never branch on a
kind's name or its board's class. Adding a game's bots is one line below.
"""

from __future__ import annotations

from typing import Any

from bbspoker.bots.draw40 import DRAW40
from bbspoker.bots.holdem import HOLDEM
from bbspoker.bots.kind import BotKind
from bbspoker.bots.schiebe import SCHIEBE
from bbspoker.bots.stud import STUD

__all__ = ["BOT_KINDS", "bot_kind"]

#: Every game kind's computer players, by the kind's name in config (``[[tables]] game``).
BOT_KINDS: dict[str, BotKind[Any]] = {k.name: k for k in (DRAW40, HOLDEM, SCHIEBE, STUD)}


def bot_kind(name: str) -> BotKind[Any]:
    """The :class:`BotKind` of game kind ``name``; raises ``ValueError`` listing the kinds
    with computer players."""
    try:
        return BOT_KINDS[name]
    except KeyError:
        raise ValueError(f"no computer players for game kind {name!r} "
                         f"(known: {', '.join(BOT_KINDS)})") from None
