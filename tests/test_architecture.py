"""The package layout holds (docs/architecture.md): no import circle, and each layer imports
only what it may. Imports under ``if TYPE_CHECKING:`` count too: a circle of type hints is
still a circle for a reader."""

import ast
import pathlib

import pytest

SRC = pathlib.Path(__file__).resolve().parent.parent / "src"
ROOT = "bbspoker"

#: What each package may not import (prefixes of module names).
FORBIDDEN = {
    "bbspoker.rules": ("bbspoker.table", "bbspoker.door", "bbspoker.transport", "bbspoker.store",
                       "bbspoker.app", "bbspoker.config", "bbspoker.cli"),
    "bbspoker.table": ("bbspoker.door", "bbspoker.transport", "bbspoker.app", "bbspoker.cli"),
    "bbspoker.store": ("bbspoker.table", "bbspoker.door", "bbspoker.transport", "bbspoker.app",
                       "bbspoker.cli"),
    "bbspoker.door": ("bbspoker.transport", "bbspoker.app", "bbspoker.cli"),
    "bbspoker.transport": ("bbspoker.app", "bbspoker.cli", "bbspoker.table", "bbspoker.store"),
    # The one place every transport hands its connections to knows none of them, and
    # neither does the session (issue 19).
    "bbspoker.transport.gateway": ("bbspoker.transport.telnet", "bbspoker.transport.ssh",
                                   "bbspoker.transport.web", "bbspoker.transport.lines"),
    "bbspoker.transport.session": ("bbspoker.transport.telnet", "bbspoker.transport.ssh",
                                   "bbspoker.transport.web", "bbspoker.transport.lines",
                                   "bbspoker.transport.gateway"),
    # The drop-file door runs in the BBS's process for one caller: it reaches the server
    # over RLOGIN only, and loads nothing of the server's.
    "bbspoker.transport.dropfile": ("bbspoker.transport.gateway", "bbspoker.transport.session",
                                    "bbspoker.transport.telnet", "bbspoker.transport.ssh",
                                    "bbspoker.transport.web", "bbspoker.transport.lines",
                                    "bbspoker.transport.rlogin", "bbspoker.door",
                                    "bbspoker.rules", "bbspoker.bots", "bbspoker.config"),
    # The split deployment: the worker serves tables and knows no session; presence is
    # who is logged in where, as data (the gateway, a composition root like the app,
    # ties both to the door).
    "bbspoker.cluster.worker": ("bbspoker.door", "bbspoker.transport", "bbspoker.app",
                                "bbspoker.cli", "bbspoker.cluster.gateway"),
    "bbspoker.cluster.node": ("bbspoker.door", "bbspoker.transport", "bbspoker.app",
                              "bbspoker.cli", "bbspoker.cluster.gateway",
                              "bbspoker.cluster.worker"),
    "bbspoker.cluster.presence": ("bbspoker.door", "bbspoker.transport", "bbspoker.app",
                                  "bbspoker.cli", "bbspoker.store", "bbspoker.cluster.gateway",
                                  "bbspoker.cluster.worker"),
    # Computer players act through the rules' typed actions, never through screens.
    "bbspoker.bots": ("bbspoker.door", "bbspoker.transport", "bbspoker.app", "bbspoker.cli"),
    # A policy decides from its observation alone: it cannot reach a table or a wallet.
    "bbspoker.bots.draw40.base": ("bbspoker.table", "bbspoker.store"),
    "bbspoker.bots.draw40.policies": ("bbspoker.table", "bbspoker.store"),
    "bbspoker.bots.draw40.equity": ("bbspoker.table", "bbspoker.store"),
    "bbspoker.bots.draw40.observation": ("bbspoker.table", "bbspoker.store"),
}
#: Standard-library and third-party modules that mean I/O, time or terminals: the rules
#: are pure and synchronous.
IMPURE = ("asyncio", "socket", "sqlite3", "telnetlib3", "blessed", "time", "logging", "os",
          "threading", "subprocess")


def _modules() -> dict[str, pathlib.Path]:
    found = {}
    for path in (SRC / ROOT).rglob("*.py"):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _imports(name: str, path: pathlib.Path) -> set[str]:
    """Every module ``name`` imports (absolute names; ``from pkg import mod`` counts as
    ``pkg.mod`` when that is a module of ours)."""
    tree = ast.parse(path.read_text(), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            out.add(module)
            for alias in node.names:
                if f"{module}.{alias.name}" in MODULES:
                    out.add(f"{module}.{alias.name}")
    return out


IMPORTS = {name: _imports(name, path) for name, path in MODULES.items()}


def _ours(names: set[str]) -> set[str]:
    return {n for n in names if n in MODULES and n != ROOT}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one member, or a self-loop (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 or v in graph.get(v, ()):
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_packages_of_the_architecture_exist():
    for package in ("rules", "rules.draw40", "table", "door", "door.screens", "transport",
                    "store", "bots", "app"):
        assert f"{ROOT}.{package}" in MODULES, package


def test_no_import_circle_between_modules():
    graph = {name: _ours(IMPORTS[name]) - {name} for name in MODULES}
    # A package's __init__ imported by its own modules is no circle of the code's.
    assert _cycles(graph) == []


def test_no_import_circle_between_packages():
    def package(name: str) -> str:
        parts = name.split(".")
        return ".".join(parts[:2])

    graph: dict[str, set[str]] = {}
    for name in MODULES:
        graph.setdefault(package(name), set()).update(
            package(m) for m in _ours(IMPORTS[name]) if package(m) != package(name))
    assert _cycles(graph) == []


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_a_layer_imports_nothing_it_may_not(layer):
    wrong = {name: sorted(m for m in IMPORTS[name] if m.startswith(FORBIDDEN[layer]))
             for name in MODULES if name == layer or name.startswith(layer + ".")}
    assert {k: v for k, v in wrong.items() if v} == {}


def test_the_rules_are_pure():
    wrong = {name: sorted(m for m in IMPORTS[name] if m.split(".")[0] in IMPURE)
             for name in MODULES if name.startswith(f"{ROOT}.rules")}
    assert {k: v for k, v in wrong.items() if v} == {}


#: Each network library is used by its own transport alone (the CLI parses public keys
#: with asyncssh): the door, the tables and the store know nothing of the wire.
WIRE_LIBRARIES = {
    "telnetlib3": {"bbspoker.transport.telnet"},
    "asyncssh": {"bbspoker.transport.ssh", "bbspoker.cli"},
    "aiohttp": {"bbspoker.transport.web"},
}


@pytest.mark.parametrize("library", sorted(WIRE_LIBRARIES))
def test_each_network_library_stays_in_its_transport(library):
    users = {name for name in MODULES if any(m.split(".")[0] == library for m in IMPORTS[name])}
    assert users <= WIRE_LIBRARIES[library]


#: Each database driver is used by its backend of the store alone: the ledger's shared parts,
#: the door, the app and the CLI know a failing database only as ``StoreError``.
DATABASE_DRIVERS = {
    "sqlite3": {"bbspoker.store.sqlite.writer"},
    "psycopg": {"bbspoker.store.postgres.writer", "bbspoker.store.postgres.lease"},
}


@pytest.mark.parametrize("driver", sorted(DATABASE_DRIVERS))
def test_each_database_driver_stays_in_its_backend(driver):
    users = {name for name in MODULES if any(m.split(".")[0] == driver for m in IMPORTS[name])}
    assert users == DATABASE_DRIVERS[driver]


def test_the_checker_sees_a_forbidden_import_and_a_circle(tmp_path):
    """The checks above can fail: a made-up module graph with a circle and a rules module
    that imports the store is caught."""
    assert _cycles({"a": {"b"}, "b": {"a"}, "c": set()}) == [["a", "b"]]
    bad = tmp_path / "x.py"
    bad.write_text("from bbspoker.store import wallet\nif TYPE_CHECKING:\n    import asyncio\n")
    found = _imports("bbspoker.rules.x", bad)
    assert "bbspoker.store.wallet" in found and "asyncio" in found


#: The game kinds' names (bbspoker.rules.kinds, which this test does not import: it reads
#: the code only).
KIND_NAMES = ("draw40", "schiebe", "holdem", "stud")
#: Where a kind may be named: its own package and the registries of kinds.
KIND_HOMES = tuple(f"bbspoker.rules.{k}" for k in KIND_NAMES) + ("bbspoker.rules.kinds",)


def _kind_names_in(tree: ast.AST) -> list[str]:
    """String constants of ``tree`` that name a kind, docstrings left out."""
    docs = {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                 ast.AsyncFunctionDef))
            and node.body and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)}
    return [node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docs and node.value in KIND_NAMES]


@pytest.mark.parametrize("name", sorted(
    n for n in MODULES if (n.startswith(("bbspoker.rules", "bbspoker.table"))
                           or n == "bbspoker.config")
    and not n.startswith(KIND_HOMES)))
def test_the_rules_table_and_config_look_kinds_up_and_never_name_one(name):
    """Outside a kind's own package and the registry of kinds, the rules, the table
    service and the config know a kind only by looking it up: no string names one and no
    module imports a kind's package."""
    tree = ast.parse(MODULES[name].read_text(), str(MODULES[name]))
    assert _kind_names_in(tree) == []
    assert [m for m in IMPORTS[name] if m.startswith(KIND_HOMES[:-1])] == []


#: Every layer's homes of the kinds: each kind's own package or modules (its rules, its
#: screen and wording, its bots) and the three registries that list them.
ALL_KIND_HOMES = KIND_HOMES + tuple(
    f"bbspoker.{layer}.{k}{suffix}" for k in KIND_NAMES
    for layer, suffix in (("bots", ""), ("door.screens", ""), ("door.screens", "_text"))) + (
    "bbspoker.bots.kinds", "bbspoker.door.screens.kinds")


def _is_kind_home(name: str) -> bool:
    return any(name == home or name.startswith(home + ".") for home in ALL_KIND_HOMES)


@pytest.mark.parametrize("name", sorted(n for n in MODULES if not _is_kind_home(n)))
def test_no_module_but_a_kinds_own_and_the_registries_names_a_kind(name):
    """Adding a game kind touches its own packages and one line in each registry: no
    other module of any layer names a kind in its code or imports a kind's module."""
    tree = ast.parse(MODULES[name].read_text(), str(MODULES[name]))
    assert _kind_names_in(tree) == []
    kind_modules = [m for m in IMPORTS[name] if _is_kind_home(m)
                    and m not in ("bbspoker.rules.kinds", "bbspoker.bots.kinds",
                                  "bbspoker.door.screens.kinds")]
    assert kind_modules == []


def test_games_verify_looks_the_kind_of_a_record_up():
    tree = ast.parse(MODULES["bbspoker.cli"].read_text())
    verify = [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)
              and node.name in ("_game_kind", "_verify_one")]
    assert len(verify) == 2 and [n for f in verify for n in _kind_names_in(f)] == []
