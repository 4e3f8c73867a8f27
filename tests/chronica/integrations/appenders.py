"""Writers for the many-process tests of ``ChronicaSession``; imports no agent framework.

Each writer opens its own store, waits for the start signal, then appends its items through
the adapter in batches. One of its calls fails after the store has committed it (the
acknowledgement is lost, as when a connection drops after a commit) and is retried.
"""

from __future__ import annotations

import asyncio
import traceback
from collections.abc import Sequence
from multiprocessing.connection import Connection
from typing import Any, Protocol, cast

from chronica import Actum, StoreError
from chronica.integrations.openai_agents import ChronicaSession
from chronica.stores.postgres import PostgresStore
from chronica.stores.sqlite import SQLiteStore

__all__ = ["LostAck", "LostAckPostgresStore", "LostAckStore", "PerItem", "writer"]

OWNER, SESSION = "ardian", "dinner-friday"


class _KeyedWrites(Protocol):
    """The two writes of a store that :class:`LostAck` makes lose their acknowledgement."""

    def record_once(self, actum: Actum, idempotency_key: str, *, owner_id: str) -> Actum: ...

    def record_many(
        self,
        acta: Sequence[Actum],
        *,
        owner_id: str,
        idempotency_keys: Sequence[str] | None = None,
    ) -> list[Actum]: ...


class LostAck:
    """Before a store class in the bases: its ``fail_at``-th keyed write is stored, then fails."""

    fail_at = -1
    writes = 0

    def record_once(self, actum: Actum, idempotency_key: str, *, owner_id: str) -> Actum:
        store = cast(_KeyedWrites, super())  # the store class after this one in the MRO
        stored = store.record_once(actum, idempotency_key, owner_id=owner_id)
        self.writes += 1
        if self.writes == self.fail_at:
            raise StoreError("connection lost after the commit")
        return stored

    def record_many(
        self,
        acta: Sequence[Actum],
        *,
        owner_id: str,
        idempotency_keys: Sequence[str] | None = None,
    ) -> list[Actum]:
        """The whole batch is committed; if it held the ``fail_at``-th write, the ack is lost."""
        store = cast(_KeyedWrites, super())
        stored = store.record_many(acta, owner_id=owner_id, idempotency_keys=idempotency_keys)
        before, self.writes = self.writes, self.writes + len(acta)
        if before < self.fail_at <= self.writes:
            raise StoreError("connection lost after the commit")
        return stored


class LostAckStore(LostAck, SQLiteStore):
    """A SQLite store whose ``fail_at``-th keyed write is stored, then reported as failed."""


class LostAckPostgresStore(LostAck, PostgresStore):
    """The same failure, on PostgreSQL."""


class PerItem:
    """``inner`` without its batch method: a store on which each item is its own write.

    Through it the adapter takes chronica's per-actum fallback, where a failed call can have
    stored part of its items, which its retry must complete without storing any twice.
    """

    def __init__(self, inner: SQLiteStore) -> None:
        self.inner = inner

    def create(self, chronicum_id: str, *, owner_id: str) -> Any:
        return self.inner.create(chronicum_id, owner_id=owner_id)

    def get(self, chronicum_id: str, *, owner_id: str) -> Any:
        return self.inner.get(chronicum_id, owner_id=owner_id)

    def record(self, actum: Actum, *, owner_id: str) -> Actum:
        return self.inner.record(actum, owner_id=owner_id)

    def record_once(self, actum: Actum, idempotency_key: str, *, owner_id: str) -> Actum:
        return self.inner.record_once(actum, idempotency_key, owner_id=owner_id)

    def acta(self, chronicum_id: str, *, owner_id: str, **kwargs: Any) -> list[Actum]:
        return self.inner.acta(chronicum_id, owner_id=owner_id, **kwargs)


def items(name: str, count: int) -> list[dict[str, Any]]:
    """The user messages writer ``name`` appends, in order."""
    return [{"role": "user", "content": f"{name}:{i}"} for i in range(count)]


async def append_all(session: ChronicaSession, batch_items: list[dict[str, Any]]) -> int:
    """Append in batches of three, retrying a failed call once; return how many failed."""
    failures = 0
    for start in range(0, len(batch_items), 3):
        batch = batch_items[start : start + 3]
        try:
            await session.add_items(batch)  # type: ignore[arg-type]  # plain dicts
        except StoreError:
            failures += 1
            await session.add_items(batch)  # type: ignore[arg-type]  # the retry
    return failures


def writer(spec: dict[str, str], name: str, count: int, pipe: Connection) -> None:
    """Open the store, wait for the start signal, append ``count`` items, report failures."""
    try:
        store: SQLiteStore | PostgresStore
        if spec["backend"] == "sqlite":
            store = LostAckStore(spec["path"])
        else:
            store = LostAckPostgresStore(spec["dsn"], schema=spec["schema"], max_size=1)
        store.fail_at = 5  # the second batch fails with two of its three items stored
        session = ChronicaSession(SESSION, owner=OWNER, store=store)
        pipe.send("ready")
        pipe.recv()
        pipe.send(asyncio.run(append_all(session, items(name, count))))
        store.close()
    except BaseException:
        pipe.send(("error", traceback.format_exc()))
        raise
