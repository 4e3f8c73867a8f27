"""Short fact ids: the prefixes the server shows a model, and their resolution (server/_ids.py).

A prefix must be unique among the owner's facts (never another owner's) to be shown, must
resolve to that one fact, and an ambiguous or unknown prefix must be refused before anything
is written.
"""

from __future__ import annotations

from typing import Any

import pytest

from chronomem import ChronoMem, FactNotFoundError
from chronomem._doors.settings import Target
from chronomem.server._ids import AmbiguousIdError, resolve, short_ids
from tests.chronomem.backends import Databases, MemoryTarget
from tests.chronomem.mcp_client import call, call_error, connect, run

# Two ids of one owner that share eleven digits, one that shares eight with another owner's.
A = "01234567aaaa" + "0" * 20
B = "01234567aaab" + "0" * 20
C = "fedcba98" + "0" * 24
OTHER = "fedcba98" + "1" * 24


def _record(template: dict[str, Any], fid: str, content: str) -> dict[str, Any]:
    return template | {"id": fid, "content": content}


@pytest.fixture
def mems(memory_target: MemoryTarget) -> tuple[ChronoMem, ChronoMem]:
    """Two owners on one database; the first holds A, B and C, the second OTHER."""
    ana = memory_target.open(owner="ana")
    bo = memory_target.open(owner="bo")
    ana.remember("template fact", dedup=False)
    template = next(iter(ana.export_facts()))
    ana.import_facts([_record(template, f, f"fact {f}") for f in (A, B, C)])
    bo.import_facts([_record(template, OTHER, "bo's fact")])
    return ana, bo


def test_short_ids_are_the_shortest_unique_prefix_among_the_owners_facts(
    mems: tuple[ChronoMem, ChronoMem],
) -> None:
    ana, bo = mems
    shown = short_ids(ana, [A, B, C, "f1"])
    # Eight digits are ambiguous for A and B; twelve tell them apart. C shares eight digits
    # only with another owner's fact, which does not count; an id not of 32 hex stays whole.
    assert shown == {A: A[:12], B: B[:12], C: C[:8], "f1": "f1"}
    assert short_ids(bo, [OTHER]) == {OTHER: OTHER[:8]}


def test_unique_prefixes_tell_an_id_from_its_neighbours_on_each_engine(
    mems: tuple[ChronoMem, ChronoMem],
) -> None:
    ana, _ = mems
    assert ana.unique_prefixes([A, B, C]) == {A: A[:12], B: B[:12], C: C[:8]}
    assert ana.unique_prefixes([A, C], shortest=4) == {A: A[:12], C: C[:4]}
    # An id of no fact of hers gets a prefix that starts none of hers: between A and B.
    between = "01234567aaaa8" + "0" * 19
    assert ana.unique_prefixes([between]) == {between: between[:13]}
    # More ids than one statement takes (a hundred): ids of no fact, near none of hers.
    many = [f"{i:032x}" for i in range(150)] + [A]
    assert ana.unique_prefixes(many) == {fid: fid[:8] for fid in many[:-1]} | {A: A[:12]}


def test_resolve_gives_the_one_fact_a_prefix_names(mems: tuple[ChronoMem, ChronoMem]) -> None:
    ana, bo = mems
    assert resolve(ana, A[:12]) == A
    assert resolve(ana, A) == A  # a whole id keeps working
    assert resolve(ana, C[:8]) == C  # bo's fact with the same digits is not ana's
    assert resolve(bo, OTHER[:8]) == OTHER
    assert resolve(ana, "f1") == "f1"  # too short for a prefix: the library judges the id
    with pytest.raises(AmbiguousIdError, match="starts more than one fact id"):
        resolve(ana, A[:8])
    with pytest.raises(FactNotFoundError):
        resolve(ana, "deadbeef")
    with pytest.raises(FactNotFoundError):
        resolve(bo, A[:12])  # ana's fact is unknown to bo


def _common(a: str, b: str) -> str:
    n = next((i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y), len(a))
    return a[:n]


def test_tools_take_short_ids_and_refuse_ambiguous_ones(databases: Databases) -> None:
    db: Target = databases.new("m")

    async def go() -> None:
        async with connect(db, owner="ana", errlog=databases.folder / "server.log") as s:
            ids = [
                (await call(s, "chronomem_remember", content=f"Ana's {pet} is called Rex"))["id"]
                for pet in ("dog", "cat", "parrot")
            ]
            # Written milliseconds apart, at least two ids share their first eight digits.
            shared = max((_common(a, b) for a in ids for b in ids if a != b), key=len)
            assert len(shared) >= 8
            message = await call_error(s, "chronomem_forget", fact_id=shared[:8])
            assert "AmbiguousIdError" in message
            message = await call_error(s, "chronomem_supersede", old_id="deadbeef", content="x")
            assert "FactNotFoundError" in message
            found = await call(s, "chronomem_recall", query="Ana Rex", limit=10)
            assert {f["id"] for f in found["facts"]} == set(ids)  # nothing was forgotten

            dog = ids[0]
            short = next(
                dog[:n]
                for n in range(8, 33)
                if not any(o.startswith(dog[:n]) for o in ids if o != dog)
            )
            new = await call(s, "chronomem_supersede", old_id=short, content="Ana's dog is Max")
            assert new["superseded"] == dog  # programs get the whole id back

    run(go)
