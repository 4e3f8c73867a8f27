"""Storing one fact: its row, its FTS entry, its entities and their co-occurrence links.

The statements here run inside one write transaction (the caller's, or the one
:func:`remember_fact` opens), so a fact and all of its index entries appear together or not
at all. On PostgreSQL a ``remember`` outside a batch runs the same statements on the server,
as one call of its ``chronomem_remember`` (see :func:`remember_fact`).
"""

from __future__ import annotations

import itertools
import json
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from chronomem._checks import FactInput
from chronomem._model import FactId
from chronomem.claims.contradictions import (
    conflicting_ids,
    conflicts_among,
    conflicts_of_keys,
    parse_claim,
)
from chronomem.engine.dialect import Conn, distinct_terms
from chronomem.engine.storage import Storage
from chronomem.recall.lexindex import (
    document_columns,
    fact_fields,
    index_document,
    weighted_length,
)
from chronomem.recall.semantic.vectors import store_vector, vector_of
from chronomem.text.entities import entity_key, extract_entities
from chronomem.text.sameness import content_key
from chronomem.text.tokens import terms
from chronomem.write.time_index import index_times

__all__ = [
    "Prepared",
    "SystemClock",
    "backfill_content_keys",
    "entity_names",
    "find_duplicate",
    "index_stored",
    "insert_fact",
    "new_fact_id",
    "prepare",
    "remember_arguments",
    "remember_fact",
]


class SystemClock:
    """Epoch microseconds, strictly increasing within the process (ties broken by +1 µs)."""

    def __init__(self) -> None:
        self._last = 0
        self._lock = threading.Lock()

    def now(self) -> int:
        """The next system time."""
        with self._lock:
            self._last = max(time.time_ns() // 1000, self._last + 1)
            return self._last


def new_fact_id(system_time: int) -> str:
    """32 hex digits: the system time (µs) then 72 random bits.

    Time-ordered ids keep the unique index append-mostly: random ids would dirty a random
    leaf page per write, which at 100,000+ facts dominates the cost of a durable commit.
    """
    return f"{system_time:014x}{os.urandom(9).hex()}"


@dataclass(frozen=True)
class Prepared:
    """Everything derived from a fact's text before the transaction starts (no I/O)."""

    data: FactInput
    names: tuple[str, ...]
    keys: tuple[str, ...]
    caller_named: bool
    terms: str
    claim: tuple[str, str] | None
    content_key: str


def entity_names(data: FactInput) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The fact's entities (the caller's, else those its text names), one per key: their
    names as stored and their keys."""
    raw = data.entities if data.entities is not None else tuple(extract_entities(data.content))
    names: list[str] = []
    keys: list[str] = []
    for name in raw:
        key = entity_key(name)
        if key and key not in keys:
            names.append(name.strip())
            keys.append(key)
    return tuple(names), tuple(keys)


def prepare(data: FactInput) -> Prepared:
    """Extract entities (unless the caller named them), Jaccard terms and the claim."""
    names, keys = entity_names(data)
    return Prepared(
        data=data,
        names=names,
        keys=keys,
        caller_named=data.entities is not None,
        terms=" ".join(sorted(set(terms(data.content)))),
        claim=parse_claim(data.content, names, data.category),
        content_key=content_key(data.content),
    )


def _entity_ids(conn: Conn, owner: str, p: Prepared) -> list[int]:
    """Ids of the fact's entities, creating new ones; a caller's spelling renames an entity.

    Entities are visited in key order, so concurrent writers (on PostgreSQL) lock them in one
    order and never wait on each other in a cycle.
    """
    keyed = sorted(zip(p.keys, p.names, strict=True))
    found = conn.dialect.entities(conn, owner, keyed) if keyed else {}
    if p.caller_named:
        for key, name in keyed:
            entity_id, stored = found[key]
            if stored != name:
                conn.execute(
                    "UPDATE chronomem_entities SET name = ? WHERE id = ?", (name, entity_id)
                )
    return [found[key][0] for key in p.keys]


def insert_fact(
    conn: Conn,
    owner: str,
    p: Prepared,
    *,
    system_time: int,
    fact_id: str | None = None,
    lineage: tuple[int | None, int | None, str | None, bool, str | None] = (
        None,
        None,
        None,
        False,
        None,
    ),
) -> FactId:
    """Insert the fact and its index entries; returns its id with the facts it contradicts.

    Ordered for as few waits on a server as the data allow (PostgreSQL pipelines every
    statement whose rows are not read at once): the fact's row, the check for contradicted
    facts (by the entities' keys) and its entities are sent together and read back together,
    and the index entries follow unread, so nothing more is waited for before COMMIT. The check
    finds the same facts after the insert as before it: the new fact holds the very value it
    compares against, which the check's ``value != ?`` leaves out. On SQLite, whose cursors
    read lazily, the check reads the stored rows last, by the entities' ids.
    """
    row = _insert_row(conn, owner, p, system_time, fact_id or new_fact_id(system_time), lineage)
    return _index_row(conn, owner, p, row)


def index_stored(conn: Conn, owner: str, p: Prepared, *, rowid: int, fact_id: str, at: int) -> None:
    """Index a fact whose row and vector are stored already without the rest (a keyed
    put's: see :mod:`chronomem.write.keyed_index`): its terms and claim in its row, its
    entities and their links, and its index entries, as :func:`insert_fact` writes them with
    the row. ``at`` is when it became valid."""
    attr, value = p.claim if p.claim else (None, None)
    conn.execute(
        "UPDATE chronomem_facts SET entities = ?, terms = ?, attr = ?, value = ? WHERE rowid = ?",
        (json.dumps(p.names, ensure_ascii=False), p.terms, attr, value, rowid),
    )
    sent = None
    if conn.dialect.pipelined:
        sent = conflicts_of_keys(
            conn, owner=owner, category=p.data.category, claim=p.claim, entity_keys=p.keys
        )
    row = _Row(fact_id, rowid, at, _entity_ids(conn, owner, p), sent)
    _index_row(conn, owner, p, row, vector=False)


def remember_fact(
    db: Storage, owner: str, p: Prepared, *, dedup: bool, clock: SystemClock
) -> FactId:
    """What ``remember`` stores and returns: ``p`` as a new fact, or, with ``dedup``, the
    owner's active fact that already says it (see :func:`find_duplicate`, :func:`known_fact`).

    Where the engine keeps chronomem's functions (PostgreSQL) and this thread has no batch
    open, all of it is one call of the server's ``chronomem_remember`` (see version 9 in
    engine/postgres/schema.py): one round trip, its own transaction. Elsewhere it is the
    statements below, in a write transaction of the caller's batch or of its own. A batch
    keeps the statements because they hold the counters back to its end, one statement for
    the whole batch (engine/postgres/held.py), where the function writes its own: called
    in a batch of many facts, it would update a common word's counter row once per fact in
    one transaction, the cost that made importing 8,000 episodes take 62 s.
    """
    called = _remember_called(db, owner, p, dedup=dedup, clock=clock)
    if called is not None:
        return called
    with db.write() as conn:
        return _remember_in(conn, owner, p, dedup=dedup, clock=clock)


def _remember_called(
    db: Storage, owner: str, p: Prepared, *, dedup: bool, clock: SystemClock
) -> FactId | None:
    """:func:`remember_fact` as one call of the server's function, or ``None`` (nothing
    done) where the engine has none or a batch is open."""
    made: list[str] = []  # the new fact's id, once the call is made

    def arguments() -> list[object]:
        now = clock.now()
        made.append(new_fact_id(now))
        return remember_arguments(db, owner, p, made[0], now, dedup=dedup)

    row = db.call("chronomem_remember", arguments)
    if row is None:
        return None
    duplicate_of, ids, values = row
    contradicts = conflicts_among(p.claim, zip(ids or (), values or (), strict=True))
    if duplicate_of is not None:
        return FactId(duplicate_of, contradicts, duplicate_of=duplicate_of)
    return FactId(made[0], contradicts)


def remember_arguments(
    db: Storage, owner: str, p: Prepared, fid: str, system_time: int, *, dedup: bool
) -> list[object]:
    """``chronomem_remember``'s arguments, in its order: what :func:`_insert_row` and
    :func:`_index_row` would send as statements, derived by the same functions."""
    d = p.data
    attr, value = p.claim if p.claim else (None, None)
    keyed = sorted(zip(p.keys, p.names, strict=True))  # in key order, as _entity_ids
    columns = document_columns(d.content, fact_fields(d.category, d.metadata))
    return [
        owner, fid, d.content, d.category, d.trust, d.confidence, d.source, d.metadata,
        json.dumps(p.names, ensure_ascii=False), p.terms, attr, value, system_time,
        d.valid_from if d.valid_from is not None else system_time, p.content_key,
        _content_lock(owner, p) if dedup else None,
        [key for key, _ in keyed], [name for _, name in keyed], p.caller_named,
        columns[0], columns[1], distinct_terms(columns),
        weighted_length(columns), vector_of(d.content, db),
    ]  # fmt: skip


def _remember_in(conn: Conn, owner: str, p: Prepared, *, dedup: bool, clock: SystemClock) -> FactId:
    """:func:`remember_fact` as statements inside the caller's write transaction.

    On PostgreSQL (inside a batch) the new fact's row and entities go out with the
    duplicate probe, before its answer, inside a savepoint that a duplicate rolls back: a
    new fact then waits for the server twice (the probe with the row, the check and the
    entities; COMMIT), not three times. SQLite, with no server to wait for, probes first.
    """
    if not dedup:
        return insert_fact(conn, owner, p, system_time=clock.now())
    if not conn.dialect.pipelined:
        same = find_duplicate(conn, owner, p)
        if same is not None:
            return known_fact(conn, owner, p, same)
        return insert_fact(conn, owner, p, system_time=clock.now())
    probe = _probe(conn, owner, p)
    conn.execute("SAVEPOINT chronomem_unless_duplicate")
    now = clock.now()
    row = _insert_row(conn, owner, p, now, new_fact_id(now), _NO_LINEAGE)  # one wait, for all
    same = probe()
    if same is not None:
        conn.execute("ROLLBACK TO SAVEPOINT chronomem_unless_duplicate")
        return known_fact(conn, owner, p, same)
    return _index_row(conn, owner, p, row)


_NO_LINEAGE: tuple[int | None, int | None, str | None, bool, str | None] = (
    None, None, None, False, None,
)  # fmt: skip


@dataclass(frozen=True)
class _Row:
    """A fact's row as inserted, read back with its entities, before its index entries."""

    fid: str
    rowid: int
    at: int
    """When it became valid (epoch µs)."""
    entity_ids: list[int]
    conflicts: Callable[[], tuple[str, ...]] | None
    """The contradiction check sent with the row (PostgreSQL), read when called."""


def _insert_row(
    conn: Conn,
    owner: str,
    p: Prepared,
    system_time: int,
    fid: str,
    lineage: tuple[int | None, int | None, str | None, bool, str | None],
) -> _Row:
    d = p.data
    valid_until, invalidated_at, superseded_by, forgotten, reason = lineage
    attr, value = p.claim if p.claim else (None, None)
    at = d.valid_from if d.valid_from is not None else system_time
    cur = conn.execute(
        """INSERT INTO chronomem_facts (id, owner, content, category, trust, confidence, source,
               metadata, entities, terms, attr, value, system_time, valid_from, valid_until,
               invalidated_at, superseded_by, forgotten, forget_reason, content_key)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING rowid""",
        (
            fid, owner, d.content, d.category, d.trust, d.confidence, d.source, d.metadata,
            json.dumps(p.names, ensure_ascii=False), p.terms, attr, value, system_time, at,
            valid_until, invalidated_at, superseded_by, int(forgotten), reason,
            p.content_key,
        ),
    )  # fmt: skip
    sent = None
    if conn.dialect.pipelined:
        sent = conflicts_of_keys(
            conn, owner=owner, category=d.category, claim=p.claim, entity_keys=p.keys
        )
    entity_ids = _entity_ids(conn, owner, p)
    return _Row(fid, int(cur.fetchone()[0]), at, entity_ids, sent)


def _index_row(conn: Conn, owner: str, p: Prepared, row: _Row, *, vector: bool = True) -> FactId:
    rowid, entity_ids = row.rowid, row.entity_ids
    index_document(
        conn, owner, "fact", rowid, p.data.content, fact_fields(p.data.category, p.data.metadata)
    )
    if vector:
        store_vector(conn, rowid, p.data.content)
    index_times(conn, owner, rowid, row.at, ())
    conn.executemany(
        "INSERT INTO chronomem_fact_entities (entity_id, fact_rowid) VALUES (?, ?)",
        [(e, rowid) for e in entity_ids],
    )
    if len(entity_ids) > 1:
        conn.executemany(
            """INSERT INTO chronomem_entity_links (src, dst, weight) VALUES (?, ?, 1.0)
               ON CONFLICT (src, dst) DO UPDATE SET weight = chronomem_entity_links.weight + 1.0""",
            # In one order for every writer (see _entity_ids).
            list(itertools.permutations(sorted(entity_ids), 2)),
        )
    contradicts = (
        row.conflicts()
        if row.conflicts is not None
        else conflicting_ids(
            conn, owner=owner, category=p.data.category, claim=p.claim, entity_ids=entity_ids
        )
    )
    return FactId(row.fid, contradicts)


def find_duplicate(conn: Conn, owner: str, p: Prepared) -> str | None:
    """The id of the owner's active fact of the same category whose content is ``p``'s after
    normalisation (see :mod:`chronomem.text.sameness`), or ``None``: one index probe.

    On PostgreSQL two writers of the same new text could both find nothing and both insert,
    so the check holds a transaction lock on (owner, key) until commit; the second writer
    then sees the first one's fact. SQLite's writes are serial already.
    """
    return _probe(conn, owner, p)()


def _probe(conn: Conn, owner: str, p: Prepared) -> Callable[[], str | None]:
    """:func:`find_duplicate`, sent now and read when called."""
    if conn.dialect.for_update:  # an engine with concurrent writers
        # Not read back: the server runs the probe below only once it holds the lock, so
        # the two travel in one round trip (with the write's BEGIN).
        conn.execute(
            "SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", (_content_lock(owner, p),)
        )
    cur = conn.execute(
        f"""SELECT id FROM chronomem_facts
            WHERE owner = ? AND content_key = ? AND kind = 'fact' AND invalidated_at IS NULL
            AND category {conn.dialect.null_safe_equal} ?
            ORDER BY rowid LIMIT 1""",
        (owner, p.content_key, p.data.category),
    )

    def read() -> str | None:
        row = cur.fetchone()
        return None if row is None else str(row[0])

    return read


def _content_lock(owner: str, p: Prepared) -> str:
    """The key of the advisory lock a duplicate check holds on PostgreSQL (see
    :func:`find_duplicate`)."""
    return "chronomem.content:" + json.dumps([owner, p.content_key])


def known_fact(conn: Conn, owner: str, p: Prepared, fact_id: str) -> FactId:
    """What ``remember`` returns for a duplicate: the existing fact's id, marked as such,
    with the active facts it contradicts (a repeat must not hide a conflict the first write
    reported)."""
    rows = conn.execute(
        """SELECT fe.entity_id FROM chronomem_fact_entities fe
           JOIN chronomem_facts f ON f.rowid = fe.fact_rowid WHERE f.id = ?""",
        (fact_id,),
    ).fetchall()
    contradicts = conflicting_ids(
        conn, owner=owner, category=p.data.category, claim=p.claim,
        entity_ids=[int(r[0]) for r in rows],
    )  # fmt: skip
    return FactId(fact_id, contradicts, duplicate_of=fact_id)


def backfill_content_keys(conn: Conn, batch: int = 2000) -> int:
    """Give every fact stored before ``content_key`` existed its key (the schema step that
    adds the column runs this), ``batch`` rows at a time; returns how many were keyed."""
    keyed, after = 0, 0
    while True:
        rows = conn.execute(
            """SELECT rowid, content FROM chronomem_facts
               WHERE rowid > ? AND kind = 'fact' AND content_key IS NULL
               ORDER BY rowid LIMIT ?""",
            (after, batch),
        ).fetchall()
        if not rows:
            return keyed
        conn.executemany(
            "UPDATE chronomem_facts SET content_key = ? WHERE rowid = ?",
            [(content_key(str(content)), int(rowid)) for rowid, content in rows],
        )
        keyed += len(rows)
        after = int(rows[-1][0])
