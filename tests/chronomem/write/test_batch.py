"""ChronoMem.batch and ChronoMem.remember_episodes: many writes in one transaction, through the
public API, on both engines."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime, timezone

import pytest

from chronomem import (
    ChronoMem,
    Episode,
    FactNotActiveError,
    InvalidArgumentError,
    InvalidFactError,
    Turn,
)
from tests.chronomem.backends import MemoryTarget


class Boom(Exception):
    pass


def failing_batch(mem: ChronoMem, work: Callable[[], object]) -> None:
    """Run ``work`` in a batch that then raises :class:`Boom`."""
    with mem.batch():
        work()
        raise Boom


def test_a_batch_commits_its_writes_together(memory_target: MemoryTarget) -> None:
    with memory_target.open() as mem, memory_target.open() as other:
        with mem.batch():
            fid = mem.remember("Ardian lives in Kemang")
            eid = mem.remember_episode("I moved to Kemang", speaker="Ardian", session="s")
            # Reads inside the batch see its writes; another connection does not, yet.
            assert [f.id for f in mem.recall("Kemang", kinds=("fact",))] == [fid]
            assert mem.get(eid).content == "I moved to Kemang"
            assert other.stats()["facts"] == 0
        assert other.stats()["facts"] == 1
        assert other.stats()["episodes"] == 1


def test_an_exception_rolls_the_whole_batch_back(memory_target: MemoryTarget) -> None:
    with memory_target.open() as mem:
        kept = mem.remember("Ardian lives in Kemang")

        def work() -> None:
            mem.supersede(kept, "Ardian lives in Menteng")
            mem.remember_episode("I moved to Menteng", speaker="Ardian", session="s")
            with mem.batch():  # a batch inside a batch joins it
                mem.for_owner("mina").remember("Mina lives in Bintaro")

        with pytest.raises(Boom):
            failing_batch(mem, work)
        assert mem.stats()["facts"] == mem.stats()["active"] == 1
        assert mem.stats()["episodes"] == 0
        assert mem.for_owner("mina").stats()["facts"] == 0
        assert mem.get(kept)["superseded_by"] is None


def test_a_batch_that_reads_before_it_writes_still_rolls_back_whole(
    memory_target: MemoryTarget,
) -> None:
    # On PostgreSQL a read inside a batch, before its first write, left psycopg believing no
    # transaction was open: each write's savepoint then began and committed a transaction of
    # its own, so an exception later in the batch rolled back nothing written before it (the
    # LangGraph store reads first in every batch).
    with memory_target.open() as mem:
        kept = mem.remember("Ardian lives in Kemang")

        def work() -> None:
            mem.timeline("Ardian")
            mem.supersede(kept, "Ardian lives in Menteng")
            mem.stats()
            mem.remember("Mina lives in Bintaro")

        with pytest.raises(Boom):
            failing_batch(mem, work)
        assert [f["content"] for f in mem.export_facts()] == ["Ardian lives in Kemang"]
        assert mem.get(kept)["superseded_by"] is None


def test_a_failed_write_inside_a_batch_is_undone_alone(memory_target: MemoryTarget) -> None:
    with memory_target.open() as mem:
        with mem.batch():
            before = mem.remember("Ardian lives in Kemang")
            record = {**next(iter(mem.export_facts())), "id": "f" * 32}
            dangling = {**record, "superseded_by": "ghost", "invalidated_at": record["system_time"]}
            # The import inserts the record, then finds its lineage broken: it is undone, and
            # the batch goes on.
            with pytest.raises(InvalidFactError, match="superseded_by"):
                mem.import_facts([dangling])
            mem.forget(before)
            with pytest.raises(FactNotActiveError):
                mem.forget(before)
            after = mem.remember("Ardian lives in Menteng")
        assert [f["id"] for f in mem.export_facts()] == [before, after]
        assert mem.get(before).forgotten


def test_other_threads_keep_their_own_writes(memory_target: MemoryTarget) -> None:
    with memory_target.open() as mem:
        done: list[str] = []
        writer = threading.Thread(target=lambda: done.append(mem.remember("Mina likes tea")))

        def work() -> None:
            mem.remember("Ardian likes coffee")
            # On SQLite the thread waits for the batch; on PostgreSQL it commits on its own.
            writer.start()

        with pytest.raises(Boom):
            failing_batch(mem, work)
        writer.join(timeout=60)
        assert [f.content for f in mem.recall("likes")] == ["Mina likes tea"]
        assert [mem.get(fid).content for fid in done] == ["Mina likes tea"]


def turns(session: str, *sources: str) -> list[Turn]:
    at = datetime(2024, 5, 1, 9, tzinfo=timezone.utc)
    return [
        Turn(f"turn {s} about the trip", speaker="Ardian", session=session, at=at, source=s)
        for s in sources
    ]


def test_remember_episodes_stores_each_source_once(memory_target: MemoryTarget) -> None:
    with memory_target.open() as mem:
        first = mem.remember_episodes([*turns("a", "1", "2"), *turns("b", "1")])
        assert len(set(first)) == 3
        again = mem.remember_episodes([*turns("a", "1", "2", "3"), *turns("b", "1")])
        assert again[:2] == first[:2]
        assert again[3] == first[2]
        assert mem.stats()["episodes"] == 4
        third = mem.get(again[2])
        assert isinstance(third, Episode)
        assert (third.session, third.seq, third.source) == ("a", 3, "3")
        # A turn without a source is always a new episode.
        unsourced = Turn("no source", speaker="Mina", session="a")
        assert len(set(mem.remember_episodes([unsourced, unsourced]))) == 2


def test_remember_episodes_checks_every_turn_first(memory_target: MemoryTarget) -> None:
    with memory_target.open() as mem:
        bad = Turn("fine", speaker="a" * 2000, session="s", source="x")
        with pytest.raises(InvalidFactError) as info:
            mem.remember_episodes([*turns("s", "1"), bad])
        assert info.value.field == "speaker"
        for nonsense in (["not a turn"], "text", None):
            with pytest.raises(InvalidArgumentError) as argument:
                mem.remember_episodes(nonsense)  # type: ignore[arg-type]  # the point
            assert argument.value.field == "turns"
            assert not isinstance(argument.value, InvalidFactError)
        assert mem.stats()["episodes"] == 0
        assert mem.remember_episodes([]) == []


def test_a_long_turn_is_kept_by_its_beginning(memory_target: MemoryTarget) -> None:
    with memory_target.open() as mem:
        [eid] = mem.remember_episodes([Turn("é" * 40_000, speaker="A", session="s")])
        assert mem.get(eid).content == "é" * 32_768  # 64 KiB of two-byte characters


def test_remember_episodes_joins_a_batch(memory_target: MemoryTarget) -> None:
    with memory_target.open() as mem:
        with pytest.raises(Boom):
            failing_batch(mem, lambda: mem.remember_episodes(turns("s", "1", "2")))
        assert mem.stats()["episodes"] == 0
