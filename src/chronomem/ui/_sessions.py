"""Read chronica's sessions page by page, straight from the SQLite file, read-only.

``Chronicarius.get_acta`` answers an agent's context window in one list, which is right for an
agent and wrong for a person scrolling a 100,000-acta session: the inspector needs a page
before a cursor and the acta after one (to follow a live session), and the store has neither.
Rather than widen the store contract for one reader, these queries live here, against the
schema of :mod:`chronica.stores._sqlite_schema`, on a connection opened with ``mode=ro`` so
that nothing here can write. The cursor is ``seq``, the order ``get_acta`` itself returns.

The window rule is ``get_acta``'s: filters first, then the last ``last_n`` of what passes, so
the page shows exactly the acta an agent asking with those arguments was given.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["PREVIEW_CHARS", "ActaPage", "SessionReader", "Window"]

PREVIEW_CHARS = 4000
"""Content longer than this is cut in a page (an actum may hold 1 MiB); the full text is one
more request, for the actum the user opens."""

_ACTA_COLUMNS = (
    f"seq, id, kind, actor_kind, actor, substr(content, 1, {PREVIEW_CHARS}), length(content), "
    "metadata, at"
)


@dataclass(frozen=True, kw_only=True)
class Window:
    """Which acta of a session count: ``get_acta``'s filters and limit."""

    kinds: tuple[str, ...] = ()
    actor_kinds: tuple[str, ...] = ()
    last_n: int = 0

    def where(self) -> tuple[str, list[Any]]:
        """The SQL condition (after owner and chronicum) and its parameters."""
        sql = ""
        params: list[Any] = []
        if self.kinds:
            sql += f" AND kind IN ({', '.join('?' * len(self.kinds))})"
            params.extend(self.kinds)
        if self.actor_kinds:
            sql += f" AND actor_kind IN ({', '.join('?' * len(self.actor_kinds))})"
            params.extend(self.actor_kinds)
        return sql, params


@dataclass(frozen=True)
class ActaPage:
    """A run of consecutive acta of one window, oldest first, and where the window goes on."""

    acta: list[dict[str, Any]]
    total: int
    """How many acta the whole window holds."""
    first_seq: int
    """The window's first ``seq`` (0 when it starts at the session's beginning)."""
    more_before: bool
    more_after: bool


class SessionReader:
    """Read-only queries over chronica's tables in one SQLite file.

    One connection, guarded by a lock: each query is an index range scan of a page, so
    serialising them costs less than a pool would.
    """

    def __init__(self, path: str | Path) -> None:
        uri = Path(path).resolve().as_uri() + "?mode=ro"
        self._conn = sqlite3.connect(uri, uri=True, check_same_thread=False, timeout=10.0)
        self._lock = threading.Lock()

    def close(self) -> None:
        """Release the file."""
        with self._lock:
            self._conn.close()

    def _rows(self, sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
        with self._lock:
            try:
                return self._conn.execute(sql, params).fetchall()
            except sqlite3.OperationalError as e:
                if "no such table" in str(e):  # chronica has not written to this file yet
                    return []
                raise

    def sessions(self, owner: str, *, offset: int, limit: int) -> tuple[list[dict[str, Any]], bool]:
        """The owner's sessions, newest first, each with its size and last actum's time.

        The size is the last ``seq``: acta are numbered 1, 2, 3... and never deleted, and the
        last one is one index probe where a count would read every actum of every session.
        """
        rows = self._rows(
            """SELECT c.id, c.created_at,
                      (SELECT coalesce(max(a.seq), 0) FROM chronica_acta a
                        WHERE a.owner_id = c.owner_id AND a.chronicum_id = c.id),
                      (SELECT a.at FROM chronica_acta a
                        WHERE a.owner_id = c.owner_id AND a.chronicum_id = c.id
                        ORDER BY a.seq DESC LIMIT 1)
               FROM chronica_chronica c WHERE c.owner_id = ?
               ORDER BY c.num DESC LIMIT ? OFFSET ?""",
            (owner, limit + 1, offset),
        )
        found = [
            {"id": r[0], "created_at": r[1], "acta": r[2], "last_at": r[3]} for r in rows[:limit]
        ]
        return found, len(rows) > limit

    def exists(self, owner: str, chronicum_id: str) -> bool:
        """Whether the owner has this session (another owner's is as missing as none)."""
        return bool(
            self._rows(
                "SELECT 1 FROM chronica_chronica WHERE owner_id = ? AND id = ?",
                (owner, chronicum_id),
            )
        )

    def page(
        self,
        owner: str,
        chronicum_id: str,
        window: Window,
        *,
        limit: int,
        before: int | None = None,
        after: int | None = None,
    ) -> ActaPage:
        """The newest ``limit`` acta of the window before ``before``, or the oldest after
        ``after`` (following a live session), or the newest of all."""
        cond, params = window.where()
        key = [owner, chronicum_id]
        first = self._first_seq(key, cond, params, window.last_n)
        scope = f"WHERE owner_id = ? AND chronicum_id = ?{cond} AND seq >= ?"
        base = [*key, *params, first]
        if after is not None:
            # Following a live session: the oldest acta after the cursor, in order.
            rows = self._rows(
                f"SELECT {_ACTA_COLUMNS} FROM chronica_acta {scope} AND seq > ? "
                "ORDER BY seq LIMIT ?",
                (*base, after, limit + 1),
            )
            more_before, more_after, rows = False, len(rows) > limit, rows[:limit]
        else:
            # Scrolling back: the newest acta before the cursor (walks the index backwards).
            rows = self._rows(
                f"SELECT {_ACTA_COLUMNS} FROM chronica_acta {scope} AND seq < ? "
                "ORDER BY seq DESC LIMIT ?",
                (*base, before if before is not None else 2**62, limit + 1),
            )
            more_before, more_after, rows = len(rows) > limit, False, rows[:limit][::-1]
        (total,) = self._rows(f"SELECT count(*) FROM chronica_acta {scope}", base)[0]
        return ActaPage([_actum(r) for r in rows], total, first, more_before, more_after)

    def _first_seq(self, key: list[Any], cond: str, params: list[Any], last_n: int) -> int:
        """Where a ``last_n`` window starts: the seq of the n-th newest acta that pass."""
        if last_n <= 0:
            return 0
        rows = self._rows(
            f"SELECT seq FROM chronica_acta WHERE owner_id = ? AND chronicum_id = ?{cond} "
            "ORDER BY seq DESC LIMIT 1 OFFSET ?",
            (*key, *params, last_n - 1),
        )
        return int(rows[0][0]) if rows else 0

    def content(self, owner: str, chronicum_id: str, actum_id: str) -> str | None:
        """One actum's whole content (a page carries only the first ``PREVIEW_CHARS``)."""
        rows = self._rows(
            "SELECT content FROM chronica_acta WHERE owner_id = ? AND chronicum_id = ? AND id = ?",
            (owner, chronicum_id, actum_id),
        )
        return str(rows[0][0]) if rows else None


def _actum(row: tuple[Any, ...]) -> dict[str, Any]:
    seq, actum_id, kind, actor_kind, actor, preview, length, metadata, at = row
    try:
        meta = json.loads(metadata)
    except ValueError:  # never written by chronica, but show what is there rather than fail
        meta = {"_raw": metadata}
    return {
        "seq": seq,
        "id": actum_id,
        "kind": kind,
        "actor_kind": actor_kind,
        "actor": actor,
        "content": preview,
        "truncated": length > len(preview),
        "length": length,
        "metadata": meta,
        "at": at,
    }
