"""Every module the prose names exists: a rename leaves no docstring pointing at the old name.

Read from the docstrings and comments of every Python file under ``src/``, ``tests/`` and
``scripts/``, and from every page of ``docs/`` and ``README.md``:

- dotted names of the two packages (``chronomem.write.time_index``, ``chronica.stores.sqlite``):
  the longest prefix that is a module must exist, and what follows it must be a name defined
  there (``chronomem.ChronoMem.remember``);
- paths of Python files (``write/time_index.py``, ``engine/sqlite/checkpoints.py``, a bare
  ``_iso8601.py``, ``tests/chronomem/recall/test_graded.py``): some file under ``src/chronica``,
  ``src/chronomem``, ``tests/`` or ``scripts/`` must end with that path. A bare public name
  (``conftest.py``, ``server.py``) is too common to say which file it means and is not read.

Nothing is imported to find the references (``ast`` and ``tokenize``); a dotted name's tail is
checked by importing its module. The checker is tested on a synthetic stale reference too.
"""

from __future__ import annotations

import ast
import importlib
import io
import itertools
import re
import tokenize
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("chronica", "chronomem")

DOTTED = re.compile(r"(?<![\w./-])(?:chronica|chronomem)(?:\.[A-Za-z_]\w*)+(?![\w*])")
"""A dotted name in one of the packages, not part of a file name or a longer path, nor a
pattern (``chronica.stores._*``)."""

LOGGER = re.compile(r"""getLogger\(["']([\w.]+)["']\)""")
"""A logger's name in the code: ``chronomem.postgres`` names a logger, not a module."""

PATH = re.compile(r"(?<![\w./-])((?:[A-Za-z_][\w-]*/)*[A-Za-z_]\w*\.py)\b")
"""A Python file's path, relative or bare."""

NOT_MODULES = frozenset({"db", "sqlite", "json", "jsonl", "sql", "toml", "md", "log", "txt"})
"""Last parts that make ``chronomem.db`` a file's name, not a module's."""

FOREIGN = frozenset(
    {
        # Other projects' files, named where we follow their lead.
        "tests/test_exported_members.py",
        "src/mcp/server/fastmcp/server.py",
    }
)
"""Paths of files in other projects that the prose names on purpose."""


def prose_of_python(source: str) -> Iterator[str]:
    """The docstrings and comments of one Python file."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            docstring = ast.get_docstring(node, clean=False)
            if docstring:
                yield docstring
        # An attribute's docstring: a bare string right after an assignment.
        body = getattr(node, "body", None)
        if isinstance(body, list):
            for before, after in itertools.pairwise(body):
                if (
                    isinstance(before, ast.Assign | ast.AnnAssign)
                    and isinstance(after, ast.Expr)
                    and isinstance(after.value, ast.Constant)
                    and isinstance(after.value.value, str)
                ):
                    yield after.value.value
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.string


def references(prose: str) -> Iterator[str]:
    """The module names and Python file paths one piece of prose mentions."""
    for match in DOTTED.finditer(prose):
        name = match.group(0)
        if name.rsplit(".", 1)[1] not in NOT_MODULES:
            yield name
    for match in PATH.finditer(prose):
        path = match.group(1)
        if "/" in path or path.startswith("_"):
            yield path


def is_module(name: str, src: Path) -> bool:
    """Whether ``name`` is a module or package under ``src``."""
    base = src.joinpath(*name.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def dotted_resolves(name: str, src: Path) -> bool:
    """Whether the longest module prefix of ``name`` exists and the rest is defined in it."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        module = ".".join(parts[:cut])
        if is_module(module, src):
            break
    else:
        return False
    rest = parts[cut:]
    if not rest:
        return True
    target: object = importlib.import_module(module)
    for part in rest:
        if not hasattr(target, part):
            return False
        target = getattr(target, part)
    return True


def path_resolves(path: str, files: Iterable[Path], root: Path) -> bool:
    """Whether some file under ``root`` ends with ``path`` (at a folder boundary)."""
    if path in FOREIGN:
        return True
    wanted = tuple(Path(path).parts)
    return any(file.relative_to(root).parts[-len(wanted) :] == wanted for file in files)


def stale(prose_by_file: Iterable[tuple[str, str]], root: Path) -> list[str]:
    """``file: reference`` for each reference in the prose that names nothing that exists."""
    src = root / "src"
    files = [
        file
        for where in (src / "chronica", src / "chronomem", root / "tests", root / "scripts")
        for file in where.rglob("*.py")
    ]
    loggers = {name for file in files for name in LOGGER.findall(file.read_text("utf-8"))}
    found = []
    for where, prose in prose_by_file:
        for reference in references(prose):
            if reference.endswith(".py"):
                resolves = path_resolves(reference, files, root)
            else:
                resolves = reference in loggers or dotted_resolves(reference, src)
            if not resolves:
                found.append(f"{where}: {reference}")
    return sorted(set(found))


def repository_prose(root: Path) -> Iterator[tuple[str, str]]:
    """Every docstring and comment under src/, tests/ and scripts/, every page of the docs."""
    for folder in ("src", "tests", "scripts"):
        for file in sorted((root / folder).rglob("*.py")):
            where = str(file.relative_to(root))
            for prose in prose_of_python(file.read_text(encoding="utf-8")):
                yield where, prose
    for page in [root / "README.md", *sorted((root / "docs").rglob("*.md"))]:
        yield str(page.relative_to(root)), page.read_text(encoding="utf-8")


def test_every_module_the_prose_names_exists() -> None:
    assert stale(repository_prose(REPO), REPO) == []


def test_the_checker_finds_a_synthetic_stale_reference(tmp_path: Path) -> None:
    # A tiny house: one package with one wing module, and a test file.
    wing = tmp_path / "src" / "chronomem" / "write"
    wing.mkdir(parents=True)
    (tmp_path / "src" / "chronomem" / "__init__.py").write_text("")
    (wing / "__init__.py").write_text("")
    (wing / "time_index.py").write_text("")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_one.py").write_text("")
    (tmp_path / "scripts").mkdir()
    (wing / "log.py").write_text('log = logging.getLogger("chronomem.upgrades")\n')
    source = '''"""Reads write/time_index.py, once write/times.py, and chronomem.write.time_index"""

X = 1
"""Moved from chronomem.write.times (tests/test_one.py, tests/test_two.py, _gone.py)."""

# The old home was chronomem.engine.facts; chronomem.db is a file, conftest.py is too common.
# Logged on chronomem.upgrades; every chronomem.write._* module is private.
'''
    prose = [("src/chronomem/write/other.py", text) for text in prose_of_python(source)]
    assert stale(prose, tmp_path) == [
        "src/chronomem/write/other.py: _gone.py",
        "src/chronomem/write/other.py: chronomem.engine.facts",
        "src/chronomem/write/other.py: chronomem.write.times",
        "src/chronomem/write/other.py: tests/test_two.py",
        "src/chronomem/write/other.py: write/times.py",
    ]


@pytest.mark.parametrize(
    ("name", "resolves"),
    [
        ("chronomem.ChronoMem.remember", True),
        ("chronomem.ChronoMem.no_such_method", False),
        ("chronica.stores.sqlite.SQLiteStore", True),
        ("chronomem.write.time_index", True),
        ("chronomem.write.times", False),
    ],
)
def test_a_dotted_name_resolves_to_a_module_and_its_names(name: str, resolves: bool) -> None:
    assert dotted_resolves(name, REPO / "src") is resolves
