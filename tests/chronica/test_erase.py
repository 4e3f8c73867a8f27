"""Erasing an owner: Chronicarius's rules, and gone meaning gone on each engine.

The contract (:class:`chronica.storeconformance.ErasableStoreContract`) proves the rows are
gone for every reader; here SQLite proves the bytes are gone from the database, ``-wal`` and
``-shm`` files, and PostgreSQL that no row of any table in the schema holds the marker.
"""

from __future__ import annotations

import asyncio
import sqlite3
import uuid
from pathlib import Path

import psycopg
import pytest

from chronica import (
    ActorKind,
    Actum,
    ActumKind,
    AsyncChronicarius,
    ChronicaCounts,
    Chronicarius,
    ChronicumNotFoundError,
    EmptyOwnerIDError,
    EraseUnsupportedError,
    InvalidArgumentError,
    StoreError,
)
from chronica.stores.inmemory import InMemoryStore
from chronica.stores.postgres import PostgresStore
from chronica.stores.sqlite import SQLiteStore

from .spy import PlainStore


def _say(chronicum_id: str, content: str, **metadata: str) -> Actum:
    return Actum(chronicum_id=chronicum_id, kind=ActumKind.MESSAGE, actor_kind=ActorKind.HUMAN,
                 actor="ardian", content=content, metadata=metadata)  # fmt: skip


def _write_marked(c: Chronicarius, owner: str, marker: str) -> None:
    """Acta that carry ``marker`` in content (short, and long enough to overflow a page) and
    in metadata, in two chronica."""
    c.record_actum(owner, _say("lunch", f"my secret is {marker}"))
    c.record_actum(owner, _say("lunch", "nothing here", note=marker))
    c.record_actum(owner, _say("dinner", ("padding " * 4000) + marker + (" tail" * 2000)))


def test_chronicarius_erases_a_validated_owner_and_returns_the_counts() -> None:
    c = Chronicarius(InMemoryStore())
    c.record_actum("ardian", _say("lunch", "hello"))
    c.record_actum("ardian", _say("lunch", "again"))
    c.record_actum("beatriz", _say("lunch", "mine"))
    with pytest.raises(EmptyOwnerIDError):
        c.erase_owner("")
    assert c.erase_owner("ardian") == ChronicaCounts(chronica=1, acta=2)
    with pytest.raises(ChronicumNotFoundError):
        c.get_acta("ardian", "lunch")
    assert [a.content for a in c.get_acta("beatriz", "lunch")] == ["mine"]


def test_a_store_that_cannot_erase_says_so() -> None:
    with pytest.raises(EraseUnsupportedError, match="PlainStore"):
        Chronicarius(PlainStore()).erase_owner("ardian")


def test_async_chronicarius_erases_too() -> None:
    c = AsyncChronicarius(InMemoryStore())

    async def run() -> ChronicaCounts:
        await c.record_actum("ardian", _say("lunch", "hello"))
        return await c.erase_owner("ardian")

    assert asyncio.run(run()) == ChronicaCounts(chronica=1, acta=1)


def _occurrences(path: Path, marker: bytes) -> dict[str, int]:
    """How often ``marker`` appears in the database file and its ``-wal`` and ``-shm``."""
    found = {}
    for suffix in ("", "-wal", "-shm"):
        file = Path(f"{path}{suffix}")
        found[suffix or "db"] = file.read_bytes().count(marker) if file.exists() else 0
    return found


def test_sqlite_erasure_leaves_no_byte_of_the_owner(tmp_path: Path) -> None:
    path = tmp_path / "chronica.db"
    marker = f"MARKER-{uuid.uuid4().hex}"
    with SQLiteStore(path) as store:
        c = Chronicarius(store)
        _write_marked(c, "ardian", marker)
        c.record_actum("beatriz", _say("lunch", "beatriz keeps this"))
        before = _occurrences(path, marker.encode())
        assert sum(before.values()) >= 3, before  # the check can see the marker
        assert c.erase_owner("ardian") == ChronicaCounts(chronica=2, acta=3)
        # Still open, so the -wal and -shm files are there to be read.
        assert _occurrences(path, marker.encode()) == {"db": 0, "-wal": 0, "-shm": 0}
        assert [a.content for a in c.get_acta("beatriz", "lunch")] == ["beatriz keeps this"]
    assert b"beatriz keeps this" in path.read_bytes()


def test_sqlite_erasure_says_when_a_reader_kept_the_log(tmp_path: Path) -> None:
    path = tmp_path / "chronica.db"
    marker = f"MARKER-{uuid.uuid4().hex}"
    with SQLiteStore(path, busy_timeout=0.2) as store:
        c = Chronicarius(store)
        _write_marked(c, "ardian", marker)
        reader = sqlite3.connect(path, isolation_level=None)
        try:
            reader.execute("BEGIN")
            reader.execute("SELECT count(*) FROM chronica_acta").fetchone()  # holds a snapshot
            with pytest.raises(StoreError, match="erase again"):
                c.erase_owner("ardian")
        finally:
            reader.close()
        assert c.erase_owner("ardian") == ChronicaCounts(chronica=0, acta=0)
        assert _occurrences(path, marker.encode()) == {"db": 0, "-wal": 0, "-shm": 0}


@pytest.mark.postgres
def test_postgres_erasure_leaves_no_row_holding_the_marker(pg_dsn: str, pg_schema: str) -> None:
    marker, owner = f"MARKER-{uuid.uuid4().hex}", f"owner-{uuid.uuid4().hex}"
    with PostgresStore(pg_dsn, schema=pg_schema) as store:
        c = Chronicarius(store)
        _write_marked(c, owner, marker)
        c.record_actum("beatriz", _say("lunch", "beatriz keeps this"))
        assert _rows_holding(pg_dsn, pg_schema, marker) >= 3
        assert c.erase_owner(owner) == ChronicaCounts(chronica=2, acta=3)
        assert _rows_holding(pg_dsn, pg_schema, marker) == 0
        assert _rows_holding(pg_dsn, pg_schema, owner) == 0
        assert [a.content for a in c.get_acta("beatriz", "lunch")] == ["beatriz keeps this"]


def _rows_holding(dsn: str, schema: str, text: str) -> int:
    """Rows of every table in ``schema`` whose text form contains ``text``."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        tables = [r[0] for r in conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = %s", (schema,))]  # fmt: skip
        assert "chronica_acta" in tables
        return sum(
            conn.execute(
                f'SELECT count(*) FROM "{schema}"."{table}" AS t WHERE t::text LIKE %s',
                (f"%{text}%",),
            ).fetchone()[0]  # type: ignore[index]  # count(*) always answers one row
            for table in tables
        )


def test_chronicarius_erases_one_chronicum_validated() -> None:
    c = Chronicarius(InMemoryStore())
    c.record_actum("ardian", _say("lunch", "hello"))
    c.record_actum("ardian", _say("dinner", "kept"))
    with pytest.raises(EmptyOwnerIDError):
        c.erase_chronicum("", "lunch")
    with pytest.raises(InvalidArgumentError, match="chronicum_id"):
        c.erase_chronicum("ardian", "")
    with pytest.raises(EraseUnsupportedError, match="PlainStore"):
        Chronicarius(PlainStore()).erase_chronicum("ardian", "lunch")
    assert c.erase_chronicum("ardian", "lunch") == ChronicaCounts(chronica=1, acta=1)
    assert [a.content for a in c.get_acta("ardian", "dinner")] == ["kept"]

    async def run() -> ChronicaCounts:
        return await AsyncChronicarius(c.store).erase_chronicum("ardian", "dinner")

    assert asyncio.run(run()) == ChronicaCounts(chronica=1, acta=1)


def test_sqlite_erasing_a_chronicum_leaves_no_byte_of_it(tmp_path: Path) -> None:
    # Issue 39 item 3: a session's erase, to the bytes, as the owner's is.
    path = tmp_path / "chronica.db"
    marker = f"MARKER-{uuid.uuid4().hex}"
    with SQLiteStore(path) as store:
        c = Chronicarius(store)
        for session in ("lunch", "dinner"):
            c.record_actum("ardian", _say(session, f"my secret is {marker}", note=marker))
        c.record_actum("ardian", _say("lunch", ("padding " * 4000) + marker))
        c.record_actum("ardian", _say("breakfast", "ardian keeps this"))
        assert sum(_occurrences(path, marker.encode()).values()) >= 3
        assert c.erase_chronicum("ardian", "lunch") == ChronicaCounts(chronica=1, acta=2)
        assert c.erase_chronicum("ardian", "dinner") == ChronicaCounts(chronica=1, acta=1)
        assert _occurrences(path, marker.encode()) == {"db": 0, "-wal": 0, "-shm": 0}
        assert [a.content for a in c.get_acta("ardian", "breakfast")] == ["ardian keeps this"]


@pytest.mark.postgres
def test_postgres_erasing_a_chronicum_leaves_no_row_of_it(pg_dsn: str, pg_schema: str) -> None:
    marker = f"MARKER-{uuid.uuid4().hex}"
    with PostgresStore(pg_dsn, schema=pg_schema) as store:
        c = Chronicarius(store)
        c.record_actum("ardian", _say("lunch", f"my secret is {marker}", note=marker))
        c.record_actum("ardian", _say("dinner", "ardian keeps this"))
        assert _rows_holding(pg_dsn, pg_schema, marker) >= 1
        assert c.erase_chronicum("ardian", "lunch") == ChronicaCounts(chronica=1, acta=1)
        assert _rows_holding(pg_dsn, pg_schema, marker) == 0
        assert [a.content for a in c.get_acta("ardian", "dinner")] == ["ardian keeps this"]
