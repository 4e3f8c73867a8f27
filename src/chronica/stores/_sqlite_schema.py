"""chronica's tables inside a SQLite file that chronomem may share, and how to open it safely.

The file may hold chronomem's tables too, so chronica never touches ``PRAGMA user_version``:
its version lives in ``chronica_schema`` and every object it creates starts with
``chronica_``. Opening checks the file *before* changing anything in it, so a file that is
not ours (or is newer than this code) is left byte-for-byte as it was.
"""

from __future__ import annotations

import sqlite3

from chronica._errors import StoreError

__all__ = ["SCHEMA_VERSION", "prepare"]

SCHEMA_VERSION = 1
"""The chronica schema this code writes; a file with a higher version is refused."""

_MIGRATIONS: dict[int, tuple[str, ...]] = {
    # Migration N brings a file from version N - 1 to N. Never edit one that has shipped.
    1: (
        "CREATE TABLE chronica_schema (version INTEGER NOT NULL)",
        """CREATE TABLE chronica_chronica (
            id         TEXT PRIMARY KEY,
            owner_id   TEXT NOT NULL,
            created_at TEXT NOT NULL
        )""",
        # A rowid table with a separate (chronicum, seq) index rather than WITHOUT ROWID:
        # content can reach 1 MiB, and wide rows make a clustered index slow to maintain.
        """CREATE TABLE chronica_acta (
            chronicum_id    TEXT NOT NULL REFERENCES chronica_chronica (id),
            seq             INTEGER NOT NULL,
            id              TEXT NOT NULL,
            kind            TEXT NOT NULL,
            actor_kind      TEXT NOT NULL,
            actor           TEXT NOT NULL,
            content         TEXT NOT NULL,
            metadata        TEXT NOT NULL,
            at              TEXT NOT NULL,
            idempotency_key TEXT
        )""",
        "CREATE UNIQUE INDEX chronica_acta_by_seq ON chronica_acta (chronicum_id, seq)",
        """CREATE UNIQUE INDEX chronica_acta_by_key ON chronica_acta (chronicum_id, idempotency_key)
            WHERE idempotency_key IS NOT NULL""",
    ),
}


def _tables(conn: sqlite3.Connection) -> set[str]:
    rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    return {name for (name,) in rows}


def _version(conn: sqlite3.Connection, path: str) -> int | None:
    """Return chronica's schema version in the file, or None if chronica may create its tables.

    Raises :class:`StoreError` (having written nothing) if the file belongs to something else
    or was written by a newer chronica.
    """
    tables = _tables(conn)
    if "chronica_schema" in tables:
        (version,) = conn.execute("SELECT MAX(version) FROM chronica_schema").fetchone()
        if version is not None and version > SCHEMA_VERSION:
            raise StoreError(
                f"{path}: chronica schema version {version} is newer than this code supports "
                f"({SCHEMA_VERSION}); upgrade chronomem to open it"
            )
        return int(version or 0)
    if tables and "chronomem_schema" not in tables:
        raise StoreError(
            f"{path}: is a SQLite database of some other application "
            f"(it has tables {sorted(tables)[:5]} but no chronica or chronomem schema); "
            "refusing to modify it"
        )
    return None


def prepare(conn: sqlite3.Connection, path: str) -> None:
    """Check the file, then switch it to WAL and create or migrate chronica's tables.

    ``conn`` must be in autocommit mode (``isolation_level=None``).
    """
    try:
        version = _version(conn, path)  # read-only: refuses before anything is written
        if version == SCHEMA_VERSION:
            return
        if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Another process may have migrated while we waited for the write lock.
            version = _version(conn, path) or 0
            for step in range(version + 1, SCHEMA_VERSION + 1):
                for statement in _MIGRATIONS[step]:
                    conn.execute(statement)
            if version < SCHEMA_VERSION:
                conn.execute("DELETE FROM chronica_schema")
                conn.execute("INSERT INTO chronica_schema (version) VALUES (?)", (SCHEMA_VERSION,))
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
    except sqlite3.DatabaseError as e:
        raise StoreError(f"{path}: cannot open as a chronica database: {e}") from e
