"""chronomem: bi-temporal long-term memory for AI agents, on embedded SQLite.

Facts carry a system time (when recorded) and a validity interval (when true in the world);
``supersede`` ends one belief and starts the next in one transaction. Episodes are what was
said, in order, by whom, in which session. ``recall`` ranks both: chronomem's own BM25 with the
priors of conversation, entity alignment and entity-graph adjacency (and Jaccard, off by
default), fused by weighted RRF and packed into an exact token budget.

Documented decisions (the contract leaves them to us):

* Naive datetimes are read as UTC; every datetime chronomem returns is timezone-aware UTC.
* Limits: content at most 64 KiB of UTF-8 and metadata at most 64 KiB of JSON; text may not
  hold NUL or lone surrogates. Violations raise :class:`InvalidFactError` naming the field and
  write nothing; any other bad argument (an owner, a path, weights, a query) raises its parent,
  :class:`InvalidArgumentError`.
* An id that names nothing of this owner's raises a :class:`RecordNotFoundError`: a
  :class:`FactNotFoundError` where only a fact can be meant (``supersede``), an
  :class:`UnknownIdError` (both that and :class:`EpisodeNotFoundError`) where either can.
* Contradictions are never silent: ``remember``/``supersede`` return a :class:`FactId` whose
  ``.contradicts`` lists the active facts the new one contradicts; ``contradictions()`` lists
  every open group.
* Packing is first fit in rank order: a fact that does not fit the remaining budget is skipped
  and shorter, lower-ranked ones are tried, so ``sum(f.tokens) <= token_budget`` always and one
  long fact cannot starve the rest. Without budget or limit, recall returns at most 10 facts.
* Durability: WAL with ``synchronous=NORMAL`` (a committed fact survives a process crash; on
  power loss the last transactions may roll back). ``ChronoMem(..., synchronous="FULL")`` also
  survives power loss, at a write-throughput cost.
* Views: by default recall sees what is valid now, as believed now (not superseded, not
  forgotten, not valid only from a later date); ``active_only=False`` adds superseded ones;
  ``as_of`` (valid time) and ``known_at`` (system time) select a bi-temporal view instead.
  Forgotten facts never come back, except under a ``known_at`` before they were forgotten.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chronomem.write.conversations import Indexed, Skipped, Turn

from ._errors import (
    ChronoMemError,
    DatabaseError,
    EpisodeNotFoundError,
    FactNotActiveError,
    FactNotFoundError,
    InvalidArgumentError,
    InvalidFactError,
    RecordNotFoundError,
    UnknownIdError,
)
from ._keyed import Keyed, KeyedFacts
from ._memory import ChronoMem
from ._model import Contradiction, Episode, Fact, FactId, Purged
from .text.tokens import estimate_tokens

if TYPE_CHECKING:
    from ._async import AsyncChronoMem


def __getattr__(name: str) -> Any:
    # AsyncChronoMem brings asyncio (about half of chronomem's import time); a command-line
    # hook or a synchronous agent never pays for it.
    if name == "AsyncChronoMem":
        from ._async import AsyncChronoMem

        return AsyncChronoMem
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "AsyncChronoMem",
    "ChronoMem",
    "ChronoMemError",
    "Contradiction",
    "DatabaseError",
    "Episode",
    "EpisodeNotFoundError",
    "Fact",
    "FactId",
    "FactNotActiveError",
    "FactNotFoundError",
    "Indexed",
    "InvalidArgumentError",
    "InvalidFactError",
    "Keyed",
    "KeyedFacts",
    "Purged",
    "RecordNotFoundError",
    "Skipped",
    "Turn",
    "UnknownIdError",
    "estimate_tokens",
]
