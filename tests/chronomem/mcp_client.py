"""Test helpers: drive real ``python -m chronomem.server`` subprocesses with the SDK's client."""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import re
import selectors
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.session import ElicitationFnT
from mcp.types import CallToolResult, TextContent

from chronomem.server import add_server_arguments

__all__ = [
    "call",
    "call_error",
    "connect",
    "fingerprint",
    "free_port",
    "http_server",
    "raw_stdio",
    "run",
    "server_args",
    "server_env",
    "text_of",
]


def server_env(db: Path | str, owner: str | None) -> dict[str, str]:
    """The environment a spawned server needs (the SDK passes only a safe default set);
    ``db`` a file or a ``postgresql://`` URL; ``owner=None`` leaves the owner unconfigured."""
    env = {"CHRONOMEM_DB": str(db)}
    if owner is not None:
        env["CHRONOMEM_OWNER"] = owner
    if "PYTHONPATH" in os.environ:
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return env


@asynccontextmanager
async def connect(
    db: Path | str,
    *,
    owner: str | None = "tester",
    errlog: Path | None = None,
    elicitation_callback: ElicitationFnT | None = None,
) -> AsyncIterator[ClientSession]:
    """An initialised client session to a fresh server process on ``db`` (a file, or a
    ``postgresql://`` URL, which needs ``errlog``). With ``elicitation_callback`` the client
    declares the elicitation capability and answers the server's questions with it."""
    params = server_params(db, owner)
    if errlog is None:
        assert isinstance(db, Path), "a server on PostgreSQL needs an errlog file"
        errlog = db.with_name(f"{db.name}.{owner}.stderr")
    log_path = errlog
    with log_path.open("w") as log:
        async with (
            stdio_client(params, errlog=log) as (read, write),
            ClientSession(read, write, elicitation_callback=elicitation_callback) as session,
        ):
            await session.initialize()
            yield session


def server_params(db: Path | str, owner: str | None = "tester") -> StdioServerParameters:
    """How the SDK's stdio clients start ``python -m chronomem.server`` on ``db``."""
    return StdioServerParameters(
        command=sys.executable, args=["-m", "chronomem.server"], env=server_env(db, owner)
    )


def fingerprint(db: Path | str) -> str:
    """What a write would change: the file and its log's bytes, or every table's rows."""
    if isinstance(db, Path):
        digest = hashlib.sha256()
        for part in (db, db.with_name(db.name + "-wal")):
            digest.update(part.read_bytes() if part.exists() else b"-")
        return digest.hexdigest()
    import psycopg  # the postgres extra's; only a PostgreSQL target gets here

    with psycopg.connect(db) as conn:
        tables = conn.execute(
            """SELECT schemaname, tablename FROM pg_tables
               WHERE schemaname IN ('chronomem', 'chronica') ORDER BY 1, 2"""
        ).fetchall()
        assert len(tables) > 5, tables
        sums = [
            conn.execute(
                f"SELECT count(*), md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) "
                f'FROM "{schema}"."{table}" t'
            ).fetchone()
            for schema, table in tables
        ]
    return json.dumps([[*t, *map(str, s or ())] for t, s in zip(tables, sums, strict=True)])


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
            assert shown_id(text, fact["content"]) in _ends(fact["id"])
    structured: dict[str, Any] = result.structured_content
    return structured


def shown_id(text: str, content: str) -> str:
    """The id the line of ``text`` that says ``content`` shows (a fact id or its end)."""
    found = re.search(rf"^\[([0-9A-Za-z_.:-]+)\] {re.escape(content)}", text, re.MULTILINE)
    assert found, f"no line says {content!r} in:\n{text}"
    return found.group(1)


def _ends(fact_id: str) -> list[str]:
    # A fact id is shown whole or as its end, of at least 8 digits (chronomem/_doors/ids.py).
    return [fact_id[-n:] for n in range(8, len(fact_id) + 1)] if len(fact_id) > 8 else [fact_id]


async def call_error(session: ClientSession, tool: str, **arguments: Any) -> str:
    """Call ``tool`` expecting a tool error; return its message."""
    result = await session.call_tool(tool, arguments)
    assert result.is_error, f"{tool} unexpectedly succeeded: {result.structured_content}"
    return text_of(result)


def run(test: Callable[[], Awaitable[None]]) -> None:
    """Run an async test body on anyio's default backend."""
    anyio.run(test)


def server_args(*argv: str) -> argparse.Namespace:
    """The server's flags parsed as ``python -m chronomem.server`` would parse them."""
    parser = argparse.ArgumentParser()
    add_server_arguments(parser)
    return parser.parse_args(argv)


def free_port() -> int:
    """A TCP port on loopback that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextlib.contextmanager
def http_server(
    tmp_path: Path,
    *,
    token: str | None = None,
    extra_env: Mapping[str, str] | None = None,
    args: Sequence[str] = (),
) -> Iterator[str]:
    """A ``python -m chronomem.server --http`` subprocess on loopback; yields its MCP URL.
    Without ``token`` it serves with ``--no-token`` (a test of something else than auth)."""
    port = free_port()
    env = {**server_env(tmp_path / "m.db", "ardian"), "PATH": "/usr/bin:/bin", **(extra_env or {})}
    if token is not None:
        env["CHRONOMEM_TOKEN"] = token
    else:
        args = ["--no-token", *args]
    with (tmp_path / "http.log").open("w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "chronomem.server", "--http", f"127.0.0.1:{port}", *args],
            env=env,
            stderr=log,
        )
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    assert proc.poll() is None, "server exited early"
                    assert time.monotonic() < deadline, "server did not start"
                    time.sleep(0.1)
            yield f"http://127.0.0.1:{port}/mcp"
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    assert "serving MCP over streamable HTTP" in (tmp_path / "http.log").read_text()


def raw_stdio(
    db: Path,
    messages: Sequence[Mapping[str, Any] | bytes],
    *,
    answers: set[int | str | None],
    timeout: float = 30,
    every: list[dict[str, Any]] | None = None,
    at_least: int = 0,
) -> tuple[dict[int | str | None, dict[str, Any]], str]:
    """Speak raw JSON-RPC lines to a server process, as a careless client would.

    Sends every message (a dict is sent as ``json.dumps`` writes it, bytes as they are),
    keeps stdin open until each id in ``answers`` has a reply and ``at_least`` replies came
    or ``timeout`` passes (a server that never answers fails here, never hangs the suite),
    then closes stdin and waits for the process. Returns the replies by id (``None`` for
    replies without one) and stderr; ``every`` collects all replies in order (several may
    have no id).
    """
    every = [] if every is None else every
    wire = [m if isinstance(m, bytes) else json.dumps(m).encode() for m in messages]
    with (
        (db.parent / f"{db.name}.raw.stderr").open("w+") as log,
        subprocess.Popen(
            [sys.executable, "-m", "chronomem.server"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            env={**server_env(db, "tester"), "PATH": "/usr/bin:/bin"},
        ) as proc,
    ):
        assert proc.stdin is not None
        assert proc.stdout is not None
        replies: dict[int | str | None, dict[str, Any]] = {}
        try:
            proc.stdin.write(b"".join(line + b"\n" for line in wire))
            proc.stdin.flush()
            deadline = time.monotonic() + timeout
            pending = b""  # read the pipe itself: a buffered readline could hide a reply
            with selectors.DefaultSelector() as sel:
                sel.register(proc.stdout, selectors.EVENT_READ)
                while not answers <= replies.keys() or len(every) < at_least:
                    left = deadline - time.monotonic()
                    assert left > 0, f"no reply to {answers - replies.keys()}, {len(every)} in all"
                    if not sel.select(left):
                        continue
                    chunk = os.read(proc.stdout.fileno(), 1 << 16)
                    assert chunk, f"server closed stdout; replies so far: {replies}"
                    *lines, pending = (pending + chunk).split(b"\n")
                    for reply in map(json.loads, filter(None, lines)):
                        replies[reply.get("id")] = reply
                        every.append(reply)
            proc.stdin.close()
            assert proc.wait(timeout=timeout) == 0
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        log.seek(0)
        return replies, log.read()
