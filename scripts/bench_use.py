"""What recording use costs recall (issue 41 item 2): recall p50 with ``track_use`` off and on,
side by side in one run, at 10,000 facts.

One file is filled (not timed) and copied, so each side reads its own file of the same bytes
and one side's writes never touch the other's page cache; recalls alternate between the two
(so the machine's drift hits both alike), each query asked once per side. Every query is a
different one, so most items a recall returns are new to the buffer and the recording side
writes its buffer every few dozen recalls: those writes are in its timings, at the recall
that made them due. The recording side's stored uses are counted at the end, to show what
it wrote.

    .venv/bin/python scripts/bench_use.py                 # 10,000 facts, 2,000 recalls a side
    .venv/bin/python scripts/bench_use.py --postgres DSN  # the same on a PostgreSQL database
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
import uuid
from itertools import islice
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from chronomem import ChronoMem  # noqa: E402 -- after the sys.path set-up for a fresh clone
from scripts.matrix.data import scaling_queries, synthetic_facts  # noqa: E402

SIDES = ("off", "on")
_BATCH = 5_000
_WARM = 20


def _fill(mem: ChronoMem, size: int, seed: int) -> None:
    facts = synthetic_facts(size, seed=seed)
    while batch := list(islice(facts, _BATCH)):
        with mem.batch():
            for f in batch:
                mem.remember(f.content, category=f.category, entities=list(f.entities))


def _percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)

    def at(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    return {"p50": at(0.5), "p95": at(0.95), "p99": at(0.99), "mean": statistics.fmean(ordered)}


def _targets(args: argparse.Namespace, tmp: Path) -> dict[str, dict[str, Any]]:
    """Where each side's memory lives (``ChronoMem`` arguments), filled with the same data:
    a copy of one file, or a schema each filled alike."""
    if args.postgres:
        targets = {
            side: {"path": args.postgres, "schema": f"bench_use_{side}_{uuid.uuid4().hex[:8]}"}
            for side in SIDES
        }
        for target in targets.values():
            with ChronoMem(**target, owner="bench") as mem:
                _fill(mem, args.size, args.seed)
        return targets
    filled = tmp / "filled.db"
    with ChronoMem(filled, owner="bench") as mem:
        _fill(mem, args.size, args.seed)
    for side in SIDES:
        shutil.copyfile(filled, tmp / f"{side}.db")
    return {side: {"path": tmp / f"{side}.db"} for side in SIDES}


def _stored_uses(target: dict[str, Any]) -> int:
    """How many items have a stored use, read with the engine's own driver."""
    sql = "SELECT count(*) FROM chronomem_used"
    if "schema" not in target:
        with contextlib.closing(sqlite3.connect(target["path"])) as conn:
            return int(conn.execute(sql).fetchone()[0])
    import psycopg

    with psycopg.connect(target["path"]) as conn:
        conn.execute(f'SET search_path TO "{target["schema"]}"')
        row = conn.execute(sql).fetchone()
        return int(row[0]) if row else 0


def _drop(args: argparse.Namespace, targets: dict[str, dict[str, Any]]) -> None:
    if not args.postgres:
        return
    import psycopg

    with psycopg.connect(args.postgres, autocommit=True) as conn:
        for target in targets.values():
            conn.execute(f'DROP SCHEMA "{target["schema"]}" CASCADE')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--recalls", type=int, default=2_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--postgres", help="a postgresql:// DSN (two schemas are made in it)")
    args = parser.parse_args()
    queries = scaling_queries(args.recalls + _WARM, seed=args.seed, population=args.size)
    samples: dict[str, list[float]] = {side: [] for side in SIDES}
    with tempfile.TemporaryDirectory(prefix="chronomem-bench-use-") as tmp:
        targets = _targets(args, Path(tmp))
        try:
            with contextlib.ExitStack() as opened:
                mems = {
                    side: opened.enter_context(
                        ChronoMem(**target, owner="bench", track_use=side == "on")
                    )
                    for side, target in targets.items()
                }
                for i, query in enumerate(queries):
                    for side in SIDES if i % 2 == 0 else SIDES[::-1]:
                        started = time.perf_counter()
                        mems[side].recall(query, limit=10)
                        if i >= _WARM:
                            samples[side].append(time.perf_counter() - started)
            used = {side: _stored_uses(target) for side, target in targets.items()}
        finally:
            _drop(args, targets)
    engine = "PostgreSQL" if args.postgres else "SQLite"
    off, on = _percentiles(samples["off"]), _percentiles(samples["on"])
    print(f"recall(limit=10), {engine}, {args.size:,} facts, {len(samples['on']):,} recalls a side")
    print("| | p50 ms | p95 ms | p99 ms | mean ms |")
    print("|---|---|---|---|---|")
    for name, p in (("track_use=False", off), ("track_use=True", on)):
        print(f"| {name} | " + " | ".join(f"{1000 * p[q]:.3f}" for q in p) + " |")
    print("| on / off | " + " | ".join(f"{on[q] / off[q]:.3f}" for q in on) + " |")
    print(f"items with a stored use: off {used['off']:,}, on {used['on']:,}")


if __name__ == "__main__":
    main()
