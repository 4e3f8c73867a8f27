"""SQLiteStore passes the full store contract on a fresh file per test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from chronica import _model
from chronica.storeconformance import (
    BatchStoreContract,
    BrowsableStoreContract,
    ErasableStoreContract,
    IdempotentStoreContract,
    RestorableStoreContract,
    StoreContract,
    TailStoreContract,
)
from chronica.stores import _sqlite_rows
from chronica.stores.sqlite import SQLiteStore


class SQLiteStoreFixture:
    """The store every contract class below runs on: a fresh file per test."""

    @pytest.fixture
    def store(self, tmp_path: Path) -> Iterator[SQLiteStore]:
        with SQLiteStore(tmp_path / "chronica.db") as store:
            yield store


class TestSQLiteStore(SQLiteStoreFixture, StoreContract):
    pass


class TestSQLiteStoreIdempotency(SQLiteStoreFixture, IdempotentStoreContract):
    pass


class TestSQLiteStoreBatches(SQLiteStoreFixture, BatchStoreContract):
    pass


class TestSQLiteStoreRestore(SQLiteStoreFixture, RestorableStoreContract):
    pass


class TestSQLiteStoreBrowsing(SQLiteStoreFixture, BrowsableStoreContract):
    pass


class TestSQLiteStoreErasing(SQLiteStoreFixture, ErasableStoreContract):
    pass


class TestSQLiteStoreTail(SQLiteStoreFixture, TailStoreContract):
    pass


class TestSQLiteStoreBuildingActaByConstructor(SQLiteStoreFixture, StoreContract):
    """The fallback used if Actum ever stops being a plain slotted record."""

    @pytest.fixture(autouse=True)
    def by_constructor(self, monkeypatch: pytest.MonkeyPatch) -> None:
        # autouse, so it runs before the store opens
        monkeypatch.setattr(_model, "ACTUM_DIRECT", False)  # build_actum, used on writes too
        monkeypatch.setattr(_sqlite_rows, "ACTUM_DIRECT", False)
