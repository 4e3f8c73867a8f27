"""``chronomem export`` / ``import``: one owner's facts and sessions as JSON Lines.

Each line is one object with one key naming what it holds::

    {"export": {"format": "chronomem", "version": 1, "owner": "ardian"}}
    {"fact": {... every field of ChronoMem.export_facts(), all times and lineage ...}}
    {"chronicum": {"id": "dinner-friday", "owner_id": "ardian", "created_at": "..."}}
    {"actum": {"id": "...", "chronicum_id": "dinner-friday", "kind": "message", ..., "at": "..."}}

Facts come oldest first and a chronicum comes before its acta, so the file reads as a
history. Import restores everything exactly (ids, times, order, lineage) under the importing
owner; importing the same file twice changes nothing.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, BinaryIO

from chronica import ActorKind, Actum, ActumKind, ChronicaError, Chronicarius, Chronicum
from chronica.stores.sqlite import SQLiteStore
from chronomem import ChronoMem, ChronoMemError

from ._output import Progress
from ._time import parse_time

__all__ = ["ExportFormatError", "Loaded", "PartialImportError", "export_lines", "load", "restore"]

FORMAT_VERSION = 1


class ExportFormatError(ChronoMemError, ValueError):
    """A line of an import file is not something ``chronomem export`` writes."""


def _chronicum_record(c: Chronicum) -> dict[str, Any]:
    return {"id": c.id, "owner_id": c.owner_id, "created_at": c.created_at.isoformat()}


def _actum_record(a: Actum) -> dict[str, Any]:
    return {
        "id": a.id,
        "chronicum_id": a.chronicum_id,
        "kind": a.kind.value,
        "actor_kind": a.actor_kind.value,
        "actor": a.actor,
        "content": a.content,
        "metadata": dict(a.metadata),
        "at": a.at.isoformat() if a.at else None,
    }


def export_lines(memory: ChronoMem, store: SQLiteStore, owner: str) -> Iterator[str]:
    """Every line of the export of ``owner``'s facts and sessions."""
    header = {"format": "chronomem", "version": FORMAT_VERSION, "owner": owner}
    yield json.dumps({"export": header})
    for fact in memory.export_facts():
        yield json.dumps({"fact": fact}, ensure_ascii=False)
    for chronicum in store.chronica():
        if chronicum.owner_id != owner:
            continue
        yield json.dumps({"chronicum": _chronicum_record(chronicum)}, ensure_ascii=False)
        for actum in store.acta(chronicum.id, owner_id=owner):
            yield json.dumps({"actum": _actum_record(actum)}, ensure_ascii=False)


@dataclass
class Loaded:
    """An import file, parsed and checked, before anything is written."""

    facts: list[dict[str, Any]] = field(default_factory=list)
    chronica: list[Chronicum] = field(default_factory=list)
    acta: dict[str, list[Actum]] = field(default_factory=dict)

    @property
    def count(self) -> int:
        """How many records the file held (header excluded)."""
        return len(self.facts) + len(self.chronica) + sum(map(len, self.acta.values()))


def _time(record: Mapping[str, Any], key: str) -> datetime:
    try:
        return parse_time(record[key])
    except KeyError:
        raise ExportFormatError(f"{key} is missing") from None
    except ValueError as e:
        raise ExportFormatError(f"{key}: {e}") from None


def _parse_actum(record: Mapping[str, Any]) -> Actum:
    try:
        return Actum(
            id=record["id"],
            chronicum_id=record["chronicum_id"],
            kind=ActumKind(record["kind"]),
            actor_kind=ActorKind(record["actor_kind"]),
            actor=record["actor"],
            content=record.get("content", ""),
            metadata=record.get("metadata") or {},
            at=_time(record, "at"),
        )
    except (KeyError, ValueError) as e:
        raise ExportFormatError(f"bad actum: {e}") from e


def _add(loaded: Loaded, line: str, owner: str) -> None:
    obj = json.loads(line)
    if not isinstance(obj, dict) or len(obj) != 1:
        raise ExportFormatError("expected one object with one key per line")
    ((kind, record),) = obj.items()
    if kind == "export":
        if record.get("format") != "chronomem" or record.get("version", 0) > FORMAT_VERSION:
            raise ExportFormatError(f"not a chronomem export this version can read: {record}")
    elif kind == "fact":
        loaded.facts.append(record)
    elif kind == "chronicum":
        # Sessions join the importing owner, like the facts do.
        created = _time(record, "created_at")
        loaded.chronica.append(Chronicum(id=record["id"], owner_id=owner, created_at=created))
        loaded.acta[record["id"]] = []
    elif kind == "actum":
        actum = _parse_actum(record)
        if actum.chronicum_id not in loaded.acta:
            raise ExportFormatError(f"actum {actum.id} comes before its chronicum")
        loaded.acta[actum.chronicum_id].append(actum)
    else:
        raise ExportFormatError(f"unknown record kind {kind!r}")


def load(source: BinaryIO, owner: str, *, progress_label: str = "reading") -> Loaded:
    """Parse an export; a bar on a terminal shows how much of the file is read."""
    try:
        size = os.fstat(source.fileno()).st_size
    except (OSError, ValueError, AttributeError):
        size = 0
    progress = Progress(progress_label, size)
    loaded = Loaded()
    for number, raw in enumerate(source, start=1):
        progress.advance(len(raw))
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise ExportFormatError(f"line {number}: not UTF-8 text") from e
        if not line.strip():
            continue
        try:
            _add(loaded, line, owner)
        except (json.JSONDecodeError, ExportFormatError, KeyError, AttributeError) as e:
            raise ExportFormatError(f"line {number}: {e}") from e
    progress.finish()
    return loaded


def restore(loaded: Loaded, memory: ChronoMem, store: SQLiteStore) -> tuple[int, int]:
    """Write what :func:`load` read; returns (facts inserted, acta newly stored).

    Everything that can be checked is checked before anything is written: the sessions by
    chronica's own restore rules (those of a live write), the facts by the memory's (its
    import validates every record before its transaction). Each part is then written in one
    transaction. Both parts skip what they already hold, so after a failure that only the
    write itself can find (an actum ID another owner's session already holds, a full disk),
    importing the same file again completes it.
    """
    owner = memory.owner
    acta = [a for c in loaded.chronica for a in loaded.acta[c.id]]
    chronicarius = Chronicarius(store)
    chronicarius.check_restore(owner, loaded.chronica, acta)
    progress = Progress("restoring", 1)
    if loaded.facts:
        progress.note(f"writing {len(loaded.facts):,} facts in one transaction...")
    inserted = memory.import_facts(loaded.facts)  # all or nothing: lineage spans the file
    if acta or loaded.chronica:
        progress.note(f"writing {len(loaded.chronica):,} sessions in one transaction...")
    try:
        stored = chronicarius.restore(owner, loaded.chronica, acta)
    except ChronicaError as e:
        raise PartialImportError(inserted, e) from e
    return inserted, stored


class PartialImportError(ChronoMemError):
    """The facts were imported but the sessions were refused by the write itself."""

    def __init__(self, facts: int, cause: Exception) -> None:
        super().__init__(
            f"imported {facts} new facts, but no sessions: {cause}; importing the same file "
            "again skips what is already there and retries the sessions"
        )
        self.facts = facts
