"""Erasing an owner, or one chronicum of theirs, for stores that are
:class:`chronica.ErasableStore`.

The storage half only (:meth:`chronica.Chronicarius.erase_owner` validates the owner): the
owner's chronica and acta are gone for every reader, counted exactly, and nobody else's is
touched, even a chronicum of the same ID. Whether the bytes are gone too is each backend's
to prove (SQLite's test reads the files).
"""

from __future__ import annotations

import pytest

from chronica._errors import ChronicumNotFoundError
from chronica._model import ChronicaCounts
from chronica.store import BrowsableStore, ErasableStore

from ._base import OWNER, ContractBase, OwnerView, make_actum

__all__ = ["ErasableStoreContract"]


class ErasableStoreContract(ContractBase):
    """Erasing an owner: see :class:`chronica.ErasableStore`."""

    def test_store_is_an_erasable_store(self, store: ErasableStore) -> None:
        assert isinstance(store, ErasableStore)

    def test_erasing_removes_the_owners_chronica_and_acta_and_counts_them(
        self, store: ErasableStore, mine: OwnerView
    ) -> None:
        for name, n in (("lunch", 3), ("empty", 0), ("dinner", 4)):
            mine.create(name)
            for i in range(n):
                mine.record(make_actum(name, f"{name} {i}"))
        assert store.erase_owner(owner_id=OWNER) == ChronicaCounts(chronica=3, acta=7)
        for name in ("lunch", "empty", "dinner"):
            with pytest.raises(ChronicumNotFoundError):
                mine.get(name)
            with pytest.raises(ChronicumNotFoundError):
                mine.acta(name)
        if isinstance(store, BrowsableStore):
            assert store.chronica_page(owner_id=OWNER, limit=10) == []
            assert store.counts(owner_id=OWNER) == ChronicaCounts(chronica=0, acta=0)

    def test_nobody_elses_chronica_are_touched(self, store: ErasableStore, mine: OwnerView) -> None:
        theirs = OwnerView(store, "alice")
        for view in (mine, theirs):
            view.create("lunch")
            view.record(make_actum("lunch", f"{view.owner_id} was here"))
        kept = theirs.acta("lunch")
        store.erase_owner(owner_id=OWNER)
        assert theirs.acta("lunch") == kept
        assert theirs.get("lunch").owner_id == "alice"

    def test_erasing_again_removes_nothing(self, store: ErasableStore, mine: OwnerView) -> None:
        mine.create("lunch")
        mine.record(make_actum("lunch"))
        store.erase_owner(owner_id=OWNER)
        assert store.erase_owner(owner_id=OWNER) == ChronicaCounts(chronica=0, acta=0)
        assert store.erase_owner(owner_id="never-wrote") == ChronicaCounts(chronica=0, acta=0)

    def test_an_erased_owner_starts_afresh(self, store: ErasableStore, mine: OwnerView) -> None:
        mine.create("lunch")
        erased = mine.record(make_actum("lunch", "before"))
        store.erase_owner(owner_id=OWNER)
        mine.create("lunch")
        again = mine.record(make_actum("lunch", "after"))
        assert mine.acta("lunch") == [again]
        assert again.id != erased.id

    def test_erasing_a_chronicum_removes_it_and_its_acta_alone(
        self, store: ErasableStore, mine: OwnerView
    ) -> None:
        theirs = OwnerView(store, "alice")
        for view in (mine, theirs):
            for name in ("lunch", "dinner"):
                view.create(name)
                for i in range(3):
                    view.record(make_actum(name, f"{view.owner_id} {name} {i}"))
        kept = {(v.owner_id, n): v.acta(n) for v in (mine, theirs) for n in ("lunch", "dinner")}
        erased = store.erase_chronicum("lunch", owner_id=OWNER)
        assert erased == ChronicaCounts(chronica=1, acta=3)
        with pytest.raises(ChronicumNotFoundError):
            mine.get("lunch")
        with pytest.raises(ChronicumNotFoundError):
            mine.acta("lunch")
        assert mine.acta("dinner") == kept[(OWNER, "dinner")]
        assert theirs.acta("lunch") == kept[("alice", "lunch")]
        if isinstance(store, BrowsableStore):
            assert store.counts(owner_id=OWNER) == ChronicaCounts(chronica=1, acta=3)
            ids = [s.chronicum.id for s in store.chronica_page(owner_id=OWNER, limit=10)]
            assert ids == ["dinner"]

    def test_erasing_a_chronicum_again_removes_nothing_and_its_id_starts_afresh(
        self, store: ErasableStore, mine: OwnerView
    ) -> None:
        mine.create("lunch")
        before = mine.record(make_actum("lunch", "before"))
        store.erase_chronicum("lunch", owner_id=OWNER)
        assert store.erase_chronicum("lunch", owner_id=OWNER) == ChronicaCounts(chronica=0, acta=0)
        assert store.erase_chronicum("never", owner_id=OWNER) == ChronicaCounts(chronica=0, acta=0)
        mine.create("lunch")
        again = mine.record(make_actum("lunch", "after"))
        assert mine.acta("lunch") == [again]
        assert before.id != again.id
