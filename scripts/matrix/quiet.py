"""A quiet machine, or a row marked as measured under load; and goals judged on an interval.

Another process on a 2-core machine can double a latency, so a figure measured while the
1-minute load average was high says more about the neighbours than about chronomem. Every row
of every matrix goes through :func:`guarded`: it waits (bounded) for the load to fall to
:data:`LOAD_LIMIT`, measures, reads the load again, and re-runs the row (bounded) when either
reading was above the limit. A row still measured under load says so in its ``load`` record,
and the report marks it.

A matrix also runs in a quiet process: :func:`own_heap` sets aside every object the process
held before it, so a full garbage collection walks only the matrix's own objects.

Figures that move between runs get :func:`spread` (the median of several runs, with the lowest
and highest), and a goal is judged by :func:`judge` on that whole interval: met only when every
run meets it, missed only when none does, otherwise *within noise*.
"""

from __future__ import annotations

import contextlib
import gc
import os
import statistics
import time
from collections.abc import Callable, Iterator
from typing import Any, Literal, TypeVar

__all__ = [
    "ATTEMPTS",
    "LOAD_LIMIT",
    "WAIT_S",
    "checkpoint",
    "guarded",
    "judge",
    "own_heap",
    "patient",
    "settle",
    "spread",
    "under_load",
]

_T = TypeVar("_T")
LOAD_LIMIT = 1.0
"""The 1-minute load average above which the machine is not quiet (half of 2 cores busy)."""
WAIT_S = 60.0
"""How long a row waits for the load to fall before it is measured anyway."""
ATTEMPTS = 2
"""How many times a row measured under load is measured in all."""
Judgement = Literal["met", "missed", "within noise"]
_policy = {"wait_s": WAIT_S, "attempts": float(ATTEMPTS)}


@contextlib.contextmanager
def own_heap() -> Iterator[None]:
    """Run the block as if in a fresh process, as far as the garbage collector goes: what
    the process held before is collected, then frozen (``gc.freeze``) until the block ends.

    A full collection walks every tracked object of the process. After the graded matrix has
    loaded an embedding model, or late in the test suite, that is millions of objects, and
    each ``gc.collect()`` a matrix runs outside its timings (7a and 7b, before every
    whole-history read) took seconds: 7b took 337 s of a smoke run, 59 s of a test. The
    collections inside the timings walked them too, so a row depended on what the process
    had done before it. A block inside another (or in a process already frozen) keeps the
    freeze it found, and leaves it to whoever made it.
    """
    outermost = gc.get_freeze_count() == 0
    if outermost:
        gc.collect()
        gc.freeze()
    try:
        yield
    finally:
        if outermost:
            gc.unfreeze()


def patient(on: bool) -> None:
    """Wait and measure again under load (a full run), or only record and mark (``--quick``:
    a smoke run must finish in minutes, and its figures are never published)."""
    _policy.update(wait_s=WAIT_S if on else 0.0, attempts=float(ATTEMPTS if on else 1))


def _load() -> float:
    return os.getloadavg()[0]


def settle(
    *,
    limit: float = LOAD_LIMIT,
    wait_s: float | None = None,
    load: Callable[[], float] = _load,
    sleep: Callable[[float], None] = time.sleep,
) -> tuple[float, float]:
    """Wait up to ``wait_s`` for the load to reach ``limit``: (the load then, seconds waited)."""
    wait_s = _policy["wait_s"] if wait_s is None else wait_s
    waited = 0.0
    now = load()
    while now > limit and waited < wait_s:
        step = min(5.0, wait_s - waited)
        sleep(step)
        waited += step
        now = load()
    return now, waited


def guarded(
    label: str,
    measure: Callable[[], _T],
    log: Callable[[str], None],
    *,
    limit: float = LOAD_LIMIT,
    wait_s: float | None = None,
    attempts: int | None = None,
    load: Callable[[], float] = _load,
    sleep: Callable[[float], None] = time.sleep,
) -> tuple[_T, dict[str, Any]]:
    """``measure()`` on a quiet machine if one comes within the bounds, and its load record:
    the load before and after the kept attempt, seconds waited, attempts, ``under_load``."""
    attempts = int(_policy["attempts"]) if attempts is None else attempts
    waited = 0.0
    for attempt in range(1, attempts + 1):
        before, slept = settle(limit=limit, wait_s=wait_s, load=load, sleep=sleep)
        waited += slept
        result = measure()
        after = load()
        busy = before > limit or after > limit
        if not busy or attempt == attempts:
            break
        log(f"{label}: load {before:.1f} before, {after:.1f} after (> {limit:g}); measuring again")
    record = {
        "before": before,
        "after": after,
        "waited_s": waited,
        "attempts": attempt,
        "under_load": busy,
    }
    if busy:
        log(f"{label}: still under load after {attempt} attempts; the row is marked")
    return result, record


def checkpoint(
    before: float, waited: float, *, load: Callable[[], float] = _load
) -> dict[str, Any]:
    """The load record of a row that cannot be measured again alone (a checkpoint of sessions
    grown in lockstep): what :func:`settle` found before it and the load now, marked if high."""
    after = load()
    busy = before > LOAD_LIMIT or after > LOAD_LIMIT
    return {"before": before, "after": after, "waited_s": waited, "attempts": 1, "under_load": busy}


def under_load(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows whose kept measurement ran above the load limit."""
    return [r for r in rows if r.get("load", {}).get("under_load")]


def spread(values: list[float]) -> dict[str, float]:
    """The median of several runs' figures, with the lowest and highest and how many runs."""
    return {
        "median": statistics.median(values),
        "low": min(values),
        "high": max(values),
        "runs": float(len(values)),
    }


def judge(
    low: float, high: float, *, at_most: float | None = None, at_least: float | None = None
) -> Judgement:
    """A goal judged on the interval [low, high] of several runs: met only when all of it
    meets the goal, missed when none of it does, else within noise."""
    if at_most is not None:
        good, bad = high <= at_most, low > at_most
    elif at_least is not None:
        good, bad = low >= at_least, high < at_least
    else:
        raise ValueError("judge needs at_most or at_least")
    return "met" if good else "missed" if bad else "within noise"
