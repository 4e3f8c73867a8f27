"""The LangGraph store matrix's verdicts come from its runs: a goal is met only when every run
at every size meets it, and a text query the other store cannot answer is said, not timed."""

from __future__ import annotations

from typing import Any

from scripts.matrix.langgraph_tables import OPS, langgraph_verdicts, render

OURS, THEIRS = "ChronoMemStore (SQLite NORMAL)", "SqliteStore"


def _row(store: str, items: int, op: str, runs: list[float] | None) -> dict[str, Any]:
    if runs is None:
        return {"store": store, "items": items, "op": op, "answers": False, "load": []}
    return {
        "store": store, "items": items, "op": op, "answers": True, "runs_p50": runs,
        "median": sorted(runs)[len(runs) // 2], "low": min(runs), "high": max(runs),
        "p95": max(runs), "load": [],
    }  # fmt: skip


def _result(theirs_get: dict[int, list[float]]) -> dict[str, Any]:
    """Ours at 1 ms on every run; theirs at 2 ms, except get as given per size."""
    rows = []
    for n in (1_000, 100_000):
        for op, _ in OPS:
            rows.append(_row(OURS, n, op, [1.0, 1.0, 1.0]))
            theirs = theirs_get[n] if op == "get" else [2.0, 2.0, 2.0]
            rows.append(_row(THEIRS, n, op, None if op == "search_query" else theirs))
    return {"sizes": [1_000, 100_000], "rows": rows, "runs": 3}


def _verdict(result: dict[str, Any], label: str) -> str:
    [line] = [v for v in langgraph_verdicts(result) if f", {label}:" in v]
    return line


def test_met_only_when_every_run_at_every_size_meets_the_goal() -> None:
    result = _result({1_000: [2.0, 2.0, 2.0], 100_000: [0.9, 1.5, 2.0]})
    assert ": within noise (" in _verdict(result, "get")
    assert ": met (" in _verdict(result, "put (its own commit)")
    result = _result({1_000: [2.0, 2.0, 2.0], 100_000: [0.5, 0.6, 0.9]})
    assert ": missed (" in _verdict(result, "get")
    assert "0.50x" in _verdict(result, "get")  # the slowest run, not the median


def test_a_query_the_other_store_cannot_answer_is_said_not_timed() -> None:
    result = _result({1_000: [2.0] * 3, 100_000: [2.0] * 3})
    assert "only ChronoMemStore answers" in _verdict(result, "search, text query")
    page = render(result)
    assert "cannot answer" in page
    assert "2.00x (2.00-2.00), met" in page
