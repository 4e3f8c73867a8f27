"""SQLite's document frequencies, journaled and folded in batches (engine/sqlite/frequencies.py):
a count a recall reads is always exact, whatever the journal holds, across folds, rollbacks,
processes and purges."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from chronomem import ChronoMem, InvalidArgumentError, Turn
from chronomem.engine.sqlite import frequencies
from tests.chronomem.backends import document_frequencies, rows

_WORDS = [
    "garden",
    "weather",
    "allergy",
    "peanut",
    "holiday",
    "violin",
    "lake",
    "river",
    "market",
    "bread",
]


def _said(n: int, session: str = "s") -> list[Turn]:
    return [
        Turn(
            f"{_WORDS[i % 10]} {_WORDS[(i * 3) % 10]} number{i % 7}", ("Ana", "Ben")[i % 2], session
        )
        for i in range(n)
    ]


def _counted_from_the_index(mem: ChronoMem) -> dict[tuple[str, str], int]:
    """Each owner's document frequencies recounted from the stored columns."""
    df: Counter[tuple[str, str]] = Counter()
    for owner, *columns in rows(
        mem,
        """SELECT f.owner, l.body, l.ctx1, l.ctx2 FROM chronomem_lex l
           JOIN chronomem_facts f ON f.rowid = l.rowid""",
    ):
        df.update((owner, t) for t in {t for c in columns for t in str(c).split()})
    return dict(df)


def _journaled(mem: ChronoMem) -> int:
    [(total,)] = rows(mem, "SELECT coalesce(max(total), 0) FROM chronomem_term_journal")
    return int(total)


@pytest.fixture
def small_journal(monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(frequencies, "FOLD_TERMS", 40)
    return 40


def test_counts_stay_exact_across_folds(tmp_path: Path, small_journal: int) -> None:
    with ChronoMem(tmp_path / "m.db", owner="ana") as mem:
        seen_totals = set()
        for turn in _said(60):
            mem.remember_episode(turn.content, speaker=turn.speaker, session=turn.session)
            seen_totals.add(_journaled(mem))
            assert _journaled(mem) < small_journal  # the write that fills it folds it
        mem.for_owner("ben").remember_episodes(_said(30, "t"))
        assert 0 in seen_totals  # the journal was folded, more than once
        [(stored,)] = rows(mem, "SELECT count(*) FROM chronomem_term_stats")
        assert stored > 0
        assert document_frequencies(mem) == _counted_from_the_index(mem)


def test_a_recall_counts_what_only_the_journal_holds(tmp_path: Path) -> None:
    with ChronoMem(tmp_path / "m.db", owner="ana") as mem:
        mem.remember_episodes(_said(12))
        assert rows(mem, "SELECT count(*) FROM chronomem_term_stats") == [(0,)]
        with mem._db.read() as conn:
            _, dfs, corpus = conn.dialect.query_statistics(
                conn, "ana", [], ["garden", "violin", "number3", "absent"]
            )
        expected = _counted_from_the_index(mem)
        assert dfs == {t: expected[("ana", t)] for t in ("garden", "violin", "number3")}
        assert corpus["episode"][0] == 12
        # Another owner's journaled terms are theirs only.
        mem.for_owner("ben").remember_episode("garden garden", speaker="Ben", session="x")
        with mem._db.read() as conn:
            _, again, _ = conn.dialect.query_statistics(conn, "ana", [], ["garden"])
        assert again == {"garden": dfs["garden"]}


def test_a_rolled_back_write_leaves_no_count(tmp_path: Path, small_journal: int) -> None:
    with ChronoMem(tmp_path / "m.db", owner="ana") as mem:
        mem.remember_episodes(_said(5))

        def undone() -> None:
            with mem.batch():
                for turn in _said(30, "b"):  # folds inside the batch, then all of it is undone
                    mem.remember_episode(turn.content, speaker=turn.speaker, session=turn.session)
                mem.remember_episode("", speaker="Ana", session="b")

        with pytest.raises(InvalidArgumentError):
            undone()
        assert document_frequencies(mem) == _counted_from_the_index(mem)
        with mem.batch():
            mem.remember_episodes(_said(3, "c"))
            with pytest.raises(InvalidArgumentError):
                mem.remember_episode("", speaker="Ana", session="c")  # its savepoint alone
        assert document_frequencies(mem) == _counted_from_the_index(mem)


def test_forgetting_and_purging_lower_whole_counts(tmp_path: Path, small_journal: int) -> None:
    with ChronoMem(tmp_path / "m.db", owner="ana") as mem:
        ids = mem.remember_episodes(_said(25))
        mem.forget(ids[3])  # the two turns after it are indexed again without its words
        mem.purge(ids[10])
        mem.remember_episodes(_said(4, "s2"))
        mem.purge(ids[20])
        assert document_frequencies(mem) == _counted_from_the_index(mem)
        mem.for_owner("ben").remember_episodes(_said(4, "t"))
        mem.for_owner("ben").erase_owner()
        assert document_frequencies(mem) == _counted_from_the_index(mem)
        assert not any(owner == "ben" for owner, _ in document_frequencies(mem))


_WRITER = """
import sys
from chronomem import ChronoMem
with ChronoMem(sys.argv[1], owner="ana") as mem:
    for i in range(int(sys.argv[3])):
        mem.remember_episode(f"turn {i} of writer {sys.argv[2]} about the garden weather",
                             speaker="Ana", session=sys.argv[2])
"""


def test_processes_writing_at_once_keep_counts_exact(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    ChronoMem(path).close()
    writers = [
        subprocess.Popen([sys.executable, "-c", _WRITER, str(path), f"w{n}", "300"])
        for n in range(3)
    ]
    assert [w.wait(timeout=120) for w in writers] == [0, 0, 0]
    with ChronoMem(path, owner="ana") as mem:
        assert _journaled(mem) < frequencies.FOLD_TERMS
        assert document_frequencies(mem) == _counted_from_the_index(mem)
        assert document_frequencies(mem)[("ana", "garden")] == 900


def test_a_writer_killed_mid_write_leaves_counts_exact(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    ChronoMem(path).close()
    writer = subprocess.Popen([sys.executable, "-c", _WRITER, str(path), "k", "100000"])
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # until it has folded the journal at least once
            with ChronoMem(path, owner="ana") as mem:
                [(stored,)] = rows(mem, "SELECT count(*) FROM chronomem_term_stats")
            if stored:
                break
            time.sleep(0.05)
        writer.send_signal(signal.SIGKILL)
    finally:
        writer.wait(timeout=30)
    with ChronoMem(path, owner="ana") as mem:
        assert stored
        assert document_frequencies(mem) == _counted_from_the_index(mem)
