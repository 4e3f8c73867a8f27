"""Batch appends, for stores that are :class:`chronica.BatchStore`.

The batch is what makes a turn of N items one commit, so the contract pins down what a
caller relies on when it trades N writes for one: order, all-or-nothing, and the same key
semantics as :meth:`chronica.IdempotentStore.record_once`.
"""

from __future__ import annotations

from typing import ClassVar

import pytest

from chronica._errors import ChronicumNotFoundError, DuplicateActumError
from chronica.store import BatchStore

from ._base import OWNER, ContractBase, OwnerView, ids, make_actum, run_together, strip_at, with_id

__all__ = ["BatchStoreContract"]


class BatchStoreContract(ContractBase):
    """``record_many``: one transaction, in order, all or nothing, retry-safe with keys."""

    CONCURRENT_WRITERS: ClassVar[int] = 8

    def test_store_is_a_batch_store(self, store: BatchStore) -> None:
        assert isinstance(store, BatchStore)

    def test_a_batch_is_appended_in_order_after_what_is_there(
        self, store: BatchStore, mine: OwnerView
    ) -> None:
        cid = self.new_chronicum(mine)
        before = mine.record(make_actum(cid, "before"))
        batch = [make_actum(cid, f"item {i}") for i in range(5)]
        stored = store.record_many(batch, owner_id=OWNER)
        assert [strip_at(a) for a in stored] == batch
        assert all(a.at is not None for a in stored)
        assert mine.acta(cid) == [before, *stored]

    def test_an_empty_batch_stores_nothing(self, store: BatchStore) -> None:
        assert store.record_many([], owner_id=OWNER) == []

    def test_a_batch_into_a_missing_or_anothers_chronicum_is_not_found(
        self, store: BatchStore
    ) -> None:
        store.create("diary", owner_id="alice")
        with pytest.raises(ChronicumNotFoundError):
            store.record_many([make_actum("diary"), make_actum("diary")], owner_id="mallory")
        assert store.acta("diary", owner_id="alice") == []

    def test_a_duplicate_id_stores_none_of_the_batch(
        self, store: BatchStore, mine: OwnerView
    ) -> None:
        cid = self.new_chronicum(mine)
        there = mine.record(make_actum(cid, "there"))
        batch = [make_actum(cid, "new"), with_id(make_actum(cid, "dup"), there.id)]
        batch.append(make_actum(cid, "after"))
        with pytest.raises(DuplicateActumError):
            store.record_many(batch, owner_id=OWNER)
        assert mine.acta(cid) == [there]

    def test_keys_return_what_was_stored_first_and_store_the_rest(
        self, store: BatchStore, mine: OwnerView
    ) -> None:
        cid = self.new_chronicum(mine)
        first = mine.record_once(make_actum(cid, "first"), "k0")
        batch = [make_actum(cid, "retried"), make_actum(cid, "new"), make_actum(cid, "again")]
        stored = store.record_many(batch, owner_id=OWNER, idempotency_keys=["k0", "k1", "k1"])
        assert stored[0] == first
        assert stored[2] == stored[1]
        assert ids(mine.acta(cid)) == [first.id, batch[1].id]
        retry = store.record_many(batch, owner_id=OWNER, idempotency_keys=["k0", "k1", "k2"])
        assert retry[:2] == [first, stored[1]]
        assert ids(mine.acta(cid)) == [first.id, batch[1].id, batch[2].id]

    def test_racing_retries_of_one_keyed_batch_store_it_once(
        self, store: BatchStore, mine: OwnerView
    ) -> None:
        cid = self.new_chronicum(mine)
        keys = ["a", "b", "c"]
        results = run_together(
            self.CONCURRENT_WRITERS,
            lambda i: store.record_many(
                [make_actum(cid, f"{k} by {i}") for k in keys],
                owner_id=OWNER,
                idempotency_keys=keys,
            ),
        )
        stored = mine.acta(cid)
        assert len(stored) == 3
        assert all(result == stored for result in results)
