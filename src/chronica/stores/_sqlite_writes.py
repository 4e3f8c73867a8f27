"""The write paths of :class:`chronica.stores.sqlite.SQLiteStore` that run on one borrowed
connection: the write transaction, one insert, a batch insert, and a restore.

Kept apart from the store so :func:`restore_batch` can run a restore inside a caller's own
transaction (chronomem imports facts and sessions of one file in one transaction).
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Sequence
from datetime import datetime
from types import TracebackType
from typing import Any

from chronica._errors import ChronicumNotFoundError, DuplicateActumError, StoreError
from chronica._model import Actum, Chronicum
from chronica._restore import RestoreBatch

from . import _sqlite_rows as sql

__all__ = ["Immediate", "Refused", "insert", "insert_many", "refused", "restore", "restore_batch"]


class Immediate:
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


def insert(conn: sqlite3.Connection, params: tuple[Any, ...], statement: str = sql.INSERT) -> bool:
    """Run an insert of one actum; whether it stored a row (INSERT_ONCE may store none).

    Outside ``BEGIN`` the statement is a transaction of its own: an INSERT takes SQLite's
    write lock (waiting up to ``busy_timeout``) before it reads the next ``seq``, as
    ``BEGIN IMMEDIATE`` does, so a one-actum write needs no BEGIN and COMMIT round trips.
    """
    try:
        return conn.execute(statement, params).rowcount == 1
    except sqlite3.IntegrityError as e:
        raise refused(e, params) from None


def refused(error: sqlite3.IntegrityError, params: tuple[Any, ...]) -> Exception:
    """The error an insert of the actum of ``params`` met, in chronica's terms."""
    text = str(error)
    if "chronica_acta.chronicum" in text:  # NOT NULL: the owner has no such chronicum
        return ChronicumNotFoundError(params[1])
    if "chronica_acta.id" in text:
        return DuplicateActumError(params[2])
    if "CHECK constraint" in text:  # the position would spill into the next chronicum
        return StoreError(f"chronicum {params[1]!r} is full: it holds 2**32 - 1 acta, the most")
    return error


class Refused(Exception):
    """A batch insert hit a constraint; it is retried one by one to name the actum."""


def insert_many(
    conn: sqlite3.Connection,
    acta: Sequence[Actum],
    stamps: list[datetime],
    params: list[tuple[Any, ...]],
    owner_id: str,
) -> list[Actum]:
    """Insert a batch of one chronicum inside the caller's write transaction: one read of
    where the chronicum ends, then one ``executemany`` at the positions that follow.

    Raises :class:`chronica.ChronicumNotFoundError` when the owner has no such chronicum,
    and :class:`Refused` when a row hits a constraint (a key taken before or twice in the
    batch, a duplicate ID, a full chronicum): the caller rolls back and writes one by one,
    which skips a taken key and names what else failed.
    """
    chronicum_id = acta[0].chronicum_id
    found = conn.execute(sql.NEXT, (owner_id, chronicum_id)).fetchone()
    if found is None:
        raise ChronicumNotFoundError(chronicum_id)
    num, last = found
    try:
        conn.executemany(
            sql.INSERT_AT, [(last + i, num, *row[2:]) for i, row in enumerate(params, 1)]
        )
    except sqlite3.IntegrityError as e:
        raise Refused from e  # through Immediate, which rolls the batch back
    return [sql.stamped(actum, at) for actum, at in zip(acta, stamps, strict=True)]


def restore_batch(conn: sqlite3.Connection, batch: RestoreBatch) -> int:
    """Write a batch :meth:`chronica.Chronicarius.check_restore` returned, inside the caller's
    open write transaction on a file chronica's tables live in; returns the acta newly stored.

    For a caller that writes more in the same transaction (chronomem's import: facts and
    sessions of one file, all or nothing). Raises :class:`chronica.DuplicateActumError` before
    inserting anything of the batch when an actum ID is held elsewhere.
    """
    return restore(conn, batch.owner_id, batch.chronica, batch.acta)


def restore(
    conn: sqlite3.Connection, owner_id: str, chronica: Sequence[Chronicum], acta: Sequence[Actum]
) -> int:
    conn.executemany(sql.CREATE, [(owner_id, c.id, sql.utc_text(c.created_at)) for c in chronica])
    rows = _restore_rows(conn, owner_id, acta)
    conn.executemany(sql.RESTORE, rows)
    return len(rows)


_WHERE_ID = (
    "SELECT c.owner_id, c.id FROM chronica_acta AS a "
    "JOIN chronica_chronica AS c ON c.num = a.chronicum WHERE a.id = ?"
)
# The last position taken in chronicum ?1's rowid range (its base when it has no acta).
_LAST_POS = (
    "SELECT coalesce(max(pos), ?1 << 32) FROM chronica_acta "
    "WHERE pos BETWEEN ?1 << 32 AND (?1 << 32) + 4294967295"
)


def _restore_rows(
    conn: sqlite3.Connection, owner_id: str, acta: Sequence[Actum]
) -> list[tuple[Any, ...]]:
    """Rows for the acta not stored yet, each placed on from its chronicum's last position.

    Raises :class:`chronica.DuplicateActumError` for an ID stored in another chronicum,
    before anything of the batch is inserted.
    """
    last: dict[str, tuple[int, int]] = {}  # chronicum ID -> (its number, the last position)
    rows = []
    for actum in acta:
        where = conn.execute(_WHERE_ID, (actum.id,)).fetchone()
        if where is not None:
            if tuple(where) != (owner_id, actum.chronicum_id):
                raise DuplicateActumError(actum.id)
            continue  # restored before: importing one export twice changes nothing
        found = last.get(actum.chronicum_id)
        if found is None:
            row = conn.execute(sql.CHRONICUM_NUM, (owner_id, actum.chronicum_id)).fetchone()
            if row is None:  # not among the batch's chronica, nor stored before
                raise ChronicumNotFoundError(actum.chronicum_id)
            (pos,) = conn.execute(_LAST_POS, row).fetchone()
            found = (row[0], pos)
        num, pos = found
        last[actum.chronicum_id] = (num, pos + 1)
        assert actum.at is not None, "Chronicarius.restore checks every at"
        rows.append((pos + 1, num, *sql.actum_params(owner_id, actum, actum.at, None)[2:-1]))
    return rows
