"""The export file: JSON Lines that say whether they are complete, read line by line.

Each line is one object with one key naming what it holds::

    {"export": {"format": "chronomem", "version": 2, "owner": "ardian"}}
    {"fact": {... every field of ChronoMem.export_facts(), all times and lineage ...}}
    {"chronicum": {"id": "dinner-friday", "owner_id": "ardian", "created_at": "..."}}
    {"actum": {"id": "...", "chronicum_id": "dinner-friday", "kind": "message", ..., "at": "..."}}
    {"end": {"facts": 4, "chronica": 1, "acta": 3, "sha256": "..."}}

The ``end`` line closes the file: how many records came before it and the SHA-256 of every
byte before it. A file cut short at a line boundary still parses line by line, so without
this trailer a backup missing its last sessions would import "successfully"; with it, a
missing or wrong trailer is a refusal unless the user accepts the risk (``--allow-truncated``).

Every record is checked as it is read, by the rules the memory and chronica apply to a live
write, so a bad record is reported with its line number before anything is written.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from chronica import ActorKind, Actum, ActumKind, ChronicaError, Chronicarius, Chronicum
from chronica.stores.inmemory import InMemoryStore
from chronomem import ChronoMemError
from chronomem._iso8601 import parse_time
from chronomem._records import parse_record

from ._output import Progress

__all__ = [
    "FORMAT_VERSION",
    "ExportFormatError",
    "Loaded",
    "actum_record",
    "chronicum_record",
    "read_export",
    "written_lines",
]

FORMAT_VERSION = 2
"""2 added the ``end`` trailer; version 1 files have none."""

_TRUNCATED_HINT = "pass --allow-truncated to import the records it holds anyway"


class ExportFormatError(ChronoMemError, ValueError):
    """An import file is not something ``chronomem export`` wrote, or not all of it."""


# --------------------------------------------------------------------------- writing


def chronicum_record(c: Chronicum) -> dict[str, Any]:
    """A chronicum as its export line holds it."""
    return {"id": c.id, "owner_id": c.owner_id, "created_at": c.created_at.isoformat()}


def actum_record(a: Actum) -> dict[str, Any]:
    """An actum as its export line holds it."""
    return {
        "id": a.id,
        "chronicum_id": a.chronicum_id,
        "kind": a.kind.value,
        "actor_kind": a.actor_kind.value,
        "actor": a.actor,
        "content": a.content,
        "metadata": dict(a.metadata),
        "at": a.at.isoformat() if a.at else None,
    }


def written_lines(owner: str, records: Iterator[tuple[str, Any]]) -> Iterator[bytes]:
    """The export's lines as bytes (newline included): header, ``records``, trailer.

    Bytes, not text: the digest covers exactly what is written, on any platform's newline
    convention and console encoding.
    """
    digest = hashlib.sha256()
    counts = {"fact": 0, "chronicum": 0, "actum": 0}
    header = {"format": "chronomem", "version": FORMAT_VERSION, "owner": owner}
    line = _line("export", header)
    digest.update(line)
    yield line
    for kind, record in records:
        line = _line(kind, record)
        counts[kind] = counts.get(kind, 0) + 1
        digest.update(line)
        yield line
    trailer = {
        "facts": counts["fact"],
        "chronica": counts["chronicum"],
        "acta": counts["actum"],
        "sha256": digest.hexdigest(),
    }
    yield _line("end", trailer)


def _line(kind: str, record: Any) -> bytes:
    return (json.dumps({kind: record}, ensure_ascii=False) + "\n").encode("utf-8")


# --------------------------------------------------------------------------- reading


@dataclass
class Loaded:
    """An import file, parsed and every record checked, before anything is written."""

    facts: list[dict[str, Any]] = field(default_factory=list)
    chronica: list[Chronicum] = field(default_factory=list)
    acta: dict[str, list[Actum]] = field(default_factory=dict)
    complete: bool = False
    """Whether a trailer vouched for every record (False only with ``allow_truncated``)."""
    warning: str | None = None
    """Why the file could not be vouched for, when it was imported anyway."""

    @property
    def count(self) -> int:
        """How many records the file held (header and trailer excluded)."""
        return len(self.facts) + len(self.chronica) + sum(map(len, self.acta.values()))


@dataclass
class _Reader:
    owner: str
    loaded: Loaded = field(default_factory=Loaded)
    digest: Any = field(default_factory=hashlib.sha256)
    version: int | None = None
    trailer: dict[str, Any] | None = None
    # Sessions are checked one record at a time by chronica's own restore rules, against a
    # store that is never written: the same rules the real restore applies later.
    rules: Chronicarius = field(default_factory=lambda: Chronicarius(InMemoryStore()))
    chronicum_by_id: dict[str, Chronicum] = field(default_factory=dict)

    def add(self, raw: bytes) -> None:
        if self.trailer is not None:
            if raw.strip():
                raise ExportFormatError("a record after the end of the export")
            return
        obj = _object(raw)
        if obj is None:  # a blank line
            self.digest.update(raw)
            return
        ((kind, record),) = obj.items()
        if kind == "end":
            self.trailer = _mapping(kind, record)
            return
        self.digest.update(raw)
        if self.version is None and kind != "export":
            raise ExportFormatError("the file does not start with an export header")
        handlers = {
            "export": self._header,
            "fact": self._fact,
            "chronicum": self._chronicum,
            "actum": self._actum,
        }
        if kind not in handlers:
            raise ExportFormatError(f"unknown record kind {kind!r}")
        handlers[kind](record)

    def _header(self, record: object) -> None:
        header = _mapping("export", record)
        version = header.get("version")
        if self.version is not None:
            raise ExportFormatError("a second export header")
        if header.get("format") != "chronomem":
            raise ExportFormatError("not a chronomem export (format is not 'chronomem')")
        if isinstance(version, bool) or not isinstance(version, int) or version < 1:
            raise ExportFormatError(f"the export version must be a whole number, not {version!r}")
        if version > FORMAT_VERSION:
            raise ExportFormatError(
                f"export version {version} is newer than this chronomem reads ({FORMAT_VERSION})"
            )
        self.version = version

    def _fact(self, record: object) -> None:
        fact = _mapping("fact", record)
        parse_record(fact)  # the memory's import rules; raises InvalidFactError
        self.loaded.facts.append(fact)

    def _chronicum(self, record: object) -> None:
        data = _mapping("chronicum", record)
        # A session joins the importing owner, as the facts do.
        chronicum = Chronicum(
            id=data.get("id"),  # type: ignore[arg-type]  # chronica's check says what is wrong
            owner_id=self.owner,
            created_at=_time(data, "created_at"),
        )
        self._check([chronicum], [])
        if chronicum.id in self.chronicum_by_id:
            raise ExportFormatError(f"session {chronicum.id!r} appears twice")
        self.chronicum_by_id[chronicum.id] = chronicum
        self.loaded.chronica.append(chronicum)
        self.loaded.acta[chronicum.id] = []

    def _actum(self, record: object) -> None:
        actum = _actum(_mapping("actum", record))
        chronicum = self.chronicum_by_id.get(actum.chronicum_id)
        if chronicum is None:
            raise ExportFormatError(f"actum {actum.id!r} comes before its session's line")
        self._check([chronicum], [actum])
        self.loaded.acta[chronicum.id].append(actum)

    def _check(self, chronica: list[Chronicum], acta: list[Actum]) -> None:
        try:
            self.rules.check_restore(self.owner, chronica, acta)
        except ChronicaError as e:
            # The batch is ours and one record long: its position says nothing to the user.
            message = str(e).removeprefix("chronica[0]: ").removeprefix("acta[0]: ")
            raise ExportFormatError(message) from e

    def finish(self, allow_truncated: bool) -> Loaded:
        problem = self._completeness_problem()
        if problem is None:
            self.loaded.complete = True
        elif not allow_truncated:
            raise ExportFormatError(f"{problem}; {_TRUNCATED_HINT}")
        else:
            self.loaded.warning = problem
        return self.loaded

    def _completeness_problem(self) -> str | None:
        if self.version is None:
            return "the file holds no export header (an empty or foreign file)"
        if self.version < 2:
            return "this export predates the completeness check (version 1, no end line)"
        if self.trailer is None:
            return "the file ends without its end line, so it may be cut short"
        loaded, trailer = self.loaded, self.trailer
        found = {
            "facts": len(loaded.facts),
            "chronica": len(loaded.chronica),
            "acta": sum(map(len, loaded.acta.values())),
            "sha256": self.digest.hexdigest(),
        }
        wrong = [key for key, value in found.items() if trailer.get(key) != value]
        if wrong:
            return f"the file does not match its end line ({', '.join(wrong)} differ)"
        return None


def read_export(
    source: BinaryIO, owner: str, *, allow_truncated: bool = False, label: str = "reading"
) -> Loaded:
    """Parse and check an export for ``owner``; :class:`ExportFormatError` names the line.

    A file without a valid end line is refused unless ``allow_truncated``.
    """
    try:
        size = os.fstat(source.fileno()).st_size
    except (OSError, ValueError, AttributeError):
        size = 0
    progress = Progress(label, size)
    reader = _Reader(owner)
    for number, raw in enumerate(source, start=1):
        progress.advance(len(raw))
        try:
            reader.add(raw)
        except (ChronoMemError, ChronicaError) as e:  # ExportFormatError is a ChronoMemError
            raise ExportFormatError(f"line {number}: {e}") from e
    progress.finish()
    return reader.finish(allow_truncated)


def _object(raw: bytes) -> dict[str, Any] | None:
    """The line's one-key object, ``None`` for a blank line."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ExportFormatError("not UTF-8 text") from None
    if not text.strip():
        return None
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError) as e:
        raise ExportFormatError(f"not JSON ({e})") from None
    if not isinstance(obj, dict) or len(obj) != 1:
        raise ExportFormatError("expected one object with one key")
    return obj


def _mapping(kind: str, record: object) -> dict[str, Any]:
    if not isinstance(record, dict):
        raise ExportFormatError(f"{kind!r} must hold an object, not {type(record).__name__}")
    return record


def _time(record: Mapping[str, Any], key: str) -> Any:
    if key not in record:
        raise ExportFormatError(f"{key} is missing")
    try:
        return parse_time(record[key])
    except ValueError as e:
        raise ExportFormatError(f"{key}: {e}") from None


def _actum(record: Mapping[str, Any]) -> Actum:
    try:
        return Actum(
            id=record["id"],
            chronicum_id=record["chronicum_id"],
            kind=ActumKind(record["kind"]),
            actor_kind=ActorKind(record["actor_kind"]),
            actor=record["actor"],
            content=record.get("content", ""),
            metadata=record.get("metadata") or {},
            at=_time(record, "at"),
        )
    except KeyError as e:
        raise ExportFormatError(f"an actum needs {e}") from None
    except (ValueError, TypeError, RecursionError, ChronicaError) as e:
        raise ExportFormatError(f"bad actum: {e}") from None
