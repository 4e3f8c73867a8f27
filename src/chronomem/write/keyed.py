"""Writing a keyed fact: a put or a delete of (namespace, key), its fact and its row together.

A put of a new key remembers a fact and adds the key's row; of a key whose text changes, it
supersedes the key's fact (one lineage in ``timeline``) and points the row at the successor; of
a key whose text stays (the same after ``remember``'s normalisation: case, spacing, surrounding
punctuation), it changes the row alone, with no fact written, so none of a new fact's work
(entities, claim, postings, vector) is paid for text the memory already holds. The row is then
marked ``drifted``: its fact's metadata holds an older value. A put of the value the key holds
changes nothing but its time to live. With ``index_later`` (the LangGraph store's put alone in
its transaction) a new fact, of a new key or a changed text, is stored without its recall
index, which :mod:`chronomem.write.keyed_index` catches up before the index is next read.

Writers of one key are serialised on PostgreSQL by a transaction lock on it (sent with the
read of its row, one round trip), so two processes putting a new key at once make one fact
and one row, the second superseding the first; SQLite's writes are serial already.
See :mod:`chronomem.engine.keyed` for the tables.
"""

from __future__ import annotations

import json

from chronomem._checks import FactInput
from chronomem.engine import keyed as table
from chronomem.engine.dialect import Conn
from chronomem.engine.storage import Storage
from chronomem.text.sameness import content_key
from chronomem.write.facts import SystemClock, insert_fact, new_fact_id, prepare
from chronomem.write.keyed_index import insert_unindexed, unindexed_arguments
from chronomem.write.revise import forget_in, supersede_in, supersede_unindexed_in

__all__ = ["EXPIRED", "delete_keyed", "put_called", "put_keyed", "system_time_of"]

EXPIRED = table.KeyedRow("", "", "", "", 0, 0, None, None)
"""What a put returns, having written nothing, when its key holds an item expired by its
``now`` and not yet swept: that item's values are to be erased (a sweep), not superseded."""


def system_time_of(fact_id: str) -> int:
    """When a fact was written, read from its id (its first 14 hex digits: see
    :func:`chronomem.write.facts.new_fact_id`)."""
    return int(fact_id[:14], 16)


def _lock_key(owner: str, space: str, key: str) -> str:
    return "chronomem.keyed:" + json.dumps([owner, space, key])


def put_called(
    db: Storage,
    owner: str,
    space: str,
    key: str,
    value: str,
    data: FactInput,
    *,
    expires_at: int | None,
    ttl: float | None,
    now: int | None,
    clock: SystemClock,
) -> table.KeyedRow | None:
    """:func:`put_keyed` as one call of the server's ``chronomem_keyed_put`` (PostgreSQL, no
    batch open): a new key (its fact's row, listed for its index: see
    :mod:`chronomem.write.keyed_index`), its value again, or a value whose text is unchanged,
    in one round trip. ``None``, with nothing written: no such function here, or the text
    changed (the caller then supersedes in a transaction of statements)."""

    def arguments() -> list[object]:
        now = clock.now()
        fact = unindexed_arguments(data, new_fact_id(now), now, db)
        return [space, key, value, expires_at, ttl, now, _lock_key(owner, space, key), owner,
                *fact]  # fmt: skip

    row = db.call("chronomem_keyed_put", arguments)
    if row is None or row[0] == "changed":
        return None
    if row[0] == "expired":
        return EXPIRED
    _, fact_id, created_at, updated_at = row
    return table.KeyedRow(space, key, fact_id, value, created_at, updated_at, expires_at, ttl)


def _locked_row(
    conn: Conn, owner: str, space: str, key: str
) -> tuple[table.KeyedRow, str | None, bool] | None:
    """The key's row (expired or not), its fact's content key and whether it drifted, once
    this transaction holds the key (PostgreSQL)."""
    if conn.dialect.for_update:
        conn.execute(
            "SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", (_lock_key(owner, space, key),)
        )
    found = conn.execute(
        """SELECT k.space, k.key, k.fact_id, k.value, k.created_at, k.updated_at, k.expires_at,
                  k.ttl, f.content_key, k.drifted
           FROM chronomem_keyed k LEFT JOIN chronomem_facts f ON f.id = k.fact_id
           WHERE k.owner = ? AND k.space = ? AND k.key = ?""",
        (owner, space, key),
    ).fetchone()
    if found is None:
        return None
    return table.KeyedRow._make(found[:8]), found[8], bool(found[9])


def put_keyed(
    conn: Conn,
    owner: str,
    space: str,
    key: str,
    value: str,
    data: FactInput,
    *,
    expires_at: int | None,
    ttl: float | None,
    now: int | None,
    clock: SystemClock,
    index_later: bool = False,
) -> table.KeyedRow:
    """Put ``value`` (JSON text) under (space, key), ``data`` being its fact (see the module
    docstring; its entities, claim and terms are derived only if a fact is written; a new
    or changed key's new fact is indexed later with ``index_later``); returns the key's row as
    written."""
    later = index_later and data.entities is not None
    found = _locked_row(conn, owner, space, key)
    if found is None:
        now = clock.now()
        if later:
            fact_id = new_fact_id(now)
            insert_unindexed(conn, owner, data, fact_id=fact_id, system_time=now)
        else:
            fact_id = str(insert_fact(conn, owner, prepare(data), system_time=now))
        row = table.KeyedRow(space, key, fact_id, value, now, now, expires_at, ttl)
        table.insert_row(conn, owner, row)
        return row
    old, known, drifted = found
    if now is not None and old.expires_at is not None and old.expires_at <= now:
        return EXPIRED
    if old.value == value:
        row = old._replace(expires_at=expires_at, ttl=ttl)
        if row != old:
            table.update_row(conn, owner, row, drifted=drifted)
        return row
    if known == content_key(data.content):
        row = old._replace(value=value, updated_at=clock.now(), expires_at=expires_at, ttl=ttl)
        table.update_row(conn, owner, row, drifted=True)
        return row
    if later:
        fact_id = supersede_unindexed_in(conn, owner, old.fact_id, data, clock=clock)
    else:
        fact_id = str(supersede_in(conn, owner, old.fact_id, prepare(data), clock=clock))
    row = old._replace(
        fact_id=fact_id, value=value, updated_at=system_time_of(fact_id),
        expires_at=expires_at, ttl=ttl,
    )  # fmt: skip
    table.update_row(conn, owner, row, drifted=False)
    return row


def delete_keyed(
    conn: Conn, owner: str, space: str, key: str, reason: str | None, *, clock: SystemClock
) -> table.KeyedRow | None:
    """Forget the key's fact and remove its row; returns the row (``None``: no such key)."""
    found = _locked_row(conn, owner, space, key)
    if found is None:
        return None
    old = found[0]
    table.delete_rows(conn, owner, [(space, key)])
    active = conn.execute(
        "SELECT 1 FROM chronomem_facts WHERE id = ? AND invalidated_at IS NULL", (old.fact_id,)
    ).fetchone()
    if active is not None:
        forget_in(conn, owner, old.fact_id, reason, clock=clock)
    return old
