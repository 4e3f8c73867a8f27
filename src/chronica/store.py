"""The storage contract: four methods, no policy.

A store is plain, correct CRUD. It never checks owners, never validates, never invents IDs;
:class:`chronica.Chronicarius` does all of that before it calls a store, which is why store
methods are meant to be called only through it. :mod:`chronica.storeconformance` turns this
contract into tests that any backend can run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from ._model import ActorKind, Actum, ActumKind, Chronicum

__all__ = ["IdempotentStore", "Store"]


@runtime_checkable
class Store(Protocol):
    """Where chronica and their acta live."""

    def create(self, chronicum_id: str, owner_id: str) -> Chronicum:
        """Create the chronicum if it is absent, atomically, and return the stored one.

        When two callers race to create one ID, both get the same, first-stored chronicum
        back: the caller compares its owner and so learns whether it won.
        """
        ...

    def record(self, actum: Actum) -> Actum:
        """Append ``actum`` (its ID already assigned) and return it with ``at`` stamped.

        Raises :class:`chronica.ChronicumNotFoundError` if the chronicum does not exist.
        Acta of one chronicum become visible to readers in the order they were recorded.
        """
        ...

    def acta(
        self,
        chronicum_id: str,
        *,
        last_n: int = 0,
        actum_kinds: Sequence[ActumKind] | None = None,
        actor_kinds: Sequence[ActorKind] | None = None,
    ) -> list[Actum]:
        """Return the chronicum's acta, oldest first, filtered, then the last ``last_n``.

        ``last_n <= 0`` means no limit; ``None`` or empty filters pass every kind. Raises
        :class:`chronica.ChronicumNotFoundError` if the chronicum does not exist.
        """
        ...

    def get(self, chronicum_id: str) -> Chronicum:
        """Return the chronicum, or raise :class:`chronica.ChronicumNotFoundError`."""
        ...


@runtime_checkable
class IdempotentStore(Store, Protocol):
    """A store that can record an actum at most once per (chronicum, key)."""

    def record_once(self, actum: Actum, idempotency_key: str) -> Actum:
        """Record ``actum`` unless the key was already used in its chronicum.

        Returns the actum stored under the key, which is the first one: a later payload
        with the same key is discarded. Concurrent calls with one key store exactly one.
        Raises :class:`chronica.ChronicumNotFoundError` if the chronicum does not exist.
        """
        ...
