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
import gc
import os
import platform
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

OWNER, CID = "ardian", "dinner-friday"
CONTENT = "Found three quiet places in Kemang with a table for four on Friday at 7pm: " + "x" * 48
COLUMNS = "chronicum_id, seq, id, kind, actor_kind, actor, content, metadata, at"


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


def _median_us(call: Callable[[], object], times: int) -> float:
    for _ in range(min(20, times)):  # warm caches and prepared statements
        call()
    gc.collect()
    samples = []
    for _ in range(times):
        start = time.perf_counter_ns()
        call()
        samples.append(time.perf_counter_ns() - start)
    return statistics.median(samples) / 1000


def _actum() -> Actum:
    return Actum(
        chronicum_id=CID,
        kind=ActumKind.MESSAGE,
        actor_kind=ActorKind.AGENT,
        actor="agent-1",
        content=CONTENT,
    )


def _bulk_rows(n: int) -> Iterator[tuple[Any, ...]]:
    at = datetime.now(timezone.utc).isoformat(timespec="microseconds")
    for i in range(n):
        yield (CID, i + 1, f"bulk-{i:08d}", "message", "agent", "agent-1", CONTENT, "{}", at)


def _measure_chronicarius(store: Store, plan: Plan, appends: int) -> tuple[float, float]:
    c = Chronicarius(store)
    window = _median_us(lambda: c.get_acta(OWNER, CID, last_n=20), plan.reads)
    append = _median_us(lambda: c.record_actum(OWNER, _actum()), appends)
    return append, window


def bench_inmemory(plan: Plan, size: int) -> list[Row]:
    store = InMemoryStore()
    store.create(CID, OWNER)
    for actum in (_actum() for _ in range(size)):
        store.record(actum)
    append, window = _measure_chronicarius(store, plan, plan.appends)
    return [Row("chronica InMemoryStore", "-", size, append, window)]


def bench_sqlite_store(plan: Plan, size: int, tmp: Path) -> list[Row]:
    path = tmp / f"store-{size}.db"
    with SQLiteStore(path) as store:
        store.create(CID, OWNER)
    raw = sqlite3.connect(path, isolation_level=None)
    raw.execute("BEGIN IMMEDIATE")
    raw.executemany(
        f"INSERT INTO chronica_acta ({COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?)", _bulk_rows(size)
    )
    raw.execute("COMMIT")
    raw.close()
    rows = []
    for sync, appends in (("NORMAL", plan.appends), ("FULL", plan.durable_appends)):
        with SQLiteStore(path, synchronous=sync) as store:  # type: ignore[arg-type]  # a checked literal
            append, window = _measure_chronicarius(store, plan, appends)
        rows.append(Row("chronica SQLiteStore", sync, size, append, window))
    return rows


def bench_raw_sqlite(plan: Plan, size: int, tmp: Path) -> list[Row]:
    """The floor: one INSERT per commit and one indexed read, no objects built."""
    path = tmp / f"raw-{size}.db"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute(
        "CREATE TABLE acta (chronicum_id TEXT, seq INTEGER, id TEXT, kind TEXT, "
        "actor_kind TEXT, actor TEXT, content TEXT, metadata TEXT, at TEXT)"
    )
    conn.execute("CREATE UNIQUE INDEX acta_seq ON acta (chronicum_id, seq)")
    conn.execute("BEGIN")
    conn.executemany(f"INSERT INTO acta ({COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?)", _bulk_rows(size))
    conn.execute("COMMIT")
    rows = []
    seq = size
    for sync, appends in (("NORMAL", plan.appends), ("FULL", plan.durable_appends)):
        conn.execute(f"PRAGMA synchronous = {sync}")

        def insert() -> None:
            nonlocal seq
            seq += 1
            at = datetime.now(timezone.utc).isoformat()
            conn.execute(
                f"INSERT INTO acta ({COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?)",
                (CID, seq, f"id-{seq}", "message", "agent", "agent-1", CONTENT, "{}", at),
            )

        def read() -> list[Any]:
            sql = "SELECT * FROM acta WHERE chronicum_id = ? ORDER BY seq DESC LIMIT 20"
            return conn.execute(sql, (CID,)).fetchall()

        window = _median_us(read, plan.reads)
        rows.append(Row("raw sqlite3", sync, size, _median_us(insert, appends), window))
    conn.close()
    return rows


def bench_agents_session(plan: Plan, size: int, tmp: Path) -> list[Row]:
    """The OpenAI Agents SDK's SQLiteSession: add_items one item per call, get_items(limit=20)."""
    try:
        from agents.memory import SQLiteSession
    except ImportError:
        return []
    path = tmp / f"agents-{size}.db"
    item: Any = {"role": "assistant", "content": CONTENT}
    session = SQLiteSession(CID, path)
    asyncio.run(session.add_items([item]))
    raw = sqlite3.connect(path, isolation_level=None)
    raw.execute("BEGIN IMMEDIATE")
    data = '{"role": "assistant", "content": "' + CONTENT + '"}'
    raw.executemany(
        "INSERT INTO agent_messages (session_id, message_data) VALUES (?, ?)",
        ((CID, data) for _ in range(size - 1)),
    )
    raw.execute("COMMIT")
    raw.close()
    loop = asyncio.new_event_loop()
    try:
        window = _median_us(
            lambda: loop.run_until_complete(session.get_items(limit=20)), plan.reads
        )
        append = _median_us(
            lambda: loop.run_until_complete(session.add_items([item])), plan.durable_appends
        )
    finally:
        session.close()
        loop.close()
    return [Row("Agents SDK SQLiteSession", "FULL (default)", size, append, window)]


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


def bench_postgres(plan: Plan, size: int, dsn: str) -> list[Row]:
    import psycopg

    from chronica.stores.postgres import PostgresStore

    schema = f"bench_{size}_{os.getpid()}"
    with PostgresStore(dsn, schema=schema) as store:
        store.create(CID, OWNER)
        with psycopg.connect(dsn, autocommit=True) as conn:
            copy_sql = f'COPY "{schema}".chronica_acta ({COLUMNS}) FROM STDIN'
            with conn.cursor() as cur, cur.copy(copy_sql) as copy:
                for row in _bulk_rows(size):
                    copy.write_row(row)
            conn.execute(
                f'UPDATE "{schema}".chronica_chronica SET last_seq = %s WHERE id = %s',
                (size, CID),
            )
            conn.execute(f'ANALYZE "{schema}".chronica_acta')
        append, window = _measure_chronicarius(store, plan, plan.durable_appends)
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA "{schema}" CASCADE')
    return [Row("chronica PostgresStore", "commit on", size, append, window)]


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


def _table(rows: list[Row]) -> str:
    lines = [
        "| system | synchronous | acta | append µs (median) | appends/s | last_n=20 µs (median) |",
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
            ours, floor = _find(rows, store, sync, size), _find(rows, raw, sync, size)
            if ours and floor:
                out.append(
                    f"- {size:,} acta, {sync}: SQLiteStore append = "
                    f"{ours.append_us / floor.append_us:.2f}x raw sqlite3 (target <= 2.5x)"
                )
        ours, theirs = _find(rows, store, "FULL", size), _find(rows, sdk, "FULL (default)", size)
        if ours and theirs:
            out.append(
                f"- {size:,} acta: SQLiteSession / SQLiteStore at FULL: append "
                f"{theirs.append_us / ours.append_us:.1f}x, window "
                f"{theirs.window_us / ours.window_us:.1f}x slower (target >= 3x)"
            )
    small, large = _find(rows, store, "NORMAL", sizes[0]), _find(rows, store, "NORMAL", sizes[-1])
    if small and large:
        out.append(
            f"- SQLiteStore window flatness: {large.window_us / small.window_us:.2f}x "
            f"from {sizes[0]:,} to {sizes[-1]:,} acta (target <= 1.5x; < 100 µs)"
        )
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="small sizes, under a minute")
    args = parser.parse_args(argv)
    plan = QUICK_PLAN if args.quick else FULL_PLAN
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="chronica-bench-") as tmp, _postgres_dsn() as dsn:
        for size in plan.sizes:
            print(f"measuring {size:,} acta ...", file=sys.stderr, flush=True)
            rows += bench_inmemory(plan, size)
            rows += bench_sqlite_store(plan, size, Path(tmp))
            rows += bench_raw_sqlite(plan, size, Path(tmp))
            rows += bench_agents_session(plan, size, Path(tmp))
            if dsn:
                rows += bench_postgres(plan, size, dsn)
    print(f"Machine: {_machine()}\n")
    print(_table(rows))
    print()
    print("\n".join(_ratios(rows, plan.sizes)))


if __name__ == "__main__":
    main()
