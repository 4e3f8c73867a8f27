"""The server installed and started the ways MCP users start servers, from a copy of the checkout.

``uvx --from <path> chronomem serve`` and ``pipx run --spec <path> chronomem serve`` (what the
client configurations of docs/mcp.md run), and the wheel and the sdist ``uv build`` makes, each
installed in a fresh virtualenv whose ``chronomem serve`` must answer the SDK's client over
stdio and store a fact where ``CHRONOMEM_DB`` says, for the owner ``CHRONOMEM_OWNER`` names.

uv and pipx are in the dev extra. Both fetch chronomem's dependencies from the package index
(or their cache), as they would for a user: without pipx the pipx case is skipped on a
developer's machine, never in CI (``CI`` set), where the dev extra must have installed it.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from chronomem import ChronoMem

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent


def _uv(name: str = "uv") -> str:
    found = str(BIN / name) if (BIN / name).exists() else shutil.which(name)
    assert found, f"{name} is missing: it comes with the dev extra (pip install -e '.[dev]')"
    return found


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The repository's tracked files (what a clone or a git URL gives uvx and pipx)."""
    target = tmp_path_factory.mktemp("checkout") / "chronomem"
    listed = subprocess.run(
        ["git", "-C", str(REPO), "ls-files", "-z", "--cached"], capture_output=True, check=True
    )
    for name in filter(None, listed.stdout.decode().split("\0")):
        source = REPO / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


@pytest.fixture
def user_env(tmp_path: Path) -> dict[str, str]:
    """A user's environment with a home of its own (uv's cache shared between runs, this
    interpreter rather than a downloaded one, pipx's home in the test's folder)."""
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env = {k: v for k, v in env.items() if not k.startswith("CHRONOMEM_")}
    env.update(
        HOME=str(home),
        UV_CACHE_DIR=os.environ.get("UV_CACHE_DIR") or str(Path.home() / ".cache" / "uv"),
        UV_PYTHON=sys.executable,
        UV_PYTHON_DOWNLOADS="never",
        UV_NO_PROGRESS="1",
        PIPX_HOME=str(tmp_path / "pipx"),
        PIPX_BIN_DIR=str(tmp_path / "pipx" / "bin"),
    )
    return env


def _serves(command: str, args: list[str], env: dict[str, str], db: Path) -> None:
    """Start the server as an MCP client would; it must list its tools and store a fact in
    ``db`` for the owner ``ardian``."""
    params = StdioServerParameters(
        command=command,
        args=args,
        env={**env, "CHRONOMEM_DB": str(db), "CHRONOMEM_OWNER": "ardian"},
    )
    log_path = db.with_suffix(".log")

    async def go() -> None:
        with anyio.fail_after(900), log_path.open("w") as log:
            async with (
                stdio_client(params, errlog=log) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                tools = {t.name for t in (await session.list_tools()).tools}
                assert {"chronomem_remember", "chronomem_recall"} <= tools
                stored = await session.call_tool(
                    "chronomem_remember", {"content": "Ardian prefers quiet tables"}
                )
                assert not stored.is_error, stored

    try:
        anyio.run(go)
    except BaseException:
        print(log_path.read_text())  # the installer's and the server's own words
        raise
    with ChronoMem(db, owner="ardian") as memory:
        assert [f.content for f in memory.recall("quiet tables")] == ["Ardian prefers quiet tables"]


def test_uvx_from_a_path_serves(checkout: Path, user_env: dict[str, str], tmp_path: Path) -> None:
    _serves(
        _uv("uvx"), ["--from", str(checkout), "chronomem", "serve"], user_env, tmp_path / "u.db"
    )


def test_pipx_run_from_a_path_serves(
    checkout: Path, user_env: dict[str, str], tmp_path: Path
) -> None:
    if importlib.util.find_spec("pipx") is None:
        if os.environ.get("CI"):
            pytest.fail("pipx is missing: the dev extra installs it")
        pytest.skip("pipx is not installed here (pip install -e '.[dev]' installs it)")
    _serves(
        sys.executable,
        ["-m", "pipx", "run", "--spec", str(checkout), "chronomem", "serve"],
        user_env,
        tmp_path / "p.db",
    )


@pytest.mark.parametrize("kind", ["wheel", "sdist"])
def test_the_built_package_installs_in_a_fresh_venv_and_serves(
    kind: str, checkout: Path, user_env: dict[str, str], tmp_path: Path
) -> None:
    dist = tmp_path / "dist"
    subprocess.run(
        [_uv(), "build", f"--{kind}", "--out-dir", str(dist), str(checkout)],
        env=user_env, check=True, capture_output=True, timeout=600,
    )  # fmt: skip
    [built] = dist.glob("*.whl" if kind == "wheel" else "*.tar.gz")
    venv = tmp_path / "venv"
    subprocess.run([_uv(), "venv", str(venv)], env=user_env, check=True, capture_output=True)
    python = venv / "bin" / "python"
    subprocess.run(
        [_uv(), "pip", "install", "--python", str(python), str(built)],
        env=user_env, check=True, capture_output=True, timeout=600,
    )  # fmt: skip
    # The fresh venv holds chronomem and its dependencies, not this checkout's sources.
    where = subprocess.run(
        [str(python), "-c", "import chronomem, mcp; print(chronomem.__file__)"],
        env=user_env, check=True, capture_output=True, text=True, cwd=tmp_path,
    )  # fmt: skip
    assert where.stdout.startswith(str(venv)), where.stdout
    _serves(str(venv / "bin" / "chronomem"), ["serve"], user_env, tmp_path / f"{kind}.db")
