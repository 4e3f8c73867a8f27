"""The dates a turn mentions ("yesterday", "last Friday", "two weeks ago", "in March",
"on 7 May 2023"), resolved against when it was said.

People tell the time relative to the moment they speak: a turn said on 8 May that says
"yesterday" is about 7 May, and a question about 7 May should find it. So when an episode is
written its mentions are resolved here, by rules (no model), against the turn's ``at``, kept
with it (the record shows them) and indexed by the days they mean (:func:`time_points`).

Every mention resolves to an inclusive span of calendar days (UTC, as ``at`` is stored):

* a day: "today", "this morning", "tonight", "yesterday", "last night", "the day before
  yesterday", "tomorrow", "three days ago", "last Friday" (the latest Friday strictly before
  the day said, so on a Friday it is a week back), "next Friday";
* a week (Monday to Sunday): "last week", "this week", "next week", "two weeks ago"
  (the week holding the day fourteen days back); a weekend: "last weekend", "this weekend";
* a month: "last month", "this month", "next month", "two months ago", "last March", "in
  March" (the March nearest the day said, the past one on a tie);
* a year: "last year", "this year", "next year", "two years ago", "in 2022";
* a written date: "7 May 2023", "May 7, 2023", "May 2023", and "May 7th" or "the 7th of
  May" without a year (the nearest one).

Vague phrases ("recently", "the other day", "a while ago") name no span and are left out.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import date, timedelta

__all__ = ["Mention", "iso_days", "mentions", "time_points"]

_DAY_US = 86_400 * 1_000_000
_EPOCH = date(1970, 1, 1)
_WEEK_POINTS = 7  # a span of up to a week is indexed day by day, a longer one by its first day
_MAX_MENTIONS = 16  # a turn is a few sentences; a pasted calendar is not worth indexing whole


@dataclass(frozen=True)
class Mention:
    """A time a turn mentions: the words as said and the days they mean (inclusive)."""

    text: str
    start: date
    end: date


_MONTH_WORDS = [
    "january", "february", "march", "april", "may", "june",
    "july", "august", "september", "october", "november", "december",
]  # fmt: skip
_MONTH_NUMBERS = {name: n for n, name in enumerate(_MONTH_WORDS, 1)}
_MONTH_NUMBERS |= {name[:3]: n for n, name in enumerate(_MONTH_WORDS, 1)} | {"sept": 9}
# Full names in any case but "may" (a verb, unless capitalised); abbreviations capitalised only
# ("mar", "jan" and "dec" are words and names too).
_MONTH = (
    r"((?i:january|february|march|april|june|july|august|september|october|november|december)"
    r"|May|(?:Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\.?)"
)
_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_WEEKDAY = r"(monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "a couple of": 2, "a couple": 2, "couple of": 2, "couple": 2, "a few": 3, "few": 3,
}  # fmt: skip
_COUNT = r"(\d{1,2}|a couple(?: of)?|couple(?: of)?|a few|few|an?|one|two|three|four|five|six" \
    r"|seven|eight|nine|ten|eleven|twelve)"  # fmt: skip
_ORD = r"(?:st|nd|rd|th)?"
_I = re.IGNORECASE


def _month_number(word: str) -> int:
    return _MONTH_NUMBERS[word.lower().rstrip(".")]


def _shift_month(year: int, month: int, by: int) -> tuple[int, int]:
    n = year * 12 + month - 1 + by
    return n // 12, n % 12 + 1


def _month_span(year: int, month: int) -> tuple[date, date]:
    following = date(*_shift_month(year, month, 1), 1)
    return date(year, month, 1), following - timedelta(days=1)


def _week_span(day: date) -> tuple[date, date]:
    monday = day - timedelta(days=day.weekday())
    return monday, monday + timedelta(days=6)


def _nearest_month(said: date, month: int) -> tuple[date, date]:
    """The month named without a year nearest the day said, the past one on a tie."""
    here = said.year * 12 + said.month - 1
    years = (said.year - 1, said.year, said.year + 1)
    year = min(years, key=lambda y: (abs(y * 12 + month - 1 - here), y * 12 + month - 1 > here))
    return _month_span(year, month)


def _nearest_day(said: date, month: int, day: int) -> tuple[date, date] | None:
    """The day named without a year nearest the day said, the past one on a tie."""
    options = []
    for year in (said.year - 1, said.year, said.year + 1):
        try:
            options.append(date(year, month, day))
        except ValueError:  # 30 February, or 29 February out of a leap year
            continue
    if not options:
        return None
    best = min(options, key=lambda d: (abs((d - said).days), d > said))
    return best, best


def _date(year: int, month: int, day: int) -> tuple[date, date] | None:
    try:
        written = date(year, month, day)
    except ValueError:
        return None
    return written, written


Resolver = Callable[[re.Match[str], date], "tuple[date, date] | None"]


def _days(offset: int) -> Resolver:
    def resolve(_: re.Match[str], said: date) -> tuple[date, date]:
        day = said + timedelta(days=offset)
        return day, day

    return resolve


def _ago(m: re.Match[str], said: date) -> tuple[date, date] | None:
    count = m.group(1).lower()
    n = int(count) if count.isdigit() else _NUMBER_WORDS[count]
    unit = m.group(2).lower()
    if unit == "day":
        return _days(-n)(m, said)
    if unit == "week":
        return _week_span(said - timedelta(weeks=n))
    if unit == "month":
        return _month_span(*_shift_month(said.year, said.month, -n))
    return _year_span(said.year - n)


def _year_span(year: int) -> tuple[date, date] | None:
    if not 1 <= year <= 9999:
        return None
    return date(year, 1, 1), date(year, 12, 31)


_STEP = {"last": -1, "this past": -1, "this": 0, "next": 1}


def _relative_unit(m: re.Match[str], said: date) -> tuple[date, date] | None:
    step = _STEP[" ".join(m.group(1).lower().split())]
    unit = m.group(2).lower()
    if unit == "week":
        return _week_span(said + timedelta(weeks=step))
    if unit == "weekend":
        return _weekend(said, step)
    if unit == "month":
        return _month_span(*_shift_month(said.year, said.month, step))
    return _year_span(said.year + step)


def _weekend(said: date, step: int) -> tuple[date, date]:
    """The Saturday and Sunday: of the day's own week (this), or the last one wholly before
    the day said (last), or the first one wholly after it (next)."""
    saturday = _week_span(said)[0] + timedelta(days=5)
    if step < 0 and saturday + timedelta(days=1) >= said:
        saturday -= timedelta(weeks=1)
    elif step > 0 and saturday <= said:
        saturday += timedelta(weeks=1)
    return saturday, saturday + timedelta(days=1)


def _weekday(m: re.Match[str], said: date) -> tuple[date, date]:
    """ "last Friday": the latest Friday strictly before the day said; "next Friday": the first
    strictly after it."""
    step = _STEP[" ".join(m.group(1).lower().split())]
    target = _WEEKDAYS.index(m.group(2).lower())
    if step < 0:
        back = (said.weekday() - target) % 7 or 7
        day = said - timedelta(days=back)
    else:
        ahead = (target - said.weekday()) % 7 or 7
        day = said + timedelta(days=ahead)
    return day, day


def _month_relative(m: re.Match[str], said: date) -> tuple[date, date]:
    month = _month_number(m.group(2))
    step = _STEP.get(" ".join(m.group(1).lower().split()), 0)
    if step < 0:  # "last March": the latest March before this month
        back = (said.month - month) % 12 or 12
        return _month_span(*_shift_month(said.year, said.month, -back))
    if step > 0:
        ahead = (month - said.month) % 12 or 12
        return _month_span(*_shift_month(said.year, said.month, ahead))
    return _nearest_month(said, month)


def _written_dmy(m: re.Match[str], _: date) -> tuple[date, date] | None:
    return _date(int(m.group(3)), _month_number(m.group(2)), int(m.group(1)))


def _written_mdy(m: re.Match[str], _: date) -> tuple[date, date] | None:
    return _date(int(m.group(3)), _month_number(m.group(1)), int(m.group(2)))


def _written_my(m: re.Match[str], _: date) -> tuple[date, date] | None:
    year = int(m.group(2))
    return _month_span(year, _month_number(m.group(1))) if 1 <= year <= 9999 else None


def _written_dm(m: re.Match[str], said: date) -> tuple[date, date] | None:
    return _nearest_day(said, _month_number(m.group(2)), int(m.group(1)))


def _written_md(m: re.Match[str], said: date) -> tuple[date, date] | None:
    return _nearest_day(said, _month_number(m.group(1)), int(m.group(2)))


def _written_year(m: re.Match[str], _: date) -> tuple[date, date] | None:
    return _year_span(int(m.group(1)))


_PREPOSITION_MONTH = rf"(?i:(last|next|in|during|since|until|by|early|late|mid|end of))\s+{_MONTH}"


def _rule(pattern: str, resolve: Resolver, flags: int = _I) -> tuple[re.Pattern[str], Resolver]:
    return re.compile(rf"\b{pattern}\b", flags), resolve


# Tried in order; a later rule never takes words an earlier one matched ("the day before
# yesterday" is not also "yesterday", "7 May 2023" not also "May").
_RULES: tuple[tuple[re.Pattern[str], Resolver], ...] = (
    _rule(rf"(\d{{1,2}}){_ORD}\s+(?:of\s+)?{_MONTH},?\s*(\d{{4}})", _written_dmy, 0),
    _rule(rf"{_MONTH}\s+(\d{{1,2}}){_ORD},?\s*(\d{{4}})", _written_mdy, 0),
    _rule(rf"{_MONTH},?\s+(?:of\s+)?(\d{{4}})", _written_my, 0),
    _rule(rf"(\d{{1,2}}){_ORD}\s+(?:of\s+)?{_MONTH}", _written_dm, 0),
    _rule(rf"{_MONTH}\s+(\d{{1,2}}){_ORD}(?!\d)", _written_md, 0),
    _rule(r"the day before yesterday", _days(-2)),
    _rule(r"the day after tomorrow", _days(2)),
    _rule(r"yesterday|last night", _days(-1)),
    _rule(r"today|tonight|this (?:morning|afternoon|evening)", _days(0)),
    _rule(r"tomorrow", _days(1)),
    _rule(rf"{_COUNT}\s+(day|week|month|year)s?\s+ago", _ago),
    _rule(r"(last|this past|this|next)\s+(week|weekend|month|year)", _relative_unit),
    _rule(rf"(last|this past|next)\s+{_WEEKDAY}", _weekday),
    _rule(_PREPOSITION_MONTH, _month_relative, 0),
    _rule(r"(?:in|during|since|of)\s+(1[89]\d\d|2\d\d\d)", _written_year),
)


def _said_day(at: int) -> date:
    return _EPOCH + timedelta(microseconds=at)


# Every rule needs one of these words (or a digit) somewhere in the text: a month's first
# three letters, "yesterday", "tomorrow", "today", "tonight", "this", "ago", "last", "next".
# Most turns name none, and checking for them costs a few substring tests where trying the
# rules costs fifteen regular-expression scans (a tenth of a serial ``remember_episode``).
_NEEDED = (
    *(name[:3] for name in _MONTH_WORDS),
    "yesterday", "tomorrow", "today", "tonight", "this", "ago", "last", "next",
)  # fmt: skip
_DIGIT = re.compile(r"[0-9]")


def _may_mention(text: str) -> bool:
    """False only when no rule can match ``text``. Decided on ASCII text alone, where a case
    match is plain ``lower()``; other text may hold characters the rules' case-blind
    matching equates with ASCII letters (U+017F with ``s``, U+212A with ``k``), so it goes to
    the rules."""
    if not text.isascii():
        return True
    lowered = text.lower()
    return any(word in lowered for word in _NEEDED) or _DIGIT.search(text) is not None


def mentions(text: str, at: int) -> list[Mention]:
    """The times ``text`` mentions, in the order said, resolved against ``at`` (epoch µs)."""
    return _resolved(text, at) if _may_mention(text) else []


def _resolved(text: str, at: int) -> list[Mention]:
    """Every rule tried on ``text``, in order (see ``_RULES``)."""
    said = _said_day(at)
    taken: list[tuple[int, int]] = []
    found: list[tuple[int, Mention]] = []
    for pattern, resolve in _RULES:
        for m in pattern.finditer(text):
            begin, end = m.span()
            if any(begin < e and b < end for b, e in taken):
                continue
            try:
                span = resolve(m, said)
            except OverflowError:  # a day before year 1 or after 9999: no span
                span = None
            except KeyError:  # matched case-blind but no word the rule knows ("last", long s)
                span = None
            taken.append((begin, end))  # an impossible date ("31 February") is no month either
            if span is not None:
                found.append((begin, Mention(" ".join(m.group(0).split()), *span)))
    found.sort(key=lambda f: f[0])
    return [mention for _, mention in found[:_MAX_MENTIONS]]


def _day_us(day: date) -> int:
    return (day - _EPOCH).days * _DAY_US


def time_points(found: Sequence[Mention]) -> list[int]:
    """The days (epoch µs at midnight UTC) under which an item's mentions are indexed, each
    once: every day of a span up to a week, the first day of a longer one (a question about a
    month or a year holds it; one about a single day of it is not answered by "last month")."""
    points: dict[int, None] = {}
    for mention in found:
        days = (mention.end - mention.start).days + 1
        for offset in range(days if days <= _WEEK_POINTS else 1):
            points[_day_us(mention.start + timedelta(days=offset))] = None
    return sorted(points)


def iso_days(found: Sequence[Mention]) -> Iterator[tuple[str, str, str]]:
    """Each mention as ``(text, start, end)`` with ISO dates: how it is stored."""
    for mention in found:
        yield mention.text, mention.start.isoformat(), mention.end.isoformat()
