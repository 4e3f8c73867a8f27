"""SQLite's checkpoints on a thread of their own (engine/sqlite/checkpoints.py): the log is
copied into the file beside the writer, stays bounded under a writer that never pauses, and
the thread ends with its memory."""

from __future__ import annotations

import gc
import logging
import shutil
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from chronomem import ChronoMem
from chronomem.engine.sqlite import checkpoints, db
from chronomem.engine.sqlite.checkpoints import BACKSTOP_PAGES, CHECKPOINT_EVERY

_FRAME = 4096 + 24  # a WAL frame: a page and its header


def _remember(mem: ChronoMem, n: int, start: int = 0) -> None:
    for i in range(start, start + n):
        mem.remember_episode(f"turn {i} about the garden and the lake", speaker="Ana", session="s")


def _checkpointer(mem: ChronoMem) -> checkpoints.Checkpointer:
    database = mem._db
    assert isinstance(database, db.Database)
    assert isinstance(database._checkpoints, checkpoints.Checkpointer)
    return database._checkpoints


def _threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("chronomem checkpoints")]


def _wait_for(condition: object, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_the_thread_copies_the_log_into_the_file_the_writer_leaves_it_to(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    with ChronoMem(path, owner="o") as mem:
        database = mem._db
        assert isinstance(database, db.Database)
        [(every,)] = database.conn.execute("PRAGMA wal_autocheckpoint").fetchall()
        assert every == BACKSTOP_PAGES
        _remember(mem, 3 * CHECKPOINT_EVERY)
        _wait_for(lambda: _checkpointer(mem).checkpoints >= 1)
        # Far fewer pages than the writer's backstop were written: only the thread can have
        # copied them into the file. The file alone, without its log, holds episodes.
        wal = path.with_name("m.db-wal").stat().st_size
        assert wal < BACKSTOP_PAGES * _FRAME
        alone = tmp_path / "alone.db"
        shutil.copyfile(path, alone)
        with sqlite3.connect(alone) as copy:
            [(episodes,)] = copy.execute(
                "SELECT count(*) FROM chronomem_facts WHERE kind = 'episode'"
            ).fetchall()
        assert episodes >= CHECKPOINT_EVERY
        assert mem.stats()["episodes"] == 3 * CHECKPOINT_EVERY


def test_a_writer_that_never_pauses_keeps_its_log_bounded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A passive checkpoint beside a busy writer never copies the whole log, and SQLite starts
    the log over only after one that does: the writer's backstop and its catching up bound it."""
    monkeypatch.setattr(db, "BACKSTOP_PAGES", 200)
    monkeypatch.setattr(checkpoints, "CHECKPOINT_EVERY", 5)
    path = tmp_path / "m.db"
    with ChronoMem(path, owner="o") as mem:
        _remember(mem, 600)
        checkpointer = _checkpointer(mem)
        assert checkpointer.checkpoints + checkpointer.caught_up >= 30
        largest = path.with_name("m.db-wal").stat().st_size // _FRAME
    # The 600 calls append about 8,700 pages; with no backstop the log holds them all (the
    # thread's checkpoints never let it start over). With the backstop alone, skipped while
    # the thread checkpoints, the log reached 1,015-7,765 pages; with the writer catching up
    # 258-283 on a quiet machine, 326-685 beside six busy processes, once 1,863 under CI's
    # load (a thread always checkpointing, never behind); with the writer also catching up
    # when the thread finds the log past the backstop, 381-468 beside two busy and two
    # syncing processes.
    assert largest <= 5 * 200


def test_a_writer_whose_backstop_is_always_skipped_catches_up_all_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A thread whose checkpoints are short but always running when the backstop comes due
    (so SQLite skips it every time) never counts as behind; its checkpoint finding the log
    past the backstop makes the writer copy the rest. Here the writer's backstop is off and
    a checkpoint would count as behind only after 200 commits, so nothing else bounds it."""
    monkeypatch.setattr(db, "BACKSTOP_PAGES", 200)
    monkeypatch.setattr(checkpoints, "CHECKPOINT_EVERY", 5)
    monkeypatch.setattr(checkpoints, "_PAGES_PER_COMMIT", 1)
    path = tmp_path / "m.db"
    with ChronoMem(path, owner="o") as mem:
        _remember(mem, 1)
        database = mem._db
        assert isinstance(database, db.Database)
        database.conn.execute("PRAGMA wal_autocheckpoint = 0")
        _remember(mem, 600, start=1)
        checkpointer = _checkpointer(mem)
        assert checkpointer.caught_up >= 5
        largest = path.with_name("m.db-wal").stat().st_size // _FRAME
        assert mem.stats()["episodes"] == 601
    # Without the thread's word the log held about 8,700 pages. With it alone, the log grows
    # by what the writer commits during one of the thread's checkpoints, more under load:
    # 512-807 pages beside three busy and two syncing processes.
    assert largest <= 10 * 200


class _SlowCheckpoints:
    """The thread's connection, with every checkpoint taking ``seconds`` longer."""

    def __init__(self, conn: sqlite3.Connection, seconds: float) -> None:
        self._conn = conn
        self._seconds = seconds

    def execute(self, sql: str) -> sqlite3.Cursor:
        if "wal_checkpoint" in sql:
            time.sleep(self._seconds)
        return self._conn.execute(sql)

    def close(self) -> None:
        self._conn.close()


def test_a_writer_catches_up_with_a_thread_that_falls_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The writer waits for a checkpoint of the thread that has run through as many commits as
    take the log past the backstop, then copies the rest itself, and loses nothing."""
    monkeypatch.setattr(db, "BACKSTOP_PAGES", 200)
    monkeypatch.setattr(checkpoints, "CHECKPOINT_EVERY", 5)
    connect = sqlite3.connect
    path = tmp_path / "m.db"
    with ChronoMem(path, owner="o") as mem:
        monkeypatch.setattr(
            sqlite3, "connect", lambda *a, **k: _SlowCheckpoints(connect(*a, **k), 0.05)
        )
        _remember(mem, 200)
        checkpointer = _checkpointer(mem)
        # Each of the thread's checkpoints spans more than 10 commits of about a millisecond
        # (14 catch-ups in 200 calls here; none with the writer left to its backstop).
        assert checkpointer.caught_up >= 5
        assert mem.stats()["episodes"] == 200
    monkeypatch.undo()
    with ChronoMem(path, owner="o") as again:
        assert again.stats()["episodes"] == 200


def test_closing_the_memory_ends_its_thread_and_empties_the_log(tmp_path: Path) -> None:
    before = len(_threads())
    path = tmp_path / "m.db"
    mem = ChronoMem(path, owner="o")
    _remember(mem, CHECKPOINT_EVERY)
    assert _checkpointer(mem).running
    assert len(_threads()) == before + 1
    mem.close()
    mem.close()
    assert not _checkpointer(mem).running
    assert len(_threads()) == before
    assert not path.with_name("m.db-wal").exists()
    with ChronoMem(path, owner="o") as again:
        assert again.stats()["episodes"] == CHECKPOINT_EVERY


def test_a_memory_never_closed_ends_its_thread_when_collected(tmp_path: Path) -> None:
    before = len(_threads())
    mem = ChronoMem(tmp_path / "m.db", owner="o")
    _remember(mem, CHECKPOINT_EVERY)
    assert len(_threads()) == before + 1
    del mem
    gc.collect()
    _wait_for(lambda: len(_threads()) == before)


def test_a_memory_that_only_reads_starts_no_thread(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    with ChronoMem(path, owner="o") as mem:
        _remember(mem, 3)
    before = len(_threads())
    with ChronoMem(path, owner="o") as mem:
        for _ in range(3 * CHECKPOINT_EVERY):
            mem.recall("garden")
        assert not _checkpointer(mem).running
    assert len(_threads()) == before


def test_a_thread_that_cannot_connect_is_logged_and_the_backstop_checkpoints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def refuse(*args: object, **kwargs: object) -> sqlite3.Connection:
        raise sqlite3.OperationalError("unable to open database file")

    monkeypatch.setattr(db, "BACKSTOP_PAGES", 200)
    path = tmp_path / "m.db"
    with ChronoMem(path, owner="o") as mem:
        monkeypatch.setattr(sqlite3, "connect", refuse)
        with caplog.at_level(logging.WARNING, logger="chronomem.sqlite"):
            _remember(mem, 3 * CHECKPOINT_EVERY)
            _wait_for(lambda: not _checkpointer(mem).running)
        monkeypatch.undo()
        assert "stay with its writer: unable to open database file" in caplog.text
        assert _checkpointer(mem).checkpoints == 0
        largest = path.with_name("m.db-wal").stat().st_size // _FRAME
        assert mem.stats()["episodes"] == 3 * CHECKPOINT_EVERY
    assert largest <= 200 + 100  # the commit that crosses the backstop adds its pages first
