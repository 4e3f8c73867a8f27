"""One memory fixture for both engines: every test that takes ``memory_target`` runs twice,
on a SQLite file and on PostgreSQL (a fresh schema on the session's throwaway server).

The PostgreSQL server starts only when a PostgreSQL case runs, and a server that cannot start
fails those cases with its log: they never skip.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest

from chronomem import ChronoMem
from tests.chronomem.backends import CountedMemory, Databases, MemoryTarget, dsn_url

ENGINES = ["sqlite", "postgres"]


@pytest.fixture(params=ENGINES)
def memory_target(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[MemoryTarget]:
    """A fresh, empty database for a memory, on each engine in turn; every memory the test
    opened on it is closed after it."""
    if request.param == "sqlite":
        target = MemoryTarget("sqlite", str(tmp_path / "memory.db"))
    else:
        dsn: str = request.getfixturevalue("pg_dsn")
        schema: str = request.getfixturevalue("pg_schema")
        target = MemoryTarget("postgres", dsn_url(dsn), schema)
    yield target
    target.close_all()


@pytest.fixture(scope="module", params=ENGINES)
def module_memory_target(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[MemoryTarget]:
    """:func:`memory_target` for a module-scoped memory (one per engine per module)."""
    if request.param == "sqlite":
        yield MemoryTarget("sqlite", str(tmp_path_factory.mktemp("memory") / "memory.db"))
        return
    dsn: str = request.getfixturevalue("pg_dsn")
    schema = f"m_{uuid.uuid4().hex[:16]}"
    yield MemoryTarget("postgres", dsn_url(dsn), schema)
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


@pytest.fixture(params=ENGINES)
def databases(
    request: pytest.FixtureRequest, tmp_path: Path, pg_database: Callable[[], str]
) -> Databases:
    """Fresh databases for the command line and the server, which use the default schemas
    (``chronomem``, ``chronica``): files, or whole PostgreSQL databases created on the
    session's server and dropped after."""
    return Databases(request.param, tmp_path, pg_database)


@pytest.fixture
def counted_memory(
    pg_dsn: str, pg_schema: str, monkeypatch: pytest.MonkeyPatch
) -> Iterator[CountedMemory]:
    """A PostgreSQL memory on a pool of one connection, whose reads the server counts.

    It never gathers planner statistics (see chronomem.engine.postgres.statistics): its
    statements are tested as a planner without any plans them, as it must not matter."""
    import psycopg_pool  # here, not at the top: tests/test_chronomem.py runs without the extra

    from chronomem.engine.postgres import db

    monkeypatch.setattr(db, "analyse_if_blind", lambda raw, schema: [])

    with (
        psycopg_pool.ConnectionPool(pg_dsn, min_size=1, max_size=1, open=True) as pool,
        ChronoMem(pool, owner="ardian", schema=pg_schema) as mem,
    ):
        yield CountedMemory(mem, pool, pg_dsn, pg_schema)
