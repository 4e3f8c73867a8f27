"""Matrix 5b's table and losses: every chronica row against SQLiteSession at its own setting."""

from __future__ import annotations

import itertools
from typing import Any

from .fmt import ms, pct, ratio, table

__all__ = ["session_losses", "session_table"]


def _sdk_rows(rows: list[dict[str, Any]]) -> dict[tuple[int, str], dict[str, Any]]:
    """SQLiteSession's row for each (items, synchronous): what every other row is held to."""
    return {
        (r["items"], r.get("synchronous", "FULL")): r for r in rows if "SQLiteSession" in r["store"]
    }


def session_table(rows: list[dict[str, Any]]) -> list[str]:
    """Matrix 5b, with ratios against SQLiteSession at the same size and durability."""
    ref = _sdk_rows(rows)
    header = [
        "store",
        "synchronous",
        "items",
        "append p50 / p95 (ms)",
        "last-20 p50 / p95 (ms)",
        "append p50 vs SQLiteSession, same setting",
        "last-20 p50 vs SQLiteSession, same setting",
    ]
    body = []
    order = sorted(rows, key=lambda r: (r["items"], r.get("synchronous", "FULL"), r["store"]))
    for r in order:
        sync = r.get("synchronous", "FULL")
        base = ref.get((r["items"], sync))
        body.append(
            [
                r["store"],
                sync,
                f"{r['items']:,}",
                pct(r["append_ms"], "p50", "p95"),
                pct(r["window_ms"], "p50", "p95"),
                ratio(r["append_ms"]["p50"], base["append_ms"]["p50"]) if base else "n/a",
                ratio(r["window_ms"]["p50"], base["window_ms"]["p50"]) if base else "n/a",
            ]
        )
    return table(header, body)


_SESSION_OPS = (("append_ms", "append"), ("window_ms", "last-20 read"))


def session_losses(rows: list[dict[str, Any]]) -> list[str]:
    """A sentence counting the comparisons and how many chronica lost, then one line for every
    p50 and p95 where a chronica row is slower than SQLiteSession at the same size and
    durability setting."""
    ref = _sdk_rows(rows)
    out, compared = [], 0
    for r in sorted(rows, key=lambda r: (r.get("synchronous", "FULL"), r["store"], r["items"])):
        sync = r.get("synchronous", "FULL")
        base = ref.get((r["items"], sync))
        if base is None or r is base:
            continue
        for (key, label), stat in itertools.product(_SESSION_OPS, ("p50", "p95")):
            compared += 1
            if r[key][stat] > base[key][stat]:
                out.append(
                    f"- {r['store']}, synchronous={sync}, {r['items']:,} items, {label} "
                    f"{stat}: {ms(r[key][stat])} ms vs SQLiteSession {ms(base[key][stat])} ms "
                    f"({r[key][stat] / base[key][stat]:.2f}x)."
                )
    faster = compared - len(out)
    summary = (
        f"chronica is slower in {len(out)} and as fast or faster in {faster} of {compared} "
        "comparisons (append and last-20 read, p50 and p95, against SQLiteSession at the same "
        "size and `synchronous` setting)."
    )
    return [summary, *out]
