"""Deterministic entity extraction and normalisation."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chronomem._entities import entity_key, extract_entities


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


def test_caller_supplied_entities_win(tmp_path: object) -> None:
    from chronomem import ChronoMem

    with ChronoMem(":memory:") as mem:
        fid = mem.remember("Alice Smith fixed it", entities=["Project Falcon"])
        assert mem.get(fid).entities == ("Project Falcon",)
        assert [f.id for f in mem.timeline("project falcon")] == [fid]
        assert mem.timeline("Alice Smith") == []


def test_entities_sharing_a_fact_are_linked() -> None:
    from chronomem import ChronoMem

    with ChronoMem(":memory:") as mem:
        mem.remember("Alice Smith manages Project Falcon")
        mem.remember("Alice Smith manages Project Falcon again")
        conn = mem._db.conn  # white-box: the link weight counts co-occurring facts
        rows = conn.execute("SELECT weight FROM chronomem_entity_links").fetchall()
        assert sorted(r[0] for r in rows) == [2.0, 2.0]


@given(st.text(max_size=300))
def test_extraction_is_deterministic_and_total(text: str) -> None:
    first = extract_entities(text)
    assert first == extract_entities(text)
    assert len(first) <= 32
    assert all(entity_key(name) for name in first)
