"""What ``chronomem hook`` does per event: context for a prompt or a session's start, and a
transcript's capture. Every function may raise; :mod:`._hook` turns any error into a log line
and an exit 0."""

from __future__ import annotations

import argparse
import dataclasses
import os
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from chronica import ActorKind, Actum, ActumKind, Chronicarius, ChronicumNotFoundError
from chronomem import ChronoMem, Episode, InvalidArgumentError, Turn, estimate_tokens
from chronomem._doors.settings import open_session_store, resolve_db, resolve_owner

from ._hook_scope import KEY, project_of, recall_in, scoped_metadata, shares
from ._hook_transcript import Line, Position, read_said

__all__ = ["capture", "prompt_context", "said_at", "start_context"]

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
    """What chronomem recalls for the prompt that this project may see, within ``budget``
    tokens (block included)."""
    prompt = payload.get("prompt")
    query = _query(prompt) if isinstance(prompt, str) else ""
    if not query:
        return ""
    memory = _open(args, create=False)
    if memory is None:
        return ""
    project = project_of(args, payload, os.environ)
    with memory:
        found = recall_in(memory, query, project=project, everywhere=shares(args, os.environ),
                          budget=budget)  # fmt: skip
    return _block("Relevant memory (chronomem):", found, budget)


def start_context(args: argparse.Namespace, payload: dict[str, Any], budget: int) -> str:
    """The project's memory at a session's start: the project's name (its root's last
    folders, or the configured name) recalled, facts first, then episodes (this project's
    captures and what no project owns), within ``budget`` tokens."""
    project = project_of(args, payload, os.environ)
    if not project:
        return ""
    parts = Path(project).parts
    name = " ".join(p for p in parts[-2:] if p not in ("/", "\\"))
    memory = _open(args, create=False)
    if memory is None or not _query(name):
        return ""
    everywhere = shares(args, os.environ)
    with memory:
        facts = recall_in(memory, name, project=project, everywhere=everywhere,
                          budget=budget // 2, kinds=("fact",))  # fmt: skip
        episodes = recall_in(memory, name, project=project, everywhere=everywhere,
                             budget=budget // 2, kinds=("episode",))  # fmt: skip
    title = f"What chronomem remembers about {parts[-1] if parts else project}:"
    return _block(title, [*facts, *episodes], budget)


def capture(args: argparse.Namespace, payload: dict[str, Any]) -> int:
    """Record the transcript's new user and assistant text as acta of the session (each line
    once, by its key) and as episodes of the project, dated when they were said; returns how
    many acta were new.

    Recording and indexing are two transactions (the session's record and the memory may be
    two databases). Each actum keeps where its call started reading (``from``); a call first
    indexes again the acta of the newest ``from`` (what a call killed between the two left
    unindexed: idempotent, as episodes are keyed by their actum), then what it reads."""
    path, session = payload.get("transcript_path"), payload.get("session_id")
    if not isinstance(path, str) or not isinstance(session, str) or not os.path.isfile(path):
        return 0
    owner = resolve_owner(args.owner, os.environ)
    db = resolve_db(args.db, os.environ, create=True)
    project = project_of(args, payload, os.environ)
    with ChronoMem(db, owner=owner) as memory, open_session_store(db) as store:
        chronicarius = Chronicarius(store)
        last = _last_batch(chronicarius, owner, session)
        if last:
            _index(memory, last, project)
        since = Position.from_json(last[-1].metadata.get(KEY)) if last else None
        said = read_said(path, since)
        if not said:
            return 0
        start = since.offset if since is not None else 0
        acta = [_actum(session, owner, line, project, start) for line in said]
        keys = [f"{KEY}:{line.key}" for line in said]
        stored = chronicarius.record_acta(owner, acta, idempotency_keys=keys)
        _index(memory, stored, project)
    return sum(1 for a, s in zip(acta, stored, strict=True) if a.id == s.id)


def _actum(session: str, owner: str, line: Line, project: str, start: int) -> Actum:
    human = line.role == "user"
    return Actum(
        chronicum_id=session,
        kind=ActumKind.MESSAGE,
        actor_kind=ActorKind.HUMAN if human else ActorKind.AGENT,
        actor=owner if human else ASSISTANT,
        content=line.text,
        metadata={KEY: {"uuid": line.key, "at": line.timestamp, "project": project,
                        "from": start, **line.position.to_json()}},
    )  # fmt: skip


def said_at(stamp: object) -> datetime | None:
    """A transcript line's ``timestamp`` (ISO 8601, ``Z`` for UTC) as an aware datetime, or
    None if it names no instant a memory can store (then the episode is dated now)."""
    if not isinstance(stamp, str):
        return None
    try:
        at = datetime.fromisoformat(stamp.strip().replace("Z", "+00:00"))
        if at.tzinfo is None:
            at = at.replace(tzinfo=timezone.utc)
        return at.astimezone(timezone.utc)
    except (ValueError, OverflowError):
        return None


def _turn(actum: Actum, project: str) -> Turn:
    mine = actum.metadata.get(KEY)
    mine = mine if isinstance(mine, Mapping) else {}
    recorded = mine.get("project")
    return Turn(
        content=actum.content,
        speaker=actum.actor,
        session=actum.chronicum_id,
        at=said_at(mine.get("at")),
        source=actum.id,
        metadata=scoped_metadata(recorded if isinstance(recorded, str) else project),
    )


def _index(memory: ChronoMem, acta: Sequence[Actum], project: str) -> None:
    """The acta as episodes (each once: keyed by its actum); a turn the memory refuses
    whole is skipped (the rest are kept), one that cannot be dated is dated now."""
    turns = [_turn(a, project) for a in acta if a.content.strip()]
    try:
        memory.remember_episodes(turns)
    except InvalidArgumentError:
        for turn in turns:
            try:
                memory.remember_episodes([turn])
            except InvalidArgumentError:
                memory.remember_episodes([dataclasses.replace(turn, at=None)])


def _batch_of(actum: Actum) -> object:
    mine = actum.metadata.get(KEY)
    return mine.get("from") if isinstance(mine, Mapping) else None


def _last_batch(chronicarius: Chronicarius, owner: str, session: str) -> list[Actum]:
    """The acta the newest call recorded (the tail sharing the newest actum's ``from``),
    read in growing windows; empty for a new session."""
    n = 8
    while True:
        try:
            tail = chronicarius.get_acta(owner, session, last_n=n)
        except ChronicumNotFoundError:  # a new session: from the start
            return []
        if not tail:
            return []
        batch = _batch_of(tail[-1])
        i = len(tail)
        while i > 0 and _batch_of(tail[i - 1]) == batch:
            i -= 1
        if i > 0 or len(tail) < n:
            return tail[i:]
        n *= 8
