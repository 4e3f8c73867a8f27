"""chronica: the shared, append-only session record of one human and many agents.

A *chronicum* is one session; an *actum* is one thing that happened in it. Every agent
reads back the part it needs as its context window through :class:`Chronicarius`, which
names the owner on every call. Stores live in :mod:`chronica.stores`.

Chronicum IDs are scoped by owner: each owner has a namespace of their own, so Alice's and
Bob's ``"lunch-monday"`` are two chronica, and Bob's first write to that name creates his
own rather than telling him that Alice has one. A chronicum the caller does not own is, for
every read, exactly a missing one (:class:`ChronicumNotFoundError`). Actum IDs are unique
across the whole store.
"""

from typing import TYPE_CHECKING, Any

from ._chronicarius import Chronicarius
from ._errors import (
    ChronicaError,
    ChronicaTypeError,
    ChronicumNotFoundError,
    CorruptDatabaseError,
    DuplicateActumError,
    EmptyOwnerIDError,
    EraseUnsupportedError,
    IdempotencyUnsupportedError,
    InvalidActumError,
    InvalidArgumentError,
    RestoreUnsupportedError,
    StoreError,
)
from ._frozen import FrozenDict
from ._model import (
    ActaPage,
    ActorKind,
    Actum,
    ActumEntry,
    ActumKind,
    ChronicaCounts,
    Chronicum,
    ChronicumSummary,
)
from ._restore import RestoreBatch
from ._validation import (
    MAX_CONTENT_BYTES,
    MAX_ID_CHARS,
    MAX_METADATA_BYTES,
    MAX_METADATA_DEPTH,
)
from .store import (
    BatchStore,
    BrowsableStore,
    ErasableStore,
    IdempotentStore,
    RestorableStore,
    Store,
    TailStore,
)

if TYPE_CHECKING:
    from ._async import AsyncChronicarius


def __getattr__(name: str) -> Any:
    # AsyncChronicarius brings asyncio: a synchronous caller (a command-line hook, a script)
    # never pays for it.
    if name == "AsyncChronicarius":
        from ._async import AsyncChronicarius

        return AsyncChronicarius
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "MAX_CONTENT_BYTES",
    "MAX_ID_CHARS",
    "MAX_METADATA_BYTES",
    "MAX_METADATA_DEPTH",
    "ActaPage",
    "ActorKind",
    "Actum",
    "ActumEntry",
    "ActumKind",
    "AsyncChronicarius",
    "BatchStore",
    "BrowsableStore",
    "ChronicaCounts",
    "ChronicaError",
    "ChronicaTypeError",
    "Chronicarius",
    "Chronicum",
    "ChronicumNotFoundError",
    "ChronicumSummary",
    "CorruptDatabaseError",
    "DuplicateActumError",
    "EmptyOwnerIDError",
    "ErasableStore",
    "EraseUnsupportedError",
    "FrozenDict",
    "IdempotencyUnsupportedError",
    "IdempotentStore",
    "InvalidActumError",
    "InvalidArgumentError",
    "RestorableStore",
    "RestoreBatch",
    "RestoreUnsupportedError",
    "Store",
    "StoreError",
    "TailStore",
]
