"""Config loading: defaults, the example file, environment overrides, errors naming the key."""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path

import pytest

from bbspoker.config import Config, ConfigError, load_config

EXAMPLE = Path(__file__).resolve().parent.parent / "config" / "bbspoker.example.toml"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    monkeypatch.delenv("BBSPOKER_CONFIG", raising=False)
    monkeypatch.delenv("BBSPOKER_DB", raising=False)


def write(tmp_path, text: str) -> Path:
    path = tmp_path / "bbspoker.toml"
    path.write_text(text)
    return path


def test_no_file_means_the_documented_defaults():
    config = load_config(None)
    assert config == Config()
    assert (config.server.host, config.server.port) == ("127.0.0.1", 2323)
    assert config.server.prelogin_timeout == 180
    assert config.ledger.path == "bbspoker.db" and config.ledger.starting_cubes == 1000
    t, k = config.table, config.table.kind_keys
    assert (t.seats, k["ante"], k["min_bet"], k["max_bet"]) == (5, 10, 1, 200)
    assert (t.turn_timeout, k["master_timeout"], k["between_games"]) == (60, 180, 30)
    assert (k["max_round"], k["idle_games"], t.shutdown_grace) == (32700, 2, 120)
    assert (config.login.failure_delay, config.login.max_failures) == (5, 5)
    assert (config.login.failure_window, config.login.lockout) == (300, 600)
    assert config.input.max_line_bytes == 6000
    assert config.input.subnegotiation_bytes == 4096
    assert config.output.drain_timeout == 30
    assert (config.output.congestion_bytes, config.output.resume_bytes) == (32768, 8192)


def test_example_file_documents_every_key_with_its_default():
    assert load_config(EXAMPLE) == Config()
    with open(EXAMPLE, "rb") as fh:
        data = tomllib.load(fh)
    documented = {(section, key) for section, table in data.items() for key in table}
    every = {(s.name, k.name) for s in dataclasses.fields(Config)
             if s.name not in ("tables", "bbs", "table", "tournaments")
             for k in dataclasses.fields(s.default_factory)}
    every |= {("table", k) for k in Config().table.keys()}
    assert documented == every


def test_file_values_override_defaults_and_ints_serve_as_seconds(tmp_path):
    path = write(tmp_path, '[server]\nport = 0\nhost = "::"\n[table]\nante = 20\n'
                           'turn_timeout = 0.5\nmaster_timeout = 90\n')
    config = load_config(path)
    assert (config.server.port, config.server.host) == (0, "::")
    own = config.table.kind_keys
    assert (own["ante"], config.table.turn_timeout) == (20, 0.5)
    assert own["master_timeout"] == 90.0 and isinstance(own["master_timeout"], float)
    assert own["max_bet"] == 200                                       # untouched default


def test_bbspoker_config_selects_the_file_and_an_explicit_path_wins(tmp_path, monkeypatch):
    env_file = write(tmp_path, "[table]\nante = 30\n")
    other = tmp_path / "other.toml"
    other.write_text("[table]\nante = 40\n")
    monkeypatch.setenv("BBSPOKER_CONFIG", str(env_file))
    assert load_config(None).table.kind_keys["ante"] == 30
    assert load_config(other).table.kind_keys["ante"] == 40


def test_bbspoker_db_overrides_the_database_path(tmp_path, monkeypatch):
    path = write(tmp_path, '[ledger]\npath = "/srv/poker.db"\n')
    assert load_config(path).ledger.path == "/srv/poker.db"
    monkeypatch.setenv("BBSPOKER_DB", str(tmp_path / "env.db"))
    assert load_config(path).ledger.path == str(tmp_path / "env.db")
    assert load_config(None).ledger.path == str(tmp_path / "env.db")


def test_the_ledger_is_a_sqlite_file_unless_a_postgresql_url_is_given(tmp_path, monkeypatch):
    assert load_config(None).ledger.url == ""
    path = write(tmp_path, '[ledger]\nurl = "postgresql://bbspoker:pw@db.example/bbspoker"\n')
    assert load_config(path).ledger.url == "postgresql://bbspoker:pw@db.example/bbspoker"
    monkeypatch.setenv("BBSPOKER_DB", str(tmp_path / "env.db"))   # a file: the url still wins
    assert load_config(path).ledger.url.startswith("postgresql://")
    other = write(tmp_path, '[ledger]\nurl = "postgres://bbspoker@/bbspoker?host=/run/pg"\n')
    assert load_config(other).ledger.url == "postgres://bbspoker@/bbspoker?host=/run/pg"


def test_a_postgresql_url_in_bbspoker_db_is_the_ledger_for_every_command(tmp_path,
                                                                          monkeypatch):
    """``BBSPOKER_DB=postgresql://...`` names the PostgreSQL ledger (over the config's own
    url or file); a URL of another scheme is one clear error."""
    path = write(tmp_path, '[ledger]\nurl = "postgresql://bbspoker@db.example/live"\n')
    monkeypatch.setenv("BBSPOKER_DB", "postgresql://bbspoker@/copy?host=/run/pg")
    assert load_config(path).ledger.url == "postgresql://bbspoker@/copy?host=/run/pg"
    assert load_config(None).ledger.url == "postgresql://bbspoker@/copy?host=/run/pg"
    assert load_config(None).ledger.path == "bbspoker.db"
    monkeypatch.setenv("BBSPOKER_DB", "mysql://bbspoker@db.example/poker")
    with pytest.raises(ConfigError, match=r"\$BBSPOKER_DB url: a ledger URL must begin with "
                                          "postgresql://"):
        load_config(None)


@pytest.mark.parametrize("text, named", [
    ("[tabel]\nante = 1\n", "unknown section [tabel]"),
    ("[table]\nantee = 1\n", "unknown key 'antee' in [table]"),
    ("port = 1\n", "unknown top-level key 'port'"),
    ("table = 1\n", "table must be a [table] section"),
    ('[table]\nante = "ten"\n', "[table] ante must be a whole number, got 'ten'"),
    ("[table]\nante = 10.5\n", "[table] ante must be a whole number"),
    ("[table]\nseats = true\n", "[table] seats must be a whole number"),
    ("[table]\nseats = 6\n", "[table] seats must be between 2 and 5, got 6"),
    ("[table]\nante = 0\n", "[table] ante must be between 1 and 1000000000, got 0"),
    ("[table]\nturn_timeout = \"1m\"\n", "[table] turn_timeout must be a number of seconds"),
    ("[table]\nturn_timeout = 0\n", "[table] turn_timeout must be above 0, got 0.0"),
    ("[server]\nport = 65536\n", "[server] port must be between 0 and 65535"),
    ('[server]\nlog_level = "LOUD"\n', "[server] log_level must be one of"),
    ('[ledger]\npath = ""\n', "[ledger] path must not be empty"),
    ('[ledger]\nurl = "mysql://root@db/bbspoker"\n',
     "[ledger] url: a ledger URL must begin with postgresql:// (or postgres://), not mysql://"),
    ('[ledger]\nurl = "/srv/bbspoker.db"\n', "[ledger] url: a ledger URL must begin with"),
    ("[ledger]\nurl = 5432\n", "[ledger] url must be"),
    ("[ledger]\nstarting_cubes = -1\n", "[ledger] starting_cubes must be between 0 and"),
    ("[table]\nmin_bet = 300\n", "min_bet (300) is above max_bet (200)"),
    ("[table\n", "is not valid TOML"),
    ('[[tables]]\nname = "A"\n', "[[tables]] entry 1: id must be 1-24 lower-case letters"),
    ('[[tables]]\nid = "Big Room"\nname = "A"\n', "entry 1: id must be 1-24"),
    ('[[tables]]\nid = "a"\nname = "A"\n[[tables]]\nid = "a"\nname = "B"\n',
     "[[tables]] entry 2: id 'a' is used twice"),
    ('[[tables]]\nid = "a"\n', "entry 1: name must be 1-20 printable characters"),
    ('[[tables]]\nid = "a"\nname = "A\\u001b[2J"\n', "name must be 1-20 printable"),
    ('[[tables]]\nid = "a"\nname = "A"\ngame = "bridge"\n', "game must be one of draw40"),
    ('[[tables]]\nid = "a"\nname = "A"\nante = 0\n', "entry 1 ante must be between 1 and 1000000000, got 0"),
    ('[[tables]]\nid = "a"\nname = "A"\nshutdown_grace = 5\n', "unknown key 'shutdown_grace'"),
    ('[[tables]]\nid = "a"\nname = "A"\nmin_bet = 300\n', "entry 1: min_bet (300) is above"),
    ("[table]\nbots = 4\nseats = 3\n", "[table] bots (4) is more than seats (3)"),
    ('[[tables]]\nid = "a"\nname = "A"\nbots = 6\n', "entry 1: bots (6) is more than seats (5)"),
    ('[[tables]]\nid = "h"\nname = "H"\ngame = "holdem"\nbots = 2\nbot_policy = "aggressive"\n',
     "bot_policy must be one of equity, calling, random for holdem"),
    ('[[tables]]\nid = "h"\nname = "H"\ngame = "holdem"\nsmall_bet = 15\n',
     "small_bet must be even"),
    ('[[tables]]\nid = "d"\nname = "D"\nseats = 7\n', "seats must be between 2 and 5, got 7"),
    ('[table]\nbot_policy = "smart"\n', "bot_policy must be one of equity, calling"),
    ("[table]\nbot_think_min = 5\n", "bot_think_min (5.0) is above bot_think_max (4.0)"),
    ("[bots]\nenabled = 1\n", "[bots] enabled must be true or false, got 1"),
    ("[login]\nlockout = nan\n", "[login] lockout must be a finite number of seconds, got nan"),
    ("[table]\nturn_timeout = inf\n", "[table] turn_timeout must be a finite number"),
    ("[ledger]\nsync_interval = 1e-9\n", "[ledger] sync_interval must be between 0.05 and 3600"),
    ("[table]\nmax_bet = 100000000000000000000\n", "[table] max_bet must be between 1 and"),
    ("[ledger]\nstarting_cubes = 10000000000000\n", "starting_cubes must be between 0 and"),
    ("[input]\nsubnegotiation_bytes = 8\n",
     "[input] subnegotiation_bytes must be between 64 and 1048576, got 8"),
    ("[input]\nsubnegotiation_bytes = 2e6\n", "[input] subnegotiation_bytes must be a whole"),
    ("[output]\ncongestion_bytes = 300000\n", "[output] needs resume_bytes (8192) < "
     "congestion_bytes (300000) < backlog_bytes (262144)"),
    ("[output]\nresume_bytes = 32768\n", "needs resume_bytes (32768) < congestion_bytes"),
    ("[output]\ncongestion_bytes = 100\n", "[output] congestion_bytes must be >= 2048, got 100"),
    ("tables = 3\n", "tables must be [[tables]] entries"),
    ("tables = []\n", "[[tables]] needs at least one entry"),
    ("[table]\nante = 0\n", "[table] ante must be between 1 and 1000000000, got 0"),
    ('[[tables]]\nid = "s"\nname = "S"\ngame = "schiebe"\nrounds = 8\n',
     "entry 1 rounds must be between 2 and 7, got 8"),
    ('[[tables]]\nid = "s"\nname = "S"\ngame = "schiebe"\nseats = 5\n',
     "entry 1: seats must be between 2 and 4 for schiebe, got 5"),
    ('[[tables]]\nid = "s"\nname = "S"\ngame = "schiebe"\nbots = 1\nbot_policy = "equity"\n',
     "entry 1: bot_policy must be one of lookahead, random for schiebe, got 'equity'"),
    ('[[tables]]\nid = "d"\nname = "D"\nbots = 1\nbot_policy = "lookahead"\n',
     "entry 1: bot_policy must be one of equity, calling, aggressive, random for draw40"),
    ('[[tables]]\nid = "s"\nname = "S"\ngame = "schiebe"\nante = -1\n',
     "entry 1 ante must be between 0 and"),
    ('[web]\nhost = "0.0.0.0"\n', "[web] origins must list the page's origins (such as "
     "\"https://bbs.example.org\") when [web] host is not a loopback address, got "
     "'0.0.0.0'"),
    ('[web]\nhost = "bbs.example.org"\norigins = " , "\n', "[web] origins must list"),
    ('[web]\nforwarded_for = true\n', "[web] origins must list the page's origins (such as "
     "\"https://bbs.example.org\") behind a reverse proxy (forwarded_for = true)"),
    ("[rlogin]\nport = 70000\n", "[rlogin] port must be between 0 and 65535, got 70000"),
    ('[seasons]\nlength = "year"\n', "[seasons] length must be one of week, month, got 'year'"),
    ("bbs = 1\n", "bbs must be [[bbs]] entries"),
    ('[[bbs]]\ntag = "D"\nname = "Demo"\naddresses = ["127.0.0.1"]\n',
     "[[bbs]] entry 1: tag must be 2-8 letters or digits, got 'D'"),
    ('[[bbs]]\ntag = "[EN]"\nname = "Demo"\naddresses = ["127.0.0.1"]\n',
     "[[bbs]] entry 1: tag must be 2-8 letters or digits, got '[EN]'"),
    ('[[bbs]]\ntag = "EN"\nname = "A"\naddresses = ["10.0.0.1"]\n'
     '[[bbs]]\ntag = "en"\nname = "B"\naddresses = ["10.0.0.2"]\n',
     "[[bbs]] entry 2: tag 'en' is used twice"),
    ('[[bbs]]\ntag = "EN"\naddresses = ["127.0.0.1"]\n',
     "[[bbs]] EN: name must be 1-40 printable characters"),
    ('[[bbs]]\ntag = "EN"\nname = "E"\n', "[[bbs]] EN: addresses must be a list of the "
     "networks the BBS connects from"),
    ('[[bbs]]\ntag = "EN"\nname = "E"\naddresses = ["10.0.0.0/33"]\n',
     "[[bbs]] EN: addresses: '10.0.0.0/33' is not an IP address or a network in CIDR"),
    ('[[bbs]]\ntag = "EN"\nname = "E"\naddresses = ["bbs.example.org"]\n',
     "addresses: 'bbs.example.org' is not an IP address"),
    ('[[bbs]]\ntag = "EN"\nname = "E"\naddresses = ["::1"]\nmax_nodes = 0\n',
     "[[bbs]] EN: max_nodes must be a whole number between 1 and 10000, got 0"),
    ('[[bbs]]\ntag = "EN"\nname = "E"\naddresses = ["::1"]\nsignups_per_day = -1\n',
     "signups_per_day must be a whole number between 0 and"),
    ('[[bbs]]\ntag = "EN"\nname = "E"\naddresses = ["::1"]\nstarting_cubes = "lots"\n',
     "starting_cubes must be a whole number between 0 and"),
    ('[[bbs]]\ntag = "EN"\nname = "E"\naddresses = ["::1"]\ncharset = "latin1"\n',
     "[[bbs]] EN: charset must be \"cp437\", \"utf-8\" or \"\" (ask the terminal), got "
     "'latin1'"),
    ('[[bbs]]\ntag = "EN"\nname = "E"\naddresses = ["::1"]\nsecret = 7\n',
     "[[bbs]] EN: secret must be a string"),
    ('[[bbs]]\ntag = "EN"\nname = "E"\naddresses = ["::1"]\nnodes = 7\n',
     "[[bbs]] entry 1: unknown key 'nodes'"),
])
def test_bad_config_stops_with_a_message_naming_it(tmp_path, text, named):
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert named in str(info.value)
    assert str(path) in str(info.value)


def test_a_season_is_a_month_unless_the_config_says_a_week(tmp_path):
    assert Config().seasons.length == "month"
    assert load_config(write(tmp_path, '[seasons]\nlength = "week"\n')).seasons.length == "week"


def test_bbs_systems_and_the_rlogin_port_are_read_with_their_defaults(tmp_path):
    """``[rlogin]`` is off on 2513 unless enabled; each ``[[bbs]]`` entry is a system
    known by the addresses it connects from, with its limits."""
    assert (Config().rlogin.enabled, Config().rlogin.port, Config().bbs) == (False, 2513, ())
    config = load_config(write(tmp_path, '[rlogin]\nenabled = true\nport = 0\n'
                               '[[bbs]]\ntag = "EN"\nname = "Enigma Test"\n'
                               'addresses = ["192.0.2.0/24", "2001:db8::7"]\n'
                               '[[bbs]]\ntag = "DEMO"\nname = "Demo"\naddresses = "127.0.0.1"\n'
                               'secret = "s3cret"\nmax_nodes = 2\nsignups_per_day = 3\n'
                               'starting_cubes = 500\ncharset = "cp437"\n'))
    assert (config.rlogin.enabled, config.rlogin.port) == (True, 0)
    en, demo = config.bbs
    assert (en.tag, en.name, en.secret, en.max_nodes, en.signups_per_day, en.starting_cubes,
            en.charset) == ("EN", "Enigma Test", "", 10, 50, None, "")
    assert en.admits("192.0.2.99") and en.admits("::ffff:192.0.2.1") and en.admits("2001:db8::7")
    assert not en.admits("192.0.3.1") and not en.admits("127.0.0.1") and not en.admits("-")
    assert (demo.addresses, demo.secret, demo.max_nodes, demo.signups_per_day,
            demo.starting_cubes, demo.charset) == (("127.0.0.1",), "s3cret", 2, 3, 500, "cp437")
    assert demo.admits("127.0.0.1") and not demo.admits("127.0.0.2")


def test_an_old_config_without_tables_gets_the_one_table_it_always_had(tmp_path):
    config = load_config(write(tmp_path, "[table]\nante = 20\n"))
    (spec,) = config.table_specs
    assert (spec.id, spec.name, spec.game) == ("poker", "PoKeR", "draw40")
    assert spec.rules == config.table and spec.config.ante == 20


def test_tables_take_the_table_defaults_and_override_them_each(tmp_path):
    config = load_config(write(tmp_path, """
[table]
ante = 20
turn_timeout = 45
[[tables]]
id = "poker"
name = "PoKeR"
[[tables]]
id = "high-rollers"
name = " High Rollers "
game = "draw40"
ante = 50
max_bet = 500
seats = 4
"""))
    low, high = config.table_specs
    assert (low.id, low.name, low.rules) == ("poker", "PoKeR", config.table)
    assert (high.id, high.name, high.game) == ("high-rollers", "High Rollers", "draw40")
    assert (high.config.ante, high.config.max_bet, high.config.seats) == (50, 500, 4)
    assert high.config.turn_timeout == 45 and high.config.min_bet == 1   # from [table]
    assert (high.rules.seats, high.rules.turn_timeout) == (4, 45)      # the shared keys


def test_a_schiebe_table_has_no_ante_four_seats_and_three_rounds_unless_it_says(tmp_path):
    config = load_config(write(tmp_path, """
[table]
ante = 20
turn_timeout = 45
bots = 2
[[tables]]
id = "schiebe"
name = "Schiebe-Poker"
game = "schiebe"
[[tables]]
id = "schiebe-7"
name = "Seven rounds"
game = "schiebe"
rounds = 7
ante = 12
seats = 3
"""))
    plain, staked = config.table_specs
    assert plain.game == staked.game == "schiebe"
    assert (plain.config.ante, plain.config.seats, plain.config.rounds, plain.config.bots) == (0, 4, 3, 0)
    assert plain.config.turn_timeout == 45                              # from [table]
    assert (staked.config.ante, staked.config.seats, staked.config.rounds) == (12, 3, 7)


def test_missing_config_file_is_an_error(tmp_path):
    with pytest.raises(ConfigError, match="cannot read config file .*nope.toml"):
        load_config(tmp_path / "nope.toml")


@pytest.mark.parametrize("text", [
    '[web]\nhost = "0.0.0.0"\norigins = "https://bbs.example.org"\n',
    '[web]\nhost = "::"\nenabled = false\n',
    '[web]\nhost = "::1"\n',
    '[web]\nhost = "127.0.0.2"\n',
    '[web]\nhost = "localhost"\n',
])
def test_the_web_port_beyond_loopback_needs_its_origins(tmp_path, text):
    """With no [web] origins only a page on a loopback name may open the WebSocket, so a
    web port open to the network must say which pages are its own."""
    assert load_config(write(tmp_path, text)).web.enabled in (True, False)


def test_each_table_holds_its_kinds_config_made_and_checked_by_the_kind(tmp_path):
    """A table's keys are its kind's config (``spec.config``): the kind says which
    ``[table]`` defaults it takes and checks them; ``spec.rules`` shows the same keys."""
    from bbspoker.rules.kinds import kind
    config = load_config(write(tmp_path, """
[table]
ante = 20
bots = 2
[[tables]]
id = "h"
name = "H"
game = "holdem"
small_bet = 20
[[tables]]
id = "d"
name = "D"
"""))
    h, d = config.table_specs
    assert type(h.config) is kind("holdem").config
    assert (h.config.small_bet, h.config.seats, h.config.bots) == (20, 9, 0)
    assert (h.rules.seats, h.rules.bots) == (9, 0)
    assert d.config == kind("draw40").config(ante=20, bots=2)
    (only,) = load_config(write(tmp_path, "[table]\nante = 30\n")).table_specs
    assert only.config == kind("draw40").config(ante=30)


@pytest.mark.parametrize("text, named", [
    ('[[tables]]\nid = "h"\nname = "H"\ngame = "holdem"\nrounds = 5\n',
     "[[tables]] entry 1: unknown key 'rounds' for game holdem (known: id, name, game, seats,"),
    ('[[tables]]\nid = "d"\nname = "D"\nsmall_bet = 20\n',
     "entry 1: unknown key 'small_bet' for game draw40 (known: id, name, game, seats,"),
    ('[[tables]]\nid = "s"\nname = "S"\ngame = "schiebe"\nbring_in = 2\n',
     "unknown key 'bring_in' for game schiebe"),
])
def test_a_table_entry_takes_only_the_keys_of_its_kind(tmp_path, text, named):
    """A key another kind has is no longer ignored silently: the entry is refused with
    the keys its own kind takes."""
    with pytest.raises(ConfigError) as err:
        load_config(write(tmp_path, text))
    assert named in str(err.value)


def test_a_kind_in_the_registry_brings_its_keys_to_the_config(tmp_path, monkeypatch):
    """The keys a table may have come from the kinds' config classes: a kind's new key is
    taken in ``[table]`` (as its tables' default) and in its ``[[tables]]`` entries,
    checked with the range its class declares, and refused for a table of another kind,
    with no change to the config module."""
    from bbspoker import config as config_module
    from bbspoker.rules import kinds
    from bbspoker.rules.base import setting

    base = kinds.kind("holdem")

    @dataclasses.dataclass(frozen=True)
    class FeltConfig(base.config):   # type: ignore[name-defined,misc]
        felt: int = setting(2, 1, 3)

    felt = dataclasses.replace(base, name="felt", config=FeltConfig)
    monkeypatch.setattr(config_module, "KINDS", (*kinds.KINDS, felt))
    monkeypatch.setattr(config_module, "GAME_KINDS", (*kinds.names(), "felt"))
    monkeypatch.setitem(kinds._BY_NAME, "felt", felt)
    config = load_config(write(tmp_path, '[table]\nfelt = 3\n[[tables]]\nid = "f"\nname = "F"\n'
                                         'game = "felt"\n[[tables]]\nid = "g"\nname = "G"\n'
                                         'game = "felt"\nfelt = 1\n'))
    assert [s.config.felt for s in config.table_specs] == [3, 1]
    with pytest.raises(ConfigError, match=r"entry 1 felt must be between 1 and 3, got 4"):
        load_config(write(tmp_path, '[[tables]]\nid = "f"\nname = "F"\ngame = "felt"\nfelt = 4\n'))
    with pytest.raises(ConfigError, match=r"\[table\] felt must be a whole number"):
        load_config(write(tmp_path, '[table]\nfelt = "green"\n'))
    with pytest.raises(ConfigError, match=r"unknown key 'felt' for game draw40"):
        load_config(write(tmp_path, '[[tables]]\nid = "d"\nname = "D"\nfelt = 2\n'))


# ---------------------------------------------------------------- [[tournaments]]

NIGHTLY = '''
[[tournaments]]
id = "nightly"
name = "Nightly No-Limit"
game = "holdem"
limit = "no"
buy_in = 250
chips = 3000
seats_per_table = 6
starts = "20:00"
min_players = 4
late_levels = 2
bots = 20
turn_timeout = 30
levels = [{bet = 20, minutes = 10}, {bet = 40, minutes = 10}, {bet = 60, ante = 5, minutes = 12.5}]
payouts = [{entrants = 2, shares = [100]}, {entrants = 6, shares = [70, 30]}]

[[tournaments]]
id = "sng"
name = "Stud SNG"
game = "stud"
sit_and_go = 6
'''


def test_tournaments_are_read_with_their_levels_payouts_and_table_keys(tmp_path):
    config = load_config(write(tmp_path, NIGHTLY))
    nightly, sng = config.tournaments
    assert (nightly.id, nightly.game, nightly.scheduled, nightly.starts) == \
        ("nightly", "holdem", True, "20:00")
    r = nightly.rules
    assert (r.buy_in, r.chips, r.seats_per_table) == (250, 3000, 6)
    assert [(lv.bet, lv.ante, lv.minutes) for lv in r.levels] == \
        [(20, 0, 10.0), (40, 0, 10.0), (60, 5, 12.5)]
    assert r.shares(5) == (100,) and r.shares(9) == (70, 30)
    # The tables play the entry's limit and turn timeout, at the first level's stake.
    assert (nightly.table.limit, nightly.table.turn_timeout, nightly.table.small_bet,
            nightly.table.seats) == ("no", 30.0, 20, 6)
    assert (nightly.min_players, nightly.late_levels, nightly.bots) == (4, 2, 20)
    # Without levels and payouts: the default structure.
    assert sng.sit_and_go == 6 and not sng.scheduled and sng.rules.levels[0].bet == 20
    assert sng.rules.shares(6) == (65, 35)


@pytest.mark.parametrize("entry,message", [
    ('game = "schiebe"\nsit_and_go = 5', "game must be one of draw40, holdem, stud"),
    ('sit_and_go = 5\nstarts = "20:00"', "either sit_and_go"),
    ('buy_in = 10', "either sit_and_go"),
    ('starts = "25:00"', "time of day"),
    ('sit_and_go = 1', "2 or more"),
    ('sit_and_go = 5\nlate_levels = 1', "scheduled tournaments only"),
    ('sit_and_go = 5\nsmall_bet = 20', "unknown key 'small_bet'"),
    ('sit_and_go = 5\nseats = 4', "unknown key 'seats'"),
    ('sit_and_go = 5\nlevels = []', "levels must be a list"),
    ('sit_and_go = 5\nlevels = [{bet = 1}]', "bet must be a whole number between 2"),
    ('sit_and_go = 5\nlevels = [{bet = 20, minutes = 0}]', "minutes must be a number"),
    ('sit_and_go = 5\nlevels = [{bet = 20, blinds = 3}]', "unknown key 'blinds'"),
    ('sit_and_go = 5\nchips = 30', "two bets of the first level"),
    ('sit_and_go = 5\npayouts = [{entrants = 2, shares = [60, 40]}]', "pays at most 1"),
    ('sit_and_go = 5\npayouts = [{entrants = 3}]', "needs entrants = N and shares"),
    ('sit_and_go = 5\nbetween_hands = 0', "between_hands must be above 0"),
    ('sit_and_go = 5\nlimit = "half"', "limit must be one of fixed, pot, no"),
    ('id = "Bad Id"\nsit_and_go = 5', "id must be"),
])
def test_a_bad_tournament_entry_stops_the_start_naming_what_is_wrong(tmp_path, entry, message):
    text = '[[tournaments]]\nid = "t"\nname = "T"\n' + entry + "\n"
    if entry.startswith("id ="):
        text = '[[tournaments]]\nname = "T"\n' + entry + "\n"
    with pytest.raises(ConfigError, match=message):
        load_config(write(tmp_path, text))


def test_a_tournament_may_not_take_a_tables_id(tmp_path):
    text = ('[[tables]]\nid = "main"\nname = "Main"\n'
            '[[tournaments]]\nid = "main"\nname = "T"\nsit_and_go = 4\n')
    with pytest.raises(ConfigError, match="used twice"):
        load_config(write(tmp_path, text))
