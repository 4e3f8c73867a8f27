"""chronica's tables inside a SQLite file that chronomem may share: DDL, SQL and row codecs.

The file may hold chronomem's tables too, so chronica never touches ``PRAGMA user_version``:
its version lives in ``chronica_schema`` and every object it creates starts with
``chronica_``. Opening checks the file *before* changing anything in it, so a file that is
not ours (or is newer than this code) is left byte-for-byte as it was.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
import time
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

from chronica._errors import CorruptDatabaseError, StoreError
from chronica._frozen import frozen_metadata, load_metadata
from chronica._model import ActorKind, Actum, ActumKind, Chronicum

__all__ = [
    "BY_KEY",
    "CHRONICUM",
    "COLUMNS",
    "CREATE",
    "INSERT",
    "RESTORE",
    "SCHEMA_VERSION",
    "actum_params",
    "prepare",
    "row_actum",
    "row_chronicum",
    "rows_acta",
    "stamped",
    "utc_text",
    "window_sql",
]

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


def enable_wal(conn: sqlite3.Connection, *, timeout: float = 60.0) -> None:
    """Switch the file to WAL, waiting out other processes doing the same.

    The switch needs an exclusive lock, and when two connections both hold a shared lock
    and want it, SQLite answers "database is locked" at once instead of calling the busy
    handler (waiting would deadlock). Only the first opening of a new file meets this, so a
    short backoff loop is the whole remedy.
    """
    deadline = time.monotonic() + timeout
    pause = 0.001
    while True:
        try:
            # Answers the mode now in force: "wal", or "memory" for an in-memory database,
            # which has no journal to switch. Either way there is nothing left to do.
            conn.execute("PRAGMA journal_mode = WAL").fetchone()
            return
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) or time.monotonic() > deadline:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.05)


def _check_integrity(conn: sqlite3.Connection, path: str) -> None:
    """Refuse a damaged file before the first write chronica makes to it.

    A corrupt file can still open and answer simple queries; switching it to WAL rewrites
    its header and adding tables writes into it, which can only make it worse. ``quick_check``
    reads every page once (no index cross-checks), so it costs a fraction of a second per
    hundred megabytes, and runs only when chronica is about to create or migrate its tables.
    """
    try:
        problems = [row[0] for row in conn.execute("PRAGMA quick_check(5)")]
    except sqlite3.DatabaseError as e:  # a page too damaged even to check
        problems = [str(e)]
    if problems != ["ok"]:
        raise CorruptDatabaseError(
            f"{path}: failed SQLite's integrity check, so chronica refuses to write to it "
            f"(left unchanged): {'; '.join(map(str, problems))}"
        )


def prepare(conn: sqlite3.Connection, path: str) -> None:
    """Check the file, then switch it to WAL and create or migrate chronica's tables.

    Nothing is written to a file that belongs to another application, has a newer chronica
    schema, or fails the integrity check. ``conn`` must be in autocommit mode
    (``isolation_level=None``).
    """
    try:
        version = _version(conn, path)  # read-only: refuses before anything is written
        if version == SCHEMA_VERSION:
            return
        _check_integrity(conn, path)
        enable_wal(conn)
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
        error = CorruptDatabaseError if "malformed" in str(e) else StoreError
        raise error(f"{path}: cannot open as a chronica database: {e}") from e


# --- statements ------------------------------------------------------------------------

COLUMNS = "id, kind, actor_kind, actor, content, metadata, at"

# The next seq comes from a scalar subquery over the (chronicum_id, seq) index, inside the
# write transaction. VALUES rather than INSERT ... SELECT: selecting from the table being
# written makes SQLite stage rows in a temporary table, a third of the cost of an append.
# A missing chronicum fails the foreign key, which the store reports as not found.
INSERT = f"""
    INSERT INTO chronica_acta (chronicum_id, seq, {COLUMNS}, idempotency_key)
    VALUES (?1, (SELECT COALESCE(MAX(seq), 0) + 1 FROM chronica_acta WHERE chronicum_id = ?1),
            ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
"""
RESTORE = f"INSERT INTO chronica_acta (chronicum_id, seq, {COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?)"
BY_KEY = f"SELECT {COLUMNS} FROM chronica_acta WHERE chronicum_id = ? AND idempotency_key = ?"
CHRONICUM = "SELECT id, owner_id, created_at FROM chronica_chronica WHERE id = ?"
CREATE = "INSERT OR IGNORE INTO chronica_chronica (id, owner_id, created_at) VALUES (?, ?, ?)"


def _window_sql(n_kinds: int, n_actors: int) -> str:
    where = "chronicum_id = ?"
    if n_kinds:
        where += f" AND kind IN ({', '.join('?' * n_kinds)})"
    if n_actors:
        where += f" AND actor_kind IN ({', '.join('?' * n_actors)})"
    # Newest first with a LIMIT walks the (chronicum_id, seq) index backwards from its end,
    # so a window costs the same however long the chronicum is. LIMIT -1 means no limit.
    return f"SELECT {COLUMNS} FROM chronica_acta WHERE {where} ORDER BY seq DESC LIMIT ?"


_WINDOWS = {
    (k, a): _window_sql(k, a) for k in range(len(ActumKind) + 1) for a in range(len(ActorKind) + 1)
}


def window_sql(n_kinds: int, n_actors: int) -> str:
    """The window query for that many kind and actor-kind filter values (built once)."""
    return _WINDOWS[n_kinds, n_actors]


# --- rows <-> records --------------------------------------------------------------------

_ACTUM_KINDS = {kind.value: kind for kind in ActumKind}
_ACTOR_KINDS = {kind.value: kind for kind in ActorKind}
_SLOTS = ("chronicum_id", "kind", "actor_kind", "actor", "content", "metadata", "id", "at")
# A window builds up to thousands of acta, and the generated frozen __init__ costs twice as
# much as filling the slots directly. That is only equivalent while Actum stays a plain
# slotted record with exactly these fields, so check it and fall back to the constructor.
_DIRECT = (
    tuple(f.name for f in dataclasses.fields(Actum)) == _SLOTS
    and "__slots__" in vars(Actum)
    and not hasattr(Actum, "__post_init__")
)
_SETTERS = tuple(getattr(Actum, name).__set__ for name in (_SLOTS if _DIRECT else ()))


def _actum(  # one argument per Actum field, positional for speed
    chronicum_id: str,
    kind: ActumKind,
    actor_kind: ActorKind,
    actor: str,
    content: str,
    metadata: Any,
    actum_id: str,
    at: datetime,
) -> Actum:
    if not _DIRECT:
        return Actum(
            chronicum_id=chronicum_id,
            kind=kind,
            actor_kind=actor_kind,
            actor=actor,
            content=content,
            metadata=metadata,
            id=actum_id,
            at=at,
        )
    actum: Actum = object.__new__(Actum)
    set_chronicum_id, set_kind, set_actor_kind, set_actor, set_content, set_meta, set_id, set_at = (
        _SETTERS
    )
    set_chronicum_id(actum, chronicum_id)
    set_kind(actum, kind)
    set_actor_kind(actum, actor_kind)
    set_actor(actum, actor)
    set_content(actum, content)
    set_meta(actum, metadata)
    set_id(actum, actum_id)
    set_at(actum, at)
    return actum


def utc_text(moment: datetime) -> str:
    """``moment`` as fixed-width ISO 8601 UTC text (sortable, exact to the microsecond)."""
    if moment.tzinfo is not timezone.utc:
        moment = moment.astimezone(timezone.utc)
    return moment.isoformat(timespec="microseconds")


def row_actum(chronicum_id: str, row: tuple[Any, ...]) -> Actum:
    """Build an actum from a row selected as ``COLUMNS``."""
    actum_id, kind, actor_kind, actor, content, metadata, at = row
    return _actum(
        chronicum_id,
        _ACTUM_KINDS[kind],
        _ACTOR_KINDS[actor_kind],
        actor,
        content,
        load_metadata(metadata),
        actum_id,
        datetime.fromisoformat(at),
    )


def rows_acta(chronicum_id: str, rows: Sequence[tuple[Any, ...]]) -> list[Actum]:
    """Build acta from rows selected newest first, returning them oldest first.

    The window's hot loop, so ``row_actum`` is inlined here, with its lookups in locals.
    """
    if not _DIRECT:
        return [row_actum(chronicum_id, row) for row in reversed(rows)]
    kinds, actor_kinds, new, parse, load = (
        _ACTUM_KINDS,
        _ACTOR_KINDS,
        object.__new__,
        datetime.fromisoformat,
        load_metadata,
    )
    set_chronicum_id, set_kind, set_actor_kind, set_actor, set_content, set_meta, set_id, set_at = (
        _SETTERS
    )
    acta = []
    for actum_id, kind, actor_kind, actor, content, metadata, at in reversed(rows):
        actum = new(Actum)
        set_chronicum_id(actum, chronicum_id)
        set_kind(actum, kinds[kind])
        set_actor_kind(actum, actor_kinds[actor_kind])
        set_actor(actum, actor)
        set_content(actum, content)
        set_meta(actum, load(metadata))
        set_id(actum, actum_id)
        set_at(actum, parse(at))
        acta.append(actum)
    return acta


def row_chronicum(row: tuple[Any, ...]) -> Chronicum:
    """Build a chronicum from ``(id, owner_id, created_at)``."""
    return Chronicum(id=row[0], owner_id=row[1], created_at=datetime.fromisoformat(row[2]))


def actum_params(actum: Actum, at: datetime, key: str | None) -> tuple[Any, ...]:
    """Parameters for ``INSERT``: the chronicum, then ``COLUMNS``, then the key."""
    metadata = actum.metadata
    return (
        actum.chronicum_id,
        actum.id,
        actum.kind.value,
        actum.actor_kind.value,
        actum.actor,
        actum.content,
        json.dumps(metadata, ensure_ascii=False, separators=(",", ":")) if metadata else "{}",
        utc_text(at),
        key,
    )


def stamped(actum: Actum, at: datetime) -> Actum:
    """``actum`` with ``at`` set and its metadata frozen, as returned by a write."""
    return _actum(
        actum.chronicum_id,
        actum.kind,
        actum.actor_kind,
        actum.actor,
        actum.content,
        frozen_metadata(actum.metadata),
        actum.id,
        at,
    )
