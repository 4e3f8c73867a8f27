"""A store that records every call, to prove what policy lets through."""

from __future__ import annotations

from collections.abc import Sequence

from chronica import ActorKind, Actum, ActumKind, Chronicum
from chronica.stores.inmemory import InMemoryStore


class SpyStore(InMemoryStore):
    """An InMemoryStore that logs each store method called, by name."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[str] = []

    def create(self, chronicum_id: str, *, owner_id: str) -> Chronicum:
        self.calls.append("create")
        return super().create(chronicum_id, owner_id=owner_id)

    def get(self, chronicum_id: str, *, owner_id: str) -> Chronicum:
        self.calls.append("get")
        return super().get(chronicum_id, owner_id=owner_id)

    def record(self, actum: Actum, *, owner_id: str) -> Actum:
        self.calls.append("record")
        return super().record(actum, owner_id=owner_id)

    def record_once(self, actum: Actum, idempotency_key: str, *, owner_id: str) -> Actum:
        self.calls.append("record_once")
        return super().record_once(actum, idempotency_key, owner_id=owner_id)

    def record_many(
        self,
        acta: Sequence[Actum],
        *,
        owner_id: str,
        idempotency_keys: Sequence[str] | None = None,
    ) -> list[Actum]:
        self.calls.append("record_many")
        return super().record_many(acta, owner_id=owner_id, idempotency_keys=idempotency_keys)

    def acta(
        self,
        chronicum_id: str,
        *,
        owner_id: str,
        last_n: int = 0,
        actum_kinds: Sequence[ActumKind] | None = None,
        actor_kinds: Sequence[ActorKind] | None = None,
    ) -> list[Actum]:
        self.calls.append("acta")
        return super().acta(
            chronicum_id,
            owner_id=owner_id,
            last_n=last_n,
            actum_kinds=actum_kinds,
            actor_kinds=actor_kinds,
        )

    def restore(
        self, chronica: Sequence[Chronicum], acta: Sequence[Actum], *, owner_id: str
    ) -> int:
        self.calls.append("restore")
        return super().restore(chronica, acta, owner_id=owner_id)

    @property
    def writes(self) -> list[str]:
        return [
            c
            for c in self.calls
            if c in {"create", "record", "record_once", "record_many", "restore"}
        ]


class PlainStore:
    """A correct store that implements neither IdempotentStore nor RestorableStore."""

    def __init__(self) -> None:
        self._inner = SpyStore()

    @property
    def calls(self) -> list[str]:
        return self._inner.calls

    def create(self, chronicum_id: str, *, owner_id: str) -> Chronicum:
        return self._inner.create(chronicum_id, owner_id=owner_id)

    def get(self, chronicum_id: str, *, owner_id: str) -> Chronicum:
        return self._inner.get(chronicum_id, owner_id=owner_id)

    def record(self, actum: Actum, *, owner_id: str) -> Actum:
        return self._inner.record(actum, owner_id=owner_id)

    def acta(
        self,
        chronicum_id: str,
        *,
        owner_id: str,
        last_n: int = 0,
        actum_kinds: Sequence[ActumKind] | None = None,
        actor_kinds: Sequence[ActorKind] | None = None,
    ) -> list[Actum]:
        return self._inner.acta(
            chronicum_id,
            owner_id=owner_id,
            last_n=last_n,
            actum_kinds=actum_kinds,
            actor_kinds=actor_kinds,
        )
