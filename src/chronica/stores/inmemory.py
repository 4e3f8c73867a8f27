"""InMemoryStore: a thread-safe, idempotent store that lives in one process.

Meant for tests and development: nothing survives the process, and idempotency keys are
kept for as long as the store lives.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone

from chronica._errors import ChronicumNotFoundError
from chronica._frozen import frozen_metadata
from chronica._model import ActorKind, Actum, ActumKind, Chronicum

__all__ = ["InMemoryStore"]


@dataclass
class _Session:
    chronicum: Chronicum
    acta: list[Actum] = field(default_factory=list)
    by_key: dict[str, Actum] = field(default_factory=dict)


class InMemoryStore:
    """A :class:`chronica.IdempotentStore` held in a dict behind one lock."""

    def __init__(self) -> None:
        self._sessions: dict[str, _Session] = {}
        self._lock = threading.Lock()

    def create(self, chronicum_id: str, owner_id: str) -> Chronicum:
        """Create the chronicum if absent; return the stored one."""
        with self._lock:
            session = self._sessions.get(chronicum_id)
            if session is None:
                chronicum = Chronicum(
                    id=chronicum_id, owner_id=owner_id, created_at=datetime.now(timezone.utc)
                )
                session = self._sessions[chronicum_id] = _Session(chronicum)
            return session.chronicum

    def get(self, chronicum_id: str) -> Chronicum:
        """Return the chronicum or raise :class:`chronica.ChronicumNotFoundError`."""
        with self._lock:
            return self._session(chronicum_id).chronicum

    def record(self, actum: Actum) -> Actum:
        """Append ``actum`` with ``at`` stamped now."""
        with self._lock:
            return self._append(self._session(actum.chronicum_id), actum)

    def record_once(self, actum: Actum, idempotency_key: str) -> Actum:
        """Append ``actum`` unless ``idempotency_key`` was used in its chronicum."""
        with self._lock:
            session = self._session(actum.chronicum_id)
            first = session.by_key.get(idempotency_key)
            if first is None:
                first = session.by_key[idempotency_key] = self._append(session, actum)
            return first

    def acta(
        self,
        chronicum_id: str,
        *,
        last_n: int = 0,
        actum_kinds: Sequence[ActumKind] | None = None,
        actor_kinds: Sequence[ActorKind] | None = None,
    ) -> list[Actum]:
        """Return the chronicum's acta, oldest first, filtered, then the last ``last_n``."""
        with self._lock:
            acta = self._session(chronicum_id).acta
            if not actum_kinds and not actor_kinds:
                return acta[-last_n:] if last_n > 0 else list(acta)
            kinds = set(actum_kinds or ActumKind)
            actors = set(actor_kinds or ActorKind)
            chosen: list[Actum] = []
            # Walk backwards so a small last_n stops early on a long chronicum.
            for actum in reversed(acta):
                if actum.kind in kinds and actum.actor_kind in actors:
                    chosen.append(actum)
                    if len(chosen) == last_n:
                        break
        chosen.reverse()
        return chosen

    def _session(self, chronicum_id: str) -> _Session:
        session = self._sessions.get(chronicum_id)
        if session is None:
            raise ChronicumNotFoundError(chronicum_id)
        return session

    @staticmethod
    def _append(session: _Session, actum: Actum) -> Actum:
        # The stored actum is handed to every reader, so nothing in it may be changeable.
        metadata = frozen_metadata(actum.metadata)
        stored = dataclasses.replace(actum, metadata=metadata, at=datetime.now(timezone.utc))
        session.acta.append(stored)
        return stored
