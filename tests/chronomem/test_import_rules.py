"""The house's plan, read from the code: who may import whom in chronica and chronomem.

Every module under ``src/chronica`` and ``src/chronomem`` is parsed (``ast``, nothing is
imported or run) and every import it makes is collected, including those inside functions and
``TYPE_CHECKING`` blocks: a lazy import is still a dependency. The rules:

- chronomem's core imports no front door and no integration (the doors import the core);
- the MCP server, the web inspector and the demo import nothing of the command line or of
  each other (the command line may dispatch to them), an integration uses the public API
  only, and the floor below the doors (``chronomem._doors``) imports no door;
- nothing outside ``chronica.stores`` imports chronica's private store modules
  (``chronica.stores._*``): a store's tables are read through the store;
- chronica imports nothing of chronomem;
- inside chronomem's core each wing imports only the floors below it (:data:`WING_FLOORS`): the
  text analysis nothing, the engine the base records and errors, claims and recall the engine
  and text, the write path those and claims and recall; only the face (``ChronoMem`` and its
  helpers) imports every wing;
- no module imports another package's private module (a name starting with ``_``): a package
  shares through its public modules.

The checker is tested on small synthetic graphs too, so a rule that could never fail is caught.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"
PACKAGES = ("chronica", "chronomem")

Graph = Mapping[str, frozenset[str]]
"""Each module's name, and the names of the modules it imports."""

DOORS = {
    "cli": ("chronomem.cli", "chronomem.__main__"),
    "server": ("chronomem.server",),
    "ui": ("chronomem.ui",),
    "demo": ("chronomem.demo",),
    "integrations": ("chronomem.integrations",),
}
"""The ways in, by name: each door's modules (``python -m chronomem`` is the command line)."""

FLOOR = "chronomem._doors"
"""What the doors share; below them, above the core."""

BASE = ("chronomem._errors", "chronomem._model", "chronomem._checks", "chronomem._iso8601")
"""The core's ground: errors, records, argument checks and the time reader, for every wing."""

WINGS = {
    "text": "chronomem.text",
    "engine": "chronomem.engine",
    "claims": "chronomem.claims",
    "recall": "chronomem.recall",
    "write": "chronomem.write",
}
"""The core's wings by name, each one package."""

WING_FLOORS: Mapping[str, frozenset[str]] = {
    "base": frozenset({"base"}),
    "text": frozenset(),
    "engine": frozenset({"base"}),
    "claims": frozenset({"base", "text", "engine"}),
    "recall": frozenset({"base", "text", "engine"}),
    "write": frozenset({"base", "text", "engine", "claims", "recall"}),
}
"""What each wing may import of the core besides itself (the face, absent here, imports all)."""

WING_IMPORTS_ALLOWED: frozenset[tuple[str, str]] = frozenset()
"""Known breaks of the wing rule, each to be removed (the list only shrinks)."""

PRIVATE_STORE_IMPORTS_ALLOWED: frozenset[tuple[str, str]] = frozenset()
"""Known breaks of the private-store rule, each to be removed (an entry no longer needed fails
the test too, so this list only shrinks)."""


# --------------------------------------------------------------------------- reading the code


def module_name(path: Path, root: Path) -> str:
    """``chronomem/cli/_commands.py`` -> ``chronomem.cli._commands`` (a package is its
    ``__init__``)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(
    tree: ast.Module, module: str, *, is_package: bool, known: Iterable[str]
) -> set[str]:
    """The modules ``module`` imports anywhere in its code: ``from a import b`` names ``a.b``
    when that is a module (``from . import _output``), else ``a``; relative imports resolved."""
    known = set(known)
    package = module if is_package else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.add(sub if sub in known else base)
    found.discard(module)
    return found


def read_graph(root: Path, packages: Iterable[str]) -> dict[str, frozenset[str]]:
    """Every module under ``root/<package>`` and what it imports."""
    files = {
        module_name(path, root): path
        for package in packages
        for path in sorted((root / package).rglob("*.py"))
    }
    graph = {}
    for module, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        graph[module] = frozenset(
            imports_of(tree, module, is_package=path.name == "__init__.py", known=files)
        )
    return graph


# --------------------------------------------------------------------------- the rules


def within(module: str, prefix: str) -> bool:
    """``module`` is ``prefix`` or inside it."""
    return module == prefix or module.startswith(prefix + ".")


def door_of(module: str) -> str | None:
    """The name of the door ``module`` belongs to, ``"floor"`` for the shared layer, else None."""
    if within(module, FLOOR):
        return "floor"
    for door, prefixes in DOORS.items():
        if any(within(module, p) for p in prefixes):
            return door
    return None


def is_core(module: str) -> bool:
    """chronomem's core: everything of chronomem that is no door and not the floor."""
    return within(module, "chronomem") and door_of(module) is None


Edge = tuple[str, str]
Rule = Callable[[Graph], list[Edge]]


def _edges(graph: Graph) -> Iterable[Edge]:
    for module, targets in sorted(graph.items()):
        for target in sorted(targets):
            yield module, target


def core_imports_no_door(graph: Graph) -> list[Edge]:
    """The core imports no door, no integration and not the floor."""
    return [(m, t) for m, t in _edges(graph) if is_core(m) and door_of(t) is not None]


_APART = {
    "server": {"cli", "ui", "demo"},
    "ui": {"cli", "server", "demo"},
    "demo": {"cli", "server", "ui"},
    "integrations": {*DOORS, "floor"} - {"integrations"},
    "floor": set(DOORS),
}
"""What each door must not import (the command line may dispatch to every other door)."""


def doors_stay_apart(graph: Graph) -> list[Edge]:
    """The server, the inspector and the demo import neither the command line nor each other;
    an integration uses the public API only; the floor imports no door."""
    return [(m, t) for m, t in _edges(graph) if door_of(t) in _APART.get(door_of(m) or "", ())]


def private_stores_stay_inside(graph: Graph) -> list[Edge]:
    """Only ``chronica.stores`` imports ``chronica.stores._*``."""
    return [
        (m, t)
        for m, t in _edges(graph)
        if t.startswith("chronica.stores._") and not within(m, "chronica.stores")
    ]


def wing_of(module: str) -> str | None:
    """The core wing ``module`` belongs to: ``"base"``, a name of :data:`WINGS`, ``"face"``
    for the rest of the core, ``None`` outside it."""
    if not is_core(module):
        return None
    if module in BASE:
        return "base"
    return next((name for name, package in WINGS.items() if within(module, package)), "face")


def wings_keep_their_floors(graph: Graph) -> list[Edge]:
    """A core wing imports only itself and the wings below it (see WING_FLOORS)."""
    broken = []
    for m, t in _edges(graph):
        wing, target = wing_of(m), wing_of(t)
        if wing in (None, "face") or target is None or target == wing:
            continue
        if target not in WING_FLOORS[wing]:
            broken.append((m, t))
    return broken


def _private(module: str) -> bool:
    return any(part.startswith("_") and not part.startswith("__") for part in module.split("."))


def privates_stay_home(graph: Graph) -> list[Edge]:
    """No module imports a private module (``_name``) of another package."""
    return [
        (m, t)
        for m, t in _edges(graph)
        if t.split(".")[0] in PACKAGES and t.split(".")[0] != m.split(".")[0] and _private(t)
    ]


def chronica_stands_alone(graph: Graph) -> list[Edge]:
    """chronica imports nothing of chronomem (chronomem is built on it, not the reverse)."""
    return [(m, t) for m, t in _edges(graph) if within(m, "chronica") and within(t, "chronomem")]


RULES: dict[Rule, frozenset[Edge]] = {
    core_imports_no_door: frozenset(),
    doors_stay_apart: frozenset(),
    private_stores_stay_inside: PRIVATE_STORE_IMPORTS_ALLOWED,
    chronica_stands_alone: frozenset(),
    wings_keep_their_floors: WING_IMPORTS_ALLOWED,
    privates_stay_home: frozenset(),
}
"""Each rule and the breaks it tolerates for now."""


# --------------------------------------------------------------------------- the house


@pytest.fixture(scope="module")
def graph() -> dict[str, frozenset[str]]:
    return read_graph(SRC, PACKAGES)


@pytest.mark.parametrize("rule", list(RULES), ids=lambda rule: rule.__name__)
def test_the_code_keeps_the_rule(graph: Graph, rule: Rule) -> None:
    allowed = RULES[rule]
    broken = [edge for edge in rule(graph) if edge not in allowed]
    assert not broken, f"{rule.__doc__}\nbroken by: " + ", ".join(f"{m} -> {t}" for m, t in broken)
    stale = allowed - set(rule(graph))
    assert not stale, f"no longer needed, remove from the allowlist: {sorted(stale)}"


def test_the_reader_sees_the_whole_house(graph: Graph) -> None:
    # A reader that found nothing would pass every rule: it must see the doors, the floor and
    # the imports they are known to make, lazy ones included.
    assert {"chronomem.cli", "chronomem.server._config", FLOOR, "chronica.stores.sqlite"} <= set(
        graph
    )
    assert "chronomem._doors.settings" in graph["chronomem.server._config"]
    assert "chronomem.cli._output" in graph["chronomem.cli._commands"]  # `from . import _output`
    assert "chronomem.server" in graph["chronomem.cli._commands"]  # inside cmd_serve
    assert "chronomem.ui" in graph["chronomem.cli"]  # inside main
    assert "chronica.stores.postgres" in graph["chronomem._doors.settings"]  # TYPE_CHECKING


# --------------------------------------------------------------------------- the checker


SYNTHETIC = {
    "chronomem.recall.fusion": {"chronomem.engine.storage", "chronomem.text.tokens"},
    "chronomem.write.facts": {"chronomem.recall.lexindex", "chronomem.claims.reader"},
    "chronomem.engine.sqlite.schema": {"chronomem._errors", "chronica.stores.sqlite"},
    "chronomem._memory": {"chronomem.write.facts", "chronomem.recall.fusion", "chronica"},
    "chronomem.cli": {"chronomem", "chronomem._doors.settings", "chronomem.server"},
    "chronomem.server._config": {"chronomem._doors.access"},
    "chronomem.ui._config": {"chronomem._doors.settings"},
    "chronomem._doors.settings": {"chronomem.engine.storage", "chronica.stores.sqlite"},
    "chronica.stores.sqlite": {"chronica.stores._sqlite_schema"},
}
"""A house that keeps every rule (the command line may dispatch to the server)."""


@pytest.mark.parametrize(
    ("rule", "module", "target"),
    [
        (core_imports_no_door, "chronomem.recall.fusion", "chronomem.cli._output"),
        (core_imports_no_door, "chronomem._memory", "chronomem._doors.text"),
        (core_imports_no_door, "chronomem", "chronomem.integrations.adk"),
        (core_imports_no_door, "chronomem.engine.storage", "chronomem.demo"),
        (doors_stay_apart, "chronomem.server._config", "chronomem.cli._config"),
        (doors_stay_apart, "chronomem.ui._config", "chronomem.server._config"),
        (doors_stay_apart, "chronomem.server._tools", "chronomem.ui"),
        (doors_stay_apart, "chronomem.ui", "chronomem.__main__"),
        (doors_stay_apart, "chronomem._doors.text", "chronomem.cli._output"),
        (doors_stay_apart, "chronomem.demo", "chronomem.cli._output"),
        (doors_stay_apart, "chronomem.integrations.adk", "chronomem._doors.settings"),
        (private_stores_stay_inside, "chronomem.ui._sessions", "chronica.stores._sqlite_schema"),
        (private_stores_stay_inside, "chronica._restore", "chronica.stores._postgres_schema"),
        (chronica_stands_alone, "chronica.stores.postgres", "chronomem.engine.postgres.db"),
        (wings_keep_their_floors, "chronomem.engine.sqlite.schema", "chronomem.write.facts"),
        (wings_keep_their_floors, "chronomem.text.entities", "chronomem.engine.dialect"),
        (wings_keep_their_floors, "chronomem.text.tokens", "chronomem._errors"),
        (wings_keep_their_floors, "chronomem.recall.fusion", "chronomem.claims.reader"),
        (wings_keep_their_floors, "chronomem.recall.lexindex", "chronomem.write.facts"),
        (wings_keep_their_floors, "chronomem.claims.reader", "chronomem.recall.view"),
        (wings_keep_their_floors, "chronomem.write.importing", "chronomem._memory"),
        (wings_keep_their_floors, "chronomem._checks", "chronomem.engine.storage"),
        (privates_stay_home, "chronomem._model", "chronica._frozen"),
        (privates_stay_home, "chronica._model", "chronomem._errors"),
    ],
)
def test_each_rule_catches_its_break(rule: Rule, module: str, target: str) -> None:
    house = {name: frozenset(targets) for name, targets in SYNTHETIC.items()}
    for each in RULES:
        assert each(house) == [], each.__name__
    house[module] = house.get(module, frozenset()) | {target}
    assert rule(house) == [(module, target)]


def test_the_reader_finds_every_kind_of_import(tmp_path: Path) -> None:
    (tmp_path / "chronomem" / "server").mkdir(parents=True)
    (tmp_path / "chronomem" / "cli").mkdir()
    for name in ("chronomem", "chronomem/server", "chronomem/cli"):
        (tmp_path / name / "__init__.py").write_text("")
    (tmp_path / "chronomem" / "cli" / "_output.py").write_text("")
    (tmp_path / "chronomem" / "server" / "_tools.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "from . import _state\n"
        "from ..cli import _output\n"
        "if TYPE_CHECKING:\n"
        "    import chronica.stores._sqlite_schema\n"
        "def late():\n"
        "    from chronomem.ui._config import x\n"
        "    import chronomem.demo as d\n"
    )
    (tmp_path / "chronomem" / "server" / "_state.py").write_text("")
    found = read_graph(tmp_path, ["chronomem"])["chronomem.server._tools"]
    assert found == {
        "typing",
        "chronomem.server._state",
        "chronomem.cli._output",
        "chronica.stores._sqlite_schema",
        "chronomem.ui._config",
        "chronomem.demo",
    }
    assert doors_stay_apart({"chronomem.server._tools": found}) == [
        ("chronomem.server._tools", "chronomem.cli._output"),
        ("chronomem.server._tools", "chronomem.demo"),
        ("chronomem.server._tools", "chronomem.ui._config"),
    ]
