"""A purge forgets a speaker's name exactly when its last turn goes, and finds everything of
the item it erases through indexes (issue 23): its time points, the links of the entities no
fact names any more, its speaker's other turns. Reading whole tables made a purge cost more
as the memory grew (8 ms an item for the time points alone at 100,000 episodes).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from chronomem import ChronoMem, Turn
from tests.chronomem.backends import CountedMemory, MemoryTarget, rows


def _keys(mem: ChronoMem) -> set[str]:
    return {key for (key,) in rows(mem, "SELECT key FROM chronomem_speakers")}


def test_a_name_is_forgotten_with_its_last_turn_and_kept_while_any_spelling_speaks(
    memory_target: MemoryTarget,
) -> None:
    with memory_target.open(owner="ardian") as mem:
        ids = mem.remember_episodes(
            [
                Turn("hello", speaker="Beatriz", session="a"),
                Turn("hi there", speaker="Carla", session="a"),
                Turn("how are you", speaker="Beatriz", session="a"),
                Turn("fine, thanks", speaker="carla", session="b"),  # another spelling
                Turn("a lone word", speaker="Dita", session="b"),
            ]
        )
        mem.purge(ids[0])  # Beatriz still speaks in session a
        assert _keys(mem) == {"beatriz", "carla", "dita"}
        mem.purge(ids[1])  # "carla" still speaks in session b
        assert _keys(mem) == {"beatriz", "carla", "dita"}
        mem.purge(ids[4])  # Dita's only turn
        assert _keys(mem) == {"beatriz", "carla"}
        mem.purge_session("a")  # Beatriz's last turn
        assert _keys(mem) == {"carla"}
        mem.remember("Carla likes tea")  # a fact's purge leaves every name as it was
        mem.purge(mem.recall("tea", limit=1)[0].id)
        assert _keys(mem) == {"carla"}


def test_a_purge_run_again_forgets_a_name_a_killed_run_left(memory_target: MemoryTarget) -> None:
    with memory_target.open(owner="ardian") as mem:
        gone, kept = mem.remember_episodes(
            [Turn("only once", speaker="Emil", session="s"), Turn("hi", speaker="Fay", session="s")]
        )
        mem.purge(gone)
        # As a process killed after the purge's last batch leaves it: the name still there.
        with mem._db.write() as conn:
            conn.execute("INSERT INTO chronomem_speakers (owner, key) VALUES (?, ?)",
                         ("ardian", "emil"))  # fmt: skip
        assert _keys(mem) == {"emil", "fay"}
        mem.purge(gone)  # nothing left to purge: the run only finishes the work
        assert _keys(mem) == {"fay"}
        assert rows(mem, "SELECT speaker FROM chronomem_facts WHERE id = ?", (kept,)) == [("Fay",)]


@pytest.fixture
def traced_sqlite(tmp_path: Path) -> Iterator[tuple[ChronoMem, list[str]]]:
    """A SQLite memory, and the statements it runs once the list is switched on."""
    with ChronoMem(tmp_path / "memory.db", owner="ardian") as mem:
        seen: list[str] = []
        mem._db.conn.set_trace_callback(seen.append)  # type: ignore[attr-defined]
        yield mem, seen


def _full_scans(path: str, statements: list[str]) -> list[str]:
    """The statements whose plan reads a whole table or index (SQLite's ``SCAN``, not a
    ``SEARCH`` of a range), each with that step of its plan; FTS5's own lookups and the
    document-frequency journal (small by design, see engine/sqlite/frequencies.py) and the
    first rows of the list of unindexed facts (write/keyed_index.py) aside."""
    conn = sqlite3.connect(path)
    found = []
    try:
        for sql in statements:
            if not re.match(r"\s*(SELECT|INSERT|UPDATE|DELETE|WITH)\b", sql, re.IGNORECASE):
                continue
            if "chronomem_lex (chronomem_lex)" in sql or "chronomem_schema" in sql:
                continue  # FTS5's merge (its cost is the index's: see docs), the version row
            if "chronomem_term_journal" in sql:
                continue  # read whole and emptied when folded: never over FOLD_TERMS terms
            if "FROM chronomem_unindexed" in sql and "LIMIT" in sql:
                continue  # its first rows, in key order: emptied by every catch-up
            for row in conn.execute("EXPLAIN QUERY PLAN " + sql):
                detail = row[3]  # SCAN: the whole table or index; SEARCH: a range of it
                if detail.startswith("SCAN chronomem_") and "VIRTUAL TABLE" not in detail:
                    found.append(f"{detail}: {' '.join(sql.split())[:120]}")
    finally:
        conn.close()
    return found


def test_a_sqlite_purge_reads_no_whole_table(traced_sqlite: tuple[ChronoMem, list[str]]) -> None:
    mem, seen = traced_sqlite
    for i in range(60):
        mem.remember(f"Person {i} grows tulips near lake {i}", entities=[f"Person {i}", "Lake"])
    lonely = mem.remember("Zeno keeps bees by the mill", entities=["Zeno", "Mill"])
    turns = mem.remember_episodes(
        [Turn(f"turn {i} about last Friday", speaker=("Ana", "Ben")[i % 2], session="s")
         for i in range(40)]
    )  # fmt: skip
    seen.clear()
    mem.purge(lonely)  # its entities are named by no other fact: they and their links go
    mem.purge(turns[7])  # Ben speaks on in the session
    statements = list(seen)
    assert any("chronomem_mentions" in s and s.lstrip().upper().startswith("DELETE")
               for s in statements)  # fmt: skip
    assert _full_scans(mem.path, statements) == []


def test_a_postgres_purge_reads_the_rows_of_its_item(counted_memory: CountedMemory) -> None:
    mem = counted_memory.mem
    for i in range(300):
        mem.remember(f"Person {i} grows tulips near lake {i}", entities=[f"Person {i}", "Lake"])
    lonely = mem.remember("Zeno keeps bees by the mill", entities=["Zeno", "Mill"])
    # Turns too: asked for the episodes among the purged rowids, the planner read them through
    # the index of episodes in a session, every turn of the owner (303 fact rows here).
    mem.remember_episodes(
        [Turn(f"turn {i} about the lake", speaker="Ana", session=f"s{i % 3}") for i in range(300)]
    )
    tables = ("chronomem_mentions", "chronomem_entity_links", "chronomem_facts")
    before = {t: counted_memory.rows_read(t) for t in tables}
    mem.purge(lonely)
    after = {t: counted_memory.rows_read(t) for t in tables}
    for table in tables:
        held, read = before[table][0], after[table][1] - before[table][1]
        assert held >= 300
        assert read <= 40, f"a purge read {read} of {held} rows of {table}"  # about 20
