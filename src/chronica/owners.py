"""Whose record it is: the one owner rule that chronica and chronomem both enforce.

Every front door of chronomem hands one owner to both packages (a session's acta, then its
memory), so an owner one of them stores and the other refuses would leave half a write
behind. Each package raises its own error type, with the problem this module names.
"""

from __future__ import annotations

__all__ = ["MAX_OWNER_BYTES", "owner_problem"]

MAX_OWNER_BYTES = 200
"""Longest owner, in UTF-8 bytes: well inside an index key on either engine."""


def owner_problem(owner: str) -> str | None:
    """Why ``owner`` cannot be an owner, or ``None`` if it can.

    An owner is a str (checked by the caller, whose error names its own argument) that is not
    blank, holds no NUL and no lone surrogate, and fits in :data:`MAX_OWNER_BYTES`.
    """
    if not owner.strip():
        return "must not be empty or only whitespace"
    if "\x00" in owner:
        return "must not contain NUL characters"
    try:
        size = len(owner.encode("utf-8"))
    except UnicodeEncodeError:
        return "must be valid Unicode (lone surrogate)"
    if size > MAX_OWNER_BYTES:
        return f"is {size} bytes; the limit is {MAX_OWNER_BYTES}"
    return None
