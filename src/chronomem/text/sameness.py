"""When two texts say the same thing word for word: the key that ``remember``'s duplicate check
and recall's distinct-text rule compare.

Two texts are the same when they match after Unicode NFKC (full-width letters, ligatures and
compatibility forms fold), case folding, whitespace collapsed to single spaces, and the
punctuation around the text dropped ("Ardian lives in Kemang." and " ardian  LIVES in kemang"
are one text; "Ardian lives in Kemang, Jakarta" is another). Punctuation inside the text is
kept: it can change the meaning ("3.5" is not "35").
"""

from __future__ import annotations

import hashlib
import unicodedata

__all__ = ["content_key", "normalised"]


def _is_edge(char: str) -> bool:
    # Punctuation (P*), symbols that dress a sentence (quotes and dashes are P*; emoji and
    # marks like "→" are S* and stay: they can be the content) and whitespace.
    return char.isspace() or unicodedata.category(char).startswith("P")


def normalised(text: str) -> str:
    """``text`` in the form sameness is judged on (see the module's docstring)."""
    folded = " ".join(unicodedata.normalize("NFKC", text).casefold().split())
    start, end = 0, len(folded)
    while start < end and _is_edge(folded[start]):
        start += 1
    while end > start and _is_edge(folded[end - 1]):
        end -= 1
    return folded[start:end]


def content_key(text: str) -> str:
    """A short fixed-size digest of :func:`normalised` text: what the facts table stores and
    indexes (``content_key``), so the duplicate check is an index probe, not a scan."""
    return hashlib.sha256(normalised(text).encode("utf-8")).hexdigest()[:32]
