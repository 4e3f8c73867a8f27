"""InMemoryStore: a thread-safe, idempotent store that lives in one process.

Meant for tests and development: nothing survives the process, and idempotency keys are
kept for as long as the store lives. Chronica are keyed by ``(owner_id, chronicum_id)``,
like every store's (see :mod:`chronica.store`).
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone

from chronica._errors import ChronicumNotFoundError, DuplicateActumError
from chronica._frozen import frozen_metadata
from chronica._model import (
    ActaPage,
    ActorKind,
    Actum,
    ActumEntry,
    ActumKind,
    ChronicaCounts,
    Chronicum,
    ChronicumSummary,
)

__all__ = ["InMemoryStore"]


@dataclass
class _Session:
    chronicum: Chronicum
    acta: list[Actum] = field(default_factory=list)
    ids: set[str] = field(default_factory=set)
    by_key: dict[str, Actum] = field(default_factory=dict)


class InMemoryStore:
    """A :class:`chronica.BatchStore`, :class:`chronica.TailStore` and
    :class:`chronica.RestorableStore` in a dict.

    Also a :class:`chronica.BrowsableStore` and a :class:`chronica.ErasableStore`.
    """

    def __init__(self) -> None:
        self._sessions: dict[tuple[str, str], _Session] = {}
        self._owned: dict[str, list[_Session]] = {}  # each owner's, oldest created first
        self._ids: set[str] = set()  # every actum ID in the store: they are unique store-wide
        self._lock = threading.Lock()

    def create(self, chronicum_id: str, *, owner_id: str) -> Chronicum:
        """Create the owner's chronicum if absent; return the stored one."""
        with self._lock:
            return self._create(owner_id, chronicum_id, datetime.now(timezone.utc))

    def get(self, chronicum_id: str, *, owner_id: str) -> Chronicum:
        """Return the owner's chronicum or raise :class:`chronica.ChronicumNotFoundError`."""
        with self._lock:
            return self._session(owner_id, chronicum_id).chronicum

    def record(self, actum: Actum, *, owner_id: str) -> Actum:
        """Append ``actum`` with ``at`` stamped now."""
        with self._lock:
            session = self._session(owner_id, actum.chronicum_id)
            return self._append(session, actum, datetime.now(timezone.utc))

    def record_once(self, actum: Actum, idempotency_key: str, *, owner_id: str) -> Actum:
        """Append ``actum`` unless ``idempotency_key`` was used in its chronicum."""
        with self._lock:
            session = self._session(owner_id, actum.chronicum_id)
            first = session.by_key.get(idempotency_key)
            if first is None:
                stored = self._append(session, actum, datetime.now(timezone.utc))
                first = session.by_key[idempotency_key] = stored
            return first

    def record_many(
        self,
        acta: Sequence[Actum],
        *,
        owner_id: str,
        idempotency_keys: Sequence[str] | None = None,
    ) -> list[Actum]:
        """Append ``acta`` in order under one lock hold, all or nothing.

        Every ID is checked before the first append, so a refused batch leaves no trace.
        """
        with self._lock:
            if not acta:
                return []
            session = self._session(owner_id, acta[0].chronicum_id)
            keys: list[str | None] = (
                list(idempotency_keys) if idempotency_keys is not None else [None] * len(acta)
            )
            fresh: set[str] = set()
            pending: set[str] = set()
            for actum, key in zip(acta, keys, strict=True):
                if key is not None and (key in session.by_key or key in pending):
                    continue
                if actum.id in self._ids or actum.id in fresh:
                    raise DuplicateActumError(actum.id)
                fresh.add(actum.id)
                if key is not None:
                    pending.add(key)
            stored: list[Actum] = []
            for actum, key in zip(acta, keys, strict=True):
                first = None if key is None else session.by_key.get(key)
                if first is None:
                    first = self._append(session, actum, datetime.now(timezone.utc))
                    if key is not None:
                        session.by_key[key] = first
                stored.append(first)
            return stored

    def acta(
        self,
        chronicum_id: str,
        *,
        owner_id: str,
        last_n: int = 0,
        actum_kinds: Sequence[ActumKind] | None = None,
        actor_kinds: Sequence[ActorKind] | None = None,
    ) -> list[Actum]:
        """Return the chronicum's acta, oldest first, filtered, then the last ``last_n``."""
        with self._lock:
            acta = self._session(owner_id, chronicum_id).acta
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

    def acta_ids(self, chronicum_id: str, *, owner_id: str, last_n: int = 0) -> list[str]:
        """The IDs of the chronicum's last ``last_n`` acta (all when 0), oldest first."""
        with self._lock:
            acta = self._session(owner_id, chronicum_id).acta
            return [actum.id for actum in (acta[-last_n:] if last_n > 0 else acta)]

    def chronica(self) -> list[Chronicum]:
        """Every chronicum of every owner, in the order they were created (for export)."""
        with self._lock:
            return [session.chronicum for session in self._sessions.values()]

    def chronica_page(
        self, *, owner_id: str, offset: int = 0, limit: int = 100
    ) -> list[ChronicumSummary]:
        """The owner's chronica, newest created first (see :class:`chronica.BrowsableStore`)."""
        with self._lock:
            owned = self._owned.get(owner_id, [])
            end = len(owned) - offset
            chosen = owned[max(end - limit, 0) : max(end, 0)]
            return [
                ChronicumSummary(
                    chronicum=session.chronicum,
                    acta=len(session.acta),
                    last_at=session.acta[-1].at if session.acta else None,
                )
                for session in reversed(chosen)
            ]

    def acta_page(
        self,
        chronicum_id: str,
        *,
        owner_id: str,
        limit: int,
        before: int | None = None,
        after: int | None = None,
        last_n: int = 0,
        actum_kinds: Sequence[ActumKind] | None = None,
        actor_kinds: Sequence[ActorKind] | None = None,
        preview_chars: int = 0,
    ) -> ActaPage:
        """A page of one window of the chronicum (see :class:`chronica.BrowsableStore`)."""
        kinds = set(actum_kinds or ActumKind)
        actors = set(actor_kinds or ActorKind)
        with self._lock:
            acta = self._session(owner_id, chronicum_id).acta
            window = [
                (position, actum)
                for position, actum in enumerate(acta, 1)
                if actum.kind in kinds and actum.actor_kind in actors
            ]
        first = 0
        if last_n > 0:
            first = window[-last_n][0] if len(window) >= last_n else 0
            window = window[-last_n:]
        more_before = more_after = False
        if after is not None:
            chosen = [entry for entry in window if entry[0] > after]
            more_after, chosen = len(chosen) > limit, chosen[:limit]
        else:
            end = before if before is not None else len(acta) + 1
            chosen = [entry for entry in window if entry[0] < end]
            more_before, chosen = len(chosen) > limit, chosen[-limit:]
        return ActaPage(
            entries=tuple(_entry(p, a, preview_chars) for p, a in chosen),
            total=len(window),
            first_position=first,
            more_before=more_before,
            more_after=more_after,
        )

    def find_actum(self, actum_id: str, *, owner_id: str) -> ActumEntry | None:
        """The owner's actum of this ID, whole, at its position; None if the owner has none."""
        with self._lock:
            for session in self._owned.get(owner_id, []):
                if actum_id in session.ids:
                    for position, actum in enumerate(session.acta, 1):
                        if actum.id == actum_id:
                            return _entry(position, actum, 0)
        return None

    def counts(self, *, owner_id: str) -> ChronicaCounts:
        """How many chronica and acta the owner has."""
        with self._lock:
            owned = self._owned.get(owner_id, [])
            return ChronicaCounts(chronica=len(owned), acta=sum(len(s.acta) for s in owned))

    def erase_owner(self, *, owner_id: str) -> ChronicaCounts:
        """Forget every chronicum and actum of ``owner_id``; return how many of each.

        Call it through :meth:`chronica.Chronicarius.erase_owner`. The acta's IDs are
        released too: nothing of the owner is left to find.
        """
        with self._lock:
            owned = self._owned.pop(owner_id, [])
            for session in owned:
                del self._sessions[owner_id, session.chronicum.id]
                self._ids -= session.ids
            return ChronicaCounts(chronica=len(owned), acta=sum(len(s.acta) for s in owned))

    def erase_chronicum(self, chronicum_id: str, *, owner_id: str) -> ChronicaCounts:
        """Forget the owner's chronicum ``chronicum_id`` and its acta (their IDs released);
        return how many went. Call it through :meth:`chronica.Chronicarius.erase_chronicum`."""
        with self._lock:
            session = self._sessions.pop((owner_id, chronicum_id), None)
            if session is None:
                return ChronicaCounts(chronica=0, acta=0)
            self._owned[owner_id].remove(session)
            if not self._owned[owner_id]:
                del self._owned[owner_id]
            self._ids -= session.ids
            return ChronicaCounts(chronica=1, acta=len(session.acta))

    def restore(
        self, chronica: Sequence[Chronicum], acta: Sequence[Actum], *, owner_id: str
    ) -> int:
        """Store exported chronica and acta as they were, all or nothing.

        See :meth:`chronica.RestorableStore.restore`; call it through
        :meth:`chronica.Chronicarius.restore`, which validates first.
        """
        with self._lock:
            # Check every actum before changing anything: a refused batch leaves no trace.
            restored = {chronicum.id for chronicum in chronica}
            for actum in acta:
                session = self._sessions.get((owner_id, actum.chronicum_id))
                if session is None and actum.chronicum_id not in restored:
                    raise ChronicumNotFoundError(actum.chronicum_id)
                if actum.id in self._ids and (session is None or actum.id not in session.ids):
                    raise DuplicateActumError(actum.id)
            for chronicum in chronica:
                self._create(owner_id, chronicum.id, chronicum.created_at)
            added = 0
            for actum in acta:
                session = self._session(owner_id, actum.chronicum_id)
                if actum.id not in session.ids:
                    assert actum.at is not None, "Chronicarius.restore checks every at"
                    self._append(session, actum, actum.at)
                    added += 1
            return added

    def _create(self, owner_id: str, chronicum_id: str, created_at: datetime) -> Chronicum:
        session = self._sessions.get((owner_id, chronicum_id))
        if session is None:
            chronicum = Chronicum(id=chronicum_id, owner_id=owner_id, created_at=created_at)
            session = self._sessions[owner_id, chronicum_id] = _Session(chronicum)
            self._owned.setdefault(owner_id, []).append(session)
        return session.chronicum

    def _session(self, owner_id: str, chronicum_id: str) -> _Session:
        session = self._sessions.get((owner_id, chronicum_id))
        if session is None:
            raise ChronicumNotFoundError(chronicum_id)
        return session

    def _append(self, session: _Session, actum: Actum, at: datetime) -> Actum:
        if actum.id in self._ids:
            raise DuplicateActumError(actum.id)
        # The stored actum is handed to every reader, so nothing in it may be changeable.
        stored = dataclasses.replace(actum, metadata=frozen_metadata(actum.metadata), at=at)
        session.acta.append(stored)
        session.ids.add(actum.id)
        self._ids.add(actum.id)
        return stored


def _entry(position: int, actum: Actum, preview_chars: int) -> ActumEntry:
    """``actum`` at ``position``, its content cut to ``preview_chars`` when that is > 0."""
    length = len(actum.content)
    if 0 < preview_chars < length:
        actum = dataclasses.replace(actum, content=actum.content[:preview_chars])
    return ActumEntry(position=position, actum=actum, content_length=length)
