"""One memory fixture for both engines: every test that takes ``memory_target`` runs twice,
on a SQLite file and on PostgreSQL (a fresh schema on the session's throwaway server).

The PostgreSQL server starts only when a PostgreSQL case runs, and a server that cannot start
fails those cases with its log: they never skip.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.chronomem.backends import MemoryTarget, dsn_url


@pytest.fixture(params=["sqlite", "postgres"])
def memory_target(request: pytest.FixtureRequest, tmp_path: Path) -> MemoryTarget:
    """A fresh, empty database for a memory, on each engine in turn."""
    if request.param == "sqlite":
        return MemoryTarget("sqlite", str(tmp_path / "memory.db"))
    dsn: str = request.getfixturevalue("pg_dsn")
    schema: str = request.getfixturevalue("pg_schema")
    return MemoryTarget("postgres", dsn_url(dsn), schema)
