"""The seed's commands, run as the seed writes them, from a fresh copy of the repository.

A user copies these as the docs give them: the Cursor configuration of docs/mcp.md
(``uv run --directory /path/to/chronomem python -m chronomem.server``, no extra) and the
reproducibility line ``uv run --with pytest pytest tests/test_chronomem.py``. Each runs here in
a copy of the repository's tracked files (what a clone holds, no ``.venv``), so uv builds the
project environment the way it would for that user. uv is in the dev extra.

The seed's third command, ``uv run python scripts/benchmark_matrix.py``, is not run here: the
matrix needs the bench extra (torch, an embedding model) and minutes; CI runs it in --quick
mode before the suite (``make bench-smoke``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parent.parent

SEED_TOOLS = {
    "chronomem_remember",
    "chronomem_recall",
    "chronomem_supersede",
    "chronomem_forget",
    "chronomem_timeline",
    "chronomem_contradictions",
}

_NOT_COPIED = shutil.ignore_patterns(
    ".git", ".venv", "__pycache__", ".*_cache", ".hypothesis", "*.db", "*.db-*", "uv.lock"
)


def _uv() -> str:
    """The uv of this environment (the dev extra installs it beside the interpreter)."""
    here = Path(sys.executable).parent / "uv"
    found = str(here) if here.exists() else shutil.which("uv")
    assert found, "uv is missing: it comes with the dev extra (pip install -e '.[dev]')"
    return found


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The repository's tracked files, as a clone has them."""
    target = tmp_path_factory.mktemp("clone") / "chronomem"
    listed = subprocess.run(
        ["git", "-C", str(REPO), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True,
        check=False,
    )
    if listed.returncode != 0:  # not a git checkout (an sdist): copy the tree instead
        shutil.copytree(REPO, target, ignore=_NOT_COPIED)
        return target
    for name in filter(None, listed.stdout.decode().split("\0")):
        source = REPO / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


@pytest.fixture
def uv_env(tmp_path: Path) -> dict[str, str]:
    """The user's environment, with a home of its own so ``~`` lands in the test's folder.

    uv keeps its usual cache (downloads are shared between runs) and uses this interpreter
    rather than downloading one; the virtualenv the suite runs in is not the project's.
    """
    cache = os.environ.get("UV_CACHE_DIR") or str(Path.home() / ".cache" / "uv")
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    home = tmp_path / "home"
    home.mkdir()
    env.update(
        HOME=str(home),
        UV_CACHE_DIR=cache,
        UV_PYTHON=sys.executable,
        UV_PYTHON_DOWNLOADS="never",
        UV_NO_PROGRESS="1",
    )
    return env


def test_the_cursor_configuration_serves_mcp(clone: Path, uv_env: dict[str, str]) -> None:
    # .cursor/mcp.json from the seed, with /path/to/chronomem filled in.
    params = StdioServerParameters(
        command=_uv(),
        args=["run", "--directory", str(clone), "python", "-m", "chronomem.server"],
        env={**uv_env, "CHRONOMEM_DB": "~/.chronomem/memory.db"},
    )
    home = Path(uv_env["HOME"])

    async def go() -> set[str]:
        with anyio.fail_after(600), (home / "server.log").open("w") as log:
            async with (
                stdio_client(params, errlog=log) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                tools = {t.name for t in (await session.list_tools()).tools}
                stored = await session.call_tool(
                    "chronomem_remember", {"content": "Ardian prefers quiet tables"}
                )
                assert not stored.is_error
                return tools

    try:
        tools = anyio.run(go)
    except BaseException:
        print((home / "server.log").read_text())  # uv's and the server's own words
        raise
    assert tools >= SEED_TOOLS
    assert (home / ".chronomem" / "memory.db").is_file()  # ~ expanded, as the seed says


def test_the_seed_test_command_passes(clone: Path, uv_env: dict[str, str]) -> None:
    done = subprocess.run(
        [_uv(), "run", "--with", "pytest", "pytest", "tests/test_chronomem.py"],
        cwd=clone,
        env=uv_env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert " passed" in done.stdout
    assert " failed" not in done.stdout
    assert "skipped" not in done.stdout
