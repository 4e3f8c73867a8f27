"""Opening a memory on PostgreSQL: a DSN or a pool you own, a validated schema, clear errors."""

from __future__ import annotations

import time
from pathlib import Path

import psycopg
import psycopg_pool
import pytest

from chronomem import ChronoMem, DatabaseError, InvalidArgumentError
from chronomem.engine.postgres.schema import SCHEMA_VERSION as PG_SCHEMA_VERSION
from tests.chronomem.backends import dsn_url


def test_a_borrowed_pool_is_used_and_left_open(pg_dsn: str, pg_schema: str) -> None:
    with psycopg_pool.ConnectionPool(pg_dsn, min_size=1, max_size=2, open=True) as pool:
        with ChronoMem(pool, owner="ardian", schema=pg_schema) as mem:
            fid = mem.remember("Ardian's team meets on Thursdays")
            assert [f.id for f in mem.recall("when does the team meet")] == [fid]
            assert mem.stats()["schema_version"] == PG_SCHEMA_VERSION
        # Closing the memory leaves the caller's pool open, and the path it set was local
        # to each transaction: the pool's connections still see the default search_path.
        with pool.connection() as conn:
            assert conn.execute("SHOW search_path").fetchone() == ('"$user", public',)
        with ChronoMem(pool, owner="ardian", schema=pg_schema) as again:
            assert again.get(fid).content == "Ardian's team meets on Thursdays"


def test_two_schemas_are_two_memories(pg_dsn: str, pg_schema: str) -> None:
    url = dsn_url(pg_dsn)
    with ChronoMem(url, schema=f"{pg_schema}_a") as a, ChronoMem(url, schema=f"{pg_schema}_b") as b:
        a.remember("Only in the first memory")
        assert b.recall("first memory") == []
        assert b.stats()["facts"] == 0


@pytest.mark.parametrize("schema", ["", "1abc", "a-b", 'x"; DROP TABLE t; --', "a" * 64, "café", 7])
def test_a_schema_that_is_not_a_plain_identifier_is_refused(pg_dsn: str, schema: object) -> None:
    with pytest.raises(InvalidArgumentError, match="schema"):
        ChronoMem(dsn_url(pg_dsn), schema=schema)  # type: ignore[arg-type]  # the bad input


def test_a_schema_for_a_sqlite_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidArgumentError, match="schema"):
        ChronoMem(tmp_path / "m.db", schema="chronomem")
    assert not (tmp_path / "m.db").exists()


def test_a_server_that_is_not_there_is_a_clear_error_at_once(tmp_path: Path) -> None:
    started = time.monotonic()
    with pytest.raises(DatabaseError, match="cannot open postgresql://") as info:
        ChronoMem(f"postgresql://nobody@/nothing?host={tmp_path}&port=1")
    assert time.monotonic() - started < 15  # not the pool's minute-long timeout
    assert "password" not in str(info.value)


def test_the_password_never_shows_in_the_path(pg_dsn: str, pg_schema: str) -> None:
    params = psycopg.conninfo.conninfo_to_dict(pg_dsn)
    url = dsn_url(pg_dsn) + "&password=hunter2"
    with ChronoMem(url, schema=pg_schema) as mem:
        assert "hunter2" not in mem.path
        assert str(params.get("dbname", "")) in mem.path
        assert "hunter2" not in str(mem.stats())


def test_a_newer_schema_is_refused_untouched(pg_dsn: str, pg_schema: str) -> None:
    url = dsn_url(pg_dsn)
    ChronoMem(url, schema=pg_schema).close()
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute(f'UPDATE "{pg_schema}".chronomem_schema SET version = 99')
    with pytest.raises(DatabaseError, match="version 99"):
        ChronoMem(url, schema=pg_schema)
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        row = conn.execute(f'SELECT version FROM "{pg_schema}".chronomem_schema').fetchone()
    assert row == (99,)
