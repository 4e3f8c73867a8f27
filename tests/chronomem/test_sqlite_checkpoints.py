"""Checkpoints in the background at synchronous=NORMAL (chronomem/engine/sqlite/checkpoints.py):
the log is copied back without the writer doing it, the thread comes and goes with the
writes, and neither threads, another process nor a kill mid-checkpoint lose a write."""

from __future__ import annotations

import logging
import os
import signal
import sqlite3
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

import chronomem.engine.sqlite.checkpoints as checkpoints
from chronica import ActorKind, Actum, ActumKind, ChronicaCounts, Chronicarius
from chronica.stores.sqlite import SQLiteStore, empty_log
from chronomem import ChronoMem, Turn
from chronomem.engine.sqlite.db import Database

_ROOT = Path(__file__).parents[2]


def _threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("chronomem-checkpoint")]


def _log_state(path: Path) -> tuple[int, int]:
    """The WAL-index header's count of frames in the log (``mxFrame``) and of those copied
    back into the database file (``nBackfill``)."""
    with open(f"{path}-shm", "rb") as shm:
        header = shm.read(100)
    return struct.unpack_from("=I", header, 16)[0], struct.unpack_from("=I", header, 96)[0]


def _until(done: Callable[[], bool], seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if done():
            return True
        time.sleep(0.01)
    return done()


def _database(mem: ChronoMem) -> Database:
    db = mem._db
    assert isinstance(db, Database)
    return db


def _ran(mem: ChronoMem) -> int:
    """How many checkpoints the memory's thread ran."""
    checkpointer = _database(mem)._checkpointer
    assert checkpointer is not None
    return checkpointer.checkpoints


def _autocheckpoint(mem: ChronoMem) -> int:
    return int(_database(mem).conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0])


def test_the_log_is_copied_back_without_the_writer(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    with ChronoMem(path) as mem:
        assert _autocheckpoint(mem) == checkpoints.BACKSTOP * 4000
        for i in range(30):
            mem.remember_episode(f"turn {i} about the garden", speaker="ana", session="s")
        frames, _ = _log_state(path)
        # Far below the writer's own threshold: only the thread can have copied the log.
        assert 0 < frames < _autocheckpoint(mem)
        checkpointer = _database(mem)._checkpointer
        assert checkpointer is not None
        assert checkpointer.wait_quiet()  # nothing due, nothing under way: the log is copied
        assert _log_state(path)[1] == _log_state(path)[0]
        assert _ran(mem) >= 1


def test_full_keeps_the_writers_own_checkpoints(tmp_path: Path) -> None:
    with ChronoMem(tmp_path / "m.db", synchronous="FULL") as mem:
        mem.remember("The boiler was serviced in May")
        assert _database(mem)._checkpointer is None
        assert _autocheckpoint(mem) == 4000
        assert _threads() == []


def test_a_memory_in_memory_has_no_thread() -> None:
    with ChronoMem(":memory:") as mem:
        mem.remember("Nothing here reaches a disk")
        assert _database(mem)._checkpointer is None
        assert _threads() == []


def test_the_thread_leaves_when_idle_and_returns_with_a_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(checkpoints, "IDLE", 0.2)
    with ChronoMem(tmp_path / "m.db") as mem:
        mem.remember("The first write starts the thread")
        assert len(_threads()) == 1
        assert _until(lambda: _threads() == [])
        ran = _ran(mem)
        mem.remember("The next write starts it again")
        assert len(_threads()) == 1
        assert _until(lambda: _ran(mem) > ran)


def test_close_stops_the_thread_and_the_log_goes(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    mem = ChronoMem(path)
    mem.remember("Written just before closing")
    assert len(_threads()) == 1
    mem.close()
    assert _threads() == []
    assert not Path(f"{path}-wal").exists()  # the last connection closed checkpointed it
    mem.close()  # twice is fine
    checkpointer = checkpoints.Checkpointer(str(path))
    checkpointer.close()
    checkpointer.nudge()  # after close: nothing starts
    assert _threads() == []


def test_no_connection_for_the_thread_leaves_writes_standing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def refuse(path: str) -> sqlite3.Connection:
        raise sqlite3.OperationalError("unable to open database file")

    monkeypatch.setattr(checkpoints, "_connect", refuse)
    with (
        caplog.at_level(logging.WARNING, logger="chronomem.sqlite"),
        ChronoMem(tmp_path / "m.db") as mem,
    ):
        first = mem.remember("Written while the thread cannot open the file")
        assert _until(lambda: _threads() == [])
        second = mem.remember("Written after it gave up")
        assert _threads() == []  # it does not retry on every write
        assert [mem.get(first).content, mem.get(second).content] == [
            "Written while the thread cannot open the file",
            "Written after it gave up",
        ]
    warnings = [r for r in caplog.records if r.name == "chronomem.sqlite"]
    assert len(warnings) == 1
    assert "no background checkpoints" in warnings[0].getMessage()


def test_threads_writing_beside_constant_checkpoints_lose_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(checkpoints, "INTERVAL", 0.0)  # a checkpoint after every write
    path = tmp_path / "m.db"
    with ChronoMem(path) as mem:
        written: list[str] = []
        errors: list[BaseException] = []

        def write(worker: int) -> None:
            try:
                for i in range(60):
                    written.append(
                        mem.remember_episode(
                            f"worker {worker} says {i}", speaker=f"w{worker}", session=f"s{worker}"
                        )
                    )
            except BaseException as e:  # reported in the test's thread
                errors.append(e)

        workers = [threading.Thread(target=write, args=(w,)) for w in range(4)]
        for t in workers:
            t.start()
        for t in workers:
            t.join()
        assert errors == []
        assert _ran(mem) > 10
    with ChronoMem(path) as mem:
        assert mem.stats()["episodes"] == len(written) == 240
        assert {mem.get(i).id for i in written} == set(written)
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)


_WRITER = """
import sys
import chronomem.engine.sqlite.checkpoints as checkpoints
from chronica import ActorKind, Actum, ActumKind, ChronicaCounts, Chronicarius
from chronica.stores.sqlite import SQLiteStore, empty_log
from chronomem import ChronoMem, Turn
from chronomem.engine.sqlite.db import Database
checkpoints.INTERVAL = 0.0  # checkpoints all the time, so the kill lands in or near one
with ChronoMem(sys.argv[1]) as mem:
    i = 0
    while True:
        said = mem.remember_episode(f"turn {i} about the harvest", speaker="ana", session="s")
        ran = mem._db._checkpointer.checkpoints
        print(said, ran, flush=True)
        i += 1
"""


def test_a_writer_killed_beside_its_checkpoints_keeps_every_acknowledged_write(
    tmp_path: Path,
) -> None:
    path = tmp_path / "m.db"
    child = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(path)], cwd=_ROOT, stdout=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(_ROOT)},
    )  # fmt: skip
    acknowledged: list[str] = []
    try:
        assert child.stdout is not None
        for line in child.stdout:
            said, ran = line.split()
            acknowledged.append(said)
            if len(acknowledged) >= 300 and int(ran) >= 20:
                break
        child.send_signal(signal.SIGKILL)
    finally:
        child.wait(timeout=60)
        if child.stdout is not None:
            child.stdout.close()
    assert child.returncode == -signal.SIGKILL
    with ChronoMem(path) as mem:
        assert {mem.get(i).id for i in acknowledged} == set(acknowledged)
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)


def test_a_purge_empties_the_log_however_busy_the_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # SQLite refuses a second checkpoint at once: the purge's own, which must empty the log,
    # holds the thread's off (it failed with "a reader kept the write-ahead log" before).
    monkeypatch.setattr(checkpoints, "INTERVAL", 0.0)
    path = tmp_path / "m.db"
    with ChronoMem(path) as mem:
        for round_ in range(15):
            for i in range(20):
                mem.remember_episode(f"round {round_} turn {i}", speaker="ana", session="s")
            mem.purge_session("s")
            assert Path(f"{path}-wal").stat().st_size == 0
        assert _ran(mem) > 15


def test_chronica_erases_an_owner_beside_a_memory_checkpointing_the_same_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # chronica's erasure empties the log too, and SQLite refuses it at once while chronomem's
    # thread checkpoints the shared file: the busy answer is retried (it failed before).
    monkeypatch.setattr(checkpoints, "INTERVAL", 0.0)
    path = tmp_path / "shared.db"
    said = Actum(chronicum_id="lunch", kind=ActumKind.MESSAGE, actor_kind=ActorKind.HUMAN,
                 actor="ana", content="a secret about lunch")  # fmt: skip
    stop = threading.Event()
    with ChronoMem(path) as mem, SQLiteStore(path) as store:

        def write() -> None:  # many pages a commit, so a checkpoint takes a while
            i = 0
            while not stop.is_set():
                mem.remember_episodes(
                    Turn(f"turn {i} {j} about the weather in town {j * i}", speaker="ana",
                         session=f"s{j % 7}")
                    for j in range(50)
                )  # fmt: skip
                i += 1

        writer = threading.Thread(target=write)
        writer.start()
        try:
            sessions = Chronicarius(store)
            for _ in range(10):
                sessions.record_actum("ana", said)
                assert sessions.erase_owner("ana") == ChronicaCounts(chronica=1, acta=1)
        finally:
            stop.set()
            writer.join()
        assert _ran(mem) >= 1


class _BusyLog:
    """A connection whose TRUNCATE checkpoint is refused ``busy`` times, then done."""

    def __init__(self, busy: int) -> None:
        self.busy, self.asked = busy, 0

    def execute(self, sql: str) -> _BusyLog:
        assert sql == "PRAGMA wal_checkpoint(TRUNCATE)"
        self.asked += 1
        return self

    def fetchone(self) -> tuple[int, int, int]:
        return (1, 9, 3) if self.asked <= self.busy else (0, 9, 9)


def test_emptying_the_log_retries_a_busy_answer_until_its_deadline() -> None:
    log = _BusyLog(busy=3)
    assert empty_log(log, timeout=5.0)  # type: ignore[arg-type]
    assert log.asked == 4
    never = _BusyLog(busy=10**9)
    started = time.monotonic()
    assert not empty_log(never, timeout=0.2)  # type: ignore[arg-type]
    assert 0.2 <= time.monotonic() - started < 2.0
