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

from ._model import (
    ActaPage,
    ActorKind,
    Actum,
    ActumEntry,
    ActumKind,
    ChronicaCounts,
    Chronicum,
    ChronicumSummary,
)

__all__ = [
    "BatchStore",
    "BrowsableStore",
    "ErasableStore",
    "IdempotentStore",
    "RestorableStore",
    "Store",
    "TailStore",
]


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


@runtime_checkable
class BrowsableStore(Store, Protocol):
    """A store a person can page through: an owner's chronica, and a window of acta a page
    at a time, without reading a whole chronicum (one may hold 100,000 acta).

    Optional, like the other capabilities; read by tools for people (chronomem's inspector,
    ``stats`` and ``export``), never needed by an agent, whose context window is
    :meth:`Store.acta`. Every method is scoped by owner like the rest of the contract: another
    owner's chronicum is exactly a missing one.

    Chronica are paged by ``offset`` and ``limit``, newest first: a chronicum created while a
    reader pages shifts the offsets by one, so a reader that must see each chronicum once
    (an export) drops repeats by ID. Acta are paged by position (1 for the first actum of a
    chronicum, with no gaps), which never shifts: a chronicum only grows at its end.
    """

    def chronica_page(
        self, *, owner_id: str, offset: int = 0, limit: int = 100
    ) -> list[ChronicumSummary]:
        """The owner's chronica, newest created first, skipping ``offset``, at most ``limit``.

        Ask for one more than a page to learn whether another page follows.
        """
        ...

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
        """A page of the window :meth:`Store.acta` would answer with these filters and
        ``last_n``: with ``after``, the oldest ``limit`` acta of the window positioned after
        it (following a live chronicum); otherwise the newest ``limit`` positioned before
        ``before`` (or the newest of all). Either way oldest first.

        ``preview_chars > 0`` cuts each actum's content to that many characters (see
        :class:`chronica.ActumEntry`); 0 keeps it whole. Raises
        :class:`chronica.ChronicumNotFoundError` if the owner has no such chronicum.
        """
        ...

    def find_actum(self, actum_id: str, *, owner_id: str) -> ActumEntry | None:
        """The owner's actum of this ID, whole, at its position; None if the owner has none."""
        ...

    def counts(self, *, owner_id: str) -> ChronicaCounts:
        """How many chronica and acta the owner has."""
        ...


@runtime_checkable
class ErasableStore(Store, Protocol):
    """A store that can erase an owner (every chronicum and actum of theirs) or one chronicum
    of theirs, for good.

    chronica is append-only for agents: nothing an agent calls deletes. Erasing is an
    operator's act (a person who asked to be forgotten), called only through
    :meth:`chronica.Chronicarius.erase_owner` and :meth:`chronica.Chronicarius.erase_chronicum`.
    """

    def erase_owner(self, *, owner_id: str) -> ChronicaCounts:
        """Delete every chronicum and actum of ``owner_id`` in one transaction; return how
        many of each were removed. Other owners' chronica, even of the same IDs, are
        untouched; erasing an owner with nothing stored removes nothing (counts of 0)."""
        ...

    def erase_chronicum(self, chronicum_id: str, *, owner_id: str) -> ChronicaCounts:
        """Delete the owner's chronicum ``chronicum_id`` and all its acta in one transaction,
        as :meth:`erase_owner` deletes (as gone from the store's bytes); return how many were
        removed (``chronica`` 1 or 0). The owner's other chronica and other owners' chronica
        of the same ID are untouched; a chronicum not stored removes nothing (counts of 0),
        and the ID may be created afresh afterwards."""
        ...


@runtime_checkable
class TailStore(Store, Protocol):
    """A store that names a chronicum's newest acta by ID alone, without building them.

    Optional: what a reader that keeps what it has read (the OpenAI Agents adapter) asks
    on every read, to learn whether anything was appended since, which is usually nothing
    or only its own last write. Building acta to compare their IDs costs several times the
    query; a reader falls back to :meth:`Store.acta` on a store without it.
    """

    def acta_ids(self, chronicum_id: str, *, owner_id: str, last_n: int = 0) -> list[str]:
        """The IDs of what :meth:`Store.acta` returns with ``last_n`` and no filters, in
        the same order (oldest first); :class:`chronica.ChronicumNotFoundError` as it."""
        ...
