"""A ``remember`` on PostgreSQL outside a batch is one call of the server's
``chronomem_remember`` (schema version 9); inside a batch it is the statements of
``chronomem.write.facts``. The two must store the very same rows and answer alike, so the
same facts go through each into a schema of their own and every table is compared, row for
row, in terms that do not depend on ids, row numbers or clocks.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import nullcontext
from datetime import datetime, timezone
from typing import Any

import psycopg
import pytest

from chronomem import ChronoMem, FactId
from tests.chronomem.backends import dsn_url

pytestmark = pytest.mark.postgres

_WHEN = datetime(2024, 5, 1, 9, 30, tzinfo=timezone.utc)

# (content, options): claims that conflict, duplicates (by case, spacing and punctuation),
# the same text in another category, a caller's spelling of a known entity (a rename),
# entities named and extracted, several entities (their links), times, sources, metadata,
# and dedup turned off.
_FACTS: list[tuple[str, dict[str, Any]]] = [
    ("Ardian's phone is a Pixel 8", {"entities": ["Ardian"], "category": "device"}),
    ("Ardian's phone is a Xperia 10", {"entities": ["Ardian"], "category": "device"}),
    ("ardian's phone is a  xperia 10.", {"entities": ["Ardian"], "category": "device"}),
    ("Ardian's phone is a Xperia 10", {"entities": ["Ardian"], "category": "gadgets"}),
    ("Ardian lives in Tirana with Besa", {"entities": ["ARDIAN", "Tirana", "Besa"]}),
    ("Besa works at the National Library in Tirana", {}),
    ("Besa works at the National Library in Tirana", {"dedup": False}),
    ("Besa's favourite colour is green", {"entities": ["Besa"], "valid_from": _WHEN}),
    ("Besa's favourite colour is blue", {"entities": ["Besa"], "source": "chat:42"}),
    ("The meeting moved to Thursday", {"metadata": {"room": "B2", "attendees": 4}}),
    ("Ardian lives in Tirana with Besa", {"entities": ["Ardian", "Besa", "Tirana"]}),
    ("ok", {}),
    ("Ardian visits Besa on Sundays", {"entities": ["Ardian", "Besa"]}),
]

# Each table as rows that name items by their content and entities by their key.
_TABLES = {
    "facts": """SELECT content, category, trust, confidence, source, metadata, entities, terms,
                       attr, value,
                       CASE WHEN valid_from = system_time THEN 'now' ELSE valid_from::text END,
                       valid_until,
                       invalidated_at, superseded_by, forgotten, content_key, kind
                FROM chronomem_facts WHERE owner = 'call' ORDER BY rowid""",
    "lex": """SELECT f.content, l.body, l.ctx1, l.ctx2 FROM chronomem_lex l
              JOIN chronomem_facts f ON f.rowid = l.rowid ORDER BY f.rowid""",
    "postings": """SELECT f.content, p.owner, p.term FROM chronomem_postings p
                   JOIN chronomem_facts f ON f.rowid = p.rowid ORDER BY f.rowid, p.term""",
    "vectors": """SELECT f.content, v.vec FROM chronomem_vectors v
                  JOIN chronomem_facts f ON f.rowid = v.item ORDER BY f.rowid""",
    "mentions": """SELECT f.content, m.owner, m.at = f.valid_from FROM chronomem_mentions m
                   JOIN chronomem_facts f ON f.rowid = m.item ORDER BY f.rowid, m.at""",
    "term_stats": """SELECT owner, term, sum(df) FROM chronomem_term_stats
                     GROUP BY owner, term ORDER BY owner, term""",
    "corpus": """SELECT owner, kind, sum(items), sum(length) FROM chronomem_corpus
                 GROUP BY owner, kind ORDER BY owner, kind""",
    "entities": "SELECT owner, key, name FROM chronomem_entities ORDER BY owner, key",
    "fact_entities": """SELECT f.content, e.key FROM chronomem_fact_entities fe
                        JOIN chronomem_facts f ON f.rowid = fe.fact_rowid
                        JOIN chronomem_entities e ON e.id = fe.entity_id
                        ORDER BY f.rowid, e.key""",
    "links": """SELECT s.key, d.key, l.weight FROM chronomem_entity_links l
                JOIN chronomem_entities s ON s.id = l.src
                JOIN chronomem_entities d ON d.id = l.dst ORDER BY s.key, d.key""",
}


@pytest.fixture
def two(pg_dsn: str, pg_schema: str) -> Iterator[dict[str, ChronoMem]]:
    """A memory whose remembers are calls, and one whose remembers run in a batch."""
    mems = {
        "called": ChronoMem(dsn_url(pg_dsn), owner="call", schema=pg_schema),
        "batched": ChronoMem(dsn_url(pg_dsn), owner="call", schema=f"{pg_schema}_batched"),
    }
    yield mems
    for mem in mems.values():
        mem.close()


def _tables(dsn: str, schema: str) -> dict[str, list[tuple[Any, ...]]]:
    with psycopg.connect(dsn, autocommit=True, options=f"-c search_path={schema}") as conn:
        return {name: conn.execute(sql).fetchall() for name, sql in _TABLES.items()}


def _said(mem: ChronoMem, fid: FactId) -> tuple[str, tuple[str, ...], str | None]:
    """What a remember answered, in contents rather than ids."""

    def content(i: str) -> str:
        return mem.get(i).content

    duplicate = None if fid.duplicate_of is None else content(fid.duplicate_of)
    return content(fid), tuple(content(i) for i in fid.contradicts), duplicate


def test_a_call_stores_and_answers_what_the_statements_do(
    two: dict[str, ChronoMem], pg_dsn: str, pg_schema: str
) -> None:
    answers: dict[str, list[tuple[str, tuple[str, ...], str | None]]] = {}
    for name, mem in two.items():
        with mem.batch() if name == "batched" else nullcontext():
            fids = [mem.remember(content, **options) for content, options in _FACTS]
        answers[name] = [_said(mem, fid) for fid in fids]
    assert answers["called"] == answers["batched"]
    # The answers hold what the cases are there for.
    said = answers["called"]
    assert said[1][1] == ("Ardian's phone is a Pixel 8",)  # a contradiction
    assert said[2][2] == "Ardian's phone is a Xperia 10"  # a duplicate...
    assert said[2][1] == ("Ardian's phone is a Pixel 8",)  # ...still reports the conflict
    assert said[3][2] is None  # another category
    assert said[6][2] is None  # dedup off
    assert said[8][1] == ("Besa's favourite colour is green",)
    assert said[10][2] == "Ardian lives in Tirana with Besa"

    called = _tables(pg_dsn, pg_schema)
    batched = _tables(pg_dsn, f"{pg_schema}_batched")
    for table in _TABLES:
        assert called[table] == batched[table], table
    assert ("call", "ardian", "Ardian") in called["entities"]  # renamed, then back
    assert ("ardian", "besa", 2.0) in called["links"]  # two facts name both
    assert len(called["facts"]) == 11  # thirteen remembers, two duplicates


def test_a_call_inside_a_batch_joins_it(two: dict[str, ChronoMem]) -> None:
    mem = two["called"]

    def failing_batch() -> None:
        with mem.batch():
            mem.remember("Ardian lives in Tirana", entities=["Ardian"])
            raise RuntimeError("the batch fails")

    with pytest.raises(RuntimeError):
        failing_batch()
    assert mem.recall("Tirana") == []
    assert mem.entity_names() == []


def test_concurrent_calls_store_one_text_once(two: dict[str, ChronoMem]) -> None:
    import threading

    mem = two["called"]
    barrier = threading.Barrier(8)
    fids: list[FactId] = []

    def write() -> None:
        barrier.wait()
        fids.append(mem.remember("Ardian's phone is a Pixel 8", entities=["Ardian"]))

    threads = [threading.Thread(target=write) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(fids)) == 1
    assert sum(fid.duplicate_of is None for fid in fids) == 1
    assert mem.entity_names() == ["Ardian"]
