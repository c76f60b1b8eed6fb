"""Configuration: one TOML file (stdlib ``tomllib``) read into frozen dataclasses.

Which file: the ``path`` given to :func:`load_config` (the ``--config``
option), else the environment variable ``BBSPOKER_CONFIG``, else none at all,
which means every default. Then ``BBSPOKER_DB``, when set, replaces the
database for every command (server and CLI alike): ``[ledger] url`` if it is a
PostgreSQL URL, else ``[ledger] path``.

Sections and keys are exactly the fields below (``[server]``,
``[login]``, ``[ledger]``, ``[table]``, ``[[tables]]``, ``[input]``, ``[output]``, ``[bots]``,
``[ssh]``, ``[web]``, ``[rlogin]``, ``[cluster]``, ``[[bbs]]``), but for the tables: ``[table]`` takes the
keys every game kind has and each kind's own, a ``[[tables]]`` entry those of its kind,
as the kinds' config classes declare them (:data:`bbspoker.rules.kinds.KINDS`);
``config/bbspoker.example.toml`` documents each one with its default. Times
are seconds (an integer or a decimal number), money is whole CUBES. An
unknown section or key, a value of the wrong type or out of range stops the
start with a :class:`ConfigError` naming it.
"""

import dataclasses
import ipaddress
import math
import os
import re
import tomllib
from dataclasses import dataclass, field
from typing import Any

from bbspoker.rules.base import KindConfig, SettingError, setting
from bbspoker.rules.kinds import DEFAULT_KIND, DEFAULT_TOURNAMENT_KIND, KINDS, kind, names
from bbspoker.rules.seasons import LENGTHS as SEASON_LENGTHS
from bbspoker.rules.tournament import (DEFAULT_PAYOUTS, TURBO_LEVELS, Level, PayoutTier,
                                       TournamentRules)

__all__ = ["Config", "ServerConfig", "LoginConfig", "LedgerConfig", "TableConfig", "TableSpec",
           "InputConfig", "OutputConfig", "ConfigError", "load_config",
           "ENV_CONFIG", "ENV_DB", "LOG_LEVELS", "GAME_KINDS", "DEFAULT_TABLE_ID",
           "BOT_POLICIES", "BotPortConfig", "SshConfig", "WebConfig", "HOST_KEY_NAME",
           "I18nConfig", "DoorConfig", "LANGUAGES", "loopback_host", "web_origins", "RloginConfig", "ClusterConfig", "BbsSystem",
           "CHARSETS", "SeasonsConfig", "TournamentSpec", "tournament_spec"]

#: Environment variable naming the config file when ``--config`` is not given.
ENV_CONFIG = "BBSPOKER_CONFIG"
#: Environment variable that overrides ``[ledger] path`` for every command.
ENV_DB = "BBSPOKER_DB"
#: Accepted values of ``[server] log_level``.
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
#: Game kinds a ``[[tables]]`` entry may name (``game``): :data:`bbspoker.rules.kinds.KINDS`.
GAME_KINDS = names()
#: The languages the door speaks (``[i18n] default``, the lobby's [L]).
LANGUAGES = ("en", "de", "fr")
#: Every policy name ``bot_policy`` may hold; each game kind's config checks its own list
#: (``KindConfig.bot_policies``).
BOT_POLICIES = tuple(dict.fromkeys(p for k in KINDS for p in k.config.bot_policies))
#: Id and name of the one table a config without ``[[tables]]`` gets (as before them).
DEFAULT_TABLE_ID, DEFAULT_TABLE_NAME = "poker", "PoKeR"
#: The SSH host key's file name in the ledger's directory, unless ``[ssh] host_key`` says.
HOST_KEY_NAME = "ssh_host_ed25519_key"
_TABLE_ID = re.compile(r"[a-z0-9][a-z0-9_-]{0,23}")
#: A BBS system's tag (``[[bbs]] tag``): 2-8 ASCII letters or digits.
_BBS_TAG = re.compile(r"[A-Za-z0-9]{2,8}")
#: A ``[[bbs]]`` entry's ``charset``: ``""`` (detect it), ``cp437`` or ``utf-8``.
CHARSETS = ("", "cp437", "utf-8")


def loopback_host(name: str | None) -> bool:
    """Whether a host name or address (``"localhost"``, ``"127.0.0.1"``, ``"::1"``, no
    brackets) can only mean this machine: ``localhost`` or an address of the loopback
    range (127.0.0.0/8, ::1). ``""`` or ``"0.0.0.0"`` (every interface) is not."""
    if not name:
        return False
    name = name.lower().rstrip(".")
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def web_origins(value: str) -> list[str]:
    """The origins of ``[web] origins``: comma-separated, blanks and a trailing ``/``
    dropped (``"https://bbs.example.org, http://localhost:8023/"``)."""
    return [o.strip().rstrip("/") for o in value.split(",") if o.strip()]


class ConfigError(Exception):
    """The config file is unreadable, not TOML, or has an unknown key or a bad value;
    the message names the file, section and key."""


def _key(default: Any, lo: float | None = None, hi: float | None = None,
         choices: tuple[str, ...] | None = None, *, empty: bool = False) -> Any:
    """A config field with its default and the range (inclusive) or choices it accepts;
    ``empty``: a string that may be empty."""
    return setting(default, lo, hi, choices, empty=empty)


def _seconds(default: float) -> Any:
    """A duration in seconds that must be above zero (tests use fractions of a second)."""
    return setting(default, positive=True)


@dataclass(frozen=True)
class ServerConfig:
    """``[server]``: where to listen and how many connections to accept.

    ``port`` 0 takes any free port (tests). ``max_connections`` caps all
    connections (every transport), ``max_sessions_per_address`` all of one address,
    logged in or not (so that one address cannot fill the server), ``max_per_address`` those
    from one address that have
    not logged in yet. ``prelogin_timeout`` (s) closes a connection that has
    not logged in; ``lobby_idle_timeout`` (s) one idle in the lobby menu.
    ``log_level`` is one of :data:`LOG_LEVELS` (logs go to stderr). Every ``admin_poll``
    s the server looks for the sysop's bans and kicks (``users ban``, ``users kick``)
    and ends those sessions.
    """

    host: str = _key("127.0.0.1")
    port: int = _key(2323, 0, 65535)
    max_connections: int = _key(2000, 1)
    max_per_address: int = _key(8, 1)
    max_sessions_per_address: int = _key(32, 1)
    prelogin_timeout: float = _seconds(180.0)
    lobby_idle_timeout: float = _seconds(1800.0)
    log_level: str = _key("INFO", choices=LOG_LEVELS)
    admin_poll: float = _key(1.0, 0.01, 60)


@dataclass(frozen=True)
class LoginConfig:
    """``[login]``: defences against password guessing.

    After a failed login the session waits ``failure_delay`` s. ``max_failures``
    failures from one address within ``failure_window`` s lock that address out for
    ``lockout`` s; a handle is never locked out, but after a failure the guesses on it
    are checked one at a time, each after a wait that doubles with every recent
    failure (see :mod:`bbspoker.door.guard`). At most ``hash_workers`` password
    hashes run at once (in threads, off the event loop).

    Sign-ups (every free account brings starting CUBES): one address may create at most
    ``signups_per_address`` accounts at the login prompt within ``signup_window`` s (0:
    only the sysop creates accounts); with ``approval`` a new account can log in, and gets
    its starting CUBES, only once the sysop ran ``bbspoker users approve``.
    """

    failure_delay: float = _key(5.0, 0)
    max_failures: int = _key(5, 1)
    failure_window: float = _seconds(300.0)
    lockout: float = _key(600.0, 0)
    hash_workers: int = _key(2, 1, 64)
    signups_per_address: int = _key(2, 0, 1000)
    signup_window: float = _key(600.0, 1, 86400 * 30)
    approval: bool = _key(False)


@dataclass(frozen=True)
class LedgerConfig:
    """``[ledger]``: the SQLite file of accounts, CUBES and games (``path``, relative to
    the working directory; ``BBSPOKER_DB`` overrides it), or instead a PostgreSQL database
    (``url``: ``postgresql://user:password@host:port/database``, which a URL in
    ``BBSPOKER_DB`` overrides; empty: the SQLite file;
    any other scheme is refused), the CUBES a new account
    starts with (``starting_cubes``), and how often (``sync_interval``, s) the server
    syncs the table's commits to disk, off the event loop (``Ledger.checkpoint``).
    ``allowance``: CUBES the house gives, at most once a day at login, to a player who
    holds fewer than ``allowance_below`` (journalled as ``allowance``; 0: never)."""

    path: str = _key("bbspoker.db")
    url: str = _key("", empty=True)
    starting_cubes: int = _key(1000, 0, 10**12)
    sync_interval: float = _key(1.0, 0.05, 3600)
    allowance: int = _key(0, 0, 10**9)
    allowance_below: int = _key(100, 0, 10**12)


#: The keys every game kind has (:class:`~bbspoker.rules.base.KindConfig`'s own fields).
_SHARED = {f.name: f for f in dataclasses.fields(KindConfig)}


def _shared(name: str) -> Any:
    """A ``[table]`` field as :class:`~bbspoker.rules.base.KindConfig` declares it: its
    default and the range the file may give it."""
    f = _SHARED[name]
    return field(default=f.default, metadata=f.metadata)


def _kind_fields() -> dict[str, dataclasses.Field]:
    """The keys of the game kinds beyond the shared ones, each as the first kind that has
    it declares it (the default kind first, then the registry's order): its field, whose
    default is the ``[table]`` default of the key."""
    found: dict[str, dataclasses.Field] = {}
    for spec in sorted(KINDS, key=lambda k: k.name != DEFAULT_KIND):
        for f in dataclasses.fields(spec.config):
            if f.name not in _SHARED:
                found.setdefault(f.name, f)
    return found


def _kind_defaults() -> dict[str, Any]:
    """``{key: default}`` of every kind's own key (:func:`_kind_fields`)."""
    return {name: f.default for name, f in _kind_fields().items()}


@dataclass(frozen=True)
class TableConfig:
    """``[table]``: the defaults of every table. The keys every game kind has are
    attributes here, declared (default, range) by
    :class:`~bbspoker.rules.base.KindConfig`; a kind's own keys (its config class,
    listed in :data:`bbspoker.rules.kinds.KINDS`, says what each means, which
    ``[table]`` defaults it takes and what it requires of them) are in ``kind_keys``:
    ``{key: value}`` of every key of every kind, the file's or the default of the first
    kind that has it (the default kind first). The section is checked as the config of
    the kind of a table that names none (the one table of a config without
    ``[[tables]]``). ``shutdown_grace`` is the server's, for all tables: on SIGTERM a
    running game gets that long (s) to finish before it is called off and refunded.

    A table's :class:`TableSpec` holds these with the table's own keys applied
    (``rules``) and its kind's config made of them (``config``: what the door and the
    computer players read a kind's keys from).
    """

    seats: int = _shared("seats")
    turn_timeout: float = _shared("turn_timeout")
    reconnect_grace: float = _shared("reconnect_grace")
    seat_idle_timeout: float = _shared("seat_idle_timeout")
    bots: int = _shared("bots")
    bot_policy: str = _shared("bot_policy")
    bot_think_min: float = _shared("bot_think_min")
    bot_think_max: float = _shared("bot_think_max")
    shutdown_grace: float = _key(120.0, 0)
    kind_keys: dict[str, Any] = field(default_factory=_kind_defaults, hash=False)

    def keys(self) -> dict[str, Any]:
        """``{key: value}`` of every key: the shared ones and ``kind_keys``."""
        shared = {k: getattr(self, k) for k in _SHARED}
        return {**self.kind_keys, **shared, "shutdown_grace": self.shutdown_grace}

    def with_keys(self, **values: Any) -> "TableConfig":
        """These defaults with ``values`` (``{key: value}``, shared or a kind's) in
        place, unchecked (tests and benchmarks build tables this way). Raises
        ``TypeError`` for a key no kind has."""
        own = {k: v for k, v in values.items() if k in self.kind_keys}
        shared = {k: v for k, v in values.items() if k not in own}
        return dataclasses.replace(self, **shared, kind_keys={**self.kind_keys, **own})


@dataclass(frozen=True)
class TableSpec:
    """One ``[[tables]]`` entry: ``id`` (lower-case letters, digits, ``-``/``_``, at most
    24; stable: the game records name it), ``name`` (shown in the lobby, at most 20
    characters), ``game`` (one of :data:`GAME_KINDS`), the table's ``rules`` (the
    ``[table]`` keys with the entry's own and its kind's defaults applied) and
    ``config``: its kind's config (a :class:`~bbspoker.rules.base.KindConfig` subclass),
    checked when read from the file; when not given, made from ``rules`` unchecked (a
    table built in code). Raises :class:`~bbspoker.rules.kinds.UnknownKind` for an
    unknown ``game``."""

    id: str
    name: str
    game: str
    rules: TableConfig
    config: Any = None

    def __post_init__(self) -> None:
        if self.config is None:
            object.__setattr__(self, "config", kind(self.game).config.of(self.rules.keys()))


@dataclass(frozen=True)
class InputConfig:
    """``[input]``: limits on what one session may send. A line longer than
    ``max_line_bytes``, or input beyond ``rate_bytes_per_second`` sustained with bursts
    of at most ``rate_burst_bytes`` (a token bucket), ends the session with a message.
    What reaches other people's screens is limited per user (against floods): at most
    ``chat_lines`` chat lines per ``chat_window`` s and ``xmessages`` X-messages per
    ``xmessage_window`` s; more is refused with a notice to the sender only. A telnet
    subnegotiation (``IAC SB`` ... ``IAC SE``) longer than ``subnegotiation_bytes`` (the
    option byte included) ends the connection with a message (one that never
    ends would hold server memory); the answers the server asks for are far shorter (TTYPE at
    most 40 characters, NAWS 4 bytes, NEW-ENVIRON a few variables). 64 to 1 MiB
    (telnetlib3's own cap)."""

    max_line_bytes: int = _key(6000, 80)
    rate_bytes_per_second: int = _key(1000, 1)
    rate_burst_bytes: int = _key(16384, 1)
    subnegotiation_bytes: int = _key(4096, 64, 1 << 20)
    chat_lines: int = _key(5, 1, 1000)
    chat_window: float = _key(10.0, 1, 3600)
    xmessages: int = _key(5, 1, 1000)
    xmessage_window: float = _key(60.0, 1, 86400)


@dataclass(frozen=True)
class OutputConfig:
    """``[output]``: what a session's unsent output (bytes queued by the server and not yet
    taken by the client's TCP connection) may do.

    Past ``congestion_bytes`` the session is *congested*: the table
    screen sends no more updates and repaints once, from the table as it is then, when the
    unsent output has fallen to ``resume_bytes``. Past ``backlog_bytes`` (a hard cap far
    above; only text other than table updates can get there) the session is disconnected
    at once, and so is one whose socket takes no byte at all for ``drain_timeout`` s.
    ``resume_bytes`` < ``congestion_bytes`` < ``backlog_bytes``."""

    drain_timeout: float = _seconds(30.0)
    backlog_bytes: int = _key(262144, 4096)
    congestion_bytes: int = _key(32768, 2048)
    resume_bytes: int = _key(8192, 1024)


@dataclass(frozen=True)
class BotPortConfig:
    """``[bots]``: the port for programs (``docs/bot-protocol.md``): when
    ``enabled``, bot accounts with a password log in on ``host``:``port`` (0: any free
    port) and play with the line protocol ``ID;DATA``. Off by default."""

    enabled: bool = _key(False)
    host: str = _key("127.0.0.1")
    port: int = _key(2424, 0, 65535)


@dataclass(frozen=True)
class SshConfig:
    """``[ssh]``: the SSH port. When ``enabled``, players log in on
    ``host``:``port`` (0: any free port) with their handle as the user name and their
    password or a public key the sysop added (``users key add``); the user name ``new``
    makes an account. ``host_key``: the server's private key file, made (Ed25519, mode
    0600) on first start and reused; empty: :data:`HOST_KEY_NAME` in the directory of
    ``[ledger] path``."""

    enabled: bool = _key(True)
    host: str = _key("127.0.0.1")
    port: int = _key(2222, 0, 65535)
    host_key: str = _key("", empty=True)


@dataclass(frozen=True)
class WebConfig:
    """``[web]``: the browser's port. When ``enabled``, ``host``:``port`` (0:
    any free port) serves a page with a terminal (xterm.js, shipped with bbspoker) that
    connects over a WebSocket to a door session. A WebSocket message longer than
    ``max_message_bytes`` ends that connection (the page sends keys in pieces far
    smaller). ``origins``: the pages allowed to open the WebSocket, comma-separated
    (``https://bbs.example.org``); empty: only a page on a loopback name (``localhost``,
    127.0.0.1, [::1]) whose ``Origin`` matches the request's ``Host`` (any other name
    may be one rebound to this machine by its owner's DNS), and then ``host`` must be a
    loopback address (:func:`loopback_host`) or the file is refused. ``forwarded_for``:
    behind one's own reverse proxy on the same machine, a connection from 127.0.0.1 or
    ::1 counts as coming from the last address of its ``X-Forwarded-For`` header
    (lockouts and caps per player, not per proxy); off, the header is ignored (anyone
    can send one).

    The port's sockets (page, files and WebSockets alike) are counted from the moment
    they are accepted: at most ``max_connections`` at once, at most
    ``max_connections_per_address`` from one address (with ``forwarded_for``, a
    connection from the proxy on this machine counts only in the total); one more gets
    a 503 and is closed. A socket must send a complete request within
    ``header_timeout`` s of its opening or of the end of its previous response, else it
    is closed."""

    enabled: bool = _key(True)
    host: str = _key("127.0.0.1")
    port: int = _key(8023, 0, 65535)
    max_message_bytes: int = _key(4096, 256, 1 << 20)
    origins: str = _key("", empty=True)
    forwarded_for: bool = _key(False)
    max_connections: int = _key(2048, 1)
    max_connections_per_address: int = _key(32, 1)
    header_timeout: float = _seconds(10.0)


@dataclass(frozen=True)
class RloginConfig:
    """``[rlogin]``: the RLOGIN door server (RFC 1282; docs/bbs.md). When ``enabled``,
    BBSes listed in ``[[bbs]]`` hand their callers to ``host``:``port`` (0: any free port)
    as a door; off by default (2513 is the port door servers use)."""

    enabled: bool = _key(False)
    host: str = _key("127.0.0.1")
    port: int = _key(2513, 0, 65535)


@dataclass(frozen=True)
class ClusterConfig:
    """``[cluster]``: the split deployment (docs/operations.md, "More than one process"),
    read only by ``bbspoker gateway`` and ``bbspoker worker``; ``bbspoker serve`` is one
    process and ignores it. ``nats``: the NATS server(s) every gateway and worker joins
    (comma-separated URLs); ``name``: this process's name in logs and in the gateways'
    presence (empty: ``<role>-<host>-<pid>``); ``max_tables``: at most this many tables on
    this worker (0: its fair share alone); ``lease_interval``: seconds between a worker's
    looks for tables nobody serves (a dead worker's tables move within about this
    much after PostgreSQL ends its session); ``timeout``: seconds a gateway waits for a
    table's answer before telling the player the table cannot be reached;
    ``presence_interval``: seconds between two of a gateway's announcements of who is
    logged in through it (another gateway forgets its users, and the workers hold their
    seats, after three announcements missed)."""

    nats: str = _key("nats://127.0.0.1:4222")
    name: str = _key("", empty=True)
    max_tables: int = _key(0, 0, 100_000)
    lease_interval: float = _seconds(1.0)
    timeout: float = _seconds(3.0)
    presence_interval: float = _seconds(1.0)

    @property
    def servers(self) -> list[str]:
        """The NATS URLs of :attr:`nats`, in order."""
        return [url.strip() for url in self.nats.split(",") if url.strip()]


@dataclass(frozen=True)
class BbsSystem:
    """One ``[[bbs]]`` entry: a BBS whose callers come in over RLOGIN.

    ``tag``: 2-8 ASCII letters or digits, unique without regard to case; it is put in
    front of the caller's name in the RLOGIN server-user (``[TAG]alice`` or
    ``TAGalice``) and behind the caller's handle here (``alice@TAG``). ``name``: the
    BBS's name (1-40 printable characters). ``addresses``: the networks (CIDR, or single
    addresses) the BBS connects from; a connection from anywhere else is refused.
    ``secret``: empty, or what the BBS must send as the RLOGIN client-user. At most
    ``max_nodes`` of its callers at once; at most ``signups_per_day`` new accounts of
    its callers in 24 hours; each new one starts with ``starting_cubes`` CUBES (``None``:
    ``[ledger] starting_cubes``). ``charset``: ``cp437`` or ``utf-8`` for every caller of
    the BBS, or ``""`` to ask each caller's terminal (a cursor position report around one
    multibyte character)."""

    tag: str
    name: str
    addresses: tuple[str, ...]
    secret: str = ""
    max_nodes: int = 10
    signups_per_day: int = 50
    starting_cubes: int | None = None
    charset: str = ""

    def admits(self, address: str) -> bool:
        """Whether ``address`` (an IP address as text) is in one of :attr:`addresses`;
        an IPv4 address mapped into IPv6 (``::ffff:192.0.2.7``) counts as its IPv4 one."""
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        return any(ip in ipaddress.ip_network(net, strict=False) for net in self.addresses)


@dataclass(frozen=True)
class I18nConfig:
    """``[i18n]``: the players' languages. ``default``: the language of the
    login dialogue and of every user who has not chosen one with the lobby's [L]; one of
    :data:`LANGUAGES`. The admin CLI and the logs stay English."""

    default: str = _key("en", choices=LANGUAGES)


@dataclass(frozen=True)
class DoorConfig:
    """``[door]``: the door's opening. ``title``: show the title screen (an 80x24 ANSI
    drawing, :mod:`bbspoker.door.title`) when a connection opens, before the login; a key
    goes on at once, else it goes on by itself after ``title_seconds`` s. A window
    smaller than 80x24 and the bot port never get it."""

    title: bool = _key(True)
    title_seconds: float = _key(8.0, 0.5, 60)


@dataclass(frozen=True)
class SeasonsConfig:
    """``[seasons]``: the tournament league's seasons (:mod:`bbspoker.rules.seasons`).
    ``length``: ``"month"`` (a calendar month) or ``"week"`` (a calendar week from Monday
    00:00), in the server's local time; the standings of the lobby's hall of fame,
    ``bbspoker stats --season`` and ``bbspoker bulletin --tournaments`` are a season's."""

    length: str = _key("month", choices=SEASON_LENGTHS)


@dataclass(frozen=True)
class TournamentSpec:
    """One ``[[tournaments]]`` entry: ``id`` (as a table's: the records name it), ``name``
    (at most 20 characters), ``game`` (a kind whose tables can run a tournament), its
    ``rules`` (buy-in in CUBES, chips, seats per table, levels, payouts:
    :class:`~bbspoker.rules.tournament.TournamentRules`), ``table`` (the config of its
    tables: the ``[table]`` keys with the entry's own for its kind, such as ``limit``,
    ``turn_timeout`` or ``bot_policy``, and the first level's stake; ``table_rules``:
    the same as the ``[table]`` keys, as a table's ``TableSpec.rules``), ``bots`` (how many
    computer players may fill empty places; 0: none) and how it starts: ``sit_and_go``
    (as soon as that many have registered) or ``starts`` (``"HH:MM"`` or ``"HH:MM:SS"``
    every day, server local time) with ``min_players`` (fewer at the start: cancelled, buy-ins refunded) and
    ``late_levels`` (registration stays open for the first that many levels)."""

    id: str
    name: str
    game: str
    rules: TournamentRules
    table: Any
    table_rules: TableConfig
    bots: int = 0
    sit_and_go: int = 0
    starts: str = ""
    min_players: int = 2
    late_levels: int = 0

    @property
    def scheduled(self) -> bool:
        """Starts at a time of day (else: a sit-and-go)."""
        return bool(self.starts)


@dataclass(frozen=True)
class Config:
    """The whole configuration; each attribute is one TOML section of the same name."""

    server: ServerConfig = field(default_factory=ServerConfig)
    login: LoginConfig = field(default_factory=LoginConfig)
    ledger: LedgerConfig = field(default_factory=LedgerConfig)
    table: TableConfig = field(default_factory=TableConfig)
    input: InputConfig = field(default_factory=InputConfig)
    output: OutputConfig = field(default_factory=OutputConfig)
    bots: BotPortConfig = field(default_factory=BotPortConfig)
    ssh: SshConfig = field(default_factory=SshConfig)
    web: WebConfig = field(default_factory=WebConfig)
    i18n: I18nConfig = field(default_factory=I18nConfig)
    door: DoorConfig = field(default_factory=DoorConfig)
    seasons: SeasonsConfig = field(default_factory=SeasonsConfig)
    rlogin: RloginConfig = field(default_factory=RloginConfig)
    cluster: ClusterConfig = field(default_factory=ClusterConfig)
    #: The ``[[bbs]]`` entries: the BBSes whose callers come in over RLOGIN (docs/bbs.md).
    bbs: tuple[BbsSystem, ...] = ()
    #: The ``[[tables]]`` entries as configured (empty without any); see :attr:`table_specs`.
    tables: tuple[TableSpec, ...] = ()
    #: The ``[[tournaments]]`` entries (none: the lobby's [T] list is empty).
    tournaments: tuple[TournamentSpec, ...] = ()

    @property
    def table_specs(self) -> tuple[TableSpec, ...]:
        """The tables the server runs, in lobby order: the ``[[tables]]`` entries, or
        without any the one table of old, of the default kind (:data:`DEFAULT_TABLE_ID`,
        :data:`DEFAULT_TABLE_NAME`) with the ``[table]`` rules."""
        if self.tables:
            return self.tables
        return (TableSpec(DEFAULT_TABLE_ID, DEFAULT_TABLE_NAME, DEFAULT_KIND, self.table),)

    @property
    def ssh_host_key_path(self) -> str:
        """Where the SSH host key is: ``[ssh] host_key``, else :data:`HOST_KEY_NAME` in
        the directory of ``[ledger] path``."""
        if self.ssh.host_key:
            return self.ssh.host_key
        return os.path.join(os.path.dirname(os.path.abspath(self.ledger.path)), HOST_KEY_NAME)


#: A field's annotation as text (``from __future__ import annotations``) -> its type.
_TYPES: dict[str, type] = {"int": int, "float": float, "str": str, "bool": bool}


def _check(where: str, f: dataclasses.Field, value: Any) -> Any:
    """Return ``value`` converted to the field's type, or raise ConfigError naming ``where``."""
    lo, hi, choices = f.metadata.get("lo"), f.metadata.get("hi"), f.metadata.get("choices")
    positive = f.metadata.get("positive")
    ftype: Any = _TYPES.get(str(f.type), f.type)    # a kind's annotations are strings
    if ftype is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if ftype is bool:
        if not isinstance(value, bool):
            raise ConfigError(f"{where} must be true or false, got {value!r}")
        return value
    if not isinstance(value, ftype) or isinstance(value, bool):
        kind = {int: "a whole number", float: "a number of seconds", str: "a string"}[ftype]
        raise ConfigError(f"{where} must be {kind}, got {value!r}")
    if ftype is float and not math.isfinite(value):
        raise ConfigError(f"{where} must be a finite number of seconds, got {value!r}")
    if choices is not None and value not in choices:
        raise ConfigError(f"{where} must be one of {', '.join(choices)}, got {value!r}")
    if lo is not None and value < lo or hi is not None and value > hi:
        bounds = f">= {lo}" if hi is None else f"between {lo} and {hi}"
        raise ConfigError(f"{where} must be {bounds}, got {value!r}")
    if positive and value <= 0:
        raise ConfigError(f"{where} must be above 0, got {value!r}")
    if ftype is str and not value and not f.metadata.get("empty"):
        raise ConfigError(f"{where} must not be empty")
    return value


def _kind_config(where: str, defaults: TableConfig, given: dict[str, Any],
                 game: str) -> KindConfig:
    """The config of a table of kind ``game`` from the ``[table]`` ``defaults`` and the
    table's own ``given`` keys, checked by the kind (``KindConfig.from_keys``);
    ConfigError naming ``where`` (and the key, for a check of one key's value)."""
    try:
        return kind(game).config.from_keys(defaults.keys(), given)
    except SettingError as err:
        place = f"{where.rstrip(':')} " if err.key else f"{where} "
        raise ConfigError(f"{place}{err}") from None


def _table(origin: str, section: dict[str, Any]) -> TableConfig:
    """The ``[table]`` section: the keys every kind has, ``shutdown_grace`` and any key of
    any kind, each checked as the first kind that has it declares it
    (:func:`_kind_fields`); an unknown key is refused naming every kind's keys."""
    shared = {f.name: f for f in dataclasses.fields(TableConfig) if f.name != "kind_keys"}
    own = _kind_fields()
    values: dict[str, Any] = {}
    kind_values: dict[str, Any] = {}
    for key, value in section.items():
        where = f"{origin}: [table] {key}"
        if key in shared:
            values[key] = _check(where, shared[key], value)
        elif key in own:
            kind_values[key] = _check(where, own[key], value)
        else:
            each = "; ".join(f"{k.name}: {', '.join(n for n in k.config.keys() if n in own)}"
                             for k in KINDS)
            raise ConfigError(f"{origin}: unknown key {key!r} in [table] (every game: "
                              f"{', '.join(shared)}; {each})")
    return TableConfig(**values, kind_keys={**_kind_defaults(), **kind_values})


def _tables(origin: str, entries: Any, defaults: TableConfig) -> tuple[TableSpec, ...]:
    """The ``[[tables]]`` entries, checked: each an id, a name, a game kind and the keys
    of that kind it sets (its config class's fields: the type and range of each), over
    the ``[table]`` defaults."""
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise ConfigError(f"{origin}: tables must be [[tables]] entries")
    specs: list[TableSpec] = []
    for n, entry in enumerate(entries, 1):
        where = f"{origin}: [[tables]] entry {n}"
        entry = dict(entry)
        table_id, name = entry.pop("id", None), entry.pop("name", None)
        game = entry.pop("game", DEFAULT_KIND)
        if not isinstance(table_id, str) or not _TABLE_ID.fullmatch(table_id):
            raise ConfigError(f"{where}: id must be 1-24 lower-case letters, digits, - or _, "
                              f"got {table_id!r}")
        if any(s.id == table_id for s in specs):
            raise ConfigError(f"{where}: id {table_id!r} is used twice")
        if not isinstance(name, str) or not name.strip() or len(name) > 20 \
                or not name.isprintable():
            raise ConfigError(f"{where}: name must be 1-20 printable characters, got {name!r}")
        if game not in GAME_KINDS:
            raise ConfigError(f"{where}: game must be one of {', '.join(GAME_KINDS)}, "
                              f"got {game!r}")
        keys = {f.name: f for f in dataclasses.fields(kind(game).config)}
        values = {}
        for key, value in entry.items():
            if key not in keys:
                known = ", ".join(["id", "name", "game", *keys])
                raise ConfigError(f"{where}: unknown key {key!r} for game {game} "
                                  f"(known: {known})")
            values[key] = _check(f"{where} {key}", keys[key], value)
        config = _kind_config(f"{where}:", defaults, values, game)
        rules = defaults.with_keys(**config.as_keys())
        specs.append(TableSpec(table_id, name.strip(), game, rules, config))
    if not specs:
        raise ConfigError(f"{origin}: [[tables]] needs at least one entry")
    return tuple(specs)


_TOURNAMENT_KEYS = ("id", "name", "game", "buy_in", "chips", "seats_per_table", "levels",
                    "payouts", "bots", "sit_and_go", "starts", "min_players", "late_levels")
_START = re.compile(r"([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9])?")


def _whole(where: str, value: Any, lo: int, hi: int) -> int:
    """``value`` as a whole number in ``lo..hi``, else ConfigError naming ``where``."""
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ConfigError(f"{where} must be a whole number between {lo} and {hi}, "
                          f"got {value!r}")
    return value


def _levels(where: str, value: Any) -> tuple[Level, ...]:
    """``levels = [{bet = 20, ante = 0, minutes = 10}, ...]``, checked."""
    if not isinstance(value, list) or not value or not all(isinstance(v, dict) for v in value):
        raise ConfigError(f"{where} levels must be a list of {{bet = ..., minutes = ...}} "
                          f"tables (ante optional)")
    levels = []
    for n, entry in enumerate(value, 1):
        unknown = set(entry) - {"bet", "ante", "minutes"}
        if unknown:
            raise ConfigError(f"{where} level {n}: unknown key {sorted(unknown)[0]!r} "
                              f"(known: bet, ante, minutes)")
        minutes = entry.get("minutes", 10)
        if isinstance(minutes, bool) or not isinstance(minutes, (int, float)) \
                or not 0 < minutes <= 24 * 60:
            raise ConfigError(f"{where} level {n}: minutes must be a number above 0 and at "
                              f"most 1440, got {minutes!r}")
        levels.append(Level(_whole(f"{where} level {n}: bet", entry.get("bet"), 2, 10**9),
                            _whole(f"{where} level {n}: ante", entry.get("ante", 0), 0, 10**9),
                            float(minutes)))
    return tuple(levels)


def _payouts(where: str, value: Any) -> tuple[PayoutTier, ...]:
    """``payouts = [{entrants = 2, shares = [100]}, ...]``, checked."""
    if not isinstance(value, list) or not value or not all(isinstance(v, dict) for v in value):
        raise ConfigError(f"{where} payouts must be a list of {{entrants = N, shares = "
                          f"[...]}} tables")
    tiers = []
    for n, entry in enumerate(value, 1):
        shares = entry.get("shares")
        if set(entry) != {"entrants", "shares"} or not isinstance(shares, list) \
                or not shares:
            raise ConfigError(f"{where} payout {n} needs entrants = N and shares = [...]")
        try:
            tiers.append(PayoutTier(
                _whole(f"{where} payout {n}: entrants", entry["entrants"], 2, 100_000),
                tuple(_whole(f"{where} payout {n}: share", s, 1, 10**6) for s in shares)))
        except ValueError as exc:
            raise ConfigError(f"{where} payout {n}: {exc}") from None
    return tuple(tiers)


def _tournaments(origin: str, entries: Any, defaults: TableConfig,
                 tables: tuple[TableSpec, ...]) -> tuple[TournamentSpec, ...]:
    """The ``[[tournaments]]`` entries, checked (see :class:`TournamentSpec`): the keys of
    a tournament, then any key of its kind's tables (as a ``[[tables]]`` entry takes
    them, the stake excepted: the levels set it)."""
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise ConfigError(f"{origin}: tournaments must be [[tournaments]] entries")
    specs: list[TournamentSpec] = []
    for n, entry in enumerate(entries, 1):
        where = f"{origin}: [[tournaments]] entry {n}"
        entry = dict(entry)
        tid, name = entry.pop("id", None), entry.pop("name", None)
        able = [k.name for k in KINDS if k.tournament is not None]
        game = entry.pop("game", DEFAULT_TOURNAMENT_KIND)
        if not isinstance(tid, str) or not _TABLE_ID.fullmatch(tid):
            raise ConfigError(f"{where}: id must be 1-24 lower-case letters, digits, - or _, "
                              f"got {tid!r}")
        if any(s.id == tid for s in specs) or any(t.id == tid for t in tables):
            raise ConfigError(f"{where}: id {tid!r} is used twice")
        if not isinstance(name, str) or not name.strip() or len(name) > 20 \
                or not name.isprintable():
            raise ConfigError(f"{where}: name must be 1-20 printable characters, got {name!r}")
        if game not in able:
            raise ConfigError(f"{where}: game must be one of {', '.join(able)} (the kinds "
                              f"that run tournaments), got {game!r}")
        spec = kind(game)
        assert spec.tournament is not None
        levels = _levels(f"{where}:", entry.pop("levels")) if "levels" in entry \
            else spec.tournament.levels or TURBO_LEVELS
        short = next((n for n, level in enumerate(levels, 1)
                      if level.ante < spec.tournament.min_ante), None)
        if short is not None:
            raise ConfigError(f"{where}: level {short} needs an ante of at least "
                              f"{spec.tournament.min_ante} at {game} tables, got "
                              f"{levels[short - 1].ante}")
        payouts = _payouts(f"{where}:", entry.pop("payouts")) if "payouts" in entry \
            else DEFAULT_PAYOUTS
        seats = _whole(f"{where}: seats_per_table",
                       entry.pop("seats_per_table", spec.config().seats), 2, 9)
        buy_in = _whole(f"{where}: buy_in", entry.pop("buy_in", 100), 0, 10**9)
        chips = _whole(f"{where}: chips", entry.pop("chips", 1500), 2, 10**9)
        bots = _whole(f"{where}: bots", entry.pop("bots", 0), 0, 10_000)
        sit_and_go = _whole(f"{where}: sit_and_go", entry.pop("sit_and_go", 0), 0, 10_000)
        starts = entry.pop("starts", "")
        min_players = _whole(f"{where}: min_players", entry.pop("min_players", 2), 2, 10_000)
        late_levels = _whole(f"{where}: late_levels", entry.pop("late_levels", 0), 0,
                             len(levels))
        if not isinstance(starts, str) or starts and not _START.fullmatch(starts):
            raise ConfigError(f"{where}: starts must be a time of day \"HH:MM\" (or "
                              f"\"HH:MM:SS\"), got {starts!r}")
        if bool(starts) == bool(sit_and_go):
            raise ConfigError(f"{where}: give either sit_and_go = N (start when N have "
                              f"registered, 2 or more) or starts = \"HH:MM\"")
        if sit_and_go == 1:
            raise ConfigError(f"{where}: sit_and_go must be 2 or more, got 1")
        if sit_and_go and late_levels:
            raise ConfigError(f"{where}: late_levels is for scheduled tournaments only")
        try:
            rules = TournamentRules(buy_in, chips, seats, levels, payouts)
        except ValueError as exc:
            raise ConfigError(f"{where}: {exc}") from None
        keys = {f.name: f for f in dataclasses.fields(spec.config)}
        staked = spec.tournament.stake_key
        values: dict[str, Any] = {}
        for key, value in entry.items():
            if key not in keys or key in ("seats", "bots", staked):
                known = ", ".join([*_TOURNAMENT_KEYS, *(k for k in keys
                                                        if k not in ("seats", "bots", staked))])
                raise ConfigError(f"{where}: unknown key {key!r} for a {game} tournament "
                                  f"(known: {known})")
            values[key] = _check(f"{where} {key}", keys[key], value)
        values.update({"seats": seats, "bots": 0, staked: levels[0].bet})
        config = _kind_config(f"{where}:", defaults, values, game)
        pause = "between_hands" if hasattr(config, "between_hands") else "between_games"
        if getattr(config, pause, 1.0) <= 0:
            raise ConfigError(f"{where}: {pause} must be above 0 at a tournament's "
                              f"tables (the director moves players between hands)")
        specs.append(TournamentSpec(tid, name.strip(), game, rules, config,
                                    defaults.with_keys(**config.as_keys()), bots,
                                    sit_and_go, starts, min_players, late_levels))
    return tuple(specs)


def tournament_spec(entry: dict[str, Any], table: TableConfig | None = None,
                    origin: str = "tournament") -> TournamentSpec:
    """One ``[[tournaments]]`` entry (a mapping as TOML gives it) checked and made into a
    :class:`TournamentSpec` over the ``table`` defaults (``[table]``; ``None``: every
    default): what ``bbspoker sim --tournament`` plays. Raises :class:`ConfigError`."""
    return _tournaments(origin, [entry], table or TableConfig(), ())[0]


def _check_output(where: str, output: OutputConfig) -> None:
    """The order of ``[output]``'s byte bounds; ConfigError naming ``where``."""
    if not output.resume_bytes < output.congestion_bytes < output.backlog_bytes:
        raise ConfigError(f"{where} needs resume_bytes ({output.resume_bytes}) < "
                          f"congestion_bytes ({output.congestion_bytes}) < backlog_bytes "
                          f"({output.backlog_bytes})")


def _check_web(where: str, web: WebConfig) -> None:
    """A web port bound beyond loopback, or reached through a reverse proxy
    (``forwarded_for``), must name its pages' origins: without them only loopback names
    are accepted (behind a proxy every browser would be refused), and a page of any other
    name could be one rebound by DNS to this machine. ConfigError naming ``where``."""
    if not web.enabled or web_origins(web.origins):
        return
    if web.forwarded_for:
        raise ConfigError(f"{where} origins must list the page's origins (such as "
                          f"\"https://bbs.example.org\") behind a reverse proxy "
                          f"(forwarded_for = true)")
    if not loopback_host(web.host):
        raise ConfigError(f"{where} origins must list the page's origins (such as "
                          f"\"https://bbs.example.org\") when [web] host is not a loopback "
                          f"address, got {web.host!r}")


_BBS_KEYS = ("tag", "name", "addresses", "secret", "max_nodes", "signups_per_day",
             "starting_cubes", "charset")


def _bbs(origin: str, entries: Any) -> tuple[BbsSystem, ...]:
    """The ``[[bbs]]`` entries, checked (:class:`BbsSystem`); ConfigError naming the entry
    and the key."""
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise ConfigError(f"{origin}: bbs must be [[bbs]] entries")
    systems: list[BbsSystem] = []
    for n, entry in enumerate(entries, 1):
        where = f"{origin}: [[bbs]] entry {n}"
        unknown = [k for k in entry if k not in _BBS_KEYS]
        if unknown:
            raise ConfigError(f"{where}: unknown key {unknown[0]!r} (known: "
                              f"{', '.join(_BBS_KEYS)})")
        tag, name = entry.get("tag"), entry.get("name")
        if not isinstance(tag, str) or not _BBS_TAG.fullmatch(tag):
            raise ConfigError(f"{where}: tag must be 2-8 letters or digits, got {tag!r}")
        if any(s.tag.lower() == tag.lower() for s in systems):
            raise ConfigError(f"{where}: tag {tag!r} is used twice")
        where = f"{origin}: [[bbs]] {tag}"
        if not isinstance(name, str) or not name.strip() or len(name) > 40 \
                or not name.isprintable():
            raise ConfigError(f"{where}: name must be 1-40 printable characters, got {name!r}")
        addresses = entry.get("addresses")
        if isinstance(addresses, str):
            addresses = [addresses]
        if not isinstance(addresses, list) or not addresses \
                or not all(isinstance(a, str) for a in addresses):
            raise ConfigError(f"{where}: addresses must be a list of the networks the BBS "
                              f"connects from (such as [\"192.0.2.7/32\"]), got {addresses!r}")
        for address in addresses:
            try:
                ipaddress.ip_network(address.strip(), strict=False)
            except ValueError:
                raise ConfigError(f"{where}: addresses: {address!r} is not an IP address or "
                                  f"a network in CIDR notation") from None
        secret = entry.get("secret", "")
        if not isinstance(secret, str) or not secret.isprintable() or "\0" in secret \
                or len(secret) > 64:
            raise ConfigError(f"{where}: secret must be a string of at most 64 printable "
                              f"characters, got {type(secret).__name__}")
        values: dict[str, Any] = {}
        for key, lo, hi in (("max_nodes", 1, 10000), ("signups_per_day", 0, 100000),
                            ("starting_cubes", 0, 10**12)):
            value = entry.get(key)
            if value is None:
                continue
            if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
                raise ConfigError(f"{where}: {key} must be a whole number between {lo} and "
                                  f"{hi}, got {value!r}")
            values[key] = value
        charset = entry.get("charset", "")
        if charset not in CHARSETS:
            raise ConfigError(f"{where}: charset must be \"cp437\", \"utf-8\" or \"\" "
                              f"(ask the terminal), got {charset!r}")
        systems.append(BbsSystem(tag, name.strip(), tuple(a.strip() for a in addresses),
                                 secret, charset=charset, **values))
    return tuple(systems)


def _check_ledger(where: str, ledger: LedgerConfig) -> None:
    """ConfigError naming ``where`` unless ``url`` is empty or a PostgreSQL URL."""
    from bbspoker.store.sql.ledger import check_url
    from bbspoker.store.sql.records import LedgerError

    if ledger.url:
        try:
            check_url(ledger.url)
        except LedgerError as exc:
            raise ConfigError(f"{where} url: {exc}") from None


def _build(origin: str, data: dict[str, Any]) -> Config:
    sections = {f.name: f for f in dataclasses.fields(Config)
                if f.name not in ("tables", "bbs", "tournaments")}
    built: dict[str, Any] = {}
    tables = data.pop("tables", None)
    tournaments = data.pop("tournaments", None)
    bbs = data.pop("bbs", None)
    for name, table in data.items():
        if name not in sections:
            what = f"section [{name}]" if isinstance(table, dict) else f"top-level key {name!r}"
            raise ConfigError(f"{origin}: unknown {what} (sections: {', '.join(sections)})")
        if not isinstance(table, dict):
            raise ConfigError(f"{origin}: {name} must be a [{name}] section")
        if name == "table":
            built[name] = _table(origin, table)
            continue
        section_cls: Any = sections[name].default_factory   # a section's class
        keys = {f.name: f for f in dataclasses.fields(section_cls)}
        values = {}
        for key, value in table.items():
            if key not in keys:
                raise ConfigError(f"{origin}: unknown key {key!r} in [{name}] "
                                  f"(known: {', '.join(keys)})")
            values[key] = _check(f"{origin}: [{name}] {key}", keys[key], value)
        built[name] = section_cls(**values)
    config = Config(**built)
    _check_web(f"{origin}: [web]", config.web)
    _check_ledger(f"{origin}: [ledger]", config.ledger)
    _kind_config(f"{origin}: [table]", config.table, {}, DEFAULT_KIND)
    _check_output(f"{origin}: [output]", config.output)
    if tables is not None:
        config = dataclasses.replace(config, tables=_tables(origin, tables, config.table))
    if bbs is not None:
        config = dataclasses.replace(config, bbs=_bbs(origin, bbs))
    if tournaments is not None:
        config = dataclasses.replace(config, tournaments=_tournaments(
            origin, tournaments, config.table, config.tables))
    return config


def load_config(path: str | os.PathLike[str] | None = None) -> Config:
    """Read the configuration.

    ``path`` (``--config``) or else ``$BBSPOKER_CONFIG`` names a TOML file; with
    neither, the defaults are used. ``$BBSPOKER_DB``, if set and not empty,
    replaces ``[ledger] url`` if it is a URL (``postgresql://...``: the same database for
    the CLI and the server), else ``[ledger] path`` (a ``[ledger] url`` still wins over a
    file). Raises :class:`ConfigError` for an unreadable file, bad TOML, an unknown
    section or key, a bad value, or a ``$BBSPOKER_DB`` URL of another scheme.
    """
    if path is None:
        path = os.environ.get(ENV_CONFIG) or None
    if path is None:
        config = Config()
    else:
        origin = f"config file {os.fspath(path)}"
        try:
            with open(path, "rb") as fh:
                data = tomllib.load(fh)
        except OSError as exc:
            raise ConfigError(f"cannot read {origin}: {exc.strerror}") from None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{origin} is not valid TOML: {exc}") from None
        config = _build(origin, data)
    db = os.environ.get(ENV_DB)
    if db and "://" in db:
        ledger = dataclasses.replace(config.ledger, url=db)
        _check_ledger(f"${ENV_DB}", ledger)
        config = dataclasses.replace(config, ledger=ledger)
    elif db:
        config = dataclasses.replace(config, ledger=dataclasses.replace(config.ledger, path=db))
    return config
