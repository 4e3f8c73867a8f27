"""The one rule for what a tool's failure says: the library's own words, as a tool error.

Shared by the tools (:mod:`._tools`) and what runs before them (:mod:`._confirm`), so a bad
argument reads the same wherever it is caught.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from mcp.server.mcpserver.exceptions import ToolError

from chronica import ChronicaError
from chronomem import ChronoMemError

__all__ = ["readable_errors"]


@contextmanager
def readable_errors() -> Iterator[None]:
    """Turn the libraries' errors into tool errors a model can read and act on.

    Anything else is a bug: the SDK reports it as a generic failure, logs the traceback,
    and keeps serving.
    """
    try:
        yield
    except (ChronoMemError, ChronicaError, ValueError, LookupError, TypeError, OverflowError) as e:
        raise ToolError(f"{type(e).__name__}: {e}") from e
