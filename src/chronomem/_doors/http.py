"""The HTTP server under the doors served over HTTP (``serve --http`` and ``ui``): uvicorn, with
a deadline for reading each request.

uvicorn closes a connection idle *between* requests (``timeout_keep_alive``) but waits
forever for a request that has started: a client that sends its headers, or its body, one
byte a minute (or connects and sends nothing) holds a connection and a file descriptor with
no token at all; 400 such clients were held for a minute in a hostile run. Here a request
must arrive whole, headers and body, within :data:`REQUEST_READ_SECONDS` of its first byte
(of the connection, for the first request); otherwise the connection is closed, and an app
still waiting for the body sees the client gone. A response the server is streaming (an MCP
event stream) has no such deadline: only reading the request does.

Imported only by the doors served over HTTP, so the command line never loads uvicorn.
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["REQUEST_READ_SECONDS", "TimedH11Protocol", "uvicorn_config"]

REQUEST_READ_SECONDS = 30.0
"""How long a client may take to send one request, headers and body: a JSON-RPC call or a
page request is a few kilobytes, sent in milliseconds even on a slow link."""


class TimedH11Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol, closing a connection whose request does not arrive whole
    within ``read_timeout`` seconds."""

    read_timeout = REQUEST_READ_SECONDS

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._read_deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]  # uvicorn narrows the transport type
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state in (h11.IDLE, h11.SEND_BODY):
            self._arm()  # a request has begun (or goes on): its deadline runs
        else:
            self._disarm()  # the request is whole (or the connection ends): no deadline

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        if self._read_deadline is None:
            self._read_deadline = self.loop.call_later(self.read_timeout, self._too_slow)

    def _disarm(self) -> None:
        if self._read_deadline is not None:
            self._read_deadline.cancel()
            self._read_deadline = None

    def _too_slow(self) -> None:
        self._read_deadline = None
        if self.conn.their_state in (h11.IDLE, h11.SEND_BODY) and not self.transport.is_closing():
            self.logger.warning("closed a connection whose request did not arrive in time")
            self.transport.close()


def uvicorn_config(app: Any, *, host: str, port: int, **options: Any) -> uvicorn.Config:
    """uvicorn's settings for a door: the timed protocol, and ``options`` as uvicorn takes
    them."""
    return uvicorn.Config(app, host=host, port=port, http=TimedH11Protocol, **options)
