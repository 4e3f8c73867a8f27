"""ChronoMemStore: LangGraph's BaseStore over chronomem, and what it adds (history, as_of,
search with a text query and no embedding service)."""

from __future__ import annotations

import asyncio
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from langgraph.store.base import GetOp, InvalidNamespaceError, PutOp, SearchOp

from chronomem import ChronoMem, Fact
from chronomem.integrations._langgraph_records import pushed_down
from chronomem.integrations.langgraph import ChronoMemStore
from tests.chronomem.backends import MemoryTarget

ALICE = ("users", "alice")
WORDS = [f"filler{n}" for n in range(40)]


@pytest.fixture
def mem(memory_target: MemoryTarget) -> ChronoMem:
    return memory_target.open(owner="ardian")


def test_put_supersedes_and_keeps_history(mem: ChronoMem) -> None:
    store = ChronoMemStore(mem)
    store.put(ALICE, "prefs", {"theme": "dark"})
    first = store.get(ALICE, "prefs")
    assert first is not None
    before_change = datetime.now(timezone.utc)
    time.sleep(0.01)
    store.put(ALICE, "prefs", {"theme": "light"})
    store.put(ALICE, "prefs", {"theme": "light"})  # the value it holds: no new version
    now = store.get(ALICE, "prefs")
    assert now is not None
    assert now.value == {"theme": "light"}
    assert now.created_at == first.created_at < now.updated_at
    assert [i.value for i in store.history(ALICE, "prefs")] == [
        {"theme": "dark"},
        {"theme": "light"},
    ]
    # The memory itself holds the lineage: one active fact, its predecessor superseded.
    past = mem.recall("dark theme", as_of=before_change, kinds=["fact"])
    assert [f.metadata["langgraph"]["value"] for f in past if f.metadata] == [{"theme": "dark"}]
    assert mem.stats()["active"] == 1
    assert mem.stats()["superseded"] == 1


def test_a_value_whose_text_reads_the_same_changes_in_place(mem: ChronoMem) -> None:
    """A new value whose text chronomem reads as the old one's (case and spacing)
    writes no fact: the key's row alone changes (issue 40 item 2), and a get,
    a search and the history show the new value."""
    store = ChronoMemStore(mem)
    store.put(ALICE, "name", {"name": "Alice", "rank": 2})
    first = mem.keyed.get(ALICE, "name", now=None)
    store.put(ALICE, "name", {"name": "ALICE ", "rank": 2})
    store.put(ALICE, "name", {"name": "ALICE", "rank": 2})
    item = store.get(ALICE, "name")
    assert item is not None
    assert item.value == {"name": "ALICE", "rank": 2}
    assert store.search(ALICE, filter={"rank": 2})[0].value == item.value
    assert [i.value for i in store.search(ALICE, query="alice")] == [item.value]
    assert [i.value for i in store.history(ALICE, "name")] == [item.value]
    assert mem.stats()["active"] == 1
    assert mem.stats()["superseded"] == 0
    now = mem.keyed.get(ALICE, "name", now=None)
    assert first is not None
    assert now is not None
    assert now.fact_id == first.fact_id
    assert now.created_at == first.created_at < now.updated_at


def test_delete_forgets_and_a_new_put_starts_again(mem: ChronoMem) -> None:
    store = ChronoMemStore(mem)
    store.put(ALICE, "k", {"v": 1})
    store.delete(ALICE, "k")
    store.delete(ALICE, "k")  # deleting nothing is not an error
    assert store.get(ALICE, "k") is None
    assert store.search(("users",)) == []
    assert store.list_namespaces() == []
    assert mem.recall("1", kinds=["fact"]) == []
    store.put(ALICE, "k", {"v": 2})
    again = store.get(ALICE, "k")
    assert again is not None
    assert again.created_at == again.updated_at
    assert [i.value for i in store.history(ALICE, "k")] == [{"v": 1}, {"v": 2}]


def test_erase_on_delete_purges_every_value_the_key_held(memory_target: MemoryTarget) -> None:
    mem = memory_target.open(owner="ardian")
    store = ChronoMemStore(mem, erase_on_delete=True)
    keep = ChronoMemStore(mem)
    store.put(ALICE, "health", {"note": "allergic to zanthoxylum"})
    store.put(ALICE, "health", {"note": "allergic to quillaja bark"})
    keep.put(ALICE, "other", {"note": "likes zanthoxylum tea"})
    assert len(store.history(ALICE, "health")) == 2
    store.delete(ALICE, "health")
    assert store.get(ALICE, "health") is None
    assert store.history(ALICE, "health") == []  # the history went too
    assert [i.value for i in keep.history(ALICE, "other")] == [{"note": "likes zanthoxylum tea"}]
    assert [
        f.content for f in mem.recall("quillaja bark", kinds=["fact"], relevant_only=True)
    ] == []
    store.delete(ALICE, "health")  # again: nothing left to erase, not an error
    if memory_target.engine == "sqlite":
        mem.close()
        raw = b"".join(
            Path(memory_target.path + suffix).read_bytes()
            for suffix in ("", "-wal")
            if Path(memory_target.path + suffix).exists()
        )
        assert b"quillaja" not in raw  # gone from the file's bytes, not only from reads
        assert b"likes zanthoxylum tea" in raw


def test_namespaces_and_keys_round_trip_exactly(mem: ChronoMem) -> None:
    store = ChronoMemStore(mem)
    odd = ("Ünïcode space", "a/b", "*", "x" * 300)
    values = {"Key": {"n": 1.5, "ok": True, "none": None, "list": [1, "two", {"three": 3}]}}
    store.put(odd, "Key", values["Key"])
    store.put(odd, "key", {"other": "case"})  # keys differ by case: two items
    store.put(("users",), "", {"empty": "key"})
    got = store.get(odd, "Key")
    assert got is not None
    assert (got.namespace, got.key, got.value) == (odd, "Key", values["Key"])
    assert store.get(odd, "key") is not None
    assert store.get(("users",), "") is not None
    assert store.list_namespaces() == sorted([odd, ("users",)])
    # One fact each, recallable by the memory's other users, labelled by namespace.
    [fact] = mem.recall("other case", kinds=["fact"])
    assert isinstance(fact, Fact)
    assert fact.category is not None
    assert fact.category.startswith("langgraph:Ünïcode space.a/b.*.xxx")
    assert len(fact.category.encode()) <= 200  # chronomem's limit: shortened with a digest


def test_list_namespaces_options(mem: ChronoMem) -> None:
    store = ChronoMemStore(mem)
    for ns in [("a", "b", "c"), ("a", "b", "d"), ("a", "x"), ("z", "b", "c"), ("z",)]:
        store.put(ns, "k", {"v": 1})
    assert store.list_namespaces(prefix=("a",)) == [("a", "b", "c"), ("a", "b", "d"), ("a", "x")]
    assert store.list_namespaces(suffix=("c",)) == [("a", "b", "c"), ("z", "b", "c")]
    assert store.list_namespaces(prefix=("*", "b")) == [
        ("a", "b", "c"),
        ("a", "b", "d"),
        ("z", "b", "c"),
    ]
    assert store.list_namespaces(max_depth=1) == [("a",), ("z",)]
    assert store.list_namespaces(prefix=("a",), max_depth=2) == [("a", "b"), ("a", "x")]
    assert store.list_namespaces(limit=2, offset=1) == [("a", "b", "d"), ("a", "x")]
    assert store.list_namespaces(prefix=("a", "*"), suffix=("d",)) == [("a", "b", "d")]


def test_search_filters_with_langgraph_operators(mem: ChronoMem) -> None:
    store = ChronoMemStore(mem)
    for i in range(6):
        store.put(("docs",), f"d{i}", {"score": i, "color": "red" if i % 2 else "blue",
                                       "meta": {"lang": "en" if i < 3 else "id"}})  # fmt: skip

    def keys(wanted: dict[str, Any], limit: int = 10, offset: int = 0) -> list[str]:
        found = store.search(("docs",), filter=wanted, limit=limit, offset=offset)
        return [i.key for i in found]

    assert keys({"color": "red"}) == ["d1", "d3", "d5"]
    assert keys({"score": {"$gt": 3}}) == ["d4", "d5"]
    assert keys({"score": {"$gte": 1, "$lt": 3}}) == ["d1", "d2"]
    assert keys({"score": {"$lte": 0}}) == ["d0"]
    assert keys({"score": {"$ne": 0}, "color": {"$eq": "blue"}}) == ["d2", "d4"]
    assert keys({"meta": {"lang": "id"}}) == ["d3", "d4", "d5"]
    assert keys({"missing": {"$gt": 1}}) == []  # no field, no match (not an error)
    assert keys({}, limit=2, offset=3) == ["d3", "d4"]
    with pytest.raises(ValueError, match="Unsupported operator"):
        store.search(("docs",), filter={"score": {"$regex": "x"}})


def test_search_with_a_text_query_needs_no_embeddings(mem: ChronoMem) -> None:
    store = ChronoMemStore(mem)
    store.put(("users", "alice", "food"), "1", {"memory": "Alice loves spicy ramen in Kemang"})
    store.put(("users", "alice", "music"), "2", {"memory": "Alice plays the violin on Sundays"})
    store.put(("users", "bob", "food"), "3", {"memory": "Bob eats ramen every Friday"})
    mem.remember("Unrelated fact about ramen outside the store")
    found = store.search(("users", "alice"), query="which ramen place?")
    assert [i.key for i in found] == ["1"]
    assert found[0].score is not None
    assert found[0].score > 0
    both = store.search(("users",), query="ramen", filter={"memory": {"$ne": "x"}})
    assert {i.key for i in both} == {"1", "3"}
    assert [i.score for i in both] == sorted((i.score or 0.0 for i in both), reverse=True)
    assert len(store.search(("users",), query="ramen", limit=1)) == 1
    assert store.search(("users",), query="ramen", offset=1, limit=5)[0].key == both[1].key


def test_a_batch_reads_before_it_writes_and_the_last_put_wins(mem: ChronoMem) -> None:
    store = ChronoMemStore(mem)
    store.put(ALICE, "k", {"v": 0})
    results = store.batch(
        [PutOp(ALICE, "k", {"v": 1}), GetOp(ALICE, "k"), PutOp(ALICE, "k", {"v": 2}),
         SearchOp(("users",))]
    )  # fmt: skip
    got, found = results[1], results[3]
    assert got is not None
    assert got.value == {"v": 0}  # type: ignore[union-attr]
    assert [i.value for i in found] == [{"v": 0}]  # type: ignore[union-attr]
    assert [i.value for i in store.history(ALICE, "k")] == [{"v": 0}, {"v": 2}]


def test_bad_ttls_are_refused_and_namespaces_checked(mem: ChronoMem) -> None:
    store = ChronoMemStore(mem)
    assert store.supports_ttl is True
    for ttl in (0, -1.0, float("nan"), float("inf"), True, "5"):
        with pytest.raises(ValueError, match="ttl"):
            store.batch([PutOp(ALICE, "k", {"v": 1}, ttl=ttl)])  # type: ignore[arg-type]  # wrong on purpose
    assert store.search(()) == []
    with pytest.raises(ValueError, match="default_ttl"):
        ChronoMemStore(mem, ttl={"default_ttl": -5})
    with pytest.raises(ValueError, match="unknown"):
        ChronoMemStore(mem, ttl={"default_tll": 5})  # type: ignore[arg-type]  # a typo on purpose
    with pytest.raises(InvalidNamespaceError):
        store.batch([PutOp(("a.b",), "k", {"v": 1})])  # a period would address ("a", "b")
    with pytest.raises(InvalidNamespaceError):
        store.put(("langgraph",), "k", {"v": 1})
    assert store.list_namespaces() == []


def test_the_async_twins(mem: ChronoMem) -> None:
    async def scenario() -> None:
        store = ChronoMemStore(mem)
        await asyncio.gather(*(store.aput(ALICE, f"k{i}", {"i": i}) for i in range(10)))
        got = await store.aget(ALICE, "k3")
        assert got is not None
        assert got.value == {"i": 3}
        assert len(await store.asearch(("users",), limit=20)) == 10
        assert await store.alist_namespaces() == [ALICE]
        await store.adelete(ALICE, "k3")
        assert await store.aget(ALICE, "k3") is None

    asyncio.run(scenario())


def test_two_stores_on_one_memory_see_each_other(memory_target: MemoryTarget) -> None:
    a = ChronoMemStore(memory_target.open(owner="ardian"))
    b = ChronoMemStore(memory_target.open(owner="ardian"))
    other = ChronoMemStore(memory_target.open(owner="mallory"))
    a.put(ALICE, "k", {"v": 1})
    b.put(ALICE, "k", {"v": 2})
    got = a.get(ALICE, "k")
    assert got is not None
    assert got.value == {"v": 2}
    assert other.get(ALICE, "k") is None  # another owner's items do not exist
    assert other.list_namespaces() == []


def test_a_query_under_a_narrow_prefix_is_not_crowded_out(mem: ChronoMem) -> None:
    """A search ranks recall's candidates then keeps those under the prefix: another
    namespace's many better matches (short texts, which BM25 prefers) do not push a
    namespace's own matches out."""
    store = ChronoMemStore(mem)
    with mem.batch():
        for i in range(150):
            store.put(("users", "bob"), f"r{i}", {"text": f"ramen ramen, stall {i}"})
    # Long texts: BM25 ranks them below every short one of Bob's.
    filler = " ".join(f"word{n}" for n in range(60))
    store.put(("users", "alice", "food"), "one", {"text": f"Alice tried ramen once {filler}"})
    store.put(("users", "alice", "music"), "two", {"text": f"Alice hums, eating ramen {filler}"})
    found = store.search(("users", "alice"), query="ramen")
    assert {i.key for i in found} == {"one", "two"}
    [one] = store.search(("users", "alice", "food"), query="ramen")
    assert one.key == "one"
    assert len(store.search(("users",), query="ramen", limit=50)) == 50


def test_a_string_filter_runs_inside_recall(mem: ChronoMem) -> None:
    """Equality with a string is the part of a filter recall applies in its channels (before
    its limit); the rest, where Python's == differs from typed JSON, stays with the store."""
    assert pushed_down({"type": "report", "meta": {"lang": {"$eq": "en"}}, "n": 1}) == {
        "langgraph.value.type": "report",
        "langgraph.value.meta.lang": "en",
    }
    assert pushed_down({"a.b": "x", "n": {"$gt": 1}, "ok": True, "none": None}) == {}
    store = ChronoMemStore(mem)
    with mem.batch():
        for i in range(120):
            store.put(("docs",), f"d{i}", {"text": f"ramen {i}", "type": "note"})
    store.put(("docs",), "r", {"text": f"ramen {' '.join(WORDS)}", "type": "report", "n": 1})
    [found] = store.search(("docs",), query="ramen", filter={"type": "report", "n": True})
    assert found.key == "r"  # n: 1 == True, as LangGraph's own filter has it
    assert store.search(("docs",), query="ramen", filter={"type": "report", "n": 2}) == []


def test_a_lone_surrogate_is_a_clear_error_and_writes_nothing(mem: ChronoMem) -> None:
    # Issue 39 item 17: a raw UnicodeEncodeError from inside the store. No UTF-8 holds a lone
    # surrogate, so it is refused (a ValueError, as LangGraph's own checks raise), not stored.
    store = ChronoMemStore(mem)
    store.put(ALICE, "k", {"v": "kept"})
    bad: list[tuple[Any, str]] = [
        (lambda: store.put(ALICE, "k\ud800", {"v": 1}), "key"),
        (lambda: store.put(ALICE, "k", {"v": "x\udfff"}), "value"),
        (lambda: store.put(ALICE, "k", {"v\udc00": 1}), "value"),
        (lambda: store.put(("users", "a\ud800"), "k", {"v": 1}), "namespace"),
        (lambda: store.batch([PutOp(ALICE, "k", {"v": "new"}), GetOp(ALICE, "\ud800")]), "key"),
        (lambda: store.get(ALICE, "k\ud800"), "key"),
        (lambda: store.delete(ALICE, "\udfff"), "key"),
        (lambda: store.search(("users\ud800",)), "namespace"),
        (lambda: store.search(ALICE, query="x\ud800"), "query"),
        (lambda: store.list_namespaces(prefix=("\ud800",)), "match_conditions"),
    ]
    for call, field in bad:
        with pytest.raises(ValueError, match=f"invalid {field}: must be valid Unicode"):
            call()
    assert [i.value for i in store.history(ALICE, "k")] == [{"v": "kept"}]


def test_a_value_past_the_metadata_limit_is_a_clear_error_and_writes_nothing(
    mem: ChronoMem,
) -> None:
    # Issue 39 item 14: a value over 64 KiB of JSON was refused as "invalid metadata", a
    # field the caller never named. The limit is documented and tested here: a value up to
    # it is kept whole (its indexed text capped), one past it refused naming the value.
    store = ChronoMemStore(mem)
    whole = {"doc": "word " * 12_000, "n": 1}  # 60 KiB of JSON
    store.put(ALICE, "doc", whole)
    got = store.get(ALICE, "doc")
    assert got is not None
    assert got.value == whole
    for big in ({"doc": "word " * 14_000}, {"deep": _nested(70)}):
        with pytest.raises(ValueError, match=r"invalid value: .*ChronoMemStore keeps"):
            store.batch([PutOp(ALICE, "other", {"v": 1}), PutOp(ALICE, "doc", big)])
    assert store.get(ALICE, "other") is None  # the batch wrote nothing
    assert [i.value for i in store.history(ALICE, "doc")] == [whole]


def _nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(depth):
        value = {"x": value}
    return value


def test_items_written_before_the_keyed_table_are_adopted(mem: ChronoMem) -> None:
    """A memory upgraded from a schema before the keyed table holds items as facts alone
    (an entity per namespace prefix, no row): the store gives them rows on its first call."""
    from chronomem.integrations._langgraph_records import (
        category_of,
        key_entity,
        metadata_of,
        prefix_entity,
    )

    for key, text in [("k1", "likes tea"), ("k2", "likes coffee")]:
        names = [key_entity(ALICE, key), *(prefix_entity(ALICE[:n]) for n in range(3))]
        mem.remember(text, category=category_of(ALICE), entities=names, dedup=False,
                     metadata=metadata_of(ALICE, key, {"text": text}, None))  # fmt: skip
    assert mem.keyed.empty()
    store = ChronoMemStore(mem)
    got = store.get(ALICE, "k1")
    assert got is not None
    assert got.value == {"text": "likes tea"}
    assert [i.key for i in store.search(ALICE)] == ["k1", "k2"]
    assert store.list_namespaces() == [ALICE]
    store.put(ALICE, "k1", {"text": "likes green tea"})
    assert [i.value["text"] for i in store.history(ALICE, "k1")] == ["likes tea", "likes green tea"]
