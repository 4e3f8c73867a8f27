"""Rows to :class:`Fact` and :class:`Episode` records and back: named rows of the facts table
(:class:`~chronomem.engine.items.FactRow`) become records, and exported records are checked for
import."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from chronomem.engine.items import FactRow
from chronomem.write.episodes import ImportedEpisode, read_mentions
from chronomem.write.tombstones import ImportedTombstone, is_tombstone

from ._checks import check_fact, check_id, check_opt_text, fact_fields
from ._errors import InvalidFactError
from ._iso8601 import read_time, record_time
from ._model import Episode, Fact, from_us

__all__ = ["ImportedFact", "parse_record", "row_to_fact", "row_to_item"]


def _metadata(text: str | None) -> Any:
    return json.loads(text) if text is not None else None


def row_to_item(r: FactRow, **extra: Any) -> Fact | Episode:
    """A :class:`Fact` or an :class:`Episode`, as the row's kind says."""
    if r.kind != "episode":
        return _fact(r, extra)
    system_time, at = from_us(r.system_time), from_us(r.valid_from)
    assert system_time is not None  # NOT NULL column
    assert at is not None  # NOT NULL column
    # An episode's row has all three.
    assert r.speaker is not None
    assert r.session is not None
    assert r.seq is not None
    return Episode(
        id=r.id,
        content=r.content,
        speaker=r.speaker,
        session=r.session,
        at=at,
        seq=r.seq,
        mentions=read_mentions(r.mentions),
        source=r.source,
        metadata=_metadata(r.metadata),
        system_time=system_time,
        invalidated_at=from_us(r.invalidated_at),
        forgotten=bool(r.forgotten),
        forget_reason=r.forget_reason,
        purged_at=from_us(r.purged_at),
        purge_reason=r.purge_reason,
        **extra,
    )


def row_to_fact(r: FactRow, **extra: Any) -> Fact:
    """A :class:`Fact` from its row."""
    return _fact(r, extra)


def _fact(r: FactRow, extra: Mapping[str, Any]) -> Fact:
    system_time, valid_from = from_us(r.system_time), from_us(r.valid_from)
    assert system_time is not None  # NOT NULL column
    assert valid_from is not None  # NOT NULL column
    return Fact(
        id=r.id,
        content=r.content,
        category=r.category,
        entities=tuple(json.loads(r.entities)),
        trust_score=r.trust,
        confidence=r.confidence,
        source=r.source,
        metadata=_metadata(r.metadata),
        system_time=system_time,
        valid_from=valid_from,
        valid_until=from_us(r.valid_until),
        invalidated_at=from_us(r.invalidated_at),
        superseded_by=r.superseded_by,
        forgotten=bool(r.forgotten),
        forget_reason=r.forget_reason,
        purged_at=from_us(r.purged_at),
        purge_reason=r.purge_reason,
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
        # What no live write can produce (issue 20 item 7): the rest of a chain's shape is
        # checked against the stored facts by ``write.importing`` before the import commits.
        if self.superseded_by == self.id:
            raise InvalidFactError("superseded_by", "a fact cannot supersede itself")
        if self.valid_until is not None and self.valid_until < self.data.valid_from:
            raise InvalidFactError("valid_until", "is before valid_from")


def parse_record(
    record: Mapping[str, Any],
) -> ImportedFact | ImportedEpisode | ImportedTombstone:
    """Validate one ``export_facts`` record for ``import_facts`` (a fact unless its kind
    says episode; a purged item of either kind, its ``purged_at`` set, is a tombstone)."""
    if not isinstance(record, Mapping):
        raise InvalidFactError("record", "must be a mapping (as export_facts yields)")
    kind = record.get("kind", "fact")
    if kind not in ("fact", "episode"):
        raise InvalidFactError("kind", f"must be 'fact' or 'episode', got {kind!r}")
    if is_tombstone(record):
        return ImportedTombstone(record)
    if kind == "episode":
        return ImportedEpisode(record)
    return ImportedFact(record)
