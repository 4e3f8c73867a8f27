"""Every shipped chronica schema, frozen by the code that wrote it, opens with today's code.

The old databases are tests/fixtures/schemas/chronica-*.sql (see scripts/freeze_schemas.py;
MANIFEST.json pins their hashes), unlike test_migrations.py's version 1 files, which today's
``_MIGRATIONS[1]`` builds and so could not notice that step being edited. Per version: today's
first N steps build exactly the schema version N had; the frozen acta survive and stay
usable; the migrated schema equals a fresh store's.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import psycopg
import pytest
from scripts.freeze_schemas import ACTA

from chronica import ActorKind, Actum, ActumKind, Chronicarius, ChronicumNotFoundError
from chronica.stores import _postgres_schema, _sqlite_schema
from chronica.stores.postgres import PostgresStore
from chronica.stores.sqlite import SQLiteStore
from tests.frozen_schemas import (
    load_postgres,
    load_sqlite,
    postgres_schema,
    sqlite_schema,
    versions,
)

SQLITE = versions("chronica", "sqlite")
POSTGRES = versions("chronica", "postgres")


def test_every_shipped_version_is_frozen() -> None:
    assert list(range(1, _sqlite_schema.SCHEMA_VERSION + 1)) == SQLITE
    assert list(range(1, _postgres_schema.SCHEMA_VERSION + 1)) == POSTGRES


def _message(chronicum_id: str, content: str) -> Actum:
    return Actum(
        chronicum_id=chronicum_id,
        kind=ActumKind.MESSAGE,
        actor_kind=ActorKind.HUMAN,
        actor="someone",
        content=content,
    )


def _assert_acta_survived(c: Chronicarius) -> None:
    for owner, cid in {(owner, cid) for owner, cid, _, _ in ACTA}:
        expected = [content for o, i, content, _ in ACTA if (o, i) == (owner, cid)]
        assert [a.content for a in c.get_acta(owner, cid)] == expected
    with pytest.raises(ChronicumNotFoundError):
        c.get_acta("bea", "dinner")  # ardian's chronicum is not bea's
    [keyed] = [a for a in c.get_acta("ardian", "dinner") if a.content == ACTA[1][2]]
    retried = c.record_actum("ardian", _message("dinner", "again"), idempotency_key="turn-2")
    assert retried.id == keyed.id
    later = c.record_actum("bea", _message("trip", "Back on Sunday"))
    assert c.get_acta("bea", "trip")[-1].id == later.id
    every = [a.id for owner, cid in (("ardian", "dinner"), ("bea", "trip"))
             for a in c.get_acta(owner, cid)]  # fmt: skip
    assert len(set(every)) == len(every) == 4


@pytest.mark.parametrize("version", SQLITE)
def test_todays_first_steps_build_the_shipped_sqlite_schema(version: int, tmp_path: Path) -> None:
    frozen, replayed = tmp_path / "frozen.db", tmp_path / "replayed.db"
    load_sqlite("chronica", version, frozen)
    conn = sqlite3.connect(replayed, isolation_level=None)
    try:
        for step in range(1, version + 1):
            for statement in _sqlite_schema._MIGRATIONS[step]:
                conn.execute(statement) if isinstance(statement, str) else statement(conn)
    finally:
        conn.close()
    assert sqlite_schema(replayed, "chronica_") == sqlite_schema(frozen, "chronica_")


@pytest.mark.parametrize("version", SQLITE)
def test_a_frozen_sqlite_file_migrates_with_its_acta(version: int, tmp_path: Path) -> None:
    frozen, fresh = tmp_path / "frozen.db", tmp_path / "fresh.db"
    load_sqlite("chronica", version, frozen)
    with SQLiteStore(frozen) as store:
        _assert_acta_survived(Chronicarius(store))
    SQLiteStore(fresh).close()
    assert sqlite_schema(frozen, "chronica_") == sqlite_schema(fresh, "chronica_")
    conn = sqlite3.connect(frozen)
    try:
        assert conn.execute("SELECT version FROM chronica_schema").fetchall() == [
            (_sqlite_schema.SCHEMA_VERSION,)
        ]
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    finally:
        conn.close()


@pytest.mark.postgres
@pytest.mark.parametrize("version", POSTGRES)
def test_todays_first_steps_build_the_shipped_postgres_schema(
    version: int, pg_dsn: str, pg_schema: str
) -> None:
    replayed = f"{pg_schema}_replayed"
    load_postgres("chronica", version, pg_dsn, pg_schema)
    steps = _postgres_schema.migrations(f'"{replayed}"')
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{replayed}"')
        for step in range(1, version + 1):
            for statement in steps[step]:
                conn.execute(statement)
    assert postgres_schema(pg_dsn, replayed) == postgres_schema(pg_dsn, pg_schema)


@pytest.mark.postgres
@pytest.mark.parametrize("version", POSTGRES)
def test_a_frozen_postgres_schema_migrates_with_its_acta(
    version: int, pg_dsn: str, pg_schema: str
) -> None:
    load_postgres("chronica", version, pg_dsn, pg_schema)
    with PostgresStore(pg_dsn, schema=pg_schema) as store:
        _assert_acta_survived(Chronicarius(store))
    fresh = f"{pg_schema}_fresh"
    PostgresStore(pg_dsn, schema=fresh).close()
    assert postgres_schema(pg_dsn, pg_schema) == postgres_schema(pg_dsn, fresh)
