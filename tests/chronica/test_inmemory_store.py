"""The in-memory store passes the full store contract, restores included."""

from chronica.storeconformance import (
    BatchStoreContract,
    BrowsableStoreContract,
    ErasableStoreContract,
    IdempotentStoreContract,
    RestorableStoreContract,
    StoreContract,
    TailStoreContract,
)
from chronica.stores.inmemory import InMemoryStore


class TestInMemoryStore(StoreContract):
    def make_store(self) -> InMemoryStore:
        return InMemoryStore()


class TestInMemoryStoreIdempotency(IdempotentStoreContract):
    def make_store(self) -> InMemoryStore:
        return InMemoryStore()


class TestInMemoryStoreRestore(RestorableStoreContract):
    def make_store(self) -> InMemoryStore:
        return InMemoryStore()


class TestInMemoryStoreBatches(BatchStoreContract):
    def make_store(self) -> InMemoryStore:
        return InMemoryStore()


class TestInMemoryStoreBrowsing(BrowsableStoreContract):
    def make_store(self) -> InMemoryStore:
        return InMemoryStore()


class TestInMemoryStoreErasing(ErasableStoreContract):
    def make_store(self) -> InMemoryStore:
        return InMemoryStore()


class TestInMemoryStoreTail(TailStoreContract):
    def make_store(self) -> InMemoryStore:
        return InMemoryStore()
