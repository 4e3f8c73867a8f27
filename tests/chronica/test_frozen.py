"""Recorded metadata is frozen all the way down, yet still JSON and still equal to plain data."""

from __future__ import annotations

import concurrent.futures
import copy
import json
import pickle
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from chronica import (
    MAX_METADATA_DEPTH,
    ActorKind,
    Actum,
    ActumKind,
    Chronicarius,
    InvalidActumError,
    Store,
)
from chronica._frozen import FrozenDict, FrozenList, compact_json, json_text
from chronica._validation import validated_actum
from chronica.stores.inmemory import InMemoryStore
from chronica.stores.postgres import PostgresStore
from chronica.stores.sqlite import SQLiteStore

META: dict[str, Any] = {"tool": "search", "args": {"q": "Kemang", "seats": [4, {"kids": 0}]}}

MUTATIONS: dict[str, Callable[[Any], object]] = {
    "set key": lambda m: m.__setitem__("tool", "x"),
    "del key": lambda m: m.__delitem__("tool"),
    "update": lambda m: m.update(tool="x"),
    "setdefault": lambda m: m.setdefault("new", 1),
    "pop key": lambda m: m.pop("tool"),
    "popitem": lambda m: m.popitem(),
    "clear": lambda m: m.clear(),
    "|=": lambda m: m.__ior__({"tool": "x"}),
    "set nested key": lambda m: m["args"].__setitem__("q", "x"),
    "append": lambda m: m["args"]["seats"].append(6),
    "extend": lambda m: m["args"]["seats"].extend([6]),
    "insert": lambda m: m["args"]["seats"].insert(0, 6),
    "set item": lambda m: m["args"]["seats"].__setitem__(0, 6),
    "del item": lambda m: m["args"]["seats"].__delitem__(0),
    "+=": lambda m: m["args"]["seats"].__iadd__([6]),
    "*=": lambda m: m["args"]["seats"].__imul__(2),
    "pop item": lambda m: m["args"]["seats"].pop(),
    "remove": lambda m: m["args"]["seats"].remove(4),
    "sort": lambda m: m["args"]["seats"].sort(),
    "reverse": lambda m: m["args"]["seats"].reverse(),
    "clear list": lambda m: m["args"]["seats"].clear(),
    "set key in list": lambda m: m["args"]["seats"][1].__setitem__("kids", 2),
}


@pytest.fixture(params=["inmemory", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def chronicarius(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Chronicarius]:
    store: Store
    if request.param == "inmemory":
        store = InMemoryStore()
    elif request.param == "sqlite":
        store = SQLiteStore(tmp_path / "chronica.db")
    else:
        dsn = request.getfixturevalue("pg_dsn")
        store = PostgresStore(dsn, schema=request.getfixturevalue("pg_schema"))
    yield Chronicarius(store)
    if isinstance(store, (SQLiteStore, PostgresStore)):
        store.close()


def _tool_request(metadata: Any) -> Actum:
    return Actum(
        chronicum_id="dinner",
        kind=ActumKind.TOOL_REQUEST,
        actor_kind=ActorKind.AGENT,
        actor="concierge",
        metadata=metadata,
    )


@pytest.mark.parametrize("mutate", MUTATIONS.values(), ids=MUTATIONS.keys())
def test_every_mutation_of_recorded_metadata_is_refused(
    chronicarius: Chronicarius, mutate: Callable[[Any], object]
) -> None:
    stored = chronicarius.record_actum("ardian", _tool_request(copy.deepcopy(META)))
    keyed = chronicarius.record_actum(
        "ardian", _tool_request(copy.deepcopy(META)), idempotency_key="k"
    )
    retry = chronicarius.record_actum("ardian", _tool_request({"other": 1}), idempotency_key="k")
    for held in (stored, keyed, retry, *chronicarius.get_acta("ardian", "dinner")):
        with pytest.raises(TypeError, match="immutable"):
            mutate(held.metadata)
    assert [a.metadata for a in chronicarius.get_acta("ardian", "dinner")] == [META, META]


def test_frozen_metadata_is_still_json_equal_to_plain_data_and_copyable(
    chronicarius: Chronicarius,
) -> None:
    stored = chronicarius.record_actum("ardian", _tool_request(copy.deepcopy(META)))
    (read,) = chronicarius.get_acta("ardian", "dinner")
    for metadata in (stored.metadata, read.metadata):
        assert metadata == META
        assert json.loads(json.dumps(metadata)) == META
        assert pickle.loads(pickle.dumps(metadata)) == META
        assert copy.deepcopy(metadata) == META
        editable = dict(metadata)  # a plain copy is the way to edit
        editable["tool"] = "maps"
        assert metadata["tool"] == "search"
    assert pickle.loads(pickle.dumps(stored)) == stored


def test_metadata_nested_far_too_deep_is_invalid_not_a_recursion_error(
    chronicarius: Chronicarius,
) -> None:
    deep: dict[str, Any] = {}
    inner = deep
    for _ in range(5_000):
        inner["a"] = {}
        inner = inner["a"]
    with pytest.raises(InvalidActumError, match="nested deeper"):
        chronicarius.record_actum("ardian", _tool_request(deep))
    listed: list[Any] = []
    for _ in range(5_000):
        listed = [listed]
    with pytest.raises(InvalidActumError, match="nested deeper"):
        chronicarius.record_actum("ardian", _tool_request({"a": listed}))


def test_metadata_at_the_depth_limit_round_trips(chronicarius: Chronicarius) -> None:
    deepest: dict[str, Any] = {"leaf": True}
    for _ in range(MAX_METADATA_DEPTH - 1):
        deepest = {"a": deepest}
    stored = chronicarius.record_actum("ardian", _tool_request(deepest))
    assert chronicarius.get_acta("ardian", "dinner") == [stored]
    with pytest.raises(InvalidActumError, match="nested deeper"):
        chronicarius.record_actum("ardian", _tool_request({"a": deepest}))


def test_metadata_that_holds_itself_is_invalid(chronicarius: Chronicarius) -> None:
    loop: dict[str, Any] = {}
    loop["self"] = loop
    with pytest.raises(InvalidActumError):
        chronicarius.record_actum("ardian", _tool_request(loop))


def test_brackets_inside_strings_do_not_count_as_nesting(chronicarius: Chronicarius) -> None:
    # Depth is first estimated from the JSON text's brackets; text full of them is still flat.
    code = {"code": "[{" * (2 * MAX_METADATA_DEPTH)}
    stored = chronicarius.record_actum("ardian", _tool_request(code))
    assert chronicarius.get_acta("ardian", "dinner")[-1].metadata == code == stored.metadata


def test_validated_metadata_remembers_the_json_it_was_checked_as() -> None:
    # A store writes that text rather than encoding the metadata a second time.
    actum = validated_actum(_tool_request({"tool": "search", "args": [1, "é"]}), "id")
    assert json_text(actum.metadata) == '{"tool":"search","args":[1,"é"]}'
    assert json_text(FrozenDict({"tool": "search"})) is None  # built by hand: none to trust
    assert json_text({"tool": "search"}) is None


class _Text(str):
    pass


@pytest.mark.parametrize(
    "metadata",
    [
        {"tool": "search", "args": {"q": "x", "n": [1, 2.5, True, None, {"deep": []}]}},
        {"args": (1, 2)},  # a tuple: JSON makes it an array
        {"n": {1: "one", 2.5: "half", None: "nothing"}},  # keys JSON turns into text
        {"text": _Text("a str subclass")},
        {"wide": [{"i": i} for i in range(200)]},  # more containers than the walk copies
    ],
)
def test_validated_metadata_is_the_json_round_trip_deep_frozen(metadata: dict[str, Any]) -> None:
    # Small plain metadata is copied by a walk, the rest by decoding: the same either way.
    copied = validated_actum(_tool_request(metadata), "id").metadata
    assert copied == json.loads(json.dumps(metadata))
    assert json_text(copied) == json.dumps(metadata, ensure_ascii=False, separators=(",", ":"))
    pending: list[Any] = [copied]
    while pending:
        value = pending.pop()
        if isinstance(value, dict):
            assert type(value) is FrozenDict
            assert all(type(key) is str for key in value)
            pending.extend(value.values())
        elif isinstance(value, list):
            assert type(value) is FrozenList
            pending.extend(value)
        else:
            assert type(value) in (str, int, float, bool, type(None))
    metadata_before = json.dumps(metadata)
    with pytest.raises(TypeError):
        copied["tool"] = "maps"  # type: ignore[index]  # refused at run time, as tested
    assert json.dumps(metadata) == metadata_before


@pytest.mark.parametrize(
    "value",
    [
        {"a": [1, 2.5, True, None, "é\x00\ud800"], "b": {"c": (1, 2)}, 3: "int key"},
        {"nan": float("nan")},
        {"set": {1, 2}},
        "a bare string",
        [1, [2, [3]]],
    ],
)
def test_compact_json_writes_and_refuses_what_json_dumps_does(value: Any) -> None:
    def dumps(v: Any) -> str:
        return json.dumps(v, ensure_ascii=False, allow_nan=False, separators=(",", ":"))

    try:
        expected: str | tuple[type[Exception], str] = dumps(value)
    except (TypeError, ValueError) as e:
        expected = (type(e), str(e))
    try:
        got: str | tuple[type[Exception], str] = compact_json(value)
    except (TypeError, ValueError) as e:
        got = (type(e), str(e))
    assert got == expected


def test_compact_json_refuses_a_cycle_and_then_still_encodes() -> None:
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular"):
        compact_json(loop)
    assert compact_json([[1], [1]]) == "[[1],[1]]"  # the same list twice is no cycle
    shared = [1]
    assert compact_json({"a": shared, "b": shared}) == '{"a":[1],"b":[1]}'


def test_compact_json_after_an_error_deep_inside_still_catches_cycles_and_shares() -> None:
    # An encoding that raises midway leaves the containers it was inside behind; the next
    # encoding on the thread must neither take them for a cycle nor miss a real one.
    inner: dict[str, Any] = {"x": {1, 2}}  # a set: refused, inside two open containers
    outer = {"inner": inner, "list": [inner]}
    with pytest.raises(TypeError):
        compact_json(outer)
    assert compact_json({"inner": {"x": 1}, "again": [{"x": 1}]}) == (
        '{"inner":{"x":1},"again":[{"x":1}]}'
    )
    inner["x"] = 1
    assert compact_json(outer) == '{"inner":{"x":1},"list":[{"x":1}]}'
    loop: dict[str, Any] = {}
    loop["self"] = loop
    with pytest.raises(ValueError, match="Circular"):
        compact_json(loop)


def test_compact_json_encodes_in_many_threads_at_once() -> None:
    shared = {"a": [1, {"b": "c"}], "d": "é"}
    expected = json.dumps(shared, ensure_ascii=False, separators=(",", ":"))

    def encode_many() -> bool:
        return all(compact_json(shared) == expected for _ in range(2_000))

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        assert all(pool.map(lambda _: encode_many(), range(8)))
