"""Load a filled SQLite memory into a PostgreSQL schema with COPY (benchmark fills only).

Filling a million facts through ``remember`` takes the better part of an hour on a small
machine, and the fill is not what the engines matrix measures. So the PostgreSQL copy of a
filled file is loaded table by table with ``COPY``: row for row what chronomem's write path
stored in SQLite (every table and column: facts, lexical columns, entities, semantic vectors,
time mentions; a table it does not know fails the copy), plus the postings and counters that
its PostgreSQL dialect keeps (derived from the same stored terms; all counters in shard 0), so
both engines answer from the same data. The schema is created by ``ChronoMem``
itself first, so the tables, indexes and version are the real ones.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg

from chronomem import ChronoMem

__all__ = ["copy_into_postgres"]

_FACT_COLUMNS = (
    "rowid, id, owner, content, category, trust, confidence, source, metadata, entities, "
    "terms, attr, value, system_time, valid_from, valid_until, invalidated_at, superseded_by, "
    "forgotten, forget_reason, kind, speaker, session, seq, mentions, content_key, purged_at, "
    "purge_reason"
)
_KEYED_COLUMNS = (
    "owner, space, key, fact_id, value, created_at, updated_at, expires_at, ttl, drifted"
)
_PLAIN = {
    "chronomem_facts": (_FACT_COLUMNS, _FACT_COLUMNS),
    "chronomem_lex": ("rowid, body, ctx1, ctx2", "rowid, body, ctx1, ctx2"),
    "chronomem_corpus": ("owner, kind, 0, items, length", "owner, kind, shard, items, length"),
    "chronomem_speakers": ("owner, key", "owner, key"),
    "chronomem_entities": ("id, owner, key, name", "id, owner, key, name"),
    "chronomem_fact_entities": ("entity_id, fact_rowid", "entity_id, fact_rowid"),
    "chronomem_entity_links": ("src, dst, weight", "src, dst, weight"),
    "chronomem_vectors": ("item, vec", "item, vec"),
    "chronomem_mentions": ("owner, at, item", "owner, at, item"),
    "chronomem_settings": ("key, value", "key, value"),
    "chronomem_used": ("item, at", "item, at"),
    "chronomem_keyed": (_KEYED_COLUMNS, _KEYED_COLUMNS),
    "chronomem_keyed_spaces": ("owner, space, items", "owner, space, items"),
    "chronomem_unindexed": ("item, owner", "item, owner"),
}


def _postings(source: sqlite3.Connection) -> Iterator[tuple[str, str, int]]:
    rows = source.execute(
        """SELECT f.owner, l.rowid, l.body, l.ctx1, l.ctx2 FROM chronomem_lex l
           JOIN chronomem_facts f ON f.rowid = l.rowid ORDER BY l.rowid"""
    )
    for owner, rowid, *columns in rows:
        for term in sorted({t for c in columns for t in c.split()}):
            yield owner, term, rowid


def _term_stats(source: sqlite3.Connection) -> Iterator[tuple[str, str, int, int]]:
    """Each owner's document frequencies: the stored counts plus the journal's (see
    engine/sqlite/frequencies.py), all in shard 0."""
    dfs: Counter[tuple[str, str]] = Counter()
    for owner, term, df in source.execute("SELECT owner, term, df FROM chronomem_term_stats"):
        dfs[(owner, term)] += df
    for owner, terms in source.execute("SELECT owner, terms FROM chronomem_term_journal"):
        dfs.update((owner, t) for t in terms.split())
    for (owner, term), df in sorted(dfs.items()):
        yield owner, term, 0, df


# chronomem's SQLite tables that hold nothing a copy needs as they are: the schema's version
# (PostgreSQL's is made by ChronoMem), FTS5's own shadow tables (the postings are derived from
# ``chronomem_lex``); the counts are copied with the journal's added (see ``_term_stats``).
_NOT_COPIED = {"chronomem_schema", "chronomem_term_stats", "chronomem_term_journal"}
_FTS_SHADOWS = ("chronomem_lex_",)


def _check_covered(source: sqlite3.Connection) -> None:
    """Refuse a file holding a table (or a facts column) this copy would leave behind."""
    tables = {
        name
        for (name,) in source.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        if name.startswith("chronomem_") and not name.startswith(_FTS_SHADOWS)
    }
    missing = tables - set(_PLAIN) - _NOT_COPIED
    columns = {row[1] for row in source.execute("PRAGMA table_info(chronomem_facts)")}
    missing |= columns - {c.strip() for c in _FACT_COLUMNS.split(",")}
    if missing:
        raise RuntimeError(f"pg_copy does not copy {sorted(missing)}: add them")


def _copy(conn: psycopg.Connection[Any], table: str, columns: str, rows: Any) -> int:
    n = 0
    with conn.cursor().copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)
            n += 1
    return n


def copy_into_postgres(sqlite_file: Path, url: str, schema: str) -> dict[str, int]:
    """Create ``schema`` (through ``ChronoMem``) and load ``sqlite_file``'s memory into it;
    returns the rows copied per table."""
    source = sqlite3.connect(f"file:{sqlite_file}?mode=ro", uri=True)
    counts: dict[str, int] = {}
    try:
        _check_covered(source)
        ChronoMem(url, schema=schema).close()
        with psycopg.connect(url, options=f"-c search_path={schema}") as conn:
            with conn.transaction():
                # The file's settings (its vector space and epoch, when it began recording
                # uses) replace the ones the new schema was made with.
                conn.execute("DELETE FROM chronomem_settings")
                for table, (read, write) in _PLAIN.items():
                    rows = source.execute(f"SELECT {read} FROM {table}")
                    counts[table] = _copy(conn, table, write, rows)
                counts["chronomem_term_stats"] = _copy(
                    conn, "chronomem_term_stats", "owner, term, shard, df", _term_stats(source)
                )
                counts["chronomem_postings"] = _copy(
                    conn, "chronomem_postings", "owner, term, rowid", _postings(source)
                )
                for table, column in (("chronomem_facts", "rowid"), ("chronomem_entities", "id")):
                    conn.execute(
                        f"SELECT setval(pg_get_serial_sequence('{table}', '{column}'), "
                        f"(SELECT coalesce(max({column}), 0) + 1 FROM {table}), false)"
                    )
            conn.autocommit = True
            conn.execute("VACUUM ANALYZE")
    finally:
        source.close()
    return counts
