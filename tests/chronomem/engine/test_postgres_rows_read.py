"""Rows the server reads per call on PostgreSQL: a write or a recall finds what it needs by
index probes, never by reading every row the owner has, however large the memory grows.

Counted from the server's own statistics of the memory's one connection (the tuples its
scans returned, flushed on demand), on a memory the planner has no statistics for yet, as a
new deployment's is: the statements must not depend on them (issue 23: the entity lookup of
every ``remember`` and the term lookup of every recall read all of the owner's rows).
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from chronomem import Turn
from tests.chronomem.backends import CountedMemory

pytestmark = pytest.mark.postgres


def test_a_remember_reads_its_own_entities_not_all_of_them(counted_memory: CountedMemory) -> None:
    mem = counted_memory.mem
    for i in range(300):
        mem.remember(f"Person {i} keeps a garden of kind {i}", entities=[f"Person {i}"])
    held, before = counted_memory.rows_read("chronomem_entities")
    mem.remember("Person 7 and Person 8 met Ardian", entities=["Person 7", "Person 8", "Ardian"])
    _, after = counted_memory.rows_read("chronomem_entities")
    assert held == 300
    # A few probes per entity it names (its lookup, the insert's conflict check, the links'
    # keys): 20 at 300 entities or 600; reading every entity was 318 here.
    assert after - before <= 30, f"one remember read {after - before} of {held} entities"


def test_a_remember_probes_for_its_duplicate_and_conflicts_not_every_fact(
    counted_memory: CountedMemory,
) -> None:
    """The server's function plans its statements once, blind to the values (generic plans):
    each must still be a probe of its index however many facts the owner has."""
    mem = counted_memory.mem
    for i in range(300):
        mem.remember(f"Person {i}'s phone is a Pixel {i}", entities=[f"Person {i}"],
                     category="device")  # fmt: skip
    held, before = counted_memory.rows_read("chronomem_facts")
    fid = mem.remember("Person 7's phone is a Xperia 10", entities=["Person 7"], category="device")
    again = mem.remember("person 7's phone is a xperia 10", entities=["Person 7"],
                         category="device")  # fmt: skip
    _, after = counted_memory.rows_read("chronomem_facts")
    assert held >= 300
    assert len(fid.contradicts) == 1
    assert again.duplicate_of == fid
    # The duplicate probes and the conflict checks of two remembers: 10 rows here
    assert after - before <= 30, f"two remembers read {after - before} of {held} facts"


def test_a_recall_reads_the_counts_of_its_own_terms_and_speakers(
    counted_memory: CountedMemory,
) -> None:
    mem = counted_memory.mem
    for i in range(200):
        mem.remember(f"tulip{i} orchid{i} lily{i}")
    said = datetime(2024, 5, 2, 18, 0, tzinfo=timezone.utc)
    for i in range(100):
        mem.remember_episode(
            f"hello from guest {i}", speaker=f"Guest{i}", session="party", at=said + timedelta(i)
        )
    terms, terms_before = counted_memory.rows_read("chronomem_term_stats")
    speakers, speakers_before = counted_memory.rows_read("chronomem_speakers")
    assert mem.recall("what did Guest7 say about orchid8?", limit=5)
    _, terms_after = counted_memory.rows_read("chronomem_term_stats")
    _, speakers_after = counted_memory.rows_read("chronomem_speakers")
    assert terms >= 600
    assert speakers >= 100
    # one probe per term of the question (a shard or two each); reading them all was 702 here
    assert terms_after - terms_before <= 40, f"read {terms_after - terms_before} of {terms}"
    assert speakers_after - speakers_before <= 5, f"read {speakers_after - speakers_before}"


def test_a_keyed_turn_added_to_a_long_session_reads_its_own_source(
    counted_memory: CountedMemory,
) -> None:
    """How a chronica session's new acta become episodes (``index_session``): each turn
    keyed by its actum's id, checked against what the session already stored."""
    mem = counted_memory.mem
    for start in range(0, 600, 100):
        mem.remember_episodes(
            [Turn(f"turn {i}", speaker="Ardian", session="long", source=f"actum-{i}")
             for i in range(start, start + 100)]
        )  # fmt: skip
    held, before = counted_memory.rows_read("chronomem_facts")
    mem.remember_episodes([Turn("one more", speaker="Ardian", session="long", source="actum-x")])
    mem.remember_episodes([Turn("turn 7", speaker="Ardian", session="long", source="actum-7")])
    _, after = counted_memory.rows_read("chronomem_facts")
    assert held == 600
    # the new turn's probe and insert, the known one's probe: reading the session was 605
    assert after - before <= 20, f"two keyed turns read {after - before} of {held} rows"


def test_a_recall_of_common_words_probes_the_facts_it_walks(
    counted_memory: CountedMemory,
) -> None:
    """Each common word's newest postings are walked one by one, each posting's fact probed
    by its key. Joined instead, the planner of a memory not yet analysed scanned every fact
    once per posting: 40,426 fact rows read by one recall of 300 items."""
    mem = counted_memory.mem
    for i in range(200):
        mem.remember(f"Person {i} keeps a garden with roses and tulips number {i}")
    mem.remember_episodes(
        [Turn(f"we talked about the garden {i}", speaker="Ardian", session="s") for i in range(100)]
    )
    mem.recall("anything", limit=1)  # the nearest-neighbour copy reads each new vector once
    held, before = counted_memory.rows_read("chronomem_facts")
    assert mem.recall("tell me about tulips and the garden", limit=5)
    _, after = counted_memory.rows_read("chronomem_facts")
    assert held == 300
    # 100 postings walked per common word, each probing its fact, then the pool read whole
    # (600 here); scanning the facts per posting read 40,426
    assert after - before <= 3 * held, f"one recall read {after - before} of {held} facts"


def test_a_recall_of_episodes_probes_each_fact_by_its_key(counted_memory: CountedMemory) -> None:
    """A view of episodes only (``kinds=["episode"]``): each posting's fact is probed by its
    key. Left to choose, the planner probed it through the index of episodes in a session,
    whose condition the view's kind implies, reading that index per posting: 39,288 fact
    rows for one recall of 1,800 items, 9,135 of 450."""
    mem = counted_memory.mem
    for i in range(300):
        mem.remember(f"Person {i} keeps a garden with roses and tulips number {i}")
    mem.remember_episodes(
        [Turn(f"we talked about the garden {i}", speaker="Ardian", session=f"s{i % 3}")
         for i in range(300)]
    )  # fmt: skip
    mem.recall("anything", limit=1)  # the nearest-neighbour copy reads each new vector once
    held, before = counted_memory.rows_read("chronomem_facts")
    assert mem.recall("the garden", limit=5, kinds=["episode"])
    _, after = counted_memory.rows_read("chronomem_facts")
    assert held == 600
    # 100 postings walked, each probing its fact, the pool read whole, and the five answers
    # read by a scan of this small a table (800 here); probing through the other index, 19,183
    assert after - before <= 2 * held, f"one recall read {after - before} of {held} facts"
