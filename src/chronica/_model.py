"""The records of a session: a chronicum and its acta."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

__all__ = ["ActorKind", "Actum", "ActumKind", "Chronicum"]


class ActumKind(str, enum.Enum):
    """What an actum is: something said, thought, asked of a tool, or answered by one."""

    MESSAGE = "message"
    THOUGHT = "thought"
    TOOL_REQUEST = "tool_request"
    TOOL_RESPONSE = "tool_response"

    def __str__(self) -> str:
        return self.value


class ActorKind(str, enum.Enum):
    """Who did it: the human, an agent, or the system around them."""

    HUMAN = "human"
    AGENT = "agent"
    SYSTEM = "system"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, kw_only=True, slots=True)
class Chronicum:
    """One session of one owner; its ``id`` names it among that owner's chronica only.

    Chronicum IDs are scoped by owner: another owner may have a chronicum of the same ID,
    which is a different chronicum that neither of them can see.
    """

    id: str
    owner_id: str
    created_at: datetime


@dataclass(frozen=True, kw_only=True, slots=True)
class Actum:
    """One thing that happened in a chronicum.

    ``id`` and ``at`` are assigned when the actum is recorded: chronica replaces any ID the
    caller sent, and the store stamps ``at``. ``at`` is advisory; the order acta come back in
    is the order they were recorded in.

    ``metadata`` is any JSON object (a tool name, a call ID, arguments). Every actum a store
    hands back carries it deep-frozen: a ``dict`` (and ``list``) subclass that compares equal
    to plain data and serialises as JSON, but refuses changes, so no reader can alter what
    the next one sees. ``dict(actum.metadata)`` is a copy to edit.
    """

    chronicum_id: str
    kind: ActumKind
    actor_kind: ActorKind
    actor: str
    content: str = ""
    metadata: Mapping[str, Any] = field(default_factory=dict, hash=False)
    id: str = ""
    at: datetime | None = None
