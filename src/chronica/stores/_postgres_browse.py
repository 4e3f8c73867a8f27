"""Browsing and erasing in :class:`chronica.stores.postgres.PostgresStore`: the statements,
built once per schema, and the functions that run them on one connection.

Every read is an index range: an owner's chronica through the ``(owner_id, id)`` key, a
chronicum's acta through the ``(owner_id, chronicum_id, seq)`` key, walked from a cursor for
one page, so a 100,000-acta chronicum costs what one page costs. Counts read the last
position of each chronicum (positions have no gaps) rather than counting rows. psycopg is
named here for type checking only: :mod:`chronica.stores.postgres` stays the one module that
imports it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chronica._errors import ChronicumNotFoundError
from chronica._model import ActaPage, ActumEntry, ChronicaCounts, ChronicumSummary

from . import _postgres_rows as codec
from ._postgres_schema import SELECTED

if TYPE_CHECKING:
    import psycopg

__all__ = [
    "BrowseStatements",
    "acta_page",
    "chronica_page",
    "counts",
    "erase_chronicum",
    "erase_owner",
    "find_actum",
]

_FILTERS = (
    " AND (%(kinds)s::text[] IS NULL OR kind = ANY(%(kinds)s::text[]))"
    " AND (%(actors)s::text[] IS NULL OR actor_kind = ANY(%(actors)s::text[]))"
)


class BrowseStatements:
    """The statements of browsing and erasing, for one (already quoted) schema name."""

    def __init__(self, s: str) -> None:
        last_seq = (
            f"SELECT max(a.seq) FROM {s}.chronica_acta a "
            "WHERE a.owner_id = c.owner_id AND a.chronicum_id = c.id"
        )
        self.chronica_page = f"""
            SELECT c.id, c.owner_id, c.created_at, coalesce(({last_seq}), 0),
                   (SELECT a.at FROM {s}.chronica_acta a
                     WHERE a.owner_id = c.owner_id AND a.chronicum_id = c.id
                     ORDER BY a.seq DESC LIMIT 1)
            FROM {s}.chronica_chronica c WHERE c.owner_id = %s
            ORDER BY c.created_order DESC LIMIT %s OFFSET %s"""
        self.counts = (
            f"SELECT count(*), coalesce(sum(({last_seq})), 0) "
            f"FROM {s}.chronica_chronica c WHERE c.owner_id = %s"
        )
        scope = (
            f"FROM {s}.chronica_acta WHERE owner_id = %(owner)s AND chronicum_id = %(chronicum)s"
            f"{_FILTERS}"
        )
        self.first_seq = f"SELECT seq {scope} ORDER BY seq DESC LIMIT 1 OFFSET %(skip)s"
        window = f"{scope} AND seq >= %(first)s"
        self.after = f"SELECT {{columns}} {window} AND seq > %(cursor)s ORDER BY seq LIMIT %(n)s"
        self.before = (
            f"SELECT {{columns}} {window} AND seq < %(cursor)s ORDER BY seq DESC LIMIT %(n)s"
        )
        self.total = f"SELECT count(*) {window}"
        self.chronicum = f"SELECT 1 FROM {s}.chronica_chronica WHERE owner_id = %s AND id = %s"
        self.find = (
            f"SELECT chronicum_id, seq, {SELECTED} FROM {s}.chronica_acta "
            "WHERE id = %s AND owner_id = %s"
        )
        self.erase_acta = f"DELETE FROM {s}.chronica_acta WHERE owner_id = %s"
        self.erase_chronica = f"DELETE FROM {s}.chronica_chronica WHERE owner_id = %s"
        self.erase_one_acta = (
            f"DELETE FROM {s}.chronica_acta WHERE owner_id = %s AND chronicum_id = %s"
        )
        self.erase_one = f"DELETE FROM {s}.chronica_chronica WHERE owner_id = %s AND id = %s"


def _columns(preview_chars: int) -> str:
    """``seq``, content length, then ``SELECTED`` with content cut to ``preview_chars`` if > 0."""
    content = f"substr(content, 1, {int(preview_chars)})" if preview_chars > 0 else "content"
    return f"seq, length(content), {SELECTED.replace('content', content, 1)}"


def chronica_page(
    conn: psycopg.Connection[Any], sql: BrowseStatements, owner_id: str, offset: int, limit: int
) -> list[ChronicumSummary]:
    """The owner's chronica, newest created first."""
    found = conn.execute(sql.chronica_page, (owner_id, limit, offset)).fetchall()
    return [
        ChronicumSummary(
            chronicum=codec.row_chronicum(row[:3]),
            acta=int(row[3]),
            last_at=None if row[4] is None else codec.utc(row[4]),
        )
        for row in found
    ]


def acta_page(
    conn: psycopg.Connection[Any],
    sql: BrowseStatements,
    window: dict[str, Any],
    *,
    limit: int,
    before: int | None,
    after: int | None,
    last_n: int,
    preview_chars: int,
) -> ActaPage:
    """A page of one window (see :meth:`chronica.BrowsableStore.acta_page`); ``window`` names
    ``owner``, ``chronicum``, ``kinds`` and ``actors`` (None for every kind)."""
    chronicum_id = window["chronicum"]
    if conn.execute(sql.chronicum, (window["owner"], chronicum_id)).fetchone() is None:
        raise ChronicumNotFoundError(chronicum_id)
    first = 0
    if last_n > 0:  # the window starts at the last_n-th newest actum that passes
        row = conn.execute(sql.first_seq, {**window, "skip": last_n - 1}).fetchone()
        first = int(row[0]) if row else 0
    params = {**window, "first": first, "n": limit + 1}
    columns = _columns(preview_chars)
    more_before = more_after = False
    if after is not None:
        found = conn.execute(sql.after.format(columns=columns), {**params, "cursor": after})
        rows = found.fetchall()
        more_after, rows = len(rows) > limit, rows[:limit]
    else:
        cursor = before if before is not None else 2**62
        found = conn.execute(sql.before.format(columns=columns), {**params, "cursor": cursor})
        rows = found.fetchall()
        more_before, rows = len(rows) > limit, rows[:limit][::-1]
    counted = conn.execute(sql.total, params).fetchone()
    entries = tuple(
        ActumEntry(
            position=int(row[0]),
            actum=codec.row_actum(chronicum_id, row[2:]),
            content_length=int(row[1]),
        )
        for row in rows
    )
    return ActaPage(
        entries=entries,
        total=int(counted[0]) if counted else 0,
        first_position=first,
        more_before=more_before,
        more_after=more_after,
    )


def find_actum(
    conn: psycopg.Connection[Any], sql: BrowseStatements, owner_id: str, actum_id: str
) -> ActumEntry | None:
    """The owner's actum of this ID, whole; found through the unique ``id`` index."""
    row = conn.execute(sql.find, (actum_id, owner_id)).fetchone()
    if row is None:
        return None
    actum = codec.row_actum(row[0], row[2:])
    return ActumEntry(position=int(row[1]), actum=actum, content_length=len(actum.content))


def counts(conn: psycopg.Connection[Any], sql: BrowseStatements, owner_id: str) -> ChronicaCounts:
    """How many chronica and acta the owner has."""
    row = conn.execute(sql.counts, (owner_id,)).fetchone()
    chronica, acta = row if row else (0, 0)
    return ChronicaCounts(chronica=int(chronica), acta=int(acta))


def erase_owner(
    conn: psycopg.Connection[Any], sql: BrowseStatements, owner_id: str
) -> ChronicaCounts:
    """Delete the owner's acta, then chronica, in one transaction; how many of each."""
    with conn.transaction():
        acta = conn.execute(sql.erase_acta, (owner_id,)).rowcount
        chronica = conn.execute(sql.erase_chronica, (owner_id,)).rowcount
    return ChronicaCounts(chronica=chronica, acta=acta)


def erase_chronicum(
    conn: psycopg.Connection[Any], sql: BrowseStatements, chronicum_id: str, owner_id: str
) -> ChronicaCounts:
    """Delete the owner's chronicum and its acta, in one transaction; how many of each."""
    with conn.transaction():
        acta = conn.execute(sql.erase_one_acta, (owner_id, chronicum_id)).rowcount
        chronica = conn.execute(sql.erase_one, (owner_id, chronicum_id)).rowcount
    return ChronicaCounts(chronica=chronica, acta=acta)
