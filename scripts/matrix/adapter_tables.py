"""The adapter matrices' summary and their goal, from ``results.json`` alone (formatting only).

Issue 11's goal for the two framework adapters: at least 3x faster than the framework's own
persistent store at the same durability (``synchronous``) setting, on every operation and at
every session length measured, with the adapter's last-20 read flat as the session grows.
Issue 23 replaced it (a goal below the floor of the thread hand-off both sides pay): at least
the framework store's own speed (1.0x) on every operation, ``Runner``'s pattern included, and
for ``ChronicaSession`` 1.3x on turns and reads (each matrix's ``goal`` and ``op_goals``).
The README (``scripts/readme_tables.py``) prints this; it imports no framework, so it renders
on a machine without the ``agents`` or ``google.adk`` packages. ``bench/results.md`` prints
each matrix's full table (:func:`scripts.matrix.adapters_openai.render` and its ADK twin).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .cost_tables import Verdict
from .fmt import ms, table

__all__ = ["FLAT_GROWTH", "SPEEDUP_GOAL", "adapter_summary", "adapter_verdicts"]

SPEEDUP_GOAL = 1.0  # the framework store's p50 over the adapter's, at least (issue 23)
FLAT_GROWTH = 1.5  # the adapter's last-20 p50, largest session over smallest, below this


@dataclass(frozen=True)
class _Matrix:
    key: str  # the section of results.json
    title: str
    subject: str  # the row field naming the store or service
    length: str  # the row field holding the session length, and its unit
    ops: tuple[tuple[str, str], ...]  # (field, label)
    window: str  # the label of the last-20 read
    goal: float = SPEEDUP_GOAL  # the framework store's p50 over the adapter's, at least
    op_goals: tuple[tuple[str, float], ...] = ()  # operations with a goal of their own

    def goal_for(self, key: str) -> float:
        """The goal of the operation ``key``."""
        return dict(self.op_goals).get(key, self.goal)


_MATRICES = (
    _Matrix(
        "adapters_openai",
        "OpenAI Agents SDK",
        "store",
        "items",
        (
            ("append_ms", "append 1 item"),
            ("turn_ms", "append a turn (5 items)"),
            ("window_ms", "`get_items(limit=20)`"),
            ("all_ms", "`get_items()`"),
            ("runner_read_ms", "Runner: `get_items(limit=20)` after a turn"),
            ("runner_turn_ms", "Runner: a turn after that read"),
        ),
        "`get_items(limit=20)`",
        # issue 23: turns and reads at least 1.3x SQLiteSession's speed, the rest at least 1x
        op_goals=(
            ("turn_ms", 1.3),
            ("window_ms", 1.3),
            ("runner_read_ms", 1.3),
            ("runner_turn_ms", 1.3),
        ),
    ),
    _Matrix(
        "adapters_adk",
        "Google ADK",
        "service",
        "events",
        (
            ("append_ms", "`append_event`"),
            ("window_ms", "`get_session(num_recent_events=20)`"),
            ("all_ms", "`get_session()`"),
            ("runner_read_ms", "Runner: `get_session()` after an invocation"),
            ("runner_turn_ms", "Runner: 4 `append_event` (an invocation) after that read"),
        ),
        "`get_session(num_recent_events=20)`",
        # issue 23: at least ADK's own services' speed, everywhere (SPEEDUP_GOAL)
    ),
)


def _short(name: str) -> str:
    return name.split(" (")[0]


def _ours(name: str) -> bool:
    return name.startswith("Chronica")


def _index(m: _Matrix, section: dict[str, Any]) -> dict[tuple[str, str, int], dict[str, Any]]:
    return {(r[m.subject], r["synchronous"], r[m.length]): r for r in section["rows"]}


def _pairs(m: _Matrix, section: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(adapter, framework store, synchronous) for every framework store and its setting."""
    names = {(r[m.subject], r["synchronous"]) for r in section["rows"]}
    ours = {sync: name for name, sync in names if _ours(name)}
    theirs = sorted(
        ((name, sync) for name, sync in names if not _ours(name)),
        key=lambda p: (p[0], p[1] != "FULL"),
    )
    return [(ours[sync], name, sync) for name, sync in theirs if sync in ours]


def _measured(m: _Matrix, by: dict[tuple[str, str, int], dict[str, Any]]) -> list[tuple[str, str]]:
    """The operations the rows hold (a run from before the Runner pattern has no such rows)."""
    return [(key, label) for key, label in m.ops if all(key in row for row in by.values())]


def _table(m: _Matrix, section: dict[str, Any]) -> list[str]:
    by, sizes = _index(m, section), section["sizes"]
    header = ["framework store", "synchronous", "operation"]
    header += [f"{n:,} {m.length}: theirs / adapter p50 (ms)" for n in sizes]
    body = []
    for ours, theirs, sync in _pairs(m, section):
        for key, label in _measured(m, by):
            cells = []
            for n in sizes:
                a, b = by[(theirs, sync, n)][key]["p50"], by[(ours, sync, n)][key]["p50"]
                cells.append(f"{ms(a)} / {ms(b)} ({a / b:.1f}x)")
            body.append([_short(theirs), sync, label, *cells])
    return table(header, body)


def adapter_verdicts(results: dict[str, Any]) -> list[Verdict]:
    """The goal per framework store, setting and operation, and the flat read, as measured."""
    out = []
    for m in _MATRICES:
        section = results.get(m.key)
        if not section:
            continue
        by, sizes = _index(m, section), section["sizes"]
        # A matrix run several times is judged on every run (each row is their median).
        runs = [_index(m, {"rows": rows}) for rows in section.get("runs") or [section["rows"]]]
        in_runs = f", in the worst of {len(runs)} runs" if len(runs) > 1 else ""
        for ours, theirs, sync in _pairs(m, section):
            for key, label in _measured(m, by):
                speedups = {
                    (i, n): run[(theirs, sync, n)][key]["p50"] / run[(ours, sync, n)][key]["p50"]
                    for i, run in enumerate(runs)
                    for n in sizes
                }
                worst = min(speedups, key=lambda at: speedups[at])
                low, goal = speedups[worst], m.goal_for(key)
                out.append(
                    Verdict(
                        f"{_short(ours)} vs {_short(theirs)}, {sync}, {label}",
                        f">= {goal:g}x faster" if goal > 1 else f">= {goal:g}x its speed",
                        f"{low:.2f}x{' (slower)' if low < 1 else ''}, worst at {worst[1]:,} "
                        f"{m.length}{in_runs}",
                        low >= goal,
                        "" if low >= goal else f"{low / goal:.0%} of the goal",
                    )
                )
        small, large = sizes[0], sizes[-1]
        adapters = {(o, s) for o, _, s in _pairs(m, section)}
        for ours, sync in sorted(adapters, key=lambda p: (p[0], p[1] != "FULL")):
            before = by[(ours, sync, small)]["window_ms"]["p50"]
            after = by[(ours, sync, large)]["window_ms"]["p50"]
            growth = after / before
            out.append(
                Verdict(
                    f"{_short(ours)}, {sync}, {m.window} flat from {small:,} to {large:,} "
                    f"{m.length}",
                    f"< {FLAT_GROWTH:g}x the time",
                    f"{growth:.2f}x ({ms(before)} to {ms(after)} ms)",
                    growth < FLAT_GROWTH,
                    "" if growth < FLAT_GROWTH else f"{growth / FLAT_GROWTH:.1f}x the limit",
                )
            )
    return out


def adapter_summary(results: dict[str, Any]) -> list[str]:
    """Each adapter against its framework's stores, one table per framework, p50 only."""
    out: list[str] = []
    for m in _MATRICES:
        section = results.get(m.key)
        if not section:
            continue
        out += [f"{m.title}:", "", *_table(m, section), ""]
    return out
