"""What a SQLite durability setting survives, and the setting read back from a live connection.

A row says "durable" only with the failure it survives, and the setting it names is the one
its connection reports (``PRAGMA synchronous``), never the one the harness asked for: an option
that silently stopped reaching the connection would otherwise flatter every write figure.
"""

from __future__ import annotations

import sqlite3
from typing import Any

__all__ = ["SETTINGS", "SURVIVES", "chronica_setting", "chronomem_setting", "read_setting"]

SETTINGS = ("NORMAL", "FULL")
SURVIVES = {"NORMAL": "survives a killed process", "FULL": "survives power loss"}
"""In WAL mode: NORMAL syncs the log at checkpoints only, FULL on every commit."""
_NAMES = {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}


def read_setting(conn: sqlite3.Connection) -> str:
    """``PRAGMA synchronous`` of ``conn``, by name."""
    (level,) = conn.execute("PRAGMA synchronous").fetchone()
    return _NAMES.get(int(level), str(level))


def chronomem_setting(mem: Any) -> str:
    """The setting of a ``ChronoMem`` on SQLite, from its own connection.

    ChronoMem has no public way to show its connection (a benchmark is the only reader), so
    this reaches ``_db.conn`` as ``worker._set_pragmas`` does, and fails loudly if it moved.
    """
    conn = getattr(getattr(mem, "_db", None), "conn", None)
    if not isinstance(conn, sqlite3.Connection):
        raise SystemExit("ChronoMem no longer exposes _db.conn; update durability.py")
    return read_setting(conn)


def chronica_setting(store: Any) -> str:
    """The setting of a chronica ``SQLiteStore``, from a connection of its own pool.

    The pool is private (``_acquire``/``_release``); the store configures every connection it
    opens the same way, so one borrowed connection speaks for all.
    """
    acquire, release = getattr(store, "_acquire", None), getattr(store, "_release", None)
    if acquire is None or release is None:
        raise SystemExit("SQLiteStore no longer has _acquire/_release; update durability.py")
    conn = acquire()
    try:
        return read_setting(conn)
    finally:
        release(conn)
