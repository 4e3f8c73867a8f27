"""Short fact ids for the model, and the prefixes a model gives back, resolved.

A 32-hex fact id costs about ten tokens on every line a model reads, and a recall shows ten.
The text shows the shortest prefix that is unique among the owner's facts (as git shows a
commit), and every tool or resource that takes a fact id accepts such a prefix. The
structured content keeps full ids: programs never see a prefix.

Fact ids start with their system time in microseconds, so facts recorded moments apart
share their first digits: eight hex digits (about 17 seconds) tell apart facts told slowly,
eleven or twelve those of one busy session, more those written in one batch. The prefixes
come from :meth:`chronomem.ChronoMem.unique_prefixes` (each id's neighbours among the
owner's facts) and a prefix given back is resolved by :meth:`chronomem.ChronoMem.fact_ids`:
both are bounded range look-ups on the ids' index (never a scan), scoped to the owner.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from chronomem import ChronoMem, FactNotFoundError

__all__ = ["MIN_PREFIX", "AmbiguousIdError", "resolve", "short_ids"]

MIN_PREFIX = 8
"""Fewest hex digits a prefix may have: fewer would make most prefixes ambiguous."""

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
    """The shortest unique prefix of each of ``ids`` that is a 32-hex fact id (of at least
    :data:`MIN_PREFIX` digits, among this owner's facts); any other id is kept whole."""
    wanted = list(dict.fromkeys(ids))
    hexed = [fid for fid in wanted if _FULL.fullmatch(fid)]
    short = memory.unique_prefixes(hexed, shortest=MIN_PREFIX) if hexed else {}
    return {fid: short.get(fid, fid) for fid in wanted}


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
