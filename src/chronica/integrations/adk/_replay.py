"""Reading a session (or an app's or user's state) back from the newest end of its acta.

A read walks from the newest actum back only as far as it must: until it has the events it
was asked for and a *base* for the state. A base is the session's creation marker, or a
snapshot together with the actum the snapshot runs through; every delta after the base is
folded onto it, oldest first. A snapshot is written after the fact by a reader, so acta of
other writers can sit between the actum it runs through and the snapshot itself: walking back
to that actum, never just to the snapshot, is what folds them in, and is also what finds a
tombstone written in that gap. A reader that comes short of a base asks for a longer window.

Generations only grow, and each starts with its creation marker after the previous one's
tombstone, so the newest generation is the one whose acta come last; a late actum of an ended
generation (a snapshot or an append that raced a delete) is skipped wherever it sits.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from ._codec import CREATED, DELETED, DELTA, EVENT, SNAPSHOT, Record

__all__ = ["Replay", "replay"]

Status = Literal["live", "deleted", "missing"]


@dataclass
class Replay:
    """What a walk found: the session's status, generation, state parts and events."""

    status: Status
    gen: int = 0
    base: dict[str, Any] = field(default_factory=dict)
    deltas: list[Record] = field(default_factory=list)  # newest first, after the base
    events: list[Record] = field(default_factory=list)  # newest first
    last_update_time: float = 0.0
    walked: int = 0  # acta between the base and the newest end
    newest: str | None = None  # the newest actum of this generation (a snapshot's "through")

    def state(self) -> dict[str, Any]:
        """The base with every later delta applied, oldest first."""
        state = dict(self.base)
        for record in reversed(self.deltas):
            state.update(record.state())
        return state


@dataclass
class _Walk:
    wanted: int | None
    after: float | None
    found: Replay = field(default_factory=lambda: Replay("live"))
    pending: Record | None = None  # the newest snapshot, until its "through" is reached
    state_done: bool = False
    events_done: bool = False
    last_ts: float | None = None

    def step(self, record: Record) -> None:
        if self.pending is not None and record.id == self.pending.through:
            self._settle(self.pending.state())
        if self.found.newest is None:
            self.found.newest = record.id
        if record.type in (EVENT, CREATED) and self.last_ts is None:
            self.last_ts = record.ts
        if record.type == EVENT:
            self._event(record)
        elif record.type == CREATED:
            self._settle(record.state())
            self.events_done = True
        elif record.type == SNAPSHOT and self.pending is None and not self.state_done:
            self.pending = record
        elif record.type == DELTA and not self.state_done:
            self.found.deltas.append(record)
            self.found.walked += 1

    def _event(self, record: Record) -> None:
        if not self.events_done:
            if self.after is not None and (record.ts or 0.0) < self.after:
                self.events_done = True
            else:
                self.found.events.append(record)
                self.events_done = self.wanted is not None and len(self.found.events) >= self.wanted
        if not self.state_done:
            self.found.walked += 1
            if record.has_delta:
                self.found.deltas.append(record)

    def _settle(self, base: dict[str, Any]) -> None:
        if not self.state_done:
            self.found.base = base
            self.state_done = True


def replay(
    records: list[Record],
    *,
    complete: bool,
    wanted: int | None = 0,
    after: float | None = None,
    session: bool = True,
) -> Replay | None:
    """Read ``records`` (oldest first; the newest end of a chronicum), or None if too few.

    ``wanted`` is how many of the newest events to return (None: all of the generation);
    ``after`` keeps only the newest run of events stamped at or after it, as ADK's
    ``GetSessionConfig`` does. ``complete`` says ``records`` start at the chronicum's first
    actum. A ``session`` needs its creation marker; a state log (``session=False``) starts
    from an empty state.
    """
    gen = -1
    walk = _Walk(wanted, after, events_done=wanted == 0)
    for record in reversed(records):
        if record.gen > gen:
            gen = record.gen
            walk = _Walk(wanted, after, events_done=wanted == 0)
        elif record.gen < gen:
            continue
        if record.type == DELETED:
            return Replay("deleted", gen)
        walk.step(record)
        if walk.state_done and walk.events_done:
            break
    else:
        if not complete:
            return None
        if session:  # the generation's creation marker was not among its acta
            return Replay("missing")
        walk.state_done = True
    found = walk.found
    found.gen = max(gen, 0)
    found.last_update_time = walk.last_ts or 0.0
    return found
