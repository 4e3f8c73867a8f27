"""The in-memory store passes the full store contract."""

from chronica.storeconformance import IdempotentStoreContract, StoreContract
from chronica.stores.inmemory import InMemoryStore


class TestInMemoryStore(StoreContract):
    def make_store(self) -> InMemoryStore:
        return InMemoryStore()


class TestInMemoryStoreIdempotency(IdempotentStoreContract):
    def make_store(self) -> InMemoryStore:
        return InMemoryStore()
