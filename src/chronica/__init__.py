"""chronica: the shared, append-only session record of one human and many agents.

A *chronicum* is one session; an *actum* is one thing that happened in it. Every agent
reads back the part it needs as its context window through :class:`Chronicarius`, which
checks the owner on every call. Stores live in :mod:`chronica.stores`.
"""

from ._async import AsyncChronicarius
from ._chronicarius import Chronicarius
from ._errors import (
    ChronicaError,
    ChronicaTypeError,
    ChronicumNotFoundError,
    CorruptDatabaseError,
    EmptyOwnerIDError,
    IdempotencyUnsupportedError,
    InvalidActumError,
    InvalidArgumentError,
    StoreError,
)
from ._model import ActorKind, Actum, ActumKind, Chronicum
from ._validation import (
    MAX_CONTENT_BYTES,
    MAX_ID_CHARS,
    MAX_METADATA_BYTES,
    MAX_METADATA_DEPTH,
)
from .store import IdempotentStore, Store

__all__ = [
    "MAX_CONTENT_BYTES",
    "MAX_ID_CHARS",
    "MAX_METADATA_BYTES",
    "MAX_METADATA_DEPTH",
    "ActorKind",
    "Actum",
    "ActumKind",
    "AsyncChronicarius",
    "ChronicaError",
    "ChronicaTypeError",
    "Chronicarius",
    "Chronicum",
    "ChronicumNotFoundError",
    "CorruptDatabaseError",
    "EmptyOwnerIDError",
    "IdempotencyUnsupportedError",
    "IdempotentStore",
    "InvalidActumError",
    "InvalidArgumentError",
    "Store",
    "StoreError",
]
