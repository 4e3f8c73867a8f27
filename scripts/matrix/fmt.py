"""Number and Markdown-table formatting shared by every matrix's tables."""

from __future__ import annotations

__all__ = ["ms", "pct", "ratio", "table"]


def table(header: list[str], rows: list[list[str]]) -> list[str]:
    """A Markdown table, one line per row."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


def ms(value: float) -> str:
    """Milliseconds with three significant figures or so."""
    return f"{value:.2f}" if value < 10 else f"{value:.1f}" if value < 100 else f"{value:.0f}"


def pct(d: dict[str, float], *keys: str) -> str:
    """Several percentiles of one measurement, e.g. ``"1.20 / 3.40"``."""
    return " / ".join(ms(d[k]) for k in keys)


def ratio(a: float, b: float) -> str:
    """``a / b`` as ``"1.50x"``, or ``"n/a"`` when ``b`` is zero."""
    return "n/a" if not b else f"{a / b:.2f}x"
