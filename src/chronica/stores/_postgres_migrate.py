"""Creating, migrating and checking chronica's tables in one PostgreSQL schema, on a
connection :class:`chronica.stores.postgres.PostgresStore` hands in.

The DDL is :mod:`chronica.stores._postgres_schema`'s; psycopg is named here for type checking
only, so :mod:`chronica.stores.postgres` stays the one module that imports it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chronica._errors import StoreError

from ._postgres_schema import SCHEMA_VERSION, migrations, quoted_schema

if TYPE_CHECKING:
    import psycopg

__all__ = ["migrate", "readable"]

_LOCK_NAMESPACE = "chronica.schema:"


def _stored_version(conn: psycopg.Connection[Any], quoted: str) -> int | None:
    """chronica's schema version in ``quoted``, or None if it has no tables of chronica."""
    exists = conn.execute(
        "SELECT to_regclass(%s) IS NOT NULL", (f"{quoted}.chronica_schema",)
    ).fetchone()
    if not (exists and exists[0]):
        return None
    row = conn.execute(f"SELECT MAX(version) FROM {quoted}.chronica_schema").fetchone()
    return int(row[0] or 0) if row else 0


def readable(conn: psycopg.Connection[Any], schema: str) -> bool:
    """Whether ``schema`` holds chronica's tables at this code's version (checked by reading
    only); raises :class:`chronica.StoreError` for an older or newer version."""
    version = _stored_version(conn, quoted_schema(schema))
    if version is None:
        return False
    if version != SCHEMA_VERSION:
        raise StoreError(
            f"PostgreSQL schema {schema!r}: chronica schema version {version} is not the one "
            f"this code reads ({SCHEMA_VERSION}); open it once for writing "
            "with the newest chronomem to migrate it"
        )
    return True


def migrate(conn: psycopg.Connection[Any], quoted: str, schema: str) -> None:
    """Create or migrate chronica's tables in ``schema``; refuse a newer schema untouched."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (_LOCK_NAMESPACE + schema,))
        version = _stored_version(conn, quoted) or 0
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"PostgreSQL schema {schema!r}: chronica schema version {version} is newer than "
                f"this code supports ({SCHEMA_VERSION}); upgrade chronomem"
            )
        if version == SCHEMA_VERSION:
            return
        conn.execute(f"CREATE SCHEMA IF NOT EXISTS {quoted}")
        steps = migrations(quoted)
        for step in range(version + 1, SCHEMA_VERSION + 1):
            for statement in steps[step]:
                conn.execute(statement)  # DDL built from a checked, quoted identifier
        conn.execute(f"DELETE FROM {quoted}.chronica_schema")
        conn.execute(
            f"INSERT INTO {quoted}.chronica_schema (version) VALUES (%s)",
            (SCHEMA_VERSION,),
        )
