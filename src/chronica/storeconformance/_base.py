"""What every contract class shares: the store fixture, one owner's view, actum builders."""

from __future__ import annotations

import dataclasses
import itertools
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

import pytest

from chronica._ids import new_actum_id
from chronica._model import ActorKind, Actum, ActumKind, Chronicum
from chronica.store import IdempotentStore, Store

__all__ = [
    "MUTATIONS",
    "OWNER",
    "ContractBase",
    "OwnerView",
    "ids",
    "make_actum",
    "run_together",
    "strip_at",
    "subsets",
    "with_id",
]

T = TypeVar("T")

OWNER = "conformance-owner"
"""The owner most contract tests write as."""


def make_actum(
    chronicum_id: str,
    content: str = "hello",
    *,
    kind: ActumKind = ActumKind.MESSAGE,
    actor_kind: ActorKind = ActorKind.AGENT,
    actor: str = "agent-1",
    metadata: dict[str, Any] | None = None,
) -> Actum:
    """Build an actum with a fresh ID, as :class:`chronica.Chronicarius` would hand a store."""
    return Actum(
        id=new_actum_id(),
        chronicum_id=chronicum_id,
        kind=kind,
        actor_kind=actor_kind,
        actor=actor,
        content=content,
        metadata=metadata or {},
    )


def run_together(workers: int, work: Callable[[int], T]) -> list[T]:
    """Run ``work(i)`` on ``workers`` threads released at the same instant; re-raise failures."""
    barrier = threading.Barrier(workers)
    results: list[T | None] = [None] * workers
    errors: list[BaseException] = []

    def target(i: int) -> None:
        try:
            barrier.wait()
            results[i] = work(i)
        except BaseException as e:  # handed to the main thread below
            errors.append(e)

    threads = [threading.Thread(target=target, args=(i,)) for i in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return [r for r in results if r is not None]


class OwnerView:
    """One owner's view of a store: every call passes ``owner_id`` for that owner.

    Most of the contract is about order, filters and concurrency within one owner's
    chronica; the view keeps those tests about that, while the tests about owners call the
    store itself with each owner spelled out.
    """

    def __init__(self, store: Store, owner_id: str) -> None:
        self.store = store
        self.owner_id = owner_id

    def create(self, chronicum_id: str) -> Chronicum:
        return self.store.create(chronicum_id, owner_id=self.owner_id)

    def get(self, chronicum_id: str) -> Chronicum:
        return self.store.get(chronicum_id, owner_id=self.owner_id)

    def record(self, actum: Actum) -> Actum:
        return self.store.record(actum, owner_id=self.owner_id)

    def record_once(self, actum: Actum, idempotency_key: str) -> Actum:
        assert isinstance(self.store, IdempotentStore)
        return self.store.record_once(actum, idempotency_key, owner_id=self.owner_id)

    def acta(
        self,
        chronicum_id: str,
        *,
        last_n: int = 0,
        actum_kinds: Sequence[ActumKind] | None = None,
        actor_kinds: Sequence[ActorKind] | None = None,
    ) -> list[Actum]:
        return self.store.acta(
            chronicum_id,
            owner_id=self.owner_id,
            last_n=last_n,
            actum_kinds=actum_kinds,
            actor_kinds=actor_kinds,
        )


class ContractBase:
    """Holds the store fixture shared by every contract class."""

    def make_store(self) -> Any:
        """Return a new, empty store. Subclasses must override this or the fixture."""
        raise NotImplementedError("subclass StoreContract and implement make_store()")

    @pytest.fixture
    def store(self) -> Iterator[Any]:
        store = self.make_store()
        yield store
        close = getattr(store, "close", None)
        if callable(close):
            close()

    @pytest.fixture
    def mine(self, store: Store) -> OwnerView:
        """The store as seen by :data:`OWNER`."""
        return OwnerView(store, OWNER)

    @staticmethod
    def new_chronicum(view: OwnerView, name: str = "c") -> str:
        chronicum_id = f"{name}-{new_actum_id()}"
        view.create(chronicum_id)
        return chronicum_id


def ids(acta: Sequence[Actum]) -> list[str]:
    return [actum.id for actum in acta]


def subsets(items: Sequence[T]) -> list[list[T]]:
    return [list(c) for r in range(len(items) + 1) for c in itertools.combinations(items, r)]


def strip_at(actum: Actum) -> Actum:
    return dataclasses.replace(actum, at=None)


def with_id(actum: Actum, actum_id: str) -> Actum:
    return dataclasses.replace(actum, id=actum_id)


# Ways a reader might try to change metadata it holds (see the immutability test).
MUTATIONS: tuple[Callable[[Any], object], ...] = (
    lambda m: m.__setitem__("tool", "changed"),
    lambda m: m["args"].__setitem__("q", "changed"),
    lambda m: m["args"]["seats"].append(6),
    lambda m: m.pop("tool"),
    lambda m: m.clear(),
)
