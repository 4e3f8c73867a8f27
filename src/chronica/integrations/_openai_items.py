"""An OpenAI Agents SDK input item as an actum, and back, exactly.

An item is recorded as one actum whose kind and actor kind say what it is to any agent that
reads the chronicum through chronica (a user message is a ``MESSAGE`` by the ``HUMAN``, a
``function_call`` a ``TOOL_REQUEST``...). Its ``content`` is the item's main text (a
message's text, a call's arguments, a tool's output), and its metadata holds the item
itself as JSON text with that one string left empty, plus where the text goes back
(``slot``). Keeping the JSON as text, not as a JSON object, is what makes the round trip
exact: PostgreSQL's ``jsonb`` reorders an object's keys, a string it keeps byte for byte.
Keeping the main text in ``content`` only, not twice, lets an item carry up to 1 MiB of text
(chronica's content limit) while its metadata stays under chronica's 64 KiB.

An item of a shape the adapter does not know (the SDK's ``EncryptedSession`` envelopes, a type
a later SDK adds) is kept as an opaque item: a ``THOUGHT`` of the ``SYSTEM``, recorded and
handed back byte for byte like any other, never refused and never a message, so a memory
indexing the session does not make an episode of it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from chronica._errors import ChronicaError
from chronica._frozen import compact_json
from chronica._model import ActorKind, Actum, ActumKind, build_actum
from chronica._validation import MAX_METADATA_BYTES, validated_actum

__all__ = [
    "MARK",
    "UnmappableItemError",
    "check",
    "clear_marker",
    "item_actum",
    "item_of",
    "marked",
    "refused",
    "retraction",
]

MARK = "openai_agents"
"""The metadata key of every actum the adapter records; acta without it are not items."""

_MESSAGE, _THOUGHT = ActumKind.MESSAGE, ActumKind.THOUGHT
_REQUEST, _RESPONSE = ActumKind.TOOL_REQUEST, ActumKind.TOOL_RESPONSE
_HUMAN, _AGENT, _SYSTEM = ActorKind.HUMAN, ActorKind.AGENT, ActorKind.SYSTEM

_ROLES = {"user": _HUMAN, "assistant": _AGENT, "system": _SYSTEM, "developer": _SYSTEM}

# Every input item type of openai-agents 0.24 (its ResponseInputItemParam union) besides
# "message", whose actor kind comes from its role. The rule: a call is a tool request, an
# output a tool response, reasoning and compaction are the agent's thoughts, and the
# items that configure the conversation are the system's.
_KINDS: dict[str, tuple[ActumKind, ActorKind]] = {
    **dict.fromkeys(
        (
            "function_call",
            "custom_tool_call",
            "computer_call",
            "file_search_call",
            "web_search_call",
            "code_interpreter_call",
            "image_generation_call",
            "local_shell_call",
            "shell_call",
            "apply_patch_call",
            "mcp_call",
            "mcp_approval_request",
            "tool_search_call",
            "program",
        ),
        (_REQUEST, _AGENT),
    ),
    **dict.fromkeys(
        (
            "function_call_output",
            "custom_tool_call_output",
            "computer_call_output",
            "local_shell_call_output",
            "shell_call_output",
            "apply_patch_call_output",
            "tool_search_output",
            "program_output",
            "mcp_list_tools",
        ),
        (_RESPONSE, _AGENT),
    ),
    "mcp_approval_response": (_RESPONSE, _HUMAN),  # the human's yes or no to a tool call
    "reasoning": (_THOUGHT, _AGENT),
    "compaction": (_THOUGHT, _AGENT),
    "additional_tools": (_MESSAGE, _SYSTEM),
    "configuration_update": (_MESSAGE, _SYSTEM),
    "compaction_trigger": (_MESSAGE, _SYSTEM),
    "item_reference": (_MESSAGE, _SYSTEM),
}

# Where an item's main text lives: a string at this key, or the text parts of a list there.
_TEXT_KEYS: dict[str, tuple[str, ...]] = {
    "message": ("content",),
    "reasoning": ("summary", "content"),
    "function_call": ("arguments",),
    "tool_search_call": ("arguments",),
    "mcp_call": ("arguments",),
    "mcp_approval_request": ("arguments",),
    "custom_tool_call": ("input",),
    "code_interpreter_call": ("code",),
    "program": ("code",),
    "program_output": ("result",),
    **dict.fromkeys(
        (
            "function_call_output",
            "custom_tool_call_output",
            "local_shell_call_output",
            "shell_call_output",
            "apply_patch_call_output",
        ),
        ("output",),
    ),
}
_PART_TEXT = ("text", "refusal", "stdout")
_NEEDS_CONTENT = frozenset({_MESSAGE, _THOUGHT})
_OPAQUE = (_THOUGHT, _SYSTEM)  # an item of a shape this adapter does not know
# Room left in the metadata for everything but the item's JSON (marker, slot, tool, call_id).
_OVERHEAD = 2048

Path = tuple[str | int, ...]

# Built once: json.dumps with options builds an encoder per call (shared by threads safely);
# compact_json, the common case, calls the C encoder directly.
_as_text = compact_json
_as_ascii = json.JSONEncoder(allow_nan=False, separators=(",", ":")).encode


class UnmappableItemError(ChronicaError, ValueError):
    """An item the adapter cannot record; ``index`` and ``item_type`` name it.

    Raised before anything of the ``add_items`` call is written.
    """

    def __init__(self, index: int, item_type: str | None, problem: str) -> None:
        what = f"item {index}" + (f" ({item_type})" if item_type else "")
        super().__init__(f"{what} cannot be recorded in chronica: {problem}")
        self.index = index
        self.item_type = item_type


def item_actum(index: int, item: object, *, chronicum_id: str, owner: str, agent: str) -> Actum:
    """The actum that records ``item`` (the ``index``-th of its batch).

    An item of an unknown type or shape is recorded as an opaque item (see the module's
    docstring). Raises :class:`UnmappableItemError` only for what no actum can hold: a value
    that is not a JSON object, or too large; chronica's own rules (sizes, text) are checked
    by :func:`check` or by recording it. The owner comes from the session, never from the
    item: a user message is recorded as said by ``owner``, whatever the item holds.
    """
    if type(item) is not dict and not isinstance(item, Mapping):  # dict: the SDK's, and fast
        raise UnmappableItemError(index, None, f"is a {type(item).__name__}, not a JSON object")
    item_type = _item_type(item)
    kind, actor_kind = _kinds(item_type, item)
    actor = _actor(actor_kind, item, owner=owner, agent=agent)
    slot, text, encoded = _split(index, item_type, item)
    if not text.strip() and kind in _NEEDS_CONTENT:
        # chronica needs words for a message or thought
        text = f"[{item_type}]" if (kind, actor_kind) != _OPAQUE else "[opaque item]"
    record: dict[str, Any] = {"type": item_type, "item": encoded}
    if slot is not None:
        record["slot"] = list(slot)
    metadata: dict[str, Any] = {MARK: record}
    for key, name in (("name", "tool"), ("call_id", "call_id")):
        value = item.get(key)
        if isinstance(value, str) and len(value) <= 256:
            metadata[name] = value  # the names chronica's readers look for
    # Unchecked yet: chronica checks it (and builds its own copy) when it is recorded.
    return build_actum(chronicum_id, kind, actor_kind, actor, text, metadata, "", None)


def check(index: int, actum: Actum) -> None:
    """Check an item's actum by chronica's rules, as recording it would, writing nothing."""
    try:
        validated_actum(actum, "unrecorded")
    except ChronicaError as e:
        raise refused(index, actum, e) from e


def refused(index: int, actum: Actum, error: ChronicaError) -> UnmappableItemError:
    """The error that names the item whose actum chronica refused with ``error``."""
    return UnmappableItemError(index, actum.metadata[MARK]["type"], str(error))


def item_of(actum: Actum) -> Any:
    """The item ``actum`` records, as a fresh plain dict; None if it records no item."""
    record = actum.metadata.get(MARK)
    if not isinstance(record, Mapping) or not isinstance(record.get("item"), str):
        return None
    item = json.loads(record["item"])
    slot = record.get("slot")
    if slot:
        container = item
        for step in slot[:-1]:
            container = container[step]
        container[slot[-1]] = actum.content
    return item


def marked(actum: Actum, call: str) -> Actum:
    """``actum`` carrying the mark of the ``add_items`` call whose batch it starts.

    On a :class:`chronica.BatchStore` a call's batch is one transaction, stored whole or not
    at all, so its first actum's mark tells a retry whether the call was stored, with no
    idempotency key kept for every item.
    """
    metadata = dict(actum.metadata)
    metadata[MARK] = {**metadata[MARK], "call": call}
    return build_actum(
        actum.chronicum_id,
        actum.kind,
        actum.actor_kind,
        actum.actor,
        actum.content,
        metadata,
        actum.id,
        actum.at,
    )


def retraction(chronicum_id: str, agent: str, actum_id: str, nonce: str) -> Actum:
    """The actum ``pop_item`` records: the item recorded as ``actum_id`` is taken back."""
    return Actum(
        chronicum_id=chronicum_id,
        kind=_MESSAGE,
        actor_kind=_SYSTEM,
        actor=agent,
        content=f"pop_item retracted actum {actum_id}",
        metadata={MARK: {"retracts": actum_id, "nonce": nonce}},
    )


def clear_marker(chronicum_id: str, agent: str) -> Actum:
    """The actum ``clear_session`` records: every item before it is taken back."""
    return Actum(
        chronicum_id=chronicum_id,
        kind=_MESSAGE,
        actor_kind=_SYSTEM,
        actor=agent,
        content="clear_session retracted every earlier item",
        metadata={MARK: {"clear": True}},
    )


def _actor(actor_kind: ActorKind, item: Mapping[str, Any], *, owner: str, agent: str) -> str:
    if actor_kind is _HUMAN:
        return owner
    if actor_kind is _AGENT:
        return agent
    role = item.get("role")
    return role if isinstance(role, str) and role in _ROLES else "system"


def _item_type(item: Mapping[str, Any]) -> str | None:
    """The item's type; None for an item of no type this adapter can tell (kept opaque)."""
    item_type = item.get("type")
    if item_type is None:
        # The SDK's easy message has no "type"; an item reference may have none either.
        if "role" in item:
            return "message"
        if "id" in item:
            return "item_reference"
        return None
    return item_type if isinstance(item_type, str) else None


def _kinds(item_type: str | None, item: Mapping[str, Any]) -> tuple[ActumKind, ActorKind]:
    if item_type == "message":
        role = item.get("role")
        if isinstance(role, str) and role in _ROLES:
            return _MESSAGE, _ROLES[role]
        return _OPAQUE  # a message of a role no reader knows is not said by anyone known
    if item_type is None:
        return _OPAQUE
    return _KINDS.get(item_type, _OPAQUE)


def _split(
    index: int, item_type: str | None, item: Mapping[str, Any]
) -> tuple[Path | None, str, str]:
    """Choose the string that becomes ``content``; return it, its path and the rest as JSON.

    The item's main text when the rest then fits in metadata; else its longest string (a
    screenshot's data URL, say), so that large payloads of any item type fit.
    """
    texts = list(_texts(item, _TEXT_KEYS.get(item_type or "", ())))
    if len(texts) > 1:
        preferred: Path | None = max(texts, key=lambda path: len(_at(item, path)))
    else:
        preferred = texts[0] if texts else None
    slot = preferred
    for attempt in range(2):
        if attempt:  # only for the rare item that did not fit: walk all of it
            slot = _longest(item)
            if slot is None or slot == preferred:
                break
        text = _at(item, slot) if slot is not None else ""
        encoded = _encode(index, item_type, _blanked(item, slot) if slot is not None else item)
        if _fits(encoded):
            return slot, text, encoded
    raise UnmappableItemError(
        index,
        item_type,
        f"is too large: without its longest text it is still over {MAX_METADATA_BYTES - _OVERHEAD}"
        " bytes of JSON, the most chronica's metadata holds",
    )


def _texts(item: Mapping[str, Any], keys: tuple[str, ...]) -> Iterator[Path]:
    """Paths of the storable text at ``keys``: a string there, or its parts' text."""
    for key in keys:
        value = item.get(key)
        if isinstance(value, str):
            if _storable(value):
                yield (key,)
        elif isinstance(value, (list, tuple)):
            for i, part in enumerate(value):
                if type(part) is dict or isinstance(part, Mapping):
                    for name in _PART_TEXT:
                        text = part.get(name)
                        if isinstance(text, str) and _storable(text):
                            yield (key, i, name)


def _longest(item: Mapping[str, Any]) -> Path | None:
    best: Path | None = None
    size = -1
    stack: list[tuple[Path, Any]] = [((), item)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, str):
            if len(value) > size and path and _storable(value):
                best, size = path, len(value)
        elif isinstance(value, Mapping):
            stack.extend(((*path, k), v) for k, v in value.items() if isinstance(k, str))
        elif isinstance(value, (list, tuple)):
            stack.extend(((*path, i), v) for i, v in enumerate(value))
    return best


def _storable(text: str) -> bool:
    """Whether ``text`` can be an actum's content: not blank, no NUL, no lone surrogate."""
    if "\x00" in text or not text.strip():
        return False
    if text.isascii():  # never a lone surrogate, checked without a copy
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _at(item: Any, path: Path) -> str:
    value = item
    for step in path:
        value = value[step]
    assert isinstance(value, str)
    return value


def _blanked(value: Any, path: Path) -> Any:
    """A copy of ``value`` with the string at ``path`` emptied; only that path is copied."""
    if not path:
        return ""
    head, rest = path[0], path[1:]
    if type(value) is dict or isinstance(value, Mapping):
        copy: Any = dict(value)
    else:
        copy = list(value)
    copy[head] = _blanked(value[head], rest)
    return copy


def _encode(index: int, item_type: str | None, item: Any) -> str:
    try:
        encoded = _as_text(item)
        try:  # JSON escapes NUL and is never blank: only a lone surrogate makes it unstorable
            if not encoded.isascii():
                encoded.encode("utf-8")
        except UnicodeEncodeError:  # JSON's \u escapes carry it, as text cannot
            encoded = _as_ascii(item)
    except (TypeError, ValueError, RecursionError) as e:
        raise UnmappableItemError(index, item_type, f"is not JSON ({e})") from None
    return encoded


def _fits(encoded: str) -> bool:
    budget = MAX_METADATA_BYTES - _OVERHEAD
    if len(encoded) * 6 <= budget:  # JSON escaping and UTF-8 grow a character to 6 bytes at most
        return True
    escaped = json.dumps(encoded, ensure_ascii=False)
    return len(escaped.encode("utf-8", "surrogatepass")) <= budget
