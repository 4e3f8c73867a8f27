"""``chronomem export`` / ``import``: one owner's facts and sessions, and back.

The file format (and the checks made while reading it) is :mod:`._format`. Facts come oldest
first and a chronicum comes before its acta, so the file reads as a history. Import restores
everything exactly (ids, times, order, lineage) under the importing owner; importing the
same file twice changes nothing.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from chronica import ChronicaError, Chronicarius, Chronicum
from chronica.stores.sqlite import SQLiteStore
from chronomem import ChronoMem

from ._format import (
    ExportFormatError,
    Loaded,
    actum_record,
    chronicum_record,
    read_export,
    written_lines,
)
from ._output import Progress

if TYPE_CHECKING:
    from chronica.stores.postgres import PostgresStore

    Store = SQLiteStore | PostgresStore

__all__ = [
    "ExportFormatError",
    "Loaded",
    "export_lines",
    "read_export",
    "restore",
]


def export_lines(memory: ChronoMem | None, store: Store, owner: str) -> Iterator[bytes]:
    """Every line of the export of ``owner``'s facts and sessions, trailer last (``memory``
    ``None``: a database that holds sessions only, no facts)."""
    return written_lines(owner, _records(memory, store, owner))


_PAGE = 1000
"""Sessions and acta are read this many at a time, so a long session is never held whole."""


def _records(memory: ChronoMem | None, store: Store, owner: str) -> Iterator[tuple[str, Any]]:
    for fact in memory.export_facts() if memory is not None else ():
        yield "fact", fact
    for chronicum in _owned_chronica(store, owner):
        yield "chronicum", chronicum_record(chronicum)
        after = 0
        while True:
            page = store.acta_page(chronicum.id, owner_id=owner, limit=_PAGE, after=after)
            for entry in page.entries:
                yield "actum", actum_record(entry.actum)
            if not page.more_after:
                break
            after = page.entries[-1].position


def _owned_chronica(store: Store, owner: str) -> list[Chronicum]:
    """The owner's sessions, oldest first, each once (the store pages them newest first, and
    a session created meanwhile shifts a page by one, repeating a session: dropped here)."""
    found: list[Chronicum] = []
    seen: set[str] = set()
    offset = 0
    while True:
        page = store.chronica_page(owner_id=owner, offset=offset, limit=_PAGE)
        for summary in page:
            if summary.chronicum.id not in seen:
                seen.add(summary.chronicum.id)
                found.append(summary.chronicum)
        if len(page) < _PAGE:
            return found[::-1]
        offset += _PAGE


def restore(loaded: Loaded, memory: ChronoMem, store: Store) -> tuple[int, int, int]:
    """Write what :func:`read_export` read; returns (facts inserted, episodes inserted, acta
    newly stored).

    Every record was checked while reading (by the memory's and chronica's own rules); the
    sessions are checked once more as one batch (no ID twice) before anything is written.
    In one SQLite file, facts and sessions are written in one transaction: all of the
    import, or (on anything only the write can find: an actum ID another owner's session
    holds, a full disk) none of it. On PostgreSQL they live in two schemas with a pool each,
    so the sessions are restored first (one transaction), then the facts (another); a failed
    import leaves at most the sessions, and running it again completes it. What the database
    already holds is skipped, so importing one export twice changes nothing.
    """
    owner = memory.owner
    acta = [a for c in loaded.chronica for a in loaded.acta[c.id]]
    chronicarius = Chronicarius(store)
    try:
        batch = chronicarius.check_restore(owner, loaded.chronica, acta)
    except ChronicaError as e:
        raise ExportFormatError(f"the sessions cannot be restored: {e}") from e
    if not isinstance(store, SQLiteStore):
        Progress("restoring", 1).note(
            f"writing {len(loaded.chronica):,} sessions, then {len(loaded.facts):,} facts..."
        )
        try:
            stored = chronicarius.restore(owner, loaded.chronica, acta) if batch.chronica else 0
            return (*memory.import_with_sessions(loaded.facts, None)[:2], stored)
        except ChronicaError as e:
            raise ExportFormatError(f"the import stopped: {e}") from e
    if not os.path.samefile(memory.path, store.path):
        raise ExportFormatError("facts and sessions must be imported into one file")
    Progress("restoring", 1).note(
        f"writing {len(loaded.facts):,} facts and {len(loaded.chronica):,} sessions "
        "in one transaction..."
    )
    try:
        return memory.import_with_sessions(loaded.facts, batch if batch.chronica else None)
    except ChronicaError as e:
        raise ExportFormatError(f"nothing was imported: {e}") from e
