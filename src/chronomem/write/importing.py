"""Restoring exported facts and episodes: ids, all times and the supersession chain, exactly."""

from __future__ import annotations

from collections.abc import Callable

from chronomem._errors import InvalidFactError
from chronomem.engine.dialect import Conn
from chronomem.engine.storage import Storage
from chronomem.write.facts import insert_fact, prepare
from chronomem.write.imported import ImportedEpisode, ImportedFact, ImportedTombstone

__all__ = ["import_all", "import_records"]


def import_records(
    db: Storage,
    owner: str,
    records: list[ImportedFact | ImportedEpisode | ImportedTombstone],
    *,
    then: Callable[[Conn], object] | None = None,
) -> tuple[int, int]:
    """:func:`import_all` in a write transaction of its own (or the caller's batch), running
    ``then`` in it before it commits (chronica's sessions of the same file, restored with the
    facts); returns how many facts and how many episodes were inserted."""
    with db.write() as conn:
        inserted = import_all(conn, owner, records)
        if then is not None:
            then(conn)
        return inserted


def import_all(
    conn: Conn, owner: str, records: list[ImportedFact | ImportedEpisode | ImportedTombstone]
) -> tuple[int, int]:
    """Insert the records not yet present; checks lineage before the transaction commits.
    Returns how many facts and how many episodes were inserted (each kind counted apart, so
    a report never calls an episode a fact).

    Imports take one lock for their transaction first (on PostgreSQL an advisory lock; a
    SQLite write already holds the file's): two imports of one file at once would otherwise
    both find an id missing and both insert it, and one would fail on the unique id. After
    the lock, the second reads what the first committed and skips it, as documented. Ids
    are global, so the lock is too; imports are rare bulk writes and live writes never wait
    on it. The empty owner is no owner's (it is refused), so the key is no real session's.
    """
    conn.dialect.lock_session(conn, "", "chronomem.import")
    facts = episodes = 0
    for rec in records:
        row = conn.execute("SELECT owner FROM chronomem_facts WHERE id = ?", (rec.id,)).fetchone()
        if row is not None:
            if row[0] != owner:
                # Not "used by another owner": that would tell a caller which ids exist.
                raise InvalidFactError("id", f"{rec.id!r} cannot be imported")
            continue
        if isinstance(rec, (ImportedEpisode, ImportedTombstone)):
            rec.insert(conn, owner)
            if _is_fact(rec):
                facts += 1
            else:
                episodes += 1
            continue
        insert_fact(
            conn,
            owner,
            prepare(rec.data),
            system_time=rec.system_time,
            fact_id=rec.id,
            lineage=(
                rec.valid_until,
                rec.invalidated_at,
                rec.superseded_by,
                rec.forgotten,
                rec.forget_reason,
            ),
        )
        facts += 1
    lineage = [r.id for r in records if isinstance(r, ImportedFact) or _is_fact(r)]
    _check_lineage(conn, owner, lineage)
    return facts, episodes


def _is_fact(record: ImportedFact | ImportedEpisode | ImportedTombstone) -> bool:
    return isinstance(record, ImportedTombstone) and record.kind == "fact"


def _check_lineage(conn: Conn, owner: str, imported: list[str]) -> None:
    """Refuse a supersession chain no live write can make, inside the import's transaction.

    ``supersede`` closes one active fact with one new fact, so every successor is a stored
    fact of the same owner, has one predecessor, and every chain ends in a fact nothing
    superseded. A cycle would leave every member inactive: recall would return none of them.
    Self-supersession and ``valid_until`` before ``valid_from`` are refused when parsed.
    """
    bad = conn.execute(
        """SELECT f.superseded_by, g.kind FROM chronomem_facts f
           LEFT JOIN chronomem_facts g ON g.id = f.superseded_by AND g.owner = f.owner
           WHERE f.owner = ? AND f.superseded_by IS NOT NULL
             AND (g.id IS NULL OR g.kind = 'episode')
           LIMIT 1""",
        (owner,),
    ).fetchone()
    if bad is not None:
        what = "an episode" if bad[1] == "episode" else "unknown fact"
        raise InvalidFactError("superseded_by", f"refers to {what} {bad[0]!r}")
    shared = conn.execute(
        """SELECT superseded_by FROM chronomem_facts WHERE owner = ? AND superseded_by IS NOT NULL
           GROUP BY superseded_by HAVING count(*) > 1 LIMIT 1""",
        (owner,),
    ).fetchone()
    if shared is not None:
        raise InvalidFactError("superseded_by", f"{shared[0]!r} is named by two predecessors")
    _refuse_cycles(conn, owner, imported)


def _refuse_cycles(conn: Conn, owner: str, imported: list[str]) -> None:
    # Each fact has at most one successor and one predecessor by now, so a walk from an
    # imported fact either ends or comes back; a fact known to end a walk is never walked again.
    ends: set[str] = set()
    for start in imported:
        seen: set[str] = set()
        here: str | None = start
        while here is not None and here not in ends:
            if here in seen:
                raise InvalidFactError("superseded_by", f"{start!r} is in a supersession cycle")
            seen.add(here)
            row = conn.execute(
                "SELECT superseded_by FROM chronomem_facts WHERE id = ? AND owner = ?",
                (here, owner),
            ).fetchone()
            here = None if row is None else row[0]
        ends |= seen
