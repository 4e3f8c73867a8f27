"""Recall's vector products run on one BLAS thread, and leave the process's setting as it was
(recall.semantic.threads)."""

from __future__ import annotations

from pathlib import Path

import numpy  # noqa: F401  # loads the BLAS library threadpoolctl reports on
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from chronomem import ChronoMem
from chronomem.recall.semantic import nearest
from chronomem.recall.semantic.threads import single_blas_thread


def _blas_threads() -> list[int]:
    return [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"]


def test_the_block_runs_on_one_thread_and_gives_the_setting_back() -> None:
    with threadpool_limits(limits=2, user_api="blas"):
        assert set(_blas_threads()) == {2}
        with single_blas_thread():
            assert set(_blas_threads()) == {1}
        assert set(_blas_threads()) == {2}


def test_a_search_by_meaning_runs_on_one_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[list[int]] = []
    searched = nearest.Copy.nearest

    def spy(self: nearest.Copy, *args: object) -> object:
        seen.append(_blas_threads())
        return searched(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(nearest.Copy, "nearest", spy)
    with threadpool_limits(limits=2, user_api="blas"), ChronoMem(tmp_path / "m.db") as mem:
        mem.remember_episode("Ana practises the cello every evening", speaker="Ben", session="s")
        assert mem.recall("Does Ana play a musical instrument?")
        assert set(_blas_threads()) == {2}
    assert seen, "the recall searched by meaning"
    assert all(set(threads) == {1} for threads in seen)
