"""Deduplication by idempotency key, for stores that are :class:`chronica.IdempotentStore`."""

from __future__ import annotations

from typing import ClassVar

import pytest

from chronica._errors import ChronicumNotFoundError
from chronica.store import IdempotentStore

from ._base import ContractBase, OwnerView, ids, make_actum, run_together

__all__ = ["IdempotentStoreContract"]


class IdempotentStoreContract(ContractBase):
    """Deduplication by idempotency key, for stores that are :class:`IdempotentStore`."""

    CONCURRENT_WRITERS: ClassVar[int] = 40

    def test_store_is_an_idempotent_store(self, store: IdempotentStore) -> None:
        assert isinstance(store, IdempotentStore)

    def test_a_retry_returns_the_first_actum_and_discards_the_new_payload(
        self, mine: OwnerView
    ) -> None:
        cid = self.new_chronicum(mine)
        first = mine.record_once(make_actum(cid, "Booked: 7pm, table for four."), "turn-3")
        retry = mine.record_once(make_actum(cid, "I booked a table for 4 at 7."), "turn-3")
        assert retry == first
        assert mine.acta(cid) == [first]

    def test_keys_are_scoped_per_owner(self, store: IdempotentStore) -> None:
        for owner in ("alice", "bob"):
            store.create("lunch", owner_id=owner)
        hers = store.record_once(make_actum("lunch", "hers"), "k", owner_id="alice")
        his = store.record_once(make_actum("lunch", "his"), "k", owner_id="bob")
        assert hers.id != his.id
        assert store.acta("lunch", owner_id="alice") == [hers]
        assert store.acta("lunch", owner_id="bob") == [his]

    def test_keyed_record_into_another_owners_chronicum_is_not_found(
        self, store: IdempotentStore
    ) -> None:
        store.create("diary", owner_id="alice")
        with pytest.raises(ChronicumNotFoundError):
            store.record_once(make_actum("diary"), "k", owner_id="mallory")
        assert store.acta("diary", owner_id="alice") == []

    def test_keys_are_scoped_per_chronicum(self, mine: OwnerView) -> None:
        a, b = self.new_chronicum(mine, "a"), self.new_chronicum(mine, "b")
        in_a = mine.record_once(make_actum(a, "same key"), "k")
        in_b = mine.record_once(make_actum(b, "same key"), "k")
        assert in_a.id != in_b.id
        assert mine.acta(a) == [in_a]
        assert mine.acta(b) == [in_b]

    def test_different_keys_store_separately_in_order(self, mine: OwnerView) -> None:
        cid = self.new_chronicum(mine)
        plain = mine.record(make_actum(cid, "plain"))
        one = mine.record_once(make_actum(cid, "one"), "k1")
        two = mine.record_once(make_actum(cid, "two"), "k2")
        mine.record_once(make_actum(cid, "one again"), "k1")
        assert ids(mine.acta(cid)) == [plain.id, one.id, two.id]

    def test_keyed_record_into_a_missing_chronicum_is_not_found(self, mine: OwnerView) -> None:
        with pytest.raises(ChronicumNotFoundError):
            mine.record_once(make_actum("c-missing"), "k")

    def test_concurrent_writes_with_one_key_store_exactly_one(self, mine: OwnerView) -> None:
        cid = self.new_chronicum(mine)
        results = run_together(
            self.CONCURRENT_WRITERS,
            lambda i: mine.record_once(make_actum(cid, f"attempt {i}"), "the-key"),
        )
        stored = mine.acta(cid)
        assert len(stored) == 1
        assert len(results) == self.CONCURRENT_WRITERS
        assert all(result == stored[0] for result in results)
