"""A session's turns get positions 1, 2, 3 ... with no two alike and none skipped, however
many writers append to it at once, and the schema itself forbids two turns one position.

A turn's position is the last one plus one, read and written in one transaction; only the
write lock (SQLite) or a unique index (PostgreSQL, where two transactions can read the same
"last") keeps two racing writers from taking the same number.
"""

from __future__ import annotations

import multiprocessing
import sqlite3
from multiprocessing.synchronize import Barrier
from pathlib import Path

import psycopg
import pytest

from chronomem import ChronoMem, Turn
from tests.chronomem.backends import MemoryTarget, sqlite_connection

WRITERS, TURNS, BATCH = 4, 25, 5
SESSION = "standup"


def _writer(args: list[str], writer: int, together: Barrier) -> None:
    """Even writers append one turn a call; odd ones five a call (``remember_episodes``, one
    transaction), so a batch racing single turns is covered too. All start at once, each
    with its memory open (a process's start-up would otherwise keep them apart)."""
    said = [(f"writer {writer} turn {turn}", f"w{writer}") for turn in range(TURNS)]
    with MemoryTarget.from_args(args).open() as mem:
        together.wait(timeout=120)
        if writer % 2 == 0:
            for text, speaker in said:
                mem.remember_episode(text, speaker=speaker, session=SESSION)
            return
        for start in range(0, TURNS, BATCH):
            mem.remember_episodes(
                Turn(text, speaker, SESSION) for text, speaker in said[start : start + BATCH]
            )


def test_racing_writers_get_distinct_gap_free_positions(memory_target: MemoryTarget) -> None:
    memory_target.open().close()
    ctx = multiprocessing.get_context("spawn")
    together = ctx.Barrier(WRITERS)
    procs = [
        ctx.Process(target=_writer, args=(memory_target.args(), w, together))
        for w in range(WRITERS)
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=180)
        assert p.exitcode == 0
    with memory_target.open() as mem:
        turns = [r for r in mem.export_facts() if r["kind"] == "episode"]
    positions = sorted(r["seq"] for r in turns)
    assert positions == list(range(1, WRITERS * TURNS + 1))
    for w in range(WRITERS):  # each writer's turns keep the order it said them in
        mine = sorted((r["seq"], r["content"]) for r in turns if r["speaker"] == f"w{w}")
        assert [content for _, content in mine] == [f"writer {w} turn {t}" for t in range(TURNS)]


def _unique_position_index(memory_target: MemoryTarget) -> bool:
    """Whether an index makes (owner, session, seq) unique among episodes."""
    with memory_target.open() as mem:
        if memory_target.schema is None:
            conn = sqlite_connection(mem)
            for _, name, unique, _, _ in conn.execute("PRAGMA index_list(chronomem_facts)"):
                columns = [row[2] for row in conn.execute(f"PRAGMA index_info({name})")]
                if unique and columns == ["owner", "session", "seq"]:
                    return True
            return False
    with psycopg.connect(memory_target.path) as pg:
        rows = pg.execute(
            "SELECT indexdef FROM pg_indexes WHERE schemaname = %s AND tablename = %s",
            (memory_target.schema, "chronomem_facts"),
        ).fetchall()
    return any("UNIQUE" in d and "(owner, session, seq)" in d for (d,) in rows)


def test_the_schema_makes_a_position_unique(memory_target: MemoryTarget) -> None:
    # SQLite's index was a plain one until schema version 9 (issue 24 item 11).
    assert _unique_position_index(memory_target)


def test_a_second_turn_at_one_position_is_refused_by_the_schema(tmp_path: Path) -> None:
    with ChronoMem(tmp_path / "m.db") as mem:
        mem.remember_episode("first", speaker="a", session=SESSION)
        conn = sqlite_connection(mem)
        with pytest.raises(sqlite3.IntegrityError, match="UNIQUE"):
            conn.execute(
                """INSERT INTO chronomem_facts (id, owner, content, trust, confidence, entities,
                       terms, system_time, valid_from, kind, speaker, session, seq)
                   SELECT id || 'x', owner, 'twin', trust, confidence, entities, terms,
                       system_time, valid_from, kind, speaker, session, seq
                   FROM chronomem_facts WHERE kind = 'episode'"""
            )
