"""A new PostgreSQL memory gathers its planner's statistics itself, before autovacuum would
(chronomem.engine.postgres.statistics): its own writes analyse what it holds, one process at
a time, and a failure there never undoes a write."""

from __future__ import annotations

import logging

import psycopg
import pytest

from chronomem import ChronoMem, Turn
from chronomem.engine.postgres.statistics import analyse_if_blind, is_checkpoint
from tests.chronomem.backends import dsn_url

pytestmark = pytest.mark.postgres


def _rows_known(dsn: str, schema: str, table: str) -> float:
    """The planner's count of ``table``'s rows (-1: never analysed)."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute(
            "SELECT c.reltuples FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
            " WHERE n.nspname = %s AND c.relname = %s",
            (schema, table),
        ).fetchone()
    assert row is not None
    return float(row[0])


def test_the_writes_that_ask_are_the_powers_of_two() -> None:
    assert [n for n in range(70) if is_checkpoint(n)] == [1, 2, 4, 8, 16, 32, 64]


def test_a_new_memory_analyses_what_its_writes_add(pg_dsn: str, pg_schema: str) -> None:
    with ChronoMem(dsn_url(pg_dsn), owner="ardian", schema=pg_schema) as mem:
        assert _rows_known(pg_dsn, pg_schema, "chronomem_facts") == -1  # none yet
        mem.remember("Ardian lives in Tirana")  # the first write asks: one page, left alone
        assert _rows_known(pg_dsn, pg_schema, "chronomem_facts") == -1
        mem.remember_episodes(  # the second write: the table grew 2,000 times over
            [Turn(f"turn {i} about the garden", speaker="Ardian", session="s") for i in range(2000)]
        )
        assert _rows_known(pg_dsn, pg_schema, "chronomem_facts") == 2001
        assert _rows_known(pg_dsn, pg_schema, "chronomem_postings") > 2000
        mem.remember("Ardian keeps bees")  # the third write does not ask
        assert _rows_known(pg_dsn, pg_schema, "chronomem_facts") == 2001


def test_one_process_at_a_time_analyses(pg_dsn: str, pg_schema: str) -> None:
    with ChronoMem(dsn_url(pg_dsn), owner="ardian", schema=pg_schema) as mem:
        mem.remember("Ardian lives in Tirana")
    with (
        psycopg.connect(pg_dsn, autocommit=True) as holder,
        psycopg.connect(pg_dsn, autocommit=True) as other,
        holder.transaction(),
    ):
        holder.execute(
            "SELECT pg_advisory_xact_lock(hashtext(%s))", ("chronomem.analyse:" + pg_schema,)
        )
        other.execute(  # a table of a few pages never analysed
            f'CREATE TABLE "{pg_schema}".chronomem_probe AS SELECT generate_series(1, 2000) AS x'
        )
        assert analyse_if_blind(other, pg_schema) == []  # another holds it: skipped at once
    with psycopg.connect(pg_dsn, autocommit=True) as free:
        assert analyse_if_blind(free, pg_schema) == ["chronomem_probe"]


def test_a_failure_is_logged_not_raised(
    pg_dsn: str, pg_schema: str, caplog: pytest.LogCaptureFixture
) -> None:
    closed = psycopg.connect(pg_dsn, autocommit=True)
    closed.close()
    with caplog.at_level(logging.WARNING, logger="chronomem.postgres"):
        assert analyse_if_blind(closed, pg_schema) == []
    assert "could not gather planner statistics" in caplog.text


def test_the_write_stands_when_gathering_fails(
    pg_dsn: str, pg_schema: str, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    from chronomem.engine.postgres import db

    def fail(raw: object, schema: str) -> list[str]:
        raise psycopg.OperationalError("the server went away")

    monkeypatch.setattr(db, "analyse_if_blind", fail)
    with (
        caplog.at_level(logging.WARNING, logger="chronomem.postgres"),
        ChronoMem(dsn_url(pg_dsn), owner="ardian", schema=pg_schema) as mem,
    ):
        fact = mem.remember("Ardian lives in Tirana")
        assert mem.get(fact).content == "Ardian lives in Tirana"
    assert "the server went away" in caplog.text
