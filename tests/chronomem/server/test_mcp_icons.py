"""The server's identity as MCP 2025-11-25 clients show it: title, description and icons.

The icons travel as ``data:`` URIs of the files ``scripts/make_icons.py`` draws (a PNG, which
every client that shows icons must read, and an SVG); the files in the package must be what
the script draws now, so nobody edits one and forgets the other.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

from mcp.types import Icon
from scripts import make_icons

from chronomem.server._app import DESCRIPTION, TITLE
from tests.chronomem.mcp_client import connect, run

REPO = Path(__file__).resolve().parents[3]


def _payload(icon: Icon) -> tuple[str, bytes]:
    head, _, data = icon.src.partition(",")
    assert head == f"data:{icon.mime_type};base64", head
    return icon.mime_type or "", base64.b64decode(data, validate=True)


def _drawn(glyph: str) -> dict[str, bytes]:
    shapes = make_icons.GLYPHS[glyph]
    return {"image/png": make_icons.png(shapes), "image/svg+xml": make_icons.svg(shapes).encode()}


def test_the_packaged_icons_are_what_the_script_draws() -> None:
    for glyph in make_icons.GLYPHS:
        drawn = _drawn(glyph)
        assert (make_icons.ICONS / f"{glyph}.png").read_bytes() == drawn["image/png"]
        assert (make_icons.ICONS / f"{glyph}.svg").read_bytes() == drawn["image/svg+xml"]
        png = drawn["image/png"]
        assert png.startswith(b"\x89PNG\r\n\x1a\n")
        assert int.from_bytes(png[16:20], "big") == int.from_bytes(png[20:24], "big") == 64


def test_initialize_names_describes_and_shows_the_server(tmp_path: Path) -> None:
    registry = json.loads((REPO / "server.json").read_text(encoding="utf-8"))

    async def go() -> None:
        async with connect(tmp_path / "m.db") as s:
            info = s.initialize_result
            assert info is not None
            server = info.server_info
            assert server.name == "chronomem"
            assert server.title == TITLE == registry["title"]
            assert server.description == DESCRIPTION == registry["description"]
            assert server.icons is not None
            assert dict(map(_payload, server.icons)) == _drawn("memory")
            assert {tuple(i.sizes or ()) for i in server.icons} == {("64x64",), ("any",)}

            tools = (await s.list_tools()).tools
            assert len(tools) == 10
            for tool in tools:
                assert tool.icons, tool.name
                glyph = "session" if tool.name.startswith("chronica_") else "memory"
                assert dict(map(_payload, tool.icons)) == _drawn(glyph), tool.name

    run(go)
