"""Restoring exported facts and episodes: ids, all times and the supersession chain, exactly."""

from __future__ import annotations

from chronomem._errors import InvalidFactError
from chronomem._records import ImportedFact
from chronomem.engine.dialect import Conn
from chronomem.write.episodes import ImportedEpisode
from chronomem.write.facts import insert_fact, prepare

__all__ = ["import_all"]


def import_all(conn: Conn, owner: str, records: list[ImportedFact | ImportedEpisode]) -> int:
    """Insert the records not yet present; checks lineage before the transaction commits."""
    inserted = 0
    for rec in records:
        row = conn.execute("SELECT owner FROM chronomem_facts WHERE id = ?", (rec.id,)).fetchone()
        if row is not None:
            if row[0] != owner:
                # Not "used by another owner": that would tell a caller which ids exist.
                raise InvalidFactError("id", f"{rec.id!r} cannot be imported")
            continue
        if isinstance(rec, ImportedEpisode):
            rec.insert(conn, owner)
            inserted += 1
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
        inserted += 1
    dangling = conn.execute(
        """SELECT f.superseded_by FROM chronomem_facts f WHERE f.owner = ?
           AND f.superseded_by IS NOT NULL AND NOT EXISTS
           (SELECT 1 FROM chronomem_facts g WHERE g.id = f.superseded_by AND g.owner = ?)
           LIMIT 1""",
        (owner, owner),
    ).fetchone()
    if dangling is not None:
        raise InvalidFactError("superseded_by", f"refers to unknown fact {dangling[0]!r}")
    return inserted
