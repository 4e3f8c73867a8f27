"""Short fact ids every door shows, and the short forms every door takes back, resolved.

A 32-hex fact id costs about ten tokens on every line a model reads, and a person copying one
from a table wants fewer digits. A fact id is its system time in microseconds (14 digits),
then 18 random ones, so ids written moments apart share their first nine or ten digits and a
shortest unique *prefix* goes stale as soon as a neighbour is written (``[066205659b]`` shown
by one recall, ambiguous one supersede later). The doors therefore show an id's random *end*:
:meth:`chronomem.ChronoMem.unique_suffixes` gives the shortest end unique among the owner's
facts, of at least :data:`MIN_DIGITS` digits and more as the memory grows, which later writes
leave unique but for odds the digits keep small.

What a door takes back, in the command line, the MCP server and the inspector alike
(:func:`resolve`): the whole id; its end, bare (``a611ced9``) or as ``timeline`` prints it
(``…a611ced9``); or a unique prefix (``066205659b1c``, or ``066205659b1c…``), each of at least
:data:`MIN_DIGITS` digits and scoped to the owner. Both look-ups are bounded probes of an index
(the ids', and their last eight digits'), never a scan. Structured output keeps whole ids.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from chronomem import ChronoMem, ChronoMemError, FactNotFoundError

__all__ = ["MIN_DIGITS", "AmbiguousIdError", "resolve", "short_ids", "shown"]

MIN_DIGITS = 8
"""Fewest hex digits a short id has, shown or given back (the tail index holds eight)."""

_FULL = re.compile(r"[0-9a-f]{32}")
_SHORT = re.compile(rf"[0-9a-f]{{{MIN_DIGITS},31}}")
_ELLIPSES = ("…", "...")


class AmbiguousIdError(ChronoMemError, ValueError):
    """A short id that names more than one of the owner's facts: nothing was done."""

    def __init__(self, given: str) -> None:
        super().__init__(
            f"{given!r} names more than one fact id (as the start or the end of it): give "
            "more of its digits, or the whole id"
        )
        self.given = given


def short_ids(memory: ChronoMem, ids: Iterable[str]) -> dict[str, str]:
    """The short form of each of ``ids`` that is a 32-hex fact id (its end, unique among this
    owner's facts, see :meth:`~chronomem.ChronoMem.unique_suffixes`); any other id whole."""
    wanted = list(dict.fromkeys(ids))
    hexed = [fid for fid in wanted if _FULL.fullmatch(fid)]
    short = memory.unique_suffixes(hexed, shortest=MIN_DIGITS) if hexed else {}
    return {fid: short.get(fid, fid) for fid in wanted}


def shown(fact_id: str, short: str) -> str:
    """``short`` as a person reads it beside other text: ``…a611ced9`` (marked as an end),
    or the id itself when it is whole."""
    return short if short == fact_id else "…" + short


def resolve(memory: ChronoMem, given: str) -> str:
    """The whole id of the owner's fact that ``given`` names: ``given`` itself when it is no
    short id (a whole id, or something for the library to judge), else the one fact id that
    ends with it (``…`` before it says only an end) or starts with it (``…`` after it says
    only a start).

    Raises :class:`chronomem.FactNotFoundError` for a short id of none of the owner's facts
    and :class:`AmbiguousIdError` for one of several, before anything is written.
    """
    digits = given.strip()
    end_only = digits.startswith(_ELLIPSES)
    start_only = digits.endswith(_ELLIPSES) and not end_only
    for mark in _ELLIPSES:
        digits = digits.removeprefix(mark).removesuffix(mark)
    digits = digits.lower()
    if _SHORT.fullmatch(digits) is None:
        return given
    starts = [] if end_only else memory.fact_ids(digits, limit=2)
    if digits in starts:  # an id that happens to look like a prefix is itself
        return digits
    ends = [] if start_only else memory.fact_ids_ending(digits, limit=2)
    found = list(dict.fromkeys([*starts, *ends]))
    if not found:
        raise FactNotFoundError(given)
    if len(found) > 1:
        raise AmbiguousIdError(given)
    return found[0]
