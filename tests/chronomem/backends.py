"""Where a test's memory lives (either engine), and reaching under its public API for the
white-box tests that need its engine."""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
import psycopg.conninfo

from chronica.stores.postgres import PostgresStore
from chronica.stores.sqlite import SQLiteStore
from chronomem import ChronoMem
from chronomem.engine.sqlite.db import Database
from tests.pgserver import dsn_url, with_dbname

__all__ = [
    "Databases",
    "MemoryTarget",
    "Target",
    "count",
    "dsn_url",
    "is_untouched",
    "rows",
    "sqlite_connection",
    "with_dbname",
]


def sqlite_connection(mem: ChronoMem) -> sqlite3.Connection:
    """The SQLite connection under ``mem`` (a test of SQLite's own behaviour)."""
    db = mem._db
    assert isinstance(db, Database), "this white-box test needs a SQLite memory"
    return db.conn


@dataclass(frozen=True)
class MemoryTarget:
    """Where a test's memory lives: open it (again) with :meth:`open`."""

    engine: str
    """``"sqlite"`` or ``"postgres"``."""
    path: str
    """The SQLite file, or the PostgreSQL URL."""
    schema: str | None = None
    """The PostgreSQL schema (``None`` on SQLite)."""
    opened: list[ChronoMem] = field(default_factory=list, compare=False, repr=False)
    """Every memory :meth:`open` made, closed by the fixture after the test (a memory a test
    leaves open would otherwise close its PostgreSQL pool from the garbage collector, during
    whichever test runs then)."""

    def open(self, **options: Any) -> ChronoMem:
        """A ``ChronoMem`` on this database; ``options`` as ``ChronoMem`` takes them."""
        if self.schema is not None:
            options.setdefault("schema", self.schema)
        mem = ChronoMem(self.path, **options)
        self.opened.append(mem)
        return mem

    def __reduce__(self) -> tuple[Any, ...]:
        # A child process gets where the memory lives, not this process's open memories.
        return (MemoryTarget, (self.engine, self.path, self.schema))

    def close_all(self) -> None:
        """Close every memory :meth:`open` made (closing twice is harmless)."""
        while self.opened:
            self.opened.pop().close()

    def sibling(self, name: str) -> MemoryTarget:
        """Another fresh database on the same engine, cleaned up with this one: a file beside
        this one, or a schema whose name starts with this one's."""
        if self.schema is None:
            path = str(Path(self.path).with_name(f"{name}.db"))
            return MemoryTarget(self.engine, path, opened=self.opened)
        return MemoryTarget(self.engine, self.path, f"{self.schema}_{name}", opened=self.opened)

    def args(self) -> list[str]:
        """The ``--db`` a command line or a child process takes (with ``--schema`` on
        PostgreSQL, for test scripts that accept it)."""
        return [self.path] if self.schema is None else [self.path, self.schema]

    @classmethod
    def from_args(cls, args: Sequence[str]) -> MemoryTarget:
        """The target :meth:`args` described (in a child process)."""
        if len(args) == 1:
            return cls("sqlite", args[0])
        path, schema = args
        return cls("postgres", path, schema)

    def session_store(self) -> SQLiteStore | PostgresStore:
        """chronica's store on the same database: the file, or a schema named after this
        one's (so it is dropped with it)."""
        if self.schema is None:
            return SQLiteStore(self.path)
        return PostgresStore(self.path, schema=f"{self.schema}_chronica")


Target = Path | str
"""What ``--db`` and ``CHRONOMEM_DB`` take: a SQLite file, or a ``postgresql://`` URL."""


@dataclass(frozen=True)
class Databases:
    """Fresh databases for the command line and the server on one engine (``engine``)."""

    engine: str
    folder: Path
    create_database: Callable[[], str]

    def new(self, name: str, engine: str | None = None) -> Target:
        """A fresh place for a memory: ``name``.db, or a new PostgreSQL database's URL."""
        if (engine or self.engine) == "sqlite":
            return self.folder / f"{name}.db"
        return self.create_database()


def rows(mem: ChronoMem, sql: str, parameters: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    """White-box: the rows of one read of chronomem's tables, on either engine."""
    with mem._db.read() as conn:
        return [tuple(row) for row in conn.execute(sql, parameters).fetchall()]


def document_frequencies(mem: ChronoMem) -> dict[tuple[str, str], int]:
    """White-box: each owner's document frequency per term, as a recall counts it: the stored
    counts and, on SQLite, the journal's (see engine/sqlite/frequencies.py)."""
    with mem._db.read() as conn:
        return stored_frequencies(conn, sqlite=not conn.dialect.pipelined)


def stored_frequencies(conn: Any, *, sqlite: bool) -> dict[tuple[str, str], int]:
    """:func:`document_frequencies` on a raw connection of either engine."""
    dfs: Counter[tuple[str, str]] = Counter()
    for owner, term, n in conn.execute(
        "SELECT owner, term, sum(df) FROM chronomem_term_stats GROUP BY owner, term"
    ).fetchall():
        dfs[(owner, term)] += int(n)
    if sqlite:
        for owner, terms in conn.execute("SELECT owner, terms FROM chronomem_term_journal"):
            dfs.update((owner, t) for t in terms.split())
    return {key: n for key, n in dfs.items() if n}


def count(mem: ChronoMem, table: str) -> int:
    """White-box: how many rows ``table`` holds (every owner's)."""
    [(n,)] = rows(mem, f"SELECT count(*) FROM {table}")
    return int(n)


def is_untouched(target: Target) -> bool:
    """Nothing was written there: no file, or no ``chronomem``/``chronica`` schema."""
    if isinstance(target, Path):
        return not target.exists()
    with psycopg.connect(target) as conn:
        found = conn.execute(
            "SELECT nspname FROM pg_namespace WHERE nspname IN ('chronomem', 'chronica')"
        ).fetchall()
    return not found


@dataclass
class CountedMemory:
    """White-box, PostgreSQL: a memory on a pool of one connection (``pool``), so that one
    backend's statistics are all of the memory's reads (see :meth:`rows_read`)."""

    mem: ChronoMem
    pool: Any
    dsn: str
    schema: str

    def rows_read(self, table: str) -> tuple[int, int]:
        """How many rows ``table`` holds, and how many its scans have returned to the memory
        so far: its connection's pending statistics are flushed first. Counts kept by the
        server: no scan."""
        with self.pool.connection() as conn:
            conn.execute("SELECT pg_stat_force_next_flush()")
        with psycopg.connect(self.dsn, autocommit=True) as conn:
            row = conn.execute(
                """SELECT t.n_live_tup, t.seq_tup_read + coalesce(sum(i.idx_tup_read), 0)
                   FROM pg_stat_user_tables t
                   LEFT JOIN pg_stat_user_indexes i ON i.relid = t.relid
                   WHERE t.schemaname = %s AND t.relname = %s
                   GROUP BY t.n_live_tup, t.seq_tup_read""",
                (self.schema, table),
            ).fetchone()
        assert row is not None, f"no statistics for {self.schema}.{table}"
        return int(row[0]), int(row[1])
