"""One memory fixture for both engines: every test that takes ``memory_target`` runs twice,
on a SQLite file and on PostgreSQL (a fresh schema on the session's throwaway server).

The PostgreSQL server starts only when a PostgreSQL case runs, and a server that cannot start
fails those cases with its log: they never skip.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from tests.chronomem.backends import Databases, MemoryTarget, dsn_url, with_dbname

ENGINES = ["sqlite", "postgres"]


@pytest.fixture(params=ENGINES)
def memory_target(request: pytest.FixtureRequest, tmp_path: Path) -> MemoryTarget:
    """A fresh, empty database for a memory, on each engine in turn."""
    if request.param == "sqlite":
        return MemoryTarget("sqlite", str(tmp_path / "memory.db"))
    dsn: str = request.getfixturevalue("pg_dsn")
    schema: str = request.getfixturevalue("pg_schema")
    return MemoryTarget("postgres", dsn_url(dsn), schema)


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
def databases(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Databases]:
    """Fresh databases for the command line and the server, which use the default schemas
    (``chronomem``, ``chronica``): files, or whole PostgreSQL databases created on the
    session's server and dropped after."""
    made: list[str] = []

    def create_database() -> str:
        dsn: str = request.getfixturevalue("pg_dsn")
        name = f"d_{uuid.uuid4().hex[:16]}"
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        made.append(name)
        return with_dbname(dsn_url(dsn), name)

    yield Databases(request.param, tmp_path, create_database)
    if made:
        dsn: str = request.getfixturevalue("pg_dsn")
        with psycopg.connect(dsn, autocommit=True) as conn:
            for name in made:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
