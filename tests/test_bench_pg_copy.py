"""The engines matrix's PostgreSQL copy holds what the SQLite fill holds, so both engines
answer its questions from the same data (a copy without the semantic vectors or the time
mentions would let PostgreSQL skip work SQLite does)."""

from __future__ import annotations

import sqlite3
import uuid
from datetime import datetime, timezone
from pathlib import Path

import pytest
from scripts.matrix.pg_copy import copy_into_postgres

from chronomem import ChronoMem, Turn
from tests.pgserver import dsn_url

QUESTIONS = (
    "what allergies does the family have?",
    "Where does Mira live now?",
    "what did Sam say yesterday about the trip?",
    "hotel",
)


def _filled(path: Path) -> None:
    with ChronoMem(path, owner="bench") as mem:
        old = mem.remember("Mira lives in Lisbon", category="home", entities=["Mira"])
        mem.supersede(old, "Mira lives in Porto", category="home", entities=["Mira"])
        mem.remember("My daughter is allergic to peanuts", entities=["daughter"])
        gone = mem.remember("The hotel has a rooftop pool")
        mem.forget(gone)
        said = datetime(2024, 5, 2, 18, 0, tzinfo=timezone.utc)
        mem.remember_episodes(
            [
                Turn(
                    "Yesterday we booked the hotel in Porto", speaker="Sam", session="s1", at=said
                ),
                Turn("Great, the trip is on!", speaker="Mira", session="s1", at=said),
            ]
        )


@pytest.mark.postgres
def test_the_copy_answers_as_the_file_does(tmp_path: Path, pg_dsn: str) -> None:
    file = tmp_path / "filled.db"
    _filled(file)
    schema = f"t_{uuid.uuid4().hex[:12]}"
    url = dsn_url(pg_dsn)
    copied = copy_into_postgres(file, url, schema)
    assert copied["chronomem_vectors"] == 6  # one per item, forgotten ones too
    assert copied["chronomem_mentions"] > 0
    with (
        ChronoMem(file, owner="bench") as lite,
        ChronoMem(url, schema=schema, owner="bench") as pg,
    ):
        where = {"path", "engine", "schema_version"}  # what differs between engines
        assert {k: v for k, v in lite.stats().items() if k not in where} == {
            k: v for k, v in pg.stats().items() if k not in where
        }
        for question in QUESTIONS:
            ours = [(i["id"], i["ranks"]) for i in lite.recall(question, limit=10)]
            theirs = [(i["id"], i["ranks"]) for i in pg.recall(question, limit=10)]
            assert ours == theirs, question
            assert ours, question


def test_a_table_the_copy_does_not_know_stops_it(tmp_path: Path) -> None:
    file = tmp_path / "filled.db"
    _filled(file)
    with sqlite3.connect(file) as conn:
        conn.execute("CREATE TABLE chronomem_new_feature (x INTEGER)")
    with pytest.raises(RuntimeError, match="chronomem_new_feature"):
        copy_into_postgres(file, "postgresql:///never-reached", "s")
