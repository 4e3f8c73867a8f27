"""Planner statistics for a memory too new for autovacuum to have analysed it.

PostgreSQL plans from statistics that ``ANALYZE`` gathers, and autovacuum runs it only after
its naptime (a minute by default) and once a table has changed by 50 rows and 10% of itself.
Until then a new memory's planner is blind: it takes each table for a few rows and may join
one to another by scanning the second once per row of the first (one recall of a memory of
300 items read 40,426 fact rows so). The statements that matter most are written so that no
plan can do that (see dialect.py), but not every statement can be; so the memory gathers
its statistics itself.

After its 1st, 2nd, 4th, 8th... write (a catalog query each, one round trip), the memory asks
which of its tables have outgrown one page and were never analysed since, or have grown
fourfold since their last analysis, and analyses those: a table of a few thousand rows in
milliseconds, and on a large one ``ANALYZE`` reads a sample (30,000 rows by default), never
the table. One process at a time does it (a transaction-level advisory lock, tried, never
waited for); it never blocks a writer or a reader (``ANALYZE`` takes a lock that conflicts
only with itself and schema changes). It runs after the write has committed: a failure here
(a role that does not own the tables, a server going away) is logged and the write stands.
"""

from __future__ import annotations

import logging
from typing import Any

import psycopg
import psycopg.sql

__all__ = ["GROWTH", "analyse_if_blind", "is_checkpoint"]

log = logging.getLogger("chronomem.postgres")

GROWTH = 4
"""A table is analysed again once it has grown this many times over its size (in pages) at
its last analysis: the planner scales its row count by a table's pages, not its values."""

# A table of one page is read whole by any plan, and one analysed at a page or less taught
# the planner its rows per page while its first page was filling (one row, say), so the first
# analysis waits for a second page.
_BLIND = f"""
    SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    CROSS JOIN LATERAL (
        SELECT pg_relation_size(c.oid) / current_setting('block_size')::bigint AS pages) s
    WHERE n.nspname = %s AND c.relkind = 'r' AND c.relname LIKE 'chronomem%%'
      AND s.pages >= 2 AND (c.reltuples < 0 OR c.relpages < 2 OR s.pages > {GROWTH} * c.relpages)
    ORDER BY c.relname"""


def is_checkpoint(writes: int) -> bool:
    """Whether the ``writes``-th write of a memory asks about its statistics: a power of two,
    so a process that writes n times asks about log2(n) times."""
    return writes > 0 and writes & (writes - 1) == 0


def analyse_if_blind(raw: psycopg.Connection[Any], schema: str) -> list[str]:
    """Analyse the memory's tables in ``schema`` the planner is blind to; returns their names
    (none when another process is doing it). ``raw`` must be in autocommit mode.

    The common answer, nothing to do, costs one statement; the lock is taken, and the
    question asked again under it, only when there is something to analyse."""
    try:
        if not raw.execute(_BLIND, (schema,)).fetchall():
            return []
        with raw.transaction():
            lock = "chronomem.analyse:" + schema
            row = raw.execute("SELECT pg_try_advisory_xact_lock(hashtext(%s))", (lock,)).fetchone()
            if not (row and row[0]):
                return []
            tables = [str(name) for (name,) in raw.execute(_BLIND, (schema,)).fetchall()]
            for table in tables:
                name = psycopg.sql.Identifier(schema, table)
                raw.execute(psycopg.sql.SQL("ANALYZE {}").format(name))
    except psycopg.Error as e:
        log.warning("could not gather planner statistics for schema %s: %s", schema, e)
        return []
    return tables
