"""The data steps of schema migrations: stored rows read again by today's code.

The engine runs each version's DDL and, where a version needs it, calls :func:`upgrade_data`
with the step it has reached (:class:`~chronomem.engine.upgrades.DataStep`), inside the
migration's transaction. The steps live here, above the engine, because they re-run the write
path (index, key, embed, read claims) that imports the engine. Every step can run again over
its own work: a test ages a memory by its version number and opens it again.
"""

from __future__ import annotations

from chronomem.claims.contradictions import reparse_claims
from chronomem.engine.dialect import Conn
from chronomem.engine.upgrades import DataStep
from chronomem.recall.lexindex import fact_fields, index_document, reindex
from chronomem.recall.semantic.vectors import backfill
from chronomem.text.entities import entity_key
from chronomem.write.episodes import fill_mentions
from chronomem.write.facts import backfill_content_keys
from chronomem.write.unindex import Unindexer

__all__ = ["index_fact_fields", "rekey_entities", "renumber_positions", "upgrade_data"]


def upgrade_data(step: DataStep, conn: Conn) -> None:
    """Carry out ``step`` on the migration's connection (the engine's ``DataUpgrade``)."""
    if step is DataStep.INDEX_FIRST_FACTS:
        _index_first_facts(conn)
    elif step is DataStep.REKEY_ENTITIES:
        rekey_entities(conn)
        _rekey_speakers(conn)
        reparse_claims(conn)  # after the rekey: a claim names its subject by entity key
    elif step is DataStep.REINDEX:
        reindex(conn)
    elif step is DataStep.BACKFILL_VECTORS:
        backfill(conn)
    elif step is DataStep.BACKFILL_CONTENT_KEYS:
        backfill_content_keys(conn)
    elif step is DataStep.FILL_MENTIONS:
        fill_mentions(conn)
    elif step is DataStep.RENUMBER_POSITIONS:
        renumber_positions(conn)
    elif step is DataStep.INDEX_FACT_FIELDS:
        index_fact_fields(conn)
    else:  # pragma: no cover  # a step named in the engine and not carried out here
        raise AssertionError(f"no data step for {step}")


def _index_first_facts(conn: Conn) -> None:
    """Move every version-1 fact into the lexical index that version 2 made."""
    for rowid, owner, content in conn.execute(
        "SELECT rowid, owner, content FROM chronomem_facts ORDER BY rowid"
    ).fetchall():
        index_document(conn, owner, "fact", rowid, content)


def index_fact_fields(conn: Conn) -> int:
    """Index again every fact that has a category or metadata, now with those as words of
    their own (``lexindex.fact_fields``); returns how many. Episodes and facts without
    fields index as they did, so they are left alone."""
    rows = conn.execute(
        """SELECT rowid, owner, content, category, metadata FROM chronomem_facts
           WHERE kind = 'fact' AND purged_at IS NULL
             AND (category IS NOT NULL OR metadata IS NOT NULL)
           ORDER BY owner, rowid"""
    ).fetchall()
    done = 0
    for owner in sorted({row[1] for row in rows}):
        mine = [row for row in rows if row[1] == owner]
        index = Unindexer(conn, owner)
        for rowid, *_ in mine:
            index.remove(rowid, "fact")
        index.flush()
        for rowid, _, content, category, metadata in mine:
            fields = fact_fields(category, metadata)
            index_document(conn, owner, "fact", rowid, content, fields)
            done += 1
    return done


def _rekey_speakers(conn: Conn) -> None:
    """Key every episode's speaker again, as entities are keyed."""
    speakers = conn.execute(
        """SELECT DISTINCT owner, speaker FROM chronomem_facts
           WHERE kind = 'episode' AND speaker IS NOT NULL"""
    ).fetchall()
    conn.execute("DELETE FROM chronomem_speakers")
    conn.executemany(
        "INSERT OR IGNORE INTO chronomem_speakers (owner, key) VALUES (?, ?)",
        [(owner, key) for owner, speaker in speakers if (key := entity_key(speaker))],
    )


def rekey_entities(conn: Conn) -> int:
    """Recompute every stored entity key after :func:`entity_key` changed; returns rows changed.

    For a schema migration, inside its write transaction. A key was always ``entity_key`` of
    the entity's name, so the name gives the new key. Entities whose new keys coincide (one
    owner's ``ThinkPad T14`` and ``ThinkPad-T14``) merge into the oldest: its facts gain the
    others' links, and co-occurrence weights are recounted from the facts for the survivors.
    """
    rows = conn.execute("SELECT id, owner, key, name FROM chronomem_entities ORDER BY id")
    keeper: dict[tuple[str, str], int] = {}
    merges: list[tuple[int, int]] = []
    renames: list[tuple[str, int]] = []
    for entity_id, owner, key, name in rows.fetchall():
        new = entity_key(name) or key  # a name that folds to nothing keeps the key it has
        survivor = keeper.setdefault((owner, new), entity_id)
        if survivor != entity_id:
            merges.append((entity_id, survivor))
        elif new != key:
            renames.append((new, entity_id))
    for gone, survivor in merges:
        conn.execute(
            """INSERT OR IGNORE INTO chronomem_fact_entities (entity_id, fact_rowid)
               SELECT ?, fact_rowid FROM chronomem_fact_entities WHERE entity_id = ?""",
            (survivor, gone),
        )
        conn.execute("DELETE FROM chronomem_fact_entities WHERE entity_id = ?", (gone,))
        conn.execute("DELETE FROM chronomem_entity_links WHERE src = ? OR dst = ?", (gone, gone))
        conn.execute("DELETE FROM chronomem_entities WHERE id = ?", (gone,))
    _recount_links(conn, sorted({survivor for _, survivor in merges}))
    # Two steps, so a new key that another row still holds for a moment never trips UNIQUE.
    conn.executemany(
        "UPDATE chronomem_entities SET key = ? WHERE id = ?",
        [(f"\x00{entity_id}", entity_id) for _, entity_id in renames],
    )
    conn.executemany("UPDATE chronomem_entities SET key = ? WHERE id = ?", renames)
    return len(merges) + len(renames)


def _recount_links(conn: Conn, entity_ids: list[int]) -> None:
    """Set each link of these entities to the number of facts naming both ends."""
    for entity_id in entity_ids:
        conn.execute(
            "DELETE FROM chronomem_entity_links WHERE src = ? OR dst = ?", (entity_id, entity_id)
        )
        conn.execute(
            """INSERT INTO chronomem_entity_links (src, dst, weight)
               SELECT a.entity_id, b.entity_id, count(*) FROM chronomem_fact_entities a
               JOIN chronomem_fact_entities b
                 ON b.fact_rowid = a.fact_rowid AND b.entity_id != a.entity_id
               WHERE a.entity_id = ? OR b.entity_id = ?
               GROUP BY a.entity_id, b.entity_id""",
            (entity_id, entity_id),
        )


# A session whose positions are anything but 1..n: two turns sharing one, or one skipped.
_MISNUMBERED = """
SELECT owner, session FROM chronomem_facts WHERE kind = 'episode'
GROUP BY owner, session
HAVING count(seq) != count(*) OR count(DISTINCT seq) != count(*)
    OR min(seq) != 1 OR max(seq) != count(*)
ORDER BY owner, session
"""


def renumber_positions(conn: Conn) -> int:
    """Give the turns of every misnumbered session positions 1..n; returns how many moved.

    The order kept is the one a reader saw: by position, then the turn written first (system
    time, then rowid, so the result never depends on how SQLite happens to scan). A moved
    turn may have new neighbours, so the session is indexed again with its turns' context as
    ``remember_episode`` would build it now.
    """
    moved = 0
    for owner, session in conn.execute(_MISNUMBERED).fetchall():
        turns = conn.execute(
            """SELECT rowid, seq FROM chronomem_facts
               WHERE owner = ? AND session = ? AND kind = 'episode'
               ORDER BY seq, system_time, rowid""",
            (owner, session),
        ).fetchall()
        changes = [(i, rowid) for i, (rowid, seq) in enumerate(turns, 1) if seq != i]
        conn.executemany("UPDATE chronomem_facts SET seq = ? WHERE rowid = ?", changes)
        _index_session_again(conn, owner, session)
        moved += len(changes)
    return moved


def _index_session_again(conn: Conn, owner: str, session: str) -> None:
    """Take the session's turns out of the lexical index, counters included, and index them
    again in their new order; a purged turn stays out and reads as empty, as when purged."""
    turns = conn.execute(
        """SELECT rowid, content, forgotten, purged_at FROM chronomem_facts
           WHERE owner = ? AND session = ? AND kind = 'episode' ORDER BY seq""",
        (owner, session),
    ).fetchall()
    index = Unindexer(conn, owner)
    for rowid, *_ in turns:
        index.remove(rowid, "episode")
    index.flush()
    previous: list[str] = []  # the stored bodies of the turns so far, oldest first
    for rowid, content, forgotten, purged_at in turns:
        if purged_at is not None:
            previous.append("")
            continue
        body = index_document(conn, owner, "episode", rowid, content, previous[::-1][:2])
        previous.append("" if forgotten else body)
