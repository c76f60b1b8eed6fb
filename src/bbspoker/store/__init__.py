"""The store: the wallet interface (``wallet``), tournaments' book (``tournaments``),
passwords, and the CUBES ledger (``sql``: the ledger over SQL, with its backends
``sqlite`` and ``postgres``). :func:`open_ledger` opens the configured one."""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Callable, Protocol

if TYPE_CHECKING:
    from bbspoker.store.sql.ledger import Ledger

__all__ = ["open_ledger", "LedgerPlace"]


class LedgerPlace(Protocol):
    """Where the ledger is, as ``[ledger]`` says (:class:`bbspoker.config.LedgerConfig`):
    ``url`` (a PostgreSQL URL; empty: none) and ``path`` (the SQLite file)."""

    @property
    def url(self) -> str: ...

    @property
    def path(self) -> str: ...

    @property
    def starting_cubes(self) -> int: ...


def open_ledger(where: LedgerPlace | str | os.PathLike[str], *,
                starting_cubes: int | None = None, clock: Callable[[], float] = time.time,
                autocheckpoint: bool = True) -> Ledger:
    """Open the CUBES ledger :class:`bbspoker.store.sql.Ledger` at ``where``: a ``[ledger]``
    config (its ``url`` if set, else its SQLite file ``path``; ``starting_cubes`` defaults
    to its own), a ``postgresql://`` URL, or a SQLite file's path. ``clock`` and
    ``autocheckpoint`` as :class:`~bbspoker.store.sql.Ledger` takes them. Raises
    :class:`~bbspoker.store.sql.records.LedgerError` (a URL of another scheme, a database
    that cannot be opened or is newer than this code)."""
    from bbspoker.store.sql.ledger import Ledger

    if isinstance(where, (str, os.PathLike)):
        target: str | os.PathLike[str] = where
        cubes = 1000 if starting_cubes is None else starting_cubes
    else:
        target = where.url or where.path
        cubes = where.starting_cubes if starting_cubes is None else starting_cubes
    return Ledger(target, starting_cubes=cubes, clock=clock, autocheckpoint=autocheckpoint)
