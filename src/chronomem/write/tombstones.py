"""Restoring an exported tombstone: what a purge left of an item, restored as just that.

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

from chronomem._checks import _check_unit, check_id, check_opt_text, check_text, fact_fields
from chronomem._errors import InvalidFactError
from chronomem._iso8601 import record_time
from chronomem.engine.dialect import Conn
from chronomem.recall.lexindex import turns_before

__all__ = ["ImportedTombstone", "is_tombstone"]

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
