"""What ``chronomem hook`` does per event: context for a prompt or a session's start, and a
transcript's capture. Every function may raise; :mod:`._hook` turns any error into a log line
and an exit 0."""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from chronica import ActorKind, Actum, ActumKind, Chronicarius, ChronicumNotFoundError
from chronomem import ChronoMem, Episode, estimate_tokens
from chronomem._doors.settings import open_session_store, resolve_db, resolve_owner

from ._hook_transcript import Line, Position, read_said

__all__ = ["capture", "prompt_context", "start_context"]

KEY = "claude_code"
"""The metadata key of every actum the hook records (and its idempotency keys' prefix)."""
ASSISTANT = "claude-code"
"""The actor recorded for the assistant's text."""
MAX_QUERY_BYTES = 8192


def _open(args: argparse.Namespace, *, create: bool) -> ChronoMem | None:
    db = resolve_db(args.db, os.environ, create=create)
    if not create and isinstance(db, Path) and not db.exists():
        return None  # nothing remembered yet, and a read creates nothing
    return ChronoMem(db, owner=resolve_owner(args.owner, os.environ))


def _block(title: str, items: Iterable[Any], budget: int) -> str:
    """A short context block, cut (whole items) to ``budget`` tokens with its title."""
    lines = [title]
    for item in items:
        if isinstance(item, Episode):
            line = f"- {item.at.date().isoformat()} {item.speaker}: {item.content}"
        else:
            line = f"- {item.content}"
        if estimate_tokens("\n".join([*lines, line])) > budget:
            continue
        lines.append(line)
    return "\n".join(lines) if len(lines) > 1 else ""


def _query(text: str) -> str:
    data = text.replace("\x00", " ").encode("utf-8", "replace")[:MAX_QUERY_BYTES]
    return data.decode("utf-8", "ignore").strip()


def prompt_context(args: argparse.Namespace, payload: dict[str, Any], budget: int) -> str:
    """What chronomem recalls for the prompt, within ``budget`` tokens (block included)."""
    prompt = payload.get("prompt")
    query = _query(prompt) if isinstance(prompt, str) else ""
    if not query:
        return ""
    memory = _open(args, create=False)
    if memory is None:
        return ""
    with memory:
        found = memory.recall(query, token_budget=budget)
    return _block("Relevant memory (chronomem):", found, budget)


def start_context(args: argparse.Namespace, payload: dict[str, Any], budget: int) -> str:
    """The project's memory at a session's start: the project's name (the ``cwd``'s last
    folders) recalled, facts first, then episodes, within ``budget`` tokens."""
    cwd = payload.get("cwd")
    if not isinstance(cwd, str) or not cwd.strip():
        return ""
    parts = Path(cwd).parts
    project = " ".join(p for p in parts[-2:] if p not in ("/", "\\"))
    memory = _open(args, create=False)
    if memory is None or not _query(project):
        return ""
    with memory:
        facts = memory.recall(project, token_budget=budget // 2, kinds=("fact",))
        episodes = memory.recall(project, token_budget=budget // 2, kinds=("episode",))
    return _block(f"What chronomem remembers about {parts[-1]}:", [*facts, *episodes], budget)


def capture(args: argparse.Namespace, payload: dict[str, Any]) -> int:
    """Record the transcript's new user and assistant text as acta of the session (each line
    once, by its key) and index them as episodes; returns how many acta were new."""
    path, session = payload.get("transcript_path"), payload.get("session_id")
    if not isinstance(path, str) or not isinstance(session, str) or not os.path.isfile(path):
        return 0
    owner = resolve_owner(args.owner, os.environ)
    db = resolve_db(args.db, os.environ, create=True)
    with ChronoMem(db, owner=owner) as memory, open_session_store(db) as store:
        chronicarius = Chronicarius(store)
        said = read_said(path, _last_position(chronicarius, owner, session))
        new = 0
        if said:
            acta = [_actum(session, owner, line) for line in said]
            keys = [f"{KEY}:{line.key}" for line in said]
            stored = chronicarius.record_acta(owner, acta, idempotency_keys=keys)
            new = sum(1 for a, s in zip(acta, stored, strict=True) if a.id == s.id)
        memory.index_session(chronicarius, session, owner=owner)
    return new


def _actum(session: str, owner: str, line: Line) -> Actum:
    human = line.role == "user"
    return Actum(
        chronicum_id=session,
        kind=ActumKind.MESSAGE,
        actor_kind=ActorKind.HUMAN if human else ActorKind.AGENT,
        actor=owner if human else ASSISTANT,
        content=line.text,
        metadata={KEY: {"uuid": line.key, "at": line.timestamp, **line.position.to_json()}},
    )


def _last_position(chronicarius: Chronicarius, owner: str, session: str) -> Position | None:
    """Where the last capture of this session stopped: its newest actum's position."""
    try:
        newest = chronicarius.get_acta(owner, session, last_n=1)
    except ChronicumNotFoundError:  # a new session: from the start
        return None
    return Position.from_json(newest[-1].metadata.get(KEY)) if newest else None
