"""SQLiteStore: the embedded, durable default, safe across threads and processes on one file."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from collections.abc import Sequence
from datetime import datetime, timezone
from types import TracebackType
from typing import Any, Literal

from chronica._errors import (
    ChronicaTypeError,
    ChronicumNotFoundError,
    DuplicateActumError,
    InvalidArgumentError,
    StoreError,
)
from chronica._model import ActorKind, Actum, ActumKind, Chronicum
from chronica._restore import RestoreBatch
from chronica._validation import check_seconds

from . import _sqlite_rows as sql
from ._sqlite_schema import (
    configure,
    create_private,
    enable_wal,
    integrity_problems,
    prepare,
)

# enable_wal and configure are the one home of how a shared SQLite file is opened; chronomem
# uses them on the same file.
__all__ = [
    "SQLiteStore",
    "configure",
    "create_private",
    "enable_wal",
    "integrity_problems",
    "restore_batch",
]

_MAX_BUSY_TIMEOUT = (2**31 - 1) / 1000
"""SQLite holds the busy timeout as a 32-bit count of milliseconds (about 24 days)."""


class SQLiteStore:
    """A :class:`chronica.IdempotentStore` in one SQLite file, shared by threads and processes.

    Also a :class:`chronica.BatchStore` and a :class:`chronica.RestorableStore`, for
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
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        synchronous: Literal["NORMAL", "FULL"] = "NORMAL",
        busy_timeout: float = 60.0,
    ) -> None:
        if synchronous not in ("NORMAL", "FULL"):
            raise InvalidArgumentError("synchronous", "must be 'NORMAL' or 'FULL'")
        self._busy_timeout = check_seconds("busy_timeout", busy_timeout, maximum=_MAX_BUSY_TIMEOUT)
        self._path = _file_path(path)
        self._synchronous = synchronous
        self._lock = threading.Lock()
        self._all: list[sqlite3.Connection] = []
        self._idle: list[sqlite3.Connection] = []
        self._closed = False
        with contextlib.suppress(OSError):  # a folder that is missing: SQLite says so below
            create_private(self._path)
        conn = self._connect()
        try:
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
            with _Immediate(conn):
                conn.execute(sql.CREATE, (owner_id, chronicum_id, created_at))
            row = conn.execute(sql.CHRONICUM, (owner_id, chronicum_id)).fetchone()
        return sql.row_chronicum(row)

    def get(self, chronicum_id: str, *, owner_id: str) -> Chronicum:
        """Return the owner's chronicum or raise :class:`chronica.ChronicumNotFoundError`."""
        with _Lease(self) as conn:
            row = conn.execute(sql.CHRONICUM, (owner_id, chronicum_id)).fetchone()
        if row is None:
            raise ChronicumNotFoundError(chronicum_id)
        return sql.row_chronicum(row)

    def record(self, actum: Actum, *, owner_id: str) -> Actum:
        """Append ``actum`` with ``at`` stamped now, as the chronicum's next ``seq``."""
        at = datetime.now(timezone.utc)
        params = sql.actum_params(owner_id, actum, at, None)
        with _Lease(self) as conn:
            _insert(conn, params)  # one statement: its own transaction, see _insert
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
            if _insert(conn, params, sql.INSERT_ONCE):
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

        See :meth:`chronica.BatchStore.record_many`. A keyed actum is looked up and inserted
        inside the same transaction, as :meth:`record_once` does, so retries stay exact.
        """
        if len(acta) == 1:  # one statement is a transaction of its own
            if idempotency_keys is None:
                return [self.record(acta[0], owner_id=owner_id)]
            return [self.record_once(acta[0], idempotency_keys[0], owner_id=owner_id)]
        if not acta:
            return []
        keys = [None] * len(acta) if idempotency_keys is None else idempotency_keys
        stamps = [datetime.now(timezone.utc) for _ in acta]
        params = [
            sql.actum_params(owner_id, actum, at, key)
            for actum, at, key in zip(acta, stamps, keys, strict=True)
        ]
        try:
            with _Lease(self) as conn, _Immediate(conn):
                return _insert_many(conn, acta, stamps, params, owner_id, keys)
        except _Refused:
            pass  # rolled back: a missing chronicum or a duplicate ID, which one by one tells
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
        with _Lease(self) as conn, _Immediate(conn):
            for actum, at, row in zip(acta, stamps, params, strict=True):
                key = row[-1]
                if key is None:
                    _insert(conn, row)
                elif not _insert(conn, row, sql.INSERT_ONCE):
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
            rows = conn.execute(query, params).fetchall()
            if (
                not rows
                and conn.execute(sql.CHRONICUM, (owner_id, chronicum_id)).fetchone() is None
            ):
                raise ChronicumNotFoundError(chronicum_id)
        return sql.rows_acta(chronicum_id, rows)

    def chronica(self) -> list[Chronicum]:
        """Every chronicum of every owner, in the order they were created (for export)."""
        with _Lease(self) as conn:
            rows = conn.execute(sql.ALL_CHRONICA).fetchall()
        return [sql.row_chronicum(row) for row in rows]

    def restore(
        self, chronica: Sequence[Chronicum], acta: Sequence[Actum], *, owner_id: str
    ) -> int:
        """Store exported chronica and acta as they were, in one transaction, or nothing.

        See :meth:`chronica.RestorableStore.restore`; call it through
        :meth:`chronica.Chronicarius.restore`, which validates every record first.
        """
        with _Lease(self) as conn, _Immediate(conn):
            return _restore(conn, owner_id, chronica, acta)

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
        return f"SQLiteStore({self._path!r}, synchronous={self._synchronous!r})"

    def _connect(self) -> sqlite3.Connection:
        with self._lock:
            if self._closed:
                raise StoreError(f"{self!r} is closed")
            try:
                # isolation_level=None: we issue BEGIN IMMEDIATE ourselves. The pool hands a
                # connection to one thread at a time, so crossing threads is safe.
                conn = sqlite3.connect(
                    self._path,
                    timeout=self._busy_timeout,
                    isolation_level=None,
                    check_same_thread=False,
                    cached_statements=256,
                )
            except sqlite3.Error as e:
                raise _cannot_open(self._path, e) from e
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


def _file_path(path: object) -> str:
    """The database file ``path`` names, with ``~`` expanded, or a clear error."""
    if not isinstance(path, (str, os.PathLike)):
        raise ChronicaTypeError("path", "a str or os.PathLike", path)
    text = os.fspath(path)
    if not isinstance(text, str):  # a bytes path: SQLite takes text, and so do our messages
        raise ChronicaTypeError("path", "a str or os.PathLike of str", text)
    if "\x00" in text:
        raise InvalidArgumentError("path", "contains a NUL character")
    if text in ("", ":memory:") or text.startswith("file:"):
        # Each pooled connection would see its own private database: use InMemoryStore.
        raise InvalidArgumentError("path", "must name a file (for memory, use InMemoryStore)")
    return os.path.expanduser(text)


def _cannot_open(path: str, error: sqlite3.Error) -> StoreError:
    """Say why SQLite could not open ``path``, in the user's terms rather than SQLite's."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        reason = "it is a folder, not a file"
    elif not os.path.isdir(folder):
        reason = f"the folder {folder} does not exist"
    elif os.path.exists(path) and not os.access(path, os.R_OK | os.W_OK):
        reason = "permission denied (the file is not readable and writable by this user)"
    elif not os.access(folder, os.W_OK | os.X_OK):
        reason = f"permission denied (cannot create files in {folder})"
    else:
        reason = str(error)
    return StoreError(f"{path}: cannot open: {reason}")


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


class _Immediate:
    """One ``BEGIN IMMEDIATE`` transaction: the write lock is taken before anything is read."""

    __slots__ = ("_conn",)

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def __enter__(self) -> None:
        self._conn.execute("BEGIN IMMEDIATE")

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc is None:
            self._conn.execute("COMMIT")
        elif self._conn.in_transaction:
            # If even ROLLBACK fails, the connection stays in a transaction and is dropped.
            with contextlib.suppress(sqlite3.Error):
                self._conn.execute("ROLLBACK")


def _insert(conn: sqlite3.Connection, params: tuple[Any, ...], statement: str = sql.INSERT) -> bool:
    """Run an insert of one actum; whether it stored a row (INSERT_ONCE may store none).

    Outside ``BEGIN`` the statement is a transaction of its own: an INSERT takes SQLite's
    write lock (waiting up to ``busy_timeout``) before it reads the next ``seq``, as
    ``BEGIN IMMEDIATE`` does, so a one-actum write needs no BEGIN and COMMIT round trips.
    """
    try:
        return conn.execute(statement, params).rowcount == 1
    except sqlite3.IntegrityError as e:
        if "FOREIGN KEY" in str(e):  # the only foreign key is the chronicum
            raise ChronicumNotFoundError(params[1]) from None
        if "chronica_acta.id" in str(e):
            raise DuplicateActumError(params[2]) from None
        raise


class _Refused(Exception):
    """A batch insert hit a constraint; it is retried one by one to name the actum."""


def _insert_many(
    conn: sqlite3.Connection,
    acta: Sequence[Actum],
    stamps: list[datetime],
    params: list[tuple[Any, ...]],
    owner_id: str,
    keys: Sequence[str | None],
) -> list[Actum]:
    """Insert a batch by one ``executemany``; what each actum became, in order.

    A key taken before (or earlier in the batch) stores no row; only then is each key read
    back, in the same transaction, to return the actum stored under it first.
    """
    statement = sql.INSERT if keys[0] is None else sql.INSERT_ONCE
    try:
        stored = conn.executemany(statement, params).rowcount
    except sqlite3.IntegrityError as e:
        raise _Refused from e  # through _Immediate, which rolls the batch back
    if stored == len(acta):
        return [sql.stamped(actum, at) for actum, at in zip(acta, stamps, strict=True)]
    # Each key names the first actum stored under it, in this batch or before: read it back.
    return [
        sql.row_actum(
            actum.chronicum_id,
            conn.execute(sql.BY_KEY, (owner_id, actum.chronicum_id, key)).fetchone(),
        )
        for actum, key in zip(acta, keys, strict=True)
    ]


def restore_batch(conn: sqlite3.Connection, batch: RestoreBatch) -> int:
    """Write a batch :meth:`chronica.Chronicarius.check_restore` returned, inside the caller's
    open write transaction on a file chronica's tables live in; returns the acta newly stored.

    For a caller that writes more in the same transaction (chronomem's import: facts and
    sessions of one file, all or nothing). Raises :class:`chronica.DuplicateActumError` before
    inserting anything of the batch when an actum ID is held elsewhere.
    """
    return _restore(conn, batch.owner_id, batch.chronica, batch.acta)


def _restore(
    conn: sqlite3.Connection, owner_id: str, chronica: Sequence[Chronicum], acta: Sequence[Actum]
) -> int:
    conn.executemany(sql.CREATE, [(owner_id, c.id, sql.utc_text(c.created_at)) for c in chronica])
    rows = _restore_rows(conn, owner_id, acta)
    conn.executemany(sql.RESTORE, rows)
    return len(rows)


def _restore_rows(
    conn: sqlite3.Connection, owner_id: str, acta: Sequence[Actum]
) -> list[tuple[Any, ...]]:
    """Rows for the acta not stored yet, each numbered on from its chronicum's last seq.

    Raises :class:`chronica.DuplicateActumError` for an ID stored in another chronicum,
    before anything of the batch is inserted.
    """
    last_seq: dict[str, int] = {}
    rows = []
    for actum in acta:
        where = conn.execute(
            "SELECT owner_id, chronicum_id FROM chronica_acta WHERE id = ?", (actum.id,)
        ).fetchone()
        if where is not None:
            if tuple(where) != (owner_id, actum.chronicum_id):
                raise DuplicateActumError(actum.id)
            continue  # restored before: importing one export twice changes nothing
        seq = last_seq.get(actum.chronicum_id)
        if seq is None:
            (seq,) = conn.execute(
                "SELECT COALESCE(MAX(seq), 0) FROM chronica_acta "
                "WHERE owner_id = ? AND chronicum_id = ?",
                (owner_id, actum.chronicum_id),
            ).fetchone()
        last_seq[actum.chronicum_id] = seq = seq + 1
        assert actum.at is not None, "Chronicarius.restore checks every at"
        rows.append(
            (
                owner_id,
                actum.chronicum_id,
                seq,
                *sql.actum_params(owner_id, actum, actum.at, None)[2:-1],
            )
        )
    return rows
