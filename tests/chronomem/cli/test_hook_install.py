"""``chronomem hook install|uninstall``: Claude Code's settings file written as found (mode,
symlink), refused when it cannot be merged, no password or machine path in the committed
file, and only our handlers taken out. Each case runs the command line as a user would, in a
home of its own."""

from __future__ import annotations

import importlib.metadata
import json
import os
import shlex
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from chronomem import ChronoMem
from chronomem.cli._hook_command import ephemeral_tool, source_spec
from chronomem.cli._hook_settings import is_ours

BIN = Path(sys.executable).parent
ANTHROPIC = {"env": {"ANTHROPIC_API_KEY": "sk-ant-secret"}, "model": "opus"}


def run(
    *args: str, home: Path, cwd: Path | None = None, path: str = "/usr/bin:/bin"
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CHRONOMEM_", "UV"))}
    env.update(HOME=str(home), PATH=path)
    return subprocess.run(
        [sys.executable, "-m", "chronomem", "hook", *args], cwd=cwd or home, env=env,
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def commands(settings: dict[str, Any]) -> list[str]:
    return [h["command"] for groups in settings.get("hooks", {}).values() for g in groups
            for h in g["hooks"]]  # fmt: skip


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "home" / ".claude").mkdir(parents=True)
    return tmp_path / "home"


def test_install_keeps_a_private_files_mode(home: Path) -> None:
    settings = home / ".claude" / "settings.json"
    settings.write_text(json.dumps(ANTHROPIC))
    settings.chmod(0o600)
    for action in ("install", "uninstall"):
        done = run(action, "--claude-code", "--user", "--db", "m.db", home=home)
        assert done.returncode == 0, done.stderr
        assert stat.S_IMODE(settings.stat().st_mode) == 0o600
    backup = home / ".claude" / "settings.json.chronomem-backup"
    assert stat.S_IMODE(backup.stat().st_mode) == 0o600
    assert json.loads(settings.read_text()) == ANTHROPIC
    assert not [p.name for p in settings.parent.iterdir() if p.name.endswith(".tmp")]


def test_install_writes_through_a_symlinked_settings_file(home: Path) -> None:
    dotfiles = home / "dotfiles" / "claude"
    dotfiles.mkdir(parents=True)
    target = dotfiles / "settings.json"
    target.write_text(json.dumps(ANTHROPIC))
    target.chmod(0o640)
    link = home / ".claude" / "settings.json"
    link.symlink_to(target)
    done = run("install", "--claude-code", "--user", "--db", "m.db", home=home)
    assert done.returncode == 0, done.stderr
    assert link.is_symlink()
    assert os.readlink(link) == str(target)
    merged = json.loads(target.read_text())
    assert merged["env"] == ANTHROPIC["env"]
    assert len(commands(merged)) == 5
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    done = run("uninstall", "--claude-code", "--user", home=home)
    assert done.returncode == 0, done.stderr
    assert link.is_symlink()
    assert json.loads(target.read_text()) == ANTHROPIC


UNMERGEABLE = {
    "an event that is not a list": json.dumps({"hooks": {"Stop": {"hooks": []}}}),
    "an event that is text": json.dumps({"hooks": {"UserPromptSubmit": "date"}}),
    "hooks that are a list": json.dumps({"hooks": []}),
    "invalid JSON": "{ // a comment is not JSON",
    "not an object": "[]",
    "not UTF-8": b"\xff\xfe{}".decode("latin-1"),
}


@pytest.mark.parametrize("text", UNMERGEABLE.values(), ids=UNMERGEABLE.keys())
def test_install_on_settings_it_cannot_merge_exits_2_and_writes_nothing(
    home: Path, text: str
) -> None:
    settings = home / ".claude" / "settings.json"
    settings.write_bytes(text.encode("latin-1"))
    before = settings.read_bytes()
    done = run("install", "--claude-code", "--user", "--db", "m.db", home=home)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert done.stderr.startswith("chronomem hook: ")
    assert "Traceback" not in done.stderr
    assert settings.read_bytes() == before
    assert sorted(p.name for p in settings.parent.iterdir()) == ["settings.json"]


def test_install_on_a_settings_folder_exits_2(home: Path) -> None:
    (home / ".claude" / "settings.json").mkdir()
    for action in ("install", "uninstall"):
        done = run(action, "--claude-code", "--user", home=home)
        assert done.returncode == 2
        assert (
            done.stderr
            == f"chronomem hook: {home}/.claude/settings.json is not a file; left as it is\n"
        )
    assert sorted(p.name for p in (home / ".claude").iterdir()) == ["settings.json"]
    (home / ".claude" / "settings.json").rmdir()
    (home / ".claude").rmdir()
    (home / ".claude").write_text("a file where the folder should be")
    done = run("install", "--claude-code", "--user", home=home)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert "cannot be written" in done.stderr


@pytest.mark.parametrize(
    "dsn", ["postgresql://app:PW@db.example/mem", "postgresql://app@db.example/mem?password=PW"]
)
def test_the_committed_settings_never_hold_a_password(home: Path, dsn: str) -> None:
    project = home / "src" / "tidepool"
    project.mkdir(parents=True)
    done = run("install", "--claude-code", "--project", "--db", dsn, home=home, cwd=project)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    for way in ("PGPASSFILE", "CHRONOMEM_DB", "--local", "postgresql://app@db.example/mem "):
        assert way in done.stderr
    assert "PW" not in done.stderr
    assert not (project / ".claude").exists()
    # Without the password the shared file takes the DSN; --local takes it whole.
    done = run("install", "--claude-code", "--project", "--db", "postgresql://app@db.example/mem",
               home=home, cwd=project)  # fmt: skip
    assert done.returncode == 0, done.stderr
    shared = commands(json.loads((project / ".claude" / "settings.json").read_text()))
    assert all("postgresql://app@db.example/mem" in c for c in shared)
    done = run("install", "--claude-code", "--local", "--db", dsn, home=home, cwd=project)
    assert done.returncode == 0, done.stderr
    local = commands(json.loads((project / ".claude" / "settings.local.json").read_text()))
    assert all(shlex.quote(dsn) in c for c in local)
    assert "PW" not in (project / ".claude" / "settings.json").read_text()


THEIRS = [
    "/opt/tools/wrap.sh -m chronomem hook --db /m.db",
    f"{sys.executable} -m chronomem hook --db /m.db && notify-send done",
    "echo 'python -m chronomem hook' >> ~/hooks.log",
    f"bash -c '{sys.executable} -m chronomem hook --installed'",
    f"{sys.executable} -m chronomem hook --db /m.db --verbose --installed",
]


def test_uninstall_takes_out_only_what_install_wrote(home: Path) -> None:
    settings = home / ".claude" / "settings.json"
    earlier = f"{sys.executable} -m chronomem hook --db /old.db"  # what versions before wrote
    theirs = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": c}]} for c in THEIRS]
                        + [{"hooks": [{"type": "command", "command": earlier}]}]}}  # fmt: skip
    settings.write_text(json.dumps(theirs))
    done = run("install", "--claude-code", "--user", "--db", "m.db", home=home)
    assert done.returncode == 0, done.stderr
    installed = commands(json.loads(settings.read_text()))
    assert earlier not in installed  # replaced by the new install, not doubled
    assert [c for c in installed if c in THEIRS] == THEIRS
    done = run("uninstall", "--claude-code", "--user", home=home)
    assert done.stdout.startswith("5 chronomem hook(s) removed")
    assert commands(json.loads(settings.read_text())) == THEIRS


def test_the_project_file_holds_no_machine_paths_and_runs_anywhere(home: Path) -> None:
    """With ``chronomem`` on PATH, ``--project`` writes ``chronomem hook`` and the database
    under ``$CLAUDE_PROJECT_DIR``: the same file works in a teammate's clone elsewhere."""
    project = home / "src" / "tidepool"
    project.mkdir(parents=True)
    path = f"{BIN}:/usr/bin:/bin"
    done = run("install", "--claude-code", "--project", "--db", "memory.db",
               home=home, cwd=project, path=path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "chronomem` from PATH" in done.stdout
    text = (project / ".claude" / "settings.json").read_text()
    assert str(home) not in text
    assert sys.executable not in text
    command = commands(json.loads(text))[0]
    assert command == 'chronomem hook --db "$CLAUDE_PROJECT_DIR"/memory.db --installed'
    # A teammate's clone, somewhere else: the hook finds its own database.
    clone = home / "elsewhere" / "tidepool"
    clone.mkdir(parents=True)
    with ChronoMem(clone / "memory.db", owner="default") as mem:
        mem.remember("tidepool deploys go through the blue cluster", category="ops")
    prompt = {"hook_event_name": "UserPromptSubmit", "cwd": str(clone),
              "prompt": "which cluster do tidepool deploys go to?"}  # fmt: skip
    env = {"HOME": str(home), "PATH": path, "CLAUDE_PROJECT_DIR": str(clone)}
    fired = subprocess.run(["sh", "-c", command], input=json.dumps(prompt), cwd=home, env=env,
                           capture_output=True, text=True, timeout=120, check=True)  # fmt: skip
    assert "blue cluster" in json.loads(fired.stdout)["hookSpecificOutput"]["additionalContext"]
    done = run("uninstall", "--claude-code", "--project", home=home, cwd=project)
    assert done.stdout.startswith("5 chronomem hook(s) removed")


def test_without_chronomem_on_path_the_project_install_says_what_is_machine_specific(
    home: Path,
) -> None:
    project = home / "src" / "tidepool"
    project.mkdir(parents=True)
    done = run("install", "--claude-code", "--project", "--db", "/srv/mem/m.db",
               "--log", "~/logs/hook.log", home=home, cwd=project)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "no chronomem on PATH" in done.stdout
    assert "/srv/mem/m.db is outside the project and the home folder" in done.stdout
    command = commands(json.loads((project / ".claude" / "settings.json").read_text()))[0]
    assert command == (f"{shlex.quote(sys.executable)} -m chronomem hook --db /srv/mem/m.db "
                       '--log "$HOME"/logs/hook.log --installed')  # fmt: skip
    # --local is for this machine: absolute paths, nothing to say.
    done = run("install", "--claude-code", "--local", "--db", "m.db", home=home, cwd=project)
    assert (done.returncode, done.stdout.count("note:")) == (0, 0)
    local = commands(json.loads((project / ".claude" / "settings.local.json").read_text()))[0]
    assert (
        local
        == f"{shlex.quote(sys.executable)} -m chronomem hook --db {project / 'm.db'} --installed"
    )


def test_install_passes_the_scope_flags_on(home: Path) -> None:
    done = run("install", "--claude-code", "--user", "--db", "m.db", "--project-name", "tidepool",
               "--all-projects", "--owner", "ardian", home=home)  # fmt: skip
    assert done.returncode == 0, done.stderr
    command = commands(json.loads((home / ".claude" / "settings.json").read_text()))[0]
    flags = "--owner ardian --project-name tidepool --all-projects --installed"
    assert command.endswith(f"hook --db {home / 'm.db'} {flags}")


def test_an_interpreter_in_a_tagged_cache_is_ephemeral(tmp_path: Path) -> None:
    uv_env = tmp_path / "uv" / "archive-v0" / "Xy12"
    pipx_env = tmp_path / "pipx" / ".cache" / "0c5f5d6"
    for env in (uv_env, pipx_env):
        env.mkdir(parents=True)
    for cache in (tmp_path / "uv", tmp_path / "pipx" / ".cache"):
        (cache / "CACHEDIR.TAG").write_text("Signature: 8a477f597d28d172789f06886806bc55")
    (pipx_env / "pipx_metadata.json").write_text(
        json.dumps({"main_package": {"package_or_url": "git+https://example.org/c.git@v1"}})
    )
    assert ephemeral_tool(uv_env, {}) == "uv"
    assert ephemeral_tool(pipx_env, {}) == "pipx"
    assert ephemeral_tool(Path(sys.prefix), {}) is None  # this test's own environment
    assert source_spec(pipx_env) == "git+https://example.org/c.git@v1"


class _Dist:
    version = "0.1.0"

    def __init__(self, direct: dict[str, Any] | None) -> None:
        self.direct = direct

    def read_text(self, name: str) -> str | None:
        return json.dumps(self.direct) if self.direct is not None else None


@pytest.mark.parametrize(
    ("direct", "spec"),
    [
        ({"url": "file:///home/a/chronomem", "dir_info": {}}, "/home/a/chronomem"),
        ({"url": "file:///w/chronomem-0.1.0-py3-none-any.whl", "archive_info": {}},
         "/w/chronomem-0.1.0-py3-none-any.whl"),
        ({"url": "https://github.com/x/chronomem", "vcs_info": {"vcs": "git", "commit_id": "ab12"}},
         "git+https://github.com/x/chronomem@ab12"),
        (None, "chronomem==0.1.0"),
    ],
)  # fmt: skip
def test_the_source_is_where_chronomem_came_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, direct: dict[str, Any] | None, spec: str
) -> None:
    monkeypatch.setattr(importlib.metadata, "distribution", lambda name: _Dist(direct))
    assert source_spec(tmp_path) == spec


OURS = [
    'chronomem hook --db "$CLAUDE_PROJECT_DIR"/memory.db --installed',
    "/home/a/.local/bin/uvx --from /home/a/chronomem chronomem hook --db /m.db --installed",
    "/usr/bin/uv tool run --from 'chronomem==0.1.0' chronomem hook --installed",
    "pipx run --spec git+https://example.org/c.git@v1 chronomem hook --owner=a --installed",
    "/opt/venv/bin/python3.11 -m chronomem hook --db /m.db",  # unmarked, as versions before
]


@pytest.mark.parametrize("command", OURS)
def test_uninstall_knows_each_command_install_writes(command: str) -> None:
    assert is_ours({"type": "command", "command": command})


@pytest.mark.parametrize("command", THEIRS)
def test_uninstall_leaves_commands_that_mention_the_hook(command: str) -> None:
    assert not is_ours({"type": "command", "command": command})
