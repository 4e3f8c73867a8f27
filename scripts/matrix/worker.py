"""One measurement in its own process: ``python -m scripts.matrix.worker '<json spec>'``.

A fresh process per database size makes the peak-memory figure (``ru_maxrss``) belong to that
size alone, and lets two workers share one file for the two-process environment row. The
result is one JSON line on stdout.

The seed's protocol: 500 serial ``remember`` calls (each its own transaction, timed one by
one), then 100 ``recall`` calls with full text matching and rank fusion under a token budget.
A large database is first filled in bulk with ``import_facts`` (not timed as ingestion).
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import shutil
import sqlite3
import sys
import time
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from itertools import islice
from pathlib import Path
from typing import Any

import chronomem
from chronomem import ChronoMem

from .data import GradedFact, scaling_queries, synthetic_facts

__all__ = ["main", "run"]

_BULK_CHUNK = 10_000
_EPOCH = datetime(2024, 1, 1, tzinfo=timezone.utc)
RECALL_BUDGET = 200
_WRITE_PATH = (
    "engine",
    "write",
    "text",
    "claims",
    "recall/lexindex.py",
    "recall/semantic",
    "_records.py",
    "_checks.py",
    "_model.py",
)
"""chronomem's code that decides a filled file's bytes (schema, write path, entity extraction,
terms, claims, import, the semantic model's code and tables), as paths under the package: a
folder stands for every module and model file in it."""
_HASHED = ("*.py", "*.npy", "*.txt")
_NOT_WRITE_PATH = ("engine/postgres", "engine/sqlite/checkpoints.py")
"""What under :data:`_WRITE_PATH` never decides a SQLite file's bytes (every fill is SQLite):
PostgreSQL's engine, and when a SQLite log is copied into its file."""


def write_path_digest() -> str:
    """A hash of the :data:`_WRITE_PATH` modules, so a cached fill is reused only while they
    are unchanged; a path that no longer exists fails loudly rather than hashing nothing."""
    digest = hashlib.sha256()
    root = Path(chronomem.__file__).parent
    for name in _WRITE_PATH:
        path = root / name
        if not path.exists():
            raise FileNotFoundError(f"{path}: the write path moved; update _WRITE_PATH")
        found = (m for pattern in _HASHED for m in path.rglob(pattern))
        for module in sorted(found) if path.is_dir() else [path]:
            if module.relative_to(root).as_posix().startswith(_NOT_WRITE_PATH):
                continue
            digest.update(module.relative_to(root).as_posix().encode())
            digest.update(module.read_bytes())
    return digest.hexdigest()[:12]


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


def _bulk_fill(mem: ChronoMem, size: int, seed: int, budget_s: float | None) -> dict[str, Any]:
    """Import ``size`` facts in chunks; give up early once the fill cannot finish in budget.

    The projection uses the rate of the latest chunk, which only errs on the optimistic side
    when the rate keeps falling, so a row is abandoned only when it truly cannot be reached.
    """
    started = time.perf_counter()
    facts = synthetic_facts(size, seed=seed)
    done, rate = 0, 0.0
    while done < size:
        chunk_started = time.perf_counter()
        chunk = list(_records(islice(facts, _BULK_CHUNK), done))
        mem.import_facts(chunk)
        done += len(chunk)
        rate = len(chunk) / (time.perf_counter() - chunk_started)
        elapsed = time.perf_counter() - started
        projected = elapsed + (size - done) / rate
        if budget_s is not None and done < size and projected > budget_s:
            return {"fill_s": elapsed, "filled": done, "last_rate": rate, "projected_s": projected}
    elapsed = time.perf_counter() - started
    return {"fill_s": elapsed, "filled": done, "last_rate": rate, "projected_s": elapsed}


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


def _rss_mb(field: str = "VmRSS") -> float:
    """Resident memory from /proc (VmHWM is the peak). Not ``ru_maxrss``: on Linux a child
    created by fork+exec inherits its parent's high-water mark, which would be measured."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _disk_bytes(path: str) -> int:
    if path == ":memory:":
        return 0
    return sum(os.path.getsize(p) for p in (path, path + "-wal") if os.path.exists(p))


def _data_key(spec: dict[str, Any]) -> str:
    """Names a filled database by everything that decides its bytes: size, seed, write path.

    The hash covers chronomem's modules that shape stored rows (schema, write path, entity
    extraction, import), so a cached fill is reused across runs only while they are unchanged.
    """
    return f"fill-{spec['size']}-{spec['seed']}-{write_path_digest()}"


def _copy_db(src: Path, dst: Path) -> None:
    for suffix in ("", "-wal"):
        if Path(f"{src}{suffix}").exists():
            shutil.copyfile(f"{src}{suffix}", f"{dst}{suffix}")


def _prepare(spec: dict[str, Any]) -> dict[str, Any]:
    """Fill ``spec['db']`` with ``size`` facts, from the fill cache when one matches."""
    path, size, cache = spec["db"], spec["size"], spec.get("cache_dir")
    budget = spec.get("fill_budget_s")
    if not size or path == ":memory:":  # an in-memory database is filled where it is measured
        return {"fill_s": 0.0, "filled": 0}
    if cache is None:
        with ChronoMem(path, owner="bench") as mem:
            return _bulk_fill(mem, size, spec["seed"], budget)
    stem = Path(cache) / _data_key(spec)
    template, sidecar = stem.with_suffix(".db"), stem.with_suffix(".json")
    if sidecar.exists():
        info: dict[str, Any] = {**json.loads(sidecar.read_text()), "cached": True}
        if info["filled"] == size:
            _copy_db(template, Path(path))
            return info
        if budget is not None and info.get("budget_s", 0) >= budget:
            return info  # the same code already failed to fill it within at least this budget
    with ChronoMem(path, owner="bench") as mem:
        info = {**_bulk_fill(mem, size, spec["seed"], budget), "budget_s": budget}
    Path(cache).mkdir(parents=True, exist_ok=True)
    if info["filled"] == size:
        _copy_db(Path(path), template)
    sidecar.write_text(json.dumps(info))
    return info


def run(spec: dict[str, Any]) -> dict[str, Any]:
    """``mode: fill`` fills the file; otherwise run the serial protocol on the filled file.

    Filling happens in a process of its own, so the measuring process's peak RSS is the cost
    of serving a database of that size, not of building it (``:memory:`` is the exception:
    it can only be filled by the process that measures it).
    """
    path = spec["db"]
    if spec.get("mode") == "fill":
        return _prepare(spec)
    baseline_mb = _rss_mb()  # the interpreter and its imports, before any database work
    mem = ChronoMem(path, owner="bench", synchronous=spec.get("synchronous", "NORMAL"))
    fill_s = 0.0
    try:
        _set_pragmas(mem, spec.get("pragmas", {}))
        if path == ":memory:" and spec["size"]:
            fill_s = _bulk_fill(mem, spec["size"], spec["seed"], None)["fill_s"]
        if "start_at" in spec:  # two processes: start together so they really contend
            time.sleep(max(0.0, spec["start_at"] - time.time()))
        samples = _serial(mem, spec)
    finally:
        mem.close()
    return {
        "size": spec["size"],
        "fill_s": fill_s,
        **samples,
        "peak_rss_mb": _rss_mb("VmHWM"),
        "baseline_rss_mb": baseline_mb,
        "disk_bytes": _disk_bytes(path),
    }


def main() -> None:
    """Entry point for the subprocess."""
    print(json.dumps(run(json.loads(sys.argv[1]))))


if __name__ == "__main__":
    main()
