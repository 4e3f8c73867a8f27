"""Measure the LoCoMo slice that tests/chronomem/recall/test_locomo.py holds to floors; commit it.

The floors in that test sit under what the slice measures; without the measured figures
beside them nobody could read how far under (a floor far below its figure protects nothing).
This writes tests/chronomem/locomo_slice.json: every figure the tests compare (episodes, facts
fused, facts through each channel alone, plain FTS5), the floors, and each floor's margin.
A test checks the file against the floors, so a floor moved without a new measurement fails.

    .venv/bin/python scripts/locomo_slice.py      # needs ../shared/data/locomo-dev
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Mapping
from io import BytesIO
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "chronomem" / "locomo_slice.json"
SLICE = "conv-30"  # the smallest development conversation: 369 turns, 81 questions
METRICS = ("R@1", "R@5", "R@10", "MRR@10")


def _measure(mem: Any, conv: Any, ids: Mapping[str, str], **options: Any) -> dict[str, float]:
    from scripts.locomo import Scores

    scores = Scores()
    for q in conv.questions:
        ranked = [ids[r["id"]] for r in mem.recall(q.text, limit=10, **options)]
        scores.add(q, ranked, 0.0)
    summary = scores.summary()
    return {m: round(summary[m], 4) for m in METRICS}


def measure(conv: Any) -> dict[str, dict[str, float]]:
    """Every figure the slice's tests compare, on an in-memory SQLite memory."""
    from chronomem import ChronoMem
    from chronomem.recall.fusion import CHANNELS
    from scripts.locomo import fts5_ranker, remember_episodes, remember_facts, score

    figures: dict[str, dict[str, float]] = {}
    base = score([conv], fts5_ranker).summary()
    figures["fts5"] = {m: round(base[m], 4) for m in METRICS}
    with ChronoMem(":memory:") as mem:
        ids = remember_episodes(mem, conv)
        figures["episodes"] = _measure(mem, conv, ids, kinds=("episode",))
    with ChronoMem(":memory:") as mem:
        ids = remember_facts(mem, conv)
        figures["facts"] = _measure(mem, conv, ids, active_only=False)
        for channel in CHANNELS:
            mem.weights = {c: float(c == channel) for c in CHANNELS}
            figures[f"facts, {channel} alone"] = _measure(mem, conv, ids, active_only=False)
    return figures


def margins(
    figures: Mapping[str, Mapping[str, float]], floors: Mapping[str, Mapping[str, float]]
) -> dict[str, dict[str, float]]:
    """How far each measured figure sits above its floor."""
    return {
        path: {m: round(figures[path][m] - floor, 4) for m, floor in by_metric.items()}
        for path, by_metric in floors.items()
    }


def _measure_commit(commit: str, data: Path) -> dict[str, dict[str, float]]:
    """The figures of ``commit``'s code (extracted with ``git archive``, so uncommitted work in
    the tree never leaks into a committed figure), measured in a child Python."""
    with tempfile.TemporaryDirectory(prefix="locomo-slice-") as tmp:
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", commit, "src", "scripts", "tests"],
            capture_output=True,
            check=True,
        ).stdout
        with tarfile.open(fileobj=BytesIO(archive)) as tar:
            tar.extractall(tmp, filter="data")
        env = {**os.environ, "PYTHONPATH": f"{tmp}/src{os.pathsep}{tmp}"}
        out = subprocess.run(
            [sys.executable, __file__, "--child", str(data)],
            cwd=tmp,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    figures: dict[str, dict[str, float]] = json.loads(out)
    return figures


def child(data: str) -> None:
    """Runs inside the extracted commit: print the figures as JSON."""
    from tests.chronomem.locomo_data import development_conversation

    import chronomem

    assert "/locomo-slice-" in (chronomem.__file__ or ""), chronomem.__file__
    print(json.dumps(measure(development_conversation(SLICE, Path(data)))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--child", metavar="DATA")
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return
    sys.path.insert(0, str(ROOT))
    from tests.chronomem.recall.test_locomo import FLOORS

    from scripts.locomo import DEFAULT_PATH

    commit = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    figures = _measure_commit(commit, DEFAULT_PATH)
    report: dict[str, Any] = {
        "slice": SLICE,
        "engine": "sqlite (the tests run both engines; test_engines_agree holds them alike)",
        "commit": commit,
        "figures": figures,
        "floors": FLOORS,
        "margins": margins(figures, FLOORS),
    }
    OUT.write_text(json.dumps(report, indent=2) + "\n")
    for path, by_metric in report["margins"].items():
        print(path, {m: f"{figures[path][m]:.3f} (+{d:.3f})" for m, d in by_metric.items()})


if __name__ == "__main__":
    main()
