"""Matrices 3 and 4: every system answers every graded question; the answers are scored.

Scores per question: precision@k (share of returned sentences that answer it), recall@k (share
of the answer key returned), hit@1 (the first sentence answers it), ghost belief (a superseded
or not-yet-valid sentence was returned; only questions that have such sentences count) and the
tokens the answer would put in the prompt.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from chronomem import estimate_tokens

from .data import TIERS, Case, Corpus
from .quiet import guarded
from .stats import percentiles
from .systems import MemorySystem

__all__ = ["run_graded", "score_case"]


def score_case(case: Case, answer: list[str]) -> dict[str, float]:
    """The per-question scores (ghost is -1 when the question has no ghost sentences)."""
    hits = sum(1 for s in answer if s in case.relevant)
    return {
        "precision": hits / len(answer) if answer else 0.0,
        "recall": hits / len(case.relevant),
        "hit1": 1.0 if answer and answer[0] in case.relevant else 0.0,
        "ghost": (1.0 if any(s in case.ghosts for s in answer) else 0.0) if case.ghosts else -1.0,
        "tokens": float(sum(estimate_tokens(s) for s in answer)),
    }


def _mean(rows: list[dict[str, float]], key: str) -> float | None:
    values = [r[key] for r in rows if r[key] >= 0]
    return statistics.fmean(values) if values else None


def _summarise(rows: list[dict[str, float]]) -> dict[str, float | None]:
    out = {key: _mean(rows, key) for key in ("precision", "recall", "hit1", "ghost", "tokens")}
    out["n"] = float(len(rows))
    return out


def _ingest(system: MemorySystem, corpus: Corpus) -> float:
    started = time.perf_counter()
    for event in corpus.events:
        system.ingest(event)
    build = getattr(system, "build", None)
    if callable(build):
        build()  # a vector store embeds in bulk; that is part of its ingestion cost
    return time.perf_counter() - started


def evaluate(system: MemorySystem, corpus: Corpus) -> dict[str, Any]:
    """Ingest the corpus, ask every question, and summarise per tier and overall."""
    ingest_s = _ingest(system, corpus)
    rows: dict[str, list[dict[str, float]]] = {tier: [] for tier in TIERS}
    latencies: list[float] = []
    for case in corpus.cases:
        started = time.perf_counter()
        answer = system.recall(case.query, budget=case.budget, k=case.k, as_of=case.as_of)
        latencies.append(time.perf_counter() - started)
        rows[case.tier].append(score_case(case, answer))
    everything = [r for tier in TIERS for r in rows[tier]]
    return {
        "tiers": {tier: _summarise(rows[tier]) for tier in TIERS},
        "overall": _summarise(everything),
        "ingest_s": ingest_s,
        "ingest_per_fact_ms": 1000 * ingest_s / max(1, len(corpus.events)),
        "recall_ms": {k: 1000 * v for k, v in percentiles(latencies).items()},
    }


def _contradictions_flagged(system: MemorySystem, corpus: Corpus) -> float | None:
    pairs_of = getattr(system, "contradiction_pairs", None)
    if not callable(pairs_of):
        return None
    flagged = pairs_of()
    cases = [c for c in corpus.cases if c.tier == "contradiction"]
    return statistics.fmean(1.0 if c.relevant in flagged else 0.0 for c in cases)


def run_graded(
    corpus: Corpus, factories: list[Callable[[], MemorySystem]], log: Callable[[str], None]
) -> dict[str, Any]:
    """Evaluate each system (built fresh by its factory) on the same corpus."""
    results: dict[str, Any] = {
        "facts": len(corpus.events),
        "questions": len(corpus.cases),
        "systems": {},
    }
    for factory in factories:
        summary, load = guarded("graded", partial(_one, factory, corpus, log), log)
        results["systems"][summary.pop("name")] = summary | {"load": load}
    return results


def _one(
    factory: Callable[[], MemorySystem], corpus: Corpus, log: Callable[[str], None]
) -> dict[str, Any]:
    """One system built fresh and evaluated (a row measured again under load starts over)."""
    system = factory()
    try:
        log(f"graded: {system.name} on {len(corpus.events)} facts")
        summary = evaluate(system, corpus)
        summary["contradictions_flagged"] = _contradictions_flagged(system, corpus)
        return summary | {"name": system.name}
    finally:
        system.close()
