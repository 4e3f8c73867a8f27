"""No duplicates: ``remember`` of a text an active fact already says stores nothing, a supersede
to the same text is refused, and recall spends its budget on distinct text only. Every test
runs on both engines."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from chronomem import ChronoMem, Fact, FactId, InvalidArgumentError, InvalidFactError
from chronomem.text.sameness import normalised
from tests.chronomem.backends import Databases, MemoryTarget, count, rows
from tests.chronomem.mcp_client import call, connect, run

SAME = [
    "Ardian lives in Kemang",
    "ardian lives in kemang",
    "  Ardian   LIVES in Kemang. ",
    "«Ardian lives in Kemang!»",
    "\uff21\uff52\uff44\uff49\uff41\uff4e lives in Kemang",  # full-width: NFKC folds it
    "Ardian lives\tin\nKemang...",
]


def test_the_normal_form_folds_case_width_spacing_and_surrounding_punctuation() -> None:
    assert {normalised(s) for s in SAME} == {"ardian lives in kemang"}
    # Punctuation inside the text is meaning, and stays.
    assert normalised("Version 3.5") != normalised("Version 35")
    assert normalised("Ardian lives in Kemang, Jakarta") != normalised(SAME[0])


def test_remember_the_same_text_returns_the_known_fact(memory_target: MemoryTarget) -> None:
    with memory_target.open(owner="ardian") as mem:
        first = mem.remember(SAME[0], category="home")
        assert isinstance(first, FactId)
        assert first.duplicate_of is None
        for variant in SAME[1:]:
            again = mem.remember(variant, category="home", trust=0.3)
            assert again == first
            assert again.duplicate_of == first
            assert again.contradicts == ()
        assert count(mem, "chronomem_facts") == 1
        known = mem.get(first)
        assert isinstance(known, Fact)
        assert known.trust_score == 0.8  # the known fact is left as it was


def test_only_an_active_fact_of_the_same_owner_and_category_is_a_duplicate(
    memory_target: MemoryTarget,
) -> None:
    with memory_target.open(owner="ardian") as mem:
        home = mem.remember("Ardian lives in Kemang", category="home")
        assert mem.remember("Ardian lives in Kemang", category="work").duplicate_of is None
        assert mem.remember("Ardian lives in Kemang").duplicate_of is None  # no category
        assert mem.remember("ardian lives in kemang").duplicate_of is not None  # None == None
        assert mem.for_owner("beatriz").remember("Ardian lives in Kemang", category="home") != home
        mem.forget(home)
        again = mem.remember("Ardian lives in Kemang", category="home")
        assert again != home
        assert again.duplicate_of is None
        moved = mem.supersede(again, "Ardian lives in Menteng", category="home")
        back = mem.remember("Ardian lives in Kemang", category="home")
        assert back not in (home, again, moved)
        assert back.duplicate_of is None
        assert count(mem, "chronomem_facts") == 7


def test_dedup_false_keeps_every_write(memory_target: MemoryTarget) -> None:
    with memory_target.open() as mem:
        ids = {mem.remember("Ardian lives in Kemang", dedup=False) for _ in range(3)}
        assert len(ids) == 3
        assert all(mem.get(i).content == "Ardian lives in Kemang" for i in ids)


def test_a_bad_dedup_flag_is_refused_and_writes_nothing(memory_target: MemoryTarget) -> None:
    with memory_target.open() as mem:
        with pytest.raises(InvalidArgumentError, match="dedup"):
            mem.remember("Ardian lives in Kemang", dedup="no")  # type: ignore[arg-type]  # the wrong type is the test
        assert count(mem, "chronomem_facts") == 0


def test_a_batch_sees_its_own_first_write(memory_target: MemoryTarget) -> None:
    with memory_target.open() as mem:
        with mem.batch():
            first = mem.remember("Ardian lives in Kemang")
            assert mem.remember("ARDIAN LIVES IN KEMANG.").duplicate_of == first
        assert count(mem, "chronomem_facts") == 1


def test_superseding_with_the_same_text_is_refused_and_changes_nothing(
    memory_target: MemoryTarget,
) -> None:
    with memory_target.open() as mem:
        old = mem.remember("Ardian lives in Kemang", category="home")
        with pytest.raises(InvalidFactError, match="already says"):
            mem.supersede(old, "ardian lives in Kemang.", category="home", trust=0.9)
        fact = mem.get(old)
        assert isinstance(fact, Fact)
        assert fact.invalidated_at is None
        assert fact.superseded_by is None
        assert count(mem, "chronomem_facts") == 1


def test_the_key_is_indexed_and_kept_for_active_facts(memory_target: MemoryTarget) -> None:
    with memory_target.open() as mem:
        fid = mem.remember("Ardian lives in Kemang")
        [(key,)] = rows(mem, "SELECT content_key FROM chronomem_facts WHERE id = ?", (fid,))
        assert isinstance(key, str)
        assert len(key) == 32
        index = (
            "SELECT count(*) FROM sqlite_master WHERE name = 'chronomem_facts_same_content'"
            if memory_target.schema is None
            else "SELECT count(*) FROM pg_indexes WHERE indexname = 'chronomem_facts_same_content'"
        )
        assert rows(mem, index) == [(1,)]


def test_recall_hands_back_each_text_once_keeping_the_best_ranked(
    memory_target: MemoryTarget,
) -> None:
    with memory_target.open() as mem:
        copies = [mem.remember("Ardian prefers the window table", dedup=False) for _ in range(3)]
        said = mem.remember_episode(
            "ardian prefers the window table!", speaker="Ardian", session="lunch"
        )
        other = mem.remember("Ardian prefers green tea")
        everything = mem.recall("Ardian prefers window table", limit=10)
        texts = [normalised(r.content) for r in everything]
        assert len(texts) == len(set(texts))
        assert {r.id for r in everything} & {*copies, said} != set()
        assert other in {r.id for r in everything}
        # The one kept is the first the fused ranking placed: the same as with a limit of 1.
        [best] = mem.recall("Ardian prefers window table", limit=1)
        assert best.id == everything[0].id
        # The budget goes to distinct text: two results, not the same text twice.
        assert len(mem.recall("Ardian prefers window table", limit=2)) == 2


def _variant(text: str, rng: random.Random) -> str:
    """The same text as an agent might write it again: case, spacing and punctuation."""
    cased = "".join(c.upper() if rng.random() < 0.3 else c for c in text)
    spaced = cased.replace(" ", rng.choice([" ", "  ", " \t"]))
    return rng.choice(["", " ", '"', "- "]) + spaced + rng.choice(["", ".", "!", "...", " ;"])


def test_fifty_facts_written_ten_times_each_leave_fifty(memory_target: MemoryTarget) -> None:
    """The issue's measurement: an agent writing 50 facts 10 times each, with varied case and
    punctuation, leaves 50 facts; recall at a 200-token budget returns distinct text only."""
    rng = random.Random(18)
    names = [f"{a}{b}" for a in ("alpha", "beta", "gamma", "delta", "omega")
             for b in ("red", "blue", "green", "amber", "violet", "cyan", "lime", "rose",
                       "teal", "gold")]  # fmt: skip
    facts = [f"Project {name} uses port {8000 + i} for its API" for i, name in enumerate(names)]
    assert len(facts) == 50
    with memory_target.open(owner="agent") as mem:
        for _ in range(10):
            for text in facts:
                mem.remember(_variant(text, rng), category="ports")
        assert mem.stats()["facts"] == 50
        for query in ("which port does the API use", "Project alphared port", "API port"):
            found = mem.recall(query, token_budget=200)
            texts = [normalised(r.content) for r in found]
            assert found
            assert len(texts) == len(set(texts))
            assert sum(r.tokens for r in found) <= 200


def test_mcp_remember_says_already_known(databases: Databases, tmp_path: Path) -> None:
    db = databases.new("m")

    async def go() -> None:
        async with connect(db, errlog=tmp_path / "server.log") as s:
            first = await call(s, "chronomem_remember", content="Ardian lives in Kemang")
            assert "note" not in first
            again = await call(s, "chronomem_remember", content="ardian lives in kemang.")
            assert again["id"] == first["id"]
            assert again["note"].startswith("already known")
            assert first["id"] in again["note"]

    run(go)
    with ChronoMem(db) as mem:
        assert count(mem, "chronomem_facts") == 1  # whichever owner the server ran as
