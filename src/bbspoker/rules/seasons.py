"""Seasons of the tournament league and the points of a finish: pure, no clock.

A **season** is a calendar week (Monday 00:00 to the next Monday 00:00) or a calendar
month (the 1st 00:00 to the next 1st 00:00), in the server's local time. A season is
named by its start: ``"2026-11"`` for a month, ``"2026-W48"`` for a week (the ISO 8601
week: the week whose Thursday falls in that ISO year). The season a moment falls in
depends on its local *date* alone, so a caller passes the local date (or an aware local
datetime); the season's bounds in Unix seconds are its first and next first local
midnights, found through a time zone the caller passes (:meth:`Season.bounds`): a week
across a change to or from summer time is 167 or 169 hours long, and still starts and
ends at midnight.

**Points** per finish (:func:`points`): ``round(10 * sqrt(entrants / place))``, the usual
league formula: the winner of a field of 10 gets 32, the 10th of 10 gets 10, the winner
of a heads-up match 14. Computed exactly in whole numbers with halves rounded up, so
every store and every machine gives the same points.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, tzinfo

__all__ = ["LENGTHS", "Season", "season_of", "points"]

#: The lengths a season may have (``[seasons] length``).
LENGTHS = ("week", "month")


@dataclass(frozen=True, order=True)
class Season:
    """One season: ``length`` (one of :data:`LENGTHS`) and ``start``, its first day (a
    Monday for a week, the 1st for a month). Build it with :func:`season_of`."""

    length: str
    start: date

    @property
    def end(self) -> date:
        """The first day of the next season (the season runs up to its midnight)."""
        if self.length == "week":
            return self.start + timedelta(days=7)
        year, month = divmod(self.start.year * 12 + self.start.month, 12)
        return date(year, month + 1, 1)

    @property
    def label(self) -> str:
        """``"2026-11"`` for a month, ``"2026-W48"`` for a week (ISO year and week)."""
        if self.length == "week":
            year, week, _ = self.start.isocalendar()
            return f"{year}-W{week:02d}"
        return f"{self.start.year}-{self.start.month:02d}"

    def previous(self) -> Season:
        """The season before this one."""
        return season_of(self.start - timedelta(days=1), self.length)

    def next(self) -> Season:
        """The season after this one."""
        return season_of(self.end, self.length)

    def bounds(self, tz: tzinfo | None = None) -> tuple[float, float]:
        """The season as Unix seconds ``(start, end)``: the local midnights that start it
        and the next season in ``tz`` (``None``: the system's local time, as
        ``datetime.timestamp`` reads a naive time). A moment ``m`` is in the season when
        ``start <= m < end``."""
        return (datetime.combine(self.start, time(0), tzinfo=tz).timestamp(),
                datetime.combine(self.end, time(0), tzinfo=tz).timestamp())


def season_of(day: date, length: str) -> Season:
    """The season of ``length`` (:data:`LENGTHS`; ValueError otherwise) that ``day``
    falls in: for a datetime its own (local) date counts, whatever its time of day."""
    if length not in LENGTHS:
        raise ValueError(f"a season is one of {', '.join(LENGTHS)}, got {length!r}")
    if isinstance(day, datetime):
        day = day.date()
    if length == "week":
        return Season(length, day - timedelta(days=day.weekday()))
    return Season(length, day.replace(day=1))


def points(entrants: int, place: int) -> int:
    """The league points of finishing ``place`` (1 = winner) of ``entrants``:
    ``round(10 * sqrt(entrants / place))`` with halves rounded up, exactly (the largest
    whole ``n`` with ``(2n - 1)**2 * place <= 400 * entrants``, at least 0). ValueError for
    a place below 1 or entrants below 0."""
    if place < 1 or entrants < 0:
        raise ValueError(f"no points for place {place} of {entrants}")
    return (math.isqrt(400 * entrants // place) + 1) // 2
