"""ChronoMem.categories: the categories of an owner's active facts, by prefix."""

from __future__ import annotations

import pytest

from chronomem import InvalidArgumentError
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
