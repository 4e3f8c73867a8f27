"""chronica's sessions in a SQLite file, read on a connection opened with ``mode=ro``.

The tables are those of :mod:`chronica.stores._sqlite_schema`; the queries are
:class:`~._sessions.SessionReader`'s.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ._sessions import SessionReader, Tables

__all__ = ["SQLiteSessionReader"]


class SQLiteSessionReader(SessionReader):
    """Read-only queries over chronica's tables in one SQLite file.

    One connection, guarded by a lock: each query is an index range scan of a page, so
    serialising them costs less than a pool would.
    """

    tables = Tables(
        chronica="chronica_chronica", acta="chronica_acta", created_order="num", metadata="metadata"
    )

    def __init__(self, path: str | Path) -> None:
        uri = Path(path).resolve().as_uri() + "?mode=ro"
        self._conn = sqlite3.connect(uri, uri=True, check_same_thread=False, timeout=10.0)
        self._lock = threading.Lock()

    def close(self) -> None:
        """Release the file."""
        with self._lock:
            self._conn.close()

    def _rows(self, sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
        with self._lock:
            try:
                return self._conn.execute(sql, params).fetchall()
            except sqlite3.OperationalError as e:
                if "no such table" in str(e):  # chronica has not written to this file yet
                    return []
                raise
