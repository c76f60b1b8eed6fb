"""The ``bbspoker`` command: run the server and administer accounts, CUBES and games.

``bbspoker [--config FILE] COMMAND ...`` (``--help`` works on every command):

* ``serve [--host H] [--port P]``: run the telnet server (``bbspoker.app.run``);
* ``gateway [--host H] [--port P]``: run a gateway of the split deployment (the sessions
  and the door; the tables on the workers: ``bbspoker.cluster.gateway.run_gateway``);
* ``worker [--name N]``: run a worker of the split deployment (the tables whose leases it
  wins, served to the gateways over NATS: ``bbspoker.cluster.worker.run_worker``);
* ``users add|list|show|passwd|ban|unban``: accounts and handles; ``users key
  add|list|remove``: the public keys a user logs in with over SSH;
* ``bbs list|ban|unban``: the BBSes whose callers come in over RLOGIN (``[[bbs]]``),
  and the sysop's bans of whole systems;
* ``cubes show|grant|take|set|history``: CUBES, each adjustment journalled with
  its ``--reason`` and the operating-system user who made it;
* ``games list|show|verify``: recorded games, their hand histories, and the check of
  their decks against the provably fair shuffle (``docs/fairness.md``);
* ``ledger verify``: check the books (exit 1 and list what differs); ``ledger copy --to
  TARGET``: the whole ledger into a new database (SQLite to PostgreSQL or back), both verified;
* ``tournaments list|show|cancel``: tournaments, their entrants, prize pools, places
  and prizes; calling one off refunds every buy-in;
* ``stats [HANDLE] [--season current|previous|all]``: a season's tournament standings
  (``[seasons]``), or one player's results per table and in tournaments;
* ``backup FILE``: copy the database with SQLite's online backup API;
* ``bulletin``: the hall of fame (top ten by net CUBES won) as a BBS's logon bulletin
  (CP437 ANSI with SAUCE, plain ASCII) or JSON (:mod:`bbspoker.door.halloffame`);
* ``door DROPFILE``: the drop-file door a BBS on this machine runs for its caller: the
  caller's terminal relayed to the server's RLOGIN port as the BBS's user
  (:mod:`bbspoker.transport.dropfile`, docs/bbs.md);
* ``sim``: computer players play each other with the real rules, no server, no ledger
  (the game kind's :meth:`bbspoker.bots.kind.BotKind.simulate`), and the CUBES each policy
  wins per game.

Exit status: 0 done, 1 a user mistake or a failed check (one line on stderr,
no traceback), 2 bad command-line usage (argparse), 141 the reader of the output went
away (``bbspoker cubes history alice | head``: the rest of the output is dropped quietly,
and the status is the one the shell gives a Unix tool ended by SIGPIPE).

Text typed by somebody (a ``--reason``, a ban reason, a journal note) is stored and
printed without control or escape characters (:func:`bbspoker.text.clean_text`): it
cannot move the cursor or recolour the sysop's terminal.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import getpass
import importlib
import json
import os
import sys
import time
from typing import Any, Callable, Sequence

from bbspoker import __version__
from bbspoker.config import GAME_KINDS, LANGUAGES, Config, ConfigError, load_config
from bbspoker.rules.kinds import DEFAULT_KIND
from bbspoker.store import open_ledger
from bbspoker.store.sql import HandleTaken, Ledger, LedgerError, validate_handle
from bbspoker.store.passwords import hash_password, validate_password
from bbspoker.store.tournaments import STATUSES as TOURNAMENT_STATUSES
from bbspoker.rules.money import MAX_CUBES
from bbspoker.store.wallet import InsufficientCubes, StoreError, UnknownAccount
from bbspoker.text import clean_text

__all__ = ["main"]

#: The exit status after the reader of standard output went away (128 + SIGPIPE: what a
#: shell reports for a Unix tool that the signal ended).
EXIT_BROKEN_PIPE = 141


class CliError(Exception):
    """A user mistake to report as one line on stderr with exit status 1."""


def _when(seconds: float | None) -> str:
    """Unix seconds as local time ``YYYY-MM-DD HH:MM:SS`` (``never`` for None)."""
    if seconds is None:
        return "never"
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(seconds))


def _open(config: Config, *, create: bool = False) -> Ledger:
    """Open the configured database (:func:`bbspoker.store.open_ledger`: ``[ledger] url``
    if set, else the SQLite file); unless ``create``, a SQLite file must exist already (a
    PostgreSQL database always must: its tables are made at the first opening)."""
    path = config.ledger.path
    if not config.ledger.url and not create and not os.path.exists(path):
        raise CliError(f"no database at {path} (set [ledger] path or BBSPOKER_DB; "
                       "`bbspoker serve` or `bbspoker users add` creates it)")
    return open_ledger(config.ledger)


def _read_new_password(handle: str, password_file: str | None) -> str:
    """The new password from the first line of ``password_file``, or typed twice."""
    if password_file is not None:
        try:
            with open(password_file, encoding="utf-8") as fh:
                password = fh.readline().rstrip("\r\n")
        except OSError as exc:
            raise CliError(f"cannot read password file {password_file}: {exc.strerror}") from None
    else:
        password = getpass.getpass(f"New password for {handle}: ")
        if getpass.getpass("Type it again: ") != password:
            raise CliError("the two passwords differ; nothing changed")
    try:
        return validate_password(password)
    except ValueError as exc:
        raise CliError(str(exc)) from None


def _actor() -> str:
    """The operating-system user making an adjustment, as recorded in the journal.

    ``getpass.getuser()``; when run through ``sudo -u bbspoker``, the invoking
    user from ``SUDO_USER`` is recorded too: ``"ann (sudo as bbspoker)"``.
    """
    user = getpass.getuser()
    invoker = os.environ.get("SUDO_USER")
    return f"{invoker} (sudo as {user})" if invoker and invoker != user else user


def _holdings(cubes: int, stacks: dict[str, int], unit: str = " CUBES") -> str:
    """``cubes`` (an account's CUBES) with the ``stacks`` (``{table id: CUBES}``) its owner
    holds at tables: ``"10 CUBES in the account, 40 at table holdem (50 in all)"``, or
    ``"10 CUBES"`` with none (``unit`` follows the first number)."""
    if not stacks:
        return f"{cubes}{unit}"
    at = ", ".join(f"{n} at table {table}" for table, n in stacks.items())
    return f"{cubes}{unit} in the account, {at} ({cubes + sum(stacks.values())} in all)"


def _account_or_fail(ledger: Ledger, handle: str):
    account = ledger.find_account(handle)
    if account is None:
        raise UnknownAccount(handle)
    return account


# ------------------------------------------------------------------ commands


def _listening(args: argparse.Namespace, config: Config) -> Config:
    """``config`` with ``--host`` and ``--port`` in ``[server]``, where given."""
    overrides = {k: getattr(args, k) for k in ("host", "port") if getattr(args, k) is not None}
    return dataclasses.replace(config, server=dataclasses.replace(config.server, **overrides))


def _serve(args: argparse.Namespace, config: Config) -> int:
    # Imported here: the admin commands need no telnet stack.
    return importlib.import_module("bbspoker.app").run(_listening(args, config))


def _named(args: argparse.Namespace, config: Config) -> Config:
    """``config`` with ``--name`` as ``[cluster] name``, if given."""
    if not args.name:
        return config
    return dataclasses.replace(config, cluster=dataclasses.replace(config.cluster,
                                                                   name=args.name))


def _gateway(args: argparse.Namespace, config: Config) -> int:
    return importlib.import_module("bbspoker.cluster.gateway").run_gateway(
        _named(args, _listening(args, config)))


def _worker(args: argparse.Namespace, config: Config) -> int:
    # Imported here: the admin commands need no NATS client.
    return importlib.import_module("bbspoker.cluster.worker").run_worker(_named(args, config))


def _users_add(args: argparse.Namespace, config: Config) -> int:
    handle = validate_handle(args.name)
    with _open(config, create=True) as ledger:
        if ledger.find_account(handle) is not None:
            raise HandleTaken(f"the handle {handle} is taken")
        if args.bot and args.password_file is None:
            stored = None                 # a bot at the tables needs no password
        else:
            stored = hash_password(_read_new_password(handle, args.password_file))
        account = ledger.create_account(handle, stored, args.cubes, actor=_actor(),
                                        bot=args.bot)
    kind = "computer player " if account.bot else ""
    print(f"created {kind}{account.handle} with {account.cubes} CUBES")
    return 0


def _users_list(args: argparse.Namespace, config: Config) -> int:
    with _open(config) as ledger:
        accounts = ledger.list_accounts()
        stacks = ledger.table_stacks()
    if not accounts:
        print("no accounts")
        return 0
    # CUBES: the account; AT TABLES: the stacks bought in at tables (still the player's).
    print(f"{'HANDLE':<16}  {'CUBES':>10}  {'AT TABLES':>10}  {'LAST SEEN':<19}  STATUS")
    for a in accounts:
        status = f"banned: {clean_text(a.ban_reason or '')}" if a.banned else "ok"
        status = "waiting for approval" if not a.approved else status
        status += " (bot)" if a.bot else ""
        at_tables = sum(stacks.get(a.handle, {}).values())
        print(f"{clean_text(a.handle):<16}  {a.cubes:>10}  {at_tables:>10}  "
              f"{_when(a.last_seen):<19}  {status}")
    return 0


def _users_approve(args: argparse.Namespace, config: Config) -> int:
    with _open(config) as ledger:
        handle = _account_or_fail(ledger, args.name).handle
        cubes = ledger.approve(handle, _actor(), args.cubes)
    print(f"approved {handle}: {cubes} CUBES")
    return 0


def _users_kick(args: argparse.Namespace, config: Config) -> int:
    with _open(config) as ledger:
        handle = _account_or_fail(ledger, args.name).handle
        ledger.kick(handle, args.reason, _actor())
    print(f"asked the server to end {handle}'s session (within a few seconds if online)")
    return 0


#: The largest public-key file ``users key add`` reads (an authorized_keys file of a few
#: hundred keys).
MAX_KEY_FILE = 256 * 1024


def _public_keys(path: str) -> list[tuple[str, str, str]]:
    """The OpenSSH public keys in the file at ``path``, one a line (blank lines and ``#``
    comments skipped): ``[(key line "<type> <base64>", SHA256 fingerprint, comment)]``.
    Raises CliError naming the file and line for anything else (a private key, options
    before the key, a line that is no key), or for no key at all."""
    import asyncssh   # only this command needs it

    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_KEY_FILE + 1)
    except OSError as exc:
        raise CliError(f"cannot read key file {path}: {exc.strerror}") from None
    if len(data) > MAX_KEY_FILE:
        raise CliError(f"{path} is larger than {MAX_KEY_FILE // 1024} KiB: not a public key file")
    text = data.decode("utf-8", errors="replace")
    if "PRIVATE KEY" in text:
        raise CliError(f"{path} holds a private key: give the public one (the .pub file); "
                       "nothing changed")
    keys = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            key = asyncssh.import_public_key(line)
        except (asyncssh.KeyImportError, ValueError) as exc:
            raise CliError(f"{path} line {number} is not an OpenSSH public key ({exc}); "
                           "nothing changed") from None
        comment = key.get_comment() or ""
        key.set_comment(None)
        keys.append((key.export_public_key("openssh").decode("ascii").strip(),
                     key.get_fingerprint("sha256"), comment))
    if not keys:
        raise CliError(f"{path} holds no public key; nothing changed")
    return keys


def _users_key_add(args: argparse.Namespace, config: Config) -> int:
    keys = _public_keys(args.file)
    with _open(config) as ledger:
        handle = _account_or_fail(ledger, args.name).handle
        with ledger.transaction():
            added = [fp for key, fp, comment in keys
                     if ledger.add_user_key(handle, key, fp, comment, _actor())]
    for key, fp, comment in keys:
        state = "added" if fp in added else "already there"
        print(f"{handle}: {fp} {comment} ({state})".replace("  ", " "))
    return 0


def _users_key_list(args: argparse.Namespace, config: Config) -> int:
    with _open(config) as ledger:
        handle = _account_or_fail(ledger, args.name).handle
        keys = ledger.user_keys(handle)
    if not keys:
        print(f"{handle} has no public key (logs in over SSH with the password)")
    for key, fp, comment in keys:
        print(f"{fp}  {key.split()[0]}  {comment}".rstrip())
    return 0


def _users_key_remove(args: argparse.Namespace, config: Config) -> int:
    with _open(config) as ledger:
        handle = _account_or_fail(ledger, args.name).handle
        if not ledger.remove_user_key(handle, args.fingerprint):
            raise CliError(f"{handle} has no key {args.fingerprint} (see users key list "
                           f"{handle}); nothing changed")
    print(f"removed {args.fingerprint} from {handle}")
    return 0


def _users_show(args: argparse.Namespace, config: Config) -> int:
    with _open(config) as ledger:
        a = _account_or_fail(ledger, args.name)
        waiting = ledger.notices(a.handle)
        stats = ledger.stats(a.handle)
        stacks = ledger.table_stacks(a.handle).get(a.handle, {})
    print(f"handle:     {a.handle}" + ("  (computer player)" if a.bot else ""))
    print(f"CUBES:      {_holdings(a.cubes, stacks, unit='')}")
    print(f"created:    {_when(a.created)}")
    print(f"last seen:  {_when(a.last_seen)}")
    print(f"banned:     {'yes: ' + clean_text(a.ban_reason or '') if a.banned else 'no'}")
    print(f"notices:    {len(waiting)} waiting for the next login")
    print(_stats_text(stats, config))
    return 0


def _stats_text(stats: list, config: Config) -> str:
    """A player's results per table (see :func:`bbspoker.door.messages.describe_stats`)."""
    from bbspoker.door.messages import describe_stats
    from bbspoker.door.screens.kinds import game_title
    lines = describe_stats(stats, {spec.id: game_title(spec.game) for spec in config.table_specs})
    return "results:    " + "\n            ".join(lines)


def _stats(args: argparse.Namespace, config: Config) -> int:
    """``stats``: a season's tournament standings (``--season``, the current one by
    default), or with a HANDLE that player's results per table and tournament lines."""
    from bbspoker.door import halloffame
    now = time.time()
    season = halloffame.season_at(args.season or "current", config.seasons.length, now)
    if args.name is not None:
        with _open(config) as ledger:
            a = _account_or_fail(ledger, args.name)
            stats = ledger.stats(a.handle)
            standings = {which: ledger.tournament_standings(*halloffame.season_bounds(which))
                         for which in (season, None)}
        print(clean_text(a.handle))
        print(_stats_text(stats, config))
        lines = halloffame.player_lines(a.handle, season, standings)
        print("tournaments: " + "\n             ".join(clean_text(line) for line in lines))
        return 0
    with _open(config) as ledger:
        standings_ = ledger.tournament_standings(*halloffame.season_bounds(season))
    if season is None:
        print("Tournament standings, all time")
    else:
        last = season.end - datetime.timedelta(days=1)
        print(f"Tournament standings, season {season.label} ({season.start.isoformat()} "
              f"to {last.isoformat()}, [seasons] length = {season.length})")
    if not standings_:
        print("No finished tournaments in this season yet." if season is not None
              else "No finished tournaments yet.")
        return 0
    width = max(6, *(len(clean_text(s.handle)) for s in standings_))
    print(f"{'RANK':>4}  {'PLAYER':<{width}}  {'POINTS':>6}  {'TOURNAMENTS':>11}  {'WINS':>4}  "
          f"{'CASHES':>6}  {'NET':>8}")
    for place, s in enumerate(standings_, 1):
        net = f"{s.net:+d}" if s.net else "0"
        print(f"{place:>4}  {clean_text(s.handle):<{width}}  {s.points:>6}  {s.played:>11}  "
              f"{s.wins:>4}  {s.cashes:>6}  {net:>8}")
    return 0


def _users_passwd(args: argparse.Namespace, config: Config) -> int:
    with _open(config) as ledger:
        handle = _account_or_fail(ledger, args.name).handle
        password = _read_new_password(handle, args.password_file)
        ledger.set_password_hash(handle, hash_password(password))
    print(f"password of {handle} changed")
    return 0


def _users_ban(args: argparse.Namespace, config: Config) -> int:
    with _open(config) as ledger:
        ledger.ban(args.name, args.reason)
        handle = _account_or_fail(ledger, args.name).handle
    print(f"{handle} is banned: {args.reason}")
    return 0


def _bbs_known(config: Config, tag: str) -> str:
    """``tag`` as ``[[bbs]]`` spells it; a note on stderr if no system has it."""
    for system in config.bbs:
        if system.tag.lower() == tag.lower():
            return system.tag
    print(f"note: no [[bbs]] system of the config has the tag {tag}", file=sys.stderr)
    return tag


def _bbs_list(args: argparse.Namespace, config: Config) -> int:
    with _open(config) as ledger:
        bans = {tag.lower(): (tag, reason) for tag, reason, _, _ in ledger.bbs_bans()}
        callers = {tag.lower(): n for tag, n in ledger.bbs_callers().items()}
    print(f"{'TAG':<8}  {'ACCOUNTS':>8}  {'NODES':>5}  {'SECRET':<6}  {'STATUS':<24}  NAME / ADDRESSES")
    for s in config.bbs:
        ban = bans.pop(s.tag.lower(), None)
        status = f"banned: {clean_text(ban[1])}" if ban else "ok"
        print(f"{s.tag:<8}  {callers.get(s.tag.lower(), 0):>8}  {s.max_nodes:>5}  "
              f"{'yes' if s.secret else 'no':<6}  {status:<24}  {s.name} "
              f"({', '.join(s.addresses)})")
    for tag, reason in bans.values():
        print(f"{tag:<8}  {callers.get(tag.lower(), 0):>8}  {'-':>5}  {'-':<6}  "
              f"{'banned: ' + clean_text(reason):<24}  (not in the config)")
    return 0


def _bbs_ban(args: argparse.Namespace, config: Config) -> int:
    tag = _bbs_known(config, args.tag)
    with _open(config) as ledger:
        ledger.ban_bbs(tag, args.reason, _actor())
    print(f"BBS {tag} is banned: {args.reason} (its callers online are sent away)")
    return 0


def _bbs_unban(args: argparse.Namespace, config: Config) -> int:
    tag = _bbs_known(config, args.tag)
    with _open(config) as ledger:
        if not ledger.unban_bbs(tag):
            raise CliError(f"BBS {tag} is not banned")
    print(f"BBS {tag} may send its callers again")
    return 0


def _users_unban(args: argparse.Namespace, config: Config) -> int:
    with _open(config) as ledger:
        ledger.unban(args.name)
        handle = _account_or_fail(ledger, args.name).handle
    print(f"{handle} may log in again")
    return 0


def _cubes_show(args: argparse.Namespace, config: Config) -> int:
    with _open(config) as ledger:
        a = _account_or_fail(ledger, args.name)
        stacks = ledger.table_stacks(a.handle).get(a.handle, {})
    if args.json:
        # cubes: the account (what grant, take and set change); stacks: {table id: CUBES}
        # bought in at tables; total: both.
        print(json.dumps({"handle": a.handle, "cubes": a.cubes, "stacks": stacks,
                          "total": a.cubes + sum(stacks.values())}))
    else:
        print(f"{a.handle}: {_holdings(a.cubes, stacks)}")
    return 0


def _adjuster(method: str, verb: str) -> Callable[[argparse.Namespace, Config], int]:
    """``cubes grant|take|set``: call ``Ledger.<method>`` with the reason and OS user;
    ``verb`` formats N for the confirmation line (``"+{}"`` gives ``+25``). They change
    the account only: for ``set``, a note names the stacks the player holds at tables,
    which keep their CUBES."""
    def run(args: argparse.Namespace, config: Config) -> int:
        with _open(config) as ledger:
            after = getattr(ledger, method)(args.name, args.n, args.reason, _actor())
            handle = _account_or_fail(ledger, args.name).handle
            stacks = ledger.table_stacks(handle).get(handle, {})
        print(f"{handle}: {verb.format(args.n)}, now {after} CUBES ({args.reason})")
        if method == "set_cubes" and stacks:
            at = ", ".join(f"{n} CUBES at table {table}" for table, n in stacks.items())
            print(f"note: {handle} also has {at}; cubes set sets the account only, "
                  f"the stack{'s are' if len(stacks) > 1 else ' is'} not affected")
        return 0
    return run


def _cubes_history(args: argparse.Namespace, config: Config) -> int:
    with _open(config) as ledger:
        handle = _account_or_fail(ledger, args.name).handle
        rows = ledger.history(handle, args.limit)
    # BALANCE is that of the account, or of the stack at a table the row moved ("OF").
    # GAME: the game's id, or T and the id of the tournament whose prize pool it moved.
    print(f"{'ID':>7}  {'TIME':<19}  {'AMOUNT':>8}  {'BALANCE':>8}  {'OF':<14}  "
          f"{'WHAT':<17}  {'GAME':>6}  BY / NOTE")
    for r in rows:
        game = ("" if r.game_id is None else str(r.game_id)) if r.tournament_id is None \
            else f"T{r.tournament_id}"
        of = "account" if r.stack_table is None else f"stack {r.stack_table}"
        by = clean_text(" / ".join(x for x in (r.actor, r.note) if x))
        print(f"{r.id:>7}  {_when(r.at):<19}  {r.amount:>+8d}  {r.balance:>8}  "
              f"{of:<14}  {r.reason:<17}  {game:>6}  {by}")
    return 0


def _result(g) -> str:
    if g.ended_at is None:
        return "open" if g.tournament is not None else f"open, pot {g.pot} CUBES"
    if g.end_reason == "finished":
        return f"winner {g.winner}" if g.winner else "nobody won"
    return clean_text(g.end_reason or "")


def _games_list(args: argparse.Namespace, config: Config) -> int:
    with _open(config) as ledger:
        games = ledger.list_games(args.limit, table=args.table)
    if not games:
        print("no games" + (f" at table {args.table}" if args.table else ""))
        return 0
    width = max(5, *(len(g.table) for g in games))
    print(f"{'ID':>6}  {'TABLE':<{width}}  {'STARTED':<19}  {'PLAYERS':<40}  RESULT")
    for g in games:
        mark = "" if g.tournament is None else f" (tournament {g.tournament}, chips)"
        print(f"{g.id:>6}  {g.table:<{width}}  {_when(g.started_at):<19}  "
              f"{', '.join(g.players):<40}  {_result(g)}{mark}")
    return 0


def _show_value(key: str, value: Any, indent: str) -> None:
    """Print one hand-history entry: lists one item a line, mappings ``key  value``."""
    text = lambda v: v if isinstance(v, str) else json.dumps(v)  # noqa: E731
    if isinstance(value, list):
        print(f"{indent}{key}:")
        for item in value:
            print(f"{indent}  {text(item)}")
    elif isinstance(value, dict):
        print(f"{indent}{key}:")
        width = max((len(str(k)) for k in value), default=0)
        for k, v in value.items():
            print(f"{indent}  {str(k):<{width}}  {text(v)}")
    else:
        print(f"{indent}{key}: {text(value)}")


def _stakes(history: dict[str, Any]) -> str:
    """A tournament hand's stakes from its history: ``blinds 10/20, ante 5 chips``."""
    parts = []
    for key, word in (("blinds", "blinds"), ("bets", "bets")):
        pair = history.get(key)
        if isinstance(pair, list) and len(pair) == 2:
            parts.append(f"{word} {pair[0]}/{pair[1]}")
    for key, word in (("bring_in", "bring-in"), ("ante", "ante")):
        if history.get(key):
            parts.append(f"{word} {history[key]}")
    return f"{', '.join(parts)} chips" if parts else "in chips"


def _tournament_lines(g: Any, ledger: Ledger) -> tuple[list[str], list[str]]:
    """What ``games show`` says of a tournament hand: which tournament and table and its
    stakes in chips (the first list), and for the tournament's last hand once it has
    finished the tournament's result (places and prizes in CUBES, the second). Both
    empty for a CUBES game."""
    if g.tournament is None:
        return [], []
    t = ledger.tournament(g.tournament)
    mark = (g.history or {}).get("tournament") or {}
    number = mark.get("table") if isinstance(mark, dict) else None
    if number is None:
        number = g.table.rsplit("-", 1)[-1]
    what = (f"{t.id} ({clean_text(t.key)}, {clean_text(t.name)})" if t is not None
            else f"{g.tournament}")
    lines = [f"  tournament:   {what}, table {clean_text(str(number))}"]
    if g.history:
        lines.append(f"  stakes:       {_stakes(g.history)} (tournament chips, not CUBES)")
    hands = ledger.tournament_hands(g.tournament)
    places = (t.result or {}).get("places") if t is not None and t.status == "finished" \
        else None
    result = []
    if hands is not None and hands[1] == g.id and isinstance(places, list):
        result.append("  result of the tournament:")
        for place, handle, prize in places:
            result.append(f"    {place}. {clean_text(str(handle))}  {prize} CUBES")
    return lines, result


def _games_show(args: argparse.Namespace, config: Config) -> int:
    with _open(config) as ledger:
        g = ledger.game(args.id)
        if g is None:
            raise CliError(f"no game {args.id}")
        tournament, standings = _tournament_lines(g, ledger)
    if args.json:
        print(json.dumps(dataclasses.asdict(g), indent=2))
        return 0
    if args.phh:
        phh = (g.history or {}).get("phh")
        if not phh:
            raise CliError(f"game {g.id} has no PHH record (only finished Hold'em hands do)")
        print(phh, end="" if phh.endswith("\n") else "\n")
        return 0
    print(f"Game {g.id}")
    print(f"  table:        {g.table}")
    for line in tournament:
        print(line)
    print(f"  players:      {', '.join(g.players)}")
    print(f"  started:      {_when(g.started_at)}")
    print(f"  ended:        {_when(g.ended_at) if g.ended_at is not None else 'not yet'}")
    print(f"  result:       {_result(g)}")
    for line in standings:
        print(line)
    if g.client_seeds is None:
        print(f"  deck hash:    {g.deck_hash}")
    else:
        print(f"  commitment:   {g.commitment}")
        print(f"  client seeds: {_seeds_text(g)}")
        print(f"  server seed:  {g.server_seed or 'secret until the game ends'}")
    if g.history:
        print("Hand history:")
        for key, value in g.history.items():
            if key in ("commitment", "players", "phh", "tournament"):
                continue   # printed above, or by --phh
            if key == "operations" and isinstance(value, list):
                _show_operations(value, g.history.get("game"))
            else:
                _show_value(key, value, "  ")
    return 0


def _seeds_text(g: Any) -> str:
    """``alice "phrase", bob "1f0c9a2e"``: the client seeds with the players dealt in, in
    seat order."""
    return ", ".join(f'{who} "{seed}"' for who, seed in zip(g.players, g.client_seeds or ()))


def _game_kind(g: Any, config: Config) -> str:
    """The game kind of record ``g``: as its history says, else its table's in the config,
    else the default kind (the only kind before the history named it)."""
    kind = (g.history or {}).get("game")
    if isinstance(kind, str):
        return kind
    spec = next((s for s in config.table_specs if s.id == g.table), None)
    return spec.game if spec is not None else DEFAULT_KIND


def _published_in_advance(g: Any, ledger: Ledger) -> tuple[bool | None, str]:
    """Whether game record ``g``'s commitment is the one its table published for it before
    its client seeds were fixed (when the game opened), and the line that says so: True
    (it is), False (it is not: another was on show, or it was published only after, or
    its record names another game), None (the table had published none by then: a game
    played before tables published their next game's commitment, schema 15)."""
    pub = ledger.publication(g.table, g.commitment)
    if pub is None:
        shown = ledger.published_before(g.table, g.started_at)
        if shown is None:
            return None, (f"  published in advance: not recorded (table {g.table} published "
                          f"no commitment before this game)")
        return False, (f"  published in advance: NO, its commitment is not the one table "
                       f"{g.table} had published for it (that was {shown.commitment}, "
                       f"published {_when(shown.published_at)})")
    if pub.published_at > g.started_at:
        return False, (f"  published in advance: NO, its commitment was published only after "
                       f"the game's client seeds were fixed ({pub.published_at - g.started_at:.1f}"
                       f" s after, {_when(pub.published_at)})")
    if pub.game_id != g.id:
        dealt = f"game {pub.game_id}" if pub.game_id is not None else "no game"
        return False, (f"  published in advance: NO, table {g.table} recorded {dealt} as dealt "
                       f"from it")
    return True, (f"  published in advance: yes, at table {g.table}, "
                  f"{g.started_at - pub.published_at:.1f} s before the game's client seeds "
                  f"were fixed ({_when(pub.published_at)})")


def _verify_one(g: Any, config: Config, verbose: bool, ledger: Ledger) -> bool | None:
    """Check game record ``g`` (docs/fairness.md) and print what was found: the verdict
    line, the check that its commitment was published before the game (with ``verbose``
    or when it fails) and with ``verbose`` the seeds and the deck. Returns True
    (verified), False (a mismatch) or None (nothing to check: no seal, or still
    running)."""
    from bbspoker.rules.audit import verify_deal
    if g.client_seeds is None:
        print(f"game {g.id}: not verifiable (dealt before the provably fair shuffle)")
        return None
    if g.server_seed is None:
        print(f"game {g.id}: still running; its server seed is revealed when it ends")
        return None
    try:
        seed = bytes.fromhex(g.server_seed)
        kind = _game_kind(g, config)
        operations = (g.history or {}).get("operations") or []
        verdict = verify_deal(kind, g.id, seed, g.commitment, g.client_seeds, operations)
    except (ValueError, LookupError, TypeError, AttributeError) as err:
        print(f"game {g.id}: FAILED, the record cannot be read ({err})")
        return False
    published, published_line = _published_in_advance(g, ledger)
    ok = verdict.ok and published is not False
    head = "verified" if ok else "FAILED"
    what = (f"{verdict.checked} cards dealt, drawn and shown match the deck" if operations
            else "no cards recorded (called off before the record was kept)")
    print(f"game {g.id}: {head} ({what})" if ok else f"game {g.id}: {head}")
    if not verdict.commitment_ok:
        print(f"  the server seed does not match the commitment shown at the start: "
              f"SHA-256({g.server_seed}) is not {g.commitment}")
    for m in verdict.mismatches:
        who = f"{m.handle}, " if m.handle else ""
        print(f"  step {m.step} ({who}{m.what}): the deck gives {m.expected or 'no card'}, "
              f"the record says {m.recorded or 'none'}")
    if verbose or published is False:
        print(published_line)
    if verbose:
        print(f"  commitment:   {g.commitment}")
        print(f"  server seed:  {g.server_seed}")
        print(f"  client seeds: {_seeds_text(g)}")
        print(f"  deck ({kind}, top first): {' '.join(verdict.deck)}")
    return ok


def _games_verify(args: argparse.Namespace, config: Config) -> int:
    counts = {True: 0, False: 0, None: 0}
    with _open(config) as ledger:
        if args.all:
            first = 1
            while page := ledger.games_from(first):
                for g in page:
                    counts[_verify_one(g, config, False, ledger)] += 1
                first = page[-1].id + 1
        else:
            for game_id in args.ids:
                record = ledger.game(game_id)
                if record is None:
                    raise CliError(f"no game {game_id}")
                counts[_verify_one(record, config, len(args.ids) == 1, ledger)] += 1
    if args.all or len(args.ids) > 1:
        print(f"{counts[True]} verified, {counts[False]} FAILED, {counts[None]} not verifiable")
    return 1 if counts[False] else 0


def _show_operations(operations: list[Any], kind: str | None) -> None:
    """The game's record, one numbered line per operation in the words of the table's
    messages for its game kind ``kind`` (the record's ``"game"``; an entry this code
    cannot read is printed as JSON)."""
    from bbspoker.door.screens.kinds import describe_operation
    print("  operations:")
    for n, op in enumerate(operations, 1):
        try:
            line = describe_operation(op, kind)
        except (KeyError, TypeError, ValueError, AttributeError):
            line = json.dumps(op)
        print(f"  {n:>4}. {line}")


def _ledger_verify(args: argparse.Namespace, config: Config) -> int:
    with _open(config) as ledger:
        problems = ledger.verify()
        if not problems:
            t = ledger.totals()
            n_accounts = len(ledger.list_accounts())
    for line in problems:
        print(line)
    if problems:
        print(f"ledger verify: {len(problems)} discrepancies", file=sys.stderr)
        return 1
    print(f"ledger OK: {n_accounts} accounts hold {_where_cubes_are(t)}")
    return 0


def _where_cubes_are(t: Any) -> str:
    """Where all CUBES are and how many entered, as ``ledger verify`` says it (a
    :class:`~bbspoker.store.sql.records.Totals`)."""
    return (f"{t.accounts} CUBES, system {t.system}, open pots {t.open_pots}, stacks "
            f"{t.stacks}, tournament pools {t.pools}; grants {t.grants} - takes {t.takes} = "
            f"{t.grants - t.takes}")


def _ledger_copy(args: argparse.Namespace, config: Config) -> int:
    """``ledger copy --to TARGET``: the configured ledger, row for row, into a new ledger at
    TARGET (a ``postgresql://`` URL or a SQLite file), then ``ledger verify`` of both and
    their totals compared (:mod:`bbspoker.store.sql.copy`). Exit 1 if either does not
    verify or their totals differ."""
    from bbspoker.store.sql.copy import copy_ledger

    target = args.to
    if not target.startswith(("postgresql://", "postgres://")) and os.path.exists(target) \
            and os.path.getsize(target) > 0:
        raise CliError(f"{target} exists: a ledger is copied only into a new database")
    with _open(config) as source, open_ledger(target, starting_cubes=source.starting_cubes) \
            as destination:
        started = time.monotonic()
        report = copy_ledger(source, destination)
        seconds = time.monotonic() - started
        for table, count in report.rows.items():
            print(f"{table:<20} {count:>10,} rows")
        print(f"copied {sum(report.rows.values()):,} rows from {source.path} to "
              f"{destination.path} in {seconds:.1f} s")
        status = 0
        totals = {}
        for name, ledger in (("source", source), ("copy", destination)):
            problems = ledger.verify()
            totals[name] = ledger.totals()
            t = totals[name]
            if problems:
                status = 1
                for line in problems:
                    print(f"{name}: {line}")
                print(f"ledger verify of the {name}: {len(problems)} discrepancies")
            else:
                print(f"ledger verify of the {name}: OK: accounts hold {_where_cubes_are(t)}")
        if totals["source"] != totals["copy"]:
            status = 1
            print("the totals differ: the source changed after the copy's snapshot (a "
                  "server still playing on it) or the copy is not whole", file=sys.stderr)
        else:
            print("the totals of the source and the copy are equal")
    return status


def _tournaments_list(args: argparse.Namespace, config: Config) -> int:
    with _open(config) as ledger:
        shown = [(t, len(ledger.tournament_entries(t.id)), ledger.pool(t.id))
                 for t in ledger.tournaments(args.status)[:args.limit]]
    if not shown:
        print("no tournaments")
        return 0
    key_width = max(3, *(len(t.key) for t, _, _ in shown))
    kind_width = max(4, *(len(t.kind) for t, _, _ in shown))
    print(f"{'ID':>5}  {'KEY':<{key_width}}  {'KIND':<{kind_width}}  {'BUY-IN':>7}  "
          f"{'STATUS':<11}  {'ENTRANTS':>8}  {'POOL':>8}  NAME")
    for t, entrants, pool in shown:
        print(f"{t.id:>5}  {clean_text(t.key):<{key_width}}  {clean_text(t.kind):<{kind_width}}  "
              f"{t.buy_in:>7}  {t.status:<11}  {entrants:>8}  {pool:>8}  {clean_text(t.name)}")
    return 0


def _tournaments_show(args: argparse.Namespace, config: Config) -> int:
    with _open(config) as ledger:
        t = ledger.tournament(args.id)
        if t is None:
            raise CliError(f"no tournament {args.id}")
        entries = ledger.tournament_entries(t.id)
        pool = ledger.pool(t.id)
        hands = ledger.tournament_hands(t.id)
    if args.json:
        print(json.dumps({**dataclasses.asdict(t), "pool": pool,
                          "entries": [dataclasses.asdict(e) for e in entries],
                          "hands": None if hands is None else dict(zip(
                              ("first", "last", "count"), hands))}, indent=2))
        return 0
    print(f"Tournament {t.id}: {clean_text(t.name)}")
    print(f"  key:        {clean_text(t.key)}")
    print(f"  kind:       {clean_text(t.kind)}")
    print(f"  buy-in:     {t.buy_in} CUBES")
    print(f"  status:     {t.status}")
    print(f"  pool:       {pool} CUBES")
    print(f"  created:    {_when(t.created_at)}")
    if t.starts_at is not None:
        print(f"  starts at:  {_when(t.starts_at)}")
    print(f"  started:    {_when(t.started_at) if t.started_at is not None else 'not yet'}")
    if t.ended_at is not None:
        print(f"  ended:      {_when(t.ended_at)}")
    if t.reason is not None:
        print(f"  cancelled:  {clean_text(t.reason)}")
    if hands is not None:
        first, last, count = hands
        print(f"  hands:      games {first}-{last} ({count} hands; bbspoker games show ID, "
              f"the last one gives the result)")
    if not entries:
        print("No entrants.")
        return 0
    # By place once placed (the unplaced after, in the order they registered).
    ordered = sorted(entries, key=lambda e: (e.place is None, e.place or 0))
    width = max(6, *(len(e.handle) for e in entries))
    print(f"  {'PLACE':>5}  {'HANDLE':<{width}}  {'BUY-IN':>7}  {'PRIZE':>7}")
    for e in ordered:
        place = "-" if e.place is None else str(e.place)
        prize = "-" if e.prize is None else str(e.prize)
        print(f"  {place:>5}  {clean_text(e.handle):<{width}}  {e.buy_in:>7}  {prize:>7}")
    return 0


def _tournaments_cancel(args: argparse.Namespace, config: Config) -> int:
    with _open(config) as ledger:
        refunds = ledger.cancel_tournament(args.id, args.reason)
    paid = ", ".join(f"{handle} {cubes} CUBES" for handle, cubes in refunds.items())
    print(f"tournament {args.id} cancelled ({args.reason}); refunded: {paid or 'nothing'}")
    return 0


def _backup(args: argparse.Namespace, config: Config) -> int:
    with _open(config) as ledger:
        ledger.backup(args.file)
    print(f"backed up {config.ledger.path} to {args.file}")
    return 0


def _bulletin(args: argparse.Namespace, config: Config) -> int:
    """The hall of fame of ``--period`` (``--game``, ``--bbs``), or with ``--tournaments``
    the standings of ``--season``, in ``--format``, to ``-o FILE`` (replaced whole at
    once: a BBS reading it meanwhile sees the old file or the new one) or standard
    output."""
    from bbspoker.door import halloffame
    from bbspoker.door.i18n import translator
    if args.tournaments:
        for option, value in (("--game", args.game), ("--period", args.period)):
            if value is not None:
                raise CliError(f"{option} chooses the hall of fame's games; the tournament "
                               "standings take --season")
        return _write_bulletin(args, _standings_bulletin(args, config))
    if args.season is not None:
        raise CliError("--season needs --tournaments (the hall of fame takes --period)")
    period = args.period or "all"
    with _open(config) as ledger:
        results = ledger.results(halloffame.PERIODS[period])
    kinds = {spec.id: spec.game for spec in config.table_specs}
    entries = halloffame.rank(results, kinds, game=args.game, bbs=args.bbs)
    now = time.time()
    within = halloffame.PERIODS[period]
    where = dict(game=args.game, period=period, bbs=args.bbs, now=now)
    t = translator(args.lang or config.i18n.default)
    data: bytes
    if args.format == "json":
        data = halloffame.json_bulletin(entries, since=None if within is None else now - within,
                                        **where).encode("utf-8")
    elif args.format == "ascii":
        data = halloffame.ascii_bulletin(entries, t=t, **where).encode("ascii")
    else:
        data = halloffame.ansi_bulletin(entries, t=t, **where)
    return _write_bulletin(args, data)


def _standings_bulletin(args: argparse.Namespace, config: Config) -> bytes:
    """The tournament standings of ``--season`` (``[seasons] length``, local time) as the
    bulletin's bytes in ``--format``."""
    from bbspoker.door import halloffame
    from bbspoker.door.i18n import translator
    now = time.time()
    season = halloffame.season_at(args.season or "current", config.seasons.length, now)
    with _open(config) as ledger:
        standings = ledger.tournament_standings(*halloffame.season_bounds(season))
    entries = halloffame.rank_standings(standings, bbs=args.bbs)
    t = translator(args.lang or config.i18n.default)
    if args.format == "json":
        return halloffame.json_standings(entries, season=season, length=config.seasons.length,
                                         bbs=args.bbs, now=now).encode("utf-8")
    if args.format == "ascii":
        return halloffame.ascii_standings(entries, season=season, bbs=args.bbs, now=now,
                                          t=t).encode("ascii")
    return halloffame.ansi_standings(entries, season=season, bbs=args.bbs, now=now, t=t)


def _write_bulletin(args: argparse.Namespace, data: bytes) -> int:
    """``data`` to ``-o FILE`` (:func:`_replace_file`) or standard output."""
    if args.output is None:
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        return 0
    _replace_file(args.output, data)
    return 0


def _replace_file(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` through a new file in the same directory renamed over
    it (mode 0644: the BBS may run as another user), so that a reader never sees half a
    file; CliError if it cannot be written (nothing is left behind)."""
    import tempfile
    folder = os.path.dirname(os.path.abspath(path))
    try:
        fd, temp = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(path)}.")
    except OSError as exc:
        raise CliError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(temp, 0o644)
        os.replace(temp, path)
    except OSError as exc:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise CliError(f"cannot write {path}: {exc.strerror or exc}") from None


def _door(args: argparse.Namespace, config: Config) -> int:
    """``bbspoker door``: read the drop file, pick the BBS system, its secret and the
    server's address, reach the caller (stdio, an inherited socket or a port to connect
    back to) and relay them (:func:`bbspoker.transport.dropfile.run_door`)."""
    door = importlib.import_module("bbspoker.transport.dropfile")
    drop = door.read_drop_file(args.dropfile)
    if args.minutes is not None:
        drop = dataclasses.replace(drop, minutes=min(drop.minutes, args.minutes))
    if args.bbs is not None:
        system = next((s for s in config.bbs if s.tag.lower() == args.bbs.lower()), None)
        tag = system.tag if system is not None else args.bbs
    elif len(config.bbs) == 1:
        system = config.bbs[0]
        tag = system.tag
    else:
        raise CliError("which BBS is this? give --bbs TAG (the config has "
                       f"{len(config.bbs)} [[bbs]] systems)")
    if args.secret_file is not None:
        try:
            with open(args.secret_file, encoding="utf-8") as fh:
                secret = fh.readline().strip()
        except OSError as exc:
            raise CliError(f"cannot read secret file {args.secret_file}: {exc.strerror}") from None
    else:
        secret = system.secret if system is not None else ""
    if args.server is not None:
        server = args.server
    else:
        host = config.rlogin.host
        server = ("127.0.0.1" if host in ("", "0.0.0.0", "::") else host, config.rlogin.port)
    socket_out = None
    if args.connect is not None:
        caller, socket_out = door.Caller.connect_back(*args.connect)
    elif args.socket_fd is not None:
        caller = door.Caller.inherited_socket(args.socket_fd)
    elif not args.stdio and drop.comm_type == 2 and drop.handle is not None \
            and drop.handle >= 0:
        caller = door.Caller.inherited_socket(drop.handle)
    else:
        caller = door.Caller.stdio()
    kind = args.term or (os.environ.get("TERM") if caller.tty_fd is not None else None) \
        or "ansi-bbs"
    try:
        door.run_door(drop, caller, server, tag, secret, kind=kind, charset=args.charset)
    except door.DoorError as exc:
        raise CliError(str(exc)) from None
    finally:
        if socket_out is not None:
            socket_out.close()
    return 0


def _address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:2513`` for IPv6) as ``(host, port)``; a usage error
    otherwise."""
    host, sep, port = text.strip().rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isascii() or not port.isdigit() \
            or not 0 < int(port) < 65536:
        raise argparse.ArgumentTypeError(f"not HOST:PORT: {clean_text(text)[:60]!r}")
    return host, int(port)


def _bbs_tag(text: str) -> str:
    """A ``--bbs`` tag: 2 to 8 ASCII letters or digits, as the BBS's players' handles end
    (``alias@TAG``), brackets allowed around it; a usage error otherwise."""
    tag = text.strip().strip("[]")
    if not (2 <= len(tag) <= 8 and tag.isascii() and tag.isalnum()):
        raise argparse.ArgumentTypeError(f"a BBS tag has 2 to 8 letters or digits, got "
                                         f"{clean_text(text)[:20]!r}")
    return tag.upper()


# ------------------------------------------------------------------ parser


def _int_at_least(lowest: int, highest: int | None = None) -> Callable[[str], int]:
    def parse(text: str) -> int:
        if not text.strip().isascii() or not text.strip().lstrip("-").isdigit() \
                or len(text.strip()) > 30:
            raise argparse.ArgumentTypeError(f"not a whole number: {text[:40]!r}")
        value = int(text)
        if value < lowest:
            raise argparse.ArgumentTypeError(f"must be at least {lowest}, got {value}")
        if highest is not None and value > highest:
            raise argparse.ArgumentTypeError(f"must be at most {highest:,}, got {value:,}")
        return value
    return parse


def _reason(text: str) -> str:
    """A ``--reason`` as stored and shown: without control or escape characters
    (:func:`bbspoker.text.clean_text`), surrounding spaces dropped; a usage error if
    nothing printable is left."""
    cleaned = clean_text(text).strip()
    if not cleaned:
        raise argparse.ArgumentTypeError("a reason needs printable text")
    return cleaned


def _cubes_at_least(lowest: int) -> Callable[[str], int]:
    """An amount of CUBES on the command line: ``lowest`` .. :data:`MAX_CUBES`."""
    return _int_at_least(lowest, MAX_CUBES)


def _parser() -> argparse.ArgumentParser:
    # --config is accepted before the command and after it (SUPPRESS: a
    # subcommand does not overwrite a value given before it).
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--config", metavar="FILE", default=argparse.SUPPRESS,
                        help="TOML config file (default: $BBSPOKER_CONFIG, else built-in "
                             "defaults); $BBSPOKER_DB overrides the database (a file or a "
                             "postgresql:// URL)")
    parser = argparse.ArgumentParser(
        prog="bbspoker", parents=[common],
        description="Global Village BBS PoKeR: telnet door server and sysop tools.")
    parser.add_argument("--version", action="version", version=f"bbspoker {__version__}")
    commands = parser.add_subparsers(metavar="COMMAND", required=True)

    def command(group, name: str, help: str, run) -> argparse.ArgumentParser:
        sub = group.add_parser(name, parents=[common], help=help, description=help)
        sub.set_defaults(run=run)
        return sub

    def group(name: str, help: str):
        sub = commands.add_parser(name, parents=[common], help=help, description=help)
        return sub.add_subparsers(metavar="ACTION", required=True)

    p = command(commands, "serve", "run the telnet server in the foreground", _serve)
    p.add_argument("--host", help="address to listen on (overrides [server] host)")
    p.add_argument("--port", type=_int_at_least(0, 65535), help="TCP port (overrides [server] port)")

    p = command(commands, "gateway", "run a gateway of the split deployment in the foreground: "
                "the sessions and the door, the tables on the workers ([cluster], a "
                "PostgreSQL [ledger] url)", _gateway)
    p.add_argument("--host", help="address to listen on (overrides [server] host)")
    p.add_argument("--port", type=_int_at_least(0, 65535), help="TCP port (overrides [server] port)")
    p.add_argument("--name", help="this gateway's name in logs and [W]ho (overrides [cluster] "
                   "name; default: gateway-HOST-PID)")
    p = command(commands, "worker", "run a worker of the split deployment in the foreground: "
                "the tables whose leases it wins, served to the gateways over NATS "
                "([cluster], a PostgreSQL [ledger] url)", _worker)
    p.add_argument("--name", help="this worker's name in logs (overrides [cluster] name; "
                   "default: worker-HOST-PID)")

    users = group("users", "manage accounts")
    p = command(users, "add", "create an account (asks for the password twice)", _users_add)
    p.add_argument("name", help="handle, 2-16 printable characters")
    p.add_argument("--cubes", type=_cubes_at_least(0),
                   help="starting CUBES (default: [ledger] starting_cubes)")
    p.add_argument("--password-file", metavar="F",
                   help="read the password from the first line of F instead of asking")
    p.add_argument("--bot", action="store_true",
                   help="a computer player's account (seated by tables with bots = N; no "
                        "password unless --password-file gives one, for the bot port)")
    command(users, "list", "list all accounts", _users_list)
    p = command(users, "approve", "let a new account log in ([login] approval), with its "
                "starting CUBES", _users_approve)
    p.add_argument("name")
    p.add_argument("--cubes", type=_cubes_at_least(0),
                   help="starting CUBES (default: [ledger] starting_cubes)")
    p = command(users, "show", "show one account", _users_show)
    p.add_argument("name")
    p = command(users, "passwd", "set a new password (asks twice)", _users_passwd)
    p.add_argument("name")
    p.add_argument("--password-file", metavar="F",
                   help="read the password from the first line of F instead of asking")
    p = command(users, "ban", "bar a handle from logging in", _users_ban)
    p.add_argument("name")
    p.add_argument("--reason", required=True, type=_reason,
                   help="why (recorded, shown by users show)")
    p = command(users, "kick", "end a user's session on the running server (not a ban)",
                _users_kick)
    p.add_argument("name")
    p.add_argument("--reason", required=True, type=_reason, help="why (shown to the user)")
    p = command(users, "unban", "lift a ban", _users_unban)
    p.add_argument("name")
    bbs = group("bbs", "the BBSes whose callers come in over RLOGIN ([[bbs]])")
    command(bbs, "list", "list the configured BBSes, their accounts and bans", _bbs_list)
    p = command(bbs, "ban", "refuse every caller of a BBS, and send away those online",
                _bbs_ban)
    p.add_argument("tag", type=_bbs_tag, help="the BBS's tag ([[bbs]] tag)")
    p.add_argument("--reason", required=True, type=_reason, help="why (shown to its callers)")
    p = command(bbs, "unban", "lift a BBS's ban", _bbs_unban)
    p.add_argument("tag", type=_bbs_tag)
    key = users.add_parser("key", parents=[common], help="public keys for logging in over SSH",
                           description="public keys for logging in over SSH")
    keys = key.add_subparsers(metavar="ACTION", required=True)
    p = command(keys, "add", "let a user log in over SSH with the public key(s) in FILE "
                "(OpenSSH format, e.g. id_ed25519.pub)", _users_key_add)
    p.add_argument("name")
    p.add_argument("file", metavar="FILE")
    p = command(keys, "list", "a user's public keys and their fingerprints", _users_key_list)
    p.add_argument("name")
    p = command(keys, "remove", "forget one of a user's public keys", _users_key_remove)
    p.add_argument("name")
    p.add_argument("fingerprint", metavar="FINGERPRINT", help="SHA256:... as users key list shows")

    cubes = group("cubes", "show and adjust CUBES (every change is journalled)")
    p = command(cubes, "show", "show the CUBES of a handle", _cubes_show)
    p.add_argument("name")
    p.add_argument("--json", action="store_true",
                   help='print {"handle": ..., "cubes": N (the account), "stacks": {TABLE: N}, '
                        '"total": N} as JSON')
    for name, method, verb, lowest, help in (
            ("grant", "grant", "+{}", 1, "give N CUBES to a handle"),
            ("take", "take", "-{}", 1, "take N CUBES from a handle (never below zero)"),
            ("set", "set_cubes", "set to {}", 0,
             "set the CUBES in a handle's account to N (stacks at tables are not affected)")):
        p = command(cubes, name, help, _adjuster(method, verb))
        p.add_argument("name")
        p.add_argument("n", metavar="N", type=_cubes_at_least(lowest), help="CUBES")
        p.add_argument("--reason", required=True, type=_reason,
                       help="why (recorded in the journal)")
    p = command(cubes, "history", "journal rows of a handle, newest first", _cubes_history)
    p.add_argument("name")
    p.add_argument("--limit", type=_int_at_least(1, 10**6), default=20, help="rows (default 20)")

    games = group("games", "recorded games and hand histories")
    p = command(games, "list", "the latest games, newest first", _games_list)
    p.add_argument("--limit", type=_int_at_least(1, 10**6), default=20, help="games (default 20)")
    p.add_argument("--table", metavar="ID", help="only the games of table ID ([[tables]] id)")
    p = command(games, "show", "one game's hand history", _games_show)
    p.add_argument("id", metavar="ID", type=_int_at_least(1, 2**62))
    p.add_argument("--json", action="store_true", help="the whole record as JSON")
    p.add_argument("--phh", action="store_true",
                   help="a Hold'em hand in the Poker Hand History format (PHH)")
    p = command(games, "verify", "check games' decks against their revealed seeds "
                "(docs/fairness.md; exit 1 if any card differs)", _games_verify)
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("ids", metavar="ID", nargs="*", default=[],
                       type=_int_at_least(1, 2**62), help="the games to check")
    which.add_argument("--all", action="store_true", help="every recorded game")

    ledger = group("ledger", "check the books")
    command(ledger, "verify", "check that every CUBE is accounted for (exit 1 if not)",
            _ledger_verify)
    p = command(ledger, "copy", "copy the whole ledger into a new database (SQLite to "
                "PostgreSQL or back), then verify both", _ledger_copy)
    p.add_argument("--to", required=True, metavar="TARGET",
                   help="a postgresql:// URL of an empty database, or a new SQLite file")

    tournaments = group("tournaments", "tournaments, their entrants and prize pools")
    p = command(tournaments, "list", "the latest tournaments, newest first",
                _tournaments_list)
    p.add_argument("--status", action="append", choices=TOURNAMENT_STATUSES,
                   help="only tournaments in this status (may be given more than once)")
    p.add_argument("--limit", type=_int_at_least(1, 10**6), default=20,
                   help="tournaments (default 20)")
    p = command(tournaments, "show", "one tournament: status, pool, entrants, places and "
                "prizes", _tournaments_show)
    p.add_argument("id", metavar="ID", type=_int_at_least(1, 2**62))
    p.add_argument("--json", action="store_true",
                   help="the whole record, its pool and entries as JSON")
    p = command(tournaments, "cancel", "call a registering or running tournament off and "
                "give every entrant their buy-in back", _tournaments_cancel)
    p.add_argument("id", metavar="ID", type=_int_at_least(1, 2**62))
    p.add_argument("--reason", required=True, type=_reason,
                   help="why (recorded with the tournament and on each refund)")

    p = command(commands, "stats", "a season's tournament standings (points, tournaments, "
                "wins, cashes, net CUBES), or one player's results and tournament lines",
                _stats)
    p.add_argument("name", nargs="?", metavar="HANDLE",
                   help="this player's results per table and in tournaments")
    p.add_argument("--season", choices=["current", "previous", "all"], default=None,
                   help="the season under way (default), the one before, or all time "
                        "([seasons] length)")

    p = command(commands, "backup", "copy the database safely while the server runs", _backup)
    p.add_argument("file", metavar="FILE", help="new file to write (must not exist)")

    p = command(commands, "bulletin", "the hall of fame (the top ten by net CUBES won) or a "
                "season's tournament standings as a BBS's logon bulletin, plain ASCII or "
                "JSON", _bulletin)
    p.add_argument("--game", choices=GAME_KINDS, help="only the games of this kind's tables")
    p.add_argument("--period", choices=["week", "month", "all"], default=None,
                   help="games that ended in the last 7 days, the last 30, or ever (default)")
    p.add_argument("--tournaments", action="store_true",
                   help="the tournament standings of a season (the top ten by points) "
                        "instead of the hall of fame")
    p.add_argument("--season", choices=["current", "previous", "all"], default=None,
                   help="with --tournaments: the season under way (default), the one "
                        "before, or all time ([seasons] length)")
    p.add_argument("--format", choices=["ansi", "ascii", "json"], default="ansi",
                   help="ansi: an 80x24 CP437 ANSI screen with a SAUCE record (default); "
                        "ascii: the same in plain ASCII; json: for a web page")
    p.add_argument("--bbs", metavar="TAG", type=_bbs_tag,
                   help="only the players of that BBS (handles alias@TAG)")
    p.add_argument("--lang", choices=LANGUAGES,
                   help="language of the screen (default: [i18n] default)")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write FILE (replaced at once) instead of standard output")

    p = command(commands, "door", "the drop-file door: relay a BBS's caller to the server",
                _door)
    p.add_argument("dropfile", metavar="DROPFILE",
                   help="DOOR32.SYS, DOOR.SYS, DORINFOn.DEF or CHAIN.TXT (by name, any case), "
                        "or the directory that holds it")
    how = p.add_mutually_exclusive_group()
    how.add_argument("--stdio", action="store_true",
                     help="the caller is on standard input and output (the default, unless "
                          "DOOR32.SYS gives a socket handle)")
    how.add_argument("--socket-fd", metavar="N", type=_int_at_least(0, 65535),
                     help="the caller's telnet socket is inherited as descriptor N "
                          "(default: DOOR32.SYS line 2 when line 1 is 2)")
    how.add_argument("--connect", metavar="HOST:PORT", type=_address,
                     help="connect back to the BBS's port for the caller (ENiGMA's io: socket)")
    p.add_argument("--server", metavar="HOST:PORT", type=_address,
                   help="the bbspoker server's RLOGIN port (default: 127.0.0.1 and "
                        "[rlogin] port)")
    p.add_argument("--bbs", metavar="TAG", type=_bbs_tag,
                   help="this BBS's [[bbs]] tag (default: the config's only system)")
    p.add_argument("--secret-file", metavar="F",
                   help="read the system's secret from the first line of F (default: "
                        "the [[bbs]] entry's secret)")
    p.add_argument("--term", metavar="KIND",
                   help="the caller's terminal type (default: $TERM on a terminal, else "
                        "ansi-bbs)")
    p.add_argument("--charset", choices=["cp437", "utf-8"],
                   help="the caller's character set (default: the system's, else the "
                        "server asks the terminal)")
    p.add_argument("--minutes", metavar="N", type=_int_at_least(0, 24 * 60),
                   help="at most N minutes, if the drop file gives more")

    p = command(commands, "sim", "computer players play each other; CUBES won per game",
                _sim)
    p.add_argument("--game", default=None,
                   help="game kind (a [[tables]] game with computer players; default the "
                        "first)")
    p.add_argument("--players", type=_int_at_least(2), default=None,
                   help="seats (as many as the kind seats; default: one per policy)")
    p.add_argument("--games", type=_int_at_least(1), default=None,
                   help="games to play (default 10000; with --tournament: tournaments, "
                        "default 20)")
    p.add_argument("--policies", default=None,
                   help="comma-separated, one per seat, or one for every seat (policy "
                        "names as the game kind has them; default: its strongest against "
                        "a baseline)")
    p.add_argument("--seed", type=int, default=None, help="repeat a run exactly")
    p.add_argument("--tournament", metavar="ID", nargs="?", const="", default=None,
                   help="play whole tournaments: the [[tournaments]] entry ID, or without "
                        "ID a sit-and-go of --players (default 9) of the first game with "
                        "tournaments, at no limit where it has limits, with 1,500 chips and "
                        "the default levels; --game and --limit choose another")
    p.add_argument("--limit", choices=["fixed", "pot", "no"], default=None,
                   help="Hold'em's betting structure (default: the table's, or no limit "
                        "for the built-in sit-and-go)")
    p.add_argument("--seconds-per-action", type=float, default=8.0, metavar="S",
                   help="with --tournament: how far each action moves a table's clock, "
                        "so that levels rise (default 8)")
    return parser


def _sim_tournament(args: argparse.Namespace, config: Config) -> int:
    """``bbspoker sim --tournament``: whole tournaments of computer players."""
    from bbspoker.bots.kinds import bot_kind
    from bbspoker.bots.tournament import simulate_tournaments
    from bbspoker.config import ConfigError, tournament_spec
    from bbspoker.rules.kinds import DEFAULT_TOURNAMENT_KIND, KINDS
    from bbspoker.rules.kinds import kind as game_kind

    if args.tournament:
        spec = next((t for t in config.tournaments if t.id == args.tournament), None)
        if spec is None:
            known = ", ".join(t.id for t in config.tournaments) or "none configured"
            raise CliError(f"no [[tournaments]] entry {args.tournament!r} ({known})")
        if args.game is not None or args.limit is not None:
            entry_keys = {"game", "limit"} & {k for k, v in (("game", args.game),
                                                             ("limit", args.limit)) if v}
            raise CliError(f"--{'/--'.join(sorted(entry_keys))} come from the entry "
                           f"{spec.id!r}; leave them out")
        players = args.players or (spec.sit_and_go or 9)
    else:
        players = args.players or 9
        entry: dict[str, Any] = {"id": "sim", "name": "Sit-and-go", "sit_and_go": players,
                                 "buy_in": 100, "chips": 1500,
                                 "seats_per_table": min(players, 9)}
        if args.game is not None:
            entry["game"] = args.game
        able = [k for k in KINDS if k.tournament is not None]
        chosen = next((k for k in able
                       if k.name == (args.game or DEFAULT_TOURNAMENT_KIND)), None)
        if chosen is not None and "limit" in chosen.config.keys():
            entry["limit"] = args.limit or "no"      # the usual sit-and-go: no limit
        elif args.limit is not None:
            raise CliError(f"--limit is for a game with betting limits, not {args.game}")
        try:
            spec = tournament_spec(entry, config.table, "--tournament")
        except ConfigError as err:
            raise CliError(str(err)) from None
    try:
        bots = bot_kind(spec.game)
    except ValueError as err:
        raise CliError(str(err)) from None
    play = game_kind(spec.game).tournament
    assert play is not None                   # the config takes only kinds that have it
    names = [n.strip() for n in (args.policies or "").split(",") if n.strip()] \
        or [spec.table.bot_policy]
    if len(names) == 1:
        names *= players
    if len(names) != players:
        raise CliError(f"{players} players but {len(names)} policies: name one per seat, "
                       "or one for all")
    count = args.games or 20
    show = sys.stderr.isatty() and count >= 10
    progress = (lambda done: print(f"\r  {done:,} / {count:,} tournaments", end="",
                                   file=sys.stderr, flush=True)) if show else None
    try:
        policies = [bots.policy(n) for n in names]
        result = simulate_tournaments(bots, play, spec.table, spec.rules, policies, count,
                                      seed=args.seed,
                                      seconds_per_action=args.seconds_per_action,
                                      progress=progress)
    except ValueError as err:
        raise CliError(str(err)) from None
    if show:
        print(file=sys.stderr)
    limit = getattr(spec.table, "limit", None)
    what = f"{limit}-limit {spec.game}" if limit else spec.game
    print(f"{result.tournaments:,} tournaments of {what}, {players} players each, "
          f"{spec.rules.seats_per_table} seats a table: {result.hands:,} hands, "
          f"{result.seconds:.1f} s ({result.seconds / result.tournaments:.2f} s each), "
          f"illegal actions: {result.illegal}")
    print(f"longest: {result.longest_hands:,} hands, {result.longest_clock / 60:.0f} "
          f"minutes of table time; chips conserved after every hand; prizes paid "
          f"{result.paid:,} CUBES = the pools")
    print(f"{'POLICY':<10}  {'ENTRIES':>7}  {'MEAN PLACE':>10}  {'PAID':>6}  {'WINS':>6}  "
          f"{'NET CUBES/ENTRY':>15}")
    for r in result.policies.values():
        print(f"{r.policy:<10}  {r.entries:>7,}  {r.mean_place:>10.2f}  "
              f"{r.paid / r.entries:>6.1%}  {r.wins / r.entries:>6.1%}  "
              f"{r.net / r.entries:>+15.2f}")
    for example in result.examples:
        print(f"illegal: {example}")
    return 1 if result.illegal else 0


def _sim(args: argparse.Namespace, config: Config) -> int:
    # Not imported with the parser: the kinds' bots load their rules (and pokerkit).
    from bbspoker.bots.kinds import BOT_KINDS, bot_kind

    if args.tournament is not None:
        return _sim_tournament(args, config)
    if args.games is None:
        args.games = 10_000
    if args.limit is not None:
        raise CliError("--limit is for --tournament runs (a cash table's limit is its "
                       "[[tables]] entry's)")

    if args.game is None:
        args.game = next(iter(BOT_KINDS))
    try:
        kind = bot_kind(args.game)
    except ValueError as err:
        raise CliError(str(err)) from None
    if args.policies is None:
        args.policies = ",".join(kind.sim_policies)
    names = [n.strip() for n in args.policies.split(",") if n.strip()]
    players = args.players or len(names)
    if len(names) == 1:
        names *= players
    if len(names) != players:
        raise CliError(f"{players} players but {len(names)} policies: name one per seat, "
                       "or one for all")
    show = sys.stderr.isatty() and args.games >= 5000
    progress = (lambda done: print(f"\r  {done:,} / {args.games:,} games", end="",
                                   file=sys.stderr, flush=True)) if show else None
    try:
        policies = [kind.policy(n) for n in names]
        result = kind.simulate(policies, args.games, seed=args.seed, progress=progress)
    except ValueError as err:          # an unknown policy, a number of seats the kind refuses
        raise CliError(str(err)) from None
    if show:
        print(file=sys.stderr)
    print(f"{result.games:,} games of {args.game}, {players} players, "
          f"{result.games_per_second:,.0f} games/s, {result.actions / result.games:.1f} "
          f"actions/game, illegal actions: {result.illegal}")
    print(f"{'SEAT':>4}  {'POLICY':<10}  {'CUBES/GAME':>10}  {'95% CI':>9}")
    for s in result.seats:
        print(f"{s.seat + 1:>4}  {s.policy:<10}  {s.mean:>+10.2f}  {s.ci95:>9.2f}")
    if len(set(names)) < len(names):
        for name, s in result.by_policy().items():
            print(f"{'all':>4}  {name:<10}  {s.mean:>+10.2f}  {s.ci95:>9.2f}")
    if result.to_system:
        print(f"{kind.to_system_note} to the system: {result.to_system:,} CUBES")
    for example in result.illegal_examples:
        print(f"illegal: {example}", file=sys.stderr)
    return 1 if result.illegal else 0


def _drop_output() -> None:
    """Point standard output at the null device, so that what is still buffered for a
    reader who went away is dropped when Python flushes it at exit (instead of a second
    ``BrokenPipeError`` and a message on stderr)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):   # an output with no file descriptor (a test's capture)
        pass


def main(argv: Sequence[str] | None = None) -> int:
    """Run one ``bbspoker`` command; returns the exit status (0 ok, 1 error, 2 usage,
    :data:`EXIT_BROKEN_PIPE`).

    User mistakes (unknown handle, bad config, not enough CUBES, ...) print one
    line ``bbspoker: error: ...`` on stderr and return 1, never a traceback. When the
    reader of standard output goes away (``| head``), the rest of the output is dropped
    without a word and the status is :data:`EXIT_BROKEN_PIPE`, as for a Unix tool.
    """
    args = _parser().parse_args(argv)
    try:
        config = load_config(getattr(args, "config", None))
        status = args.run(args, config)
        sys.stdout.flush()     # a closed pipe shows here, not at the interpreter's exit
        return status
    except BrokenPipeError:
        _drop_output()
        return EXIT_BROKEN_PIPE
    except UnknownAccount as exc:
        message = f"no account named {exc.args[0]}"
    except (CliError, ConfigError, LedgerError, HandleTaken, InsufficientCubes,
            ValueError, OSError) as exc:
        message = str(exc)
    except StoreError as exc:
        message = f"the database cannot be used: {exc}"

    except (KeyboardInterrupt, EOFError):
        message = "cancelled; nothing changed"
    print(f"bbspoker: error: {message}", file=sys.stderr)
    return 1


if __name__ == "__main__":        # python -m bbspoker.cli
    sys.exit(main())
