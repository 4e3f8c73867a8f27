"""A conversation's sessions made recallable as they are recorded, without chronica knowing the
memory.

``ChronicaSession(..., memory=mem)`` and ``ChronicaSessionService(store, memory=mem)`` take any
object with the methods of :class:`SessionMemory` (chronomem's ``ChronoMem`` has them), so
chronica imports nothing of chronomem: the adapter records first, then asks the memory to
index what is new (:func:`capture`). Indexing that fails is logged and never reaches the
caller: the record is already safe, and the memory's next call reads from where its last one
stopped, so whatever was missed is caught up then.

The retractions of :mod:`chronica.integrations.openai_agents` (``pop_item``, ``clear_session``)
are read here too (:func:`retraction_of`), so a memory indexing a session can leave a taken-back
item out, or forget it, without reading the adapter's private metadata.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from ._openai_items import MARK

if TYPE_CHECKING:
    from chronica import Actum, Chronicarius

__all__ = ["Retraction", "SessionMemory", "capture", "retraction_of"]

log = logging.getLogger("chronica.integrations.memory")


@runtime_checkable
class SessionMemory(Protocol):
    """What an adapter needs of a long-term memory: chronomem's ``ChronoMem`` is one.

    ``index_session`` makes the chronicum's messages recallable, incrementally and
    idempotently (a second call stores only what is new, racing calls store each message
    once); ``for_owner`` is the same memory for another owner (the ADK service keeps each app
    and user apart, as chronomem's ADK memory service does).
    """

    def index_session(
        self, chronicarius: Chronicarius, chronicum_id: str, *, owner: str | None = None
    ) -> int:
        """Index the chronicum's messages not indexed yet; return how many were added."""
        ...

    def for_owner(self, owner: str) -> SessionMemory:
        """This memory, scoped to ``owner``."""
        ...


def check_memory(memory: object) -> SessionMemory | None:
    """``memory`` if it can index sessions, None if it is None; else a TypeError now, not
    at the first message."""
    if memory is None or isinstance(memory, SessionMemory):
        return memory
    raise TypeError(
        "memory must have index_session(chronicarius, chronicum_id, *, owner) and "
        f"for_owner(owner) (a chronomem.ChronoMem), got {type(memory).__name__}"
    )


def capture(
    memory: SessionMemory, chronicarius: Chronicarius, chronicum_id: str, owner: str
) -> None:
    """Index what the chronicum holds that ``memory`` has not indexed yet; never raises.

    Called after a write has succeeded, so a failure here (a locked or full memory, a
    closed file) must not look like the write failed: it is logged, and the next call, or
    an explicit ``index_session``, catches up.
    """
    try:
        memory.index_session(chronicarius, chronicum_id, owner=owner)
    except Exception:  # the record is safe; the memory catches up next time
        log.warning("indexing chronicum %r into memory failed", chronicum_id, exc_info=True)


@dataclass(frozen=True)
class Retraction:
    """What an actum takes back: the actum ``target``, or every earlier one (None)."""

    target: str | None


def retraction_of(actum: Actum) -> Retraction | None:
    """What ``actum`` retracts if it is an adapter's retraction or clear marker; else None.

    Such an actum is bookkeeping, never a message of the conversation: a memory leaves it out
    of what it indexes, and forgets what it names.
    """
    record = actum.metadata.get(MARK)
    if not isinstance(record, Mapping) or "item" in record:
        return None
    if record.get("clear") is True:
        return Retraction(None)
    target = record.get("retracts")
    return Retraction(target) if isinstance(target, str) else None
