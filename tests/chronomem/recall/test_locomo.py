"""Recall on real speech, on a slice of the LoCoMo development set, against committed floors.

The data is read from beside the repository (see ``locomo_data``): without it the tests are
skipped on a developer's machine, and fail in CI. The full evaluation is
``python scripts/eval_locomo.py`` (``bench/locomo.md``); these floors sit a little under what
that slice measures, so a real regression fails and noise does not.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from scripts.locomo import (
    Conversation,
    Scores,
    fts5_ranker,
    remember_episodes,
    remember_facts,
    score,
)

from chronomem import ChronoMem
from chronomem.recall.fusion import CHANNELS
from tests.chronomem.backends import MemoryTarget
from tests.chronomem.locomo_data import development_conversation

SLICE = "conv-30"  # the smallest development conversation: 369 turns, 81 questions
# A floor sits one or two questions (1/81 = 0.012 each) under what the slice measures; the
# measured figures and each floor's margin are in locomo_slice.json (scripts/locomo_slice.py).
EPISODE_FLOORS = {"R@1": 0.53, "R@5": 0.77, "R@10": 0.85, "MRR@10": 0.64}
FACT_FLOORS = {"R@1": 0.46, "R@5": 0.67, "R@10": 0.74, "MRR@10": 0.55}
FLOORS = {"episodes": EPISODE_FLOORS, "facts": FACT_FLOORS}
MEASURED = Path(__file__).parents[1] / "locomo_slice.json"


@pytest.fixture(scope="module")
def conversation() -> Conversation:
    return development_conversation(SLICE)


def test_without_the_set_a_clone_skips_and_ci_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = tmp_path / "locomo-dev.json"
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="not found"):
        development_conversation(SLICE, missing)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI must measure"):
        development_conversation(SLICE, missing)


@pytest.fixture
def memory(memory_target: MemoryTarget) -> Iterator[ChronoMem]:
    with memory_target.open() as mem:
        yield mem


def _scores(mem: ChronoMem, conv: Conversation, ids: dict[str, str], **kwargs: object) -> Scores:
    scores = Scores()
    for q in conv.questions:
        ranked = [ids[r["id"]] for r in mem.recall(q.text, limit=10, **kwargs)]  # type: ignore[arg-type]  # recall's keyword options
        scores.add(q, ranked, 0.0)
    return scores


def test_the_committed_figures_are_of_these_floors() -> None:
    # Runs on any clone: the floors' margins are read from the measured figures, and a floor
    # moved without measuring again, or left far under what the slice does, fails here.
    report = json.loads(MEASURED.read_text())
    assert report["slice"] == SLICE
    assert report["floors"] == FLOORS
    for path, floors in FLOORS.items():
        for metric, floor in floors.items():
            margin = report["figures"][path][metric] - floor
            assert report["margins"][path][metric] == pytest.approx(margin, abs=1e-4)
            assert 0 <= margin <= 0.05, f"{path} {metric}: floor {floor}, margin {margin:.3f}"


def test_episodes_stay_above_their_floor(conversation: Conversation, memory: ChronoMem) -> None:
    ids = remember_episodes(memory, conversation)
    got = _scores(memory, conversation, ids, kinds=("episode",)).summary()
    print(SLICE, "episodes", got)
    for metric, floor in EPISODE_FLOORS.items():
        assert got[metric] >= floor, f"{metric} {got[metric]} fell below {floor}"


def test_episodes_and_facts_beat_plain_fts5(
    conversation: Conversation, memory_target: MemoryTarget
) -> None:
    baseline = score([conversation], fts5_ranker).summary()
    with memory_target.open() as episodes, memory_target.sibling("facts").open() as facts:
        by_episode = _scores(
            episodes, conversation, remember_episodes(episodes, conversation), kinds=("episode",)
        ).summary()
        by_fact = _scores(
            facts, conversation, remember_facts(facts, conversation), active_only=False
        ).summary()
    print(SLICE, "fts5", baseline, "facts", by_fact)
    for metric, plain in baseline.items():
        assert by_episode[metric] > plain
        assert by_fact[metric] >= plain


def test_facts_stay_above_their_floor(conversation: Conversation, memory: ChronoMem) -> None:
    # An absolute floor: "at least plain FTS5" alone would let the facts path fall far.
    ids = remember_facts(memory, conversation)
    got = _scores(memory, conversation, ids, active_only=False).summary()
    print(SLICE, "facts", got)
    for metric, floor in FACT_FLOORS.items():
        assert got[metric] >= floor, f"{metric} {got[metric]} fell below {floor}"


def test_fused_facts_rank_as_well_as_their_best_channel(
    conversation: Conversation, memory: ChronoMem
) -> None:
    ids = remember_facts(memory, conversation)
    fused = _scores(memory, conversation, ids, active_only=False).summary()
    best: dict[str, float] = {}
    for channel in CHANNELS:
        memory.weights = {c: float(c == channel) for c in CHANNELS}
        alone = _scores(memory, conversation, ids, active_only=False).summary()
        best = {m: max(best.get(m, 0.0), alone[m]) for m in ("R@1", "R@5", "R@10", "MRR@10")}
    print(SLICE, "fused", fused, "best single channel", best)
    # Meaning reorders the words' close calls: it adds at 5 and 10 what the words miss, and
    # may move their first answer (measured on the development set, docs/semantic.md).
    for metric in ("R@5", "R@10"):
        assert fused[metric] >= best[metric], f"fused {metric} {fused[metric]} < {best[metric]}"
    for metric in ("R@1", "MRR@10"):
        assert fused[metric] >= best[metric] - 0.015, f"fused {metric} {fused[metric]} < {best}"
