"""Where a test's memory lives (either engine), and reaching under its public API for the
white-box tests that need its engine."""

from __future__ import annotations

import sqlite3
import urllib.parse
from dataclasses import dataclass
from typing import Any

import psycopg.conninfo

from chronomem import ChronoMem
from chronomem._db import Database

__all__ = ["MemoryTarget", "dsn_url", "sqlite_connection"]


def sqlite_connection(mem: ChronoMem) -> sqlite3.Connection:
    """The SQLite connection under ``mem`` (a test of SQLite's own behaviour)."""
    db = mem._db
    assert isinstance(db, Database), "this white-box test needs a SQLite memory"
    return db.conn


def dsn_url(dsn: str) -> str:
    """``dsn`` (a URL or ``key=value`` pairs) as the ``postgresql://`` URL ``ChronoMem`` takes."""
    if dsn.startswith(("postgresql://", "postgres://")):
        return dsn
    params = {k: str(v) for k, v in psycopg.conninfo.conninfo_to_dict(dsn).items()}
    return "postgresql://?" + urllib.parse.urlencode(params)


@dataclass(frozen=True)
class MemoryTarget:
    """Where a test's memory lives: open it (again) with :meth:`open`."""

    engine: str
    """``"sqlite"`` or ``"postgres"``."""
    path: str
    """The SQLite file, or the PostgreSQL URL."""
    schema: str | None = None
    """The PostgreSQL schema (``None`` on SQLite)."""

    def open(self, **options: Any) -> ChronoMem:
        """A ``ChronoMem`` on this database; ``options`` as ``ChronoMem`` takes them."""
        if self.schema is not None:
            options.setdefault("schema", self.schema)
        return ChronoMem(self.path, **options)

    def args(self) -> list[str]:
        """The ``--db`` a command line or a child process takes (with ``--schema`` on
        PostgreSQL, for test scripts that accept it)."""
        return [self.path] if self.schema is None else [self.path, self.schema]
