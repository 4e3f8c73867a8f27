"""What the semantic channel costs, side by side in one run: ``python scripts/bench_semantic.py``.

Three memories answer the same questions, interleaved query by query, each in its own process
so that each imports its own code:

* ``baseline``: chronomem as it was before the channel (``--baseline``, a git revision, checked
  out into a temporary worktree);
* ``channel off``: today's code with the channel turned off (as on an install without numpy);
* ``channel on``: today's code as installed.

Measured at each size (``--sizes``, default 10,000 and 100,000 items, half facts, half episodes):
recall p50 and p95 (the question's embedding included); serial ``remember_episode`` per second,
each its own durable transaction (``synchronous=FULL``); bulk ingestion per second (10,000 items
per ``batch()``; the baseline has no public batch, so it has no bulk figure). The machine's
load is recorded before and after.
Writes ``bench/semantic.md`` and ``bench/semantic.json``.

    python scripts/bench_semantic.py --quick       # 2,000 items, a smoke run
    python scripts/bench_semantic.py --sizes 10000,100000,1000000
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BASELINE = "61ff311"  # main before this round's recall work (word forms, semantic channel)
SIDES = ("baseline", "channel off", "channel on")

# The worker: one process per side, driven over stdin/stdout, one JSON line each way.
WORKER = r"""
import json, random, statistics, sys, tempfile, time, contextlib
from datetime import datetime, timedelta, timezone
src, mode = sys.argv[1], sys.argv[2]
sys.path.insert(0, src)
from chronomem import ChronoMem
if mode == "off":
    import chronomem.recall.semantic.model as model
    model.model_available = lambda: False
    model._model = None
WORDS = [a + b for a in "bcdfghklmnprstvz" for b in ("a", "e", "i", "o", "u", "ai", "or")]
NAMES = ["Alice", "Bruno", "Chen", "Dana", "Emeka", "Farah", "Goran", "Hana", "Ines", "Jonas"]
PLACES = ["Lisbon", "Osaka", "Porto", "Hanoi", "Accra", "Krakow", "Tallinn", "Bogota"]
VERBS = ["visited", "mentioned", "booked", "cancelled", "reviewed", "planned", "enjoyed"]
T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)
def sentence(rng):
    word = "".join(rng.choice(WORDS) for _ in range(rng.randint(2, 3)))
    return (f"{rng.choice(NAMES)} {rng.choice(VERBS)} the {word} near {rng.choice(PLACES)} "
            f"with {rng.choice(NAMES)} {rng.randint(1, 28)} times")
def batch(mem):
    return mem.batch() if hasattr(mem, "batch") else contextlib.nullcontext()
def write(mem, rng, i):
    if i % 2:
        mem.remember(sentence(rng), category="notes")
    else:
        mem.remember_episode(sentence(rng), speaker=rng.choice(NAMES), session=f"s{i // 200}",
                             at=T0 + timedelta(minutes=i))
mem = None
for line in sys.stdin:
    cmd = json.loads(line)
    if cmd["op"] == "build":
        path = tempfile.mkdtemp() + "/m.db"
        mem = ChronoMem(path, synchronous="NORMAL")
        rng = random.Random(7)
        start = time.perf_counter()
        n = cmd["n"]
        for lo in range(0, n, 10000):
            if hasattr(mem, "batch"):
                with mem.batch():
                    for i in range(lo, min(n, lo + 10000)):
                        write(mem, rng, i)
            else:  # the baseline has no public batch: one transaction per item
                for i in range(lo, min(n, lo + 10000)):
                    write(mem, rng, i)
        rate = n / (time.perf_counter() - start)
        out = {"bulk_per_s": rate if hasattr(mem, "batch") else None}
    elif cmd["op"] == "recall":
        start = time.perf_counter()
        mem.recall(cmd["q"], limit=10)
        out = {"ms": 1000 * (time.perf_counter() - start)}
    elif cmd["op"] == "serial":
        path = tempfile.mkdtemp() + "/s.db"
        rng = random.Random(11)
        with ChronoMem(path, synchronous="FULL") as serial:
            start = time.perf_counter()
            for i in range(cmd["n"]):
                serial.remember_episode(sentence(rng), speaker="Ann", session="s",
                                        at=T0 + timedelta(seconds=i))
            out = {"per_s": cmd["n"] / (time.perf_counter() - start)}
    print(json.dumps(out), flush=True)
"""


def _questions(n: int) -> list[str]:
    rng = random.Random(3)
    templates = [
        "What did {a} book near {p}?",
        "who travelled with {a}",
        "{a} {p}",
        "Which city did {a} visit last?",
        "anything about trips to {p}?",
        "what plans were cancelled",
    ]
    names = ["Alice", "Bruno", "Chen", "Dana", "Emeka", "Farah", "Goran", "Hana", "Ines", "Jonas"]
    places = ["Lisbon", "Osaka", "Porto", "Hanoi", "Accra", "Krakow", "Tallinn", "Bogota"]
    picks = [(rng.choice(templates), rng.choice(names), rng.choice(places)) for _ in range(n)]
    return [template.format(a=a, p=p) for template, a, p in picks]


class Side:
    """One memory in a process of its own."""

    def __init__(self, src: Path, mode: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", WORKER, str(src), mode],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def ask(self, **cmd: Any) -> dict[str, Any]:
        assert self.proc.stdin is not None
        assert self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(cmd) + "\n")
        self.proc.stdin.flush()
        return dict(json.loads(self.proc.stdout.readline()))

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(timeout=60)


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def measure(sides: dict[str, Side], size: int, queries: int, serial: int) -> dict[str, Any]:
    """One size: build each side's memory, then ask every question of each side in turn."""
    row: dict[str, Any] = {"size": size, "load_before": os.getloadavg()[0]}
    for name, side in sides.items():
        row[name] = {"bulk_per_s": side.ask(op="build", n=size)["bulk_per_s"]}
    times: dict[str, list[float]] = {name: [] for name in sides}
    for question in _questions(queries):
        for name, side in sides.items():
            times[name].append(side.ask(op="recall", q=question)["ms"])
    for name in sides:
        warm = times[name][5:]  # the first few load the model and warm the caches
        row[name]["recall_p50_ms"] = statistics.median(warm)
        row[name]["recall_p95_ms"] = _pct(warm, 0.95)
    rates: dict[str, list[float]] = {name: [] for name in sides}
    for _ in range(3):
        for name, side in sides.items():
            rates[name].append(side.ask(op="serial", n=serial)["per_s"])
    for name in sides:
        row[name]["serial_episodes_per_s"] = statistics.median(rates[name])
    row["load_after"] = os.getloadavg()[0]
    return row


def _rate(value: float | None) -> str:
    return "n/a" if value is None else f"{value:,.0f}"


def _markdown(rows: list[dict[str, Any]], baseline: str) -> str:
    lines = [
        "# The semantic channel's cost",
        "",
        f"Generated by `python scripts/bench_semantic.py`; baseline = `{baseline}` (before the "
        "channel). One run, the three sides interleaved query by query; recall includes the "
        "question's embedding; serial writes at `synchronous=FULL`, median of three runs.",
        "",
        "| items | side | recall p50 ms | recall p95 ms | serial episodes/s | bulk items/s |",
        "|---:|---|---:|---:|---:|---:|",
    ]
    for row in rows:
        for name in SIDES:
            r = row[name]
            lines.append(
                f"| {row['size']:,} | {name} | {r['recall_p50_ms']:.2f} | {r['recall_p95_ms']:.2f}"
                f" | {r['serial_episodes_per_s']:,.0f} | {_rate(r['bulk_per_s'])} |"
            )
    lines += [
        "",
        "Load (1-minute average) before and after each size: "
        + ", ".join(f"{r['size']:,}: {r['load_before']:.1f} / {r['load_after']:.1f}" for r in rows)
        + ".",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2,000 items, a smoke run")
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--baseline", default=BASELINE, help="git revision before the channel")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--out", type=Path, default=ROOT / "bench")
    args = parser.parse_args(argv)
    sizes = [2000] if args.quick else [int(s) for s in args.sizes.split(",")]
    queries, serial = (40, 50) if args.quick else (args.queries, 300)
    with tempfile.TemporaryDirectory() as tmp:
        worktree = Path(tmp) / "baseline"
        subprocess.run(
            ["git", "worktree", "add", "--detach", str(worktree), args.baseline],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
        try:
            sides = {
                "baseline": Side(worktree / "src", "on"),
                "channel off": Side(ROOT / "src", "off"),
                "channel on": Side(ROOT / "src", "on"),
            }
            rows = []
            for size in sizes:
                rows.append(measure(sides, size, queries, serial))
                print(json.dumps(rows[-1]), file=sys.stderr)
            for side in sides.values():
                side.close()
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(worktree)], cwd=ROOT)
    args.out.mkdir(parents=True, exist_ok=True)
    report = {"baseline": args.baseline, "rows": rows, "measured": time.strftime("%Y-%m-%d")}
    (args.out / "semantic.json").write_text(json.dumps(report, indent=2) + "\n")
    (args.out / "semantic.md").write_text(_markdown(rows, args.baseline))
    print(_markdown(rows, args.baseline))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
