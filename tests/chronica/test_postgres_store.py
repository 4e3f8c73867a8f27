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


class PostgresStoreFixture:
    """The store every contract class below runs on: a schema of its own per test."""

    @pytest.fixture
    def store(self, pg_dsn: str, pg_schema: str) -> Iterator[PostgresStore]:
        with PostgresStore(pg_dsn, schema=pg_schema) as store:
            yield store


class TestPostgresStore(PostgresStoreFixture, StoreContract):
    pass


class TestPostgresStoreIdempotency(PostgresStoreFixture, IdempotentStoreContract):
    pass


class TestPostgresStoreBatches(PostgresStoreFixture, BatchStoreContract):
    pass


class TestPostgresStoreRestore(PostgresStoreFixture, RestorableStoreContract):
    pass


class TestPostgresStoreBrowsing(PostgresStoreFixture, BrowsableStoreContract):
    pass


class TestPostgresStoreErasing(PostgresStoreFixture, ErasableStoreContract):
    pass


class TestPostgresStoreTail(PostgresStoreFixture, TailStoreContract):
    pass
