"""Rows to :class:`Fact` and :class:`Episode` records and back: named rows of the facts table
(:class:`~chronomem.engine.items.FactRow`) become records, and exported records are checked for
import."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from chronomem.engine.items import FactRow
from chronomem.write.episodes import read_mentions
from chronomem.write.imported import ImportedEpisode, ImportedFact, ImportedTombstone, is_tombstone

from ._errors import InvalidFactError
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
