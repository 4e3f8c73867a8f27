"""Files and schemas written by an older chronica open, migrated, with nothing lost.

Each test builds a version 1 database by hand with version 1's own DDL (migrations never
change once shipped), fills it the way version 1 did, including an actum ID minted twice
(what processes that seeded ``random`` alike used to do), then opens it with this code.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import random
import sqlite3
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import psycopg
import pytest

from chronica import (
    ActorKind,
    Actum,
    ActumKind,
    Chronicarius,
    ChronicumNotFoundError,
    CorruptDatabaseError,
    DuplicateActumError,
)
from chronica.stores import _postgres_schema, _sqlite_schema
from chronica.stores.postgres import PostgresStore
from chronica.stores.sqlite import SQLiteStore

T0 = datetime(2025, 3, 1, 12, 0, tzinfo=timezone.utc)
TWICE = "0195525f-8c00-7000-8000-000000000001"  # one ID, minted by two processes

# (chronicum, owner, created_at) in creation order, then acta as (chronicum, seq, id, key).
V1_CHRONICA = [("dinner", "ardian", T0), ("trip", "bea", T0 + timedelta(minutes=1))]
V1_ACTA = [
    ("dinner", 1, "0195525f-8c00-7000-8000-00000000000a", None),
    ("dinner", 2, TWICE, "turn-2"),
    ("trip", 1, "0195525f-8c00-7000-8000-00000000000b", None),
    ("dinner", 3, "0195525f-8c00-7000-8000-00000000000c", None),
    ("trip", 2, TWICE, None),  # the later of the two: it is the one re-minted
]


def _v1_rows() -> list[tuple[Any, ...]]:
    return [
        (
            cid,
            seq,
            actum_id,
            "message",
            "human",
            "someone",
            f"{cid} {seq}",
            "{}",
            T0 + timedelta(seconds=i),
            key,
        )
        for i, (cid, seq, actum_id, key) in enumerate(V1_ACTA)
    ]


def _message(chronicum_id: str, content: str) -> Actum:
    return Actum(
        chronicum_id=chronicum_id,
        kind=ActumKind.MESSAGE,
        actor_kind=ActorKind.HUMAN,
        actor="someone",
        content=content,
    )


def _assert_migrated(c: Chronicarius) -> None:
    dinner = c.get_acta("ardian", "dinner")
    trip = c.get_acta("bea", "trip")
    assert [a.content for a in dinner] == ["dinner 1", "dinner 2", "dinner 3"]
    assert [a.content for a in trip] == ["trip 1", "trip 2"]
    assert dinner[1].id == TWICE  # the first actum recorded keeps the shared ID
    assert trip[1].id != TWICE
    every_id = [a.id for a in dinner + trip]
    assert len(set(every_id)) == len(every_id)
    assert c.get_chronicum("bea", "trip").created_at == V1_CHRONICA[1][2]
    # Ownership carried over: each chronicum is its owner's, and only theirs.
    with pytest.raises(ChronicumNotFoundError):
        c.get_acta("bea", "dinner")
    # Idempotency keys carried over, now scoped by owner.
    again = c.record_actum("ardian", _message("dinner", "retry"), idempotency_key="turn-2")
    assert again.id == TWICE
    # New acta continue each chronicum, and IDs are now unique.
    later = c.record_actum("bea", _message("trip", "trip 3"))
    assert [a.id for a in c.get_acta("bea", "trip")] == [*(a.id for a in trip), later.id]
    c.record_actum("bea", _message("dinner", "her own dinner"))
    assert len(c.get_acta("ardian", "dinner")) == 3


# --- SQLite ----------------------------------------------------------------------------------


def _v1_file(path: Path) -> None:
    with sqlite3.connect(path) as raw:
        for statement in _sqlite_schema._MIGRATIONS[1]:
            assert isinstance(statement, str)
            raw.execute(statement)
        raw.execute("INSERT INTO chronica_schema (version) VALUES (1)")
        raw.executemany(
            "INSERT INTO chronica_chronica (id, owner_id, created_at) VALUES (?, ?, ?)",
            [(cid, owner, at.isoformat(timespec="microseconds")) for cid, owner, at in V1_CHRONICA],
        )
        rows = [(*row[:8], row[8].isoformat(timespec="microseconds"), row[9]) for row in _v1_rows()]
        raw.executemany(
            "INSERT INTO chronica_acta (chronicum_id, seq, id, kind, actor_kind, actor, content,"
            " metadata, at, idempotency_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
    raw.close()


def test_a_version_1_sqlite_file_is_migrated_with_nothing_lost(sqlite_path: Path) -> None:
    _v1_file(sqlite_path)
    with SQLiteStore(sqlite_path) as store:
        _assert_migrated(Chronicarius(store))
        assert [(c.id, c.owner_id) for c in store.chronica()] == [
            *((cid, owner) for cid, owner, _ in V1_CHRONICA),
            ("dinner", "bea"),  # created by _assert_migrated, after the migrated ones
        ]
    with sqlite3.connect(sqlite_path) as raw:
        assert raw.execute("SELECT version FROM chronica_schema").fetchall() == [
            (_sqlite_schema.SCHEMA_VERSION,)
        ]
        assert raw.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert raw.execute("PRAGMA foreign_key_check").fetchall() == []
    raw.close()


def test_the_migrated_sqlite_file_refuses_a_duplicate_id(sqlite_path: Path) -> None:
    _v1_file(sqlite_path)
    with SQLiteStore(sqlite_path) as store:
        with pytest.raises(DuplicateActumError):
            store.record(_with_id(_message("trip", "forged"), TWICE), owner_id="bea")
        assert len(store.acta("trip", owner_id="bea")) == 2


def test_a_corrupt_version_1_file_is_refused_before_migrating(sqlite_path: Path) -> None:
    _v1_file(sqlite_path)
    with sqlite3.connect(sqlite_path) as raw:  # enough acta for a page in the middle
        raw.executemany(
            "INSERT INTO chronica_acta (chronicum_id, seq, id, kind, actor_kind, actor, content,"
            " metadata, at) VALUES ('dinner', ?, ?, 'message', 'human', 'x', ?, '{}', 'now')",
            [(10 + i, f"filler-{i}", "a quiet table for four " * 8) for i in range(500)],
        )
        (page_size,) = raw.execute("PRAGMA page_size").fetchone()
        (pages,) = raw.execute("PRAGMA page_count").fetchone()
    raw.close()
    with sqlite_path.open("r+b") as f:
        f.seek(page_size * (pages // 2))
        f.write(random.Random(3).randbytes(page_size))
    before = hashlib.sha256(sqlite_path.read_bytes()).hexdigest()
    modified = os.stat(sqlite_path).st_mtime_ns
    with pytest.raises(CorruptDatabaseError):
        SQLiteStore(sqlite_path)
    assert hashlib.sha256(sqlite_path.read_bytes()).hexdigest() == before
    assert os.stat(sqlite_path).st_mtime_ns == modified
    assert sorted(p.name for p in sqlite_path.parent.iterdir()) == [sqlite_path.name]


def _with_id(actum: Actum, actum_id: str) -> Actum:
    return dataclasses.replace(actum, id=actum_id)


# --- PostgreSQL -----------------------------------------------------------------------------


@pytest.fixture
def v1_schema(pg_dsn: str, pg_schema: str) -> str:
    """A schema that version 1 of the PostgreSQL store created and filled."""
    quoted = _postgres_schema.quoted_schema(pg_schema)
    with psycopg.connect(pg_dsn, autocommit=True) as conn, conn.transaction():
        conn.execute(f"CREATE SCHEMA {quoted}")
        for statement in _postgres_schema.migrations(quoted)[1]:
            conn.execute(statement)
        conn.execute(f"INSERT INTO {quoted}.chronica_schema (version) VALUES (1)")
        with conn.cursor() as cur:
            cur.executemany(
                f"INSERT INTO {quoted}.chronica_chronica (id, owner_id, created_at, last_seq)"
                " VALUES (%s, %s, %s, %s)",
                [
                    (cid, owner, at, sum(1 for a in V1_ACTA if a[0] == cid))
                    for cid, owner, at in V1_CHRONICA
                ],
            )
            cur.executemany(
                f"INSERT INTO {quoted}.chronica_acta (chronicum_id, seq, id, kind, actor_kind,"
                " actor, content, metadata, at, idempotency_key)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s::jsonb, %s, %s)",
                _v1_rows(),
            )
    return pg_schema


@pytest.mark.postgres
def test_a_version_1_postgres_schema_is_migrated_with_nothing_lost(
    pg_dsn: str, v1_schema: str
) -> None:
    with PostgresStore(pg_dsn, schema=v1_schema) as store:
        _assert_migrated(Chronicarius(store))
        assert [(c.id, c.owner_id) for c in store.chronica()] == [
            *((cid, owner) for cid, owner, _ in V1_CHRONICA),
            ("dinner", "bea"),  # created by _assert_migrated, after the migrated ones
        ]
        with pytest.raises(DuplicateActumError):
            store.record(_with_id(_message("trip", "forged"), TWICE), owner_id="bea")
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        version = conn.execute(f'SELECT version FROM "{v1_schema}".chronica_schema').fetchall()
    assert version == [(2,)]
