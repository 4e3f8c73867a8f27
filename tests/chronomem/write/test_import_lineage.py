"""Import refuses lineage no live write can produce (issue 20 item 7), on both engines.

``supersede`` closes one active fact with one new one, so a chain is a line of facts of one
owner ending in a live fact. Each shape below used to import and leave facts that recall
could never return (a cycle is all inactive); now each is refused and nothing is written.
"""

from __future__ import annotations

from typing import Any

import pytest

from chronomem import InvalidFactError
from tests.chronomem.backends import MemoryTarget

T0 = "2024-01-01T00:00:00+00:00"
T1 = "2024-02-01T00:00:00+00:00"


def _fact(fid: str, successor: str | None = None, **more: Any) -> dict[str, Any]:
    record: dict[str, Any] = {"id": fid, "content": f"Zed fact {fid}", "system_time": T0,
                              "valid_from": T0, **more}  # fmt: skip
    if successor is not None:
        record |= {"superseded_by": successor, "invalidated_at": T1, "valid_until": T1}
    return record


EPISODE = {"id": "ep", "kind": "episode", "content": "Zed said hi", "speaker": "Zed",
           "session": "s", "at": T0, "system_time": T0}  # fmt: skip

SHAPES = {
    "supersedes itself": ([_fact("a", "a")], "cannot supersede itself"),
    "two-fact cycle": ([_fact("a", "b"), _fact("b", "a")], "cycle"),
    "three-fact cycle": ([_fact("a", "b"), _fact("b", "c"), _fact("c", "a")], "cycle"),
    "two predecessors": ([_fact("a", "c"), _fact("b", "c"), _fact("c")], "two predecessors"),
    "an episode as successor": ([EPISODE, _fact("a", "ep")], "an episode"),
    "valid_until first": ([_fact("a", valid_until="2023-12-31T00:00:00+00:00")], "before"),
}


@pytest.mark.parametrize("shape", SHAPES)
def test_impossible_lineage_is_refused_and_nothing_written(
    memory_target: MemoryTarget, shape: str
) -> None:
    records, message = SHAPES[shape]
    with memory_target.open() as mem:
        mem.remember("Zed keeps one fact")
        with pytest.raises(InvalidFactError, match=message) as info:
            mem.import_facts(records)
        assert info.value.field in {"superseded_by", "valid_until"}
        assert mem.stats()["facts"] == 1


def test_an_impossible_successor_among_stored_facts_is_refused(
    memory_target: MemoryTarget,
) -> None:
    with memory_target.open() as mem:
        assert mem.import_facts([_fact("a", "c"), _fact("c")]) == 2
        with pytest.raises(InvalidFactError, match="two predecessors"):
            mem.import_facts([_fact("b", "c")])  # c already has a predecessor
        assert mem.import_facts([_fact("b", "a2"), _fact("a2")]) == 2  # a line is fine
        assert mem.stats()["facts"] == 4
