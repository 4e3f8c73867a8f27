"""The statements that read or change whole items of ``chronomem_facts``, for the memory.

One home for the facts table's SQL above the write path: the same text on both engines (``?``
marks, which the PostgreSQL connection translates); where the engines differ (a row lock) the
connection's dialect says how. Rows leave this module named (:class:`FactRow`,
:class:`ActiveRow`), never as positions. What an insert writes stays with the insert
(:mod:`chronomem.write`), what recall's channels read with recall (:mod:`chronomem.recall`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from chronomem.engine.dialect import Conn

__all__ = [
    "COLUMNS",
    "ActiveRow",
    "Counts",
    "FactRow",
    "active_row",
    "categories",
    "counts",
    "end_belief",
    "export_page",
    "few_in_category",
    "has_session",
    "item_row",
    "mark_forgotten",
    "old_episodes",
    "rows_by_rowid",
    "session_rowids",
    "timeline_rows",
]

COLUMNS = """f.id, f.content, f.category, f.entities, f.trust, f.confidence, f.source,
    f.metadata, f.system_time, f.valid_from, f.valid_until, f.invalidated_at, f.superseded_by,
    f.forgotten, f.forget_reason, f.kind, f.speaker, f.session, f.seq, f.purged_at,
    f.purge_reason, f.mentions"""
"""An item's columns, in the order of :class:`FactRow`'s fields."""


class FactRow(NamedTuple):
    """A fact or an episode as :data:`COLUMNS` reads it (times in epoch microseconds)."""

    id: str
    content: str
    category: str | None
    entities: str
    trust: float
    confidence: float
    source: str | None
    metadata: str | None
    system_time: int
    valid_from: int
    valid_until: int | None
    invalidated_at: int | None
    superseded_by: str | None
    forgotten: int
    forget_reason: str | None
    kind: str
    speaker: str | None
    session: str | None
    seq: int | None
    purged_at: int | None
    purge_reason: str | None
    mentions: str | None
    """The dates an episode's words mention, as stored (see :mod:`chronomem.write.episodes`)."""


class ActiveRow(NamedTuple):
    """What ``supersede`` and ``forget`` check of the item they change."""

    rowid: int
    valid_from: int
    forgotten: int
    invalidated_at: int | None
    kind: str
    content_key: str | None
    purged: bool


class Counts(NamedTuple):
    """An owner's items by state, and entities."""

    facts: int
    active: int
    superseded: int
    forgotten: int
    episodes: int
    entities: int


def active_row(conn: Conn, owner: str, item_id: str) -> ActiveRow | None:
    """The owner's item ``item_id``, locked for the change that follows (where writes are not
    serial), or ``None``."""
    row = conn.execute(
        f"""SELECT rowid, valid_from, forgotten, invalidated_at, kind, content_key,
                   purged_at IS NOT NULL FROM chronomem_facts
            WHERE id = ? AND owner = ?{conn.dialect.for_update}""",
        (item_id, owner),
    ).fetchone()
    return None if row is None else ActiveRow._make((*row[:6], bool(row[6])))


def end_belief(conn: Conn, rowid: int, *, until: int, now: int, successor: str) -> None:
    """End a fact's validity at ``until`` (valid time) and its belief at ``now`` (system
    time), superseded by ``successor``."""
    conn.execute(
        """UPDATE chronomem_facts SET valid_until = ?, invalidated_at = ?, superseded_by = ?
           WHERE rowid = ?""",
        (until, now, successor, rowid),
    )


def mark_forgotten(conn: Conn, rowid: int, *, reason: str | None, now: int) -> None:
    """Soft-delete an item: it stays, marked forgotten at ``now`` for ``reason``."""
    conn.execute(
        """UPDATE chronomem_facts SET forgotten = 1, forget_reason = ?, invalidated_at = ?
           WHERE rowid = ?""",
        (reason, now, rowid),
    )


def item_row(conn: Conn, owner: str, item_id: str) -> FactRow | None:
    """The owner's item ``item_id`` in any state, or ``None``."""
    row = conn.execute(
        f"SELECT {COLUMNS} FROM chronomem_facts f WHERE f.id = ? AND f.owner = ?",
        (item_id, owner),
    ).fetchone()
    return None if row is None else FactRow._make(row)


def rows_by_rowid(conn: Conn, rowids: Sequence[int]) -> dict[int, FactRow]:
    """The items with these rowids (recall's candidates, already in the owner's view)."""
    if not rowids:
        return {}
    source, params = conn.dialect.facts_by_rowid(rowids)
    rows = conn.execute(f"SELECT f.rowid, {COLUMNS} FROM {source}", params).fetchall()
    return {r[0]: FactRow._make(r[1:]) for r in rows}


def timeline_rows(conn: Conn, owner: str, key: str) -> list[FactRow]:
    """Every item linked to the owner's entity ``key``, by valid time then system time."""
    rows = conn.execute(
        f"""SELECT {COLUMNS} FROM chronomem_facts f
            JOIN chronomem_fact_entities fe ON fe.fact_rowid = f.rowid
            JOIN chronomem_entities e ON e.id = fe.entity_id
            WHERE e.owner = ? AND e.key = ? AND f.owner = ?
            ORDER BY f.valid_from, f.system_time, f.rowid""",
        (owner, key, owner),
    ).fetchall()
    return [FactRow._make(r) for r in rows]


def categories(conn: Conn, owner: str, prefix: str, limit: int | None = None) -> list[str]:
    """The distinct categories of the owner's active facts starting with ``prefix``, sorted.

    A skip scan of the categories index: one probe per distinct category (the next one after
    the last found), so the cost follows the categories, not the facts holding them (100,000
    facts in 5,000 namespaces of the LangGraph store: 5,000 probes, not a 100,000-row scan).
    In byte order, every category starting with ``prefix`` follows it, contiguously; with a
    ``limit``, the walk stops after that many (both engines run a recursive query only as far
    as its reader takes rows)."""
    collate = conn.dialect.byte_order
    active = """FROM chronomem_facts WHERE owner = ? AND kind = 'fact'
                 AND invalidated_at IS NULL AND category IS NOT NULL"""
    rows = conn.execute(
        f"""WITH RECURSIVE found(category) AS (
                SELECT (SELECT min(category{collate}) {active} AND category{collate} >= ?)
                UNION ALL
                SELECT (SELECT min(category{collate}) {active}
                        AND category{collate} > found.category{collate})
                FROM found
                WHERE found.category IS NOT NULL AND substr(found.category, 1, ?) = ?
            )
            SELECT category FROM found
            WHERE category IS NOT NULL AND substr(category, 1, ?) = ?
            {"" if limit is None else "LIMIT ?"}""",
        (owner, prefix, owner, len(prefix), prefix, len(prefix), prefix)
        + (() if limit is None else (limit,)),
    ).fetchall()
    return [str(r[0]) for r in rows]


def newest_valid(
    conn: Conn, view: tuple[str, Sequence[object]], owner: str, at: int, depth: int
) -> int:
    """The largest rowid among the ``depth`` items that passed ``view`` most recently by
    ``at``: read backwards through the time index (every item is in it at its own time,
    see write/time_index.py) from ``at``, so it costs about ``depth`` probes however many items
    came later; 0 when no item passes."""
    where, params = view
    row = conn.execute(
        f"""SELECT max(t.item) FROM (
                SELECT m.item FROM chronomem_mentions m JOIN chronomem_facts f ON f.rowid = m.item
                WHERE m.owner = ? AND m.at <= ? AND {where}
                ORDER BY m.at DESC LIMIT ?) t""",
        (owner, at, *params, depth),
    ).fetchone()
    return 0 if row is None or row[0] is None else int(row[0])


def few_in_category(
    conn: Conn, view: tuple[str, Sequence[object]], category: str, limit: int
) -> list[int] | None:
    """The rowids of the active facts of ``category`` that pass ``view``, if there are at
    most ``limit`` of them (else ``None``): read through the categories index, so asking
    costs at most ``limit + 1`` probes however many facts the owner has."""
    where, params = view
    rows = conn.execute(
        f"""SELECT f.rowid FROM chronomem_facts f
            WHERE {where} AND f.kind = 'fact' AND f.invalidated_at IS NULL
              AND f.category{conn.dialect.byte_order} = ?
            LIMIT ?""",
        (*params, category, limit + 1),
    ).fetchall()
    return None if len(rows) > limit else [int(r[0]) for r in rows]


def counts(conn: Conn, owner: str) -> Counts:
    """The owner's facts (all, active, superseded, forgotten), episodes and entities."""
    facts = conn.execute(
        """SELECT count(*), count(*) FILTER (WHERE invalidated_at IS NULL),
                  count(*) FILTER (WHERE superseded_by IS NOT NULL),
                  count(*) FILTER (WHERE forgotten = 1)
           FROM chronomem_facts WHERE owner = ? AND kind = 'fact'""",
        (owner,),
    ).fetchone()
    episodes = conn.execute(
        "SELECT count(*) FROM chronomem_facts WHERE owner = ? AND kind = 'episode'", (owner,)
    ).fetchone()[0]
    entities = conn.execute(
        "SELECT count(*) FROM chronomem_entities WHERE owner = ?", (owner,)
    ).fetchone()[0]
    total, active, superseded, forgotten = (int(n) for n in facts)
    return Counts(total, active, superseded, forgotten, int(episodes), int(entities))


def export_page(conn: Conn, owner: str, after: int, size: int) -> list[tuple[int, FactRow]]:
    """Up to ``size`` of the owner's items after rowid ``after``, oldest first, with their
    rowids (where the next page starts)."""
    rows = conn.execute(
        f"""SELECT f.rowid, {COLUMNS} FROM chronomem_facts f
            WHERE f.owner = ? AND f.rowid > ? ORDER BY f.rowid LIMIT ?""",
        (owner, after, size),
    ).fetchall()
    return [(int(r[0]), FactRow._make(r[1:])) for r in rows]


def has_session(conn: Conn, owner: str, session: str) -> bool:
    """Whether the owner has an episode (or an episode's tombstone) in ``session``."""
    return (
        conn.execute(
            """SELECT 1 FROM chronomem_facts
               WHERE owner = ? AND session = ? AND kind = 'episode' LIMIT 1""",
            (owner, session),
        ).fetchone()
        is not None
    )


def session_rowids(conn: Conn, owner: str, session: str, before: int, size: int) -> list[int]:
    """Up to ``size`` rowids of the session's episodes not yet purged, below ``before``,
    newest first (a purge's next batch)."""
    rows = conn.execute(
        """SELECT rowid FROM chronomem_facts WHERE owner = ? AND session = ?
           AND kind = 'episode' AND purged_at IS NULL AND rowid < ?
           ORDER BY rowid DESC LIMIT ?""",
        (owner, session, before, size),
    ).fetchall()
    return [int(r[0]) for r in rows]


def old_episodes(conn: Conn, owner: str, said_before: int, before: int, size: int) -> list[int]:
    """Up to ``size`` rowids of the owner's episodes said before ``said_before`` (epoch
    microseconds) and not yet purged, below rowid ``before``, newest first (a prune's next
    batch)."""
    rows = conn.execute(
        """SELECT rowid FROM chronomem_facts WHERE owner = ? AND kind = 'episode'
           AND valid_from < ? AND purged_at IS NULL AND rowid < ?
           ORDER BY rowid DESC LIMIT ?""",
        (owner, said_before, before, size),
    ).fetchall()
    return [int(r[0]) for r in rows]
