"""The server itself: tools, lifespan, bearer-token auth and transport security.

The database is one SQLite file shared by the memory and the session record; it is opened in
the SDK's lifespan and closed on shutdown.
"""

from __future__ import annotations

import hashlib
import hmac
import sys
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any

import anyio
import uvicorn
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.tools import Tool
from mcp.server.transport_security import TransportSecuritySettings

from chronomem._doors.http import uvicorn_config
from chronomem._doors.settings import shown

from ._config import ServerConfig
from ._state import State, open_state
from ._stdio import serve_stdio
from ._tools import TOOLS

__all__ = ["build_server", "serve"]


class _BearerToken:
    """Accepts exactly one shared secret, compared in constant time.

    Digests are compared rather than the tokens themselves, so even the time a comparison
    takes does not depend on how long the guess was or how much of it was right.
    """

    def __init__(self, token: str) -> None:
        self._digest = _digest(token)

    async def verify_token(self, token: str) -> AccessToken | None:
        if hmac.compare_digest(_digest(token), self._digest):
            return AccessToken(token=token, client_id="chronomem", scopes=[])
        return None


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8", errors="surrogatepass")).digest()


def _lifespan(config: ServerConfig) -> Any:
    @asynccontextmanager
    async def lifespan(_: MCPServer[State]) -> AsyncIterator[State]:
        state = await open_state(config.db, config.owner)
        try:
            yield state
        finally:
            state.close()

    return lifespan


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def build_server(config: ServerConfig) -> MCPServer[State]:
    """Create the MCP server for ``config`` (the database opens when it starts)."""
    auth: dict[str, Any] = {}
    if config.http is not None and config.token is not None:
        host, port = config.http
        auth = {
            "token_verifier": _BearerToken(config.token),
            "auth": AuthSettings(
                issuer_url=f"http://{_url_host(host)}:{port}",  # type: ignore[arg-type]  # pydantic parses the str
                resource_server_url=None,
            ),
        }
    server: MCPServer[State] = MCPServer(
        "chronomem",
        instructions=(
            "Long-term memory for this user. Call chronomem_recall before answering anything "
            "that may depend on what was said before; chronomem_remember what is worth keeping; "
            "chronomem_supersede what changed. chronica_* tools share a session with other agents."
        ),
        lifespan=_lifespan(config),
        log_level=config.log_level,
        tools=[_tool(fn) for fn in TOOLS],
        **auth,
    )
    return server


def _tool(fn: Callable[..., Any]) -> Tool:
    """Register ``fn`` with an output schema clients can check quickly.

    Every MCP client validates each result against the tool's output schema; pydantic's
    schemas point at ``$defs`` for nested records, and resolving those references slows that
    check (a ten-fact recall at 10,000 facts, A/B on a busy 2-core box: p50 12.2 ms per call
    with references, 10.8 ms inlined).
    """
    tool = Tool.from_function(fn, structured_output=True)
    schema = tool.fn_metadata.output_schema
    if schema is not None:  # the SDK reads this field live
        tool.fn_metadata.output_schema = _inline_refs(schema, schema.get("$defs", {}))
    return tool


def _inline_refs(node: Any, defs: Mapping[str, Any]) -> Any:
    """``node`` with every local ``$ref`` replaced by its definition (our records never nest
    themselves, so this terminates) and ``$defs`` dropped."""
    if isinstance(node, list):
        return [_inline_refs(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        return {**_inline_refs(defs[ref.removeprefix("#/$defs/")], defs), **siblings}
    return {k: _inline_refs(v, defs) for k, v in node.items() if k != "$defs"}


def _transport_security(host: str, extra: Sequence[str]) -> TransportSecuritySettings:
    """DNS-rebinding protection stays on: only Host/Origin values we expect are let in."""
    names = ["127.0.0.1", "localhost", "[::1]"]
    if host not in ("0.0.0.0", "::") and _url_host(host) not in names:
        names.append(_url_host(host))
    names.extend(extra)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[f"{n}:*" for n in names] + list(names),
        allowed_origins=[f"{scheme}://{n}:*" for n in names for scheme in ("http", "https")],
    )


def serve(config: ServerConfig) -> None:
    """Run the server until the client disconnects (stdio) or it is interrupted (HTTP)."""
    server = build_server(config)
    if config.http is None:
        anyio.run(serve_stdio, server)
        return
    host, port = config.http
    auth = "bearer token required" if config.token else "no token: open to every local account"
    print(
        f"chronomem: serving MCP over streamable HTTP at http://{_url_host(host)}:{port}/mcp "
        f"({auth}; db {shown(config.db)}; owner {config.owner})",
        file=sys.stderr,
        flush=True,
    )
    if config.token_generated:
        # Shown once, here, and kept nowhere: set CHRONOMEM_TOKEN for one that stays.
        print(
            f"chronomem: clients send 'Authorization: Bearer {config.token}' (a token made for "
            "this run; set CHRONOMEM_TOKEN to keep one across restarts)",
            file=sys.stderr,
            flush=True,
        )
    if host in ("0.0.0.0", "::") and not config.allowed_hosts:
        print(
            "chronomem: DNS-rebinding protection accepts only loopback Host headers; "
            "add the names clients use with --allow-host NAME",
            file=sys.stderr,
            flush=True,
        )
    app = server.streamable_http_app(
        host=host,
        transport_security=_transport_security(host, config.allowed_hosts),
        # Abandoned sessions must not pile up: bounded in number, and closed when idle.
        max_sessions=config.max_sessions,
        session_idle_timeout=config.session_idle,
    )
    # As the SDK's own run() does, but with a deadline for reading each request (a client
    # trickling its headers or body must not hold a connection forever).
    uvicorn.Server(
        uvicorn_config(app, host=host, port=port, log_level=config.log_level.lower())
    ).run()
