"""``chronomem hook install|uninstall --claude-code``: our entries in Claude Code's settings.

Claude Code reads hooks from ``~/.claude/settings.json`` (the user's) and
``<project>/.claude/settings.json`` (a project's), under ``"hooks"``: each event names a list
of matcher groups, each holding ``{"type": "command", "command": ..., "timeout": ...}``
handlers. Installing merges ours into that file and keeps everything else in it, after a copy
of the file as it was (``settings.json.chronomem-backup``); installing again replaces ours,
never doubles them. Uninstalling takes out exactly the handlers whose command is ours.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

__all__ = ["EVENTS", "hook_command", "install", "is_ours", "settings_path", "uninstall"]

EVENTS = ("SessionStart", "UserPromptSubmit", "Stop", "PreCompact", "SessionEnd")
"""The events the hook answers: context at the start and on every prompt, capture after."""
MARK = "-m chronomem hook"
"""What every command we install holds, and how uninstall knows ours."""
TIMEOUT = {"UserPromptSubmit": 10, "SessionStart": 15}
"""Seconds Claude Code waits for us; capture may take longer on a long transcript."""
BACKUP_SUFFIX = ".chronomem-backup"


class SettingsFileError(ValueError):
    """The settings file is not JSON we can merge into: left untouched."""


def settings_path(*, project: bool, cwd: Path | None = None, home: Path | None = None) -> Path:
    """The user's settings file, or the project's (in ``cwd``)."""
    if project:
        return (cwd or Path.cwd()) / ".claude" / "settings.json"
    return (home or Path.home()) / ".claude" / "settings.json"


def hook_command(options: list[str]) -> str:
    """The command line Claude Code runs: this Python, so no PATH is needed."""
    return " ".join(shlex.quote(p) for p in [sys.executable, "-m", "chronomem", "hook", *options])


def is_ours(handler: object) -> bool:
    """A handler we installed."""
    return isinstance(handler, dict) and MARK in str(handler.get("command", ""))


def _read(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        settings = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as e:
        raise SettingsFileError(f"{path} is not JSON ({e}); left as it is") from None
    if not isinstance(settings, dict) or not isinstance(settings.get("hooks", {}), dict):
        raise SettingsFileError(f"{path} does not hold a settings object; left as it is")
    return settings


def _without_ours(hooks: dict[str, Any]) -> dict[str, Any]:
    kept: dict[str, Any] = {}
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            kept[event] = groups
            continue
        left = []
        for group in groups:
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                handlers = [h for h in group["hooks"] if not is_ours(h)]
                if not handlers:
                    continue  # the group held only ours
                group = {**group, "hooks": handlers}
            left.append(group)
        if left:
            kept[event] = left
    return kept


def _write(path: Path, settings: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        shutil.copy2(path, path.with_name(path.name + BACKUP_SUFFIX))
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(json.dumps(settings, indent=2, ensure_ascii=False) + "\n", "utf-8")
    os.replace(temporary, path)


def install(path: Path, options: list[str]) -> list[str]:
    """Merge our handlers into the settings at ``path``; returns the events installed."""
    settings = _read(path)
    hooks = _without_ours(settings.get("hooks", {}))
    command = hook_command(options)
    for event in EVENTS:
        handler = {"type": "command", "command": command, "timeout": TIMEOUT.get(event, 60)}
        hooks.setdefault(event, []).append({"hooks": [handler]})
    _write(path, {**settings, "hooks": hooks})
    return list(EVENTS)


def uninstall(path: Path) -> int:
    """Take our handlers out of the settings at ``path``; returns how many went."""
    settings = _read(path)
    hooks = settings.get("hooks", {})
    before = _count(hooks)
    kept = _without_ours(hooks)
    removed = before - _count(kept)
    if removed:
        rest = {k: v for k, v in settings.items() if k != "hooks"}
        _write(path, {**rest, "hooks": kept} if kept else rest)
    return removed


def _count(hooks: dict[str, Any]) -> int:
    return sum(
        1
        for groups in hooks.values()
        if isinstance(groups, list)
        for group in groups
        if isinstance(group, dict) and isinstance(group.get("hooks"), list)
        for handler in group["hooks"]
        if is_ours(handler)
    )
