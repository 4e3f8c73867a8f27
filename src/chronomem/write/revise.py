"""Revising what the memory holds: a fact superseded by a new one, an item forgotten.

Both change an active item's state in one transaction and keep it in the record (lineage,
``timeline``, exports); neither erases (that is :mod:`.purge`). The arguments were checked by
``ChronoMem`` before these run.
"""

from __future__ import annotations

from chronomem._checks import FactInput
from chronomem._errors import (
    FactNotActiveError,
    FactNotFoundError,
    InvalidArgumentError,
    InvalidFactError,
    UnknownIdError,
)
from chronomem._model import FactId
from chronomem.engine import items as table
from chronomem.engine import keyed
from chronomem.engine.dialect import Conn
from chronomem.engine.storage import Storage
from chronomem.text.sameness import content_key
from chronomem.write.facts import Prepared, SystemClock, insert_fact, new_fact_id
from chronomem.write.keyed_index import insert_unindexed
from chronomem.write.unindex import forget_from_context

__all__ = ["forget_in", "forget_item", "supersede_fact", "supersede_in", "supersede_unindexed_in"]


def supersede_fact(
    db: Storage, owner: str, old_id: str, p: Prepared, *, clock: SystemClock
) -> FactId:
    """End the active fact ``old_id`` at ``p``'s start and store ``p`` as its successor.

    New content that is the old fact's own (after the normalisation of ``remember``'s
    duplicate check) is refused, and so is a start before the old fact's: a supersede says
    the belief changed, from a later time.
    """
    with db.write() as conn:
        # A keyed fact superseded from outside its keyed face leaves its key (the successor
        # is a fact of its own, not a value put under the key).
        keyed.forget_fact_ids(conn, owner, [old_id])
        return supersede_in(conn, owner, old_id, p, clock=clock)


def supersede_in(conn: Conn, owner: str, old_id: str, p: Prepared, *, clock: SystemClock) -> FactId:
    """:func:`supersede_fact` inside the caller's write transaction."""
    new_id, now = _end(conn, owner, old_id, p.data, p.content_key, clock)
    return insert_fact(conn, owner, p, system_time=now, fact_id=new_id)


def supersede_unindexed_in(
    conn: Conn, owner: str, old_id: str, data: FactInput, *, clock: SystemClock
) -> str:
    """:func:`supersede_in` whose successor is stored without its recall index, listed for
    the catch-up (a keyed put's: see :mod:`chronomem.write.keyed_index`); its id."""
    new_id, now = _end(conn, owner, old_id, data, content_key(data.content), clock)
    insert_unindexed(conn, owner, data, fact_id=new_id, system_time=now)
    return new_id


def _end(
    conn: Conn, owner: str, old_id: str, data: FactInput, key: str, clock: SystemClock
) -> tuple[str, int]:
    """End the active fact ``old_id``'s belief for a successor saying ``data``: the
    successor's id and system time."""
    active = _active(conn, owner, old_id, superseding=True)
    if active.content_key == key:
        raise InvalidFactError("content", f"is what {old_id!r} already says (after normalisation)")
    now = clock.now()
    start = data.valid_from if data.valid_from is not None else now
    if start < active.valid_from:
        raise InvalidFactError("valid_from", "is earlier than the superseded fact's")
    new_id = new_fact_id(now)
    table.end_belief(conn, active.rowid, until=start, now=now, successor=new_id)
    return new_id, now


def forget_item(
    db: Storage, owner: str, item_id: str, reason: str | None, *, clock: SystemClock
) -> None:
    """Mark the active fact or episode ``item_id`` forgotten: it leaves recall (and, for an
    episode, the context of the turns after it) and stays in the record."""
    with db.write() as conn:
        keyed.forget_fact_ids(conn, owner, [item_id])  # a forgotten value leaves its key
        forget_in(conn, owner, item_id, reason, clock=clock)


def forget_in(
    conn: Conn, owner: str, item_id: str, reason: str | None, *, clock: SystemClock
) -> None:
    """:func:`forget_item` inside the caller's write transaction."""
    _lock_its_session(conn, owner, item_id)
    active = _active(conn, owner, item_id)
    table.mark_forgotten(conn, active.rowid, reason=reason, now=clock.now())
    if active.kind == "episode":
        forget_from_context(conn, owner, active.rowid)


def _lock_its_session(conn: Conn, owner: str, item_id: str) -> None:
    """An episode's session lock, taken before its row's, in the order an append and a purge
    take them: forgetting a turn re-indexes the two after it, which a purge in the session
    re-indexes too, and with the lock taken later the two deadlocked on PostgreSQL (the
    purge-and-forget test in tests/chronomem/engine/test_concurrency.py). A session never
    changes, so it is read before the lock. SQLite's write lock serialises every writer."""
    if not conn.dialect.for_update:
        return
    row = conn.execute(
        "SELECT session FROM chronomem_facts WHERE id = ? AND owner = ? AND kind = 'episode'",
        (item_id, owner),
    ).fetchone()
    if row is not None:
        conn.dialect.lock_session(conn, owner, str(row[0]))


def _active(conn: Conn, owner: str, item_id: str, *, superseding: bool = False) -> table.ActiveRow:
    row = table.active_row(conn, owner, item_id)
    if row is None:
        # Only a fact can be superseded; forget takes either kind, so its unknown id is
        # neither.
        raise FactNotFoundError(item_id) if superseding else UnknownIdError(item_id)
    if superseding and row.kind == "episode":
        raise InvalidArgumentError(
            "old_id", f"{item_id!r} is an episode; episodes are never superseded"
        )
    if row.invalidated_at is not None:
        state = "purged" if row.purged else "forgotten" if row.forgotten else "superseded"
        raise FactNotActiveError(item_id, state, row.kind)
    return row
