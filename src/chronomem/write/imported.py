"""Exported records read back for an import: a fact, an episode, or a tombstone.

Each is checked with the rules of a live write (a fact's, an episode's) before anything is
written, and carries the times and lineage to restore. A tombstone is what a purge left of
an item, restored as just that.

A purge (``purge``, ``purge_session``, ``prune``, the LangGraph store's erase on delete)
leaves a row with no content and no index entry: id, kind, times, lineage (a fact's
``superseded_by``, an episode's session and place), ``purged_at`` and the reason (see
:mod:`chronomem.write.purge`). Its export says so, with ``content: ""``, and an import that
read it as a live write (content must not be empty) refused the whole file, so one erasure
made an owner's backup unrestorable (issue 39 item 1). Here such a record is checked by the
rules a tombstone obeys and stored as the purge stored it: a row only, nothing indexed, so
recall, timeline, ``as_of`` and the counts read it as they read the original tombstone.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from chronomem._checks import (
    _check_unit,
    check_fact,
    check_id,
    check_opt_text,
    check_text,
    fact_fields,
)
from chronomem._errors import InvalidFactError
from chronomem._iso8601 import read_time, record_time
from chronomem.engine.dialect import Conn
from chronomem.recall.lexindex import turns_before
from chronomem.write.episodes import check_episode, insert_episode

__all__ = ["ImportedEpisode", "ImportedFact", "ImportedTombstone", "is_tombstone"]

_SESSION_BYTES = 1024  # as a live episode's (write.episodes)


def is_tombstone(record: Mapping[str, Any]) -> bool:
    """Whether an exported record is a purged item's tombstone (its ``purged_at`` is set)."""
    return record.get("purged_at") is not None


class ImportedTombstone:
    """A validated exported tombstone of a fact or an episode."""

    def __init__(self, record: Mapping[str, Any]) -> None:
        with fact_fields():
            self._read(record)

    def _read(self, record: Mapping[str, Any]) -> None:
        self.id = check_id(record.get("id"))
        self.kind = record.get("kind", "fact")
        if record.get("content", "") != "":
            # A purge leaves no text: a record holding some is not what export wrote.
            raise InvalidFactError("content", "must be empty for a purged item (purged_at set)")
        self.system_time = _required(record, "system_time")
        self.purged_at = _required(record, "purged_at")
        self.invalidated_at = _required(record, "invalidated_at")
        self.purge_reason = check_opt_text(
            "purge_reason", record.get("purge_reason"), max_bytes=2048
        )
        forgotten = record.get("forgotten", False)
        if not isinstance(forgotten, bool):
            raise InvalidFactError("forgotten", "must be a bool")
        self.forgotten = forgotten
        if self.kind == "episode":
            self.valid_from = _required(record, "at")
            self.session: str | None = check_text(
                "session", record.get("session"), max_bytes=_SESSION_BYTES
            )
            self.source = check_opt_text("source", record.get("source"), max_bytes=2048)
            self.trust, self.confidence = 0.8, 1.0
            self.valid_until: int | None = None
            self.superseded_by: str | None = None
            return
        self.valid_from = _required(record, "valid_from")
        self.session = self.source = None
        self.trust = _check_unit("trust", record.get("trust_score", 0.8))
        self.confidence = _check_unit("confidence", record.get("confidence", 1.0))
        self.valid_until = record_time(record, "valid_until")
        superseded_by = record.get("superseded_by")
        self.superseded_by = None if superseded_by is None else check_id(superseded_by)
        if self.superseded_by == self.id:
            raise InvalidFactError("superseded_by", "a fact cannot supersede itself")
        if self.valid_until is not None and self.valid_until < self.valid_from:
            raise InvalidFactError("valid_until", "is before valid_from")

    def insert(self, conn: Conn, owner: str) -> None:
        """Store the tombstone inside the caller's transaction: its row, no index entry (the
        columns a purge blanks as :data:`chronomem.write.purge._TOMBSTONE` blanks them)."""
        seq = speaker = None
        if self.session is not None:
            # Its place, taken as a live import takes it: after the session's last turn.
            conn.dialect.lock_session(conn, owner, self.session)
            before = turns_before(conn, owner, self.session)
            seq, speaker = (before[0][0] + 1 if before else 1), ""
        conn.execute(
            """INSERT INTO chronomem_facts (id, owner, content, trust, confidence, source,
                   entities, terms, system_time, valid_from, valid_until, invalidated_at,
                   superseded_by, forgotten, kind, speaker, session, seq, purged_at,
                   purge_reason)
               VALUES (?, ?, '', ?, ?, ?, '[]', '', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
            (
                self.id, owner, self.trust, self.confidence, self.source, self.system_time,
                self.valid_from, self.valid_until, self.invalidated_at, self.superseded_by,
                int(self.forgotten), self.kind, speaker, self.session, seq, self.purged_at,
                self.purge_reason,
            ),
        )  # fmt: skip


def _required(record: Mapping[str, Any], name: str) -> int:
    when = record_time(record, name)
    if when is None:
        raise InvalidFactError(name, "is required for a purged item")
    return when


class ImportedFact:
    """A validated export record: the fact payload plus the times and lineage to restore."""

    def __init__(self, record: Mapping[str, Any]) -> None:
        if not isinstance(record, Mapping):
            raise InvalidFactError("record", "must be a mapping (as export_facts yields)")
        with fact_fields():
            self._read(record)

    def _read(self, record: Mapping[str, Any]) -> None:
        self.id = check_id(record.get("id"))
        self.data = check_fact(
            record.get("content"),
            category=record.get("category"),
            trust=record.get("trust_score", 0.8),
            confidence=record.get("confidence", 1.0),
            valid_from=read_time("valid_from", record.get("valid_from")),
            entities=record.get("entities") or (),
            source=record.get("source"),
            metadata=record.get("metadata"),
        )
        system_time = record_time(record, "system_time")
        if system_time is None or self.data.valid_from is None:
            raise InvalidFactError("system_time", "and valid_from are required")
        self.system_time = system_time
        self.valid_until = record_time(record, "valid_until")
        self.invalidated_at = record_time(record, "invalidated_at")
        superseded_by = record.get("superseded_by")
        self.superseded_by = None if superseded_by is None else check_id(superseded_by)
        forgotten = record.get("forgotten", False)
        if not isinstance(forgotten, bool):
            raise InvalidFactError("forgotten", "must be a bool")
        self.forgotten = forgotten
        self.forget_reason = check_opt_text(
            "forget_reason", record.get("forget_reason"), max_bytes=2048
        )
        if (forgotten or superseded_by is not None) and self.invalidated_at is None:
            raise InvalidFactError(
                "invalidated_at", "is required for a superseded or forgotten fact"
            )
        # What no live write can produce (issue 20 item 7): the rest of a chain's shape is
        # checked against the stored facts by ``write.importing`` before the import commits.
        if self.superseded_by == self.id:
            raise InvalidFactError("superseded_by", "a fact cannot supersede itself")
        if self.valid_until is not None and self.valid_until < self.data.valid_from:
            raise InvalidFactError("valid_until", "is before valid_from")


class ImportedEpisode:
    """A validated exported episode: the payload plus the times to restore."""

    def __init__(self, record: Mapping[str, Any]) -> None:
        with fact_fields():
            self._read(record)

    def _read(self, record: Mapping[str, Any]) -> None:
        self.id = check_id(record.get("id"))
        self.data = check_episode(
            record.get("content"),
            speaker=record.get("speaker"),
            session=record.get("session"),
            at=read_time("at", record.get("at")),
            metadata=record.get("metadata"),
            source=record.get("source"),
        )
        system_time = record_time(record, "system_time")
        if system_time is None or self.data.at is None:
            raise InvalidFactError("system_time", "and at are required")
        self.system_time = system_time
        forgotten = record.get("forgotten", False)
        if not isinstance(forgotten, bool):
            raise InvalidFactError("forgotten", "must be a bool")
        self.forgotten: tuple[int, str | None] | None = None
        if forgotten:
            when = record_time(record, "invalidated_at")
            if when is None:
                raise InvalidFactError("invalidated_at", "is required for a forgotten episode")
            reason = check_opt_text("forget_reason", record.get("forget_reason"), max_bytes=2048)
            self.forgotten = (when, reason)

    def insert(self, conn: Conn, owner: str) -> None:
        """Store it inside the caller's transaction."""
        insert_episode(conn, owner, self.data, system_time=self.system_time,
                       episode_id=self.id, forgotten=self.forgotten)  # fmt: skip
