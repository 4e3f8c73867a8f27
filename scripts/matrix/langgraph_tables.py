"""The LangGraph store matrix's tables and its goal, from ``results.json`` alone (formatting only).

Issue 21's goal: ``ChronoMemStore`` faster than every persistent LangGraph store (``SqliteStore``,
``PostgresStore``) on every operation, at every size. A ratio is the other store's p50 over
``ChronoMemStore``'s, taken run by run (the runs interleave the stores), and a goal is judged
on the whole interval of runs (:func:`scripts.matrix.quiet.judge`): met only when every run
meets it. Imports no LangGraph, so it renders on a machine without the packages.
"""

from __future__ import annotations

import statistics
from typing import Any

from . import quiet
from .fmt import ms, table

__all__ = ["OPS", "PERSISTENT", "langgraph_verdicts", "render"]

OPS = (
    ("put", "put (its own commit)"),
    ("get", "get"),
    ("search_query", "search, text query"),
    ("search_filter", "search, filter only"),
    ("list", "list_namespaces"),
)
PERSISTENT = ("SqliteStore", "PostgresStore")
"""LangGraph's persistent stores: the goal's opponents (``InMemoryStore`` is the floor)."""
_GOAL = 1.0
_CANNOT = "cannot answer"


def _index(result: dict[str, Any]) -> dict[tuple[str, int, str], dict[str, Any]]:
    return {(r["store"], r["items"], r["op"]): r for r in result["rows"]}


def _stores(result: dict[str, Any]) -> list[str]:
    seen: list[str] = []
    for r in result["rows"]:
        if r["store"] not in seen:
            seen.append(r["store"])
    return seen


def _cell(row: dict[str, Any] | None) -> str:
    if row is None:
        return "not measured"
    if not row["answers"]:
        return _CANNOT
    return f"{ms(row['median'])} ({ms(row['low'])}-{ms(row['high'])})"


def _ratios(ours: dict[str, Any], theirs: dict[str, Any]) -> list[float]:
    return [t / o for t, o in zip(theirs["runs_p50"], ours["runs_p50"], strict=True)]


_PAIRS = (
    ("ChronoMemStore (SQLite NORMAL)", "SqliteStore"),  # each as it ships
    ("ChronoMemStore (SQLite NORMAL)", "PostgresStore"),
    ("ChronoMemStore (SQLite FULL)", "SqliteStore"),  # the same durability
    ("ChronoMemStore (PostgreSQL)", "PostgresStore"),  # the same engine
)


def _pairs(result: dict[str, Any]) -> list[tuple[str, str]]:
    """The comparisons the goal is judged on, where both stores were measured."""
    stores = _stores(result)
    return [(o, t) for o, t in _PAIRS if o in stores and t in stores]


def _times(result: dict[str, Any]) -> list[str]:
    by, stores = _index(result), _stores(result)
    header = ["items", "operation", *stores]
    body = [
        [f"{n:,}", label, *(_cell(by.get((s, n, op))) for s in stores)]
        for n in result["sizes"]
        for op, label in OPS
    ]
    return table(header, body)


def _ratio_cell(ours: dict[str, Any] | None, theirs: dict[str, Any] | None) -> str:
    if ours is None or theirs is None:
        return "not measured"
    if not theirs["answers"]:
        return f"only ChronoMemStore answers ({theirs['store']}: {_CANNOT})"
    ratios = _ratios(ours, theirs)
    low, high = min(ratios), max(ratios)
    mid = statistics.median(ratios)
    return f"{mid:.2f}x ({low:.2f}-{high:.2f}), {quiet.judge(low, high, at_least=_GOAL)}"


def _ratio_table(result: dict[str, Any]) -> list[str]:
    by, pairs = _index(result), _pairs(result)
    header = ["items", "operation", *(f"{t} / {o}" for o, t in pairs)]
    body = [
        [f"{n:,}", label, *(_ratio_cell(by.get((o, n, op)), by.get((t, n, op))) for o, t in pairs)]
        for n in result["sizes"]
        for op, label in OPS
    ]
    return table(header, body)


def langgraph_verdicts(result: dict[str, Any]) -> list[str]:
    """The goal per ChronoMemStore, persistent LangGraph store and operation, over every size:
    met when met at every size, missed when missed at any, else within noise."""
    by, out = _index(result), []
    for ours, theirs in _pairs(result):
        for op, label in OPS:
            judged, worst = [], None
            for n in result["sizes"]:
                a, b = by.get((ours, n, op)), by.get((theirs, n, op))
                if a is None or b is None or not b["answers"]:
                    continue
                ratios = _ratios(a, b)
                judged.append(quiet.judge(min(ratios), max(ratios), at_least=_GOAL))
                worst = min(ratios) if worst is None else min(worst, min(ratios))
            if worst is None:
                if op == "search_query" and any(by.get((theirs, n, op)) for n in result["sizes"]):
                    out.append(f"- {ours} vs {theirs}, {label}: only ChronoMemStore answers.")
                continue
            verdict = (
                "missed"
                if "missed" in judged
                else "met"
                if set(judged) == {"met"}
                else "within noise"
            )
            out.append(
                f"- {ours} vs {theirs}, {label}: {verdict} (slowest run {worst:.2f}x "
                f"{theirs}'s speed)."
            )
    return out


def _hits(result: dict[str, Any]) -> list[str]:
    rows = [
        r for r in result["rows"] if r["op"] == "search_query" and r.get("hit_rate") is not None
    ]
    return [
        f"- {r['store']}, {r['items']:,} items: the item asked about is in the top 10 for "
        f"{r['hit_rate']:.0%} of the questions."
        for r in rows
    ]


def _fills(result: dict[str, Any]) -> list[str]:
    """How long ChronoMemStore's untimed fill through ``batch`` took, where it was recorded."""
    said = [
        f"{int(n):,} items {fill['fill_s']:.1f} s" + (" (cached since)" if fill["cached"] else "")
        for n, fill in result.get("fills", {}).items()
        if fill.get("fill_s") is not None
    ]
    if not said:
        return []
    return [
        "",
        "ChronoMemStore's fill through `batch` (one transaction per 1,000 puts, untimed; each "
        f"filled file is cached for later runs): {', '.join(said)}.",
    ]


def render(result: dict[str, Any]) -> str:
    """The comparison as Markdown: p50 per store, the ratios, the goal and search's hit rate."""
    runs = result.get("runs", 1)
    lines = [
        "### LangGraph stores: ChronoMemStore beside InMemoryStore, SqliteStore, PostgresStore",
        "",
        f"Milliseconds, the median p50 of {runs} runs (lowest-highest). LangGraph's stores have "
        "no embedding index here, so they ignore a text query and return the namespace's items "
        f"unranked: *{_CANNOT}*. ChronoMemStore on PostgreSQL is measured up to "
        f"{result.get('pg_ours_max', 0):,} items (its fill through `batch` takes minutes beyond).",
        "",
        *_times(result),
        "",
        "Ratios: the LangGraph store's p50 over ChronoMemStore's, run by run, median (lowest-"
        f"highest) and the goal (>= {_GOAL:g}x) judged on the whole interval.",
        "",
        *_ratio_table(result),
        "",
        "Goal (issue 21): faster than every persistent LangGraph store on every operation.",
        "",
        *langgraph_verdicts(result),
        "",
        *_hits(result),
        *_fills(result),
    ]
    return "\n".join(lines).rstrip() + "\n"
