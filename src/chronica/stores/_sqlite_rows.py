"""The SQL statements and row codecs of :class:`chronica.stores.sqlite.SQLiteStore`.

Every statement names the owner with the chronicum: chronica are keyed by
``(owner_id, chronicum_id)`` (see :mod:`chronica.store`), so no query can reach another
owner's rows by passing the same chronicum ID.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

from chronica._frozen import frozen_metadata, json_text, load_metadata
from chronica._model import ACTUM_DIRECT, ACTUM_SETTERS, ActorKind, Actum, ActumKind, Chronicum
from chronica._model import build_actum as _actum

__all__ = [
    "ALL_CHRONICA",
    "BY_KEY",
    "CHRONICUM",
    "CHRONICUM_NUM",
    "COLUMNS",
    "CREATE",
    "INSERT",
    "INSERT_AT",
    "INSERT_ONCE",
    "LAST_IDS",
    "NEXT",
    "RESTORE",
    "actum_params",
    "actum_row",
    "row_actum",
    "row_chronicum",
    "rows_acta",
    "stamped",
    "utc_text",
    "window_sql",
]

COLUMNS = "id, kind, actor_kind, actor, content, metadata, at"

# An actum's rowid is its chronicum's number shifted up, plus its seq (see POSITION_BITS in
# _sqlite_schema): a chronicum's acta are the rowids from FIRST to LAST of its number.
NUM = "(SELECT num FROM chronica_chronica WHERE owner_id = ?1 AND id = ?2)"
FIRST = "(c.num << 32)"
LAST = "((c.num << 32) + 4294967295)"
_OF = "FROM chronica_chronica AS c, chronica_acta AS a WHERE c.owner_id = ?1 AND c.id = ?2"
_RANGE = f"a.pos BETWEEN {FIRST} AND {LAST}"

# One statement an actum: the next position comes from the rowid range of the chronicum the
# owner's (owner, id) names, read inside the write transaction (a statement outside BEGIN
# takes the write lock first). VALUES rather than INSERT ... SELECT: selecting from the table
# being written makes SQLite stage rows in a temporary table. A missing chronicum leaves the
# number NULL, which fails NOT NULL: the store reports it as not found.
INSERT = f"""
    INSERT INTO chronica_acta (pos, chronicum, {COLUMNS}, idempotency_key)
    VALUES ((SELECT coalesce((SELECT max(a.pos) FROM chronica_acta AS a WHERE {_RANGE}),
                             {FIRST}) + 1
             FROM chronica_chronica AS c WHERE c.owner_id = ?1 AND c.id = ?2),
            {NUM}, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
"""
# A keyed append that stores nothing when the key is taken (the caller then reads the first
# actum back): a fresh key, the common case, costs one statement instead of a lookup and an
# insert. Only the key's index is a DO NOTHING target; a duplicate actum ID still fails.
INSERT_ONCE = (
    INSERT
    + """ ON CONFLICT (chronicum, idempotency_key)
    WHERE idempotency_key IS NOT NULL DO NOTHING"""
)
# A batch reads its chronicum's number and last position once (NEXT), inside its write
# transaction, then inserts every actum at the position that follows (INSERT_AT): no
# subquery per row. No conflict clause: a key taken before (a retry) fails the unique index,
# and the store retries the batch one actum at a time, where each keyed insert skips it.
NEXT = f"""
    SELECT c.num, coalesce((SELECT max(a.pos) FROM chronica_acta AS a WHERE {_RANGE}), {FIRST})
    FROM chronica_chronica AS c WHERE c.owner_id = ?1 AND c.id = ?2
"""
INSERT_AT = (
    f"INSERT INTO chronica_acta (pos, chronicum, {COLUMNS}, idempotency_key) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
# A restored actum at the position its restore gave it: (pos, chronicum, COLUMNS).
RESTORE = f"INSERT INTO chronica_acta (pos, chronicum, {COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?)"
BY_KEY = f"SELECT {COLUMNS} FROM chronica_acta WHERE chronicum = {NUM} AND idempotency_key = ?3"
# The newest first, walking the chronicum's rowid range back from its end; LIMIT -1: no limit.
LAST_IDS = f"SELECT a.id {_OF} AND {_RANGE} ORDER BY a.pos DESC LIMIT ?3"
CHRONICUM = "SELECT id, owner_id, created_at FROM chronica_chronica WHERE owner_id = ? AND id = ?"
CHRONICUM_NUM = "SELECT num FROM chronica_chronica WHERE owner_id = ? AND id = ?"
CREATE = "INSERT OR IGNORE INTO chronica_chronica (owner_id, id, created_at) VALUES (?, ?, ?)"
ALL_CHRONICA = "SELECT id, owner_id, created_at FROM chronica_chronica ORDER BY num"


def _window_sql(n_kinds: int, n_actors: int) -> str:
    where = _RANGE
    if n_kinds:
        where += f" AND a.kind IN ({', '.join('?' * n_kinds)})"
    if n_actors:
        where += f" AND a.actor_kind IN ({', '.join('?' * n_actors)})"
    # Newest first with a LIMIT walks the chronicum's rowid range backwards from its end, so
    # a window costs the same however long the chronicum is. LIMIT -1 means no limit.
    columns = ", ".join(f"a.{name}" for name in COLUMNS.split(", "))
    return f"SELECT {columns} {_OF} AND {where} ORDER BY a.pos DESC LIMIT ?"


_WINDOWS = {
    (k, a): _window_sql(k, a) for k in range(len(ActumKind) + 1) for a in range(len(ActorKind) + 1)
}


def window_sql(n_kinds: int, n_actors: int) -> str:
    """The window query for that many kind and actor-kind filter values (built once)."""
    return _WINDOWS[n_kinds, n_actors]


# --- rows <-> records --------------------------------------------------------------------

_ACTUM_KINDS = {kind.value: kind for kind in ActumKind}
# Built once: json.dumps with options builds an encoder per call (shared by threads safely).
_encode_json = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
_ACTOR_KINDS = {kind.value: kind for kind in ActorKind}
# Each kind's text, looked up rather than read through the enum's ``value`` descriptor.
_KIND_TEXT = {kind: kind.value for kind in ActumKind}
_ACTOR_KIND_TEXT = {kind: kind.value for kind in ActorKind}


def utc_text(moment: datetime) -> str:
    """``moment`` as fixed-width ISO 8601 UTC text (sortable, exact to the microsecond)."""
    if moment.tzinfo is not timezone.utc:
        moment = moment.astimezone(timezone.utc)
    return moment.isoformat(timespec="microseconds")


def row_actum(chronicum_id: str, row: tuple[Any, ...]) -> Actum:
    """Build an actum from a row selected as ``COLUMNS``."""
    actum_id, kind, actor_kind, actor, content, metadata, at = row
    return _actum(
        chronicum_id,
        _ACTUM_KINDS[kind],
        _ACTOR_KINDS[actor_kind],
        actor,
        content,
        load_metadata(metadata),
        actum_id,
        datetime.fromisoformat(at),
    )


def rows_acta(chronicum_id: str, rows: Sequence[tuple[Any, ...]]) -> list[Actum]:
    """Build acta from rows selected newest first, returning them oldest first.

    The window's hot loop, so ``row_actum`` is inlined here, with its lookups in locals.
    """
    if not ACTUM_DIRECT:
        return [row_actum(chronicum_id, row) for row in reversed(rows)]
    kinds, actor_kinds, new, parse, load = (
        _ACTUM_KINDS,
        _ACTOR_KINDS,
        object.__new__,
        datetime.fromisoformat,
        load_metadata,
    )
    set_chronicum_id, set_kind, set_actor_kind, set_actor, set_content, set_meta, set_id, set_at = (
        ACTUM_SETTERS
    )
    acta = []
    for actum_id, kind, actor_kind, actor, content, metadata, at in reversed(rows):
        actum = new(Actum)
        set_chronicum_id(actum, chronicum_id)
        set_kind(actum, kinds[kind])
        set_actor_kind(actum, actor_kinds[actor_kind])
        set_actor(actum, actor)
        set_content(actum, content)
        set_meta(actum, load(metadata))
        set_id(actum, actum_id)
        set_at(actum, parse(at))
        acta.append(actum)
    return acta


def row_chronicum(row: tuple[Any, ...]) -> Chronicum:
    """Build a chronicum from ``(id, owner_id, created_at)``."""
    return Chronicum(id=row[0], owner_id=row[1], created_at=datetime.fromisoformat(row[2]))


def actum_params(owner_id: str, actum: Actum, at: datetime, key: str | None) -> tuple[Any, ...]:
    """Parameters for ``INSERT``: the owner and chronicum, then ``COLUMNS``, then the key."""
    return actum_row(owner_id, actum, utc_text(at), key)


def actum_row(owner_id: str, actum: Actum, at_text: str, key: str | None) -> tuple[Any, ...]:
    """:func:`actum_params` with ``at`` already as text (one text serves a whole batch)."""
    metadata = actum.metadata
    return (
        owner_id,
        actum.chronicum_id,
        actum.id,
        _KIND_TEXT[actum.kind],
        _ACTOR_KIND_TEXT[actum.actor_kind],
        actum.actor,
        actum.content,
        (json_text(metadata) or _encode_json(metadata)) if metadata else "{}",
        at_text,
        key,
    )


def stamped(actum: Actum, at: datetime) -> Actum:
    """``actum`` with ``at`` set and its metadata frozen, as returned by a write."""
    return _actum(
        actum.chronicum_id,
        actum.kind,
        actum.actor_kind,
        actum.actor,
        actum.content,
        frozen_metadata(actum.metadata),
        actum.id,
        at,
    )
