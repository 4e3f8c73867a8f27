"""``chronomem export`` / ``import``: one owner's facts and sessions, and back.

The file format (and the checks made while reading it) is :mod:`._format`. Facts come oldest
first and a chronicum comes before its acta, so the file reads as a history. Import restores
everything exactly (ids, times, order, lineage) under the importing owner; importing the
same file twice changes nothing.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from typing import Any

from chronica import ChronicaError, Chronicarius
from chronica.stores.sqlite import SQLiteStore, restore_batch
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

__all__ = [
    "ExportFormatError",
    "Loaded",
    "export_lines",
    "read_export",
    "restore",
]


def export_lines(memory: ChronoMem, store: SQLiteStore, owner: str) -> Iterator[bytes]:
    """Every line of the export of ``owner``'s facts and sessions, trailer last."""
    return written_lines(owner, _records(memory, store, owner))


def _records(memory: ChronoMem, store: SQLiteStore, owner: str) -> Iterator[tuple[str, Any]]:
    for fact in memory.export_facts():
        yield "fact", fact
    for chronicum in store.chronica():
        if chronicum.owner_id != owner:
            continue
        yield "chronicum", chronicum_record(chronicum)
        for actum in store.acta(chronicum.id, owner_id=owner):
            yield "actum", actum_record(actum)


def restore(loaded: Loaded, memory: ChronoMem, store: SQLiteStore) -> tuple[int, int]:
    """Write what :func:`read_export` read; returns (facts inserted, acta newly stored).

    Every record was checked while reading (by the memory's and chronica's own rules); the
    sessions are checked once more as one batch (no ID twice) before anything is written.
    Facts and sessions live in one file and are written in one transaction: all of the
    import, or (on anything only the write can find: an actum ID another owner's session
    holds, a full disk) none of it. What the file already holds is skipped, so importing one
    export twice changes nothing.
    """
    if not os.path.samefile(memory.path, store.path):
        raise ExportFormatError("facts and sessions must be imported into one file")
    owner = memory.owner
    acta = [a for c in loaded.chronica for a in loaded.acta[c.id]]
    try:
        batch = Chronicarius(store).check_restore(owner, loaded.chronica, acta)
    except ChronicaError as e:
        raise ExportFormatError(f"the sessions cannot be restored: {e}") from e
    Progress("restoring", 1).note(
        f"writing {len(loaded.facts):,} facts and {len(loaded.chronica):,} sessions "
        "in one transaction..."
    )
    stored = 0

    def sessions(conn: sqlite3.Connection) -> None:
        nonlocal stored
        stored = restore_batch(conn, batch)

    try:
        inserted = memory._import(loaded.facts, then=sessions if batch.chronica else None)
    except ChronicaError as e:
        raise ExportFormatError(f"nothing was imported: {e}") from e
    return inserted, stored
