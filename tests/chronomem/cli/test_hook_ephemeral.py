"""Hooks installed from ``uvx`` and ``pipx run`` survive their cache being cleaned.

Each route installs the hooks as a user would (``uvx --from <checkout> chronomem hook install
...``, ``pipx run --spec <checkout> chronomem hook install ...``), in a home, a uv cache and a
pipx home of the test's own; the cache is then cleaned (``uv cache clean``, ``pipx cache
purge``), which deletes the interpreter that ran the install; and the command in the
settings file is fired as Claude Code fires it (``sh -c``, JSON on stdin): a Stop captures a
transcript and a prompt is answered from it. uv and pipx come with the dev extra and fetch
chronomem's dependencies from the package index, as for a user.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent
LIMIT = 600  # seconds for a step that may build chronomem and fetch its dependencies


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The repository's tracked files (what a clone gives uvx and pipx)."""
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


def _tool(name: str) -> Path:
    found = BIN / name
    assert found.exists(), f"{name} is missing: it comes with the dev extra"
    return found


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """A user's environment: a home, a uv cache and a pipx home of the test's own, and a
    PATH holding uvx and pipx but no chronomem."""
    tools = tmp_path / "tools"
    tools.mkdir()
    for name in ("uv", "uvx", "pipx"):
        (tools / name).symlink_to(_tool(name))
    (tmp_path / "home").mkdir()
    keep = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    keep = {k: v for k, v in keep.items() if not k.startswith(("CHRONOMEM_", "UV", "PIPX"))}
    keep.update(
        HOME=str(tmp_path / "home"),
        PATH=f"{tools}:/usr/bin:/bin",
        UV_CACHE_DIR=str(tmp_path / "uv-cache"),
        UV_PYTHON=sys.executable,
        UV_PYTHON_DOWNLOADS="never",
        UV_NO_PROGRESS="1",
        PIPX_HOME=str(tmp_path / "pipx"),
        PIPX_BIN_DIR=str(tmp_path / "pipx" / "bin"),
    )
    return keep


def _run(argv: list[str], env: dict[str, str], **options: object) -> str:
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=LIMIT,
                          check=False, **options)  # type: ignore[call-overload]  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return str(done.stdout)


def _fired_after_the_clean(command: str, env: dict[str, str], tmp_path: Path) -> None:
    project = tmp_path / "home" / "src" / "tidepool"
    (project / ".git").mkdir(parents=True)
    transcript = tmp_path / "t.jsonl"
    said = {"role": "user", "content": "tidepool deploys go to the blue cluster"}
    line = {"type": "user", "uuid": "u1", "timestamp": "2026-05-01T10:00:00Z", "message": said}
    transcript.write_text(json.dumps(line) + "\n")
    hooks = {"CLAUDE_PROJECT_DIR": str(project), **env}
    stop = {"session_id": "s1", "transcript_path": str(transcript), "cwd": str(project),
            "hook_event_name": "Stop"}  # fmt: skip
    assert _run(["sh", "-c", command], hooks, input=json.dumps(stop), cwd=project) == ""
    prompt = {"session_id": "s1", "cwd": str(project), "hook_event_name": "UserPromptSubmit",
              "prompt": "which cluster do tidepool deploys go to?"}  # fmt: skip
    reply = _run(["sh", "-c", command], hooks, input=json.dumps(prompt), cwd=project)
    assert "blue cluster" in json.loads(reply)["hookSpecificOutput"]["additionalContext"]
    assert not (tmp_path / "home" / ".chronomem" / "hook.log").exists()  # nothing went wrong


def _installed(env: dict[str, str]) -> str:
    settings = json.loads((Path(env["HOME"]) / ".claude" / "settings.json").read_text())
    commands = {h["command"] for groups in settings["hooks"].values() for g in groups
                for h in g["hooks"]}  # fmt: skip
    assert len(commands) == 1
    return str(commands.pop())


def test_hooks_installed_through_uvx_survive_uv_cache_clean(
    checkout: Path, env: dict[str, str], tmp_path: Path
) -> None:
    db = tmp_path / "memory.db"
    said = _run([str(_tool("uvx")), "--from", str(checkout), "chronomem", "hook", "install",
                 "--claude-code", "--user", "--db", str(db)], env)  # fmt: skip
    assert "note: this chronomem runs from uv's cache" in said
    command = _installed(env)
    assert command == f"{_tool('uvx')} --from {checkout} chronomem hook --db {db} --installed"
    _run([str(_tool("uv")), "cache", "clean"], env)
    assert not list(Path(env["UV_CACHE_DIR"]).glob("archive-v*/*"))  # the interpreter went
    _fired_after_the_clean(command, env, tmp_path)


def test_hooks_installed_through_pipx_run_survive_pipx_cache_purge(
    checkout: Path, env: dict[str, str], tmp_path: Path
) -> None:
    db = tmp_path / "memory.db"
    said = _run([str(_tool("pipx")), "run", "--spec", str(checkout), "chronomem", "hook",
                 "install", "--claude-code", "--user", "--db", str(db)], env)  # fmt: skip
    assert "note: this chronomem runs from pipx's cache" in said
    command = _installed(env)
    pipx = Path(env["PATH"].split(":")[0]) / "pipx"
    assert command == f"{pipx} run --spec {checkout} chronomem hook --db {db} --installed"
    cache = Path(env["PIPX_HOME"]) / ".cache"
    assert [p for p in cache.iterdir() if p.is_dir()]
    _run([str(_tool("pipx")), "cache", "purge"], env)
    assert not [p for p in cache.iterdir() if p.is_dir()]  # the interpreter went
    _fired_after_the_clean(command, env, tmp_path)
