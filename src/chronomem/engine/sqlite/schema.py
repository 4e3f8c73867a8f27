"""chronomem's tables in a SQLite file it may share with chronica, and how they evolve.

Every name starts with ``chronomem_``; the schema version lives in ``chronomem_schema`` (never
``PRAGMA user_version``, which two packages cannot share). ``check_file`` runs before anything
is written, so a file that is not ours is refused byte-for-byte untouched.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from chronica.stores.sqlite import integrity_problems
from chronomem._errors import DatabaseError
from chronomem.engine.sqlite.dialect import SQLiteConnection
from chronomem.engine.sqlite.frequencies import JOURNAL_TABLE
from chronomem.engine.upgrades import DataStep, DataUpgrade

__all__ = ["SCHEMA_VERSION", "check_file", "check_integrity", "check_tables", "migrate"]

_V1 = """
CREATE TABLE chronomem_facts (
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    owner TEXT NOT NULL,
    content TEXT NOT NULL,
    category TEXT,
    trust REAL NOT NULL,
    confidence REAL NOT NULL,
    source TEXT,
    metadata TEXT,
    entities TEXT NOT NULL,
    terms TEXT NOT NULL,
    attr TEXT,
    value TEXT,
    system_time INTEGER NOT NULL,
    valid_from INTEGER NOT NULL,
    valid_until INTEGER,
    invalidated_at INTEGER,
    superseded_by TEXT REFERENCES chronomem_facts(id) DEFERRABLE INITIALLY DEFERRED,
    forgotten INTEGER NOT NULL DEFAULT 0,
    forget_reason TEXT
);
CREATE INDEX chronomem_facts_owner_attr ON chronomem_facts(owner, attr)
    WHERE attr IS NOT NULL AND invalidated_at IS NULL;
CREATE VIRTUAL TABLE chronomem_fts USING fts5(
    content, content='chronomem_facts', content_rowid='rowid', tokenize='porter unicode61'
);
CREATE TABLE chronomem_entities (
    id INTEGER PRIMARY KEY,
    owner TEXT NOT NULL,
    key TEXT NOT NULL,
    name TEXT NOT NULL,
    UNIQUE (owner, key)
);
CREATE TABLE chronomem_fact_entities (
    entity_id INTEGER NOT NULL REFERENCES chronomem_entities(id),
    fact_rowid INTEGER NOT NULL REFERENCES chronomem_facts(rowid),
    PRIMARY KEY (entity_id, fact_rowid)
) WITHOUT ROWID;
CREATE TABLE chronomem_entity_links (
    src INTEGER NOT NULL REFERENCES chronomem_entities(id),
    dst INTEGER NOT NULL REFERENCES chronomem_entities(id),
    weight REAL NOT NULL,
    PRIMARY KEY (src, dst)
) WITHOUT ROWID;
CREATE INDEX chronomem_entity_links_strongest ON chronomem_entity_links(src, weight DESC);
"""

# Version 2: episodes live beside facts (``kind``), and the lexical index holds chronomem's own
# stemmed terms with the per-owner statistics that its BM25 needs (see recall/lexindex.py).
_V2 = """
ALTER TABLE chronomem_facts ADD COLUMN kind TEXT NOT NULL DEFAULT 'fact';
ALTER TABLE chronomem_facts ADD COLUMN speaker TEXT;
ALTER TABLE chronomem_facts ADD COLUMN session TEXT;
ALTER TABLE chronomem_facts ADD COLUMN seq INTEGER;
CREATE INDEX chronomem_episodes_in_session ON chronomem_facts(owner, session, seq)
    WHERE kind = 'episode';
CREATE UNIQUE INDEX chronomem_episodes_by_source ON chronomem_facts(owner, session, source)
    WHERE kind = 'episode' AND source IS NOT NULL;
CREATE VIRTUAL TABLE chronomem_lex USING fts5(
    body, ctx1, ctx2, tokenize = "unicode61 remove_diacritics 0 tokenchars '_'"
);
CREATE TABLE chronomem_term_stats (
    owner TEXT NOT NULL,
    term TEXT NOT NULL,
    df INTEGER NOT NULL,
    PRIMARY KEY (owner, term)
) WITHOUT ROWID;
CREATE TABLE chronomem_corpus (
    owner TEXT NOT NULL,
    kind TEXT NOT NULL,
    items INTEGER NOT NULL,
    length REAL NOT NULL,
    PRIMARY KEY (owner, kind)
) WITHOUT ROWID;
CREATE TABLE chronomem_speakers (
    owner TEXT NOT NULL,
    key TEXT NOT NULL,
    PRIMARY KEY (owner, key)
) WITHOUT ROWID
"""


Step = Callable[[SQLiteConnection, DataUpgrade], None]
"""One version's migration: its DDL, and the data steps it asks the write path for."""


def _run(conn: SQLiteConnection, sql: str) -> None:
    for statement in sql.split(";\n"):
        if statement.strip():
            conn.execute(statement)


def _script(sql: str) -> Step:
    def run(conn: SQLiteConnection, upgrade: DataUpgrade) -> None:
        del upgrade  # DDL alone
        _run(conn, sql)

    return run


def _v2(conn: SQLiteConnection, upgrade: DataUpgrade) -> None:
    """Every version-1 fact moves into the new lexical index; the old one goes."""
    _run(conn, _V2)
    upgrade(DataStep.INDEX_FIRST_FACTS, conn)
    conn.execute("DROP TABLE chronomem_fts")


def _v3(conn: SQLiteConnection, upgrade: DataUpgrade) -> None:
    """Entity keys fold punctuation next to a model code (``ThinkPad-T14``); speakers are keyed
    the same way; claims are read by the current claim reader."""
    upgrade(DataStep.REKEY_ENTITIES, conn)


# Version 4: the entities of a fact by the fact, so contradictions() starts from the few
# active facts that make a claim instead of reading every fact-entity link (96 s at 1M facts).
_V4 = """
CREATE INDEX chronomem_fact_entities_by_fact ON chronomem_fact_entities(fact_rowid)
"""


def _v5(conn: SQLiteConnection, upgrade: DataUpgrade) -> None:
    """The lexicon's terms changed (word forms meet: see text/wordforms.py): index again."""
    _run(conn, _EMPTY_LEXICAL_INDEX)
    upgrade(DataStep.REINDEX, conn)


_EMPTY_LEXICAL_INDEX = """
DELETE FROM chronomem_lex;
DELETE FROM chronomem_term_stats;
DELETE FROM chronomem_corpus
"""

# Version 6: the semantic channel's vectors, one per item, keyed by the item's rowid.
_V6 = """
CREATE TABLE IF NOT EXISTS chronomem_vectors (
    item INTEGER PRIMARY KEY,
    vec BLOB NOT NULL
)
"""


def _v6(conn: SQLiteConnection, upgrade: DataUpgrade) -> None:
    """Every item stored before the semantic channel gets its vector."""
    _run(conn, _V6)
    upgrade(DataStep.BACKFILL_VECTORS, conn)


# Version 8 (issue 18, "no duplicates" and "erase for real"; version 7 is another step of the
# same issue): a fact's normalised-content key, indexed among active facts so remember's
# duplicate check is one probe, and the two columns of a purged item's tombstone.
_V8 = """
ALTER TABLE chronomem_facts ADD COLUMN content_key TEXT;
ALTER TABLE chronomem_facts ADD COLUMN purged_at INTEGER;
ALTER TABLE chronomem_facts ADD COLUMN purge_reason TEXT;
CREATE INDEX chronomem_facts_same_content ON chronomem_facts(owner, content_key)
    WHERE kind = 'fact' AND invalidated_at IS NULL
"""


def _v8(conn: SQLiteConnection, upgrade: DataUpgrade) -> None:
    """Every fact stored before the key existed gets its key.

    Version 7 shipped (commits a596138 to fa60093) as this very step; the time step came
    before it later. A file of that version 7 has the keys and not the times, so it gets the
    time step instead (which can run again over its own work)."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(chronomem_facts)")}
    if "content_key" in columns:
        _v7(conn, upgrade)
        return
    _run(conn, _V8)
    upgrade(DataStep.BACKFILL_CONTENT_KEYS, conn)


# Version 7 (issue 19, time): the times a turn mentions ("yesterday", "last month"), kept with
# the episode (``mentions``, JSON) and indexed by the days they mean (``chronomem_mentions``,
# with every item's own time: see write/time_index.py), so a question naming a date finds what was
# said then.
# The step can run again over its own work (a test ages a memory by its version number).
_V7 = """
CREATE TABLE IF NOT EXISTS chronomem_mentions (
    owner TEXT NOT NULL,
    at INTEGER NOT NULL,
    item INTEGER NOT NULL,
    PRIMARY KEY (owner, at, item)
) WITHOUT ROWID
"""


def _v7(conn: SQLiteConnection, upgrade: DataUpgrade) -> None:
    """Every item stored before is indexed by its time, every episode gets its mentions,
    resolved against its stored ``at``."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(chronomem_facts)")}
    if "mentions" not in columns:
        conn.execute("ALTER TABLE chronomem_facts ADD COLUMN mentions TEXT")
    _run(conn, _V7)
    upgrade(DataStep.FILL_MENTIONS, conn)


# Version 9 (issue 24 item 11): a turn's position in its session is unique, as PostgreSQL's
# index has made it from its first version. The write lock kept racing writers apart, but a
# file may hold duplicates from code that did not, so positions are renumbered first.
_V9 = """
DROP INDEX chronomem_episodes_in_session;
CREATE UNIQUE INDEX chronomem_episodes_in_session ON chronomem_facts(owner, session, seq)
    WHERE kind = 'episode'
"""


def _v9(conn: SQLiteConnection, upgrade: DataUpgrade) -> None:
    """Renumber, then forbid two turns one position (all in the migration's transaction)."""
    upgrade(DataStep.RENUMBER_POSITIONS, conn)
    _run(conn, _V9)


# Version 10 (issue 21): the active facts' categories, indexed, so listing them (the LangGraph
# store's ``list_namespaces``) probes once per category instead of scanning every fact.
_V10 = """
CREATE INDEX chronomem_facts_by_category ON chronomem_facts(owner, category)
    WHERE kind = 'fact' AND invalidated_at IS NULL AND category IS NOT NULL
"""

# Version 11 (issue 23): a purge finds an item's time points and the links that name a gone
# entity through an index, instead of reading every row of both tables for each item (8 ms an
# item at 100,000 episodes; a session's purge paid it once per turn). The second index also
# serves the foreign key from a link's ``dst``, which SQLite checks when an entity is deleted.
_V11 = """
CREATE INDEX chronomem_mentions_by_item ON chronomem_mentions(item);
CREATE INDEX chronomem_entity_links_by_dst ON chronomem_entity_links(dst)
"""


# Version 13 (issue 42): the facts' ids by their last eight digits, random ones (an id is its
# time, then random digits), so a short id shown as its end (``…a611ced9``), which stays
# unique as facts are written where a prefix does not, is found with one probe of an index.
# Not partial (``WHERE kind = 'fact'``): a planner blind to the values (PostgreSQL's generic
# plans in the remember function) took a partial index for any statement about facts, and
# read every fact of the owner through it.
_V13 = """
CREATE INDEX chronomem_facts_by_tail ON chronomem_facts(substr(id, 25))
"""


_SETTINGS = """
CREATE TABLE chronomem_settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID
"""


def _v14(conn: SQLiteConnection, upgrade: DataUpgrade) -> None:
    """Version 14 (issue 38): the file's settings (which vector space its vectors are from,
    and the epoch every erasure of vectors bumps: see recall/semantic/nearest.py), and a
    fact's category and metadata indexed as words of its own."""
    _run(conn, _SETTINGS)
    upgrade(DataStep.INDEX_FACT_FIELDS, conn)


# Version 15 (issue 41 item 2): when each item was last recalled (write/uses.py), a row per
# item recalled at least once, keyed by its rowid: a table of its own, so recording a use
# never rewrites an item's wide row nor waits on a writer's lock of it. ``uses_since``: when
# the file began recording uses, so an item stored before counts as unused from then, not
# from its write (an upgrade must not make every item a year old look a year unused).
_V15 = """
CREATE TABLE chronomem_used (
    item INTEGER PRIMARY KEY,
    at INTEGER NOT NULL
);
INSERT INTO chronomem_settings (key, value)
    VALUES ('uses_since', CAST(CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER)
                               AS TEXT))
"""

# Version 16 (issue 40 item 2, issue 41 item 1): a key-value face over facts. Each (owner,
# namespace, key) names the fact holding its current value, the value beside it (a get reads one
# row), when it expires; the namespaces are counted in a table of their own, in the same transaction
# (listing them reads only that table). See engine/keyed.py. Self-contained: it creates two tables
# and their indexes, and reads nothing of the steps before it.
_KEYED = """
CREATE TABLE chronomem_keyed (
    owner TEXT NOT NULL,
    space TEXT NOT NULL,
    key TEXT NOT NULL,
    fact_id TEXT NOT NULL,
    value TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    expires_at INTEGER,
    ttl REAL,
    drifted INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (owner, space, key)
) WITHOUT ROWID;
CREATE INDEX chronomem_keyed_by_fact ON chronomem_keyed(fact_id);
CREATE INDEX chronomem_keyed_expiring ON chronomem_keyed(owner, expires_at)
    WHERE expires_at IS NOT NULL;
CREATE INDEX chronomem_keyed_drifted ON chronomem_keyed(drifted, owner) WHERE drifted = 1;
CREATE TABLE chronomem_keyed_spaces (
    owner TEXT NOT NULL,
    space TEXT NOT NULL,
    items INTEGER NOT NULL,
    PRIMARY KEY (owner, space)
) WITHOUT ROWID
"""

# Version 17 (issue 40 item 2): the facts a keyed put stored without their recall index (its
# lexical postings and term statistics, entities, claim; its vector is stored with it), listed
# by rowid for the catch-up that indexes them before the index is next read
# (write/keyed_index.py). A row is written in the put's transaction and deleted in the
# catch-up's, or with its fact by a purge or an owner's erasure. Self-contained: one table.
_UNINDEXED = """
CREATE TABLE chronomem_unindexed (
    item INTEGER PRIMARY KEY,
    owner TEXT NOT NULL
)
"""


# Index i holds the step that takes the schema from version i to i + 1.
_MIGRATIONS: tuple[Step, ...] = (
    _script(_V1),
    _v2,
    _v3,
    _script(_V4),
    _v5,
    _v6,
    _v7,
    _v8,
    _v9,
    _script(_V10),
    _script(_V11),
    # Version 12 (issue 23): document frequencies are journaled and added up in batches (see
    # frequencies.py). The steps before it that index again (5 and 9) count terms directly.
    _script(JOURNAL_TABLE),
    _script(_V13),
    _v14,
    _script(_V15),
    _script(_KEYED),
    _script(_UNINDEXED),
)
SCHEMA_VERSION = len(_MIGRATIONS)


def check_file(path: str) -> None:
    """Refuse a path that is a directory; whether a file is SQLite is SQLite's to say.

    The file itself is never opened here: POSIX locks belong to the process, and closing any
    descriptor of a file drops all of them, so reading the header with ``open()`` while this
    process holds a connection to it let another process delete the WAL under a live writer.
    A file that is not a database is refused by the first query (see ``check_tables``).
    """
    if path == ":memory:":
        return
    if Path(path).is_dir():
        raise DatabaseError(f"{path!r} is a directory, not a SQLite file")


def check_tables(conn: SQLiteConnection, path: str) -> int:
    """Refuse a file that is not SQLite, a foreign database (tables, none of ours or
    chronica's) or a newer schema; returns the file's chronomem schema version (0: none yet)."""
    try:
        rows = conn.execute("SELECT name FROM sqlite_master WHERE type='table'").fetchall()
    except sqlite3.DatabaseError as e:
        if "not a database" in str(e):
            raise DatabaseError(f"{path!r} is not a SQLite database") from e
        raise
    names = {row[0] for row in rows}
    if names and not names & {"chronica_schema", "chronomem_schema"}:
        raise DatabaseError(f"{path!r} belongs to another application (no chronomem tables)")
    version = _version(conn) if "chronomem_schema" in names else 0
    if version > SCHEMA_VERSION:
        raise DatabaseError(
            f"{path!r} has chronomem schema version {version}; this code knows {SCHEMA_VERSION}"
        )
    return version


def check_integrity(conn: SQLiteConnection, path: str) -> None:
    """Refuse a damaged file before chronomem's first write to it, leaving it untouched.

    A corrupt file can still open and answer simple queries; switching it to WAL rewrites its
    header and creating tables writes into it. ``quick_check`` reads every page once, so it
    runs only when chronomem is about to create or migrate its tables in a file it did not
    just create, never on an ordinary open.
    """
    problems = integrity_problems(conn)
    if problems:
        raise DatabaseError(
            f"{path!r} failed SQLite's integrity check, so chronomem will not write to it "
            f"(left unchanged): {'; '.join(problems)}"
        )


def _version(conn: SQLiteConnection) -> int:
    row = conn.execute("SELECT max(version) FROM chronomem_schema").fetchone()
    return int(row[0]) if row and row[0] is not None else 0


def migrate(conn: SQLiteConnection, upgrade: DataUpgrade) -> None:
    """Bring chronomem's tables to ``SCHEMA_VERSION`` inside the caller's write transaction,
    asking ``upgrade`` for each data step a version needs."""
    conn.execute("CREATE TABLE IF NOT EXISTS chronomem_schema (version INTEGER NOT NULL)")
    version = _version(conn)
    if version > SCHEMA_VERSION:
        raise DatabaseError(f"chronomem schema version {version} is newer than {SCHEMA_VERSION}")
    for step in range(version, SCHEMA_VERSION):
        _MIGRATIONS[step](conn, upgrade)
        conn.execute("DELETE FROM chronomem_schema")
        conn.execute("INSERT INTO chronomem_schema (version) VALUES (?)", (step + 1,))
    conn.journal = True
