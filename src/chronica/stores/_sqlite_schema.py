"""chronica's tables inside a SQLite file that chronomem may share: DDL and migrations.

The file may hold chronomem's tables too, so chronica never touches ``PRAGMA user_version``:
its version lives in ``chronica_schema`` and every object it creates starts with
``chronica_``. Opening checks the file *before* changing anything in it, so a file that is
not ours, is newer than this code, or fails SQLite's integrity check is left byte-for-byte
as it was. The statements and row codecs live in :mod:`chronica.stores._sqlite_rows`.

Version 2 keys chronica by ``(owner_id, id)``, so each owner has a namespace of their own
(see :mod:`chronica.store`), and makes actum IDs unique in the file. Version 3 is the lean
acta layout: an actum names its chronicum by number, and its position is its rowid (see
:data:`POSITION_BITS`), so an append updates the table and two indexes, not four b-trees.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable

from chronica._errors import (
    ChronicaTypeError,
    CorruptDatabaseError,
    InvalidArgumentError,
    StoreError,
)
from chronica._ids import new_actum_id

__all__ = [
    "POSITION_BITS",
    "SCHEMA_VERSION",
    "cannot_open",
    "configure",
    "create_private",
    "enable_wal",
    "file_path",
    "integrity_problems",
    "prepare",
    "readable",
]

SCHEMA_VERSION = 3
"""The chronica schema this code writes; a file with a higher version is refused."""

POSITION_BITS = 32
"""An actum's rowid is ``(chronicum number << POSITION_BITS) | seq`` (version 3 on).

The rowid b-tree is then the index a window, a page and the next ``seq`` read, in the order
they read it: a chronicum's acta are one rowid range, so no separate ``(chronicum, seq)``
index is kept up to date on every append (the costliest of the four b-trees an append of
version 2 wrote). A chronicum holds up to 2**32 - 1 acta; a ``CHECK`` refuses the next one
rather than letting it spill into the following chronicum's range.
"""


def _remint_duplicate_ids(conn: sqlite3.Connection) -> None:
    """Give every actum but the first of a shared ID a new one, so IDs can be made unique.

    Before version 2, processes that seeded ``random`` alike could mint the same ID twice.
    The first actum recorded keeps it; the later ones (already ambiguous to anyone holding
    the ID) get fresh IDs, which is what lets the file open rather than fail to migrate.
    """
    duplicates = conn.execute(
        "SELECT rowid FROM chronica_acta WHERE rowid NOT IN "
        "(SELECT MIN(rowid) FROM chronica_acta GROUP BY id)"
    ).fetchall()
    conn.executemany(
        "UPDATE chronica_acta SET id = ? WHERE rowid = ?",
        [(new_actum_id(), rowid) for (rowid,) in duplicates],
    )


_MIGRATIONS: dict[int, tuple[str | Callable[[sqlite3.Connection], None], ...]] = {
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
    # Chronica keyed by (owner, id); acta carry their owner and have unique IDs. SQLite
    # cannot change a key in place, so both tables are rebuilt, rows copied in their order.
    2: (
        "DROP INDEX chronica_acta_by_seq",
        "DROP INDEX chronica_acta_by_key",
        "ALTER TABLE chronica_acta RENAME TO chronica_acta_v1",
        "ALTER TABLE chronica_chronica RENAME TO chronica_chronica_v1",
        # num: the creation order export lists chronica in (a rowid VACUUM may renumber).
        """CREATE TABLE chronica_chronica (
            num        INTEGER PRIMARY KEY,
            owner_id   TEXT NOT NULL,
            id         TEXT NOT NULL,
            created_at TEXT NOT NULL,
            UNIQUE (owner_id, id)
        )""",
        """INSERT INTO chronica_chronica (owner_id, id, created_at)
            SELECT owner_id, id, created_at FROM chronica_chronica_v1 ORDER BY rowid""",
        """CREATE TABLE chronica_acta (
            owner_id        TEXT NOT NULL,
            chronicum_id    TEXT NOT NULL,
            seq             INTEGER NOT NULL,
            id              TEXT NOT NULL,
            kind            TEXT NOT NULL,
            actor_kind      TEXT NOT NULL,
            actor           TEXT NOT NULL,
            content         TEXT NOT NULL,
            metadata        TEXT NOT NULL,
            at              TEXT NOT NULL,
            idempotency_key TEXT,
            FOREIGN KEY (owner_id, chronicum_id) REFERENCES chronica_chronica (owner_id, id)
        )""",
        # LEFT JOIN: an actum without a chronicum (only possible with foreign keys off)
        # fails the NOT NULL owner and stops the migration, rather than vanishing.
        """INSERT INTO chronica_acta (owner_id, chronicum_id, seq, id, kind, actor_kind, actor,
                                      content, metadata, at, idempotency_key)
            SELECT c.owner_id, a.chronicum_id, a.seq, a.id, a.kind, a.actor_kind, a.actor,
                   a.content, a.metadata, a.at, a.idempotency_key
            FROM chronica_acta_v1 AS a LEFT JOIN chronica_chronica_v1 AS c ON c.id = a.chronicum_id
            ORDER BY a.rowid""",
        "DROP TABLE chronica_acta_v1",
        "DROP TABLE chronica_chronica_v1",
        _remint_duplicate_ids,
        """CREATE UNIQUE INDEX chronica_acta_by_seq
            ON chronica_acta (owner_id, chronicum_id, seq)""",
        """CREATE UNIQUE INDEX chronica_acta_by_key
            ON chronica_acta (owner_id, chronicum_id, idempotency_key)
            WHERE idempotency_key IS NOT NULL""",
        "CREATE UNIQUE INDEX chronica_acta_by_id ON chronica_acta (id)",
    ),
    # The lean layout: an actum names its chronicum by number, its position is its rowid.
    # Idempotency keys and actum IDs keep their unique indexes; (owner, chronicum, seq) is
    # the rowid range itself. No foreign key: every insert finds the chronicum's number in
    # the same statement (a missing chronicum fails NOT NULL), an erasure deletes the acta
    # first, and a foreign key here would scan the acta on every chronicum deleted.
    3: (
        "DROP INDEX chronica_acta_by_seq",
        "DROP INDEX chronica_acta_by_key",
        "DROP INDEX chronica_acta_by_id",
        "ALTER TABLE chronica_acta RENAME TO chronica_acta_v2",
        """CREATE TABLE chronica_acta (
            pos             INTEGER PRIMARY KEY,
            chronicum       INTEGER NOT NULL CHECK (pos >> 32 = chronicum),
            id              TEXT NOT NULL,
            kind            TEXT NOT NULL,
            actor_kind      TEXT NOT NULL,
            actor           TEXT NOT NULL,
            content         TEXT NOT NULL,
            metadata        TEXT NOT NULL,
            at              TEXT NOT NULL,
            idempotency_key TEXT
        )""",
        # LEFT JOIN: an actum without a chronicum fails NOT NULL and stops the migration.
        """INSERT INTO chronica_acta (pos, chronicum, id, kind, actor_kind, actor, content,
                                      metadata, at, idempotency_key)
            SELECT (c.num << 32) | a.seq, c.num, a.id, a.kind, a.actor_kind, a.actor, a.content,
                   a.metadata, a.at, a.idempotency_key
            FROM chronica_acta_v2 AS a
            LEFT JOIN chronica_chronica AS c ON c.owner_id = a.owner_id AND c.id = a.chronicum_id
            ORDER BY c.num, a.seq""",
        "DROP TABLE chronica_acta_v2",
        """CREATE UNIQUE INDEX chronica_acta_by_key ON chronica_acta (chronicum, idempotency_key)
            WHERE idempotency_key IS NOT NULL""",
        "CREATE UNIQUE INDEX chronica_acta_by_id ON chronica_acta (id)",
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


def readable(conn: sqlite3.Connection, path: str) -> bool:
    """Whether chronica's tables are in the file, at the version this code reads, checked
    without writing (for a read-only store, which never creates or migrates them).

    False until chronica first writes to the file; raises :class:`StoreError` for a file of
    another application or a chronica schema older or newer than this code's.
    """
    version = _version(conn, path)
    if version is None:
        return False
    if version != SCHEMA_VERSION:
        raise StoreError(
            f"{path}: chronica schema version {version} is older than this code reads "
            f"({SCHEMA_VERSION}); open it once for writing to migrate it"
        )
    return True


def file_path(path: object) -> str:
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


def cannot_open(path: str, error: sqlite3.Error) -> StoreError:
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


def create_private(path: str) -> bool:
    """Create a missing database file empty, readable by its owner only (0600), before SQLite
    opens it; returns whether this call created it. SQLite gives the ``-wal`` and ``-shm``
    files the database file's mode, so they are private too.

    ``O_EXCL`` makes this safe when processes open one new file at once: exactly one creates
    it. An existing file is never opened here (closing a descriptor of a file drops this
    process's SQLite locks on it).
    """
    if path in ("", ":memory:") or path.startswith("file:"):
        return True
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return False
    os.close(fd)
    return True


MMAP_BYTES = 256 * 1024 * 1024
WAL_AUTOCHECKPOINT_PAGES = 4000


def configure(conn: sqlite3.Connection, *, synchronous: str, busy_timeout_ms: int) -> None:
    """The per-connection settings every connection to a shared file uses, chronica's and
    chronomem's alike, so one file never runs under two policies.

    A large WAL auto-checkpoint means fewer checkpoints, each of which fsyncs (the main cost
    of serial durable writes); memory-mapped reads spare a copy per page.
    """
    conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
    conn.execute(f"PRAGMA synchronous = {synchronous}")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute(f"PRAGMA mmap_size = {MMAP_BYTES}")
    conn.execute(f"PRAGMA wal_autocheckpoint = {WAL_AUTOCHECKPOINT_PAGES}")


def empty_log(conn: sqlite3.Connection, *, timeout: float = 1.0) -> bool:
    """Copy the whole write-ahead log into the file and empty it (a ``TRUNCATE`` checkpoint,
    after an erasure); False when it could not be emptied within ``timeout`` seconds.

    SQLite runs one checkpoint at a time and answers busy at once, without calling the busy
    handler, while another connection runs one (another process's commit that filled its
    log, say): a busy answer is retried. A reader holding an old snapshot keeps it busy
    longer. ``conn`` has no transaction open.
    """
    deadline = time.monotonic() + timeout
    while conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


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
    problems = integrity_problems(conn)
    if problems:
        raise CorruptDatabaseError(
            f"{path}: failed SQLite's integrity check, so chronica refuses to write to it "
            f"(left unchanged): {'; '.join(problems)}"
        )


def integrity_problems(conn: sqlite3.Connection) -> list[str]:
    """What SQLite's ``quick_check`` finds wrong with the file (empty when it is sound).

    Busy, locked or I/O errors propagate: they are a reason not to open, not proof of damage.
    A page too damaged even to check is a problem of its own.
    """
    try:
        found = [str(row[0]) for row in conn.execute("PRAGMA quick_check(5)")]
    except sqlite3.OperationalError:
        raise
    except sqlite3.DatabaseError as e:
        return [str(e)]
    return [] if found == ["ok"] else found


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
                    if isinstance(statement, str):
                        conn.execute(statement)
                    else:
                        statement(conn)
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
