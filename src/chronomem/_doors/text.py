"""Plain text more than one door prints: counts, times, a recall's summary, a belief timeline.

The command line draws its tables around these (:mod:`chronomem.cli._output`); the MCP
server answers a model with the same summary lines, and the demo prints the same timeline.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from chronomem import Episode, Fact

__all__ = ["count", "format_time", "recall_summary", "short_id", "timeline_lines"]


def count(n: int, noun: str) -> str:
    """``1 fact``, ``2 facts``: output people read should not say "1 facts"."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def format_time(moment: datetime | None, *, open_end: str = "now") -> str:
    """A UTC time a person can read at a glance (seconds are enough on screen)."""
    if moment is None:
        return open_end
    return moment.strftime("%Y-%m-%d %H:%M:%S")


def _state(fact: Fact) -> str:
    if fact.forgotten:
        return "forgotten"
    if fact.superseded_by:
        return "superseded"
    return "active" if fact.valid_until is None else "ended"


def recall_summary(items: Sequence[Fact | Episode]) -> str:
    """``2 facts, 1 episode, 37 tokens``: what a recall returned, in a line."""
    facts = sum(isinstance(item, Fact) for item in items)
    parts = [count(facts, "fact")]
    if len(items) > facts:
        parts.append(count(len(items) - facts, "episode"))
    return ", ".join([*parts, f"{sum(item.tokens for item in items)} tokens"])


def short_id(fact_id: str, short: Mapping[str, str] | None = None) -> str:
    """A fact ID's end, marked as one: ``short``'s form of it (unique among the owner's
    facts, see :mod:`chronomem._doors.ids`), else its last 8 hex digits.

    A fact ID starts with its system time, so facts recorded moments apart share their first
    digits; the random tail tells them apart.
    """
    end = (short or {}).get(fact_id, fact_id[-8:])
    return end if end == fact_id else "…" + end


def timeline_lines(
    entity: str, facts: Sequence[Fact], short: Mapping[str, str] | None = None
) -> list[str]:
    """Draw how beliefs about ``entity`` changed: each fact's valid interval and lineage,
    each fact named by its end (``short``'s, when given: what every door takes back).

    Example::

        ThinkPad T14: 2 facts, oldest first (times UTC)
        ┌ …6a95af22  2026-11-29 20:43:13 → 2026-11-30 09:00:00  superseded
        │   [net] ThinkPad T14 primary interface is Wi-Fi
        │   └─ superseded by …49a0fcd7
        └ …49a0fcd7  2026-11-30 09:00:00 → now                  active
            [net] ThinkPad T14 primary interface switched to Ethernet
    """
    lines = [f"{entity}: {count(len(facts), 'fact')}, oldest first (times UTC)"]
    spans = [f"{format_time(f.valid_from)} → {format_time(f.valid_until)}" for f in facts]
    width = max((len(s) for s in spans), default=0)
    for i, (fact, span) in enumerate(zip(facts, spans, strict=True)):
        last = i == len(facts) - 1
        head = "┌" if i == 0 and not last else ("└" if last else "├")
        rail = " " if last else "│"
        lines.append(f"{head} {short_id(fact.id, short)}  {span.ljust(width)}  {_state(fact)}")
        lines.append(f"{rail}   [{fact.category or '-'}] {fact.content}")
        if fact.superseded_by:
            lines.append(f"{rail}   └─ superseded by {short_id(fact.superseded_by, short)}")
        if fact.forgotten:
            reason = f": {fact.forget_reason}" if fact.forget_reason else ""
            lines.append(f"{rail}   └─ forgotten{reason}")
    return lines
