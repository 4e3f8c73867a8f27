"""contradictions() and the FactId.contradicts warning channel."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from chronomem import ChronoMem
from chronomem._contradictions import parse_claim


@pytest.fixture
def mem() -> Iterator[ChronoMem]:
    with ChronoMem(":memory:") as m:
        yield m


def test_two_active_values_are_a_contradiction(mem: ChronoMem) -> None:
    a = mem.remember("ThinkPad T14 primary interface is Wi-Fi", category="net")
    b = mem.remember("ThinkPad T14 primary interface switched to Ethernet", category="net")
    assert b.contradicts == (a,)
    [group] = mem.contradictions()
    assert group.entity == "ThinkPad T14"
    assert group.category == "net"
    assert set(group.fact_ids) == {a, b}
    assert "primary interface" in group.reason
    assert "wi fi" in group.reason  # values are compared in normal form
    assert group.to_dict()["fact_ids"] == list(group.fact_ids)


def test_supersede_resolves_it(mem: ChronoMem) -> None:
    a = mem.remember("ThinkPad T14 primary interface is Wi-Fi", category="net")
    b = mem.remember("ThinkPad T14 primary interface is Ethernet", category="net")
    mem.supersede(a, "ThinkPad T14 primary interface is Ethernet", category="net")
    assert mem.contradictions() == []
    mem.forget(b)
    assert mem.contradictions() == []


@pytest.mark.parametrize(
    ("first", "second", "kwargs"),
    [
        ("Alice's office is Berlin", "Bob's office is Paris", {}),
        ("Alice's office is Berlin", "Alice's editor is Vim", {}),
        ("Alice's office is Berlin", "Alice's office is Berlin", {}),
        ("Alice uses Vim", "Alice uses Emacs", {}),
        ("Alice is a manager", "Alice is an engineer", {}),
    ],
)
def test_no_false_alarms(mem: ChronoMem, first: str, second: str, kwargs: dict[str, str]) -> None:
    mem.remember(first)
    assert mem.remember(second).contradicts == ()
    assert mem.contradictions() == []


def test_a_categorised_predicate_with_two_values_is_a_contradiction(mem: ChronoMem) -> None:
    a = mem.remember("Mina Novak uses a Fairphone 5 phone.", category="phone")
    b = mem.remember("Mina Novak uses a Xperia 10 phone.", category="phone")
    assert b.contradicts == (a,)
    [group] = mem.contradictions()
    assert set(group.fact_ids) == {a, b}
    assert mem.remember("Mina Novak uses a Xperia 10 phone!", category="phone").contradicts == (a,)
    assert mem.remember("Mina Novak drinks oat latte.", category="phone").contradicts == ()
    assert mem.remember("Ola uses Vim.", category="editor").contradicts == ()


def test_categories_are_separate(mem: ChronoMem) -> None:
    mem.remember("Alice's office is Berlin", category="work")
    assert mem.remember("Alice's office is Paris", category="travel").contradicts == ()


def test_claims_are_subject_qualified() -> None:
    one = parse_claim("Worker0 counter C0-1 is 1", ["Worker0", "C0-1"])
    two = parse_claim("Worker0 counter C0-2 is 2", ["Worker0", "C0-2"])
    assert one is not None
    assert two is not None
    assert one[0] != two[0]
    assert parse_claim("no verb here", []) is None
