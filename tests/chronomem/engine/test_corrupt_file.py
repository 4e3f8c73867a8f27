"""A damaged SQLite file that still opens is refused before chronomem writes a byte to it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from chronomem import ChronoMem, DatabaseError
from chronomem.engine.sqlite.schema import _V1


def _version_1_file(path: Path) -> None:
    conn = sqlite3.connect(path)
    for statement in _V1.split(";\n"):
        if statement.strip():
            conn.execute(statement)
    conn.execute("CREATE TABLE chronomem_schema (version INTEGER NOT NULL)")
    conn.execute("INSERT INTO chronomem_schema VALUES (1)")
    conn.executemany(
        """INSERT INTO chronomem_facts (id, owner, content, trust, confidence, entities, terms,
           system_time, valid_from) VALUES (?, 'default', ?, 0.8, 1.0, '[]', '', 1, 1)""",
        [(f"f{i}", f"fact number {i} " + "padding " * 40) for i in range(400)],
    )
    conn.commit()
    conn.close()


def test_a_corrupt_file_that_still_opens_is_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "damaged.db"
    _version_1_file(path)
    data = bytearray(path.read_bytes())
    page = 4096
    assert len(data) > 8 * page
    data[5 * page : 6 * page] = b"\xa5" * page  # one page of the facts table, overwritten
    path.write_bytes(bytes(data))
    with sqlite3.connect(path) as probe:  # it still opens and answers about its schema
        assert probe.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] > 0
    before = path.read_bytes()
    with pytest.raises(DatabaseError, match="integrity check"):
        ChronoMem(path)
    assert path.read_bytes() == before
    assert not (tmp_path / "damaged.db-wal").exists()


def test_a_sound_older_file_is_migrated(tmp_path: Path) -> None:
    path = tmp_path / "sound.db"
    _version_1_file(path)
    with ChronoMem(path) as mem:
        assert mem.stats()["facts"] == 400
        assert mem.recall("fact number 7", limit=1)[0].id == "f7"
