"""Chronicarius: every rule of chronica, in front of a store that has none."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable

from . import _validation as check
from ._errors import ChronicumNotFoundError, IdempotencyUnsupportedError
from ._ids import new_actum_id
from ._model import ActorKind, Actum, ActumKind, Chronicum
from .store import IdempotentStore, Store

__all__ = ["Chronicarius"]

_OWNER_CACHE_SIZE = 4096


class _OwnerCache:
    """Remembers which owner holds recently used chronica.

    A chronicum's owner is fixed when it is created and chronica has no delete, so a
    cached owner can never go stale; caching saves one store round trip per call.
    """

    def __init__(self, size: int) -> None:
        self._size = size
        self._owners: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, chronicum_id: str) -> str | None:
        with self._lock:
            owner = self._owners.get(chronicum_id)
            if owner is not None:
                self._owners.move_to_end(chronicum_id)
            return owner

    def put(self, chronicum_id: str, owner_id: str) -> None:
        with self._lock:
            self._owners[chronicum_id] = owner_id
            self._owners.move_to_end(chronicum_id)
            if len(self._owners) > self._size:
                self._owners.popitem(last=False)


class Chronicarius:
    """The one way in to chronica: validates, checks the owner, assigns IDs, then stores.

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
        self._owners = _OwnerCache(_OWNER_CACHE_SIZE)

    @property
    def store(self) -> Store:
        """The store this Chronicarius writes to."""
        return self._store

    def record_actum(
        self, owner_id: str, actum: Actum, *, idempotency_key: str | None = None
    ) -> Actum:
        """Validate and append ``actum``, creating its chronicum for ``owner_id`` if new.

        The returned actum carries the ID chronica assigned and the ``at`` the store
        stamped. With ``idempotency_key``, a retry in the same chronicum returns the actum
        stored the first time and discards the new payload.
        """
        owner_id = check.check_owner(owner_id)
        actum = check.validated_actum(actum, new_actum_id())
        if idempotency_key is not None:
            idempotency_key = check.check_idempotency_key(idempotency_key)
            if self._keyed_store is None:
                raise IdempotencyUnsupportedError(self._store)
        self._check_owner(owner_id, actum.chronicum_id, create=True)
        if idempotency_key is None or self._keyed_store is None:
            return self._store.record(actum)
        return self._keyed_store.record_once(actum, idempotency_key)

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
        self._check_owner(owner_id, chronicum_id, create=False)
        return self._store.acta(
            chronicum_id,
            last_n=last_n,
            actum_kinds=sorted(kinds) if kinds else None,
            actor_kinds=sorted(actors) if actors else None,
        )

    def get_chronicum(self, owner_id: str, chronicum_id: str) -> Chronicum:
        """Return the chronicum if ``owner_id`` owns it; otherwise it is not found."""
        owner_id = check.check_owner(owner_id)
        chronicum_id = check.check_chronicum_id(chronicum_id)
        chronicum = self._store.get(chronicum_id)
        if chronicum.owner_id != owner_id:
            raise ChronicumNotFoundError(chronicum_id)
        self._owners.put(chronicum_id, chronicum.owner_id)
        return chronicum

    def _check_owner(self, owner_id: str, chronicum_id: str, *, create: bool) -> None:
        owner = self._owners.get(chronicum_id)
        if owner is None:
            try:
                owner = self._store.get(chronicum_id).owner_id
            except ChronicumNotFoundError:
                if not create:
                    raise
                # Two first writers may race here; the store keeps exactly one, and
                # whoever lost sees another owner and gets not-found below.
                owner = self._store.create(chronicum_id, owner_id).owner_id
            self._owners.put(chronicum_id, owner)
        if owner != owner_id:
            raise ChronicumNotFoundError(chronicum_id)
