"""chronomem's error family: one root, one subclass per thing that went wrong.

Callers catch :class:`ChronoMemError` (or a subclass) and never ``sqlite3`` or ``OSError``
errors: the storage layer translates driver and file-system failures into
:class:`DatabaseError` with ``raise ... from``. Every error raised on purpose anywhere in the
package (the command line and the MCP server included) derives from :class:`ChronoMemError`;
a subclass may also derive from the matching built-in (``ValueError``, ``LookupError``) so
generic callers keep working.

Each error says what it is about: :class:`InvalidArgumentError` for an argument of a call (an
owner, a path, a schema name, weights, a query and its options), :class:`InvalidFactError`
under it for the fact or episode being written or imported; :class:`RecordNotFoundError` for an
id that names nothing of this owner's, with a subclass per kind.
"""

from __future__ import annotations

__all__ = [
    "ChronoMemError",
    "DatabaseError",
    "EpisodeNotFoundError",
    "FactNotActiveError",
    "FactNotFoundError",
    "InvalidArgumentError",
    "InvalidFactError",
    "RecordNotFoundError",
    "UnknownIdError",
]


class ChronoMemError(Exception):
    """Root of every error chronomem raises on purpose."""


class InvalidArgumentError(ChronoMemError, ValueError):
    """An argument failed validation; ``field`` names it. Nothing was written."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"invalid {field}: {problem}")
        self.field = field
        self.problem = problem


class InvalidFactError(InvalidArgumentError):
    """A field of the fact or episode being written (or imported) failed validation; ``field``
    names it. Nothing was written."""


class RecordNotFoundError(ChronoMemError, LookupError):
    """No fact or episode of this owner has the id.

    An id of another owner's is deliberately indistinguishable from an unknown one, so one
    owner cannot probe another's ids.
    """

    kind = "fact or episode"

    def __init__(self, record_id: str) -> None:
        super().__init__(f"{self.kind} {record_id!r} not found")
        self.record_id = record_id


class FactNotFoundError(RecordNotFoundError):
    """The fact does not exist, or belongs to another owner."""

    kind = "fact"

    @property
    def fact_id(self) -> str:
        """The id that named no fact."""
        return self.record_id


class EpisodeNotFoundError(RecordNotFoundError):
    """The episode does not exist, or belongs to another owner."""

    kind = "episode"

    @property
    def episode_id(self) -> str:
        """The id that named no episode."""
        return self.record_id


class UnknownIdError(FactNotFoundError, EpisodeNotFoundError):
    """An id that names nothing, given where a fact or an episode may be meant (``get``,
    ``forget``): it is neither, so code catching either kind's error catches it."""

    kind = "fact or episode"


class FactNotActiveError(ChronoMemError):
    """The fact (or episode) was already superseded or forgotten, so it cannot be superseded
    or forgotten; ``kind`` says which it is."""

    def __init__(self, fact_id: str, state: str, kind: str = "fact") -> None:
        super().__init__(f"{kind} {fact_id!r} is not active (already {state})")
        self.fact_id = fact_id
        self.state = state
        self.kind = kind


class DatabaseError(ChronoMemError):
    """The file is unusable (denied, corrupt, foreign, too new, no folder) or SQLite failed."""
