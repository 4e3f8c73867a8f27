"""PostgresStore passes the full store contract, each test in its own schema."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from chronica.storeconformance import (
    BatchStoreContract,
    BrowsableStoreContract,
    ErasableStoreContract,
    IdempotentStoreContract,
    RestorableStoreContract,
    StoreContract,
    TailStoreContract,
)
from chronica.stores.postgres import PostgresStore

pytestmark = pytest.mark.postgres


class TestPostgresStore(StoreContract):
    @pytest.fixture
    def store(self, pg_dsn: str, pg_schema: str) -> Iterator[PostgresStore]:
        with PostgresStore(pg_dsn, schema=pg_schema) as store:
            yield store


class TestPostgresStoreIdempotency(IdempotentStoreContract):
    @pytest.fixture
    def store(self, pg_dsn: str, pg_schema: str) -> Iterator[PostgresStore]:
        with PostgresStore(pg_dsn, schema=pg_schema) as store:
            yield store


class TestPostgresStoreBatches(BatchStoreContract):
    @pytest.fixture
    def store(self, pg_dsn: str, pg_schema: str) -> Iterator[PostgresStore]:
        with PostgresStore(pg_dsn, schema=pg_schema) as store:
            yield store


class TestPostgresStoreRestore(RestorableStoreContract):
    @pytest.fixture
    def store(self, pg_dsn: str, pg_schema: str) -> Iterator[PostgresStore]:
        with PostgresStore(pg_dsn, schema=pg_schema) as store:
            yield store


class TestPostgresStoreBrowsing(BrowsableStoreContract):
    @pytest.fixture
    def store(self, pg_dsn: str, pg_schema: str) -> Iterator[PostgresStore]:
        with PostgresStore(pg_dsn, schema=pg_schema) as store:
            yield store


class TestPostgresStoreErasing(ErasableStoreContract):
    @pytest.fixture
    def store(self, pg_dsn: str, pg_schema: str) -> Iterator[PostgresStore]:
        with PostgresStore(pg_dsn, schema=pg_schema) as store:
            yield store


class TestPostgresStoreTail(TailStoreContract):
    @pytest.fixture
    def store(self, pg_dsn: str, pg_schema: str) -> Iterator[PostgresStore]:
        with PostgresStore(pg_dsn, schema=pg_schema) as store:
            yield store
