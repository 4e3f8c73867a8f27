"""Who may talk to the inspector, and what every answer carries: one ASGI middleware.

The rules are the MCP HTTP transport's: a Host header must name this machine or a name the
user allowed (DNS rebinding: a hostile page that points its own name at 127.0.0.1 still sends
that name), and off loopback a token is required. A browser cannot add an ``Authorization``
header to a link, so the token is also accepted once as ``?token=`` and traded for an
``HttpOnly``, ``SameSite=Strict`` cookie, and the URL is rewritten without it. Nothing the
inspector serves writes, so every method but GET and HEAD is refused before it reaches a route.
Every response carries a Content-Security-Policy that allows only the inspector's own scripts:
stored text is rendered as text by the page, and the policy is the second wall behind that.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable
from http.cookies import SimpleCookie
from urllib.parse import parse_qsl, urlencode

from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["COOKIE", "SECURITY_HEADERS", "Guard"]

COOKIE = "chronomem_ui"

SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (
        b"content-security-policy",
        b"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        b"connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
)


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8", errors="surrogatepass")).digest()


def _host_name(value: str) -> str:
    """``Host`` without its port: ``[::1]:80`` -> ``::1``, ``localhost:8766`` -> ``localhost``."""
    if value.startswith("["):
        return value[1:].partition("]")[0].lower()
    return value.rpartition(":")[0].lower() if value.count(":") == 1 else value.lower()


def _local(path: str) -> str:
    """``path`` as a path on this server, never another site: a browser reads ``//evil.example``
    (and ``/\\evil.example``) in a Location header as a link to that host, so leading slashes
    and backslashes collapse to one slash."""
    return "/" + path.lstrip("/\\")


class Guard:
    """Host check, token check, read-only methods and security headers around ``app``."""

    def __init__(self, app: ASGIApp, *, hosts: Iterable[str], token: str | None) -> None:
        self._app = app
        self._hosts = frozenset(hosts)
        self._digest = None if token is None else _digest(token)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        refusal = self._refusal(scope)
        if refusal is None and self._digest is not None:
            refusal = self._token_refusal(scope)
        if refusal is not None:
            await refusal(scope, receive, self._with_headers(send, ""))
            return
        await self._app(scope, receive, self._with_headers(send, scope["path"]))

    def _refusal(self, scope: Scope) -> Response | None:
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        if _host_name(headers.get("host", "")) not in self._hosts:
            return JSONResponse({"error": "Host header not allowed"}, status_code=421)
        origin = headers.get("origin")
        if origin is not None and _host_name(origin.partition("://")[2]) not in self._hosts:
            return JSONResponse({"error": "Origin not allowed"}, status_code=403)
        if scope["method"] not in ("GET", "HEAD"):
            return JSONResponse(
                {"error": "the inspector is read-only"},
                status_code=405,
                headers={"Allow": "GET, HEAD"},
            )
        return None

    def _token_refusal(self, scope: Scope) -> Response | None:
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        bearer = headers.get("authorization", "")
        if bearer.startswith("Bearer ") and self._matches(bearer[7:]):
            return None
        cookie: SimpleCookie = SimpleCookie()
        cookie.load(headers.get("cookie", ""))
        if COOKIE in cookie and self._matches(cookie[COOKIE].value):
            return None
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"))
        given = [v for k, v in query if k == "token"]
        if given and self._matches(given[-1]):
            rest = urlencode([(k, v) for k, v in query if k != "token"])
            redirect = RedirectResponse(_local(scope["path"]) + (f"?{rest}" if rest else ""), 303)
            redirect.set_cookie(COOKIE, given[-1], httponly=True, samesite="strict")
            return redirect
        return JSONResponse(
            {"error": "token required: open the URL chronomem ui printed (?token=...)"},
            status_code=401,
        )

    def _matches(self, token: str) -> bool:
        assert self._digest is not None
        return hmac.compare_digest(_digest(token), self._digest)

    @staticmethod
    def _with_headers(send: Send, path: str) -> Send:
        # The page's own files may be kept and revalidated (a 304 costs a few bytes); data
        # is never stored, a memory being private.
        cache = (b"cache-control", b"no-cache" if path.startswith("/static/") else b"no-store")

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *SECURITY_HEADERS, cache]
            await send(message)

        return sending
