"""ADK events, and the adapter's own records, as chronica acta; and back.

Every actum the adapter writes carries ``metadata["adk"]``: its type, the session generation
it belongs to, and a JSON payload. For an event the payload is the event exactly as ADK's
database services store it (``model_dump_json(exclude_none=True)``, temp state trimmed), so it
reads back equal; the actum's kind, actor and content say what happened in chronica's terms
(a message, a tool request or response, a thought), for any other chronica reader. A payload
too large for chronica's metadata (64 KiB) goes into the content (1 MiB) instead, with
``in_content`` set.

Generations: deleting a session appends a tombstone and re-creating its ID starts generation
``g + 1`` in the same chronicum, so each actum names its generation and readers ignore
the acta of generations that ended.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from dataclasses import dataclass
from typing import Any

from google.adk.events import Event
from google.adk.sessions import State
from google.genai import types
from pydantic_core import PydanticSerializationError, to_json

from chronica import (
    MAX_METADATA_BYTES,
    ActorKind,
    Actum,
    ActumKind,
    ChronicaError,
    InvalidArgumentError,
)

from ._rebuild import parse_event

__all__ = [
    "CREATED",
    "DELETED",
    "DELTA",
    "EVENT",
    "SNAPSHOT",
    "EncodedEvent",
    "Record",
    "UnmappableEventError",
    "delta_actum",
    "encode_event",
    "marker_actum",
    "read_record",
    "split_state",
    "state_json",
]

KEY = "adk"
ACTOR = "adk"
"""The actor of the adapter's own acta (lifecycle, state, snapshots); always SYSTEM."""

EVENT, CREATED, DELETED, SNAPSHOT, DELTA = "event", "created", "deleted", "snapshot", "delta"
_SUMMARIES = {
    CREATED: "ADK session created",
    DELETED: "ADK session deleted",
    SNAPSHOT: "ADK session state snapshot",
    DELTA: "ADK state change",
}
_METADATA_ROOM = MAX_METADATA_BYTES - 1024  # the payload's neighbours in the metadata
_RENDER_CHARS = 4000  # a tool actum's readable content; the payload keeps everything


class UnmappableEventError(ChronicaError, ValueError):
    """An ADK event that chronica cannot store; nothing was written.

    ``event_id`` names the event, and the message says why (too large, text that is not
    valid Unicode, a value with no JSON form, an author chronica refuses).
    """

    def __init__(self, event_id: str, problem: str) -> None:
        super().__init__(f"ADK event {event_id!r} cannot be stored in chronica: {problem}")
        self.event_id = event_id


@dataclass(frozen=True, slots=True)
class Record:
    """One actum the adapter wrote, with its ``metadata["adk"]`` read.

    It keeps the actum's ID and payload, not the actum: a read of 10,000 events lets the acta
    go before it builds the events, so the garbage collector has half as much to walk.
    """

    id: str
    type: str
    gen: int
    ts: float | None
    through: str | None
    has_delta: bool
    nonce: str | None
    text: str  # the JSON payload

    def payload(self) -> str:
        """The JSON payload: the event, or a state."""
        return self.text

    def event(self) -> Event:
        """The ADK event, exactly as it was appended."""
        return parse_event(self.text)

    def state(self) -> dict[str, Any]:
        """The state a marker or delta holds, or the session-scoped delta of an event."""
        data = json.loads(self.payload())
        if self.type != EVENT:
            return dict(data)
        return split_state(data.get("actions", {}).get("state_delta", {}))["session"]


@dataclass(frozen=True, slots=True)
class EncodedEvent:
    """An event ready to record: the actum, its idempotency key and the writer's nonce."""

    actum: Actum
    key: str
    nonce: str
    app_delta: dict[str, Any]
    user_delta: dict[str, Any]


def split_state(state: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Split a state or delta by scope as ADK does: ``app``, ``user``, ``session`` (no temp)."""
    scopes: dict[str, dict[str, Any]] = {"app": {}, "user": {}, "session": {}}
    for key, value in state.items():
        if key.startswith(State.APP_PREFIX):
            scopes["app"][key.removeprefix(State.APP_PREFIX)] = value
        elif key.startswith(State.USER_PREFIX):
            scopes["user"][key.removeprefix(State.USER_PREFIX)] = value
        elif not key.startswith(State.TEMP_PREFIX):
            scopes["session"][key] = value
    return scopes


def state_json(field: str, state: dict[str, Any]) -> str:
    """``state`` as JSON, converted as ADK's database services convert it, or a clear error."""
    try:
        return to_json(state).decode()
    except (PydanticSerializationError, UnicodeError) as e:
        raise InvalidArgumentError(field, f"has no JSON form: {e}") from None


def _placed(meta: dict[str, Any], payload: str, summary: str) -> tuple[str, dict[str, Any]]:
    """Put ``payload`` in the metadata if it fits there, else in the content."""
    size = len(json.dumps(payload, ensure_ascii=False).encode())
    if size <= _METADATA_ROOM:
        return summary, {KEY: {**meta, "payload": payload}}
    return payload, {KEY: {**meta, "in_content": True}}


def _clean(text: str) -> str:
    # The readable content only: the payload keeps the exact text, escaped as JSON.
    return text.replace("\x00", "\ufffd")


def _render(event: Event) -> tuple[ActumKind, str]:
    parts = event.content.parts if event.content and event.content.parts else []
    responses = [_response(p) for p in parts if p.function_response or p.code_execution_result]
    if responses:
        return ActumKind.TOOL_RESPONSE, "\n".join(responses)[:_RENDER_CHARS]
    calls = [_call(p) for p in parts if p.function_call or p.executable_code]
    if calls:
        return ActumKind.TOOL_REQUEST, "\n".join(calls)[:_RENDER_CHARS]
    said = "\n".join(p.text for p in parts if p.text and not p.thought)
    if said.strip():
        return ActumKind.MESSAGE, said
    thought = "\n".join(p.text for p in parts if p.text and p.thought)
    if thought.strip():
        return ActumKind.THOUGHT, thought
    if parts:  # files, images, blobs: a message with no text
        return ActumKind.MESSAGE, "[" + ", ".join(_other(p) for p in parts) + "]"
    return ActumKind.THOUGHT, "[ADK event with no content]"


def _call(part: types.Part) -> str:
    if part.function_call:
        args = json.dumps(part.function_call.args or {}, ensure_ascii=False, default=str)
        return f"{part.function_call.name}({args})"
    return (part.executable_code.code or "") if part.executable_code else ""


def _response(part: types.Part) -> str:
    if part.function_response:
        body = json.dumps(part.function_response.response or {}, ensure_ascii=False, default=str)
        return f"{part.function_response.name} -> {body}"
    result = part.code_execution_result
    return f"code -> {result.output or ''}" if result else ""


def _other(part: types.Part) -> str:
    if part.inline_data:
        return f"inline data {part.inline_data.mime_type or ''}".strip()
    if part.file_data:
        return f"file {part.file_data.file_uri or ''}".strip()
    return "part"


def _payload(event: Event) -> str:
    delta = event.actions.state_delta
    if any(key.startswith(State.TEMP_PREFIX) for key in delta):
        kept = {k: v for k, v in delta.items() if not k.startswith(State.TEMP_PREFIX)}
        actions = event.actions.model_copy(update={"state_delta": kept})
        event = event.model_copy(update={"actions": actions})
    try:
        return event.model_dump_json(exclude_none=True)
    except PydanticSerializationError as e:
        raise UnmappableEventError(event.id, f"it has no JSON form ({e})") from None


def encode_event(event: Event, session_id: str, gen: int, salt: str) -> EncodedEvent:
    """The actum for ``event`` in generation ``gen``; ``salt`` scopes its idempotency key."""
    payload = _payload(event)
    kind, text = _render(event)
    scopes = split_state(event.actions.state_delta)
    if scopes["app"] or scopes["user"]:  # as stored: the JSON form of each value
        scopes = split_state(json.loads(payload)["actions"]["state_delta"])
    nonce = secrets.token_hex(8)
    meta = {"type": EVENT, "gen": gen, "ts": event.timestamp, "w": nonce,
            "delta": bool(scopes["session"])}  # fmt: skip
    content, metadata = _placed(meta, payload, _clean(text))
    actum = Actum(
        chronicum_id=session_id,
        kind=kind,
        actor_kind=ActorKind.HUMAN if event.author == "user" else ActorKind.AGENT,
        actor=event.author or "unknown",
        content=content,
        metadata=metadata,
    )
    digest = hashlib.sha256(f"{salt}\n{gen}\n{payload}".encode()).hexdigest()
    return EncodedEvent(actum, f"event:{digest[:48]}", nonce, scopes["app"], scopes["user"])


def marker_actum(
    chronicum_id: str,
    type_: str,
    gen: int,
    *,
    ts: float | None = None,
    through: str | None = None,
    state: str | None = None,
) -> tuple[Actum, str]:
    """A lifecycle marker or snapshot (SYSTEM THOUGHT) and the nonce it carries."""
    nonce = secrets.token_hex(8)
    meta: dict[str, Any] = {"type": type_, "gen": gen, "w": nonce}
    if ts is not None:
        meta["ts"] = ts
    if through is not None:
        meta["through"] = through
    content, metadata = _placed(meta, state or "{}", _SUMMARIES[type_])
    return _system(chronicum_id, content, metadata), nonce


def delta_actum(chronicum_id: str, delta: dict[str, Any]) -> Actum:
    """One change to app or user state (already JSON values)."""
    content, metadata = _placed({"type": DELTA, "gen": 0}, json.dumps(delta), _SUMMARIES[DELTA])
    return _system(chronicum_id, content, metadata)


def _system(chronicum_id: str, content: str, metadata: dict[str, Any]) -> Actum:
    return Actum(
        chronicum_id=chronicum_id,
        kind=ActumKind.THOUGHT,
        actor_kind=ActorKind.SYSTEM,
        actor=ACTOR,
        content=content,
        metadata=metadata,
    )


def read_record(actum: Actum) -> Record | None:
    """The adapter's reading of ``actum``; None for an actum someone else wrote."""
    meta = actum.metadata.get(KEY)
    if not isinstance(meta, dict) or not isinstance(meta.get("type"), str):
        return None
    ts = meta.get("ts")
    return Record(
        id=actum.id,
        type=meta["type"],
        gen=int(meta.get("gen", 0)),
        ts=float(ts) if ts is not None else None,
        through=meta.get("through"),
        has_delta=bool(meta.get("delta")),
        nonce=meta.get("w"),
        text=actum.content if meta.get("in_content") else str(meta["payload"]),
    )
