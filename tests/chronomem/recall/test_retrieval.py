"""recall: channels, fusion, explanations, token-budget packing and the filter-before-limit rule."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chronomem import ChronoMem, estimate_tokens
from chronomem.recall.fusion import CHANNEL_DEPTH, RRF_K
from tests.chronomem.backends import MemoryTarget, sqlite_connection


@pytest.fixture(scope="module")
def mem(module_memory_target: MemoryTarget) -> Iterator[ChronoMem]:
    with module_memory_target.open() as m:
        m.remember("Alice Smith manages Project Falcon.")
        m.remember("Project Falcon runs on PostgreSQL in production.")
        m.remember("Bob Jones manages Project Orion.")
        m.remember("Project Orion runs on MySQL in production.")
        for i in range(40):
            m.remember(f"Note {i}: the weekly sync covers hiring, budget and the roadmap item {i}.")
        yield m


def test_score_follows_the_rrf_formula(memory_target: MemoryTarget) -> None:
    with memory_target.open(weights={"jaccard": 0, "entity": 0, "graph": 0, "semantic": 0}) as m:
        m.remember("Zoe plays the cello", trust=0.5, confidence=0.5)
        [hit] = m.recall("cello")
        assert hit.ranks["bm25"] == 1
        assert hit.score == pytest.approx(1.0 / (RRF_K + 1) * (0.8 + 0.4 * 0.5) * 0.5)


def test_trust_and_confidence_break_ties(memory_target: MemoryTarget) -> None:
    with memory_target.open() as m:
        low = m.remember("Yara plays the oboe", trust=0.1)
        high = m.remember("Yara plays the oboe", trust=0.9, dedup=False)
        assert m.recall("Yara oboe", kinds=["fact"])[0].id == high
        # Recall hands the text back once: the better ranked of the two copies.
        assert [f.id for f in m.recall("Yara oboe")] == [high]
        assert low != high


def test_repeats_past_a_chunk_leave_the_limit_to_distinct_texts(
    memory_target: MemoryTarget,
) -> None:
    # Forty copies of one turn outrank the rest: the texts are told apart before any becomes
    # a record, chunk after chunk, and the limit goes to five different texts, best first.
    with memory_target.open() as m:
        for _ in range(40):
            m.remember_episode("Thanks, the oboe lesson was great!", speaker="Yara", session="s")
        others = [
            m.remember_episode(f"The oboe reed number {i} cracked", speaker="Yara", session="s")
            for i in range(6)
        ]
        found = m.recall("oboe lesson great", limit=5)
        contents = [f.content for f in found]
        assert contents[0] == "Thanks, the oboe lesson was great!"
        assert len(found) == 5
        assert len(set(contents)) == 5, contents
        assert {f.id for f in found[1:]} <= set(others)
        assert all(f.tokens > 0 and f.ranks for f in found), "records built whole"


def test_multi_hop_reaches_facts_through_the_graph(mem: ChronoMem) -> None:
    results = mem.recall("which database does Alice Smith's project run on", limit=3)
    hop = [f for f in results if "PostgreSQL" in f.content]
    assert hop, [f.content for f in results]
    assert "graph" in hop[0].ranks
    assert not any("MySQL" in f.content for f in results[:2])


def test_one_sure_hop_outranks_facts_matching_only_the_name(memory_target: MemoryTarget) -> None:
    # The benchmark matrix's multi-hop shape: the person has a profile, her one link is her
    # project, and the project's budget shares only "budget" and "project" with the question.
    # Her other facts match the name alone and must not push the budget out.
    with memory_target.open() as m:
        with m.batch():  # other projects, budgets and people: the words are common
            for i in range(100):
                project = f"Codename{i:03d} Beta"
                m.remember(f"Project {project} budget is {i}k EUR.", entities=[project])
                m.remember(f"Person {i:03d} likes item {i}.", entities=[f"Person {i:03d}"])
        who = "Kavya Abbott"
        for saying in ["lives in Hanoi.", "works at Acme Robotics.", "has a pet tabby cat.",
                       "speaks Japanese with family.", "uses a Galaxy S25 phone."]:  # fmt: skip
            m.remember(f"{who} {saying}", entities=[who])
        link = m.remember(f"{who} works on project Saffron Zeta.", entities=[who, "Saffron Zeta"])
        m.remember("Project Saffron Zeta deadline is March 3.", entities=["Saffron Zeta"])
        budget = m.remember("Project Saffron Zeta budget is 75k USD.", entities=["Saffron Zeta"])
        found = m.recall(f"What is the budget of the project {who} works on?", limit=3)
        assert {link, budget} <= {f.id for f in found}, [f.content for f in found]
        assert "graph" in next(f for f in found if f.id == budget).ranks


def test_every_result_says_why(mem: ChronoMem) -> None:
    for fact in mem.recall("Project Falcon budget", limit=5):
        assert fact.ranks
        assert set(fact.ranks) <= {"bm25", "jaccard", "entity", "graph", "semantic"}
        assert all(r >= 1 for r in fact.ranks.values())
        assert fact.score > 0
        assert fact.tokens == estimate_tokens(fact.content)


def test_results_are_best_first(mem: ChronoMem) -> None:
    scores = [f.score for f in mem.recall("weekly sync roadmap budget", limit=20)]
    assert scores == sorted(scores, reverse=True)


@given(budget=st.integers(min_value=0, max_value=400), query=st.sampled_from(
    ["weekly sync", "Project Falcon", "budget roadmap hiring", "Alice", "production"]))  # fmt: skip
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_packing_never_exceeds_the_budget(mem: ChronoMem, budget: int, query: str) -> None:
    results = mem.recall(query, token_budget=budget)
    assert sum(f["tokens"] for f in results) <= budget
    scores = [f.score for f in results]
    assert scores == sorted(scores, reverse=True)


def test_packing_skips_a_fact_that_does_not_fit(memory_target: MemoryTarget) -> None:
    with memory_target.open(token_counter=len) as m:
        m.remember("Quinn kayak " + "long " * 40, trust=1.0)  # best match, 200+ "tokens"
        short = m.remember("Quinn kayak", trust=0.0)
        results = m.recall("Quinn kayak", token_budget=50)
        assert [f.id for f in results] == [short]
        assert m.recall("Quinn kayak", token_budget=10) == []


def test_packing_is_exact_with_a_custom_counter(memory_target: MemoryTarget) -> None:
    with memory_target.open(token_counter=lambda s: 10) as m:
        for i in range(5):
            m.remember(f"Rhea item {i}")
        assert len(m.recall("Rhea item", token_budget=30)) == 3
        assert len(m.recall("Rhea item", token_budget=29)) == 2
        assert len(m.recall("Rhea item", token_budget=30, limit=2)) == 2


def test_filter_is_applied_before_the_candidate_limit(memory_target: MemoryTarget) -> None:
    # More superseded matches than any channel's candidate bound: the one active fact must
    # still be found, because the filter lives inside each channel's SQL.
    with memory_target.open() as m:
        fid = m.remember("Sven's locker code is 0")
        for i in range(1, CHANNEL_DEPTH + 30):
            fid = m.supersede(fid, f"Sven's locker code is {i}")
        [hit] = m.recall("Sven locker code", limit=1)
        assert hit.id == fid
        assert len(m.recall("Sven locker code", active_only=False, limit=500)) >= CHANNEL_DEPTH


def test_channel_weights_are_configurable(memory_target: MemoryTarget) -> None:
    with memory_target.open(weights={"bm25": 0, "jaccard": 0, "graph": 0, "semantic": 0}) as m:
        m.remember("Tariq owns the Nimbus cluster")
        m.remember("Nimbus clouds bring rain")
        results = m.recall("Tariq rain")
        # The rain fact is a bm25 candidate, but bm25 weighs nothing here: only entity counts.
        assert [f.content for f in results] == ["Tariq owns the Nimbus cluster"]
    with memory_target.open() as m:
        assert len(m.recall("Tariq rain")) == 2


def test_estimate_tokens() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("a") == 1
    assert estimate_tokens("hello world") == 4
    assert estimate_tokens("ThinkPad T14 primary interface is Wi-Fi") >= 8


def _bulk(mem: ChronoMem, texts: list[str]) -> None:
    with mem.batch():  # one transaction, for setup speed
        for text in texts:
            mem.remember(text)


def _vm_steps(mem: ChronoMem, query: str) -> int:
    steps = 0

    def tick() -> int:
        nonlocal steps
        steps += 1
        return 0

    mem.recall(query, limit=10)  # the nearest-neighbour copy reads each new vector once
    sqlite_connection(mem).set_progress_handler(tick, 100)
    try:
        mem.recall(query, limit=10)
    finally:
        sqlite_connection(mem).set_progress_handler(None, 0)
    return steps


@pytest.mark.slow
def test_recall_work_grows_sublinearly(tmp_path: Path) -> None:
    # Every fact matches the query's words, so a scorer that touched every match would do 8x
    # the work at 8x the facts; the bounded channels must stay roughly flat. (Words rarer than
    # RARE_DF are scored in full, so their cost grows until that bound: by design, bounded.)
    texts = [f"Weekly sync status update {i} for Team{i % 2} about item{i}" for i in range(8000)]
    with ChronoMem(tmp_path / "small.db") as small, ChronoMem(tmp_path / "big.db") as big:
        _bulk(small, texts[:1000])
        _bulk(big, texts)
        query = "weekly sync status update Team1"
        ratio = _vm_steps(big, query) / _vm_steps(small, query)
    assert ratio < 1.5, ratio


def test_a_full_name_outranks_its_namesakes_after_a_supersede(memory_target: MemoryTarget) -> None:
    # Matrix 5a's shape: a person's fact is superseded, then the person is looked up by name
    # among namesakes ("Hugo Xu 00731" beside other Hugo Xus). The superseded fact still links
    # the person's entity, so it is a shade less specific than its namesakes'; the full name
    # must still reach the person's own facts, the current value among them, and no other's.
    people = ["Hugo Xu 00731", "Hugo Xu 00039", "Hugo Xu 00314"]
    sayings = ["lives in {}.", "works at {}.", "drinks {} every morning.", "has a pet {}.",
               "speaks {} with family.", "uses a {} phone."]  # fmt: skip
    values = ["Osaka", "Acme Robotics", "espresso", "ferret", "Greek", "Pixel 9"]
    with memory_target.open() as m:
        ids = {}
        for i in range(60):  # others, so that a person's six facts single them out
            m.remember(f"Person {i:03d} likes item {i}.", entities=[f"Person {i:03d}"])
        for who in people:
            for saying, value in zip(sayings, values, strict=True):
                ids[who, saying] = m.remember(f"{who} {saying.format(value)}", entities=[who])
        target = people[0]
        new = m.supersede(
            ids[target, sayings[2]], f"{target} drinks chai every morning.", entities=[target]
        )
        found = m.recall(target, limit=6)
        assert [f.content for f in found if not f.content.startswith(target)] == []
        assert new in {f.id for f in found}
