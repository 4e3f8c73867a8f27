"""chronica's sessions on PostgreSQL, read through a small pool of read-only connections.

The tables are those of :mod:`chronica.stores._postgres_schema`, in schema ``chronica`` by
default; the queries are :class:`~._sessions.SessionReader`'s. ``PostgresStore`` is not used:
it creates or migrates its schema when it opens, and the inspector must create nothing. This
is the only module of the inspector that imports psycopg.

Every connection starts with ``default_transaction_read_only``, so even a query built wrong
could not write; the schema is looked up (``to_regclass``, which creates nothing) until
chronica has made it, and until then every session page is empty.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg
import psycopg_pool

from chronica.stores._postgres_schema import quoted_schema
from chronomem import DatabaseError
from chronomem.engine.postgres.db import redacted

from ._sessions import SessionReader, Tables

__all__ = ["PostgresSessionReader"]

_CONNECT_SECONDS = 10


def _read_only(conn: psycopg.Connection[Any]) -> None:
    conn.execute("SET default_transaction_read_only = on")


class PostgresSessionReader(SessionReader):
    """Read-only queries over chronica's tables in one PostgreSQL schema.

    A pool rather than one locked connection: a statement is a network round trip, and the
    inspector's worker threads (a live session polling, another page loading) should not
    queue behind each other's.
    """

    def __init__(self, dsn: str, *, schema: str = "chronica", max_size: int = 4) -> None:
        s = quoted_schema(schema)
        self.tables = Tables(
            chronica=f"{s}.chronica_chronica",
            acta=f"{s}.chronica_acta",
            created_order="created_order",
            metadata="metadata::text",
        )
        self._where = redacted(dsn)
        # One direct connection first: a server that is down or a DSN that is wrong fails
        # here at once, where a pool would retry in the background until its timeout.
        try:
            with psycopg.connect(dsn, autocommit=True, connect_timeout=_CONNECT_SECONDS) as conn:
                self._ready = False
                self._has_tables(conn)
        except psycopg.Error as e:
            raise DatabaseError(f"cannot open {self._where}: {e}") from e
        self._pool = psycopg_pool.ConnectionPool(
            dsn,
            min_size=1,
            max_size=max_size,
            kwargs={"autocommit": True, "connect_timeout": _CONNECT_SECONDS},
            configure=_read_only,
            timeout=30.0,
            open=True,
            name="chronomem-ui-sessions",
        )

    def close(self) -> None:
        """Close the pool."""
        self._pool.close()

    def _has_tables(self, conn: psycopg.Connection[Any]) -> bool:
        """Whether chronica has made its tables here; once it has, they stay."""
        if not self._ready:
            row = conn.execute("SELECT to_regclass(%s) IS NOT NULL", (self.tables.acta,)).fetchone()
            self._ready = bool(row and row[0])
        return self._ready

    def _rows(self, sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
        try:
            with self._pool.connection() as conn:
                if not self._has_tables(conn):
                    return []
                # The queries are shared with SQLite, whose placeholder is "?"; none of them
                # holds a literal "?" or "%".
                return conn.execute(sql.replace("?", "%s"), params).fetchall()
        except psycopg.errors.UndefinedTable:  # the schema dropped while the inspector ran
            self._ready = False
            return []
        except psycopg.Error as e:  # a PoolTimeout too
            raise DatabaseError(f"cannot read sessions from {self._where}: {e}") from e
