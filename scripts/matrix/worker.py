"""One measurement in its own process: ``python -m scripts.matrix.worker '<json spec>'``.

A fresh process per database size makes the peak-memory figure (``ru_maxrss``) belong to that
size alone, and lets two workers share one file for the two-process environment row. The
result is one JSON line on stdout.

The seed's protocol: 500 serial ``remember`` calls (each its own transaction, timed one by
one), then 100 ``recall`` calls with full text matching and rank fusion under a token budget.
A large database is first filled in bulk with ``import_facts`` (not timed as ingestion).
"""

from __future__ import annotations

import json
import os
import resource
import sqlite3
import sys
import time
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from itertools import islice
from typing import Any

from chronomem import ChronoMem

from .data import GradedFact, scaling_queries, synthetic_facts

__all__ = ["main", "run"]

_BULK_CHUNK = 50_000
_EPOCH = datetime(2024, 1, 1, tzinfo=timezone.utc)
RECALL_BUDGET = 200


def _records(facts: Iterator[GradedFact], start: int) -> Iterator[dict[str, Any]]:
    for i, fact in enumerate(facts, start):
        moment = _EPOCH + timedelta(seconds=i)
        yield {
            "id": f"bulk{i:09d}",
            "content": fact.content,
            "category": fact.category,
            "entities": list(fact.entities),
            "valid_from": moment,
            "system_time": moment,
        }


def _bulk_fill(mem: ChronoMem, size: int, seed: int) -> float:
    started = time.perf_counter()
    facts = synthetic_facts(size, seed=seed)
    done = 0
    while done < size:
        chunk = list(_records(islice(facts, _BULK_CHUNK), done))
        mem.import_facts(chunk)
        done += len(chunk)
    return time.perf_counter() - started


def _set_pragmas(mem: ChronoMem, pragmas: dict[str, str]) -> None:
    """Environment rows that chronomem has no option for are set on its own connection.

    This reaches into a private attribute on purpose (the benchmark, not the library, wants
    rollback journals and mmap off); it fails loudly if the layout changes.
    """
    if not pragmas:
        return
    conn = getattr(getattr(mem, "_db", None), "conn", None)
    if not isinstance(conn, sqlite3.Connection):
        raise SystemExit("worker: ChronoMem no longer exposes _db.conn; update _set_pragmas")
    for name, value in pragmas.items():
        conn.execute(f"PRAGMA {name} = {value}")


def _serial(mem: ChronoMem, spec: dict[str, Any]) -> dict[str, list[float]]:
    offset = spec["size"] + spec.get("offset", 0)
    fresh = list(islice(synthetic_facts(offset + spec["serial"], seed=spec["seed"]), offset, None))
    ingest: list[float] = []
    for fact in fresh:
        started = time.perf_counter()
        mem.remember(fact.content, category=fact.category, entities=list(fact.entities))
        ingest.append(time.perf_counter() - started)
    queries = scaling_queries(
        spec["queries"], seed=spec["seed"], population=offset + spec["serial"]
    )
    recall: list[float] = []
    for query in queries:
        started = time.perf_counter()
        mem.recall(query, token_budget=RECALL_BUDGET)
        recall.append(time.perf_counter() - started)
    return {"ingest": ingest, "recall": recall}


def _disk_bytes(path: str) -> int:
    if path == ":memory:":
        return 0
    return sum(os.path.getsize(p) for p in (path, path + "-wal") if os.path.exists(p))


def run(spec: dict[str, Any]) -> dict[str, Any]:
    """Open (and fill) the database, run the serial protocol, report times, memory and size."""
    path = spec["db"]
    mem = ChronoMem(path, owner="bench", synchronous=spec.get("synchronous", "NORMAL"))
    try:
        _set_pragmas(mem, spec.get("pragmas", {}))
        fill_s = _bulk_fill(mem, spec["size"], spec["seed"]) if spec.get("fill", True) else 0.0
        if "start_at" in spec:  # two processes: start together so they really contend
            time.sleep(max(0.0, spec["start_at"] - time.time()))
        samples = _serial(mem, spec)
    finally:
        mem.close()
    return {
        "size": spec["size"],
        "fill_s": fill_s,
        **samples,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "disk_bytes": _disk_bytes(path),
    }


def main() -> None:
    """Entry point for the subprocess."""
    print(json.dumps(run(json.loads(sys.argv[1]))))


if __name__ == "__main__":
    main()
