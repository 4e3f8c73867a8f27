"""chronomem's error family: one root, one subclass per thing that went wrong.

Callers catch :class:`ChronoMemError` (or a subclass) and never ``sqlite3`` or ``OSError``
errors: the storage layer translates driver and file-system failures into
:class:`DatabaseError` with ``raise ... from``. Every error raised on purpose anywhere in the
package (the command line and the MCP server included) derives from :class:`ChronoMemError`;
a subclass may also derive from the matching built-in (``ValueError``, ``LookupError``) so
generic callers keep working.
"""

from __future__ import annotations

__all__ = [
    "ChronoMemError",
    "DatabaseError",
    "FactNotActiveError",
    "FactNotFoundError",
    "InvalidFactError",
]


class ChronoMemError(Exception):
    """Root of every error chronomem raises on purpose."""


class InvalidFactError(ChronoMemError, ValueError):
    """An argument failed validation; ``field`` names it. Nothing was written."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"invalid {field}: {problem}")
        self.field = field
        self.problem = problem


class FactNotFoundError(ChronoMemError, LookupError):
    """The fact does not exist, or belongs to another owner.

    The two cases are deliberately indistinguishable so one owner cannot probe another's ids.
    """

    def __init__(self, fact_id: str) -> None:
        super().__init__(f"fact {fact_id!r} not found")
        self.fact_id = fact_id


class FactNotActiveError(ChronoMemError):
    """The fact was already superseded or forgotten, so it cannot be superseded or forgotten."""

    def __init__(self, fact_id: str, state: str) -> None:
        super().__init__(f"fact {fact_id!r} is not active (already {state})")
        self.fact_id = fact_id
        self.state = state


class DatabaseError(ChronoMemError):
    """The file is unusable (denied, corrupt, foreign, too new, no folder) or SQLite failed."""
