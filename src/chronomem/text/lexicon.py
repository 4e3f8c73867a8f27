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
from typing import Any

import snowballstemmer

from chronomem.text.tokens import STOP_WORDS

__all__ = ["QUESTION_WORDS", "TIME_TERMS", "index_terms", "query_terms", "stem"]

_WORD = re.compile(r"\w+")
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


def index_terms(text: str) -> list[str]:
    """The stems of ``text``'s content words, in order and with repetition (stop words out)."""
    return [stem(w) for w in _WORD.findall(text.lower()) if w not in STOP_WORDS]


def query_terms(text: str) -> list[str]:
    """The distinct stems a query searches for: content words minus question framing words.

    A query made only of such words ("what did they do?") keeps its non-stop words, so it
    still finds something.
    """
    words = [w for w in _WORD.findall(text.lower()) if w not in STOP_WORDS]
    kept = [w for w in words if w not in QUESTION_WORDS] or words
    return list(dict.fromkeys(stem(w) for w in kept))


TIME_TERMS = frozenset(stem(w) for w in _TIME_WORDS.split())
