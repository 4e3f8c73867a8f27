"""SQLiteStore passes the full store contract on a fresh file per test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from chronica.storeconformance import IdempotentStoreContract, StoreContract
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
