"""Matrix 6's floor under a serial ``remember_episode``: its SQL with nothing of ours around it.

Issue 23 asks for 2,000 calls/s at ``synchronous=NORMAL`` (0.5 ms a call) and 1,000/s at
FULL on a file of 1,000,000 episodes. Whether that is out of reach for the design, and not
for our Python, is answered by replaying the very statements a call issues:

1. **Recorded.** ``ChronoMem.remember_episode`` runs for each new turn inside one open
   transaction that is rolled back afterwards; its write connection is a recorder that runs
   each statement and keeps its SQL, parameters and rows. So the statements are exactly one
   call's (the previous turns read, the episode's row, its time points, vector and speaker,
   its FTS5 postings, the owner's document-frequency and corpus counters), and the file is
   as before. Each call's time outside the driver is our Python as it runs between the
   statements; the same calls again, each statement answered with its recorded rows and
   nothing run, time our Python on its own (the SQL's work on a large file leaves the CPU's
   caches cold for the Python after it: the two differ).
2. **Replayed.** Each call's statements run again, raw, on the connection that wrote the
   file (its prepared-statement cache and settings), between ``BEGIN IMMEDIATE`` and
   ``COMMIT``: each part timed on its own, the commit apart. The same calls are replayed on
   the NORMAL file and on the FULL one, in alternation; both hold the same items, so the
   row IDs the replay gets back are the recorded ones (checked).
3. **Parts that cost pages.** FTS5 and the counters write most of their pages at COMMIT,
   so a part's own statement time is not its cost. Every third call leaves the
   document-frequency journal out and every third the FTS5 row: what the p50 and the WAL
   pages a commit drop by is what that part costs, its share of the commit included.
4. **Checkpoints.** The p50 leaves them out, but a rate counts them: a commit that ran one
   (the writer's backstop; most run on the memory's checkpoint thread, which the replay's
   commits wake as a real call's do) costs its time over the median commit, spread over the
   commits between two (at NORMAL it also syncs the log it never synced, so it costs about
   twice FULL's).
5. **Whole calls.** A few more turns are remembered for real right after the replay, in
   its alternation, so the parts can be held against a whole call in the same conditions.

WAL pages are read from the WAL-index header (``mxFrame``, offset 16 of the ``-shm`` file,
the count of valid frames in the log), before and after each commit: exact, also when the
log restarts after a checkpoint.
"""

from __future__ import annotations

import os
import statistics
import struct
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from .quiet import spread
from .stats import percentiles

__all__ = ["PARTS", "floor", "over_runs"]

PARTS = ("context", "row", "postings", "df", "corpus", "commit")
"""What a call's time is split into: the previous turns read; the episode's row with its time
points, vector and speaker; its FTS5 row; the owner's document frequencies (journaled); the owner's
corpus counter; ``BEGIN IMMEDIATE`` and ``COMMIT`` (with any checkpoint it runs)."""
_VARIANTS = ("all", "no df", "no postings")
_SKIPS = {"all": None, "no df": "df", "no postings": "postings"}

Call = list[tuple[str, str, str, Any]]  # (part, "one" or "many", sql, parameters)


def _part(sql: str) -> str:
    for table, part in (
        ("chronomem_term_stats", "df"),
        ("chronomem_term_journal", "df"),
        ("chronomem_corpus", "corpus"),
        ("chronomem_lex (", "postings"),
        ("FROM chronomem_facts f", "context"),
    ):
        if table in sql:
            return part
    return "row"


class _Canned:
    """A cursor over rows already fetched."""

    def __init__(self, rows: list[Any]) -> None:
        self._rows = rows

    def fetchall(self) -> list[Any]:
        return self._rows

    def fetchone(self) -> Any:
        return self._rows[0] if self._rows else None


class _Recorder:
    """What ``insert_episode`` sees as its connection: runs each statement, keeps it and its
    rows, and adds up the time the driver took (``sql_s``). With ``answers`` it runs nothing
    and answers each statement with the rows recorded for it (the dry pass)."""

    def __init__(self, conn: Any, into: Call, answers: list[list[Any]], dry: bool = False) -> None:
        self._conn = conn
        self.dialect = conn.dialect
        self.journal = conn.journal  # counts terms as the connection does
        self._into = into
        self._answers = answers
        self._dry = dry
        self.sql_s = 0.0

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        if self._dry:
            return _Canned(self._answers.pop(0))
        self._into.append((_part(sql), "one", sql, tuple(params)))
        started = time.perf_counter()
        rows = self._conn.execute(sql, params).fetchall()
        self.sql_s += time.perf_counter() - started
        self._answers.append(rows)
        return _Canned(rows)

    def executemany(self, sql: str, rows: Any) -> Any:
        rows = [tuple(r) for r in rows]
        if self._dry:
            return None
        self._into.append((_part(sql), "many", sql, rows))
        started = time.perf_counter()
        cur = self._conn.executemany(sql, rows)
        self.sql_s += time.perf_counter() - started
        return cur


def _connection(mem: Any) -> Any:
    """ChronoMem's SQLite connection (no public way to it: a benchmark is the only reader)."""
    db = getattr(mem, "_db", None)
    if db is None or not hasattr(db, "conn") or not hasattr(db, "write"):
        raise SystemExit("ChronoMem no longer has _db.conn and _db.write; update _episode_floor")
    return db


def record(mem: Any, said: Sequence[Any]) -> tuple[list[Call], list[float], list[float]]:
    """The statements ``mem.remember_episode`` issues for each of ``said``, in order, as if
    each were its own call, then undone, so the file is as it was; the seconds each call
    spent outside the driver (our Python, as it runs between the statements, without the
    transaction's BEGIN and COMMIT); and the seconds each call takes when every statement is
    answered with its recorded rows and nothing runs (our Python on its own). Both include
    the recorder's bookkeeping, a list append per statement."""
    db = _connection(mem)
    calls: list[Call] = []
    answers: list[list[list[Any]]] = []
    recorders: list[_Recorder] = []

    def run(dry: bool) -> list[float]:
        took: list[float] = []

        @contextmanager
        def recording() -> Iterator[_Recorder]:
            if not dry:
                calls.append([])
                answers.append([])
            n = len(took)
            recorders.append(_Recorder(db.conn, calls[n], answers[n], dry))
            yield recorders[-1]

        db.write = recording  # shadows the method for this instance only
        try:
            for t in said:
                started = time.perf_counter()
                mem.remember_episode(t.content, speaker=t.speaker, session=t.session, at=t.at)
                took.append(time.perf_counter() - started - recorders[-1].sql_s)
        finally:
            del db.write
        return took

    db.conn.execute("BEGIN IMMEDIATE")
    try:
        between = run(dry=False)
    finally:
        db.conn.execute("ROLLBACK")
    return calls, between, run(dry=True)


def _frames(shm: int) -> int:
    return int(struct.unpack("<I", os.pread(shm, 4, 16))[0])


def _replay(
    conn: Any, call: Call, skip: str | None, shm: int, checkpointer: Any
) -> tuple[dict[str, float], int]:
    """One call's statements between ``BEGIN IMMEDIATE`` and ``COMMIT``: seconds per part,
    and the WAL frames its commit appended (negative when that commit ran a checkpoint: the
    log held the auto-checkpoint's count of frames after it). The commit is counted by the
    memory's checkpoint thread (``checkpointer``), as a real call's is."""
    took = dict.fromkeys(PARTS, 0.0)
    rowid = next(params[0] for part, _, _, params in call if part == "postings")
    before = _frames(shm)
    started = time.perf_counter()
    conn.execute("BEGIN IMMEDIATE")
    took["commit"] += time.perf_counter() - started
    for part, how, sql, params in call:
        if part == skip:
            continue
        started = time.perf_counter()
        if how == "many":
            conn.executemany(sql, params)
        else:
            rows = conn.execute(sql, params).fetchall()
            if "RETURNING rowid" in sql and rows != [(rowid,)]:
                raise SystemExit(f"episode floor: replayed row {rows} is not the recorded {rowid}")
        took[part] += time.perf_counter() - started
    started = time.perf_counter()
    conn.execute("COMMIT")
    took["commit"] += time.perf_counter() - started
    if checkpointer is not None:
        checkpointer.committed()
    after = _frames(shm)
    frames = after - before if after >= before else after
    return took, -frames if after >= _autocheckpoint(conn) else frames


def _autocheckpoint(conn: Any) -> int:
    return int(conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0])


def floor(mems: dict[str, Any], said: Sequence[Any], whole: int = 0) -> dict[str, dict[str, Any]]:
    """Per setting (``mems`` maps each to a ChronoMem on its own copy of one file): the
    replayed SQL of the calls for ``said`` but its last ``whole``, p50 ms of the whole and
    of each part, the mean, WAL pages a commit, each left-out part's drop in p50 and pages,
    what checkpoints add to a call, our Python's p50 as it runs between the statements
    (``ours_ms``) and on its own (``ours_alone_ms``), the same for both; then the last
    ``whole`` turns remembered for real, in the same alternation, so a whole call is timed
    in the replay's conditions (``call_here_ms``)."""
    settings = list(mems)
    replayed, real = said[: len(said) - whole], said[len(said) - whole :]
    calls, between, alone = record(mems[settings[0]], replayed)
    conns = {s: _connection(m).conn for s, m in mems.items()}
    checkpointers = {s: getattr(_connection(m), "_checkpoints", None) for s, m in mems.items()}
    shms = {s: os.open(f"{_connection(m).path}-shm", os.O_RDONLY) for s, m in mems.items()}
    samples: dict[str, dict[str, list[tuple[dict[str, float], int]]]] = {
        s: {v: [] for v in _VARIANTS} for s in settings
    }
    try:
        for i, call in enumerate(calls):
            variant = _VARIANTS[i % len(_VARIANTS)]
            for s in settings if i % 2 == 0 else settings[::-1]:
                samples[s][variant].append(
                    _replay(conns[s], call, _SKIPS[variant], shms[s], checkpointers[s])
                )
    finally:
        for fd in shms.values():
            os.close(fd)
    here: dict[str, list[float]] = {s: [] for s in settings}
    for i, t in enumerate(real):
        for s in settings if i % 2 == 0 else settings[::-1]:
            started = time.perf_counter()
            mems[s].remember_episode(t.content, speaker=t.speaker, session=t.session, at=t.at)
            here[s].append(time.perf_counter() - started)
    python = {"ours_ms": _p50(between), "ours_alone_ms": _p50(alone)}
    return {
        s: _summary(by, _autocheckpoint(conns[s])) | python | {"call_here_ms": _p50(here[s])}
        for s, by in samples.items()
    }


def _p50(values: list[float]) -> float:
    return 1000 * percentiles(values)["p50"]


def _summary(by: dict[str, list[tuple[dict[str, float], int]]], every: int) -> dict[str, Any]:
    """One setting's replay. A checkpoint's cost is its commit's time over the median commit
    of its variant; spread over the commits between two checkpoints (the auto-checkpoint's
    ``every`` frames over the pages a commit), it is what checkpoints add to each call. The
    commits with and without a part differ only in the pages they write (its statements ran
    before them): the part that leaves out more pages gives what COMMIT costs a WAL page."""
    whole = {v: [sum(t.values()) for t, _ in rows] for v, rows in by.items()}
    pages = {v: sum(abs(f) for _, f in rows) / len(rows) for v, rows in by.items()}
    extra = [
        1000 * (t["commit"] - statistics.median(u["commit"] for u, _ in rows))
        for rows in by.values()
        for t, f in rows
        if f < 0
    ]
    checkpoint = statistics.mean(extra) if extra else None
    commit = {v: _p50([t["commit"] for t, _ in rows]) for v, rows in by.items()}
    fewer, left_out = max((pages["all"] - pages[v], v) for v in ("no df", "no postings"))
    return {
        "calls": sum(len(rows) for rows in by.values()),
        "p50_ms": _p50(whole["all"]),
        "mean_ms": 1000 * percentiles(whole["all"])["mean"],
        "parts_p50_ms": {p: _p50([t[p] for t, _ in by["all"]]) for p in PARTS},
        "pages": pages["all"],
        "without": {
            _SKIPS[v]: {"p50_ms": _p50(whole[v]), "pages": pages[v]} for v in _VARIANTS if _SKIPS[v]
        },
        "checkpoints": len(extra),
        "checkpoint_ms": checkpoint,
        "checkpoint_per_call_ms": None if checkpoint is None else checkpoint * pages["all"] / every,
        "commit_per_page_ms": (commit["all"] - commit[left_out]) / fewer if fewer >= 1 else None,
    }


def over_runs(summaries: list[dict[str, Any]]) -> dict[str, Any]:
    """The floor over several runs of matrix 6 (each run's summary holds its ``floor`` and
    its ``remember_episode_ms``): the replayed call's p50 as a spread, every other figure,
    and the whole call's p50 beside it, as the median of the runs."""

    def med(*path: str) -> float:
        values = []
        for summary in summaries:
            value: Any = summary["floor"]
            for key in path:
                value = value[key]
            values.append(float(value))
        return statistics.median(values)

    out: dict[str, Any] = {}
    for setting, first in summaries[0]["floor"].items():
        out[setting] = {
            "p50_ms": spread([s["floor"][setting]["p50_ms"] for s in summaries]),
            "mean_ms": med(setting, "mean_ms"),
            "ours_ms": med(setting, "ours_ms"),
            "ours_alone_ms": med(setting, "ours_alone_ms"),
            "call_here_ms": med(setting, "call_here_ms"),
            "checkpoint_per_call_ms": _median_known(
                [s["floor"][setting]["checkpoint_per_call_ms"] for s in summaries]
            ),
            "commit_per_page_ms": _median_known(
                [s["floor"][setting]["commit_per_page_ms"] for s in summaries]
            ),
            "pages": med(setting, "pages"),
            "parts_p50_ms": {p: med(setting, "parts_p50_ms", p) for p in first["parts_p50_ms"]},
            "without": {
                part: {k: med(setting, "without", part, k) for k in by}
                for part, by in first["without"].items()
            },
            "call_p50_ms": statistics.median(
                s["remember_episode_ms"][setting]["p50"] for s in summaries
            ),
            "call_mean_ms": statistics.median(
                s["remember_episode_ms"][setting]["mean"] for s in summaries
            ),
        }
    return out


def _median_known(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return statistics.median(known) if known else None
