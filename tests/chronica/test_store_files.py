"""The stores on files and servers that are not (yet) chronica's, and on bad options.

Whatever chronica refuses, it refuses with a :class:`chronica.ChronicaError` and leaves the
file exactly as it found it: same bytes, same modification time, no ``-wal`` or ``-shm``.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import random
import sqlite3
import tempfile
import time
import traceback
from collections.abc import Iterator
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import pytest

from chronica import (
    ActorKind,
    Actum,
    ActumKind,
    ChronicaError,
    Chronicarius,
    ChronicaTypeError,
    CorruptDatabaseError,
    InvalidArgumentError,
    StoreError,
)
from chronica.stores.postgres import PostgresStore
from chronica.stores.sqlite import SQLiteStore

OWNER = "ardian"
CID = "dinner-friday"


def _actum(content: str = "Kemang, Friday 7pm.") -> Actum:
    return Actum(
        chronicum_id=CID,
        kind=ActumKind.MESSAGE,
        actor_kind=ActorKind.HUMAN,
        actor=OWNER,
        content=content,
    )


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _refused_untouched(path: Path, match: str, error: type[StoreError] = StoreError) -> None:
    before, modified = _digest(path), path.stat().st_mtime_ns
    siblings = set(path.parent.iterdir())
    with pytest.raises(error, match=match):
        SQLiteStore(path)
    assert _digest(path) == before
    assert path.stat().st_mtime_ns == modified
    assert set(path.parent.iterdir()) == siblings  # no -wal / -shm / -journal left behind


def _damage_a_middle_page(path: Path) -> None:
    """Overwrite one page in the middle with noise, as a bad disk sector or a stray write would."""
    with sqlite3.connect(path) as raw:
        (page_size,) = raw.execute("PRAGMA page_size").fetchone()
        (pages,) = raw.execute("PRAGMA page_count").fetchone()
    raw.close()
    with path.open("r+b") as f:
        f.seek(page_size * (pages // 2))
        f.write(random.Random(7).randbytes(page_size))
    os.utime(path, ns=(1_600_000_000_000_000_000,) * 2)  # a past mtime, so a write would show


def _chronomem_file(path: Path) -> None:
    """A healthy file of chronomem's, the kind chronica adds its tables to."""
    with sqlite3.connect(path) as raw:
        raw.execute("CREATE TABLE chronomem_schema (version INTEGER NOT NULL)")
        raw.execute("INSERT INTO chronomem_schema VALUES (1)")
        raw.execute("CREATE TABLE chronomem_notes (id INTEGER PRIMARY KEY, content TEXT)")
        rows = [(f"note {i}: a quiet table for four in Kemang " * 3,) for i in range(2000)]
        raw.executemany("INSERT INTO chronomem_notes (content) VALUES (?)", rows)
    raw.close()


def test_a_corrupt_database_that_still_opens_is_refused_untouched(sqlite_path: Path) -> None:
    _chronomem_file(sqlite_path)
    _damage_a_middle_page(sqlite_path)
    with sqlite3.connect(sqlite_path) as raw:  # it still opens and answers simple queries
        assert raw.execute("SELECT version FROM chronomem_schema").fetchone() == (1,)
    raw.close()
    _refused_untouched(sqlite_path, "integrity check", CorruptDatabaseError)
    _refused_untouched(sqlite_path, "integrity check", CorruptDatabaseError)  # and every time


def test_a_file_that_is_not_sqlite_is_refused_untouched(sqlite_path: Path) -> None:
    sqlite_path.write_text("Kemang, Friday 7pm, table for four.\n" * 200)
    _refused_untouched(sqlite_path, "cannot open as a chronica database")


def test_a_corrupt_sqlite_file_is_refused_untouched(sqlite_path: Path) -> None:
    rng = random.Random(7)
    sqlite_path.write_bytes(b"SQLite format 3\x00" + rng.randbytes(8192))
    _refused_untouched(sqlite_path, "cannot open as a chronica database")


def test_another_applications_database_is_refused_untouched(sqlite_path: Path) -> None:
    with sqlite3.connect(sqlite_path) as raw:
        raw.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")
        raw.execute("INSERT INTO users (name) VALUES ('ardian')")
    raw.close()
    _refused_untouched(sqlite_path, "some other application")


def test_a_newer_chronica_schema_is_refused_untouched(sqlite_path: Path) -> None:
    SQLiteStore(sqlite_path).close()
    with sqlite3.connect(sqlite_path) as raw:
        raw.execute("UPDATE chronica_schema SET version = 999")
    raw.close()
    _refused_untouched(sqlite_path, "newer than this code supports")


def test_a_chronomem_file_gains_chronica_tables(sqlite_path: Path) -> None:
    with sqlite3.connect(sqlite_path) as raw:
        raw.execute("CREATE TABLE chronomem_schema (version INTEGER NOT NULL)")
        raw.execute("INSERT INTO chronomem_schema VALUES (1)")
    raw.close()
    with SQLiteStore(sqlite_path) as store:
        stored = Chronicarius(store).record_actum(OWNER, _actum())
        assert store.acta(CID, owner_id=OWNER) == [stored]
    with sqlite3.connect(sqlite_path) as raw:
        assert raw.execute("SELECT version FROM chronomem_schema").fetchall() == [(1,)]
    raw.close()


def test_tilde_in_the_path_is_expanded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    with SQLiteStore("~/sessions.db") as store:
        assert store.path == str(tmp_path / "sessions.db")
    assert (tmp_path / "sessions.db").exists()


@pytest.mark.parametrize("path", ["", ":memory:", "file:x?mode=memory"])
def test_an_in_memory_path_is_refused(path: str) -> None:
    with pytest.raises(InvalidArgumentError):
        SQLiteStore(path)


def test_a_closed_store_raises_a_store_error(sqlite_path: Path) -> None:
    store = SQLiteStore(sqlite_path)
    store.close()
    with pytest.raises(StoreError):
        store.get(CID, owner_id=OWNER)


def test_driver_errors_surface_as_store_errors(sqlite_path: Path) -> None:
    with SQLiteStore(sqlite_path) as store:
        store.create(CID, owner_id=OWNER)
        with sqlite3.connect(sqlite_path) as raw:
            raw.execute("DROP TABLE chronica_acta")
        raw.close()
        with pytest.raises(StoreError) as caught:
            store.acta(CID, owner_id=OWNER)
        assert isinstance(caught.value.__cause__, sqlite3.Error)


@pytest.mark.postgres
def test_a_newer_postgres_schema_is_refused(pg_dsn: str, pg_schema: str) -> None:
    PostgresStore(pg_dsn, schema=pg_schema).close()
    import psycopg

    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute(f'UPDATE "{pg_schema}".chronica_schema SET version = 999')
    with pytest.raises(StoreError, match="newer than this code supports"):
        PostgresStore(pg_dsn, schema=pg_schema)


@pytest.mark.postgres
def test_an_unreachable_postgres_is_a_store_error(tmp_path: Path) -> None:
    with pytest.raises(StoreError):
        PostgresStore(f"host={tmp_path} port=1 dbname=none connect_timeout=1", timeout=1)


def test_a_bad_schema_name_is_refused_before_connecting() -> None:
    with pytest.raises(InvalidArgumentError):
        PostgresStore("host=/nonexistent", schema='x"; DROP TABLE y; --')


# --- bad options and paths: a clear chronica error, and no file made -----------------------


@pytest.mark.parametrize(
    ("busy_timeout", "error"),
    [
        (float("nan"), InvalidArgumentError),
        (float("inf"), InvalidArgumentError),
        (-1, InvalidArgumentError),
        (-0.001, InvalidArgumentError),
        (10**12, InvalidArgumentError),
        ("60", ChronicaTypeError),
        (None, ChronicaTypeError),
        (True, ChronicaTypeError),
    ],
)
def test_a_bad_busy_timeout_is_refused_before_the_file_is_made(
    sqlite_path: Path, busy_timeout: Any, error: type[ChronicaError]
) -> None:
    with pytest.raises(error, match="busy_timeout"):
        SQLiteStore(sqlite_path, busy_timeout=busy_timeout)
    assert not sqlite_path.exists()


def test_a_zero_busy_timeout_is_allowed_and_means_do_not_wait(sqlite_path: Path) -> None:
    # Zero is a valid choice (fail at once rather than queue), not "unset": while another
    # connection holds the write lock, a write gives up at once instead of waiting.
    with SQLiteStore(sqlite_path, busy_timeout=0) as store:
        chronica = Chronicarius(store)
        chronica.record_actum(OWNER, _actum())
        holder = sqlite3.connect(sqlite_path, isolation_level=None)
        try:
            holder.execute("BEGIN IMMEDIATE")
            started = time.monotonic()
            with pytest.raises(StoreError, match="locked"):
                chronica.record_actum(OWNER, _actum())
            assert time.monotonic() - started < 0.5
            holder.execute("ROLLBACK")
        finally:
            holder.close()
        chronica.record_actum(OWNER, _actum())
        assert len(chronica.get_acta(OWNER, CID)) == 2


@pytest.mark.parametrize(
    ("path", "error"),
    [
        (5, ChronicaTypeError),
        (None, ChronicaTypeError),
        (b"sessions.db", ChronicaTypeError),
        ("sessions\x00.db", InvalidArgumentError),
    ],
)
def test_a_path_that_names_no_file_is_refused(
    path: Any, error: type[ChronicaError], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(error, match="path"):
        SQLiteStore(path)
    assert list(tmp_path.iterdir()) == []


def test_a_folder_or_a_missing_folder_is_a_store_error(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="is a folder"):
        SQLiteStore(tmp_path)
    with pytest.raises(StoreError, match="does not exist"):
        SQLiteStore(tmp_path / "no" / "such" / "folder.db")


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A folder any user may enter (pytest's own tmp_path is private to its owner)."""
    folder = Path(tempfile.mkdtemp(prefix="chronica-perm-"))
    folder.chmod(0o755)
    yield folder
    for child in folder.iterdir():
        child.chmod(0o600)
        child.unlink()
    folder.rmdir()


def _open_as_nobody(path: str, pipe: Connection) -> None:
    """In a forked child: drop root (tests run as root, who may read anything), then open."""
    try:
        if os.geteuid() == 0:
            os.setgid(65534)
            os.setuid(65534)
        try:
            SQLiteStore(path).close()
            pipe.send(("opened", ""))
        except ChronicaError as e:
            pipe.send(("chronica", f"{type(e).__name__}: {e}"))
    except BaseException:
        pipe.send(("other", traceback.format_exc()))


@pytest.mark.parametrize("mode", [0o000, 0o200, 0o400])
def test_a_file_this_user_may_not_read_and_write_is_a_store_error(
    shared_dir: Path, mode: int
) -> None:
    path = shared_dir / "locked.db"
    _chronomem_file(path)  # chronica would have to write to it: add its tables
    path.chmod(mode)
    ours, theirs = multiprocessing.get_context("fork").Pipe()
    child = multiprocessing.get_context("fork").Process(
        target=_open_as_nobody, args=(str(path), theirs)
    )
    child.start()
    outcome, detail = ours.recv()
    child.join(30)
    assert outcome == "chronica", detail
    assert detail.startswith("StoreError"), detail


# --- PostgreSQL: options checked before connecting ------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"max_size": 0}, InvalidArgumentError),
        ({"max_size": "10"}, ChronicaTypeError),
        ({"max_size": True}, ChronicaTypeError),
        ({"timeout": float("nan")}, InvalidArgumentError),
        ({"timeout": 0}, InvalidArgumentError),
        ({"timeout": -5}, InvalidArgumentError),
        ({"timeout": "30"}, ChronicaTypeError),
    ],
)
def test_bad_postgres_options_are_refused_before_connecting(
    kwargs: dict[str, Any], error: type[ChronicaError]
) -> None:
    with pytest.raises(error, match=next(iter(kwargs))):
        PostgresStore("host=/nonexistent", **kwargs)


def test_a_postgres_target_that_is_neither_dsn_nor_pool_is_refused() -> None:
    with pytest.raises(ChronicaTypeError, match="target"):
        PostgresStore(5)  # type: ignore[arg-type]  # on purpose


def test_a_new_session_file_and_its_wal_are_private(tmp_path: Path) -> None:
    # Sessions hold what people said: a new file is the owner's alone, like chronomem's.
    import stat

    from chronica import ActorKind, Actum, ActumKind, Chronicarius

    path = tmp_path / "private.db"
    with SQLiteStore(path) as store:
        Chronicarius(store).record_actum(
            "ardian",
            Actum(chronicum_id="c", kind=ActumKind.MESSAGE, actor_kind=ActorKind.HUMAN,
                  actor="ardian", content="hello"),
        )  # fmt: skip
        for name in ("private.db", "private.db-wal", "private.db-shm"):
            assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o600, name
