"""What the memory pages show, as JSON-able dicts: recall explained, timelines, conflicts.

Each view is one or two calls of the public :class:`chronomem.ChronoMem` API, cut to a page.
The inspector must show what an agent would get, so it asks the same ``recall`` an agent asks
rather than re-ranking anything itself.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, Generic, TypeVar

from chronomem import ChronoMem, Contradiction, Fact, FactNotFoundError
from chronomem._doors.ids import resolve, short_ids
from chronomem.recall.fusion import CHANNELS

__all__ = [
    "SharedCall",
    "contradictions_view",
    "fact_view",
    "item_json",
    "recall_view",
    "timeline_view",
]

T = TypeVar("T")


class SharedCall(Generic[T]):
    """One slow call at a time; whoever asked while it ran takes its answer.

    ``contradictions()`` reads every active fact with a claim; on a large memory that takes
    long enough that a user reloading the page would start the same scan again and again.
    An answer finished after a caller asked is as fresh as a read racing a write.
    """

    def __init__(self, work: Callable[[], T]) -> None:
        self._work = work
        self._lock = threading.Lock()
        self._answer: tuple[float, T] | None = None

    def __call__(self) -> T:
        asked = time.monotonic()
        with self._lock:
            if self._answer is not None and self._answer[0] >= asked:
                return self._answer[1]
            value = self._work()
            self._answer = (time.monotonic(), value)
            return value


def item_json(item: Any, short: dict[str, str] | None = None) -> dict[str, Any]:
    """A fact or an episode as the browser reads it (times as ISO-8601 text); a fact with
    the short id every door shows and takes back (``short_id``, and ``superseded_by_short``
    when it was superseded), from ``short`` (see :mod:`chronomem._doors.ids`)."""
    record: dict[str, Any] = item.to_dict()
    if short is not None and isinstance(item, Fact):
        record["short_id"] = short.get(item.id, item.id)
        if item.superseded_by:
            record["superseded_by_short"] = short.get(item.superseded_by, item.superseded_by)
    return record


def _channel_order(channel: str) -> tuple[int, str]:
    return (CHANNELS.index(channel) if channel in CHANNELS else len(CHANNELS), channel)


def _shorts(memory: ChronoMem, items: Sequence[Any]) -> dict[str, str]:
    facts = [i for i in items if isinstance(i, Fact)]
    ids = [f.id for f in facts] + [f.superseded_by for f in facts if f.superseded_by]
    return short_ids(memory, ids) if ids else {}


def fact_view(memory: ChronoMem | None, given: str) -> dict[str, Any]:
    """The fact a whole or short id names (as the command line and the MCP server take it:
    its end, ``…`` and all, or a unique prefix); ``LookupError`` for none."""
    if memory is None:
        raise LookupError(f"no fact {given!r}: the database holds no memory yet")
    try:
        fact = memory.get(resolve(memory, given))
    except FactNotFoundError:
        raise LookupError(f"no fact {given!r}") from None
    return item_json(fact, _shorts(memory, [fact]))


def recall_view(
    memory: ChronoMem | None,
    query: str,
    *,
    limit: int,
    budget: int | None,
    as_of: datetime | None,
    known_at: datetime | None,
    kinds: Sequence[str] | None,
    include_superseded: bool,
) -> dict[str, Any]:
    """The ranked candidates, each marked with whether the token budget would pack it.

    Two recalls: one without a budget for the ranking a person wants to see, one with it for
    what an agent would actually get. First-fit packing may take an item from beyond the
    shown ranking (a small one after several that did not fit); it is listed after them.
    Without a memory (``None``: the database holds none yet) nothing is recalled.
    """
    options: dict[str, Any] = {
        "as_of": as_of,
        "known_at": known_at,
        "kinds": kinds or None,
        "active_only": not include_superseded,
    }
    ranked = memory.recall(query, limit=limit, **options) if memory is not None else []
    packed_ids: list[str] = []
    extra: list[Any] = []
    if budget is not None and memory is not None:
        packed = memory.recall(query, token_budget=budget, **options)
        packed_ids = [p.id for p in packed]
        shown = {r.id for r in ranked}
        extra = [p for p in packed if p.id not in shown]
    results = []
    short = _shorts(memory, [*ranked, *extra]) if memory is not None else {}
    for position, item in enumerate([*ranked, *extra], start=1):
        record = item_json(item, short)
        record["position"] = position
        record["packed"] = budget is not None and item.id in packed_ids
        results.append(record)
    return {
        "query": query,
        # The channels this recall ranked by, read from its results (in fusion's order), so
        # the page never shows a fixed list the recall did not use.
        "channels": sorted({c for r in results for c in r["ranks"]}, key=_channel_order),
        "results": results,
        "budget": budget,
        "packed_count": len(packed_ids),
        "packed_tokens": sum(r["tokens"] for r in results if r["packed"]),
        "as_of": as_of.isoformat() if as_of else None,
        "known_at": known_at.isoformat() if known_at else None,
    }


def timeline_view(
    memory: ChronoMem | None, entity: str, *, offset: int, limit: int
) -> dict[str, Any]:
    """A page of every fact about ``entity``, oldest first, with lineage for the drawing."""
    facts = memory.timeline(entity) if memory is not None else []
    page = facts[offset : offset + limit]
    short = _shorts(memory, page) if memory is not None else {}
    return {
        "entity": entity,
        "total": len(facts),
        "offset": offset,
        "facts": [item_json(f, short) for f in page],
    }


def contradictions_view(
    memory: ChronoMem | None, groups: Sequence[Contradiction], *, offset: int, limit: int
) -> dict[str, Any]:
    """A page of the open conflicts, each with its facts in full for a side-by-side view."""
    if memory is None:
        return {"total": 0, "offset": offset, "groups": []}
    out = []
    for group in groups[offset : offset + limit]:
        found = []
        for fact_id in group.fact_ids:
            try:
                found.append(memory.get(fact_id))
            except FactNotFoundError:  # forgotten or superseded between the two reads
                continue
        short = _shorts(memory, found)
        out.append({**group.to_dict(), "facts": [item_json(f, short) for f in found]})
    return {"total": len(groups), "offset": offset, "groups": out}
