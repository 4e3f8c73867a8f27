"""``chronomem export | head`` exits quietly: the reader leaving is not an error.

Run as a real process through a real pipe (an in-process call cannot see what the interpreter
prints at exit), with an export far larger than the pipe's buffer, so the writer is still
writing when ``head`` has had enough.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from chronomem import ChronoMem, Turn

COMMAND = [sys.executable, "-m", "chronomem"]


def _large_memory(path: Path) -> None:
    with ChronoMem(path) as mem, mem.batch():
        for i in range(2000):
            mem.remember(f"Fact {i}: the Kinara booking note number {i} for the Friday dinner")
        mem.remember_episodes(
            Turn(f"turn {i} of a long conversation about the dinner", speaker="Ardian", session="s")
            for i in range(1000)
        )


def test_export_into_head_exits_quietly(tmp_path: Path) -> None:
    path = tmp_path / "big.db"
    _large_memory(path)
    shell = f"set -o pipefail; {' '.join(COMMAND)} export --db {path} | head -n 2"
    done = subprocess.run(["bash", "-c", shell], capture_output=True, text=True, timeout=120)
    assert done.stderr == ""  # no traceback, no "Exception ignored ... BrokenPipeError"
    assert done.returncode == 0
    assert len(done.stdout.splitlines()) == 2


def test_a_reader_closing_early_leaves_no_error(tmp_path: Path) -> None:
    path = tmp_path / "big.db"
    _large_memory(path)
    with subprocess.Popen(
        [*COMMAND, "export", "--db", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as proc:
        assert proc.stdout is not None
        assert proc.stderr is not None
        first = proc.stdout.readline()
        proc.stdout.close()  # the reader leaves with most of the export unread
        err = proc.stderr.read()
        code = proc.wait(timeout=120)
    assert first.startswith(b"{")
    assert err == b""
    assert code == 0
