"""Matrix 1: the seed's protocol on an empty database, then at 10k / 100k / 1M facts."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from .quiet import guarded
from .stats import percentiles

__all__ = ["REPO", "collect", "fill_then_measure", "run_hardware", "spawn", "summarise"]

REPO = Path(__file__).resolve().parents[2]


def spawn(spec: dict[str, Any]) -> subprocess.Popen[str]:
    """Start one worker process (``scripts.matrix.worker``) on ``spec``."""
    return subprocess.Popen(
        [sys.executable, "-m", "scripts.matrix.worker", json.dumps(spec)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )


def collect(proc: subprocess.Popen[str]) -> dict[str, Any]:
    """Wait for a worker and parse its JSON line; a failed worker stops the run."""
    out, _ = proc.communicate()
    if proc.returncode != 0:
        raise SystemExit(f"benchmark worker failed with exit code {proc.returncode}")
    result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return result


def fill_then_measure(spec: dict[str, Any]) -> dict[str, Any]:
    """Fill in one process, measure in a fresh one; the fill time rides along in the result."""
    if spec["db"] == ":memory:":  # only the measuring process can fill its own memory
        return collect(spawn(spec))
    filled = collect(spawn({**spec, "mode": "fill"}))
    if filled["filled"] < spec["size"]:
        return {"size": spec["size"], "abandoned": filled}
    raw = collect(spawn(spec))
    raw["fill_s"] = filled["fill_s"]
    return raw


def summarise(raw: dict[str, Any]) -> dict[str, Any]:
    """Turn a worker's raw samples into throughput and latency percentiles (milliseconds)."""
    if "abandoned" in raw:
        return dict(raw)
    ingest, recall = raw["ingest"], raw["recall"]
    return {
        "size": raw["size"],
        "fill_s": raw["fill_s"],
        "ingest_per_s": len(ingest) / sum(ingest) if ingest else 0.0,
        "ingest_ms": {k: 1000 * v for k, v in percentiles(ingest).items()},
        "recall_ms": {k: 1000 * v for k, v in percentiles(recall).items()},
        "recall_per_s": len(recall) / sum(recall) if recall else 0.0,
        "peak_rss_mb": raw["peak_rss_mb"],
        "baseline_rss_mb": raw.get("baseline_rss_mb", 0.0),
        "disk_mb": raw["disk_bytes"] / 1e6,
        "serial": len(ingest),
        "queries": len(recall),
    }


def _remove(db: str) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(db + suffix).unlink(missing_ok=True)


def _fresh(spec: dict[str, Any]) -> dict[str, Any]:
    """:func:`fill_then_measure` from an empty file: a row measured again starts over."""
    _remove(spec["db"])
    return fill_then_measure(spec)


def run_hardware(
    sizes: list[int],
    *,
    serial: int,
    queries: int,
    seed: int,
    cache_dir: str | None,
    fill_budget_s: float | None,
    log: Callable[[str], None],
) -> list[dict[str, Any]]:
    """One worker per size, one after another (never two at once: they would share the CPUs)."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="chronomem-bench-") as tmp:
        for size in sizes:
            log(f"hardware: {size:,} facts + {serial} serial remembers + {queries} recalls")
            db = str(Path(tmp) / f"hw-{size}.db")
            spec = {
                "db": db,
                "size": size,
                "serial": serial,
                "queries": queries,
                "seed": seed,
                "cache_dir": cache_dir,
                "fill_budget_s": fill_budget_s,
            }
            raw, load = guarded(f"hardware {size:,}", partial(_fresh, spec), log)
            rows.append(summarise(raw) | {"load": load})
            _remove(db)
    return rows
