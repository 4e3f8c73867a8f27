"""Two memories on one file in one process: opening the second must not drop the first's locks.

POSIX advisory locks belong to the process and the file: closing *any* descriptor of the file
releases all of them. A check that opened the database file with ``open()`` to read its header
let another process believe it was the last user and delete the WAL under a live writer, so
acknowledged writes vanished. Only SQLite may open the file.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from chronomem import ChronoMem

_COUNT = """
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
print(c.execute("SELECT count(*) FROM chronomem_facts").fetchone()[0])
c.close()
"""


def _count_elsewhere(path: Path) -> int:
    out = subprocess.run(
        [sys.executable, "-c", _COUNT, str(path)], check=True, capture_output=True, text=True
    )
    return int(out.stdout)


def test_a_second_memory_on_the_file_loses_no_acknowledged_write(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    with ChronoMem(path, owner="o") as first:
        first.remember("first fact is here")
        with ChronoMem(path, owner="o") as second:
            assert second.stats()["facts"] == 1
            assert _count_elsewhere(path) == 1  # another process opens and closes the file
            for i in range(5):
                first.remember(f"later fact {i}")
            assert _count_elsewhere(path) == 6
    with ChronoMem(path, owner="o") as again:
        assert again.stats()["facts"] == 6
