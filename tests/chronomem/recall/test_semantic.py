"""The semantic channel: the model, its vectors written with their items, and recall that finds
what shares no word with the question, on both engines, and unchanged when the channel is off."""

from __future__ import annotations

import sqlite3
import unicodedata
from datetime import datetime, timezone
from typing import Any

import psycopg
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chronomem import ChronoMem
from chronomem.recall.semantic import model as semantic_model
from chronomem.recall.semantic import wordpiece as wp
from chronomem.recall.semantic.model import DIM, load_model
from chronomem.recall.semantic.wordpiece import WordPiece
from tests.chronomem.backends import MemoryTarget

MAY = datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)
SMARTWATCH = "I just purchased a new smartwatch"


# Token ids BERT's reference tokenizer (``tokenizers``, bert-base-uncased's vocabulary, as
# all-MiniLM-L6-v2 ships it) gives for these texts; ours must give the same.
REFERENCE_IDS = [
    ("My daughter is allergic to peanuts!", [2026, 2684, 2003, 27395, 2000, 27613, 999]),
    ("Café naïve résumé", [7668, 15743, 13746]),
    ("日本語", [1864, 1876, 1950]),
    ("emoji 😀 ok", [7861, 29147, 2072, 100, 7929]),
    ("tab\there\x00null", [21628, 2182, 11231, 3363]),
    ("don't stop—now…", [2123, 1005, 1056, 2644, 1517, 2085, 1529]),
    ("\uff26\uff35\uff2c\uff2c width", [100, 9381]),  # FULL in full-width letters
    ("smartwatch", [6047, 18866]),
    ("x" * 101, [100]),
]


@pytest.fixture(scope="module")
def wordpiece() -> WordPiece:
    vocab = (semantic_model.MODEL_DIR / "vocab.txt").read_text(encoding="utf-8").splitlines()
    return WordPiece(vocab)


@pytest.mark.parametrize(("text", "ids"), REFERENCE_IDS)
def test_wordpiece_gives_the_reference_ids(wordpiece: WordPiece, text: str, ids: list[int]) -> None:
    assert wordpiece.ids(text) == ids


def test_wordpiece_bounds_a_huge_input(wordpiece: WordPiece) -> None:
    assert len(wordpiece.ids("word " * 100_000)) == 256
    assert wordpiece.ids("") == []
    assert wordpiece.ids(" \t\n ") == []


def test_vectors_are_unit_and_quantised_closely() -> None:
    model = load_model()
    assert model is not None, "the channel is installed with chronomem"
    a = model.unit("My daughter is allergic to peanuts")
    b = model.unit("Our kid cannot eat nuts")
    c = model.unit("The quarterly budget was approved")
    assert a is not None
    assert b is not None
    assert c is not None
    assert a.shape == (DIM,)
    assert abs(float(a @ a) - 1.0) < 1e-5
    assert float(a @ b) > float(a @ c), "meaning, not words: nuts is nearer peanuts than budget"
    stored = model.quantise(b)
    assert len(stored) == DIM
    assert abs(float(model.similarities(a, [stored])[0]) - float(a @ b)) < 0.01
    assert model.unit("") is None
    assert model.unit("!!! ???") is not None  # punctuation are tokens too
    assert model.encode("\x00\x01") is None


def test_meaning_finds_what_shares_no_word(memory_target: MemoryTarget) -> None:
    with memory_target.open() as mem:
        mem.remember("Bob had a lil car accident on Monday")
        mem.remember("We went hiking in the alps last summer")
        mem.remember_episode(SMARTWATCH, speaker="Ann", session="s1", at=MAY)
        hit = mem.recall("which gadget did Ann buy")[0]
        assert hit.content == "I just purchased a new smartwatch"
        assert set(hit.ranks) == {"semantic"}  # no word in common: meaning brought it
        top = mem.recall("anything about vehicles?")[0]
        assert top.content == "Bob had a lil car accident on Monday"
        assert mem.recall("quantum chromodynamics", relevant_only=True) == [], (
            "silent when nothing relates"
        )


def test_meaning_decides_between_an_entitys_facts(memory_target: MemoryTarget) -> None:
    # The matrix's paraphrase tier in miniature: the question's words are in none of Noor's
    # facts and her name is in all of them, so the words rank her facts by length alone and
    # meaning decides. (The model misses some; the matrix measures the tier on fresh data.)
    with memory_target.open() as mem:
        for text in (
            "Noor Dubois lives in Porto.",
            "Noor Dubois works at Northwind Bank.",
            "Noor Dubois has a pet tortoise.",
            "Noor Dubois speaks Finnish with family.",
            "Noor Dubois drinks chai every morning.",
        ):
            mem.remember(text)
        for question, answer in (
            ("Which beverage should I bring Noor Dubois for breakfast?", "drinks chai"),
            ("In what tongue does Noor Dubois talk to relatives?", "speaks Finnish"),
            ("Which animal shares a home with Noor Dubois?", "pet tortoise"),
        ):
            top = mem.recall(question)[0]
            assert answer in top.content, question
            assert top.ranks["semantic"] == 1


def test_weight_zero_turns_the_channel_off(memory_target: MemoryTarget) -> None:
    with memory_target.open(weights={"semantic": 0}) as mem:
        mem.remember_episode(SMARTWATCH, speaker="Ann", session="s1", at=MAY)
        assert mem.recall("which gadget did Ann buy") == []
        assert all("semantic" not in r.ranks for r in mem.recall("smartwatch"))


def _vectors(target: MemoryTarget, sql: str = "SELECT count(*) FROM chronomem_vectors") -> Any:
    if target.schema is None:
        with sqlite3.connect(target.path) as conn:
            return conn.execute(sql).fetchone()[0]
    with psycopg.connect(target.path, autocommit=True) as conn:
        conn.execute(f'SET search_path TO "{target.schema}"')
        row = conn.execute(sql).fetchone()
        assert row is not None
        return row[0]


def _remember_then_fail(mem: ChronoMem) -> None:
    with mem.batch():
        mem.remember("This write is rolled back")
        raise RuntimeError("abandon the batch")


def test_a_vector_is_written_with_its_item_or_not_at_all(memory_target: MemoryTarget) -> None:
    with memory_target.open() as mem:
        mem.remember("Ardian lives in Kemang")
        mem.remember_episode("See you at noon", speaker="Ann", session="s1", at=MAY)
        with pytest.raises(RuntimeError, match="abandon"):
            _remember_then_fail(mem)
    assert _vectors(memory_target) == 2
    sql = """SELECT count(*) FROM chronomem_facts f
             WHERE NOT EXISTS (SELECT 1 FROM chronomem_vectors v WHERE v.item = f.rowid)"""
    assert _vectors(memory_target, sql) == 0


def test_the_migration_step_gives_older_items_their_vectors(memory_target: MemoryTarget) -> None:
    # Items written before the channel have no vector; the step that added the table runs
    # ``backfill`` in the migrating transaction. Here: the same call, on items stripped of
    # their vectors, in the memory's own write transaction (later steps may not re-run).
    from chronomem.recall.semantic.vectors import BACKFILL_BATCH, backfill

    with memory_target.open() as mem:
        mem.remember_episode(SMARTWATCH, speaker="Ann", session="s1", at=MAY)
        with mem.batch():
            for i in range(BACKFILL_BATCH + 5):  # more than one batch
                mem.remember(f"Filler fact number {i}")
        mem.remember("Bob had a lil car accident on Monday")
        with mem._db.write() as conn:
            conn.execute("DELETE FROM chronomem_vectors")
        assert mem.recall("which gadget did Ann buy") == []
        with mem._db.write() as conn:
            assert backfill(conn) == BACKFILL_BATCH + 7
            assert backfill(conn) == 0, "a second run finds nothing to do"
        assert mem.recall("which gadget did Ann buy")[0].content == SMARTWATCH
    assert _vectors(memory_target) == BACKFILL_BATCH + 7


def test_without_the_channel_memory_works_as_before(
    memory_target: MemoryTarget, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As on an install without numpy or the model files: nothing embedded, no semantic rank,
    # every other channel unchanged.
    monkeypatch.setattr(semantic_model, "_model", None)
    monkeypatch.setattr(semantic_model, "model_available", lambda: False)
    with memory_target.open() as mem:
        mem.remember("My daughter is allergic to peanuts")
        mem.remember_episode(SMARTWATCH, speaker="Ann", session="s1", at=MAY)
        [hit] = mem.recall("what allergies does the family have?")
        assert hit.content == "My daughter is allergic to peanuts"
        assert set(hit.ranks) == {"bm25"}
        assert mem.recall("which gadget did Ann buy") == []
    assert _vectors(memory_target) == 0


def test_model_files_missing_means_channel_off(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    monkeypatch.setattr(semantic_model, "MODEL_DIR", tmp_path)
    semantic_model.model_available.cache_clear()
    try:
        assert semantic_model.model_available() is False
    finally:
        monkeypatch.undo()
        semantic_model.model_available.cache_clear()
    assert semantic_model.model_available() is True


def test_the_model_ships_in_the_package() -> None:
    sizes = {p.name: p.stat().st_size for p in semantic_model.MODEL_DIR.iterdir()}
    assert set(sizes) >= {"vocab.txt", "tokens.npy", "scales.npy"}
    assert sum(sizes.values()) < 10_000_000, "the default install stays small"


def _reference_ids(wordpiece: WordPiece, text: str, limit: int = 256) -> list[int]:
    """BERT's algorithm step by step, character by character, with no cache and no fast path
    (what ``WordPiece.ids`` must equal)."""
    cleaned = []
    for ch in text:
        category = unicodedata.category(ch)
        if ord(ch) in (0, 0xFFFD):
            continue
        if ch in "\t\n\r" or category == "Zs":
            cleaned.append(" ")
        elif category.startswith("C"):
            continue
        elif wp._is_cjk(ord(ch)):
            cleaned.append(f" {ch} ")
        else:
            cleaned.append(ch)
    out: list[int] = []
    for raw in "".join(cleaned).lower().split():
        for word in wp._split_punctuation(wp._strip_accents(raw)):
            out.extend(wordpiece._pieces(word))
    return out[:limit]


@settings(max_examples=300, deadline=None)
@given(
    text=st.text(
        alphabet=st.one_of(
            st.characters(max_codepoint=127),  # ASCII, control characters included
            st.sampled_from("éÉüßİ—…\u2019\u201c\u201d\u00a0\u3000\u200b\ufffd日本語한국어"),
        ),
        max_size=80,
    )
)
def test_wordpiece_equals_the_step_by_step_algorithm(wordpiece: WordPiece, text: str) -> None:
    assert wordpiece.ids(text) == _reference_ids(wordpiece, text)
    assert wordpiece.ids(text) == _reference_ids(wordpiece, text)  # again, from its cache
