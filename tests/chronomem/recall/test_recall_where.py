"""recall(..., where=...): metadata conditions inside every channel, before any limit."""

from __future__ import annotations

from typing import Any

import pytest

from chronomem import ChronoMem, InvalidArgumentError
from tests.chronomem.backends import MemoryTarget

PLACES: list[dict[str, Any]] = [
    {"city": "Bandung", "stars": 5, "open": True, "trip": {"month": "May"}},
    {"city": "Bandung", "stars": 3.5, "open": False},
    {"city": "Jakarta", "stars": 4, "open": True, "note": None},
    {"city": "Jakarta", "stars": "4"},  # a string: never equal to, nor ordered with, 4
    {"city": "Bogor", "stars": True},  # a boolean: never equal to 1
    {},
]


@pytest.fixture
def mem(memory_target: MemoryTarget) -> ChronoMem:
    mem = memory_target.open()
    for i, meta in enumerate(PLACES):
        mem.remember(f"ramen stall number {i} serves noodles", metadata=meta or None)
    mem.remember_episode("ramen in Bandung was great", speaker="ardian", session="s",
                         metadata={"city": "Bandung", "stars": 5})  # fmt: skip
    return mem


def _numbers(
    mem: ChronoMem, where: dict[str, Any], kinds: tuple[str, ...] = ("fact",)
) -> list[int]:
    found = mem.recall("ramen noodles", where=where, kinds=kinds, limit=50)
    return sorted(int(f.content.split()[3]) for f in found)


@pytest.mark.parametrize(
    ("where", "expected"),
    [
        ({"city": "Bandung"}, [0, 1]),
        ({"city": {"$eq": "Jakarta"}, "stars": 4}, [2]),
        ({"stars": 4}, [2]),  # not "4"
        ({"stars": {"$gte": 4}}, [0, 2]),  # numbers only: not "4", not true
        ({"stars": {"$gt": 3, "$lt": 5}}, [1, 2]),
        ({"stars": {"$lte": 3.5}}, [1]),
        ({"stars": "4"}, [3]),
        ({"stars": True}, [4]),
        ({"stars": 1}, []),  # true is not 1
        ({"open": False}, [1]),
        ({"note": None}, [2]),  # a JSON null, not a missing field
        ({"city": {"$in": ["Bogor", "Jakarta"]}}, [2, 3, 4]),
        ({"city": {"$nin": ["Bogor", "Jakarta"]}}, [0, 1, 5]),  # missing matches $nin
        ({"city": {"$ne": "Bandung"}}, [2, 3, 4, 5]),  # and $ne
        ({"trip.month": "May"}, [0]),
        ({"city": {"$gt": "C"}}, [2, 3]),  # strings order as strings
        ({"city": {"$in": []}}, []),
    ],
)
def test_where_selects_by_metadata(
    mem: ChronoMem, where: dict[str, Any], expected: list[int]
) -> None:
    assert _numbers(mem, where) == expected


def test_where_applies_to_episodes_too(mem: ChronoMem) -> None:
    found = mem.recall("ramen", where={"stars": 5}, limit=10)
    assert sorted(f.kind for f in found) == ["episode", "fact"]


def test_where_runs_before_the_limit(memory_target: MemoryTarget) -> None:
    """Many better matches without the field cannot push the one with it out of a page."""
    mem = memory_target.open()
    for i in range(60):
        mem.remember(f"ramen ramen {i}", dedup=False)
    mem.remember("a long note that mentions ramen once among many other words here",
                 metadata={"pick": "me"})  # fmt: skip
    [found] = mem.recall("ramen", where={"pick": "me"}, limit=1)
    assert found.metadata == {"pick": "me"}


@pytest.mark.parametrize(
    "where",
    [
        "city",
        {"": 1},
        {"a..b": 1},
        {'a"b': 1},
        {"city": {"$regex": "B"}},
        {"city": {}},
        {"city": ["Bandung"]},
        {"stars": {"$gt": None}},
        {"open": {"$lt": True}},
        {"city": {"$in": "Bandung"}},
        {"x": float("nan")},
    ],
)
def test_a_bad_where_is_refused(mem: ChronoMem, where: Any) -> None:
    with pytest.raises(InvalidArgumentError, match="where"):
        mem.recall("ramen", where=where)
