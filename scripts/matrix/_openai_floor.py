"""Matrix 7a's floor under a turn: each side's write of one turn with nothing around it.

Ours: ``SQLiteStore.record_many`` of the turn's acta, mapped and checked beforehand, so what
is timed is the store's SQL and its row tuples. Theirs: ``SQLiteSession``'s statements for
the same turn (its ``_insert_items``, then a commit) on a file it created. Both in one
thread, interleaved, no hand-off; and the WAL pages each commit writes, read from the
growth of each ``-wal`` file.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from chronica import Actum
from chronica._ids import new_actum_ids
from chronica._validation import validated_actum
from chronica.integrations._openai_items import item_actum
from chronica.stores.sqlite import SQLiteStore

from .optional import bench_module
from .stats import percentiles

__all__ = ["floor"]

_WAL_FRAME = 24 + 4096  # a WAL frame: its header and one page (both files use 4 KiB pages)


def floor(
    tmp: Path,
    sync: Literal["FULL", "NORMAL"],
    turns: int,
    turn: Callable[[int], list[dict[str, Any]]],
) -> dict[str, float]:
    """A turn's write with nothing around it, p50 in ms, and WAL frames per commit.

    Ours: ``SQLiteStore.record_many`` of the turn's acta, mapped and checked beforehand (what
    is left is the store's SQL and its row tuples). Theirs: ``SQLiteSession``'s statements
    for the same turn (its ``_insert_items``, then a commit) on a file it created.
    """
    store = SQLiteStore(tmp / f"floor-chronica-{sync}.db", synchronous=sync)
    theirs_path = tmp / f"floor-agents-{sync}.db"
    bench_module("agents.memory").SQLiteSession("floor", str(theirs_path)).close()  # its schema
    conn = sqlite3.connect(theirs_path, isolation_level=None)
    conn.execute(f"PRAGMA synchronous = {sync}")
    store.create("floor", owner_id="floor")
    ours: list[float] = []
    theirs: list[float] = []
    frames = {"ours": 0, "theirs": 0}
    try:
        for i in range(turns):
            acta = _checked_turn(turn(i))
            keys = [f"floor:{i:08}:{j}" for j in range(len(acta))]
            wal = [_wal_size(tmp / f"floor-chronica-{sync}.db"), _wal_size(theirs_path)]
            started = time.perf_counter()
            store.record_many(acta, owner_id="floor", idempotency_keys=keys)
            ours.append(time.perf_counter() - started)
            started = time.perf_counter()
            _their_turn(conn, turn(i))
            theirs.append(time.perf_counter() - started)
            grown = [_wal_size(tmp / f"floor-chronica-{sync}.db"), _wal_size(theirs_path)]
            for side, before, after in zip(("ours", "theirs"), wal, grown, strict=True):
                frames[side] += max(0, after - before) // _WAL_FRAME  # 0 when the log restarts
    finally:
        conn.close()
        store.close()
    return {
        "ours_ms": 1000 * percentiles(ours)["p50"],
        "theirs_ms": 1000 * percentiles(theirs)["p50"],
        "ours_frames": frames["ours"] / turns,
        "theirs_frames": frames["theirs"] / turns,
    }


def _checked_turn(items: list[dict[str, Any]]) -> list[Actum]:
    """A turn's acta as ``ChronicaSession`` records them, checked, IDs given, not stored."""
    ids = new_actum_ids(len(items))
    return [
        validated_actum(
            item_actum(j, item, chronicum_id="floor", owner="floor", agent="concierge"), ids[j]
        )
        for j, item in enumerate(items)
    ]


def _their_turn(conn: sqlite3.Connection, items: list[dict[str, Any]]) -> None:
    """``SQLiteSession._insert_items`` and its commit, as openai-agents 0.x writes a turn."""
    conn.execute("BEGIN")
    conn.execute("INSERT OR IGNORE INTO agent_sessions (session_id) VALUES (?)", ("floor",))
    conn.executemany(
        "INSERT INTO agent_messages (session_id, message_data) VALUES (?, ?)",
        [("floor", json.dumps(item)) for item in items],
    )
    conn.execute(
        "UPDATE agent_sessions SET updated_at = CURRENT_TIMESTAMP WHERE session_id = ?",
        ("floor",),
    )
    conn.execute("COMMIT")


def _wal_size(db: Path) -> int:
    try:
        return os.path.getsize(f"{db}-wal")
    except OSError:
        return 0
