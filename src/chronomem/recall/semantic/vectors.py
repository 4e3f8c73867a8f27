"""The semantic channel's rows: one vector per item, written with it, read for a recall's pool.

A vector lives in ``chronomem_vectors`` under its item's rowid, written by the same
transaction that writes the item (so a killed process leaves neither or both), or by the
migration that added the table, for items older than it. An item without a vector (its text
has no token the model knows, or the channel was not installed when it was written) is simply
not ranked by this channel; the other channels still find it.
"""

from __future__ import annotations

from collections.abc import Sequence

from chronomem.engine.dialect import Conn
from chronomem.recall.semantic.model import load_model

__all__ = ["BACKFILL_BATCH", "backfill", "read_vectors", "store_vector", "vector_of"]

BACKFILL_BATCH = 2000


def store_vector(conn: Conn, rowid: int, text: str) -> None:
    """Store ``text``'s vector for the item ``rowid`` (nothing when the channel is off)."""
    vector = vector_of(text)
    if vector is not None:
        conn.execute("INSERT INTO chronomem_vectors (item, vec) VALUES (?, ?)", (rowid, vector))


def vector_of(text: str) -> bytes | None:
    """The vector stored for ``text``: ``None`` when the channel is off or the text has no
    meaning to store."""
    model = load_model()
    return None if model is None else model.encode(text)


def read_vectors(conn: Conn, rowids: Sequence[int]) -> tuple[list[int], list[bytes]]:
    """The stored vectors of those of ``rowids`` that have one: (rowids, vectors)."""
    if not rowids:
        return [], []
    among, params = conn.dialect.in_list("item", list(rowids))
    rows = conn.execute(f"SELECT item, vec FROM chronomem_vectors WHERE {among}", params)
    items: list[int] = []
    vectors: list[bytes] = []
    for item, vec in rows.fetchall():
        items.append(int(item))
        vectors.append(bytes(vec))
    return items, vectors


def backfill(conn: Conn) -> int:
    """Give every item without a vector its vector, in batches; returns how many were written.

    Run by the migration that adds the table (and harmless to run again): items are read in
    rowid order, BACKFILL_BATCH at a time, so memory stays flat on a memory of any size.
    """
    model = load_model()
    if model is None:
        return 0
    written, after = 0, 0
    while True:
        rows = conn.execute(
            """SELECT f.rowid, f.content FROM chronomem_facts f
               WHERE f.rowid > ? AND NOT EXISTS
                   (SELECT 1 FROM chronomem_vectors v WHERE v.item = f.rowid)
               ORDER BY f.rowid LIMIT ?""",
            (after, BACKFILL_BATCH),
        ).fetchall()
        if not rows:
            return written
        encoded = [(int(r[0]), model.encode(str(r[1]))) for r in rows]
        batch = [(rowid, vec) for rowid, vec in encoded if vec is not None]
        conn.executemany("INSERT INTO chronomem_vectors (item, vec) VALUES (?, ?)", batch)
        written += len(batch)
        after = int(rows[-1][0])
