"""Google ADK's memory service over chronomem: ``ChronoMemMemoryService``.

Switching from ADK's own service is one line::

    memory_service = InMemoryMemoryService()                              # before
    memory_service = ChronoMemMemoryService(ChronoMem("agent_memory.db"))  # after
    runner = Runner(app_name="trips", agent=agent, session_service=sessions,
                    memory_service=memory_service)

Needs ``pip install 'chronomem[adk]'``. Each event with text becomes an episode (speaker =
the event's author, session = the ADK session ID, ``at`` = the event's time, source = the
event's ID), so ``search_memory`` is chronomem's episode recall. Every ADK app and user is a
chronomem owner of its own (:func:`chronica.integrations.adk.owner_for`), in the file of the
memory you pass: one user's search never sees another's memories.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone

from google.adk.events import Event
from google.adk.memory import BaseMemoryService
from google.adk.memory.base_memory_service import SearchMemoryResponse
from google.adk.memory.memory_entry import MemoryEntry
from google.adk.sessions import Session
from google.genai import types

from chronica.integrations.adk import owner_for
from chronomem import (
    ChronoMem,
    Episode,
    FactNotActiveError,
    InvalidArgumentError,
    RecordNotFoundError,
    Turn,
)

__all__ = ["ChronoMemMemoryService"]

log = logging.getLogger("chronomem.integrations.adk")
MAX_SPEAKER_BYTES = 1024
"""An episode's speaker at most (a longer ADK author is cut to it)."""

MAX_QUERY_BYTES = 8192
"""A longer query (a whole pasted message) is searched by its beginning."""
UNKNOWN_SESSION = "__unknown_session_id__"
"""The session of events added without one, as ADK's in-memory service names it."""


class ChronoMemMemoryService(BaseMemoryService):
    """ADK's long-term memory kept as chronomem episodes, recalled by chronomem's ranking.

    ``add_session_to_memory`` is incremental: a session added again stores only the events
    added since, and two processes adding it at once store each event once. A memory deleted
    with ``delete_memory`` (chronomem's ``forget``) never comes back from a later add. Every
    call runs on a worker thread.
    """

    def __init__(self, memory: ChronoMem, *, limit: int = 10) -> None:
        if not isinstance(memory, ChronoMem):
            raise TypeError(f"memory must be a chronomem.ChronoMem, got {type(memory).__name__}")
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise InvalidArgumentError("limit", f"must be an int >= 1, got {limit!r}")
        self._memory = memory
        self._limit = limit

    def memory_for(self, app_name: str, user_id: str) -> ChronoMem:
        """The chronomem owner holding one ADK user's memories (shares the file)."""
        return self._memory.for_owner(owner_for(app_name, user_id))

    async def add_session_to_memory(self, session: Session) -> None:
        """Index the session's events that have text and are not indexed yet."""
        await self.add_events_to_memory(
            app_name=session.app_name,
            user_id=session.user_id,
            events=session.events,
            session_id=session.id,
        )

    async def add_events_to_memory(
        self,
        *,
        app_name: str,
        user_id: str,
        events: Sequence[Event],
        session_id: str | None = None,
        custom_metadata: Mapping[str, object] | None = None,
    ) -> None:
        """Index ``events`` (a delta: any not indexed yet) under ``session_id``.

        Never refuses a session for one event: an author name too long for a speaker or
        holding NUL is cleaned and cut, a timestamp that names no time (NaN, 1e12) leaves the
        turn to be dated when it is indexed, a message over 64 KiB is kept by its first
        64 KiB of text, and an event that still cannot be stored is skipped and logged.
        """
        memory = self.memory_for(app_name, user_id)
        session = session_id or UNKNOWN_SESSION
        turns = [turn for event in events if (turn := _turn(event, session)) is not None]
        await asyncio.to_thread(_remember, memory, turns)

    async def search_memory(
        self, *, app_name: str, user_id: str, query: str
    ) -> SearchMemoryResponse:
        """The user's episodes most relevant to ``query``, best first."""
        text = _query(query)
        if not text:
            return SearchMemoryResponse()
        memory = self.memory_for(app_name, user_id)
        found = await asyncio.to_thread(memory.recall, text, limit=self._limit, kinds=("episode",))
        return SearchMemoryResponse(
            memories=[_entry(item) for item in found if isinstance(item, Episode)]
        )

    async def delete_memory(
        self, *, app_name: str, user_id: str, memory_id: str | None = None
    ) -> None:
        """Forget one memory (a ``MemoryEntry.id``); an unknown ID changes nothing."""
        if not memory_id:
            return
        memory = self.memory_for(app_name, user_id)
        try:
            await asyncio.to_thread(memory.forget, memory_id, "deleted through ADK")
        except (RecordNotFoundError, FactNotActiveError, InvalidArgumentError):
            return  # not this user's memory, already forgotten, or no memory's ID at all


def _clean(text: str) -> str:
    # Recall needs the words, not the bytes: NUL and lone surrogates would refuse the turn.
    return text.replace("\x00", " ").encode("utf-8", "replace").decode("utf-8")


def _remember(memory: ChronoMem, turns: list[Turn]) -> None:
    """All the turns in one transaction; if one is still refused, each on its own, so the
    others are kept and the refused one is logged."""
    try:
        memory.remember_episodes(turns)
        return
    except InvalidArgumentError:
        if len(turns) == 1:
            log.warning("an ADK event could not be stored as an episode", exc_info=True)
            return
    for turn in turns:
        _remember(memory, [turn])


def _speaker(author: str | None) -> str:
    name = _clean(author or "").strip()
    name = name.encode("utf-8")[:MAX_SPEAKER_BYTES].decode("utf-8", "ignore").strip()
    return name or "unknown"


def _when(timestamp: object) -> datetime | None:
    # An event's time is a float of seconds; one that names no instant (NaN, infinity, a
    # year past 9999) leaves the turn dated when it is indexed, rather than refused.
    if isinstance(timestamp, bool) or not isinstance(timestamp, (int, float)):
        return None
    try:
        return datetime.fromtimestamp(timestamp, timezone.utc)
    except (OverflowError, OSError, ValueError):
        return None


def _turn(event: Event, session: str) -> Turn | None:
    parts = event.content.parts if event.content and event.content.parts else []
    text = "\n".join(p.text for p in parts if p.text and not p.thought)
    if not text.strip():
        return None
    role = event.content.role if event.content else None
    return Turn(
        source=event.id,
        content=_clean(text),
        session=session,
        speaker=_speaker(event.author),
        at=_when(event.timestamp),
        metadata={"role": role} if role else None,
    )


def _query(query: str) -> str:
    text = _clean(query).strip()
    data = text.encode("utf-8")
    if len(data) > MAX_QUERY_BYTES:
        text = data[:MAX_QUERY_BYTES].decode("utf-8", "ignore")
    return text


def _entry(episode: Episode) -> MemoryEntry:
    role = (episode.metadata or {}).get("role") or (
        "user" if episode.speaker == "user" else "model"
    )
    return MemoryEntry(
        id=episode.id,
        content=types.Content(role=role, parts=[types.Part(text=episode.content)]),
        author=episode.speaker,
        timestamp=episode.at.isoformat(),
        custom_metadata={
            "session_id": episode.session,
            "event_id": episode.source,
            "score": episode.score,
        },
    )
