"""``chronomem hook install|uninstall --claude-code``: our entries in Claude Code's settings.

Claude Code reads hooks from ``~/.claude/settings.json`` (the user's),
``<project>/.claude/settings.json`` (a project's, committed) and
``<project>/.claude/settings.local.json`` (a project's on this machine only), under
``"hooks"``: each event names a list of matcher groups, each holding
``{"type": "command", "command": ..., "timeout": ...}`` handlers. Installing merges ours into
that file and keeps everything else in it, after a copy of the file as it was
(``settings.json.chronomem-backup``); installing again replaces ours, never doubles them.

The file is written as it is found: its mode stays (a 0600 file holding an API key stays
0600), a symlink stays a symlink and its target is updated, and the new text replaces the old
in one rename. A file that cannot be merged (not JSON, not an object, an event that is not a
list, a folder) is left as it is.

Ours are the commands ``install`` writes: a launcher of chronomem, ``hook``, only the hook's
own flags, and the ``--installed`` mark. Uninstalling takes out exactly those (and the
unmarked ``<python> -m chronomem hook <flags>`` earlier versions wrote), never a command that
merely mentions ``chronomem hook``.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import tempfile
from pathlib import Path
from typing import Any

__all__ = [
    "EVENTS",
    "MARK",
    "SettingsFileError",
    "hook_entries",
    "install",
    "is_ours",
    "settings_path",
    "uninstall",
]

EVENTS = ("SessionStart", "UserPromptSubmit", "Stop", "PreCompact", "SessionEnd")
"""The events the hook answers: context at the start and on every prompt, capture after."""
MARK = "--installed"
"""The flag every command we install ends with, and how uninstall knows ours."""
TIMEOUT = {"UserPromptSubmit": 10, "SessionStart": 15}
"""Seconds Claude Code waits for us; capture may take longer on a long transcript."""
BACKUP_SUFFIX = ".chronomem-backup"
VALUED = frozenset({"--db", "--owner", "--budget", "--start-budget", "--log", "--project-name"})
SWITCHES = frozenset({MARK, "--all-projects"})
"""The hook's flags: a command holding anything else is not one we wrote."""


class SettingsFileError(ValueError):
    """The settings file is not JSON we can merge into, or cannot be written: left untouched."""


def settings_path(
    *, project: bool, local: bool = False, cwd: Path | None = None, home: Path | None = None
) -> Path:
    """The user's settings file, or the project's (in ``cwd``): shared, or ``local``."""
    if local:
        return (cwd or Path.cwd()) / ".claude" / "settings.local.json"
    if project:
        return (cwd or Path.cwd()) / ".claude" / "settings.json"
    return (home or Path.home()) / ".claude" / "settings.json"


def _launcher(words: list[str]) -> bool:
    """Whether ``words`` start chronomem the ways ``install`` writes: ``<python> -m
    chronomem``, ``<path>/chronomem``, ``uvx --from S chronomem``, ``uv tool run --from S
    chronomem``, ``pipx run --spec S chronomem``."""
    name = [Path(w).name.removesuffix(".exe") for w in words[:1]]
    return (
        (len(words) == 3 and words[1:] == ["-m", "chronomem"])
        or (len(words) == 1 and name == ["chronomem"])
        or (len(words) == 4 and name == ["uvx"] and words[1] == "--from"
            and words[3] == "chronomem")
        or (len(words) == 6 and name == ["uv"] and words[1:4] == ["tool", "run", "--from"]
            and words[5] == "chronomem")
        or (len(words) == 5 and name == ["pipx"] and words[1:3] == ["run", "--spec"]
            and words[4] == "chronomem")
    )  # fmt: skip


def _only_hook_flags(words: list[str]) -> set[str] | None:
    """The flags in ``words`` if it holds nothing but the hook's flags (each valued one with
    its value), else None."""
    seen: set[str] = set()
    i = 0
    while i < len(words):
        flag, _, value = words[i].partition("=")
        if flag in SWITCHES and not value:
            i += 1
        elif flag in VALUED:
            i += 1 if value else 2
            if not value and i > len(words):
                return None
        else:
            return None
        seen.add(flag)
    return seen


def is_ours(handler: object) -> bool:
    """A handler ``install`` wrote: its whole command is a chronomem launcher, ``hook`` and
    the hook's own flags with our mark (or, unmarked, the ``<python> -m chronomem hook``
    form earlier versions wrote), so a command that merely mentions ``chronomem hook`` (a
    wrapper script, a pipeline, a shell line around it) is never taken for ours."""
    if not isinstance(handler, dict) or not isinstance(handler.get("command"), str):
        return False
    try:
        words = shlex.split(handler["command"])
    except ValueError:
        return False
    if "hook" not in words:
        return False
    at = words.index("hook")
    flags = _only_hook_flags(words[at + 1 :])
    if flags is None or not _launcher(words[:at]):
        return False
    if MARK in flags:
        return True
    return at == 3 and Path(words[0]).is_absolute() and Path(words[0]).name.startswith("python")


def _target(path: Path) -> Path:
    """The file to write: ``path``, or what its symlink (chain) names."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def _read(path: Path) -> dict[str, Any]:
    target = _target(path)
    if not target.exists():
        return {}
    if not target.is_file():
        raise SettingsFileError(f"{path} is not a file; left as it is")
    try:
        settings = json.loads(target.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as e:
        raise SettingsFileError(f"{path} is not JSON ({e}); left as it is") from None
    except OSError as e:
        raise SettingsFileError(f"{path} cannot be read ({e.strerror}); left as it is") from None
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


def _new_file_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def _write(path: Path, settings: dict[str, Any]) -> None:
    """Replace the file's text in one rename, through a symlink, keeping the file's mode."""
    target = _target(path)
    text = json.dumps(settings, indent=2, ensure_ascii=False) + "\n"
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        mode = (target.stat().st_mode & 0o7777) if target.exists() else _new_file_mode()
        if target.exists():
            shutil.copy2(target, path.with_name(path.name + BACKUP_SUFFIX))
        handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as f:  # created 0600: never wider
                f.write(text)
            os.chmod(temporary, mode)
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError as e:
        raise SettingsFileError(f"{path} cannot be written ({e.strerror}); left as it is") from None


def hook_entries(command: str) -> dict[str, list[dict[str, Any]]]:
    """Our matcher groups, one per event, each running ``command``: what ``install`` merges
    into a settings file and what the Claude Code plugin's ``hooks/hooks.json`` holds
    (``plugins/chronomem``; tests/chronomem/cli/test_hook_plugin.py compares them)."""
    return {
        event: [
            {"hooks": [{"type": "command", "command": command, "timeout": TIMEOUT.get(event, 60)}]}
        ]
        for event in EVENTS
    }


def install(path: Path, command: str) -> list[str]:
    """Merge our handlers (running ``command``) into the settings at ``path``; returns the
    events installed."""
    settings = _read(path)
    hooks = settings.get("hooks", {})
    for event in EVENTS:
        if not isinstance(hooks.get(event, []), list):
            raise SettingsFileError(
                f"{path}: hooks.{event} is not a list of matcher groups; left as it is"
            )
    hooks = _without_ours(hooks)
    for event, groups in hook_entries(command).items():
        hooks.setdefault(event, []).extend(groups)
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
