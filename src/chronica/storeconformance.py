"""The store contract as reusable pytest test classes.

A backend proves itself by subclassing these classes with a factory::

    from chronica.storeconformance import IdempotentStoreContract, StoreContract

    class TestMyStore(StoreContract):
        def make_store(self) -> Store:
            return MyStore(...)

    class TestMyStoreIdempotency(IdempotentStoreContract):
        def make_store(self) -> IdempotentStore:
            return MyStore(...)

Each test gets a fresh store from ``make_store``; if the store has a ``close()`` method it
is called afterwards. A factory that needs pytest fixtures (a database URL, a temporary
directory) can override the ``store`` fixture instead. Assertions compare exact sequences,
never sets: order is the contract.

This module imports pytest, so it is for test code only (``pip install chronomem[dev]``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import threading
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from typing import Any, ClassVar, TypeVar

import pytest

from ._errors import ChronicumNotFoundError
from ._ids import new_actum_id
from ._model import ActorKind, Actum, ActumKind, Chronicum
from .store import IdempotentStore, Store

__all__ = ["IdempotentStoreContract", "StoreContract", "make_actum"]

T = TypeVar("T")

OWNER = "conformance-owner"


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


def _ids(acta: Sequence[Actum]) -> list[str]:
    return [actum.id for actum in acta]


class _ContractBase:
    """Holds the store fixture shared by both contracts."""

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

    @staticmethod
    def new_chronicum(store: Store, name: str = "c") -> str:
        chronicum_id = f"{name}-{new_actum_id()}"
        store.create(chronicum_id, OWNER)
        return chronicum_id


class StoreContract(_ContractBase):
    """The base contract every :class:`chronica.store.Store` must meet."""

    CONCURRENT_WRITERS: ClassVar[int] = 40
    ACTA_PER_WRITER: ClassVar[int] = 25

    def test_create_returns_the_chronicum_bound_to_its_owner(self, store: Store) -> None:
        created = store.create("c-create", "alice")
        assert isinstance(created, Chronicum)
        assert (created.id, created.owner_id) == ("c-create", "alice")
        assert created.created_at.tzinfo is not None
        assert store.get("c-create") == created

    def test_create_of_an_existing_chronicum_keeps_the_first_owner(self, store: Store) -> None:
        first = store.create("c-twice", "alice")
        again = store.create("c-twice", "bob")
        assert again == first
        assert store.get("c-twice").owner_id == "alice"

    def test_racing_creates_leave_exactly_one_owner(self, store: Store) -> None:
        owners = [f"owner-{i}" for i in range(self.CONCURRENT_WRITERS)]
        results = run_together(len(owners), lambda i: store.create("c-race", owners[i]))
        assert len({(c.id, c.owner_id, c.created_at) for c in results}) == 1
        assert store.get("c-race") == results[0]

    def test_get_of_a_missing_chronicum_is_not_found(self, store: Store) -> None:
        with pytest.raises(ChronicumNotFoundError):
            store.get("c-missing")

    def test_record_into_a_missing_chronicum_is_not_found(self, store: Store) -> None:
        with pytest.raises(ChronicumNotFoundError):
            store.record(make_actum("c-missing"))
        with pytest.raises(ChronicumNotFoundError):
            store.get("c-missing")

    def test_acta_of_a_missing_chronicum_is_not_found(self, store: Store) -> None:
        with pytest.raises(ChronicumNotFoundError):
            store.acta("c-missing")

    def test_new_chronicum_has_no_acta(self, store: Store) -> None:
        assert store.acta(self.new_chronicum(store)) == []

    def test_record_stamps_a_timezone_aware_at_and_keeps_every_field(self, store: Store) -> None:
        cid = self.new_chronicum(store)
        sent = make_actum(
            cid,
            "call search",
            kind=ActumKind.TOOL_REQUEST,
            metadata={"tool": "search", "call_id": "c1", "args": {"q": "Kemang", "n": 4}},
        )
        before = datetime.now().astimezone()
        stored = store.record(sent)
        assert stored.at is not None
        assert stored.at.tzinfo is not None
        assert stored.at.utcoffset() is not None
        assert abs((stored.at - before).total_seconds()) < 60
        assert _strip_at(stored) == _strip_at(sent)
        assert store.acta(cid) == [stored]

    def test_a_recorded_actum_cannot_change_under_its_readers(self, store: Store) -> None:
        cid = self.new_chronicum(store)
        sent: dict[str, Any] = {"tool": "search", "args": {"q": "Kemang", "seats": [4]}}
        expected = {"tool": "search", "args": {"q": "Kemang", "seats": [4]}}
        stored = store.record(make_actum(cid, metadata=sent))
        sent["args"]["seats"].append(6)  # the caller's own objects stay theirs
        sent["tool"] = "changed"
        for held in (stored, store.acta(cid)[0]):
            for mutate in _MUTATIONS:
                with contextlib.suppress(TypeError):  # frozen metadata refuses: also fine
                    mutate(held.metadata)
        assert stored.metadata == expected
        assert store.acta(cid)[0].metadata == expected

    def test_text_round_trips_exactly(self, store: Store) -> None:
        cid = self.new_chronicum(store)
        texts = [
            "",
            " ",
            "Kemang 🍜",
            "ئاوازی عەرەبی",
            "e\u0301 vs é",
            "line\nbreak\ttab",
            "💡" * 500,
        ]
        for text in texts:
            store.record(make_actum(cid, text, kind=ActumKind.TOOL_RESPONSE))
        assert [actum.content for actum in store.acta(cid)] == texts

    def test_insertion_order_holds_across_a_thousand_acta(self, store: Store) -> None:
        cid = self.new_chronicum(store)
        sent = [store.record(make_actum(cid, f"actum {i}")) for i in range(1000)]
        assert _ids(store.acta(cid)) == _ids(sent)
        assert _ids(store.acta(cid, last_n=10)) == _ids(sent[-10:])

    def test_order_is_recording_order_not_id_order(self, store: Store) -> None:
        cid = self.new_chronicum(store)
        later_id, earlier_id = new_actum_id(), new_actum_id()
        first = store.record(_with_id(make_actum(cid, "first"), earlier_id))
        second = store.record(_with_id(make_actum(cid, "second"), later_id))
        assert _ids(store.acta(cid)) == [first.id, second.id]

    def test_chronica_are_isolated(self, store: Store) -> None:
        a, b = self.new_chronicum(store, "a"), self.new_chronicum(store, "b")
        in_a = [store.record(make_actum(a, f"a{i}")) for i in range(3)]
        in_b = [store.record(make_actum(b, f"b{i}")) for i in range(2)]
        assert _ids(store.acta(a)) == _ids(in_a)
        assert _ids(store.acta(b)) == _ids(in_b)

    def test_concurrent_appends_keep_every_writers_order(self, store: Store) -> None:
        cid = self.new_chronicum(store)
        per_writer = self.ACTA_PER_WRITER

        def write(writer: int) -> list[str]:
            return [
                store.record(make_actum(cid, f"{writer}:{i}", actor=f"w{writer}")).id
                for i in range(per_writer)
            ]

        written = run_together(self.CONCURRENT_WRITERS, write)
        stored = store.acta(cid)
        assert len(stored) == self.CONCURRENT_WRITERS * per_writer
        assert len(set(_ids(stored))) == len(stored)
        for writer, ids in enumerate(written):
            mine = [a.id for a in stored if a.actor == f"w{writer}"]
            assert mine == ids, f"writer {writer}'s acta came back out of order"

    def test_last_n_zero_or_negative_means_no_limit(self, store: Store) -> None:
        cid = self.new_chronicum(store)
        sent = [store.record(make_actum(cid, str(i))) for i in range(5)]
        assert _ids(store.acta(cid, last_n=0)) == _ids(sent)
        assert _ids(store.acta(cid, last_n=-3)) == _ids(sent)
        assert _ids(store.acta(cid, last_n=99)) == _ids(sent)

    def test_filters_run_before_the_limit_in_every_combination(self, store: Store) -> None:
        cid = self.new_chronicum(store)
        kinds, actors = list(ActumKind), list(ActorKind)
        sent = [
            store.record(
                make_actum(cid, f"n{i}", kind=kinds[i % 4], actor_kind=actors[(i // 4) % 3])
            )
            for i in range(36)
        ]
        for kind_filter in _subsets(kinds):
            for actor_filter in _subsets(actors):
                passing = [
                    a
                    for a in sent
                    if (not kind_filter or a.kind in kind_filter)
                    and (not actor_filter or a.actor_kind in actor_filter)
                ]
                for last_n in (0, 1, 2, 5, 100):
                    expected = passing[-last_n:] if last_n else passing
                    got = store.acta(
                        cid,
                        last_n=last_n,
                        actum_kinds=kind_filter or None,
                        actor_kinds=actor_filter or None,
                    )
                    assert _ids(got) == _ids(expected), (kind_filter, actor_filter, last_n)

    def test_empty_filters_pass_every_kind(self, store: Store) -> None:
        cid = self.new_chronicum(store)
        sent = [store.record(make_actum(cid, "x", kind=kind)) for kind in ActumKind]
        assert _ids(store.acta(cid, actum_kinds=[], actor_kinds=[])) == _ids(sent)


class IdempotentStoreContract(_ContractBase):
    """Deduplication by idempotency key, for stores that are :class:`IdempotentStore`."""

    CONCURRENT_WRITERS: ClassVar[int] = 40

    def test_store_is_an_idempotent_store(self, store: IdempotentStore) -> None:
        assert isinstance(store, IdempotentStore)

    def test_a_retry_returns_the_first_actum_and_discards_the_new_payload(
        self, store: IdempotentStore
    ) -> None:
        cid = self.new_chronicum(store)
        first = store.record_once(make_actum(cid, "Booked: 7pm, table for four."), "turn-3")
        retry = store.record_once(make_actum(cid, "I booked a table for 4 at 7."), "turn-3")
        assert retry == first
        assert store.acta(cid) == [first]

    def test_keys_are_scoped_per_chronicum(self, store: IdempotentStore) -> None:
        a, b = self.new_chronicum(store, "a"), self.new_chronicum(store, "b")
        in_a = store.record_once(make_actum(a, "same key"), "k")
        in_b = store.record_once(make_actum(b, "same key"), "k")
        assert in_a.id != in_b.id
        assert store.acta(a) == [in_a]
        assert store.acta(b) == [in_b]

    def test_different_keys_store_separately_in_order(self, store: IdempotentStore) -> None:
        cid = self.new_chronicum(store)
        plain = store.record(make_actum(cid, "plain"))
        one = store.record_once(make_actum(cid, "one"), "k1")
        two = store.record_once(make_actum(cid, "two"), "k2")
        store.record_once(make_actum(cid, "one again"), "k1")
        assert _ids(store.acta(cid)) == [plain.id, one.id, two.id]

    def test_keyed_record_into_a_missing_chronicum_is_not_found(
        self, store: IdempotentStore
    ) -> None:
        with pytest.raises(ChronicumNotFoundError):
            store.record_once(make_actum("c-missing"), "k")

    def test_concurrent_writes_with_one_key_store_exactly_one(self, store: IdempotentStore) -> None:
        cid = self.new_chronicum(store)
        results = run_together(
            self.CONCURRENT_WRITERS,
            lambda i: store.record_once(make_actum(cid, f"attempt {i}"), "the-key"),
        )
        stored = store.acta(cid)
        assert len(stored) == 1
        assert len(results) == self.CONCURRENT_WRITERS
        assert all(result == stored[0] for result in results)


_MUTATIONS: tuple[Callable[[Any], object], ...] = (
    lambda m: m.__setitem__("tool", "changed"),
    lambda m: m["args"].__setitem__("q", "changed"),
    lambda m: m["args"]["seats"].append(6),
    lambda m: m.pop("tool"),
    lambda m: m.clear(),
)


def _subsets(items: Sequence[T]) -> list[list[T]]:
    return [list(c) for r in range(len(items) + 1) for c in itertools.combinations(items, r)]


def _strip_at(actum: Actum) -> Actum:
    return dataclasses.replace(actum, at=None)


def _with_id(actum: Actum, actum_id: str) -> Actum:
    return dataclasses.replace(actum, id=actum_id)
