"""A Claude Code transcript read for what was said, from where the last hook stopped.

Claude Code writes each session as JSON Lines (``~/.claude/projects/<project>/<session>.jsonl``):
one object per line with ``type`` (``user``, ``assistant``, ``summary``, ``system`` and
bookkeeping types), ``uuid``, ``parentUuid``, ``isSidechain``, ``sessionId``, ``timestamp``
and, for the two speakers, ``message`` with ``role`` and ``content``: a string, or a list of
blocks (``text``, ``thinking``, ``tool_use``, ``tool_result``, ``image``).

What is said is kept: a ``user`` line's text (its string, or its ``text`` blocks; a line of
only ``tool_result`` blocks is a tool's output, not the person) and an ``assistant`` line's
``text`` blocks. Thinking, tool calls and results, summaries, sub-agents' sidechains and
malformed lines are skipped. A last line without its newline is still being written: it is
left for the next call.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from typing import Any

__all__ = ["Line", "Position", "read_said"]

MAX_TEXT_BYTES = 1024 * 1024  # a chronica actum's content at most
_TAIL = 64  # bytes before a position whose hash proves the file is the one read before


@dataclass(frozen=True)
class Position:
    """Where a read stopped: a byte offset and the hash of the bytes just before it."""

    offset: int
    tail: str

    def to_json(self) -> dict[str, Any]:
        return {"end": self.offset, "tail": self.tail}

    @classmethod
    def from_json(cls, value: object) -> Position | None:
        if not isinstance(value, dict):
            return None
        end, tail = value.get("end"), value.get("tail")
        if isinstance(end, int) and not isinstance(end, bool) and isinstance(tail, str):
            return cls(end, tail)
        return None


@dataclass(frozen=True)
class Line:
    """One thing said: ``key`` is unique in the transcript (the line's ``uuid``)."""

    key: str
    role: str  # "user" or "assistant"
    text: str
    timestamp: str | None
    position: Position  # just after this line: where the next read starts


def _tail_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def _start(f: Any, size: int, since: Position | None) -> int:
    """Where to read from: ``since`` if the file still holds the same bytes before it;
    else the beginning (a transcript replaced, or cut shorter: every line is read again,
    and what was recorded before is recognised by its key)."""
    if since is None or since.offset > size or since.offset < 0:
        return 0
    f.seek(max(0, since.offset - _TAIL))
    if _tail_hash(f.read(min(since.offset, _TAIL))) != since.tail:
        return 0
    return since.offset


def read_said(path: str | os.PathLike[str], since: Position | None) -> list[Line]:
    """What was said in the transcript after ``since``, oldest first."""
    said: list[Line] = []
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        offset = _start(f, size, since)
        f.seek(max(0, offset - _TAIL))
        tail = f.read(offset - f.tell())
        for raw in f:
            if not raw.endswith(b"\n"):
                break  # still being written
            offset += len(raw)
            tail = (tail + raw)[-_TAIL:]
            line = _said(raw, Position(offset, _tail_hash(tail)))
            if line is not None:
                said.append(line)
    return said


def _said(raw: bytes, position: Position) -> Line | None:
    try:
        entry = json.loads(raw)
    except (ValueError, RecursionError):
        return None  # a malformed line is skipped, never fatal
    if not isinstance(entry, dict) or entry.get("isSidechain") is True:
        return None
    role = entry.get("type")
    message = entry.get("message")
    if role not in ("user", "assistant") or not isinstance(message, dict):
        return None
    text = _text(message.get("content"))
    if not text:
        return None
    uuid = entry.get("uuid")
    key = uuid if isinstance(uuid, str) and uuid else hashlib.sha256(raw).hexdigest()
    stamp = entry.get("timestamp")
    return Line(key, role, text, stamp if isinstance(stamp, str) else None, position)


def _text(content: object) -> str:
    if isinstance(content, str):
        parts = [content]
    elif isinstance(content, list):
        parts = [
            block["text"]
            for block in content
            if isinstance(block, dict)
            and block.get("type") == "text"
            and isinstance(block.get("text"), str)
        ]
    else:
        return ""
    text = "\n".join(parts).replace("\x00", "\ufffd").strip()
    data = text.encode("utf-8", "replace")
    if len(data) > MAX_TEXT_BYTES:
        return data[:MAX_TEXT_BYTES].decode("utf-8", "ignore")
    return data.decode("utf-8")
