"""Read chronica's sessions page by page, read-only, on either engine.

``Chronicarius.get_acta`` answers an agent's context window in one list, which is right for an
agent and wrong for a person scrolling a 100,000-acta session: the inspector needs a page
before a cursor and the acta after one (to follow a live session), and the store has neither.
Rather than widen the store contract for one reader, these queries live here, against
chronica's tables, on connections that cannot write. The cursor is ``seq``, the order
``get_acta`` itself returns.

The window rule is ``get_acta``'s: filters first, then the last ``last_n`` of what passes, so
the page shows exactly the acta an agent asking with those arguments was given.

The queries are written once, here; a backend (:mod:`._sessions_sqlite`,
:mod:`._sessions_postgres`) says where the tables are and runs a statement. Both engines take
the same SQL: ``?`` placeholders (the PostgreSQL reader passes them as ``%s``), ``IN`` lists,
``substr`` and ``length`` in characters.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

__all__ = ["PREVIEW_CHARS", "ActaPage", "SessionReader", "Tables", "Window", "open_reader"]

PREVIEW_CHARS = 4000
"""Content longer than this is cut in a page (an actum may hold 1 MiB); the full text is one
more request, for the actum the user opens."""


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


@dataclass(frozen=True)
class Tables:
    """Where a backend keeps chronica's tables, as SQL text (already quoted)."""

    chronica: str
    acta: str
    created_order: str
    """The column that numbers chronica in creation order."""
    metadata: str
    """The metadata column read as JSON text."""


class SessionReader(ABC):
    """Read-only queries over chronica's tables; a backend runs them."""

    tables: Tables

    @abstractmethod
    def _rows(self, sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
        """Run one read; no rows when chronica has not written to this database yet."""

    @abstractmethod
    def close(self) -> None:
        """Release the database."""

    def sessions(self, owner: str, *, offset: int, limit: int) -> tuple[list[dict[str, Any]], bool]:
        """The owner's sessions, newest first, each with its size and last actum's time.

        The size is the last ``seq``: acta are numbered 1, 2, 3... and never deleted, and the
        last one is one index probe where a count would read every actum of every session.
        """
        t = self.tables
        rows = self._rows(
            f"""SELECT c.id, c.created_at,
                      (SELECT coalesce(max(a.seq), 0) FROM {t.acta} a
                        WHERE a.owner_id = c.owner_id AND a.chronicum_id = c.id),
                      (SELECT a.at FROM {t.acta} a
                        WHERE a.owner_id = c.owner_id AND a.chronicum_id = c.id
                        ORDER BY a.seq DESC LIMIT 1)
               FROM {t.chronica} c WHERE c.owner_id = ?
               ORDER BY c.{t.created_order} DESC LIMIT ? OFFSET ?""",
            (owner, limit + 1, offset),
        )
        found = [
            {"id": r[0], "created_at": _iso(r[1]), "acta": r[2], "last_at": _iso(r[3])}
            for r in rows[:limit]
        ]
        return found, len(rows) > limit

    def exists(self, owner: str, chronicum_id: str) -> bool:
        """Whether the owner has this session (another owner's is as missing as none)."""
        return bool(
            self._rows(
                f"SELECT 1 FROM {self.tables.chronica} WHERE owner_id = ? AND id = ?",
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
        t = self.tables
        columns = (
            f"seq, id, kind, actor_kind, actor, substr(content, 1, {PREVIEW_CHARS}), "
            f"length(content), {t.metadata}, at"
        )
        scope = f"WHERE owner_id = ? AND chronicum_id = ?{cond} AND seq >= ?"
        base = [*key, *params, first]
        if after is not None:
            # Following a live session: the oldest acta after the cursor, in order.
            rows = self._rows(
                f"SELECT {columns} FROM {t.acta} {scope} AND seq > ? ORDER BY seq LIMIT ?",
                (*base, after, limit + 1),
            )
            more_before, more_after, rows = False, len(rows) > limit, rows[:limit]
        else:
            # Scrolling back: the newest acta before the cursor (walks the index backwards).
            rows = self._rows(
                f"SELECT {columns} FROM {t.acta} {scope} AND seq < ? ORDER BY seq DESC LIMIT ?",
                (*base, before if before is not None else 2**62, limit + 1),
            )
            more_before, more_after, rows = len(rows) > limit, False, rows[:limit][::-1]
        counted = self._rows(f"SELECT count(*) FROM {t.acta} {scope}", base)
        total = int(counted[0][0]) if counted else 0
        return ActaPage([_actum(r) for r in rows], total, first, more_before, more_after)

    def _first_seq(self, key: list[Any], cond: str, params: list[Any], last_n: int) -> int:
        """Where a ``last_n`` window starts: the seq of the n-th newest acta that pass."""
        if last_n <= 0:
            return 0
        rows = self._rows(
            f"SELECT seq FROM {self.tables.acta} WHERE owner_id = ? AND chronicum_id = ?{cond} "
            "ORDER BY seq DESC LIMIT 1 OFFSET ?",
            (*key, *params, last_n - 1),
        )
        return int(rows[0][0]) if rows else 0

    def content(self, owner: str, chronicum_id: str, actum_id: str) -> str | None:
        """One actum's whole content (a page carries only the first ``PREVIEW_CHARS``)."""
        rows = self._rows(
            f"SELECT content FROM {self.tables.acta} "
            "WHERE owner_id = ? AND chronicum_id = ? AND id = ?",
            (owner, chronicum_id, actum_id),
        )
        return str(rows[0][0]) if rows else None


def open_reader(db: Path | str) -> SessionReader:
    """A reader of the sessions in ``db``: a SQLite file, or a ``postgresql://`` DSN (whose
    driver is imported only then, so the inspector runs on SQLite without the extra)."""
    if isinstance(db, Path):
        from ._sessions_sqlite import SQLiteSessionReader

        return SQLiteSessionReader(db)
    from ._sessions_postgres import PostgresSessionReader

    return PostgresSessionReader(db)


def _iso(moment: Any) -> Any:
    """A time as the browser reads it: SQLite's stored ISO text, or PostgreSQL's timestamptz
    in the same form (UTC, ``+00:00``)."""
    if isinstance(moment, datetime):
        return moment.astimezone(timezone.utc).isoformat()
    return moment


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
        "at": _iso(at),
    }
