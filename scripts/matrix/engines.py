"""Matrix: chronomem on SQLite and on PostgreSQL, side by side in one run.

At each size the same facts sit in a SQLite file (WAL) and in a PostgreSQL schema on a
throwaway local server running with its defaults (``fsync`` and ``synchronous_commit`` on, so
an acknowledged write survives power loss, like SQLite at ``synchronous=FULL``). The
PostgreSQL copy is loaded from the filled file with COPY (:mod:`.pg_copy`, untimed). Then:

- **recall**: ``recall(limit=10)`` on both, in alternation, so drift on the machine hits both;
- **serial remember**: one fact per durable transaction, alternating SQLite at FULL (equal
  durability), SQLite at NORMAL (its default) and PostgreSQL;
- **concurrent remember** (smallest size only): 1, 2, 4 and 8 processes remembering for a
  fixed time on one database, for each of the three; facts per second over all writers.

Run on its own: ``python -m scripts.matrix.engines [--quick]`` prints the table.
"""

from __future__ import annotations

import argparse
import multiprocessing
import shutil
import tempfile
import time
import uuid
from collections.abc import Callable
from itertools import islice, pairwise
from pathlib import Path
from typing import Any

from tests.pgserver import throwaway_server

from chronomem import ChronoMem

from . import quiet
from .cost import _filled
from .data import scaling_queries, synthetic_facts
from .fmt import pct, ratio, table
from .pg_copy import copy_into_postgres
from .server_cpu import ServerCpu
from .stats import percentiles

__all__ = ["render", "run"]

_OWNER = "bench"
WRITERS = (1, 2, 4, 8)
_PER_WRITER = 50_000  # more than a writer gets through in the time it is given
_ENGINES = ("sqlite FULL", "sqlite NORMAL", "postgres")
SERIAL_GOAL = 0.8  # issue 23: serial remember on PostgreSQL against SQLite at FULL


def _url(dsn: str) -> str:
    import urllib.parse

    import psycopg.conninfo

    params = {k: str(v) for k, v in psycopg.conninfo.conninfo_to_dict(dsn).items()}
    return "postgresql://?" + urllib.parse.urlencode(params)


def _open(engine: str, file: Path, url: str, schema: str) -> ChronoMem:
    if engine == "postgres":
        return ChronoMem(url, owner=_OWNER, schema=schema)
    return ChronoMem(file, owner=_OWNER, synchronous=engine.split()[1])


def _recall(mems: dict[str, ChronoMem], size: int, queries: int, seed: int) -> dict[str, Any]:
    asks = scaling_queries(queries, seed=seed, population=size)
    samples: dict[str, list[float]] = {name: [] for name in mems}
    for i in range(-5, len(asks)):  # five untimed rounds warm caches and statements
        for name, mem in mems.items():
            started = time.perf_counter()
            mem.recall(asks[i % len(asks)], limit=10)
            if i >= 0:
                samples[name].append(time.perf_counter() - started)
    return {name: {k: 1000 * v for k, v in percentiles(s).items()} for name, s in samples.items()}


def _serial(
    mems: dict[str, ChronoMem], size: int, count: int, seed: int, server: ServerCpu | None
) -> tuple[dict[str, float], dict[str, float]]:
    """Facts per second of each engine, and the milliseconds of CPU each remember took: this
    process's own on every engine, and under ``"postgres server"`` the server's, read from
    its processes around each PostgreSQL remember, outside the timed span (when it can be)."""
    new = list(islice(synthetic_facts(size + count * len(mems), seed=seed), size, None))
    spent, cpu = dict.fromkeys(mems, 0.0), dict.fromkeys(mems, 0.0)
    server_ns = 0
    for i in range(count):
        for j, (name, mem) in enumerate(mems.items()):
            f = new[i * len(mems) + j]
            meter = server if name == "postgres" else None
            before = meter.ns() if meter else 0
            started, cpu_started = time.perf_counter(), time.thread_time()
            mem.remember(f.content, category=f.category, entities=list(f.entities))
            spent[name] += time.perf_counter() - started
            cpu[name] += time.thread_time() - cpu_started
            if meter:
                server_ns += meter.ns() - before
    per_remember = {n: 1000 * c / count for n, c in cpu.items()}
    if server is not None:
        per_remember["postgres server"] = server_ns / 1e6 / count
    return {n: count / s for n, s in spent.items()}, per_remember


def _round_trips(dsn: str, schema: str, size: int, seed: int) -> int:
    """How many times one ``remember`` on PostgreSQL waits for the server: from libpq's trace
    of the only connection of a one-connection pool, each switch from sending to reading."""
    import psycopg
    import psycopg_pool

    f = next(islice(synthetic_facts(size + 1, seed=seed + 1), size, None))
    with (
        tempfile.TemporaryDirectory(prefix="chronomem-trace-") as tmp,
        psycopg_pool.ConnectionPool(dsn, min_size=1, max_size=1, open=True) as pool,
        ChronoMem(pool, owner=_OWNER, schema=schema) as mem,
    ):
        # Two warm-up writes: the traced one is the third, which does not ask about planner
        # statistics (the 1st, 2nd, 4th... do; see chronomem/engine/postgres/statistics.py).
        for n in range(2):
            mem.remember(
                f"{f.content} (warm-up {n})", category=f.category, entities=list(f.entities)
            )
        trace = Path(tmp) / "trace.txt"
        with trace.open("w") as out:
            with pool.connection() as conn:
                conn.pgconn.trace(out.fileno())
                conn.pgconn.set_trace_flags(psycopg.pq.Trace.SUPPRESS_TIMESTAMPS)
            mem.remember(f.content, category=f.category, entities=list(f.entities))
            with pool.connection() as conn:
                conn.pgconn.untrace()
        sides = [line[:1] for line in trace.read_text().splitlines() if line[:1] in ("F", "B")]
    return sum(1 for a, b in pairwise(sides) if (a, b) == ("F", "B"))


def _writer(
    engine: str, file: str, url: str, schema: str, worker: int, ready: Any, seconds: float
) -> int:
    """Connect, wait until every writer has, then remember for ``seconds``: the same kind of
    facts as the serial rows, each writer its own numbered people."""
    facts = iter(synthetic_facts(_PER_WRITER, seed=10_000 + worker))
    with _open(engine, Path(file), url, schema) as mem:
        ready.wait()
        until, n = time.perf_counter() + seconds, 0
        while time.perf_counter() < until:
            f = next(facts)
            mem.remember(f.content, category=f.category, entities=list(f.entities))
            n += 1
        return n


def _concurrent(
    engine: str, file: Path, url: str, schema: str, writers: int, seconds: float
) -> float:
    ctx = multiprocessing.get_context("spawn")
    with ctx.Manager() as manager, ctx.Pool(writers) as pool:
        ready = manager.Barrier(writers)
        results = [
            pool.apply_async(_writer, (engine, str(file), url, schema, w, ready, seconds))
            for w in range(writers)
        ]
        done = sum(r.get(timeout=seconds + 300) for r in results)
    return done / seconds


def _schema_bytes(url: str, schema: str) -> int:
    """Tables, indexes and TOAST of the schema, as PostgreSQL stores them."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(
            """SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c
               JOIN pg_namespace n ON n.oid = c.relnamespace
               WHERE n.nspname = %s AND c.relkind = 'r'""",
            (schema,),
        ).fetchone()
    return int(row[0]) if row else 0


def _size(
    size: int, dsn: str, cfg: dict[str, Any], where: Path, log: Callable[[str], None]
) -> dict[str, Any]:
    file = where / f"engines-{size}.db"
    fill = _filled("facts", {"size": size, "seed": cfg["seed"], "cache_dir": cfg["cache"]}, file)
    url, schema = _url(dsn), f"bench_{uuid.uuid4().hex[:8]}"
    started = time.perf_counter()
    copied = copy_into_postgres(file, url, schema)
    took = time.perf_counter() - started
    log(f"engines: {size:,} facts filled, copied to PostgreSQL in {took:.0f}s")
    storage = {"sqlite": file.stat().st_size, "postgres": _schema_bytes(url, schema)}
    mems = {engine: _open(engine, file, url, schema) for engine in _ENGINES}
    try:
        recall = _recall({"sqlite": mems["sqlite NORMAL"], "postgres": mems["postgres"]},
                         size, cfg["queries"], cfg["seed"])  # fmt: skip
        serial, cpu = _serial(mems, size, cfg["serial"], cfg["seed"], ServerCpu.of(url))
    finally:
        for mem in mems.values():
            mem.close()
    row: dict[str, Any] = {"size": size, "fill": fill, "copied": copied, "recall_ms": recall,
                           "serial_per_s": serial, "serial_cpu_ms": cpu, "bytes": storage,
                           "round_trips": _round_trips(dsn, schema, size, cfg["seed"])}  # fmt: skip
    if cfg["concurrent"]:
        row["concurrent_per_s"] = {
            str(n): {e: _concurrent(e, file, url, schema, n, cfg["seconds"]) for e in _ENGINES}
            for n in cfg["writers"]
        }
    return row


def run(
    quick: bool,
    *,
    sizes: list[int] | None = None,
    seed: int = 20260601,
    cache_dir: str | None = None,
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Both engines at each size (1k when ``quick``; 10k and 1M otherwise)."""
    sizes = sizes or ([1_000] if quick else [10_000, 1_000_000])
    cfg = {"seed": seed, "cache": cache_dir, "queries": 20 if quick else 100,
           "serial": 30 if quick else 300, "seconds": 2.0 if quick else 10.0,
           "writers": WRITERS[-1:] if quick else WRITERS}  # fmt: skip
    rows = []
    with (
        throwaway_server(prefix="chronomem-engines-") as dsn,
        tempfile.TemporaryDirectory(prefix="chronomem-bench-") as tmp,
    ):
        for i, size in enumerate(sizes):
            before, waited = quiet.settle()  # bounded; a row measured under load is marked
            row = _size(size, dsn, {**cfg, "concurrent": i == 0}, Path(tmp), log)
            rows.append(row | {"load": quiet.checkpoint(before, waited)})
            shutil.rmtree(tmp, ignore_errors=True)
            Path(tmp).mkdir(exist_ok=True)
    return {
        "rows": rows,
        "writers": cfg["writers"],
        "writer_seconds": cfg["seconds"],  # "seconds" is the section's duration (its runner's)
        "sizes": sizes,
    }


def render(result: dict[str, Any]) -> str:
    """Recall latency and write throughput per engine, with PostgreSQL's ratio to SQLite."""
    recall = [
        [f"{r['size']:,}", pct(r["recall_ms"]["sqlite"], "p50", "p95"),
         pct(r["recall_ms"]["postgres"], "p50", "p95"),
         ratio(r["recall_ms"]["postgres"]["p50"], r["recall_ms"]["sqlite"]["p50"])]
        for r in result["rows"]
    ]  # fmt: skip
    writes = []
    for r in result["rows"]:
        kinds = [("1, serial", r["serial_per_s"])]
        for n, per_s in r.get("concurrent_per_s", {}).items():
            kinds.append((f"{n} process{'es' if n != '1' else ''}", per_s))
        for label, per_s in kinds:
            writes.append([f"{r['size']:,}", label, *(f"{per_s[e]:,.0f}" for e in _ENGINES),
                           ratio(per_s["postgres"], per_s["sqlite FULL"])])  # fmt: skip
    for r, line in zip(result["rows"], recall, strict=True):
        line.insert(
            1, " / ".join(f"{r['bytes'][e] / r['size']:,.0f}" for e in ("sqlite", "postgres"))
        )
    return "\n".join([
        *table(["facts", "bytes per fact (SQLite / PostgreSQL)", "SQLite recall p50 / p95 (ms)",
                "PostgreSQL recall p50 / p95 (ms)", "PostgreSQL / SQLite p50"], recall),
        "",
        *table(["facts", "writers", "SQLite FULL /s", "SQLite NORMAL /s", "PostgreSQL /s",
                "PostgreSQL / SQLite FULL"], writes),
        *_serial_notes(result),
    ])  # fmt: skip


def _serial_notes(result: dict[str, Any]) -> list[str]:
    """What one serial ``remember`` costs beside its wall time: PostgreSQL's round trips, the
    client's own CPU on each engine and the server's, and what that leaves of the goal (rows
    from before each was measured have none of it)."""
    out = []
    for r in result["rows"]:
        if "round_trips" not in r:
            continue
        cpu = r["serial_cpu_ms"]
        waits = "once" if r["round_trips"] == 1 else f"{r['round_trips']} times"
        line = (
            f"- {r['size']:,} facts: one `remember` on PostgreSQL waits for the server "
            f"{waits}; the client's own CPU per `remember` is "
            f"{cpu['postgres']:.2f} ms on PostgreSQL (driver included)"
        )
        if "postgres server" not in cpu:
            out.append(f"{line} against {cpu['sqlite FULL']:.2f} ms for all of SQLite FULL's work.")
            continue
        out.append(f"{line}, the server's {cpu['postgres server']:.2f} ms, " + _serial_floor(r))
    return ["", *out] if out else []


def _serial_floor(row: dict[str, Any]) -> str:
    """The CPU of one PostgreSQL remember, client's and server's, against the time the serial
    goal allows it: when it is more, the goal needs them to run at once, each waiting less,
    which a remember that is one call (one wait) leaves no room for."""
    cpu, per_s = row["serial_cpu_ms"], row["serial_per_s"]
    both = cpu["postgres"] + cpu["postgres server"]
    allowed = 1000 / (SERIAL_GOAL * per_s["sqlite FULL"])
    took = 1000 / per_s["postgres"]
    said = (
        f"{both:.2f} ms together against {cpu['sqlite FULL']:.2f} ms for all of SQLite FULL's "
        f"work; it took {took:.2f} ms. At {SERIAL_GOAL}x SQLite FULL's serial rate (the goal) "
        f"it may take {allowed:.2f} ms: "
    )
    if both <= allowed:
        spare = allowed - both
        return said + f"the CPU leaves {spare:.2f} ms for the waits and the commit's flush."
    overlap = (
        f" (here they did for at least {both - took:.2f} ms: the CPU was more than the time)"
        if both > took
        else ""
    )
    if row["round_trips"] == 1:
        return said + (
            f"the CPU alone is {both - allowed:.2f} ms more. In one call the client waits while "
            f"the server runs it, so only the server's background processes (its WAL writer, "
            f"checkpointer and autovacuum, counted here too) can work beside the client: a "
            f"floor of this design on this machine{overlap}."
        )
    return said + (
        f"the CPU alone is {both - allowed:.2f} ms more, so the goal needs the client and the "
        f"server to work at once for that much of each `remember`{overlap}."
    )


def _main() -> None:
    parser = argparse.ArgumentParser(description="chronomem on SQLite vs PostgreSQL")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    print(render(run(args.quick)))


if __name__ == "__main__":
    _main()
