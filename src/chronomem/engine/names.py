"""Prefix look-ups of an owner's entity names and fact ids, for completion and browsing.

A client completing ``chronomem://timeline/{entity}`` sends a few letters on every keystroke,
so each look-up is a range scan of a unique index (``chronomem_entities (owner, key)``,
``chronomem_facts (id)``), never a scan of the owner's rows, and returns at most ``limit``.
Keys and ids compare by code point on both engines (PostgreSQL declares them ``COLLATE "C"``),
so the keys that start with a prefix are exactly those from ``prefix`` up to ``prefix``
followed by the largest code point.
"""

from __future__ import annotations

from collections.abc import Sequence

from chronomem.engine.dialect import Conn

__all__ = [
    "TAIL",
    "entity_names",
    "fact_count",
    "fact_ids",
    "fact_ids_ending",
    "fact_neighbours",
    "tail_twins",
]

TAIL = 8
"""Digits at the end of a fact id the tail index holds (``substr(id, 25)`` of 32): the
fewest an id's end may be given by."""
_TAIL_FROM = 32 - TAIL + 1

_LAST = "\U0010ffff"
"""The largest code point: ``prefix + _LAST`` is above every key that starts with ``prefix``."""


def entity_names(
    conn: Conn, owner: str, prefix: str, *, after: str, limit: int
) -> list[tuple[str, str]]:
    """Up to ``limit`` of the owner's entities whose key starts with ``prefix`` and is above
    ``after``, in key order, as ``(key, name)``."""
    rows = conn.execute(
        """SELECT key, name FROM chronomem_entities
           WHERE owner = ? AND key >= ? AND key < ? AND key > ?
           ORDER BY key LIMIT ?""",
        (owner, prefix, prefix + _LAST, after, limit),
    ).fetchall()
    return [(str(r[0]), str(r[1])) for r in rows]


def fact_ids(conn: Conn, owner: str, prefix: str, *, limit: int) -> list[str]:
    """Up to ``limit`` ids of the owner's facts (not episodes) that start with ``prefix``, in
    id order. Ids are random, so the owner's share of a range is its share of the table."""
    rows = conn.execute(
        """SELECT id FROM chronomem_facts
           WHERE id >= ? AND id < ? AND owner = ? AND kind = 'fact'
           ORDER BY id LIMIT ?""",
        (prefix, prefix + _LAST, owner, limit),
    ).fetchall()
    return [str(r[0]) for r in rows]


_NEIGHBOURS = """SELECT ? AS i,
    (SELECT id FROM chronomem_facts WHERE id >= ? AND id < ? AND owner = ? AND kind = 'fact'
     ORDER BY id DESC LIMIT 1) AS below,
    (SELECT id FROM chronomem_facts WHERE id > ? AND id < ? AND owner = ? AND kind = 'fact'
     ORDER BY id LIMIT 1) AS above"""

_NEIGHBOURS_BATCH = 100
"""Ids per statement: seven parameters each, far below either engine's limit."""


def fact_neighbours(
    conn: Conn, owner: str, ids: Sequence[str], shortest: int
) -> list[tuple[str, str]]:
    """For each of ``ids``, the owner's fact ids just below and just above it among those
    sharing its first ``shortest`` characters, or ``""`` where there is none: the ids a
    prefix of it must tell it apart from. Each look-up is bounded by that prefix's range of
    the ids' index, as :func:`fact_ids` is; one statement answers a hundred ids (one round
    trip to a server, not two per id)."""
    found: list[tuple[str, str]] = []
    for start in range(0, len(ids), _NEIGHBOURS_BATCH):
        batch = ids[start : start + _NEIGHBOURS_BATCH]
        sql = " UNION ALL ".join([_NEIGHBOURS] * len(batch))
        params: list[object] = []
        for i, fid in enumerate(batch):
            within = fid[:shortest]
            params += [i, within, fid, owner, fid, within + _LAST, owner]
        rows = sorted(conn.execute(sql, params).fetchall(), key=lambda r: int(r[0]))
        found += [(str(r[1] or ""), str(r[2] or "")) for r in rows]
    return found


def fact_ids_ending(conn: Conn, owner: str, suffix: str, *, limit: int) -> list[str]:
    """Up to ``limit`` ids of the owner's facts that end with ``suffix`` (at least
    :data:`TAIL` hex digits), in id order: one probe of the tail index for its last digits,
    the rest compared on the few rows found."""
    if len(suffix) < TAIL:
        raise ValueError(f"an id's end has at least {TAIL} digits")
    rows = conn.execute(
        f"""SELECT id FROM chronomem_facts
           WHERE substr(id, {_TAIL_FROM}) = ? AND kind = 'fact' AND owner = ?
           ORDER BY id""",
        (suffix[-TAIL:], owner),
    ).fetchall()
    return [str(r[0]) for r in rows if str(r[0]).endswith(suffix)][:limit]


def tail_twins(conn: Conn, owner: str, ids: Sequence[str]) -> dict[str, list[str]]:
    """For each of ``ids``, the owner's other fact ids ending with its last :data:`TAIL`
    digits (almost always none: those digits are random), through the tail index."""
    twins: dict[str, list[str]] = {fid: [] for fid in ids}
    tails: dict[str, list[str]] = {}
    for fid in ids:
        tails.setdefault(fid[-TAIL:], []).append(fid)
    keys = list(tails)
    for start in range(0, len(keys), _NEIGHBOURS_BATCH):
        batch = keys[start : start + _NEIGHBOURS_BATCH]
        marks = ", ".join("?" * len(batch))
        rows = conn.execute(
            f"""SELECT id FROM chronomem_facts
               WHERE substr(id, {_TAIL_FROM}) IN ({marks}) AND kind = 'fact' AND owner = ?""",
            (*batch, owner),
        ).fetchall()
        for (found,) in rows:
            for fid in tails.get(str(found)[-TAIL:], []):
                if str(found) != fid:
                    twins[fid].append(str(found))
    return twins


def fact_count(conn: Conn, owner: str) -> int:
    """About how many facts the owner has: the lexical index's running count (a row per
    kind, or per shard on PostgreSQL), read without counting the facts themselves."""
    row = conn.execute(
        "SELECT coalesce(sum(items), 0) FROM chronomem_corpus WHERE owner = ? AND kind = 'fact'",
        (owner,),
    ).fetchone()
    return int(row[0]) if row else 0
