"""Two memories on one database in one process: opening the second must not drop the first's
locks, and another process sees every acknowledged write (on either engine).

POSIX advisory locks belong to the process and the file: closing *any* descriptor of the file
releases all of them. A check that opened the database file with ``open()`` to read its header
let another process believe it was the last user and delete the WAL under a live writer, so
acknowledged writes vanished. Only SQLite may open the file.
"""

from __future__ import annotations

import subprocess
import sys

from tests.chronomem.backends import MemoryTarget

_COUNT = """
import sys
from tests.chronomem.backends import MemoryTarget
with MemoryTarget.from_args(sys.argv[1:]).open(owner="o") as mem:
    print(mem.stats()["facts"])
"""


def _count_elsewhere(target: MemoryTarget) -> int:
    out = subprocess.run(
        [sys.executable, "-c", _COUNT, *target.args()],
        check=True,
        capture_output=True,
        text=True,
    )
    return int(out.stdout)


def test_a_second_memory_on_the_database_loses_no_acknowledged_write(
    memory_target: MemoryTarget,
) -> None:
    with memory_target.open(owner="o") as first:
        first.remember("first fact is here")
        with memory_target.open(owner="o") as second:
            assert second.stats()["facts"] == 1
            assert _count_elsewhere(memory_target) == 1  # another process opens and closes it
            for i in range(5):
                first.remember(f"later fact {i}")
            assert _count_elsewhere(memory_target) == 6
    with memory_target.open(owner="o") as again:
        assert again.stats()["facts"] == 6
