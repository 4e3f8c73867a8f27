"""Storing one fact: its row, its FTS entry, its entities and their co-occurrence links.

Everything here runs inside the caller's ``BEGIN IMMEDIATE`` transaction, so a fact and all of
its index entries appear together or not at all.
"""

from __future__ import annotations

import itertools
import json
import os
import sqlite3
import threading
import time
from dataclasses import dataclass

from ._contradictions import conflicting_ids, parse_claim
from ._entities import entity_key, extract_entities
from ._lexindex import index_document
from ._model import FactId
from ._tokens import terms
from ._validate import FactInput

__all__ = ["Prepared", "SystemClock", "insert_fact", "new_fact_id", "prepare"]


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


def prepare(data: FactInput) -> Prepared:
    """Extract entities (unless the caller named them), Jaccard terms and the claim."""
    caller_named = data.entities is not None
    raw = data.entities if data.entities is not None else tuple(extract_entities(data.content))
    names: list[str] = []
    keys: list[str] = []
    for name in raw:
        key = entity_key(name)
        if key and key not in keys:
            names.append(name.strip())
            keys.append(key)
    return Prepared(
        data=data,
        names=tuple(names),
        keys=tuple(keys),
        caller_named=caller_named,
        terms=" ".join(sorted(set(terms(data.content)))),
        claim=parse_claim(data.content, names, data.category),
    )


def _entity_ids(conn: sqlite3.Connection, owner: str, p: Prepared) -> list[int]:
    """Ids of the fact's entities, creating new ones; a caller's spelling renames an entity.

    Known entities are looked up, not upserted: an upsert rewrites the row (and dirties its
    page in the WAL) even when nothing changes, which serial writes pay for on every commit.
    """
    ids = []
    for name, key in zip(p.names, p.keys, strict=True):
        row = conn.execute(
            "SELECT id, name FROM chronomem_entities WHERE owner = ? AND key = ?", (owner, key)
        ).fetchone()
        if row is None:
            cur = conn.execute(
                "INSERT INTO chronomem_entities (owner, key, name) VALUES (?, ?, ?)",
                (owner, key, name),
            )
            assert cur.lastrowid is not None  # always set after a one-row INSERT
            ids.append(cur.lastrowid)
            continue
        if p.caller_named and row[1] != name:
            conn.execute("UPDATE chronomem_entities SET name = ? WHERE id = ?", (name, row[0]))
        ids.append(int(row[0]))
    return ids


def insert_fact(
    conn: sqlite3.Connection,
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
    """Insert the fact and its index entries; returns its id with the facts it contradicts."""
    fid = fact_id or new_fact_id(system_time)
    entity_ids = _entity_ids(conn, owner, p)
    contradicts = conflicting_ids(
        conn, owner=owner, category=p.data.category, claim=p.claim, entity_ids=entity_ids
    )
    d = p.data
    valid_until, invalidated_at, superseded_by, forgotten, reason = lineage
    attr, value = p.claim if p.claim else (None, None)
    cur = conn.execute(
        """INSERT INTO chronomem_facts (id, owner, content, category, trust, confidence, source,
               metadata, entities, terms, attr, value, system_time, valid_from, valid_until,
               invalidated_at, superseded_by, forgotten, forget_reason)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
        (
            fid, owner, d.content, d.category, d.trust, d.confidence, d.source, d.metadata,
            json.dumps(p.names, ensure_ascii=False), p.terms, attr, value, system_time,
            d.valid_from if d.valid_from is not None else system_time,
            valid_until, invalidated_at, superseded_by, int(forgotten), reason,
        ),
    )  # fmt: skip
    rowid = cur.lastrowid
    assert rowid is not None  # always set after a one-row INSERT
    index_document(conn, owner, "fact", rowid, d.content)
    conn.executemany(
        "INSERT INTO chronomem_fact_entities (entity_id, fact_rowid) VALUES (?, ?)",
        [(e, rowid) for e in entity_ids],
    )
    if len(entity_ids) > 1:
        conn.executemany(
            """INSERT INTO chronomem_entity_links (src, dst, weight) VALUES (?, ?, 1.0)
               ON CONFLICT (src, dst) DO UPDATE SET weight = weight + 1.0""",
            list(itertools.permutations(entity_ids, 2)),
        )
    return FactId(fid, contradicts)
