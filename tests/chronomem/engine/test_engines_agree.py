"""SQLite and PostgreSQL rank alike, and a memory moves between them exactly.

chronomem's ranking is its own (the index only finds candidates), so the same memory on
either engine must answer every question with the same items in the same order. Here the
graded tiers and a real LoCoMo conversation are stored on both, every question asked of both,
and the answers compared item by item; then a memory goes SQLite -> PostgreSQL -> SQLite
through ``chronomem export`` / ``import`` and comes back record for record.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from chronica import ActorKind, Actum, ActumKind, Chronicarius
from chronomem import ChronoMem
from chronomem._doors.settings import open_session_store
from chronomem.cli import main
from tests.chronomem import graded_data
from tests.chronomem.backends import dsn_url
from tests.chronomem.locomo_data import development_conversation


@pytest.fixture
def both(tmp_path: Path, pg_dsn: str, pg_schema: str) -> Iterator[dict[str, ChronoMem]]:
    """One empty memory per engine."""
    mems = {
        "sqlite": ChronoMem(tmp_path / "memory.db", owner="agree"),
        "postgres": ChronoMem(dsn_url(pg_dsn), owner="agree", schema=pg_schema),
    }
    yield mems
    for mem in mems.values():
        mem.close()


def _answers(mem: ChronoMem, question: str, **options: object) -> list[tuple[str, str]]:
    return [(item.kind, item.content) for item in mem.recall(question, **options)]  # type: ignore[arg-type]  # test options


def test_the_graded_tiers_rank_alike(both: dict[str, ChronoMem]) -> None:
    asked = 0
    for make in graded_data.RETRIEVAL_TIERS:
        tiers = {e: make(graded_data.HELD_OUT, m.for_owner(make.__name__)) for e, m in both.items()}
        for q_sqlite, q_postgres in zip(
            tiers["sqlite"].queries, tiers["postgres"].queries, strict=True
        ):
            assert q_sqlite.text == q_postgres.text
            options = {k: v for k, v in q_sqlite.kwargs.items() if k != "budget_of"}
            answers = {
                e: _answers(t.mem, q_sqlite.text, limit=10, **options) for e, t in tiers.items()
            }
            assert answers["sqlite"] == answers["postgres"], q_sqlite.text
            asked += 1
    assert asked >= 40


def test_a_real_conversation_ranks_alike(both: dict[str, ChronoMem]) -> None:
    from scripts.locomo import remember_episodes

    conversation = development_conversation("conv-30")  # skips without the set, fails in CI
    for mem in both.values():
        remember_episodes(mem, conversation)
    for q in conversation.questions:
        got = {e: _answers(m, q.text, limit=10, kinds=("episode",)) for e, m in both.items()}
        assert got["sqlite"] == got["postgres"], q.text


def _export(db: str, out: Path) -> list[dict[str, object]]:
    assert main(["export", str(out), "--db", db, "--owner", "mover"]) == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    return [r for r in records if "end" not in r]  # the trailer names the file's digest


def _import(file: Path, db: str) -> None:
    assert main(["import", str(file), "--db", db, "--owner", "mover"]) == 0


def test_a_memory_moves_to_postgresql_and_back_exactly(
    tmp_path: Path, pg_database: Callable[[], str]
) -> None:
    source = tmp_path / "source.db"
    with ChronoMem(source, owner="mover") as mem:
        old = mem.remember("Ardian's team meets on Tuesdays", category="work")
        mem.supersede(old, "Ardian's team meets on Thursdays", category="work")
        gone = mem.remember("Ardian drinks espresso")
        mem.forget(gone, reason="he switched to tea")
        mem.remember_episode("Shall we book the Lisbon trip?", speaker="Ardian", session="s1")
        mem.remember_episode("Yes, flights on Friday.", speaker="planner", session="s1")
    with open_session_store(source) as store:
        Chronicarius(store).record_actum(
            "mover",
            Actum(chronicum_id="trip", kind=ActumKind.MESSAGE, actor_kind=ActorKind.HUMAN,
                  actor="Ardian", content="Find flights to Lisbon"),
        )  # fmt: skip
    # The command line takes the database from --db; with a DSN its tables go to the schema
    # "chronomem" (and chronica's to "chronica"), so this test uses a database of its own.
    database = pg_database()
    first = _export(str(source), tmp_path / "first.jsonl")
    assert (
        main(["import", str(tmp_path / "first.jsonl"), "--db", database, "--owner", "mover"]) == 0
    )
    middle = _export(database, tmp_path / "middle.jsonl")
    back = tmp_path / "back.db"
    assert (
        main(["import", str(tmp_path / "middle.jsonl"), "--db", str(back), "--owner", "mover"]) == 0
    )
    last = _export(str(back), tmp_path / "last.jsonl")
    assert first == middle == last
    kinds = {next(iter(r)) for r in first}
    assert {"fact", "chronicum", "actum"} <= kinds
