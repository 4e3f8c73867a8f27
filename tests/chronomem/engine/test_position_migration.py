"""Schema version 9 on a user's version-8 file that already holds two turns at one position
(racing writers of older code could leave that): the positions are renumbered, in the order a
reader saw them, before the unique index that forbids it from now on; a crash half-way leaves
the file at version 8 as it was.

The file is the frozen version 8 (tests/fixtures/schemas), written by the code that shipped it;
the duplicates are planted under it with plain SQL, as no public call of today's code can make
them.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import sqlite3
from pathlib import Path

from scripts.freeze_schemas import EPISODES

from chronomem import ChronoMem
from chronomem.engine.dialect import Conn
from chronomem.engine.sqlite import schema
from chronomem.engine.sqlite.dialect import SQLiteConnection
from chronomem.recall.lexindex import reindex
from chronomem.write import upgrade
from tests.frozen_schemas import load_sqlite

SESSION = "standup"
# (content, position the race left it at, system time): two turns at 2, three at 4 of which
# two were written in one microsecond (the rowid decides), and none at 3 or 6.
PLANTED = (
    ("alpha opens the standup", 1, 100),
    ("bravo reports the deploy", 2, 300),
    ("charlie reports the outage", 2, 200),
    ("delta asks about billing", 4, 500),
    ("echo answers about billing", 4, 400),
    ("foxtrot also answers billing", 4, 400),
    ("golf closes the standup", 7, 600),
)
# Position, then system time, then rowid (the order of PLANTED among equals).
RENUMBERED = [PLANTED[i][0] for i in (0, 2, 1, 4, 5, 3, 6)]


def _plant(path: Path) -> None:
    """Clone the frozen file's last turn into session ``standup`` once per PLANTED row, with
    nothing in the lexical index (the migration indexes a renumbered session again), and put
    both frozen ``dinner`` turns at position 1 (written in the order EPISODES lists them)."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        (template,) = conn.execute(
            "SELECT max(rowid) FROM chronomem_facts WHERE kind = 'episode'"
        ).fetchone()
        for n, (content, seq, at) in enumerate(PLANTED):
            conn.execute(
                """INSERT INTO chronomem_facts (id, owner, content, trust, confidence, entities,
                       terms, system_time, valid_from, kind, speaker, session, seq)
                   SELECT id || ?, owner, ?, trust, confidence, entities, terms, ?, ?,
                       kind, 'crew', ?, ? FROM chronomem_facts WHERE rowid = ?""",
                (f"-{n}", content, at, at, SESSION, seq, template),
            )
        conn.execute("UPDATE chronomem_facts SET seq = 1 WHERE session = 'dinner'")
    finally:
        conn.close()


def _frozen_v8_with_duplicates(tmp_path: Path) -> Path:
    path = tmp_path / "raced.db"
    load_sqlite("chronomem", 8, path)
    _plant(path)
    return path


def _positions(path: Path) -> dict[str, list[tuple[int, str]]]:
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute(
            """SELECT session, seq, content FROM chronomem_facts WHERE kind = 'episode'
               ORDER BY session, seq, system_time, rowid"""
        ).fetchall()
    finally:
        conn.close()
    found: dict[str, list[tuple[int, str]]] = {}
    for session, seq, content in rows:
        found.setdefault(session, []).append((seq, content))
    return found


def _version(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute("SELECT max(version) FROM chronomem_schema").fetchone()[0])
    finally:
        conn.close()


def test_duplicates_are_renumbered_in_order_then_forbidden(tmp_path: Path) -> None:
    path = _frozen_v8_with_duplicates(tmp_path)
    with ChronoMem(path) as mem:
        assert mem.stats()["schema_version"] == schema.SCHEMA_VERSION >= 9
        turns = [r for r in mem.export_facts() if r["kind"] == "episode"]
        standup = sorted((r["seq"], r["content"]) for r in turns if r["session"] == SESSION)
        assert standup == list(enumerate(RENUMBERED, 1))
        dinner = sorted((r["seq"], r["content"]) for r in turns if r["session"] == "dinner")
        assert dinner == [(i, text) for i, (_, text) in enumerate(EPISODES, 1)]
        # The session was indexed again: a planted turn is found, and the context that a
        # turn carries is its new predecessor's (charlie's words now precede bravo's turn).
        assert mem.recall("outage", kinds=["episode"])[0].content == PLANTED[2][0]
        # New turns go after the renumbered ones (test_episode_positions.py asserts the
        # unique index itself).
        mem.remember_episode("hotel joins late", speaker="crew", session=SESSION)
    assert _positions(path)[SESSION][-1] == (len(PLANTED) + 1, "hotel joins late")
    conn = sqlite3.connect(path)
    try:
        context = dict(
            conn.execute(
                """SELECT f.content, l.ctx1 FROM chronomem_facts f
                   JOIN chronomem_lex l ON l.rowid = f.rowid WHERE f.session = ?""",
                (SESSION,),
            ).fetchall()
        )
        bodies = dict(
            conn.execute(
                """SELECT f.content, l.body FROM chronomem_facts f
                   JOIN chronomem_lex l ON l.rowid = f.rowid WHERE f.session = ?""",
                (SESSION,),
            ).fetchall()
        )
    finally:
        conn.close()
    for before, after in itertools.pairwise(RENUMBERED):
        assert context[after] == bodies[before]


def _index_state(conn: sqlite3.Connection) -> tuple[object, ...]:
    lex = conn.execute("SELECT rowid, body, ctx1, ctx2 FROM chronomem_lex ORDER BY rowid")
    stats = conn.execute("SELECT owner, term, df FROM chronomem_term_stats ORDER BY 1, 2")
    corpus = conn.execute("SELECT owner, kind, items, round(length, 6) FROM chronomem_corpus")
    return lex.fetchall(), stats.fetchall(), sorted(corpus.fetchall())


def test_the_renumbered_index_and_its_counters_are_what_a_rebuild_gives(tmp_path: Path) -> None:
    # Every turn taken out (its counters lowered) and put back in its new order must leave
    # the lexical index exactly as indexing the whole memory from scratch would.
    path = _frozen_v8_with_duplicates(tmp_path)
    ChronoMem(path).close()
    conn = sqlite3.connect(path, isolation_level=None, factory=SQLiteConnection)
    try:
        migrated = _index_state(conn)
        conn.execute("BEGIN")
        for table in ("chronomem_lex", "chronomem_term_stats", "chronomem_corpus"):
            conn.execute(f"DELETE FROM {table}")
        reindex(conn)
        rebuilt = _index_state(conn)
        conn.execute("ROLLBACK")
    finally:
        conn.close()
    assert migrated == rebuilt


def test_a_second_migration_finds_nothing_to_renumber(tmp_path: Path) -> None:
    path = _frozen_v8_with_duplicates(tmp_path)
    ChronoMem(path).close()
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        assert upgrade.renumber_positions(conn) == 0  # type: ignore[arg-type]  # execute() only
    finally:
        conn.close()


def _crash_after_renumbering(path: str) -> None:
    """Runs in a child: the renumbering happens, then the process dies before the index."""
    real = upgrade.renumber_positions

    def renumber_then_die(conn: Conn) -> int:
        real(conn)
        os._exit(3)

    upgrade.renumber_positions = renumber_then_die
    ChronoMem(path)


def test_a_crash_mid_migration_leaves_version_8_as_it_was(tmp_path: Path) -> None:
    path = _frozen_v8_with_duplicates(tmp_path)
    planted = _positions(path)
    child = multiprocessing.get_context("spawn").Process(
        target=_crash_after_renumbering, args=(str(path),)
    )
    child.start()
    child.join(timeout=120)
    assert child.exitcode == 3
    assert _version(path) == 8
    assert _positions(path) == planted  # the duplicates, untouched
    conn = sqlite3.connect(path)
    try:
        unique = {name: u for _, name, u, *_ in conn.execute("PRAGMA index_list(chronomem_facts)")}
    finally:
        conn.close()
    assert unique["chronomem_episodes_in_session"] == 0  # version 8's plain index
    with ChronoMem(path) as mem:  # and the next open migrates it
        assert mem.stats()["schema_version"] == schema.SCHEMA_VERSION
    assert [text for _, text in _positions(path)[SESSION]] == RENUMBERED
