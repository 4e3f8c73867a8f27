"""The eight-tier graded evaluation on the held-out split, with its thresholds.

Thresholds: tiers whose answer is fully determined by the data (exact lookup, partial overlap
where the question shares a stem with its answer, multi-fact entity, supersession, as-of,
contradictions) must reach 95%: anything less is a bug, not noise. Multi-hop is judged at
k=3 with two relevant facts, so its precision cannot exceed 2/3; its recall must reach 95%.
The budget tier packs to exactly the answer's size among near-namesakes sharing the
attribute word, the hardest case; 90% there. The true paraphrase tier (no shared word) has
a floor of its own, under what it measures.
"""

from __future__ import annotations

import pytest

from chronomem.text.lexicon import index_terms, query_terms
from tests.chronomem.backends import MemoryTarget
from tests.chronomem.graded_data import (
    DEV,
    HELD_OUT,
    PARTIAL_OVERLAPS,
    TIERS,
    TRUE_PARAPHRASES,
    Tier,
    channel_table,
    recall_at,
    retrieval_tiers,
    score,
    tier_paraphrase,
)

THRESHOLDS: dict[str, tuple[float, float]] = {
    "1 exact lookup": (0.95, 0.95),
    "2 partial overlap (shared stems)": (0.95, 0.95),
    "3 multi-fact entity": (0.95, 0.95),
    "4 supersession (no ghosts)": (0.95, 0.95),
    "5 as-of temporal": (0.95, 0.95),
    "6 contradiction detection": (0.95, 0.95),
    "7 multi-hop (entity graph)": (0.6, 0.95),
    "8 distractors under a token budget": (0.9, 0.9),
}


@pytest.mark.slow
@pytest.mark.parametrize("make", TIERS, ids=[m.__name__ for m in TIERS])
def test_tier_meets_threshold(memory_target: MemoryTarget, make: object) -> None:
    tier: Tier = make(HELD_OUT, memory_target.open())  # type: ignore[operator]  # a tier factory from TIERS
    try:
        precision, recall = score(tier)
        want_p, want_r = THRESHOLDS[tier.name]
        print(f"{tier.name}: precision {precision:.3f} recall {recall:.3f}")
        assert precision >= want_p, f"{tier.name}: precision {precision:.3f} < {want_p}"
        assert recall >= want_r, f"{tier.name}: recall {recall:.3f} < {want_r}"
    finally:
        tier.mem.close()


# The true paraphrase tier (no word shared but the person's name) measures 15/36 = 0.42
# hit@1 on the held-out split, either engine, where chance among a person's three facts is
# 0.33: the floor is one question under it, so meaning is asked to do what it does now.
PARAPHRASE_FLOOR = 0.38


def _shared_stems(fact: str, question: str) -> set[str]:
    slots = {"P": "Noor", "city": "Oslo", "editor": "Vim", "team": "Search"}
    said = fact.format(proj="Project Falcon", **slots)
    return set(index_terms(said)) & set(query_terms(question.format(pl="noor"))) - {"noor"}


def test_the_tiers_are_named_for_their_overlap() -> None:
    assert all(_shared_stems(f, q) for f, q in PARTIAL_OVERLAPS), "partial overlap shares a stem"
    assert not any(_shared_stems(f, q) for f, q in TRUE_PARAPHRASES), "paraphrase shares none"


def test_true_paraphrase_stays_above_its_floor(memory_target: MemoryTarget) -> None:
    with memory_target.open() as mem:
        tier = tier_paraphrase(HELD_OUT, mem)
        _, recall = score(tier)
    print(f"{tier.name}: hit@1 {recall:.3f}")
    assert recall >= PARAPHRASE_FLOOR, f"{tier.name}: {recall:.3f} < {PARAPHRASE_FLOOR}"


def test_true_paraphrase_ranks_as_well_as_meaning_alone(memory_target: MemoryTarget) -> None:
    with memory_target.open() as mem:
        tier = tier_paraphrase(HELD_OUT, mem)
        fused = meaning = 0
        for q in tier.queries:
            got = mem.recall(q.text, limit=3)
            fused += got[0].id in q.relevant
            meaning += any(f.ranks.get("semantic") == 1 and f.id in q.relevant for f in got)
    print(f"true paraphrase: fused hit@1 {fused}/36, semantic channel's first choice {meaning}/36")
    assert fused >= meaning


def test_no_ghost_beliefs(memory_target: MemoryTarget) -> None:
    with memory_target.open() as mem:
        tier = TIERS[3](HELD_OUT, mem)
        for q in tier.queries:
            returned = {f.id for f in tier.mem.recall(q.text, limit=10)}
            assert not returned & q.ghosts


def test_contradictions_are_reported_on_remember(memory_target: MemoryTarget) -> None:
    with memory_target.open() as mem:
        tier = TIERS[5](HELD_OUT, mem)
        conflicts = [q for q in tier.queries if q.text == "contradicts"]
        assert conflicts, "the contradiction tier always has genuine conflicts"
        # Each genuine conflict is reported as exactly the earlier fact; the near misses
        # (superseded, another person, another attribute) report nothing.
        assert all(q.relevant for q in conflicts), "every conflict is reported by remember()"
        quiet = [q for q in tier.queries if q.text == "no contradiction"]
        assert len(quiet) == 3 * len(conflicts)
        assert all(not q.relevant for q in quiet), "a non-conflict is reported by remember()"


@pytest.mark.slow
def test_fusion_beats_every_single_channel_on_held_out(memory_target: MemoryTarget) -> None:
    with memory_target.open() as mem:
        table = channel_table(HELD_OUT, memory=mem)
    best_single = max(v for k, v in table.items() if k != "fused")
    print("held-out recall@3:", {k: round(v, 3) for k, v in table.items()})
    assert table["fused"] >= best_single
    assert table["fused"] >= 0.95


@pytest.mark.slow
def test_the_entity_and_graph_channels_earn_their_place_on_held_out(
    memory_target: MemoryTarget,
) -> None:
    # On the LoCoMo development set neither changes R@5 or R@10 by 0.005 (bench/locomo.md,
    # "without entity", "without graph"): its questions rarely name an entity whose facts or
    # neighbours answer them. Named-entity questions are the graded set's, and there each
    # must add at least that much, or it has no place in the defaults (issue 38, item 3).
    from chronomem.recall.fusion import DEFAULT_WEIGHTS

    with memory_target.open() as mem:
        tiers = retrieval_tiers(HELD_OUT, mem)
        fused = recall_at(tiers, DEFAULT_WEIGHTS)
        without = {c: recall_at(tiers, {**DEFAULT_WEIGHTS, c: 0.0}) for c in ("entity", "graph")}
    print("held-out recall@3:", round(fused, 3), {c: round(v, 3) for c, v in without.items()})
    for channel, recall in without.items():
        assert fused - recall >= 0.005, f"{channel} adds {fused - recall:.3f}"


def test_splits_differ() -> None:
    dev, held = TIERS[0](DEV, None), TIERS[0](HELD_OUT, None)
    assert [q.text for q in dev.queries] != [q.text for q in held.queries]
