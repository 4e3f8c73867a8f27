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

    def create(self, chronicum_id: str, owner_id: str) -> Chronicum:
        self.calls.append("create")
        return super().create(chronicum_id, owner_id)

    def get(self, chronicum_id: str) -> Chronicum:
        self.calls.append("get")
        return super().get(chronicum_id)

    def record(self, actum: Actum) -> Actum:
        self.calls.append("record")
        return super().record(actum)

    def record_once(self, actum: Actum, idempotency_key: str) -> Actum:
        self.calls.append("record_once")
        return super().record_once(actum, idempotency_key)

    def acta(
        self,
        chronicum_id: str,
        *,
        last_n: int = 0,
        actum_kinds: Sequence[ActumKind] | None = None,
        actor_kinds: Sequence[ActorKind] | None = None,
    ) -> list[Actum]:
        self.calls.append("acta")
        return super().acta(
            chronicum_id, last_n=last_n, actum_kinds=actum_kinds, actor_kinds=actor_kinds
        )

    @property
    def writes(self) -> list[str]:
        return [c for c in self.calls if c in {"create", "record", "record_once"}]


class PlainStore:
    """A correct store that does not implement IdempotentStore."""

    def __init__(self) -> None:
        self._inner = SpyStore()

    @property
    def calls(self) -> list[str]:
        return self._inner.calls

    def create(self, chronicum_id: str, owner_id: str) -> Chronicum:
        return self._inner.create(chronicum_id, owner_id)

    def get(self, chronicum_id: str) -> Chronicum:
        return self._inner.get(chronicum_id)

    def record(self, actum: Actum) -> Actum:
        return self._inner.record(actum)

    def acta(
        self,
        chronicum_id: str,
        *,
        last_n: int = 0,
        actum_kinds: Sequence[ActumKind] | None = None,
        actor_kinds: Sequence[ActorKind] | None = None,
    ) -> list[Actum]:
        return self._inner.acta(
            chronicum_id, last_n=last_n, actum_kinds=actum_kinds, actor_kinds=actor_kinds
        )
