"""Matrix 6's tables and its goals checked against what was measured (formatting only).

Shared by ``bench/results.md`` (:mod:`.report`) and the README (``scripts/readme_tables.py``),
so both say the same thing from the same ``results.json``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .fmt import ms as _ms
from .fmt import table as _table

__all__ = ["Verdict", "cost_tables", "cost_verdicts", "verdict_lines"]

_KINDS = ("facts", "episodes")


@dataclass(frozen=True)
class Verdict:
    """One goal of the cost matrix beside its measurement."""

    what: str
    goal: str
    measured: str
    met: bool
    shortfall: str  # how far off, when missed ("" when met)


def cost_tables(section: dict[str, Any]) -> list[str]:
    """Recall and serial writes per size and kind, then the MCP comparison."""
    header = [
        "items stored",
        "kind",
        "recall p50 / p95 (ms)",
        "serial writes/s (each durable)",
        "bulk fill (not timed as writes)",
    ]
    body = []
    for r in section["rows"]:
        for kind in _KINDS:
            fill = r["fill"][kind]
            writes = r["remember_episode_per_s"] if kind == "episodes" else r["remember_per_s"]
            call = "remember_episode" if kind == "episodes" else "remember"
            body.append(
                [
                    f"{r['size']:,}",
                    kind,
                    f"{_ms(r['recall_ms'][kind]['p50'])} / {_ms(r['recall_ms'][kind]['p95'])}",
                    f"{writes:,.0f} (`{call}`)",
                    f"{fill['fill_s']:.1f} s" + (" (cached)" if fill["cached"] else ""),
                ]
            )
    out = _table(header, body)
    mcp = section.get("mcp")
    if mcp:
        trivial = mcp["trivial"]["p50"]
        header = [f"over MCP stdio, {mcp['size']:,} items", "p50 / p95 (ms)", "p50 vs trivial"]
        body = [["trivial `echo` tool, same SDK", _pair(mcp["trivial"]), "1.00x"]]
        body += [
            [
                f"`chronomem_recall` on {kind}",
                _pair(mcp[kind]),
                f"{mcp[kind]['p50'] / trivial:.2f}x",
            ]
            for kind in _KINDS
        ]
        out += ["", *_table(header, body)]
    return out


def _pair(d: dict[str, float]) -> str:
    return f"{_ms(d['p50'])} / {_ms(d['p95'])}"


def cost_verdicts(section: dict[str, Any]) -> list[Verdict]:
    """Every goal of issue 9's cost section, with what this run measured."""
    goals = section["goals"]
    out = []
    for r in section["rows"]:
        limit = goals["recall_p50_ms"].get(str(r["size"]))
        if limit is None:  # quick runs measure other sizes; their goals are not defined
            continue
        for kind in _KINDS:
            p50 = r["recall_ms"][kind]["p50"]
            out.append(
                Verdict(
                    f"recall p50, {r['size']:,} {kind}",
                    f"<= {limit:g} ms",
                    f"{_ms(p50)} ms",
                    p50 <= limit,
                    "" if p50 <= limit else f"{p50 / limit:.1f}x the goal",
                )
            )
    floor = goals["remember_episode_per_s"]
    for r in section["rows"]:
        rate = r["remember_episode_per_s"]
        out.append(
            Verdict(
                f"serial durable `remember_episode`, on {r['size']:,} episodes",
                f">= {floor:,.0f}/s",
                f"{rate:,.0f}/s",
                rate >= floor,
                "" if rate >= floor else f"{rate / floor:.0%} of the goal",
            )
        )
    mcp = section.get("mcp")
    if mcp and mcp["size"] == goals["mcp_size"]:
        cap = goals["mcp_recall_vs_trivial"]
        for kind in _KINDS:
            ratio = mcp[kind]["p50"] / mcp["trivial"]["p50"]
            out.append(
                Verdict(
                    f"MCP `chronomem_recall` p50 vs a trivial tool, {mcp['size']:,} {kind}",
                    f"<= {cap:g}x",
                    f"{ratio:.2f}x ({_ms(mcp[kind]['p50'])} vs {_ms(mcp['trivial']['p50'])} ms)",
                    ratio <= cap,
                    "" if ratio <= cap else f"{ratio / cap:.1f}x the goal",
                )
            )
    return out


def verdict_lines(verdicts: list[Verdict]) -> list[str]:
    """The goals as a table, then where this run misses them (computed, never assumed)."""
    rows = [[v.what, v.goal, v.measured, "met" if v.met else "**missed**"] for v in verdicts]
    out = _table(["goal", "target", "measured", ""], rows)
    missed = [v for v in verdicts if not v.met]
    met = len(verdicts) - len(missed)
    out += ["", f"Met {met} of {len(verdicts)} goals in this run."]
    if missed:
        out += ["", "**Where we miss.**", ""]
        out += [f"- {v.what}: {v.measured}, goal {v.goal} ({v.shortfall})." for v in missed]
    return out
