"""Which vector space a memory's vectors are from, and moving them to another one.

The file records its space (``chronomem_settings``, key ``vector_space``; absent means the
static default), so a memory opened with another encoder never mixes two spaces in one
search: it is refused with the command that re-embeds. Re-embedding writes the new vectors
beside the old ones (``chronomem_vectors_next``), a batch per transaction, so a killed run
resumes where it stopped; the last transaction embeds what was written meanwhile, swaps the
tables and records the new space, all at once, and bumps the vector epoch so every process's
nearest-neighbour copy reads the new vectors.
"""

from __future__ import annotations

from collections.abc import Callable

from chronomem._errors import DatabaseError, InvalidArgumentError
from chronomem.engine.dialect import Conn
from chronomem.engine.storage import Storage
from chronomem.recall.semantic.spaces import DEFAULT_SPACE, SPACE_NAMES, VectorSpace, space_named
from chronomem.recall.semantic.vectors import bump_epoch

__all__ = ["SPACE_KEY", "choose_space", "recorded_space", "reembed"]

SPACE_KEY = "vector_space"
_BATCH = 256
_NEXT = "chronomem_vectors_next"

Progress = Callable[[int, int], None]
"""Told ``(done, total)`` items as re-embedding goes."""


def recorded_space(conn: Conn) -> str:
    """The space the file's vectors are from."""
    row = conn.execute("SELECT value FROM chronomem_settings WHERE key = ?", (SPACE_KEY,))
    found = row.fetchone()
    return str(found[0]) if found else DEFAULT_SPACE


def _space(name: str) -> VectorSpace | None:
    try:
        return space_named(name)
    except LookupError as e:
        raise DatabaseError(str(e)) from e


def choose_space(db: Storage, requested: str | None) -> VectorSpace | None:
    """The space to embed and search with: the file's own, or ``requested`` when the file
    has no vector yet (then recorded). ``None`` when the static default's model is absent.

    A request for another space than a file's vectors are from is refused, naming
    ``chronomem reindex``: two spaces in one search would rank nonsense.
    """
    if requested is not None and requested not in SPACE_NAMES:
        raise InvalidArgumentError("encoder", f"must be one of {', '.join(SPACE_NAMES)}")
    with db.read() as conn:
        recorded = recorded_space(conn)
        empty = conn.execute("SELECT 1 FROM chronomem_vectors LIMIT 1").fetchone() is None
    if requested is None or requested == recorded:
        if recorded == DEFAULT_SPACE:
            try:
                return space_named(DEFAULT_SPACE)
            except LookupError:
                return None
        return _space(recorded)
    if not empty:
        raise DatabaseError(
            f"{db.path}'s vectors are from the {recorded!r} encoder, not {requested!r}: "
            f"run `chronomem reindex --encoder {requested}` to re-embed them"
        )
    space = _space(requested)
    with db.write() as conn:
        _record(conn, requested)
    return space


def _record(conn: Conn, name: str) -> None:
    conn.execute(
        """INSERT INTO chronomem_settings (key, value) VALUES (?, ?)
           ON CONFLICT (key) DO UPDATE SET value = excluded.value""",
        (SPACE_KEY, name),
    )


def reembed(db: Storage, name: str, progress: Progress | None = None) -> int:
    """Re-embed every item of the file (every owner) in space ``name``; returns how many
    vectors the file holds after. Resumable: run again after a kill, it goes on."""
    if name not in SPACE_NAMES:
        raise InvalidArgumentError("encoder", f"must be one of {', '.join(SPACE_NAMES)}")
    space = _space(name)
    if space is None:  # pragma: no cover  # _space raises rather than return None
        raise DatabaseError(f"no {name!r} encoder")
    with db.write() as conn:
        conn.execute(
            f"CREATE TABLE IF NOT EXISTS {_NEXT} "
            f"(item BIGINT PRIMARY KEY, vec {_blob(conn)} NOT NULL)"
        )
    total = _count(db)
    while True:
        with db.read() as conn:
            rows = _unembedded(conn, _BATCH)
        if not rows:
            break
        space.prime([text for _, text in rows])
        with db.write() as conn:
            _store(conn, space, rows)
            done = int(conn.execute(f"SELECT count(*) FROM {_NEXT}").fetchone()[0])
        if progress is not None:
            progress(done, max(total, done))
    with db.write() as conn:  # what was written since, then the swap: all at once
        rows = _unembedded(conn, None)
        space.prime([text for _, text in rows])
        _store(conn, space, rows)
        conn.execute("DELETE FROM chronomem_vectors")
        conn.execute(
            f"""INSERT INTO chronomem_vectors (item, vec)
                SELECT n.item, n.vec FROM {_NEXT} n
                JOIN chronomem_facts f ON f.rowid = n.item
                WHERE length(n.vec) > 0"""
        )
        conn.execute(f"DROP TABLE {_NEXT}")
        _record(conn, name)
        bump_epoch(conn)
        return int(conn.execute("SELECT count(*) FROM chronomem_vectors").fetchone()[0])


def _blob(conn: Conn) -> str:
    return "BLOB" if conn.dialect.commits_in_rowid_order else "bytea"


def _count(db: Storage) -> int:
    with db.read() as conn:
        row = conn.execute(
            "SELECT count(*) FROM chronomem_facts WHERE content != '' AND purged_at IS NULL"
        ).fetchone()
    return int(row[0])


def _unembedded(conn: Conn, limit: int | None) -> list[tuple[int, str]]:
    """Items with text and no vector in the new space yet, oldest first."""
    cap = "" if limit is None else f" LIMIT {int(limit)}"
    rows = conn.execute(
        f"""SELECT f.rowid, f.content FROM chronomem_facts f
            WHERE f.content != '' AND f.purged_at IS NULL
              AND NOT EXISTS (SELECT 1 FROM {_NEXT} n WHERE n.item = f.rowid)
            ORDER BY f.rowid{cap}"""
    ).fetchall()
    return [(int(rowid), str(text)) for rowid, text in rows]


def _store(conn: Conn, space: VectorSpace, rows: list[tuple[int, str]]) -> None:
    # An item with nothing to embed is stored empty, so it counts as done (and is left out
    # of the swap).
    pairs = [(rowid, space.vector(text) or b"") for rowid, text in rows]
    conn.executemany(f"INSERT INTO {_NEXT} (item, vec) VALUES (?, ?)", pairs)
