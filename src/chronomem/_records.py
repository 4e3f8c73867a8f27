"""Rows to :class:`Fact` and :class:`Episode` records and back: the one place that knows the
column layout."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from chronomem.write.episodes import ImportedEpisode

from ._errors import InvalidFactError
from ._isotime import read_time, record_time
from ._model import Episode, Fact, from_us
from ._validate import check_fact, check_id, check_opt_text, fact_fields

__all__ = ["COLUMNS", "ImportedFact", "parse_record", "row_to_fact", "row_to_item"]

COLUMNS = """f.id, f.content, f.category, f.entities, f.trust, f.confidence, f.source,
    f.metadata, f.system_time, f.valid_from, f.valid_until, f.invalidated_at, f.superseded_by,
    f.forgotten, f.forget_reason, f.kind, f.speaker, f.session, f.seq"""


def row_to_item(row: Sequence[Any], **extra: Any) -> Fact | Episode:
    """A :class:`Fact` or an :class:`Episode`, as the row's kind says."""
    if row[15] != "episode":
        return row_to_fact(row, **extra)
    system_time, at = from_us(row[8]), from_us(row[9])
    assert system_time is not None  # NOT NULL column
    assert at is not None  # NOT NULL column
    return Episode(
        id=row[0],
        content=row[1],
        speaker=row[16],
        session=row[17],
        at=at,
        seq=row[18],
        source=row[6],
        metadata=json.loads(row[7]) if row[7] is not None else None,
        system_time=system_time,
        invalidated_at=from_us(row[11]),
        forgotten=bool(row[13]),
        forget_reason=row[14],
        **extra,
    )


def row_to_fact(row: Sequence[Any], **extra: Any) -> Fact:
    """A :class:`Fact` from a row selected with :data:`COLUMNS`."""
    system_time, valid_from = from_us(row[8]), from_us(row[9])
    assert system_time is not None  # NOT NULL column
    assert valid_from is not None  # NOT NULL column
    return Fact(
        id=row[0],
        content=row[1],
        category=row[2],
        entities=tuple(json.loads(row[3])),
        trust_score=row[4],
        confidence=row[5],
        source=row[6],
        metadata=json.loads(row[7]) if row[7] is not None else None,
        system_time=system_time,
        valid_from=valid_from,
        valid_until=from_us(row[10]),
        invalidated_at=from_us(row[11]),
        superseded_by=row[12],
        forgotten=bool(row[13]),
        forget_reason=row[14],
        **extra,
    )


class ImportedFact:
    """A validated export record: the fact payload plus the times and lineage to restore."""

    def __init__(self, record: Mapping[str, Any]) -> None:
        if not isinstance(record, Mapping):
            raise InvalidFactError("record", "must be a mapping (as export_facts yields)")
        with fact_fields():
            self._read(record)

    def _read(self, record: Mapping[str, Any]) -> None:
        self.id = check_id(record.get("id"))
        self.data = check_fact(
            record.get("content"),
            category=record.get("category"),
            trust=record.get("trust_score", 0.8),
            confidence=record.get("confidence", 1.0),
            valid_from=read_time("valid_from", record.get("valid_from")),
            entities=record.get("entities") or (),
            source=record.get("source"),
            metadata=record.get("metadata"),
        )
        system_time = record_time(record, "system_time")
        if system_time is None or self.data.valid_from is None:
            raise InvalidFactError("system_time", "and valid_from are required")
        self.system_time = system_time
        self.valid_until = record_time(record, "valid_until")
        self.invalidated_at = record_time(record, "invalidated_at")
        superseded_by = record.get("superseded_by")
        self.superseded_by = None if superseded_by is None else check_id(superseded_by)
        forgotten = record.get("forgotten", False)
        if not isinstance(forgotten, bool):
            raise InvalidFactError("forgotten", "must be a bool")
        self.forgotten = forgotten
        self.forget_reason = check_opt_text(
            "forget_reason", record.get("forget_reason"), max_bytes=2048
        )
        if (forgotten or superseded_by is not None) and self.invalidated_at is None:
            raise InvalidFactError(
                "invalidated_at", "is required for a superseded or forgotten fact"
            )


def parse_record(record: Mapping[str, Any]) -> ImportedFact | ImportedEpisode:
    """Validate one ``export_facts`` record for ``import_facts`` (a fact unless its kind
    says episode)."""
    if not isinstance(record, Mapping):
        raise InvalidFactError("record", "must be a mapping (as export_facts yields)")
    kind = record.get("kind", "fact")
    if kind == "episode":
        return ImportedEpisode(record)
    if kind != "fact":
        raise InvalidFactError("kind", f"must be 'fact' or 'episode', got {kind!r}")
    return ImportedFact(record)
