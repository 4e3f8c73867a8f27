"""One SQLite connection per :class:`~chronomem.ChronoMem`, guarded by a lock.

Durability: WAL with ``synchronous=NORMAL`` by default. A committed fact survives a crash of the
process; on power loss the last few transactions may roll back (never corrupt). Pass
``synchronous="FULL"`` for power-loss durability at a write-throughput cost.

Concurrency: threads share the connection through an ``RLock`` (sqlite3 connections are not
safe for concurrent use); a write inside another write of the same thread (a batch) is a
savepoint of it. Processes coordinate through SQLite itself: every write is a
``BEGIN IMMEDIATE`` transaction, so a writer takes the lock up front and others wait up to
``busy_timeout`` instead of failing with "database is locked" half-way through.

Privacy: a new database file is created readable and writable by its owner only (0600); SQLite
gives its ``-wal`` and ``-shm`` files the same mode. An existing file keeps the mode it has.

Errors: a path that cannot be created, read or opened (a directory, a denied file, a missing
folder) raises :class:`~chronomem.DatabaseError`, never ``OSError`` or ``sqlite3.Error``.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import urllib.parse
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import Any

# One implementation of the WAL switch and the connection settings for both packages of this
# distribution: they share the file, so it must never run under two policies.
from chronica.stores.sqlite import configure, create_private, enable_wal
from chronomem._errors import DatabaseError
from chronomem.engine.sqlite.checkpoints import BACKSTOP_PAGES, Checkpointer
from chronomem.engine.sqlite.dialect import SQLiteConnection
from chronomem.engine.sqlite.schema import (
    SCHEMA_VERSION,
    check_file,
    check_integrity,
    check_tables,
    migrate,
)
from chronomem.engine.upgrades import DataUpgrade

__all__ = ["Database", "memory_exists"]

_BUSY_TIMEOUT_MS = 60_000
_SYNCHRONOUS = frozenset({"OFF", "NORMAL", "FULL", "EXTRA"})
_IN_MEMORY = ("", ":memory:")  # "" is SQLite's private temporary database


def _create_private(path: str) -> bool:
    if path in _IN_MEMORY:
        return True
    try:
        return create_private(path)
    except OSError as e:
        raise DatabaseError(f"cannot create {path!r}: {e.strerror or e}") from e


def _writable(path: str) -> bool:
    """Whether this process may write the file and create its WAL files beside it."""
    if path in _IN_MEMORY:
        return True
    folder = os.path.dirname(os.path.abspath(path))
    return os.access(path, os.W_OK) and os.access(folder, os.W_OK | os.X_OK)


def _open_read_only(path: str) -> SQLiteConnection:
    """Open a file this process cannot write (issue 20 item 11): ``mode=ro`` first; a WAL
    file with no ``-shm`` beside it, in a folder nobody may write to (a read-only mount),
    cannot be opened so, and ``immutable=1`` reads it as the main file holds it (SQLite
    checkpoints the WAL into it when the last writer closes)."""
    uri = "file:" + urllib.parse.quote(os.path.abspath(path))
    failure: sqlite3.Error | None = None
    for query in ("?mode=ro", "?mode=ro&immutable=1"):
        try:
            conn = sqlite3.connect(
                uri + query,
                uri=True,
                isolation_level=None,
                check_same_thread=False,
                timeout=60,
                factory=SQLiteConnection,
            )
        except sqlite3.Error as e:
            failure = e
            continue
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return conn
        except sqlite3.DatabaseError as e:
            conn.close()
            if "not a database" in str(e):
                raise DatabaseError(f"{path!r} is not a SQLite database") from e
            failure = e
    raise DatabaseError(f"cannot open {path!r} read-only: {failure}")


def memory_exists(path: str) -> bool:
    """Whether the file holds a chronomem memory, checked read-only without changing a byte:
    a command that only reads must not write a schema into a file to say it holds none (an
    empty file, a chronica-only database)."""
    conn = _open_read_only(path)
    try:
        row = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'chronomem_schema'"
        ).fetchone()
    finally:
        conn.close()
    return row is not None


class Database:
    """A connection, its lock, and write/read transactions that translate driver errors."""

    schema_version = SCHEMA_VERSION
    read_only = False
    """Whether the file was opened for reading only (this process may not write it)."""
    _checkpoints: Checkpointer | None = None
    """Runs the checkpoints of a file this process writes (see :mod:`.checkpoints`)."""

    @property
    def vector_space(self) -> object:
        """What the memory embeds with, on the connection (the engine never reads it)."""
        return self.conn.vector_space

    @vector_space.setter
    def vector_space(self, space: object) -> None:
        self.conn.vector_space = space

    def __init__(
        self, path: str | os.PathLike[str], *, upgrade: DataUpgrade, synchronous: str = "NORMAL"
    ) -> None:
        self._upgrade = upgrade
        raw = os.fspath(path)
        self.path = raw if raw == ":memory:" else os.path.expanduser(raw)
        if not isinstance(synchronous, str) or synchronous not in _SYNCHRONOUS:
            raise DatabaseError(f"unknown synchronous mode {synchronous!r}")
        created = _create_private(self.path)
        try:
            check_file(self.path)
        except OSError as e:
            raise DatabaseError(f"cannot read {self.path!r}: {e.strerror or e}") from e
        self.lock = threading.RLock()
        # How deep the write transaction of the thread holding ``lock`` is (0: none open).
        self._depth = 0
        self._closed = False
        if not created and not _writable(self.path):
            self.conn = _open_read_only(self.path)
            self._setup_read_only()
            self.read_only = True
            return
        try:
            self.conn = sqlite3.connect(
                self.path,
                isolation_level=None,
                check_same_thread=False,
                timeout=60,
                factory=SQLiteConnection,
            )
        except sqlite3.Error as e:
            raise DatabaseError(f"cannot open {self.path!r}: {e}") from e
        try:
            self._setup(synchronous, created=created)
        except BaseException:
            self.conn.close()
            raise

    def _setup_read_only(self) -> None:
        """A file this process may only read is read as it is: no WAL switch, no migration
        (a write would fail: an older schema is refused with what to do instead)."""
        try:
            self.conn.execute(f"PRAGMA busy_timeout = {_BUSY_TIMEOUT_MS}")
            version = check_tables(self.conn, self.path)
        except BaseException:
            self.conn.close()
            raise
        if version != SCHEMA_VERSION:
            self.conn.close()
            raise DatabaseError(
                f"{self.path!r} is read-only here and at chronomem schema version {version}, "
                f"not {SCHEMA_VERSION}: open it once where it can be written, to upgrade it"
            )
        self.conn.journal = True  # today's schema: its counts are partly journaled

    def _setup(self, synchronous: str, *, created: bool) -> None:
        try:
            self.conn.execute(f"PRAGMA busy_timeout = {_BUSY_TIMEOUT_MS}")
            version = check_tables(self.conn, self.path)
            if not created and version < SCHEMA_VERSION and os.path.getsize(self.path) > 0:
                check_integrity(self.conn, self.path)
            enable_wal(self.conn)
            configure(self.conn, synchronous=synchronous, busy_timeout_ms=_BUSY_TIMEOUT_MS)
            if self.path not in _IN_MEMORY:
                self.conn.execute(f"PRAGMA wal_autocheckpoint = {BACKSTOP_PAGES}")
                self._checkpoints = Checkpointer(
                    self.path, synchronous=synchronous, backstop_pages=BACKSTOP_PAGES
                )
                # An unclosed memory's thread stops when the memory is collected.
                weakref.finalize(self, self._checkpoints.close)
        except sqlite3.Error as e:
            raise DatabaseError(f"cannot use {self.path!r}: {e}") from e
        with self.write() as conn:
            check_tables(conn, self.path)
            migrate(conn, self._upgrade)

    @contextlib.contextmanager
    def write(self) -> Iterator[SQLiteConnection]:
        """A ``BEGIN IMMEDIATE`` transaction: all of it commits, or none of it.

        Inside another write of this thread (a batch) it is a savepoint of that transaction:
        it commits with the batch, and on an error it alone is undone before the error goes on.
        """
        with self.lock:
            if self._depth:
                with self._savepoint():
                    yield self.conn
                return
            self._refuse_if_closed()
            try:
                self.conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as e:
                raise DatabaseError(f"cannot start a write transaction: {e}") from e
            self._depth = 1
            try:
                yield self.conn
                self.conn.execute("COMMIT")
            except BaseException as exc:
                with contextlib.suppress(sqlite3.Error):
                    self.conn.execute("ROLLBACK")
                if isinstance(exc, sqlite3.Error):
                    raise DatabaseError(f"write failed: {exc}") from exc
                raise
            else:
                if self._checkpoints is not None and self._checkpoints.committed():
                    self._checkpoints.catch_up(self.conn)
            finally:
                self._depth = 0

    @contextlib.contextmanager
    def _savepoint(self) -> Iterator[None]:
        name = f"chronomem_{self._depth}"
        self._depth += 1
        try:
            self.conn.execute(f"SAVEPOINT {name}")
            try:
                yield
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    self.conn.execute(f"ROLLBACK TO {name}")
                    self.conn.execute(f"RELEASE {name}")
                raise
            self.conn.execute(f"RELEASE {name}")
        except sqlite3.Error as e:
            raise DatabaseError(f"write failed: {e}") from e
        finally:
            self._depth -= 1

    @contextlib.contextmanager
    def read(self) -> Iterator[SQLiteConnection]:
        """A read transaction: one consistent snapshot across several statements, taken on
        entry (so a time read inside is later than every write the snapshot holds).

        Inside a write of this thread it reads that transaction, its own writes included."""
        with self.lock:
            if self._depth:
                try:
                    yield self.conn
                except sqlite3.Error as e:
                    raise DatabaseError(f"read failed: {e}") from e
                return
            self._refuse_if_closed()
            try:
                self.conn.execute("BEGIN")
                self.conn.execute("SELECT 1 FROM chronomem_schema LIMIT 1").fetchone()
            except sqlite3.Error as e:
                raise DatabaseError(f"cannot start a read transaction: {e}") from e
            try:
                yield self.conn
            except sqlite3.Error as e:
                raise DatabaseError(f"read failed: {e}") from e
            finally:
                with contextlib.suppress(sqlite3.Error):
                    self.conn.execute("COMMIT")

    @contextlib.contextmanager
    def statement(self) -> Iterator[SQLiteConnection]:
        """One read statement in autocommit mode, its own snapshot (see :class:`Storage`):
        a quarter of :meth:`read`'s statements for a read of one row."""
        with self.lock:
            if not self._depth:
                self._refuse_if_closed()
            try:
                yield self.conn
            except sqlite3.Error as e:
                raise DatabaseError(f"read failed: {e}") from e

    def call(self, function: str, arguments: Callable[[], Sequence[Any]]) -> tuple[Any, ...] | None:
        """``None``: a SQLite file keeps no functions of chronomem's (a write's statements
        are calls in this process, with no server to wait for)."""
        return None

    def _refuse_if_closed(self) -> None:
        """A call after :meth:`close` (one in flight on another thread when it closed): the
        same clear refusal on both engines (issue 39 item 17), not sqlite3's own words."""
        if self._closed:
            raise DatabaseError(f"{self.path}: the memory is closed")

    def close(self) -> None:
        """Release the file; safe to call twice."""
        self._closed = True
        if self._checkpoints is not None:
            self._checkpoints.close()  # first: the writer, closing last, empties the log
        with self.lock, contextlib.suppress(sqlite3.Error):
            self.conn.close()
