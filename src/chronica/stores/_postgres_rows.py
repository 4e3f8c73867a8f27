"""Row codecs of :class:`chronica.stores.postgres.PostgresStore`: rows to records and back.

Free of any driver import, like :mod:`chronica.stores._postgres_schema`.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

from chronica._frozen import frozen_metadata, load_metadata
from chronica._model import ActorKind, Actum, ActumKind, Chronicum

__all__ = ["actum_params", "row_actum", "row_chronicum", "stamped", "utc"]

_ACTUM_KINDS = {kind.value: kind for kind in ActumKind}
_ACTOR_KINDS = {kind.value: kind for kind in ActorKind}


def utc(moment: datetime) -> datetime:
    """``moment`` in UTC, as every time chronica hands out is."""
    return moment if moment.tzinfo is timezone.utc else moment.astimezone(timezone.utc)


def row_actum(chronicum_id: str, row: tuple[Any, ...]) -> Actum:
    """Build an actum from a row selected as ``SELECTED``."""
    actum_id, kind, actor_kind, actor, content, metadata, at = row
    return Actum(
        chronicum_id=chronicum_id,
        kind=_ACTUM_KINDS[kind],
        actor_kind=_ACTOR_KINDS[actor_kind],
        actor=actor,
        content=content,
        metadata=load_metadata(metadata),
        id=actum_id,
        at=utc(at),
    )


def row_chronicum(row: tuple[Any, ...]) -> Chronicum:
    """Build a chronicum from ``(id, owner_id, created_at)``."""
    return Chronicum(id=row[0], owner_id=row[1], created_at=utc(row[2]))


def actum_params(actum: Actum, at: datetime) -> tuple[Any, ...]:
    """An actum's columns, in ``_COLUMNS`` order, for an insert."""
    metadata = json.dumps(actum.metadata, ensure_ascii=False) if actum.metadata else "{}"
    return (
        actum.id,
        actum.kind.value,
        actum.actor_kind.value,
        actum.actor,
        actum.content,
        metadata,
        at,
    )


def stamped(actum: Actum, at: datetime) -> Actum:
    """``actum`` with ``at`` set and its metadata frozen, as returned by a write."""
    return Actum(
        chronicum_id=actum.chronicum_id,
        kind=actum.kind,
        actor_kind=actum.actor_kind,
        actor=actum.actor,
        content=actum.content,
        metadata=frozen_metadata(actum.metadata),
        id=actum.id,
        at=at,
    )
