"""The storage contract: four methods, no policy.

A store is plain, correct CRUD. It never validates and never invents IDs;
:class:`chronica.Chronicarius` does that before it calls a store, which is why store
methods are meant to be called only through it. :mod:`chronica.storeconformance` turns this
contract into tests that any backend can run.

Chronicum IDs are scoped by owner: a chronicum is keyed by ``(owner_id, chronicum_id)``, so
two owners may each have a ``"lunch-monday"`` and neither can learn that the other has one.
Every method therefore names the owner, as a keyword so it can never be swapped with the
chronicum ID, and a chronicum under another owner simply does not exist for the caller.
Actum IDs, by contrast, are unique in the whole store.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from ._model import ActorKind, Actum, ActumKind, Chronicum

__all__ = ["BatchStore", "IdempotentStore", "RestorableStore", "Store"]


@runtime_checkable
class Store(Protocol):
    """Where chronica and their acta live."""

    def create(self, chronicum_id: str, *, owner_id: str) -> Chronicum:
        """Create the owner's chronicum if it is absent, atomically; return the stored one.

        When callers race to create one ``(owner_id, chronicum_id)``, all get the same,
        first-stored chronicum back. Another owner's chronicum of the same ID is unaffected.
        """
        ...

    def record(self, actum: Actum, *, owner_id: str) -> Actum:
        """Append ``actum`` (its ID already assigned) and return it with ``at`` stamped.

        Raises :class:`chronica.ChronicumNotFoundError` if the owner has no such chronicum,
        and :class:`chronica.DuplicateActumError` (storing nothing) if an actum with this
        ID is already stored anywhere. Acta of one chronicum become visible to readers in
        the order they were recorded. The returned actum, like every actum a store hands
        out, cannot be changed (its metadata is frozen).
        """
        ...

    def acta(
        self,
        chronicum_id: str,
        *,
        owner_id: str,
        last_n: int = 0,
        actum_kinds: Sequence[ActumKind] | None = None,
        actor_kinds: Sequence[ActorKind] | None = None,
    ) -> list[Actum]:
        """Return the chronicum's acta, oldest first, filtered, then the last ``last_n``.

        ``last_n <= 0`` means no limit; ``None`` or empty filters pass every kind. Raises
        :class:`chronica.ChronicumNotFoundError` if the owner has no such chronicum.
        """
        ...

    def get(self, chronicum_id: str, *, owner_id: str) -> Chronicum:
        """Return the owner's chronicum, or raise :class:`chronica.ChronicumNotFoundError`."""
        ...


@runtime_checkable
class IdempotentStore(Store, Protocol):
    """A store that can record an actum at most once per (chronicum, key)."""

    def record_once(self, actum: Actum, idempotency_key: str, *, owner_id: str) -> Actum:
        """Record ``actum`` unless the key was already used in its chronicum.

        Returns the actum stored under the key, which is the first one: a later payload
        with the same key is discarded. Concurrent calls with one key store exactly one.
        Raises :class:`chronica.ChronicumNotFoundError` if the owner has no such chronicum.
        """
        ...


@runtime_checkable
class RestorableStore(Store, Protocol):
    """A store that can take back exported acta as they were: IDs, times and order kept.

    Called only by :meth:`chronica.Chronicarius.restore`, which validates every record with
    the rules of a live write first: a store holds no policy, so this is no side door.
    """

    def restore(
        self, chronica: Sequence[Chronicum], acta: Sequence[Actum], *, owner_id: str
    ) -> int:
        """Store ``chronica`` (all ``owner_id``'s) and their ``acta`` in one transaction.

        A missing chronicum is created with its ``created_at``; an existing one keeps its
        own. Acta are appended to their chronicum in the order given, keeping ``id`` and
        ``at``; an actum whose ID that chronicum already holds is skipped, so restoring the
        same batch twice changes nothing. If any actum's ID is stored in another chronicum
        (of any owner), raises :class:`chronica.DuplicateActumError` and stores nothing.
        Returns how many acta were newly stored.
        """
        ...


@runtime_checkable
class BatchStore(IdempotentStore, Protocol):
    """A store that records several acta of one chronicum in one transaction.

    Optional, like the other capabilities: :meth:`chronica.Chronicarius.record_acta` falls
    back to one write per actum on a store without it. With it, a batch costs one commit
    (one fsync at ``synchronous=FULL``) instead of one per actum, and a crash or refusal
    part-way leaves none of it.
    """

    def record_many(
        self,
        acta: Sequence[Actum],
        *,
        owner_id: str,
        idempotency_keys: Sequence[str] | None = None,
    ) -> list[Actum]:
        """Append ``acta`` (IDs assigned, all of one chronicum) in order: all, or nothing.

        Returns what each became, as :meth:`Store.record` would; with ``idempotency_keys``
        (one per actum), an actum whose key is already used in the chronicum (before, or
        earlier in the batch) is not stored and the first one stored under the key is
        returned in its place, as :meth:`IdempotentStore.record_once` would. Raises
        :class:`chronica.ChronicumNotFoundError` if the owner has no such chronicum and
        :class:`chronica.DuplicateActumError` if an ID is stored already, storing nothing.
        """
        ...
