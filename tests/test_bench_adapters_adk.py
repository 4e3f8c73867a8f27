"""The Google ADK adapter's benchmark (matrix 7b) runs end to end with ADK's Runner pattern."""

from __future__ import annotations

import pytest
from scripts.matrix import adapters_adk, quiet
from scripts.matrix.adapters_adk import render, run


def test_the_benchmark_runs_every_service_and_operation(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(quiet, "settle", lambda: (0.1, 0.0))  # a smoke run waits for no quiet
    monkeypatch.setattr(adapters_adk, "_READS", 3)  # each whole read follows a collection
    monkeypatch.setattr(adapters_adk, "_INVOCATIONS", 4)
    result = run(True, sizes=[5, 40], log=lambda _: None)  # 16 events of invocations between
    rows = result["rows"]
    assert len(rows) == 5 * 2  # five services, two sizes
    for row in rows:
        assert set(row) >= {
            *("append_ms", "window_ms", "all_ms"),
            *("runner_read_ms", "runner_turn_ms"),
        }
        assert len(row["runner_read_ms"]) == 4  # percentiles of the invocations' reads
    text = render(result)
    assert "| FULL | 40 | Runner: get_session() after an invocation | SqliteSessionService |" in (
        text
    )
    assert "Runner: append_event x4 (an invocation) after that read: at least" in text
