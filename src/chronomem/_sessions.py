"""A chronica session made recallable: its MESSAGE acta indexed as episodes.

Incremental and idempotent: the acta already indexed are known by their ids (each episode keeps
its actum's id as ``source``, unique per session), checked inside the write transaction, so a
second call, or two racing calls, store each actum once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from chronica import ActumKind

from ._episodes import EpisodeInput, insert_episode
from ._model import to_us
from ._validate import MAX_CONTENT_BYTES

if TYPE_CHECKING:
    from chronica import Actum, Chronicarius

    from ._memory import ChronoMem

__all__ = ["index_chronicum"]


def _fitting(content: str) -> str:
    # chronica allows 1 MiB per actum, an episode 64 KiB: a longer message is indexed by its
    # beginning rather than refused, so one long paste cannot make a whole session unrecallable.
    data = content.encode("utf-8")
    if len(data) <= MAX_CONTENT_BYTES:
        return content
    return data[:MAX_CONTENT_BYTES].decode("utf-8", errors="ignore")


def _episode(actum: Actum) -> EpisodeInput:
    return EpisodeInput(
        content=_fitting(actum.content),
        speaker=actum.actor,
        session=actum.chronicum_id,
        at=to_us(actum.at) if actum.at is not None else None,
        metadata=None,
        source=actum.id,
    )


def index_chronicum(
    mem: ChronoMem, chronicarius: Chronicarius, chronicum_id: str, owner: str
) -> int:
    """Index the session's MESSAGE acta not yet indexed; returns how many were added."""
    acta = [
        a
        for a in chronicarius.get_acta(owner, chronicum_id, actum_kinds=[ActumKind.MESSAGE])
        if a.content.strip()
    ]
    added = 0
    with mem._db.write() as conn:
        indexed = {
            row[0]
            for row in conn.execute(
                """SELECT source FROM chronomem_facts WHERE owner = ? AND session = ?
                   AND kind = 'episode' AND source IS NOT NULL""",
                (mem.owner, chronicum_id),
            )
        }
        for actum in acta:
            if actum.id not in indexed:
                insert_episode(conn, mem.owner, _episode(actum), system_time=mem._clock.now())
                added += 1
    return added
