"""Inserts nobody reads, held and sent as one statement on PostgreSQL (issue 23).

Which statements may be held is decided from their text alone (no server needed); what a
held insert does inside a transaction, a savepoint and a migration is checked on a server.
"""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest

from chronomem import ChronoMem, DatabaseError
from chronomem.engine.postgres.held import HeldInserts, held_table, many_rows
from chronomem.engine.storage import Storage
from tests.pgserver import dsn_url

_LEX = "INSERT INTO chronomem_lex (rowid, body, ctx1, ctx2) VALUES (?, ?, ?, ?)"
_POSTINGS = (
    "INSERT INTO chronomem_postings (owner, term, rowid) SELECT ?, t, ? FROM unnest(?::text[]) AS t"
)
_LINKS = """INSERT INTO chronomem_entity_links (src, dst, weight) VALUES (?, ?, 1.0)
    ON CONFLICT (src, dst) DO UPDATE SET weight = chronomem_entity_links.weight + 1.0"""


def test_an_insert_that_reads_no_table_may_be_held() -> None:
    assert held_table(_LEX) == "chronomem_lex"
    assert held_table(_POSTINGS) == "chronomem_postings"
    assert held_table(_LINKS) == "chronomem_entity_links"


@pytest.mark.parametrize(
    "sql",
    [
        "INSERT INTO chronomem_facts (id, owner) VALUES (?, ?) RETURNING rowid",
        """INSERT INTO chronomem_fact_entities (entity_id, fact_rowid)
           SELECT id, ? FROM chronomem_entities WHERE owner = ?""",
        "INSERT INTO chronomem_schema (version) SELECT max(version) + 1 FROM chronomem_schema",
        "INSERT INTO chronomem_lex (rowid, body) SELECT rowid, ? FROM other_table",
        "UPDATE chronomem_entities SET name = ? WHERE id = ?",
        "DELETE FROM chronomem_lex WHERE rowid = ?",
        "WITH x AS (SELECT 1) INSERT INTO chronomem_lex (rowid) SELECT 1 FROM x",
        "SELECT 1",
    ],
    ids=str.split("returning reads-another reads-itself reads-a-table update delete with select"),
)
def test_anything_else_is_a_statement_of_its_own(sql: str) -> None:
    assert held_table(sql) is None


def test_the_rows_of_one_insert_are_one_statement() -> None:
    together = many_rows("INSERT INTO chronomem_mentions (owner, at, item) VALUES (?, ?, ?)",
                         [("a", 1, 7), ("a", 2, 7)])  # fmt: skip
    assert together == (
        "INSERT INTO chronomem_mentions (owner, at, item) VALUES (?, ?, ?), (?, ?, ?)",
        ["a", 1, 7, "a", 2, 7],
    )


def test_an_upsert_that_updates_keeps_a_statement_per_row() -> None:
    # Two rows of one statement meeting one row would be an error; two statements are not.
    assert many_rows(_LINKS, [(1, 2), (2, 1)]) is None


def test_held_inserts_become_one_statement_in_their_order() -> None:
    held = HeldInserts()
    assert held.take() is None
    held.hold("chronomem_lex", "INSERT INTO chronomem_lex (rowid) VALUES (%s)", (1,))
    held.hold("chronomem_vectors", "INSERT INTO chronomem_vectors (item, vec) VALUES (%s, %s)",
              (1, b"v"))  # fmt: skip
    assert held.holds("chronomem_lex")
    assert not held.holds("chronomem_postings")
    assert held.take() == (
        "WITH _h0 AS (INSERT INTO chronomem_lex (rowid) VALUES (%s)) "
        "INSERT INTO chronomem_vectors (item, vec) VALUES (%s, %s)",
        [1, 1, b"v"],
    )
    assert held.take() is None  # taken once


@pytest.fixture
def pg_mem(pg_dsn: str, pg_schema: str) -> Iterator[ChronoMem]:
    with ChronoMem(dsn_url(pg_dsn), owner="ardian", schema=pg_schema) as mem:
        yield mem


_ORPHAN = (10**12, "orphan", "", "")
"""An index row of no fact: its foreign key fails once it reaches the server."""


@pytest.mark.postgres
def test_a_savepoint_sends_its_held_inserts_before_it_ends(pg_mem: ChronoMem) -> None:
    db = pg_mem._db
    with pg_mem.batch():
        first = pg_mem.remember("Ardian lives in Tirana")
        with pytest.raises(DatabaseError, match="foreign key"), db.write() as conn:
            conn.execute(_LEX, _ORPHAN)  # held, and sent (and refused) inside the savepoint
        second = pg_mem.remember("Ardian works in Durres")
    assert [pg_mem.get(f).content for f in (first, second)] == [
        "Ardian lives in Tirana", "Ardian works in Durres"]  # fmt: skip
    assert pg_mem.recall("Durres", limit=1)[0].id == second


def _hold_then_fail(db: Storage) -> None:
    with db.write() as conn:
        conn.execute(_LEX, _ORPHAN)  # would fail the whole batch if it were sent later
        raise RuntimeError("the caller's own error")


@pytest.mark.postgres
def test_a_savepoint_undone_never_sends_its_held_inserts(pg_mem: ChronoMem) -> None:
    db = pg_mem._db
    with pg_mem.batch():
        first = pg_mem.remember("Ardian lives in Tirana")
        with pytest.raises(RuntimeError, match="own error"):
            _hold_then_fail(db)
        second = pg_mem.remember("Ardian works in Durres")
    assert {pg_mem.get(first).content, pg_mem.get(second).content} == {
        "Ardian lives in Tirana", "Ardian works in Durres"}  # fmt: skip


@pytest.mark.postgres
def test_a_held_insert_is_read_by_the_next_statement(pg_mem: ChronoMem) -> None:
    fid = pg_mem.remember("Ardian lives in Tirana")
    with pg_mem._db.write() as conn:
        rowid = conn.execute("SELECT rowid FROM chronomem_facts WHERE id = ?", (fid,)).fetchone()
        conn.execute("DELETE FROM chronomem_vectors WHERE item = ?", (rowid[0],))
        insert = conn.execute("INSERT INTO chronomem_vectors (item, vec) VALUES (?, ?)",
                              (rowid[0], b"\x01"))  # fmt: skip
        with pytest.raises(psycopg.ProgrammingError, match="didn't produce a result"):
            insert.fetchone()  # as psycopg says of any insert without RETURNING
        held = conn.execute("SELECT vec FROM chronomem_vectors WHERE item = ?", (rowid[0],))
        assert bytes(held.fetchone()[0]) == b"\x01"


def _holding_lex() -> HeldInserts:
    held = HeldInserts()
    held.hold("chronomem_lex", "INSERT INTO chronomem_lex (rowid) VALUES (%s)", (1,))
    return held


def test_a_statement_reading_none_of_their_tables_ends_the_held_inserts() -> None:
    sql = "SELECT count(*) FROM chronomem_facts WHERE owner = ?"
    assert _holding_lex().take_before(sql, sql.replace("?", "%s"), ("a",)) == (
        "WITH _h0 AS (INSERT INTO chronomem_lex (rowid) VALUES (%s)) "
        "SELECT count(*) FROM chronomem_facts WHERE owner = %s",
        [1, "a"],
    )
    with_list = (
        "WITH mine AS (SELECT 1 AS s) INSERT INTO chronomem_corpus (shard) SELECT s FROM mine"
    )
    assert _holding_lex().take_before(with_list, with_list, ()) == (
        "WITH _h0 AS (INSERT INTO chronomem_lex (rowid) VALUES (%s)), mine AS (SELECT 1 AS s) "
        "INSERT INTO chronomem_corpus (shard) SELECT s FROM mine",
        [1],
    )


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT body FROM chronomem_lex WHERE rowid = ?",  # would not see the held row
        "SELECT id FROM chronomem_facts WHERE id = ? FOR UPDATE",
        "WITH RECURSIVE r AS (SELECT 1) SELECT * FROM r",
        "COMMIT",
        "SET LOCAL search_path TO x",
        "CREATE INDEX i ON chronomem_facts (owner)",
    ],
    ids=str.split("reads-a-held-table for-update recursive commit set schema"),
)
def test_anything_else_is_sent_after_the_held_inserts(sql: str) -> None:
    held = _holding_lex()
    assert held.take_before(sql, sql, ()) is None
    assert held.holds("chronomem_lex")  # still held, for the flush before the statement


@pytest.mark.postgres
def test_many_rows_go_in_parts_under_the_parameter_cap(pg_mem: ChronoMem) -> None:
    fid = pg_mem.remember("Ardian lives in Tirana")
    with pg_mem._db.write() as conn:
        rowid = conn.execute("SELECT rowid FROM chronomem_facts WHERE id = ?", (fid,)).fetchone()
        rows = [("ardian", at, rowid[0]) for at in range(1, 25_001)]  # 75,000 parameters
        conn.executemany("INSERT INTO chronomem_mentions (owner, at, item) VALUES (?, ?, ?)", rows)
        count = conn.execute("SELECT count(*) FROM chronomem_mentions WHERE item = ?", rowid)
        assert count.fetchone()[0] == 25_001  # with the fact's own time
