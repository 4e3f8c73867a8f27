"""A recall at a past valid time (``as_of``) costs what its time holds, not what came after:
the walk of a common word's postings starts at the newest item valid by then. From the
newest of all, it passed every later item, none of them visible (issue 23: 3.7 ms at 10,000
episodes, 27 ms at 80,000, for a time before most of them).

Cost is counted, not timed: SQLite's virtual-machine steps (a progress handler called every
100 of them) and, on PostgreSQL, the postings the server's scans returned.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from chronomem import ChronoMem, Turn
from tests.chronomem.backends import CountedMemory

THEN = datetime(2023, 3, 1, tzinfo=timezone.utc)
LATER = datetime(2025, 1, 1, tzinfo=timezone.utc)
QUESTION = "what did we say about the garden and the weather?"


def _said(mem: ChronoMem, start: int, count: int, at: datetime) -> None:
    """``count`` turns all holding the question's common words, one a minute from ``at``."""
    mem.remember_episodes(
        [Turn(f"talk {i}: the garden and the weather again", speaker="Ardian",
              session=f"s{i // 50}", at=at + timedelta(minutes=i))
         for i in range(start, start + count)]
    )  # fmt: skip


def _steps(mem: ChronoMem) -> int:
    """SQLite's virtual-machine steps (in hundreds) one as_of recall takes."""
    steps = [0]

    def count() -> int:
        steps[0] += 1
        return 0

    conn = mem._db.conn  # type: ignore[attr-defined]
    conn.set_progress_handler(count, 100)
    try:
        found = mem.recall(QUESTION, limit=5, as_of=THEN + timedelta(days=1))
    finally:
        conn.set_progress_handler(None, 100)
    assert found, "the turns of the time asked about are found"
    assert all(item.at <= THEN + timedelta(days=1) for item in found)  # type: ignore[union-attr]
    return steps[0]


def test_an_as_of_recall_on_sqlite_does_not_grow_with_what_came_after(tmp_path: Path) -> None:
    with ChronoMem(tmp_path / "memory.db", owner="ardian") as mem:
        _said(mem, 0, 60, THEN)  # what was said then
        _said(mem, 1000, 500, LATER)
        _steps(mem)  # statements prepared, pages read
        few = _steps(mem)
        for start in range(2000, 7000, 1000):
            _said(mem, start, 1000, LATER + timedelta(days=start))
        many = _steps(mem)
    # 5,500 later turns against 500: the walk from the newest of all took about 10x the steps
    assert many < 1.5 * few, f"{few} hundred steps with 500 later turns, {many} with 5,500"


def test_an_as_of_recall_on_postgres_reads_the_postings_of_its_time(
    counted_memory: CountedMemory,
) -> None:
    mem = counted_memory.mem
    _said(mem, 0, 60, THEN)
    for start in range(1000, 4000, 1000):
        _said(mem, start, 1000, LATER + timedelta(days=start))
    held, before = counted_memory.rows_read("chronomem_postings")
    found = mem.recall(QUESTION, limit=5, as_of=THEN + timedelta(days=1))
    _, after = counted_memory.rows_read("chronomem_postings")
    assert found
    assert held > 10_000
    # each common word's walk stops at its depth (100) among the turns of then: 60 here
    assert after - before <= 1_000, f"read {after - before} of {held} postings"
