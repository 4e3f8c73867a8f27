"""Matrix 2: the same protocol under different storage settings, one change per row.

The reference row is chronomem's default (a file, WAL, mmap 256 MiB, ``synchronous=NORMAL``).
``synchronous`` is a ChronoMem option; the journal mode and mmap have no option, so those rows
set the pragma on ChronoMem's own connection (see ``worker._set_pragmas``).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from .hardware import collect, fill_then_measure, spawn, summarise
from .quiet import guarded

__all__ = ["VARIANTS", "run_environment"]

VARIANTS: list[tuple[str, dict[str, Any]]] = [
    ("file, WAL, mmap 256 MiB, synchronous=NORMAL (default)", {}),
    ("':memory:'", {"memory": True}),
    ("rollback journal (journal_mode=DELETE)", {"pragmas": {"journal_mode": "DELETE"}}),
    ("mmap off (mmap_size=0)", {"pragmas": {"mmap_size": "0"}}),
    ("synchronous=FULL", {"synchronous": "FULL"}),
]


def _one(tmp: str, name: str, extra: dict[str, Any], base: dict[str, Any]) -> dict[str, Any]:
    db = (
        ":memory:"
        if extra.get("memory")
        else str(Path(tmp) / f"env-{len(name)}-{time.time_ns()}.db")
    )
    spec = {**base, "db": db, **{k: v for k, v in extra.items() if k != "memory"}}
    return {"variant": name, "processes": 1, **summarise(fill_then_measure(spec))}


def _two_processes(tmp: str, base: dict[str, Any]) -> dict[str, Any]:
    """Fill once, then two workers append and recall on the same file at the same moment."""
    db = str(Path(tmp) / f"env-shared-{time.time_ns()}.db")  # a row measured again starts over
    collect(spawn({**base, "db": db, "mode": "fill"}))
    half_serial, half_queries = base["serial"] // 2, base["queries"] // 2
    start_at = time.time() + 1.5  # both interpreters are importing chronomem by then
    procs = [
        spawn(
            {
                **base,
                "db": db,
                "serial": half_serial,
                "queries": half_queries,
                "offset": i * half_serial,
                "start_at": start_at,
            }
        )
        for i in range(2)
    ]
    raws = [collect(p) for p in procs]
    merged = {
        "size": base["size"],
        "fill_s": 0.0,
        "peak_rss_mb": max(r["peak_rss_mb"] for r in raws),
        "disk_bytes": max(r["disk_bytes"] for r in raws),
        "ingest": [x for r in raws for x in r["ingest"]],
        "recall": [x for r in raws for x in r["recall"]],
    }
    row = summarise(merged)
    # Two writers' latencies overlap in time: aggregate throughput is calls per wall second.
    wall = max(sum(r["ingest"]) + sum(r["recall"]) for r in raws)
    row["aggregate_calls_per_s"] = (len(merged["ingest"]) + len(merged["recall"])) / wall
    return {"variant": "two processes sharing the file (WAL)", "processes": 2, **row}


def run_environment(
    *,
    size: int,
    serial: int,
    queries: int,
    seed: int,
    cache_dir: str | None,
    log: Callable[[str], None],
) -> list[dict[str, Any]]:
    """Every variant on a database pre-filled with ``size`` facts."""
    base = {
        "size": size,
        "serial": serial,
        "queries": queries,
        "seed": seed,
        "cache_dir": cache_dir,
    }
    rows = []
    with tempfile.TemporaryDirectory(prefix="chronomem-bench-") as tmp:
        for name, extra in VARIANTS:
            log(f"environment: {name}")
            row, load = guarded(name, partial(_one, tmp, name, extra, base), log)
            rows.append(row | {"load": load})
        log("environment: two processes sharing one file")
        row, load = guarded("two processes", partial(_two_processes, tmp, base), log)
        rows.append(row | {"load": load})
    return rows
