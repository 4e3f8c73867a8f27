"""chronomem: bi-temporal long-term fact memory for AI agents, on embedded SQLite.

Facts carry a system time (when recorded) and a validity interval (when true in the world);
``supersede`` ends one belief and starts the next in one transaction, ``recall`` fuses four
retrieval channels by weighted RRF and packs the result into an exact token budget.
"""

from __future__ import annotations

from ._errors import (
    ChronoMemError,
    DatabaseError,
    FactNotActiveError,
    FactNotFoundError,
    InvalidFactError,
)
from ._memory import ChronoMem
from ._model import Contradiction, Fact, FactId
from ._tokens import estimate_tokens

__all__ = [
    "ChronoMem",
    "ChronoMemError",
    "Contradiction",
    "DatabaseError",
    "Fact",
    "FactId",
    "FactNotActiveError",
    "FactNotFoundError",
    "InvalidFactError",
    "estimate_tokens",
]
