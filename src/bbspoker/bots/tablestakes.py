"""What the computer players of every table-stakes kind share: :class:`TableStakesBotKind`,
the seating of a kind whose players bring a stack to the table and whose hands are dealt by
the clock."""

from __future__ import annotations

from typing import Any

from bbspoker.bots.kind import BotKind, O
from bbspoker.rules import actions as act
from bbspoker.table.service import TableSnapshot

__all__ = ["TableStakesBotKind"]


class TableStakesBotKind(BotKind[O]):
    """A table-stakes kind as the computer players see it: a bot buys in with the
    table's smallest buy-in, is broke when its stack is empty, and sits out while no
    person is at the table (back in when one is, if it has chips; never at a tournament
    table, where one sitting out is dealt in all the same). ``table_view`` and
    ``seat_view`` are the kind's view classes of the table and of a seat
    (``TableSnapshot.view_as``, ``seat_as``): the table's ``game_id`` is ``None``
    between hands, a seat has ``stack`` (chips) and ``out`` (sitting out)."""

    waits_for_people = True
    table_view: type[Any]
    seat_view: type[Any]

    def stake(self, config: Any) -> int:
        return int(config.buy_in_range()[0])

    def between_games(self, snap: TableSnapshot) -> bool:
        return snap.view_as(self.table_view).game_id is None

    def broke(self, snap: TableSnapshot, handle: str, stake: int) -> bool:
        seat = snap.seat_as(self.seat_view, handle)
        return seat is not None and seat.stack == 0

    def sit_out(self, snap: TableSnapshot, handle: str, alone: bool) -> act.Action | None:
        if getattr(snap.rules, "tournament", False):
            return None     # dealt in all the same: it would only be blinded away
        seat = snap.seat_as(self.seat_view, handle)
        if seat is not None and seat.out != alone and (alone or seat.stack > 0):
            return act.SitOut(out=alone)
        return None
