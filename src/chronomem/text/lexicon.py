"""Text to index terms: one tokenizer and one stemmer for the lexical index of every backend.

chronomem stems words itself (Snowball's English stemmer, the Porter2 algorithm) and hands the
engine ready-made terms, instead of letting SQLite's ``porter`` tokenizer do it. Two reasons:
the ranking is computed by chronomem (BM25 with parameters tuned for short conversational
turns, which FTS5's ``bm25()`` does not expose), and the same terms must rank the same on every
backend, whatever full-text machinery the engine has.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache
from itertools import pairwise
from typing import Any

import snowballstemmer

from chronomem.text.tokens import STOP_WORDS
from chronomem.text.wordforms import base_form, fold, without_days

__all__ = ["QUESTION_WORDS", "TIME_TERMS", "index_terms", "query_terms", "stem", "term"]

_WORD = re.compile(r"\w+")
_CLAUSE = re.compile(r"[^\w\s]")  # punctuation: words on either side do not form a compound
_local = threading.local()

# Words that frame a question rather than name its subject ("What *kind* of painting did she
# *share*?"). Dropping them from a query keeps them from matching every chatty turn.
QUESTION_WORDS = frozenset(
    """kind type sort mention mentioned share shared think thought thing things something
    likely would could many much ever recently get got go went one new""".split()  # noqa: SIM905 -- prose list
)

_TIME_WORDS = """yesterday today tomorrow ago last next week weekend month year weeks months years
    monday tuesday wednesday thursday friday saturday sunday january february march april may
    june july august september october november december recently soon earlier later tonight
    morning evening night day days since before after"""


def _stemmer() -> Any:
    # Snowball stemmers keep state between calls: one per thread.
    st = getattr(_local, "stemmer", None)
    if st is None:
        st = _local.stemmer = snowballstemmer.stemmer("english")
    return st


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Porter2 stem of a lower-case word (cached: conversation reuses its words)."""
    result: str = _stemmer().stemWord(word)
    return result


@lru_cache(maxsize=65536)
def term(word: str) -> str:
    """The index term of a lower-case word: its Porter2 stem, with an irregular verb form or
    a number word brought to its base first and a derivational ending folded after (see
    text/wordforms.py), so "broke"/"broken"/"break", "three"/"3" and "allergic"/"allergies" meet."""
    return fold(stem(base_form(word)))


def index_terms(text: str) -> list[str]:
    """The terms of ``text``'s content words, in order and with repetition (stop words out)."""
    return [term(w) for w in _WORD.findall(text.lower()) if w not in STOP_WORDS]


def _compounds(words: list[str]) -> list[str]:
    # "smart watch" also asks for "smartwatch", the term of the closed compound. Only the
    # query joins (a few extra terms); joining every pair in the index would double it.
    content = [w.isalpha() and w not in STOP_WORDS and w not in QUESTION_WORDS for w in words]
    return [
        term(a + b) for i, (a, b) in enumerate(pairwise(words)) if content[i] and content[i + 1]
    ]


def query_terms(text: str) -> list[str]:
    """The distinct terms a query searches for: content words minus question framing words,
    then each pair of adjacent content words joined (see :func:`_compounds`).

    A query made only of framing words ("what did they do?") keeps its non-stop words, so it
    still finds something.
    """
    raw = without_days(_WORD.findall(text.lower()))
    words = [w for w in raw if w not in STOP_WORDS]
    kept = [w for w in words if w not in QUESTION_WORDS] or words
    joined = [t for part in _CLAUSE.split(text.lower()) for t in _compounds(_WORD.findall(part))]
    return list(dict.fromkeys([*(term(w) for w in kept), *joined]))


TIME_TERMS = frozenset(term(w) for w in _TIME_WORDS.split())
