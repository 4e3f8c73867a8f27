"""Conversations made recallable: turns from elsewhere (a chronica session, an agent framework's
events) indexed as episodes.

Incremental and idempotent: every turn names its ``source`` (a chronica actum's id, a framework
event's id), unique in its session, and each episode keeps it. The sources already indexed are
read inside the write transaction, so a second call, or two racing calls, store each turn once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from chronica import ActumKind
from chronomem.write.episodes import EpisodeInput, check_episode, insert_episode

from ._validate import MAX_CONTENT_BYTES

if TYPE_CHECKING:
    from chronica import Chronicarius

    from ._memory import ChronoMem

__all__ = ["Turn", "index_chronicum", "index_turns"]


@dataclass(frozen=True)
class Turn:
    """One turn to index as an episode; ``source`` identifies it within its session."""

    source: str
    content: str
    speaker: str
    at: datetime | None = None
    metadata: Mapping[str, Any] | None = None


def _fitting(content: str) -> str:
    # chronica allows 1 MiB per actum, an episode 64 KiB: a longer message is indexed by its
    # beginning rather than refused, so one long paste cannot make a whole session unrecallable.
    data = content.encode("utf-8")
    if len(data) <= MAX_CONTENT_BYTES:
        return content
    return data[:MAX_CONTENT_BYTES].decode("utf-8", errors="ignore")


def _checked(session: str, turn: Turn) -> EpisodeInput:
    return check_episode(
        _fitting(turn.content),
        speaker=turn.speaker,
        session=session,
        at=turn.at,
        metadata=turn.metadata,
        source=turn.source,
    )


def index_turns(mem: ChronoMem, session: str, turns: Iterable[Turn]) -> int:
    """Store the turns of ``session`` not indexed yet, in order; returns how many were added.

    Blank turns are skipped. Every turn is checked before anything is written, so a bad one
    (``InvalidFactError`` naming the field) stores none of them.
    """
    episodes = [
        _checked(session, t) for t in turns if isinstance(t.content, str) and t.content.strip()
    ]
    added = 0
    with mem._db.write() as conn:
        # Racing indexers of one session (several processes on PostgreSQL) take turns here,
        # so each sees what the other stored.
        conn.dialect.lock_session(conn, mem.owner, session)
        indexed = {
            row[0]
            for row in conn.execute(
                """SELECT source FROM chronomem_facts WHERE owner = ? AND session = ?
                   AND kind = 'episode' AND source IS NOT NULL""",
                (mem.owner, session),
            )
        }
        for episode in episodes:
            if episode.source not in indexed:
                insert_episode(conn, mem.owner, episode, system_time=mem._clock.now())
                indexed.add(episode.source)
                added += 1
    return added


def index_chronicum(
    mem: ChronoMem, chronicarius: Chronicarius, chronicum_id: str, owner: str
) -> int:
    """Index the session's MESSAGE acta not yet indexed; returns how many were added."""
    acta = chronicarius.get_acta(owner, chronicum_id, actum_kinds=[ActumKind.MESSAGE])
    turns = [Turn(source=a.id, content=a.content, speaker=a.actor, at=a.at) for a in acta]
    return index_turns(mem, chronicum_id, turns)
