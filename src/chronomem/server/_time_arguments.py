"""How a tool reads a time: ISO-8601 text, or a number of seconds since 1970 (UTC).

pydantic reads a number given for a ``datetime`` as seconds or as milliseconds depending on
its size (above about 2e10 it means milliseconds), so 253402300800, the first second of the
year 10000, was stored as 1978-01-11. A model cannot know that rule, and one value must not
mean two things: here a number is always seconds, and a number whose instant falls outside
the years 1 to 9999 is refused with a message that says so. A numeric string is a number too.
"""

from __future__ import annotations

import math
import re
from datetime import datetime, timezone
from typing import Annotated

from pydantic import BeforeValidator, Field

__all__ = ["Time", "seconds_since_epoch"]

_NUMBER = re.compile(r"\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*")


def seconds_since_epoch(value: object) -> object:
    """``value`` as a UTC datetime when it is a number of seconds (or numeric text); anything
    else is left for pydantic's own datetime reading (ISO-8601 text)."""
    if isinstance(value, str) and _NUMBER.fullmatch(value):
        value = float(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    if not math.isfinite(value):
        raise ValueError(f"a time in seconds must be a finite number, got {value}")
    try:
        return datetime.fromtimestamp(value, timezone.utc)
    except (OverflowError, OSError, ValueError):
        raise ValueError(
            f"{value} seconds since 1970-01-01 is outside the years 1 to 9999 "
            "(a number is read as seconds, never milliseconds)"
        ) from None


Time = Annotated[
    datetime,
    BeforeValidator(seconds_since_epoch),
    Field(description="ISO-8601 (naive means UTC), or seconds since 1970-01-01 UTC"),
]
"""A tool argument that is a time: ISO-8601 or seconds, one unit, range-checked."""
