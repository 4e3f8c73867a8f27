"""Erasing for real: an item's content and everything derived from it leave the database.

``forget`` is soft on purpose (the audit trail an agent works with); a purge is an operator's
act. Purging an item removes its content, category, metadata, claim, source (a fact's; an
episode keeps its source, the id of the turn it came from, so indexing the session again does
not bring the turn back), speaker, entity links (and the entities no other fact names), its
lexical postings (with the document frequencies and corpus counters lowered by exactly what it
added, and the context columns of the turns after it indexed again without it) and its
semantic vector, and the days its text mentions (``chronomem_mentions``). What stays is a
tombstone: id, kind, times, lineage (``superseded_by``, an episode's session and place),
``purged_at`` and the reason, so supersede chains and session order stay whole. Erasing an
owner removes every row of the owner, tombstones included.

Records are purged a few per transaction (:data:`BATCH`), each whole inside one: a process
killed mid-way leaves every item either untouched or a tombstone, and running the same call
again finishes the work. On SQLite the connection runs with ``secure_delete`` (what is deleted
is overwritten with zeros, not left in free pages; it stays on for the connection, since a
purge is rare), the lexical index is rebuilt from the rows left (FTS5 keeps a deleted row's
terms in its old segments until a merge) and the write-ahead log checkpointed and emptied, so
no copy stays in the ``-wal`` file. On PostgreSQL deleted and updated rows stay on disk as
dead tuples until ``VACUUM`` (or, for the space, ``VACUUM FULL``) reclaims them; no query can
see them.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Iterator, Sequence
from datetime import timedelta
from typing import NamedTuple

from chronica import Chronicarius
from chronomem._checks import check_id, check_opt_text, check_text
from chronomem._errors import DatabaseError, InvalidArgumentError, UnknownIdError
from chronomem._model import MIN_US, Purged
from chronomem.engine import items as table
from chronomem.engine import keyed
from chronomem.engine.dialect import Conn
from chronomem.engine.storage import Storage
from chronomem.recall.semantic.vectors import bump_epoch
from chronomem.text.entities import entity_key
from chronomem.write.unindex import Unindexer
from chronomem.write.uses import forget_uses, unused_items, uses_since

__all__ = [
    "BATCH",
    "erase_all",
    "erase_owner",
    "erasing",
    "prune",
    "purge_batches",
    "purge_item",
    "purge_rows",
    "purge_session",
    "record_eraser",
]

BATCH = 50
"""Items purged per transaction by a prune or a session's purge."""


class _Item(NamedTuple):
    rowid: int
    kind: str
    session: str | None
    seq: int | None
    attr: str | None
    purged_at: int | None
    speaker: str | None


def _returned(conn: Conn, sql: str, params: Sequence[object]) -> int:
    """How many rows a ``... RETURNING 1`` statement touched (the cursor protocol has no
    rowcount both engines fill the same way)."""
    return len(conn.execute(sql, params).fetchall())


def _unlink_entities(conn: Conn, owner: str, rowid: int) -> tuple[int, int]:
    """Remove the fact's entity links, lower the co-occurrence weights it added, and delete
    the entities no fact names any more; returns (links, entities) removed."""
    ids = sorted(
        int(r[0])
        for r in conn.execute(
            "DELETE FROM chronomem_fact_entities WHERE fact_rowid = ? RETURNING entity_id",
            (rowid,),
        ).fetchall()
    )
    if not ids:
        return 0, 0
    pairs = list(itertools.permutations(ids, 2))
    conn.executemany(
        "UPDATE chronomem_entity_links SET weight = weight - 1.0 WHERE src = ? AND dst = ?", pairs
    )
    # Weights are whole counts of facts, so "below one half" is "zero" without float doubt.
    conn.executemany(
        "DELETE FROM chronomem_entity_links WHERE src = ? AND dst = ? AND weight < 0.5", pairs
    )
    among, params = conn.dialect.in_list("e.id", ids)
    orphans = [
        int(r[0])
        for r in conn.execute(
            f"""SELECT e.id FROM chronomem_entities e WHERE e.owner = ? AND {among}
                AND NOT EXISTS (SELECT 1 FROM chronomem_fact_entities fe
                                WHERE fe.entity_id = e.id) ORDER BY e.id""",
            (owner, *params),
        ).fetchall()
    ]
    if orphans:
        src, p1 = conn.dialect.in_list("src", orphans)
        dst, p2 = conn.dialect.in_list("dst", orphans)
        conn.execute(f"DELETE FROM chronomem_entity_links WHERE {src} OR {dst}", (*p1, *p2))
        among, params = conn.dialect.in_list("id", orphans)
        conn.execute(f"DELETE FROM chronomem_entities WHERE {among}", params)
    return len(ids), len(orphans)


_TOMBSTONE = """UPDATE chronomem_facts SET content = '', category = NULL, metadata = NULL,
    entities = '[]', terms = '', attr = NULL, value = NULL, forget_reason = NULL,
    content_key = NULL, mentions = NULL,
    source = CASE WHEN kind = 'episode' THEN source ELSE NULL END,
    speaker = CASE WHEN kind = 'episode' THEN '' ELSE NULL END,
    invalidated_at = coalesce(invalidated_at, ?), purged_at = ?, purge_reason = ?
    WHERE rowid = ?"""


def _purge_one(conn: Conn, index: Unindexer, item: _Item, reason: str | None, now: int) -> Purged:
    postings = index.remove(item.rowid, item.kind)
    if item.kind == "episode" and item.session is not None and item.seq is not None:
        index.refresh_followers(item.session, item.seq)
    vectors = _returned(
        conn, "DELETE FROM chronomem_vectors WHERE item = ? RETURNING 1", (item.rowid,)
    )
    if vectors:
        bump_epoch(conn)
    links, entities = _unlink_entities(conn, index.owner, item.rowid)
    # The days the item's text mentions (and its own time) were read from it: they go too.
    conn.execute("DELETE FROM chronomem_mentions WHERE item = ?", (item.rowid,))
    forget_uses(conn, [item.rowid])
    conn.execute(_TOMBSTONE, (now, now, reason, item.rowid))
    episode = item.kind == "episode"
    return Purged(
        facts=int(not episode), episodes=int(episode), entity_links=links, entities=entities,
        claims=int(item.attr is not None), postings=postings, vectors=vectors,
    )  # fmt: skip


def purge_rows(
    conn: Conn,
    owner: str,
    rowids: Sequence[int],
    reason: str | None,
    now: int,
    said: set[tuple[str, str]] | None = None,
) -> Purged:
    """Purge the owner's items ``rowids`` inside the caller's transaction (already purged
    ones are skipped). The sessions of episodes are locked first, in one order, then the
    rows, then the counters (see :mod:`chronomem.write.unindex`), as writers lock them.
    ``said``, if given, gains the (session, speaker) of every episode purged, for
    :func:`forget_speakers`."""
    if not rowids:
        return Purged()
    among, params = conn.dialect.in_list("rowid", list(rowids))
    where = f"FROM chronomem_facts WHERE owner = ? AND {among}"
    # The kind is tested here, not in the query: given "kind = 'episode'", PostgreSQL's
    # planner read the rowids through the index of episodes in a session, every episode of
    # the owner (4,004 rows to purge one fact of 12,000 items, 4 now), not through the key.
    found = conn.execute(f"SELECT DISTINCT session, kind {where}", (owner, *params)).fetchall()
    sessions = {session for session, kind in found if kind == "episode"}
    for session in sorted(sessions):
        conn.dialect.lock_session(conn, owner, session)
    items = [
        _Item._make(r)
        for r in conn.execute(
            f"""SELECT rowid, kind, session, seq, attr, purged_at, speaker {where}
                ORDER BY rowid DESC{conn.dialect.for_update}""",
            (owner, *params),
        ).fetchall()
    ]
    # A key whose current value is purged leaves the keyed table, value and all.
    keyed.forget_fact_rows(conn, owner, [i.rowid for i in items if i.purged_at is None])
    index = Unindexer(conn, owner)
    total = Purged()
    # Newest first: a session's later turns are tombstones by the time their earlier ones go,
    # so each purged turn re-indexes only the live turns after it.
    for item in items:
        if item.purged_at is None:
            total += _purge_one(conn, index, item, reason, now)
            if said is not None and item.session is not None and item.speaker:
                said.add((item.session, item.speaker))
    index.flush()
    return total


def forget_speakers(conn: Conn, owner: str, said: set[tuple[str, str]] | None) -> None:
    """Drop the speaker keys (names) of the purged turns ``said`` that no live episode has
    any more: no other key can have lost its last turn. ``None``: every key of the owner is
    checked, for a call that purged nothing (run again after a process was killed between
    its last batch and this step).

    A name with a live turn left in the same session keeps its key, found through the
    session's index; only when some name has none are all the owner's live speakers read,
    since another spelling of the name (``ana``, ``Ana``) keeps the key too."""
    if said is None:
        keys = {key for (key,) in conn.execute(
            "SELECT key FROM chronomem_speakers WHERE owner = ?", (owner,)
        ).fetchall()}  # fmt: skip
    else:
        keys = {key for _, speaker in said if (key := entity_key(speaker))}
        keys -= {entity_key(name) for session, name in said if _speaks(conn, owner, session, name)}
    if not keys:
        return
    live = {
        entity_key(str(s))
        for (s,) in conn.execute(
            """SELECT DISTINCT speaker FROM chronomem_facts WHERE owner = ?
               AND kind = 'episode' AND purged_at IS NULL""",
            (owner,),
        ).fetchall()
    }
    stale = [(owner, key) for key in sorted(keys - live)]
    conn.executemany("DELETE FROM chronomem_speakers WHERE owner = ? AND key = ?", stale)


def _speaks(conn: Conn, owner: str, session: str, speaker: str) -> bool:
    """Whether ``speaker`` has a turn in ``session`` that is not purged."""
    row = conn.execute(
        """SELECT 1 FROM chronomem_facts WHERE owner = ? AND session = ? AND kind = 'episode'
           AND purged_at IS NULL AND speaker = ? LIMIT 1""",
        (owner, session, speaker),
    ).fetchone()
    return row is not None


def purge_batches(
    db: Storage,
    owner: str,
    select: Callable[[Conn, int], list[int]],
    reason: str | None,
    now: Callable[[], int],
) -> Purged:
    """Purge, :data:`BATCH` items per transaction, the items ``select(conn, before)`` names
    (rowids below ``before``, newest first, not yet purged), until it names none."""
    total = Purged()
    before = 2**62
    said: set[tuple[str, str]] = set()
    while True:
        with db.write() as conn:
            rowids = select(conn, before)
            if not rowids:
                break
            total += purge_rows(conn, owner, rowids, reason, now(), said)
        before = min(rowids)
    purged = total != Purged()
    if purged and not said:
        return total  # facts only: every speaker's turns are as they were
    with db.write() as conn:
        # Nothing purged: perhaps the call run again after a kill before this step, which
        # then checks every key.
        forget_speakers(conn, owner, said if purged else None)
    return total


def erase_owner(conn: Conn, owner: str) -> Purged:
    """Delete every row of the owner in every chronomem table (inside the caller's
    transaction); returns the counts."""
    mine = "(SELECT rowid FROM chronomem_facts WHERE owner = ?)"
    facts, episodes, claims = (
        int(n or 0)
        for n in conn.execute(
            """SELECT count(*) FILTER (WHERE kind = 'fact'),
                      count(*) FILTER (WHERE kind = 'episode'),
                      count(*) FILTER (WHERE attr IS NOT NULL)
               FROM chronomem_facts WHERE owner = ?""",
            (owner,),
        ).fetchone()
    )
    postings = sum(
        len({t for c in row for t in str(c).split()})
        for row in conn.execute(
            f"SELECT body, ctx1, ctx2 FROM chronomem_lex WHERE rowid IN {mine}", (owner,)
        )
    )
    if conn.dialect.for_update:  # PostgreSQL: the postings are rows of their own
        conn.execute("DELETE FROM chronomem_postings WHERE owner = ?", (owner,))
    conn.execute(f"DELETE FROM chronomem_lex WHERE rowid IN {mine}", (owner,))
    conn.execute(f"DELETE FROM chronomem_used WHERE item IN {mine}", (owner,))
    vectors = _returned(
        conn, f"DELETE FROM chronomem_vectors WHERE item IN {mine} RETURNING 1", (owner,)
    )
    if vectors:
        bump_epoch(conn)
    links = _returned(
        conn, f"DELETE FROM chronomem_fact_entities WHERE fact_rowid IN {mine} RETURNING 1",
        (owner,),
    )  # fmt: skip
    conn.execute(
        """DELETE FROM chronomem_entity_links
           WHERE src IN (SELECT id FROM chronomem_entities WHERE owner = ?)""",
        (owner,),
    )
    entities = _returned(
        conn, "DELETE FROM chronomem_entities WHERE owner = ? RETURNING 1", (owner,)
    )
    tables = (
        "chronomem_mentions",
        "chronomem_term_stats",
        "chronomem_corpus",
        "chronomem_speakers",
    )
    conn.dialect.settle(conn)  # SQLite's journaled counts join the stored ones, all deleted
    for counters in tables:
        conn.execute(f"DELETE FROM {counters} WHERE owner = ?", (owner,))
    keyed.erase_owner_rows(conn, owner)
    conn.execute("DELETE FROM chronomem_facts WHERE owner = ?", (owner,))
    return Purged(facts, episodes, links, entities, claims, postings, vectors)


@contextlib.contextmanager
def erasing(db: Storage) -> Iterator[None]:
    """Run a purge so that, on SQLite, its bytes leave the file and the log (see the module's
    docstring); a no-op wrapper on PostgreSQL. The caller has made sure no batch is open:
    the log can only be emptied once every transaction of the connection has ended."""
    from chronica.stores.sqlite import empty_log
    from chronomem.engine.sqlite.db import Database

    if not isinstance(db, Database):
        yield
        return
    with db.lock:
        db.conn.execute("PRAGMA secure_delete = ON")
    yield
    with db.write() as conn:
        # FTS5 keeps a deleted row's terms in its older segments until they are merged, so
        # the index is written again from the rows left. 'rebuild', not 'optimize': on
        # SQLite 3.40 'optimize' (and 'merge') after deletes corrupts the index once a
        # term's list grows past a few thousand rows ("database disk image is malformed":
        # 2,883 facts of one word, a purge after each other write). Rebuilding reads only
        # the stored rows and costs about 1.6 times as much (0.27 s against 0.17 s at 50,000
        # rows); it also mends an index an earlier 'optimize' broke.
        conn.execute("INSERT INTO chronomem_lex (chronomem_lex) VALUES ('rebuild')")
    with db.lock:
        emptied = empty_log(db.conn)
    if not emptied:
        raise DatabaseError(
            f"{db.path}: purged, but a reader kept the write-ahead log from being emptied, so "
            "old copies may remain in it: close other readers and run the purge again (it "
            "removes nothing more, and empties the log)"
        )


Clock = Callable[[], int]


def _reason(reason: object) -> str | None:
    return check_opt_text("reason", reason, max_bytes=2048)


def purge_item(db: Storage, owner: str, item_id: object, reason: object, now: Clock) -> Purged:
    """``ChronoMem.purge``: the owner's item ``item_id`` (an unknown id, or another owner's,
    is :class:`UnknownIdError` and nothing is written)."""
    fid, why = check_id(item_id), _reason(reason)
    with db.read() as conn:
        found = conn.execute(
            "SELECT rowid FROM chronomem_facts WHERE id = ? AND owner = ?", (fid, owner)
        ).fetchone()
    if found is None:
        raise UnknownIdError(fid)
    rowid = int(found[0])
    with erasing(db):
        return purge_batches(
            db, owner, lambda conn, before: [rowid] if rowid < before else [], why, now
        )


RecordEraser = Callable[[str], int]
"""Erases a session's record (chronica's chronicum of that id); returns how many chronica
went (0 or 1)."""


def record_eraser(chronicarius: Chronicarius | None, owner: str) -> RecordEraser | None:
    """What ``purge_session(..., chronicarius=...)`` erases of the session's record: the
    chronicum of ``owner`` (validated by chronica's own rules) and its acta."""
    if chronicarius is None:
        return None
    if not isinstance(chronicarius, Chronicarius):
        raise InvalidArgumentError("chronicarius", "must be a chronica.Chronicarius")
    # Checked before anything is purged (chronica's own rules still have the last word).
    check_text("owner", owner, max_bytes=1024)
    return lambda session: chronicarius.erase_chronicum(owner, session).chronica


def purge_session(
    db: Storage,
    owner: str,
    session: object,
    reason: object,
    now: Clock,
    *,
    record: RecordEraser | None = None,
) -> Purged:
    """``ChronoMem.purge_session``: a session of none of the owner's episodes is refused
    (with ``record``, one with neither episodes nor a record). The episodes go first, then
    the record: killed between, the call run again finds the tombstones, purges nothing
    more, and erases the record."""
    name, why = check_text("session", session, max_bytes=1024), _reason(reason)
    with db.read() as conn:
        known = table.has_session(conn, owner, name)
    if not known and record is None:
        raise InvalidArgumentError("session", f"{name!r} has no episodes of this owner")
    purged = Purged()
    if known:
        with erasing(db):
            purged = purge_batches(
                db, owner,
                lambda conn, before: table.session_rowids(conn, owner, name, before, BATCH),
                why, now,
            )  # fmt: skip
    if record is not None and not record(name) and not known:
        raise InvalidArgumentError("session", f"{name!r} has no episodes nor record of this owner")
    return purged


def prune(
    db: Storage,
    owner: str,
    now: Clock,
    *,
    episodes_older_than: object = None,
    unused_for: object = None,
    first: Callable[[], object] = lambda: None,
) -> Purged:
    """``ChronoMem.prune``: the owner's episodes said more than ``episodes_older_than`` ago,
    then its items (facts and episodes) not recalled for ``unused_for``; at least one given,
    both checked before anything is written, ``first`` (the memory's buffered uses written)
    called next."""
    said = (
        None
        if episodes_older_than is None
        else _cutoff("episodes_older_than", episodes_older_than, now())
    )
    idle = None if unused_for is None else _cutoff("unused_for", unused_for, now())
    if said is None and idle is None:
        raise InvalidArgumentError("episodes_older_than", "or unused_for must be given")
    first()
    total = Purged()
    with erasing(db):
        if said is not None:
            why = f"retention: episodes older than {episodes_older_than}"
            total += purge_batches(
                db, owner,
                lambda conn, before: table.old_episodes(conn, owner, said, before, BATCH),
                why, now,
            )  # fmt: skip
        if idle is not None:
            with db.read() as conn:
                since = uses_since(conn)
            why = f"retention: not recalled for {unused_for}"
            total += purge_batches(
                db, owner,
                lambda conn, before: unused_items(conn, owner, idle, since, before, BATCH),
                why, now,
            )  # fmt: skip
    return total


def _cutoff(field: str, age: object, now: int) -> int:
    """``now`` less the positive timedelta ``age`` (epoch µs), or :class:`InvalidArgumentError`
    naming ``field``."""
    if not isinstance(age, timedelta) or age <= timedelta(0):
        raise InvalidArgumentError(field, "must be a positive timedelta")
    cutoff = now - age // timedelta(microseconds=1)
    if cutoff < MIN_US:
        # Past year 1 the cutoff is no storable time (``timedelta.max`` would not even fit a
        # 64-bit column: a raw OverflowError from the driver); no item can be that old.
        raise InvalidArgumentError(field, f"reaches before year 1 (at most {_longest(now)} days)")
    return cutoff


def _longest(now: int) -> int:
    """The most whole days a retention age may span, counted back from ``now``."""
    return (now - MIN_US) // (86_400 * 1_000_000)


def erase_all(db: Storage, owner: str) -> Purged:
    """``ChronoMem.erase_owner``: every row of the owner, in one transaction."""
    with erasing(db), db.write() as conn:
        return erase_owner(conn, owner)
