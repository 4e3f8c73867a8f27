"""When each item was last recalled, recorded so that recall does not notice the cost.

What counts as use is what :meth:`chronomem.ChronoMem.recall` hands back: every item in its
result, whoever asked (the library, ``chronomem recall``, the hooks' context, the MCP
``chronomem_recall`` tool, the LangGraph store's ``search``, ADK's ``search_memory``), since
each reached a caller to be read. Items recall weighed and left out do not count, nor do
reads by id (``get``, the MCP resource, the LangGraph store's ``get``), a timeline or an
export: those are an operator's or a tool's look at what is stored, and a backup that read
every item would otherwise keep every item alive. The web inspector opens its memory with
``track_use=False``, for the same reason.

A recall adds its items' ids to an in-process buffer (a dictionary under a lock: no
statement, no transaction). The buffer is written in one statement when it holds
:data:`FLUSH_ITEMS` ids, on the first recall :data:`FLUSH_SECONDS` after the last write, by a
timer thread :data:`FLUSH_SECONDS` after an id came into an empty buffer (so a process that
recalls once and then idles does not keep it), at ``prune`` and at ``close``. An item
already noted within :data:`GRANULARITY` is not noted again, and the statement moves a
stored time only forward and by at least as much, so a hot item costs one row write an hour
whichever processes recall it. The recall that writes the
buffer waits for the write like any write (on SQLite, for another process's write lock); the
others never touch the database for it.

Crash safety: a buffer lost with its process (killed before a flush or ``close``) only makes
its items look as old as their previous stored use; nothing else is in it. A flush writes
only for items that exist and are not purged (on PostgreSQL it skips a row a purge or
erasure holds locked, and the foreign key's cascade removes a row whose item an erasure
deletes), so no use brings back a purged item or outlives an erased one, and a purge deletes
the item's use with it. A flush that fails (a role that may only read) is logged once and
recording stops for that memory; recall itself never fails for it. A SQLite file opened for
reading only records nothing from the start.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable

from chronomem._errors import ChronoMemError
from chronomem.engine.dialect import Conn
from chronomem.engine.storage import Storage

__all__ = [
    "FLUSH_ITEMS",
    "FLUSH_SECONDS",
    "GRANULARITY",
    "SINCE_KEY",
    "UseLog",
    "forget_uses",
    "unused_items",
    "uses_since",
]

log = logging.getLogger("chronomem")

FLUSH_ITEMS = 256
"""Ids buffered before a recall writes them (one statement of this many rows at most)."""
FLUSH_SECONDS = 60
"""The longest a noted use waits in the buffer while recalls go on."""
GRANULARITY = 3600
"""Seconds: a stored last-use time is at most this much older than the true one."""
SINCE_KEY = "uses_since"
"""The ``chronomem_settings`` key holding when the file began recording uses (epoch µs)."""

_US = 1_000_000


class UseLog:
    """The buffer of one memory (shared by its :meth:`~chronomem.ChronoMem.for_owner` views,
    which share its connection): ids noted as used, with when, until :meth:`flush`.
    ``clock`` gives the time a timer's flush writes at (epoch µs)."""

    def __init__(self, db: Storage, clock: Callable[[], int], *, enabled: bool) -> None:
        self._db = db
        self._clock = clock
        self.enabled = enabled
        self._lock = threading.Lock()
        self._pending: dict[str, int] = {}
        self._noted: dict[str, int] = {}  # id -> when last noted, within GRANULARITY
        self._last_flush: int | None = None
        self._timer: threading.Timer | None = None

    def note(self, ids: Iterable[str], now: int) -> bool:
        """Record that the items ``ids`` were used at ``now`` (epoch µs); whether the buffer
        is due to be written (:meth:`flush`)."""
        if not self.enabled:
            return False
        fresh = now - GRANULARITY * _US
        with self._lock:
            for item in ids:
                if self._noted.get(item, fresh) <= fresh:
                    self._noted[item] = self._pending[item] = now
            if self._last_flush is None:
                self._last_flush = now
            if self._pending and self._timer is None:
                self._timer = threading.Timer(FLUSH_SECONDS, self._on_timer)
                self._timer.daemon = True  # a lost buffer only makes items look older
                self._timer.start()
            due = now - self._last_flush >= FLUSH_SECONDS * _US
            return bool(self._pending) and (due or len(self._pending) >= FLUSH_ITEMS)

    def _on_timer(self) -> None:
        with self._lock:
            self._timer = None
        self.flush(self._clock())

    def flush(self, now: int) -> int:
        """Write the buffered uses in one statement (none if empty); returns how many ids it
        held. A failure is logged and stops recording (see the module's docstring)."""
        with self._lock:
            pending, self._pending = self._pending, {}
            self._last_flush = now
            fresh = now - GRANULARITY * _US
            self._noted = {i: t for i, t in self._noted.items() if t > fresh}
        if not pending:
            return 0
        try:
            with self._db.write() as conn:
                _store(conn, pending)
        except ChronoMemError as e:
            self.enabled = False
            log.warning("%s: recall stops recording when items were used: %s", self._db.path, e)
        return len(pending)

    def close(self, now: int) -> None:
        """Stop the timer and write what is buffered (the memory is closing)."""
        with self._lock:
            timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()
        self.flush(now)


def _store(conn: Conn, pending: dict[str, int]) -> None:
    """One statement: each item's use, if the item exists and is not purged, and if it is at
    least :data:`GRANULARITY` newer than the stored one (so a time only moves forward)."""
    values = ", ".join(["(?, CAST(? AS BIGINT))"] * len(pending))
    params: list[object] = [x for pair in sorted(pending.items()) for x in pair]
    # PostgreSQL: skip an item a purge or an erasure holds (FOR UPDATE), so the flush never
    # waits on it nor writes a use the purge would not see; rowid order, so two flushes
    # insert the same items in one order and never deadlock.
    lock = " FOR KEY SHARE OF f SKIP LOCKED" if conn.dialect.for_update else ""
    conn.execute(
        f"""WITH used (id, at) AS (VALUES {values})
            INSERT INTO chronomem_used (item, at)
            SELECT f.rowid, used.at FROM used JOIN chronomem_facts f ON f.id = used.id
            WHERE f.purged_at IS NULL ORDER BY f.rowid{lock}
            ON CONFLICT (item) DO UPDATE SET at = excluded.at
            WHERE excluded.at >= chronomem_used.at + ?""",
        (*params, GRANULARITY * _US),
    )


def uses_since(conn: Conn) -> int:
    """When the file began recording uses (epoch µs): an item stored before counts as
    unused from then."""
    row = conn.execute(
        "SELECT value FROM chronomem_settings WHERE key = ?", (SINCE_KEY,)
    ).fetchone()
    return int(row[0]) if row is not None else 0


def unused_items(
    conn: Conn, owner: str, cutoff: int, since: int, before: int, size: int
) -> list[int]:
    """Up to ``size`` rowids of the owner's items (facts in any state, episodes), not purged,
    below rowid ``before``, newest first, last used before ``cutoff`` (epoch µs): an item
    never recalled counts from when it was written, or from ``since`` if that is later."""
    rows = conn.execute(
        """SELECT f.rowid FROM chronomem_facts f LEFT JOIN chronomem_used u ON u.item = f.rowid
           WHERE f.owner = ? AND f.purged_at IS NULL AND f.rowid < ?
           AND coalesce(u.at, CASE WHEN f.system_time > ? THEN f.system_time ELSE ? END) < ?
           ORDER BY f.rowid DESC LIMIT ?""",
        (owner, before, since, since, cutoff, size),
    ).fetchall()
    return [int(r[0]) for r in rows]


def forget_uses(conn: Conn, rowids: Iterable[int]) -> None:
    """Delete the uses of the items ``rowids`` (a purge's: a tombstone keeps no trace of
    when it was read)."""
    conn.executemany("DELETE FROM chronomem_used WHERE item = ?", [(r,) for r in rowids])
