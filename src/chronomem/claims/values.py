"""The normal form of a claim's value, so one value spelled two ways compares equal.

Case and articles fold; fillers ("these days", "currently") go; a value ends at the first clause
break ("lives in Berlin *with* her partner", "works at Acme *as* a designer"); clock times read
as ``H:MM`` (``10`` after "at", ``10:00``, ``10am`` and ``10.00`` are ``10:00``; ``2:30 pm`` is
``14:30``); dates as ``month day`` (``3 May``, ``May 3rd``, ``the 3rd of May``); ``40k`` and
``40,000`` as ``40000``.
"""

from __future__ import annotations

import re

from chronomem.claims.words import CUT_WORDS, FILLERS
from chronomem.text.tokens import STOP_WORDS

__all__ = ["is_clock", "is_datelike", "normal_value", "number"]

_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
           "september", "october", "november", "december")  # fmt: skip
_MONTH_OF = {m: m for m in _MONTHS} | {m[:3]: m for m in _MONTHS} | {"sept": "september"}
_MONTH_RE = "|".join(sorted(_MONTH_OF, key=len, reverse=True))
_DAY_MONTH = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_RE})\b\.?")
_MONTH_DAY = re.compile(rf"\b({_MONTH_RE})\.?\s+(?:the\s+)?(\d{{1,2}})(?:st|nd|rd|th)?\b")
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_CLOCK = re.compile(r"(?:(noon|midday|midnight)|(\d{1,2})(?:[:.h](\d{2}))?\s*(am|pm|h|o'clock)?)")
_THOUSANDS = re.compile(r"\b(\d+(?:\.\d+)?)\s*(k|thousand|m|million|bn|billion)\b")
_SCALE = {"k": 1e3, "thousand": 1e3, "m": 1e6, "million": 1e6, "bn": 1e9, "billion": 1e9}
_BREAKS = frozenset(',;.!?()[]"')
_NUMBER_WORDS = {
    w: str(n)
    for n, w in enumerate(("zero", "one", "two", "three", "four", "five", "six", "seven",
                           "eight", "nine", "ten", "eleven", "twelve"))
}  # fmt: skip


def normal_value(words: list[str], *, after_at: bool = False) -> str | None:
    """The normal form of the lower-case words after a predicate, or ``None`` if empty.

    ``after_at``: the value followed "at", so a bare number is a clock time ("at 10").
    """
    kept: list[str] = []
    for word in words:
        if word in _BREAKS or (kept and word in CUT_WORDS):
            break
        kept.append(word)
    text = " " + " ".join(kept) + " "
    for filler in FILLERS:
        text = text.replace(f" {filler} ", " ")
    text = text.strip()
    clock = _clock(text, after_at=after_at)
    if clock is not None:
        return clock
    text = _THOUSANDS.sub(lambda m: str(round(float(m[1]) * _SCALE[m[2]])), text)
    text = _ISO_DATE.sub(lambda m: f"{_MONTHS[int(m[2]) - 1]} {int(m[3])} {m[1]}", text)
    text = _DAY_MONTH.sub(lambda m: f"{_MONTH_OF[m[2]]} {int(m[1])}", text)
    text = _MONTH_DAY.sub(lambda m: f"{_MONTH_OF[m[1]]} {int(m[2])}", text)
    found = [w.strip(".,:") for w in re.findall(r"[\w.,:]+", text)]
    found = [w.replace(",", "") if w[:1].isdigit() else w for w in found if w]
    content = [w for w in found if w not in STOP_WORDS or w in _MONTH_OF]
    if not content:  # "the light is on": keep what is there, minus articles
        content = [w for w in found if w not in ("a", "an", "the")]
    return " ".join(content) or None


def _clock(text: str, *, after_at: bool) -> str | None:
    m = _CLOCK.fullmatch(text)
    if m is None or not (m[1] or m[3] or m[4] or after_at):
        return None  # a bare number is a time only after "at" ("at 10"), not "34"
    if m[1]:
        return "0:00" if m[1] == "midnight" else "12:00"
    hour, minute = int(m[2]), int(m[3] or 0)
    if m[4] == "pm" and hour < 12:
        hour += 12
    elif m[4] == "am" and hour == 12:
        hour = 0
    return f"{hour}:{minute:02d}" if hour < 24 and minute < 60 else None


def is_clock(value: str) -> bool:
    """Whether a normal-form value is a clock time (``14:30``)."""
    return bool(re.fullmatch(r"\d{1,2}:\d{2}", value))


def is_datelike(value: str) -> bool:
    """Whether a normal-form value is a clock time or starts with a month."""
    return is_clock(value) or value.split()[0] in _MONTHS


def number(word: str) -> str | None:
    """``"16"`` and ``"two"`` as digits; ``None`` for anything else."""
    return word if word.isdigit() else _NUMBER_WORDS.get(word)
