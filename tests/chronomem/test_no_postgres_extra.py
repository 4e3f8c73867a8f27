"""A ``postgresql://`` database on an install without the ``postgres`` extra: every door
answers one line naming the extra, never ``ModuleNotFoundError``.

Each command runs in a subprocess whose ``sitecustomize`` hides psycopg (and its pool), as a
base install (``pip install chronomem``) lacks them, and is walked with the arguments it needs.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from chronomem.cli import build_parser

_FACT = "0662065eaa241bba99d75924ba84938a"
ARGUMENTS = {
    "remember": ["x is y"],
    "supersede": [_FACT, "x is z"],
    "forget": [_FACT],
    "recall": ["anything"],
    "remember-episode": ["hello", "--speaker", "a", "--session", "s"],
    "timeline": ["Ardian"],
    "contradictions": [],
    "stats": [],
    "reindex": ["--encoder", "static"],
    "export": [],
    "import": ["{export}"],
    "purge": [_FACT],
    "erase": ["--owner", "ardian", "--yes"],
    "prune": ["--episodes-older-than", "1d"],
    "demo": [],
    "serve": [],
    "ui": [],
}
"""Every command with a database, and what it needs besides. (``hook`` answers Claude Code's
events and always exits 0; its own tests cover it.)"""

_HIDE_DRIVER = textwrap.dedent(
    """
    import sys

    class _NoPostgresExtra:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in ("psycopg", "psycopg_pool", "psycopg_binary", "psycopg_c"):
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, _NoPostgresExtra())
    """
)
DSN = "postgresql://ardian:s3cret@127.0.0.1:1/memory"


def _commands() -> set[str]:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    choices: dict[str, Any] = sub.choices  # type: ignore[assignment]  # argparse internals
    return set(choices) - {"hook"}


def test_the_walk_covers_every_command() -> None:
    assert set(ARGUMENTS) == _commands()


@pytest.fixture(scope="module")
def base_install(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """A folder holding an export to import, and the environment of an install without the
    driver: the ``sitecustomize`` that hides it on the path."""
    where = tmp_path_factory.mktemp("no-postgres-extra")
    (where / "sitecustomize.py").write_text(_HIDE_DRIVER)
    export = where / "backup.jsonl"
    export.write_text('{"export": {"format": "chronomem", "version": 2, "owner": "ardian"}}\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith("CHRONOMEM_")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(where), env.get("PYTHONPATH")]))
    env["HOME"] = str(where)
    return where, env


def test_the_driver_is_hidden(base_install: tuple[Path, dict[str, str]]) -> None:
    _, env = base_install
    done = subprocess.run(
        [sys.executable, "-c", "import psycopg"], env=env, capture_output=True, text=True
    )
    assert done.returncode == 1
    assert "No module named 'psycopg'" in done.stderr


@pytest.mark.parametrize("how", ["flag", "environment"])
@pytest.mark.parametrize("command", sorted(ARGUMENTS))
def test_every_command_names_the_extra(
    command: str, how: str, base_install: tuple[Path, dict[str, str]]
) -> None:
    where, env = base_install
    args = [a.format(export=where / "backup.jsonl") for a in ARGUMENTS[command]]
    if how == "flag":
        args += ["--db", DSN]
    else:
        env = {**env, "CHRONOMEM_DB": DSN}
    done = subprocess.run(
        [sys.executable, "-m", "chronomem", command, *args],
        env=env,
        cwd=where,
        capture_output=True,
        text=True,
        timeout=60,
    )
    expected = (
        f"chronomem {command}: a PostgreSQL memory needs the postgres extra: "
        "pip install 'chronomem[postgres]'\n"
    )
    assert (done.returncode, done.stdout, done.stderr) == (2, "", expected)
