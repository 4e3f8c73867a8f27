"""The semantic channel's rows: one vector per item, written with it, read for a recall's pool.

A vector lives in ``chronomem_vectors`` under its item's rowid, written by the same
transaction that writes the item (so a killed process leaves neither or both), or by the
migration that added the table, for items older than it. An item without a vector (its text
has no token the model knows, or the channel was not installed when it was written) is simply
not ranked by this channel; the other channels still find it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from chronomem.engine.dialect import Conn
from chronomem.recall.semantic.model import load_model
from chronomem.recall.semantic.spaces import DEFAULT_SPACE, VectorSpace, space_named

__all__ = [
    "BACKFILL_BATCH",
    "EPOCH_KEY",
    "backfill",
    "bump_epoch",
    "read_vectors",
    "space_of",
    "store_vector",
    "vector_of",
]

BACKFILL_BATCH = 2000

EPOCH_KEY = "vector_epoch"
"""The ``chronomem_settings`` key counting erasures and re-embeddings of the file's vectors."""


def bump_epoch(conn: Conn) -> None:
    """Say, in the caller's transaction, that vectors were deleted or replaced: every copy
    of them in any process (see :mod:`.nearest`) reads the table again before its next search."""
    conn.execute(
        """INSERT INTO chronomem_settings (key, value) VALUES (?, '1')
           ON CONFLICT (key) DO UPDATE SET
               value = CAST(CAST(chronomem_settings.value AS INTEGER) + 1 AS TEXT)""",
        (EPOCH_KEY,),
    )


def space_of(carrier: object) -> VectorSpace | None:
    """The vector space a connection or storage carries (the memory's; ``None``: the static
    default), ``None`` too when the static model is not installed."""
    space = getattr(carrier, "vector_space", None)
    if space is not None:
        return cast(VectorSpace, space)
    return space_named(DEFAULT_SPACE) if load_model() is not None else None


def store_vector(conn: Conn, rowid: int, text: str) -> None:
    """Store ``text``'s vector for the item ``rowid`` in the memory's space (nothing when
    the channel is off or the text has nothing to embed)."""
    vector = vector_of(text, conn)
    if vector is not None:
        conn.execute("INSERT INTO chronomem_vectors (item, vec) VALUES (?, ?)", (rowid, vector))


def vector_of(text: str, carrier: object) -> bytes | None:
    """The vector stored for ``text`` in the space of ``carrier`` (a connection or the
    storage): ``None`` when the channel is off or the text has no meaning to store."""
    space = space_of(carrier)
    return None if space is None else space.vector(text)


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
    space = space_of(conn)
    if space is None:
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
        space.prime([str(r[1]) for r in rows])
        encoded = [(int(r[0]), space.vector(str(r[1]))) for r in rows]
        batch = [(rowid, vec) for rowid, vec in encoded if vec is not None]
        conn.executemany("INSERT INTO chronomem_vectors (item, vec) VALUES (?, ?)", batch)
        written += len(batch)
        after = int(rows[-1][0])
