"""The data steps a schema migration asks for, named here and carried out above the engine.

A migration's DDL is the engine's own (``sqlite/schema.py``, ``postgres/schema.py``). Some
versions also need every stored row read again by today's code: indexed again, keyed again,
given a vector. That code lives in the write path, which imports the engine, so the engine
cannot import it back. Instead the engine names the step it has reached and calls the
:data:`DataUpgrade` it was handed when storage opened (``chronomem.write.upgrade`` is the one
the memory hands it), as eventsourcing keeps data upgrades out of its backends.
"""

from __future__ import annotations

import enum
from collections.abc import Callable

from chronomem.engine.dialect import Conn

__all__ = ["DataStep", "DataUpgrade"]


class DataStep(enum.Enum):
    """A pass over stored rows that a schema version needs, in the migration's transaction."""

    INDEX_FIRST_FACTS = "index the facts of the first schema into the lexical index"
    REKEY_ENTITIES = "key entities and speakers again, then read claims again"
    REINDEX = "index every item again (the lexical index was emptied)"
    BACKFILL_VECTORS = "give every item its vector"
    BACKFILL_CONTENT_KEYS = "give every fact its normalised-content key"
    FILL_MENTIONS = "index every item by its time, resolve every episode's mentions"
    RENUMBER_POSITIONS = "give the turns of every misnumbered session positions 1..n"
    INDEX_FACT_FIELDS = "index every fact's category and metadata as words of its own"


DataUpgrade = Callable[[DataStep, Conn], None]
"""Carries out one :class:`DataStep` on the migration's connection."""
