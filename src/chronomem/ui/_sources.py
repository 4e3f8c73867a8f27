"""What the inspector reads, opened without creating anything: a memory (when the database
holds one) and chronica's sessions, on a SQLite file or a PostgreSQL DSN.

``ChronoMem`` creates its tables when it opens a database that has none, which is right for a
writer and wrong here: a user pointing the inspector at the wrong database must not find a
memory made there. So the memory is opened only if it already exists; otherwise the memory
pages answer empty, with a note saying why.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from chronomem import ChronoMem, Contradiction, DatabaseError
from chronomem._doors.settings import shown

from ._sessions import SessionReader, open_reader
from ._views import SharedCall

__all__ = ["NO_MEMORY", "Sources", "memory_exists"]

NO_MEMORY = "no memory in this database yet (restart the inspector once one is written)"
"""The note shown, and answered by ``/api/info``, when the database holds no memory."""


def memory_exists(db: Path | str) -> bool:
    """Whether ``db`` holds a chronomem memory, asked without creating one."""
    if isinstance(db, str):
        from chronomem.engine.postgres.db import memory_exists as on_postgres

        return on_postgres(db)
    try:
        conn = sqlite3.connect(db.resolve().as_uri() + "?mode=ro", uri=True, timeout=10.0)
        try:
            row = conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'chronomem_facts'"
            ).fetchone()
        finally:
            conn.close()
    except sqlite3.Error as e:  # a text file, a damaged one: a line, not a traceback
        reason = (
            "is not a SQLite database" if "not a database" in str(e) else f"cannot be read: {e}"
        )
        raise DatabaseError(f"{db} {reason}") from e
    return row is not None


def _where(db: Path | str) -> str:
    return str(db) if isinstance(db, Path) else shown(db)


def _no_conflicts() -> list[Contradiction]:
    return []


@dataclass(frozen=True)
class Sources:
    """What the inspector reads: one owner's memory and session record in one database.

    The conflicts get a memory of their own: a ``ChronoMem`` answers one call at a time, and
    a scan for contradictions on a large memory must not hold up every other page. Both
    memories are ``None`` when the database holds no memory.
    """

    owner: str
    db: str
    """Where, for the header: the file, or the server and database (never a password)."""
    memory: ChronoMem | None
    sessions: SessionReader
    scanner: ChronoMem | None
    conflicts: SharedCall[list[Contradiction]]

    @classmethod
    def open(cls, db: Path | str, owner: str) -> Sources:
        """Open the readers on ``db`` (a file or a ``postgresql://`` DSN)."""
        with contextlib.ExitStack() as opened:
            sessions = open_reader(db)
            opened.callback(sessions.close)
            memory = scanner = None
            scan: Callable[[], list[Contradiction]] = _no_conflicts
            where = _where(db)
            if memory_exists(db):
                # An operator's search is no use of an item: it keeps nothing alive for prune.
                memory = opened.enter_context(ChronoMem(db, owner=owner, track_use=False))
                scanner = opened.enter_context(ChronoMem(db, owner=owner, track_use=False))
                scan, where = scanner.contradictions, memory.path
            opened.pop_all()  # all opened: the sources own them now
        return cls(owner, where, memory, sessions, scanner, SharedCall(scan))

    @property
    def note(self) -> str | None:
        """Why the memory pages are empty, if they are for want of a memory."""
        return NO_MEMORY if self.memory is None else None

    def close(self) -> None:
        """Release the database (every handle, even if one fails to close)."""
        with contextlib.ExitStack() as stack:
            for memory in (self.memory, self.scanner):
                if memory is not None:
                    stack.callback(memory.close)
            stack.callback(self.sessions.close)
