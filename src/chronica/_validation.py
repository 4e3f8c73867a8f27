"""Every rule an input must pass before a store is touched.

Kept apart from :mod:`chronica._chronicarius` so the policy reads as a list of checks, and
so the limits below live in one documented place.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from datetime import datetime, timezone
from typing import Any

from ._errors import (
    ChronicaTypeError,
    EmptyOwnerIDError,
    InvalidActumError,
    InvalidArgumentError,
)
from ._frozen import EMPTY, FrozenDict, compact_json, frozen_copy, load_metadata, with_json
from ._model import ActorKind, Actum, ActumKind, build_actum
from .owners import owner_problem

__all__ = [
    "MAX_CONTENT_BYTES",
    "MAX_ID_CHARS",
    "MAX_METADATA_BYTES",
    "MAX_METADATA_DEPTH",
    "check_chronicum_id",
    "check_idempotency_key",
    "check_kinds",
    "check_last_n",
    "check_moment",
    "check_owner",
    "check_seconds",
    "restorable_actum",
    "validated_acta",
    "validated_actum",
]

MAX_CONTENT_BYTES = 1 << 20
"""Largest actum content, in UTF-8 bytes (1 MiB): far above any context window."""

MAX_ID_CHARS = 256
"""Longest owner ID, chronicum ID, actor or idempotency key, in characters."""

MAX_METADATA_BYTES = 64 * 1024
"""Largest actum metadata, as compact JSON in UTF-8 bytes."""

MAX_METADATA_DEPTH = 64
"""Deepest nesting of objects and arrays in metadata (the metadata itself is depth 1).

Far beyond any tool call's arguments, and far below the depth at which Python's JSON
encoder and decoder run out of stack: a deeper value is refused as invalid, never met later
as a ``RecursionError`` on every read.
"""

MAX_LAST_N = 2**63 - 1
"""Largest ``last_n`` accepted: the largest 64-bit signed integer, a limit SQL can hold."""

_NEEDS_CONTENT = frozenset({ActumKind.MESSAGE, ActumKind.THOUGHT})

# json.dumps with options builds an encoder per call, a third of its cost on the append
# path; compact_json calls the C encoder directly.
_encode_json = compact_json


def _text_problem(value: str) -> str | None:
    """Say what makes ``value`` unstorable text, or return None if it is fine."""
    if "\x00" in value:
        return "contains a NUL character"
    if value.isascii():  # a scan without a copy: most text is ASCII, never a lone surrogate
        return None
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "contains a lone surrogate (not valid Unicode text)"
    return None


_ErrorType = type[InvalidArgumentError] | type[InvalidActumError]


def _check_identifier(field: str, value: object, error: _ErrorType) -> str:
    if not isinstance(value, str):
        prefix = "actum." if error is InvalidActumError else ""
        raise ChronicaTypeError(prefix + field, "str", value)
    if not value.strip():
        raise error(field, "must not be empty or whitespace")
    if len(value) > MAX_ID_CHARS:
        raise error(field, f"is longer than {MAX_ID_CHARS} characters")
    problem = _text_problem(value)
    if problem:
        raise error(field, problem)
    return value


def check_owner(owner_id: object) -> str:
    """Return ``owner_id`` if it is a usable owner, else raise."""
    if not isinstance(owner_id, str):
        raise ChronicaTypeError("owner_id", "str", owner_id)
    if not owner_id.strip():
        raise EmptyOwnerIDError()
    problem = owner_problem(owner_id)
    if problem:
        raise InvalidArgumentError("owner_id", problem)
    return owner_id


def check_chronicum_id(chronicum_id: object) -> str:
    """Return ``chronicum_id`` if it is a usable chronicum ID, else raise."""
    return _check_identifier("chronicum_id", chronicum_id, InvalidArgumentError)


def check_idempotency_key(key: object) -> str:
    """Return ``key`` if it is a usable idempotency key, else raise."""
    return _check_identifier("idempotency_key", key, InvalidArgumentError)


def check_last_n(last_n: object) -> int:
    """Return ``last_n``; zero or less means no limit."""
    if isinstance(last_n, bool) or not isinstance(last_n, int):
        raise ChronicaTypeError("last_n", "int", last_n)
    if last_n > MAX_LAST_N:  # databases store 64-bit integers; a bigger limit means "all" anyway
        raise InvalidArgumentError("last_n", f"must be at most {MAX_LAST_N}")
    return max(last_n, 0)


def check_seconds(field: str, value: object, *, maximum: float, allow_zero: bool = True) -> float:
    """Return ``value`` as a number of seconds: finite, not negative, at most ``maximum``.

    Store options are checked like any other input: ``float("nan")`` would otherwise reach
    a driver as a bare ``ValueError``, and a negative timeout would silently mean "none".
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ChronicaTypeError(field, "a number of seconds", value)
    if not math.isfinite(value) or value < 0 or (value == 0 and not allow_zero):
        bound = "0 or more" if allow_zero else "more than 0"
        raise InvalidArgumentError(field, f"must be a finite number of seconds, {bound}")
    if value > maximum:
        raise InvalidArgumentError(field, f"must be at most {maximum:,.0f} seconds")
    return float(value)


def check_kinds(
    field: str, kinds: Iterable[object] | None, enum_type: type[ActumKind] | type[ActorKind]
) -> frozenset[Any] | None:
    """Normalise a kind filter; None or empty means every kind passes."""
    if kinds is None:
        return None
    if isinstance(kinds, (str, bytes)):  # a bare "message" would iterate as characters
        raise ChronicaTypeError(field, f"a collection of {enum_type.__name__}", kinds)
    chosen = frozenset(_as_enum(field, kind, enum_type, InvalidArgumentError) for kind in kinds)
    return chosen or None


def _as_enum(
    field: str,
    value: object,
    enum_type: type[ActumKind] | type[ActorKind],
    error: _ErrorType,
) -> Any:
    if isinstance(value, enum_type):
        return value
    if not isinstance(value, str):
        prefix = "actum." if error is InvalidActumError else ""
        raise ChronicaTypeError(prefix + field, enum_type.__name__, value)
    try:
        return enum_type(value)
    except ValueError:
        names = ", ".join(member.value for member in enum_type)
        raise error(field, f"{value!r} is not one of: {names}") from None


def _check_actum_text(field: str, value: object, *, required: bool, limit: int) -> str:
    if not isinstance(value, str):
        raise ChronicaTypeError(f"actum.{field}", "str", value)
    if required and not value.strip():
        raise InvalidActumError(field, "must not be empty or whitespace")
    problem = _text_problem(value)
    if problem:
        raise InvalidActumError(field, problem)
    if len(value) > limit // 4 and len(value.encode("utf-8")) > limit:
        raise InvalidActumError(field, f"is larger than {limit} bytes of UTF-8")
    return value


def _check_metadata(metadata: object) -> FrozenDict:
    if type(metadata) is not dict and not isinstance(metadata, Mapping):  # dict: no ABC check
        raise ChronicaTypeError("actum.metadata", "a mapping", metadata)
    if not metadata:
        return EMPTY
    try:
        encoded = _encode_json(metadata)
    except (TypeError, ValueError, RecursionError) as e:
        # Too deep is the better reason (a container that holds itself is also too deep).
        if _deeper_than(metadata, MAX_METADATA_DEPTH):
            raise InvalidActumError(
                "metadata", f"is nested deeper than {MAX_METADATA_DEPTH} levels"
            ) from None
        raise InvalidActumError("metadata", f"is not JSON-serialisable ({e})") from None
    # Nesting deeper than the limit needs more opening brackets than the limit, so JSON with
    # fewer (almost all metadata) skips the walk, the costliest check of an append.
    if encoded.count("{") + encoded.count("[") > MAX_METADATA_DEPTH and _deeper_than(
        metadata, MAX_METADATA_DEPTH
    ):
        raise InvalidActumError("metadata", f"is nested deeper than {MAX_METADATA_DEPTH} levels")
    # A copy of frozen JSON types, detached from any object the caller might mutate later:
    # walked for small plain metadata (which checks every key is a str on the way), else
    # round-tripped through the JSON just encoded.
    copy = frozen_copy(metadata) if type(metadata) is dict else None
    if copy is None:
        if any(not isinstance(key, str) for key in metadata):
            raise InvalidActumError("metadata", "keys must be strings")
        copy = load_metadata(encoded)
    # The encoder escapes every NUL in a key or string as \u0000, so the text holds none and
    # only a lone surrogate can keep it from being UTF-8; the walk for an escaped NUL runs
    # only when the text has one. ASCII text is its own UTF-8, checked without a copy.
    if encoded.isascii():
        size = len(encoded)
    else:
        try:
            size = len(encoded.encode("utf-8"))
        except UnicodeEncodeError:
            raise InvalidActumError(
                "metadata", "contains a lone surrogate (not valid Unicode text)"
            ) from None
    if "\\u0000" in encoded:
        problem = _nul_in_json(copy)
        if problem:
            raise InvalidActumError("metadata", problem)
    if size > MAX_METADATA_BYTES:
        raise InvalidActumError("metadata", f"is larger than {MAX_METADATA_BYTES} bytes as JSON")
    return with_json(copy, encoded)


def _deeper_than(value: object, limit: int) -> bool:
    """Whether dicts and lists nest deeper than ``limit``; a loop, so depth costs no stack.

    Walks one level at a time and follows only containers, so flat metadata costs one pass
    over its values. Only dicts, lists and tuples can nest in JSON; any other container is
    refused by the encoder afterwards.
    """
    containers = (dict, list, tuple)
    level: list[Any] = [value]
    for _ in range(limit):
        below: list[Any] = []
        for item in level:
            children = item.values() if isinstance(item, dict) else item
            below.extend(child for child in children if isinstance(child, containers))
        if not below:
            return False
        level = below
    return True  # also how a container that holds itself ends the walk


def _nul_in_json(value: object) -> str | None:
    # json.dumps escapes NUL as \u0000, which PostgreSQL's jsonb refuses: reject it everywhere.
    if isinstance(value, str):
        return "contains a NUL character" if "\x00" in value else None
    if isinstance(value, dict):
        items: Iterable[object] = [*value.keys(), *value.values()]
    elif isinstance(value, list):
        items = value
    else:
        return None
    return next((problem for item in items if (problem := _nul_in_json(item))), None)


def validated_actum(actum: object, new_id: str) -> Actum:
    """Check every field of ``actum`` and return a copy ready for a store.

    The copy has kinds normalised to enums, metadata frozen and detached from the caller's
    objects, ``id`` set to ``new_id`` and no ``at``: chronica replaces the caller's ID, and
    the store stamps the time. Building the copy once here keeps the append path short.
    """
    return _checked(actum, new_id, None)


def validated_acta(acta: Iterable[object], new_ids: Iterable[str]) -> list[Actum]:
    """:func:`validated_actum` for each actum of a batch, each given the next of ``new_ids``.

    A batch's acta mostly share their chronicum ID and actor (an agent's turn): a ``str``
    that an earlier actum of the batch passed as either is not checked again, since the
    check depends on the text alone.
    """
    passed: set[str] = set()
    return [
        _checked(actum, actum_id, None, passed)
        for actum, actum_id in zip(acta, new_ids, strict=True)
    ]


def restorable_actum(actum: object) -> Actum:
    """Check an exported actum by the rules of a live write, keeping its ``id`` and ``at``.

    The one difference from :func:`validated_actum` is what an export carries and a live
    write does not: the ID chronica minted then (any usable identifier) and the time the
    store stamped (timezone-aware, returned in UTC).
    """
    if not isinstance(actum, Actum):
        raise ChronicaTypeError("actum", "an Actum", actum)
    actum_id = _check_identifier("id", actum.id, InvalidActumError)
    return _checked(actum, actum_id, check_moment("at", actum.at, InvalidActumError))


def check_moment(field: str, value: object, error: _ErrorType) -> datetime:
    """Return ``value`` in UTC if it is a timezone-aware time that UTC can hold, else raise.

    A time near year 9999 in a negative offset is year 10000 in UTC, which ``datetime``
    cannot represent: stored, it would break every later read, so it is refused here.
    """
    if not isinstance(value, datetime):
        raise ChronicaTypeError(
            ("actum." if error is InvalidActumError else "") + field, "a datetime", value
        )
    if value.utcoffset() is None:
        raise error(field, "must be timezone-aware")
    try:
        return value.astimezone(timezone.utc)
    except OverflowError:
        raise error(field, "is outside the range of times UTC can hold (years 1 to 9999)") from None


def _checked(
    actum: object, actum_id: str, at: datetime | None, passed: set[str] | None = None
) -> Actum:
    if not isinstance(actum, Actum):
        raise ChronicaTypeError("actum", "an Actum", actum)
    kind, actor_kind = actum.kind, actum.actor_kind
    if type(kind) is not ActumKind:
        kind = _as_enum("kind", kind, ActumKind, InvalidActumError)
    if type(actor_kind) is not ActorKind:
        actor_kind = _as_enum("actor_kind", actor_kind, ActorKind, InvalidActumError)
    chronicum_id, actor = actum.chronicum_id, actum.actor
    if passed is None:
        _check_identifier("chronicum_id", chronicum_id, InvalidActumError)
        _check_identifier("actor", actor, InvalidActumError)
    else:  # exactly a str already passed: the same text passes again
        if type(chronicum_id) is not str or chronicum_id not in passed:
            passed.add(_check_identifier("chronicum_id", chronicum_id, InvalidActumError))
        if type(actor) is not str or actor not in passed:
            passed.add(_check_identifier("actor", actor, InvalidActumError))
    content = _check_actum_text(
        "content", actum.content, required=kind in _NEEDS_CONTENT, limit=MAX_CONTENT_BYTES
    )
    metadata = _check_metadata(actum.metadata)
    return build_actum(chronicum_id, kind, actor_kind, actor, content, metadata, actum_id, at)
