"""Chronicarius: every rule of chronica, in front of a store that has none.

Owners are part of every chronicum's key (see :mod:`chronica.store`): a chronicum is looked
up as ``(owner_id, chronicum_id)``, so "is this owner allowed to see it?" needs no separate
check and can never be skipped. Another owner's chronicum is, for a reader, simply absent.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from . import _validation as check
from ._errors import (
    ChronicumNotFoundError,
    EraseUnsupportedError,
    IdempotencyUnsupportedError,
    InvalidArgumentError,
    RestoreUnsupportedError,
)
from ._ids import new_actum_id, new_actum_ids
from ._model import ActorKind, Actum, ActumKind, ChronicaCounts, Chronicum
from ._restore import RestoreBatch, checked_batch
from .store import BatchStore, ErasableStore, IdempotentStore, RestorableStore, Store

__all__ = ["Chronicarius"]


class Chronicarius:
    """The one way in to chronica: validates, names the owner, assigns IDs, then stores.

    Example::

        c = Chronicarius(InMemoryStore())
        c.record_actum("ardian", Actum(chronicum_id="dinner-friday", kind=ActumKind.MESSAGE,
                                       actor_kind=ActorKind.HUMAN, actor="ardian",
                                       content="A table for four, please."))
        window = c.get_acta("ardian", "dinner-friday", last_n=20)
    """

    def __init__(self, store: Store) -> None:
        if not isinstance(store, Store):
            raise TypeError(
                f"store must implement chronica.store.Store, got {type(store).__name__}"
            )
        self._store = store
        self._keyed_store = store if isinstance(store, IdempotentStore) else None
        self._batch_store = store if isinstance(store, BatchStore) else None

    @property
    def store(self) -> Store:
        """The store this Chronicarius writes to."""
        return self._store

    def record_actum(
        self, owner_id: str, actum: Actum, *, idempotency_key: str | None = None
    ) -> Actum:
        """Validate and append ``actum``, creating ``owner_id``'s chronicum if it is new.

        The returned actum carries the ID chronica assigned and the ``at`` the store
        stamped. With ``idempotency_key``, a retry in the same chronicum returns the actum
        stored the first time and discards the new payload. Chronicum IDs are the owner's
        own: writing to an ID that another owner also uses creates this owner's chronicum.
        """
        owner_id = check.check_owner(owner_id)
        actum = check.validated_actum(actum, new_actum_id())
        if idempotency_key is not None:
            idempotency_key = check.check_idempotency_key(idempotency_key)
            if self._keyed_store is None:
                raise IdempotencyUnsupportedError(self._store)
        try:
            return self._append(owner_id, actum, idempotency_key)
        except ChronicumNotFoundError:
            # The first write: create the chronicum, then append. Racing first writes by
            # one owner all get the one chronicum the store keeps.
            self._store.create(actum.chronicum_id, owner_id=owner_id)
            return self._append(owner_id, actum, idempotency_key)

    def record_acta(
        self,
        owner_id: str,
        acta: Iterable[Actum],
        *,
        idempotency_keys: Sequence[str] | None = None,
    ) -> list[Actum]:
        """Validate and append several acta of one chronicum, in order; return them stored.

        Every actum passes the rules of :meth:`record_actum` before anything is written,
        so one invalid actum stores none. ``idempotency_keys``, one per actum, make the
        batch retry-safe exactly as ``idempotency_key`` does for one actum. On a
        :class:`chronica.BatchStore` the batch is one transaction (one commit, all or
        nothing); on any other store it falls back to one write per actum, in order.
        """
        owner_id = check.check_owner(owner_id)
        given = list(acta)
        batch = check.validated_acta(given, new_actum_ids(len(given)))
        keys = None
        if idempotency_keys is not None:
            keys = [check.check_idempotency_key(key) for key in idempotency_keys]
            if len(keys) != len(batch):
                raise InvalidArgumentError("idempotency_keys", "must hold one key per actum")
            if self._keyed_store is None:
                raise IdempotencyUnsupportedError(self._store)
        if not batch:
            return []
        chronicum_id = batch[0].chronicum_id
        if any(actum.chronicum_id != chronicum_id for actum in batch):
            raise InvalidArgumentError("acta", "must all belong to one chronicum")
        try:
            return self._append_many(owner_id, batch, keys)
        except ChronicumNotFoundError:
            self._store.create(chronicum_id, owner_id=owner_id)
            return self._append_many(owner_id, batch, keys)

    def get_acta(
        self,
        owner_id: str,
        chronicum_id: str,
        *,
        last_n: int = 0,
        actum_kinds: Iterable[ActumKind | str] | None = None,
        actor_kinds: Iterable[ActorKind | str] | None = None,
    ) -> list[Actum]:
        """Return an agent's context window: oldest first, filtered, then the last ``last_n``.

        ``last_n <= 0`` means no limit. ``actum_kinds`` / ``actor_kinds`` choose which acta
        count; ``None`` or empty lets every kind pass. Filters run before the limit.
        """
        owner_id = check.check_owner(owner_id)
        chronicum_id = check.check_chronicum_id(chronicum_id)
        last_n = check.check_last_n(last_n)
        kinds = check.check_kinds("actum_kinds", actum_kinds, ActumKind)
        actors = check.check_kinds("actor_kinds", actor_kinds, ActorKind)
        return self._store.acta(
            chronicum_id,
            owner_id=owner_id,
            last_n=last_n,
            actum_kinds=sorted(kinds) if kinds else None,
            actor_kinds=sorted(actors) if actors else None,
        )

    def get_chronicum(self, owner_id: str, chronicum_id: str) -> Chronicum:
        """Return ``owner_id``'s chronicum; another owner's is not found, like a missing one."""
        owner_id = check.check_owner(owner_id)
        chronicum_id = check.check_chronicum_id(chronicum_id)
        return self._store.get(chronicum_id, owner_id=owner_id)

    def check_restore(
        self, owner_id: str, chronica: Iterable[Chronicum], acta: Iterable[Actum]
    ) -> RestoreBatch:
        """Check an import as :meth:`restore` would, writing nothing; returns the checked batch.

        For a caller that must know an import will be accepted before it writes anything
        else (chronomem checks sessions before it imports facts). Raises what
        :meth:`restore` would raise for the same records; only what depends on the store's
        contents is left to :meth:`restore` itself, in its transaction: an actum ID the
        store already holds in another chronicum (:class:`chronica.DuplicateActumError`).
        The batch it returns can be written inside a caller's own SQLite transaction with
        :func:`chronica.stores.sqlite.restore_batch` (chronomem imports the facts and sessions
        of one file in one transaction that way).
        """
        return self._checked_restore(owner_id, chronica, acta)[1]

    def restore(self, owner_id: str, chronica: Iterable[Chronicum], acta: Iterable[Actum]) -> int:
        """Bring back exported chronica and acta for ``owner_id``: all of it, or nothing.

        Every chronicum and actum must pass the rules of :meth:`record_actum` (content,
        NUL, lengths, kinds, metadata) and keeps what the export recorded: actum IDs,
        ``at`` and order, and each chronicum's ``created_at`` (one that exists keeps its
        own). Each actum's chronicum must be in ``chronica``; ``Chronicum.owner_id`` must be
        ``owner_id``. The store writes the batch in one transaction; acta it already holds
        in the same chronicum are skipped, so restoring one export twice changes nothing.
        An actum ID stored elsewhere raises :class:`chronica.DuplicateActumError`.
        Returns how many acta were newly stored.
        """
        store, batch = self._checked_restore(owner_id, chronica, acta)
        return store.restore(batch.chronica, batch.acta, owner_id=batch.owner_id)

    def erase_owner(self, owner_id: str) -> ChronicaCounts:
        """Erase every chronicum and actum of ``owner_id``; return how many of each went.

        An operator's act, never an agent's: chronica stays append-only for agents (no call
        an agent makes deletes or changes what was recorded), but a person who asks to be
        forgotten must be, and this is how. Other owners' chronica, even of the same IDs,
        are untouched; erasing again removes nothing and returns counts of 0. The store
        decides how gone is gone: :class:`chronica.stores.sqlite.SQLiteStore` overwrites the
        deleted bytes and empties its write-ahead log, and
        :class:`chronica.stores.postgres.PostgresStore` says what ``VACUUM`` adds. Raises
        :class:`chronica.EraseUnsupportedError` on a store that is not a
        :class:`chronica.ErasableStore`.
        """
        owner_id = check.check_owner(owner_id)
        if not isinstance(self._store, ErasableStore):
            raise EraseUnsupportedError(self._store)
        return self._store.erase_owner(owner_id=owner_id)

    def erase_chronicum(self, owner_id: str, chronicum_id: str) -> ChronicaCounts:
        """Erase the owner's chronicum ``chronicum_id`` and all its acta; how many went.

        An operator's act, as :meth:`erase_owner` is, for one session: a conversation that
        must be forgotten (a secret said in it) while the owner's others stay. Gone as
        :meth:`erase_owner` makes it gone (SQLite: overwritten, and the log emptied); the
        owner's other chronica and other owners' chronica of the same ID are untouched, and
        erasing again removes nothing (counts of 0). Raises
        :class:`chronica.EraseUnsupportedError` on a store that is not a
        :class:`chronica.ErasableStore`.
        """
        owner_id = check.check_owner(owner_id)
        chronicum_id = check.check_chronicum_id(chronicum_id)
        if not isinstance(self._store, ErasableStore):
            raise EraseUnsupportedError(self._store)
        return self._store.erase_chronicum(chronicum_id, owner_id=owner_id)

    def _checked_restore(
        self, owner_id: str, chronica: Iterable[Chronicum], acta: Iterable[Actum]
    ) -> tuple[RestorableStore, RestoreBatch]:
        if not isinstance(self._store, RestorableStore):
            raise RestoreUnsupportedError(self._store)
        return self._store, checked_batch(owner_id, chronica, acta)

    def _append(self, owner_id: str, actum: Actum, idempotency_key: str | None) -> Actum:
        if idempotency_key is None or self._keyed_store is None:
            return self._store.record(actum, owner_id=owner_id)
        return self._keyed_store.record_once(actum, idempotency_key, owner_id=owner_id)

    def _append_many(
        self, owner_id: str, batch: list[Actum], keys: list[str] | None
    ) -> list[Actum]:
        if self._batch_store is not None:
            return self._batch_store.record_many(batch, owner_id=owner_id, idempotency_keys=keys)
        if keys is None:
            return [self._append(owner_id, actum, None) for actum in batch]
        return [self._append(owner_id, actum, key) for actum, key in zip(batch, keys, strict=True)]
