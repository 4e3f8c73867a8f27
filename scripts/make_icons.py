"""Draw the MCP server's icons: src/chronomem/server/icons/{memory,session}.{svg,png}.

One description of each glyph (circles, strokes and dots in a 64-unit square) is written twice:
as SVG, which scales, and as a 64x64 PNG, the format every MCP client that shows icons must read
(MCP 2025-11-25: PNG and JPEG are a MUST, SVG a SHOULD). The PNG is drawn here, with the
standard library only, so the files can be made again from this script alone:
``python scripts/make_icons.py``. tests/chronomem/server/test_mcp_icons.py checks the files are
what this script draws.
"""

from __future__ import annotations

import math
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

ICONS = Path(__file__).resolve().parents[1] / "src" / "chronomem" / "server" / "icons"
SIZE = 64
INK = (0x2B, 0x4C, 0x7E)
"""One colour, legible on light and dark backgrounds alike."""


@dataclass(frozen=True)
class Ring:
    cx: float
    cy: float
    r: float
    width: float


@dataclass(frozen=True)
class Stroke:
    x1: float
    y1: float
    x2: float
    y2: float
    width: float


@dataclass(frozen=True)
class Dot:
    cx: float
    cy: float
    r: float


Shape = Ring | Stroke | Dot

GLYPHS: dict[str, tuple[Shape, ...]] = {
    # The memory: a clock face (what was true when), its hands at ten past two.
    "memory": (
        Ring(32, 32, 25, 6),
        Stroke(32, 32, 32, 15, 6),
        Stroke(32, 32, 44, 38, 6),
        Dot(32, 32, 4.5),
    ),
    # The session record: three turns, one under the other, each with its speaker's dot.
    "session": (
        Dot(12, 16, 5),
        Stroke(22, 16, 54, 16, 6),
        Dot(12, 32, 5),
        Stroke(22, 32, 46, 32, 6),
        Dot(12, 48, 5),
        Stroke(22, 48, 54, 48, 6),
    ),
}


def svg(shapes: tuple[Shape, ...]) -> str:
    ink = "#{:02x}{:02x}{:02x}".format(*INK)
    parts = []
    for s in shapes:
        if isinstance(s, Ring):
            parts.append(
                f'<circle cx="{s.cx:g}" cy="{s.cy:g}" r="{s.r:g}" fill="none" '
                f'stroke="{ink}" stroke-width="{s.width:g}"/>'
            )
        elif isinstance(s, Stroke):
            parts.append(
                f'<line x1="{s.x1:g}" y1="{s.y1:g}" x2="{s.x2:g}" y2="{s.y2:g}" '
                f'stroke="{ink}" stroke-width="{s.width:g}" stroke-linecap="round"/>'
            )
        else:
            parts.append(f'<circle cx="{s.cx:g}" cy="{s.cy:g}" r="{s.r:g}" fill="{ink}"/>')
    body = "".join(parts)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {SIZE} {SIZE}" '
        f'width="{SIZE}" height="{SIZE}">{body}</svg>\n'
    )


def _distance(shape: Shape, x: float, y: float) -> float:
    """How far (x, y) is inside the shape's edge: positive inside, negative outside."""
    if isinstance(shape, Ring):
        return shape.width / 2 - abs(math.hypot(x - shape.cx, y - shape.cy) - shape.r)
    if isinstance(shape, Dot):
        return shape.r - math.hypot(x - shape.cx, y - shape.cy)
    dx, dy = shape.x2 - shape.x1, shape.y2 - shape.y1
    t = max(0.0, min(1.0, ((x - shape.x1) * dx + (y - shape.y1) * dy) / (dx * dx + dy * dy)))
    return shape.width / 2 - math.hypot(x - (shape.x1 + t * dx), y - (shape.y1 + t * dy))


def png(shapes: tuple[Shape, ...]) -> bytes:
    """The glyph as an RGBA PNG, anti-aliased over one pixel at the edges."""
    rows = []
    for py in range(SIZE):
        row = bytearray([0])  # filter type: none
        for px in range(SIZE):
            inside = max(_distance(s, px + 0.5, py + 0.5) for s in shapes)
            alpha = round(255 * max(0.0, min(1.0, inside + 0.5)))
            row += bytes([*INK, alpha])
        rows.append(bytes(row))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    header = struct.pack(">IIBBBBB", SIZE, SIZE, 8, 6, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"".join(rows), 9))
        + chunk(b"IEND", b"")
    )


def main() -> None:
    ICONS.mkdir(exist_ok=True)
    for name, shapes in GLYPHS.items():
        (ICONS / f"{name}.svg").write_text(svg(shapes), encoding="ascii")
        (ICONS / f"{name}.png").write_bytes(png(shapes))


if __name__ == "__main__":
    main()
