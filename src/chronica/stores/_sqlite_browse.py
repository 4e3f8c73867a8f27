"""Browsing and erasing in :class:`chronica.stores.sqlite.SQLiteStore`: the statements and
the functions that run them on one connection.

Every read is an index range: an owner's chronica through ``UNIQUE (owner_id, id)``, a
chronicum's acta through their rowid range (an actum's rowid is its chronicum's number
shifted up, plus its position: see ``POSITION_BITS``), walked from a cursor for one page, so
a 100,000-acta chronicum costs what one page costs. Counts read the last position of each
chronicum (positions have no gaps) rather than counting rows.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from chronica._errors import ChronicumNotFoundError, StoreError
from chronica._model import ActaPage, ActumEntry, ChronicaCounts, ChronicumSummary

from . import _sqlite_rows as sql
from ._sqlite_schema import empty_log

__all__ = [
    "acta_page",
    "chronica_page",
    "counts",
    "erase_chronicum",
    "erase_owner",
    "find_actum",
]

_IN_RANGE = f"a.pos BETWEEN {sql.FIRST} AND {sql.LAST}"
_LAST_SEQ = f"SELECT max(a.pos) - {sql.FIRST} FROM chronica_acta a WHERE {_IN_RANGE}"
_CHRONICA_PAGE = f"""
    SELECT c.id, c.owner_id, c.created_at, coalesce(({_LAST_SEQ}), 0),
           (SELECT a.at FROM chronica_acta a WHERE {_IN_RANGE} ORDER BY a.pos DESC LIMIT 1)
    FROM chronica_chronica c WHERE c.owner_id = ? ORDER BY c.num DESC LIMIT ? OFFSET ?
"""
_COUNTS = f"""
    SELECT count(*), coalesce(sum(({_LAST_SEQ})), 0)
    FROM chronica_chronica c WHERE c.owner_id = ?
"""
_ACTA_COLUMNS = ", ".join(f"a.{name}" for name in sql.COLUMNS.split(", "))
_FIND = f"""
    SELECT c.id, a.pos - {sql.FIRST}, {_ACTA_COLUMNS}
    FROM chronica_acta a JOIN chronica_chronica c ON c.num = a.chronicum
    WHERE a.id = ? AND c.owner_id = ?
"""


def _columns(preview_chars: int) -> str:
    """The position (``pos`` less the chronicum's base, the first parameter), content
    length, then ``COLUMNS`` with content cut to ``preview_chars`` if > 0."""
    content = f"substr(content, 1, {int(preview_chars)})" if preview_chars > 0 else "content"
    return f"pos - ?1, length(content), id, kind, actor_kind, actor, {content}, metadata, at"


def _filters(kinds: Sequence[str], actors: Sequence[str]) -> tuple[str, list[Any]]:
    where = ""
    if kinds:
        where += f" AND kind IN ({', '.join('?' * len(kinds))})"
    if actors:
        where += f" AND actor_kind IN ({', '.join('?' * len(actors))})"
    return where, [*kinds, *actors]


def chronica_page(
    conn: sqlite3.Connection, owner_id: str, offset: int, limit: int
) -> list[ChronicumSummary]:
    """The owner's chronica, newest created first."""
    rows = conn.execute(_CHRONICA_PAGE, (owner_id, limit, offset)).fetchall()
    return [
        ChronicumSummary(
            chronicum=sql.row_chronicum(row[:3]),
            acta=int(row[3]),
            last_at=None if row[4] is None else datetime.fromisoformat(row[4]),
        )
        for row in rows
    ]


def acta_page(
    conn: sqlite3.Connection,
    owner_id: str,
    chronicum_id: str,
    *,
    limit: int,
    before: int | None,
    after: int | None,
    last_n: int,
    kinds: Sequence[str],
    actors: Sequence[str],
    preview_chars: int,
) -> ActaPage:
    """A page of one window (see :meth:`chronica.BrowsableStore.acta_page`)."""
    found = conn.execute(sql.CHRONICUM_NUM, (owner_id, chronicum_id)).fetchone()
    if found is None:
        raise ChronicumNotFoundError(chronicum_id)
    # Positions are rowids less the chronicum's base: every query names the base first (?1),
    # and its range (positions 1 to 2**32 - 1) as ?2 and ?3.
    base = found[0] << 32
    cond, params = _filters(kinds, actors)
    key = [base, base + 1, base + 0xFFFFFFFF]
    first = 0
    if last_n > 0:  # the window starts at the last_n-th newest actum that passes
        row = conn.execute(
            "SELECT pos - ?1 FROM chronica_acta WHERE pos BETWEEN ?2 AND ?3"
            f"{cond} ORDER BY pos DESC LIMIT 1 OFFSET ?",
            (*key, *params, last_n - 1),
        ).fetchone()
        first = int(row[0]) if row else 0
    scope = f"FROM chronica_acta WHERE pos BETWEEN ?2 AND ?3{cond} AND pos >= ? + ?1"
    start = (*key, *params, first)
    columns = _columns(preview_chars)
    more_before = more_after = False
    if after is not None:
        rows = conn.execute(
            f"SELECT {columns} {scope} AND pos > ? + ?1 ORDER BY pos LIMIT ?",
            (*start, min(after, 2**32), limit + 1),
        ).fetchall()
        more_after, rows = len(rows) > limit, rows[:limit]
    else:
        end = min(before, 2**32) if before is not None else 2**32
        rows = conn.execute(
            f"SELECT {columns} {scope} AND pos < ? + ?1 ORDER BY pos DESC LIMIT ?",
            (*start, end, limit + 1),
        ).fetchall()
        more_before, rows = len(rows) > limit, rows[:limit][::-1]
    (total,) = conn.execute(f"SELECT count(*) {scope}", start).fetchone()
    return ActaPage(
        entries=tuple(
            ActumEntry(
                position=row[0], actum=sql.row_actum(chronicum_id, row[2:]), content_length=row[1]
            )
            for row in rows
        ),
        total=int(total),
        first_position=first,
        more_before=more_before,
        more_after=more_after,
    )


def find_actum(conn: sqlite3.Connection, owner_id: str, actum_id: str) -> ActumEntry | None:
    """The owner's actum of this ID, whole; found through the unique ``id`` index."""
    row = conn.execute(_FIND, (actum_id, owner_id)).fetchone()
    if row is None:
        return None
    actum = sql.row_actum(row[0], row[2:])
    return ActumEntry(position=row[1], actum=actum, content_length=len(actum.content))


def counts(conn: sqlite3.Connection, owner_id: str) -> ChronicaCounts:
    """How many chronica and acta the owner has."""
    chronica, acta = conn.execute(_COUNTS, (owner_id,)).fetchone()
    return ChronicaCounts(chronica=int(chronica), acta=int(acta))


def erase_owner(conn: sqlite3.Connection, owner_id: str, path: str) -> ChronicaCounts:
    """Delete the owner's chronica and acta so their bytes leave the file, then the WAL
    (see :func:`_erased`)."""
    erased = _erased(conn, "owner_id = ?", (owner_id,))
    if not empty_log(conn):
        raise StoreError(
            f"{path}: owner {owner_id!r} erased, but a reader kept the write-ahead log from "
            "being emptied, so old copies may remain in it: close other readers and erase again"
        )
    return erased


def erase_chronicum(
    conn: sqlite3.Connection, chronicum_id: str, owner_id: str, path: str
) -> ChronicaCounts:
    """Delete the owner's chronicum and its acta as :func:`erase_owner` deletes an owner's."""
    erased = _erased(conn, "owner_id = ? AND id = ?", (owner_id, chronicum_id))
    if not empty_log(conn):
        raise StoreError(
            f"{path}: chronicum {chronicum_id!r} erased, but a reader kept the write-ahead log "
            "from being emptied, so old copies may remain in it: close other readers and erase "
            "again"
        )
    return erased


def _erased(conn: sqlite3.Connection, where: str, params: tuple[str, ...]) -> ChronicaCounts:
    """Delete the chronica ``where`` picks and their acta (each chronicum's rowid range), so
    their bytes leave the file; the caller then empties the WAL.

    ``conn`` must be in autocommit mode. ``secure_delete`` makes SQLite overwrite what it
    deletes (cells and freed pages) with zeros instead of leaving it in free space; it is set
    for this connection only for the erasure, because it costs every later delete too. The
    new, zeroed pages reach the WAL at commit; the TRUNCATE checkpoint then copies them into
    the database file and empties the WAL, which held the acta as first written. A reader
    still holding an old snapshot keeps the checkpoint from finishing: that is reported, and
    erasing again (which removes nothing more) checkpoints again.
    """
    (previous,) = conn.execute("PRAGMA secure_delete").fetchone()
    conn.execute("PRAGMA secure_delete = ON")
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            nums = conn.execute(f"SELECT num FROM chronica_chronica WHERE {where}", params)
            acta = conn.executemany(
                "DELETE FROM chronica_acta WHERE pos BETWEEN ?1 << 32 AND (?1 << 32) + 4294967295",
                nums.fetchall(),
            )
            chronica = conn.execute(f"DELETE FROM chronica_chronica WHERE {where}", params)
            erased = ChronicaCounts(chronica=chronica.rowcount, acta=acta.rowcount)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
    finally:
        conn.execute(f"PRAGMA secure_delete = {int(previous)}")
    return erased
