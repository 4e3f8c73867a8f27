"""Benchmark chronica's stores against raw sqlite3 and the OpenAI Agents SDK's SQLiteSession.

Measures, side by side in one run on this machine, the two operations an agent loop does:
append one actum (``record_actum``) and read its context window (``get_acta(last_n=20)``),
on chronica of 100 / 10,000 / 1,000,000 acta. chronica is timed through ``Chronicarius``
(validation, owner check and ID included). Chronica are pre-filled with bulk inserts into
each store's own tables, so setup is quick; only the timed calls go through the API.

    python scripts/bench_chronica.py            # full sizes (a few minutes)
    python scripts/bench_chronica.py --quick    # small sizes, under a minute

PostgreSQL runs on a throwaway server started here (default settings: fsync and
synchronous_commit on) unless ``CHRONICA_BENCH_PG_DSN`` names one. ``SQLiteSession`` needs
``pip install openai-agents``; without it that row is left out.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import functools
import gc
import inspect
import itertools
import json
import os
import platform
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from chronica import ActorKind, Actum, ActumKind, Chronicarius, Store  # noqa: E402  # after the path fix above
from chronica.stores.inmemory import InMemoryStore  # noqa: E402  # after the path fix above
from chronica.stores.sqlite import SQLiteStore  # noqa: E402  # after the path fix above

OWNER, CID, NEIGHBOUR = "ardian", "dinner-friday", "small-talk"
NEIGHBOUR_SYSTEM = "chronica SQLiteStore, 100-acta chronicum in the same file"
CONTENT = "Found three quiet places in Kemang with a table for four on Friday at 7pm: " + "x" * 48
COLUMNS = "owner_id, chronicum_id, seq, id, kind, actor_kind, actor, content, metadata, at"


@dataclass(frozen=True)
class Plan:
    """How much to measure."""

    sizes: tuple[int, ...]
    appends: int  # timed appends at synchronous=NORMAL (and for in-memory)
    durable_appends: int  # timed appends that fsync (FULL, PostgreSQL, SQLiteSession)
    reads: int


FULL_PLAN = Plan(sizes=(100, 10_000, 1_000_000), appends=2000, durable_appends=300, reads=2000)
QUICK_PLAN = Plan(sizes=(100, 10_000), appends=500, durable_appends=60, reads=500)


@dataclass(frozen=True)
class Row:
    """One line of the result table; times are medians in microseconds."""

    system: str
    sync: str
    size: int
    append_us: float
    window_us: float


@dataclass
class Subject:
    """One system under test, pre-filled to a size: its two timed operations."""

    system: str
    sync: str
    append: Callable[[], object]  # may return an awaitable (SQLiteSession is async)
    window: Callable[[], object]
    durable: bool  # fsyncs on commit: measured in the smaller durable group


async def _interleaved(
    calls: list[Callable[[], object]], rounds: int, percentile: int
) -> list[float]:
    """µs per call at ``percentile``, timing the calls in turn each round so noise hits all."""
    samples: list[list[int]] = [[] for _ in calls]
    order = list(range(len(calls)))
    shuffle = random.Random(0).shuffle
    for i in range(rounds + 20):  # the first 20 rounds warm caches and statements
        # A call runs slower right after a different one (cold CPU caches): a fresh order
        # each round spreads that penalty evenly instead of always charging the same call.
        shuffle(order)
        for j in order:
            start = time.perf_counter_ns()
            result = calls[j]()
            if inspect.isawaitable(result):
                await result
            if i >= 20:
                samples[j].append(time.perf_counter_ns() - start)
    if percentile == 50:
        return [statistics.median(mine) / 1000 for mine in samples]
    return [sorted(mine)[len(mine) * percentile // 100] / 1000 for mine in samples]


def _actum() -> Actum:
    return Actum(
        chronicum_id=CID,
        kind=ActumKind.MESSAGE,
        actor_kind=ActorKind.AGENT,
        actor="agent-1",
        content=CONTENT,
    )


def _bulk_rows(n: int, cid: str = CID) -> Iterator[tuple[Any, ...]]:
    at = datetime.now(timezone.utc).isoformat(timespec="microseconds")
    for i in range(n):
        yield (
            OWNER,
            cid,
            i + 1,
            f"{cid}-{i:08d}",
            "message",
            "agent",
            "agent-1",
            CONTENT,
            "{}",
            at,
        )


def _through_chronicarius(
    system: str, sync: str, store: Store, *, durable: bool, cid: str = CID
) -> Subject:
    c = Chronicarius(store)
    actum = dataclasses.replace(_actum(), chronicum_id=cid)
    return Subject(
        system,
        sync,
        lambda: c.record_actum(OWNER, actum),
        lambda: c.get_acta(OWNER, cid, last_n=20),
        durable,
    )


def inmemory(size: int, stack: contextlib.ExitStack) -> list[Subject]:
    store = InMemoryStore()
    store.create(CID, owner_id=OWNER)
    actum = _actum()
    for i in range(size):  # IDs as Chronicarius would assign them: unique in the store
        store.record(dataclasses.replace(actum, id=f"{CID}-{i:08d}"), owner_id=OWNER)
    return [_through_chronicarius("chronica InMemoryStore", "-", store, durable=False)]


def sqlite_store(size: int, stack: contextlib.ExitStack, tmp: Path) -> list[Subject]:
    """Two SQLiteStores on one pre-filled file, at NORMAL and at FULL.

    The file also holds a 100-acta chronicum, timed in the same rounds: comparing the two
    windows measured side by side shows flatness without the machine's drift between sizes.
    """
    path = tmp / f"store-{size}.db"
    with SQLiteStore(path) as store:
        store.create(CID, owner_id=OWNER)
        store.create(NEIGHBOUR, owner_id=OWNER)
    raw = sqlite3.connect(path, isolation_level=None)
    raw.execute("BEGIN IMMEDIATE")
    insert = f"INSERT INTO chronica_acta ({COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?)"
    raw.executemany(insert, _bulk_rows(size))
    raw.executemany(insert, _bulk_rows(100, NEIGHBOUR))
    raw.execute("COMMIT")
    raw.close()
    normal = stack.enter_context(SQLiteStore(path, synchronous="NORMAL"))
    full = stack.enter_context(SQLiteStore(path, synchronous="FULL"))
    return [
        _through_chronicarius("chronica SQLiteStore", "NORMAL", normal, durable=False),
        _through_chronicarius("chronica SQLiteStore", "FULL", full, durable=True),
        _through_chronicarius(NEIGHBOUR_SYSTEM, "NORMAL", normal, durable=False, cid=NEIGHBOUR),
    ]


def raw_sqlite(size: int, stack: contextlib.ExitStack, tmp: Path) -> list[Subject]:
    """The floor: one INSERT per commit and one indexed read, no objects built."""
    path = tmp / f"raw-{size}.db"
    setup = sqlite3.connect(path, isolation_level=None)
    setup.execute("PRAGMA journal_mode = WAL")
    setup.execute(
        "CREATE TABLE acta (owner_id TEXT, chronicum_id TEXT, seq INTEGER, id TEXT, kind TEXT, "
        "actor_kind TEXT, actor TEXT, content TEXT, metadata TEXT, at TEXT)"
    )
    setup.execute("CREATE UNIQUE INDEX acta_seq ON acta (owner_id, chronicum_id, seq)")
    setup.execute("BEGIN")
    insert = f"INSERT INTO acta ({COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?)"
    setup.executemany(insert, _bulk_rows(size))
    setup.execute("COMMIT")
    setup.close()
    seq = itertools.count(size + 1)
    subjects = []
    for sync in ("NORMAL", "FULL"):
        conn = sqlite3.connect(path, isolation_level=None)
        stack.callback(conn.close)
        conn.execute(f"PRAGMA synchronous = {sync}")
        subjects.append(Subject("raw sqlite3", sync, *_raw_calls(conn, seq), sync == "FULL"))
    return subjects


def _raw_calls(
    conn: sqlite3.Connection, seq: Iterator[int]
) -> tuple[Callable[[], object], Callable[[], object]]:
    def insert() -> None:
        n = next(seq)
        at = datetime.now(timezone.utc).isoformat()
        conn.execute(
            f"INSERT INTO acta ({COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?)",
            (OWNER, CID, n, f"id-{n}", "message", "agent", "agent-1", CONTENT, "{}", at),
        )

    def read() -> list[Any]:
        sql = (
            "SELECT * FROM acta WHERE owner_id = ? AND chronicum_id = ? ORDER BY seq DESC LIMIT 20"
        )
        return conn.execute(sql, (OWNER, CID)).fetchall()

    return insert, read


def agents_session(size: int, stack: contextlib.ExitStack, tmp: Path) -> list[Subject]:
    """The OpenAI Agents SDK's SQLiteSession: add_items one item per call, get_items(limit=20).

    It runs at SQLite's default synchronous=FULL; a subclass also runs it at NORMAL (through
    its private per-connection hook) so appends can be compared at equal durability.
    """
    try:
        from agents.memory import SQLiteSession
    except ImportError:
        return []

    class NormalSession(SQLiteSession):
        @staticmethod
        def _configure_connection(conn: sqlite3.Connection) -> None:
            SQLiteSession._configure_connection(conn)
            conn.execute("PRAGMA synchronous = NORMAL")

    path = tmp / f"agents-{size}.db"
    item: Any = {"role": "assistant", "content": CONTENT}
    first = SQLiteSession(CID, path)
    asyncio.run(first.add_items([item]))
    first.close()
    raw = sqlite3.connect(path, isolation_level=None)
    raw.execute("BEGIN IMMEDIATE")
    data = json.dumps(item)
    raw.executemany(
        "INSERT INTO agent_messages (session_id, message_data) VALUES (?, ?)",
        ((CID, data) for _ in range(size - 1)),
    )
    raw.execute("COMMIT")
    raw.close()
    subjects = []
    for sync, session in (("FULL", SQLiteSession(CID, path)), ("NORMAL", NormalSession(CID, path))):
        stack.callback(session.close)
        subjects.append(
            Subject(
                "Agents SDK SQLiteSession",
                sync,
                functools.partial(session.add_items, [item]),
                functools.partial(session.get_items, limit=20),
                sync == "FULL",
            )
        )
    return subjects


@contextlib.contextmanager
def _postgres_dsn() -> Iterator[str | None]:
    given = os.environ.get("CHRONICA_BENCH_PG_DSN")
    if given:
        yield given
        return
    try:
        from tests.pgserver import PGServerError, throwaway_server
    except ImportError:
        yield None
        return
    try:
        with throwaway_server(prefix="chronica-bench-") as dsn:
            yield dsn
    except PGServerError as e:
        print(f"PostgreSQL left out: {e}", file=sys.stderr)
        yield None


def postgres(size: int, stack: contextlib.ExitStack, dsn: str) -> list[Subject]:
    import psycopg

    from chronica.stores.postgres import PostgresStore

    schema = f"bench_{size}_{os.getpid()}"
    store = stack.enter_context(PostgresStore(dsn, schema=schema))
    store.create(CID, owner_id=OWNER)
    with psycopg.connect(dsn, autocommit=True) as conn:
        copy_sql = f'COPY "{schema}".chronica_acta ({COLUMNS}) FROM STDIN'
        with conn.cursor() as cur, cur.copy(copy_sql) as copy:
            for row in _bulk_rows(size):
                copy.write_row(row)
        conn.execute(
            f'UPDATE "{schema}".chronica_chronica SET last_seq = %s '
            "WHERE owner_id = %s AND id = %s",
            (size, OWNER, CID),
        )
        conn.execute(f'ANALYZE "{schema}".chronica_acta')

    def drop() -> None:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')

    stack.callback(drop)  # runs after the store's pool is closed (LIFO)
    return [_through_chronicarius("chronica PostgresStore", "commit on", store, durable=True)]


def measure(plan: Plan, size: int, tmp: Path, dsn: str | None, percentile: int) -> list[Row]:
    """Build every subject at ``size``, then time windows and appends interleaved."""
    with contextlib.ExitStack() as stack:
        subjects = inmemory(size, stack) + sqlite_store(size, stack, tmp)
        subjects += raw_sqlite(size, stack, tmp) + agents_session(size, stack, tmp)
        if dsn:
            subjects += postgres(size, stack, dsn)
        gc.collect()
        windows = asyncio.run(_interleaved([s.window for s in subjects], plan.reads, percentile))
        appends: dict[int, float] = {}
        for durable, rounds in ((False, plan.appends), (True, plan.durable_appends)):
            group = [i for i, s in enumerate(subjects) if s.durable == durable]
            timed = asyncio.run(
                _interleaved([subjects[i].append for i in group], rounds, percentile)
            )
            appends |= dict(zip(group, timed, strict=True))
    return [Row(s.system, s.sync, size, appends[i], windows[i]) for i, s in enumerate(subjects)]


def _machine() -> str:
    cpu = platform.processor() or platform.machine()
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return (
        f"{cpu}, {os.cpu_count()} cores, {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()}, SQLite {sqlite3.sqlite_version}"
    )


def _table(rows: list[Row], percentile: int) -> str:
    stat = "median" if percentile == 50 else f"p{percentile}"
    lines = [
        f"| system | synchronous | acta | append µs ({stat}) | appends/s | last_n=20 µs ({stat}) |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r.system} | {r.sync} | {r.size:,} | {r.append_us:,.1f} | "
            f"{1e6 / r.append_us:,.0f} | {r.window_us:,.1f} |"
        )
    return "\n".join(lines)


def _find(rows: list[Row], system: str, sync: str, size: int) -> Row | None:
    return next((r for r in rows if (r.system, r.sync, r.size) == (system, sync, size)), None)


def _ratios(rows: list[Row], sizes: tuple[int, ...]) -> list[str]:
    store, raw, sdk = "chronica SQLiteStore", "raw sqlite3", "Agents SDK SQLiteSession"
    out = []
    for size in sizes:
        for sync in ("NORMAL", "FULL"):
            ours = _find(rows, store, sync, size)
            floor, theirs = _find(rows, raw, sync, size), _find(rows, sdk, sync, size)
            if ours and floor:
                out.append(
                    f"- {size:,} acta, {sync}: SQLiteStore append "
                    f"{ours.append_us / floor.append_us:.2f}x raw sqlite3 (target <= 2.5x)"
                )
            if ours and theirs:
                out.append(
                    f"- {size:,} acta, {sync}: SQLiteStore is "
                    f"{theirs.append_us / ours.append_us:.1f}x faster than SQLiteSession "
                    "on append, "
                    f"{theirs.window_us / ours.window_us:.1f}x on the window (target >= 3x)"
                )
    small, large = _find(rows, store, "NORMAL", sizes[0]), _find(rows, store, "NORMAL", sizes[-1])
    if small and large:
        out.append(
            f"- SQLiteStore window {small.window_us:.0f} µs at {sizes[0]:,} acta, "
            f"{large.window_us:.0f} µs at {sizes[-1]:,}: "
            f"{large.window_us / small.window_us:.2f}x (target < 100 µs, <= 1.5x)"
        )
    beside = _find(rows, NEIGHBOUR_SYSTEM, "NORMAL", sizes[-1])
    if beside and large:
        out.append(
            f"- measured side by side in one file: window on {sizes[-1]:,} acta "
            f"{large.window_us / beside.window_us:.2f}x the window on 100"
        )
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="small sizes, under a minute")
    parser.add_argument(
        "--percentile",
        type=int,
        default=50,
        choices=range(1, 100),
        metavar="P",
        help="report this percentile of the samples (default 50, the median); on a busy "
        "machine a low one such as 10 is closer to the uncontended cost",
    )
    args = parser.parse_args(argv)
    plan = QUICK_PLAN if args.quick else FULL_PLAN
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="chronica-bench-") as tmp, _postgres_dsn() as dsn:
        for size in plan.sizes:
            print(f"measuring {size:,} acta ...", file=sys.stderr, flush=True)
            rows += measure(plan, size, Path(tmp), dsn, args.percentile)
    print(f"Machine: {_machine()}\n")
    print(_table(rows, args.percentile))
    print()
    print("\n".join(_ratios(rows, plan.sizes)))


if __name__ == "__main__":
    main()
