"""The read after a session's own write asks the store for just what it wrote and one more
(the agent loop's pattern), and still sees every other writer's acta, wherever they fall."""

from __future__ import annotations

import asyncio
from typing import Any

from chronica import Actum, Chronicarius
from chronica.integrations.openai_agents import ChronicaSession
from chronica.stores.inmemory import InMemoryStore

OWNER, SID = "ardian", "dinner-friday"


class Counting(InMemoryStore):
    """An in-memory store that records the ``last_n`` of every window read."""

    def __init__(self) -> None:
        super().__init__()
        self.windows: list[int] = []

    def acta(
        self, chronicum_id: str, *, owner_id: str, last_n: int = 0, **kinds: Any
    ) -> list[Actum]:
        self.windows.append(last_n)
        return super().acta(chronicum_id, owner_id=owner_id, last_n=last_n, **kinds)


def _says(*texts: str) -> list[Any]:
    return [{"role": "user", "content": text} for text in texts]


def _other(store: InMemoryStore, text: str) -> None:
    """Another agent's session object (another process, say) appends an item."""
    asyncio.run(ChronicaSession(SID, owner=OWNER, store=store).add_items(_says(text)))


def test_the_read_after_a_turn_fetches_the_turn_and_one_more_in_one_call() -> None:
    store = Counting()
    session = ChronicaSession(SID, owner=OWNER, store=store)

    async def loop() -> None:
        await session.add_items(_says("a", "b"))
        assert await session.get_items(limit=20) == _says("a", "b")
        for turn in range(3):
            store.windows.clear()
            await session.add_items(_says(*(f"{turn}.{i}" for i in range(5))))
            got = await session.get_items(limit=20)
            assert got[-5:] == _says(*(f"{turn}.{i}" for i in range(5)))
            assert store.windows == [6]
        await session.pop_item()
        await session.clear_session()
        store.windows.clear()
        assert await session.get_items() == []
        assert store.windows == [3]  # the retraction and the clear marker, and one more

    asyncio.run(loop())


def test_another_writers_acta_before_between_or_after_its_own_are_read() -> None:
    store = InMemoryStore()
    session = ChronicaSession(SID, owner=OWNER, store=store)
    asyncio.run(session.add_items(_says("mine 1")))
    asyncio.run(session.get_items())
    expected = _says("mine 1")
    for where in ("before", "after", "both"):
        if where in ("before", "both"):
            _other(store, f"theirs {where} 1")
            expected += _says(f"theirs {where} 1")
        asyncio.run(session.add_items(_says(f"mine {where}")))
        expected += _says(f"mine {where}")
        if where in ("after", "both"):
            _other(store, f"theirs {where} 2")
            expected += _says(f"theirs {where} 2")
        assert asyncio.run(session.get_items()) == expected
        assert asyncio.run(session.get_items(limit=2)) == expected[-2:]
    # The record holds every one, in the order it was written.
    assert len(Chronicarius(store).get_acta(OWNER, SID)) == len(expected)


def test_a_retry_that_stores_nothing_new_is_read_right() -> None:
    store = InMemoryStore()
    session = ChronicaSession(SID, owner=OWNER, store=store)
    asyncio.run(session.add_items(_says("a")))
    asyncio.run(session.get_items())
    # A retried call returns the acta stored the first time: not the newest, not news.
    session._log.wrote(Chronicarius(store).get_acta(OWNER, SID))
    _other(store, "b")
    assert asyncio.run(session.get_items()) == _says("a", "b")
