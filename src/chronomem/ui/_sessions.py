"""Read chronica's sessions page by page, read-only, on either engine, through chronica's own
browsing contract (:class:`chronica.BrowsableStore`).

``Chronicarius.get_acta`` answers an agent's context window in one list, which is right for an
agent and wrong for a person scrolling a 100,000-acta session: the inspector needs a page
before a cursor and the acta after one (to follow a live session). The store answers those
pages itself (indexed, a page at a time), so the inspector holds no SQL of chronica's tables
and depends on none of its private modules. The store is opened read-only
(``SQLiteStore(path, read_only=True)``, ``PostgresStore(dsn, read_only=True)``): it creates
and migrates nothing, so pointing the inspector at the wrong database makes nothing there,
and it reads as empty until chronica first writes. The cursor is an actum's position (its
``seq``), the order ``get_acta`` itself returns.

The window rule is ``get_acta``'s: filters first, then the last ``last_n`` of what passes, so
the page shows exactly the acta an agent asking with those arguments was given.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TypeVar

from chronica import (
    ActorKind,
    ActumEntry,
    ActumKind,
    BrowsableStore,
    ChronicumNotFoundError,
    StoreError,
)
from chronica.stores.sqlite import SQLiteStore
from chronomem import DatabaseError
from chronomem._doors.settings import shown

__all__ = ["PREVIEW_CHARS", "ActaPage", "SessionReader", "Window", "open_reader"]

PREVIEW_CHARS = 4000
"""Content longer than this is cut in a page (an actum may hold 1 MiB); the full text is one
more request, for the actum the user opens."""

_CONNECT_SECONDS = 10
"""How long the inspector waits for a PostgreSQL server before saying it cannot reach it."""

T = TypeVar("T")


@dataclass(frozen=True, kw_only=True)
class Window:
    """Which acta of a session count: ``get_acta``'s filters and limit."""

    kinds: tuple[str, ...] = ()
    actor_kinds: tuple[str, ...] = ()
    last_n: int = 0


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
    """The inspector's questions about sessions, answered by a read-only browsable store, as
    the JSON the browser reads."""

    def __init__(self, store: BrowsableStore, where: str, *, timespec: str = "auto") -> None:
        self.store = store
        """The read-only store the pages come from."""
        self._where = where
        # SQLite hands back the time text chronica stored (always with microseconds);
        # PostgreSQL's timestamptz was shown by isoformat's default. Each engine keeps its form.
        self._timespec = timespec

    def close(self) -> None:
        """Release the database."""
        close: Callable[[], None] | None = getattr(self.store, "close", None)
        if close is not None:
            close()

    def sessions(self, owner: str, *, offset: int, limit: int) -> tuple[list[dict[str, Any]], bool]:
        """The owner's sessions, newest first, each with its size and last actum's time."""
        found = self._read(
            lambda: self.store.chronica_page(owner_id=owner, offset=offset, limit=limit + 1)
        )
        shown = [
            {
                "id": summary.chronicum.id,
                "created_at": self._iso(summary.chronicum.created_at),
                "acta": summary.acta,
                "last_at": self._iso(summary.last_at),
            }
            for summary in found[:limit]
        ]
        return shown, len(found) > limit

    def exists(self, owner: str, chronicum_id: str) -> bool:
        """Whether the owner has this session (another owner's is as missing as none)."""
        try:
            self._read(lambda: self.store.get(chronicum_id, owner_id=owner))
        except ChronicumNotFoundError:
            return False
        return True

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
        page = self._read(
            lambda: self.store.acta_page(
                chronicum_id,
                owner_id=owner,
                limit=limit,
                before=before,
                after=after,
                last_n=window.last_n,
                actum_kinds=[ActumKind(kind) for kind in window.kinds] or None,
                actor_kinds=[ActorKind(kind) for kind in window.actor_kinds] or None,
                preview_chars=PREVIEW_CHARS,
            )
        )
        return ActaPage(
            [self._actum(entry) for entry in page.entries],
            page.total,
            page.first_position,
            page.more_before,
            page.more_after,
        )

    def content(self, owner: str, chronicum_id: str, actum_id: str) -> str | None:
        """One actum's whole content (a page carries only the first ``PREVIEW_CHARS``)."""
        entry = self._read(lambda: self.store.find_actum(actum_id, owner_id=owner))
        if entry is None or entry.actum.chronicum_id != chronicum_id:
            return None
        return entry.actum.content

    def _read(self, call: Callable[[], T]) -> T:
        """Run one read; a database that cannot be read (a server gone) is a DatabaseError."""
        try:
            return call()
        except StoreError as e:
            raise DatabaseError(f"cannot read sessions from {self._where}: {e}") from e

    def _iso(self, moment: datetime | None) -> str | None:
        """A time as the browser reads it: ISO 8601 in UTC (``+00:00``)."""
        if moment is None:
            return None
        return moment.astimezone(timezone.utc).isoformat(timespec=self._timespec)

    def _actum(self, entry: ActumEntry) -> dict[str, Any]:
        actum = entry.actum
        return {
            "seq": entry.position,
            "id": actum.id,
            "kind": actum.kind.value,
            "actor_kind": actum.actor_kind.value,
            "actor": actum.actor,
            "content": actum.content,
            "truncated": entry.truncated,
            "length": entry.content_length,
            "metadata": actum.metadata,
            "at": self._iso(actum.at),
        }


def open_reader(db: Path | str) -> SessionReader:
    """A reader of the sessions in ``db``: a SQLite file, or a ``postgresql://`` DSN (whose
    driver is imported only then, so the inspector runs on SQLite without the extra)."""
    if isinstance(db, Path):
        try:
            store = SQLiteStore(db, read_only=True)
        except StoreError as e:
            raise DatabaseError(str(e)) from e
        return SessionReader(store, str(db), timespec="microseconds")
    from chronica.stores.postgres import PostgresStore

    where = shown(db)
    try:
        store_pg = PostgresStore(db, read_only=True, max_size=4, timeout=_CONNECT_SECONDS)
    except StoreError as e:
        raise DatabaseError(f"cannot open {where}: {_reason(e)}") from e
    return SessionReader(store_pg, where)


def _reason(error: StoreError) -> str:
    """The driver's words under a store's error, without the store's own prefix."""
    return str(error.__cause__ or error)
