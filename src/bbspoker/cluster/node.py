"""What a gateway and a worker start alike: their name, their logging, the check that
the ledger is the shared PostgreSQL one, and their NATS connection (one line on stderr,
no traceback, for what stops them)."""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import sys
from typing import Any

from bbspoker.config import Config
from bbspoker.store.sql.ledger import check_url, is_url
from bbspoker.store.wallet import StoreError
from bbspoker.table.remote import Link

__all__ = ["process_name", "start_logging", "share_ledger", "connect_nats",
           "NATS_CONNECT_TIMEOUT"]

log = logging.getLogger(__name__)

#: Seconds a gateway or worker starting waits for NATS before it gives up (exit 1; once
#: connected, a lost connection is tried again for ever).
NATS_CONNECT_TIMEOUT = 10.0


def process_name(config: Config, role: str) -> str:
    """``[cluster] name``, else ``<role>-<host>-<pid>``: this process in logs and (a
    gateway) in the others' presence."""
    return config.cluster.name or f"{role}-{socket.gethostname()}-{os.getpid()}"


def start_logging(config: Config) -> None:
    """Log as ``bbspoker serve`` does: ``[server] log_level``, time, level, logger."""
    logging.basicConfig(level=config.server.log_level,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")


def _refuse(message: str) -> None:
    log.error("%s", message)
    print(f"bbspoker: error: {message}", file=sys.stderr)


def share_ledger(config: Config, role: str) -> Any | None:
    """The shared server lock of the PostgreSQL ledger (``[ledger] url``; held, in shared
    mode with the other gateways and workers, until the returned connection is closed or
    the process ends: no ``bbspoker serve`` can start on the database meanwhile), or
    ``None`` after saying on stderr why ``role`` (a gateway, a worker) cannot start: the
    ledger is not PostgreSQL, cannot be reached, or a ``bbspoker serve`` uses it (it
    refunds every unfinished game at its start)."""
    if not is_url(config.ledger.url):
        _refuse(f"a {role} needs the ledger on PostgreSQL ([ledger] url = "
                "\"postgresql://...\", or BBSPOKER_DB): the gateways and workers share it, "
                "and the table leases are held there")
        return None
    from bbspoker.store.postgres.writer import display_url, hold_server_lock

    try:
        held = hold_server_lock(check_url(config.ledger.url), shared=True)
    except StoreError as exc:
        _refuse(str(exc))
        return None
    if held is None:
        _refuse(f"a bbspoker serve is using {display_url(config.ledger.url)} (it holds the "
                f"database's server lock); a {role} cannot share it: not starting")
    return held


async def connect_nats(config: Config, name: str) -> Link | None:
    """The NATS connection of process ``name`` (``[cluster] nats``), or ``None`` after
    saying on stderr why there is none (no answer within :data:`NATS_CONNECT_TIMEOUT`)."""
    try:
        return await asyncio.wait_for(Link.connect(config.cluster.servers, name=name),
                                      NATS_CONNECT_TIMEOUT)
    except Exception as exc:
        why = (f"no answer within {NATS_CONNECT_TIMEOUT:g} s"
               if isinstance(exc, TimeoutError) else str(exc) or type(exc).__name__)
        _refuse(f"cannot connect to NATS at {config.cluster.nats}: {why}")
        return None
