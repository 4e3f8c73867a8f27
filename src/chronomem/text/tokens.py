"""Text to tokens: the lexical terms the Jaccard channel compares, and token-budget packing.

``estimate_tokens`` is the default budget counter. It approximates a BPE tokenizer without one:
each word costs one token per started four characters, each other visible character one token.
On English prose that lands within about 10-20% of cl100k counts and tends to over-count,
which is the safe side for a budget. Callers with a real tokenizer pass ``token_counter=``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TypeVar

__all__ = ["STOP_WORDS", "estimate_tokens", "pack", "query_words", "terms"]

_WORD = re.compile(r"\w+")
_PIECE = re.compile(r"\w+|[^\w\s]")

STOP_WORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is it
    its itself just me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself
    yourselves s t""".split()  # noqa: SIM905 -- a word list reads better as prose than as 130 literals
)

_SUFFIXES = ("ing", "edly", "ed", "es", "s")


def _stem(word: str) -> str:
    # A deliberately tiny stemmer: enough to make "interfaces"/"interface" and
    # "switched"/"switch" agree for Jaccard; FTS5's porter tokenizer does the heavy lifting.
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def terms(text: str) -> list[str]:
    """Lower-cased, lightly stemmed content words of ``text`` (stop words dropped), in order."""
    words = _WORD.findall(text.lower())
    kept = [_stem(w) for w in words if w not in STOP_WORDS]
    return kept if kept else [_stem(w) for w in words]


def query_words(text: str) -> list[str]:
    """Lower-cased content words of a query, unstemmed (FTS5's porter tokenizer stems them)."""
    words = _WORD.findall(text.lower())
    kept = [w for w in words if w not in STOP_WORDS]
    return kept if kept else words


def estimate_tokens(text: str) -> int:
    """Approximate LLM token count of ``text`` (at least 1 for non-empty text)."""
    total = 0
    for piece in _PIECE.findall(text):
        total += (len(piece) + 3) // 4 if piece[0].isalnum() or piece[0] == "_" else 1
    return total if total or not text else 1


T = TypeVar("T")


def pack(
    items: Sequence[T], cost: Callable[[T], int], *, budget: int | None, limit: int | None
) -> list[T]:
    """Keep items in order while they fit: first fit in rank order.

    An item that does not fit the remaining budget is skipped and the next (lower-ranked,
    possibly shorter) item is tried, so one long fact cannot starve the rest; the result stays
    best first and its total cost never exceeds ``budget``. Packing stops as soon as the budget
    is met exactly or ``limit`` items are kept.
    """
    kept: list[T] = []
    remaining = budget
    for item in items:
        if limit is not None and len(kept) >= limit:
            break
        if remaining is not None:
            if remaining <= 0:
                break
            c = cost(item)
            if c > remaining:
                continue
            remaining -= c
        kept.append(item)
    return kept
