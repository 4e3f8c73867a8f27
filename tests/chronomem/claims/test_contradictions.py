"""contradictions() and the FactId.contradicts warning channel."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from chronomem import ChronoMem
from chronomem.claims.contradictions import parse_claim, values_conflict
from chronomem.text.entities import extract_entities
from tests.chronomem.backends import MemoryTarget, count, rows
from tests.chronomem.contradiction_pairs import HELD_OUT, NAMED, PAIRS, Pair, evaluate, judge, kinds


@pytest.fixture
def mem(memory_target: MemoryTarget) -> Iterator[ChronoMem]:
    with memory_target.open() as m:
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


# -- issue 10, item 10: precision and recall on a labelled set, without and with categories --

PRECISION_FLOOR = 0.95
RECALL_FLOOR = 0.80


@pytest.mark.parametrize("pair", NAMED, ids=lambda p: f"{p.first} / {p.second}")
def test_the_issues_cases_without_a_category(mem: ChronoMem, pair: Pair) -> None:
    assert judge(pair, with_category=False, memory=mem) == pair.contradicts


@pytest.mark.parametrize("pair", NAMED, ids=lambda p: f"{p.first} / {p.second}")
def test_the_issues_cases_with_a_category(mem: ChronoMem, pair: Pair) -> None:
    assert judge(pair, with_category=True, memory=mem) == pair.contradicts


def test_the_labelled_set_is_large_and_balanced() -> None:
    assert len(PAIRS) >= 600
    positives = sum(p.contradicts for p in PAIRS)
    assert 0.25 <= positives / len(PAIRS) <= 0.5
    assert len(kinds(PAIRS)) >= 10


@pytest.mark.slow
@pytest.mark.parametrize("with_category", [False, True], ids=["no category", "category"])
def test_precision_and_recall_meet_the_floors(mem: ChronoMem, with_category: bool) -> None:
    score = evaluate(PAIRS, with_category=with_category, memory=mem)
    held_out = evaluate(HELD_OUT, with_category=with_category, memory=mem)
    label = "with categories" if with_category else "without categories"
    print(score.summary(f"all {len(PAIRS)} pairs, {label}"))
    print(held_out.summary(f"the {len(HELD_OUT)} held-out pairs, {label}"))
    for pair, said in score.wrong:
        print(f"  {'false alarm' if said else 'missed'}: {pair.first!r} / {pair.second!r}")
    assert score.precision >= PRECISION_FLOOR, score.summary(label)
    assert score.recall >= RECALL_FLOOR, score.summary(label)
    assert held_out.precision >= PRECISION_FLOOR, held_out.summary("held out")
    assert held_out.recall >= RECALL_FLOOR, held_out.summary("held out")


@pytest.mark.parametrize(
    ("first", "second", "conflict"),
    [
        ("berlin", "paris", True),
        ("berlin", "berlin germany", False),  # a refinement is not a conflict
        ("wi fi", "wifi", False),
        ("galaxy s 25", "galaxy s25", False),
        ("tabby cats", "tabby cat", False),
        ("berlin", "!berlin", True),
        ("!berlin", "paris", False),
        ("!berlin", "!paris", False),
        ("paris 2019", "!paris", True),  # "visited Paris in 2019" / "never visited Paris"
        ("paris", "!paris 2021", False),  # "visited Paris" / "did not visit Paris in 2021"
    ],
)
def test_values_conflict_for_one_valued_relations(first: str, second: str, conflict: bool) -> None:
    assert values_conflict("alice|live in", first, second) is conflict
    assert values_conflict("alice|live in", second, first) is conflict


@pytest.mark.parametrize(
    ("first", "second", "conflict"),
    [
        ("vim", "docker", False),
        ("vim", "vim", False),
        ("vim", "!vim", True),
        ("vim", "!emacs", False),
    ],
)
def test_values_conflict_for_relations_of_several_values(
    first: str, second: str, conflict: bool
) -> None:
    assert values_conflict("alice|use*", first, second) is conflict


# (a claim, the same claim in other words, a claim that conflicts with it): what the claim
# reader must get right is which sentences say the same thing and which disagree, so that is
# what is asserted, through remember(), rather than the reader's internal keys.
READ_ALIKE = [
    (
        "Ardian lives in Berlin.",
        "Ardian is living in Berlin.",
        "Ardian doesn't live in Berlin anymore.",
    ),
    (
        "Ardian moved from Porto to Lisbon.",
        "Ardian lives in Lisbon.",
        "Ardian lives in Berlin.",
    ),
    (
        "Alice uses Vim every day.",
        "Alice uses Vim.",
        "Alice doesn't use Vim.",
    ),
    (
        "Alice hates tea.",
        "Alice doesn't like tea.",
        "Alice likes tea.",
    ),
    (
        "Ardian uses a Pixel 9 phone.",
        "Ardian's phone is a Pixel 9.",
        "Ardian's phone is not a Pixel 9.",
    ),
    (
        "The Falcon meeting is at 10.",
        "The Falcon meeting starts at 10:00 AM.",
        "The Falcon meeting is at 2.30 p.m.",
    ),
    (
        "Alice's birthday is the 3rd of May.",
        "Alice was born on May 3rd.",
        "Alice was born on June 3rd.",
    ),
    (
        "Alice is 34 years old.",
        "Alice is 34.",
        "Alice is 35 years old.",
    ),
    (
        "Alice's favorite color is blue.",
        "Alice's favourite colour is blue.",
        "Alice's favorite color is green.",
    ),
]


@pytest.mark.parametrize(("claim", "same", "other"), READ_ALIKE, ids=[c for c, _, _ in READ_ALIKE])
def test_claims_read_alike_agree_and_others_conflict(claim: str, same: str, other: str) -> None:
    read = [parse_claim(text, extract_entities(text)) for text in (claim, same, other)]
    assert read[0] is not None
    assert read[0] == read[1]
    assert read[2] is not None
    assert read[2][0] == read[0][0]  # the same relation of the same subject, another value
    assert read[2] != read[0]
    with ChronoMem(":memory:") as mem:
        first = mem.remember(claim)
        alike = mem.remember(same)
        assert alike.contradicts == ()
        assert set(mem.remember(other).contradicts) == {first, alike}


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Alice uses Vim every day.", "Alice uses Docker for builds."),  # a tool among several
        ("Alice lived in Berlin.", "Alice lives in Paris."),  # the past is not the present
    ],
)
def test_claims_that_can_both_hold_do_not_conflict(first: str, second: str) -> None:
    with ChronoMem(":memory:") as mem:
        mem.remember(first)
        assert mem.remember(second).contradicts == ()


@pytest.mark.parametrize(
    "text",
    [
        "Does Ardian live in Paris?",
        "Ardian might move to Paris.",
        "Ardian plans to move to Paris.",
        "Priya thinks Ardian lives in Paris.",
        "If Ardian moves to Paris, he will need a visa.",
        "no verb here",
    ],
)
def test_no_claim_from_questions_hedges_and_reported_speech(text: str) -> None:
    assert parse_claim(text, extract_entities(text)) is None


def test_a_long_fact_is_read_quickly() -> None:
    text = "Alice Smith " + "and Bob like tea very much " * 2400  # about 64 KiB
    assert parse_claim(text, extract_entities(text)) == ("alice smith,bob|like*", "tea")


def test_reparse_moves_old_claims_to_the_current_reader(mem: ChronoMem) -> None:
    from chronomem.claims.contradictions import reparse_claims

    vim = mem.remember("Alice uses Vim", category="tools")
    docker = mem.remember("Alice uses Docker", category="tools")
    berlin = mem.remember("Ardian lives in Berlin")
    paris = mem.remember("Ardian lives in Paris")
    # White-box: write the claims as the previous reader stored them.
    old: dict[str, tuple[str | None, str | None]] = {vim: ("alice|use", "vim")}
    old |= {docker: ("alice|use", "docker")}
    old |= {berlin: (None, None), paris: (None, None)}
    with mem._db.write() as w:
        for fid, (attr, value) in old.items():
            w.execute(
                "UPDATE chronomem_facts SET attr = ?, value = ? WHERE id = ?", (attr, value, fid)
            )
    assert [set(c.fact_ids) for c in mem.contradictions()] == [{vim, docker}]  # the old alarm
    with mem._db.write() as w:
        assert reparse_claims(w) == 4
    with mem._db.write() as w:
        assert reparse_claims(w) == 0
    assert [set(c.fact_ids) for c in mem.contradictions()] == [{berlin, paris}]
    assert count(mem, "chronomem_facts") == 4
    assert rows(mem, "SELECT count(*) FROM chronomem_facts WHERE attr IS NULL") == [(0,)]
