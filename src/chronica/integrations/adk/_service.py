"""``ChronicaSessionService``: Google ADK's ``BaseSessionService`` over any chronica store."""

from __future__ import annotations

import logging
from typing import Any

from google.adk.events import Event
from google.adk.sessions import BaseSessionService, Session
from google.adk.sessions.base_session_service import GetSessionConfig, ListSessionsResponse

from chronica import Chronicarius, Store
from chronica._offload import offload
from chronica.integrations.memory import SessionMemory, capture, check_memory

from ._book import SessionBook
from ._names import owner_for

__all__ = ["ChronicaSessionService"]

log = logging.getLogger("chronica.integrations.adk")


class ChronicaSessionService(BaseSessionService):
    """ADK sessions kept in chronica, so they outlive the process and are one record.

    Behaves as ADK's ``InMemorySessionService`` does (the same events, state, IDs, times,
    ordering and errors) while every event is an actum other agents can read through
    chronica: a message, a tool request or response, or a thought, by the human or an agent.
    Each app and user is a chronica owner (:func:`owner_for`), so one user never sees
    another's sessions; ``app:`` and ``user:`` state is shared as ADK shares it.

    **Delete** appends a tombstone: the session disappears from ``get_session`` and
    ``list_sessions``, its ID can be created again (a new generation of the same chronicum),
    and every actum stays in the record. Appends made by another process after a delete
    it has not read stay in the record too and are never shown.

    **Memory.** Given ``memory=`` (chronomem's ``ChronoMem``), every appended event is indexed
    as it is recorded: an event with text becomes an episode of the owner
    ``owner_for(app_name, user_id)`` in the memory's file, where chronomem's
    ``ChronoMemMemoryService`` searches, so no ``add_session_to_memory`` call is needed (its
    episodes are keyed by event, these by actum: use one way or the other). The event is
    stored first; indexing that fails is logged and caught up by the next append.

    **Re-delivery** of an equal event is stored once, as ADK's in-memory service does.
    Every store call runs on a worker thread; the store must be an ``IdempotentStore``
    (every bundled store is).
    """

    def __init__(self, store: Store, *, memory: SessionMemory | None = None) -> None:
        self._book = SessionBook(store)
        self._memory = check_memory(memory)
        self._chronicarius = Chronicarius(store)

    @property
    def store(self) -> Store:
        """The chronica store the sessions live in."""
        return self._book.store

    async def create_session(
        self,
        *,
        app_name: str,
        user_id: str,
        state: dict[str, Any] | None = None,
        session_id: str | None = None,
    ) -> Session:
        """Start a session; ``AlreadyExistsError`` if ``session_id`` is live."""
        return await offload(self._book.create, app_name, user_id, state, session_id)

    async def get_session(
        self,
        *,
        app_name: str,
        user_id: str,
        session_id: str,
        config: GetSessionConfig | None = None,
    ) -> Session | None:
        """The session, with the events ``config`` selects, or None."""
        return await offload(self._book.get, app_name, user_id, session_id, config)

    async def list_sessions(
        self, *, app_name: str, user_id: str | None = None
    ) -> ListSessionsResponse:
        """The app's sessions (one user's, given ``user_id``) without events."""
        sessions = await offload(self._book.sessions, app_name, user_id)
        return ListSessionsResponse(sessions=sessions)

    async def delete_session(self, *, app_name: str, user_id: str, session_id: str) -> None:
        """Tombstone the session; the record keeps every actum."""
        await offload(self._book.delete, app_name, user_id, session_id)

    async def get_user_state(self, *, app_name: str, user_id: str) -> dict[str, Any]:
        """The user-scoped state, keys without their ``user:`` prefix."""
        return await offload(self._book.user_state, app_name, user_id)

    async def append_event(self, session: Session, event: Event) -> Event:
        """Record ``event`` (not a partial one), then apply it to ``session`` as ADK does.

        Raises ``SessionNotFoundError`` for a session that does not exist, and
        :class:`UnmappableEventError` (storing nothing) for an event chronica cannot hold.
        """
        if event.partial:
            return event
        fresh = await offload(self._book.append, session, event)
        if self._memory is not None:
            owner = owner_for(session.app_name, session.user_id)
            await offload(self._remember, self._memory, owner, session.id)
        if not fresh:
            return event  # a re-delivery: already recorded and applied
        await super().append_event(session=session, event=event)
        session.last_update_time = event.timestamp
        return event

    def _remember(self, memory: SessionMemory, owner: str, session_id: str) -> None:
        # The memory's own owner for this user, as chronomem's ADK memory service keeps it.
        try:
            scoped = memory.for_owner(owner)
        except Exception:  # never fails an append the store has already kept
            log.warning("memory.for_owner(%r) failed", owner, exc_info=True)
            return
        capture(scoped, self._chronicarius, session_id, owner)
