"""ChronoMemStore against LangGraph's own InMemoryStore: the same random operation sequences
on both, results compared item by item, on both engines.

Exact: get, list_namespaces (every option) and search without a query (every filter operator,
limit and offset; LangGraph leaves the order of an unranked search to the store, so the
reference's full answer is put in ChronoMemStore's order, namespace then key, before paging).
With a query InMemoryStore (no embeddings) returns every item, unranked; ChronoMemStore returns
those that relate to the query, ranked: the test checks that its answer is a part of the
reference's (same items, same values, the filter and prefix honoured) and holds every item
whose text holds the query's word.
"""

from __future__ import annotations

import random
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    SearchItem,
    SearchOp,
)
from langgraph.store.memory import InMemoryStore

from chronomem.integrations.langgraph import ChronoMemStore
from tests.chronomem.backends import MemoryTarget

SEQUENCES = 30
OPERATIONS = 60

NAMESPACES = [
    ("users", "alice"),
    ("users", "bob"),
    ("users", "alice", "notes"),
    ("docs",),
    ("docs", "v1"),
    ("cache", "x", "v1"),
]
KEYS = ["k1", "k2", "K1", "prefs", "long key with spaces"]
WORDS = ["ramen", "violin", "espresso", "sailing", "thinkpad", "kemang"]
FILTERS: list[dict[str, Any]] = [
    {"color": "red"},
    {"n": {"$gt": 2}},
    {"n": {"$gte": 2, "$lte": 4}},
    {"n": {"$lt": 1}},
    {"n": {"$ne": 3}},
    {"color": {"$eq": "blue"}, "n": {"$gt": 0}},
    {"meta": {"lang": "en"}},
    {"tags": ["a", "b"]},
    {"missing": None},
]
PATHS = [("users",), ("users", "*"), ("*", "x"), ("docs",), ("v1",), ("*",), ("alice", "notes")]


def _value(rng: random.Random) -> dict[str, Any]:
    value: dict[str, Any] = {
        "n": rng.randint(0, 5),
        "color": rng.choice(["red", "blue"]),
        "text": f"{rng.choice(WORDS)} note {rng.randint(0, 3)}",
    }
    if rng.random() < 0.4:
        value["tags"] = rng.choice([["a", "b"], ["a"], []])
    if rng.random() < 0.4:
        value["meta"] = {"lang": rng.choice(["en", "id"]), "depth": {"x": 1.5}}
    return value


def _op(rng: random.Random) -> Op:
    roll = rng.random()
    ns, key = rng.choice(NAMESPACES), rng.choice(KEYS)
    if roll < 0.40:
        return PutOp(ns, key, _value(rng))
    if roll < 0.50:
        return PutOp(ns, key, None)
    if roll < 0.65:
        return GetOp(ns, key)
    if roll < 0.85:
        prefix = ns[: rng.randint(0, len(ns))]
        query = rng.choice(WORDS) if rng.random() < 0.3 else None
        wanted = rng.choice(FILTERS) if rng.random() < 0.6 else None
        return SearchOp(prefix, wanted, rng.choice([1, 3, 10, 50]), rng.choice([0, 0, 1, 4]), query)
    conditions = tuple(
        MatchCondition(rng.choice(["prefix", "suffix"]), rng.choice(PATHS))
        for _ in range(rng.randint(0, 2))
    )
    depth = rng.choice([None, None, 1, 2])
    return ListNamespacesOp(conditions or None, depth, rng.choice([1, 2, 100]), rng.choice([0, 1]))


def _plain(item: Item | None) -> tuple[Any, ...] | None:
    return None if item is None else (item.namespace, item.key, item.value)


def _reference(ref: InMemoryStore, op: Op) -> Any:
    """What InMemoryStore answers, in the form ChronoMemStore's answer is compared with."""
    # InMemoryStore keeps a namespace whose items are all deleted (and makes one on a get of
    # a missing key) and lists it; a namespace is listed here only while it holds an item.
    for ns in [ns for ns, items in ref._data.items() if not items]:
        del ref._data[ns]
    if isinstance(op, SearchOp):
        everything = op._replace(limit=10**6, offset=0, query=None)
        found: list[SearchItem] = ref.batch([everything])[0]  # type: ignore[assignment]  # a SearchOp's result
        ordered = sorted(found, key=lambda i: (i.namespace, i.key))
        if op.query:
            return ordered
        return [_plain(i) for i in ordered[op.offset : op.offset + op.limit]]
    result: Any = ref.batch([op])[0]
    return _plain(result) if isinstance(op, GetOp) else result


def _compare(op: Op, ours: Any, expected: Any, where: str) -> None:
    if isinstance(op, GetOp):
        assert _plain(ours) == expected, where
        if ours is not None:
            assert ours.created_at <= ours.updated_at, where
    elif isinstance(op, SearchOp) and op.query:
        assert len(ours) <= op.limit, where
        every = {(i.namespace, i.key): i.value for i in expected}
        for item in ours:
            assert isinstance(item, SearchItem), where
            assert every.get((item.namespace, item.key)) == item.value, where
            assert item.score is not None, where
        scores = [i.score for i in ours]
        assert scores == sorted(scores, reverse=True), where
        holding = {k for k, v in every.items() if op.query in v["text"]}
        if op.offset == 0 and len(holding) <= op.limit:
            assert holding <= {(i.namespace, i.key) for i in ours}, where
    elif isinstance(op, SearchOp):
        assert [_plain(i) for i in ours] == expected, where
    else:
        assert ours == expected, where


def _run(store: BaseStore, ref: InMemoryStore, rng: random.Random, label: str) -> None:
    for step in range(OPERATIONS):
        if rng.random() < 0.1:  # a batch: reads before writes, the last put of a key wins
            ops = [_op(rng) for _ in range(rng.randint(2, 4))]
            ours = store.batch(ops)
            # The reference answers every read of the batch before any of its writes.
            expected = [None if isinstance(o, PutOp) else _reference(ref, o) for o in ops]
            ref.batch([o for o in ops if isinstance(o, PutOp)])
            for o, a, e in zip(ops, ours, expected, strict=True):
                if not isinstance(o, PutOp):
                    _compare(o, a, e, f"{label} step {step}: {o}")
            continue
        op = _op(rng)
        expected = _reference(ref, op)
        _compare(op, store.batch([op])[0], expected, f"{label} step {step}: {op}")


def test_random_sequences_agree_with_in_memory_store(memory_target: MemoryTarget) -> None:
    mem = memory_target.open()
    for seed in range(SEQUENCES):
        # An owner per sequence: a fresh store, on one database.
        store = ChronoMemStore(mem.for_owner(f"sequence-{seed}"))
        _run(store, InMemoryStore(), random.Random(seed), f"{memory_target.engine} seed {seed}")
