"""Items of a shape the adapter does not know are kept as opaque items, not refused: the SDK's
``EncryptedSession`` over ``ChronicaSession`` round-trips, and so does any JSON object a later
SDK may store, still never lost, still the owner's only, and never a message a memory indexes."""

from __future__ import annotations

import asyncio
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agents.extensions.memory import EncryptedSession

from chronica import ActorKind, ActumKind, Chronicarius, ChronicumNotFoundError, Store
from chronica.integrations.openai_agents import ChronicaSession
from chronica.stores.inmemory import InMemoryStore
from chronica.stores.postgres import PostgresStore
from chronica.stores.sqlite import SQLiteStore
from chronomem import ChronoMem

OWNER, SID = "ardian", "dinner-friday"
KEY = "a high-entropy key for the tests, not a secret"

UNKNOWN: list[Any] = [
    {"__enc__": 1, "v": 1, "kid": "hkdf-v1", "payload": "gAAAAAB..."},  # no type, no role
    {"type": "telepathy", "thought": "Kinara at 7pm", "nested": {"b": [1, 2.5, None], "a": True}},
    {"type": 7, "content": "a type that is a number"},
    {"role": "tool", "content": "a role no reader knows"},
    {"z": "keys keep their order", "a": "é ✓ \U0001f600", "m": [{"text": "x" * 70_000}]},
    {},
]


@pytest.fixture(params=["memory", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "memory":
        yield InMemoryStore()
    elif request.param == "sqlite":
        with SQLiteStore(tmp_path / "chronica.db") as sqlite:
            yield sqlite
    else:
        dsn, schema = request.getfixturevalue("pg_dsn"), request.getfixturevalue("pg_schema")
        with PostgresStore(dsn, schema=schema) as postgres:
            yield postgres


def _abc(session: ChronicaSession) -> Any:
    """The session as EncryptedSession's annotation wants it: the SDK types its wrappers'
    argument as its internal ``SessionABC``, though it asks third parties to implement the
    ``Session`` protocol (as ChronicaSession does) and calls only the protocol's methods."""
    return session


def _run(coroutine: typing.Coroutine[Any, Any, Any]) -> Any:
    return asyncio.run(coroutine)


def test_encrypted_session_over_chronica_session_round_trips(store: Store) -> None:
    items: list[Any] = [
        {"role": "user", "content": "A table for four, please."},
        {"type": "function_call", "call_id": "c1", "name": "book", "arguments": '{"n": 4}'},
        {"type": "function_call_output", "call_id": "c1", "output": "Kinara, 7pm"},
        {"role": "assistant", "content": "Booked Kinara at 7pm."},
    ]

    async def converse() -> None:
        inner = ChronicaSession(SID, owner=OWNER, store=store)
        session = EncryptedSession(SID, underlying_session=_abc(inner), encryption_key=KEY, ttl=600)
        await session.add_items(items[:2])
        await session.add_items(items[2:])
        assert await session.get_items() == items
        assert await session.get_items(limit=2) == items[2:]
        assert await session.pop_item() == items[-1]
        assert await session.get_items() == items[:-1]
        # A session opened afresh on the same key reads it back from the store.
        again = ChronicaSession(SID, owner=OWNER, store=store)
        reopened = EncryptedSession(
            SID, underlying_session=_abc(again), encryption_key=KEY, ttl=600
        )
        assert await reopened.get_items() == items[:-1]
        # What the store holds is ciphertext: no item's text is in it.
        stored = [a.content + str(a.metadata) for a in Chronicarius(store).get_acta(OWNER, SID)]
        assert not any("Kinara" in text for text in stored)

    _run(converse())


@pytest.mark.parametrize("item", UNKNOWN, ids=range(len(UNKNOWN)))
def test_an_item_of_an_unknown_shape_round_trips_exactly(store: Store, item: Any) -> None:
    session = ChronicaSession(SID, owner=OWNER, store=store)
    batch = [{"role": "user", "content": "before"}, item, {"role": "user", "content": "after"}]
    _run(session.add_items(batch))
    for reader in (session, ChronicaSession(SID, owner=OWNER, store=store)):
        got = _run(reader.get_items())
        assert got == batch
        assert [list(i) for i in got] == [list(i) for i in batch]  # key order too
    assert _run(session.pop_item()) == batch[2]
    assert _run(session.pop_item()) == item


def test_an_opaque_item_is_a_system_thought_of_the_owner_only() -> None:
    store = InMemoryStore()
    _run(ChronicaSession(SID, owner=OWNER, store=store).add_items([UNKNOWN[0]]))
    (actum,) = Chronicarius(store).get_acta(OWNER, SID)
    assert (actum.kind, actum.actor_kind) == (ActumKind.THOUGHT, ActorKind.SYSTEM)
    with pytest.raises(ChronicumNotFoundError):
        Chronicarius(store).get_acta("mallory", SID)
    assert _run(ChronicaSession(SID, owner="mallory", store=store).get_items()) == []


def test_an_opaque_item_never_becomes_an_episode(tmp_path: Path) -> None:
    with SQLiteStore(tmp_path / "c.db") as store, ChronoMem(tmp_path / "m.db", owner=OWNER) as mem:
        session = ChronicaSession(SID, owner=OWNER, store=store, memory=mem)
        encrypted = EncryptedSession(SID, underlying_session=_abc(session), encryption_key=KEY)
        _run(encrypted.add_items([{"role": "user", "content": "A quiet table in Kemang?"}]))
        _run(session.add_items([*UNKNOWN[1:4], {"role": "user", "content": "Kinara at 7pm."}]))
        episodes = [
            r["content"]
            for r in mem.export_facts()
            if r["kind"] == "episode" and not r["forgotten"]
        ]
        assert episodes == ["Kinara at 7pm."]
