"""The seed's promises for chronomem, in one module the seed's own command runs.

The seed says ``uv run --with pytest pytest tests/test_chronomem.py``: that environment has
chronomem and pytest and nothing else, so this module needs nothing else either. The deeper
suites live in ``tests/chronomem/``; this one checks, end to end, what the seed's README
promises a user of the Python API.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from chronomem import ChronoMem, FactNotActiveError, FactNotFoundError

WIFI = "ThinkPad T14 primary interface is Wi-Fi"
ETHERNET = "ThinkPad T14 primary interface switched to Ethernet"


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[ChronoMem]:
    with ChronoMem(tmp_path / "agent_memory.db") as memory:
        yield memory


def test_the_seed_snippet_runs_verbatim(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with ChronoMem("agent_memory.db") as mem:
        # 1. Ingest fact
        f1 = mem.remember("ThinkPad T14 primary interface is Wi-Fi", category="net")

        # 2. Invalidate and supersede upon state change
        f2 = mem.supersede(
            f1, "ThinkPad T14 primary interface switched to Ethernet", category="net"
        )

        # 3. Query active facts with token constraint
        facts = mem.recall("ThinkPad network interface", token_budget=150, active_only=True)
        for f in facts:
            print(f"[{f['trust_score']:.1f}] {f['content']}")

        # 4. Audit lineage
        history = mem.timeline("ThinkPad T14")
        assert len(history) == 2
    assert [f["id"] for f in facts] == [f2]
    assert (tmp_path / "agent_memory.db").is_file()


def test_supersede_closes_the_old_belief_and_keeps_it(mem: ChronoMem) -> None:
    old = mem.remember(WIFI, category="net")
    new = mem.supersede(old, ETHERNET, category="net")
    first, second = mem.timeline("ThinkPad T14")
    assert (first["id"], second["id"]) == (old, new)
    assert first["superseded_by"] == new
    assert first["valid_until"] is not None
    assert second["valid_until"] is None
    # The old belief is kept: get() reads it, and recall finds it once asked for history.
    assert mem.get(old)["content"] == WIFI
    assert [f["id"] for f in mem.recall("ThinkPad interface")] == [new]
    assert {f["id"] for f in mem.recall("ThinkPad interface", active_only=False)} == {old, new}
    with pytest.raises(FactNotActiveError):
        mem.supersede(old, "ThinkPad T14 primary interface is USB")


def test_recall_is_bitemporal(mem: ChronoMem) -> None:
    start = datetime.now(timezone.utc) - timedelta(days=10)
    old = mem.remember(WIFI, category="net", valid_from=start)
    switch = start + timedelta(days=5)
    new = mem.supersede(old, ETHERNET, category="net", valid_from=switch)
    now = [f["id"] for f in mem.recall("ThinkPad interface")]
    before = [f["id"] for f in mem.recall("ThinkPad interface", as_of=switch - timedelta(days=1))]
    assert (now, before) == ([new], [old])
    believed = mem.recall("ThinkPad interface", known_at=start - timedelta(days=1))
    assert believed == []  # nothing was known before the first fact was recorded


def test_the_token_budget_is_exact(mem: ChronoMem) -> None:
    for i in range(30):
        mem.remember(f"Kinara note {i}: the quiet corner table seats {i % 6 + 2} people")
    for budget in (0, 1, 20, 57, 200):
        facts = mem.recall("Kinara quiet table", token_budget=budget, limit=100)
        assert sum(f["tokens"] for f in facts) <= budget
    assert mem.recall("Kinara quiet table", token_budget=200, limit=100)


def test_contradictions_are_surfaced_not_silent(mem: ChronoMem) -> None:
    first = mem.remember("Kinara booking time is 19:00 on Friday", category="booking")
    second = mem.remember("Kinara booking time is 20:00 on Friday", category="booking")
    assert first in second.contradicts
    (found,) = mem.contradictions()
    assert set(found.fact_ids) == {first, second}


@pytest.mark.parametrize("query", ['"', "NEAR(a b) OR *", "col:x AND ^", "\u202e😀", "'; --"])
def test_any_query_is_safe(mem: ChronoMem, query: str) -> None:
    mem.remember("Ardian prefers quiet tables")
    mem.recall(query)  # FTS5 syntax in a query is text, never a syntax error
    assert [f["content"] for f in mem.recall(f"quiet tables {query}")] == [
        "Ardian prefers quiet tables"
    ]


def test_forget_is_soft_and_the_file_keeps_everything(tmp_path: Path) -> None:
    path = tmp_path / "agent_memory.db"
    with ChronoMem(path) as mem:
        kept = mem.remember("Sari is allergic to peanuts", entities=["Sari"])
        gone = mem.remember("Sari likes loud bars", entities=["Sari"])
        mem.forget(gone, reason="wrong")
    with ChronoMem(path) as mem:  # a new process would see the same
        assert [f["id"] for f in mem.recall("Sari")] == [kept]
        assert {f["id"] for f in mem.timeline("Sari")} == {kept, gone}
        with pytest.raises(FactNotFoundError):
            mem.forget("no-such-fact")
