"""Storing one episode: a turn of a conversation, indexed with the turns before it.

An episode lives in ``chronomem_facts`` beside the facts (``kind = 'episode'``), so one view,
one ``forget``, one export and one recall serve both. Its place in the session (``seq``) is
call order, taken inside the write transaction, so two writers appending to one session get
distinct, gap-free positions. Its lexical entry carries the stored terms of the two turns
before it in the session (see recall/lexindex.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from chronomem._checks import (
    _check_metadata,
    check_opt_text,
    check_text,
    check_time,
    fact_fields,
)
from chronomem.engine.dialect import Conn
from chronomem.recall.lexindex import index_document, turns_before
from chronomem.recall.semantic.vectors import store_vector
from chronomem.text.entities import entity_key
from chronomem.text.mentions import Mention, iso_days, mentions
from chronomem.write.facts import new_fact_id
from chronomem.write.indexing import stored_sources
from chronomem.write.time_index import index_times

__all__ = [
    "EpisodeInput",
    "check_episode",
    "fill_mentions",
    "insert_episode",
    "insert_episodes",
    "read_mentions",
]

MAX_SPEAKER_BYTES = 1024  # a chronica actor: 256 characters
MAX_SESSION_BYTES = 1024
_FILL_PAGE = 1000


@dataclass(frozen=True)
class EpisodeInput:
    """A validated ``remember_episode`` payload, ready to store."""

    content: str
    speaker: str
    session: str
    at: int | None
    metadata: str | None
    source: str | None = None


def check_episode(content: object, **options: Any) -> EpisodeInput:
    """Validate every field of a new episode; raises ``InvalidFactError`` naming the field."""
    with fact_fields():
        return EpisodeInput(
            content=check_text("content", content),
            speaker=check_text("speaker", options["speaker"], max_bytes=MAX_SPEAKER_BYTES),
            session=check_text("session", options["session"], max_bytes=MAX_SESSION_BYTES),
            at=check_time("at", options["at"]),
            metadata=_check_metadata(options["metadata"]),
            source=check_opt_text("source", options.get("source"), max_bytes=2048),
        )


def insert_episode(
    conn: Conn,
    owner: str,
    e: EpisodeInput,
    *,
    system_time: int,
    episode_id: str | None = None,
    forgotten: tuple[int, str | None] | None = None,
) -> str:
    """Append the episode to its session (inside the caller's transaction); returns its id.

    ``forgotten`` (when it was forgotten, and why) restores an exported forgotten episode.
    """
    eid = episode_id or new_fact_id(system_time)
    conn.dialect.lock_session(conn, owner, e.session)
    before = turns_before(conn, owner, e.session)
    seq = before[0][0] + 1 if before else 1
    invalidated_at, reason = forgotten if forgotten else (None, None)
    at = e.at if e.at is not None else system_time
    said = mentions(e.content, at)
    cur = conn.execute(
        """INSERT INTO chronomem_facts (id, owner, content, trust, confidence, source,
               metadata, entities, terms, system_time, valid_from, invalidated_at, forgotten,
               forget_reason, kind, speaker, session, seq, mentions)
           VALUES (?, ?, ?, 0.8, 1.0, ?, ?, '[]', '', ?, ?, ?, ?, ?, 'episode', ?, ?, ?, ?)
           RETURNING rowid""",
        (
            eid, owner, e.content, e.source, e.metadata, system_time, at, invalidated_at,
            int(forgotten is not None), reason, e.speaker, e.session, seq, _stored(said),
        ),
    )  # fmt: skip
    rowid = int(cur.fetchone()[0])
    index_times(conn, owner, rowid, at, said)
    index_document(conn, owner, "episode", rowid, e.content, [words for _, words in before])
    store_vector(conn, rowid, e.content)
    key = entity_key(e.speaker)
    if key:
        conn.execute(
            """INSERT INTO chronomem_speakers (owner, key) VALUES (?, ?)
               ON CONFLICT (owner, key) DO NOTHING""",
            (owner, key),
        )
    return eid


def _stored(said: Sequence[Mention]) -> str | None:
    """The mentions as the ``mentions`` column keeps them: ``[[text, start, end], ...]``."""
    return json.dumps(list(iso_days(said)), ensure_ascii=False) if said else None


def read_mentions(stored: str | None) -> tuple[dict[str, object], ...]:
    """The ``mentions`` column as the record shows it: ``{"text", "start", "end"}`` each, the
    days as :class:`datetime.date`."""
    if not stored:
        return ()
    return tuple(
        {"text": text, "start": date.fromisoformat(start), "end": date.fromisoformat(end)}
        for text, start, end in json.loads(stored)
    )


def fill_mentions(conn: Conn) -> None:
    """Index every item stored before (a schema step) at its own time and, for an episode,
    at the days it mentions, resolved against its stored ``at``; a page at a time. Whatever
    the index held goes first, so a step run again does not count a day twice."""
    conn.execute("DELETE FROM chronomem_mentions")
    last = 0
    while True:
        rows = conn.execute(
            """SELECT rowid, owner, kind, content, valid_from FROM chronomem_facts
               WHERE rowid > ? ORDER BY rowid LIMIT ?""",
            (last, _FILL_PAGE),
        ).fetchall()
        if not rows:
            return
        for rowid, owner, kind, content, at in rows:
            said = mentions(content, at) if kind == "episode" else []
            if said:
                conn.execute(
                    "UPDATE chronomem_facts SET mentions = ? WHERE rowid = ?",
                    (_stored(said), rowid),
                )
            index_times(conn, owner, rowid, at, said)
        last = rows[-1][0]


def insert_episodes(
    conn: Conn, owner: str, episodes: Sequence[EpisodeInput], now: Callable[[], int]
) -> tuple[list[str], int]:
    """Append the episodes, in order, but not one whose source its session already holds
    (inside the caller's transaction); returns each one's id and how many were added.

    The sessions are locked first, in one order for every writer, so racing writers (several
    processes on PostgreSQL) take turns and each sees what the other stored.
    """
    sessions = sorted({e.session for e in episodes})
    for session in sessions:
        conn.dialect.lock_session(conn, owner, session)
    # Only the batch's own sources are looked up: a session of 50,000 turns costs no more
    # to add one turn to than a new one.
    stored = stored_sources(
        conn, owner, [(e.session, e.source) for e in episodes if e.source is not None]
    )
    ids: list[str] = []
    added = 0
    for e in episodes:
        key = (e.session, e.source) if e.source is not None else None
        known = stored.get(key) if key is not None else None
        if known is None:
            known = insert_episode(conn, owner, e, system_time=now())
            added += 1
            if key is not None:
                stored[key] = known
        ids.append(known)
    return ids, added
