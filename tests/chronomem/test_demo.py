"""The main job: ``chronomem demo`` plays session, memory and MCP on one file and exits 0."""

from __future__ import annotations

from pathlib import Path

import pytest

from chronomem.cli import main

KEY_LINES = [
    # 1. the chronica session: windows, the retried reply, the stranger
    "chronica: one session ('dinner-friday') shared by a human and three agents",
    "Concierge's window: last 4 messages and tool results, no thoughts (4 acta)",
    "Retried reply stored once: True",
    "Another owner asking for the session is refused",
    # 2. the memory: supersede, budgeted recall, the past, the timeline, a contradiction
    "+ Ardian's dinner party size is 6 people   (valid from Wednesday)",
    "token_budget=40",
    "packing stops at the budget",
    "• Ardian's dinner party size is 4 people",
    "dinner party: 3 facts, oldest first (times UTC)",
    "└─ superseded by",
    "reports that it contradicts 1 active fact",
    "contradictions(): ",
    # 3. the same file through the MCP server and the SDK's client
    "tools: chronomem_remember, chronomem_recall",
    "chronomem_recall(query='dinner party size and booking', token_budget=60)",
    "idempotency_key='concierge-note-1'), sent twice",
    "booking    Booked Kinara, Friday 7pm, table for four (#K-2291).\n"
    "     concierge  Noted for next time: six people, Sari is allergic to peanuts.\n"
    "   a bad call",
    "a bad call is a readable tool error",
    "recalls through stdio: p50",
]


def test_demo_shows_the_whole_product(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "chronomem-demo.db").write_text("left over from an earlier run")
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    for line in KEY_LINES:
        assert line in out, line
    # The session and the memory share the one file in the working directory.
    assert "chronomem-demo.db" in out
    assert (tmp_path / "chronomem-demo.db").stat().st_size > 0
