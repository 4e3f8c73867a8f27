"""Which engine a memory runs on: a SQLite file by default, PostgreSQL given a DSN or a pool.

Both offer the same things (``write()`` and ``read()`` transactions yielding a
:class:`~chronomem.engine.dialect.Conn`, ``call()`` of a server function, and ``close()``), so
everything above this module is the same code on both; SQLite answers ``call()`` with
``None`` (it keeps no functions), and the caller then writes the same rows as statements.
psycopg is imported only when a PostgreSQL target is given: the core never needs the
``postgres`` extra.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

from chronomem._errors import DatabaseError, InvalidArgumentError
from chronomem.engine.dialect import Conn
from chronomem.engine.upgrades import DataUpgrade

__all__ = ["Storage", "is_postgres", "open_storage"]

_DSN_PREFIXES = ("postgresql://", "postgres://")


class Storage(Protocol):
    """A database chronomem keeps its tables in."""

    @property
    def path(self) -> str:
        """Where: the file, or the server and schema (never a password)."""
        ...

    @property
    def schema_version(self) -> int:
        """The version of chronomem's tables (counted per engine)."""
        ...

    read_only: bool
    """Whether this database is known to be open for reading only (a SQLite file this process
    may not write), so nothing should try to write it."""

    vector_space: object
    """What the memory embeds with, set by the memory and handed to every connection as
    ``conn.vector_space`` (opaque to the engine: the write path and recall read it)."""

    def write(self) -> AbstractContextManager[Conn]:
        """A write transaction: all of it commits, or none of it. Inside another write of the
        same thread (``ChronoMem.batch``) a savepoint of it: undone alone on an error."""
        ...

    def read(self) -> AbstractContextManager[Conn]:
        """A read transaction: one consistent snapshot. Inside a write of the same thread, that
        write's transaction, its own writes included."""
        ...

    def statement(self) -> AbstractContextManager[Conn]:
        """A connection for one read statement, which is its own snapshot: no BEGIN or
        COMMIT is sent (on PostgreSQL one round trip where :meth:`read` takes three). Inside
        a write of the same thread, that write's transaction."""
        ...

    def call(self, function: str, arguments: Callable[[], Sequence[Any]]) -> tuple[Any, ...] | None:
        """Run chronomem's server function ``function`` (see the engine's schema) with the
        ``arguments`` it is given when asked, as a write transaction of its own, in one round
        trip, and return its row. ``None``, with nothing run and nothing asked: the engine
        keeps no functions (SQLite, whose statements are calls in this process already), or
        this thread has a write open (a batch), which the call must join, not leave."""
        ...

    def close(self) -> None:
        """Release the database; safe to call twice."""
        ...


POSTGRES_EXTRA = "a PostgreSQL memory needs the postgres extra: pip install 'chronomem[postgres]'"
"""What every door says when given a PostgreSQL database on an install without its driver."""


def has_postgres_driver() -> bool:
    """Whether psycopg and its pool import here (the ``postgres`` extra is installed)."""
    try:
        import psycopg  # noqa: F401  # imported to learn whether it can be
        import psycopg_pool  # noqa: F401
    except ImportError:
        return False
    return True


def is_postgres(target: object) -> bool:
    """A PostgreSQL URL (``postgresql://...``) or a ``psycopg_pool.ConnectionPool``."""
    if isinstance(target, str):
        return target.startswith(_DSN_PREFIXES)
    return type(target).__module__.split(".")[0] == "psycopg_pool"


def open_storage(
    target: object, *, upgrade: DataUpgrade, synchronous: str, schema: str | None
) -> Storage:
    """Open (creating or migrating chronomem's tables) the database ``target`` names;
    ``upgrade`` carries out the data steps a migration asks for."""
    if is_postgres(target):
        try:
            from chronomem.engine.postgres.db import PostgresDatabase
        except ImportError as e:
            raise DatabaseError(POSTGRES_EXTRA) from e
        return PostgresDatabase(
            target,  # type: ignore[arg-type]  # is_postgres checked the type
            upgrade=upgrade,
            schema="chronomem" if schema is None else schema,
        )
    if schema is not None:
        raise InvalidArgumentError("schema", "names a PostgreSQL schema; a SQLite file has none")
    if not isinstance(target, (str, os.PathLike)):
        raise InvalidArgumentError(
            "path", "must be a file path, a postgresql:// DSN or a psycopg_pool.ConnectionPool"
        )
    from chronomem.engine.sqlite.db import Database

    return Database(target, upgrade=upgrade, synchronous=synchronous)
