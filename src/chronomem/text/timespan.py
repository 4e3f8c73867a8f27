"""The calendar span a query names ("on 13 October, 2023", "in May 2023", "in 2024"), if any.

Recall uses it as a prior: an item said or valid near the named span ranks higher. Only
explicit dates count (no "last week"): a relative phrase needs a reference time the query does
not carry.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, timezone

__all__ = ["DAY_US", "named_span", "question_span"]

DAY_US = 86_400 * 1_000_000
_MONTH_NAMES = (
    "january february march april may june july august september october november december"
)
_MONTHS = {name: n for n, full in enumerate(_MONTH_NAMES.split(), 1) for name in (full, full[:3])}
_MONTHS["sept"] = 9
_MONTH = (
    r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_ORD = r"(?:st|nd|rd|th)?"
_DAY_MONTH_YEAR = re.compile(rf"\b(\d{{1,2}}){_ORD}\s+(?:of\s+)?{_MONTH}\.?,?\s*(\d{{4}})\b", re.I)
_MONTH_DAY_YEAR = re.compile(rf"\b{_MONTH}\.?\s+(\d{{1,2}}){_ORD},?\s*(\d{{4}})\b", re.I)
_MONTH_YEAR = re.compile(rf"\b{_MONTH}\.?,?\s+(?:of\s+)?(\d{{4}})\b", re.I)
_YEAR = re.compile(r"\b(1[89]\d\d|2\d\d\d)\b")


def _us(moment: datetime) -> int:
    return int(moment.timestamp()) * 1_000_000


def _day(year: str, month: str, day: str) -> tuple[int, int] | None:
    try:
        start = datetime(int(year), _MONTHS[month.lower()], int(day), tzinfo=timezone.utc)
    except ValueError:  # 31 February and friends: not a date, so no span
        return None
    return _us(start), _us(start) + DAY_US - 1


def _month(year: str, month: str) -> tuple[int, int]:
    number = _MONTHS[month.lower()]
    start = datetime(int(year), number, 1, tzinfo=timezone.utc)
    following = datetime(int(year) + number // 12, number % 12 + 1, 1, tzinfo=timezone.utc)
    return _us(start), _us(following) - 1


def question_span(query: str) -> tuple[int, int] | None:
    """The first explicit date, month or year the query names, as epoch µs [start, end]."""
    return named_span(query)[0]


def named_span(query: str) -> tuple[tuple[int, int] | None, str]:
    """:func:`question_span`, and the words that named it ("June 2023"; "" for none)."""
    for pattern, read in _NAMED:
        for m in pattern.finditer(query):
            span = read(m)
            if span:
                return span, m.group(0)
    return None, ""


def _read_dmy(m: re.Match[str]) -> tuple[int, int] | None:
    return _day(m.group(3), m.group(2), m.group(1))


def _read_mdy(m: re.Match[str]) -> tuple[int, int] | None:
    return _day(m.group(3), m.group(1), m.group(2))


def _read_my(m: re.Match[str]) -> tuple[int, int] | None:
    return _month(m.group(2), m.group(1))


def _read_year(m: re.Match[str]) -> tuple[int, int] | None:
    year = int(m.group(1))
    start, following = (datetime(n, 1, 1, tzinfo=timezone.utc) for n in (year, year + 1))
    return _us(start), _us(following) - 1


# Most precise first: a day, then a month, then a year.
_NAMED: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], tuple[int, int] | None]], ...] = (
    (_DAY_MONTH_YEAR, _read_dmy),
    (_MONTH_DAY_YEAR, _read_mdy),
    (_MONTH_YEAR, _read_my),
    (_YEAR, _read_year),
)
