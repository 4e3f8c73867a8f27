"""Matrix 5b: session records, chronica's SQLite store vs the OpenAI Agents SDK ``SQLiteSession``.

The workload is an agent loop: append one item per call, and read the last-20 window as the
session grows. chronica is measured through its public API both ways an agent would call it:
``Chronicarius`` (sync) and ``AsyncChronicarius`` (the SDK's session API is async, so this is
the like-for-like row). Every store runs at both durability settings, in WAL mode:
``synchronous=FULL`` (an fsync per commit; the SDK's default) and ``NORMAL`` (chronica's
default), so each row is compared with ``SQLiteSession`` at its own setting. The setting of
every row is read back from its connection (``PRAGMA synchronous``), never assumed. All six
(three stores, two settings) grow in lockstep, one append each in turn, in an order shuffled
per round (seeded), so the machine's drift and any neighbour's load hit every row alike, and no
store always runs right after the same other one (with the order only rotated, each store
always followed the same neighbour and paid for whatever it left behind: matrix 9 showed it).
"""

from __future__ import annotations

import asyncio
import random
import sqlite3
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Literal

from chronica import ActorKind, Actum, ActumKind, AsyncChronicarius, Chronicarius
from chronica.stores.sqlite import SQLiteStore

from .durability import chronica_setting, read_setting
from .optional import bench_module
from .quiet import guarded
from .stats import percentiles

__all__ = ["run_sessions"]

_OWNER, _CID = "bench", "session-1"
_READS = 50
_APPEND_SAMPLE = 200
SETTINGS = ("FULL", "NORMAL")


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
        sync: str,
        append: Callable[[int], Awaitable[None]],
        window: Callable[[], Awaitable[int]],
        close: Callable[[], None],
        setting: Callable[[], str],
    ) -> None:
        self.name, self.sync, self.key = name, sync, f"{name} {sync}"
        self.append, self.window, self.close = append, window, close
        self.setting = setting  # the synchronous setting its connection reports


def _store_option(sync: str) -> Literal["NORMAL", "FULL"]:
    # chronica's public option sets the pragma on every connection it opens.
    return "FULL" if sync == "FULL" else "NORMAL"


def _chronica_sync(tmp: Path, sync: str) -> _Subject:
    store = SQLiteStore(tmp / f"chronica-sync-{sync}.db", synchronous=_store_option(sync))
    c = Chronicarius(store)

    async def append(i: int) -> None:
        c.record_actum(_OWNER, _actum(i))

    async def window() -> int:
        return len(c.get_acta(_OWNER, _CID, last_n=20))

    name = "chronica SQLiteStore (Chronicarius)"
    return _Subject(name, sync, append, window, store.close, lambda: chronica_setting(store))


def _chronica_async(tmp: Path, sync: str) -> _Subject:
    store = SQLiteStore(tmp / f"chronica-async-{sync}.db", synchronous=_store_option(sync))
    c = AsyncChronicarius(store)

    async def append(i: int) -> None:
        await c.record_actum(_OWNER, _actum(i))

    async def window() -> int:
        return len(await c.get_acta(_OWNER, _CID, last_n=20))

    name = "chronica SQLiteStore (AsyncChronicarius)"
    return _Subject(name, sync, append, window, store.close, lambda: chronica_setting(store))


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
        return read_setting(session._get_connection())

    name = "OpenAI Agents SDK SQLiteSession"
    return _Subject(name, sync, append, window, session.close, probe)


_SEED = 20261207


def _shuffled(subjects: list[_Subject], order: random.Random) -> list[_Subject]:
    """This round's order: no store always goes first, last, or after the same neighbour."""
    return order.sample(subjects, len(subjects))


def _row(subject: _Subject, size: int, appends: list[float], reads: list[float]) -> dict[str, Any]:
    setting = subject.setting()
    if setting != subject.sync:
        raise SystemExit(f"{subject.name}: runs at {setting}, not {subject.sync}")
    return {
        "store": subject.name,
        "synchronous": setting,
        "items": size,
        "append_ms": {k: 1000 * v for k, v in percentiles(appends[-_APPEND_SAMPLE:]).items()},
        "window_ms": {k: 1000 * v for k, v in percentiles(reads).items()},
    }


async def _grow(subjects: list[_Subject], sizes: list[int]) -> list[dict[str, Any]]:
    """Every store grows its session in lockstep, one append each in turn, so the machine's
    drift hits all alike; then each reads its window in turn at every checkpoint."""
    for subject in subjects:  # the setting each row names is the one its connection reports
        if subject.setting() != subject.sync:
            raise SystemExit(f"{subject.name}: runs at {subject.setting()}, not {subject.sync}")
    rows, done, order = [], 0, random.Random(_SEED)
    appends: dict[str, list[float]] = {s.key: [] for s in subjects}
    for size in sizes:
        for i in range(done, size):
            for subject in _shuffled(subjects, order):
                started = time.perf_counter()
                await subject.append(i)
                appends[subject.key].append(time.perf_counter() - started)
        done = size
        reads: dict[str, list[float]] = {s.key: [] for s in subjects}
        for _ in range(_READS):
            for subject in _shuffled(subjects, order):
                started = time.perf_counter()
                got = await subject.window()
                reads[subject.key].append(time.perf_counter() - started)
                if got != 20:
                    raise SystemExit(f"{subject.name}: last-20 window returned {got} items")
        rows += [_row(s, size, appends[s.key][-_APPEND_SAMPLE:], reads[s.key]) for s in subjects]
        for subject in subjects:
            appends[subject.key].clear()
    return rows


def run_sessions(sizes: list[int], *, log: Callable[[str], None]) -> list[dict[str, Any]]:
    """Every store at both settings grows one session through ``sizes`` in lockstep."""
    with tempfile.TemporaryDirectory(prefix="chronomem-bench-") as tmp:

        def measure() -> list[dict[str, Any]]:
            folder = Path(tempfile.mkdtemp(dir=tmp))
            subjects = [
                make(folder, sync)
                for sync in SETTINGS
                for make in (_chronica_sync, _chronica_async, _agents_session)
            ]
            try:
                return asyncio.run(_grow(subjects, sizes))
            finally:
                for subject in subjects:
                    subject.close()

        log(f"sessions: 3 stores x 2 settings in lockstep, up to {sizes[-1]:,} items")
        rows, load = guarded("sessions", measure, log)
    return [r | {"load": load} for r in rows]
