"""Recall's distinct-text rule: the budget goes to different texts, never to one text twice.

Two results whose contents are the same after normalisation (see
:mod:`chronomem.text.sameness`: a fact remembered twice with ``dedup=False``, an episode that
repeats a fact word for word, a turn said twice) are one result: the best ranked is kept, the
others are dropped before packing, and the next distinct candidate takes their place.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

from chronomem.text.sameness import normalised

__all__ = ["distinct"]


class _Text(Protocol):
    @property
    def content(self) -> str: ...


C = TypeVar("C")
R = TypeVar("R", bound=_Text)


def distinct(
    ranked: Sequence[C], materialise: Callable[[Sequence[C]], list[R]], want: int
) -> list[R]:
    """Up to ``want`` items of distinct text, best first: ``ranked`` is read in order, a chunk
    at a time (only as much as a duplicate made necessary is read beyond ``want``)."""
    kept: list[R] = []
    seen: set[str] = set()
    start = 0
    while len(kept) < want and start < len(ranked):
        chunk = ranked[start : start + want - len(kept)]
        start += len(chunk)
        for item in materialise(chunk):
            key = normalised(item.content)
            if key not in seen:
                seen.add(key)
                kept.append(item)
    return kept
