"""The OpenAI Agents SDK adapter's benchmark runs end to end, and states its goals honestly."""

from __future__ import annotations

from typing import Any

from scripts.matrix import adapters_openai
from scripts.matrix.adapters_openai import render, run

OURS, THEIRS = adapters_openai._OURS, adapters_openai._THEIRS


def test_the_benchmark_runs_every_session_and_operation() -> None:
    result = run(True, sizes=[5, 150], log=lambda _: None)
    rows = result["rows"]
    assert len(rows) == 2 * 2 * 2  # two stores, two settings, two sizes
    for row in rows:
        assert set(row) >= {"append_ms", "turn_ms", "window_ms", "all_ms"}
    assert "| FULL | 150 | get_items(limit=20) |" in render(result)


def _row(store: str, sync: str, items: int, ms: float, window: float) -> dict[str, Any]:
    timing = {"p50": ms, "p95": ms * 2}
    return {
        "store": store,
        "synchronous": sync,
        "items": items,
        "append_ms": timing,
        "turn_ms": timing,
        "all_ms": timing,
        "window_ms": {"p50": window, "p95": window * 2},
    }


def test_verdicts_come_from_the_data() -> None:
    rows = [
        row
        for sync in ("FULL", "NORMAL")
        for row in (
            _row(THEIRS, sync, 100, 0.9, 0.3),
            _row(THEIRS, sync, 10_000, 0.9, 0.3),
            _row(OURS, sync, 100, 0.2 if sync == "FULL" else 0.5, 0.1),
            _row(
                OURS, sync, 10_000, 0.2 if sync == "FULL" else 0.5, 0.1 if sync == "FULL" else 0.2
            ),
        )
    ]
    text = render({"sizes": [100, 10_000], "rows": rows})
    assert "- FULL, append 1 item: at least 4.5x faster, meets the 3x goal." in text
    assert "- NORMAL, append 1 item: at least 1.8x faster, misses the 3x goal." in text
    assert "- FULL, get_items(limit=20) from 100 to 10,000 items: 1.00x the time (flat)." in text
    assert (
        "- NORMAL, get_items(limit=20) from 100 to 10,000 items: 2.00x the time (not flat)." in text
    )
