"""Deterministic entity extraction and normalisation."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chronomem import ChronoMem
from chronomem.text.entities import entity_key, extract_entities
from tests.chronomem.backends import MemoryTarget, count, rows


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ThinkPad T14 primary interface is Wi-Fi", ["ThinkPad T14", "Wi-Fi"]),
        ("The TN-2420 printer jams", ["TN-2420"]),
        ("Alice Smith manages Project Falcon.", ["Alice Smith", "Project Falcon"]),
        ("ask alice@example.com today", ["alice@example.com"]),
        ("docs at https://example.org/a/b.", ["https://example.org/a/b"]),
        ("ping @bob_dev about it", ["@bob_dev"]),
        ('we call it "the big migration" internally', ["the big migration"]),
        ("Alice's laptop is a MacBook Air M2", ["Alice", "MacBook Air M2"]),
        ("nothing to see here", []),
        ("The server is down", []),
    ],
)
def test_extraction(text: str, expected: list[str]) -> None:
    assert extract_entities(text) == expected


@pytest.mark.parametrize(
    "variants",
    [
        ["TN-2420", "tn2420", "TN2420", "ＴＮ－２４２０"],  # noqa: RUF001 -- full-width on purpose
        ["ThinkPad T14", "thinkpad t14", "THINKPAD  T14", "ThinkPad T-14"],
        ["Wi-Fi", "wifi", "WiFi", "wi.fi"],
        ["Alice@Example.com", "alice@example.com"],
    ],
)
def test_variants_share_one_key(variants: list[str]) -> None:
    assert len({entity_key(v) for v in variants}) == 1


def test_one_entity_per_key_first_spelling_wins() -> None:
    assert extract_entities("TN-2420 and TN2420 and tn-2420") == ["TN-2420"]


def test_caller_supplied_entities_win(memory_target: MemoryTarget) -> None:
    with memory_target.open() as mem:
        fid = mem.remember("Alice Smith fixed it", entities=["Project Falcon"])
        assert mem.get(fid)["entities"] == ["Project Falcon"]
        assert [f["id"] for f in mem.timeline("project falcon")] == [fid]
        assert mem.timeline("Alice Smith") == []


def test_entities_sharing_a_fact_are_linked(memory_target: MemoryTarget) -> None:
    with memory_target.open() as mem:
        mem.remember("Alice Smith manages Project Falcon")
        mem.remember("Alice Smith manages Project Falcon again")
        # White-box: the link weight counts co-occurring facts.
        weights = rows(mem, "SELECT weight FROM chronomem_entity_links")
        assert sorted(r[0] for r in weights) == [2.0, 2.0]


@given(st.text(max_size=300))
def test_extraction_is_deterministic_and_total(text: str) -> None:
    first = extract_entities(text)
    assert first == extract_entities(text)
    assert len(first) <= 32
    assert all(entity_key(name) for name in first)


THINKPAD = ["ThinkPad T14", "ThinkPad-T14", "thinkpad_t14", "ThinkPad/T14", "thinkpad.t14"]
THINKPAD += ["THINKPAD  T14", "ThinkPad T-14", "ＴｈｉｎｋＰａｄ　Ｔ１４"]  # noqa: RUF001 -- full-width on purpose


@pytest.mark.parametrize(
    "variants",
    [
        THINKPAD,
        ["TN-2420", "TN_2420", "TN/2420", "tn.2420", "tn2420"],
        ["Galaxy S25", "Galaxy-S25", "galaxy_s25", "GALAXY/S25"],
        ["X1 Carbon", "X1-Carbon", "x1_carbon"],
        ["Alice", "Alice's", "alice\u2019s", "ALICE"],
        ["O'Brien", "OBrien", "o\u2019brien"],
    ],
)
def test_punctuation_variants_share_one_key(variants: list[str]) -> None:
    assert len({entity_key(v) for v in variants}) == 1


@pytest.mark.parametrize(
    "different",
    [
        ["C", "C++", "C#", "F#"],
        ["TN 2420", "TN-2420"],  # whitespace is a word break: recall extends keys by words
        ["C0-1", "C0-2", "C01"],
        ["alice@example.com", "alice.example.com", "@alice"],
        ["@bob_dev", "@bob-dev", "bob_dev"],
        ["https://example.org/a_b", "https://example.org/ab"],
    ],
)
def test_distinct_names_keep_distinct_keys(different: list[str]) -> None:
    assert len({entity_key(v) for v in different}) == len(different)


def test_contact_forms_keep_their_spelling() -> None:
    assert entity_key("Alice.Smith+news@Example.COM") == "alice.smith+news@example.com"
    assert entity_key("@Bob_Dev") == "@bob_dev"
    assert entity_key("https://Example.org/a_b/") == "https://example.org/a_b"


@given(st.text(max_size=40))
def test_a_key_is_its_own_key(text: str) -> None:
    key = entity_key(text)
    assert entity_key(key) == key


def test_timeline_finds_every_punctuation_variant(memory_target: MemoryTarget) -> None:
    with memory_target.open() as mem:
        ids = [
            mem.remember("ThinkPad T14 primary interface is Wi-Fi"),
            mem.remember("The ThinkPad-T14 fan is loud"),
            mem.remember("Ordered a dock for thinkpad_t14", entities=["thinkpad_t14"]),
        ]
        for spelling in THINKPAD:
            assert [f["id"] for f in mem.timeline(spelling)] == ids, spelling


def _old_entity_key(name: str) -> str:
    """The key function of files written before punctuation next to a code split words."""
    import unicodedata

    text = unicodedata.normalize("NFKC", name).casefold().strip()
    words = ("".join(ch for ch in word if ch.isalnum()) for word in text.split())
    return " ".join(w for w in words if w)


def test_rekey_merges_entities_an_old_key_kept_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    # SQLite only: a step of the migration of files written before version 3 (a PostgreSQL
    # memory starts at that layout, with today's keys).
    from chronomem.write import facts as _write
    from chronomem.write.upgrade import rekey_entities

    with ChronoMem(":memory:") as mem:
        with monkeypatch.context() as m:  # write the way the old version did
            m.setattr(_write, "entity_key", _old_entity_key)
            a = mem.remember("ThinkPad T14 fan is loud", entities=["ThinkPad T14", "Alice"])
            b = mem.remember("ThinkPad-T14 battery is weak", entities=["ThinkPad-T14", "Alice"])
            c = mem.remember("thinkpad_t14 dock ordered", entities=["thinkpad_t14", "Bob"])
            d = mem.remember("Alice's desk is by the window", entities=["Alice's"])
        # White-box: the migration step works on the tables.
        assert count(mem, "chronomem_entities") == 5
        assert [f["id"] for f in mem.timeline("ThinkPad T14")] == [a]
        with mem._db.write() as w:
            assert rekey_entities(w) == 2  # both ThinkPad-T14 spellings and Alice's merge
        with mem._db.write() as w:
            assert rekey_entities(w) == 0  # idempotent
        for spelling in THINKPAD:
            assert [f["id"] for f in mem.timeline(spelling)] == [a, b, c]
        assert [f["id"] for f in mem.timeline("Alice")] == [a, b, d]
        assert [f["id"] for f in mem.timeline("Alice's")] == [a, b, d]
        names = {r[0]: r[1] for r in rows(mem, "SELECT key, name FROM chronomem_entities")}
        assert names == {"thinkpad t14": "ThinkPad T14", "alice": "Alice", "bob": "Bob"}
        links = {
            (src, dst): weight
            for src, dst, weight in rows(
                mem,
                """SELECT s.key, d.key, l.weight FROM chronomem_entity_links l
                   JOIN chronomem_entities s ON s.id = l.src
                   JOIN chronomem_entities d ON d.id = l.dst""",
            )
        }
        assert links == {
            ("thinkpad t14", "alice"): 2.0,
            ("alice", "thinkpad t14"): 2.0,
            ("thinkpad t14", "bob"): 1.0,
            ("bob", "thinkpad t14"): 1.0,
        }
