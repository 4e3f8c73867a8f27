"""The yardstick for MCP overhead: one trivial tool on the same SDK as ``chronomem serve``.

``python -m scripts.matrix.trivial_server`` serves ``echo`` over stdio. Timing it beside
``chronomem_recall`` in one run separates what the SDK and its transport cost on every call
from what chronomem's recall adds.
"""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

server = MCPServer("trivial")


@server.tool()
def echo(text: str) -> str:
    """Return ``text`` unchanged."""
    return text


if __name__ == "__main__":
    server.run("stdio")
