"""A recall at a past valid time (``as_of``) or as believed at a past moment (``known_at``)
costs what its time holds, not what came after: the walk of a common word's postings starts
at the newest item of that time. From the newest of all, it passed every later item, none
of them visible (issue 23: 3.7 ms at 10,000 episodes, 27 ms at 80,000, for an ``as_of``
before most of them; 6.8 and 35 ms for such a ``known_at``).

Cost is counted, not timed: SQLite's virtual-machine steps (a progress handler called every
100 of them) and, on PostgreSQL, the postings the server's scans returned.
"""

from __future__ import annotations

import time
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


def _steps(mem: ChronoMem, known_at: datetime | None = None) -> int:
    """SQLite's virtual-machine steps (in hundreds) one as_of recall takes, or with
    ``known_at``, one recall as believed then."""
    steps = [0]

    def count() -> int:
        steps[0] += 1
        return 0

    conn = mem._db.conn  # type: ignore[attr-defined]
    conn.set_progress_handler(count, 100)
    try:
        if known_at is None:
            found = mem.recall(QUESTION, limit=5, as_of=THEN + timedelta(days=1))
        else:
            found = mem.recall(QUESTION, limit=5, known_at=known_at)
    finally:
        conn.set_progress_handler(None, 100)
    assert found, "the turns of the time asked about are found"
    if known_at is None:
        assert all(item.at <= THEN + timedelta(days=1) for item in found)  # type: ignore[union-attr]
    else:
        assert all(item.system_time <= known_at for item in found)
    return steps[0]


def _caught_up(mem: ChronoMem) -> None:
    """One recall after the writes: the process's nearest-neighbour copy reads each new
    vector once, at its first search after the write (tests/chronomem/recall/test_nearest.py
    counts that), which is the writes' cost, not this recall's."""
    mem.recall("anything", limit=1)


def _believed_then(mem: ChronoMem) -> datetime:
    """Record the turns of then and return a moment after them, before anything later."""
    _said(mem, 0, 60, THEN)
    time.sleep(0.002)  # system time is the clock's: the moment lies between the two
    moment = datetime.now(timezone.utc)
    time.sleep(0.002)
    return moment


def test_an_as_of_recall_on_sqlite_does_not_grow_with_what_came_after(tmp_path: Path) -> None:
    with ChronoMem(tmp_path / "memory.db", owner="ardian") as mem:
        _said(mem, 0, 60, THEN)  # what was said then
        _said(mem, 1000, 500, LATER)
        _steps(mem)  # statements prepared, pages read
        few = _steps(mem)
        for start in range(2000, 7000, 1000):
            _said(mem, start, 1000, LATER + timedelta(days=start))
        _caught_up(mem)
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


def test_a_known_at_recall_on_sqlite_does_not_grow_with_what_was_recorded_after(
    tmp_path: Path,
) -> None:
    with ChronoMem(tmp_path / "memory.db", owner="ardian") as mem:
        moment = _believed_then(mem)
        _said(mem, 1000, 500, LATER)
        _steps(mem, moment)  # statements prepared, pages read
        few = _steps(mem, moment)
        for start in range(2000, 7000, 1000):
            _said(mem, start, 1000, LATER + timedelta(days=start))
        _caught_up(mem)
        many = _steps(mem, moment)
    assert many < 1.5 * few, f"{few} hundred steps with 500 later turns, {many} with 5,500"


def test_a_known_at_recall_on_postgres_reads_the_postings_of_its_time(
    counted_memory: CountedMemory,
) -> None:
    mem = counted_memory.mem
    moment = _believed_then(mem)
    for start in range(1000, 4000, 1000):
        _said(mem, start, 1000, LATER + timedelta(days=start))
    held, before = counted_memory.rows_read("chronomem_postings")
    found = mem.recall(QUESTION, limit=5, known_at=moment)
    _, after = counted_memory.rows_read("chronomem_postings")
    assert found
    assert all(item.system_time <= moment for item in found)
    assert held > 10_000
    assert after - before <= 1_000, f"read {after - before} of {held} postings"
