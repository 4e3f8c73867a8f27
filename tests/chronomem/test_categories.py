"""ChronoMem.categories: the categories of an owner's active facts, by prefix."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import pytest

from chronomem import InvalidArgumentError
from chronomem.engine.items import few_in_category
from chronomem.recall.view import View
from tests.chronomem.backends import MemoryTarget


def test_categories_of_active_facts_by_prefix(memory_target: MemoryTarget) -> None:
    mem = memory_target.open(owner="ardian")
    mem.remember("Ardian likes ramen", category="food")
    old = mem.remember("Ardian lives in Jakarta", category="home")
    mem.supersede(old, "Ardian lives in Bandung", category="home.new")
    gone = mem.remember("Ardian owns a bike", category="things")
    mem.forget(gone)
    mem.remember("50% off at Kinara", category="deals_%")
    mem.remember("Kinara is open late", category="dealsX")
    mem.remember("no category here")
    mem.remember_episode("hello", speaker="ardian", session="s")
    mem.for_owner("mallory").remember("Mallory's secret", category="food.secret")
    assert mem.categories() == ["dealsX", "deals_%", "food", "home.new"]  # code point order
    assert mem.categories(prefix="home") == ["home.new"]
    assert mem.categories(prefix="deals_") == ["deals_%"]  # _ and % are characters here
    assert mem.categories(prefix="deals_%") == ["deals_%"]
    assert mem.categories(prefix="nothing") == []
    with pytest.raises(InvalidArgumentError, match="prefix"):
        mem.categories(prefix=3)  # type: ignore[arg-type]


def test_categories_are_one_owners_in_code_point_order(memory_target: MemoryTarget) -> None:
    mem = memory_target.open(owner="ardian")
    other = memory_target.open(owner="beatrix")
    for category in ("zebra", "Été", "été", "ab", "a", "日本"):
        mem.remember(f"a fact filed under {category}", category=category)
    other.remember("not Ardian's", category="b")
    expected = ["a", "ab", "zebra", "Été", "été", "日本"]
    assert mem.categories() == expected == sorted(expected)
    assert mem.categories(prefix="a") == ["a", "ab"]
    assert mem.categories(prefix="é") == ["été"]
    assert other.categories() == ["b"]


class _Recording:
    """A connection that keeps the statements run through it, to read their plans."""

    def __init__(self, conn: Any) -> None:
        self._conn = conn
        self.statements: list[tuple[str, tuple[Any, ...]]] = []

    @property
    def dialect(self) -> Any:
        return self._conn.dialect

    def execute(self, sql: str, parameters: Sequence[Any] = ()) -> Any:
        self.statements.append((sql, tuple(parameters)))
        return self._conn.execute(sql, parameters)


def test_a_small_category_is_recalled_through_its_index(memory_target: MemoryTarget) -> None:
    mem = memory_target.open(owner="ardian")
    old = mem.remember("The hotel in Lisbon has a rooftop pool", category="trip.lisbon")
    with mem.batch():  # a common word's postings, all newer and all in another category
        for n in range(300):
            mem.remember(f"Hotel offer {n} for the weekend", category="deals")
    mem.remember("Lisbon trams are yellow", category="trip.lisbon")
    found = mem.recall("which hotel?", category="trip.lisbon")
    assert [f.id for f in found] == [old]
    now = int(time.time() * 1_000_000) + 60_000_000  # the view of now (epoch microseconds)
    view = View(owner="ardian", now=now, kinds=("fact",), category="trip.lisbon")
    with mem._db.read() as conn:
        recording = _Recording(conn)
        few = few_in_category(recording, view.sql(), "trip.lisbon", 100)  # type: ignore[arg-type]
        assert few is not None
        assert len(few) == 2
        deals = View(owner="ardian", now=now, kinds=("fact",), category="deals")
        assert few_in_category(conn, deals.sql(), "deals", 100) is None  # 300: too many
        [(sql, parameters)] = recording.statements
        if memory_target.engine == "sqlite":
            plan = conn.execute("EXPLAIN QUERY PLAN " + sql, parameters).fetchall()
        else:
            conn.execute("SET LOCAL enable_seqscan = off")  # a tiny table would be scanned
            plan = conn.execute("EXPLAIN " + sql, parameters).fetchall()
    assert "chronomem_facts_by_category" in " ".join(str(row) for row in plan)


def test_a_limit_takes_the_first_categories(memory_target: MemoryTarget) -> None:
    mem = memory_target.open(owner="ardian")
    for category in ("b", "a", "c", "ab"):
        mem.remember(f"a fact filed under {category}", category=category)
    assert mem.categories(limit=2) == ["a", "ab"]
    assert mem.categories(prefix="a", limit=1) == ["a"]
    assert mem.categories(prefix="a", limit=5) == ["a", "ab"]
    with pytest.raises(InvalidArgumentError):
        mem.categories(limit=0)
