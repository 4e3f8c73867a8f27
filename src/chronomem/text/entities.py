"""Deterministic entity extraction and normalisation (no model, no network).

An entity is a run of proper-noun-like tokens (``Alice``, ``Project Falcon``), a product or model
code (``ThinkPad T14``, ``TN-2420``), a quoted term, an e-mail address, a URL or an @handle. Its
key folds case, Unicode compatibility forms and in-word punctuation, so ``TN-2420``, ``tn2420``
and full-width forms resolve to one entity, and ``ThinkPad T14``, ``thinkpad t14``,
``ThinkPad-T14``, ``thinkpad_t14`` and ``ThinkPad/T14`` to another.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from chronomem.text.tokens import STOP_WORDS

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
_MAX_KEYS = 48  # a question's keys: up to 12 content words' runs and words


@lru_cache(maxsize=8192)  # pure, and called for every name of every fact and query
def entity_key(name: str) -> str:
    """The normal form two spellings of one entity share.

    Case and Unicode compatibility forms fold; an e-mail, URL or @handle keeps its form.
    Otherwise each whitespace-separated word is cut at its punctuation (``- _ / . '`` and the
    like) into runs of letters and digits, which are joined again, except that punctuation
    next to a code mixing letters and digits (``T14``, ``S25``) separates words as a space
    does. So ``TN-2420``, ``TN_2420`` and ``tn2420`` agree, ``Wi-Fi`` and ``wifi`` agree, and
    ``ThinkPad-T14``, ``thinkpad_t14``, ``ThinkPad/T14`` and ``ThinkPad T-14`` all read
    ``thinkpad t14``. Whitespace stays a word break (``TN 2420`` is another entity), which
    recall relies on to extend a key word by word (``thinkpad`` -> ``thinkpad t14``). A
    possessive ``'s`` is dropped, and a trailing ``+`` or ``#`` kept (``C``, ``C++``, ``C#``).
    """
    text = unicodedata.normalize("NFKC", name).casefold().strip()
    if _EMAIL.fullmatch(text) or text.startswith("@"):
        return text
    if _URL.match(text):
        return text.rstrip("/.,;")
    return " ".join(w for w in map(_word_key, text.split()) if w)


_POSSESSIVE = re.compile(r"['\u2019]s$")
_SEGMENT = re.compile(r"[^\W_]+")  # a run of letters and digits between punctuation
_TAIL = re.compile(r"[+#]+$")  # c++, c#, f#


def _is_code(segment: str) -> bool:
    return not segment.isalpha() and not segment.isdigit()


def _word_key(word: str) -> str:
    tail = _TAIL.search(word)
    segments = _SEGMENT.findall(_POSSESSIVE.sub("", word))
    key = "".join(
        (" " if i and (_is_code(segments[i - 1]) or _is_code(seg)) else "") + seg
        for i, seg in enumerate(segments)
    )
    return key + tail.group() if key and tail else key


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

    Extracted entities and runs of two to four content words count fully; single words
    (queries are often typed in lower case) count half, so "alice" alone cannot outweigh
    "Alice Smith". A run longer than a pair names what extraction cuts short: "Hugo Xu 00731"
    (a number ends a run of capitalised words) or "project falcon alpha" typed in lower case.
    """
    words = [entity_key(w) for w in _TOKEN.findall(query)]
    content = [w for w in words if w and w not in STOP_WORDS]
    keys = [(entity_key(e), 1.0) for e in extract_entities(query)]
    for n in (2, 3, 4):
        keys += [(" ".join(content[i : i + n]), 1.0) for i in range(len(content) - n + 1)]
    keys += [(w, 0.5) for w in content]
    seen: set[str] = set()
    out = []
    for key, weight in keys:
        if key and key not in seen:
            seen.add(key)
            out.append((key, weight))
    return out[:_MAX_KEYS]
