"""What the inspector opens, on each engine: a database without a memory or sessions is shown
empty and left exactly as it was (the inspector creates no table, no schema), sessions written
after it started appear, its PostgreSQL connections cannot write, and a server that is down is
one readable line."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest
from starlette.testclient import TestClient

from chronica import ActorKind, Actum, ActumKind, Chronicarius, StoreError
from chronomem.cli import main as cli_main
from chronomem.ui import Sources, UiConfig, build_app
from chronomem.ui._sessions import Window, open_reader
from chronomem.ui._sources import NO_MEMORY
from tests.chronomem.backends import Databases, is_untouched

from .conftest import drop_database, new_database
from .sample import OWNER, Db, session_store


def _empty(databases: Databases) -> Db:
    db = databases.new("empty")
    if isinstance(db, Path):
        db.write_bytes(b"")  # the inspector refuses a file that does not exist
    return db


def _tables(db: Db) -> list[str]:
    """Every table chronomem or chronica could have made in ``db``."""
    if isinstance(db, Path):
        with sqlite3.connect(db) as conn:
            return [r[0] for r in conn.execute("SELECT name FROM sqlite_master")]
    with psycopg.connect(db) as conn:
        rows = conn.execute(
            "SELECT schemaname || '.' || tablename FROM pg_tables "
            "WHERE schemaname NOT IN ('pg_catalog', 'information_schema')"
        ).fetchall()
    return [r[0] for r in rows]


def _get(client: TestClient, path: str, **params: Any) -> Any:
    response = client.get(path, params=params)
    assert response.status_code == 200, response.text
    return response.json()


def _client(db: Db) -> TestClient:
    config = UiConfig(db=db, owner=OWNER, port=8766)
    return TestClient(build_app(config), base_url="http://127.0.0.1:8766")


def test_an_empty_database_is_shown_empty_and_left_untouched(databases: Databases) -> None:
    db = _empty(databases)
    with _client(db) as client:
        assert _get(client, "/api/info")["note"] == NO_MEMORY
        assert _get(client, "/api/sessions")["sessions"] == []
        assert client.get("/api/acta", params={"session": "s"}).status_code == 404
        assert _get(client, "/api/recall", q="anything", budget=50)["results"] == []
        assert _get(client, "/api/timeline", entity="Ardian")["total"] == 0
        assert _get(client, "/api/contradictions")["total"] == 0
    assert _tables(db) == []
    if isinstance(db, str):
        assert is_untouched(db)


def test_sessions_without_a_memory_are_shown_and_no_memory_is_made(
    databases: Databases,
) -> None:
    db = _empty(databases)
    with session_store(db) as store:
        Chronicarius(store).record_actum(OWNER, Actum(
            chronicum_id="s", kind=ActumKind.MESSAGE, actor_kind=ActorKind.HUMAN, actor="me",
            content="hello"))  # fmt: skip
    before = _tables(db)
    with _client(db) as client:
        assert [s["id"] for s in _get(client, "/api/sessions")["sessions"]] == ["s"]
        assert [a["content"] for a in _get(client, "/api/acta", session="s")["acta"]] == ["hello"]
        assert _get(client, "/api/info")["note"] == NO_MEMORY
        assert _get(client, "/api/recall", q="hello")["results"] == []
    assert _tables(db) == before
    assert not any("chronomem" in t for t in before)


def test_sessions_written_after_the_inspector_opened_appear(databases: Databases) -> None:
    db = _empty(databases)
    with _client(db) as client:
        assert _get(client, "/api/sessions")["sessions"] == []
        with session_store(db) as store:  # chronica creates its tables only now
            Chronicarius(store).record_actum(OWNER, Actum(
                chronicum_id="late", kind=ActumKind.MESSAGE, actor_kind=ActorKind.AGENT,
                actor="a", content="here now"))  # fmt: skip
        [found] = _get(client, "/api/sessions")["sessions"]
        assert (found["id"], found["acta"]) == ("late", 1)
        assert found["last_at"].endswith("+00:00")
        page = _get(client, "/api/acta", session="late", after=0)
        assert [a["content"] for a in page["acta"]] == ["here now"]


def test_postgres_reader_connections_cannot_write(pg_dsn: str) -> None:
    db = new_database(pg_dsn)
    try:
        with session_store(db) as store:
            Chronicarius(store).record_actum(OWNER, Actum(
                chronicum_id="s", kind=ActumKind.MESSAGE, actor_kind=ActorKind.HUMAN,
                actor="me", content="hello"))  # fmt: skip
        reader = open_reader(db)
        try:
            with pytest.raises(StoreError) as refused:
                Chronicarius(reader.store).record_actum(OWNER, Actum(
                    chronicum_id="s", kind=ActumKind.MESSAGE, actor_kind=ActorKind.HUMAN,
                    actor="me", content="never stored"))  # fmt: skip
            assert isinstance(refused.value.__cause__, psycopg.errors.ReadOnlySqlTransaction)
            page = reader.page(OWNER, "s", Window(), limit=10)
            assert [a["content"] for a in page.acta] == ["hello"]
        finally:
            reader.close()
    finally:
        drop_database(pg_dsn, db)


def test_a_server_that_is_down_is_one_readable_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    started = time.monotonic()
    dsn = "postgresql://someone:s3cret@127.0.0.1:1/nowhere"
    assert cli_main(["ui", "--db", dsn]) == 1
    assert time.monotonic() - started < 10
    err = capsys.readouterr().err
    assert "cannot open postgresql://someone@127.0.0.1:1/nowhere" in err
    assert "s3cret" not in err
    assert "Traceback" not in err


def test_the_header_names_the_database_without_its_password(sample_db: Db) -> None:
    sources = Sources.open(sample_db, OWNER)
    try:
        assert sources.note is None
        assert sources.memory is not None
        assert sources.db == sources.memory.path
    finally:
        sources.close()
