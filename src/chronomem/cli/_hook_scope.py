"""Which project a Claude Code session belongs to, and the recall that stays inside it.

A turn the hook captures is said in a project: the session's ``cwd`` climbed to its nearest
git root (a folder holding ``.git``, a file in a worktree or submodule), else the ``cwd``
itself, or the name ``--project-name`` / ``CHRONOMEM_HOOK_PROJECT`` configures. Each captured
episode carries it (``metadata["claude_code"]["project"]``, with ``"scoped": true``), and
the hook's recall sees two things only: what is not scoped (facts, and episodes stored other
ways, which are the owner's everywhere) and this project's captures. Another project's
conversation is never handed over, unless ``--all-projects`` (env
``CHRONOMEM_HOOK_ALL_PROJECTS=1``) opts in to sharing them.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from chronomem import ChronoMem, Episode, Fact

__all__ = ["ALL_PROJECTS_ENV", "KEY", "PROJECT_ENV", "project_of", "recall_in", "shares"]

KEY = "claude_code"
"""The metadata key of every actum and episode the hook records."""
PROJECT_ENV = "CHRONOMEM_HOOK_PROJECT"
ALL_PROJECTS_ENV = "CHRONOMEM_HOOK_ALL_PROJECTS"


def project_root(cwd: Path) -> Path:
    """The nearest folder at or above ``cwd`` that holds ``.git``, else ``cwd``."""
    here = Path(os.path.realpath(cwd))
    for folder in [here, *here.parents]:
        if (folder / ".git").exists():
            return folder
    return here


def project_of(
    args: argparse.Namespace, payload: Mapping[str, Any], environ: Mapping[str, str]
) -> str:
    """The project of this hook call: the configured name, else the ``cwd``'s root (as a
    path, so two folders of one name stay two projects), else ``""`` (no ``cwd`` given)."""
    named = getattr(args, "project_name", None) or environ.get(PROJECT_ENV)
    if isinstance(named, str) and named.strip():
        return named.strip()
    cwd = payload.get("cwd")
    if not isinstance(cwd, str) or not cwd.strip() or "\x00" in cwd:
        return ""
    return str(project_root(Path(cwd)))


def shares(args: argparse.Namespace, environ: Mapping[str, str]) -> bool:
    """Whether this call opted in to every project's captures."""
    return bool(getattr(args, "all_projects", None)) or environ.get(ALL_PROJECTS_ENV) == "1"


def scoped_metadata(project: str) -> dict[str, Any]:
    """The metadata a captured episode carries."""
    return {KEY: {"project": project, "scoped": True}}


def recall_in(
    memory: ChronoMem,
    query: str,
    *,
    project: str,
    everywhere: bool,
    budget: int,
    kinds: Sequence[str] = ("fact", "episode"),
) -> list[Fact | Episode]:
    """What ``recall`` finds for ``query`` that this project may see, best first (with the
    relevance floor: every token of a hook's context is paid for): everything
    with ``everywhere``; else what no project owns, and this project's captures (two
    recalls, each filtered in its SQL before any limit, merged by score)."""
    if everywhere:
        return list(memory.recall(query, token_budget=budget, kinds=kinds, relevant_only=True))
    found = list(memory.recall(query, token_budget=budget, kinds=kinds, relevant_only=True,
                               where={f"{KEY}.scoped": {"$ne": True}}))  # fmt: skip
    if "episode" in kinds:
        found += memory.recall(query, token_budget=budget, kinds=("episode",), relevant_only=True,
                               where={f"{KEY}.project": project})  # fmt: skip
    return sorted(found, key=lambda item: -item.score)
