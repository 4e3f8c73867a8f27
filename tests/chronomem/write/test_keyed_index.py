"""A keyed put that indexes later (``index_later``, the LangGraph store's single put): the fact's
row and its place on the list at once, its recall index by the catch-up before the index is next
read, the same index an immediate put writes; crash-safe, and erased with its fact.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from chronomem import ChronoMem
from chronomem.integrations._langgraph_records import entities_of
from tests.chronomem.backends import MemoryTarget, count, document_frequencies, rows

NS = ("users", "alice", "memories")
TEXTS = [
    "Alice Moreau lives in Lyon and works at Renault.",
    "Alice prefers aisle seats and oat milk in the morning.",
    "Bruno Tavares plays badminton with Alice on Fridays.",
]


def _put(mem: ChronoMem, key: str, text: str, *, later: bool) -> str:
    got = mem.keyed.put(NS, key, {"text": text}, content=text, category="notes",
                        entities=entities_of(NS, key, text), index_later=later)  # fmt: skip
    assert got is not None
    return got.fact_id


def _index(mem: ChronoMem) -> dict[str, Any]:
    """Everything the recall index holds of the facts, rowids and ids left out."""
    return {
        "facts": rows(mem, "SELECT entities, terms, attr, value, content_key FROM chronomem_facts "
                           "ORDER BY rowid"),
        "lex": rows(mem, "SELECT body, ctx1, ctx2 FROM chronomem_lex ORDER BY rowid"),
        "df": document_frequencies(mem),
        "entities": sorted(rows(mem, "SELECT key, name FROM chronomem_entities")),
        "links": sorted(rows(mem, "SELECT a.key, b.key, l.weight FROM chronomem_entity_links l "
                                  "JOIN chronomem_entities a ON a.id = l.src "
                                  "JOIN chronomem_entities b ON b.id = l.dst")),
        "counts": [count(mem, t) for t in ("chronomem_fact_entities", "chronomem_vectors",
                                           "chronomem_mentions")],
    }  # fmt: skip


def test_a_put_that_indexes_later_is_found_and_indexed_as_an_immediate_one(
    memory_target: MemoryTarget,
) -> None:
    later = memory_target.open(owner="ardian")
    now = memory_target.sibling("now").open(owner="ardian")
    ids = [_put(later, f"k{i}", t, later=True) for i, t in enumerate(TEXTS)]
    for i, t in enumerate(TEXTS):
        _put(now, f"k{i}", t, later=False)
    assert count(later, "chronomem_unindexed") == 3
    assert count(later, "chronomem_lex") == 0  # nothing of the index yet but the vectors,
    # stored with their facts, in their order (a process's copy reads the rows above its last)
    assert count(later, "chronomem_vectors") == count(now, "chronomem_vectors")
    assert later.get(ids[1]).content == TEXTS[1]  # the fact reads whole meanwhile
    found = later.recall("who plays badminton on Fridays?", limit=3)
    assert found[0].id == ids[2]  # the recall caught up first
    assert count(later, "chronomem_unindexed") == 0
    assert _index(later) == _index(now)
    assert later.keyed.catch_up() == 0  # nothing left: one probe


def test_a_changed_value_indexed_later_supersedes_as_an_immediate_put_does(
    memory_target: MemoryTarget,
) -> None:
    later = memory_target.open(owner="ardian")
    now = memory_target.sibling("now").open(owner="ardian")
    for mem, flag in ((later, True), (now, False)):
        first = _put(mem, "home", TEXTS[0], later=flag)
        second = _put(mem, "home", "Alice Moreau moved to Nantes and works at Airbus.", later=flag)
        assert second != first
        assert mem.stats()["superseded"] == 1  # the catch-up ran first, then counted
        assert [f.id for f in mem.timeline("Alice Moreau")] == [first, second]
    assert count(later, "chronomem_unindexed") == 0
    assert _index(later) == _index(now)
    found = later.recall("where does Alice work?", limit=2, active_only=False)
    assert {f.content for f in found} == {
        TEXTS[0],
        "Alice Moreau moved to Nantes and works at Airbus.",
    }


def test_closing_a_writer_leaves_nothing_listed(memory_target: MemoryTarget) -> None:
    mem = memory_target.open(owner="ardian")
    _put(mem, "k", TEXTS[1], later=True)
    mem.close()
    mem.close()  # twice: nothing to index, nothing refused
    again = memory_target.open(owner="ardian")
    assert count(again, "chronomem_unindexed") == 0
    assert count(again, "chronomem_lex") == 1


def test_timeline_entities_and_stats_catch_up_too(memory_target: MemoryTarget) -> None:
    mem = memory_target.open(owner="ardian")
    fid = _put(mem, "k", TEXTS[0], later=True)
    assert [f.id for f in mem.timeline("Renault")] == [fid]
    assert count(mem, "chronomem_unindexed") == 0
    _put(mem, "k2", TEXTS[2], later=True)
    assert "Bruno Tavares" in mem.entity_names("bru")
    _put(mem, "k3", "Carla Souza likes tea.", later=True)
    assert mem.stats()["entities"] == count(mem, "chronomem_entities")
    assert count(mem, "chronomem_unindexed") == 0


def test_a_purge_or_erasure_of_an_unindexed_fact_takes_it_off_the_list(
    memory_target: MemoryTarget,
) -> None:
    mem = memory_target.open(owner="ardian")
    other = mem.for_owner("bruno")
    gone = _put(mem, "secret", "zanthoxylum allergy noted", later=True)
    _put(other, "b", "Bruno likes tea", later=True)
    before = document_frequencies(mem)
    with mem._db.write() as conn:  # the purge itself, without the catch-up ChronoMem runs first
        from chronomem.write.purge import purge_rows

        [(rowid,)] = conn.execute("SELECT rowid FROM chronomem_facts WHERE id = ?", (gone,))
        purge_rows(conn, "ardian", [int(rowid)], "test", 1)
    assert rows(mem, "SELECT owner FROM chronomem_unindexed") == [("bruno",)]
    assert document_frequencies(mem) == before  # nothing it never counted went down
    assert mem.keyed.catch_up() == 1  # bruno's alone; the tombstone is never indexed
    assert not rows(mem, "SELECT 1 FROM chronomem_lex WHERE body LIKE '%zanthox%'")
    _put(mem, "again", "quokka sighting", later=True)
    with mem._db.write() as conn:
        from chronomem.write.purge import erase_owner

        erase_owner(conn, "ardian")
    assert count(mem, "chronomem_unindexed") == 0


_PUT_AND_DIE = """
import os, signal, sys
from chronomem.integrations._langgraph_records import entities_of
from tests.chronomem.backends import MemoryTarget
mem = MemoryTarget.from_args(sys.argv[1:]).open(owner="ardian")
ns = ("users", "alice", "memories")
text = "Alice keeps a capybara named Quentin."
mem.keyed.put(ns, "pet", {"text": text}, content=text, category="notes",
              entities=entities_of(ns, "pet", text), index_later=True)
os.kill(os.getpid(), signal.SIGKILL)  # committed, never caught up, never closed
"""


def test_a_put_killed_before_its_catch_up_is_found_by_the_next_recall(
    memory_target: MemoryTarget,
) -> None:
    memory_target.open(owner="ardian").close()  # the schema made first
    child = subprocess.run(
        [sys.executable, "-c", _PUT_AND_DIE, *memory_target.args()],
        cwd=Path(__file__).parents[3], capture_output=True, text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[3])}, check=False,
    )  # fmt: skip
    assert child.returncode == -signal.SIGKILL, child.stderr
    mem = memory_target.open(owner="ardian")
    assert count(mem, "chronomem_unindexed") == 1
    found = mem.recall("what is the capybara called?", limit=1)
    assert [f.content for f in found] == ["Alice keeps a capybara named Quentin."]
    assert count(mem, "chronomem_unindexed") == 0
