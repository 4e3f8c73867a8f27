"""Small numeric helpers shared by the matrices."""

from __future__ import annotations

import math
import time
from collections.abc import Callable

__all__ = ["percentiles", "timed"]


def percentiles(samples: list[float]) -> dict[str, float]:
    """p50/p95/p99 (nearest rank) and the mean of ``samples``; zeros when there are none."""
    if not samples:
        return {"p50": 0.0, "p95": 0.0, "p99": 0.0, "mean": 0.0}
    ordered = sorted(samples)

    def rank(p: float) -> float:
        return ordered[min(len(ordered) - 1, max(0, math.ceil(p * len(ordered)) - 1))]

    return {
        "p50": rank(0.50),
        "p95": rank(0.95),
        "p99": rank(0.99),
        "mean": sum(ordered) / len(ordered),
    }


def timed(calls: list[Callable[[], object]]) -> list[float]:
    """Run each call and return its wall time in seconds."""
    out: list[float] = []
    for call in calls:
        started = time.perf_counter()
        call()
        out.append(time.perf_counter() - started)
    return out
