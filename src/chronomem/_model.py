"""The records chronomem hands out: :class:`Fact`, :class:`FactId`, :class:`Contradiction`.

Times are stored as integer microseconds since the Unix epoch (UTC): exact, sortable and cheap
to compare in SQL. They surface as timezone-aware UTC datetimes. Naive datetimes given by a
caller are treated as UTC (documented in the README and the API notes). Only instants that are
representable as a UTC datetime (years 1 to 9999 *after* conversion to UTC) are stored, so every
stored time reads back; ``9999-12-31T23:00-14:00`` is year 10000 in UTC and is refused.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from typing import Any, ClassVar

from chronica import FrozenDict

__all__ = [
    "MAX_US",
    "MIN_US",
    "Contradiction",
    "Fact",
    "FactId",
    "Purged",
    "from_us",
    "to_us",
]

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def _micros(delta: timedelta) -> int:
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


MIN_US = _micros(datetime.min.replace(tzinfo=timezone.utc) - _EPOCH)
"""The earliest storable time: ``0001-01-01T00:00:00+00:00`` in epoch microseconds."""
MAX_US = _micros(datetime.max.replace(tzinfo=timezone.utc) - _EPOCH)
"""The latest storable time: ``9999-12-31T23:59:59.999999+00:00`` in epoch microseconds."""


def to_us(moment: datetime) -> int:
    """Microseconds since the epoch; a naive datetime is read as UTC.

    Raises ``ValueError`` for an instant outside ``MIN_US..MAX_US``: it could be stored but
    never read back as a UTC datetime.
    """
    if moment.utcoffset() is None:  # naive, or a tzinfo that declines to give an offset
        moment = moment.replace(tzinfo=timezone.utc)
    micros = _micros(moment - _EPOCH)
    if not MIN_US <= micros <= MAX_US:
        raise ValueError(f"{moment.isoformat()} is outside years 1..9999 in UTC")
    return micros


def from_us(micros: int | None) -> datetime | None:
    """The inverse of :func:`to_us`; ``None`` stays ``None``. Never raises on an int.

    A value outside ``MIN_US..MAX_US`` (only a file written by an older version or by another
    program can hold one) is clamped to ``datetime.min``/``datetime.max`` in UTC, so one bad
    row cannot make ``get``, ``recall``, ``timeline`` or ``export`` fail.
    """
    if micros is None:
        return None
    return _EPOCH + timedelta(microseconds=min(max(int(micros), MIN_US), MAX_US))


class FactId(str):
    """A new fact's id (a ``str``) that also says which active facts it contradicts, and
    whether it was new at all.

    ``contradicts`` is chronomem's warning channel: ``remember`` and ``supersede`` never store a
    conflicting assertion silently; the caller can ``supersede`` or ``forget`` either side.
    ``duplicate_of`` is set (to this same id) when ``remember`` stored nothing because an
    active fact of the owner and category already says the same text; ``None`` on a fresh
    write.
    """

    contradicts: tuple[str, ...]
    duplicate_of: str | None

    def __new__(
        cls, value: str, contradicts: tuple[str, ...] = (), duplicate_of: str | None = None
    ) -> FactId:
        self = super().__new__(cls, value)
        self.contradicts = contradicts
        self.duplicate_of = duplicate_of
        return self


_AS_IS = frozenset({str, int, float, bool, type(None)})
"""Types JSON carries unchanged: most of a record's fields, so they skip the checks below
(an ``isinstance`` against ``Mapping`` costs an ABC lookup, half of building a record)."""


def _jsonable(value: Any) -> Any:
    if type(value) in _AS_IS:
        return value
    if isinstance(value, date):  # a datetime too
        return value.isoformat()
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _jsonable(v) for k, v in value.items()}
    return value


class _Record(FrozenDict):
    """A record read two ways: typed attributes (``r.valid_from`` is a ``datetime``) and a
    read-only ``dict`` of its JSON rendering (``r["valid_from"]`` is its ISO-8601 string).

    Recall results are documented as mappings (the seed reads ``f['trust_score']``), and
    callers drop them into prompts, logs and HTTP replies as they would a dict:
    ``json.dumps(results)``, ``"content" in f``, ``f.get("source")``, ``{**f}``. ``json``
    serialises only dicts (it reads a dict subclass through ``items()``), and a ``Mapping``
    whose ``[]`` gave a ``datetime`` while ``items()`` gave a string would break the mapping
    contract, so the mapping *is* the JSON form, built once when the record is, and the
    attributes keep the types: times as aware datetimes, ``entities`` and ``mentions`` as
    tuples. Every mutating dict method raises ``TypeError`` (chronica's ``FrozenDict``, the
    same read-only dict its recorded metadata is); ``dict(r)`` is a plain copy.
    """

    _names: ClassVar[tuple[str, ...]] = ()  # each subclass's own, filled on first use

    @classmethod
    def _fields(cls) -> tuple[str, ...]:
        if not cls._names:
            cls._names = tuple(f.name for f in dataclasses.fields(cls))  # type: ignore[arg-type]  # subclasses are dataclasses
        return cls._names

    def __post_init__(self) -> None:
        # Read from the instance's __dict__ (where a frozen dataclass keeps its fields), not
        # through getattr: a recall builds ten records with seventeen fields each.
        fields = self.__dict__
        dict.update(
            self,
            {
                name: v if type(v := fields[name]) in _AS_IS else _jsonable(v)
                for name in self._fields()
            },
        )

    def to_dict(self) -> dict[str, Any]:
        """A plain JSON-able dict (a copy of the mapping): times as ISO-8601, tuples as lists."""
        return dict(self)

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # pickle and copy would otherwise refill the dict item by item through __setitem__.
        return (type(self), tuple(getattr(self, name) for name in self._fields()))


@dataclass(frozen=True)
class Fact(_Record):
    """One bi-temporal assertion: typed attributes, and a read-only dict of its JSON form.

    ``score``, ``tokens`` and ``ranks`` explain a recall result: the fused RRF score, the token
    count charged against the budget, and the 1-based rank in each channel that found it.
    ``purged_at`` is set on a tombstone (see ``ChronoMem.purge``): its content, category,
    entities, source and metadata are gone; id, times and lineage stay.
    """

    id: str
    content: str
    category: str | None
    entities: tuple[str, ...]
    trust_score: float
    confidence: float
    source: str | None
    metadata: Mapping[str, Any] | None
    system_time: datetime
    valid_from: datetime
    valid_until: datetime | None
    invalidated_at: datetime | None
    superseded_by: str | None
    forgotten: bool
    forget_reason: str | None
    score: float = 0.0
    tokens: int = 0
    ranks: Mapping[str, int] = field(default_factory=dict)
    kind: str = "fact"
    purged_at: datetime | None = None
    purge_reason: str | None = None


@dataclass(frozen=True)
class Episode(_Record):
    """One turn of a conversation: what was said, by whom, in which session, and when.

    Episodes are what was said; facts are what an agent decided to believe. An episode is
    never superseded and never in ``contradictions()``; ``forget`` works on it as on a fact.
    ``seq`` is its place in the session (call order), ``at`` when it was said. ``purged_at``
    is set on a tombstone (see ``ChronoMem.purge``): content, speaker and metadata are gone.
    """

    id: str
    content: str
    speaker: str
    session: str
    at: datetime
    seq: int
    source: str | None
    metadata: Mapping[str, Any] | None
    system_time: datetime
    invalidated_at: datetime | None
    forgotten: bool
    forget_reason: str | None
    score: float = 0.0
    tokens: int = 0
    ranks: Mapping[str, int] = field(default_factory=dict)
    kind: str = "episode"
    mentions: tuple[Mapping[str, Any], ...] = ()
    """The times its words mention, resolved against ``at`` when it was written: each
    ``{"text": "last Friday", "start": date, "end": date}`` (inclusive days, UTC; see
    ``docs/episodes.md``)."""
    purged_at: datetime | None = None
    purge_reason: str | None = None


@dataclass(frozen=True)
class Contradiction:
    """Active facts about one entity and category that assert different values."""

    entity: str
    category: str | None
    fact_ids: tuple[str, ...]
    reason: str

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict."""
        return {
            "entity": self.entity,
            "category": self.category,
            "fact_ids": list(self.fact_ids),
            "reason": self.reason,
        }


@dataclass(frozen=True)
class Purged:
    """What a purge, a prune or an owner's erasure removed, counted per kind.

    ``facts`` and ``episodes`` count the items whose content went (a purge leaves each a
    tombstone; an owner's erasure leaves nothing); ``entity_links`` the links of a fact to an
    entity, ``entities`` the entities no fact names any more, ``claims`` the items that made
    a claim (its attribute and value), ``postings`` the lexical index's terms of the items
    (each one decrements its term's document frequency), ``vectors`` the semantic vectors.
    """

    facts: int = 0
    episodes: int = 0
    entity_links: int = 0
    entities: int = 0
    claims: int = 0
    postings: int = 0
    vectors: int = 0

    def __add__(self, other: Purged) -> Purged:
        mine, theirs = dataclasses.astuple(self), dataclasses.astuple(other)
        return Purged(*(a + b for a, b in zip(mine, theirs, strict=True)))

    def to_dict(self) -> dict[str, int]:
        """A JSON-able dict, one count per kind."""
        return dataclasses.asdict(self)
