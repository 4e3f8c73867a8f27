"""AsyncChronoMem: ChronoMem's API as coroutines that leave the event loop free."""

from __future__ import annotations

import asyncio
import inspect
import time
from typing import Any

import pytest

from chronomem import AsyncChronoMem, ChronoMem, DatabaseError, FactNotActiveError, Turn
from tests.chronomem.backends import MemoryTarget


def _public_methods(cls: type) -> set[str]:
    return {n for n, v in vars(cls).items() if not n.startswith("_") and callable(v)}


def test_every_public_method_has_an_async_twin() -> None:
    missing = _public_methods(ChronoMem) - _public_methods(AsyncChronoMem)
    assert not missing, f"AsyncChronoMem lacks {sorted(missing)}"
    for name in _public_methods(ChronoMem) - {"for_owner"}:
        twin = getattr(AsyncChronoMem, name)
        assert inspect.iscoroutinefunction(twin) or inspect.isasyncgenfunction(twin), name
    # The twin takes the sync method's parameters (what a caller reads in help()).
    params = inspect.signature(ChronoMem.recall).parameters
    assert list(inspect.signature(AsyncChronoMem.recall).parameters) == list(params)


def test_the_whole_api_round_trips(memory_target: MemoryTarget) -> None:
    async def scenario() -> None:
        async with AsyncChronoMem.wrap(memory_target.open(owner="ardian")) as mem:
            first = await mem.remember("ThinkPad T14 primary interface is Wi-Fi", category="net")
            second = await mem.supersede(first, "ThinkPad T14 switched to Ethernet")
            with pytest.raises(FactNotActiveError):
                await mem.forget(first)
            found = await mem.recall("ThinkPad interface", limit=5)
            assert [f.id for f in found] == [second]
            assert [f.id for f in await mem.timeline("ThinkPad T14")] == [first, second]
            turns = (Turn(f"turn {i}", speaker="ardian", session="s1") for i in range(3))
            ids = await mem.remember_episodes(turns)  # a generator, read before the hop
            assert len(ids) == 3
            said = await mem.remember_episode("see you", speaker="bot", session="s1")
            assert (await mem.get(said)).content == "see you"
            written = await mem.batch(lambda m: [m.remember(f"note {i}") for i in range(3)])
            assert len(written) == 3
            stats = await mem.stats()
            assert (stats["facts"], stats["episodes"]) == (5, 4)
            exported = [r async for r in mem.export_facts()]
            assert len(exported) == 9
            assert (await mem.for_owner("mallory").stats())["facts"] == 0
            async with AsyncChronoMem.wrap(memory_target.sibling("copy").open()) as copy:
                assert await copy.import_facts(iter(exported)) == 9
                assert (await copy.stats())["facts"] == 5
            assert await mem.contradictions() == []
            await mem.forget(second)
            assert await mem.recall("ThinkPad interface", kinds=["fact"]) == []

    asyncio.run(scenario())


def test_a_failing_batch_writes_nothing(memory_target: MemoryTarget) -> None:
    def work(m: ChronoMem) -> None:
        m.remember("kept only if all commit")
        raise RuntimeError("stop")

    async def scenario() -> None:
        mem = AsyncChronoMem.wrap(memory_target.open())
        with pytest.raises(RuntimeError):
            await mem.batch(work)
        assert (await mem.stats())["facts"] == 0
        await mem.close()

    asyncio.run(scenario())


def test_a_slow_recall_leaves_the_event_loop_free(memory_target: MemoryTarget) -> None:
    """A token counter that sleeps makes recall slow; a ticker keeps ticking meanwhile."""

    def slow_count(text: str) -> int:
        time.sleep(0.05)
        return len(text.split())

    async def scenario() -> None:
        mem = AsyncChronoMem.wrap(memory_target.open(token_counter=slow_count))
        for i in range(6):
            await mem.remember(f"Kemang restaurant number {i} has a quiet table")
        ticks = 0
        done = asyncio.Event()

        async def ticker() -> None:
            nonlocal ticks
            while not done.is_set():
                ticks += 1
                await asyncio.sleep(0.005)

        ticking = asyncio.create_task(ticker())
        started = time.perf_counter()
        found = await mem.recall("quiet table in Kemang", limit=6)
        took = time.perf_counter() - started
        done.set()
        await ticking
        await mem.close()
        assert len(found) == 6
        assert took >= 0.3
        # Blocking the loop would leave the ticker at 1; free, it ticks every ~5 ms.
        assert ticks >= 10, (ticks, took)

    asyncio.run(scenario())


def test_concurrent_writes_all_land(memory_target: MemoryTarget) -> None:
    async def scenario() -> None:
        async with AsyncChronoMem(memory_target.path, schema=memory_target.schema) as mem:
            ids = await asyncio.gather(*(mem.remember(f"fact {i}") for i in range(20)))
            assert len(set(ids)) == 20
            assert (await mem.stats())["active"] == 20

    asyncio.run(scenario())


def test_closing_with_calls_in_flight_finishes_or_fails_them_cleanly(
    memory_target: MemoryTarget,
) -> None:
    # Issue 39 item 17: calls in flight when the memory closed raised the driver's or the
    # pool's own words ("the pool 'chronomem-t_...' is already closed", "Cannot operate on a
    # closed database"). Each must finish, or raise chronomem's DatabaseError saying so.
    async def scenario() -> list[BaseException | object]:
        mem = AsyncChronoMem(memory_target.path, schema=memory_target.schema, owner="ardian")
        await mem.remember("Noor works at Acme")

        def calls() -> list[asyncio.Future[object]]:
            started: list[Any] = [mem.remember(f"note {i} about Acme") for i in range(20)]
            started += [mem.recall("Acme", limit=3) for _ in range(20)]
            started += [mem.remember_episode("hi", speaker="ana", session="s") for _ in range(5)]
            return [asyncio.ensure_future(c) for c in started]

        before = calls()
        await asyncio.sleep(0.005)
        closing = asyncio.ensure_future(mem.close())
        after = calls()
        return await asyncio.gather(*before, closing, *after, return_exceptions=True)

    outcomes = asyncio.run(scenario())
    failures = [o for o in outcomes if isinstance(o, BaseException)]
    for failure in failures:
        assert type(failure) is DatabaseError, repr(failure)
        assert str(failure).endswith(": the memory is closed"), repr(failure)
    assert failures  # the calls started after the close cannot all have run first
