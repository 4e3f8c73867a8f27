"""The LangGraph store's ``list_namespaces``, read from chronomem's table of namespaces, and
the items a store wrote before that table existed.

``list_namespaces`` reads :meth:`chronomem.KeyedFacts.namespaces` in order from the longest
literal start of its prefix conditions (one range of an index), keeps those its conditions
match, cuts them to ``max_depth`` (a cut keeps the order, so equal neighbours are the only
repeats) and stops once ``offset + limit`` are found: the usual ``prefix=("users",)`` with
LangGraph's limit of 100 reads 100 rows.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

from langgraph.store.base import ListNamespacesOp

from chronomem import ChronoMem, KeyedFacts

from ._langgraph_records import Stored, matches_namespace, prefix_entity, stored

__all__ = ["legacy_items", "list_namespaces"]

_PAGE = 100


def _start(op: ListNamespacesOp) -> tuple[str, ...]:
    """The longest literal start of a prefix condition: every match is under it."""
    start: tuple[str, ...] = ()
    for c in op.match_conditions or ():
        if c.match_type == "prefix":
            literal = tuple(c.path[: c.path.index("*")] if "*" in c.path else c.path)
            start = max(start, literal, key=len)
    return start


def _matching(keyed: KeyedFacts, op: ListNamespacesOp, now: datetime) -> Iterator[tuple[str, ...]]:
    conditions = op.match_conditions or ()
    start, after = _start(op), None
    page = max(_PAGE, op.offset + op.limit)
    while True:
        found = keyed.namespaces(start, now=now, after=after, limit=page)
        for ns in found:
            if all(matches_namespace(ns, c.path, suffix=c.match_type == "suffix")
                   for c in conditions):  # fmt: skip
                yield ns
        if len(found) < page:
            return
        after = found[-1]


def list_namespaces(
    keyed: KeyedFacts, op: ListNamespacesOp, now: datetime
) -> list[tuple[str, ...]]:
    """LangGraph's ``list_namespaces`` over the namespaces holding an item live at ``now``."""
    want = op.offset + op.limit
    kept: list[tuple[str, ...]] = []
    for ns in _matching(keyed, op, now):
        cut = ns if op.max_depth is None else ns[: op.max_depth]
        if not kept or kept[-1] != cut:
            kept.append(cut)
            if len(kept) >= want:
                break
    return kept[op.offset : want]


def legacy_items(memory: ChronoMem) -> list[Stored]:
    """The active items of a store written before the keyed table, one per key (the newest):
    one indexed read of the entity every such item names."""
    newest: dict[tuple[tuple[str, ...], str], Stored] = {}
    for fact in memory.timeline(prefix_entity(())):
        s = stored(fact) if fact.kind == "fact" else None
        if s and s.active:
            seen = newest.get((s.namespace, s.key))
            if seen is None or seen.updated_at < s.updated_at:
                newest[(s.namespace, s.key)] = s
    return list(newest.values())
