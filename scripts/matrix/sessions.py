"""Matrix 5b: session records, chronica's SQLite store vs the OpenAI Agents SDK ``SQLiteSession``.

The workload is an agent loop: append one item per call, and read the last-20 window as the
session grows. chronica is measured through its public API both ways an agent would call it:
``Chronicarius`` (sync) and ``AsyncChronicarius`` (the SDK's session API is async, so this is
the like-for-like row).
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from chronica import ActorKind, Actum, ActumKind, AsyncChronicarius, Chronicarius
from chronica.stores.sqlite import SQLiteStore

from .optional import bench_module
from .stats import percentiles

__all__ = ["run_sessions"]

_OWNER, _CID = "bench", "session-1"
_READS = 50
_APPEND_SAMPLE = 200


def _content(i: int) -> str:
    return f"turn {i}: please move the standup to 10am and tell the others in the channel"


def _actum(i: int) -> Actum:
    human = i % 2 == 0
    return Actum(
        chronicum_id=_CID,
        kind=ActumKind.MESSAGE,
        actor_kind=ActorKind.HUMAN if human else ActorKind.AGENT,
        actor="ardian" if human else "planner",
        content=_content(i),
    )


class _Subject:
    """Append one item, read the last 20: the two calls an agent loop makes."""

    def __init__(
        self,
        name: str,
        append: Callable[[int], Awaitable[None]],
        window: Callable[[], Awaitable[int]],
        close: Callable[[], None],
    ) -> None:
        self.name, self.append, self.window, self.close = name, append, window, close


def _chronica_sync(tmp: Path) -> _Subject:
    store = SQLiteStore(tmp / "chronica-sync.db")
    c = Chronicarius(store)

    async def append(i: int) -> None:
        c.record_actum(_OWNER, _actum(i))

    async def window() -> int:
        return len(c.get_acta(_OWNER, _CID, last_n=20))

    return _Subject("chronica SQLiteStore (Chronicarius)", append, window, store.close)


def _chronica_async(tmp: Path) -> _Subject:
    store = SQLiteStore(tmp / "chronica-async.db")
    c = AsyncChronicarius(store)

    async def append(i: int) -> None:
        await c.record_actum(_OWNER, _actum(i))

    async def window() -> int:
        return len(await c.get_acta(_OWNER, _CID, last_n=20))

    return _Subject("chronica SQLiteStore (AsyncChronicarius)", append, window, store.close)


def _agents_session(tmp: Path) -> _Subject:
    session = bench_module("agents").SQLiteSession(_CID, str(tmp / "agents.db"))

    async def append(i: int) -> None:
        role = "user" if i % 2 == 0 else "assistant"
        await session.add_items([{"role": role, "content": _content(i)}])

    async def window() -> int:
        return len(await session.get_items(limit=20))

    return _Subject("OpenAI Agents SDK SQLiteSession", append, window, session.close)


async def _grow(subject: _Subject, sizes: list[int]) -> list[dict[str, Any]]:
    rows, done = [], 0
    for size in sizes:
        appends: list[float] = []
        while done < size:
            started = time.perf_counter()
            await subject.append(done)
            appends.append(time.perf_counter() - started)
            done += 1
        reads: list[float] = []
        for _ in range(_READS):
            started = time.perf_counter()
            got = await subject.window()
            reads.append(time.perf_counter() - started)
        if got != 20:
            raise SystemExit(f"{subject.name}: last-20 window returned {got} items")
        rows.append(
            {
                "store": subject.name,
                "items": size,
                "append_ms": {
                    k: 1000 * v for k, v in percentiles(appends[-_APPEND_SAMPLE:]).items()
                },
                "window_ms": {k: 1000 * v for k, v in percentiles(reads).items()},
            }
        )
    return rows


def run_sessions(sizes: list[int], *, log: Callable[[str], None]) -> list[dict[str, Any]]:
    """Each store grows one session through ``sizes``; timings at every checkpoint."""
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="chronomem-bench-") as tmp:
        for make in (_chronica_sync, _chronica_async, _agents_session):
            subject = make(Path(tmp))
            log(f"sessions: {subject.name} up to {sizes[-1]:,} items")
            try:
                rows.extend(asyncio.run(_grow(subject, sizes)))
            finally:
                subject.close()
    return rows
