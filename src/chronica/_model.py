"""The records of a session: a chronicum and its acta."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Any

__all__ = [
    "ACTUM_DIRECT",
    "ACTUM_SETTERS",
    "ActaPage",
    "ActorKind",
    "Actum",
    "ActumEntry",
    "ActumKind",
    "ChronicaCounts",
    "Chronicum",
    "ChronicumSummary",
    "build_actum",
]


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


_ACTUM_FIELDS = ("chronicum_id", "kind", "actor_kind", "actor", "content", "metadata", "id", "at")
# Stores build thousands of acta per window and chronica one per write, and the generated
# frozen __init__ costs three times what filling the slots directly does. That is only
# equivalent while Actum stays a plain slotted record of exactly these fields: check it once,
# and fall back to the constructor if it ever is not.
ACTUM_DIRECT = (
    tuple(f.name for f in fields(Actum)) == _ACTUM_FIELDS
    and "__slots__" in vars(Actum)
    and not hasattr(Actum, "__post_init__")
)
ACTUM_SETTERS = tuple(
    getattr(Actum, name).__set__ for name in (_ACTUM_FIELDS if ACTUM_DIRECT else ())
)


def build_actum(  # one argument per Actum field, positional for speed
    chronicum_id: str,
    kind: ActumKind,
    actor_kind: ActorKind,
    actor: str,
    content: str,
    metadata: Any,
    actum_id: str,
    at: datetime | None,
) -> Actum:
    """An ``Actum`` of values already checked (or read from a store), built without the
    frozen dataclass's ``__init__``; the result is the same object the constructor builds."""
    if not ACTUM_DIRECT:
        return Actum(
            chronicum_id=chronicum_id,
            kind=kind,
            actor_kind=actor_kind,
            actor=actor,
            content=content,
            metadata=metadata,
            id=actum_id,
            at=at,
        )
    actum: Actum = object.__new__(Actum)
    set_chronicum_id, set_kind, set_actor_kind, set_actor, set_content, set_meta, set_id, set_at = (
        ACTUM_SETTERS
    )
    set_chronicum_id(actum, chronicum_id)
    set_kind(actum, kind)
    set_actor_kind(actum, actor_kind)
    set_actor(actum, actor)
    set_content(actum, content)
    set_meta(actum, metadata)
    set_id(actum, actum_id)
    set_at(actum, at)
    return actum


# --- what browsing and erasing return (see chronica.BrowsableStore, chronica.ErasableStore) ---


@dataclass(frozen=True, kw_only=True, slots=True)
class ChronicumSummary:
    """A chronicum as a list of sessions shows it: how many acta it holds and the last one's time.

    ``acta`` is the position of its last actum: positions run 1, 2, 3... with no gaps, so the
    last one is the count, read from an index rather than by counting rows. ``last_at`` is
    None for a chronicum with no acta yet.
    """

    chronicum: Chronicum
    acta: int
    last_at: datetime | None


@dataclass(frozen=True, kw_only=True, slots=True)
class ActumEntry:
    """An actum at its ``position`` in its chronicum (1 for the first recorded).

    A page asked with ``preview_chars`` carries at most that many characters of each
    actum's content; ``content_length`` is the whole content's length in characters, so a
    reader knows to fetch the rest (:meth:`chronica.BrowsableStore.find_actum`).
    """

    position: int
    actum: Actum
    content_length: int

    @property
    def truncated(self) -> bool:
        """Whether ``actum.content`` is cut short of the stored content."""
        return self.content_length > len(self.actum.content)


@dataclass(frozen=True, kw_only=True, slots=True)
class ActaPage:
    """A run of consecutive acta of one window of a chronicum, oldest first.

    The window is what :meth:`chronica.Store.acta` would answer for the same filters and
    ``last_n``; a page is a slice of it. ``total`` counts the whole window;
    ``first_position`` is where it starts (0 when it starts at the chronicum's first actum).
    ``more_before`` (a page scrolled back) or ``more_after`` (a page that follows a live
    chronicum) says whether the window holds more in the direction asked; the other
    direction is not looked at and is False.
    """

    entries: tuple[ActumEntry, ...]
    total: int
    first_position: int
    more_before: bool
    more_after: bool


@dataclass(frozen=True, kw_only=True, slots=True)
class ChronicaCounts:
    """How many chronica and acta: an owner's (browsing) or what an erasure removed."""

    chronica: int
    acta: int
