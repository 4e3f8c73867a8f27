"""AsyncChronicarius: chronica for asyncio agent frameworks.

It delegates to :class:`Chronicarius` on a worker thread rather than duplicating its
logic: the rules live in one place, and blocking drivers (sqlite3, psycopg) never stall the
event loop.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence

from ._chronicarius import Chronicarius
from ._model import ActorKind, Actum, ActumKind, ChronicaCounts, Chronicum
from ._offload import offload
from .store import Store

__all__ = ["AsyncChronicarius"]


class AsyncChronicarius:
    """The methods of :class:`Chronicarius` as coroutines."""

    def __init__(self, store: Store) -> None:
        self._sync = Chronicarius(store)

    @property
    def store(self) -> Store:
        """The store this AsyncChronicarius writes to."""
        return self._sync.store

    async def record_actum(
        self, owner_id: str, actum: Actum, *, idempotency_key: str | None = None
    ) -> Actum:
        """See :meth:`Chronicarius.record_actum`."""
        record = functools.partial(self._sync.record_actum, idempotency_key=idempotency_key)
        return await offload(record, owner_id, actum)

    async def record_acta(
        self,
        owner_id: str,
        acta: Iterable[Actum],
        *,
        idempotency_keys: Sequence[str] | None = None,
    ) -> list[Actum]:
        """See :meth:`Chronicarius.record_acta` (a batch is read here, before the thread hop,
        so a generator is consumed on the caller's side)."""
        batch = list(acta)
        record = functools.partial(self._sync.record_acta, idempotency_keys=idempotency_keys)
        return await offload(record, owner_id, batch)

    async def get_acta(
        self,
        owner_id: str,
        chronicum_id: str,
        *,
        last_n: int = 0,
        actum_kinds: Iterable[ActumKind | str] | None = None,
        actor_kinds: Iterable[ActorKind | str] | None = None,
    ) -> list[Actum]:
        """See :meth:`Chronicarius.get_acta`."""
        get = functools.partial(
            self._sync.get_acta, last_n=last_n, actum_kinds=actum_kinds, actor_kinds=actor_kinds
        )
        return await offload(get, owner_id, chronicum_id)

    async def get_chronicum(self, owner_id: str, chronicum_id: str) -> Chronicum:
        """See :meth:`Chronicarius.get_chronicum`."""
        return await offload(self._sync.get_chronicum, owner_id, chronicum_id)

    async def erase_owner(self, owner_id: str) -> ChronicaCounts:
        """See :meth:`Chronicarius.erase_owner` (an operator's act, never an agent's)."""
        return await offload(self._sync.erase_owner, owner_id)

    async def erase_chronicum(self, owner_id: str, chronicum_id: str) -> ChronicaCounts:
        """See :meth:`Chronicarius.erase_chronicum` (an operator's act, never an agent's)."""
        return await offload(self._sync.erase_chronicum, owner_id, chronicum_id)
