"""Streamable HTTP: bearer-token auth, transport security, and the uvicorn that serves it.

Imported only when the server is asked for HTTP, so a stdio server (what MCP clients start,
and wait for) never loads uvicorn, Starlette or the SDK's auth.
"""

from __future__ import annotations

import hashlib
import hmac
import sys
from collections.abc import Sequence
from typing import Any

import uvicorn
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings

from chronomem._doors.http import uvicorn_config
from chronomem._doors.settings import shown

from ._config import ServerConfig

__all__ = ["auth_options", "serve_http", "url_host"]


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


def url_host(host: str) -> str:
    """``host`` as a URL writes it (an IPv6 address in brackets)."""
    return f"[{host}]" if ":" in host else host


def auth_options(config: ServerConfig) -> dict[str, Any]:
    """The ``MCPServer`` options that make it require ``config.token`` (none without one)."""
    if config.http is None or config.token is None:
        return {}
    host, port = config.http
    return {
        "token_verifier": _BearerToken(config.token),
        "auth": AuthSettings(
            issuer_url=f"http://{url_host(host)}:{port}",  # type: ignore[arg-type]  # pydantic parses the str
            resource_server_url=None,
        ),
    }


def _transport_security(host: str, extra: Sequence[str]) -> TransportSecuritySettings:
    """DNS-rebinding protection stays on: only Host/Origin values we expect are let in."""
    names = ["127.0.0.1", "localhost", "[::1]"]
    if host not in ("0.0.0.0", "::") and url_host(host) not in names:
        names.append(url_host(host))
    names.extend(extra)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[f"{n}:*" for n in names] + list(names),
        allowed_origins=[f"{scheme}://{n}:*" for n in names for scheme in ("http", "https")],
    )


def serve_http(server: MCPServer[Any], config: ServerConfig) -> None:
    """Serve ``server`` over streamable HTTP until interrupted."""
    assert config.http is not None
    host, port = config.http
    auth = "bearer token required" if config.token else "no token: open to every local account"
    print(
        f"chronomem: serving MCP over streamable HTTP at http://{url_host(host)}:{port}/mcp "
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
