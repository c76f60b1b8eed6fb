"""A throwaway PostgreSQL server for the tests and the scripts that need one.

:func:`start_postgres` runs Debian's ``initdb`` and ``pg_ctl`` (found on ``PATH`` or under
``/usr/lib/postgresql/<version>/bin``) in a new directory under ``/tmp``: the server listens
on a Unix socket in that directory only (no TCP port, so parallel test workers never
collide), trusts its local connections, and skips fsync (its data is thrown away). As root
(CI) it runs as the ``postgres`` user, since PostgreSQL refuses to run as root.

``BBSPOKER_TEST_POSTGRES`` (a ``postgresql://`` URL) makes the tests use that server instead.
``BBSPOKER_REQUIRE_SERVICES=1`` (set by ``.ci/run``) makes a missing server fail the tests
instead of skipping them.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from urllib.parse import quote

__all__ = ["Postgres", "PostgresUnavailable", "start_postgres", "postgres_bin_dir"]


class PostgresUnavailable(RuntimeError):
    """No PostgreSQL server can be started here (the message says why)."""


def postgres_bin_dir() -> str | None:
    """The directory holding ``initdb`` and ``pg_ctl``, or None if PostgreSQL is not installed."""
    found = shutil.which("initdb")
    if found:
        return os.path.dirname(found)
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                      key=lambda p: int(p.split("/")[4]) if p.split("/")[4].isdigit() else 0)
    return os.path.dirname(versions[-1]) if versions else None


@dataclass
class Postgres:
    """A running throwaway server: ``url`` to its ``postgres`` database; :meth:`stop` ends it
    and removes its directory."""

    url: str
    directory: str
    bin_dir: str
    run_as: list[str]

    def database_url(self, name: str) -> str:
        """The URL of database ``name`` on this server."""
        return self.url.replace("/postgres?", f"/{name}?", 1)

    def stop(self) -> None:
        """Stop the server at once (``-m immediate``) and remove its files."""
        subprocess.run([*self.run_as, os.path.join(self.bin_dir, "pg_ctl"), "-D",
                        os.path.join(self.directory, "data"), "-m", "immediate", "stop"],
                       capture_output=True, check=False)
        shutil.rmtree(self.directory, ignore_errors=True)


def start_postgres() -> Postgres:
    """Start a throwaway server (about a second). Raises :class:`PostgresUnavailable` if
    PostgreSQL is not installed or does not start."""
    bin_dir = postgres_bin_dir()
    if bin_dir is None:
        raise PostgresUnavailable("PostgreSQL is not installed (apt-get install postgresql)")
    directory = tempfile.mkdtemp(prefix="bbspg-")
    run_as: list[str] = []
    if os.geteuid() == 0:
        try:
            user = pwd.getpwnam("postgres")
        except KeyError:
            shutil.rmtree(directory, ignore_errors=True)
            raise PostgresUnavailable("running as root and there is no postgres user") from None
        os.chown(directory, user.pw_uid, user.pw_gid)
        run_as = ["runuser", "-u", "postgres", "--"]
    data = os.path.join(directory, "data")
    steps = [
        [os.path.join(bin_dir, "initdb"), "-D", data, "-A", "trust", "-U", "postgres",
         "--no-sync", "-E", "UTF8", "--locale=C.UTF-8"],
        [os.path.join(bin_dir, "pg_ctl"), "-D", data, "-w", "-l",
         os.path.join(directory, "log"), "-o",
         f"-k {directory} -c listen_addresses='' -c fsync=off -c synchronous_commit=off "
         "-c full_page_writes=off -c max_connections=200", "start"],
    ]
    for step in steps:
        done = subprocess.run([*run_as, *step], capture_output=True, text=True, check=False)
        if done.returncode != 0:
            shutil.rmtree(directory, ignore_errors=True)
            raise PostgresUnavailable(
                f"{os.path.basename(step[0])} failed: {(done.stderr or done.stdout).strip()}")
    url = f"postgresql://postgres@/postgres?host={quote(directory)}"
    return Postgres(url=url, directory=directory, bin_dir=bin_dir, run_as=run_as)
