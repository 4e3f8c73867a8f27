"""Bad input: a clear error naming the field, and nothing written; foreign files untouched."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chronomem import (
    ChronoMem,
    ChronoMemError,
    DatabaseError,
    EpisodeNotFoundError,
    FactNotActiveError,
    FactNotFoundError,
    InvalidArgumentError,
    InvalidFactError,
    RecordNotFoundError,
    UnknownIdError,
)
from tests.chronomem.backends import MemoryTarget, count

TABLES = (
    "chronomem_facts",
    "chronomem_lex",
    "chronomem_entities",
    "chronomem_fact_entities",
    "chronomem_entity_links",
)


@pytest.fixture
def mem(memory_target: MemoryTarget) -> Iterator[ChronoMem]:
    with memory_target.open() as m:
        m.remember("Alice Smith owns the TN-2420 printer", category="office")
        yield m


def counts(mem: ChronoMem) -> tuple[int, ...]:
    return tuple(count(mem, table) for table in TABLES)


BAD_REMEMBER: list[tuple[str, dict[str, Any]]] = [
    ("content", {"content": ""}),
    ("content", {"content": "   \n\t"}),
    ("content", {"content": 42}),
    ("content", {"content": None}),
    ("content", {"content": b"bytes"}),
    ("content", {"content": "nul \x00 inside"}),
    ("content", {"content": "lone \ud800 surrogate"}),
    ("content", {"content": "x" * (64 * 1024 + 1)}),
    ("trust", {"trust": 1.5}),
    ("trust", {"trust": -0.1}),
    ("trust", {"trust": float("nan")}),
    ("trust", {"trust": "high"}),
    ("trust", {"trust": True}),
    ("confidence", {"confidence": 2}),
    ("confidence", {"confidence": float("nan")}),
    ("confidence", {"confidence": float("inf")}),
    ("category", {"category": ""}),
    ("category", {"category": 5}),
    ("valid_from", {"valid_from": "2024-01-01"}),
    ("valid_from", {"valid_from": 1700000000}),
    ("entities", {"entities": "Alice"}),
    ("entities", {"entities": [""]}),
    ("entities", {"entities": [3]}),
    ("entities", {"entities": ["e"] * 33}),
    ("source", {"source": 7}),
    ("metadata", {"metadata": [1, 2]}),
    ("metadata", {"metadata": {1: "int key"}}),
    ("metadata", {"metadata": {"x": object()}}),
    ("metadata", {"metadata": {"x": float("nan")}}),
    ("metadata", {"metadata": {"x": "y" * (64 * 1024)}}),
]


@pytest.mark.parametrize(("field", "kwargs"), BAD_REMEMBER)
def test_bad_remember_names_field_and_writes_nothing(
    mem: ChronoMem, field: str, kwargs: dict[str, Any]
) -> None:
    before = counts(mem)
    args = {"content": "Bob likes tea", **kwargs}
    content = args.pop("content")
    with pytest.raises(InvalidFactError) as info:
        mem.remember(content, **args)
    assert info.value.field == field
    assert isinstance(info.value, ChronoMemError)
    assert isinstance(info.value, ValueError)
    assert counts(mem) == before


@pytest.mark.parametrize(("field", "kwargs"), BAD_REMEMBER)
def test_bad_supersede_writes_nothing(mem: ChronoMem, field: str, kwargs: dict[str, Any]) -> None:
    old = mem.remember("Bob's desk is on floor 2")
    before = counts(mem)
    args = {"content": "Bob's desk is on floor 3", **kwargs}
    content = args.pop("content")
    with pytest.raises(InvalidFactError) as info:
        mem.supersede(old, content, **args)
    assert info.value.field == field
    assert counts(mem) == before
    assert mem.get(old)["superseded_by"] is None


def test_content_at_the_limit_is_accepted(mem: ChronoMem) -> None:
    fid = mem.remember("y" * (64 * 1024))
    assert len(mem.get(fid).content) == 64 * 1024


def test_odd_but_valid_unicode_round_trips(mem: ChronoMem) -> None:
    text = "Zoë's café 東京 🚀 e\u0301 \u200b RTL \u202e text"
    fid = mem.remember(text)
    assert mem.get(fid).content == text
    assert [f.id for f in mem.recall("café 東京")] == [fid]


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda m: m.get(3), "fact_id"),
        (lambda m: m.get(""), "fact_id"),
        (lambda m: m.forget(None), "fact_id"),
        (lambda m: m.forget("x", reason=5), "reason"),
        (lambda m: m.recall(""), "query"),
        (lambda m: m.recall("   "), "query"),
        (lambda m: m.recall(None), "query"),
        (lambda m: m.recall("x", token_budget=-1), "token_budget"),
        (lambda m: m.recall("x", token_budget=1.5), "token_budget"),
        (lambda m: m.recall("x", limit=0), "limit"),
        (lambda m: m.recall("x", as_of="yesterday"), "as_of"),
        (lambda m: m.recall("x", known_at=3), "known_at"),
        (lambda m: m.recall("x", category=""), "category"),
        (lambda m: m.recall("x", active_only="yes"), "active_only"),
        (lambda m: m.timeline(""), "entity"),
        (lambda m: m.supersede(m.remember_episode("hi", speaker="A", session="s"), "x"), "old_id"),
    ],
)
def test_bad_arguments(mem: ChronoMem, call: Callable[[ChronoMem], object], field: str) -> None:
    before = counts(mem)
    with pytest.raises(InvalidArgumentError) as info:
        call(mem)
    assert info.value.field == field
    assert not isinstance(info.value, InvalidFactError)  # about the call, not a fact
    assert isinstance(info.value, ChronoMemError)
    assert isinstance(info.value, ValueError)
    if field != "old_id":
        assert counts(mem) == before


@pytest.mark.parametrize(
    ("records", "field"),
    [([{"id": "x"}], "content"), (["nope"], "record"), ([{"id": "", "content": "x"}], "fact_id")],
)
def test_a_bad_record_to_import_is_a_bad_fact(
    mem: ChronoMem, records: list[object], field: str
) -> None:
    before = counts(mem)
    with pytest.raises(InvalidFactError) as info:
        mem.import_facts(records)  # type: ignore[arg-type]  # the bad record is the point
    assert info.value.field == field
    assert counts(mem) == before


def test_constructor_arguments(memory_target: MemoryTarget) -> None:
    cases: list[tuple[dict[str, Any], str]] = [
        ({"owner": ""}, "owner"),
        ({"owner": 3}, "owner"),
        ({"weights": {"bogus": 1}}, "weights"),
        ({"weights": {"bm25": -1}}, "weights"),
        ({"weights": {"bm25": float("nan")}}, "weights"),
        ({"token_counter": 5}, "token_counter"),
    ]
    for kwargs, field in cases:
        with pytest.raises(InvalidArgumentError) as info:
            memory_target.open(**kwargs)
        assert info.value.field == field
        assert not isinstance(info.value, InvalidFactError)


def test_unknown_ids_are_not_found(mem: ChronoMem) -> None:
    before = counts(mem)
    with pytest.raises(FactNotFoundError) as info:
        mem.supersede("deadbeef", "Alice is here")
    assert not isinstance(info.value, EpisodeNotFoundError)  # only a fact is superseded
    assert str(info.value) == "fact 'deadbeef' not found"
    assert counts(mem) == before


def test_an_unknown_id_is_neither_a_fact_nor_an_episode(mem: ChronoMem) -> None:
    episode = mem.remember_episode("I moved to Menteng", speaker="Ardian", session="s")
    stranger = mem.for_owner("someone else")
    for call in (stranger.get, stranger.forget, mem.get, mem.forget):
        known = call in (stranger.get, stranger.forget)
        with pytest.raises(RecordNotFoundError) as info:
            call(episode if known else "deadbeef")
        # Code catching either kind's error catches it; the message names both kinds.
        error = info.value
        assert isinstance(error, UnknownIdError)
        assert isinstance(error, EpisodeNotFoundError)
        assert isinstance(error, FactNotFoundError)
        assert isinstance(error, LookupError)
        assert error.record_id == error.episode_id == error.fact_id
        assert "fact or episode" in str(info.value)


def test_an_episode_not_active_says_episode(mem: ChronoMem) -> None:
    episode = mem.remember_episode("I moved to Menteng", speaker="Ardian", session="s")
    mem.forget(episode)
    with pytest.raises(FactNotActiveError) as info:
        mem.forget(episode)
    assert info.value.kind == "episode"
    assert str(info.value) == f"episode {episode!r} is not active (already forgotten)"


@given(query=st.text(min_size=1, max_size=80).filter(lambda s: s.strip() and "\x00" not in s))
@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_any_query_text_is_safe(mem: ChronoMem, query: str) -> None:
    try:
        query.encode("utf-8")
    except UnicodeEncodeError:
        with pytest.raises(InvalidArgumentError):
            mem.recall(query)
        return
    results = mem.recall(query, token_budget=50)
    assert sum(f.tokens for f in results) <= 50


# (query in FTS5's syntax, the fact its plain words name): were the query handed to MATCH, each
# would be a syntax error, an operator or a column filter, and an error swallowed into an
# empty answer would look the same as "nothing found" unless the fact is asked for.
FTS_SYNTAX = [
    ('"Kinara', "Kinara serves a famous rendang"),
    ("Volvo AND OR NOT", "Hank drives a Volvo estate"),
    ("NEAR(Menteng Kemang)", "Ardian moved from Kemang to Menteng"),
    ("thinkpad*", "Bea's laptop is a ThinkPad T14"),
    ("col:Bandung", "Priya grew up in Bandung"),
    ("^Emacs", "Gina writes her notes in Emacs"),
    ("'); DROP TABLE chronomem_facts;--", "The drop-leaf table folds flat"),
    ("-Zurich +Oslo", "Jonas flies from Zurich to Oslo on Monday"),
]


@pytest.mark.parametrize(("query", "fact"), FTS_SYNTAX, ids=[q for q, _ in FTS_SYNTAX])
def test_fts_syntax_is_data(mem: ChronoMem, query: str, fact: str) -> None:
    ids = {text: mem.remember(text) for _, text in FTS_SYNTAX}
    before = counts(mem)
    assert ids[fact] in [f.id for f in mem.recall(query, limit=3)]
    assert counts(mem) == before  # and the table the last-but-one query names is still there


def _hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_not_a_database_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    path.write_bytes(b"these are my notes, not a database\n" * 100)
    digest = _hash(path)
    with pytest.raises(DatabaseError):
        ChronoMem(path)
    assert _hash(path) == digest
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.db"]


def test_corrupt_database_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "corrupt.db"
    with ChronoMem(path) as m:
        m.remember("Alice likes tea")
    raw = bytearray(path.read_bytes())
    raw[100:4096] = b"\xff" * (4096 - 100)  # the schema page, right after the header
    path.write_bytes(bytes(raw))
    digest = _hash(path)
    with pytest.raises(DatabaseError):
        ChronoMem(path)
    assert _hash(path) == digest


def test_foreign_database_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "app.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)")
    conn.execute("INSERT INTO customers (name) VALUES ('x')")
    conn.commit()
    conn.close()
    digest = _hash(path)
    with pytest.raises(DatabaseError, match="another application"):
        ChronoMem(path)
    assert _hash(path) == digest


def test_too_new_schema_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    ChronoMem(path).close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE chronomem_schema SET version = 999")
    conn.commit()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    digest = _hash(path)
    with pytest.raises(DatabaseError, match="999"):
        ChronoMem(path)
    assert _hash(path) == digest


def test_file_shared_with_chronica_tables_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE chronica_schema (version INTEGER NOT NULL)")
    conn.execute("CREATE TABLE chronica_acta (id INTEGER PRIMARY KEY)")
    conn.commit()
    conn.close()
    with ChronoMem(path) as m:
        m.remember("Alice likes tea")
    conn = sqlite3.connect(path)
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    conn.close()
    assert all(n.startswith(("chronica_", "chronomem_", "sqlite_")) for n in names)
    assert {"chronica_acta", "chronomem_facts", "chronomem_schema"} <= names


def test_directory_path_is_refused(tmp_path: Path) -> None:
    with pytest.raises(DatabaseError):
        ChronoMem(tmp_path)


def test_closed_memory_raises_database_error(memory_target: MemoryTarget) -> None:
    m = memory_target.open()
    m.close()
    with pytest.raises(DatabaseError):
        m.remember("Alice likes tea")


def test_naive_and_aware_times_agree(mem: ChronoMem) -> None:
    a = mem.remember("Carl is in Rome", valid_from=datetime(2024, 5, 1, 12))
    assert mem.get(a)["valid_from"] == "2024-05-01T12:00:00+00:00"


@pytest.mark.parametrize("bad", ["a\x00b", "\ud800", "   ", "x" * 201])
def test_a_bad_id_is_invalid_not_missing(memory_target: MemoryTarget, bad: str) -> None:
    with memory_target.open() as mem:
        for call in (mem.get, mem.forget, lambda i: mem.supersede(i, "x is y")):
            with pytest.raises(InvalidArgumentError) as info:
                call(bad)
            assert info.value.field == "fact_id"
            assert not isinstance(info.value, InvalidFactError)
