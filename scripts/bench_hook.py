"""How long ``chronomem hook`` takes to answer ``UserPromptSubmit``, end to end.

    .venv/bin/python scripts/bench_hook.py [--episodes 10000] [--runs 40]

A SQLite memory of N episodes (a coding conversation's turns, generated) is made once; then
the hook is run as Claude Code runs it, a new process per prompt with the payload on stdin,
and the wall time of each run is taken (process start, imports, opening the file, recall,
the JSON reply). Prints p50 and p95 in milliseconds, with the machine's load before and after,
and writes them to ``bench/hook.json`` (rendered into docs/hooks.md by
``scripts/readme_tables.py``); ``--no-write`` only prints.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from chronomem import ChronoMem, Turn

TOPICS = ["deploy", "database", "migration", "cache", "login", "billing", "search", "queue"]
PROMPTS = [f"How did we fix the {t} problem last time?" for t in TOPICS]


def fill(db: Path, n: int) -> None:
    with ChronoMem(db, owner="bench") as mem:
        for start in range(0, n, 1000):
            mem.remember_episodes(
                Turn(content=f"turn {i}: the {TOPICS[i % len(TOPICS)]} service needed "
                     f"change {i * 7} in module m{i % 97}", speaker="user" if i % 2 else "claude",
                     session=f"s{i // 200}")
                for i in range(start, min(n, start + 1000))
            )  # fmt: skip


def run(db: Path, runs: int) -> list[float]:
    times = []
    for k in range(runs):
        payload = json.dumps({"session_id": "bench", "hook_event_name": "UserPromptSubmit",
                              "cwd": "/w/app", "prompt": PROMPTS[k % len(PROMPTS)]})  # fmt: skip
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "chronomem", "hook", "--db", str(db), "--owner", "bench"],
            input=payload, capture_output=True, text=True, check=True,
        )  # fmt: skip
        times.append(time.perf_counter() - start)
        assert "additionalContext" in done.stdout, done.stdout
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--no-write", action="store_true", help="print only")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "memory.db"
        fill(db, options.episodes)
        run(db, 2)  # warm the page cache, as a session that has been running would be
        load_before = os.getloadavg()[0]
        times = sorted(run(db, options.runs))
        load_after = os.getloadavg()[0]
    p50 = statistics.median(times) * 1000
    p95 = times[min(len(times) - 1, round(0.95 * len(times)) - 1)] * 1000
    print(f"UserPromptSubmit on {options.episodes} episodes, {options.runs} runs: "
          f"p50 {p50:.0f} ms, p95 {p95:.0f} ms (process start included)")  # fmt: skip
    if not options.no_write:
        report = {"episodes": options.episodes, "runs": options.runs, "p50_ms": p50,
                  "p95_ms": p95, "load_before": load_before, "load_after": load_after}  # fmt: skip
        out = Path(__file__).resolve().parents[1] / "bench" / "hook.json"
        out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
