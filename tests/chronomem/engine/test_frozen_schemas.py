"""Every shipped chronomem schema, frozen by the code that wrote it, opens with today's code.

The old databases are tests/fixtures/schemas/chronomem-*.sql (scripts/freeze_schemas.py
made them at the commit that last wrote each version; MANIFEST.json pins their hashes).
Three things are checked per version: today's first N migration steps build exactly the
schema version N had (an edited shipped step fails here; the one version per engine that
shipped before a step was put ahead of its last is built by its own steps, named below);
the frozen rows survive the migration and stay usable; and the migrated schema equals a
fresh memory's, whatever steps are added later.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeVar

import psycopg
import pytest
from scripts.freeze_schemas import EPISODES, FACTS, FORGET_REASON, MOVED, OTHER_FACT, OTHER_OWNER

from chronomem import ChronoMem
from chronomem.engine.postgres import schema as pg_schema_module
from chronomem.engine.sqlite import schema as sqlite_schema_module
from chronomem.write.upgrade import upgrade_data
from tests.frozen_schemas import (
    load_postgres,
    load_sqlite,
    postgres_schema,
    sqlite_schema,
    versions,
)
from tests.pgserver import dsn_url

_T = TypeVar("_T")

SQLITE = versions("chronomem", "sqlite")
POSTGRES = versions("chronomem", "postgres")


def test_every_shipped_version_is_frozen() -> None:
    # A version that has no fixture would be migrated by no test (today's is frozen from the
    # commit that made it, right after it).
    assert list(range(1, sqlite_schema_module.SCHEMA_VERSION + 1)) == SQLITE
    assert list(range(1, pg_schema_module.SCHEMA_VERSION + 1)) == POSTGRES


def _assert_rows_survived(mem: ChronoMem, version: int, *, episodes: bool) -> None:
    items = {r["content"]: r for r in mem.export_facts()}
    facts = {c for c, r in items.items() if r["kind"] == "fact"}
    assert facts == {*FACTS.values(), MOVED}
    home, moved = items[FACTS["home"]], items[MOVED]
    assert home["superseded_by"] == moved["id"]
    assert home["invalidated_at"] is not None
    assert items[FACTS["booking"]]["forgotten"] is True
    assert items[FACTS["booking"]]["forget_reason"] == FORGET_REASON
    # Each fact is found again through the lexical index every step rebuilt.
    assert mem.recall("where does Ardian live", kinds=["fact"])[0].content == MOVED
    assert [f.content for f in mem.timeline("Ardian")] == [FACTS["home"], MOVED]
    assert [f.content for f in mem.timeline("ThinkPad T14")] == [FACTS["laptop"]]
    assert FACTS["booking"] not in [f.content for f in mem.recall("Kinara booking")]
    if episodes:
        turns = [(r["speaker"], r["content"], r["seq"]) for r in items.values() if "seq" in r]
        assert sorted(turns, key=lambda t: t[2]) == [
            (s, t, i) for i, (s, t) in enumerate(EPISODES, 1)
        ]
        assert mem.recall("rendang", kinds=["episode"])[0].content == EPISODES[1][1]
    # The other owner's fact is theirs only, and the memory takes new writes.
    assert OTHER_FACT not in [f.content for f in mem.recall("where does Bea live")]
    bea = mem.for_owner(OTHER_OWNER)  # shares the connection: closed with ``mem``
    assert bea.recall("where does Bea live")[0].content == OTHER_FACT
    new = mem.remember(f"Frozen at version {version} and migrated")
    assert mem.recall(f"migrated frozen version {version}")[0].id == new
    # Recording uses began with the upgrade (or the version that began it): items stored
    # before it count as unused from then, so nothing is a year unused on the day it opens.
    with mem._db.read() as conn:
        [since] = conn.execute("SELECT value FROM chronomem_settings WHERE key = 'uses_since'")
    assert 0 < int(since[0]) <= mem.get(new).system_time.timestamp() * 1_000_000


# --- SQLite ----------------------------------------------------------------------------------


# Version 7 shipped as the content-key step (commits a596138 to fa60093); the time step was
# put before it later, so today's 7th step is another one and its 8th takes either file to 8.
# That file's columns end in another order than a fresh file's (the times' column comes last).
_RENUMBERED_SQLITE_STEP = 7


def _shipped_steps(steps: Sequence[_T], version: int, renumbered: int) -> list[_T]:
    """Today's steps that build shipped ``version``: the first ``version`` of them, except that
    the ``renumbered`` version shipped without the step later put before its last one."""
    if version == renumbered:
        return [*steps[: version - 1], steps[version]]
    return list(steps[:version])


def _without_column_order(schema: set[tuple[Any, ...]]) -> set[tuple[Any, ...]]:
    return {row[:3] if row[1] == "chronomem_facts" else row for row in schema}


@pytest.mark.parametrize("version", SQLITE)
def test_todays_steps_build_the_shipped_sqlite_schema(version: int, tmp_path: Path) -> None:
    frozen = tmp_path / "frozen.db"
    load_sqlite("chronomem", version, frozen)
    steps = sqlite_schema_module._MIGRATIONS
    shipped = _shipped_steps(steps, version, _RENUMBERED_SQLITE_STEP)
    assert _sqlite_replay(shipped, tmp_path / "shipped.db") == sqlite_schema(frozen, "chronomem_")
    if version == _RENUMBERED_SQLITE_STEP:  # and today's first 7 steps build another schema
        assert _sqlite_replay(steps[:version], tmp_path / "first.db") != sqlite_schema(
            frozen, "chronomem_"
        )


def _sqlite_replay(steps: Sequence[Any], path: Path) -> set[tuple[Any, ...]]:
    """The schema ``steps`` build on a new file at ``path``."""
    import sqlite3

    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("CREATE TABLE chronomem_schema (version INTEGER NOT NULL)")
        for step in steps:
            step(conn, upgrade_data)  # the steps need only execute()
    finally:
        conn.close()
    return sqlite_schema(path, "chronomem_")


@pytest.mark.parametrize("version", SQLITE)
def test_a_frozen_sqlite_file_migrates_with_its_rows(version: int, tmp_path: Path) -> None:
    frozen, fresh = tmp_path / "frozen.db", tmp_path / "fresh.db"
    load_sqlite("chronomem", version, frozen)
    with ChronoMem(frozen) as mem:
        assert mem.stats()["schema_version"] == sqlite_schema_module.SCHEMA_VERSION
        _assert_rows_survived(mem, version, episodes=version >= 2)
    ChronoMem(fresh).close()
    migrated, expected = sqlite_schema(frozen, "chronomem_"), sqlite_schema(fresh, "chronomem_")
    if version == _RENUMBERED_SQLITE_STEP:
        migrated, expected = _without_column_order(migrated), _without_column_order(expected)
        assert _columns(frozen) == _columns(fresh)
    assert migrated == expected


def _columns(path: Path) -> set[tuple[Any, ...]]:
    import sqlite3

    conn = sqlite3.connect(path)
    try:
        return {row[1:] for row in conn.execute("PRAGMA table_info(chronomem_facts)")}
    finally:
        conn.close()


# --- PostgreSQL ------------------------------------------------------------------------------

# Version 5 shipped as the content-key step (commits a596138 to fa60093), as SQLite's 7 did;
# today's 5th step is the time step and its 6th adds the content key. So today's first five
# steps do not rebuild that schema, its first four and its 6th do, and on a shipped version 5
# the 6th step, finding the key, runs the time step instead (the migration test below takes
# the frozen schema to today's).
_RENUMBERED_POSTGRES_STEP = 5


@pytest.mark.postgres
@pytest.mark.parametrize("version", POSTGRES)
def test_todays_steps_build_the_shipped_postgres_schema(
    version: int, pg_dsn: str, pg_schema: str
) -> None:
    load_postgres("chronomem", version, pg_dsn, pg_schema)
    steps = pg_schema_module._MIGRATIONS
    shipped = _shipped_steps(steps, version, _RENUMBERED_POSTGRES_STEP)
    assert _postgres_replay(shipped, pg_dsn, f"{pg_schema}_shipped") == postgres_schema(
        pg_dsn, pg_schema
    )
    if version == _RENUMBERED_POSTGRES_STEP:  # and today's first 5 steps build another schema
        assert _postgres_replay(steps[:version], pg_dsn, f"{pg_schema}_first") != (
            postgres_schema(pg_dsn, pg_schema)
        )


def _postgres_replay(steps: Sequence[str], dsn: str, schema: str) -> Any:
    """The schema ``steps`` build in a new schema named ``schema``."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
        conn.execute(f'SET search_path TO "{schema}"')
        conn.execute("CREATE TABLE chronomem_schema (version integer NOT NULL)")
        for step in steps:
            for statement in pg_schema_module.statements(step):
                conn.execute(statement)
    return postgres_schema(dsn, schema)


@pytest.mark.postgres
@pytest.mark.parametrize("version", POSTGRES)
def test_a_frozen_postgres_schema_migrates_with_its_rows(
    version: int, pg_dsn: str, pg_schema: str
) -> None:
    # Version 1 -> 2 had no test at all before these fixtures.
    load_postgres("chronomem", version, pg_dsn, pg_schema)
    with ChronoMem(dsn_url(pg_dsn), schema=pg_schema) as mem:
        assert mem.stats()["schema_version"] == pg_schema_module.SCHEMA_VERSION
        _assert_rows_survived(mem, version, episodes=True)
    fresh = f"{pg_schema}_fresh"
    ChronoMem(dsn_url(pg_dsn), schema=fresh).close()
    assert postgres_schema(pg_dsn, pg_schema) == postgres_schema(pg_dsn, fresh)
