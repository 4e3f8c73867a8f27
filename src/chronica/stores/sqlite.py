"""SQLiteStore: the embedded, durable default, safe across threads and processes on one file."""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
from collections.abc import Sequence
from datetime import datetime, timezone
from types import TracebackType
from typing import Any, Literal

from chronica._errors import ChronicumNotFoundError, InvalidArgumentError, StoreError
from chronica._model import ActorKind, Actum, ActumKind, Chronicum

from . import _sqlite_schema

__all__ = ["SQLiteStore"]

_ACTUM_KINDS = {kind.value: kind for kind in ActumKind}
_ACTOR_KINDS = {kind.value: kind for kind in ActorKind}

_COLUMNS = "id, kind, actor_kind, actor, content, metadata, at"

# One statement assigns the next seq inside the write transaction and, by selecting from
# chronica_chronica, inserts nothing when the chronicum is missing (rowcount 0).
_INSERT = f"""
    INSERT INTO chronica_acta (chronicum_id, seq, {_COLUMNS}, idempotency_key)
    SELECT c.id,
           COALESCE((SELECT MAX(a.seq) FROM chronica_acta a WHERE a.chronicum_id = c.id), 0) + 1,
           ?, ?, ?, ?, ?, ?, ?, ?
    FROM chronica_chronica c WHERE c.id = ?
"""
_BY_KEY = f"SELECT {_COLUMNS} FROM chronica_acta WHERE chronicum_id = ? AND idempotency_key = ?"
_CHRONICUM = "SELECT id, owner_id, created_at FROM chronica_chronica WHERE id = ?"


def _window_sql(n_kinds: int, n_actors: int) -> str:
    where = "chronicum_id = ?"
    if n_kinds:
        where += f" AND kind IN ({', '.join('?' * n_kinds)})"
    if n_actors:
        where += f" AND actor_kind IN ({', '.join('?' * n_actors)})"
    # Newest first with a LIMIT walks the (chronicum_id, seq) index backwards from its end,
    # so a window costs the same however long the chronicum is. LIMIT -1 means no limit.
    return f"SELECT {_COLUMNS} FROM chronica_acta WHERE {where} ORDER BY seq DESC LIMIT ?"


_WINDOWS = {(k, a): _window_sql(k, a) for k in range(len(ActumKind) + 1) for a in range(4)}


def _utc_text(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).isoformat(timespec="microseconds")


def _metadata_text(metadata: Any) -> str:
    if not metadata:
        return "{}"
    return json.dumps(metadata, ensure_ascii=False, separators=(",", ":"))


def _row_actum(chronicum_id: str, row: tuple[Any, ...]) -> Actum:
    actum_id, kind, actor_kind, actor, content, metadata, at = row
    return Actum(
        chronicum_id=chronicum_id,
        kind=_ACTUM_KINDS[kind],
        actor_kind=_ACTOR_KINDS[actor_kind],
        actor=actor,
        content=content,
        metadata={} if metadata == "{}" else json.loads(metadata),
        id=actum_id,
        at=datetime.fromisoformat(at),
    )


def _row_chronicum(row: tuple[Any, ...]) -> Chronicum:
    return Chronicum(id=row[0], owner_id=row[1], created_at=datetime.fromisoformat(row[2]))


def _actum_params(actum: Actum, at: datetime, key: str | None) -> tuple[Any, ...]:
    return (
        actum.id,
        actum.kind.value,
        actum.actor_kind.value,
        actum.actor,
        actum.content,
        _metadata_text(actum.metadata),
        _utc_text(at),
        key,
        actum.chronicum_id,
    )


def _stamped(actum: Actum, at: datetime) -> Actum:
    return Actum(
        chronicum_id=actum.chronicum_id,
        kind=actum.kind,
        actor_kind=actum.actor_kind,
        actor=actum.actor,
        content=actum.content,
        metadata=actum.metadata,
        id=actum.id,
        at=at,
    )


class SQLiteStore:
    """A :class:`chronica.IdempotentStore` in one SQLite file, shared by threads and processes.

    Every write is one ``BEGIN IMMEDIATE`` transaction, so writers from any thread or process
    queue on SQLite's write lock (waiting up to ``busy_timeout`` seconds) instead of failing
    with "database is locked"; readers never wait, thanks to WAL. Each actum gets the next
    per-chronicum ``seq`` inside its write transaction, and reads order by it, never by time.

    Durability: with ``synchronous="NORMAL"`` (the default, in WAL mode) an acknowledged
    write survives the process being killed or crashing at any moment, because it is in the
    write-ahead log before ``record`` returns; on power loss or an OS crash the most recent
    transactions may be rolled back, but the file is never corrupted. ``synchronous="FULL"``
    fsyncs the log on every commit, so acknowledged writes also survive power loss, at
    several times the cost per write.

    Threads share the store freely (it pools one connection per concurrently active
    thread). After ``os.fork`` open a new store in the child rather than using the parent's.
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
        self._path = os.path.expanduser(os.fspath(path))
        if self._path in ("", ":memory:") or self._path.startswith("file:"):
            # Each pooled connection would see its own private database: use InMemoryStore.
            raise InvalidArgumentError("path", "must name a file (for memory, use InMemoryStore)")
        self._synchronous = synchronous
        self._busy_timeout = busy_timeout
        self._lock = threading.Lock()
        self._all: list[sqlite3.Connection] = []
        self._idle: list[sqlite3.Connection] = []
        self._closed = False
        conn = self._connect()
        try:
            _sqlite_schema.prepare(conn, self._path)
            self._configure(conn)
        except BaseException:
            self.close()
            raise
        self._idle.append(conn)

    @property
    def path(self) -> str:
        """The database file, with ``~`` expanded."""
        return self._path

    def create(self, chronicum_id: str, owner_id: str) -> Chronicum:
        """Create the chronicum if absent, in one transaction; return the stored one."""
        created_at = _utc_text(datetime.now(timezone.utc))
        with self._connection() as conn:
            self._write(
                conn,
                "INSERT OR IGNORE INTO chronica_chronica (id, owner_id, created_at) "
                "VALUES (?, ?, ?)",
                (chronicum_id, owner_id, created_at),
            )
            row = conn.execute(_CHRONICUM, (chronicum_id,)).fetchone()
        return _row_chronicum(row)

    def get(self, chronicum_id: str) -> Chronicum:
        """Return the chronicum or raise :class:`chronica.ChronicumNotFoundError`."""
        with self._connection() as conn:
            row = conn.execute(_CHRONICUM, (chronicum_id,)).fetchone()
        if row is None:
            raise ChronicumNotFoundError(chronicum_id)
        return _row_chronicum(row)

    def record(self, actum: Actum) -> Actum:
        """Append ``actum`` with ``at`` stamped now, as the chronicum's next ``seq``."""
        at = datetime.now(timezone.utc)
        params = _actum_params(actum, at, None)
        with self._connection() as conn:
            inserted = self._write(conn, _INSERT, params)
        if not inserted:
            raise ChronicumNotFoundError(actum.chronicum_id)
        return _stamped(actum, at)

    def record_once(self, actum: Actum, idempotency_key: str) -> Actum:
        """Append ``actum`` unless ``idempotency_key`` was used in its chronicum.

        Returns the actum stored under the key first. The lookup and the insert share one
        ``BEGIN IMMEDIATE`` transaction, so racing processes store exactly one.
        """
        at = datetime.now(timezone.utc)
        params = _actum_params(actum, at, idempotency_key)
        with self._connection() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                row = conn.execute(_BY_KEY, (actum.chronicum_id, idempotency_key)).fetchone()
                inserted = row is None and conn.execute(_INSERT, params).rowcount == 1
                conn.execute("COMMIT")
            except BaseException:
                _rollback(conn)
                raise
        if row is not None:
            return _row_actum(actum.chronicum_id, row)
        if not inserted:
            raise ChronicumNotFoundError(actum.chronicum_id)
        return _stamped(actum, at)

    def acta(
        self,
        chronicum_id: str,
        *,
        last_n: int = 0,
        actum_kinds: Sequence[ActumKind] | None = None,
        actor_kinds: Sequence[ActorKind] | None = None,
    ) -> list[Actum]:
        """Return the chronicum's acta, oldest first, filtered in SQL, then the last ``last_n``."""
        kinds = [ActumKind(k).value for k in set(actum_kinds)] if actum_kinds else []
        actors = [ActorKind(k).value for k in set(actor_kinds)] if actor_kinds else []
        sql = _WINDOWS[len(kinds), len(actors)]
        with self._connection() as conn:
            rows = conn.execute(sql, (chronicum_id, *kinds, *actors, last_n or -1)).fetchall()
            if not rows and conn.execute(_CHRONICUM, (chronicum_id,)).fetchone() is None:
                raise ChronicumNotFoundError(chronicum_id)
        rows.reverse()
        return [_row_actum(chronicum_id, row) for row in rows]

    def chronica(self) -> list[Chronicum]:
        """Every chronicum of every owner, in the order they were created (for export)."""
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT id, owner_id, created_at FROM chronica_chronica ORDER BY rowid"
            ).fetchall()
        return [_row_chronicum(row) for row in rows]

    def restore(self, chronicum: Chronicum, acta: Sequence[Actum]) -> None:
        """Import a chronicum and its acta exactly as exported: IDs, ``at`` and order kept.

        The chronicum is created if absent; acta whose ID is already stored are skipped, so
        importing the same export twice changes nothing. Raises
        :class:`chronica.InvalidArgumentError` if the chronicum exists under another owner
        or an actum belongs elsewhere or has no timezone-aware ``at``.
        """
        _check_restorable(chronicum, acta)
        with self._connection() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                self._restore(conn, chronicum, acta)
                conn.execute("COMMIT")
            except BaseException:
                _rollback(conn)
                raise

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

    def _restore(
        self, conn: sqlite3.Connection, chronicum: Chronicum, acta: Sequence[Actum]
    ) -> None:
        conn.execute(
            "INSERT OR IGNORE INTO chronica_chronica (id, owner_id, created_at) VALUES (?, ?, ?)",
            (chronicum.id, chronicum.owner_id, _utc_text(chronicum.created_at)),
        )
        (owner,) = conn.execute(
            "SELECT owner_id FROM chronica_chronica WHERE id = ?", (chronicum.id,)
        ).fetchone()
        if owner != chronicum.owner_id:
            raise InvalidArgumentError("chronicum", f"{chronicum.id!r} exists with another owner")
        seen = {
            actum_id
            for (actum_id,) in conn.execute(
                "SELECT id FROM chronica_acta WHERE chronicum_id = ?", (chronicum.id,)
            )
        }
        (seq,) = conn.execute(
            "SELECT COALESCE(MAX(seq), 0) FROM chronica_acta WHERE chronicum_id = ?",
            (chronicum.id,),
        ).fetchone()
        rows = []
        for actum in acta:
            if actum.id in seen:
                continue
            seen.add(actum.id)
            seq += 1
            assert actum.at is not None  # checked by _check_restorable
            rows.append((chronicum.id, seq, *_actum_params(actum, actum.at, None)[:-2]))
        conn.executemany(
            f"INSERT INTO chronica_acta (chronicum_id, seq, {_COLUMNS}) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )

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
                raise StoreError(f"{self._path}: cannot open: {e}") from e
            self._all.append(conn)
        return conn

    def _configure(self, conn: sqlite3.Connection) -> None:
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(self._busy_timeout * 1000)}")
            conn.execute(f"PRAGMA synchronous = {self._synchronous}")
            conn.execute("PRAGMA foreign_keys = ON")
        except sqlite3.Error as e:
            raise StoreError(f"{self._path}: cannot configure connection: {e}") from e

    def _connection(self) -> _Lease:
        return _Lease(self)

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

    @staticmethod
    def _write(conn: sqlite3.Connection, sql: str, params: Sequence[Any]) -> bool:
        """Run one statement in its own BEGIN IMMEDIATE transaction; return whether it wrote."""
        conn.execute("BEGIN IMMEDIATE")
        try:
            changed = conn.execute(sql, params).rowcount > 0
            conn.execute("COMMIT")
        except BaseException:
            _rollback(conn)
            raise
        return changed


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


def _rollback(conn: sqlite3.Connection) -> None:
    if conn.in_transaction:
        # If even ROLLBACK fails, the connection stays in a transaction and _release drops it.
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")


def _check_restorable(chronicum: Chronicum, acta: Sequence[Actum]) -> None:
    for actum in acta:
        if actum.chronicum_id != chronicum.id:
            raise InvalidArgumentError("acta", f"actum {actum.id} belongs to another chronicum")
        if actum.at is None or actum.at.utcoffset() is None:
            raise InvalidArgumentError("acta", f"actum {actum.id} has no timezone-aware at")
