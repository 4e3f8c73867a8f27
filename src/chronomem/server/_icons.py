"""The icons clients show beside the server and each tool (MCP 2025-11-25).

Two glyphs, drawn by ``scripts/make_icons.py`` into ``icons/``: ``memory`` (a clock face) for
the server and the ``chronomem_*`` tools, ``session`` (three turns) for the ``chronica_*``
tools. Each is offered as a 64x64 PNG, which every client that shows icons must read, and as
SVG, which scales. They travel as ``data:`` URIs: a server on stdio has no URL to serve them
from, and a client then fetches nothing (the specification asks clients to treat icon URLs
from a server with care; a data URI leaves nothing to fetch).
"""

from __future__ import annotations

import base64
from functools import cache
from importlib import resources

from mcp.types import Icon

__all__ = ["server_icons", "tool_icons"]

_FORMATS = (("png", "image/png", ["64x64"]), ("svg", "image/svg+xml", ["any"]))


@cache
def _icons(glyph: str) -> tuple[Icon, ...]:
    folder = resources.files(__package__).joinpath("icons")
    return tuple(
        Icon(
            src=f"data:{mime};base64,"
            + base64.b64encode(folder.joinpath(f"{glyph}.{ext}").read_bytes()).decode("ascii"),
            mime_type=mime,
            sizes=sizes,
        )
        for ext, mime, sizes in _FORMATS
    )


def server_icons() -> list[Icon]:
    """The server's icons (its ``serverInfo.icons``)."""
    return list(_icons("memory"))


def tool_icons(tool_name: str) -> list[Icon]:
    """A tool's icons: the session record's for ``chronica_*``, the memory's otherwise."""
    return list(_icons("session" if tool_name.startswith("chronica_") else "memory"))
