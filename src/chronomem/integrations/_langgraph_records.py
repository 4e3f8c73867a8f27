"""How a LangGraph store item lives in chronomem, and LangGraph's matching rules.

An item (namespace, key, value) is one fact: its metadata holds the namespace, key and JSON
value exactly (so nothing is lost), its content is the value's text (what recall ranks), its
category reads ``langgraph:users.alice`` (LangGraph forbids periods in labels, so the dotted
form is unambiguous; it is a label for people, the metadata is the truth). A put on an existing
key supersedes the fact, so a key's values form one lineage in ``timeline``.

The memory keeps each key's row beside its fact (:class:`chronomem.KeyedFacts`): the current
value, and the namespaces in a table of their own. The fact names, beside the entities its text
names, one entity per key: an opaque digest, so no query word ever matches it, that makes the
key's history one indexed ``timeline`` read. (A store before the keyed table also named one
entity per namespace prefix, :func:`prefix_entity`; its items are found through it once, to give
them their rows.)
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from chronomem import Fact, InvalidArgumentError
from chronomem.text.entities import extract_entities

__all__ = [
    "MAX_DEPTH",
    "Stored",
    "category_of",
    "check_unicode",
    "content_of",
    "entities_of",
    "key_entity",
    "matches_filter",
    "matches_namespace",
    "metadata_of",
    "namespace_of",
    "prefix_entity",
    "pushed_down",
    "pushed_down_value",
    "stored",
]

MARK = "langgraph"
"""The metadata field holding the item; a fact without it is not the store's."""

MAX_ENTITIES = 32  # chronomem's limit per fact
MAX_DEPTH = MAX_ENTITIES - 2
"""The deepest namespace the store takes: one entity per prefix, the root's and the key's."""

_MAX_CONTENT_BYTES = 60 * 1024  # under a fact's 64 KiB; the value itself is in the metadata
_MAX_CATEGORY_BYTES = 200


def _digest(kind: str, parts: Sequence[str]) -> str:
    # Letters then hex: entity_key keeps it one word, and no text ever spells it.
    blob = json.dumps([kind, *parts], ensure_ascii=False).encode()
    return f"lg{kind}{hashlib.sha256(blob).hexdigest()[:32]}"


def check_unicode(op: object) -> None:
    """Refuse an operation whose namespace, key or value holds a lone surrogate, as chronomem
    refuses such text everywhere (no UTF-8 holds it): an :class:`InvalidArgumentError` (a
    ``ValueError``, as LangGraph's own checks raise) naming the part, before anything is read
    or written, where it was a raw ``UnicodeEncodeError`` from inside the store."""
    parts = {
        "namespace": getattr(op, "namespace", None) or getattr(op, "namespace_prefix", None),
        "key": getattr(op, "key", None),
        "value": getattr(op, "value", None),
        "query": getattr(op, "query", None),
        "match_conditions": [c.path for c in getattr(op, "match_conditions", None) or ()],
    }
    for name, part in parts.items():
        if not part or _plain_text(part):
            continue  # the usual labels and keys: no JSON made to find that out
        try:
            json.dumps(part, ensure_ascii=False, default=str).encode()
        except UnicodeEncodeError:
            raise InvalidArgumentError(name, "must be valid Unicode (lone surrogate)") from None


def _plain_text(part: object) -> bool:
    """Whether ``part`` is ASCII text, or a tuple of it (no surrogate can hide there)."""
    if isinstance(part, str):
        return part.isascii()
    return isinstance(part, tuple) and all(isinstance(p, str) and p.isascii() for p in part)


def key_entity(namespace: Sequence[str], key: str) -> str:
    """The entity every value of ``key`` in ``namespace`` names (its ``timeline``)."""
    return _digest("k", [*namespace, "\x00", key])


def prefix_entity(prefix: Sequence[str]) -> str:
    """The entity every item under ``prefix`` names (``()``: every item of the store)."""
    return _digest("p", prefix)


def _leaves(value: Any) -> Iterator[str]:
    if isinstance(value, Mapping):
        for v in value.values():
            yield from _leaves(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _leaves(v)
    elif isinstance(value, str):
        if value.strip():
            yield value
    elif value is not None:
        yield json.dumps(value)


def content_of(key: str, value: Mapping[str, Any]) -> str:
    """The value's text for recall: its string, number and boolean leaves in order, one per
    line (field names left out: ``memory`` or ``content`` in every item would be noise), or
    the key when the value holds none. Cut at about 60 KiB: the whole value is the metadata's.
    """
    text = "\n".join(_leaves(value)) or key
    data = text.encode()
    if len(data) > _MAX_CONTENT_BYTES:
        text = data[:_MAX_CONTENT_BYTES].decode(errors="ignore")
    return text.replace("\x00", " ")


def category_of(namespace: Sequence[str]) -> str:
    """``langgraph:`` and the dotted namespace, shortened with a digest past 200 bytes."""
    name = f"{MARK}:{'.'.join(namespace)}"
    if len(name.encode()) <= _MAX_CATEGORY_BYTES:
        return name
    tail = prefix_entity(namespace)[-16:]
    head = name.encode()[: _MAX_CATEGORY_BYTES - 20].decode(errors="ignore")
    return f"{head}...{tail}"


def namespace_of(category: str) -> tuple[str, ...] | None:
    """The namespace a store's category names, or ``None`` for one shortened by
    :func:`category_of` (its ``...``: labels are never empty, so a whole one has no ``..``)."""
    rest = category.removeprefix(f"{MARK}:")
    if rest == category or not rest or ".." in rest:
        return None
    return tuple(rest.split("."))


def entities_of(namespace: Sequence[str], key: str, content: str) -> list[str]:
    """The fact's entities: its key's (its history is the key's ``timeline``) and the ones
    its text names (as many as fit chronomem's 32), so recall's entity channel sees the item
    as any fact. The namespace is the keyed table's to list (a store before it also named
    one entity per namespace prefix: :func:`prefix_entity`)."""
    own = [key_entity(namespace, key)]
    room = MAX_ENTITIES - len(own)
    return own + [e for e in extract_entities(content) if len(e) <= 200][:room]


def metadata_of(
    namespace: Sequence[str], key: str, value: Mapping[str, Any], created_at: datetime | None
) -> dict[str, Any]:
    """The fact's metadata: the item exactly, and when its key was first put (``None`` for
    this fact's own system time: a first put cannot know it before the write)."""
    first = None if created_at is None else created_at.isoformat()
    item = {"namespace": list(namespace), "key": key, "value": dict(value), "created_at": first}
    return {MARK: item}


@dataclass(frozen=True)
class Stored:
    """An item as a fact holds it."""

    fact: Fact
    namespace: tuple[str, ...]
    key: str
    value: dict[str, Any]
    created_at: datetime

    @property
    def updated_at(self) -> datetime:
        """When this value was put: the fact's system time."""
        return self.fact.system_time

    @property
    def active(self) -> bool:
        """Neither superseded nor forgotten (nor purged)."""
        return self.fact.invalidated_at is None and not self.fact.forgotten


def stored(fact: Fact) -> Stored | None:
    """The item ``fact`` holds, or ``None`` for a fact not written by the store."""
    item = (fact.metadata or {}).get(MARK)
    if not isinstance(item, Mapping):
        return None
    return Stored(
        fact=fact,
        namespace=tuple(item["namespace"]),
        key=item["key"],
        value=dict(item["value"]),
        created_at=(
            fact.system_time
            if item.get("created_at") is None
            else datetime.fromisoformat(item["created_at"])
        ),
    )


def matches_namespace(namespace: Sequence[str], path: Sequence[str], *, suffix: bool) -> bool:
    """LangGraph's prefix or suffix condition: ``"*"`` matches any one label."""
    if len(namespace) < len(path):
        return False
    ends = (reversed(namespace), reversed(path)) if suffix else (iter(namespace), iter(path))
    pairs = zip(*ends, strict=False)  # the path is the shorter: only its labels are compared
    return all(p == "*" or n == p for n, p in pairs)


_COMPARE = {
    "$gt": lambda a, b: a > b,
    "$gte": lambda a, b: a >= b,
    "$lt": lambda a, b: a < b,
    "$lte": lambda a, b: a <= b,
}


def _operator(value: Any, operator: str, operand: Any) -> bool:
    if operator == "$eq":
        return bool(value == operand)
    if operator == "$ne":
        return bool(value != operand)
    if operator not in _COMPARE:
        raise ValueError(f"Unsupported operator: {operator}")
    try:
        return bool(_COMPARE[operator](float(value), float(operand)))
    except (TypeError, ValueError):
        # LangGraph's in-memory store raises here; its PostgreSQL store's JSONB comparison
        # is false: a missing or non-numeric field does not match.
        return False


def _matches(value: Any, wanted: Any) -> bool:
    if isinstance(wanted, Mapping):
        if any(str(k).startswith("$") for k in wanted):
            return all(_operator(value, op, operand) for op, operand in wanted.items())
        return isinstance(value, Mapping) and all(
            _matches(value.get(k), v) for k, v in wanted.items()
        )
    if isinstance(wanted, (list, tuple)):
        return (
            isinstance(value, (list, tuple))
            and len(value) == len(wanted)
            and all(_matches(a, b) for a, b in zip(value, wanted, strict=True))
        )
    return bool(value == wanted)


def pushed_down(wanted: Mapping[str, Any] | None) -> dict[str, str]:
    """The part of a LangGraph filter ``recall(..., where=...)`` can run inside its channels,
    before its limit: equality with a string (LangGraph compares with Python's ``==``, under
    which only a string equals a string; a number equals a boolean, ``None`` a missing field,
    so those stay with :func:`matches_filter`, which always has the last word)."""
    found: dict[str, str] = {}

    def walk(path: tuple[str, ...], value: Any) -> None:
        if any("." in p or '"' in p or "\x00" in p or not p for p in path):
            return
        if isinstance(value, str):
            found[".".join((MARK, "value", *path))] = value
        elif isinstance(value, Mapping) and all(isinstance(k, str) for k in value):
            if set(value) == {"$eq"}:
                walk(path, value["$eq"])
            elif not any(k.startswith("$") for k in value):
                for k, v in value.items():
                    walk((*path, k), v)

    for field, value in (wanted or {}).items():
        if isinstance(field, str):
            walk((field,), value)
    return found


def pushed_down_value(wanted: Mapping[str, Any] | None) -> dict[str, str]:
    """:func:`pushed_down` as dotted paths into the value itself (what
    :meth:`chronomem.KeyedFacts.under` tests), not into the fact's metadata."""
    head = f"{MARK}.value."
    return {path.removeprefix(head): text for path, text in pushed_down(wanted).items()}


def matches_filter(value: Mapping[str, Any], wanted: Mapping[str, Any] | None) -> bool:
    """LangGraph's filter on a value's fields: a plain value matches equal (a mapping field
    by field, a list element by element), an operator mapping (``$eq``, ``$ne``, ``$gt``,
    ``$gte``, ``$lt``, ``$lte``) compares, the last four as numbers."""
    return not wanted or all(_matches(value.get(k), v) for k, v in wanted.items())
