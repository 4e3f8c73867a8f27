"""The core lifecycle: remember, supersede, forget, get, timeline, stats, export/import."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from chronomem import (
    ChronoMem,
    Fact,
    FactId,
    FactNotActiveError,
    FactNotFoundError,
    InvalidFactError,
)
from tests.chronomem.backends import MemoryTarget


@pytest.fixture
def mem(memory_target: MemoryTarget) -> Iterator[ChronoMem]:
    with memory_target.open() as m:
        yield m


def test_seed_snippet_runs_verbatim(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    from chronomem import ChronoMem

    with ChronoMem("agent_memory.db") as mem:
        # 1. Ingest fact
        f1 = mem.remember("ThinkPad T14 primary interface is Wi-Fi", category="net")

        # 2. Invalidate and supersede upon state change
        f2 = mem.supersede(
            f1, "ThinkPad T14 primary interface switched to Ethernet", category="net"
        )

        # 3. Query active facts with token constraint
        facts = mem.recall("ThinkPad network interface", token_budget=150, active_only=True)
        for f in facts:
            print(f"[{f['trust_score']:.1f}] {f['content']}")

        # 4. Audit lineage
        history = mem.timeline("ThinkPad T14")
        assert len(history) == 2
    assert [f.id for f in facts] == [f2]
    assert [h.id for h in history] == [f1, f2]


def test_remember_returns_fact_id_and_get_round_trips(mem: ChronoMem) -> None:
    fid = mem.remember(
        "Alice Smith owns the TN-2420 printer",
        category="office",
        trust=0.9,
        confidence=0.7,
        source="chat",
        metadata={"k": [1, 2]},
    )
    assert isinstance(fid, FactId)
    assert isinstance(fid, str)
    assert fid.contradicts == ()
    fact = mem.get(fid)
    assert isinstance(fact, Fact)
    assert fact["content"] == fact.content == "Alice Smith owns the TN-2420 printer"
    assert fact.category == "office"
    assert fact.trust_score == 0.9
    assert fact.confidence == 0.7
    assert fact.source == "chat"
    assert fact.metadata == {"k": [1, 2]}
    assert set(fact.entities) == {"Alice Smith", "TN-2420"}
    assert fact.system_time.tzinfo is not None
    assert fact.valid_from == fact.system_time
    assert fact.valid_until is None
    assert fact.invalidated_at is None
    assert fact.superseded_by is None
    assert not fact.forgotten
    assert fact.score == 0.0
    assert fact.ranks == {}
    json.dumps(fact.to_dict())
    with pytest.raises(KeyError):
        fact["nope"]


def test_supersede_closes_old_fact_in_one_step(mem: ChronoMem) -> None:
    old = mem.remember("ThinkPad T14 primary interface is Wi-Fi", category="net")
    new = mem.supersede(old, "ThinkPad T14 primary interface switched to Ethernet", category="net")
    before, after = mem.get(old), mem.get(new)
    assert isinstance(before, Fact)
    assert isinstance(after, Fact)
    assert before.superseded_by == new
    assert before.valid_until == after.valid_from
    assert before.invalidated_at == after.system_time
    assert after.superseded_by is None
    assert new.contradicts == ()


def test_superseding_twice_is_an_error(mem: ChronoMem) -> None:
    old = mem.remember("Bob's desk is on floor 2")
    mem.supersede(old, "Bob's desk is on floor 3")
    with pytest.raises(FactNotActiveError):
        mem.supersede(old, "Bob's desk is on floor 4")
    with pytest.raises(FactNotActiveError):
        mem.forget(old)
    assert mem.stats()["facts"] == 2


def test_forget_is_soft(mem: ChronoMem) -> None:
    fid = mem.remember("Carol prefers the Zebra ZT410 printer")
    mem.forget(fid, reason="wrong person")
    fact = mem.get(fid)
    assert fact.forgotten
    assert fact.forget_reason == "wrong person"
    assert fact.invalidated_at is not None
    assert mem.recall("Zebra printer") == []
    assert mem.recall("Zebra printer", active_only=False) == []
    assert [f.id for f in mem.timeline("Zebra ZT410")] == [fid]
    with pytest.raises(FactNotActiveError):
        mem.forget(fid)
    with pytest.raises(FactNotActiveError):
        mem.supersede(fid, "Carol prefers the Zebra ZT411 printer")


def test_unknown_ids(mem: ChronoMem) -> None:
    for call in (
        lambda: mem.get("nope"),
        lambda: mem.forget("nope"),
        lambda: mem.supersede("nope", "x is y"),
    ):
        with pytest.raises(FactNotFoundError):
            call()


def test_owners_are_isolated(memory_target: MemoryTarget) -> None:
    with memory_target.open(owner="alice") as a, memory_target.open(owner="bob") as b:
        fid = a.remember("Project Falcon uses PostgreSQL")
        assert b.recall("Project Falcon") == []
        assert b.timeline("Project Falcon") == []
        for call in (lambda: b.get(fid), lambda: b.forget(fid), lambda: b.supersede(fid, "x")):
            with pytest.raises(FactNotFoundError):
                call()
        assert b.stats()["facts"] == 0
        assert list(b.export_facts()) == []
        assert a.get(fid).id == fid


def test_recall_explains_itself(mem: ChronoMem) -> None:
    mem.remember("Project Falcon uses PostgreSQL 15 for storage")
    mem.remember("The cafeteria opens at 8am")
    [hit] = mem.recall("Which database does Project Falcon use?", limit=1)
    assert hit.content.startswith("Project Falcon")
    assert hit.score > 0
    assert hit.tokens > 0
    assert hit.ranks["bm25"] == 1
    assert hit.ranks["entity"] == 1


def test_timeline_resolves_spelling_variants(mem: ChronoMem) -> None:
    a = mem.remember("The TN-2420 toner is low")
    b = mem.remember("Replaced the toner of tn2420 today", entities=["tn 2420", "TN2420"])
    assert [f.id for f in mem.timeline("TN-2420")] == [a, b]
    assert [f.id for f in mem.timeline("tn2420")] == [a, b]
    assert [f.id for f in mem.timeline("ＴＮ－２４２０")] == [a, b]  # noqa: RUF001 -- full-width on purpose
    assert [f.id for f in mem.timeline("TN 2420")] == [b]
    assert mem.get(b)["entities"] == ["tn 2420", "TN2420"]


def test_stats(mem: ChronoMem) -> None:
    a = mem.remember("Dana is in Berlin")
    mem.supersede(a, "Dana is in Paris")
    mem.forget(mem.remember("Eve likes tea"))
    stats = mem.stats()
    assert stats["facts"] == 3
    assert stats["active"] == 1
    assert stats["superseded"] == 1
    assert stats["forgotten"] == 1
    assert int(stats["entities"]) >= 3


def test_export_import_is_lossless(mem: ChronoMem, memory_target: MemoryTarget) -> None:
    a = mem.remember("Dana is in Berlin", metadata={"x": 1}, source="s", category="loc")
    b = mem.supersede(a, "Dana is in Paris", category="loc")
    mem.forget(mem.remember("Eve likes tea"), reason="old")
    exported = list(mem.export_facts())
    json.dumps(exported)
    with memory_target.sibling("copy").open() as other:
        assert other.import_facts(json.loads(json.dumps(exported))) == 3
        assert other.import_facts(exported) == 0
        assert list(other.export_facts()) == exported
        assert [f.id for f in other.timeline("Dana")] == [a, b]
        assert [f.id for f in other.recall("Dana")] == [b]


def test_import_is_all_or_nothing(mem: ChronoMem) -> None:
    good = {
        "id": "x1",
        "content": "Zed is here",
        "system_time": "2024-01-01T00:00:00+00:00",
        "valid_from": "2024-01-01T00:00:00+00:00",
    }
    bad = {**good, "id": "x2", "trust_score": 7}
    with pytest.raises(InvalidFactError) as info:
        mem.import_facts([good, bad])
    assert info.value.field == "trust"
    dangling = {**good, "superseded_by": "ghost", "invalidated_at": good["system_time"]}
    with pytest.raises(InvalidFactError):
        mem.import_facts([dangling])
    assert mem.stats()["facts"] == 0


def test_close_releases_and_reopens(memory_target: MemoryTarget) -> None:
    mem = memory_target.open()
    fid = mem.remember("Frank uses Vim")
    mem.close()
    mem.close()
    with memory_target.open() as again:
        assert again.get(fid).content == "Frank uses Vim"


def test_in_memory_database() -> None:
    with ChronoMem(":memory:") as mem:
        fid = mem.remember("Gina uses Emacs")
        assert mem.get(fid).content == "Gina uses Emacs"


def test_custom_token_counter(memory_target: MemoryTarget) -> None:
    with memory_target.open(token_counter=lambda s: 7) as mem:
        mem.remember("Hank drives a Volvo XC90")
        [hit] = mem.recall("Volvo")
        assert hit.tokens == 7


def test_schema_is_versioned_and_migrated_once(tmp_path: Path) -> None:
    import sqlite3

    from chronomem.engine.sqlite.schema import SCHEMA_VERSION

    path = tmp_path / "v.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE chronomem_schema (version INTEGER NOT NULL)")  # version 0
    conn.commit()
    conn.close()
    for _ in range(2):
        ChronoMem(path).close()
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("SELECT version FROM chronomem_schema").fetchall() == [
            (SCHEMA_VERSION,)
        ]
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    finally:
        conn.close()


def test_a_version_1_file_is_migrated_with_its_facts_recallable(tmp_path: Path) -> None:
    # A file written by chronomem 0.1 (schema 1: FTS5 with porter over content) gains episodes
    # and the new lexical index; every fact keeps its row and becomes findable again.
    import sqlite3

    from chronomem.engine.sqlite.schema import _V1, SCHEMA_VERSION

    path = tmp_path / "v1.db"
    conn = sqlite3.connect(path)
    for statement in _V1.split(";\n"):
        if statement.strip():
            conn.execute(statement)
    conn.execute("CREATE TABLE chronomem_schema (version INTEGER NOT NULL)")
    conn.execute("INSERT INTO chronomem_schema VALUES (1)")
    for i, text in enumerate(["Ardian lives in Kemang", "The Kinara booking is at 7pm"], 1):
        conn.execute(
            """INSERT INTO chronomem_facts (rowid, id, owner, content, trust, confidence,
               entities, terms, system_time, valid_from) VALUES (?, ?, 'default', ?, 0.8, 1.0,
               '[]', '', 1, 1)""",
            (i, f"f{i}", text),
        )
        conn.execute("INSERT INTO chronomem_fts (rowid, content) VALUES (?, ?)", (i, text))
    # Version 1 keyed "ThinkPad-T14" as "thinkpadt14"; version 3 folds it to "thinkpad t14".
    conn.execute(
        "INSERT INTO chronomem_entities VALUES (1, 'default', 'thinkpadt14', 'ThinkPad-T14')"
    )
    conn.execute("INSERT INTO chronomem_fact_entities VALUES (1, 2)")
    conn.commit()
    conn.close()
    with ChronoMem(path) as mem:
        assert [f.id for f in mem.recall("where does Ardian live")] == ["f1"]
        assert [f.id for f in mem.recall("Kinara booking time")] == ["f2"]
        assert mem.stats()["schema_version"] == SCHEMA_VERSION
        assert [f.id for f in mem.timeline("ThinkPad T14")] == ["f2"]
        # Older facts got their content key: the same text is known, not stored again.
        assert mem.remember("ardian lives in Kemang.").duplicate_of == "f1"
        mem.remember_episode("We booked Kinara", speaker="booking", session="s")
    conn = sqlite3.connect(path)
    try:
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        assert "chronomem_fts" not in names
        assert conn.execute("SELECT count(*) FROM chronomem_lex").fetchone() == (3,)
    finally:
        conn.close()
