"""Keyed facts stored at once and indexed for recall a moment later: a put's row, the catch-up.

A put of a key's new value alone in its transaction (:mod:`chronomem.write.keyed`) stores the
fact's row, all that a read of the fact returns and the content key the next put compares, and
lists the fact in ``chronomem_unindexed``, with its vector (each process's copy of the vectors
reads the rows above the highest it holds, so a vector is written in its fact's transaction, in
the order of the facts). The rest of its recall index (entities and their links, claim, Jaccard
terms, lexical postings and term statistics, time index) cost more than the whole put of the
store it replaces (LangGraph's ``SqliteStore`` writes one row), so
:func:`catch_up` writes it: every listed fact, a few hundred per transaction, each as
:func:`chronomem.write.facts.insert_fact` indexes one. The memory runs it before it reads the
index (recall, timeline, entity names, contradictions, stats) and before a purge or a
re-embedding (``ChronoMem._unbatched``), so no read of the index misses a fact put before it;
a memory opened read-only cannot write the index and does not see a listed fact until a writer
catches up (a closed writer leaves none listed).

Crash safety: the list's row is written in the put's transaction and deleted in the
catch-up's, so a killed process leaves a fact indexed or listed, never neither. A purge or an
owner's erasure takes a listed fact off the list in its own transaction
(:func:`chronomem.engine.keyed.forget_fact_rows`): it has no index entries to take out.
"""

from __future__ import annotations

import json

from chronomem._checks import FactInput
from chronomem.engine import keyed as table
from chronomem.engine.dialect import Conn
from chronomem.engine.storage import Storage
from chronomem.recall.semantic.vectors import vector_of
from chronomem.text.sameness import content_key
from chronomem.write.facts import entity_names, index_stored, prepare

__all__ = ["catch_up", "insert_unindexed", "unindexed_arguments"]

_BATCH = 500
"""Listed facts indexed per transaction (a catch-up holds the write lock no longer than that)."""


def unindexed_arguments(
    data: FactInput, fact_id: str, system_time: int, carrier: object
) -> list[object]:
    """The fact's row as ``chronomem_keyed_put`` (PostgreSQL) takes it, after the owner:
    id, content, category, trust, confidence, source, metadata, entities, system time,
    content key and vector (in the space of ``carrier``, the storage)."""
    names, _ = entity_names(data)
    return [
        fact_id, data.content, data.category, data.trust, data.confidence, data.source,
        data.metadata, json.dumps(names, ensure_ascii=False), system_time,
        content_key(data.content), vector_of(data.content, carrier),
    ]  # fmt: skip


def insert_unindexed(
    conn: Conn, owner: str, data: FactInput, *, fact_id: str, system_time: int
) -> None:
    """Store the fact's row without its index, listed for :func:`catch_up` (inside the
    caller's transaction). ``data`` names its entities (a put's always do)."""
    assert data.entities is not None  # what a keyed put passes
    assert data.valid_from is None
    fid, content, category, trust, confidence, source, metadata, names, at, key, vector = (
        unindexed_arguments(data, fact_id, system_time, conn)
    )
    rowid = conn.execute(
        """INSERT INTO chronomem_facts (id, owner, content, category, trust, confidence, source,
               metadata, entities, terms, system_time, valid_from, forgotten, content_key)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, '', ?, ?, 0, ?) RETURNING rowid""",
        (fid, owner, content, category, trust, confidence, source, metadata, names, at, at, key),
    ).fetchone()[0]
    if vector is not None:
        conn.execute("INSERT INTO chronomem_vectors (item, vec) VALUES (?, ?)", (rowid, vector))
    table.mark_unindexed(conn, owner, int(rowid))


def catch_up(db: Storage) -> int:
    """Index every listed fact (of every owner: the list is the file's); returns how many.
    Nothing is written, and one probe read, when none is listed."""
    with db.statement() as conn:
        if not table.unindexed_any(conn):
            return 0
    done = 0
    while True:
        with db.write() as conn:
            listed = table.unindexed(conn, _BATCH)
            if not listed:
                return done
            _index_listed(conn, listed)
        done += len(listed)


def _index_listed(conn: Conn, listed: list[tuple[int, str]]) -> None:
    rowids = [rowid for rowid, _ in listed]
    among, params = conn.dialect.in_list("rowid", rowids)
    rows = conn.execute(
        f"""SELECT rowid, id, content, category, trust, confidence, source, metadata, entities,
                   valid_from
            FROM chronomem_facts WHERE {among} AND purged_at IS NULL ORDER BY rowid""",
        tuple(params),
    ).fetchall()
    owners = dict(listed)
    for rowid, fid, content, category, trust, confidence, source, metadata, names, at in rows:
        data = FactInput(
            content=str(content), category=category, trust=float(trust),
            confidence=float(confidence), valid_from=None, entities=tuple(json.loads(names)),
            source=source, metadata=metadata,
        )  # fmt: skip
        owner = owners[int(rowid)]
        index_stored(conn, owner, prepare(data), rowid=int(rowid), fact_id=str(fid), at=int(at))
    gone, gone_params = conn.dialect.in_list("item", rowids)
    conn.execute(f"DELETE FROM chronomem_unindexed WHERE {gone}", tuple(gone_params))
