"""The words check that lets most turns skip the mention rules (a write's hot path, issue 23)
must never skip a turn the rules would find a time in."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chronomem._model import to_us
from chronomem.text import mentions as module
from chronomem.text.mentions import mentions
from tests.chronomem.text.test_time_mentions import RESOLVED

AT = to_us(datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc))

# Pieces the rules are made of, in several cases, with words that nearly match them, so that
# the generated turns hit the rules often.
_PIECES = [
    "yesterday", "Yesterday", "YESTERDAY", "tomorrow", "today", "tonight", "this", "This",
    "morning", "afternoon", "evening", "last", "Last", "LAST", "next", "past", "night", "ago",
    "week", "weeks", "weekend", "month", "months", "year", "years", "day", "days", "the day",
    "before", "after", "a couple of", "a few", "an", "one", "two", "twelve", "in", "during",
    "since", "until", "by", "early", "late", "mid", "end of", "of", "on", "the",
    "January", "january", "JANUARY", "May", "may", "Jan", "Jan.", "Sept", "sep", "Dec",
    "friday", "Friday", "sunday", "1st", "2nd", "23rd", "7th", "7", "20", "2023", "1999",
    ",", ".", "!", "market", "maybe", "doctor", "Chicago", "lasting",
    "la\u017ft", "\u212aago", "\u0131n 2023", "caf\u00e9",
]  # fmt: skip


@pytest.mark.parametrize(("said", "text", "expected"), RESOLVED)
def test_every_worked_example_reaches_the_rules(
    said: datetime, text: str, expected: list[object]
) -> None:
    if expected:
        assert module._may_mention(text)
    assert mentions(text, to_us(said)) == module._resolved(text, to_us(said))


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=8), st.sampled_from([" ", "  ", "\n", ""]))
def test_a_turn_the_check_skips_has_no_time_the_rules_would_find(
    pieces: list[str], gap: str
) -> None:
    text = gap.join(pieces)
    assert mentions(text, AT) == module._resolved(text, AT)
    if module._resolved(text, AT):
        assert module._may_mention(text)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_any_text_gives_what_the_rules_give(text: str) -> None:
    assert mentions(text, AT) == module._resolved(text, AT)


def test_a_turn_naming_no_time_is_skipped() -> None:
    assert not module._may_mention("What made you want to try the photography walk?")
    assert module._may_mention("I went to the dentist appointment last weekend")
    assert module._may_mention("caf\u00e9 with no time")  # not ASCII: the rules decide


def test_a_look_alike_letter_names_no_time_rather_than_fail() -> None:
    # Case-blind matching takes U+017F (long s) for "s": "last" matches, but names no step.
    assert mentions("la\u017ft friday, \u017fix weeks ago, in augu\u017ft", AT) == []
