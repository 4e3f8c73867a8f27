"""Restoring exported acta, for stores that are :class:`chronica.RestorableStore`.

The store gets batches that :meth:`chronica.Chronicarius.restore` has already validated, so
these tests are about the storage half only: everything kept as exported, appended in order,
idempotent, scoped by owner, and all or nothing.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone

import pytest

from chronica._errors import ChronicaError, ChronicumNotFoundError, DuplicateActumError
from chronica._model import Actum, Chronicum
from chronica.store import RestorableStore

from ._base import OWNER, ContractBase, OwnerView, ids, make_actum

__all__ = ["RestorableStoreContract"]

_LONG_AGO = datetime(2024, 5, 17, 19, 30, 0, 123456, tzinfo=timezone.utc)


def _exported(chronicum_id: str, n: int, *, owner_id: str = OWNER) -> tuple[Chronicum, list[Actum]]:
    """A chronicum and ``n`` acta as an export holds them: old times, IDs already minted."""
    chronicum = Chronicum(id=chronicum_id, owner_id=owner_id, created_at=_LONG_AGO)
    acta = [
        dataclasses.replace(
            make_actum(chronicum_id, f"{chronicum_id} {i}", metadata={"i": i, "tags": ["x"]}),
            at=_LONG_AGO + timedelta(seconds=i),
        )
        for i in range(n)
    ]
    return chronicum, acta


def _restore(store: RestorableStore, chronica: Sequence[Chronicum], acta: Sequence[Actum]) -> int:
    return store.restore(chronica, acta, owner_id=chronica[0].owner_id)


class RestorableStoreContract(ContractBase):
    """The storage half of an import: see :meth:`chronica.RestorableStore.restore`."""

    def test_store_is_a_restorable_store(self, store: RestorableStore) -> None:
        assert isinstance(store, RestorableStore)

    def test_restore_keeps_ids_times_metadata_and_order(
        self, store: RestorableStore, mine: OwnerView
    ) -> None:
        (a, in_a), (b, in_b) = _exported("a", 30), _exported("b", 3)
        assert _restore(store, [a, b], [*in_b[:1], *in_a, *in_b[1:]]) == 33
        assert mine.get("a") == a
        assert mine.get("b") == b
        assert mine.acta("a") == in_a
        assert mine.acta("b") == in_b
        assert mine.acta("a", last_n=2) == in_a[-2:]

    def test_restoring_twice_changes_nothing(self, store: RestorableStore, mine: OwnerView) -> None:
        chronicum, acta = _exported("a", 5)
        _restore(store, [chronicum], acta)
        assert _restore(store, [chronicum], acta) == 0
        assert mine.acta("a") == acta

    def test_restored_acta_follow_those_already_there_and_precede_new_ones(
        self, store: RestorableStore, mine: OwnerView
    ) -> None:
        existing = mine.create("a")
        before = mine.record(make_actum("a", "before"))
        chronicum, acta = _exported("a", 3)
        assert _restore(store, [chronicum], acta) == 3
        after = mine.record(make_actum("a", "after"))
        assert ids(mine.acta("a")) == ids([before, *acta, after])
        assert mine.get("a") == existing  # an existing chronicum keeps its created_at

    def test_restore_is_scoped_by_owner(self, store: RestorableStore) -> None:
        hers, his = _exported("lunch", 2, owner_id="alice"), _exported("lunch", 3, owner_id="bob")
        _restore(store, [hers[0]], hers[1])
        _restore(store, [his[0]], his[1])
        assert OwnerView(store, "alice").acta("lunch") == hers[1]
        assert OwnerView(store, "bob").acta("lunch") == his[1]

    def test_an_id_stored_elsewhere_refuses_the_whole_batch(
        self, store: RestorableStore, mine: OwnerView
    ) -> None:
        elsewhere = OwnerView(store, "alice")
        elsewhere.create("hers")
        taken = elsewhere.record(make_actum("hers", "already here"))
        new, acta = _exported("new", 3)
        existing, more = _exported("existing", 2)
        mine.create("existing")
        clash = dataclasses.replace(acta[-1], id=taken.id)
        with pytest.raises(DuplicateActumError):
            _restore(store, [existing, new], [*more, *acta[:-1], clash])
        with pytest.raises(ChronicumNotFoundError):
            mine.get("new")
        assert mine.acta("existing") == []
        assert elsewhere.acta("hers") == [taken]

    def test_an_actum_without_its_chronicum_refuses_the_whole_batch(
        self, store: RestorableStore, mine: OwnerView
    ) -> None:
        chronicum, acta = _exported("a", 2)
        _, orphans = _exported("nowhere", 1)
        with pytest.raises(ChronicaError):
            _restore(store, [chronicum], [*acta, *orphans])
        with pytest.raises(ChronicumNotFoundError):
            mine.get("a")
