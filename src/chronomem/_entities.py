"""Deterministic entity extraction and normalisation (no model, no network).

An entity is a run of proper-noun-like tokens (``Alice``, ``Project Falcon``), a product or model
code (``ThinkPad T14``, ``TN-2420``), a quoted term, an e-mail address, a URL or an @handle. Its
key folds case, Unicode compatibility forms and in-word punctuation, so ``TN-2420``, ``tn2420``
and full-width forms resolve to one entity, and ``ThinkPad T14`` / ``thinkpad t14`` to another.
"""

from __future__ import annotations

import itertools
import re
import unicodedata

from ._tokens import STOP_WORDS

__all__ = ["entity_key", "extract_entities", "query_keys"]

_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+")  # lookbehind: linear time
_URL = re.compile(r"\bhttps?://[^\s<>\"']+", re.IGNORECASE)
_HANDLE = re.compile(r"(?<![\w.@])@\w{2,}")
_QUOTED = re.compile(r"\"([^\"\n]{2,60})\"|“([^”\n]{2,60})”|(?<!\w)'([^'\n]{2,60})'(?!\w)")
_EDGE = ".,;:!?()[]{}<>\"'\u201c\u201d\u2018\u2019"
_DIGIT = re.compile(r"\d")
_ALPHA_OR_HYPHEN = re.compile(r"[^\W\d_]|-")
_TOKEN = re.compile(r"\w(?:[\w.\-']*\w)?")
_MAX_ENTITIES = 32
_MAX_NAME = 120  # longer "names" are runs of capitalised text, not entities
_MAX_WORDS = 6


def entity_key(name: str) -> str:
    """The normal form two spellings of one entity share."""
    text = unicodedata.normalize("NFKC", name).casefold().strip()
    if _EMAIL.fullmatch(text) or text.startswith("@"):
        return text
    if _URL.match(text):
        return text.rstrip("/.,;")
    words = ("".join(ch for ch in word if ch.isalnum()) for word in text.split())
    return " ".join(w for w in words if w)


def _is_proper(tok: str) -> bool:
    """Capitalised, or a code: a digit plus a letter or hyphen (``T14``, ``TN-2420``)."""
    if tok[0].isupper():
        return True
    return _DIGIT.search(tok) is not None and (
        not tok.isdigit() and _ALPHA_OR_HYPHEN.search(tok) is not None
    )


def _runs(text: str) -> list[str]:
    """Maximal runs of adjacent proper-noun-like words, without sentence-initial stop words.

    Punctuation at a word's edge ends the run (``Smith.``, ``(Alice``); inner punctuation stays
    (``Wi-Fi``, ``TN-2420``). Splitting on whitespace keeps this cheap on the write path.
    """
    runs: list[str] = []
    current: list[str] = []
    for piece in text.split():
        if current and piece[0] in _EDGE:
            runs.append(" ".join(current))
            current = []
        word = piece.strip(_EDGE).removesuffix("'s").removesuffix("\u2019s")
        if word and _is_proper(word) and (current or word.lower() not in STOP_WORDS):
            current.append(word)
        elif current:
            runs.append(" ".join(current))
            current = []
        if current and piece[-1] in _EDGE:
            runs.append(" ".join(current))
            current = []
    if current:
        runs.append(" ".join(current))
    return runs


def extract_entities(text: str) -> list[str]:
    """Entity display names found in ``text``: first spelling wins, one per key, in order."""
    found: list[str] = []
    rest = text
    if "@" in rest or "://" in rest:  # cheap test first: most facts hold neither
        for pattern in (_URL, _EMAIL, _HANDLE):
            found.extend(m.group().rstrip("/.,;") for m in pattern.finditer(rest))
            rest = pattern.sub(" , ", rest)
    if '"' in rest or "'" in rest or "\u201c" in rest:
        for m in _QUOTED.finditer(rest):
            found.append(next(g for g in m.groups() if g))
        rest = _QUOTED.sub(" , ", rest)
    found.extend(_runs(rest))
    seen: set[str] = set()
    unique: list[str] = []
    for name in found:
        key = entity_key(name)
        too_long = len(name) > _MAX_NAME or name.count(" ") >= _MAX_WORDS
        if key and key not in seen and key not in STOP_WORDS and not too_long:
            seen.add(key)
            unique.append(name.strip())
    return unique[:_MAX_ENTITIES]


def query_keys(query: str) -> list[tuple[str, float]]:
    """Keys a query may name, with how much a match counts, strongest first.

    Extracted entities and content-word bigrams count fully; single words (queries are often
    typed in lower case) count half, so "alice" alone cannot outweigh "Alice Smith".
    """
    words = [entity_key(w) for w in _TOKEN.findall(query)]
    content = [w for w in words if w and w not in STOP_WORDS]
    keys = [(entity_key(e), 1.0) for e in extract_entities(query)]
    keys += [(f"{a} {b}", 1.0) for a, b in itertools.pairwise(content)]
    keys += [(w, 0.5) for w in content]
    seen: set[str] = set()
    out = []
    for key, weight in keys:
        if key and key not in seen:
            seen.add(key)
            out.append((key, weight))
    return out[:24]
