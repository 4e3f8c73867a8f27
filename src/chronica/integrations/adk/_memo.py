"""What one process has read already: parsed events, and the newest state of each state log.

Acta never change once recorded, so an event parsed once can be handed out again as a copy
(ADK's deep copy costs a third of parsing its JSON), and a state log whose newest actum is
the one seen last time holds the state computed then. Both are bounded and thread-safe.
"""

from __future__ import annotations

import copy
import json
import threading
from collections import OrderedDict
from typing import Any

from google.adk.events import Event

from ._codec import Record

__all__ = ["Memo"]


class Memo:
    """Least-recently-used events (by actum ID) and log states (by newest actum ID)."""

    def __init__(self, events: int = 4096, states: int = 1024) -> None:
        self._lock = threading.Lock()
        self._events: OrderedDict[str, Event] = OrderedDict()
        self._states: OrderedDict[tuple[str, str], tuple[str, str]] = OrderedDict()
        self._sizes = (events, states)

    def event(self, record: Record, *, keep: bool = True) -> Event:
        """The event ``record`` holds: a fresh copy the caller may change.

        ``keep=False`` (a read of more events than the memo holds, which would only push out
        the rest) hands a newly parsed event over without keeping a copy.
        """
        key = record.actum.id
        with self._lock:
            event = self._events.get(key)
            if event is not None:
                self._events.move_to_end(key)
        if event is not None:
            return copy.deepcopy(event)
        event = record.event()
        if not keep:
            return event
        with self._lock:
            self._events[key] = event
            while len(self._events) > self._sizes[0]:
                self._events.popitem(last=False)
        return copy.deepcopy(event)

    @property
    def capacity(self) -> int:
        """How many events the memo holds."""
        return self._sizes[0]

    def state(self, log: tuple[str, str], newest: str) -> dict[str, Any] | None:
        """The state of ``log`` as of its newest actum ``newest``, if computed before."""
        with self._lock:
            kept = self._states.get(log)
            if kept is None or kept[0] != newest:
                return None
            self._states.move_to_end(log)
        loaded: dict[str, Any] = json.loads(kept[1])  # a fresh copy
        return loaded

    def keep_state(self, log: tuple[str, str], newest: str, state: dict[str, Any]) -> None:
        """Remember ``state`` as the state of ``log`` as of its actum ``newest``."""
        with self._lock:
            self._states[log] = (newest, json.dumps(state))
            self._states.move_to_end(log)
            while len(self._states) > self._sizes[1]:
                self._states.popitem(last=False)
