"""Matrix 5b: session records, chronica's SQLite store vs the OpenAI Agents SDK ``SQLiteSession``.

The workload is an agent loop: append one item per call, and read the last-20 window as the
session grows. chronica is measured through its public API both ways an agent would call it:
``Chronicarius`` (sync) and ``AsyncChronicarius`` (the SDK's session API is async, so this is
the like-for-like row). Every store runs at both durability settings, in WAL mode:
``synchronous=FULL`` (an fsync per commit; the SDK's default) and ``NORMAL`` (chronica's
default), so each row is compared with ``SQLiteSession`` at its own setting. The setting of
every row is read back from its connection, never assumed.
"""

from __future__ import annotations

import asyncio
import sqlite3
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Literal

from chronica import ActorKind, Actum, ActumKind, AsyncChronicarius, Chronicarius
from chronica.stores.sqlite import SQLiteStore

from .optional import bench_module
from .stats import percentiles

__all__ = ["run_sessions"]

_OWNER, _CID = "bench", "session-1"
_READS = 50
_APPEND_SAMPLE = 200
SETTINGS = ("FULL", "NORMAL")
_PRAGMA_NAMES = {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}


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
        setting: Callable[[], str],
    ) -> None:
        self.name, self.append, self.window, self.close = name, append, window, close
        self.setting = setting  # the synchronous setting it runs with, as it reports it


def _store_option(sync: str) -> Literal["NORMAL", "FULL"]:
    # chronica's public option sets the pragma on every connection it opens.
    return "FULL" if sync == "FULL" else "NORMAL"


def _chronica_sync(tmp: Path, sync: str) -> _Subject:
    store_sync = _store_option(sync)
    store = SQLiteStore(tmp / f"chronica-sync-{sync}.db", synchronous=store_sync)
    c = Chronicarius(store)

    async def append(i: int) -> None:
        c.record_actum(_OWNER, _actum(i))

    async def window() -> int:
        return len(c.get_acta(_OWNER, _CID, last_n=20))

    name = "chronica SQLiteStore (Chronicarius)"
    return _Subject(name, append, window, store.close, lambda: store_sync)


def _chronica_async(tmp: Path, sync: str) -> _Subject:
    store_sync = _store_option(sync)
    store = SQLiteStore(tmp / f"chronica-async-{sync}.db", synchronous=store_sync)
    c = AsyncChronicarius(store)

    async def append(i: int) -> None:
        await c.record_actum(_OWNER, _actum(i))

    async def window() -> int:
        return len(await c.get_acta(_OWNER, _CID, last_n=20))

    name = "chronica SQLiteStore (AsyncChronicarius)"
    return _Subject(name, append, window, store.close, lambda: store_sync)


def _agents_session(tmp: Path, sync: str) -> _Subject:
    base = bench_module("agents").SQLiteSession

    class Session(base):  # type: ignore[misc, valid-type]  # Any: the bench extra is optional
        @staticmethod
        def _configure_connection(conn: sqlite3.Connection) -> None:
            # The SDK's own hook (private): WAL as it sets it, then the setting under test.
            base._configure_connection(conn)
            if sync == "NORMAL":
                conn.execute("PRAGMA synchronous = NORMAL")

    session = Session(_CID, str(tmp / f"agents-{sync}.db"))

    async def append(i: int) -> None:
        role = "user" if i % 2 == 0 else "assistant"
        await session.add_items([{"role": role, "content": _content(i)}])

    async def window() -> int:
        return len(await session.get_items(limit=20))

    def probe() -> str:
        (level,) = session._get_connection().execute("PRAGMA synchronous").fetchone()
        return _PRAGMA_NAMES.get(level, str(level))

    name = "OpenAI Agents SDK SQLiteSession"
    return _Subject(name, append, window, session.close, probe)


async def _grow(subject: _Subject, sync: str, sizes: list[int]) -> list[dict[str, Any]]:
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
        if subject.setting() != sync:
            raise SystemExit(f"{subject.name}: runs at {subject.setting()}, not {sync}")
        rows.append(
            {
                "store": subject.name,
                "synchronous": sync,
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
        for sync in SETTINGS:
            for make in (_chronica_sync, _chronica_async, _agents_session):
                subject = make(Path(tmp), sync)
                log(f"sessions: {subject.name}, synchronous={sync}, up to {sizes[-1]:,} items")
                try:
                    rows.extend(asyncio.run(_grow(subject, sync, sizes)))
                finally:
                    subject.close()
    return rows
