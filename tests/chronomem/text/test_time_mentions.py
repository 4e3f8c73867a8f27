"""The times a turn mentions, resolved against when it was said, by rules (no model)."""

from __future__ import annotations

from datetime import date, datetime, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chronomem._model import to_us
from chronomem.recall.lexical import parse_query
from chronomem.text.mentions import Mention, mentions, time_points
from chronomem.text.timespan import named_span, question_span

# Monday 8 May 2023, the day most rows are said on.
MON = datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)
FRI = datetime(2023, 5, 12, 9, 0, tzinfo=timezone.utc)
SUN = datetime(2023, 5, 14, 20, 0, tzinfo=timezone.utc)
NEW_YEAR = datetime(2024, 1, 1, 0, 30, tzinfo=timezone.utc)
LEAP = datetime(2024, 3, 1, 12, 0, tzinfo=timezone.utc)
D = date

RESOLVED = [
    # (said at, text, [(mention as said, first day, last day)])
    (MON, "Yesterday I went to the support group.", [("Yesterday", D(2023, 5, 7), D(2023, 5, 7))]),
    (MON, "I painted it last night", [("last night", D(2023, 5, 7), D(2023, 5, 7))]),
    (MON, "Today was long", [("Today", D(2023, 5, 8), D(2023, 5, 8))]),
    (MON, "went there this morning", [("this morning", D(2023, 5, 8), D(2023, 5, 8))]),
    (MON, "see you tomorrow", [("tomorrow", D(2023, 5, 9), D(2023, 5, 9))]),
    (MON, "the day before yesterday", [("the day before yesterday", D(2023, 5, 6), D(2023, 5, 6))]),
    (MON, "three days ago", [("three days ago", D(2023, 5, 5), D(2023, 5, 5))]),
    (MON, "a couple of days ago", [("a couple of days ago", D(2023, 5, 6), D(2023, 5, 6))]),
    # "last Friday": the latest Friday strictly before the day said, so on a Friday a week back
    (MON, "I ran a race last Friday", [("last Friday", D(2023, 5, 5), D(2023, 5, 5))]),
    (FRI, "I ran a race last Friday", [("last Friday", D(2023, 5, 5), D(2023, 5, 5))]),
    (FRI, "last Thursday", [("last Thursday", D(2023, 5, 11), D(2023, 5, 11))]),
    (FRI, "next Friday", [("next Friday", D(2023, 5, 19), D(2023, 5, 19))]),
    (MON, "this past Sunday", [("this past Sunday", D(2023, 5, 7), D(2023, 5, 7))]),
    # weeks run Monday to Sunday; "two weeks ago" is the week holding the day 14 days back
    (MON, "two weeks ago", [("two weeks ago", D(2023, 4, 24), D(2023, 4, 30))]),
    (SUN, "2 weeks ago", [("2 weeks ago", D(2023, 4, 24), D(2023, 4, 30))]),
    (MON, "last week", [("last week", D(2023, 5, 1), D(2023, 5, 7))]),
    (SUN, "last week", [("last week", D(2023, 5, 1), D(2023, 5, 7))]),
    (MON, "this week", [("this week", D(2023, 5, 8), D(2023, 5, 14))]),
    (MON, "last weekend", [("last weekend", D(2023, 5, 6), D(2023, 5, 7))]),
    (SUN, "last weekend", [("last weekend", D(2023, 5, 6), D(2023, 5, 7))]),
    (FRI, "this weekend", [("this weekend", D(2023, 5, 13), D(2023, 5, 14))]),
    (MON, "last month", [("last month", D(2023, 4, 1), D(2023, 4, 30))]),
    (MON, "3 months ago", [("3 months ago", D(2023, 2, 1), D(2023, 2, 28))]),
    (MON, "last year", [("last year", D(2022, 1, 1), D(2022, 12, 31))]),
    (MON, "a year ago", [("a year ago", D(2022, 1, 1), D(2022, 12, 31))]),
    # month and year boundaries
    (NEW_YEAR, "yesterday", [("yesterday", D(2023, 12, 31), D(2023, 12, 31))]),
    (NEW_YEAR, "last month", [("last month", D(2023, 12, 1), D(2023, 12, 31))]),
    (NEW_YEAR, "last week", [("last week", D(2023, 12, 25), D(2023, 12, 31))]),
    (NEW_YEAR, "last year", [("last year", D(2023, 1, 1), D(2023, 12, 31))]),
    (NEW_YEAR, "in December", [("in December", D(2023, 12, 1), D(2023, 12, 31))]),
    (LEAP, "yesterday", [("yesterday", D(2024, 2, 29), D(2024, 2, 29))]),
    (LEAP, "last month", [("last month", D(2024, 2, 1), D(2024, 2, 29))]),
    # a month named without a year: the nearest, the past one on a tie; "last March" is past
    (MON, "We moved in March", [("in March", D(2023, 3, 1), D(2023, 3, 31))]),
    (MON, "I'll go in July", [("in July", D(2023, 7, 1), D(2023, 7, 31))]),
    (MON, "in November", [("in November", D(2022, 11, 1), D(2022, 11, 30))]),
    (MON, "last May", [("last May", D(2022, 5, 1), D(2022, 5, 31))]),
    (MON, "next March", [("next March", D(2024, 3, 1), D(2024, 3, 31))]),
    # written dates, with and without a year
    (MON, "on 20 May 2023", [("20 May 2023", D(2023, 5, 20), D(2023, 5, 20))]),
    (MON, "on May 20th, 2022", [("May 20th, 2022", D(2022, 5, 20), D(2022, 5, 20))]),
    (MON, "in June 2021", [("June 2021", D(2021, 6, 1), D(2021, 6, 30))]),
    (MON, "on May 7th", [("May 7th", D(2023, 5, 7), D(2023, 5, 7))]),
    (NEW_YEAR, "the 30th of December", [("30th of December", D(2023, 12, 30), D(2023, 12, 30))]),
    (MON, "back in 2019", [("in 2019", D(2019, 1, 1), D(2019, 12, 31))]),
    # several in one turn, in the order said; nothing counted twice
    (
        MON,
        "Two weeks ago I got a dog, and yesterday a cat.",
        [
            ("Two weeks ago", D(2023, 4, 24), D(2023, 4, 30)),
            ("yesterday", D(2023, 5, 7), D(2023, 5, 7)),
        ],
    ),
    # not times: a modal "may", vague phrases, an impossible date, a number that is no year
    (MON, "I may go, it may rain", []),
    (MON, "recently, the other day, a while ago", []),
    (MON, "on 31 February 2023", []),
    (MON, "I have 2000 stamps", []),
]


@pytest.mark.parametrize(("said", "text", "expected"), RESOLVED)
def test_a_turn_s_times_are_resolved_against_when_it_was_said(
    said: datetime, text: str, expected: list[tuple[str, date, date]]
) -> None:
    assert mentions(text, to_us(said)) == [Mention(*e) for e in expected]


@given(st.text(max_size=300), st.integers(min_value=0, max_value=to_us(datetime(9000, 1, 1))))
def test_any_text_resolves_without_error_and_within_bounds(text: str, at: int) -> None:
    found = mentions(text, at)
    assert len(found) <= 16
    for m in found:
        assert m.start <= m.end
        assert m.text
        assert m.text in " ".join(text.split())


def test_the_edges_of_the_calendar_resolve_to_nothing_rather_than_fail() -> None:
    first = to_us(datetime(1, 1, 1, tzinfo=timezone.utc))
    assert mentions("yesterday, last year, two weeks ago", first) == []


def test_a_span_of_a_week_is_indexed_by_day_a_longer_one_by_its_first_day() -> None:
    day = 86_400 * 1_000_000
    week = Mention("last week", D(2023, 5, 1), D(2023, 5, 7))
    month = Mention("last month", D(2023, 4, 1), D(2023, 4, 30))
    start = to_us(datetime(2023, 5, 1, tzinfo=timezone.utc))
    assert time_points([week]) == [start + i * day for i in range(7)]
    assert time_points([month]) == [to_us(datetime(2023, 4, 1, tzinfo=timezone.utc))]
    assert time_points([week, week]) == time_points([week])


def test_a_question_s_span_comes_with_the_words_that_named_it() -> None:
    span, words = named_span("What was Jolene doing in June 2023?")
    assert span == question_span("What was Jolene doing in June 2023?")
    assert words == "June 2023"
    assert named_span("What did Jolene buy?") == (None, "")


def test_a_question_s_year_is_no_word_to_match_its_month_is() -> None:
    q = parse_query("What was Jolene doing in June 2023?", frozenset({"jolene"}))
    assert q.terms == ("june",)
    assert q.span == question_span("June 2023")
    assert parse_query("Who won in 2023?", frozenset()).terms == ("win",)
