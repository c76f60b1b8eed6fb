"""The registry of game kinds as the computer players know them (bots/kinds.py): the code
every kind shares looks a kind up instead of naming it, and each kind's policies are the
ones its tables may use."""

from __future__ import annotations

import ast
import pathlib
import re

import pytest

from bbspoker.bots.kinds import BOT_KINDS, bot_kind
from bbspoker.config import ConfigError, load_config
from tests.support.kindview import kind_view_reads

BOTS = pathlib.Path(__file__).resolve().parents[2] / "src" / "bbspoker" / "bots"
RULES = BOTS.parent / "rules"
#: The bot code every game kind shares: it may know kinds only through the registry.
SHARED = ("kind.py", "player.py", "seats.py", "remote.py", "sim.py")
#: The kinds' own packages of rules, and the bot modules that define a kind's BotKind.
KIND_PACKAGES = {f"bbspoker.rules.{p.name}" for p in RULES.iterdir() if (p / "__init__.py").exists()}
KIND_MODULES = {type(k).__module__ for k in BOT_KINDS.values()}


def _naming(path: pathlib.Path) -> list[str]:
    """Where the module at ``path`` names a game kind: a string that is a kind's name, or
    an import of a kind's rules or of a kind's bot module."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Constant) and node.value in BOT_KINDS:
            found.append(f"line {node.lineno}: {node.value!r}")
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = {node.module} | {f"{node.module}.{a.name}" for a in node.names}
            if any(n in KIND_MODULES or n.startswith(tuple(KIND_PACKAGES)) for n in names):
                found.append(f"line {node.lineno}: from {node.module} import ...")
        elif isinstance(node, ast.Import):
            found += [f"line {node.lineno}: import {a.name}" for a in node.names
                      if a.name in KIND_MODULES or a.name.startswith(tuple(KIND_PACKAGES))]
    return found


@pytest.mark.parametrize("module", SHARED)
def test_the_shared_bot_code_names_no_game_kind(module):
    assert KIND_PACKAGES and KIND_MODULES
    assert _naming(BOTS / module) == []


@pytest.mark.parametrize("module", SHARED)
def test_the_shared_bot_code_reads_no_kinds_view_of_the_table(module):
    """The bot player, the seats, the bot port and the simulator read only the
    snapshot's fields every kind has; the kind's BotKind reads its view."""
    assert kind_view_reads(BOTS / module) == []


def test_the_check_sees_a_kind_named_or_imported(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("from bbspoker.rules.holdem.game import HoldemTable\n"
                   "import bbspoker.bots.schiebe\n"
                   "x = {'draw40': 1}\n")
    assert len(_naming(bad)) == 3


def test_every_table_kind_with_bots_is_registered_under_its_own_name():
    assert [k.name for k in BOT_KINDS.values()] == list(BOT_KINDS)
    assert bot_kind("holdem") is BOT_KINDS["holdem"]
    with pytest.raises(ValueError, match="known: draw40, holdem, schiebe"):
        bot_kind("chess")


@pytest.mark.parametrize("game", sorted(BOT_KINDS))
def test_a_table_may_use_exactly_its_kind_s_policies(tmp_path, monkeypatch, game):
    """Each policy of a kind makes a bot at its table (config loads, the policy is made);
    a policy only another kind has is refused, naming exactly this kind's policies."""
    monkeypatch.delenv("BBSPOKER_CONFIG", raising=False)
    monkeypatch.delenv("BBSPOKER_DB", raising=False)
    kind = BOT_KINDS[game]

    def table(policy: str) -> pathlib.Path:
        path = tmp_path / "bbspoker.toml"
        path.write_text(f'[[tables]]\nid = "t"\nname = "T"\ngame = "{game}"\nbots = 1\n'
                        f'bot_policy = "{policy}"\n')
        return path

    for name in kind.policies:
        spec = load_config(table(name)).tables[0]
        assert kind.policy(spec.rules.bot_policy).name == name
    others = {n for k in BOT_KINDS.values() for n in k.policies} - set(kind.policies)
    for name in others:
        with pytest.raises(ConfigError) as err:
            load_config(table(name))
        said = re.search(r"bot_policy must be one of (.*) for (\w+), got", str(err.value))
        assert said is not None and said[2] == game
        assert sorted(said[1].split(", ")) == sorted(kind.policies)
