"""Test helper: drive a real ``python -m chronomem.server`` subprocess with the SDK's client."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.types import CallToolResult, TextContent

__all__ = ["call", "call_error", "connect", "server_env", "text_of"]


def server_env(db: Path, owner: str) -> dict[str, str]:
    """The environment a spawned server needs (the SDK passes only a safe default set)."""
    env = {"CHRONOMEM_DB": str(db), "CHRONOMEM_OWNER": owner}
    if "PYTHONPATH" in os.environ:
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return env


@asynccontextmanager
async def connect(
    db: Path, *, owner: str = "tester", errlog: Path | None = None
) -> AsyncIterator[ClientSession]:
    """An initialised client session to a fresh server process on ``db``."""
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "chronomem.server"], env=server_env(db, owner)
    )
    log_path = errlog or db.with_name(f"{db.name}.{owner}.stderr")
    with log_path.open("w") as log:
        async with (
            stdio_client(params, errlog=log) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session


def text_of(result: CallToolResult) -> str:
    """The text blocks of a tool result, joined."""
    return "\n".join(c.text for c in result.content if isinstance(c, TextContent))


async def call(session: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
    """Call ``tool`` and return its structured output; fail the test on a tool error."""
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, f"{tool} failed: {text_of(result)}"
    assert result.structured_content is not None, f"{tool} returned no structured output"
    # The text block is for clients that only read text: the structured output as JSON, or
    # (recall, timeline) compact lines that spend the model's tokens on facts, not syntax.
    text = text_of(result)
    if text.startswith("{"):
        assert json.loads(text) == result.structured_content
    else:
        for fact in result.structured_content["facts"]:
            assert f"[{fact['id']}] {fact['content']}" in text
    structured: dict[str, Any] = result.structured_content
    return structured


async def call_error(session: ClientSession, tool: str, **arguments: Any) -> str:
    """Call ``tool`` expecting a tool error; return its message."""
    result = await session.call_tool(tool, arguments)
    assert result.is_error, f"{tool} unexpectedly succeeded: {result.structured_content}"
    return text_of(result)
