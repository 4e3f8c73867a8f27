"""The SQL that indexing a session needs besides inserting episodes: where the last call
stopped, and forgetting the turns a session took back.

Both run inside the caller's write transaction, after the session is locked, so two racing
indexers see each other's work (see ``insert_episodes``).
"""

from __future__ import annotations

from collections.abc import Sequence

from chronomem.engine.dialect import Conn

__all__ = ["forget_by_source", "last_source", "stored_sources"]

_CHUNK = 500  # sources per statement: far under SQLite's limit on bound parameters
_RETURNING = " RETURNING rowid"  # counts what changed, on both engines


def last_source(conn: Conn, owner: str, session: str) -> str | None:
    """The source of the session's newest episode that has one (forgotten or not), or None.

    Read backwards along the (owner, session, seq) index: the newest such episode is
    usually the newest of all.
    """
    row = conn.execute(
        """SELECT source FROM chronomem_facts
           WHERE owner = ? AND session = ? AND kind = 'episode' AND source IS NOT NULL
           ORDER BY seq DESC LIMIT 1""",
        (owner, session),
    ).fetchone()
    return None if row is None else str(row[0])


def forget_by_source(
    conn: Conn, owner: str, session: str, sources: Sequence[str] | None, *, reason: str, now: int
) -> int:
    """Forget the session's active episodes with these sources (all that have a source when
    ``sources`` is None); returns how many were forgotten."""
    base = """UPDATE chronomem_facts SET forgotten = 1, forget_reason = ?, invalidated_at = ?
              WHERE owner = ? AND session = ? AND kind = 'episode'
              AND invalidated_at IS NULL AND source IS NOT NULL"""
    if sources is None:
        return len(conn.execute(base + _RETURNING, (reason, now, owner, session)).fetchall())
    forgotten = 0
    for i in range(0, len(sources), _CHUNK):
        among, params = conn.dialect.in_list("source", sources[i : i + _CHUNK])
        cur = conn.execute(
            f"{base} AND {among}{_RETURNING}", (reason, now, owner, session, *params)
        )
        forgotten += len(cur.fetchall())
    return forgotten


def stored_sources(
    conn: Conn, owner: str, wanted: Sequence[tuple[str, str]]
) -> dict[tuple[str, str], str]:
    """The ids of the episodes already stored under these (session, source) pairs, found
    through the unique (owner, session, source) index."""
    by_session: dict[str, list[str]] = {}
    for session, source in wanted:
        by_session.setdefault(session, []).append(source)
    stored: dict[tuple[str, str], str] = {}
    for session, sources in by_session.items():
        unique = list(dict.fromkeys(sources))
        for i in range(0, len(unique), _CHUNK):
            found = conn.dialect.episodes_by_source(conn, owner, session, unique[i : i + _CHUNK])
            stored.update(((session, source), eid) for source, eid in found)
    return stored
