"""Time travel: valid time (``as_of``), system time (``known_at``) and both together."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chronomem import ChronoMem, Episode, Fact, InvalidFactError
from tests.chronomem.backends import MemoryTarget

JAN = datetime(2024, 1, 1, tzinfo=timezone.utc)
MAR = datetime(2024, 3, 1, tzinfo=timezone.utc)
JUN = datetime(2024, 6, 1, tzinfo=timezone.utc)


@pytest.fixture
def mem(memory_target: MemoryTarget) -> Iterator[ChronoMem]:
    with memory_target.open() as m:
        yield m


@pytest.fixture
def shared(memory_target: MemoryTarget) -> Iterator[ChronoMem]:
    """One database for a property test, whose examples each take an owner of their own."""
    with memory_target.open() as m:
        yield m


def _now() -> datetime:
    # System times are microsecond-stamped; a short pause makes "between two writes" unambiguous.
    time.sleep(0.002)
    moment = datetime.now(timezone.utc)
    time.sleep(0.002)
    return moment


def ids(facts: Sequence[Fact | Episode]) -> list[str]:
    return [f.id for f in facts]


def test_as_of_answers_from_valid_time(mem: ChronoMem) -> None:
    berlin = mem.remember("Dana lives in Berlin", valid_from=JAN)
    paris = mem.supersede(berlin, "Dana lives in Paris", valid_from=MAR)
    assert ids(mem.recall("Where does Dana live?", as_of=JAN + timedelta(days=10))) == [berlin]
    assert ids(mem.recall("Where does Dana live?", as_of=JUN)) == [paris]
    assert ids(mem.recall("Where does Dana live?", as_of=MAR)) == [paris]
    assert mem.recall("Where does Dana live?", as_of=JAN - timedelta(days=1)) == []
    assert ids(mem.recall("Where does Dana live?")) == [paris]


def test_naive_datetimes_are_utc(mem: ChronoMem) -> None:
    fid = mem.remember("Dana lives in Rome", valid_from=datetime(2024, 1, 1))
    assert mem.get(fid)["valid_from"] == JAN.isoformat()
    assert ids(mem.recall("Dana", as_of=datetime(2024, 1, 2))) == [fid]


def test_known_at_ignores_later_supersede(mem: ChronoMem) -> None:
    wifi = mem.remember("ThinkPad T14 primary interface is Wi-Fi", category="net")
    s1 = _now()
    eth = mem.supersede(wifi, "ThinkPad T14 primary interface switched to Ethernet", category="net")
    s2 = _now()
    assert ids(mem.recall("ThinkPad interface", known_at=s1)) == [wifi]
    assert ids(mem.recall("ThinkPad interface", known_at=s2)) == [eth]
    assert ids(mem.recall("ThinkPad interface")) == [eth]


def test_known_at_hides_facts_recorded_later(mem: ChronoMem) -> None:
    s0 = _now()
    fid = mem.remember("Ivan joined the Orion team")
    assert mem.recall("Orion team", known_at=s0) == []
    assert ids(mem.recall("Orion team", known_at=_now())) == [fid]


def test_known_at_sees_a_fact_before_it_was_forgotten(mem: ChronoMem) -> None:
    fid = mem.remember("Judy owns the Apollo repo")
    s1 = _now()
    mem.forget(fid)
    assert ids(mem.recall("Apollo repo", known_at=s1)) == [fid]
    assert mem.recall("Apollo repo", known_at=_now()) == []
    assert mem.recall("Apollo repo") == []


def test_full_bitemporal_query(mem: ChronoMem) -> None:
    # Recorded late: on s1 we believed Berlin from January on; at s2 we learned she moved in March.
    berlin = mem.remember("Dana lives in Berlin", valid_from=JAN)
    s1 = _now()
    paris = mem.supersede(berlin, "Dana lives in Paris", valid_from=MAR)
    s2 = _now()
    q = "Where does Dana live?"
    assert ids(mem.recall(q, as_of=JUN, known_at=s1)) == [berlin]  # not yet known she moved
    assert ids(mem.recall(q, as_of=JUN, known_at=s2)) == [paris]
    assert ids(mem.recall(q, as_of=JAN + timedelta(days=1), known_at=s2)) == [berlin]
    assert ids(mem.recall(q, as_of=JAN + timedelta(days=1), known_at=s1)) == [berlin]


def test_active_only_false_includes_history_but_not_forgotten(mem: ChronoMem) -> None:
    old = mem.remember("Kim uses Slack", valid_from=JAN)
    new = mem.supersede(old, "Kim uses Teams", valid_from=MAR)
    gone = mem.remember("Kim uses IRC")
    mem.forget(gone)
    assert set(ids(mem.recall("Kim uses", active_only=False))) == {old, new}
    assert ids(mem.recall("Kim uses")) == [new]


def test_supersede_cannot_start_before_the_old_fact(mem: ChronoMem) -> None:
    old = mem.remember("Leo is in Oslo", valid_from=MAR)
    with pytest.raises(InvalidFactError) as info:
        mem.supersede(old, "Leo is in Bergen", valid_from=JAN)
    assert info.value.field == "valid_from"
    assert mem.stats()["facts"] == 1
    assert mem.get(old)["superseded_by"] is None


def test_timeline_is_oldest_first_with_lineage(mem: ChronoMem) -> None:
    a = mem.remember("Mia works at Initech", valid_from=JAN)
    b = mem.supersede(a, "Mia works at Globex", valid_from=MAR)
    c = mem.supersede(b, "Mia works at Umbrella", valid_from=JUN)
    history = mem.timeline("Mia")
    assert ids(history) == [a, b, c]
    assert [f.superseded_by for f in history] == [b, c, None]
    assert [f.valid_until for f in history] == [MAR, JUN, None]


def test_category_filter_is_inside_the_query(mem: ChronoMem) -> None:
    for i in range(30):
        mem.remember(f"Nora note {i} about the Zephyr build", category="noise")
    wanted = mem.remember("Nora owns the Zephyr build", category="owner")
    assert ids(mem.recall("Zephyr build", category="owner", limit=1)) == [wanted]


@given(
    gaps=st.lists(st.integers(min_value=0, max_value=400), min_size=1, max_size=6),
    probe=st.integers(min_value=-30, max_value=3000),
)
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_as_of_picks_the_interval_containing_the_moment(
    shared: ChronoMem, gaps: list[int], probe: int
) -> None:
    starts = [JAN + timedelta(days=sum(gaps[: i + 1])) for i in range(len(gaps))]
    mem = shared.for_owner(uuid.uuid4().hex)  # a fresh memory per example, on one database
    chain = [mem.remember("Omar's desk is in room 0", valid_from=starts[0])]
    for i, start in enumerate(starts[1:], start=1):
        chain.append(mem.supersede(chain[-1], f"Omar's desk is in room {i}", valid_from=start))
    moment = JAN + timedelta(days=probe)
    expected = [fid for fid, s in zip(chain, starts, strict=True) if s <= moment]
    got = ids(mem.recall("Omar desk room", as_of=moment, limit=10))
    # Equal starts give zero-length intervals: only the last fact starting then is valid.
    assert got == expected[-1:]


def test_the_default_view_is_valid_now_as_believed_now(mem: ChronoMem) -> None:
    # A supersede dated two weeks ahead has not happened yet: today the old home is current.
    now = datetime.now(timezone.utc)
    kemang = mem.remember("Ardian lives in Kemang", category="home", valid_from=JAN)
    menteng = mem.supersede(
        kemang, "Ardian lives in Menteng", category="home", valid_from=now + timedelta(days=15)
    )
    assert ids(mem.recall("where does Ardian live")) == [kemang]
    assert ids(mem.recall("where does Ardian live", as_of=now)) == [kemang]
    later = now + timedelta(days=20)
    assert ids(mem.recall("where does Ardian live", as_of=later)) == [menteng]
    # An imported fact whose validity ended in the past is history, not a current belief.
    mem.import_facts(
        [
            {
                "id": "ended", "content": "Ardian's badge number is 42", "category": "badge",
                "system_time": "2024-01-01T00:00:00+00:00",
                "valid_from": "2024-01-01T00:00:00+00:00",
                "valid_until": "2024-06-01T00:00:00+00:00",
            }
        ]
    )  # fmt: skip
    assert "ended" not in ids(mem.recall("Ardian badge number"))
    assert "ended" in ids(mem.recall("Ardian badge number", active_only=False))
