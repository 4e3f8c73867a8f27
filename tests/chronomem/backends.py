"""Reaching under a memory's public API, for the white-box tests that need its engine."""

from __future__ import annotations

import sqlite3

from chronomem import ChronoMem
from chronomem._db import Database

__all__ = ["sqlite_connection"]


def sqlite_connection(mem: ChronoMem) -> sqlite3.Connection:
    """The SQLite connection under ``mem`` (a test of SQLite's own behaviour)."""
    db = mem._db
    assert isinstance(db, Database), "this white-box test needs a SQLite memory"
    return db.conn
