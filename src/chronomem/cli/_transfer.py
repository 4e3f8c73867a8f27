"""``chronomem export`` / ``import``: one owner's facts and sessions, and back.

The file format (and the checks made while reading it) is :mod:`._format`. Facts come oldest
first and a chronicum comes before its acta, so the file reads as a history. Import restores
everything exactly (ids, times, order, lineage) under the importing owner; importing the
same file twice changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from chronica import ChronicaError, Chronicarius
from chronica.stores.sqlite import SQLiteStore
from chronomem import ChronoMem, ChronoMemError

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
    "PartialImportError",
    "export_lines",
    "read_export",
    "restore",
]


class PartialImportError(ChronoMemError):
    """The facts were imported but the sessions were refused by the write itself."""

    def __init__(self, facts: int, cause: Exception) -> None:
        super().__init__(
            f"imported {facts} new facts, but no sessions: {cause}; importing the same file "
            "again skips what is already there and retries the sessions"
        )
        self.facts = facts


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
    Each part is then written in one transaction. Both parts skip what they already hold,
    so after a failure only the write itself can find (an actum ID another owner's session
    holds, a full disk), importing the same file again completes it.
    """
    owner = memory.owner
    acta = [a for c in loaded.chronica for a in loaded.acta[c.id]]
    chronicarius = Chronicarius(store)
    try:
        chronicarius.check_restore(owner, loaded.chronica, acta)
    except ChronicaError as e:
        raise ExportFormatError(f"the sessions cannot be restored: {e}") from e
    progress = Progress("restoring", 1)
    if loaded.facts:
        progress.note(f"writing {len(loaded.facts):,} facts in one transaction...")
    inserted = memory.import_facts(loaded.facts)  # all or nothing: lineage spans the file
    if loaded.chronica:
        progress.note(f"writing {len(loaded.chronica):,} sessions in one transaction...")
    try:
        stored = chronicarius.restore(owner, loaded.chronica, acta)
    except ChronicaError as e:
        raise PartialImportError(inserted, e) from e
    return inserted, stored
