"""ChronoMemStore's time to live (issue 41 item 1), on both engines, with a clock the test moves.

LangGraph 1.2's ``InMemoryStore`` keeps no TTL (``supports_ttl`` is ``False``); its SQLite and
PostgreSQL stores do, and ``langgraph.store.base`` documents the semantics. The differential's
reference is therefore ``InMemoryStore`` for every item's value, with those semantics on top:
a put's ``ttl`` (``default_ttl`` when not given) sets the item to expire that many minutes
later; a get or a search with ``refresh_ttl`` (``refresh_on_read`` by default) renews what it
returns; an expired item is gone from every read and listing (``omit_expired``); a sweep erases
what expired and was neither put nor deleted since. Random sequences of put, delete, get,
search, list_namespaces, clock moves and sweeps are run on both and every answer compared.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from langgraph.store.base import (
    NOT_PROVIDED,
    GetOp,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    SearchItem,
    SearchOp,
    TTLConfig,
)
from langgraph.store.memory import InMemoryStore

from chronomem import ChronoMem
from chronomem.integrations.langgraph import ChronoMemStore
from tests.chronomem.backends import MemoryTarget

ALICE = ("users", "alice")
SEQUENCES = 12
OPERATIONS = 70
NAMESPACES = [("users", "alice"), ("users", "bob"), ("docs",), ("docs", "v1")]
KEYS = ["k1", "k2", "prefs"]
TTLS: list[Any] = [None, 0.5, 1, 2.5, NOT_PROVIDED, NOT_PROVIDED]
CONFIGS: list[TTLConfig | None] = [
    None,
    {"default_ttl": 1.5},
    {"default_ttl": 2, "refresh_on_read": False},
    {"refresh_on_read": True, "sweep_interval_minutes": 10},
]


class Clock:
    """The time the store counts TTLs in, moved by the test."""

    def __init__(self) -> None:
        self.now = datetime(2031, 5, 1, 9, 0, tzinfo=timezone.utc)

    def __call__(self) -> datetime:
        return self.now


class Reference:
    """InMemoryStore's values under LangGraph's documented TTL semantics (see the module)."""

    def __init__(self, config: TTLConfig | None, clock: Clock) -> None:
        self.store, self.config, self.clock = InMemoryStore(), config, clock
        self.expiry: dict[tuple[tuple[str, ...], str], tuple[datetime, float]] = {}
        self.pending: set[tuple[tuple[str, ...], str]] = set()  # expired, not yet swept

    def _drop_expired(self) -> None:
        for where, (until, _) in list(self.expiry.items()):
            if until <= self.clock.now:
                del self.expiry[where]
                self.store.batch([PutOp(where[0], where[1], None)])
                self.pending.add(where)

    def _renew(self, items: Sequence[Item]) -> None:
        for item in items:
            where = (item.namespace, item.key)
            if where in self.expiry:
                ttl = self.expiry[where][1]
                self.expiry[where] = (self.clock.now + timedelta(minutes=ttl), ttl)

    def read(self, op: Op) -> Any:
        self._drop_expired()
        for ns in [ns for ns, items in self.store._data.items() if not items]:
            del self.store._data[ns]  # InMemoryStore lists a namespace it emptied
        if isinstance(op, SearchOp):
            found: list[SearchItem] = self.store.batch([op._replace(limit=10**6, offset=0)])[0]  # type: ignore[assignment]  # a SearchOp's result
            ordered = sorted(found, key=lambda i: (i.namespace, i.key))
            page = ordered[op.offset : op.offset + op.limit]
            if op.refresh_ttl:
                self._renew(page)
            return [(i.namespace, i.key, i.value) for i in page]
        result: Any = self.store.batch([op])[0]
        if isinstance(op, GetOp):
            if result is not None and op.refresh_ttl:
                self._renew([result])
            return None if result is None else (result.namespace, result.key, result.value)
        return result

    def write(self, op: PutOp) -> None:
        self._drop_expired()
        where = (op.namespace, op.key)
        self.pending.discard(where)
        self.expiry.pop(where, None)
        self.store.batch([op])
        if op.value is not None and op.ttl is not None:
            self.expiry[where] = (self.clock.now + timedelta(minutes=op.ttl), op.ttl)

    def sweep(self) -> int:
        self._drop_expired()
        swept, self.pending = len(self.pending), set()
        return swept


def _plain(op: Op, ours: Any) -> Any:
    if isinstance(op, GetOp):
        return None if ours is None else (ours.namespace, ours.key, ours.value)
    if isinstance(op, SearchOp):
        return [(i.namespace, i.key, i.value) for i in ours]
    return ours


def _op(rng: random.Random, store: ChronoMemStore) -> Op:
    """An operation as BaseStore's own methods would make it (the config's defaults in)."""
    ns, key, roll = rng.choice(NAMESPACES), rng.choice(KEYS), rng.random()
    refresh = rng.choice([None, None, True, False])
    resolved = store.ttl_config.get("refresh_on_read", True) if store.ttl_config else True
    refresh_ttl = resolved if refresh is None else refresh
    if roll < 0.4:
        ttl = rng.choice(TTLS)
        if ttl is NOT_PROVIDED:
            ttl = store.ttl_config.get("default_ttl") if store.ttl_config else None
        return PutOp(
            ns, key, {"text": f"note {rng.randint(0, 3)}", "n": rng.randint(0, 2)}, ttl=ttl
        )
    if roll < 0.5:
        return PutOp(ns, key, None)
    if roll < 0.7:
        return GetOp(ns, key, refresh_ttl=refresh_ttl)
    if roll < 0.88:
        wanted = rng.choice([None, {"n": 1}, {"n": {"$gte": 1}}])
        prefix = ns[: rng.randint(0, len(ns))]
        return SearchOp(prefix, wanted, rng.choice([1, 3, 10]), rng.choice([0, 1]), None,
                        refresh_ttl=refresh_ttl)  # fmt: skip
    path = rng.choice([("users",), ("docs",), ("*",)])
    return ListNamespacesOp((MatchCondition("prefix", path),), rng.choice([None, 1]), 10, 0)


def _run(
    store: ChronoMemStore, ref: Reference, clock: Clock, rng: random.Random, label: str
) -> None:
    for step in range(OPERATIONS):
        where = f"{label} step {step}"
        roll = rng.random()
        if roll < 0.15:
            clock.now += timedelta(seconds=rng.choice([10, 30, 60, 90, 150]))
            continue
        if roll < 0.2:
            assert store.sweep_ttl() == ref.sweep(), where
            continue
        op = _op(rng, store)
        ours = store.batch([op])[0]
        if isinstance(op, PutOp):
            ref.write(op)
        else:
            assert _plain(op, ours) == ref.read(op), f"{where}: {op}"


def test_random_sequences_agree_with_langgraph_ttl_semantics(memory_target: MemoryTarget) -> None:
    mem = memory_target.open()
    for seed in range(SEQUENCES):
        clock = Clock()
        config = CONFIGS[seed % len(CONFIGS)]
        store = ChronoMemStore(mem.for_owner(f"ttl-{seed}"), ttl=config, clock=clock)
        label = f"{memory_target.engine} seed {seed} config {config}"
        _run(store, Reference(config, clock), clock, random.Random(seed), label)


def test_default_ttl_refresh_and_sweep_through_the_public_api(memory_target: MemoryTarget) -> None:
    clock = Clock()
    mem = memory_target.open(owner="ardian")
    store = ChronoMemStore(mem, ttl={"default_ttl": 10, "refresh_on_read": True}, clock=clock)
    store.put(ALICE, "code", {"text": "door code 4417 for the zanthoxylum lab"})
    store.put(ALICE, "forever", {"text": "likes tea"}, ttl=None)
    clock.now += timedelta(minutes=8)
    assert store.get(ALICE, "code") is not None  # read at 8 minutes: renewed to 18
    clock.now += timedelta(minutes=8)
    assert store.get(ALICE, "code", refresh_ttl=False) is not None  # 16 < 18, not renewed
    clock.now += timedelta(minutes=3)
    assert store.get(ALICE, "code") is None  # 19 > 18: expired, never returned
    assert [i.key for i in store.search(ALICE)] == ["forever"]
    assert [i.key for i in store.search(ALICE, query="door code")] == []
    assert store.list_namespaces() == [ALICE]
    assert store.sweep_ttl() == 1
    assert store.sweep_ttl() == 0
    assert store.history(ALICE, "code") == []  # every value it held went
    if memory_target.engine == "sqlite":
        mem.close()
        raw = b"".join(
            Path(memory_target.path + s).read_bytes()
            for s in ("", "-wal")
            if Path(memory_target.path + s).exists()
        )
        assert b"zanthoxylum" not in raw  # erased from the file's bytes, not only from reads
        assert b"likes tea" in raw


def test_a_put_on_an_expired_key_erases_the_item_first(memory_target: MemoryTarget) -> None:
    """The expired item's values are erased, not kept as the new item's history, whether the
    put is alone or in a batch."""
    clock = Clock()
    mem = memory_target.open(owner="ardian")
    store = ChronoMemStore(mem, clock=clock)
    for key in ("alone", "batched"):
        store.put(ALICE, key, {"text": f"quillaja note {key}"}, ttl=1)
    clock.now += timedelta(minutes=2)
    store.put(ALICE, "alone", {"text": "fresh alone"})
    store.batch([PutOp(ALICE, "batched", {"text": "fresh batched"}), GetOp(ALICE, "alone")])
    for key in ("alone", "batched"):
        assert [i.value["text"] for i in store.history(ALICE, key)] == [f"fresh {key}"]
        item = store.get(ALICE, key)
        assert item is not None
        assert item.created_at == item.updated_at  # a new item, not the expired one's
    assert store.sweep_ttl() == 0
    assert mem.recall("quillaja", kinds=["fact"]) == []
    if memory_target.engine == "sqlite":
        mem.close()
        raw = b"".join(
            Path(memory_target.path + s).read_bytes()
            for s in ("", "-wal")
            if Path(memory_target.path + s).exists()
        )
        assert b"quillaja" not in raw


def test_the_sweeper_thread_sweeps_and_stops(mem_sqlite: ChronoMem) -> None:
    clock = Clock()
    store = ChronoMemStore(mem_sqlite, ttl={"sweep_interval_minutes": 1}, clock=clock)
    assert ChronoMemStore(mem_sqlite).start_ttl_sweeper().done()  # no config: nothing runs
    store.put(ALICE, "brief", {"text": "parking bay 12"}, ttl=1)
    clock.now += timedelta(minutes=2)
    future = store.start_ttl_sweeper(sweep_interval_minutes=0.002)  # 120 ms
    deadline = time.monotonic() + 20
    while mem_sqlite.keyed.get(ALICE, "brief", now=None) is not None:
        assert time.monotonic() < deadline, "the sweeper never swept"
        time.sleep(0.05)
    assert store.stop_ttl_sweeper(timeout=5)
    future.result(timeout=5)


@pytest.fixture
def mem_sqlite(tmp_path: Path) -> Iterator[ChronoMem]:
    memory = ChronoMem(tmp_path / "ttl.db")
    yield memory
    memory.close()
