"""Fixtures for both packages' durable backends: a throwaway PostgreSQL server and fresh files.

The server is started once per session (see :mod:`tests.pgserver`) unless
``CHRONICA_TEST_PG_DSN`` names one. If it cannot start, every PostgreSQL test errors with
the server's log: these tests never skip, in CI or anywhere else.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.pgserver import dsn_url, throwaway_server, with_dbname

DSN_VARIABLE = "CHRONICA_TEST_PG_DSN"


@pytest.fixture(scope="session", autouse=True)
def _benchmarks_never_wait() -> Iterator[None]:
    """A benchmark the suite runs is a smoke run, as ``--quick``'s are: it marks a row
    measured under load and goes on, never waiting up to a minute per row for a quiet
    machine (in CI the suite itself keeps the machine busy)."""
    from scripts.matrix import quiet

    quiet.patient(False)
    yield
    quiet.patient(True)


@pytest.fixture(scope="session")
def pg_dsn() -> Iterator[str]:
    """A DSN for a PostgreSQL server: ``CHRONICA_TEST_PG_DSN``, or one started for the session."""
    given = os.environ.get(DSN_VARIABLE)
    if given:
        yield given
        return
    # fsync off: these tests kill clients, never the server, so flushing buys nothing here.
    with throwaway_server({"fsync": "off", "synchronous_commit": "off"}) as dsn:
        yield dsn


@pytest.fixture
def pg_schema(pg_dsn: str) -> Iterator[str]:
    """A fresh schema name per test, dropped afterwards, so tests never see each other's rows."""
    schema = f"t_{uuid.uuid4().hex[:16]}"
    yield schema
    import psycopg  # here, not at the top: tests/test_chronomem.py runs without the extra

    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        # Also drops the schemas a test derived from this name (e.g. an import target).
        rows = conn.execute(
            "SELECT nspname FROM pg_namespace WHERE starts_with(nspname, %s)", (schema,)
        ).fetchall()
        for (name,) in rows:
            conn.execute(f'DROP SCHEMA "{name}" CASCADE')


@pytest.fixture
def pg_database(request: pytest.FixtureRequest) -> Iterator[Callable[[], str]]:
    """Makes fresh, empty databases on the test server (URLs), dropped after the test: for
    code that uses its default schemas, as the command line and the server do."""
    made: list[str] = []

    def create() -> str:
        import psycopg  # see pg_schema

        dsn: str = request.getfixturevalue("pg_dsn")
        name = f"d_{uuid.uuid4().hex[:16]}"
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        made.append(name)
        return with_dbname(dsn_url(dsn), name)

    yield create
    if made:
        import psycopg

        dsn: str = request.getfixturevalue("pg_dsn")
        with psycopg.connect(dsn, autocommit=True) as conn:
            for name in made:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def sqlite_path(tmp_path: Path) -> Path:
    """Where a test's SQLite file goes (not created yet)."""
    return tmp_path / "chronica.db"
