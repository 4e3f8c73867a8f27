"""The README's figures, rendered from the committed benchmark files (never typed by hand).

Each block of README.md between ``<!-- generated: NAME -->`` and ``<!-- /generated -->`` is
the output of one renderer here, fed by a file under ``bench/`` that a benchmark script wrote.
``tests/test_readme.py`` fails when a block differs from what its file says.

    python scripts/readme_tables.py          # rewrite the blocks in README.md
    python scripts/readme_tables.py --check  # exit 1 if any block is stale
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
BLOCK = re.compile(r"(<!-- generated: (\w+) -->\n)(.*?)(<!-- /generated -->)", re.S)


def _load(name: str) -> Any:
    return json.loads((REPO / "bench" / name).read_text(encoding="utf-8"))


def _row(name: str, values: Mapping[str, float], columns: list[str]) -> str:
    return f"| {name} | " + " | ".join(f"{values[c]:.3f}" for c in columns) + " |"


def locomo() -> str:
    """The retrieval table: LoCoMo development set, both paths beside plain FTS5."""
    r = _load("locomo.json")
    head = r["headline"]
    columns = list(next(iter(head.values())))
    cats = r["per_category_r10"]
    cat_names = list(next(iter(cats.values())))
    ep = head["chronomem episodes"]
    weakest = min(cats["chronomem episodes"].items(), key=lambda kv: kv[1])
    latency = r["latency_ms"]["episodes recall"]
    lines = [
        f"LoCoMo development set ({r['conversations']} real conversations, {r['turns']:,} "
        f"turns, {r['questions']} questions; a hit is an evidence turn in the top k; "
        "[bench/locomo.md](bench/locomo.md), `python scripts/eval_locomo.py`):",
        "",
        "| ranking | " + " | ".join(columns) + " |",
        "|---" * (len(columns) + 1) + "|",
        *(_row(name, values, columns) for name, values in head.items()),
        "",
        "| R@10 by question type | " + " | ".join(cat_names) + " |",
        "|---" * (len(cat_names) + 1) + "|",
        *(_row(name, values, cat_names) for name, values in cats.items()),
        "",
        f"Episodes recall in {latency['p50']:.2f} ms p50 ({latency['p95']:.2f} ms p95) per "
        f"question on a conversation's file. Where chronomem still loses: {weakest[0]} "
        f"questions (R@10 {weakest[1]:.3f}) and answers that share no word with the question "
        f"or the turns before it; our goals were R@10 0.87 and R@1 0.50 (measured "
        f"{ep['R@10']:.3f} and {ep['R@1']:.3f}).",
        "",
    ]
    return "\n".join(lines)


RENDERERS: dict[str, Callable[[], str]] = {"locomo": locomo}


def render(text: str) -> str:
    """``text`` with every generated block replaced by its renderer's output."""

    def fill(m: re.Match[str]) -> str:
        name = m.group(2)
        if name not in RENDERERS:
            raise SystemExit(f"README block {name!r} has no renderer in {__file__}")
        return m.group(1) + RENDERERS[name]() + m.group(4)

    return BLOCK.sub(fill, text)


def main(argv: list[str] | None = None) -> int:
    """Rewrite README.md's generated blocks, or with --check report whether they are stale."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if README.md is stale")
    args = parser.parse_args(argv)
    current = README.read_text(encoding="utf-8")
    fresh = render(current)
    if args.check:
        if fresh != current:
            print("README.md's generated blocks are stale: run scripts/readme_tables.py")
            return 1
        return 0
    README.write_text(fresh, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
