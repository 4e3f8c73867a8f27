"""chronica's error family: one root, one subclass per thing that went wrong.

Callers catch :class:`ChronicaError` (or one of its subclasses) and never a driver's own
exception: every backend translates ``sqlite3`` / ``psycopg`` errors at its boundary.
"""

from __future__ import annotations

__all__ = [
    "ChronicaError",
    "ChronicaTypeError",
    "ChronicumNotFoundError",
    "CorruptDatabaseError",
    "DuplicateActumError",
    "EmptyOwnerIDError",
    "EraseUnsupportedError",
    "IdempotencyUnsupportedError",
    "InvalidActumError",
    "InvalidArgumentError",
    "RestoreUnsupportedError",
    "StoreError",
]


class ChronicaError(Exception):
    """Root of every error chronica raises on purpose."""


class ChronicumNotFoundError(ChronicaError, LookupError):
    """The chronicum does not exist, or belongs to another owner.

    The two cases are deliberately indistinguishable, so a caller cannot probe for the
    existence of someone else's session.
    """

    def __init__(self, chronicum_id: str) -> None:
        super().__init__(f"chronicum {chronicum_id!r} not found")
        self.chronicum_id = chronicum_id


class EmptyOwnerIDError(ChronicaError, ValueError):
    """The owner ID is empty or only whitespace."""

    def __init__(self) -> None:
        super().__init__("owner_id must be a non-empty string")


class InvalidActumError(ChronicaError, ValueError):
    """An actum failed validation; ``field`` names the offending attribute."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"invalid actum: {field} {problem}")
        self.field = field


class InvalidArgumentError(ChronicaError, ValueError):
    """An argument other than the actum itself (an ID, a limit, a key) is invalid."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"invalid argument: {field} {problem}")
        self.field = field


class ChronicaTypeError(ChronicaError, TypeError):
    """An argument has the wrong Python type; it is both a ``TypeError`` and a ``ChronicaError``."""

    def __init__(self, field: str, expected: str, got: object) -> None:
        super().__init__(f"{field} must be {expected}, got {type(got).__name__}")
        self.field = field


class IdempotencyUnsupportedError(ChronicaError):
    """An idempotency key was given to a store that cannot deduplicate.

    Raised before anything is written: silently ignoring the key is how duplicates get in.
    """

    def __init__(self, store: object) -> None:
        super().__init__(
            f"{type(store).__name__} does not implement IdempotentStore; "
            "an idempotency key cannot be honoured"
        )


class RestoreUnsupportedError(ChronicaError):
    """A restore was asked of a store that is not a :class:`chronica.RestorableStore`."""

    def __init__(self, store: object) -> None:
        super().__init__(
            f"{type(store).__name__} does not implement RestorableStore; it cannot restore acta"
        )


class EraseUnsupportedError(ChronicaError):
    """An erasure was asked of a store that is not a :class:`chronica.ErasableStore`."""

    def __init__(self, store: object) -> None:
        super().__init__(
            f"{type(store).__name__} does not implement ErasableStore; it cannot erase an owner"
        )


class DuplicateActumError(ChronicaError):
    """An actum ID is already stored: actum IDs are unique in a whole store.

    Chronica mints IDs from the OS's entropy, so a live write meets this only if something
    forged an ID; a restore meets it when an export's acta are already stored under another
    chronicum or owner. Nothing is stored when it is raised.
    """

    def __init__(self, actum_id: str) -> None:
        super().__init__(f"actum {actum_id!r} is already stored (actum IDs are unique)")
        self.actum_id = actum_id


class StoreError(ChronicaError):
    """A backend failed (disk, network, corrupt file); the driver's error is the ``__cause__``."""


class CorruptDatabaseError(StoreError):
    """The database file failed SQLite's integrity check; it was refused and left unchanged.

    Raised before chronica's first write to a file it did not create (adding its tables,
    migrating them): writing into a damaged file spreads the damage, while refusing keeps
    it recoverable (``sqlite3 file.db .recover``, or a backup).
    """
