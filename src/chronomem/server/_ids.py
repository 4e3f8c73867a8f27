"""Short fact ids for the model, and the prefixes a model gives back, resolved.

A 32-hex fact id costs about ten tokens on every line a model reads, and a recall shows ten.
The text shows the shortest prefix that is unique among the owner's facts (as git shows a
commit), and every tool or resource that takes a fact id accepts such a prefix. The
structured content keeps full ids: programs never see a prefix.

Fact ids start with their system time in microseconds, so facts recorded moments apart
share their first digits: eight hex digits (about 17 seconds) tell apart facts told slowly,
twelve (256 µs) those of one busy session, more those written in one batch. Both the
uniqueness check and the resolution go through :meth:`chronomem.ChronoMem.fact_ids`, a
range lookup on the ids' index (never a scan), scoped to the owner.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from chronomem import ChronoMem, FactNotFoundError

__all__ = ["MIN_PREFIX", "AmbiguousIdError", "resolve", "short_ids"]

MIN_PREFIX = 8
"""Fewest hex digits a prefix may have: fewer would make most prefixes ambiguous."""

_STEP = 4
"""Lengths tried after the shortest: a token holds about four hex digits, so a length in
between costs the model the same and would only take more lookups to find."""

_FULL = re.compile(r"[0-9a-f]{32}")
_PREFIX = re.compile(rf"[0-9a-f]{{{MIN_PREFIX},31}}")


class AmbiguousIdError(ValueError):
    """A prefix that starts more than one of the owner's fact ids: nothing was done."""

    def __init__(self, prefix: str) -> None:
        super().__init__(
            f"{prefix!r} starts more than one fact id: give more of its digits, or the whole id"
        )
        self.prefix = prefix


def short_ids(memory: ChronoMem, ids: Iterable[str]) -> dict[str, str]:
    """The shortest unique prefix of each of ``ids`` (a 32-hex fact id of this owner);
    any other id is kept whole. One indexed lookup of at most two rows per length tried."""
    out: dict[str, str] = {}
    for fid in ids:
        if fid in out:
            continue
        out[fid] = fid
        if _FULL.fullmatch(fid) is None:
            continue  # imported or adapter-made ids: shown as they are
        for n in range(MIN_PREFIX, len(fid), _STEP):
            if memory.fact_ids(fid[:n], limit=2) == [fid]:
                out[fid] = fid[:n]
                break
    return out


def resolve(memory: ChronoMem, given: str) -> str:
    """The whole id of the owner's fact that ``given`` names: ``given`` itself when it is a
    fact id (or no prefix at all, for the library to judge), else the one fact id it starts.

    Raises :class:`chronomem.FactNotFoundError` for a prefix of none of the owner's facts and
    :class:`AmbiguousIdError` for a prefix of several, before anything is written.
    """
    if _PREFIX.fullmatch(given) is None:
        return given
    found = memory.fact_ids(given, limit=2)
    if given in found:  # an id that happens to look like a prefix is itself
        return given
    if not found:
        raise FactNotFoundError(given)
    if len(found) > 1:
        raise AmbiguousIdError(given)
    return found[0]
