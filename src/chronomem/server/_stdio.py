"""stdio with an answer for every request, even one the SDK cannot read.

The SDK parses each line with a strict JSON reader: a lone surrogate escape (``"\\ud800"``)
or nesting deeper than about 200 levels fails there, before any handler runs, and the SDK
only logs it at debug level. The client never hears back and waits forever. Here such a
failure is caught between the transport and the server: the line is read again with
Python's lenient reader to find the request's id, and the request gets a JSON-RPC error that
says why. Notifications (no id) and lines with no recoverable id are logged as warnings.

Some lines the SDK reads without complaint yet never answers: a request whose ``id`` is an
object, an array, a fraction, ``null`` or a boolean validates as a *notification* (the SDK
ignores the id it cannot use), so the client waits forever. Every line is therefore screened
before the SDK reads it (:class:`_Screened`): a line with an ``id`` member that is not an
integer or a string, or with an ``id`` and a ``jsonrpc`` other than ``"2.0"``, is answered
with "invalid request" (its own id when that id is usable, ``null`` otherwise, as JSON-RPC
says) and not passed on. The SDK's streamable HTTP transport refuses the same lines with the
same code.
"""

from __future__ import annotations

import contextlib
import contextvars
import io
import json
import logging
import os
from collections.abc import AsyncIterator, Iterator
from types import TracebackType
from typing import Any, cast

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared._stream_protocols import ReadStream, WriteStream
from mcp.shared.message import SessionMessage
from mcp.types import INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError
from pydantic import ValidationError
from typing_extensions import Self

__all__ = ["serve_stdio"]

logger = logging.getLogger("chronomem.server")

_RULES = (
    "text must be valid Unicode (no lone surrogates such as \\ud800) "
    "and JSON at most 200 levels deep"
)


async def serve_stdio(server: MCPServer[Any]) -> None:
    """Serve ``server`` on stdin/stdout until the client closes stdin."""
    # The SDK offers no public way to run an MCPServer on streams of one's own; its own
    # in-process client reaches for the same attribute.
    lowlevel = server._lowlevel_server
    refused, refusals = anyio.create_memory_object_stream[SessionMessage](16)
    with _claimed_stdin() as wire:
        lines = _Screened(anyio.wrap_file(wire), refused)
        # The SDK reads its stdin with ``async for line in stdin`` only.
        stdin = cast("anyio.AsyncFile[str]", lines)
        async with (
            stdio_server(stdin=stdin) as (read_stream, write_stream),
            anyio.create_task_group() as tasks,
        ):
            tasks.start_soon(_forward, refusals, write_stream)
            guarded = _AnswerUnreadable(read_stream, write_stream)
            await lowlevel.run(guarded, write_stream, lowlevel.create_initialization_options())
            # The last answers go out when stdin ends (the screen then closes its stream);
            # a screen never finished (its reader cancelled) must not hold up the exit.
            tasks.cancel_scope.deadline = anyio.current_time() + 2


class _Wire(io.TextIOWrapper):
    """Text over the client's descriptor whose close never closes that descriptor: a worker
    thread may still block reading it after the server stops (the SDK's own rule)."""

    def close(self) -> None:
        with contextlib.suppress(ValueError):
            self.detach()


@contextlib.contextmanager
def _claimed_stdin() -> Iterator[io.TextIOWrapper]:
    """The client's lines, read from a private copy of fd 0, while fd 0 itself points at the
    null device (as the SDK arranges when it opens stdin itself): nothing else in the process,
    a child or a library, can read a line meant for the server. fd 0 is restored on exit."""
    private = os.dup(0)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
    finally:
        os.close(null)
    try:
        raw = os.fdopen(private, "rb", closefd=False)
        yield _Wire(raw, encoding="utf-8", errors="replace")
    finally:
        os.dup2(private, 0)


async def _forward(
    refusals: MemoryObjectReceiveStream[SessionMessage], replies: WriteStream[SessionMessage]
) -> None:
    """Send the screen's answers on the server's own reply stream, until it closes."""
    async with refusals:
        async for reply in refusals:
            try:
                await replies.send(reply)
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                return


class _Screened:
    """The client's lines, as the SDK reads them, less those it would take for a notification
    or answer with a null id: those are answered here (see the module's docstring)."""

    def __init__(
        self, lines: anyio.AsyncFile[str], refused: MemoryObjectSendStream[SessionMessage]
    ) -> None:
        self._lines = lines
        self._refused = refused

    async def __aiter__(self) -> AsyncIterator[str]:
        async with self._refused:
            async for line in self._lines:
                refusal = _refusal(line)
                if refusal is None:
                    yield line
                    continue
                logger.warning("answered an invalid request (id %r): %s", refusal.id, refusal)
                await self._refused.send(SessionMessage(refusal))


def _refusal(line: str) -> JSONRPCError | None:
    """The error answering ``line``, when the SDK would read it but never answer it right."""
    if '"id"' not in line:  # no id, nothing to answer (the common notification)
        return None
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return None  # the SDK fails on it too, and _AnswerUnreadable answers
    if not isinstance(message, dict) or "id" not in message:
        return None
    request_id = message["id"]
    usable = isinstance(request_id, str) or (
        isinstance(request_id, int) and not isinstance(request_id, bool)
    )
    if usable and message.get("jsonrpc") == "2.0":
        return None
    if usable:
        why = f'jsonrpc must be "2.0", got {json.dumps(message.get("jsonrpc"))[:40]}'
    else:
        why = f"id must be an integer or a string, got {_json_kind(request_id)}"
    return JSONRPCError(
        jsonrpc="2.0",
        id=request_id if usable else None,
        error=ErrorData(code=INVALID_REQUEST, message=f"invalid request: {why}"),
    )


def _json_kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, float):
        return "a number with a fraction part"
    return "an object" if isinstance(value, dict) else "an array"


class _AnswerUnreadable:
    """The transport's read stream, with unreadable lines answered instead of passed on."""

    def __init__(
        self,
        inner: ReadStream[SessionMessage | Exception],
        replies: WriteStream[SessionMessage],
    ) -> None:
        self._inner = inner
        self._replies = replies

    @property
    def last_context(self) -> contextvars.Context | None:
        """The sender's context of the last message, as the SDK's dispatcher reads it."""
        context: contextvars.Context | None = getattr(self._inner, "last_context", None)
        return context

    async def receive(self) -> SessionMessage | Exception:
        while True:
            item = await self._inner.receive()
            if not isinstance(item, Exception):
                return item
            await self._answer(item)

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        await self.aclose()
        return None

    async def _answer(self, error: Exception) -> None:
        raw, reason = _raw_and_reason(error)
        members, code = _top_level(raw)
        if "method" in members and "id" not in members:
            logger.warning("ignored an unreadable notification from the client: %s", reason)
            return
        request_id = members.get("id")
        if isinstance(request_id, bool) or not isinstance(request_id, (int, str)):
            request_id = None  # JSON-RPC's answer when the request's id cannot be known
        logger.warning("answered an unreadable request (id %r): %s", request_id, reason)
        text = f"the server cannot read this request ({reason}); {_RULES}"
        reply = JSONRPCError(jsonrpc="2.0", id=request_id, error=ErrorData(code=code, message=text))
        await self._replies.send(SessionMessage(reply))


def _raw_and_reason(error: Exception) -> tuple[object, str]:
    """What the SDK failed to read (the line, or the part of it it objected to), and why."""
    if isinstance(error, ValidationError) and error.errors():
        first = error.errors()[0]
        return first.get("input"), str(first.get("msg", error))
    return None, f"{type(error).__name__}: {error}"


_DECODER = json.JSONDecoder()


def _top_level(raw: object) -> tuple[dict[str, object], int]:
    """The outermost object's ``id`` and ``method`` (whichever are there), and the error code.

    A line the SDK rejects may be too deep for any recursive parser, Python's included, so
    the outermost members are found by a flat scan that steps over everything nested.
    """
    if isinstance(raw, dict):
        return {k: raw[k] for k in ("id", "method") if k in raw}, INVALID_REQUEST
    if not isinstance(raw, str):
        return {}, PARSE_ERROR
    try:
        json.loads(raw)
        code = INVALID_REQUEST  # JSON, but not a request the SDK accepts
    except RecursionError:
        code = INVALID_REQUEST  # JSON, nested beyond any parser's patience
    except ValueError:
        code = PARSE_ERROR
    found: dict[str, object] = {}
    for key, start in _outer_members(raw):
        if key in ("id", "method"):
            try:
                found[key] = _DECODER.raw_decode(raw, start)[0]
            except (ValueError, RecursionError):
                found[key] = None
    return found, code


def _outer_members(text: str) -> list[tuple[str, int]]:
    """(key, where its value starts) for each member of the outermost JSON object."""
    members: list[tuple[str, int]] = []
    depth, i, key_next = 0, 0, False
    while i < len(text):
        char = text[i]
        if char == '"':
            end = _string_end(text, i)
            if depth == 1 and key_next:
                colon = _skip_space(text, end)
                if colon < len(text) and text[colon] == ":":
                    try:
                        key = json.loads(text[i:end])
                    except ValueError:
                        key = None
                    if isinstance(key, str):
                        members.append((key, _skip_space(text, colon + 1)))
            key_next = False
            i = end
            continue
        if char in "{[":
            depth += 1
            key_next = depth == 1 and char == "{"
        elif char in "}]":
            depth -= 1
        elif char == "," and depth == 1:
            key_next = True
        i += 1
    return members


def _string_end(text: str, start: int) -> int:
    """The index just past the JSON string that opens at ``start``."""
    i = start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
        elif text[i] == '"':
            return i + 1
        else:
            i += 1
    return len(text)


def _skip_space(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return i
