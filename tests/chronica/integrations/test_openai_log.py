"""The read after a session's own write asks the store for just what it wrote and one more
(the agent loop's pattern), and still sees every other writer's acta, wherever they fall."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from chronica import Actum, Chronicarius, TailStore
from chronica.integrations._openai_log import decoded
from chronica.integrations.openai_agents import ChronicaSession
from chronica.stores.inmemory import InMemoryStore

OWNER, SID = "ardian", "dinner-friday"


class Counting(InMemoryStore):
    """An in-memory store that records every window read: ``("acta", last_n)`` for acta,
    ``("ids", last_n)`` for their IDs alone."""

    def __init__(self) -> None:
        super().__init__()
        self.windows: list[tuple[str, int]] = []

    def acta(
        self, chronicum_id: str, *, owner_id: str, last_n: int = 0, **kinds: Any
    ) -> list[Actum]:
        self.windows.append(("acta", last_n))
        return super().acta(chronicum_id, owner_id=owner_id, last_n=last_n, **kinds)

    def acta_ids(self, chronicum_id: str, *, owner_id: str, last_n: int = 0) -> list[str]:
        self.windows.append(("ids", last_n))
        return super().acta_ids(chronicum_id, owner_id=owner_id, last_n=last_n)


class CountingWithoutIDs(Counting):
    """The same store without ``acta_ids``: not a :class:`chronica.TailStore`."""

    acta_ids = None  # type: ignore[assignment]  # how a protocol member is taken away


def _says(*texts: str) -> list[Any]:
    return [{"role": "user", "content": text} for text in texts]


def _other(store: InMemoryStore, text: str) -> None:
    """Another agent's session object (another process, say) appends an item."""
    asyncio.run(ChronicaSession(SID, owner=OWNER, store=store).add_items(_says(text)))


@pytest.mark.parametrize("store_type", [Counting, CountingWithoutIDs], ids=["ids", "acta"])
def test_the_read_after_a_turn_fetches_the_turn_and_one_more_in_one_call(
    store_type: type[Counting],
) -> None:
    store = store_type()
    session = ChronicaSession(SID, owner=OWNER, store=store)
    # On a TailStore the check is by ID alone and builds no actum; else the acta are read.
    asked = "ids" if isinstance(store, TailStore) else "acta"
    assert asked == ("ids" if store_type is Counting else "acta")

    async def loop() -> None:
        await session.add_items(_says("a", "b"))
        assert await session.get_items(limit=20) == _says("a", "b")
        for turn in range(3):
            store.windows.clear()
            await session.add_items(_says(*(f"{turn}.{i}" for i in range(5))))
            got = await session.get_items(limit=20)
            assert got[-5:] == _says(*(f"{turn}.{i}" for i in range(5)))
            assert store.windows == [(asked, 6)]
        await session.pop_item()
        await session.clear_session()
        store.windows.clear()
        assert await session.get_items() == []
        assert store.windows == [(asked, 3)]  # the retraction and the clear marker, and one more

    asyncio.run(loop())


@pytest.mark.parametrize("store_type", [InMemoryStore, CountingWithoutIDs], ids=["ids", "acta"])
def test_another_writers_acta_before_between_or_after_its_own_are_read(
    store_type: type[InMemoryStore],
) -> None:
    store = store_type()
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


@pytest.mark.parametrize(
    "path",
    [("content",), ("a", "b"), ("content", 0, "text"), ("a", 1, "b", 0)],
    ids=["at-a-key", "two-deep", "in-a-part", "four-deep"],
)
def test_a_held_item_gets_its_main_text_back_at_any_depth(path: tuple[str | int, ...]) -> None:
    original: Any = {
        "content": [{"type": "output_text", "text": "the text"}],
        "a": {"b": "the text"} if path == ("a", "b") else [0, {"b": ["the text"]}],
    }
    if path == ("content",):
        original["content"] = "the text"
    blanked: Any = json.loads(json.dumps(original))
    container = blanked
    for step in path[:-1]:
        container = container[step]
    container[path[-1]] = ""
    held = (json.dumps(blanked), (path, "the text"))
    first, second = decoded([held, held])
    assert first == second == original
    assert first is not second  # fresh objects, all the way down
    assert first["a"] is not second["a"]
