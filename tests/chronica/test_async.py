"""AsyncChronicarius: the same rules, as coroutines."""

from __future__ import annotations

import asyncio

import pytest

from chronica import (
    ActorKind,
    Actum,
    ActumKind,
    AsyncChronicarius,
    ChronicumNotFoundError,
    EmptyOwnerIDError,
)
from chronica.stores.inmemory import InMemoryStore


def _message(content: str) -> Actum:
    return Actum(
        chronicum_id="dinner",
        kind=ActumKind.MESSAGE,
        actor_kind=ActorKind.AGENT,
        actor="concierge",
        content=content,
    )


def test_async_round_trip_with_concurrent_retries() -> None:
    async def scenario() -> None:
        c = AsyncChronicarius(InMemoryStore())
        first = await c.record_actum("ardian", _message("hello"))
        replies = await asyncio.gather(
            *(
                c.record_actum("ardian", _message(f"try {i}"), idempotency_key="r")
                for i in range(20)
            )
        )
        assert len({r.id for r in replies}) == 1
        window = await c.get_acta("ardian", "dinner", last_n=5)
        assert [a.id for a in window] == [first.id, replies[0].id]
        assert (await c.get_chronicum("ardian", "dinner")).owner_id == "ardian"
        with pytest.raises(ChronicumNotFoundError):
            await c.get_acta("mallory", "dinner")
        with pytest.raises(EmptyOwnerIDError):
            await c.record_actum("", _message("x"))

    asyncio.run(scenario())


def test_async_batch_append_is_one_call_and_retry_safe() -> None:
    async def scenario() -> None:
        c = AsyncChronicarius(InMemoryStore())
        turn = (_message(f"part {i}") for i in range(3))  # a generator, read before the hop
        stored = await c.record_acta("ardian", turn, idempotency_keys=["a", "b", "c"])
        again = await c.record_acta(
            "ardian",
            [_message("x"), _message("y"), _message("z")],
            idempotency_keys=["a", "b", "c"],
        )
        assert [a.id for a in again] == [a.id for a in stored]
        window = await c.get_acta("ardian", "dinner")
        assert [a.content for a in window] == ["part 0", "part 1", "part 2"]

    asyncio.run(scenario())
