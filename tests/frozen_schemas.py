"""Frozen old-version databases (tests/fixtures/schemas/, written by scripts/freeze_schemas.py
from the commit that shipped each version), loaded for migration tests, and each engine's
schema read as a set so a migrated database can be compared with a fresh one.

A fixture is refused unless its SHA-256 is the one MANIFEST.json pinned when it was frozen:
the old side of a migration test must not move with the code under test.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from pathlib import Path
from typing import Any

from scripts.freeze_schemas import SCHEMA, SOURCES, body, fixture_name

__all__ = [
    "FIXTURES",
    "load_postgres",
    "load_sqlite",
    "postgres_schema",
    "sqlite_schema",
    "versions",
]

FIXTURES = Path(__file__).parent / "fixtures" / "schemas"
_MANIFEST = json.loads((FIXTURES / "MANIFEST.json").read_text())


def versions(package: str, engine: str) -> list[int]:
    """The frozen versions of one package on one engine, oldest first."""
    return [v for p, e, v, _ in SOURCES if (p, e) == (package, engine)]


def _sql(package: str, engine: str, version: int) -> str:
    name = fixture_name(package, engine, version)
    text = (FIXTURES / name).read_text()
    digest = hashlib.sha256(text.encode()).hexdigest()
    assert digest == _MANIFEST[name]["sha256"], f"{name} changed since it was frozen"
    assert f"-- source commit: {_MANIFEST[name]['commit']}\n" in text
    return body(text)


def load_sqlite(package: str, engine_version: int, path: Path) -> None:
    """Write frozen version ``engine_version`` of ``package``'s SQLite file at ``path``."""
    conn = sqlite3.connect(path)
    try:
        conn.executescript(_sql(package, "sqlite", engine_version))
    finally:
        conn.close()


def load_postgres(package: str, engine_version: int, dsn: str, schema: str) -> None:
    """Create ``schema`` holding frozen version ``engine_version`` of ``package``'s tables."""
    import psycopg

    # Inside a string (a function's search_path) the name is a value, not an identifier.
    sql = _sql(package, "postgres", engine_version).replace(f"'{SCHEMA}'", f"'{schema}'")
    sql = sql.replace(SCHEMA, f'"{schema}"')
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(sql)  # no parameters: the simple protocol runs the whole script


_FTS5_SHADOWS = ("_data", "_idx", "_content", "_docsize", "_config")


def sqlite_schema(path: Path, prefix: str) -> set[tuple[Any, ...]]:
    """Every object of ``sqlite_master`` whose name starts with ``prefix``, as a set.

    An FTS5 table's shadow tables are named, not compared by text: their DDL is the SQLite
    library's, which may differ between the library that froze a file and the one reading it.
    """
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master").fetchall()
    finally:
        conn.close()
    virtual = {name for kind, name, _, sql in rows if sql and sql.startswith("CREATE VIRTUAL")}
    found = set()
    for kind, name, table, sql in rows:
        if not name.startswith(prefix):
            continue
        shadow = any(name == v + s for v in virtual for s in _FTS5_SHADOWS)
        found.add((kind, name, table, None if shadow else sql))
    return found


def postgres_schema(dsn: str, schema: str) -> set[tuple[Any, ...]]:
    """Columns, constraints, indexes and functions of ``schema``, as a set, the schema's own
    name elided."""
    import psycopg

    def plain(text: object) -> object:
        return re.sub(rf'"?{schema}"?\.', "", text) if isinstance(text, str) else text

    with psycopg.connect(dsn, autocommit=True) as conn:
        columns = conn.execute(
            """SELECT 'column', table_name, column_name, data_type, is_nullable, column_default,
                      collation_name, is_identity, identity_generation
               FROM information_schema.columns WHERE table_schema = %s""",
            (schema,),
        ).fetchall()
        constraints = conn.execute(
            """SELECT 'constraint', t.relname, c.conname, pg_get_constraintdef(c.oid),
                      c.condeferrable, c.condeferred
               FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
               JOIN pg_namespace n ON n.oid = t.relnamespace WHERE n.nspname = %s""",
            (schema,),
        ).fetchall()
        indexes = conn.execute(
            "SELECT 'index', tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = %s",
            (schema,),
        ).fetchall()
        # A function's definition names its schema in its search_path too, quoted or not
        # (a dump restored writes it bare, a migration as the session had it).
        functions = conn.execute(
            """SELECT 'function', p.proname,
                      replace(replace(pg_get_functiondef(p.oid), %s, ''), %s, '')
               FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
               WHERE n.nspname = %s""",
            (f'"{schema}"', schema, schema),
        ).fetchall()
    rows = [*columns, *constraints, *indexes, *functions]
    return {tuple(plain(v) for v in row) for row in rows}
