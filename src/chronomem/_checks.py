"""Argument checks, all before any write: a bad argument raises and leaves the file untouched.

Limits: content at most 64 KiB of UTF-8, metadata at most 64 KiB of JSON nested at most 64 deep,
at most 32 entities of at most 200 characters each. Text, including every key and string inside
metadata, must be valid Unicode (no lone surrogates) without NUL characters. Naive datetimes are
accepted and read as UTC.

The generic checks (text, times, counts, ids) raise :class:`InvalidArgumentError`; inside
:func:`fact_fields`, which wraps the check of a fact or episode being written or imported, the
same failure is an :class:`InvalidFactError`, so the error says what it is about.
"""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from chronica.owners import owner_problem

from ._errors import InvalidArgumentError, InvalidFactError
from ._model import to_us

__all__ = [
    "MAX_CONTENT_BYTES",
    "FactInput",
    "check_budget",
    "check_fact",
    "check_id",
    "check_kinds",
    "check_opt_text",
    "check_owner",
    "check_positive",
    "check_text",
    "check_time",
    "fact_fields",
]

MAX_CONTENT_BYTES = 64 * 1024
MAX_METADATA_BYTES = 64 * 1024
MAX_METADATA_DEPTH = 64
MAX_ENTITIES = 32
MAX_SHORT_TEXT = 200


@dataclass(frozen=True)
class FactInput:
    """A validated ``remember``/``supersede`` payload, ready to store."""

    content: str
    category: str | None
    trust: float
    confidence: float
    valid_from: int | None
    entities: tuple[str, ...] | None
    source: str | None
    metadata: str | None


def check_text(field: str, value: object, *, max_bytes: int = MAX_CONTENT_BYTES) -> str:
    """A non-blank str without NUL or lone surrogates, within ``max_bytes`` of UTF-8."""
    if not isinstance(value, str):
        raise InvalidArgumentError(field, f"must be a str, not {type(value).__name__}")
    if not value.strip():
        raise InvalidArgumentError(field, "must not be empty or only whitespace")
    size = _utf8_size(field, value)
    if size > max_bytes:
        raise InvalidArgumentError(field, f"is {size} bytes; the limit is {max_bytes}")
    return value


def _utf8_size(field: str, value: str) -> int:
    """The UTF-8 size of ``value``, which must hold no NUL and no lone surrogate."""
    if "\x00" in value:
        raise InvalidArgumentError(field, "must not contain NUL characters")
    try:
        return len(value.encode("utf-8"))
    except UnicodeEncodeError as e:
        raise InvalidArgumentError(field, "must be valid Unicode (lone surrogate)") from e


def check_owner(value: object) -> str:
    """``value`` if it is an owner by the rule chronica and chronomem share
    (:mod:`chronica.owners`), else :class:`InvalidArgumentError` saying why."""
    if not isinstance(value, str):
        raise InvalidArgumentError("owner", f"must be a str, not {type(value).__name__}")
    problem = owner_problem(value)
    if problem:
        raise InvalidArgumentError("owner", problem)
    return value


def check_opt_text(field: str, value: object, *, max_bytes: int = MAX_SHORT_TEXT) -> str | None:
    """``None`` or a valid short text."""
    return None if value is None else check_text(field, value, max_bytes=max_bytes)


def _check_unit(field: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidFactError(field, f"must be a number, not {type(value).__name__}")
    number = float(value)
    if math.isnan(number) or not 0.0 <= number <= 1.0:
        raise InvalidFactError(field, f"must be between 0 and 1, got {value!r}")
    return number


def check_time(field: str, value: object) -> int | None:
    """``None`` or a datetime (naive means UTC) as epoch microseconds.

    The instant must lie in years 1..9999 once converted to UTC, so that it reads back:
    ``9999-12-31T23:00-14:00`` (year 10000 in UTC) and ``0001-01-01T00:00+01:00`` (year 0)
    are refused here rather than stored and found unreadable later.
    """
    if value is None:
        return None
    if not isinstance(value, datetime):
        raise InvalidArgumentError(field, f"must be a datetime, not {type(value).__name__}")
    try:
        return to_us(value)
    except (OverflowError, ValueError, TypeError) as e:  # TypeError: a tzinfo that misbehaves
        raise InvalidArgumentError(field, f"is out of range: {e}") from e


def check_positive(field: str, value: object) -> int | None:
    """``None`` or an int >= 1."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgumentError(field, f"must be an int, not {type(value).__name__}")
    if value < 1:
        raise InvalidArgumentError(field, f"must be at least 1, got {value}")
    return value


def check_budget(value: object) -> int | None:
    """``None`` or an int >= 0 (a token budget of 0 packs nothing)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgumentError("token_budget", f"must be an int, not {type(value).__name__}")
    if value < 0:
        raise InvalidArgumentError("token_budget", f"must be >= 0, got {value}")
    return value


def check_kinds(value: object, allowed: tuple[str, ...]) -> tuple[str, ...]:
    """``allowed`` for ``None``, else a non-empty selection of it, duplicates dropped."""
    if value is None:
        return allowed
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise InvalidArgumentError(
            "kinds", f"must be a tuple drawn from {allowed}, e.g. ('episode',)"
        )
    picked = tuple(value)
    if not all(isinstance(k, str) for k in picked):  # a list inside cannot be a dict key
        raise InvalidArgumentError(
            "kinds", f"must be strings drawn from {allowed}, got {picked!r:.200}"
        )
    kinds = tuple(dict.fromkeys(picked))
    if not kinds or any(k not in allowed for k in kinds):
        raise InvalidArgumentError(
            "kinds", f"must be a non-empty selection of {allowed}, got {kinds!r}"
        )
    return kinds


def check_id(value: object) -> str:
    """A fact id must be a short, clean str; whether it exists is the store's question."""
    if not isinstance(value, str) or not value or len(value) > MAX_SHORT_TEXT:
        raise InvalidArgumentError("fact_id", "must be a non-empty str")
    return check_text("fact_id", value, max_bytes=4 * MAX_SHORT_TEXT)


def _check_entities(value: object) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise InvalidFactError("entities", "must be an iterable of str (not a single str)")
    names = tuple(value)
    if len(names) > MAX_ENTITIES:
        raise InvalidFactError("entities", f"at most {MAX_ENTITIES} entities")
    for name in names:
        check_text("entities", name, max_bytes=MAX_SHORT_TEXT)
    return names


def _check_metadata(value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise InvalidFactError("metadata", "must be a mapping with str keys")
    _JsonCheck().walk(dict(value), 1)
    try:
        text = json.dumps(dict(value), allow_nan=False, sort_keys=True, ensure_ascii=False)
    except (TypeError, ValueError) as e:  # e.g. an int too long to print
        raise InvalidFactError("metadata", f"must be JSON-serialisable: {e}") from e
    size = len(text.encode("utf-8"))
    if size > MAX_METADATA_BYTES:
        raise InvalidFactError(
            "metadata", f"is {size} bytes of JSON; the limit is {MAX_METADATA_BYTES}"
        )
    return text


class _JsonCheck:
    """Checks what ``json.dumps`` would hide or choke on, before it runs.

    ``json.dumps`` escapes NUL as ``\\u0000`` (so a check of its output never sees one),
    recurses once per level (so 5,000 levels raise ``RecursionError``) and turns non-str keys of
    nested objects into strings (so they would not read back). Each value costs at least one byte
    of JSON, which bounds the walk of a huge mapping by the size limit.
    """

    def __init__(self) -> None:
        self.budget = MAX_METADATA_BYTES

    def walk(self, value: object, depth: int) -> None:
        """Check ``value``, the ``depth``-th nested object or array (the metadata is the 1st)."""
        self.budget -= 1
        if isinstance(value, (dict, list, tuple)) and depth > MAX_METADATA_DEPTH:
            raise InvalidFactError("metadata", f"is nested more than {MAX_METADATA_DEPTH} deep")
        if isinstance(value, str):
            self.text(value)
        elif isinstance(value, dict):
            for key, item in value.items():
                if not isinstance(key, str):
                    raise InvalidFactError(
                        "metadata", f"keys must be str, not {type(key).__name__}"
                    )
                self.text(key)
                self.walk(item, depth + 1)
        elif isinstance(value, (list, tuple)):
            for item in value:
                self.walk(item, depth + 1)
        elif isinstance(value, float) and not math.isfinite(value):
            raise InvalidFactError("metadata", f"holds {value!r}, which is not a JSON number")
        elif value is not None and not isinstance(value, (bool, int, float)):
            raise InvalidFactError("metadata", f"holds a {type(value).__name__}, which is not JSON")
        if self.budget < 0:
            raise InvalidFactError("metadata", f"is larger than {MAX_METADATA_BYTES} bytes of JSON")

    def text(self, value: str) -> None:
        self.budget -= _utf8_size("metadata", value)


@contextlib.contextmanager
def fact_fields() -> Iterator[None]:
    """Checks of a fact or episode being written: a field that fails is an
    :class:`InvalidFactError` (the generic checks raise :class:`InvalidArgumentError`)."""
    try:
        yield
    except InvalidFactError:
        raise
    except InvalidArgumentError as e:
        raise InvalidFactError(e.field, e.problem) from e.__cause__


def check_fact(content: object, **options: Any) -> FactInput:
    """Validate every field of a new fact; raises :class:`InvalidFactError` naming the field."""
    with fact_fields():
        return _fact_input(content, options)


def _fact_input(content: object, options: Mapping[str, Any]) -> FactInput:
    return FactInput(
        content=check_text("content", content),
        category=check_opt_text("category", options["category"]),
        trust=_check_unit("trust", options["trust"]),
        confidence=_check_unit("confidence", options["confidence"]),
        valid_from=check_time("valid_from", options["valid_from"]),
        entities=_check_entities(options["entities"]),
        source=check_opt_text("source", options["source"], max_bytes=2048),
        metadata=_check_metadata(options["metadata"]),
    )
