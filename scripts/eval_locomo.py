"""Recall on real conversations: ``python scripts/eval_locomo.py [PATH]``.

Stores every turn of each LoCoMo conversation in a fresh on-disk memory through the public API
and asks every answerable question, for two paths beside plain SQLite FTS5 BM25:

* episodes: ``remember_episode(text, speaker=, session=, at=<session date>)`` and
  ``recall(question, limit=10, kinds=("episode",))``;
* facts: ``remember("Speaker: text", category="dialog", valid_from=<session date>)`` and
  ``recall(question, limit=10, active_only=False)``.

It prints R@1, R@5, R@10 and MRR@10 overall and per category, the ablation tables (each
ingredient removed one at a time, each fact channel alone and removed) and recall latency, and
writes them to ``bench/locomo.md`` and ``bench/locomo.json``. PATH defaults to the development
set beside the repository (``../shared/data/locomo-dev/locomo-dev.json``); pass your own copy of
LoCoMo (``data/locomo10.json``) to measure on it. With ``--db postgresql://...`` the same
evaluation runs on PostgreSQL (``bench/locomo_postgres.md/json``): the ranking is chronomem's
own on both engines, so the figures must agree.

Examples::

    python scripts/eval_locomo.py                      # the development set, written to bench/
    python scripts/eval_locomo.py --limit 1 --no-write # one conversation, print only
    python scripts/eval_locomo.py --db postgresql://localhost/chronomem_eval
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # run as a file: make `scripts.locomo` importable
    sys.path.insert(0, str(REPO))

from chronomem import ChronoMem  # noqa: E402  # after the sys.path fix above
from chronomem.recall.fusion import CHANNELS, DEFAULT_WEIGHTS  # noqa: E402
from chronomem.recall.lexical import LexicalParams  # noqa: E402
from scripts.locomo import (  # noqa: E402
    DEFAULT_PATH,
    Conversation,
    Scores,
    fts5_ranker,
    load,
    remember_episodes,
    remember_facts,
    score,
)

FULL = LexicalParams()
EPISODE_ABLATIONS: dict[str, tuple[LexicalParams, Mapping[str, float]]] = {
    "chronomem": (FULL, DEFAULT_WEIGHTS),
    "without the previous turns as context": (
        dataclasses.replace(FULL, context=(0.0, 0.0)),
        DEFAULT_WEIGHTS,
    ),
    "without the speaker field": (dataclasses.replace(FULL, speaker=0.0), DEFAULT_WEIGHTS),
    "without time words for 'when'": (dataclasses.replace(FULL, time_words=0.0), DEFAULT_WEIGHTS),
    "without the date prior": (dataclasses.replace(FULL, date=0.0), DEFAULT_WEIGHTS),
    "with FTS5's BM25 shape (k1 1.2, b 0.75)": (
        dataclasses.replace(FULL, k1=1.2, b=0.75),
        DEFAULT_WEIGHTS,
    ),
    "without the semantic channel": (FULL, {**DEFAULT_WEIGHTS, "semantic": 0.0}),
    "without the neighbouring turns": (dataclasses.replace(FULL, neighbours=0.0), DEFAULT_WEIGHTS),
    "with a reply lent no more than any neighbour": (
        dataclasses.replace(FULL, replies=FULL.neighbours),
        DEFAULT_WEIGHTS,
    ),
    "with the relevance floor (relevant_only=True)": (FULL, DEFAULT_WEIGHTS),
}
FLOOR = "with the relevance floor (relevant_only=True)"
"""The row whose recall keeps only items with evidence beyond a shared name (the MCP tools'
and the hooks' default): what the floor costs at 10."""


def _fact_weights() -> dict[str, dict[str, float]]:
    configs: dict[str, dict[str, float]] = {"chronomem (fused)": dict(DEFAULT_WEIGHTS)}
    for channel in CHANNELS:
        configs[f"{channel} alone"] = {c: float(c == channel) for c in CHANNELS}
    for channel in CHANNELS:
        configs[f"without {channel}"] = {**DEFAULT_WEIGHTS, channel: 0.0}
    configs[FLOOR] = dict(DEFAULT_WEIGHTS)
    return configs


Configure = Callable[[ChronoMem, Any], None]
Recall = Callable[[ChronoMem, str, bool], list[str]]


ENCODER: str | None = None
"""The vector space the evaluated memories embed with (``--encoder``; None: the default)."""


@contextlib.contextmanager
def _memory(db: str | None, folder: str, i: int) -> Iterator[ChronoMem]:
    """A fresh memory for conversation ``i``: a file in ``folder``, or a PostgreSQL schema of
    its own (dropped afterwards) when ``db`` is a DSN."""
    if db is None:
        with ChronoMem(Path(folder) / f"conv{i}.db", encoder=ENCODER) as mem:
            yield mem
        return
    import psycopg

    schema = f"locomo_{uuid.uuid4().hex[:12]}_{i}"
    try:
        with ChronoMem(db, schema=schema, encoder=ENCODER) as mem:
            yield mem
    finally:
        with psycopg.connect(db, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def _run_path(
    conversations: list[Conversation],
    store: Callable[[ChronoMem, Conversation], dict[str, str]],
    configs: Mapping[str, Any],
    configure: Configure,
    recall: Recall,
    db: str | None = None,
) -> dict[str, Scores]:
    """Store each conversation once, then score every configuration on it."""
    results = {name: Scores() for name in configs}
    with tempfile.TemporaryDirectory() as tmp:
        for i, conv in enumerate(conversations):
            with _memory(db, tmp, i) as mem:
                ids = store(mem, conv)
                for name, config in configs.items():
                    configure(mem, config)
                    for q in conv.questions:
                        start = time.perf_counter()
                        ranked = [ids[x] for x in recall(mem, q.text, name == FLOOR)]
                        results[name].add(q, ranked, time.perf_counter() - start)
    return results


def _set_params(mem: ChronoMem, config: tuple[LexicalParams, Mapping[str, float]]) -> None:
    params, weights = config
    mem._lexical = params
    mem.weights = dict(weights)


def _set_weights(mem: ChronoMem, weights: dict[str, float]) -> None:
    mem.weights = weights


def evaluate(conversations: list[Conversation], db: str | None = None) -> dict[str, Any]:
    """Every figure of the report, as a JSON-able dict (on PostgreSQL if ``db`` is a DSN)."""
    episodes = _run_path(
        conversations, remember_episodes, EPISODE_ABLATIONS, _set_params,
        lambda m, q, floor: [r["id"] for r in m.recall(q, limit=10, kinds=("episode",),
                                                       relevant_only=floor)], db,
    )  # fmt: skip
    facts = _run_path(
        conversations, remember_facts, _fact_weights(), _set_weights,
        lambda m, q, floor: [r["id"] for r in m.recall(q, limit=10, active_only=False,
                                                       relevant_only=floor)], db,
    )  # fmt: skip
    fts5 = score(conversations, fts5_ranker)
    full = episodes["chronomem"]
    return {
        "engine": "sqlite" if db is None else "postgres",
        "encoder": ENCODER or "static",
        "conversations": len(conversations),
        "turns": sum(len(c.turns) for c in conversations),
        "questions": full.count,
        "headline": {
            "chronomem episodes": full.summary(),
            "chronomem facts": facts["chronomem (fused)"].summary(),
            "plain FTS5 BM25": fts5.summary(),
        },
        "per_category_r10": {
            "chronomem episodes": full.per_category(),
            "chronomem facts": facts["chronomem (fused)"].per_category(),
            "plain FTS5 BM25": fts5.per_category(),
        },
        "episode_ablation": {name: s.summary() for name, s in episodes.items()},
        "fact_channels": {name: s.summary() for name, s in facts.items()},
        "latency_ms": {
            "episodes recall": full.latency_ms(),
            "facts recall": facts["chronomem (fused)"].latency_ms(),
        },
    }


def _table(title: str, rows: Mapping[str, Mapping[str, float]]) -> list[str]:
    columns = list(next(iter(rows.values())))
    lines = [f"| {title} | " + " | ".join(columns) + " |", "|---" * (len(columns) + 1) + "|"]
    for name, values in rows.items():
        lines.append(f"| {name} | " + " | ".join(f"{values[c]:.3f}" for c in columns) + " |")
    return lines


_WHERE = {
    "sqlite": "on-disk SQLite, one conversation per file",
    "postgres": "PostgreSQL over a Unix socket, one conversation per schema",
}


def markdown(report: Mapping[str, Any], source: str) -> str:
    """The report as the Markdown committed under bench/."""
    out = [
        "# Recall on real conversations (LoCoMo)",
        "",
        f"Generated by `python scripts/eval_locomo.py` from `{source}`: "
        f"{report['conversations']} conversations, {report['turns']} turns, "
        f"{report['questions']} questions with evidence (categories 1-4), vectors from the "
        f"{report.get('encoder', 'static')} encoder. A hit at k is an evidence turn among the "
        "first k results. Do not edit by hand.",
        "",
        *_table("path", report["headline"]),
        "",
        "R@10 per question category:",
        "",
        *_table("path", report["per_category_r10"]),
        "",
        "Episodes path, each ingredient removed one at a time:",
        "",
        *_table("episodes", report["episode_ablation"]),
        "",
        "Facts path, each channel alone and removed (RRF weights):",
        "",
        *_table("facts", report["fact_channels"]),
        "",
        f"Recall latency in process (ms, {_WHERE[report.get('engine', 'sqlite')]}):",
        "",
        *_table("recall", report["latency_ms"]),
        "",
    ]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    """Run the evaluation and print (and by default write) its report."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("path", nargs="?", type=Path, default=DEFAULT_PATH, help="LoCoMo JSON file")
    parser.add_argument("--limit", type=int, default=None, help="only the first N conversations")
    parser.add_argument(
        "--out", type=Path, default=REPO / "bench", help="folder for locomo.md/json"
    )
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument(
        "--encoder",
        default=None,
        help="the vector space to embed with (minilm-l6: the encoder extra); writes "
        "locomo_<encoder>.md/json",
    )
    parser.add_argument(
        "--db",
        default=None,
        help="a postgresql:// DSN: run on PostgreSQL (a schema per conversation) and write "
        "locomo_postgres.md/json",
    )
    args = parser.parse_args(argv)
    global ENCODER
    ENCODER = args.encoder
    if not args.path.exists():
        parser.error(f"{args.path} not found; pass the path of a LoCoMo JSON file")
    report = evaluate(load(args.path, limit=args.limit), args.db)
    source = args.path.name
    text = markdown(report, source)
    print(text)
    if not args.no_write:
        args.out.mkdir(parents=True, exist_ok=True)
        name = "locomo" if args.db is None else "locomo_postgres"
        if args.encoder not in (None, "static"):
            name += "_" + args.encoder.replace("-", "_")
        (args.out / f"{name}.md").write_text(text, encoding="utf-8")
        as_json = json.dumps(report, indent=2) + "\n"
        (args.out / f"{name}.json").write_text(as_json, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
