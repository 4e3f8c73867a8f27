"""Markdown tables for each matrix (formatting only; no measuring here)."""

from __future__ import annotations

from typing import Any

from .data import TIERS
from .fmt import ms as _ms
from .fmt import pct as _pct
from .fmt import ratio as _ratio
from .fmt import table as _table

__all__ = [
    "comparison_tables",
    "environment_table",
    "graded_table",
    "hardware_table",
    "key_table",
    "losses",
    "peer_losses",
    "peer_tables",
]

SYSTEM_ORDER = ("flat memory", "vector store", "chronomem, sentences only", "chronomem")
"""Left to right; the key table reads right to left (chronomem first)."""


def _num(value: float | None, digits: int = 2) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _rate(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.0f}%"


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.0f} min" if seconds < 7200 else f"{seconds / 3600:.1f} h"


def _abandoned(r: dict[str, Any]) -> str:
    a = r["abandoned"]
    return (
        f"abandoned: {a['filled']:,} facts in {_duration(a['fill_s'])}, last chunk "
        f"{a['last_rate']:,.0f} facts/s, whole fill projected >= {_duration(a['projected_s'])}"
        + (
            " (verdict cached from an earlier run of the same write path)"
            if a.get("cached")
            else ""
        )
    )


def hardware_table(rows: list[dict[str, Any]]) -> list[str]:
    """Matrix 1."""
    header = [
        "facts before",
        "bulk fill",
        "remember/s",
        "remember p50 / p95 / p99 (ms)",
        "recall p50 / p95 / p99 (ms)",
        "peak RSS MB (at start)",
        "on disk (MB)",
    ]
    body = []
    for r in rows:
        if "abandoned" in r:
            body.append([f"{r['size']:,}", _abandoned(r), *["not measured"] * 5])
            continue
        fill = "-" if not r["size"] else f"{r['fill_s']:.1f} s ({r['size'] / r['fill_s']:,.0f}/s)"
        body.append(
            [
                f"{r['size']:,}",
                fill,
                f"{r['ingest_per_s']:,.0f}",
                _pct(r["ingest_ms"], "p50", "p95", "p99"),
                _pct(r["recall_ms"], "p50", "p95", "p99"),
                f"{r['peak_rss_mb']:.0f} ({r.get('baseline_rss_mb', 0.0):.0f})",
                f"{r['disk_mb']:.1f}",
            ]
        )
    return _table(header, body)


def environment_table(rows: list[dict[str, Any]]) -> list[str]:
    """Matrix 2, with throughput relative to the default row."""
    base = rows[0]
    header = [
        "setting",
        "remember/s",
        "remember p50 / p99 (ms)",
        "recall p50 / p95 / p99 (ms)",
        "remember/s vs default",
        "recall p50 vs default",
    ]
    body = []
    for r in rows:
        rate = r.get("aggregate_calls_per_s") if r["processes"] == 2 else None
        per_s = f"{r['ingest_per_s']:,.0f}" + (f" (all calls: {rate:,.0f}/s wall)" if rate else "")
        body.append(
            [
                r["variant"],
                per_s,
                _pct(r["ingest_ms"], "p50", "p99"),
                _pct(r["recall_ms"], "p50", "p95", "p99"),
                _ratio(r["ingest_per_s"], base["ingest_per_s"]),
                _ratio(r["recall_ms"]["p50"], base["recall_ms"]["p50"]),
            ]
        )
    return _table(header, body)


def graded_table(system: dict[str, Any]) -> list[str]:
    """Matrix 3: one system, per tier."""
    header = ["tier", "precision@5", "recall@5", "hit@1", "ghost-belief rate", "tokens packed"]
    body = []
    for tier in (*TIERS, "overall"):
        t = system["overall"] if tier == "overall" else system["tiers"][tier]
        body.append(
            [
                f"**{tier}**" if tier == "overall" else tier,
                _num(t["precision"]),
                _num(t["recall"]),
                _num(t["hit1"]),
                _rate(t["ghost"]),
                _num(t["tokens"], 0),
            ]
        )
    return _table(header, body)


def _ordered(systems: dict[str, Any]) -> list[str]:
    return [n for n in SYSTEM_ORDER if n in systems] + [n for n in systems if n not in SYSTEM_ORDER]


def comparison_tables(systems: dict[str, Any]) -> list[str]:
    """Matrix 4: hit@1 / recall@5 per tier, then ghosts, latency and tokens per answer."""
    names = _ordered(systems)
    header = ["tier", *[f"{n}: hit@1 / recall@5" for n in names]]
    body = []
    for tier in (*TIERS, "overall"):
        cells = []
        for n in names:
            t = systems[n]["overall"] if tier == "overall" else systems[n]["tiers"][tier]
            cells.append(f"{_num(t['hit1'])} / {_num(t['recall'])}")
        body.append([f"**{tier}**" if tier == "overall" else tier, *cells])
    out = [*_table(header, body), ""]
    header = [
        "system",
        "ghost-belief rate (supersession / as-of)",
        "recall p50 / p95 (ms)",
        "ingest per fact (ms)",
        "tokens per answer",
    ]
    body = []
    for n in names:
        s = systems[n]
        ghosts = (
            f"{_rate(s['tiers']['supersession']['ghost'])} / {_rate(s['tiers']['as-of']['ghost'])}"
        )
        body.append(
            [
                n,
                ghosts,
                _pct(s["recall_ms"], "p50", "p95"),
                _ms(s["ingest_per_fact_ms"]),
                _num(s["overall"]["tokens"], 0),
            ]
        )
    return out + _table(header, body)


def losses(systems: dict[str, Any]) -> list[str]:
    """Every tier and measure where a baseline beats chronomem, stated plainly."""
    cm = systems.get("chronomem")
    if cm is None:
        return []
    out = []
    for n in _ordered(systems):
        if n.startswith("chronomem"):  # its own sentences-only row is not a baseline
            continue
        other = systems[n]
        for tier in TIERS:
            for key, label in (("hit1", "hit@1"), ("recall", "recall@5")):
                mine, theirs = cm["tiers"][tier][key], other["tiers"][tier][key]
                if mine is not None and theirs is not None and theirs > mine + 1e-9:
                    out.append(f"- *{tier}*, {label}: {n} {theirs:.2f} vs chronomem {mine:.2f}.")
        if other["recall_ms"]["p50"] < cm["recall_ms"]["p50"]:
            out.append(
                f"- recall latency p50: {n} {_ms(other['recall_ms']['p50'])} ms vs "
                f"chronomem {_ms(cm['recall_ms']['p50'])} ms."
            )
        if other["ingest_per_fact_ms"] < cm["ingest_per_fact_ms"]:
            out.append(
                f"- ingest cost per fact: {n} {_ms(other['ingest_per_fact_ms'])} ms vs "
                f"chronomem {_ms(cm['ingest_per_fact_ms'])} ms."
            )
    return out


def peer_tables(rows: list[dict[str, Any]]) -> list[str]:
    """Matrix 5a: latency table, then correctness table, with chronomem / reference ratios."""
    header = [
        "server",
        "facts",
        "start (s)",
        "ingest p50 / p95 (ms)",
        "search by name p50 / p95",
        "search by question p50 / p95",
        "update p50 / p95",
        "on disk (MB)",
    ]
    lat = [
        [
            r["server"],
            f"{r['facts']:,}",
            f"{r['start_s']:.2f}",
            _pct(r["ingest_ms"], "p50", "p95"),
            _pct(r["search_name_ms"], "p50", "p95"),
            _pct(r["search_question_ms"], "p50", "p95"),
            _pct(r["update_ms"], "p50", "p95"),
            f"{r['disk_mb']:.2f}",
        ]
        for r in rows
    ]
    header2 = [
        "server",
        "facts",
        "found by name",
        "found by question",
        "stale after update",
        "current after update",
        "tokens per answer",
        "tokens per hit",
    ]
    ok = [
        [
            r["server"],
            f"{r['facts']:,}",
            _rate(r["found_by_name"]),
            _rate(r["found_by_question"]),
            _rate(r["stale_after_update"]),
            _rate(r["current_after_update"]),
            f"{r['answer_tokens']:,.0f}",
            f"{r['tokens_per_hit']:,.1f}" if "tokens_per_hit" in r else "n/a",
        ]
        for r in rows
    ]
    ratios = []
    for size in sorted({r["facts"] for r in rows}):
        pair = {r["server"]: r for r in rows if r["facts"] == size}
        ref, cm = pair.get("MCP reference memory server"), pair.get("chronomem serve")
        if ref and cm:
            ratios.append(
                f"- {size:,} facts, chronomem / reference p50: ingest "
                f"{_ratio(cm['ingest_ms']['p50'], ref['ingest_ms']['p50'])}, search by name "
                f"{_ratio(cm['search_name_ms']['p50'], ref['search_name_ms']['p50'])}, update "
                f"{_ratio(cm['update_ms']['p50'], ref['update_ms']['p50'])} "
                "(below 1 = chronomem faster)."
            )
    return [*_table(header, lat), "", *_table(header2, ok), "", *ratios]


def _key_systems(systems: dict[str, Any]) -> list[str]:
    """The measured systems, chronomem first (a run without the sentences-only row shows none)."""
    return [n for n in SYSTEM_ORDER[::-1] if n in systems]


def _graded_row(systems: dict[str, Any], label: str, pick: Any) -> list[str]:
    return [label, *[pick(systems[n]) for n in _key_systems(systems)]]


def key_table(results: dict[str, Any]) -> list[str]:
    """The README's table: quality and staleness side by side, latency with its machine."""
    out: list[str] = []
    graded = results.get("graded")
    if graded:
        systems = graded["systems"]
        header = ["graded evaluation", *_key_systems(systems)]
        rows = [
            _graded_row(systems, "hit@1, all tiers", lambda s: _num(s["overall"]["hit1"])),
            _graded_row(systems, "recall@5, all tiers", lambda s: _num(s["overall"]["recall"])),
            _graded_row(
                systems,
                "ghost beliefs after an update",
                lambda s: _rate(s["tiers"]["supersession"]["ghost"]),
            ),
            _graded_row(
                systems,
                "ghost beliefs, as-of questions",
                lambda s: _rate(s["tiers"]["as-of"]["ghost"]),
            ),
            _graded_row(systems, "recall p50 (ms)", lambda s: _ms(s["recall_ms"]["p50"])),
            _graded_row(systems, "tokens per answer", lambda s: _num(s["overall"]["tokens"], 0)),
        ]
        out += [*_table(header, rows), ""]
    hardware = results.get("hardware")
    if hardware:
        measured = [r for r in hardware["rows"] if "abandoned" not in r]
        header = ["chronomem at scale", *[f"{r['size'] + r['serial']:,} facts" for r in measured]]
        rows = [
            ["recall p50 / p95 (ms)", *[_pct(r["recall_ms"], "p50", "p95") for r in measured]],
            ["remember p50 (ms)", *[_ms(r["ingest_ms"]["p50"]) for r in measured]],
            ["file size (MB)", *[f"{r['disk_mb']:.1f}" for r in measured]],
        ]
        out += [*_table(header, rows), ""]
    peers = results.get("peers")
    if peers:
        biggest = max(r["facts"] for r in peers["rows"])
        pair = [r for r in peers["rows"] if r["facts"] == biggest]
        header = [f"over MCP stdio, {biggest:,} facts", *[r["server"] for r in pair]]
        rows = [
            ["ingest p50 (ms)", *[_ms(r["ingest_ms"]["p50"]) for r in pair]],
            ["search p50 (ms)", *[_ms(r["search_name_ms"]["p50"]) for r in pair]],
            ["answers a question", *[_rate(r["found_by_question"]) for r in pair]],
            ["stale fact returned after update", *[_rate(r["stale_after_update"]) for r in pair]],
        ]
        out += _table(header, rows)
    return out


_PEER_OPS = (
    ("ingest_ms", "ingest"),
    ("search_name_ms", "search by name"),
    ("search_question_ms", "search by question"),
    ("update_ms", "update"),
)


def peer_losses(rows: list[dict[str, Any]]) -> list[str]:
    """Where ``chronomem serve`` is slower, bigger or less complete than the reference server."""
    out = []
    for size in sorted({r["facts"] for r in rows}):
        pair = {r["server"]: r for r in rows if r["facts"] == size}
        ref, cm = pair.get("MCP reference memory server"), pair.get("chronomem serve")
        if not ref or not cm:
            continue
        for key, label in _PEER_OPS:
            if cm[key]["p50"] > ref[key]["p50"]:
                out.append(
                    f"- {size:,} facts, {label} p50: chronomem {_ms(cm[key]['p50'])} ms vs "
                    f"reference {_ms(ref[key]['p50'])} ms."
                )
        for key, label, fmt in (
            ("start_s", "server start", "{:.2f} s"),
            ("answer_tokens", "tokens per answer (search by name)", "{:,.0f}"),
            ("tokens_per_hit", "tokens per hit (search by name)", "{:,.1f}"),
            ("disk_mb", "size on disk", "{:.2f} MB"),
        ):
            if key in cm and key in ref and cm[key] > ref[key]:
                out.append(
                    f"- {size:,} facts, {label}: chronomem {fmt.format(cm[key])} vs "
                    f"reference {fmt.format(ref[key])}."
                )
        if cm["found_by_name"] < ref["found_by_name"]:
            out.append(
                f"- {size:,} facts, fact found when searching its entity's name: chronomem "
                f"{_rate(cm['found_by_name'])} vs reference {_rate(ref['found_by_name'])}."
            )
    return out
