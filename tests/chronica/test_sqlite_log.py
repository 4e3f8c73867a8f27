"""Emptying a SQLite file's write-ahead log after an erasure (chronica.stores.sqlite.empty_log,
used by chronica's erase_owner and chronomem's purges): SQLite refuses a checkpoint at once,
without its busy handler, while another connection runs one, so a busy answer is retried
until a deadline."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from chronica.stores.sqlite import empty_log


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


def test_a_busy_answer_is_retried_until_the_log_is_emptied() -> None:
    log = _BusyLog(busy=3)
    assert empty_log(log, timeout=5.0)  # type: ignore[arg-type]
    assert log.asked == 4


def test_a_log_kept_busy_past_the_deadline_is_reported() -> None:
    never = _BusyLog(busy=10**9)
    started = time.monotonic()
    assert not empty_log(never, timeout=0.2)  # type: ignore[arg-type]
    assert 0.2 <= time.monotonic() - started < 2.0


def test_a_real_log_is_emptied_and_a_reader_holding_it_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "log.db"
    # No busy handler: TRUNCATE would wait its five seconds for the reader first.
    writer = sqlite3.connect(path, isolation_level=None, timeout=0)
    reader = sqlite3.connect(path, isolation_level=None)
    try:
        writer.execute("PRAGMA journal_mode = WAL")
        writer.execute("PRAGMA wal_autocheckpoint = 0")
        writer.execute("CREATE TABLE t (x TEXT)")
        writer.execute("INSERT INTO t VALUES ('old copy')")
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM t").fetchone()  # holds a snapshot in the log
        writer.execute("INSERT INTO t VALUES ('newer')")
        assert not empty_log(writer, timeout=0.1)
        reader.execute("COMMIT")
        assert empty_log(writer, timeout=0.1)
        assert Path(f"{path}-wal").stat().st_size == 0
    finally:
        reader.close()
        writer.close()
