"""``ChronoMem.keyed``: facts addressed by namespace and key, each key's row beside its fact.

The row must never outlive its fact's belief: a purge of the fact takes the value with it
(from the file's bytes on SQLite), a forget or an outside supersede takes the key out; an owner's
erasure empties both tables. A put whose text is unchanged writes no fact, on both engines
(one call of the server's function on PostgreSQL).
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from chronomem import ChronoMem, InvalidArgumentError
from tests.chronomem.backends import MemoryTarget

NS = ("users", "alice")


@pytest.fixture
def mem(memory_target: MemoryTarget) -> ChronoMem:
    return memory_target.open(owner="ardian")


def _put(mem: ChronoMem, key: str, text: str, **more: object) -> str:
    got = mem.keyed.put(NS, key, {"text": text}, content=text, **more)  # type: ignore[arg-type]  # the keywords of put
    assert got is not None
    return got.fact_id


def test_a_put_of_the_same_text_writes_no_fact(mem: ChronoMem) -> None:
    first = _put(mem, "k", "likes quinoa")
    assert _put(mem, "k", "Likes  QUINOA") == first  # case and spacing: the same text
    assert mem.stats()["active"] == 1
    assert mem.stats()["superseded"] == 0
    got = mem.keyed.get(NS, "k", now=None)
    assert got is not None
    assert got.value == {"text": "Likes  QUINOA"}
    assert mem.keyed.drifted()  # its fact holds the older value
    changed = _put(mem, "k", "likes millet")
    assert changed != first
    assert mem.stats()["superseded"] == 1


def test_a_purged_fact_takes_its_key_and_value(memory_target: MemoryTarget) -> None:
    mem = memory_target.open(owner="ardian")
    gone = _put(mem, "secret", "zanthoxylum allergy")
    _put(mem, "kept", "likes tea")
    mem.purge(gone)
    assert mem.keyed.get(NS, "secret", now=None) is None
    assert [k.key for k in mem.keyed.under(NS, now=None)[0]] == ["kept"]
    if memory_target.engine == "sqlite":
        mem.close()
        raw = b"".join(
            Path(memory_target.path + s).read_bytes()
            for s in ("", "-wal")
            if Path(memory_target.path + s).exists()
        )
        assert b"zanthoxylum" not in raw
        assert b"likes tea" in raw


def test_forget_supersede_and_erase_from_outside_leave_no_row(mem: ChronoMem) -> None:
    a, b = _put(mem, "a", "likes tea"), _put(mem, "b", "likes coffee")
    _put(mem, "c", "likes cocoa")
    mem.forget(a)
    mem.supersede(b, "likes decaf")
    assert [k.key for k in mem.keyed.under((), now=None)[0]] == ["c"]
    assert mem.keyed.namespaces((), now=None) == [NS]
    mem.erase_owner()
    assert mem.keyed.under((), now=None)[0] == []
    assert mem.keyed.namespaces((), now=None) == []


def test_expired_items_are_left_out_and_swept_for_real(mem: ChronoMem) -> None:
    now = datetime(2030, 1, 1, tzinfo=timezone.utc)
    soon, later = now + timedelta(minutes=1), now + timedelta(minutes=10)
    _put(mem, "brief", "parking spot 42", expires_at=soon, ttl=1.0)
    _put(mem, "long", "likes tea", expires_at=later, ttl=10.0)
    mem.keyed.put(("other",), "x", {"t": "y"}, content="y", expires_at=soon, ttl=1.0)
    assert mem.keyed.get(NS, "brief", now=now) is not None
    at = now + timedelta(minutes=2)
    assert mem.keyed.get(NS, "brief", now=at) is None
    assert mem.keyed.get(NS, "brief", now=None) is not None  # until swept
    assert [k.key for k in mem.keyed.under((), now=at)[0]] == ["long"]
    assert mem.keyed.namespaces((), now=at) == [NS]
    assert mem.keyed.sweep(now=at, history=lambda k: [], reason="ttl") == 2
    assert mem.keyed.get(NS, "brief", now=None) is None
    assert mem.stats()["active"] == 1
    assert mem.recall("parking spot", kinds=["fact"]) == []
    assert mem.keyed.sweep(now=at, history=lambda k: [], reason="ttl") == 0
    _put(mem, "again", "spot 7", expires_at=soon, ttl=1.0)
    refused = mem.keyed.put(NS, "again", {"text": "spot 9"}, content="spot 9", now=at)
    assert refused is None  # expired, not yet swept: nothing written
    assert mem.keyed.get(NS, "again", now=None).value == {"text": "spot 7"}  # type: ignore[union-attr]  # the row is there


def test_bad_namespaces_keys_and_values_are_refused(mem: ChronoMem) -> None:
    for namespace in [("a\x01b",), ("nul\x00",), ["list"]]:
        with pytest.raises(InvalidArgumentError, match="namespace"):
            mem.keyed.put(namespace, "k", {}, content="x")  # type: ignore[arg-type]  # wrong on purpose
    with pytest.raises(InvalidArgumentError, match="value"):
        mem.keyed.put(NS, "k", {"n": float("nan")}, content="x")
    with pytest.raises(InvalidArgumentError, match="key"):
        mem.keyed.put(NS, 5, {}, content="x")  # type: ignore[arg-type]  # wrong on purpose
    assert mem.stats()["active"] == 0
    assert mem.keyed.empty()


def test_reads_by_fact_and_drift_use_their_indexes(tmp_path: Path) -> None:
    """Given ``owner = ?``, SQLite's planner read the owner's every row by the primary key
    (26 ms a text search at 100,000 items): these reads must go through their own indexes."""
    import sqlite3

    ChronoMem(tmp_path / "plan.db").close()
    conn = sqlite3.connect(tmp_path / "plan.db")
    plans = {
        "chronomem_keyed_by_fact": "SELECT owner FROM chronomem_keyed WHERE fact_id IN ('a', 'b')",
        "chronomem_keyed_drifted": (
            "SELECT 1 FROM chronomem_keyed WHERE drifted = 1 AND owner = 'o' LIMIT 1"
        ),
    }
    for index, sql in plans.items():
        plan = " ".join(str(r[3]) for r in conn.execute("EXPLAIN QUERY PLAN " + sql))
        assert index in plan, plan
    conn.close()
