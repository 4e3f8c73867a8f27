"""Naming the newest acta by ID, for stores that are :class:`chronica.TailStore`.

A reader trusts these IDs to decide that nothing but its own write was appended, so they
must be exactly the IDs of what :meth:`chronica.Store.acta` returns, in its order.
"""

from __future__ import annotations

import pytest

from chronica._errors import ChronicumNotFoundError
from chronica.store import TailStore

from ._base import OWNER, ContractBase, OwnerView, ids, make_actum

__all__ = ["TailStoreContract"]


class TailStoreContract(ContractBase):
    """``acta_ids``: the IDs of ``acta(last_n=...)``, oldest first, owner by owner."""

    def test_store_is_a_tail_store(self, store: TailStore) -> None:
        assert isinstance(store, TailStore)

    def test_the_ids_are_those_of_the_window_in_its_order(
        self, store: TailStore, mine: OwnerView
    ) -> None:
        cid = self.new_chronicum(mine)
        assert store.acta_ids(cid, owner_id=OWNER) == []
        for i in range(7):
            mine.record(make_actum(cid, f"item {i}"))
        for last_n in (0, 1, 2, 6, 7, 50):
            assert store.acta_ids(cid, owner_id=OWNER, last_n=last_n) == ids(
                mine.acta(cid, last_n=last_n)
            )

    def test_a_missing_or_another_owners_chronicum_is_not_found(
        self, store: TailStore, mine: OwnerView
    ) -> None:
        cid = self.new_chronicum(mine)
        mine.record(make_actum(cid, "mine"))
        with pytest.raises(ChronicumNotFoundError):
            store.acta_ids("never-created", owner_id=OWNER)
        with pytest.raises(ChronicumNotFoundError):
            store.acta_ids(cid, owner_id="someone-else", last_n=1)
