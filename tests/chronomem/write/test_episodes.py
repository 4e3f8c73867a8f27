"""Episodes: what was said, in order, recallable beside facts."""

from __future__ import annotations

import multiprocessing
from datetime import datetime, timedelta, timezone

import pytest

from chronica import ActorKind, Actum, ActumKind, Chronicarius, ChronicumNotFoundError
from chronomem import (
    ChronoMem,
    Episode,
    Fact,
    FactNotActiveError,
    InvalidArgumentError,
    InvalidFactError,
)
from tests.chronomem.backends import MemoryTarget

MAY = datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)


def _chat(mem: ChronoMem) -> tuple[str, str]:
    e1 = mem.remember_episode(
        "I went to a LGBTQ support group yesterday.", speaker="Caroline", session="s1", at=MAY
    )
    e2 = mem.remember_episode(
        "That's great! How did it go?", speaker="Melanie", session="s1", at=MAY
    )
    return e1, e2


def test_the_spec_example_ranks_the_episode_first(memory_target: MemoryTarget) -> None:
    with memory_target.open() as mem:
        e1, _ = _chat(mem)
        top = mem.recall("When did Caroline go to the support group?", limit=10)[0]
        assert isinstance(top, Episode)
        assert (top["kind"], top["id"], top["speaker"], top["session"]) == (
            "episode", e1, "Caroline", "s1",
        )  # fmt: skip
        assert top.at == MAY
        assert top.score > 0
        assert top.tokens > 0
        assert top.ranks["bm25"] == top.ranks["semantic"] == 1
        assert set(top.ranks) <= {"bm25", "semantic", "neighbour"}  # its turns lend it too


def test_order_within_a_session_is_call_order_not_at(memory_target: MemoryTarget) -> None:
    with memory_target.open() as mem:
        late = mem.remember_episode("first said", speaker="a", session="s", at=MAY)
        early = mem.remember_episode("second said", speaker="b", session="s", at=MAY - timedelta(9))
        other = mem.remember_episode("elsewhere", speaker="a", session="t", at=MAY)
        seqs = {i: mem.get(i)["seq"] for i in (late, early, other)}
        assert seqs == {late: 1, early: 2, other: 1}


def test_a_reply_is_found_through_the_question_before_it(memory_target: MemoryTarget) -> None:
    with memory_target.open() as mem:
        mem.remember_episode("Did your team win anything this season?", speaker="Tim", session="s")
        reply = mem.remember_episode("Yes! We took home a trophy.", speaker="John", session="s")
        mem.remember_episode("Unrelated chatter about cooking.", speaker="Tim", session="s")
        hits = mem.recall("What did John's team win this season?", kinds=("episode",))
        assert reply in [h.id for h in hits]
        assert hits[0].id == reply  # the speaker John is named: his turn first


def test_kinds_restrict_and_mix(memory_target: MemoryTarget) -> None:
    with memory_target.open() as mem:
        e1, _ = _chat(mem)
        f = mem.remember("Caroline attends a LGBTQ support group weekly", category="habit")
        q = "Caroline support group"
        assert {h.kind for h in mem.recall(q)} == {"fact", "episode"}
        assert [h.id for h in mem.recall(q, kinds=("fact",))] == [f]
        assert e1 in [h.id for h in mem.recall(q, kinds=["episode"])]
        assert all(isinstance(h, Fact) for h in mem.recall(q, kinds=("fact",)))


@pytest.mark.parametrize("kinds", ["episode", (), ("episodes",), ("fact", 3), 5])
def test_bad_kinds_are_refused(memory_target: MemoryTarget, kinds: object) -> None:
    with memory_target.open() as mem, pytest.raises(InvalidArgumentError, match="kinds"):
        mem.recall("x", kinds=kinds)  # type: ignore[arg-type]  # the bad value under test


@pytest.mark.parametrize(
    ("field", "kwargs"),
    [
        ("content", {"content": ""}),
        ("content", {"content": "x\x00y"}),
        ("speaker", {"speaker": "   "}),
        ("speaker", {"speaker": 7}),
        ("session", {"session": None}),
        ("session", {"session": "s" * 2000}),
        ("at", {"at": "2023-05-08"}),
        ("metadata", {"metadata": {"k": "\ud800"}}),
    ],
)
def test_bad_episodes_name_the_field_and_write_nothing(
    memory_target: MemoryTarget, field: str, kwargs: dict[str, object]
) -> None:
    args: dict[str, object] = {"content": "hello", "speaker": "a", "session": "s", **kwargs}
    with memory_target.open() as mem:
        with pytest.raises(InvalidFactError) as err:
            mem.remember_episode(**args)  # type: ignore[arg-type]  # the bad value under test
        assert err.value.field == field
        assert mem.stats()["episodes"] == 0


def test_episodes_are_never_superseded_and_never_contradict(memory_target: MemoryTarget) -> None:
    with memory_target.open() as mem:
        a = mem.remember_episode("My phone is a Pixel 9", speaker="Ardian", session="s")
        mem.remember_episode("My phone is an iPhone 16", speaker="Ardian", session="s")
        with pytest.raises(InvalidArgumentError, match="never superseded"):
            mem.supersede(a, "My phone is a Pixel 10")
        assert mem.contradictions() == []


def test_forget_hides_an_episode_but_keeps_it(memory_target: MemoryTarget) -> None:
    with memory_target.open() as mem:
        e1, _ = _chat(mem)
        before = datetime.now(timezone.utc)
        mem.forget(e1, reason="asked to")
        assert e1 not in [h.id for h in mem.recall("support group")]
        assert e1 in [h.id for h in mem.recall("support group", known_at=before)]
        kept = mem.get(e1)
        assert kept["forgotten"]
        assert kept["forget_reason"] == "asked to"
        with pytest.raises(FactNotActiveError):
            mem.forget(e1)


def test_as_of_keeps_what_was_said_by_then(memory_target: MemoryTarget) -> None:
    with memory_target.open() as mem:
        old = mem.remember_episode("we adopted a puppy", speaker="a", session="s", at=MAY)
        new = mem.remember_episode(
            "the puppy learned to sit", speaker="a", session="s", at=MAY + timedelta(days=30)
        )
        assert [h.id for h in mem.recall("puppy", as_of=MAY + timedelta(days=1))] == [old]
        assert {h.id for h in mem.recall("puppy")} == {old, new}


def test_the_token_budget_counts_both_kinds(memory_target: MemoryTarget) -> None:
    with memory_target.open() as mem:
        for i in range(6):
            mem.remember_episode(f"the garden has {i} tomato plants", speaker="a", session="s")
            mem.remember(f"Garden bed {i} holds tomato plants")
        hits = mem.recall("tomato plants garden", token_budget=40)
        assert sum(h.tokens for h in hits) <= 40
        assert {h.kind for h in mem.recall("tomato plants garden", token_budget=400)} == {
            "fact",
            "episode",
        }


def test_export_and_import_carry_episodes(memory_target: MemoryTarget) -> None:
    with memory_target.open() as mem:
        e1, e2 = _chat(mem)
        mem.forget(e2)
        records = list(mem.export_facts())
    assert [r["kind"] for r in records] == ["episode", "episode"]
    with memory_target.sibling("copy").open() as copy:
        assert copy.import_facts(records) == 2
        assert copy.import_facts(records) == 0
        assert list(copy.export_facts()) == records
        assert copy.recall("support group", kinds=("episode",))[0].id == e1


def test_another_owner_sees_no_episode(memory_target: MemoryTarget) -> None:
    with memory_target.open(owner="alice") as alice:
        _chat(alice)
    with memory_target.open(owner="bob") as bob:
        assert bob.recall("Caroline support group") == []
        assert bob.stats()["episodes"] == 0


def _say(c: Chronicarius, text: str, actor: str = "ardian") -> None:
    kind = ActorKind.HUMAN if actor == "ardian" else ActorKind.AGENT
    c.record_actum(
        "ardian",
        Actum(chronicum_id="dinner", kind=ActumKind.MESSAGE, actor_kind=kind, actor=actor,
              content=text),
    )  # fmt: skip


def test_a_chronica_session_becomes_recallable_incrementally(memory_target: MemoryTarget) -> None:
    with memory_target.session_store() as store:
        _index_incrementally(memory_target, Chronicarius(store))


def _index_incrementally(memory_target: MemoryTarget, c: Chronicarius) -> None:
    _say(c, "Find us a quiet table for four in Kemang on Friday.")
    c.record_actum(
        "ardian",
        Actum(chronicum_id="dinner", kind=ActumKind.THOUGHT, actor_kind=ActorKind.AGENT,
              actor="booking", content="search Kemang restaurants"),
    )  # fmt: skip
    _say(c, "Booked Kinara at 7pm.", actor="booking")
    with memory_target.open(owner="ardian") as mem:
        assert mem.index_session(c, "dinner") == 2  # messages only
        assert mem.index_session(c, "dinner") == 0
        _say(c, "Thanks! Please add a birthday cake.")
        assert mem.index_session(c, "dinner") == 1
        [hit] = mem.recall("Which restaurant was booked?", kinds=("episode",), limit=1)
        assert isinstance(hit, Episode)
        acta = c.get_acta("ardian", "dinner")
        assert (hit.speaker, hit.session, hit.source) == ("booking", "dinner", acta[2].id)
        assert hit.at == acta[2].at
        with pytest.raises(ChronicumNotFoundError):
            mem.index_session(c, "dinner", owner="mallory")


def _index(args: list[str]) -> int:
    target = MemoryTarget.from_args(args)
    with target.session_store() as store, target.open(owner="ardian") as mem:
        c = Chronicarius(store)
        return sum(mem.index_session(c, "dinner") for _ in range(3))


def test_racing_indexers_store_each_actum_once(memory_target: MemoryTarget) -> None:
    with memory_target.session_store() as store:
        c = Chronicarius(store)
        for i in range(60):
            _say(c, f"message number {i} about the dinner plans")
    memory_target.open(owner="ardian").close()
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(4) as pool:
        added = pool.map(_index, [memory_target.args()] * 4)
    assert sum(added) == 60
    with memory_target.open(owner="ardian") as mem:
        assert mem.stats()["episodes"] == 60
        sources = [r["source"] for r in mem.export_facts()]
        assert len(set(sources)) == 60
