"""SQLiteStore: the embedded, durable default, safe across threads and processes on one file."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

from chronica._errors import ChronicumNotFoundError, InvalidArgumentError, StoreError
from chronica._model import (
    ActaPage,
    ActorKind,
    Actum,
    ActumEntry,
    ActumKind,
    ChronicaCounts,
    Chronicum,
    ChronicumSummary,
)
from chronica._validation import check_seconds

from . import _sqlite_browse as browse
from . import _sqlite_rows as sql
from ._sqlite_schema import (
    WAL_AUTOCHECKPOINT_PAGES,
    cannot_open,
    configure,
    create_private,
    empty_log,
    enable_wal,
    file_path,
    integrity_problems,
    prepare,
    readable,
)
from ._sqlite_writes import Immediate, Refused, insert, insert_many, restore, restore_batch

# enable_wal and configure are the one home of how a shared SQLite file is opened; chronomem
# uses them on the same file.
__all__ = [
    "WAL_AUTOCHECKPOINT_PAGES",
    "SQLiteStore",
    "configure",
    "create_private",
    "empty_log",
    "enable_wal",
    "integrity_problems",
    "restore_batch",
]

_MAX_BUSY_TIMEOUT = (2**31 - 1) / 1000
"""SQLite holds the busy timeout as a 32-bit count of milliseconds (about 24 days)."""


class SQLiteStore:
    """A :class:`chronica.IdempotentStore` in one SQLite file, shared by threads and processes.

    Also a :class:`chronica.BatchStore`, a :class:`chronica.TailStore` and a
    :class:`chronica.RestorableStore`, for
    :meth:`chronica.Chronicarius.restore`.
    Chronica are keyed by ``(owner_id, chronicum_id)`` and actum IDs are unique in the file.

    Every write is one ``BEGIN IMMEDIATE`` transaction, so writers from any thread or process
    queue on SQLite's write lock (waiting up to ``busy_timeout`` seconds) instead of failing
    with "database is locked"; readers never wait, thanks to WAL. Each actum gets the next
    per-chronicum ``seq`` inside its write transaction, and reads order by it, never by time.

    Durability: with ``synchronous="NORMAL"`` (the default, in WAL mode) an acknowledged
    write survives the process being killed or crashing at any moment, because it is in the
    write-ahead log (in the OS page cache) before ``record`` returns; on power loss or an OS
    crash the most recent transactions may be rolled back, but the file is never corrupted.
    ``synchronous="FULL"`` fsyncs the log on every commit, so acknowledged writes survive
    power loss too, at several times the cost per write.

    Threads share the store freely: it pools one connection per concurrently active thread.
    After ``os.fork``, open a new store in the child rather than using the parent's.

    Also a :class:`chronica.BrowsableStore` and a :class:`chronica.ErasableStore`.
    ``read_only=True`` opens an existing file for reading only (``mode=ro``), for a tool
    that must change nothing (chronomem's inspector): it creates and migrates nothing,
    every write raises :class:`chronica.StoreError`, and until chronica first writes to the
    file it reads as an empty store.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        synchronous: Literal["NORMAL", "FULL"] = "NORMAL",
        busy_timeout: float = 60.0,
        read_only: bool = False,
    ) -> None:
        if synchronous not in ("NORMAL", "FULL"):
            raise InvalidArgumentError("synchronous", "must be 'NORMAL' or 'FULL'")
        self._busy_timeout = check_seconds("busy_timeout", busy_timeout, maximum=_MAX_BUSY_TIMEOUT)
        self._path = file_path(path)
        self._synchronous = synchronous
        self._lock = threading.Lock()
        self._all: list[sqlite3.Connection] = []
        self._idle: list[sqlite3.Connection] = []
        self._closed = False
        self._read_only = read_only
        self._ready = not read_only  # whether chronica's tables are known to be in the file
        if not read_only:
            with contextlib.suppress(OSError):  # a folder that is missing: SQLite says so below
                create_private(self._path)
        conn = self._connect()
        try:
            if not read_only:
                prepare(conn, self._path)
            self._configure(conn)
        except BaseException:
            self.close()
            raise
        self._idle.append(conn)

    @property
    def path(self) -> str:
        """The database file, with ``~`` expanded."""
        return self._path

    def create(self, chronicum_id: str, *, owner_id: str) -> Chronicum:
        """Create the owner's chronicum if absent, in one transaction; return the stored one."""
        created_at = sql.utc_text(datetime.now(timezone.utc))
        with _Lease(self) as conn:
            with Immediate(conn):
                conn.execute(sql.CREATE, (owner_id, chronicum_id, created_at))
            row = conn.execute(sql.CHRONICUM, (owner_id, chronicum_id)).fetchone()
        return sql.row_chronicum(row)

    def get(self, chronicum_id: str, *, owner_id: str) -> Chronicum:
        """Return the owner's chronicum or raise :class:`chronica.ChronicumNotFoundError`."""
        with _Lease(self) as conn:
            row = None
            if self._readable(conn):
                row = conn.execute(sql.CHRONICUM, (owner_id, chronicum_id)).fetchone()
        if row is None:
            raise ChronicumNotFoundError(chronicum_id)
        return sql.row_chronicum(row)

    def record(self, actum: Actum, *, owner_id: str) -> Actum:
        """Append ``actum`` with ``at`` stamped now, as the chronicum's next ``seq``."""
        at = datetime.now(timezone.utc)
        params = sql.actum_params(owner_id, actum, at, None)
        with _Lease(self) as conn:
            insert(conn, params)  # one statement: its own transaction, see _sqlite_writes.insert
        return sql.stamped(actum, at)

    def record_once(self, actum: Actum, idempotency_key: str, *, owner_id: str) -> Actum:
        """Append ``actum`` unless ``idempotency_key`` was used in its chronicum.

        Returns the actum stored under the key first. The insert skips a taken key inside
        its own write transaction, so racing processes store exactly one; the one stored is
        then read back, and a stored actum never changes.
        """
        at = datetime.now(timezone.utc)
        params = sql.actum_params(owner_id, actum, at, idempotency_key)
        with _Lease(self) as conn:
            if insert(conn, params, sql.INSERT_ONCE):
                return sql.stamped(actum, at)
            row = conn.execute(sql.BY_KEY, (owner_id, actum.chronicum_id, idempotency_key))
            return sql.row_actum(actum.chronicum_id, row.fetchone())

    def record_many(
        self,
        acta: Sequence[Actum],
        *,
        owner_id: str,
        idempotency_keys: Sequence[str] | None = None,
    ) -> list[Actum]:
        """Append ``acta`` in one ``BEGIN IMMEDIATE`` transaction: one commit, all or nothing.

        See :meth:`chronica.BatchStore.record_many`. A fresh batch (the common case) is one
        read of where the chronicum ends and one ``executemany``; a batch with a key taken
        before (a retry) is rolled back and written one actum at a time in a new
        transaction, each keyed actum looked up and inserted as :meth:`record_once` does, so
        retries stay exact.
        """
        if len(acta) == 1:  # one statement is a transaction of its own
            if idempotency_keys is None:
                return [self.record(acta[0], owner_id=owner_id)]
            return [self.record_once(acta[0], idempotency_keys[0], owner_id=owner_id)]
        if not acta:
            return []
        keys = [None] * len(acta) if idempotency_keys is None else idempotency_keys
        # One moment for the batch: it is one transaction, as SQLiteSession stamps a turn.
        at = datetime.now(timezone.utc)
        at_text = sql.utc_text(at)
        stamps = [at] * len(acta)
        params = [
            sql.actum_row(owner_id, actum, at_text, key)
            for actum, key in zip(acta, keys, strict=True)
        ]
        try:
            with _Lease(self) as conn, Immediate(conn):
                return insert_many(conn, acta, stamps, params, owner_id)
        except Refused:
            pass  # rolled back: a taken key, a duplicate ID or a full chronicum; one by one
            # skips the key and names the rest
        return self._record_each(acta, stamps, params, owner_id)

    def _record_each(
        self,
        acta: Sequence[Actum],
        stamps: list[datetime],
        params: list[tuple[Any, ...]],
        owner_id: str,
    ) -> list[Actum]:
        """``record_many`` one statement at a time, to raise the error naming the actum."""
        stored: list[Actum] = []
        with _Lease(self) as conn, Immediate(conn):
            for actum, at, row in zip(acta, stamps, params, strict=True):
                key = row[-1]
                if key is None:
                    insert(conn, row)
                elif not insert(conn, row, sql.INSERT_ONCE):
                    found = conn.execute(sql.BY_KEY, (owner_id, actum.chronicum_id, key))
                    stored.append(sql.row_actum(actum.chronicum_id, found.fetchone()))
                    continue
                stored.append(sql.stamped(actum, at))
        return stored

    def acta(
        self,
        chronicum_id: str,
        *,
        owner_id: str,
        last_n: int = 0,
        actum_kinds: Sequence[ActumKind] | None = None,
        actor_kinds: Sequence[ActorKind] | None = None,
    ) -> list[Actum]:
        """Return the chronicum's acta, oldest first, filtered in SQL, then the last ``last_n``."""
        kinds = [ActumKind(k).value for k in set(actum_kinds)] if actum_kinds else []
        actors = [ActorKind(k).value for k in set(actor_kinds)] if actor_kinds else []
        query = sql.window_sql(len(kinds), len(actors))
        params = (owner_id, chronicum_id, *kinds, *actors, last_n or -1)
        with _Lease(self) as conn:
            if not self._readable(conn):
                raise ChronicumNotFoundError(chronicum_id)
            rows = conn.execute(query, params).fetchall()
            if (
                not rows
                and conn.execute(sql.CHRONICUM, (owner_id, chronicum_id)).fetchone() is None
            ):
                raise ChronicumNotFoundError(chronicum_id)
        return sql.rows_acta(chronicum_id, rows)

    def acta_ids(self, chronicum_id: str, *, owner_id: str, last_n: int = 0) -> list[str]:
        """The IDs of the chronicum's last ``last_n`` acta (all when 0), oldest first."""
        with _Lease(self) as conn:
            if not self._readable(conn):
                raise ChronicumNotFoundError(chronicum_id)
            rows = conn.execute(sql.LAST_IDS, (owner_id, chronicum_id, last_n or -1)).fetchall()
            if (
                not rows
                and conn.execute(sql.CHRONICUM, (owner_id, chronicum_id)).fetchone() is None
            ):
                raise ChronicumNotFoundError(chronicum_id)
        return [actum_id for (actum_id,) in reversed(rows)]

    def chronica(self) -> list[Chronicum]:
        """Every chronicum of every owner, in the order they were created (for export)."""
        with _Lease(self) as conn:
            rows = conn.execute(sql.ALL_CHRONICA).fetchall() if self._readable(conn) else []
        return [sql.row_chronicum(row) for row in rows]

    def chronica_page(
        self, *, owner_id: str, offset: int = 0, limit: int = 100
    ) -> list[ChronicumSummary]:
        """The owner's chronica, newest created first (see :class:`chronica.BrowsableStore`)."""
        with _Lease(self) as conn:
            if not self._readable(conn):
                return []
            return browse.chronica_page(conn, owner_id, offset, limit)

    def acta_page(
        self,
        chronicum_id: str,
        *,
        owner_id: str,
        limit: int,
        before: int | None = None,
        after: int | None = None,
        last_n: int = 0,
        actum_kinds: Sequence[ActumKind] | None = None,
        actor_kinds: Sequence[ActorKind] | None = None,
        preview_chars: int = 0,
    ) -> ActaPage:
        """A page of one window of the chronicum, read by index from the cursor."""
        with _Lease(self) as conn:
            if not self._readable(conn):
                raise ChronicumNotFoundError(chronicum_id)
            return browse.acta_page(
                conn,
                owner_id,
                chronicum_id,
                limit=limit,
                before=before,
                after=after,
                last_n=last_n,
                kinds=sorted({ActumKind(k).value for k in actum_kinds or ()}),
                actors=sorted({ActorKind(k).value for k in actor_kinds or ()}),
                preview_chars=preview_chars,
            )

    def find_actum(self, actum_id: str, *, owner_id: str) -> ActumEntry | None:
        """The owner's actum of this ID, whole, at its position; None if the owner has none."""
        with _Lease(self) as conn:
            return browse.find_actum(conn, owner_id, actum_id) if self._readable(conn) else None

    def counts(self, *, owner_id: str) -> ChronicaCounts:
        """How many chronica and acta the owner has (one index probe per chronicum)."""
        with _Lease(self) as conn:
            if not self._readable(conn):
                return ChronicaCounts(chronica=0, acta=0)
            return browse.counts(conn, owner_id)

    def erase_owner(self, *, owner_id: str) -> ChronicaCounts:
        """Delete every chronicum and actum of ``owner_id``, gone from the file's bytes.

        Call it through :meth:`chronica.Chronicarius.erase_owner`. Runs with
        ``secure_delete`` on (what is deleted is overwritten with zeros, not left in free
        pages), then checkpoints the write-ahead log with TRUNCATE, so no copy stays in the
        ``-wal`` file either; raises :class:`chronica.StoreError` (the rows already deleted)
        if another reader kept the log from being emptied. Returns how many were removed.
        """
        with _Lease(self) as conn:
            return browse.erase_owner(conn, owner_id, self._path)

    def erase_chronicum(self, chronicum_id: str, *, owner_id: str) -> ChronicaCounts:
        """Delete the owner's chronicum ``chronicum_id`` and its acta, gone from the file's
        bytes as :meth:`erase_owner` makes them (``secure_delete``, then the log emptied);
        call it through :meth:`chronica.Chronicarius.erase_chronicum`."""
        with _Lease(self) as conn:
            return browse.erase_chronicum(conn, chronicum_id, owner_id, self._path)

    def restore(
        self, chronica: Sequence[Chronicum], acta: Sequence[Actum], *, owner_id: str
    ) -> int:
        """Store exported chronica and acta as they were, in one transaction, or nothing.

        See :meth:`chronica.RestorableStore.restore`; call it through
        :meth:`chronica.Chronicarius.restore`, which validates every record first.
        """
        with _Lease(self) as conn, Immediate(conn):
            return restore(conn, owner_id, chronica, acta)

    def close(self) -> None:
        """Close every connection; the store cannot be used afterwards."""
        with self._lock:
            self._closed = True
            conns, self._all, self._idle = self._all, [], []
        for conn in conns:
            conn.close()

    def __enter__(self) -> SQLiteStore:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        mode = ", read_only=True" if self._read_only else ""
        return f"SQLiteStore({self._path!r}, synchronous={self._synchronous!r}{mode})"

    def _connect(self) -> sqlite3.Connection:
        with self._lock:
            if self._closed:
                raise StoreError(f"{self!r} is closed")
            try:
                # isolation_level=None: we issue BEGIN IMMEDIATE ourselves. The pool hands a
                # connection to one thread at a time, so crossing threads is safe.
                conn = sqlite3.connect(
                    Path(self._path).resolve().as_uri() + "?mode=ro"
                    if self._read_only
                    else self._path,
                    uri=self._read_only,
                    timeout=self._busy_timeout,
                    isolation_level=None,
                    check_same_thread=False,
                    cached_statements=256,
                )
            except sqlite3.Error as e:
                raise cannot_open(self._path, e) from e
            self._all.append(conn)
        return conn

    def _configure(self, conn: sqlite3.Connection) -> None:
        # Once per connection, never per call: the hot path runs no PRAGMA.
        try:
            # foreign_keys is also how a missing chronicum is seen
            configure(
                conn,
                synchronous=self._synchronous,
                busy_timeout_ms=int(self._busy_timeout * 1000),
            )
        except sqlite3.Error as e:
            raise StoreError(f"{self._path}: cannot configure connection: {e}") from e

    def _readable(self, conn: sqlite3.Connection) -> bool:
        """Whether chronica's tables are in the file: always, once a writable store opened it;
        for a read-only store, from the moment chronica first writes to the file."""
        if not self._ready:
            self._ready = readable(conn, self._path)
        return self._ready

    def _acquire(self) -> sqlite3.Connection:
        try:
            return self._idle.pop()  # list.pop is atomic under the GIL
        except IndexError:
            pass
        conn = self._connect()
        self._configure(conn)
        return conn

    def _release(self, conn: sqlite3.Connection) -> None:
        with self._lock:
            # A connection still in a transaction (a failed rollback) is never reused.
            if not self._closed and not conn.in_transaction:
                self._idle.append(conn)
                return
            if conn in self._all:
                self._all.remove(conn)
        conn.close()


class _Lease:
    """Borrows a pooled connection for one call and turns driver errors into StoreError."""

    __slots__ = ("_conn", "_store")

    def __init__(self, store: SQLiteStore) -> None:
        self._store = store

    def __enter__(self) -> sqlite3.Connection:
        self._conn = self._store._acquire()
        return self._conn

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._store._release(self._conn)
        if isinstance(exc, sqlite3.Error):
            raise StoreError(f"{self._store.path}: {exc}") from exc
