"""What a ``ChronicaSession`` has read of its chronicum, kept so a read decodes only what is new.

Acta never change and a chronicum only grows at its end, so what a session has read stays
true: each read asks the store only for the newest acta, until it meets the newest one it
already holds (another process's appends included, since every read still goes to the
store), and decodes just those. Per actum it keeps little: the item as JSON text, or what a
retraction or a clear marker says. An item is held as the JSON text its actum stores, with
its main text left out (see :mod:`._openai_items`), and that text put back where it goes once
the item is decoded: reading an actum costs no JSON work at all. Items are handed out by one
``json.loads`` of the live items' texts (:func:`decoded`), so every call returns fresh
objects that the caller may change freely.

What the session itself wrote it tells the log (:meth:`Log.wrote`), so the read after a turn,
the agent loop's pattern, asks the store for just that many acta and one more, and decodes
none of them: it only checks by their IDs that they are the newest acta, right after the one
held (nothing else was written between or since). If not, it reads as if it had not been told.
On a :class:`chronica.TailStore` (every store chronica ships) that check, and the
check that nothing is new, ask for the IDs alone, so no actum is built at all.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from chronica import Actum

from ._openai_items import MARK

__all__ = ["Held", "Log", "decoded"]

_ITEM, _RETRACTS, _CLEAR, _OTHER = range(4)
# An item as held: its JSON text, and where its main text goes back, if it was taken out.
Held = tuple[str, tuple[tuple[str | int, ...], str] | None]
# (actum ID, what it is, the item as held or the retracted ID)
_Entry = tuple[str, int, Held | str]
_FIRST_PROBE = 2  # acta fetched to see what is new; most reads find one or none
_MAX_PENDING = 256  # written acta held unchecked; more and the next read just reads


class Log:
    """The acta of one chronicum that the session has read: a suffix of it, oldest first.

    ``fetch(n)`` returns the chronicum's last ``n`` acta (all when ``n`` is 0), oldest
    first, or an empty list when there is no chronicum yet; ``fetch_ids(n)``, if given, the
    IDs of those acta alone (see :class:`chronica.TailStore`), which is all a read that
    finds nothing new, or only the session's own write, needs.
    """

    def __init__(
        self,
        fetch: Callable[[int], list[Actum]],
        fetch_ids: Callable[[int], list[str]] | None = None,
    ) -> None:
        self._fetch = fetch
        self._fetch_ids = fetch_ids
        self._entries: list[_Entry] = []
        self._complete = False  # the entries start at the chronicum's first actum
        self._pending: list[_Entry] = []  # written by this session since the last read
        self._lock = threading.Lock()

    def wrote(self, acta: list[Actum]) -> None:
        """The session stored ``acta`` (in this order, as the newest); not trusted until a
        read sees their IDs right after the newest actum held."""
        entries = [_entry(actum) for actum in acta]  # decoded here, by the writer's thread
        with self._lock:
            if not self._entries:
                return  # nothing held: the next read loads anyway
            self._pending.extend(entries)
            if len(self._pending) > _MAX_PENDING:
                self._pending = []

    def live(self, limit: int | None) -> list[tuple[str, Held]]:
        """``(actum ID, item as held)`` of the live items, oldest first: the latest ``limit``."""
        with self._lock:
            if self._entries:
                self._catch_up()
            else:
                self._load(limit or 0)
            while True:
                found, certain = _newest_live(self._entries, limit)
                if certain or self._complete:
                    return found
                # Retractions or other agents' acta took room: read further back.
                self._load(0 if limit is None else max(2 * len(self._entries), 2 * limit))

    def _catch_up(self) -> None:
        """Append the acta stored since the newest one held, fetching more until it is met."""
        newest = self._entries[-1][0]
        pending, self._pending = self._pending, []
        if self._fetch_ids is not None:
            # By ID alone: the newest held, then what this session wrote since, if anything.
            if self._fetch_ids(len(pending) + 1) == [newest, *(entry[0] for entry in pending)]:
                self._entries.extend(pending)
                return
            pending = []  # something else was written: read it as written
        n = len(pending) + 1 if pending else _FIRST_PROBE
        while True:
            acta = self._fetch(n)
            if pending:
                if _just_after(acta, newest, pending):
                    self._entries.extend(pending)
                    return
                pending = []  # something else was written too: read it as written
            for i in range(len(acta) - 1, -1, -1):
                if acta[i].id == newest:
                    self._entries.extend(_entry(actum) for actum in acta[i + 1 :])
                    return
            if len(acta) < n:  # the whole chronicum, without the actum held: start over
                self._entries, self._complete = [_entry(actum) for actum in acta], True
                return
            n *= 8

    def _load(self, n: int) -> None:
        """Hold the last ``n`` acta (all when 0), reusing what is already decoded."""
        acta = self._fetch(n)
        known = {entry[0]: entry for entry in self._entries}
        self._entries = [known.get(actum.id) or _entry(actum) for actum in acta]
        self._complete = n == 0 or len(acta) < n
        self._pending = []


def _just_after(acta: list[Actum], newest: str, pending: list[_Entry]) -> bool:
    """Whether ``acta`` (the chronicum's newest) are the actum ``newest``, then ``pending``."""
    if len(acta) != len(pending) + 1 or acta[0].id != newest:
        return False
    return all(actum.id == entry[0] for actum, entry in zip(acta[1:], pending, strict=True))


def decoded(held: Sequence[Held]) -> list[Any]:
    """The items ``held``, as fresh plain objects: one ``json.loads``, then each main text put
    back at its place.

    Every read runs this over the items it hands back, so the common places are written
    out: a text at a key of the item (a message's or an output's), or in a part of a list
    there (``("content", 0, "text")``); a deeper path is walked.
    """
    items: list[Any] = json.loads("[" + ",".join([text for text, _ in held]) + "]")
    for item, (_, slot) in zip(items, held, strict=True):
        if slot is None:
            continue
        path, text = slot
        depth = len(path)
        if depth == 1:
            item[path[0]] = text
        elif depth == 3:
            item[path[0]][path[1]][path[2]] = text
        else:
            container = item
            for step in path[:-1]:
                container = container[step]
            container[path[-1]] = text
    return items


def _entry(actum: Actum) -> _Entry:
    record = actum.metadata.get(MARK)
    if not isinstance(record, Mapping):
        return (actum.id, _OTHER, "")  # another agent's actum, not an item
    if "item" in record:
        text, path = record["item"], record.get("slot")
        if not isinstance(text, str):
            return (actum.id, _OTHER, "")
        return (actum.id, _ITEM, (text, (tuple(path), actum.content) if path else None))
    if record.get("clear") is True:
        return (actum.id, _CLEAR, "")
    target = record.get("retracts")
    return (actum.id, _RETRACTS, target) if isinstance(target, str) else (actum.id, _OTHER, "")


def _newest_live(entries: list[_Entry], limit: int | None) -> tuple[list[tuple[str, Held]], bool]:
    """The live items among ``entries``, oldest first, and whether that is certainly all.

    Walks from the newest: a clear marker ends the walk, a retraction hides the item it
    names (always an older actum), and an actum without the adapter's mark is skipped.
    """
    retracted: set[Held | str] = set()
    found: list[tuple[str, Held]] = []
    for actum_id, what, value in reversed(entries):
        if what == _ITEM:
            if actum_id not in retracted:
                found.append((actum_id, value))  # type: ignore[arg-type]  # an item's value
                if limit is not None and len(found) == limit:
                    found.reverse()
                    return found, True
        elif what == _CLEAR:
            found.reverse()
            return found, True
        elif what == _RETRACTS:
            retracted.add(value)
    found.reverse()
    return found, False
