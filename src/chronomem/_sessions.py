"""Conversations made recallable: turns from elsewhere (a chronica session, an agent framework's
events) checked for :meth:`ChronoMem.remember_episodes <chronomem.ChronoMem.remember_episodes>`.

Incremental and idempotent: a turn names its ``source`` (a chronica actum's id, a framework
event's id), unique in its session, and its episode keeps it; the sources already stored are
read inside the write transaction (see ``write.episodes.insert_episodes``), so a second call,
or two racing calls, store each turn once.

This module knows nothing of :class:`~chronomem.ChronoMem`: the memory calls it, never the
other way round.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from chronica import ActumKind
from chronomem.write.episodes import EpisodeInput, check_episode

from ._errors import InvalidArgumentError
from ._validate import MAX_CONTENT_BYTES

if TYPE_CHECKING:
    from chronica import Chronicarius

__all__ = ["Turn", "chronicum_turns", "episodes_of"]


@dataclass(frozen=True)
class Turn:
    """One turn of a conversation, to remember as an episode.

    ``source`` identifies the turn within its ``session`` where it came from (a chronica
    actum's id, a framework event's id): a turn whose source its session already holds is
    not stored again. ``at`` (default now, naive = UTC) is when it was said.
    """

    content: str
    speaker: str
    session: str
    at: datetime | None = None
    source: str | None = None
    metadata: Mapping[str, Any] | None = None


def _fitting(content: object) -> object:
    # chronica allows 1 MiB per actum, an episode 64 KiB: a longer turn is stored by its
    # beginning rather than refused, so one long paste cannot make a whole session unrecallable.
    if not isinstance(content, str):
        return content  # for check_episode to refuse, naming the field
    try:
        data = content.encode("utf-8")
    except UnicodeEncodeError:
        return content  # a lone surrogate: refused by check_episode
    if len(data) <= MAX_CONTENT_BYTES:
        return content
    return data[:MAX_CONTENT_BYTES].decode("utf-8", errors="ignore")


def episodes_of(turns: Iterable[Turn]) -> list[EpisodeInput]:
    """Every turn checked as an episode, in order, before anything is written: a bad one
    raises ``InvalidFactError`` naming the field. Content over an episode's limit is cut."""
    if isinstance(turns, (str, bytes, Mapping)) or not isinstance(turns, Iterable):
        raise InvalidArgumentError("turns", "must be an iterable of chronomem.Turn")
    episodes = []
    for turn in turns:
        if not isinstance(turn, Turn):
            raise InvalidArgumentError("turns", f"holds a {type(turn).__name__}, not a Turn")
        episodes.append(
            check_episode(
                _fitting(turn.content),
                speaker=turn.speaker,
                session=turn.session,
                at=turn.at,
                metadata=turn.metadata,
                source=turn.source,
            )
        )
    return episodes


def chronicum_turns(chronicarius: Chronicarius, chronicum_id: str, owner: str) -> list[Turn]:
    """The session's MESSAGE acta that have text, as turns: speaker the actor, session the
    chronicum id, ``at`` the actum's time, source the actum's id."""
    acta = chronicarius.get_acta(owner, chronicum_id, actum_kinds=[ActumKind.MESSAGE])
    return [
        Turn(content=a.content, speaker=a.actor, session=chronicum_id, at=a.at, source=a.id)
        for a in acta
        if isinstance(a.content, str) and a.content.strip()
    ]
