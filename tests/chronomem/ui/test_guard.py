"""The inspector's door on its own, spoken to as raw ASGI: a request path no HTTP client would
send as given (``//evil.example``) reaches the Guard exactly as a hostile link sends it."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from starlette.types import Message, Receive, Scope, Send

from chronomem.ui._guard import Guard

TOKEN = "Zq8-rT3vYp0LmN4xWb7Kc2Jd9Hs6Fg1Qa5Ue"


async def _never_reached(scope: Scope, receive: Receive, send: Send) -> None:
    raise AssertionError("the token exchange answers before any route")


def _get(path: str, query: bytes) -> tuple[int, dict[str, str]]:
    """Status and headers of ``GET path?query`` through a Guard that wants ``TOKEN``."""
    guard = Guard(_never_reached, hosts={"127.0.0.1"}, token=TOKEN)
    sent: list[Message] = []
    scope: dict[str, Any] = {
        "type": "http",
        "method": "GET",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query,
        "headers": [(b"host", b"127.0.0.1:8766")],
    }

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    anyio.run(guard, scope, receive, send)
    start = sent[0]
    headers = {k.decode(): v.decode() for k, v in start["headers"]}
    return start["status"], headers


@pytest.mark.parametrize(
    ("path", "where"),
    [
        ("//evil.example", "/evil.example"),
        ("///evil.example/x", "/evil.example/x"),
        ("/\\evil.example", "/evil.example"),
        ("/\\/evil.example", "/evil.example"),
        ("/sessions", "/sessions"),
        ("/", "/"),
    ],
)
def test_the_token_exchange_redirects_only_to_a_local_path(path: str, where: str) -> None:
    status, headers = _get(path, f"token={TOKEN}&x=1".encode())
    assert status == 303
    assert headers["location"] == f"{where}?x=1"
    assert not headers["location"].startswith(("//", "/\\"))
