"""The one ISO-8601 reader: the command line, export files and imported records all use it.

People type ``2026-11-29T18:00:00Z`` and exports carry ``+00:00``; both must read the same on
every supported Python. ``datetime.fromisoformat`` learnt the ``Z`` suffix only in 3.11, so it
is spelt out here rather than left to the interpreter. A time is returned in UTC, which also
refuses, here and not deep in a later read, a moment that UTC cannot hold
(``9999-12-31T23:00:00-14:00`` is in year 10000 once converted).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any

from ._checks import check_time
from ._errors import InvalidFactError

__all__ = ["parse_time", "read_time", "record_time"]

EXAMPLE = "2026-11-29T18:00:00Z"


def parse_time(text: str) -> datetime:
    """``text`` as an aware UTC datetime; a naive time is UTC. Raises ``ValueError`` saying why."""
    if not isinstance(text, str):
        raise ValueError(f"not an ISO-8601 time: {text!r} (e.g. {EXAMPLE})")
    iso = text.strip()
    if iso[-1:] in ("Z", "z"):
        iso = iso[:-1] + "+00:00"
    try:
        moment = datetime.fromisoformat(iso)
    except ValueError:
        raise ValueError(f"not an ISO-8601 time: {text!r} (e.g. {EXAMPLE})") from None
    if moment.tzinfo is None:
        return moment.replace(tzinfo=timezone.utc)
    try:
        return moment.astimezone(timezone.utc)
    except OverflowError:
        raise ValueError(f"{text!r} is outside the years 1-9999 once read as UTC") from None


def read_time(field: str, value: object) -> object:
    """An exported time (an ISO-8601 string) as a datetime for ``check_time``; anything else is
    passed on for ``check_time`` to judge. A bad string is ``InvalidFactError`` naming ``field``."""
    if isinstance(value, str):
        try:
            return parse_time(value)
        except ValueError as e:
            raise InvalidFactError(field, str(e)) from e
    return value


def record_time(record: Mapping[str, Any], field: str) -> int | None:
    """An exported record's ``field`` (ISO-8601 or absent) as epoch microseconds, checked as a
    live write's time is."""
    return check_time(field, read_time(field, record.get(field)))
