"""Matrix 7a's floor under a write: each side's write of a turn, and of one item, with
nothing around it.

Ours: ``SQLiteStore.record_many`` of the acta, mapped and checked beforehand, so what is
timed is the store's SQL and its row tuples; and, apart, the mapping and checking itself
(``item_actum`` and chronica's ``validated_acta``, which every recorded batch must pass).
Theirs: ``SQLiteSession``'s statements for the same items (its ``_insert_items``, then a
commit) on a file it created. Both in one thread, interleaved, no hand-off; and the WAL
pages each commit of a turn writes, read from the growth of each ``-wal`` file.

Each part is timed in a tight loop, the fastest it runs: their sum is a floor under what
``ChronicaSession`` can take for the same write, short of changing chronica's record.

Then a read of the last 20 items, each side's blocking half alone: ours, the session's own
read log (:class:`chronica.integrations._openai_log.Log`) asking the store whether anything
is new and decoding the items it holds, as ``get_items(limit=20)`` does in its worker thread;
theirs, ``SQLiteSession``'s query and its ``json.loads`` of each row.
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
from chronica._validation import validated_acta
from chronica.integrations._openai_items import item_actum, marked
from chronica.integrations._openai_log import Log, decoded
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
    """A turn's write and one item's with nothing around them, p50 in ms, and WAL frames per
    commit of a turn.

    ``ours_ms`` / ``theirs_ms``: a turn's SQL on each side; ``check_ms``: mapping and checking
    the turn's items into acta (ours alone; theirs only encodes, inside ``theirs_ms``). The
    ``_one`` keys: the same for one item (the turns' first items, a user message), written as
    ``ChronicaSession`` writes a lone item (one insert, its own transaction). The
    ``_read_ms`` keys: a read of the last 20 items on each side (see :func:`_reads`), and
    ``decode_read_ms`` ours without asking the store what is new: decoding the 20 items
    into the fresh objects every read hands back, the least a read does.
    """
    turns_taken: dict[str, list[float]] = {"ours": [], "theirs": [], "check": []}
    one: dict[str, list[float]] = {"ours": [], "theirs": [], "check": []}
    frames = {"ours": 0, "theirs": 0}
    # Each kind of write on a fresh pair of files, fewer commits than fill either log to its
    # checkpoint: a log that grows costs a durable commit more than one written over, and
    # SQLiteSession's (1,000 pages to a checkpoint, against chronica's 4,000) would otherwise
    # start over sooner and be timed in the cheaper state.
    with _Pair(tmp, sync, "turns") as (store, conn, wals):
        for i in range(turns):
            wal = [_wal_size(path) for path in wals]
            _write_both(store, conn, turn(i), f"floor:{i:08}", turns_taken)
            grown = [_wal_size(path) for path in wals]
            for side, before, after in zip(("ours", "theirs"), wal, grown, strict=True):
                frames[side] += max(0, after - before) // _WAL_FRAME  # 0 when the log restarts
        reads = _reads(store, conn, 2 * turns)
    with _Pair(tmp, sync, "one") as (store, conn, _):
        for i in range(turns):
            _write_both(store, conn, turn(i)[:1], f"floor:{i:08}:one", one)
    return {
        "ours_ms": _p50_ms(turns_taken["ours"]),
        "theirs_ms": _p50_ms(turns_taken["theirs"]),
        "check_ms": _p50_ms(turns_taken["check"]),
        "ours_frames": frames["ours"] / turns,
        "theirs_frames": frames["theirs"] / turns,
        "ours_one_ms": _p50_ms(one["ours"]),
        "theirs_one_ms": _p50_ms(one["theirs"]),
        "check_one_ms": _p50_ms(one["check"]),
        "ours_read_ms": _p50_ms(reads["ours"]),
        "decode_read_ms": _p50_ms(reads["decode"]),
        "theirs_read_ms": _p50_ms(reads["theirs"]),
    }


class _Pair:
    """Chronica's store and a connection to SQLiteSession's schema, on a fresh pair of files
    named for ``name``; entered, it gives both and the paths of their write-ahead logs."""

    def __init__(self, tmp: Path, sync: Literal["FULL", "NORMAL"], name: str) -> None:
        self._ours = tmp / f"floor-chronica-{sync}-{name}.db"
        self._theirs = tmp / f"floor-agents-{sync}-{name}.db"
        self._sync = sync

    def __enter__(self) -> tuple[SQLiteStore, sqlite3.Connection, tuple[Path, Path]]:
        bench_module("agents.memory").SQLiteSession("floor", str(self._theirs)).close()  # schema
        self._conn = sqlite3.connect(self._theirs, isolation_level=None)
        try:
            self._conn.execute(f"PRAGMA synchronous = {self._sync}")
            self._store = SQLiteStore(self._ours, synchronous=self._sync)
        except BaseException:
            self._conn.close()
            raise
        self._store.create("floor", owner_id="floor")
        return self._store, self._conn, (self._ours, self._theirs)

    def __exit__(self, *exc: object) -> None:
        self._conn.close()
        self._store.close()


def _reads(store: SQLiteStore, conn: sqlite3.Connection, rounds: int) -> dict[str, list[float]]:
    """A read of the last 20 items, ``rounds`` times on each side in alternation, nothing new
    written between (the tight loop's case): ours, what ``ChronicaSession.get_items`` runs in
    its worker, its read log checking by the newest actum's ID that nothing is new, then
    decoding the items it holds; theirs, ``SQLiteSession.get_items``'s query and decoding."""
    log = Log(
        lambda n: store.acta("floor", owner_id="floor", last_n=n),
        lambda n: store.acta_ids("floor", owner_id="floor", last_n=n),
    )
    held = [held for _, held in log.live(20)]  # the first read loads what is held
    samples: dict[str, list[float]] = {"ours": [], "theirs": [], "decode": []}
    for _ in range(rounds):
        started = time.perf_counter()
        decoded(held)
        samples["decode"].append(time.perf_counter() - started)
        started = time.perf_counter()
        ours = decoded([held for _, held in log.live(20)])
        samples["ours"].append(time.perf_counter() - started)
        started = time.perf_counter()
        theirs = _their_read(conn, 20)
        samples["theirs"].append(time.perf_counter() - started)
        if len(ours) != len(theirs):
            raise SystemExit(f"floor: read {len(ours)} items against {len(theirs)}")
    return samples


def _their_read(conn: sqlite3.Connection, limit: int) -> list[Any]:
    """``SQLiteSession.get_items(limit)``'s query and decoding, as openai-agents 0.x reads."""
    rows = conn.execute(
        "SELECT message_data FROM agent_messages WHERE session_id = ? ORDER BY id DESC LIMIT ?",
        ("floor", limit),
    ).fetchall()
    return [json.loads(data) for (data,) in reversed(rows)]


def _write_both(
    store: SQLiteStore,
    conn: sqlite3.Connection,
    items: list[dict[str, Any]],
    key: str,
    samples: dict[str, list[float]],
) -> None:
    """``items`` written by each side, each part timed into ``samples``: mapping and checking
    them (ours), chronica's store writing the checked acta, SQLiteSession's SQL."""
    started = time.perf_counter()
    acta = _checked_turn(items, key)
    samples["check"].append(time.perf_counter() - started)
    started = time.perf_counter()
    store.record_many(acta, owner_id="floor")  # a batch store's turn: marked, not keyed
    samples["ours"].append(time.perf_counter() - started)
    started = time.perf_counter()
    _their_turn(conn, items)
    samples["theirs"].append(time.perf_counter() - started)


def _p50_ms(samples: list[float]) -> float:
    return 1000 * percentiles(samples)["p50"]


def _checked_turn(items: list[dict[str, Any]], call: str) -> list[Actum]:
    """A turn's acta as ``ChronicaSession`` records them on a batch store, the first marked
    with its ``call``, checked, IDs given, not stored."""
    acta = [
        item_actum(j, item, chronicum_id="floor", owner="floor", agent="concierge")
        for j, item in enumerate(items)
    ]
    acta[0] = marked(acta[0], call)
    return validated_acta(acta, new_actum_ids(len(acta)))  # as Chronicarius.record_acta checks


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
