"""Retention that counts use: recall records when it returned each item, in batches, and
``prune(unused_for=...)`` erases what it has not returned for that long, on both engines.

Time is moved by a clock the test holds (the memory's own, replaced), so "a year later" is
a number, not a wait.
"""

from __future__ import annotations

import logging
import subprocess
import sys
import threading
import time
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

import psycopg
import psycopg.conninfo
import pytest

from chronomem import ChronoMem, Fact, InvalidArgumentError, Purged
from chronomem.write import uses
from tests.chronomem.backends import MemoryTarget, dsn_url, rows

DAY = 86_400 * 1_000_000
MINUTE = 60 * 1_000_000


class Clock:
    """Epoch microseconds that move only when told, strictly increasing as the system
    clock's are (each call one microsecond on)."""

    def __init__(self) -> None:
        self.at = int(datetime.now(timezone.utc).timestamp() * 1_000_000)
        self._lock = threading.Lock()

    def now(self) -> int:
        with self._lock:
            self.at += 1
            return self.at

    def advance(self, us: int) -> None:
        with self._lock:
            self.at += us


def _clocked(mem: ChronoMem) -> Clock:
    clock = Clock()
    mem._clock = clock  # type: ignore[assignment]  # white-box: the test moves time
    return clock


def _used(mem: ChronoMem) -> dict[str, int]:
    """Each item's stored last use, by id."""
    found = rows(mem, """SELECT f.id, u.at FROM chronomem_used u
                         JOIN chronomem_facts f ON f.rowid = u.item""")  # fmt: skip
    return {str(i): int(at) for i, at in found}


def test_prune_spares_what_recall_returned(memory_target: MemoryTarget) -> None:
    with memory_target.open(owner="ardian") as mem:
        clock = _clocked(mem)
        home = mem.remember("Ardian lives in Kemang", category="home")
        food = mem.remember("Ardian likes durian", category="food")
        said = mem.remember_episode("the Kinara booking is at seven", speaker="ardian",
                                    session="s1")  # fmt: skip
        clock.advance(200 * DAY)
        assert [f.id for f in mem.recall("where does Ardian live", kinds=("fact",), limit=1)] == [
            home
        ]
        # Reads by id, timelines and exports are no use (see write/uses.py).
        mem.get(food)
        mem.timeline("Ardian")
        list(mem.export_facts())
        clock.advance(200 * DAY)
        pruned = mem.prune(unused_for=timedelta(days=365))
        assert (pruned.facts, pruned.episodes) == (1, 1)
        assert mem.get(home).content == "Ardian lives in Kemang"
        for gone in (food, said):
            tomb = mem.get(gone)
            assert tomb.purged_at is not None
            assert tomb.content == ""
            assert tomb.purge_reason == "retention: not recalled for 365 days, 0:00:00"
        assert mem.prune(unused_for=timedelta(days=365)) == Purged()  # idempotent
        assert set(_used(mem)) == {home}  # a purge takes an item's use with it
        clock.advance(200 * DAY)
        assert mem.prune(unused_for=timedelta(days=365)).facts == 1  # unused since day 200


def test_recall_writes_in_batches_and_a_hot_item_once_an_hour(
    memory_target: MemoryTarget,
) -> None:
    with memory_target.open() as mem:
        clock = _clocked(mem)
        ids = [mem.remember(f"fact number {i} about zebras") for i in range(3)]
        first = mem.recall("zebras")
        assert {f.id for f in first} == set(ids)
        assert _used(mem) == {}  # buffered: recall itself wrote nothing
        clock.advance(10 * 1_000_000)
        mem.recall("zebras")
        assert _used(mem) == {}  # within the flush interval: still nothing
        clock.advance(uses.FLUSH_SECONDS * 1_000_000)
        mem.recall("zebras")  # a minute since the last write: this recall writes
        stored = _used(mem)
        assert set(stored) == set(ids)
        clock.advance(20 * MINUTE)
        mem.recall("zebras")
        clock.advance(2 * MINUTE)
        mem.recall("zebras")
        assert _used(mem) == stored  # noted within the hour: not written again
        clock.advance(2 * 60 * MINUTE)
        mem.recall("zebras")
        clock.advance(2 * MINUTE)
        mem.recall("nothing that matches, but it writes what is due")
        later = _used(mem)
        assert all(later[i] >= stored[i] + 60 * MINUTE for i in ids)


def test_a_full_buffer_is_written_by_the_recall_that_fills_it(
    memory_target: MemoryTarget, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(uses, "FLUSH_ITEMS", 4)
    with memory_target.open() as mem:
        for i in range(5):
            mem.remember(f"item {i} about quokkas")
        mem.recall("quokkas", limit=3)
        assert _used(mem) == {}
        mem.recall("quokkas", limit=5)  # five distinct ids noted: over four, written now
        assert len(_used(mem)) == 5


def test_a_memory_that_recalls_once_then_idles_writes_within_the_interval(
    memory_target: MemoryTarget, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No further recall, no close: the timer writes the buffer (here after 0.2 s)."""
    monkeypatch.setattr(uses, "FLUSH_SECONDS", 0.2)
    with memory_target.open() as mem:
        fid = mem.remember("Ardian lives in Kemang")
        mem.recall("Ardian")
        assert _used(mem) == {}
        deadline = time.monotonic() + 10
        while not _used(mem) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert set(_used(mem)) == {fid}


def test_another_process_sees_uses_after_close(memory_target: MemoryTarget) -> None:
    with memory_target.open() as mem:
        fid = mem.remember("Ardian lives in Kemang")
        mem.recall("Ardian")
    with memory_target.open() as again:
        assert set(_used(again)) == {fid}


def test_a_lost_buffer_only_makes_items_look_older(memory_target: MemoryTarget) -> None:
    """A process killed before it wrote its buffer: the items keep their older use (here:
    none) and nothing else changes."""
    with memory_target.open() as mem:
        fid = mem.remember("Ardian lives in Kemang")
        before = rows(mem, "SELECT * FROM chronomem_facts ORDER BY rowid")
    script = (
        "import os, sys\n"
        "from tests.chronomem.backends import MemoryTarget\n"
        "t = MemoryTarget(*sys.argv[1:4])\n"
        "m = t.open()\n"
        "assert m.recall('Ardian')\n"
        "os._exit(0)\n"
    )
    args = [memory_target.engine, memory_target.path, memory_target.schema or ""]
    if memory_target.schema is None:
        script = script.replace("sys.argv[1:4]", "sys.argv[1:3]")
        args = args[:2]
    subprocess.run([sys.executable, "-c", script, *args], check=True, cwd=Path.cwd())
    with memory_target.open() as mem:
        assert _used(mem) == {}
        assert rows(mem, "SELECT * FROM chronomem_facts ORDER BY rowid") == before
        assert mem.get(fid).content == "Ardian lives in Kemang"


def test_a_use_noted_before_a_purge_or_an_erasure_is_not_written(
    memory_target: MemoryTarget,
) -> None:
    with memory_target.open(owner="ardian") as mem:
        gone = mem.remember("Ardian lives in Kemang")
        mem.recall("Ardian")
        mem.purge(gone)  # the buffered use of it is written after, at close
        other = mem.for_owner("beatriz")
        erased = other.remember("Beatriz lives in Menteng")
        other.recall("Beatriz")
        other.erase_owner()
        mem.close()
        with memory_target.open(owner="ardian") as again:
            assert _used(again) == {}
            assert again.get(gone).purged_at is not None
            assert rows(again, "SELECT id FROM chronomem_facts WHERE id = ?", (erased,)) == []


def test_prune_keeps_the_lineage_a_purge_keeps(memory_target: MemoryTarget) -> None:
    with memory_target.open() as mem:
        clock = _clocked(mem)
        old = mem.remember("Mina's doctor is Dr Sutanto", category="health")
        clock.advance(10 * DAY)
        new = mem.supersede(old, "Mina's doctor is Dr Hartono", category="health")
        clock.advance(400 * DAY)
        assert [f.id for f in mem.recall("Mina's doctor", limit=1)] == [new]
        assert mem.prune(unused_for=timedelta(days=365)).facts == 1
        tomb = mem.get(old)
        assert isinstance(tomb, Fact)
        assert tomb.content == ""
        assert tomb.superseded_by == new
        assert [f.id for f in mem.timeline("Mina")] == [new]
        assert [f.id for f in mem.recall("Mina's doctor", as_of=datetime.now(timezone.utc)
                                         + timedelta(days=30))] == [new]  # fmt: skip
        assert all(f.id != old for f in mem.recall("Sutanto", active_only=False))


def test_items_stored_before_the_upgrade_count_from_it(memory_target: MemoryTarget) -> None:
    """An item written before its file recorded uses counts from when recording began."""
    with memory_target.open() as mem:
        fid = mem.remember("Ardian lives in Kemang")
        [(since,)] = rows(mem, "SELECT value FROM chronomem_settings WHERE key = 'uses_since'")
        clock = _clocked(mem)
        clock.at = int(since) + 400 * DAY
        # Pretend the file began recording uses 300 days after the fact was written.
        with mem._db.write() as conn:
            conn.execute(
                "UPDATE chronomem_facts SET system_time = system_time - ? WHERE id = ?",
                (300 * DAY, fid),
            )
        assert mem.prune(unused_for=timedelta(days=500)) == Purged()
        assert mem.prune(unused_for=timedelta(days=365)).facts == 1


def test_bad_input_is_refused_and_writes_nothing(memory_target: MemoryTarget) -> None:
    with memory_target.open() as mem:
        mem.remember("Ardian lives in Kemang")
        mem.recall("Ardian")
        for age in (timedelta(0), timedelta(days=-1), 90, "365d", timedelta.max):
            with pytest.raises(InvalidArgumentError, match="unused_for"):
                mem.prune(unused_for=age)  # type: ignore[arg-type]  # the wrong type is the test
        with pytest.raises(InvalidArgumentError, match="unused_for"):
            mem.prune(episodes_older_than=timedelta(days=1), unused_for="1d")  # type: ignore[arg-type]
        with pytest.raises(InvalidArgumentError, match="or unused_for must be given"):
            mem.prune()
        assert _used(mem) == {}  # the refused calls wrote not even the buffered uses
        for bad in (None, 1, "yes"):
            with pytest.raises(InvalidArgumentError, match="track_use"):
                memory_target.open(track_use=bad)


def test_track_use_off_writes_nothing(memory_target: MemoryTarget) -> None:
    with memory_target.open(track_use=False) as mem:
        mem.remember("Ardian lives in Kemang")
        assert mem.recall("Ardian")
        mem.prune(unused_for=timedelta(days=1))
        assert _used(mem) == {}


def test_a_memory_that_may_only_read_recalls_and_warns_once(
    pg_dsn: str, pg_schema: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A role granted SELECT alone (issue 20 item 11) recalls as before; its first flush
    fails, is logged, and recording stops (no warning per recall)."""
    target = MemoryTarget("postgres", dsn_url(pg_dsn), pg_schema)
    with target.open() as mem:
        mem.remember("Noor works at Acme", entities=["Noor"])
    role = f"reader_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(pg_dsn, autocommit=True) as admin:
        admin.execute(f"CREATE ROLE {role} LOGIN")
        admin.execute(f"GRANT CONNECT ON DATABASE {admin.info.dbname} TO {role}")
        admin.execute(f'GRANT USAGE ON SCHEMA "{pg_schema}" TO {role}')
        admin.execute(f'GRANT SELECT ON ALL TABLES IN SCHEMA "{pg_schema}" TO {role}')
    try:
        as_reader = dsn_url(psycopg.conninfo.make_conninfo(pg_dsn, user=role))
        with (
            caplog.at_level(logging.WARNING, "chronomem"),
            ChronoMem(as_reader, schema=pg_schema) as reader,
        ):
            clock = _clocked(reader)
            for _ in range(3):
                assert reader.recall("Noor Acme")
                clock.advance(2 * uses.FLUSH_SECONDS * 1_000_000)
        warned = [r.message for r in caplog.records if "stops recording" in r.message]
        assert len(warned) == 1
        assert "permission denied" in warned[0]
        with target.open() as mem:
            assert _used(mem) == {}
    finally:
        with psycopg.connect(pg_dsn, autocommit=True) as admin:
            admin.execute(f'REVOKE ALL ON ALL TABLES IN SCHEMA "{pg_schema}" FROM {role}')
            admin.execute(f'REVOKE ALL ON SCHEMA "{pg_schema}" FROM {role}')
            admin.execute(f"REVOKE ALL ON DATABASE {admin.info.dbname} FROM {role}")
            admin.execute(f"DROP ROLE {role}")


def test_threads_recall_while_others_purge_and_prune(memory_target: MemoryTarget) -> None:
    """Recalls in eight threads (each flushing, often) beside a purge and a prune: nothing
    fails, and every stored use is of an item that exists and is not purged."""
    with memory_target.open() as mem:
        clock = _clocked(mem)
        ids = [mem.remember(f"note {i} about the harbour crane {i % 7}") for i in range(60)]
        clock.advance(400 * DAY)
        errors: list[BaseException] = []

        def recall(n: int) -> None:
            try:
                for i in range(25):
                    mem.recall(f"harbour crane {(n + i) % 7}", limit=5)
                    clock.advance(uses.FLUSH_SECONDS * 1_000_000 // 4)
            except BaseException as e:  # reported by the main thread
                errors.append(e)

        threads = [threading.Thread(target=recall, args=(n,)) for n in range(8)]
        for t in threads:
            t.start()
        for fid in ids[:5]:
            mem.purge(fid)
        pruned = mem.prune(unused_for=timedelta(days=365))
        for t in threads:
            t.join()
        mem.close()
        assert errors == []
        with memory_target.open() as again:
            live = {
                str(i)
                for (i,) in rows(again, "SELECT id FROM chronomem_facts WHERE purged_at IS NULL")
            }
            assert set(_used(again)) <= live
            assert pruned.facts + 5 + len(live) == 60


def test_two_memories_write_one_item_at_most_once_an_hour(memory_target: MemoryTarget) -> None:
    """Two processes' buffers (two memories here) recalling one item: the second one's use,
    ten minutes later, does not move the stored time; two hours later it does."""
    clock = Clock()
    first, second = memory_target.open(), memory_target.open()
    for mem in (first, second):
        mem._clock = clock  # type: ignore[assignment]  # white-box: one clock for both
    fid = first.remember("Ardian lives in Kemang")
    first.recall("Ardian")
    first.close()
    stored = _used(second)[fid]
    clock.advance(10 * MINUTE)
    second.recall("Ardian")
    second.prune(unused_for=timedelta(days=1))  # writes the buffer first
    assert _used(second)[fid] == stored
    clock.advance(2 * 60 * MINUTE)
    second.recall("Ardian")
    second.close()
    with memory_target.open() as mem:
        assert _used(mem)[fid] > stored + 60 * MINUTE


def test_memories_flushing_the_same_items_at_once(
    memory_target: MemoryTarget, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two memories (each its own connection or pool), four threads each, writing their
    buffers every other recall over the same items: no deadlock, no error, and every item's
    stored use is one a recall noted (none later than the clock)."""
    monkeypatch.setattr(uses, "FLUSH_ITEMS", 2)
    clock = Clock()
    mems = [memory_target.open(), memory_target.open()]
    for mem in mems:
        mem._clock = clock  # type: ignore[assignment]  # white-box: one clock for all
    ids = [mems[0].remember(f"crane {i} at the harbour") for i in range(12)]
    errors: list[BaseException] = []

    def recall(mem: ChronoMem) -> None:
        try:
            for _ in range(15):
                mem.recall("harbour crane", limit=12)
                clock.advance(2 * 60 * MINUTE)  # past the hour: every item is noted again
        except BaseException as e:  # reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=recall, args=(m,)) for m in mems for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for mem in mems:
        mem.close()
    assert errors == []
    with memory_target.open() as mem:
        stored = _used(mem)
    assert set(stored) == set(ids)
    assert all(at <= clock.at for at in stored.values())
