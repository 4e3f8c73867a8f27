"""The shortlist's selection (recall.semantic.nearest.top_rows): exactly the positions
``argpartition`` would give, whatever order, ties or spread the scores have."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from chronomem.recall.semantic.nearest import top_rows


def _check(scores: np.ndarray, keep: int) -> None:
    got = top_rows(np, scores, keep)
    assert len(got) == keep
    assert len(set(got.tolist())) == keep, "no position twice"
    kth = np.sort(scores)[-keep]
    assert (scores[got] >= kth).all(), "every one of the keep highest"


@settings(max_examples=200, deadline=None)
@given(
    n=st.integers(min_value=2, max_value=20_000),
    keep_share=st.floats(min_value=0.0, max_value=0.99),
    shape=st.sampled_from(["random", "sorted", "reversed", "ties", "constant", "one_high"]),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
)
def test_the_keep_highest_are_selected(n: int, keep_share: float, shape: str, seed: int) -> None:
    keep = max(1, min(n - 1, int(n * keep_share)))
    rng = np.random.default_rng(seed)
    scores = rng.standard_normal(n).astype(np.float32)
    if shape == "sorted":
        scores = np.sort(scores)  # the sample sees every eighth: a skewed estimate
    elif shape == "reversed":
        scores = np.sort(scores)[::-1].copy()
    elif shape == "ties":
        scores = np.round(scores, 0)
    elif shape == "constant":
        scores = np.zeros(n, dtype=np.float32)
    elif shape == "one_high":
        scores = np.zeros(n, dtype=np.float32)
        scores[rng.integers(n)] = 1.0
    _check(scores, keep)


def test_a_shortlist_at_the_sizes_recall_reads() -> None:
    rng = np.random.default_rng(3)
    for n in (401, 10_000, 32_000, 50_000):
        _check(rng.standard_normal(n).astype(np.float32), 400)
