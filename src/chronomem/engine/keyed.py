"""The keyed table: facts addressed by a namespace and a key, each key's current value beside it.

``chronomem_keyed`` holds one row per (owner, namespace, key): the id of the fact that holds the
key's current value, the value itself (JSON text), when the key was first and last put, and,
for an item that expires, when it does and the time to live it was put with (a read may renew
it). ``chronomem_keyed_spaces`` counts each namespace's items, kept in the same transaction as
the rows, so listing the namespaces reads that table alone. ``chronomem_unindexed`` lists the
facts a put stored without their recall index, for the catch-up that indexes them
(:mod:`chronomem.write.keyed_index`); a purge or an erasure of such a fact takes it off the list
in its own transaction (it has no index entries to take out).

A namespace is stored as its labels, each followed by U+0001 (``users\\x01alice\\x01``): byte
order is then the order of the label tuples (a namespace sorts before those under it), and
everything under a prefix is one range of the primary key, ``[P, P')`` with the last U+0001 of
``P`` raised to U+0002. Labels holding U+0000 or U+0001 are refused by the face.

Every function runs in the caller's transaction; times are epoch microseconds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from chronomem.engine.dialect import Conn

__all__ = [
    "SEPARATOR",
    "KeyedRow",
    "adjust_space",
    "any_expired",
    "delete_rows",
    "drifted",
    "erase_owner_rows",
    "expired",
    "forget_fact_ids",
    "forget_fact_rows",
    "get_row",
    "insert_row",
    "mark_unindexed",
    "namespace_of",
    "refresh",
    "rows_by_fact",
    "rows_under",
    "space_of",
    "space_range",
    "spaces_under",
    "stale_spaces",
    "unindexed",
    "unindexed_any",
    "update_row",
]

SEPARATOR = "\x01"

_COLUMNS = "space, key, fact_id, value, created_at, updated_at, expires_at, ttl"


class KeyedRow(NamedTuple):
    """One row of ``chronomem_keyed`` (the owner left out)."""

    space: str
    key: str
    fact_id: str
    value: str
    created_at: int
    updated_at: int
    expires_at: int | None
    ttl: float | None


def space_of(labels: Sequence[str]) -> str:
    """The stored form of a namespace (see the module docstring)."""
    return "".join(f"{label}{SEPARATOR}" for label in labels)


def namespace_of(space: str) -> tuple[str, ...]:
    """The labels of a stored namespace."""
    return tuple(space.split(SEPARATOR)[:-1])


def space_range(prefix: Sequence[str]) -> tuple[str, str | None]:
    """The stored namespaces under ``prefix`` (itself included): ``low <= space < high``
    (``high`` ``None``: no upper bound, the root)."""
    low = space_of(prefix)
    return low, (low[:-1] + "\x02") if low else None


def _range_sql(prefix: Sequence[str]) -> tuple[str, list[object]]:
    low, high = space_range(prefix)
    if high is None:
        return "", []
    return " AND space >= ? AND space < ?", [low, high]


def _live(now: int | None) -> tuple[str, list[object]]:
    if now is None:
        return "", []
    return " AND (expires_at IS NULL OR expires_at > ?)", [now]


def _rows(cur: Any) -> list[KeyedRow]:
    return [KeyedRow._make(r) for r in cur.fetchall()]


def get_row(conn: Conn, owner: str, space: str, key: str, now: int | None) -> KeyedRow | None:
    """The key's row, unless it expired by ``now`` (``None``: expired rows too): one probe."""
    live, params = _live(now)
    rows = _rows(
        conn.execute(
            f"SELECT {_COLUMNS} FROM chronomem_keyed WHERE owner = ? AND space = ? AND key = ?"
            + live,
            (owner, space, key, *params),
        )
    )
    return rows[0] if rows else None


def refresh(conn: Conn, owner: str, renewed: Sequence[tuple[str, str, int]], now: int) -> None:
    """Give each (space, key) its new expiry (computed by the caller from the row's time to
    live, as a put computes it); a row expired by ``now`` stays as it is."""
    conn.executemany(
        """UPDATE chronomem_keyed SET expires_at = ?
           WHERE owner = ? AND space = ? AND key = ? AND ttl IS NOT NULL AND expires_at > ?""",
        [(until, owner, space, key, now) for space, key, until in renewed],
    )


def rows_under(
    conn: Conn,
    owner: str,
    prefix: Sequence[str],
    *,
    after: tuple[str, str] | None,
    limit: int,
    now: int | None,
    where: tuple[str, list[object]] = ("", []),
) -> list[KeyedRow]:
    """Up to ``limit`` live rows under ``prefix``, in (space, key) order, past ``after``;
    ``where`` is an extra fragment on ``value`` (a necessary condition of the caller's
    filter, which has the last word)."""
    span, span_params = _range_sql(prefix)
    live, live_params = _live(now)
    past, past_params = "", []
    if after is not None:
        past, past_params = " AND (space, key) > (?, ?)", list(after)
    order = conn.dialect.byte_order
    sql = (
        f"SELECT {_COLUMNS} FROM chronomem_keyed WHERE owner = ?{span}{live}{past}{where[0]}"
        f" ORDER BY space{order}, key{order} LIMIT ?"
    )
    return _rows(
        conn.execute(sql, (owner, *span_params, *live_params, *past_params, *where[1], limit))
    )


def rows_by_fact(
    conn: Conn, owner: str, fact_ids: Sequence[str], now: int | None
) -> list[KeyedRow]:
    """The live rows whose current value is one of ``fact_ids``: read by fact id alone (ids
    are unique), then kept to the owner's, as a planner given ``owner = ?`` too read the
    owner's every row by the primary key (26 ms at 100,000 items, against 0.1)."""
    if not fact_ids:
        return []
    among, params = conn.dialect.in_list("fact_id", list(fact_ids))
    live, live_params = _live(now)
    found = conn.execute(
        f"SELECT owner, {_COLUMNS} FROM chronomem_keyed WHERE {among}{live}",
        (*params, *live_params),
    ).fetchall()
    return [KeyedRow._make(r[1:]) for r in found if r[0] == owner]


def spaces_under(
    conn: Conn, owner: str, prefix: Sequence[str], *, after: str | None, limit: int
) -> list[str]:
    """Up to ``limit`` stored namespaces holding an item, under ``prefix``, past ``after``,
    in order."""
    span, params = _range_sql(prefix)
    past: tuple[str, list[object]] = ("", [])
    if after is not None:
        past = (" AND space > ?", [after])
    rows = conn.execute(
        f"""SELECT space FROM chronomem_keyed_spaces WHERE owner = ?{span}{past[0]}
            ORDER BY space{conn.dialect.byte_order} LIMIT ?""",
        (owner, *params, *past[1], limit),
    ).fetchall()
    return [str(r[0]) for r in rows]


def stale_spaces(conn: Conn, owner: str, now: int) -> set[str]:
    """The namespaces whose every item expired by ``now`` (still counted until swept): read
    through the index of expiring rows, so nothing when none expired."""
    rows = conn.execute(
        """SELECT DISTINCT e.space FROM chronomem_keyed e
           WHERE e.owner = ? AND e.expires_at IS NOT NULL AND e.expires_at <= ?
           AND NOT EXISTS (
               SELECT 1 FROM chronomem_keyed l WHERE l.owner = e.owner AND l.space = e.space
               AND (l.expires_at IS NULL OR l.expires_at > ?))""",
        (owner, now, now),
    ).fetchall()
    return {str(r[0]) for r in rows}


def insert_row(conn: Conn, owner: str, row: KeyedRow) -> None:
    """A new key: its row, and its namespace counted."""
    conn.execute(
        f"""INSERT INTO chronomem_keyed (owner, {_COLUMNS}, drifted)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0)""",
        (owner, *row),
    )
    adjust_space(conn, owner, row.space, 1)


def update_row(conn: Conn, owner: str, row: KeyedRow, *, drifted: bool) -> None:
    """A new value of a key: ``drifted`` when its fact still holds an older value (the text
    did not change, so no new fact was written)."""
    conn.execute(
        """UPDATE chronomem_keyed SET fact_id = ?, value = ?, updated_at = ?, expires_at = ?,
               ttl = ?, drifted = ?
           WHERE owner = ? AND space = ? AND key = ?""",
        (row.fact_id, row.value, row.updated_at, row.expires_at, row.ttl, int(drifted),
         owner, row.space, row.key),
    )  # fmt: skip


def adjust_space(conn: Conn, owner: str, space: str, by: int) -> None:
    """Count ``by`` more (or fewer) items in ``space``; a namespace left empty goes."""
    conn.execute(
        """INSERT INTO chronomem_keyed_spaces (owner, space, items) VALUES (?, ?, ?)
           ON CONFLICT (owner, space) DO UPDATE SET items = chronomem_keyed_spaces.items + ?""",
        (owner, space, by, by),
    )
    if by < 0:
        conn.execute(
            "DELETE FROM chronomem_keyed_spaces WHERE owner = ? AND space = ? AND items <= 0",
            (owner, space),
        )


def delete_rows(conn: Conn, owner: str, keys: Sequence[tuple[str, str]]) -> int:
    """Remove the rows of ``keys`` (space, key) and uncount them; returns how many went."""
    gone = 0
    for space, key in keys:
        found = conn.execute(
            "DELETE FROM chronomem_keyed WHERE owner = ? AND space = ? AND key = ? RETURNING 1",
            (owner, space, key),
        ).fetchall()
        if found:
            gone += 1
            adjust_space(conn, owner, space, -1)
    return gone


def forget_fact_rows(conn: Conn, owner: str, rowids: Sequence[int]) -> None:
    """Remove the rows whose current value is a fact among ``rowids`` (a purge: the value
    beside the fact goes with it), and those facts from the list of unindexed ones (a purged
    fact is never indexed: its content is gone)."""
    if not rowids:
        return
    gone, gone_params = conn.dialect.in_list("item", list(rowids))
    conn.execute(f"DELETE FROM chronomem_unindexed WHERE {gone}", tuple(gone_params))
    among, params = conn.dialect.in_list("rowid", list(rowids))
    found = conn.execute(
        f"SELECT id FROM chronomem_facts WHERE owner = ? AND {among}", (owner, *params)
    ).fetchall()
    forget_fact_ids(conn, owner, [str(r[0]) for r in found])


def forget_fact_ids(conn: Conn, owner: str, fact_ids: Sequence[str]) -> None:
    """Remove the rows whose current value is one of ``fact_ids`` (the fact forgotten,
    superseded or purged by other means than a put or a delete of its key); read by fact id
    alone, as :func:`rows_by_fact` does."""
    if not fact_ids:
        return
    among, params = conn.dialect.in_list("fact_id", list(fact_ids))
    found = conn.execute(
        f"SELECT owner, space, key FROM chronomem_keyed WHERE {among}", tuple(params)
    ).fetchall()
    delete_rows(conn, owner, [(str(s), str(k)) for o, s, k in found if o == owner])


def erase_owner_rows(conn: Conn, owner: str) -> None:
    """Every row of the owner, in both tables."""
    conn.execute("DELETE FROM chronomem_keyed WHERE owner = ?", (owner,))
    conn.execute("DELETE FROM chronomem_keyed_spaces WHERE owner = ?", (owner,))
    conn.execute("DELETE FROM chronomem_unindexed WHERE owner = ?", (owner,))


def mark_unindexed(conn: Conn, owner: str, rowid: int) -> None:
    """List the fact ``rowid`` as stored without its recall index (in its put's transaction)."""
    conn.execute("INSERT INTO chronomem_unindexed (item, owner) VALUES (?, ?)", (rowid, owner))


def unindexed_any(conn: Conn) -> bool:
    """Whether any fact, of any owner, waits for its recall index: one probe."""
    return conn.execute("SELECT 1 FROM chronomem_unindexed LIMIT 1").fetchone() is not None


def unindexed(conn: Conn, limit: int) -> list[tuple[int, str]]:
    """Up to ``limit`` (rowid, owner) of facts waiting for their index, oldest first; on
    PostgreSQL locked until the caller's transaction ends, so two catch-ups never index one
    fact twice (the second waits, then finds it gone from the list)."""
    lock = conn.dialect.for_update
    rows = conn.execute(
        f"SELECT item, owner FROM chronomem_unindexed ORDER BY item LIMIT ?{lock}", (limit,)
    ).fetchall()
    return [(int(r[0]), str(r[1])) for r in rows]


def expired(conn: Conn, owner: str, now: int, limit: int) -> list[KeyedRow]:
    """Up to ``limit`` rows expired by ``now``, soonest first."""
    return _rows(
        conn.execute(
            f"""SELECT {_COLUMNS} FROM chronomem_keyed
                WHERE owner = ? AND expires_at IS NOT NULL AND expires_at <= ?
                ORDER BY expires_at LIMIT ?""",
            (owner, now, limit),
        )
    )


def any_expired(conn: Conn, owner: str, keys: Sequence[tuple[str, str]], now: int) -> bool:
    """Whether any (space, key) of ``keys`` has a row expired by ``now``."""
    if not keys:
        return False
    pairs = ", ".join(["(?, ?)"] * len(keys))
    row = conn.execute(
        f"""SELECT 1 FROM chronomem_keyed WHERE owner = ? AND expires_at IS NOT NULL
            AND expires_at <= ? AND (space, key) IN (VALUES {pairs}) LIMIT 1""",
        (owner, now, *(part for pair in keys for part in pair)),
    ).fetchone()
    return row is not None


def drifted(conn: Conn, owner: str) -> bool:
    """Whether any of the owner's keys holds a value its fact does not (see
    :func:`update_row`)."""
    return (
        conn.execute(
            "SELECT 1 FROM chronomem_keyed WHERE drifted = 1 AND owner = ? LIMIT 1", (owner,)
        ).fetchone()
        is not None
    )
