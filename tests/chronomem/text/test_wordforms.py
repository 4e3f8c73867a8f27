"""Word forms meet in the lexical index: derivations, irregular verbs, numbers, compounds; and
an existing memory is indexed again when the terms change."""

from __future__ import annotations

import sqlite3
from typing import Any

import psycopg
import pytest

from chronomem.text.lexicon import index_terms, query_terms, term
from tests.chronomem.backends import MemoryTarget, stored_frequencies


def meet(a: str, b: str) -> bool:
    return term(a) == term(b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("allergies", "allergic"),
        ("allergy", "allergic"),
        ("economy", "economic"),
        ("photography", "photographic"),
        ("happily", "happy"),
        ("easily", "easy"),
        ("broke", "broken"),
        ("broke", "break"),
        ("went", "go"),
        ("gone", "going"),
        ("ate", "eating"),
        ("bought", "buy"),
        ("three", "3"),
        ("twelve", "12"),
        ("dozen", "12"),
        ("forty", "40"),
    ],
)
def test_forms_of_one_word_meet(a: str, b: str) -> None:
    assert meet(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("general", "generation"),
        ("universe", "university"),
        ("organ", "organic"),
        ("class", "classic"),
        ("party", "part"),
        ("family", "fami"),
        ("injury", "injured"),  # measured: folding every -y noun cost more than it brought
        ("saw", "see"),  # a tool as often as a sight
        ("left", "leave"),  # a side as often as a departure
        ("one", "1"),  # "the blue one"
    ],
)
def test_words_that_only_look_alike_stay_apart(a: str, b: str) -> None:
    assert not meet(a, b)


def test_a_query_joins_adjacent_words_into_the_closed_compound() -> None:
    assert "smartwatch" in query_terms("Which smart watch did she buy?")
    assert index_terms("I love my new smartwatch") == ["love", "new", "smartwatch"]
    # Not across punctuation, nor with a stop word or a number.
    assert not {"watchbought", "smartth", "threekid", "allergicto"} & set(
        query_terms("my smart watch. bought 3 kids allergic to")
    )


def test_the_day_of_a_date_is_no_term_but_a_count_is() -> None:
    assert "3" not in query_terms("What did John do on 3 June, 2023?")
    assert "3" not in query_terms("What did John do on August 3, 2023?")
    assert "3" in query_terms("Who has three kids?")


def test_the_adk_example_finds_the_allergy(memory_target: MemoryTarget) -> None:
    with memory_target.open() as mem:
        mem.remember_episode("My daughter is allergic to peanuts", speaker="user", session="s")
        mem.remember_episode("We went hiking on Saturday", speaker="user", session="s")
        mem.remember("The car broke down on the highway")
        mem.remember("Ardian bought a smartwatch")
        mem.remember("Kemala has three cats")
        hits = mem.recall("what allergies does the family have?", kinds=("episode",))
        assert hits[0].content == "My daughter is allergic to peanuts"
        assert mem.recall("is the car broken?")[0].content == "The car broke down on the highway"
        assert mem.recall("smart watch")[0].content == "Ardian bought a smartwatch"
        assert mem.recall("who has 3 cats")[0].content == "Kemala has three cats"


def _lexical_index(cur: Any, *, sqlite: bool) -> tuple[Any, ...]:
    return (
        cur.execute("SELECT rowid, body, ctx1, ctx2 FROM chronomem_lex ORDER BY rowid").fetchall(),
        stored_frequencies(cur, sqlite=sqlite),
        cur.execute(
            "SELECT owner, kind, sum(items), sum(length) FROM chronomem_corpus "
            "GROUP BY owner, kind ORDER BY owner, kind"
        ).fetchall(),
    )


def test_the_reindex_step_rebuilds_the_index_as_fresh_writes_would(
    memory_target: MemoryTarget,
) -> None:
    # The index as an older lexicon left it (here: emptied); the schema step that changed the
    # lexicon (SQLite 5, PostgreSQL 3) runs ``reindex``: here the same call, in the memory's
    # own write transaction (rewinding the schema version would re-run later steps too; the
    # frozen-schema tests migrate real older files through every step).
    from chronomem.recall.lexindex import reindex

    with memory_target.open() as mem:
        for i, text in enumerate(["Did you travel?", "Yes, a vacation!", "My kid is allergic"]):
            mem.remember_episode(text, speaker=f"p{i % 2}", session="s1")
        mem.remember_episode("A second session", speaker="p0", session="s2")
        mem.for_owner("other").remember("The car broke down")
    if memory_target.schema is None:
        conn: Any = sqlite3.connect(memory_target.path)
        wipe = [
            "chronomem_lex",
            "chronomem_term_stats",
            "chronomem_term_journal",
            "chronomem_corpus",
        ]
    else:
        conn = psycopg.connect(memory_target.path, autocommit=True)
        conn.execute(f'SET search_path TO "{memory_target.schema}"')
        wipe = ["chronomem_postings", "chronomem_term_stats", "chronomem_corpus", "chronomem_lex"]
    try:
        sqlite = memory_target.schema is None
        fresh = _lexical_index(conn, sqlite=sqlite)
        assert fresh[1]
        for table in wipe:
            conn.execute(f"DELETE FROM {table}")
        conn.commit()
        with memory_target.open() as mem:
            assert mem.recall("allergies", kinds=("episode",)) == []
            with mem._db.write() as write:
                reindex(write)
            assert mem.recall("allergies", kinds=("episode",))[0].content == "My kid is allergic"
        assert _lexical_index(conn, sqlite=sqlite) == fresh
    finally:
        conn.close()
