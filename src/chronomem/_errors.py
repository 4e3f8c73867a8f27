"""chronomem's error family: one root, one subclass per thing that went wrong.

Callers catch :class:`ChronoMemError` (or a subclass) and never ``sqlite3`` errors: the
storage layer translates driver failures into :class:`DatabaseError` with ``raise ... from``.
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
    """The file is corrupt, foreign or too new, or the SQLite driver failed."""
