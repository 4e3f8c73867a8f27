"""Every stored time reads back (issue 10, item 1).

A time is refused at write time when it is outside years 1..9999 once converted to UTC, and a row
already on disk with an out-of-range integer is read clamped instead of failing every read.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chronomem import ChronoMem, InvalidArgumentError, InvalidFactError
from chronomem._checks import check_time
from chronomem._model import MAX_US, MIN_US, from_us
from tests.chronomem.backends import MemoryTarget, count


def tz(**offset: int) -> timezone:
    return timezone(timedelta(**offset))


UTC_MIN = datetime.min.replace(tzinfo=timezone.utc)
UTC_MAX = datetime.max.replace(tzinfo=timezone.utc)

OUT_OF_RANGE = [
    datetime(9999, 12, 31, 23, tzinfo=tz(hours=-14)),  # the example: year 10000 in UTC
    datetime(9999, 12, 31, 10, tzinfo=tz(hours=-14)),
    datetime.max.replace(tzinfo=tz(microseconds=-1)),  # one microsecond past the end
    datetime.max.replace(tzinfo=tz(hours=-5, minutes=-45)),
    datetime(1, 1, 1, tzinfo=tz(hours=1)),  # year 0 in UTC
    datetime.min.replace(tzinfo=tz(microseconds=1)),  # one microsecond before the start
    datetime(1, 1, 1, 23, 58, tzinfo=tz(hours=23, minutes=59)),
    datetime(1, 1, 1, 5, 29, 59, tzinfo=tz(hours=5, minutes=30)),
]

IN_RANGE = [
    UTC_MAX,
    UTC_MIN,
    datetime.max,  # naive means UTC
    datetime.min,
    datetime(9999, 12, 31, 9, 59, 59, 999_999, tzinfo=tz(hours=-14)),  # exactly the last instant
    datetime(1, 1, 1, 5, 30, tzinfo=tz(hours=5, minutes=30)),  # exactly the first instant
    datetime.max.replace(tzinfo=tz(hours=5, minutes=45)),
    datetime.min.replace(tzinfo=tz(hours=-9, minutes=-30)),
    datetime(2024, 2, 29, 12, 0, 0, 1, tzinfo=tz(hours=13, minutes=59, seconds=59)),
]


@pytest.fixture
def mem(memory_target: MemoryTarget) -> Iterator[ChronoMem]:
    with memory_target.open() as m:
        yield m


def rows(mem: ChronoMem) -> int:
    return count(mem, "chronomem_facts")


@pytest.mark.parametrize("moment", OUT_OF_RANGE, ids=lambda d: d.isoformat())
def test_a_time_outside_utc_range_is_refused_everywhere(mem: ChronoMem, moment: datetime) -> None:
    old = mem.remember("Ardian lives in Kemang")
    before = rows(mem)
    with pytest.raises(InvalidFactError) as info:
        mem.remember("Ardian lives in Menteng", valid_from=moment)
    assert info.value.field == "valid_from"
    with pytest.raises(InvalidFactError):
        mem.supersede(old, "Ardian lives in Menteng", valid_from=moment)
    with pytest.raises(InvalidArgumentError) as argument:
        mem.recall("Ardian", as_of=moment)
    assert argument.value.field == "as_of"
    with pytest.raises(InvalidArgumentError) as argument:
        mem.recall("Ardian", known_at=moment)
    assert argument.value.field == "known_at"
    record = next(iter(mem.export_facts()))
    for field in ("system_time", "valid_from", "valid_until", "invalidated_at"):
        bad = {**record, "id": "f" * 32, field: moment}  # fromisoformat drops µs offsets
        with pytest.raises(InvalidFactError) as info:
            mem.import_facts([bad])
        assert info.value.field == field
    with pytest.raises(InvalidFactError) as info:
        mem.remember_episode("I moved to Menteng", speaker="Ardian", session="s", at=moment)
    assert info.value.field == "at"
    assert rows(mem) == before
    assert mem.get(old)["superseded_by"] is None


@pytest.mark.parametrize("moment", IN_RANGE, ids=lambda d: d.isoformat())
def test_an_edge_time_round_trips_through_every_read(
    memory_target: MemoryTarget, mem: ChronoMem, moment: datetime
) -> None:
    fid = mem.remember("Ardian lives in Kemang", valid_from=moment)
    given = moment if moment.tzinfo is not None else moment.replace(tzinfo=timezone.utc)
    expected = given.astimezone(timezone.utc)  # the mapping holds the UTC ISO form
    assert mem.get(fid)["valid_from"] == expected.isoformat()
    assert mem.get(fid)["valid_from"].endswith("+00:00")
    assert [f.valid_from for f in mem.timeline("Ardian")] == [expected]
    assert [f["valid_from"] for f in mem.recall("Ardian Kemang", active_only=False)] == [
        expected.isoformat()
    ]
    [record] = mem.export_facts()
    with memory_target.sibling("copy").open() as copy:
        assert copy.import_facts([record]) == 1
        assert copy.get(fid)["valid_from"] == expected.isoformat()


def test_a_row_already_on_disk_out_of_range_reads_clamped(mem: ChronoMem) -> None:
    fid = mem.remember("Ardian lives in Kemang")
    gone = mem.remember("Ardian's office is Sudirman")
    mem.forget(gone)
    with mem._db.write() as conn:  # what an older version (or another program) could write
        conn.execute(
            "UPDATE chronomem_facts SET valid_from = ?, system_time = ? WHERE id = ?",
            (MAX_US + 3_600_000_000, MIN_US - 1, fid),
        )
        conn.execute(
            "UPDATE chronomem_facts SET valid_until = ?, invalidated_at = ? WHERE id = ?",
            (2**63 - 1, -(2**63), gone),
        )
    fact = mem.get(fid)
    assert fact["valid_from"] == UTC_MAX.isoformat()
    assert fact.system_time == UTC_MIN
    assert mem.get(gone)["valid_until"] == UTC_MAX.isoformat()
    assert mem.get(gone).invalidated_at == UTC_MIN
    assert {f["id"] for f in mem.timeline("Ardian")} == {fid, gone}
    assert [f["id"] for f in mem.recall("Kemang", active_only=False)] == [fid]
    exported = list(mem.export_facts())
    assert len(exported) == 2  # the user can still back up
    assert exported[0]["valid_from"] == UTC_MAX.isoformat()


@pytest.mark.parametrize("micros", [MIN_US - 1, MAX_US + 1, -(2**63), 2**63 - 1, 10**30])
def test_from_us_clamps_instead_of_raising(micros: int) -> None:
    assert from_us(micros) in (UTC_MIN, UTC_MAX)


def test_from_us_is_exact_inside_the_range() -> None:
    assert from_us(MIN_US) == UTC_MIN
    assert from_us(MAX_US) == UTC_MAX
    assert from_us(0) == datetime(1970, 1, 1, tzinfo=timezone.utc)
    assert from_us(-1) == datetime(1969, 12, 31, 23, 59, 59, 999_999, tzinfo=timezone.utc)


class _NoOffset(timezone.__base__):  # type: ignore[name-defined,misc]  # tzinfo, spelled so mypy sees a class
    def utcoffset(self, dt: Any) -> None:
        return None


def test_a_tzinfo_without_offset_is_read_as_utc() -> None:
    moment = datetime(2024, 1, 1, tzinfo=_NoOffset())
    assert from_us(check_time("valid_from", moment)) == datetime(2024, 1, 1, tzinfo=timezone.utc)


_OFFSETS = st.timedeltas(
    min_value=timedelta(hours=-23, minutes=-59, seconds=-59, microseconds=-999_999),
    max_value=timedelta(hours=23, minutes=59, seconds=59, microseconds=999_999),
).map(timezone)


@given(
    naive=st.datetimes(min_value=datetime.min, max_value=datetime.max),
    zone=st.one_of(st.none(), st.just(timezone.utc), _OFFSETS),
)
def test_any_datetime_is_refused_or_round_trips_exactly(
    naive: datetime, zone: timezone | None
) -> None:
    moment = naive.replace(tzinfo=zone)
    offset = moment.utcoffset() or timedelta(0)
    try:
        in_utc = naive - offset  # the oracle: datetime itself says whether UTC can hold it
    except OverflowError:
        with pytest.raises(InvalidArgumentError):
            check_time("valid_from", moment)
        return
    back = from_us(check_time("valid_from", moment))
    assert back == in_utc.replace(tzinfo=timezone.utc)
    assert back is not None
    assert back.utcoffset() == timedelta(0)
    if zone is not None:
        assert back == moment
