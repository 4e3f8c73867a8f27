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


class TestSQLiteStore(StoreContract):
    @pytest.fixture
    def store(self, tmp_path: Path) -> Iterator[SQLiteStore]:
        with SQLiteStore(tmp_path / "chronica.db") as store:
            yield store


class TestSQLiteStoreIdempotency(IdempotentStoreContract):
    @pytest.fixture
    def store(self, tmp_path: Path) -> Iterator[SQLiteStore]:
        with SQLiteStore(tmp_path / "chronica.db") as store:
            yield store


class TestSQLiteStoreBatches(BatchStoreContract):
    @pytest.fixture
    def store(self, tmp_path: Path) -> Iterator[SQLiteStore]:
        with SQLiteStore(tmp_path / "chronica.db") as store:
            yield store


class TestSQLiteStoreRestore(RestorableStoreContract):
    @pytest.fixture
    def store(self, tmp_path: Path) -> Iterator[SQLiteStore]:
        with SQLiteStore(tmp_path / "chronica.db") as store:
            yield store


class TestSQLiteStoreBrowsing(BrowsableStoreContract):
    @pytest.fixture
    def store(self, tmp_path: Path) -> Iterator[SQLiteStore]:
        with SQLiteStore(tmp_path / "chronica.db") as store:
            yield store


class TestSQLiteStoreErasing(ErasableStoreContract):
    @pytest.fixture
    def store(self, tmp_path: Path) -> Iterator[SQLiteStore]:
        with SQLiteStore(tmp_path / "chronica.db") as store:
            yield store


class TestSQLiteStoreTail(TailStoreContract):
    @pytest.fixture
    def store(self, tmp_path: Path) -> Iterator[SQLiteStore]:
        with SQLiteStore(tmp_path / "chronica.db") as store:
            yield store


class TestSQLiteStoreBuildingActaByConstructor(StoreContract):
    """The fallback used if Actum ever stops being a plain slotted record."""

    @pytest.fixture
    def store(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SQLiteStore]:
        monkeypatch.setattr(_model, "ACTUM_DIRECT", False)  # build_actum, used on writes too
        monkeypatch.setattr(_sqlite_rows, "ACTUM_DIRECT", False)
        with SQLiteStore(tmp_path / "chronica.db") as store:
            yield store
